// Balance history (analysis/balance.h): the splits of the step records' `samples`, the steps where a
// new one appeared, and the job's median step time before and after the last change; no data without
// samples or with too few steps on a side.
#include "analysis/balance.h"
#include "metrics/metricstore.h"

#include <QTest>

#include <cmath>

using namespace traindeck::analysis;
using namespace traindeck::metrics;

namespace {

// A 2-rank step of the given shares (none: no `samples` field); rank 0 takes stepMs, rank 1 a
// little less (the job's step time is the slowest rank's).
StepRecord step(qint64 n, std::vector<float> shares, double stepMs)
{
    StepRecord s;
    s.t = 1718000000 + double(n);
    s.step = n;
    s.loss = 1;
    for (auto& v : s.perRank)
        v.assign(2, kNaN);
    s.perRank[size_t(RankMetric::Step)] = {float(stepMs), float(stepMs - 5)};
    if (!shares.empty()) {
        s.perRank[size_t(RankMetric::Samples)] = std::move(shares);
        s.present |= StepRecord::HasSamples;
    }
    return s;
}

} // namespace

class TestBalanceSummary : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void changesAndGain()
    {
        // 16/16 for steps 1-5, 18/14 at step 6, 19/13 from step 7 on; 1630 ms before, 1310 ms after.
        MetricStore store;
        for (qint64 n = 1; n <= 30; ++n) {
            const std::vector<float> shares = n < 6   ? std::vector<float>{16, 16}
                                              : n < 7 ? std::vector<float>{18, 14}
                                                      : std::vector<float>{19, 13};
            store.onStep(step(n, shares, n < 7 ? 1630 + (n % 2 ? 10 : -10) : 1310));
        }
        const BalanceSummary b = balanceSummary(store);
        QVERIFY(b.hasSamples());
        QVERIFY(b.changed());
        QVERIFY(!b.sharesEqual());
        QCOMPARE(b.samples, (std::vector<int>{19, 13}));
        QCOMPARE(b.sinceStep, 7);
        QCOMPARE(b.changes.size(), size_t(2));
        QCOMPARE(b.changes[0].step, 6);
        QCOMPARE(b.changes[0].samples, (std::vector<int>{18, 14}));
        QCOMPARE(b.changes[1].step, 7);
        QCOMPARE(b.changes[1].samples, (std::vector<int>{19, 13}));
        // Before: steps 1-6 (1640, 1620, 1640, 1620, 1640, 1620): median 1630; after: steps 8-27.
        QVERIFY(b.hasGain());
        QCOMPARE(b.beforeMs, 1630.0);
        QCOMPARE(b.afterMs, 1310.0);
        QVERIFY(std::abs(b.gainPct - (1310.0 / 1630.0 - 1) * 100) < 1e-9);
    }

    void windowsExcludeTheChangeStepAndAreBounded()
    {
        // 50 steps at 2000 ms, then a change at step 51 (a 9000 ms step: the split's first), 25 steps
        // at 1000 ms and 25 more at 500 ms. Before: steps 31-50; after: steps 52-71 (1000 ms).
        MetricStore store;
        for (qint64 n = 1; n <= 100; ++n) {
            const double ms = n <= 50 ? 2000 : n == 51 ? 9000 : n <= 75 ? 1000 : 500;
            store.onStep(step(n, n <= 50 ? std::vector<float>{4, 4} : std::vector<float>{5, 3}, ms));
        }
        const BalanceSummary b = balanceSummary(store);
        QCOMPARE(b.changes.size(), size_t(1));
        QCOMPARE(b.changes[0].step, 51);
        QCOMPARE(b.beforeMs, 2000.0);
        QCOMPARE(b.afterMs, 1000.0);
        QCOMPARE(b.gainPct, -50.0);
    }

    void noSamplesIsNoData()
    {
        MetricStore store;
        for (qint64 n = 1; n <= 30; ++n)
            store.onStep(step(n, {}, 1000));
        const BalanceSummary b = balanceSummary(store);
        QVERIFY(!b.hasSamples());
        QVERIFY(!b.changed());
        QVERIFY(!b.hasGain());
        QCOMPARE(b.sinceStep, -1);
        QVERIFY(!balanceSummary(MetricStore()).hasSamples());
    }

    void unchangedSharesHaveNoGain()
    {
        MetricStore store;
        for (qint64 n = 1; n <= 30; ++n)
            store.onStep(step(n, {6, 2}, 1000));
        const BalanceSummary b = balanceSummary(store);
        QVERIFY(b.hasSamples());
        QVERIFY(!b.changed());
        QVERIFY(!b.sharesEqual());
        QCOMPARE(b.sinceStep, 1);
        QVERIFY(!b.hasGain());
        QVERIFY(std::isnan(b.beforeMs));
    }

    void tooFewStepsOnASideIsNoGain()
    {
        // Two steps before the change, many after: the change is listed, the medians are not.
        MetricStore store;
        for (qint64 n = 1; n <= 20; ++n)
            store.onStep(step(n, n <= 2 ? std::vector<float>{4, 4} : std::vector<float>{5, 3}, 1000));
        BalanceSummary b = balanceSummary(store);
        QCOMPARE(b.changes.size(), size_t(1));
        QCOMPARE(b.changes[0].step, 3);
        QVERIFY(!b.hasGain());
        QVERIFY(std::isnan(b.beforeMs) && std::isnan(b.afterMs) && std::isnan(b.gainPct));

        // Three before, two after (the change step itself does not count).
        MetricStore late;
        for (qint64 n = 1; n <= 6; ++n)
            late.onStep(step(n, n <= 3 ? std::vector<float>{4, 4} : std::vector<float>{5, 3}, 1000));
        b = balanceSummary(late);
        QCOMPARE(b.changes.size(), size_t(1));
        QVERIFY(!b.hasGain());
        late.onStep(step(7, {5, 3}, 800));
        b = balanceSummary(late);
        QVERIFY(b.hasGain());
        QCOMPARE(b.beforeMs, 1000.0);
        QCOMPARE(b.afterMs, 1000.0);
        QCOMPARE(b.gainPct, 0.0);
    }

    void stepsWithoutSamplesAreSkipped()
    {
        // A resumed run whose first attempt wrote no `samples`: its steps are no split and no change.
        MetricStore store;
        for (qint64 n = 1; n <= 10; ++n)
            store.onStep(step(n, n <= 5 ? std::vector<float>{} : std::vector<float>{3, 5}, 1000));
        const BalanceSummary b = balanceSummary(store);
        QCOMPARE(b.samples, (std::vector<int>{3, 5}));
        QCOMPARE(b.sinceStep, 6);
        QVERIFY(!b.changed());

        // Shares that are no count of sequences (negative, beyond an int) are skipped alike, no UB.
        MetricStore odd;
        odd.onStep(step(1, {3, 5}, 1000));
        odd.onStep(step(2, {-1, 9}, 1000));
        odd.onStep(step(3, {1e20f, 1}, 1000));
        const BalanceSummary o = balanceSummary(odd);
        QCOMPARE(o.samples, (std::vector<int>{3, 5}));
        QVERIFY(!o.changed());
    }

    // A live view's tracker, updated as steps arrive, reads only the new rows and gives the summary of the
    // whole store at every update; a resumed run (rows replaced) or another store starts it over.
    void trackerFollowsAGrowingStore()
    {
        auto same = [](const BalanceSummary& a, const BalanceSummary& b) {
            auto sameValue = [](double x, double y) { return x == y || (std::isnan(x) && std::isnan(y)); };
            if (a.samples != b.samples || a.sinceStep != b.sinceStep || a.changes.size() != b.changes.size() ||
                !sameValue(a.beforeMs, b.beforeMs) || !sameValue(a.afterMs, b.afterMs) ||
                !sameValue(a.gainPct, b.gainPct))
                return false;
            for (size_t i = 0; i < a.changes.size(); ++i)
                if (a.changes[i].step != b.changes[i].step || a.changes[i].samples != b.changes[i].samples)
                    return false;
            return true;
        };
        // Steps 1-3 without shares, 16/16 to step 9, a change every 15 steps after, 1000 ms then 900 ms.
        auto sharesOf = [](qint64 n) {
            if (n <= 3)
                return std::vector<float>{};
            const float k = float(n < 10 ? 0 : 1 + (n - 10) / 15);
            return std::vector<float>{16 + k, 16 - k};
        };
        MetricStore store;
        BalanceTracker tracker;
        QVERIFY(!tracker.update(store, 1).hasSamples()); // empty
        for (qint64 n = 1; n <= 80; ++n) {
            store.onStep(step(n, sharesOf(n), n < 10 ? 1000 : 900));
            QVERIFY2(same(tracker.update(store, 1), balanceSummary(store)), qPrintable(QString::number(n)));
        }
        const BalanceSummary grown = tracker.update(store, 1);
        QCOMPARE(grown.changes.size(), size_t(5)); // steps 10, 25, 40, 55, 70
        QCOMPARE(grown.samples, (std::vector<int>{21, 11}));
        QCOMPARE(grown.afterMs, 900.0);
        // Resumed from step 30: steps 31 on replaced, with the shares of step 30 to the end.
        for (qint64 n = 31; n <= 60; ++n)
            store.onStep(step(n, {18, 14}, 950));
        QVERIFY(same(tracker.update(store, 1), balanceSummary(store)));
        QCOMPARE(tracker.update(store, 1).changes.size(), size_t(2)); // steps 10, 25
        // Another store with the same number of rows: not taken for the first.
        MetricStore other;
        for (qint64 n = 1; n <= 60; ++n)
            other.onStep(step(n, {10, 22}, 700));
        QVERIFY(same(tracker.update(other, 2), balanceSummary(other)));
        QCOMPARE(tracker.update(other, 2).samples, (std::vector<int>{10, 22}));
    }
};

QTEST_GUILESS_MAIN(TestBalanceSummary)
#include "tst_balancesummary.moc"
