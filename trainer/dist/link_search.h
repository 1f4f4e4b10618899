// The link test's plan and verdicts (`bench-links`): rounds of disjoint node pairs, every pair of a round
// measured at the same time, so N nodes take a few rounds instead of N(N-1)/2 one-pair measurements.
// No MPI or LibTorch here: bench-links (main.cpp) measures what nextRound() asks for and record()s it, and
// the tests drive the same class with a simulated network.
//
// Node search (the default), after DLRover's and SuperBench's pairing:
//   round 1: a random perfect matching (seeded; with N odd one node waits);
//   a pair is slow when its bandwidth is below half the round-1 median, or its latency above twice the
//   round-1 median plus 1 ms (medians over nodes of each node's own median);
//   later rounds: every node that has only slow measurements (and the waiting node) is paired with the
//   fastest node that has a fast one and that it has not met yet, each fast node once per round.
// A node slow with two partners that are fast elsewhere is a slow node; a slow pair whose two ends are
// fast elsewhere is a slow link once a second measurement of that pair (in the next round) is slow too;
// a node still undecided when the rounds or healthy partners run out is a suspect. All pairs: a
// round-robin tournament (the circle method: N-1 rounds of N/2 pairs, N rounds with N odd), a node slow
// with more than half of its partners is a slow node, another slow pair a slow link once confirmed (up to
// two more rounds). A pair measured twice counts with its best values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace traindeck::dist {

struct PairMeasurement {
    int a = 0, b = 0; // node (rank) indexes, a != b
    int round = 0;    // 1-based
    double latencyUs = 0;
    double bandwidthMbps = 0;
};

struct LinkVerdict {
    enum class Kind { SlowNode, SlowLink, Suspect };
    Kind kind = Kind::Suspect;
    int node = -1;             // the node (SlowNode, Suspect) or the link's first end
    int peer = -1;             // SlowLink: the other end
    bool byLatency = false;    // the measurements were slow in latency, not bandwidth
    std::vector<int> slowWith; // partners it measured slow with
    std::vector<int> fastWith; // SlowLink: partners the two ends measured fast with
};

const char* verdictKindName(LinkVerdict::Kind kind); // "slow_node", "slow_link", "suspect"

class LinkSearch {
  public:
    enum class Mode { Nodes, AllPairs };
    // Of the reference median. Half was too close: beside CI's builds (2026-12-06) a healthy node of 16
    // measured 0.50 and 0.42 of the median with two partners and was named; a node at 100 mbit among
    // nodes at several Gbit/s measures a few percent.
    static constexpr double kSlowBandwidthFraction = 0.25;
    static constexpr double kSlowLatencyFactor = 2.0; // of the reference median, plus:
    // On the 2-core testbed 8 pairs side by side measured 16-400 us from one round to the next; a
    // real slow path (a 5 ms detour, a lossy link) is well above it.
    static constexpr double kSlowLatencyMarginUs = 1000.0;

    // Node search needs a round-1 median that a slow node's pair cannot move, and healthy partners to
    // re-pair with: below this many nodes the tournament is used (at most 5 rounds).
    static constexpr int kMinNodesForSearch = 6;
    static Mode modeFor(int nodes, bool allPairs)
    {
        return allPairs || nodes < kMinNodesForSearch ? Mode::AllPairs : Mode::Nodes;
    }

    LinkSearch(int nodes, Mode mode, uint64_t seed, int maxRounds = 4);

    // The next round's pairs (a < b not guaranteed; a initiates), or none when the search is over.
    std::vector<std::pair<int, int>> nextRound();
    // The round's measurements (one per pair nextRound() gave).
    void record(const std::vector<PairMeasurement>& measurements);

    Mode mode() const { return mode_; }
    int roundsRun() const { return rounds_; }
    const std::vector<PairMeasurement>& measurements() const { return all_; }
    // The reference the slow threshold is taken from: the median over nodes of each node's median
    // bandwidth and latency, in round 1 (node search) or over all pairs (tournament).
    double medianBandwidthMbps() const { return medianBw_; }
    double medianLatencyUs() const { return medianLat_; }
    bool isSlow(const PairMeasurement& m) const;
    // What the measurements so far say (empty: nothing stands out). A slow link is named once it was
    // measured slow twice; `candidates` gives the slow links measured once instead (the next round's
    // confirmations).
    std::vector<LinkVerdict> verdicts(bool candidates = false) const;

  private:
    struct NodeState {
        std::vector<int> fastWith, slowWith;
        bool slowByLatencyOnly = true;
    };
    struct PairBest {
        PairMeasurement best; // the highest bandwidth and the lowest latency of its measurements
        int times = 0;
    };
    std::vector<PairBest> pairBests() const;
    std::vector<NodeState> states() const;
    void addConfirmations(std::vector<std::pair<int, int>>& round, std::vector<bool>& used) const;
    bool healthy(const std::vector<NodeState>& s, int node) const { return !s[size_t(node)].fastWith.empty(); }
    int healthyPartners(const std::vector<NodeState>& s, int node) const;
    std::vector<std::pair<int, int>> tournamentRound(int round) const;

    int n_;
    Mode mode_;
    uint64_t seed_;
    int maxRounds_;
    int rounds_ = 0;
    bool done_ = false;
    double medianBw_ = 0, medianLat_ = 0;
    std::vector<PairMeasurement> all_;
    std::vector<std::pair<int, int>> pending_;
};

} // namespace traindeck::dist
