#include "dist/link_search.h"

#include <algorithm>
#include <numeric>
#include <random>
#include <stdexcept>

namespace traindeck::dist {

namespace {

double median(std::vector<double> v)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    const size_t h = v.size() / 2;
    return v.size() % 2 ? v[h] : (v[h - 1] + v[h]) / 2;
}

bool contains(const std::vector<int>& v, int x)
{
    return std::find(v.begin(), v.end(), x) != v.end();
}

} // namespace

const char* verdictKindName(LinkVerdict::Kind kind)
{
    switch (kind) {
    case LinkVerdict::Kind::SlowNode: return "slow_node";
    case LinkVerdict::Kind::SlowLink: return "slow_link";
    case LinkVerdict::Kind::Suspect: break;
    }
    return "suspect";
}

LinkSearch::LinkSearch(int nodes, Mode mode, uint64_t seed, int maxRounds)
    : n_(nodes), mode_(mode), seed_(seed), maxRounds_(maxRounds)
{
    if (nodes < 2)
        throw std::invalid_argument("the link test needs at least two nodes");
    if (maxRounds < 1)
        throw std::invalid_argument("the link test needs at least one round");
}

bool LinkSearch::isSlow(const PairMeasurement& m) const
{
    return m.bandwidthMbps < kSlowBandwidthFraction * medianBw_ ||
           m.latencyUs > kSlowLatencyFactor * medianLat_ + kSlowLatencyMarginUs;
}

std::vector<LinkSearch::PairBest> LinkSearch::pairBests() const
{
    std::vector<PairBest> out;
    for (const PairMeasurement& m : all_) {
        auto it = std::find_if(out.begin(), out.end(), [&](const PairBest& p) {
            return (p.best.a == m.a && p.best.b == m.b) || (p.best.a == m.b && p.best.b == m.a);
        });
        if (it == out.end()) {
            out.push_back({m, 1});
            continue;
        }
        it->best.bandwidthMbps = std::max(it->best.bandwidthMbps, m.bandwidthMbps);
        it->best.latencyUs = std::min(it->best.latencyUs, m.latencyUs);
        ++it->times;
    }
    return out;
}

std::vector<LinkSearch::NodeState> LinkSearch::states() const
{
    std::vector<NodeState> s(static_cast<size_t>(n_));
    for (const PairBest& pair : pairBests()) {
        const PairMeasurement& m = pair.best;
        const bool slow = isSlow(m);
        const bool slowBw = m.bandwidthMbps < kSlowBandwidthFraction * medianBw_;
        for (const auto& [self, other] : {std::pair{m.a, m.b}, std::pair{m.b, m.a}}) {
            NodeState& st = s[static_cast<size_t>(self)];
            (slow ? st.slowWith : st.fastWith).push_back(other);
            if (slowBw)
                st.slowByLatencyOnly = false;
        }
    }
    return s;
}

int LinkSearch::healthyPartners(const std::vector<NodeState>& s, int node) const
{
    int count = 0;
    for (int p : s[static_cast<size_t>(node)].slowWith)
        count += healthy(s, p) ? 1 : 0;
    return count;
}

std::vector<std::pair<int, int>> LinkSearch::tournamentRound(int round) const
{
    // The circle method: node 0 stays, the others turn one place per round; with N odd a bye (index N)
    // makes the count even and whoever meets it waits.
    const int m = n_ % 2 ? n_ + 1 : n_;
    std::vector<int> ring(static_cast<size_t>(m - 1));
    for (int i = 0; i < m - 1; ++i)
        ring[static_cast<size_t>(i)] = 1 + (i + round - 1) % (m - 1);
    std::vector<int> order{0};
    order.insert(order.end(), ring.begin(), ring.end());
    std::vector<std::pair<int, int>> pairs;
    for (int i = 0; i < m / 2; ++i) {
        const int a = order[static_cast<size_t>(i)], b = order[static_cast<size_t>(m - 1 - i)];
        if (a < n_ && b < n_)
            pairs.emplace_back(std::min(a, b), std::max(a, b));
    }
    return pairs;
}

std::vector<std::pair<int, int>> LinkSearch::nextRound()
{
    if (done_ || !pending_.empty())
        return pending_;
    if (mode_ == Mode::AllPairs) {
        const int total = n_ % 2 ? n_ : n_ - 1;
        if (rounds_ < total) {
            pending_ = tournamentRound(rounds_ + 1);
            return pending_;
        }
        // Then the slow links are measured once more (at most two more rounds), side by side with fewer
        // pairs than the tournament's.
        if (rounds_ < total + 2) {
            std::vector<bool> used(static_cast<size_t>(n_), false);
            addConfirmations(pending_, used);
        }
        if (pending_.empty())
            done_ = true;
        return pending_;
    }
    if (rounds_ == 0) {
        std::vector<int> order(static_cast<size_t>(n_));
        std::iota(order.begin(), order.end(), 0);
        std::mt19937_64 rng(seed_);
        std::shuffle(order.begin(), order.end(), rng);
        for (size_t i = 0; i + 1 < order.size(); i += 2)
            pending_.emplace_back(order[i], order[i + 1]);
        return pending_;
    }
    if (rounds_ >= maxRounds_) {
        done_ = true;
        return {};
    }
    // Who still needs a partner: no fast measurement, and not yet slow with two healthy partners.
    const std::vector<NodeState> s = states();
    std::vector<int> undecided, healthyNodes;
    std::vector<double> best(static_cast<size_t>(n_), 0.0), worst(static_cast<size_t>(n_), 1e300);
    for (const PairMeasurement& m : all_) {
        for (int x : {m.a, m.b}) {
            best[size_t(x)] = std::max(best[size_t(x)], m.bandwidthMbps);
            worst[size_t(x)] = std::min(worst[size_t(x)], m.bandwidthMbps);
        }
    }
    for (int v = 0; v < n_; ++v) {
        if (healthy(s, v))
            healthyNodes.push_back(v);
        else if (healthyPartners(s, v) < 2)
            undecided.push_back(v);
    }
    // The slowest first (a node never measured has worst = 1e300 and comes last); partners fastest first.
    std::stable_sort(undecided.begin(), undecided.end(),
                     [&](int x, int y) { return worst[size_t(x)] < worst[size_t(y)]; });
    std::stable_sort(healthyNodes.begin(), healthyNodes.end(),
                     [&](int x, int y) { return best[size_t(x)] > best[size_t(y)]; });
    std::vector<bool> used(static_cast<size_t>(n_), false);
    for (int u : undecided) {
        const NodeState& st = s[size_t(u)];
        for (int h : healthyNodes) {
            if (used[size_t(h)] || contains(st.slowWith, h) || contains(st.fastWith, h))
                continue;
            used[size_t(h)] = used[size_t(u)] = true;
            pending_.emplace_back(h, u);
            break;
        }
    }
    addConfirmations(pending_, used);
    if (pending_.empty())
        done_ = true;
    return pending_;
}

void LinkSearch::addConfirmations(std::vector<std::pair<int, int>>& round, std::vector<bool>& used) const
{
    for (const LinkVerdict& v : verdicts(/*candidates=*/true)) {
        if (v.kind != LinkVerdict::Kind::SlowLink || used[size_t(v.node)] || used[size_t(v.peer)])
            continue;
        used[size_t(v.node)] = used[size_t(v.peer)] = true;
        round.emplace_back(v.node, v.peer);
    }
}

void LinkSearch::record(const std::vector<PairMeasurement>& measurements)
{
    ++rounds_;
    pending_.clear();
    all_.insert(all_.end(), measurements.begin(), measurements.end());
    // The reference: each node's median bandwidth and latency over its pairs, the median over nodes.
    // Round 1 of the node search measured every node once, side by side; the tournament measured every
    // pair, and a median over pairs would be a slow node's at a few nodes (2 of 3 pairs at three).
    if (mode_ == Mode::AllPairs || rounds_ == 1) {
        std::vector<std::vector<double>> nodeBw(static_cast<size_t>(n_)), nodeLat(static_cast<size_t>(n_));
        for (const PairMeasurement& m : all_) {
            for (int x : {m.a, m.b}) {
                nodeBw[size_t(x)].push_back(m.bandwidthMbps);
                nodeLat[size_t(x)].push_back(m.latencyUs);
            }
        }
        std::vector<double> bw, lat;
        for (size_t x = 0; x < nodeBw.size(); ++x) {
            if (!nodeBw[x].empty()) {
                bw.push_back(median(nodeBw[x]));
                lat.push_back(median(nodeLat[x]));
            }
        }
        medianBw_ = median(bw);
        medianLat_ = median(lat);
    }
}

std::vector<LinkVerdict> LinkSearch::verdicts(bool candidates) const
{
    const std::vector<NodeState> s = states();
    std::vector<LinkVerdict> out;
    std::vector<bool> slowNode(static_cast<size_t>(n_), false);
    for (int v = 0; v < n_; ++v) {
        const NodeState& st = s[size_t(v)];
        const bool slow = mode_ == Mode::AllPairs ? st.slowWith.size() >= 2 &&
                                                        st.slowWith.size() * 2 > st.slowWith.size() + st.fastWith.size()
                                                  : st.fastWith.empty() && healthyPartners(s, v) >= 2;
        if (!slow)
            continue;
        slowNode[size_t(v)] = true;
        LinkVerdict verdict;
        verdict.kind = LinkVerdict::Kind::SlowNode;
        verdict.node = v;
        verdict.byLatency = st.slowByLatencyOnly;
        verdict.slowWith = st.slowWith;
        verdict.fastWith = st.fastWith;
        out.push_back(verdict);
    }
    for (const PairBest& pair : pairBests()) {
        const PairMeasurement& m = pair.best;
        // A slow link is named once a second measurement confirmed it: one slow measurement of a pair
        // whose ends are fine elsewhere is as likely a busy moment (issue #36's 64 ranks on two cores).
        if (!isSlow(m) || slowNode[size_t(m.a)] || slowNode[size_t(m.b)] || (pair.times < 2) != candidates)
            continue;
        if (mode_ == Mode::Nodes && !(healthy(s, m.a) && healthy(s, m.b)))
            continue;
        LinkVerdict verdict;
        verdict.kind = LinkVerdict::Kind::SlowLink;
        verdict.node = std::min(m.a, m.b);
        verdict.peer = std::max(m.a, m.b);
        verdict.byLatency = !(m.bandwidthMbps < kSlowBandwidthFraction * medianBw_);
        for (int x : {m.a, m.b})
            for (int p : s[size_t(x)].fastWith)
                if (!contains(verdict.fastWith, p))
                    verdict.fastWith.push_back(p);
        out.push_back(verdict);
    }
    if (mode_ == Mode::Nodes) {
        // Still undecided: only slow measurements, and fewer than two partners that are fast elsewhere.
        for (int v = 0; v < n_; ++v) {
            const NodeState& st = s[size_t(v)];
            if (slowNode[size_t(v)] || !st.fastWith.empty())
                continue;
            bool explained = false; // slow only beside a slow node, which the verdict above names
            for (int p : st.slowWith)
                explained = explained || slowNode[size_t(p)];
            if (explained && st.slowWith.size() == 1)
                continue;
            LinkVerdict verdict;
            verdict.kind = LinkVerdict::Kind::Suspect;
            verdict.node = v;
            verdict.byLatency = st.slowByLatencyOnly && !st.slowWith.empty();
            verdict.slowWith = st.slowWith;
            out.push_back(verdict);
        }
    }
    return out;
}

} // namespace traindeck::dist
