#include "analysis/detector.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace traindeck::analysis::detectors {

// ---- stragglers -----------------------------------------------------------------------------
//
// Paired per step: each rank's excess over the median of the other ranks, as a share of the typical
// rank's own step (so a delay costs the same wherever it sits, and every step is its own control for the
// load of the machine). The own step (data + compute + transfer, no waiting) and not the step itself:
// with many ranks the step is the slowest of them, and one-step spikes somewhere among 1,024 ranks made
// it three times a rank's compute, so a rank 10 % slower showed as 3 % of it. Over a trailing window: location = the
// rank's winsorized mean excess (steps beyond kClip robust sigmas of its median clipped there, so a spike counts as a
// big step, not as ten); noise = the pooled standard deviation of every rank's clipped excess around its own mean, so a
// slow rank does not inflate it; the mean's standard error = sigma / sqrt(effective steps). A rank
// is raised when its location is at least the minimum effect and its z = location / standard error
// passes the threshold; it is resolved when the location of its last few steps falls under half the
// minimum effect. Confidence is one-sided and Bonferroni-corrected over the ranks.
//
// Why a mean and not a median: when ranks take turns on cores of different speed, the excess runs
// in a cycle (+20, +35, +5 ms, ...). Its distribution has two or three modes; the median jumps between
// them and the median absolute deviation is as wide as the cycle, while the cycle cancels in a mean.

namespace {

struct Excess {
    std::vector<std::vector<double>> share; // [rank][row - r0]: (own - others' median) / step
    std::vector<std::vector<double>> own, others;
};

// The units compared: every rank on its own (groups empty), or the ranks of each host together, a unit's
// value then being the median of its ranks' (so one slow rank among three or more does not move it).
Excess excessOf(const Context& c, bool data, const std::vector<std::vector<int>>& groups = {})
{
    const size_t rows = size_t(c.r1 - c.r0);
    const int units = groups.empty() ? c.n : int(groups.size());
    Excess e;
    e.share.assign(size_t(units), std::vector<double>(rows, kNaN));
    e.own = e.others = e.share;
    std::vector<double> v(static_cast<size_t>(units)), sorted(static_cast<size_t>(units)), members;
    for (size_t i = 0; i < rows; ++i) {
        const qint64 row = c.r0 + qint64(i);
        const double stepMs = c.ownStepMs(row);
        bool ok = stepMs > 0;
        for (int k = 0; k < units; ++k) {
            auto valueOf = [&](int rank) { return data ? c.rank(RankMetric::Data, rank, row) : c.compute(row, rank); };
            if (groups.empty()) {
                v[size_t(k)] = valueOf(k);
            } else {
                members.clear();
                for (int rank : groups[size_t(k)])
                    members.push_back(valueOf(rank));
                v[size_t(k)] = median(members);
            }
            ok = ok && std::isfinite(v[size_t(k)]);
        }
        if (!ok)
            continue;
        sorted = v;
        std::sort(sorted.begin(), sorted.end());
        for (int k = 0; k < units; ++k) {
            // Median of the others: the sorted values without one copy of v[k].
            const size_t p = size_t(std::lower_bound(sorted.begin(), sorted.end(), v[size_t(k)]) - sorted.begin());
            const size_t m = size_t(units - 1);
            auto at = [&](size_t j) { return sorted[j < p ? j : j + 1]; };
            const double med = m % 2 ? at(m / 2) : (at(m / 2 - 1) + at(m / 2)) / 2;
            e.share[size_t(k)][i] = (v[size_t(k)] - med) / stepMs;
            e.own[size_t(k)][i] = v[size_t(k)];
            e.others[size_t(k)][i] = med;
        }
    }
    return e;
}

struct Episode {
    bool active = false;
    size_t startRow = 0, raisedRow = 0, lastRow = 0, resolvedRow = 0;
    double z = 0, location = 0;
    size_t window = 0;
};

struct StragglerTest {
    double zRaise = 0;                            // z a rank must pass to be raised
    size_t W = 0, minSteps = 0, resolveSteps = 0; // the trailing window, its least length, the resolving steps
};

// What the trailing-window test leaves: every episode (finished or still active at the end, with its rank)
// and each rank's last location, z and window, for the tentative findings.
struct Tracking {
    std::vector<Episode> current; // by rank: the episode under way
    std::vector<Episode> done;    // finished episodes, rank in `doneRank`
    std::vector<int> doneRank;
    std::vector<double> location, z;
    std::vector<size_t> width;
    size_t lastW = 0;
};

// Runs the test step by step over the rows: raises a rank whose excess passes it, resolves it when its
// last few steps fall under half the minimum effect.
Tracking track(const Context& c, const Excess& e, const StragglerTest& t)
{
    const DiagnosisOptions& o = c.o;
    const size_t rows = size_t(c.r1 - c.r0);
    const double zRaise = t.zRaise;
    const size_t W = t.W, minSteps = t.minSteps, resolveSteps = t.resolveSteps;
    Tracking result;
    auto& current = result.current;
    auto& done = result.done;
    auto& doneRank = result.doneRank;
    auto& location = result.location;
    auto& z = result.z;
    auto& width = result.width;
    auto& lastW = result.lastW;
    current.assign(size_t(c.n), Episode{});
    location.assign(size_t(c.n), 0.0);
    z.assign(size_t(c.n), 0.0);
    width.assign(size_t(c.n), 0);
    std::vector<double> devs;
    std::vector<size_t> lengths, available(size_t(c.n), 0);
    std::vector<double> centred, centres(size_t(c.n));
    std::vector<size_t> notBefore(size_t(c.n), 0); // a resolved episode's steps do not raise the next one

    auto finish = [&](int k, size_t row, bool resolved) {
        Episode ep = current[size_t(k)];
        ep.resolvedRow = resolved ? row : 0;
        ep.active = !resolved;
        done.push_back(ep);
        doneRank.push_back(k);
        current[size_t(k)] = Episode{};
    };

    for (size_t i = 0; i < rows; ++i) {
        const size_t w = std::min(i + 1, W);
        if (w < minSteps)
            continue;
        const size_t from = i + 1 - w;
        devs.clear();
        Signs signs;
        for (int k = 0; k < c.n; ++k) {
            const auto& x = e.share[size_t(k)];
            const double centre = medianOf(x, from, i + 1);
            centres[size_t(k)] = centre;
            centred.clear();
            for (size_t j = from; j <= i; ++j) {
                centred.push_back(x[j] - centre);
                if (std::isfinite(x[j]))
                    devs.push_back(std::fabs(x[j] - centre));
            }
            signs.add(centred.data(), centred.size());
            const size_t own = std::max(from, notBefore[size_t(k)]);
            width[size_t(k)] = i + 1 - own;
        }
        // Robust sigma for the clipping; the test's sigma is the spread of the clipped steps. Of many ranks'
        // deviations (30 steps x 1,024 ranks) an even sample of 8,192 gives the median within about 1 %, at a
        // fraction of the cost (it was the largest part of an analysis).
        constexpr size_t kMaxDeviations = 8192;
        if (devs.size() > kMaxDeviations) {
            const size_t stride = (devs.size() + kMaxDeviations - 1) / kMaxDeviations;
            size_t kept = 0;
            for (size_t j = 0; j < devs.size(); j += stride)
                devs[kept++] = devs[j];
            devs.resize(kept);
        }
        const double robust = std::max(1.4826 * median(devs), o.stragglerNoiseFloor);
        double squares = 0;
        size_t count = 0;
        for (int k = 0; k < c.n; ++k) {
            const std::vector<double> clipped =
                winsorizedAround(e.share[size_t(k)], from, i + 1, robust, centres[size_t(k)]);
            const double mean = meanOf(clipped);
            for (double y : clipped)
                squares += (y - mean) * (y - mean);
            count += clipped.size();
        }
        const double sigma = std::max(count > size_t(c.n) ? std::sqrt(squares / double(count - size_t(c.n))) : robust,
                                      o.stragglerNoiseFloor);
        const double independent = signs.independentShare();
        lastW = w;
        for (int k = 0; k < c.n; ++k) {
            // The whole window and its second half: a straggler that starts mid-run is seen by the
            // half window long before it dominates the whole one. Each is a test of its own; the
            // better one that shows the effect counts.
            location[size_t(k)] = z[size_t(k)] = kNaN;
            const size_t avail = width[size_t(k)];
            lengths.clear();
            if (avail >= minSteps)
                lengths.push_back(avail);
            if (avail > W / 2 && W / 2 >= minSteps)
                lengths.push_back(W / 2);
            for (size_t len : lengths) {
                const double loc =
                    i + 1 - len == from // the whole window: its median is known
                        ? winsorizedMeanAround(e.share[size_t(k)], from, i + 1, robust, centres[size_t(k)])
                        : winsorizedMean(e.share[size_t(k)], i + 1 - len, i + 1, robust);
                const double zz = loc / (sigma / std::sqrt(double(len) * independent));
                const bool shows = loc >= o.stragglerMinEffect, best = location[size_t(k)] >= o.stragglerMinEffect;
                if (!std::isfinite(z[size_t(k)]) || (shows && (!best || zz > z[size_t(k)])) ||
                    (!shows && !best && zz > z[size_t(k)])) {
                    location[size_t(k)] = loc;
                    z[size_t(k)] = zz;
                    width[size_t(k)] = len;
                }
            }
            available[size_t(k)] = avail;
            Episode& ep = current[size_t(k)];
            if (!ep.active) {
                if (location[size_t(k)] >= o.stragglerMinEffect && z[size_t(k)] >= zRaise) {
                    ep.active = true;
                    // Where it began (the window's first step may predate it): the change point
                    // that maximises the suffix sum of the excess over half the effect (CUSUM),
                    // with single steps clamped so a spike cannot move it.
                    const size_t own = i + 1 - available[size_t(k)];
                    double sum = 0, best = -1;
                    ep.startRow = own;
                    for (size_t j = i + 1; j-- > own;) {
                        const double x = e.share[size_t(k)][j];
                        sum += (std::isfinite(x) ? std::clamp(x, -0.5, 0.5) : 0.0) - o.stragglerMinEffect / 2;
                        if (sum > best) {
                            best = sum;
                            ep.startRow = j;
                        }
                    }
                    ep.raisedRow = i;
                    ep.lastRow = i;
                    ep.z = z[size_t(k)];
                    ep.location = location[size_t(k)];
                    ep.window = width[size_t(k)];
                }
                continue;
            }
            const size_t recentFrom = i + 1 - std::min(resolveSteps, w);
            if (winsorizedMean(e.share[size_t(k)], recentFrom, i + 1, robust) < o.stragglerMinEffect / 2) {
                finish(k, i, true);
                notBefore[size_t(k)] = i + 1;
                continue;
            }
            ep.lastRow = i;
            if (location[size_t(k)] >= o.stragglerMinEffect) {
                ep.z = z[size_t(k)];
                ep.location = location[size_t(k)];
                ep.window = width[size_t(k)];
            }
        }
    }
    for (int k = 0; k < c.n; ++k)
        if (current[size_t(k)].active)
            finish(k, rows - 1, false);

    return result;
}

// What an episode's finding states, from the last window in which it held: the medians of the unit's
// (a rank's or a host's) and the others' time, the excess, what it costs the job, the test's numbers.
struct EpisodeNumbers {
    double mine = kNaN, others = kNaN, waitMs = kNaN, excessFrac = kNaN, confidence = 0;
    int above = 0;
    size_t window = 0;
};

// The finding of unit u's episode (kind, severity, state, steps, evidence) for `ranks`; `units` is the
// number of units tested (for the confidence). The caller writes the texts.
Finding episodeBase(const Context& c, const Excess& e, const Episode& ep, size_t u, const QList<int>& ranks, int units,
                    bool data, size_t minSteps, EpisodeNumbers& n)
{
    const DiagnosisOptions& o = c.o;
    const size_t to = ep.lastRow + 1, from = to - std::min(to, std::max(ep.window, minSteps));
    std::vector<double> mine, others, excessMs, steps;
    for (size_t j = from; j < to; ++j) {
        mine.push_back(e.own[u][j]);
        others.push_back(e.others[u][j]);
        excessMs.push_back(e.own[u][j] - e.others[u][j]);
        steps.push_back(c.stepMs(c.r0 + qint64(j)));
        n.above += e.share[u][j] > 0;
    }
    n.window = to - from;
    n.mine = median(mine);
    n.others = median(others);
    n.waitMs = median(excessMs);
    n.excessFrac = n.others > 0 ? n.waitMs / n.others : kNaN;
    const double stepMs = median(steps);
    // How much faster the job would run without this excess.
    const double slowdown = stepMs > n.waitMs && n.waitMs > 0 ? n.waitMs / (stepMs - n.waitMs) : kNaN;
    n.confidence = confidenceOf(ep.z, units);

    Finding f = c.make(FindingKind::Straggler, ranks);
    f.severity = slowdown >= o.stragglerCritical ? Severity::Critical : Severity::Warning;
    f.state = ep.active ? FindingState::Active : FindingState::Resolved;
    f.firstStep = qint64(c.step(c.r0 + qint64(ep.startRow)));
    f.lastStep = qint64(c.step(c.r0 + qint64(ep.lastRow)));
    f.raisedStep = qint64(c.step(c.r0 + qint64(ep.raisedRow)));
    if (!ep.active)
        f.resolvedStep = qint64(c.step(c.r0 + qint64(ep.resolvedRow)));
    f.addEvidence(data ? QStringLiteral("data_ms") : QStringLiteral("compute_ms"), n.mine);
    f.addEvidence(data ? QStringLiteral("others_data_ms") : QStringLiteral("others_compute_ms"), n.others);
    f.addEvidence(QStringLiteral("excess_pct"), n.excessFrac * 100.0);
    f.addEvidence(QStringLiteral("step_share_pct"), ep.location * 100.0);
    f.addEvidence(QStringLiteral("job_slowdown_pct"), slowdown * 100.0);
    f.addEvidence(QStringLiteral("others_wait_ms"), n.waitMs); // what every other rank waits per step
    f.addEvidence(QStringLiteral("steps_above"), n.above);
    f.addEvidence(QStringLiteral("window"), double(n.window));
    f.addEvidence(QStringLiteral("z"), ep.z);
    f.addEvidence(QStringLiteral("confidence_pct"), n.confidence * 100.0);
    f.addEvidence(QStringLiteral("data_cause"), data ? 1 : 0);
    return f;
}

// The finding of one episode of rank k, with the evidence of the last window in which it held.
Finding episodeFinding(const Context& c, const Excess& e, const Episode& ep, int k, bool data, size_t minSteps)
{
    EpisodeNumbers n;
    Finding f = episodeBase(c, e, ep, size_t(k), {k}, c.n, data, minSteps, n);
    const double mineMed = n.mine, othersMed = n.others, waitMs = n.waitMs, excessFrac = n.excessFrac;
    const double confidence = n.confidence;
    const int above = n.above;
    const QString who = rankLabel(c, k);
    const QString stats =
        tr("%1 of the last %2 steps slower, %3% confidence").arg(above).arg(n.window).arg(confidenceText(confidence));
    if (data) {
        f.summary = tr("%1 is a straggler: its data loading takes %2% longer than the other ranks' (%3 ms vs "
                       "%4 ms; %5)")
                        .arg(who, pct(excessFrac), ms(mineMed), ms(othersMed), stats);
        f.recommendation = tr("Check the input pipeline on %1: local disk or network file system speed, data loader "
                              "workers, CPU load from other processes; pre-shard or cache the data set on local disk.")
                               .arg(who);
    } else {
        f.summary = tr("%1 is a straggler: its compute takes %2% longer than the other ranks' (%3 ms vs %4 ms; "
                       "%5)")
                        .arg(who, pct(excessFrac), ms(mineMed), ms(othersMed), stats);
        f.recommendation =
            tr("Every other rank waits about %1 ms per step for %2. Check that device for thermal or power "
               "throttling, a slower model or clock, other jobs sharing it, or CPU threads oversubscribed "
               "on its host. If it persists, let the trainer give it a smaller share of each batch "
               "(\"balance\": \"auto\" in the job spec, --balance auto), or exclude that host from the "
               "hostfile.")
                .arg(ms(waitMs), who);
    }
    if (f.state == FindingState::Resolved)
        f.summary = tr("Resolved at step %1: %2").arg(f.resolvedStep).arg(f.summary);
    return f;
}

// Not enough evidence yet: a rank that looks slower now but has not passed the test.
void tentativeFindings(const Context& c, const Tracking& t, bool data, double zRaise, QList<Finding>& out)
{
    const DiagnosisOptions& o = c.o;
    const auto& current = t.current;
    const auto& done = t.done;
    const auto& doneRank = t.doneRank;
    const auto& location = t.location;
    const auto& z = t.z;
    const auto& width = t.width;
    for (int k = 0; k < c.n; ++k) {
        if (current[size_t(k)].active || !(location[size_t(k)] >= o.stragglerMinEffect) ||
            z[size_t(k)] < o.stragglerTentativeZ || z[size_t(k)] >= zRaise)
            continue;
        bool raised = false;
        for (size_t d = 0; d < done.size(); ++d)
            raised = raised || (doneRank[d] == k && done[d].active);
        if (raised)
            continue;
        Finding f = c.make(FindingKind::Straggler, {k});
        f.severity = Severity::Info;
        f.state = FindingState::Tentative;
        f.firstStep = qint64(c.step(c.r1 - qint64(width[size_t(k)])));
        f.lastStep = qint64(c.step(c.r1 - 1));
        f.addEvidence(QStringLiteral("step_share_pct"), location[size_t(k)] * 100.0);
        f.addEvidence(QStringLiteral("window"), double(width[size_t(k)]));
        f.addEvidence(QStringLiteral("z"), z[size_t(k)]);
        f.addEvidence(QStringLiteral("confidence_pct"), confidenceOf(z[size_t(k)], c.n) * 100.0);
        f.addEvidence(QStringLiteral("data_cause"), data ? 1 : 0);
        f.summary = tr("%1 may be slower (%2 % of the step over the last %3 steps): not enough evidence yet")
                        .arg(rankLabel(c, k), QString::number(location[size_t(k)] * 100, 'f', 1))
                        .arg(width[size_t(k)]);
        f.recommendation = tr("Nothing to do yet: TrainDeck keeps measuring and raises a straggler finding once "
                              "the difference is clear of the noise.");
        out.append(f);
    }
}

// The ranks of each host, in host order of first rank, when the hosts can be told apart from their ranks: at
// least two hosts, each with three or more ranks (with two, one slow rank would move its host's median as
// much as a slow host). Empty otherwise.
std::vector<std::vector<int>> hostGroups(const Context& c, QStringList& names)
{
    std::vector<std::vector<int>> groups;
    names.clear();
    for (int k = 0; k < c.n; ++k) {
        const QString host = c.s.hostOf(k);
        if (host.isEmpty())
            return {};
        const qsizetype at = names.indexOf(host);
        if (at < 0) {
            names.append(host);
            groups.push_back({k});
        } else {
            groups[size_t(at)].push_back(k);
        }
    }
    for (const auto& g : groups)
        if (g.size() < 3)
            return {};
    return groups.size() >= 2 ? groups : std::vector<std::vector<int>>{};
}

// The finding of a host whose ranks are all slower (unit u of the host-level excess): one finding that names
// the host and all its ranks, instead of one per rank.
Finding hostFinding(const Context& c, const Excess& e, const Episode& ep, size_t u, const std::vector<int>& ranks,
                    const QString& host, int hosts, bool data, size_t minSteps)
{
    EpisodeNumbers n;
    Finding f = episodeBase(c, e, ep, u, QList<int>(ranks.begin(), ranks.end()), hosts, data, minSteps, n);
    const double mineMed = n.mine, othersMed = n.others, excessFrac = n.excessFrac, confidence = n.confidence;
    const int above = n.above;
    f.addEvidence(QStringLiteral("host_ranks"), double(ranks.size()));
    const QString stats =
        tr("%1 of the last %2 steps slower, %3% confidence").arg(above).arg(n.window).arg(confidenceText(confidence));
    if (data) {
        f.summary = tr("Host %1 is slow: the data loading of its %2 ranks takes %3% longer than the other hosts' "
                       "(%4 ms vs %5 ms; %6)")
                        .arg(host)
                        .arg(ranks.size())
                        .arg(pct(excessFrac), ms(mineMed), ms(othersMed), stats);
        f.recommendation = tr("Every rank on %1 waits longer for its data, so the cause is the host, not one rank: "
                              "its local disk or network file system, CPU load from other processes, or too few "
                              "data loader threads for its ranks.")
                               .arg(host);
    } else {
        f.summary = tr("Host %1 is slow: the compute of its %2 ranks takes %3% longer than the other hosts' (%4 ms "
                       "vs %5 ms; %6)")
                        .arg(host)
                        .arg(ranks.size())
                        .arg(pct(excessFrac), ms(mineMed), ms(othersMed), stats);
        f.recommendation = tr("Every rank on %1 is slower, so the cause is the host, not one device: power or "
                              "thermal limits, clocks, CPU threads oversubscribed, other jobs on the node. "
                              "Check it, give it a smaller share of each batch (--balance auto), or exclude it "
                              "from the hostfile.")
                               .arg(host);
    }
    if (f.state == FindingState::Resolved)
        f.summary = tr("Resolved at step %1: %2").arg(f.resolvedStep).arg(f.summary);
    return f;
}

} // namespace

void stragglers(const Context& whole, QList<Finding>& out)
{
    Context c = whole;
    if (c.o.stragglerSteps > 0)
        c.r0 = std::max(c.r0, c.r1 - c.o.stragglerSteps);
    const DiagnosisOptions& o = c.o;
    const size_t rows = size_t(c.r1 - c.r0);
    if (c.n < 2 || rows == 0)
        return;
    StragglerTest test;
    test.zRaise = Diagnosis::stragglerZ(o, c.n);
    test.W = size_t(std::max(o.window, o.stragglerMinSteps));
    test.minSteps = size_t(std::max(2, o.stragglerMinSteps));
    test.resolveSteps = size_t(std::max(1, o.stragglerResolveSteps));

    // Hosts are tested too, each one's ranks together (their median against the other hosts'): a host whose
    // ranks are all slower is named once, as the host, and its ranks' own episodes then are not repeated.
    QStringList hostNames;
    const std::vector<std::vector<int>> groups = hostGroups(c, hostNames);
    std::vector<int> hostOfRank(size_t(c.n), -1);
    for (size_t g = 0; g < groups.size(); ++g)
        for (int k : groups[g])
            hostOfRank[size_t(k)] = int(g);
    StragglerTest hostTest = test;
    hostTest.zRaise = Diagnosis::stragglerZ(o, int(groups.size()));

    for (const bool data : {false, true}) {
        const Excess e = excessOf(c, data);
        const Tracking t = track(c, e, test);
        Tracking hostTracking;
        Excess hostExcess;
        if (!groups.empty()) {
            Context byHost = c;
            byHost.n = int(groups.size());
            hostExcess = excessOf(c, data, groups);
            hostTracking = track(byHost, hostExcess, hostTest);
            for (size_t d = 0; d < hostTracking.done.size(); ++d) {
                const size_t g = size_t(hostTracking.doneRank[d]);
                out.append(hostFinding(c, hostExcess, hostTracking.done[d], g, groups[g], hostNames[qsizetype(g)],
                                       int(groups.size()), data, hostTest.minSteps));
            }
        }
        auto coveredByHost = [&](const Episode& ep, int k) {
            for (size_t d = 0; d < hostTracking.done.size(); ++d) {
                const Episode& h = hostTracking.done[d];
                if (hostTracking.doneRank[d] == hostOfRank[size_t(k)] && ep.startRow <= h.lastRow &&
                    h.startRow <= ep.lastRow)
                    return true;
            }
            return false;
        };
        for (size_t d = 0; d < t.done.size(); ++d)
            if (!coveredByHost(t.done[d], t.doneRank[d]))
                out.append(episodeFinding(c, e, t.done[d], t.doneRank[d], data, test.minSteps));
        if (t.lastW > 0)
            tentativeFindings(c, t, data, test.zRaise, out);
    }
}

} // namespace traindeck::analysis::detectors
