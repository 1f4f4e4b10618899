#include "gui_testdata.h"
#include "monitorcsv.h"
#include "series.h"

#include "metrics/metricstore.h"

#include <QTest>

#include <algorithm>
#include <cmath>

using namespace traindeck;
using namespace traindeck::gui;

class TestSeries : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void ema_data()
    {
        QTest::addColumn<double>("beta");
        QTest::addRow("none") << 0.0;
        QTest::addRow("0.6") << 0.6;
        QTest::addRow("0.99") << 0.99;
    }
    void ema()
    {
        QFETCH(double, beta);
        DebiasedEma e(beta);
        // A constant input is returned unchanged from the first value on (that is the debiasing).
        for (int i = 0; i < 20; ++i)
            QVERIFY(std::abs(e.add(5.0) - 5.0) < 1e-12);
        // NaN leaves the state alone.
        QVERIFY(std::isnan(e.add(metrics::kNaN)));
        QVERIFY(std::abs(e.add(5.0) - 5.0) < 1e-12);
    }
    void emaValues()
    {
        DebiasedEma e(0.5);
        QCOMPARE(e.add(2.0), 2.0);
        // s = 0.5*1 + 0.5*4 = 2.5... state: 0.5*0 + 0.5*2 = 1; then 0.5*1 + 0.5*4 = 2.5; weight 0.75.
        QVERIFY(std::abs(e.add(4.0) - 2.5 / 0.75) < 1e-12);
    }
    void phaseMeansTransferAndWait()
    {
        // The load-balance bars show analysis::phaseMeans (tst_phases), indexed by the re-exported Phase.
        static_assert(std::is_same_v<Phase, analysis::Phase>);
        metrics::MetricStore store;
        store.onHello(guitest::hello(4));
        for (int s = 1; s <= 30; ++s)
            store.onStep(guitest::step(s, 4, 2));
        const analysis::PhaseMeans m = analysis::phaseMeans(store, 10);
        QCOMPARE(m.steps, 10);
        QCOMPARE(m.fromStep, 21);
        QCOMPARE(m.toStep, 30);
        for (int r = 0; r < 4; ++r) {
            // Transfer is the straggler's comm (50 ms) for everybody; the others wait 40% of 310 ms.
            QVERIFY(std::abs(m.ms[size_t(Phase::CommTransfer)][size_t(r)] - 50) < 1e-3);
            const double wait = r == 2 ? 0 : 0.4 * 310;
            QVERIFY2(std::abs(m.ms[size_t(Phase::CommWait)][size_t(r)] - wait) < 1e-2, qPrintable(QString::number(r)));
            QVERIFY(std::abs(m.total(r) - m.total(0)) < 1e-2); // every step ends together
        }
        QVERIFY(std::abs(m.ms[size_t(Phase::Forward)][2] - 140) < 1e-3);
    }
    void heatmapExactAndBucketed()
    {
        metrics::MetricStore store;
        store.onHello(guitest::hello(3));
        for (int s = 1; s <= 100; ++s)
            store.onStep(guitest::step(s, 3, s == 50 ? 1 : -1));
        const HeatmapGrid exact = heatmapGrid(store, HeatmapMetric::Forward, 0, -1, 1000);
        QCOMPARE(exact.columns, 100);
        QCOMPARE(exact.ranks, 3);
        QCOMPARE(exact.at(49, 1), 140.f);
        QCOMPARE(exact.at(48, 1), 100.f);
        QCOMPARE(exact.firstStep, 1.0);
        QCOMPARE(exact.lastStep, 100.0);
        // Ten columns: the maximum of each bucket keeps the spike.
        const HeatmapGrid coarse = heatmapGrid(store, HeatmapMetric::Forward, 0, -1, 10, 100);
        QCOMPARE(coarse.columns, 10);
        QCOMPARE(coarse.at(4, 1), 140.f);
        QCOMPARE(coarse.at(3, 1), 100.f);
        QCOMPARE(coarse.max, 140.f);
    }
    // By host with a row cache: the same grid as without it, for the first view and a panned one; the panned
    // view samples the rows the first one kept (multiples of one stride), so it computes only its new ones.
    void heatmapByHostCacheMatchesAndIsReused()
    {
        metrics::MetricStore store;
        store.onHello(guitest::hello(12));
        for (int s = 1; s <= 4000; ++s)
            store.onStep(guitest::step(s, 12, s % 37 == 0 ? (s / 37) % 12 : -1));
        const std::vector<std::vector<int>> hosts = {{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9, 10, 11}};
        auto same = [](const HeatmapGrid& a, const HeatmapGrid& b) {
            return a.columns == b.columns && a.ranks == b.ranks && a.firstStep == b.firstStep &&
                   a.lastStep == b.lastStep && a.min == b.min && a.max == b.max &&
                   std::equal(a.cells.begin(), a.cells.end(), b.cells.begin(), b.cells.end(),
                              [](float x, float y) { return x == y || (std::isnan(x) && std::isnan(y)); });
        };
        HeatmapRowCache cache;
        cache.use(1, store.rewinds(), HeatmapMetric::Comm, hosts);
        // 3,000 rows in 100 columns, 8 samples each: a stride of 3 rows, 1,000 rows sampled.
        const HeatmapGrid plain = heatmapGrid(store, HeatmapMetric::Comm, 0, 3000, 100, 8, hosts);
        QCOMPARE(plain.columns, 100);
        QCOMPARE(plain.ranks, 3);
        QVERIFY(same(heatmapGrid(store, HeatmapMetric::Comm, 0, 3000, 100, 8, hosts, &cache), plain));
        QCOMPARE(cache.rows(), size_t(1000));
        QVERIFY(same(heatmapGrid(store, HeatmapMetric::Comm, 0, 3000, 100, 8, hosts, &cache), plain));
        QCOMPARE(cache.rows(), size_t(1000));
        const HeatmapGrid panned = heatmapGrid(store, HeatmapMetric::Comm, 30, 3030, 100, 8, hosts);
        QVERIFY(same(heatmapGrid(store, HeatmapMetric::Comm, 30, 3030, 100, 8, hosts, &cache), panned));
        QCOMPARE(cache.rows(), size_t(1010)); // rows 3000 to 3027
        // A step with a straggler: its host's median comm is the others' wait (174 ms), 50 ms otherwise.
        QCOMPARE(plain.min, 50.f);
        QCOMPARE(plain.max, 174.f);
        // A resumed run replaces rows: the store's rewind count forgets them, and the grid shows the new values.
        store.onStep(guitest::step(2000, 12, 5)); // rows 1999 on replaced; rank 5 (host 1) a straggler now
        for (int s = 2001; s <= 4000; ++s)
            store.onStep(guitest::step(s, 12, 5));
        cache.use(1, store.rewinds(), HeatmapMetric::Comm, hosts);
        QCOMPARE(cache.rows(), size_t(0));
        const HeatmapGrid resumed = heatmapGrid(store, HeatmapMetric::Comm, 0, 3000, 100, 8, hosts, &cache);
        QVERIFY(same(resumed, heatmapGrid(store, HeatmapMetric::Comm, 0, 3000, 100, 8, hosts)));
        int changed = 0; // columns of the replaced rows whose kept value would have been 50
        for (int c = 67; c < 100; ++c) {
            QCOMPARE(resumed.at(c, 0), 174.f); // host 0 waits for rank 5 in every replaced step
            changed += plain.at(c, 0) == 50.f;
        }
        QVERIFY(changed > 0);
        // Another metric or run forgets the kept rows.
        cache.use(1, store.rewinds(), HeatmapMetric::Forward, hosts);
        QCOMPARE(cache.rows(), size_t(0));
        heatmapGrid(store, HeatmapMetric::Forward, 0, 3000, 100, 8, hosts, &cache);
        cache.use(2, store.rewinds(), HeatmapMetric::Forward, hosts);
        QCOMPARE(cache.rows(), size_t(0));
    }
    // In pieces: each call reads at most the rows it is allowed, left to right; columns of no row read yet are
    // unknown; the calls together give the grid computed at once, and the call that reads the last row missing
    // says it is complete. Without a cache the limit does not apply (nothing would carry the pieces).
    // By host and by rank: the grid read a piece a call equals the grid read at once.
    void heatmapInPieces()
    {
        metrics::MetricStore store;
        store.onHello(guitest::hello(12));
        for (int s = 1; s <= 3000; ++s)
            store.onStep(guitest::step(s, 12, s % 37 == 0 ? (s / 37) % 12 : -1));
        const std::vector<std::vector<int>> hosts = {{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9, 10, 11}};
        for (const std::vector<std::vector<int>>& groups : {hosts, std::vector<std::vector<int>>{}}) {
            const int rows = groups.empty() ? 12 : 3;
            const HeatmapGrid whole = heatmapGrid(store, HeatmapMetric::Comm, 0, 3000, 100, 8, groups);
            QVERIFY(whole.complete);
            QCOMPARE(whole.ranks, rows);
            QVERIFY(heatmapGrid(store, HeatmapMetric::Comm, 0, 3000, 100, 8, groups, nullptr, 10).complete);
            HeatmapRowCache cache;
            cache.use(1, store.rewinds(), HeatmapMetric::Comm, groups);
            // 3,000 rows, a stride of 3: 1,000 rows sampled, 10 per column; 250 rows a call fill 25 columns.
            HeatmapGrid piece = heatmapGrid(store, HeatmapMetric::Comm, 0, 3000, 100, 8, groups, &cache, 250);
            QVERIFY(!piece.complete);
            QCOMPARE(cache.rows(), size_t(250));
            QCOMPARE(piece.at(24, 0), whole.at(24, 0));
            QVERIFY(std::isnan(piece.at(25, 0)) && std::isnan(piece.at(99, rows - 1)));
            int calls = 1;
            while (!piece.complete && calls < 10) {
                piece = heatmapGrid(store, HeatmapMetric::Comm, 0, 3000, 100, 8, groups, &cache, 250);
                ++calls;
            }
            QCOMPARE(calls, 4); // four calls of 250 rows read the 1,000
            QVERIFY(piece.cells == whole.cells);
            QCOMPARE(piece.min, whole.min);
            QCOMPARE(piece.max, whole.max);
            // The columns computed last are kept, every one final: rows up to 2,999 of 3,000, never the last.
            const HeatmapRowCache::Columns& last = cache.lastColumns();
            QCOMPARE(last.columns, 100);
            QVERIFY(std::all_of(last.final.begin(), last.final.end(), [](char f) { return f != 0; }));
            QVERIFY(last.cells == whole.cells);
            // A call of the same shape copies them: altered kept columns show through (proof the copy is read);
            // another shape (panned) computes them again.
            HeatmapRowCache::Columns& kept = cache.lastColumns();
            std::fill(kept.cells.begin(), kept.cells.begin() + rows, -1.f);
            QCOMPARE(heatmapGrid(store, HeatmapMetric::Comm, 0, 3000, 100, 8, groups, &cache, 250).at(0, 0), -1.f);
            QVERIFY(heatmapGrid(store, HeatmapMetric::Comm, 3, 3003, 100, 8, groups, &cache, 250).at(0, 0) >= 0.f);
            // A column that samples the store's last row is not final (the row may still change): a column a row.
            heatmapGrid(store, HeatmapMetric::Comm, 0, -1, 3000, 8, groups, &cache);
            QCOMPARE(cache.lastColumns().columns, 3000);
            QVERIFY(!cache.lastColumns().final.back());
            QVERIFY(cache.lastColumns().final.front());
            // Another grouping (or run, metric, rewind) forgets them.
            cache.use(1, store.rewinds(), HeatmapMetric::Forward, groups);
            QCOMPARE(cache.lastColumns().columns, 0);
        }
    }
    void decimatedSeriesKeepsExtremes()
    {
        metrics::MetricStore store;
        store.onHello(guitest::hello(1));
        for (int s = 1; s <= 10000; ++s) {
            auto st = guitest::step(s, 1);
            st.loss = s == 7777 ? 100.0 : 1.0;
            store.onStep(st);
        }
        const XYSeries all = seriesForPlot(store, metrics::SeriesId::of(metrics::Scalar::Loss), -1, -1, 20000);
        QVERIFY(!all.decimated);
        QCOMPARE(all.keys.size(), 10000);
        const XYSeries few = seriesForPlot(store, metrics::SeriesId::of(metrics::Scalar::Loss), -1, -1, 400);
        QVERIFY(few.decimated);
        QVERIFY(few.keys.size() <= 400);
        QCOMPARE(*std::max_element(few.values.begin(), few.values.end()), 100.0);
        QVERIFY(std::is_sorted(few.keys.begin(), few.keys.end()));
        // The vector variant (smoothed series) as well.
        std::vector<float> v(10000, 1.f);
        v[1234] = -5.f;
        const XYSeries fv = vectorForPlot(store, v, -1, -1, 400);
        QVERIFY(fv.decimated);
        QCOMPARE(*std::min_element(fv.values.begin(), fv.values.end()), -5.0);
    }
    void csvRows()
    {
        metrics::MetricStore store;
        store.onHello(guitest::hello(2));
        store.onStep(guitest::step(1, 2));
        const QString header = monitorCsvHeader(store);
        QVERIFY(header.startsWith(QStringLiteral("step,epoch,loss,loss_smoothed,lr")));
        QVERIFY(header.trimmed().endsWith(QStringLiteral("step_ms_rank1")));
        const QStringList row = monitorCsvRow(store, 0, 9.5).trimmed().split(QLatin1Char(','));
        QCOMPARE(row.size(), header.trimmed().split(QLatin1Char(',')).size());
        QCOMPARE(row.at(0), QStringLiteral("1"));
        QCOMPARE(row.at(3), QStringLiteral("9.5"));
    }
};

QTEST_GUILESS_MAIN(TestSeries)
#include "tst_series.moc"
