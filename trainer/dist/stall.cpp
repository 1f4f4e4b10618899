#include "dist/stall.h"

#include "dist/communicator.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>

namespace traindeck::dist {

const char* phaseName(Phase phase)
{
    switch (phase) {
    case Phase::Setup: return "setup";
    case Phase::Data: return "data";
    case Phase::Forward: return "forward";
    case Phase::Backward: return "backward";
    case Phase::Allreduce: return "allreduce";
    case Phase::Optimizer: return "optimizer";
    case Phase::Report: return "report";
    case Phase::CheckpointWait: return "checkpoint_wait";
    case Phase::CheckpointWrite: return "checkpoint_write";
    case Phase::Finished: return "finished";
    }
    return "unknown";
}

bool isCollective(Phase phase)
{
    return phase == Phase::Allreduce || phase == Phase::Report || phase == Phase::CheckpointWait;
}

const char* stallCaseName(StallCase c)
{
    switch (c) {
    case StallCase::None: return "none";
    case StallCase::BeforeCollective: return "before_collective";
    case StallCase::InCollective: return "in_collective";
    case StallCase::NoHeartbeat: return "no_heartbeat";
    }
    return "none";
}

std::string StallVerdict::key() const
{
    std::string k = std::string(stallCaseName(kind)) + ":" + std::to_string(step) + ":" + phaseName(phase);
    for (int r : culprits)
        k += ":" + std::to_string(r);
    return k;
}

StallVerdict judgeStall(const std::vector<RankProgress>& board, double warningS)
{
    StallVerdict v;
    if (board.empty() || !(warningS > 0))
        return v;
    const int n = static_cast<int>(board.size());
    auto waitingInCollectives = [&](const std::vector<int>& except) {
        std::vector<int> w;
        for (int r = 0; r < n; ++r)
            if (isCollective(board[size_t(r)].phase) && std::find(except.begin(), except.end(), r) == except.end())
                w.push_back(r);
        return w;
    };

    // A silent rank first: whatever the others do, they will wait for it.
    for (int r = 0; r < n; ++r)
        if (board[size_t(r)].silentS >= warningS) {
            v.culprits.push_back(r);
            v.waitedS = std::max(v.waitedS, board[size_t(r)].silentS);
        }
    if (!v.culprits.empty()) {
        v.kind = StallCase::NoHeartbeat;
        v.step = board[size_t(v.culprits.front())].step;
        v.phase = board[size_t(v.culprits.front())].phase;
        v.waiting = waitingInCollectives(v.culprits);
        return v;
    }

    // The earliest collective a rank has waited in for warningS is where the job is stuck: the ranks
    // behind it have not reached it. Ranks past it passed it; where it synchronizes every rank
    // (allreduce, barrier) that means it completed and the waiting rank's report is stale. The gather of
    // the step's figures lets its senders go on.
    const auto position = [](const RankProgress& p) { return p.step * kPhaseCount + int64_t(p.phase); };
    int anchor = -1;
    for (int r = 0; r < n; ++r) {
        const RankProgress& p = board[size_t(r)];
        if (!isCollective(p.phase) || p.inPhaseS < warningS)
            continue;
        if (anchor < 0 || position(p) < position(board[size_t(anchor)]) ||
            (position(p) == position(board[size_t(anchor)]) && p.inPhaseS > board[size_t(anchor)].inPhaseS))
            anchor = r;
    }
    if (anchor >= 0) {
        const RankProgress& a = board[size_t(anchor)];
        const int64_t at = position(a);
        const bool synchronizing = a.phase != Phase::Report;
        if (synchronizing &&
            std::any_of(board.begin(), board.end(), [&](const RankProgress& p) { return position(p) > at; }))
            return v;
        v.step = a.step;
        v.phase = a.phase;
        v.waitedS = a.inPhaseS;
        for (int r = 0; r < n; ++r) {
            const int64_t pr = position(board[size_t(r)]);
            if (pr < at)
                v.culprits.push_back(r);
            else if (pr == at)
                v.waiting.push_back(r);
        }
        if (v.culprits.empty()) {
            v.kind = StallCase::InCollective; // everyone due entered; nobody came out
            v.culprits = std::move(v.waiting);
            v.waiting.clear();
        } else {
            v.kind = StallCase::BeforeCollective;
        }
        return v;
    }

    // Ranks that entered a collective but have not waited long: the stall, if any, will show there.
    if (std::any_of(board.begin(), board.end(), [](const RankProgress& p) { return isCollective(p.phase); }))
        return v;
    // Nobody in a collective: a stall only when every rank is stuck (one process, or a hung shared file
    // system). A rank that still moves will reach a collective, where the stall shows with the right ranks
    // named; and a rank that only looks stuck because its last report is older than the others' moves too.
    for (int r = 0; r < n; ++r) {
        const RankProgress& p = board[size_t(r)];
        if (p.phase == Phase::Finished)
            continue;
        if (p.inPhaseS < std::max(warningS, 3 * p.usualS))
            return StallVerdict{};
        v.culprits.push_back(r);
        v.waitedS = std::max(v.waitedS, p.inPhaseS);
    }
    if (!v.culprits.empty()) {
        v.kind = StallCase::BeforeCollective;
        v.step = board[size_t(v.culprits.front())].step;
        v.phase = board[size_t(v.culprits.front())].phase;
    }
    return v;
}

namespace {

std::string phaseText(Phase phase)
{
    switch (phase) {
    case Phase::Setup: return "setup";
    case Phase::Data: return "data loading";
    case Phase::Forward: return "the forward pass";
    case Phase::Backward: return "the backward pass";
    case Phase::Allreduce: return "the gradient allreduce";
    case Phase::Optimizer: return "the optimizer step";
    case Phase::Report: return "the gather of the step's figures";
    case Phase::CheckpointWait: return "the checkpoint barrier";
    case Phase::CheckpointWrite: return "writing a checkpoint";
    case Phase::Finished: return "the end of the run";
    }
    return "an unknown phase";
}

std::string where(const RankProgress& p)
{
    return phaseText(p.phase) + " of step " + std::to_string(p.step);
}

// "3", "40–47", "1, 3, 8–9": ascending ranks with runs of consecutive ones as ranges.
std::string rankRanges(std::vector<int> ranks)
{
    std::sort(ranks.begin(), ranks.end());
    std::string s;
    for (size_t i = 0; i < ranks.size();) {
        size_t j = i;
        while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1)
            ++j;
        if (!s.empty())
            s += ", ";
        s += std::to_string(ranks[i]);
        if (j > i)
            s += (j == i + 1 ? ", " : "\u2013") + std::to_string(ranks[j]);
        i = j + 1;
    }
    return s;
}

// The ranks grouped by host, hosts in the order their first rank comes: {host, ranks}.
std::vector<std::pair<std::string, std::vector<int>>> byHost(const std::vector<int>& ranks,
                                                             const std::vector<std::string>& hosts)
{
    std::vector<std::pair<std::string, std::vector<int>>> groups;
    for (int r : ranks) {
        const std::string host = static_cast<size_t>(r) < hosts.size() ? hosts[static_cast<size_t>(r)] : std::string();
        auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == host; });
        if (it == groups.end())
            groups.push_back({host, {r}});
        else
            it->second.push_back(r);
    }
    return groups;
}

std::string joined(const std::vector<std::string>& parts)
{
    std::string s;
    for (size_t i = 0; i < parts.size(); ++i)
        s += (i == 0 ? "" : i + 1 == parts.size() ? " and " : ", ") + parts[i];
    return s;
}

// "rank 1 (node2)", "ranks 1 (node2) and 3 (node4)"; at many ranks grouped by host, "ranks 40–47
// (tb-node6)", "ranks 0–7 (tb-node1) and 8–15 (tb-node2)"; past four hosts counted, "1016 ranks on 127
// hosts (0–7 (tb-node1), 8–15 (tb-node2), …)": a person reads the hosts, not a thousand numbers.
std::string rankList(const std::vector<int>& ranks, const std::vector<std::string>& hosts)
{
    constexpr size_t kShown = 8, kHostsShown = 4;
    const auto groups = byHost(ranks, hosts);
    const auto group = [](const std::pair<std::string, std::vector<int>>& g) {
        return rankRanges(g.second) + (g.first.empty() ? "" : " (" + g.first + ")");
    };
    std::vector<std::string> parts;
    const bool onePerHost = groups.size() == ranks.size();
    if (onePerHost && ranks.size() <= kShown) {
        for (int r : ranks)
            parts.push_back(group(byHost({r}, hosts).front()));
    } else if (groups.size() <= kHostsShown) {
        for (const auto& g : groups)
            parts.push_back(group(g));
    } else {
        std::string s = std::to_string(ranks.size()) + " ranks on " + std::to_string(groups.size()) + " hosts (";
        for (size_t i = 0; i < 2; ++i)
            s += group(groups[i]) + ", ";
        return s + "\u2026)";
    }
    return (ranks.size() == 1 ? "rank " : "ranks ") + joined(parts);
}

std::string seconds(double s)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f s", s);
    return buf;
}

} // namespace

std::string describeStall(const StallVerdict& v, const std::vector<RankProgress>& board,
                          const std::vector<std::string>& hosts)
{
    const bool one = v.culprits.size() == 1;
    const RankProgress at{v.step, v.phase, 0, 0};
    std::string s;
    switch (v.kind) {
    case StallCase::None: return "no stall";
    case StallCase::NoHeartbeat:
        s = "no word from " + rankList(v.culprits, hosts) + " for " + seconds(v.waitedS) + " (last seen in " +
            where(at) + "): the process is stopped or hung, or its host is unreachable";
        if (!v.waiting.empty())
            s += "; " + rankList(v.waiting, hosts) + (v.waiting.size() == 1 ? " waits" : " wait") + " in a collective";
        return s;
    case StallCase::InCollective:
        return "every rank entered " + where(at) + " and none finished it for " + seconds(v.waitedS) +
               ": stuck in communication (network, MPI or NCCL), not before the collective";
    case StallCase::BeforeCollective:
        if (v.waiting.empty())
            return rankList(v.culprits, hosts) + (one ? " has" : " have") + " been in " + where(at) + " for " +
                   seconds(v.waitedS) + " without progress";
        s = rankList(v.culprits, hosts) + (one ? " has" : " have") + " not reached " + where(at) + ", which " +
            rankList(v.waiting, hosts) + (v.waiting.size() == 1 ? " has" : " have") + " waited in for " +
            seconds(v.waitedS) + ": ";
        {
            // What the culprits are doing, the ranks that do the same on one host together.
            std::vector<std::pair<std::string, std::vector<int>>> doing; // {where, ranks}
            for (int r : v.culprits) {
                const std::string w =
                    static_cast<size_t>(r) < board.size() ? where(board[static_cast<size_t>(r)]) : "an unknown phase";
                auto it = std::find_if(doing.begin(), doing.end(), [&](const auto& d) { return d.first == w; });
                if (it == doing.end())
                    doing.push_back({w, {r}});
                else
                    it->second.push_back(r);
            }
            std::vector<std::string> parts;
            for (size_t i = 0; i < doing.size() && i < 8; ++i) {
                const auto& [w, ranks] = doing[i];
                const bool single = ranks.size() == 1;
                // One host's ranks, or the first rank of each, as "rank 1" / "ranks 40–47 (tb-node6)".
                const std::string who = single ? "rank " + std::to_string(ranks.front()) : rankList(ranks, hosts);
                parts.push_back(who + (single ? " is in " : " are in ") + w);
            }
            if (doing.size() > 8)
                parts.push_back(std::to_string(doing.size() - 8) + " more");
            s += joined(parts);
        }
        s += " (stuck before the collective: data, compute or I/O, not communication)";
        return s;
    }
    return s;
}

// ---- The inspector ------------------------------------------------------------------------------------

namespace {

using Clock = std::chrono::steady_clock;
constexpr int64_t kBye = 1;

double secondsBetween(Clock::time_point a, Clock::time_point b)
{
    return std::chrono::duration<double>(b - a).count();
}

} // namespace

double StallInspector::periodFor(double warningS)
{
    return std::clamp(warningS / 5.0, 0.02, 1.0);
}

StallInspector::StallInspector(Communicator& comm, StallOptions options, std::vector<std::string> hosts, Report report)
    : comm_(comm), options_(options), hosts_(std::move(hosts)), report_(std::move(report)),
      periodS_(periodFor(options.warningS))
{
    if (comm_.rank() == 0)
        thread_ = std::thread([this] { inspectLoop(); });
    else
        thread_ = std::thread([this] { reportLoop(); });
}

StallInspector::~StallInspector()
{
    stop(false);
}

void StallInspector::enter(int64_t step, Phase phase)
{
    position_.store(step * kPhaseCount + int64_t(phase), std::memory_order_relaxed);
}

void StallInspector::finish()
{
    enter(position_.load() / kPhaseCount, Phase::Finished);
    stop(true);
}

void StallInspector::stop(bool waitForOthers)
{
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (stopping_)
            return;
        stopping_ = true;
        waitForOthers_ = waitForOthers;
    }
    wake_.notify_all();
    if (thread_.joinable())
        thread_.join();
}

void StallInspector::reportLoop()
{
    const auto period = std::chrono::duration<double>(periodS_);
    try {
        std::unique_lock<std::mutex> lock(mutex_);
        while (!stopping_) {
            lock.unlock();
            comm_.sendProgress({position_.load(std::memory_order_relaxed), 0});
            lock.lock();
            wake_.wait_for(lock, period, [this] { return stopping_; });
        }
        const bool bye = waitForOthers_;
        lock.unlock();
        if (bye) // the last report: rank 0 stops listening once every rank's has arrived
            comm_.sendProgress({position_.load(std::memory_order_relaxed), kBye});
    } catch (const std::exception& e) {
        std::fprintf(stderr, "traindeck-trainer: rank %d on %s: the stall inspector stopped reporting: %s\n",
                     comm_.rank(), comm_.host().c_str(), e.what());
    }
}

void StallInspector::inspectLoop()
{
    const int n = comm_.size();
    const auto started = Clock::now();
    struct Seen {
        int64_t position = 0;
        Clock::time_point changed, heard;
        bool bye = false;
    };
    std::vector<Seen> seen(static_cast<size_t>(n), Seen{0, started, started, false});
    std::array<double, kPhaseCount> longest{}; // the longest each phase has taken so far
    auto learn = [&](int64_t position, double seconds) {
        double& l = longest[size_t(position % kPhaseCount)];
        l = std::max(l, seconds);
    };
    std::string lastKey;
    bool aborted = false;
    std::optional<Clock::time_point> stoppedAt;
    try {
        std::unique_lock<std::mutex> lock(mutex_);
        for (;;) {
            const bool stopping = stopping_, waitForOthers = waitForOthers_;
            lock.unlock();
            const auto now = Clock::now();
            int from = 0;
            std::array<int64_t, 2> message{};
            while (comm_.receiveProgress(from, message)) {
                if (from <= 0 || from >= n)
                    continue;
                Seen& s = seen[size_t(from)];
                if (message[0] != s.position) {
                    learn(s.position, secondsBetween(s.changed, now));
                    s.position = message[0];
                    s.changed = now;
                }
                s.heard = now;
                s.bye = s.bye || message[1] == kBye;
            }
            if (const int64_t own = position_.load(std::memory_order_relaxed); own != seen[0].position) {
                learn(seen[0].position, secondsBetween(seen[0].changed, now));
                seen[0].position = own;
                seen[0].changed = now;
            }
            seen[0].heard = now;

            if (stopping) {
                if (!stoppedAt)
                    stoppedAt = now;
                const bool allReported = std::all_of(seen.begin() + 1, seen.end(), [](const Seen& s) { return s.bye; });
                // Ranks that ended (or died) without a last report must not hold rank 0 for long.
                if (!waitForOthers || allReported || secondsBetween(*stoppedAt, now) > 10)
                    return;
            } else {
                std::vector<RankProgress> board(static_cast<size_t>(n));
                for (size_t r = 0; r < board.size(); ++r) {
                    board[r].step = seen[r].position / kPhaseCount;
                    board[r].phase = static_cast<Phase>(seen[r].position % kPhaseCount);
                    board[r].inPhaseS = secondsBetween(seen[r].changed, now);
                    board[r].silentS = seen[r].bye ? 0 : secondsBetween(seen[r].heard, now);
                    board[r].usualS = longest[size_t(seen[r].position % kPhaseCount)];
                }
                const StallVerdict v = judgeStall(board, options_.warningS);
                if (v.kind == StallCase::None) {
                    lastKey.clear();
                } else {
                    if (v.key() != lastKey) {
                        lastKey = v.key();
                        report_(v, board, false);
                    }
                    if (options_.abortS > 0 && v.waitedS >= options_.abortS && !aborted) {
                        aborted = true;
                        report_(v, board, true);
                    }
                }
            }
            lock.lock();
            const auto pause = std::chrono::duration<double>(stopping ? 0.01 : periodS_ / 2);
            wake_.wait_for(lock, pause, [&] { return stopping_ != stopping; });
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "traindeck-trainer: rank 0 on %s: the stall inspector stopped: %s\n", comm_.host().c_str(),
                     e.what());
    }
}

} // namespace traindeck::dist
