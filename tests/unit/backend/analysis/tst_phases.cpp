// Phase breakdown (analysis/phases.h): means over the last N steps, comm split into transfer (the
// smallest comm of the step) and wait (each rank's excess), one step's breakdown; and the number
// formatter's rule for missing values (common/format.h), which the same views use.
#include "analysis/phases.h"
#include "common/format.h"
#include "metrics/metricstore.h"

#include <QTest>

#include <cmath>
#include <limits>

using namespace traindeck;
using namespace traindeck::analysis;
using namespace traindeck::metrics;

namespace {

HelloRecord hello(int ranks)
{
    HelloRecord h;
    h.t = 1718000000;
    h.runId = QStringLiteral("phases");
    h.worldSize = ranks;
    for (int r = 0; r < ranks; ++r) {
        RankInfo info;
        info.rank = r;
        info.host = QStringLiteral("node%1").arg(r);
        h.ranks.append(info);
    }
    return h;
}

// A synchronous step: 2 ms data, 100 + step ms forward, 200 ms backward, 10 ms optimizer; the
// straggler computes 40% longer, the others wait for it in the allreduce, whose transfer is 50 ms.
StepRecord step(qint64 n, int ranks, int straggler)
{
    StepRecord s;
    s.t = 1718000000 + double(n);
    s.step = n;
    s.loss = 1;
    for (auto& v : s.perRank)
        v.assign(size_t(ranks), kNaN);
    auto compute = [&](int r) { return 2 + (r == straggler ? 1.4 : 1.0) * (double(100 + n) + 200 + 10); };
    double slowest = 0;
    for (int r = 0; r < ranks; ++r)
        slowest = std::max(slowest, compute(r));
    for (int r = 0; r < ranks; ++r) {
        const double k = r == straggler ? 1.4 : 1.0;
        const double comm = 50 + (slowest - compute(r));
        auto set = [&](RankMetric m, double v) { s.perRank[size_t(m)][size_t(r)] = float(v); };
        set(RankMetric::Data, 2);
        set(RankMetric::Fwd, double(100 + n) * k);
        set(RankMetric::Bwd, 200 * k);
        set(RankMetric::Opt, 10 * k);
        set(RankMetric::Comm, comm);
        set(RankMetric::Step, compute(r) + comm);
    }
    return s;
}

void feed(MetricStore& store, int ranks, int steps, int straggler)
{
    store.onHello(hello(ranks));
    for (int n = 1; n <= steps; ++n)
        store.onStep(step(n, ranks, straggler));
}

bool near(double a, double b, double eps = 1e-2)
{
    return std::abs(a - b) < eps;
}

} // namespace

class TestPhases : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void meansSplitTransferAndWait()
    {
        MetricStore store;
        feed(store, 4, 30, 2);
        const PhaseMeans m = phaseMeans(store, 10);
        QCOMPARE(m.ranks, 4);
        QCOMPARE(m.steps, 10);
        QCOMPARE(m.fromStep, 21);
        QCOMPARE(m.toStep, 30);
        QCOMPARE(m.ms.size(), size_t(Phase::Count));
        const double fwd = 100 + 25.5; // mean of 100 + step over steps 21..30
        for (int r = 0; r < 4; ++r) {
            const double k = r == 2 ? 1.4 : 1.0;
            QVERIFY(near(m.at(Phase::Data, r), 2));
            QVERIFY2(near(m.at(Phase::Forward, r), fwd * k), qPrintable(QString::number(m.at(Phase::Forward, r))));
            QVERIFY(near(m.at(Phase::Backward, r), 200 * k));
            QVERIFY(near(m.at(Phase::Optimizer, r), 10 * k));
            // Transfer is the straggler's comm (50 ms) for everybody; the others wait 40% of its compute.
            QVERIFY(near(m.at(Phase::CommTransfer, r), 50));
            const double wait = r == 2 ? 0 : 0.4 * (fwd + 210);
            QVERIFY2(near(m.at(Phase::CommWait, r), wait), qPrintable(QString::number(r)));
            QVERIFY(near(m.total(r), m.total(0))); // every step ends together
        }
        QVERIFY(near(m.total(0), 2 + 1.4 * (fwd + 210) + 50));
    }

    void allStepsWhenNotPositiveOrLarge()
    {
        MetricStore store;
        feed(store, 2, 30, -1);
        for (int n : {0, -1, 30, 1000}) {
            const PhaseMeans m = phaseMeans(store, n);
            QCOMPARE(m.steps, 30);
            QCOMPARE(m.fromStep, 1);
            QCOMPARE(m.toStep, 30);
            QVERIFY(near(m.at(Phase::Forward, 1), 100 + 15.5));
            QVERIFY(near(m.at(Phase::CommWait, 1), 0)); // balanced: nobody waits
        }
    }

    // The bars of a followed run: the tracker's means over the last steps equal phaseMeans' at every new step
    // (rows slide in and out), and again after a resume (rows replaced), another window or another store.
    void trackerSlidesWithTheRun()
    {
        auto same = [](const PhaseMeans& a, const PhaseMeans& b) {
            if (a.ranks != b.ranks || a.fromStep != b.fromStep || a.toStep != b.toStep || a.steps != b.steps)
                return false;
            for (size_t p = 0; p < a.ms.size(); ++p)
                for (size_t k = 0; k < a.ms[p].size(); ++k)
                    if (!(near(a.ms[p][k], b.ms[p][k], 1e-9) || (std::isnan(a.ms[p][k]) && std::isnan(b.ms[p][k]))))
                        return false;
            return true;
        };
        MetricStore store;
        store.onHello(hello(4));
        PhaseMeansTracker tracker;
        for (int n = 1; n <= 40; ++n) {
            StepRecord s = step(n, 4, n >= 20 ? 2 : 1); // the straggler changes at step 20
            if (n % 7 == 0)
                s.perRank[size_t(RankMetric::Opt)][3] = kNaN; // a missing value now and then
            if (n == 12)
                s.perRank[size_t(RankMetric::Opt)][1] = 1e18f; // absurd: once it left, the means are exact again
            store.onStep(s);
            QVERIFY2(same(tracker.update(store, 1, 5), phaseMeans(store, 5)), qPrintable(QString::number(n)));
        }
        QCOMPARE(tracker.update(store, 1, 5).fromStep, 36);
        // Resumed from step 30: steps 31 on replaced (to 45, past the rows summed), rank 0 the straggler now.
        for (int n = 31; n <= 45; ++n)
            store.onStep(step(n, 4, 0));
        QVERIFY(same(tracker.update(store, 1, 5), phaseMeans(store, 5)));
        QVERIFY(tracker.update(store, 1, 5).at(Phase::Forward, 0) > tracker.update(store, 1, 5).at(Phase::Forward, 2));
        QVERIFY(same(tracker.update(store, 1, 12), phaseMeans(store, 12))); // another window
        MetricStore other;
        feed(other, 4, 45, 3);
        QVERIFY(same(tracker.update(other, 2, 12), phaseMeans(other, 12))); // another store
    }

    void oneStepBreakdown()
    {
        MetricStore store;
        feed(store, 3, 5, 0);
        const PhaseMeans b = phaseBreakdown(store, store.rowCount() - 1);
        QCOMPARE(b.steps, 1);
        QCOMPARE(b.fromStep, 5);
        QCOMPARE(b.toStep, 5);
        QVERIFY(near(b.at(Phase::Forward, 0), 105 * 1.4));
        QVERIFY(near(b.at(Phase::Forward, 1), 105));
        QVERIFY(near(b.at(Phase::CommTransfer, 1), 50));
        QVERIFY(near(b.at(Phase::CommWait, 1), 0.4 * 315));
        QVERIFY(near(b.at(Phase::CommWait, 0), 0));
        // The parts add up to the rank's step time.
        for (int r = 0; r < 3; ++r)
            QVERIFY(near(b.total(r), store.rankAt(RankMetric::Step, r, store.rowCount() - 1)));
        // A row that is not there: no steps, nothing measured.
        const PhaseMeans none = phaseBreakdown(store, store.rowCount());
        QCOMPARE(none.steps, 0);
        QVERIFY(std::isnan(none.at(Phase::Data, 0)));
        QCOMPARE(none.total(0), 0.0);
    }

    void unmeasuredIsNaNAndSkipped()
    {
        MetricStore store;
        store.onHello(hello(2));
        for (int n = 1; n <= 4; ++n) {
            StepRecord s = step(n, 2, -1);
            if (n == 4) {
                s.perRank[size_t(RankMetric::Data)][1] = kNaN; // rank 1's data time is missing
                s.perRank[size_t(RankMetric::Comm)].assign(2, kNaN);
            }
            store.onStep(s);
        }
        QVERIFY(std::isnan(phaseBreakdown(store, 3).at(Phase::Data, 1)));
        QVERIFY(std::isnan(phaseBreakdown(store, 3).at(Phase::CommTransfer, 0)));
        QVERIFY(std::isnan(phaseBreakdown(store, 3).at(Phase::CommWait, 0)));
        const PhaseMeans m = phaseMeans(store, 2);
        QVERIFY(near(m.at(Phase::Data, 1), 2)); // the mean of the measured step only
        QVERIFY(near(m.at(Phase::CommTransfer, 0), 50));

        const MetricStore none;
        const PhaseMeans empty = phaseMeans(none, 10);
        QCOMPARE(empty.ranks, 0);
        QCOMPARE(empty.steps, 0);
        QCOMPARE(empty.fromStep, -1);
    }

    void formatNumberMissingIsDash()
    {
        QCOMPARE(formatNumber(std::numeric_limits<double>::quiet_NaN(), 4), QStringLiteral("-"));
        QCOMPARE(formatNumber(std::numeric_limits<double>::infinity(), 2, 'g'), QStringLiteral("-"));
        QCOMPARE(formatNumber(-std::numeric_limits<double>::infinity(), 0), QStringLiteral("-"));
        QCOMPARE(formatNumber(std::numeric_limits<double>::quiet_NaN(), 6, 'g', QLocale(QLocale::German)),
                 QStringLiteral("-"));
        QCOMPARE(formatNumber(1.5, 2), QStringLiteral("1.50"));
        QCOMPARE(formatNumber(12345.678, 0), QStringLiteral("12346")); // C locale: no group separator
        QCOMPARE(formatNumber(0.000123456, 4, 'g'), QStringLiteral("0.0001235"));
        QCOMPARE(formatNumber(-2.26, 1, 'f', QLocale(QLocale::German)), QStringLiteral("-2,3"));
    }
};

QTEST_GUILESS_MAIN(TestPhases)
#include "tst_phases.moc"
