// The load balance grouped by host at 1,024 ranks on 128 hosts (generated, tests/tools/telemetry): one row
// per host, slowest first, the spread inside each host and its slowest rank; the slowest ranks of the job
// with their host, excess, phase and since when; and when a view groups by host at all.
#include "analysis/hostbalance.h"
#include "metrics/metricstore.h"
#include "scale_run.h"

#include <QTest>

using namespace traindeck::analysis;
using namespace traindeck::metrics;
using traindeck::testing::ScaleFault;
using traindeck::testing::ScaleRun;

class tst_HostBalance : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void hostsSlowestFirstWithTheirSpread();
    void slowestRanks();
    void whenToGroup();
};

void tst_HostBalance::hostsSlowestFirstWithTheirSpread()
{
    ScaleRun run;
    run.spikeProb = 0; // means over 50 steps: the order must come from the planted faults
    run.faults.push_back({ScaleFault::Kind::SlowHost, 77, 0.20, 1});
    run.faults.push_back({ScaleFault::Kind::SlowRank, 300, 0.40, 1});
    MetricStore store;
    run.feed(store, 50);
    const PhaseMeans means = phaseMeans(store, 50);
    const std::vector<HostBalance> hosts = hostBalance(store, means);
    QCOMPARE(hosts.size(), size_t(128));
    QCOMPARE(hosts.front().host, QStringLiteral("node078"));
    QCOMPARE(hosts.front().ranks, (std::vector<int>{616, 617, 618, 619, 620, 621, 622, 623}));
    for (size_t i = 1; i < hosts.size(); ++i)
        QVERIFY(hosts[i - 1].medianOwnMs >= hosts[i].medianOwnMs);
    // Rank 300's host: its median is an ordinary host's, its spread is rank 300.
    const auto it = std::find_if(hosts.begin(), hosts.end(),
                                 [](const HostBalance& h) { return h.host == QStringLiteral("node038"); });
    QVERIFY(it != hosts.end());
    QCOMPARE(it->slowestRank, 300);
    QVERIFY(it->maxOwnMs > 1.25 * it->medianOwnMs);
    QVERIFY(it - hosts.begin() > 1); // not among the slow hosts
    QVERIFY(hosts.front().total() > hosts.back().total());
}

void tst_HostBalance::slowestRanks()
{
    ScaleRun run;
    run.spikeProb = 0;
    run.faults.push_back({ScaleFault::Kind::SlowRank, 300, 0.40, 21});
    run.faults.push_back({ScaleFault::Kind::SlowHost, 77, 0.15, 1});
    MetricStore store;
    run.feed(store, 60);
    const PhaseMeans means = phaseMeans(store, 60);
    const std::vector<SlowRank> slow = traindeck::analysis::slowestRanks(store, means, 9);
    QCOMPARE(slow.size(), size_t(9));
    QCOMPARE(slow.front().rank, 300);
    QCOMPARE(slow.front().host, QStringLiteral("node038"));
    QVERIFY2(slow.front().excessPct > 15 && slow.front().excessPct < 40,
             qPrintable(QString::number(slow.front().excessPct)));
    QCOMPARE(slow.front().phase, Phase::Backward); // the largest phase grows the most
    QVERIFY2(slow.front().sinceStep >= 17 && slow.front().sinceStep <= 24,
             qPrintable(QString::number(slow.front().sinceStep)));
    for (size_t i = 1; i < slow.size(); ++i) { // then the slow host's eight, slower from the start
        QVERIFY2(slow[i].rank >= 616 && slow[i].rank < 624, qPrintable(QString::number(slow[i].rank)));
        QVERIFY(slow[i].sinceStep <= 3);
    }
    // With the rows' medians kept between calls (a followed run): the same answer, step after step, and the
    // medians of the rows that left the steps are not kept.
    RowOwnMedians kept;
    kept.use(1, store.rewinds());
    for (qint64 n = 61; n <= 70; ++n) {
        store.onStep(run.step(n, 1.8e9 + double(n)));
        const PhaseMeans now = phaseMeans(store, 60);
        const std::vector<SlowRank> plain = traindeck::analysis::slowestRanks(store, now, 9);
        const std::vector<SlowRank> withKept = traindeck::analysis::slowestRanks(store, now, 9, &kept);
        QCOMPARE(withKept.size(), plain.size());
        for (size_t i = 0; i < plain.size(); ++i) {
            QCOMPARE(withKept[i].rank, plain[i].rank);
            QCOMPARE(withKept[i].sinceStep, plain[i].sinceStep);
        }
        QCOMPARE(kept.rows(), size_t(60)); // the means' 60 steps only
    }
    // Resumed (another rewind count) or another store: forgotten (a kept median of a replaced row is stale).
    kept.use(1, store.rewinds() + 1);
    QCOMPARE(kept.rows(), size_t(0));
}

void tst_HostBalance::whenToGroup()
{
    auto store = [](int ranks, int hosts) {
        auto s = std::make_unique<MetricStore>();
        ScaleRun run;
        run.ranks = ranks, run.hosts = hosts;
        run.feed(*s, 2);
        return s;
    };
    QVERIFY(groupByHost(*store(1024, 128)));
    QVERIFY(groupByHost(*store(33, 3)));
    QVERIFY(!groupByHost(*store(32, 4))); // a bar per rank still reads
    QVERIFY(!groupByHost(*store(64, 1))); // one host: nothing to group
    QVERIFY(!groupByHost(*store(8, 2)));
}

QTEST_GUILESS_MAIN(tst_HostBalance)
#include "tst_hostbalance.moc"
