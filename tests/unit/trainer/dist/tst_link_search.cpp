// The link test's rounds and verdicts (dist::LinkSearch) against a simulated network: every node has a
// link speed and a latency, a pair gets the slower end's speed (or a link's own) with +-20 % noise, and
// the pairs of one round are "measured" together. bench-links drives the same class with MPI
// (tests/testbed/tst_testbed_links.cpp measures the real thing).
#include "dist/link_search.h"

#include <QTest>

#include <algorithm>
#include <map>
#include <random>
#include <set>

using traindeck::dist::LinkSearch;
using traindeck::dist::LinkVerdict;
using traindeck::dist::PairMeasurement;

namespace {

struct Network {
    std::vector<double> mbps, latencyUs;        // per node
    std::map<std::pair<int, int>, double> link; // a < b: that link's own speed
    std::map<std::pair<int, int>, int> glitch;  // a < b: measured this many more times at 1 % (a busy moment)
    std::mt19937_64 rng{7};
    double noise = 0.2;

    explicit Network(int n) : mbps(size_t(n), 10000.0), latencyUs(size_t(n), 30.0) {}
    PairMeasurement measure(int a, int b, int round)
    {
        std::uniform_real_distribution<double> jitter(1 - noise, 1 + noise);
        double bw = std::min(mbps[size_t(a)], mbps[size_t(b)]);
        if (auto it = link.find({std::min(a, b), std::max(a, b)}); it != link.end())
            bw = std::min(bw, it->second);
        if (auto it = glitch.find({std::min(a, b), std::max(a, b)}); it != glitch.end() && it->second > 0) {
            --it->second;
            bw /= 100;
        }
        return {a, b, round, (latencyUs[size_t(a)] + latencyUs[size_t(b)]) / 2 * jitter(rng), bw * jitter(rng)};
    }
};

// Runs the search to the end; checks that every round's pairs are disjoint.
std::vector<LinkVerdict> search(LinkSearch& s, Network& net)
{
    for (;;) {
        const auto pairs = s.nextRound();
        if (pairs.empty())
            break;
        std::set<int> busy;
        std::vector<PairMeasurement> round;
        for (const auto& [a, b] : pairs) {
            if (!busy.insert(a).second || !busy.insert(b).second || a == b)
                qFatal("round %d: node %d or %d twice", s.roundsRun() + 1, a, b);
            round.push_back(net.measure(a, b, s.roundsRun() + 1));
        }
        s.record(round);
        if (s.roundsRun() > 200)
            qFatal("the search does not end");
    }
    return s.verdicts();
}

} // namespace

class TestLinkSearch : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void roundOneMeasuresEveryNodeOnce();
    void slowNodeIsNamedWithinThreeRounds_data();
    void slowNodeIsNamedWithinThreeRounds();
    void healthyNetworkNamesNothing_data();
    void healthyNetworkNamesNothing();
    void twoSlowNodesPairedTogetherAreBothNamed();
    void slowLatencyNodeIsNamedByLatency();
    void tournamentMeetsEveryPairOnce_data();
    void tournamentMeetsEveryPairOnce();
    void allPairsNamesASlowLinkNotItsEnds();
    void nodeSearchTellsASlowLinkFromASlowNode();
    void oneBusyMomentNamesNothing();
    void nodeAtHalfSpeedUnderLoadIsNotNamed();
    void fewNodesUseTheTournament();
    void roundsRunOutIntoASuspect();
};

void TestLinkSearch::roundOneMeasuresEveryNodeOnce()
{
    for (int n : {6, 7, 64}) {
        LinkSearch s(n, LinkSearch::Mode::Nodes, 42);
        const auto pairs = s.nextRound();
        QCOMPARE(int(pairs.size()), n / 2);
        std::set<int> seen;
        for (const auto& [a, b] : pairs)
            seen.insert({a, b});
        QCOMPARE(int(seen.size()), n / 2 * 2);
        // Asked again before the round was recorded: the same round.
        QCOMPARE(s.nextRound(), pairs);
    }
    // The seed decides the matching.
    QVERIFY(LinkSearch(64, LinkSearch::Mode::Nodes, 1).nextRound() !=
            LinkSearch(64, LinkSearch::Mode::Nodes, 2).nextRound());
}

void TestLinkSearch::slowNodeIsNamedWithinThreeRounds_data()
{
    QTest::addColumn<int>("nodes");
    for (int n : {6, 7, 16, 33, 64, 128})
        QTest::addRow("%d nodes", n) << n;
}

void TestLinkSearch::slowNodeIsNamedWithinThreeRounds()
{
    QFETCH(int, nodes);
    std::mt19937_64 draw(nodes);
    for (uint64_t trial = 0; trial < 50; ++trial) {
        Network net(nodes);
        const int slow = int(draw() % uint64_t(nodes));
        net.mbps[size_t(slow)] = 100; // 100 mbit among 10 gbit
        LinkSearch s(nodes, LinkSearch::Mode::Nodes, trial);
        const auto v = search(s, net);
        QVERIFY2(v.size() == 1, qPrintable(QStringLiteral("trial %1: %2 verdicts").arg(trial).arg(v.size())));
        QCOMPARE(v[0].kind, LinkVerdict::Kind::SlowNode);
        QCOMPARE(v[0].node, slow);
        QVERIFY(!v[0].byLatency);
        QVERIFY(v[0].slowWith.size() >= 2);
        QVERIFY2(s.roundsRun() <= 3, qPrintable(QStringLiteral("%1 rounds").arg(s.roundsRun())));
    }
}

void TestLinkSearch::healthyNetworkNamesNothing_data()
{
    QTest::addColumn<int>("nodes");
    QTest::addColumn<int>("rounds");
    QTest::newRow("64 nodes: one round") << 64 << 1;
    QTest::newRow("33 nodes: the waiting node measured in round 2") << 33 << 2;
}

void TestLinkSearch::healthyNetworkNamesNothing()
{
    QFETCH(int, nodes);
    QFETCH(int, rounds);
    for (uint64_t trial = 0; trial < 50; ++trial) {
        Network net(nodes);
        net.noise = 0.3; // a busy machine: +-30 % pair to pair
        LinkSearch s(nodes, LinkSearch::Mode::Nodes, trial);
        QVERIFY(search(s, net).empty());
        QCOMPARE(s.roundsRun(), rounds);
    }
}

void TestLinkSearch::twoSlowNodesPairedTogetherAreBothNamed()
{
    const int n = 16;
    LinkSearch probe(n, LinkSearch::Mode::Nodes, 3);
    const auto [x, y] = probe.nextRound().front(); // the seed pairs x with y in round 1
    Network net(n);
    net.mbps[size_t(x)] = net.mbps[size_t(y)] = 100;
    LinkSearch s(n, LinkSearch::Mode::Nodes, 3);
    const auto v = search(s, net);
    QCOMPARE(int(v.size()), 2);
    std::set<int> named;
    for (const LinkVerdict& verdict : v) {
        QCOMPARE(verdict.kind, LinkVerdict::Kind::SlowNode);
        named.insert(verdict.node);
    }
    QCOMPARE(named, (std::set<int>{x, y}));
    QVERIFY(s.roundsRun() <= 3);
}

void TestLinkSearch::slowLatencyNodeIsNamedByLatency()
{
    Network net(16);
    net.latencyUs[5] = 5000; // 5 ms each way, full bandwidth
    LinkSearch s(16, LinkSearch::Mode::Nodes, 11);
    const auto v = search(s, net);
    QCOMPARE(int(v.size()), 1);
    QCOMPARE(v[0].kind, LinkVerdict::Kind::SlowNode);
    QCOMPARE(v[0].node, 5);
    QVERIFY(v[0].byLatency);
}

void TestLinkSearch::tournamentMeetsEveryPairOnce_data()
{
    QTest::addColumn<int>("nodes");
    for (int n : {2, 3, 5, 8, 9, 64})
        QTest::addRow("%d nodes", n) << n;
}

void TestLinkSearch::tournamentMeetsEveryPairOnce()
{
    QFETCH(int, nodes);
    Network net(nodes);
    LinkSearch s(nodes, LinkSearch::Mode::AllPairs, 0);
    QVERIFY(search(s, net).empty());
    QCOMPARE(s.roundsRun(), nodes % 2 ? nodes : nodes - 1);
    std::set<std::pair<int, int>> met;
    for (const PairMeasurement& m : s.measurements())
        QVERIFY(met.insert({std::min(m.a, m.b), std::max(m.a, m.b)}).second);
    QCOMPARE(int(met.size()), nodes * (nodes - 1) / 2);
}

void TestLinkSearch::allPairsNamesASlowLinkNotItsEnds()
{
    Network net(16);
    net.link[{3, 12}] = 100;
    LinkSearch s(16, LinkSearch::Mode::AllPairs, 0);
    const auto v = search(s, net);
    QCOMPARE(int(v.size()), 1);
    QCOMPARE(v[0].kind, LinkVerdict::Kind::SlowLink);
    QCOMPARE(v[0].node, 3);
    QCOMPARE(v[0].peer, 12);
    QCOMPARE(s.roundsRun(), 15 + 1); // the tournament, then the slow link once more
    // And a slow node among all pairs: the node, not its 15 links.
    Network slowNode(16);
    slowNode.mbps[9] = 100;
    LinkSearch t(16, LinkSearch::Mode::AllPairs, 0);
    const auto w = search(t, slowNode);
    QCOMPARE(int(w.size()), 1);
    QCOMPARE(w[0].kind, LinkVerdict::Kind::SlowNode);
    QCOMPARE(w[0].node, 9);
    QCOMPARE(int(w[0].slowWith.size()), 15);
}

void TestLinkSearch::nodeSearchTellsASlowLinkFromASlowNode()
{
    // The link between two nodes that round 1 pairs is slow, both ends are fine: re-paired with fast
    // nodes in round 2 both measure fast, so the verdict is the link.
    LinkSearch probe(16, LinkSearch::Mode::Nodes, 5);
    const auto [x, y] = probe.nextRound().back();
    Network net(16);
    net.link[{std::min(x, y), std::max(x, y)}] = 100;
    LinkSearch s(16, LinkSearch::Mode::Nodes, 5);
    const auto v = search(s, net);
    QCOMPARE(int(v.size()), 1);
    QCOMPARE(v[0].kind, LinkVerdict::Kind::SlowLink);
    QCOMPARE(v[0].node, std::min(x, y));
    QCOMPARE(v[0].peer, std::max(x, y));
    // Round 2 re-paired both ends, round 3 measured the link again.
    QCOMPARE(s.roundsRun(), 3);
    QCOMPARE(int(s.measurements().size()), 8 + 2 + 1);
}

void TestLinkSearch::oneBusyMomentNamesNothing()
{
    // One pair measured at 1 % once: re-paired, both ends fast elsewhere, the pair measured again and fast.
    LinkSearch probe(16, LinkSearch::Mode::Nodes, 5);
    const auto [x, y] = probe.nextRound().front();
    Network net(16);
    net.glitch[{std::min(x, y), std::max(x, y)}] = 1;
    LinkSearch s(16, LinkSearch::Mode::Nodes, 5);
    QVERIFY(search(s, net).empty());
    QCOMPARE(s.roundsRun(), 3);
    // The same in the tournament: one confirmation round.
    Network all(16);
    all.glitch[{2, 9}] = 1;
    LinkSearch t(16, LinkSearch::Mode::AllPairs, 0);
    QVERIFY(search(t, all).empty());
    QCOMPARE(t.roundsRun(), 16);
}

void TestLinkSearch::fewNodesUseTheTournament()
{
    QCOMPARE(LinkSearch::modeFor(3, false), LinkSearch::Mode::AllPairs);
    QCOMPARE(LinkSearch::modeFor(5, false), LinkSearch::Mode::AllPairs);
    QCOMPARE(LinkSearch::modeFor(6, false), LinkSearch::Mode::Nodes);
    QCOMPARE(LinkSearch::modeFor(64, true), LinkSearch::Mode::AllPairs);
    // Three nodes, tb-node2 slow (the 3-node testbed's scenario): named from its two slow links.
    Network net(3);
    net.mbps[1] = 100;
    LinkSearch s(3, LinkSearch::modeFor(3, false), 0);
    const auto v = search(s, net);
    QCOMPARE(int(v.size()), 1);
    QCOMPARE(v[0].kind, LinkVerdict::Kind::SlowNode);
    QCOMPARE(v[0].node, 1);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, LinkSearch(1, LinkSearch::Mode::Nodes, 0));
}

void TestLinkSearch::roundsRunOutIntoASuspect()
{
    // One round allowed: the slow node's pair is slow, nobody could be re-paired, so both ends are
    // suspects (the search cannot say which).
    Network net(16);
    net.mbps[4] = 100;
    LinkSearch s(16, LinkSearch::Mode::Nodes, 9, /*maxRounds=*/1);
    const auto v = search(s, net);
    QCOMPARE(s.roundsRun(), 1);
    QCOMPARE(int(v.size()), 2);
    for (const LinkVerdict& verdict : v) {
        QCOMPARE(verdict.kind, LinkVerdict::Kind::Suspect);
        QCOMPARE(int(verdict.slowWith.size()), 1);
    }
    QVERIFY(v[0].node == 4 || v[1].node == 4);
}

// What a busy machine measures: a healthy node whose pairs get less CPU than the others measures at 40-50 %
// of the median (tst_testbed_checks beside CI's builds: 0.50 and 0.42 with two partners). Slow is below a
// quarter of the median, so it is not named; a node at 100 mbit among 10 gbit still is.
void TestLinkSearch::nodeAtHalfSpeedUnderLoadIsNotNamed()
{
    for (uint64_t trial = 0; trial < 50; ++trial) {
        Network net(16);
        const int busy = int(trial % 16);
        net.mbps[size_t(busy)] = 4200;
        LinkSearch s(16, LinkSearch::Mode::Nodes, trial);
        const auto v = search(s, net);
        QVERIFY2(v.empty(), qPrintable(QStringLiteral("trial %1: %2 verdict(s), the first on node %3")
                                           .arg(trial)
                                           .arg(v.size())
                                           .arg(v.empty() ? -1 : v[0].node)));
    }
    Network net(16);
    net.mbps[3] = 4200;
    net.mbps[11] = 100;
    LinkSearch s(16, LinkSearch::Mode::Nodes, 1);
    const auto v = search(s, net);
    QCOMPARE(v.size(), size_t(1));
    QCOMPARE(v[0].node, 11);
}

QTEST_APPLESS_MAIN(TestLinkSearch)
#include "tst_link_search.moc"
