#include "analysis/diagnosis.h"

#include <QCoreApplication>
#include <QHash>
#include <QJsonArray>
#include <QMap>
#include <QSet>

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <vector>

namespace traindeck::analysis {

using metrics::MetricStore;
using metrics::RankMetric;
using metrics::Scalar;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

QString tr(const char* s, const char* disambiguation = nullptr, int n = -1)
{
    return QCoreApplication::translate("traindeck::analysis::Diagnosis", s, disambiguation, n);
}

double median(std::vector<double> v)
{
    v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return !std::isfinite(x); }), v.end());
    if (v.empty())
        return kNaN;
    const size_t m = v.size() / 2;
    std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(m), v.end());
    double hi = v[m];
    if (v.size() % 2)
        return hi;
    const double lo = *std::max_element(v.begin(), v.begin() + std::ptrdiff_t(m));
    return (lo + hi) / 2;
}

QString pct(double fraction)
{
    return QString::number(fraction * 100.0, 'f', 0);
}

QString ms(double v)
{
    return QString::number(v, 'f', v < 10 ? 2 : 1);
}

struct Context {
    const MetricStore& s;
    const DiagnosisOptions& o;
    qint64 r0 = 0, r1 = 0; // rows analysed: [r0, r1)
    int n = 0;             // ranks

    double step(qint64 row) const { return double(s.stepAt(row)); }
    double rank(RankMetric m, int k, qint64 row) const { return double(s.rankAt(m, k, row)); }
    double compute(qint64 row, int k) const
    {
        return rank(RankMetric::Fwd, k, row) + rank(RankMetric::Bwd, k, row) + rank(RankMetric::Opt, k, row);
    }
    // Median over ranks of a per-rank metric (or of compute when m is nullptr).
    double medianOverRanks(qint64 row, const RankMetric* m) const
    {
        std::vector<double> v(static_cast<size_t>(n));
        for (int k = 0; k < n; ++k)
            v[size_t(k)] = m ? rank(*m, k, row) : compute(row, k);
        return median(std::move(v));
    }
    double stepMs(qint64 row) const
    {
        static constexpr RankMetric m = RankMetric::Step;
        return medianOverRanks(row, &m);
    }
    Finding make(FindingKind kind, const QList<int>& ranks = {}) const
    {
        Finding f;
        f.kind = kind;
        f.ranks = ranks;
        for (int k : ranks)
            f.hosts.append(s.hostOf(k));
        return f;
    }
};

QString rankLabel(const Context& c, int k)
{
    const QString host = c.s.hostOf(k);
    return host.isEmpty() ? tr("rank %1").arg(k) : tr("rank %1 (%2)").arg(k).arg(host);
}

// ---- stragglers -----------------------------------------------------------------------------
//
// Paired per step: each rank's excess over the median of the other ranks, as a share of the step
// (so a delay costs the same wherever it sits, and every step is its own control for the load of the
// machine). Over a trailing window: location = the rank's winsorized mean excess (steps beyond
// kClip robust sigmas of its median clipped there, so a spike counts as a big step, not as ten);
// noise = the pooled standard deviation of every rank's clipped excess around its own mean, so a
// slow rank does not inflate it; the mean's standard error = sigma / sqrt(effective steps). A rank
// is raised when its location is at least the minimum effect and its z = location / standard error
// passes the threshold; it is resolved when the location of its last few steps falls under half the
// minimum effect. Confidence is one-sided and Bonferroni-corrected over the ranks.
//
// Why a mean and not a median: when ranks take turns on cores of different speed, the excess runs
// in a cycle (+20, +35, +5 ms, ...). Its distribution has two or three modes; the median jumps between
// them and the median absolute deviation is as wide as the cycle, while the cycle cancels in a mean.

constexpr double kClip = 2.5;

double confidenceOf(double z, int ranks)
{
    const double p = 0.5 * std::erfc(z / std::sqrt(2.0));
    return std::max(0.0, 1.0 - p * std::max(1, ranks));
}

QString confidenceText(double confidence)
{
    return confidence >= 0.9999 ? QStringLiteral("> 99.99") : QString::number(confidence * 100, 'f', 2);
}

struct Excess {
    std::vector<std::vector<double>> share; // [rank][row - r0]: (own - others' median) / step
    std::vector<std::vector<double>> own, others;
};

Excess excessOf(const Context& c, bool data)
{
    const size_t rows = size_t(c.r1 - c.r0);
    Excess e;
    e.share.assign(size_t(c.n), std::vector<double>(rows, kNaN));
    e.own = e.others = e.share;
    std::vector<double> v(size_t(c.n)), sorted(size_t(c.n));
    for (size_t i = 0; i < rows; ++i) {
        const qint64 row = c.r0 + qint64(i);
        const double stepMs = c.stepMs(row);
        bool ok = stepMs > 0;
        for (int k = 0; k < c.n; ++k) {
            v[size_t(k)] = data ? c.rank(RankMetric::Data, k, row) : c.compute(row, k);
            ok = ok && std::isfinite(v[size_t(k)]);
        }
        if (!ok)
            continue;
        sorted = v;
        std::sort(sorted.begin(), sorted.end());
        for (int k = 0; k < c.n; ++k) {
            // Median of the others: the sorted values without one copy of v[k].
            const size_t p = size_t(std::lower_bound(sorted.begin(), sorted.end(), v[size_t(k)]) - sorted.begin());
            const size_t m = size_t(c.n - 1);
            auto at = [&](size_t j) { return sorted[j < p ? j : j + 1]; };
            const double med = m % 2 ? at(m / 2) : (at(m / 2 - 1) + at(m / 2)) / 2;
            e.share[size_t(k)][i] = (v[size_t(k)] - med) / stepMs;
            e.own[size_t(k)][i] = v[size_t(k)];
            e.others[size_t(k)][i] = med;
        }
    }
    return e;
}

double medianOf(const std::vector<double>& v, size_t from, size_t to)
{
    return median(std::vector<double>(v.begin() + std::ptrdiff_t(from), v.begin() + std::ptrdiff_t(to)));
}

// v[from, to) without its NaNs, every value clipped to the median +- kClip * sigma.
std::vector<double> winsorized(const std::vector<double>& v, size_t from, size_t to, double sigma)
{
    const double centre = medianOf(v, from, to);
    std::vector<double> out;
    for (size_t j = from; j < to; ++j)
        if (std::isfinite(v[j]))
            out.push_back(std::clamp(v[j], centre - kClip * sigma, centre + kClip * sigma));
    return out;
}

double meanOf(const std::vector<double>& v)
{
    return v.empty() ? kNaN : std::accumulate(v.begin(), v.end(), 0.0) / double(v.size());
}

double winsorizedMean(const std::vector<double>& v, size_t from, size_t to, double sigma)
{
    return meanOf(winsorized(v, from, to, sigma));
}

// Neighbouring steps that are alike (slow drifts: other processes on a core, clocks) count as fewer
// independent samples. The share of independent ones, 1 / (1 + 2 sum of the lag-1..5 correlations), each
// correlation estimated from how often deviations that far apart share their sign (robust to spikes);
// Signs counts them. The correlations are summed with their signs and only the sum is kept from going
// negative (never more than one independent sample per step): clamping each lag at zero counted the
// estimates' own noise as drift (with 30 steps, white noise lost a quarter of its z on average) and ignored
// that an alternating pattern (ranks taking turns on a slower core) cancels in a median.
struct Signs {
    static constexpr int kLags = 5;
    std::array<int, kLags + 1> same{}, pairs{};

    // Deviations d[0..n) of one series from its centre.
    void add(const double* d, size_t n)
    {
        for (size_t j = 0; j < n; ++j) {
            if (!std::isfinite(d[j]) || d[j] == 0)
                continue;
            for (int lag = 1; lag <= kLags && size_t(lag) <= j; ++lag) {
                const double p = d[j - size_t(lag)];
                if (!std::isfinite(p) || p == 0)
                    continue;
                same[size_t(lag)] += (d[j] > 0) == (p > 0);
                ++pairs[size_t(lag)];
            }
        }
    }
    double independentShare() const
    {
        double sum = 0;
        for (int lag = 1; lag <= kLags; ++lag)
            if (pairs[size_t(lag)] > 0)
                sum += std::sin(M_PI * (double(same[size_t(lag)]) / pairs[size_t(lag)] - 0.5));
        return std::max(0.1, 1.0 / (1.0 + 2.0 * std::max(0.0, sum)));
    }
};

// Is the median of `v` above `threshold` beyond the noise of `v` itself? Robust sigma (MAD), the
// median's standard error with the effective sample size, and the one-sided confidence.
struct MedianTest {
    double median = kNaN, z = kNaN, confidence = 0;
    int samples = 0;
};

MedianTest medianAbove(const std::vector<double>& series, double threshold, double noiseFloor)
{
    std::vector<double> v;
    for (double x : series)
        if (std::isfinite(x))
            v.push_back(x);
    MedianTest t;
    t.samples = int(v.size());
    if (v.size() < 2)
        return t;
    t.median = median(v);
    std::vector<double> dev, signed_;
    for (double x : v) {
        dev.push_back(std::fabs(x - t.median));
        signed_.push_back(x - t.median);
    }
    Signs signs;
    signs.add(signed_.data(), signed_.size());
    const double sigma = std::max(1.4826 * median(dev), noiseFloor);
    const double se = 1.2533 * sigma / std::sqrt(double(v.size()) * signs.independentShare());
    t.z = (t.median - threshold) / se;
    t.confidence = confidenceOf(t.z, 1);
    return t;
}

void stragglers(const Context& whole, QList<Finding>& out)
{
    Context c = whole;
    if (c.o.stragglerSteps > 0)
        c.r0 = std::max(c.r0, c.r1 - c.o.stragglerSteps);
    const DiagnosisOptions& o = c.o;
    const size_t rows = size_t(c.r1 - c.r0);
    if (c.n < 2 || rows == 0)
        return;
    const double zRaise = Diagnosis::stragglerZ(o, c.n);
    const size_t W = size_t(std::max(o.window, o.stragglerMinSteps));
    const size_t minSteps = size_t(std::max(2, o.stragglerMinSteps));
    const size_t resolveSteps = size_t(std::max(1, o.stragglerResolveSteps));

    for (const bool data : {false, true}) {
        const Excess e = excessOf(c, data);
        struct Episode {
            bool active = false;
            size_t startRow = 0, raisedRow = 0, lastRow = 0, resolvedRow = 0;
            double z = 0, location = 0;
            size_t window = 0;
        };
        std::vector<Episode> current(size_t(c.n));
        std::vector<Episode> done; // finished episodes, rank in `doneRank`
        std::vector<int> doneRank;
        std::vector<double> location(size_t(c.n)), z(size_t(c.n)), devs;
        std::vector<size_t> lengths, available(size_t(c.n), 0);
        std::vector<double> centred;
        std::vector<size_t> notBefore(size_t(c.n), 0), width(size_t(c.n), 0); // a resolved episode's steps
        size_t lastW = 0;                                                     // do not raise the next one

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
            // Robust sigma for the clipping; the test's sigma is the spread of the clipped steps.
            const double robust = std::max(1.4826 * median(devs), o.stragglerNoiseFloor);
            double squares = 0;
            size_t count = 0;
            for (int k = 0; k < c.n; ++k) {
                const std::vector<double> clipped = winsorized(e.share[size_t(k)], from, i + 1, robust);
                const double mean = meanOf(clipped);
                for (double y : clipped)
                    squares += (y - mean) * (y - mean);
                count += clipped.size();
            }
            const double sigma = std::max(
                count > size_t(c.n) ? std::sqrt(squares / double(count - size_t(c.n))) : robust, o.stragglerNoiseFloor);
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
                    const double loc = winsorizedMean(e.share[size_t(k)], i + 1 - len, i + 1, robust);
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

        for (size_t d = 0; d < done.size(); ++d) {
            const Episode& ep = done[d];
            const int k = doneRank[d];
            // Evidence from the last window in which it held.
            const size_t to = ep.lastRow + 1, from = to - std::min(to, std::max(ep.window, minSteps));
            std::vector<double> mine, others, excessMs;
            int above = 0;
            for (size_t j = from; j < to; ++j) {
                mine.push_back(e.own[size_t(k)][j]);
                others.push_back(e.others[size_t(k)][j]);
                excessMs.push_back(e.own[size_t(k)][j] - e.others[size_t(k)][j]);
                above += e.share[size_t(k)][j] > 0;
            }
            const double mineMed = median(mine), othersMed = median(others), waitMs = median(excessMs);
            const double excessFrac = othersMed > 0 ? waitMs / othersMed : kNaN;
            std::vector<double> steps;
            for (size_t j = from; j < to; ++j)
                steps.push_back(c.stepMs(c.r0 + qint64(j)));
            const double stepMs = median(steps);
            // How much faster the job would run without this rank's excess.
            const double slowdown = stepMs > waitMs && waitMs > 0 ? waitMs / (stepMs - waitMs) : kNaN;
            const double confidence = confidenceOf(ep.z, c.n);

            Finding f = c.make(FindingKind::Straggler, {k});
            f.severity = slowdown >= o.stragglerCritical ? Severity::Critical : Severity::Warning;
            f.state = ep.active ? FindingState::Active : FindingState::Resolved;
            f.firstStep = qint64(c.step(c.r0 + qint64(ep.startRow)));
            f.lastStep = qint64(c.step(c.r0 + qint64(ep.lastRow)));
            f.raisedStep = qint64(c.step(c.r0 + qint64(ep.raisedRow)));
            if (!ep.active)
                f.resolvedStep = qint64(c.step(c.r0 + qint64(ep.resolvedRow)));
            f.addEvidence(data ? QStringLiteral("data_ms") : QStringLiteral("compute_ms"), mineMed);
            f.addEvidence(data ? QStringLiteral("others_data_ms") : QStringLiteral("others_compute_ms"), othersMed);
            f.addEvidence(QStringLiteral("excess_pct"), excessFrac * 100.0);
            f.addEvidence(QStringLiteral("step_share_pct"), ep.location * 100.0);
            f.addEvidence(QStringLiteral("job_slowdown_pct"), slowdown * 100.0);
            f.addEvidence(QStringLiteral("others_wait_ms"), waitMs); // what every other rank waits per step
            f.addEvidence(QStringLiteral("steps_above"), above);
            f.addEvidence(QStringLiteral("window"), double(to - from));
            f.addEvidence(QStringLiteral("z"), ep.z);
            f.addEvidence(QStringLiteral("confidence_pct"), confidence * 100.0);
            f.addEvidence(QStringLiteral("data_cause"), data ? 1 : 0);
            const QString who = rankLabel(c, k);
            const QString stats = tr("%1 of the last %2 steps slower, %3% confidence")
                                      .arg(above)
                                      .arg(to - from)
                                      .arg(confidenceText(confidence));
            if (data) {
                f.summary = tr("%1 is a straggler: its data loading takes %2% longer than the other ranks' (%3 ms vs "
                               "%4 ms; %5)")
                                .arg(who, pct(excessFrac), ms(mineMed), ms(othersMed), stats);
                f.recommendation =
                    tr("Check the input pipeline on %1: local disk or network file system speed, data loader "
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
            out.append(f);
        }

        // Not enough evidence yet: a rank that looks slower now but has not passed the test.
        if (lastW == 0)
            continue;
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
}

// ---- stalls ---------------------------------------------------------------------------------
//
// The trainer's stall inspector (trainer/dist/stall.h) writes a `warning` with code "stall" when ranks
// stop moving, naming the ranks that hold the job up and how. The latest warning of a step stands for
// that stall; it holds until the job moves past it (a later step record, or the run finishing).

QString phaseLabel(const QString& phase)
{
    static const QHash<QString, const char*> labels = {
        {QStringLiteral("setup"), QT_TRANSLATE_NOOP("traindeck::analysis::Diagnosis", "setup")},
        {QStringLiteral("data"), QT_TRANSLATE_NOOP("traindeck::analysis::Diagnosis", "data loading")},
        {QStringLiteral("forward"), QT_TRANSLATE_NOOP("traindeck::analysis::Diagnosis", "the forward pass")},
        {QStringLiteral("backward"), QT_TRANSLATE_NOOP("traindeck::analysis::Diagnosis", "the backward pass")},
        {QStringLiteral("allreduce"), QT_TRANSLATE_NOOP("traindeck::analysis::Diagnosis", "the gradient allreduce")},
        {QStringLiteral("optimizer"), QT_TRANSLATE_NOOP("traindeck::analysis::Diagnosis", "the optimizer step")},
        {QStringLiteral("report"),
         QT_TRANSLATE_NOOP("traindeck::analysis::Diagnosis", "the gather of the step's figures")},
        {QStringLiteral("checkpoint_wait"),
         QT_TRANSLATE_NOOP("traindeck::analysis::Diagnosis", "the checkpoint barrier")},
        {QStringLiteral("checkpoint_write"),
         QT_TRANSLATE_NOOP("traindeck::analysis::Diagnosis", "writing a checkpoint")},
        {QStringLiteral("finished"), QT_TRANSLATE_NOOP("traindeck::analysis::Diagnosis", "the end of the run")},
    };
    const auto it = labels.constFind(phase);
    return it == labels.constEnd() ? phase : tr(it.value());
}

void stalls(const MetricStore& s, const DiagnosisOptions& o, QList<Finding>& out)
{
    QMap<qint64, const metrics::WarningRecord*> latest; // by stalled step
    for (const metrics::WarningRecord& w : s.warnings())
        if (w.code == QLatin1String("stall") && !w.stall.isEmpty())
            latest[w.stall.value(QStringLiteral("step")).toInteger(-1)] = &w;
    const qint64 lastStep = s.lastStep();
    const auto done = s.done();
    for (auto it = latest.cbegin(); it != latest.cend(); ++it) {
        const qint64 step = it.key();
        const metrics::WarningRecord& w = *it.value();
        if (step < 0 || (o.fromStep >= 0 && step < o.fromStep) || (o.toStep >= 0 && step > o.toStep))
            continue;
        const QJsonObject& d = w.stall;
        const QString kase = d.value(QStringLiteral("case")).toString();
        const QString phase = d.value(QStringLiteral("phase")).toString();
        const double waited = d.value(QStringLiteral("waited_s")).toDouble();
        const QJsonArray culprits = d.value(QStringLiteral("ranks")).toArray();
        const QJsonArray waiting = d.value(QStringLiteral("waiting")).toArray();

        Finding f;
        f.kind = FindingKind::Stall;
        f.severity = Severity::Critical;
        QStringList where; // "rank 1 (node2) in data loading of step 3"
        for (const QJsonValue v : culprits) {
            const QJsonObject r = v.toObject();
            const int rank = r.value(QStringLiteral("rank")).toInt(-1);
            QString host = r.value(QStringLiteral("host")).toString();
            if (host.isEmpty())
                host = s.hostOf(rank);
            f.ranks.append(rank);
            f.hosts.append(host);
            const QString who = host.isEmpty() ? tr("rank %1").arg(rank) : tr("rank %1 (%2)").arg(rank).arg(host);
            where.append(tr("%1 in %2 of step %3")
                             .arg(who, phaseLabel(r.value(QStringLiteral("phase")).toString()),
                                  QString::number(r.value(QStringLiteral("step")).toInteger())));
        }
        if (f.ranks.isEmpty() && w.rank >= 0) {
            f.ranks.append(w.rank);
            f.hosts.append(w.host);
            where.append(w.host.isEmpty() ? tr("rank %1").arg(w.rank) : tr("rank %1 (%2)").arg(w.rank).arg(w.host));
        }
        f.firstStep = f.lastStep = f.raisedStep = step;
        // The job moved past the stalled step (a collective after a step's figures waits for that step's
        // record to be written, so it counts only once the next step is there).
        const bool afterStep = phase == QLatin1String("report") || phase.startsWith(QLatin1String("checkpoint"));
        const bool movedOn = lastStep >= step + (afterStep ? 1 : 0);
        const bool finished =
            done && done->status == metrics::DoneRecord::Status::Finished && done->origin.offset > w.origin.offset;
        f.state = movedOn || finished ? FindingState::Resolved : FindingState::Active;
        if (f.state == FindingState::Resolved)
            f.resolvedStep = std::max(lastStep, step);
        f.addEvidence(QStringLiteral("waited_s"), waited);
        f.addEvidence(QStringLiteral("step"), double(step));
        f.addEvidence(QStringLiteral("ranks_waiting"), double(waiting.size()));
        f.addEvidence(QStringLiteral("in_collective"), kase == QLatin1String("in_collective") ? 1 : 0);
        f.addEvidence(QStringLiteral("no_heartbeat"), kase == QLatin1String("no_heartbeat") ? 1 : 0);

        const QString seconds = QString::number(waited, 'f', 0);
        const QString list = where.join(QStringLiteral("; "));
        if (kase == QLatin1String("in_collective")) {
            f.summary = tr("Stall: every rank entered %1 of step %2 and none finished it for %3 s: stuck in "
                           "communication, not before the collective")
                            .arg(phaseLabel(phase), QString::number(step), seconds);
            f.recommendation = tr("Check the network between the hosts (a link down, a firewall, the wrong interface "
                                  "in btl_tcp_if_include or NCCL_SOCKET_IFNAME), then that MPI and NCCL match on every "
                                  "node (the Checks page).");
        } else if (kase == QLatin1String("no_heartbeat")) {
            f.summary = tr("Stall: no word from %1 for %2 s: the process is stopped or hung, or its host is "
                           "unreachable")
                            .arg(list, seconds);
            f.recommendation = tr("Check that the process still runs on that host (stopped, swapping, out of "
                                  "memory) and that the host answers; its log is in the Logs tab.");
        } else if (!waiting.isEmpty()) {
            f.summary = tr("Stall: %1 did not reach %2 of step %3, which %n other rank(s) waited in for %4 s: "
                           "stuck before the collective (data, compute or I/O), not in communication",
                           nullptr, int(waiting.size()))
                            .arg(list, phaseLabel(phase), QString::number(step), seconds);
            f.recommendation = tr("Look at what that rank was doing: its log (Logs tab), the file system its data "
                                  "and checkpoints are on, its memory and swap. --stall-abort ends a job that "
                                  "hangs like this instead of letting it wait.");
        } else {
            f.summary = tr("Stall: %1 made no progress for %2 s").arg(list, seconds);
            f.recommendation = tr("Look at what that rank was doing: its log (Logs tab), the file system its data "
                                  "and checkpoints are on, its memory and swap. --stall-abort ends a job that "
                                  "hangs like this instead of letting it wait.");
        }
        if (f.state == FindingState::Resolved)
            f.summary = tr("Resolved at step %1: %2").arg(QString::number(f.resolvedStep), f.summary);
        out.append(f);
    }
}

// ---- input pipeline -------------------------------------------------------------------------

void dataLoading(const Context& c, QList<Finding>& out)
{
    static constexpr RankMetric kData = RankMetric::Data;
    std::vector<double> share;
    share.reserve(size_t(c.r1 - c.r0));
    for (qint64 row = c.r0; row < c.r1; ++row) {
        const double st = c.stepMs(row);
        share.push_back(st > 0 ? c.medianOverRanks(row, &kData) / st : kNaN);
    }
    if (share.empty())
        return;
    const MedianTest test = medianAbove(share, c.o.dataShareWarning, 0.005);
    const double medShare = test.median;
    std::vector<qint64> stalls;
    for (size_t i = 0; i < share.size(); ++i)
        if (share[i] >= c.o.stallShare)
            stalls.push_back(c.r0 + qint64(i));

    if (medShare >= c.o.dataShareWarning) {
        Finding f = c.make(FindingKind::DataLoading);
        f.severity = medShare >= c.o.dataShareCritical ? Severity::Critical : Severity::Warning;
        f.firstStep = qint64(c.step(c.r0));
        f.lastStep = qint64(c.step(c.r1 - 1));
        std::vector<double> d, st;
        for (qint64 row = c.r0; row < c.r1; ++row) {
            d.push_back(c.medianOverRanks(row, &kData));
            st.push_back(c.stepMs(row));
        }
        f.addEvidence(QStringLiteral("data_share_pct"), medShare * 100);
        f.addEvidence(QStringLiteral("data_ms"), median(d));
        f.addEvidence(QStringLiteral("step_ms"), median(st));
        f.addEvidence(QStringLiteral("confidence_pct"), test.confidence * 100);
        if (test.samples >= c.o.verdictMinSteps && test.confidence >= c.o.verdictConfidence) {
            f.summary = tr("The input pipeline takes %1% of every step on all ranks (%2% confidence that it is above "
                           "%3%)")
                            .arg(pct(medShare), confidenceText(test.confidence), pct(c.o.dataShareWarning));
        } else {
            f.severity = Severity::Info;
            f.state = FindingState::Tentative;
            f.summary = tr("The input pipeline may take %1% of every step: not enough evidence yet (%n step(s))",
                           nullptr, test.samples)
                            .arg(pct(medShare));
        }
        f.recommendation = tr("Ranks spend %1% of each step waiting for data. Add data loader workers or prefetching, "
                              "pre-tokenize the corpus, and keep it on local disk instead of a network file system.")
                               .arg(pct(medShare));
        out.append(f);
    } else if (int(stalls.size()) >= c.o.stallMinCount) {
        Finding f = c.make(FindingKind::DataLoading);
        f.severity = Severity::Warning;
        f.firstStep = qint64(c.step(stalls.front()));
        f.lastStep = qint64(c.step(stalls.back()));
        // Which ranks stall: those above the stall share in at least half of the stall steps.
        std::vector<int> hits(size_t(c.n), 0);
        std::vector<double> stallMs;
        for (qint64 row : stalls) {
            const double st = c.stepMs(row);
            stallMs.push_back(c.medianOverRanks(row, &kData));
            for (int k = 0; k < c.n; ++k)
                hits[size_t(k)] += c.rank(RankMetric::Data, k, row) >= c.o.stallShare * st;
        }
        QList<int> ranks;
        for (int k = 0; k < c.n; ++k)
            if (hits[size_t(k)] * 2 >= int(stalls.size()))
                ranks.append(k);
        if (int(ranks.size()) == c.n)
            ranks.clear(); // job-wide
        Finding g = c.make(FindingKind::DataLoading, ranks);
        g.severity = f.severity;
        g.firstStep = f.firstStep;
        g.lastStep = f.lastStep;
        g.addEvidence(QStringLiteral("stalls"), double(stalls.size()));
        g.addEvidence(QStringLiteral("stall_data_ms"), median(stallMs));
        g.addEvidence(QStringLiteral("steps"), double(c.r1 - c.r0));
        g.addEvidence(QStringLiteral("data_share_pct"), medShare * 100);
        g.summary =
            tr("The input pipeline stalled %1 times (about %2 ms each)").arg(stalls.size()).arg(ms(median(stallMs)));
        g.recommendation =
            tr("Training paused on input %1 times. Increase the data loader's prefetch depth or number of workers, "
               "and check for periodic slow reads (shard boundaries, a network file system, page cache eviction).")
                .arg(stalls.size());
        out.append(g);
    }
}

// ---- communication --------------------------------------------------------------------------

// The capacity the comm-bound verdict compares with: the slowest link the profile's link test measured
// between two hosts of this run (a ring allreduce runs at its slowest link), else options.linkGBps.
struct LinkCapacity {
    double gbps = 0;
    QString hostA, hostB, measuredAt; // empty when it is options.linkGBps
};

LinkCapacity linkCapacity(const Context& c)
{
    QSet<QString> hosts;
    for (int k = 0; k < c.n; ++k)
        if (!c.s.hostOf(k).isEmpty())
            hosts.insert(c.s.hostOf(k));
    LinkCapacity slowest;
    for (const MeasuredLink& l : c.o.measuredLinks)
        if (l.gbps > 0 && l.hostA != l.hostB && hosts.contains(l.hostA) && hosts.contains(l.hostB) &&
            (slowest.gbps == 0 || l.gbps < slowest.gbps))
            slowest = {l.gbps, l.hostA, l.hostB, l.measuredAt};
    if (slowest.gbps == 0)
        slowest.gbps = std::max(0.0, c.o.linkGBps);
    return slowest;
}

void commBound(const Context& c, QList<Finding>& out)
{
    if (c.n < 2)
        return;
    std::vector<double> share, transfer, steps, wait, bytes, busbw;
    for (qint64 row = c.r0; row < c.r1; ++row) {
        const double t = Diagnosis::transferMs(c.s, row);
        const double st = c.stepMs(row);
        if (!std::isfinite(t) || !(st > 0))
            continue;
        share.push_back(t / st);
        transfer.push_back(t);
        steps.push_back(st);
        double w = 0;
        for (int k = 0; k < c.n; ++k)
            w += Diagnosis::waitMs(c.s, row, k);
        wait.push_back(w / c.n);
        static constexpr RankMetric kBytes = RankMetric::CommBytes;
        const double b = c.medianOverRanks(row, &kBytes);
        bytes.push_back(b);
        if (std::isfinite(b) && t > 0)
            busbw.push_back(b / (t / 1000.0) * 2.0 * (c.n - 1) / c.n / 1e9);
    }
    const MedianTest test = medianAbove(share, c.o.commShareWarning, 0.005);
    const double medShare = test.median;
    if (!(medShare >= c.o.commShareWarning))
        return;
    Finding f = c.make(FindingKind::CommBound);
    f.severity = medShare >= c.o.commShareCritical ? Severity::Critical : Severity::Warning;
    const bool sure = test.samples >= c.o.verdictMinSteps && test.confidence >= c.o.verdictConfidence;
    if (!sure) {
        f.severity = Severity::Info;
        f.state = FindingState::Tentative;
    }
    f.firstStep = qint64(c.step(c.r0));
    f.lastStep = qint64(c.step(c.r1 - 1));
    const double bw = median(busbw);
    f.addEvidence(QStringLiteral("transfer_share_pct"), medShare * 100);
    f.addEvidence(QStringLiteral("transfer_ms"), median(transfer));
    f.addEvidence(QStringLiteral("step_ms"), median(steps));
    f.addEvidence(QStringLiteral("wait_ms"), median(wait));
    f.addEvidence(QStringLiteral("comm_bytes"), median(bytes));
    f.addEvidence(QStringLiteral("busbw_gb_per_s"), bw);
    f.addEvidence(QStringLiteral("world_size"), c.n);
    const LinkCapacity link = linkCapacity(c);
    // How sure the allreduce stays below half the link: the per-step utilisation's median tested
    // against 50 % as the transfer share is (the link itself is not the bottleneck then).
    MedianTest belowHalf;
    if (link.gbps > 0) {
        std::vector<double> unused;
        for (double b : busbw)
            unused.push_back(1.0 - b / link.gbps);
        belowHalf = medianAbove(unused, 0.5, 0.005);
        f.addEvidence(QStringLiteral("link_gb_per_s"), link.gbps);
        f.addEvidence(QStringLiteral("link_utilisation_pct"), bw / link.gbps * 100);
        f.addEvidence(QStringLiteral("below_half_link_confidence_pct"), belowHalf.confidence * 100);
    }
    f.addEvidence(QStringLiteral("confidence_pct"), test.confidence * 100);
    f.summary = sure ? tr("Gradient transfer takes %1% of each step (%2% confidence that it is above %3%)")
                           .arg(pct(medShare), confidenceText(test.confidence), pct(c.o.commShareWarning))
                     : tr("Gradient transfer may take %1% of each step: not enough evidence yet (%n step(s))", nullptr,
                          test.samples)
                           .arg(pct(medShare));
    const QString linkName =
        link.hostA.isEmpty() ? tr("the link's")
                             : tr("the link %1–%2's (link test of %3)").arg(link.hostA, link.hostB, link.measuredAt);
    if (link.gbps > 0 && std::isfinite(bw) && belowHalf.confidence >= c.o.verdictConfidence) {
        f.recommendation =
            tr("The allreduce reaches %1 GB/s bus bandwidth, only %2% of %3 %4 GB/s (%5% confidence that it stays "
               "below half). Check which transport NCCL uses (NCCL_DEBUG=INFO: InfiniBand/RoCE rather than TCP "
               "sockets), the network interface it picked (NCCL_SOCKET_IFNAME), and MTU and link speed on every "
               "host.")
                .arg(QString::number(bw, 'f', 2), pct(bw / link.gbps), linkName, QString::number(link.gbps, 'f', 2),
                     confidenceText(belowHalf.confidence));
    } else if (link.gbps > 0 && std::isfinite(bw)) {
        f.recommendation =
            tr("The allreduce uses %1% of %2 %3 GB/s (%4 GB/s bus bandwidth): the link is the limit. Send less per "
               "step: raise gradient accumulation or the per-rank batch, reduce gradients in bf16, or use a faster "
               "interconnect.")
                .arg(pct(bw / link.gbps), linkName, QString::number(link.gbps, 'f', 2), QString::number(bw, 'f', 2));
    } else {
        f.recommendation =
            tr("Achieved allreduce bus bandwidth is %1 GB/s; compare it with the link (e.g. 100 Gbit/s = 12.5 GB/s). "
               "Raise gradient accumulation or the per-rank batch so that each step computes more per byte sent, "
               "and check the NCCL transport with NCCL_DEBUG=INFO.")
                .arg(std::isfinite(bw) ? QString::number(bw, 'f', 2) : QStringLiteral("?"));
    }
    out.append(f);
}

// ---- memory ---------------------------------------------------------------------------------

void memory(const Context& c, QList<Finding>& out)
{
    if (!c.s.hasRankMetric(RankMetric::Mem) || c.r1 <= c.r0)
        return;
    const qint64 W = std::min<qint64>(c.o.window, c.r1 - c.r0);
    QList<int> high;
    double worst = 0, worstMem = kNaN, worstTotal = kNaN;
    for (int k = 0; k < c.n; ++k) {
        const double total = c.s.memTotalMbOf(k);
        double peak = kNaN;
        for (qint64 row = c.r1 - W; row < c.r1; ++row) {
            const double m = c.rank(RankMetric::Mem, k, row);
            if (std::isfinite(m) && !(m <= peak))
                peak = m;
        }
        if (total > 0 && std::isfinite(peak) && peak / total >= c.o.memWarning) {
            high.append(k);
            if (peak / total > worst) {
                worst = peak / total;
                worstMem = peak;
                worstTotal = total;
            }
        }
    }
    if (!high.isEmpty()) {
        Finding f = c.make(FindingKind::MemoryPressure, high);
        f.severity = worst >= c.o.memCritical ? Severity::Critical : Severity::Warning;
        f.firstStep = qint64(c.step(c.r1 - W));
        f.lastStep = qint64(c.step(c.r1 - 1));
        f.addEvidence(QStringLiteral("mem_mb"), worstMem);
        f.addEvidence(QStringLiteral("mem_total_mb"), worstTotal);
        f.addEvidence(QStringLiteral("mem_used_pct"), worst * 100);
        f.summary = tr("Device memory is %1% full on %n rank(s)", nullptr, int(high.size())).arg(pct(worst));
        f.recommendation =
            tr("Memory is close to capacity; an out-of-memory error is likely on a longer sequence or batch. Lower "
               "the per-rank batch (raise gradient accumulation to keep the global batch), enable activation "
               "checkpointing, or shorten the sequence length.");
        out.append(f);
        return;
    }
    // Growth: the last window against the first window after warm-up.
    const qint64 start = c.r0 + std::min<qint64>(c.o.warmupSteps, (c.r1 - c.r0) / 4);
    if (c.r1 - start < 4 * W)
        return;
    QList<int> growing;
    double worstGrowth = 0, from = kNaN, to = kNaN;
    for (int k = 0; k < c.n; ++k) {
        std::vector<double> a, b;
        for (qint64 row = start; row < start + W; ++row)
            a.push_back(c.rank(RankMetric::Mem, k, row));
        for (qint64 row = c.r1 - W; row < c.r1; ++row)
            b.push_back(c.rank(RankMetric::Mem, k, row));
        const double ma = median(a), mb = median(b);
        if (ma > 0 && mb / ma - 1 >= c.o.memGrowth) {
            growing.append(k);
            if (mb / ma - 1 > worstGrowth) {
                worstGrowth = mb / ma - 1;
                from = ma;
                to = mb;
            }
        }
    }
    if (growing.isEmpty())
        return;
    Finding f = c.make(FindingKind::MemoryPressure, growing);
    f.severity = Severity::Warning;
    f.firstStep = qint64(c.step(start));
    f.lastStep = qint64(c.step(c.r1 - 1));
    f.addEvidence(QStringLiteral("mem_start_mb"), from);
    f.addEvidence(QStringLiteral("mem_now_mb"), to);
    f.addEvidence(QStringLiteral("growth_pct"), worstGrowth * 100);
    f.summary = tr("Device memory grew by %1% since the start of the run").arg(pct(worstGrowth));
    f.recommendation =
        tr("Memory keeps growing, which usually means tensors are kept across steps (a loss or metric kept with "
           "its graph, a growing cache). Detach values you keep for logging; watch for an out-of-memory error.");
    out.append(f);
}

// ---- loss -----------------------------------------------------------------------------------

void loss(const Context& c, QList<Finding>& out)
{
    // Non-finite loss or gradient norm.
    qint64 firstBad = -1, lastBad = -1, bad = 0;
    double lastGood = kNaN;
    for (qint64 row = c.r0; row < c.r1; ++row) {
        const double l = c.s.scalarAt(Scalar::Loss, row);
        const double g = c.s.scalarAt(Scalar::GradNorm, row);
        const bool nonFinite = std::isinf(g) || (std::isnan(l) || std::isinf(l));
        if (nonFinite) {
            if (firstBad < 0)
                firstBad = row;
            lastBad = row;
            ++bad;
        } else if (firstBad < 0) {
            lastGood = l;
        }
    }
    if (firstBad >= 0) {
        Finding f = c.make(FindingKind::LossNaN);
        f.severity = Severity::Critical;
        f.firstStep = qint64(c.step(firstBad));
        f.lastStep = qint64(c.step(lastBad));
        f.addEvidence(QStringLiteral("first_step"), double(f.firstStep));
        f.addEvidence(QStringLiteral("steps_affected"), double(bad));
        f.addEvidence(QStringLiteral("last_finite_loss"), lastGood);
        qint64 ckpt = -1;
        for (const auto& cp : c.s.checkpoints())
            if (cp.step < f.firstStep && cp.step > ckpt)
                ckpt = cp.step;
        if (ckpt >= 0)
            f.addEvidence(QStringLiteral("last_checkpoint_step"), double(ckpt));
        f.summary = tr("The loss became NaN/infinite at step %1").arg(f.firstStep);
        f.recommendation =
            ckpt >= 0 ? tr("Resume from the checkpoint of step %1 with a lower learning rate (or longer warm-up) and "
                           "gradient clipping; with fp16, check the loss scale, or train in bf16.")
                            .arg(ckpt)
                      : tr("Restart with a lower learning rate (or longer warm-up) and gradient clipping; with fp16, "
                           "check the loss scale, or train in bf16. Save checkpoints more often to resume sooner.");
        out.append(f);
    }

    // Spikes and divergence, on blocks of lossWindow steps.
    const qint64 B = std::max(5, c.o.lossWindow);
    std::vector<double> blockMed;
    std::vector<qint64> spikes;
    double maxRatio = 0;
    double best = kNaN;
    int divergentBlocks = 0;
    qint64 divergeRow = -1;
    double divergeRatio = 0;
    for (qint64 b0 = c.r0; b0 < c.r1; b0 += B) {
        const qint64 b1 = std::min(c.r1, b0 + B);
        std::vector<double> v;
        for (qint64 row = b0; row < b1; ++row)
            v.push_back(c.s.scalarAt(Scalar::Loss, row));
        // Spikes against the previous block.
        if (!blockMed.empty() && std::isfinite(blockMed.back())) {
            const double med = blockMed.back();
            std::vector<double> prev;
            for (qint64 row = b0 - B; row < b0; ++row)
                prev.push_back(std::fabs(c.s.scalarAt(Scalar::Loss, row) - med));
            const double mad = 1.4826 * median(prev);
            for (qint64 row = b0; row < b1; ++row) {
                const double l = c.s.scalarAt(Scalar::Loss, row);
                if (std::isfinite(l) && l >= med * (1 + c.o.spikeRelative) && l >= med + c.o.spikeMad * mad) {
                    spikes.push_back(row);
                    maxRatio = std::max(maxRatio, l / med);
                }
            }
        }
        const double med = median(v);
        blockMed.push_back(med);
        if (b1 - b0 < B / 2 || !std::isfinite(med))
            continue;
        if (std::isfinite(best) && med >= best * c.o.divergenceFactor) {
            if (++divergentBlocks >= 2 && divergeRow < 0)
                divergeRow = b0;
            divergeRatio = med / best;
        } else {
            divergentBlocks = 0;
        }
        if (!(med >= best))
            best = med;
    }
    // Spike steps that belong to a divergence are not spikes.
    if (divergeRow >= 0)
        spikes.erase(std::remove_if(spikes.begin(), spikes.end(), [&](qint64 r) { return r >= divergeRow - B; }),
                     spikes.end());
    if (!spikes.empty()) {
        Finding f = c.make(FindingKind::LossSpike);
        f.severity = spikes.size() >= 5 ? Severity::Warning : Severity::Info;
        f.firstStep = qint64(c.step(spikes.front()));
        f.lastStep = qint64(c.step(spikes.back()));
        f.addEvidence(QStringLiteral("spikes"), double(spikes.size()));
        f.addEvidence(QStringLiteral("max_ratio"), maxRatio);
        f.addEvidence(QStringLiteral("first_step"), double(f.firstStep));
        f.summary =
            tr("The loss spiked %1 time(s), up to %2x its recent level").arg(spikes.size()).arg(maxRatio, 0, 'f', 2);
        f.recommendation =
            tr("Occasional loss spikes often come from a few bad batches or too high a learning rate. Inspect the "
               "data around step %1, enable gradient clipping, or lower the peak learning rate.")
                .arg(f.firstStep);
        out.append(f);
    }
    if (divergeRow >= 0) {
        Finding f = c.make(FindingKind::LossDivergence);
        f.severity = Severity::Critical;
        f.firstStep = qint64(c.step(divergeRow - B));
        f.lastStep = qint64(c.step(c.r1 - 1));
        f.addEvidence(QStringLiteral("best_loss"), best);
        f.addEvidence(QStringLiteral("loss_now"), blockMed.back());
        f.addEvidence(QStringLiteral("ratio"), divergeRatio);
        qint64 ckpt = -1;
        for (const auto& cp : c.s.checkpoints())
            if (cp.step < f.firstStep && cp.step > ckpt)
                ckpt = cp.step;
        if (ckpt >= 0)
            f.addEvidence(QStringLiteral("last_checkpoint_step"), double(ckpt));
        f.summary = tr("The loss diverged: it is %1x its best level since step %2")
                        .arg(divergeRatio, 0, 'f', 2)
                        .arg(f.firstStep);
        f.recommendation =
            ckpt >= 0
                ? tr("Stop the run and resume from the checkpoint of step %1 with a lower learning rate and "
                     "gradient clipping.")
                      .arg(ckpt)
                : tr("Stop the run and restart with a lower learning rate, a longer warm-up and gradient clipping.");
        out.append(f);
    }
}

// ---- throughput -----------------------------------------------------------------------------

void throughput(const Context& c, QList<Finding>& out)
{
    const qint64 W = std::max(5, c.o.driftWindow);
    const qint64 start = c.r0 + c.o.warmupSteps;
    if (c.r1 - start < 2 * W)
        return;
    bool tokens = true;
    for (qint64 row = start; row < start + W && tokens; ++row)
        tokens = std::isfinite(c.s.scalarAt(Scalar::TokensPerS, row)) && c.s.scalarAt(Scalar::TokensPerS, row) > 0;
    auto rate = [&](qint64 row) {
        if (tokens)
            return c.s.scalarAt(Scalar::TokensPerS, row);
        const double st = c.stepMs(row);
        return st > 0 ? 1000.0 / st : kNaN;
    };
    std::vector<double> a, b;
    for (qint64 row = start; row < start + W; ++row)
        a.push_back(rate(row));
    for (qint64 row = c.r1 - W; row < c.r1; ++row)
        b.push_back(rate(row));
    const double base = median(a), now = median(b);
    if (!(base > 0) || !std::isfinite(now))
        return;
    const double drop = 1 - now / base;
    if (drop < c.o.driftWarning)
        return;
    Finding f = c.make(FindingKind::ThroughputDrift);
    f.severity = drop >= c.o.driftCritical ? Severity::Critical : Severity::Warning;
    f.firstStep = qint64(c.step(start));
    f.lastStep = qint64(c.step(c.r1 - 1));
    f.addEvidence(tokens ? QStringLiteral("baseline_tokens_per_s") : QStringLiteral("baseline_steps_per_s"), base);
    f.addEvidence(tokens ? QStringLiteral("tokens_per_s") : QStringLiteral("steps_per_s"), now);
    f.addEvidence(QStringLiteral("drop_pct"), drop * 100);
    f.summary = tr("Throughput dropped by %1% since the start of the run").arg(pct(drop));
    f.recommendation =
        tr("Throughput fell from %1 to %2 %3. Look at which step phase grew (data, compute or communication) in "
           "the per-rank view; check for thermal throttling, other jobs on the nodes, or a filling disk.")
            .arg(QString::number(base, 'f', 1), QString::number(now, 'f', 1), tokens ? tr("tokens/s") : tr("steps/s"));
    out.append(f);
}

// ---- scaling efficiency ---------------------------------------------------------------------

void scaling(const Context& c, QList<Finding>& out)
{
    if (c.n < 2 || c.r1 - c.r0 < std::max(c.o.window, 5))
        return;
    std::vector<double> eff, compute, step, transfer, wait, data, tps;
    static constexpr RankMetric kData = RankMetric::Data;
    for (qint64 row = c.r0 + std::min<qint64>(c.o.warmupSteps, (c.r1 - c.r0) / 4); row < c.r1; ++row) {
        const double st = c.stepMs(row);
        const double co = c.medianOverRanks(row, nullptr);
        if (!(st > 0) || !std::isfinite(co))
            continue;
        eff.push_back(std::min(1.0, co / st));
        compute.push_back(co);
        step.push_back(st);
        transfer.push_back(Diagnosis::transferMs(c.s, row));
        double w = 0;
        for (int k = 0; k < c.n; ++k)
            w += Diagnosis::waitMs(c.s, row, k);
        wait.push_back(w / c.n);
        data.push_back(c.medianOverRanks(row, &kData));
        tps.push_back(c.s.scalarAt(Scalar::TokensPerS, row));
    }
    double e = median(eff);
    const bool measured = c.o.singleRankTokensPerS > 0;
    if (measured)
        e = median(tps) / (c.n * c.o.singleRankTokensPerS);
    if (!(e < c.o.efficiencyInfo))
        return;
    Finding f = c.make(FindingKind::ScalingEfficiency);
    f.severity = e < c.o.efficiencyCritical  ? Severity::Critical
                 : e < c.o.efficiencyWarning ? Severity::Warning
                                             : Severity::Info;
    f.firstStep = qint64(c.step(c.r0));
    f.lastStep = qint64(c.step(c.r1 - 1));
    const double stepMs = median(step), transferMs = median(transfer), waitMs = median(wait), dataMs = median(data);
    f.addEvidence(QStringLiteral("efficiency_pct"), e * 100);
    f.addEvidence(QStringLiteral("world_size"), c.n);
    f.addEvidence(QStringLiteral("effective_ranks"), e * c.n);
    f.addEvidence(QStringLiteral("compute_ms"), median(compute));
    f.addEvidence(QStringLiteral("step_ms"), stepMs);
    f.addEvidence(QStringLiteral("transfer_ms"), transferMs);
    f.addEvidence(QStringLiteral("wait_ms"), waitMs);
    f.addEvidence(QStringLiteral("data_ms"), dataMs);
    if (measured)
        f.addEvidence(QStringLiteral("single_rank_tokens_per_s"), c.o.singleRankTokensPerS);
    // Name the biggest loss.
    QString biggest;
    const double parts[3] = {transferMs, waitMs, dataMs};
    int arg = 0;
    for (int i = 1; i < 3; ++i)
        if (std::isfinite(parts[i]) && !(parts[i] <= parts[arg]))
            arg = i;
    biggest = arg == 0 ? tr("gradient transfer") : arg == 1 ? tr("waiting for slower ranks") : tr("data loading");
    f.summary = tr("%1 ranks do the work of %2 (%3% scaling efficiency)").arg(c.n).arg(e * c.n, 0, 'f', 1).arg(pct(e));
    f.recommendation = tr("The largest loss is %1 (%2 ms of a %3 ms step). Address it first; see the other findings "
                          "for the details.")
                           .arg(biggest, ms(parts[arg]), ms(stepMs));
    out.append(f);
}

} // namespace

double Diagnosis::transferMs(const MetricStore& store, qint64 row)
{
    double t = kNaN;
    for (int k = 0; k < store.worldSize(); ++k) {
        const double c = store.rankAt(RankMetric::Comm, k, row);
        if (std::isfinite(c) && !(c >= t))
            t = c;
    }
    return t;
}

double Diagnosis::waitMs(const MetricStore& store, qint64 row, int rank)
{
    return double(store.rankAt(RankMetric::Comm, rank, row)) - transferMs(store, row);
}

double Diagnosis::stragglerZ(const DiagnosisOptions& options, int ranks)
{
    // The normal quantile by bisection on erfc (no inverse in the standard library).
    const double p = options.stragglerAlpha / std::max(1, ranks);
    double lo = 0, hi = 40;
    for (int i = 0; i < 100; ++i) {
        const double mid = (lo + hi) / 2;
        (0.5 * std::erfc(mid / std::sqrt(2.0)) > p ? lo : hi) = mid;
    }
    return (lo + hi) / 2;
}

double Diagnosis::computeMs(const MetricStore& store, qint64 row, int rank)
{
    return double(store.rankAt(RankMetric::Fwd, rank, row)) + double(store.rankAt(RankMetric::Bwd, rank, row)) +
           double(store.rankAt(RankMetric::Opt, rank, row));
}

QList<Finding> Diagnosis::analyze(const MetricStore& store, const DiagnosisOptions& options)
{
    QList<Finding> out;
    Context c{store, options};
    c.n = store.worldSize();
    c.r0 = options.fromStep >= 0 ? store.lowerBoundRow(options.fromStep) : 0;
    c.r1 = options.toStep >= 0 ? store.lowerBoundRow(options.toStep + 1) : store.rowCount();
    stalls(store, options, out); // a job can stall before its first step record
    if (c.r1 > c.r0 && c.n >= 1) {
        stragglers(c, out);
        dataLoading(c, out);
        commBound(c, out);
        memory(c, out);
        loss(c, out);
        throughput(c, out);
        scaling(c, out);
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const Finding& a, const Finding& b) { return int(a.severity) > int(b.severity); });
    return out;
}

} // namespace traindeck::analysis
