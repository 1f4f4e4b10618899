// MetricStore: columns, the resume rule, min/max decimation, memory bound, load/save.
#include "metrics/metricstore.h"
#include "metrics/parser.h"
#include "test_paths.h"
#include "testdata.h"

#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <random>

using namespace traindeck::metrics;
using traindeck::Status;
namespace td = traindeck::metrics::testdata;

class tst_MetricStore : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void storesSteps();
    void resumeRuleTruncates();
    void worldSizeGrows();
    void decimate_data();
    void decimate();
    void decimateNaN();
    void memoryBound();
    void chunksStartedAhead();
    void largeJobSpillsOlderSteps();
    void spillFailureKeepsEverything();
    void loadFixture();
    void saveAndReload();
    void loadMissingFile();
};

void tst_MetricStore::storesSteps()
{
    MetricStore s;
    MetricsParser p(&s);
    p.feed(td::smallStream(4, 5));
    QCOMPARE(s.rowCount(), 5);
    QCOMPARE(s.worldSize(), 4);
    QCOMPARE(s.firstStep(), 1);
    QCOMPARE(s.lastStep(), 5);
    QCOMPARE(s.stepAt(2), 3);
    QCOMPARE(s.rowOfStep(4), 3);
    QCOMPARE(s.rowOfStep(99), -1);
    QCOMPARE(s.rankAt(RankMetric::Fwd, 3, 0), 403.25f);
    QCOMPARE(s.scalarAt(Scalar::Loss, 1), double(float(10.0 - 0.02)));
    QCOMPARE(s.scalarAt(Scalar::Tokens, 0), 4096.0 * 4);
    QCOMPARE(s.hostOf(3), QStringLiteral("node2"));
    QCOMPARE(s.memTotalMbOf(0), 81559.0);
    QCOMPARE(s.evals().size(), 1);
    QCOMPARE(s.checkpoints().size(), 1);
    QCOMPARE(s.warnings().size(), 1);
    QCOMPARE(s.errors().size(), 1);
    QVERIFY(s.done().has_value());
    QCOMPARE(s.done()->status, DoneRecord::Status::Failed);
    QVERIFY(s.hasRankMetric(RankMetric::CommBytes));
    const StepRecord r = s.stepRecord(4);
    QCOMPARE(r.step, 5);
    QCOMPARE(r.value(RankMetric::Comm, 1), 231.25f);
    QCOMPARE(s.series(SeriesId::of(RankMetric::Bwd, 2)).size(), size_t(5));
}

void tst_MetricStore::resumeRuleTruncates()
{
    MetricStore s;
    for (int i = 1; i <= 10; ++i)
        s.onStep(td::step(2, i, 5.0));
    EvalRecord e;
    e.step = 8;
    s.onEval(e);
    HelloRecord h = td::hello(2);
    h.resumedFromStep = 5;
    s.onHello(h);
    for (int i = 6; i <= 12; ++i)
        s.onStep(td::step(2, i, 3.0));
    e.step = 8;
    s.onEval(e);
    QCOMPARE(s.rowCount(), 12);
    QCOMPARE(s.scalarAt(Scalar::Loss, 4), 5.0); // step 5 from the first run
    QCOMPARE(s.scalarAt(Scalar::Loss, 5), 3.0); // step 6 replaced
    for (qint64 r = 0; r < s.rowCount(); ++r)
        QCOMPARE(s.stepAt(r), r + 1);
    QCOMPARE(s.evals().size(), 1);
    QCOMPARE(s.hellos().size(), 1);
    QCOMPARE(s.hello()->resumedFromStep, 5);
}

void tst_MetricStore::worldSizeGrows()
{
    MetricStore s;
    s.onStep(td::step(2, 1));
    s.onStep(td::step(4, 2));
    QCOMPARE(s.worldSize(), 4);
    QVERIFY(std::isnan(s.rankAt(RankMetric::Fwd, 3, 0)));
    QCOMPARE(s.rankAt(RankMetric::Fwd, 3, 1), 403.25f);
}

void tst_MetricStore::decimate_data()
{
    QTest::addColumn<qint64>("from");
    QTest::addColumn<qint64>("to");
    QTest::addColumn<int>("buckets");
    QTest::addRow("all, 100") << qint64(1) << qint64(50000) << 100;
    QTest::addRow("all, 7") << qint64(1) << qint64(50000) << 7;
    QTest::addRow("more buckets than steps") << qint64(100) << qint64(130) << 100;
    QTest::addRow("sub range") << qint64(12345) << qint64(23456) << 333;
    QTest::addRow("range beyond data") << qint64(-100) << qint64(90000) << 50;
    QTest::addRow("one step") << qint64(777) << qint64(777) << 10;
    QTest::addRow("one bucket") << qint64(1) << qint64(50000) << 1;
}

void tst_MetricStore::decimate()
{
    QFETCH(qint64, from);
    QFETCH(qint64, to);
    QFETCH(int, buckets);
    // Steps with gaps (every step not divisible by 7), random values.
    MetricStore s;
    std::mt19937 rng(7);
    std::normal_distribution<float> dist(0.f, 1.f);
    StepRecord r = td::step(2, 1);
    std::vector<std::pair<qint64, float>> all;
    for (qint64 i = 1; i <= 50000; ++i) {
        if (i % 7 == 0)
            continue;
        r.step = i;
        r.perRank[size_t(RankMetric::Comm)][1] = dist(rng);
        s.onStep(r);
        all.emplace_back(i, r.perRank[size_t(RankMetric::Comm)][1]);
    }
    const auto out = s.decimate(SeriesId::of(RankMetric::Comm, 1), from, to, buckets);
    // Buckets partition the points in range, in order; each min/max matches brute force.
    size_t k = 0;
    while (k < all.size() && all[k].first < from)
        ++k;
    qint64 total = 0;
    for (const MinMaxBucket& b : out) {
        QVERIFY(k < all.size());
        QCOMPARE(b.firstStep, all[k].first);
        float mn = INFINITY, mx = -INFINITY;
        int n = 0;
        while (k < all.size() && all[k].first <= b.lastStep) {
            mn = std::min(mn, all[k].second);
            mx = std::max(mx, all[k].second);
            ++n;
            ++k;
        }
        QCOMPARE(b.count, n);
        QCOMPARE(b.min, mn);
        QCOMPARE(b.max, mx);
        total += n;
    }
    QVERIFY(int(out.size()) <= buckets);
    qint64 expected = 0;
    for (const auto& p : all)
        expected += (p.first >= from && p.first <= to);
    QCOMPARE(total, expected);
    if (!out.empty())
        QVERIFY(out.back().lastStep <= to);
}

void tst_MetricStore::decimateNaN()
{
    MetricStore s;
    for (int i = 1; i <= 10; ++i) {
        StepRecord r = td::step(1, i, double(i));
        if (i == 3)
            r.loss = std::nan("");
        s.onStep(r);
    }
    const auto out = s.decimate(SeriesId::of(Scalar::Loss), 1, 10, 10);
    QCOMPARE(out.size(), size_t(10));
    QCOMPARE(out[2].count, 0);
    QVERIFY(std::isnan(out[2].min) && std::isnan(out[2].max));
    const auto two = s.decimate(SeriesId::of(Scalar::Loss), 1, 10, 2);
    QCOMPARE(two.size(), size_t(2));
    QCOMPARE(two[0].count, 4);
    QCOMPARE(two[0].min, 1.f);
    QCOMPARE(two[0].max, 5.f);
    QVERIFY(s.decimate(SeriesId::of(RankMetric::Fwd, 5), 1, 10, 2).empty()); // no such rank
    QVERIFY(s.decimate(SeriesId::of(Scalar::Loss), 1, 10, 0).empty());
}

void tst_MetricStore::memoryBound()
{
    MetricStore s;
    const int ranks = 8;
    const qint64 steps = 40000;
    StepRecord r = td::step(ranks, 1);
    for (qint64 i = 1; i <= steps; ++i) {
        r.step = i;
        s.onStep(r);
    }
    const double perStepRank = double(s.memoryBytes()) / double(steps) / ranks;
    qInfo("store: %.1f bytes per step per rank", perStepRank);
    QVERIFY(perStepRank <= 100.0);
    QVERIFY(perStepRank >= 36.0); // sanity: 9 float32 columns per rank at least
}

// The next chunks of the per-rank columns allocated ahead (the Monitor's live copy does it in refreshes of their
// own): a few columns at a time, only where the chunks are full, and the rows appended after read back as they
// were, also once truncated by a resumed run.
void tst_MetricStore::chunksStartedAhead()
{
    MetricStore s;
    const int ranks = 2, columns = ranks * kRankMetricCount;
    auto stepOf = [&](qint64 n) {
        StepRecord r = td::step(ranks, n);
        r.perRank[size_t(RankMetric::Fwd)] = {float(n), float(-n)};
        return r;
    };
    for (qint64 n = 1; n <= MetricStore::kRankColumnRows; ++n) // exactly one chunk full
        s.onStep(stepOf(n));
    const qint64 before = s.memoryBytes();
    QVERIFY(s.startNextRankChunks(5)); // 5 of the 22 columns
    const qint64 chunkBytes = MetricStore::kRankColumnRows * qint64(sizeof(float));
    QVERIFY2(s.memoryBytes() >= before + 5 * chunkBytes, qPrintable(QString::number(s.memoryBytes() - before)));
    QVERIFY(s.startNextRankChunks());
    QVERIFY2(s.memoryBytes() >= before + columns * chunkBytes, qPrintable(QString::number(s.memoryBytes() - before)));
    QVERIFY(!s.startNextRankChunks()); // none full now
    QCOMPARE(s.rowCount(), MetricStore::kRankColumnRows);
    // The next 256 rows allocate no per-rank chunk: memory grows by the per-step columns only, a chunk per
    // per-rank column less than in a store that did not start them ahead.
    MetricStore plain;
    for (qint64 n = 1; n <= MetricStore::kRankColumnRows; ++n)
        plain.onStep(stepOf(n));
    const qint64 started = s.memoryBytes(), plainBefore = plain.memoryBytes();
    for (qint64 n = MetricStore::kRankColumnRows + 1; n <= 2 * MetricStore::kRankColumnRows; ++n) {
        s.onStep(stepOf(n));
        plain.onStep(stepOf(n));
    }
    const qint64 grew = s.memoryBytes() - started, plainGrew = plain.memoryBytes() - plainBefore;
    QVERIFY2(grew + columns * chunkBytes <= plainGrew, qPrintable(QStringLiteral("%1 %2").arg(grew).arg(plainGrew)));
    for (qint64 row :
         {0LL, MetricStore::kRankColumnRows - 1, MetricStore::kRankColumnRows, 2 * MetricStore::kRankColumnRows - 1}) {
        QCOMPARE(s.rankAt(RankMetric::Fwd, 0, row), float(row + 1));
        QCOMPARE(s.rankAt(RankMetric::Fwd, 1, row), float(-(row + 1)));
    }
    // Started ahead again, then a resume replaces rows from step 100 on: the empty chunks go with the rest.
    QVERIFY(s.startNextRankChunks());
    s.onStep(stepOf(100));
    QCOMPARE(s.rowCount(), qint64(100));
    s.onStep(stepOf(101));
    QCOMPARE(s.rankAt(RankMetric::Fwd, 1, 100), -101.f);
    QCOMPARE(s.rankAt(RankMetric::Fwd, 0, 98), 99.f);
}

// A large job's per-rank history beyond the resident steps moves to the spill file: memory stays bounded,
// every value reads back as it was, and the resume rule, decimation and copies work across the boundary.
void tst_MetricStore::largeJobSpillsOlderSteps()
{
    QTemporaryDir dir;
    MetricStore store;
    store.setSpillPolicy(2000, 0, dir.path()); // spill whatever is older than 2000 steps
    constexpr int ranks = 64;
    auto value = [](qint64 step, int m, int rank) {
        return float(step % 997) + float(m) * 1000.f + float(rank) / 128.f;
    };
    auto stepOf = [&](qint64 n) {
        StepRecord r;
        r.step = n;
        r.t = double(n);
        for (int m = 0; m < kRankMetricCount; ++m) {
            r.perRank[size_t(m)].resize(ranks);
            for (int k = 0; k < ranks; ++k)
                r.perRank[size_t(m)][size_t(k)] = value(n, m, k);
        }
        return r;
    };
    for (qint64 n = 1; n <= 10000; ++n)
        store.onStep(stepOf(n));
    QVERIFY2(store.spillError().isEmpty(), qPrintable(store.spillError()));
    // 10,000 steps: the whole chunks before the last 2,000 steps (at least) are spilled (31 of 256 steps).
    const qint64 chunkBytes = MetricStore::kRankColumnRows * 4 * kRankMetricCount * ranks;
    const qint64 spilledChunks = (10000 - 2000) / MetricStore::kRankColumnRows;
    QCOMPARE(store.spilledBytes(), spilledChunks * chunkBytes);
    const qint64 resident = 10000 - spilledChunks * MetricStore::kRankColumnRows;
    QVERIFY2(store.memoryBytes() < (resident + MetricStore::kRankColumnRows) * 4 * kRankMetricCount * ranks + (4 << 20),
             qPrintable(QString::number(store.memoryBytes())));
    const qint64 firstResident = spilledChunks * MetricStore::kRankColumnRows;
    for (qint64 row : {0LL, 1LL, 255LL, 256LL, 1023LL, 1024LL, 5000LL, firstResident - 1, firstResident, 9999LL})
        for (int m : {0, 5, 10})
            for (int k : {0, 33, 63})
                QCOMPARE(store.rankAt(RankMetric(m), k, row), value(row + 1, m, k));
    // A row across ranks, and a column with a stride, read in one call each, across spilled and resident chunks.
    std::vector<float> across(ranks), column(10000);
    for (qint64 r : {0LL, 5000LL, firstResident - 1, firstResident, 9999LL}) {
        store.rankRow(RankMetric::Comm, r, across.data());
        for (int k = 0; k < ranks; ++k)
            QCOMPARE(across[size_t(k)], value(r + 1, int(RankMetric::Comm), k));
    }
    store.rankSamples(RankMetric::Opt, 17, 3, 10000, 7, column.data()); // rows 3, 10, ..., 9998
    for (qint64 i = 0; i < (10000 - 3 + 6) / 7; ++i)
        QCOMPARE(column[size_t(i)], value(3 + 7 * i + 1, int(RankMetric::Opt), 17));
    // Decimation across spilled and resident chunks sees every step.
    const auto buckets = store.decimate(SeriesId::of(RankMetric::Fwd, 7), 1, 10000, 10);
    QCOMPARE(buckets.size(), size_t(10));
    QCOMPARE(buckets.front().firstStep, qint64(1));
    QCOMPARE(buckets.back().lastStep, qint64(10000));
    // A copy of the last steps.
    const auto tail = store.copyTail(3000);
    QCOMPARE(tail->rowCount(), qint64(3000));
    QCOMPARE(tail->rankAt(RankMetric::Bwd, 5, 0), value(7001, int(RankMetric::Bwd), 5));
    // ... or taken a piece at a time (the Monitor's live copy): the same rows once whole.
    std::unique_ptr<MetricStore> pieces = store.copyTail(3000, 1024);
    QCOMPARE(pieces->rowCount(), qint64(1024));
    QCOMPARE(pieces->stepAt(0), qint64(7001));
    QCOMPARE(pieces->lastStep(), qint64(8024));
    QVERIFY(pieces->appendNewRowsOf(store, 3000, 1024));
    QCOMPARE(pieces->rowCount(), qint64(2048));
    QVERIFY(pieces->appendNewRowsOf(store, 3000, 1024));
    QCOMPARE(pieces->rowCount(), qint64(3000)); // the last piece is what was left
    QVERIFY(pieces->appendNewRowsOf(store, 3000, 1024));
    QCOMPARE(pieces->rowCount(), qint64(3000));
    for (qint64 row : {0LL, 1023LL, 1024LL, 2047LL, 2048LL, 2999LL})
        QCOMPARE(pieces->rankAt(RankMetric::Bwd, 5, row), tail->rankAt(RankMetric::Bwd, 5, row));
    // ... brought up to date with the rows added since (only those copied), up to a limit of rows.
    std::unique_ptr<MetricStore> live = store.copyTail(3000);
    QVERIFY(live->appendNewRowsOf(store, 4500));
    QCOMPARE(live->rowCount(), qint64(3000));
    for (qint64 n = 10001; n <= 10500; ++n)
        store.onStep(stepOf(n));
    QVERIFY(live->appendNewRowsOf(store, 4500));
    QCOMPARE(live->rowCount(), qint64(3500));
    QCOMPARE(live->stepAt(3499), qint64(10500));
    QCOMPARE(live->rankAt(RankMetric::Bwd, 5, 3499), value(10500, int(RankMetric::Bwd), 5));
    QCOMPARE(live->rankAt(RankMetric::Bwd, 5, 2999), value(10000, int(RankMetric::Bwd), 5));
    for (qint64 n = 10501; n <= 11500; ++n)
        store.onStep(stepOf(n));
    QVERIFY(!live->appendNewRowsOf(store, 4000)); // 4,500 rows: over the limit, unchanged
    QCOMPARE(live->rowCount(), qint64(3500));
    QVERIFY(!MetricStore().appendNewRowsOf(store, 100000)); // not a copy of it
    // A resume from step 3001 replaces everything after it: the chunk it ends in is back in memory.
    store.onStep(stepOf(3001));
    QCOMPARE(store.rowCount(), qint64(3001));
    QVERIFY(!live->appendNewRowsOf(store, 100000)); // its steps are not the store's any more
    // A resume that replays the very step numbers: the steps still line up, the values do not.
    MetricStore replayed;
    for (qint64 n = 1; n <= 100; ++n)
        replayed.onStep(stepOf(n));
    std::unique_ptr<MetricStore> replayedCopy = replayed.copyTail(60);
    QCOMPARE(replayed.rewinds(), qint64(0));
    for (qint64 n = 50; n <= 100; ++n)
        replayed.onStep(stepOf(n));
    QCOMPARE(replayed.rewinds(), qint64(1));
    QVERIFY(!replayedCopy->appendNewRowsOf(replayed, 1000));
    // 3,001 rows: the chunks before the one row 3,000 lies in stay spilled.
    const qint64 keptSpilled = (3001 + MetricStore::kRankColumnRows - 1) / MetricStore::kRankColumnRows - 1;
    QCOMPARE(store.spilledBytes(), keptSpilled * chunkBytes);
    const qint64 backInMemory = keptSpilled * MetricStore::kRankColumnRows;
    for (qint64 row : {0LL, backInMemory - 1, backInMemory, 3000LL})
        QCOMPARE(store.rankAt(RankMetric::Opt, 9, row), value(row + 1, int(RankMetric::Opt), 9));
    for (qint64 n = 3002; n <= 8000; ++n)
        store.onStep(stepOf(n));
    QCOMPARE(store.rankAt(RankMetric::Step, 63, 7999), value(8000, int(RankMetric::Step), 63));
    QCOMPARE(store.rankAt(RankMetric::Step, 63, 4000), value(4001, int(RankMetric::Step), 63));
    QCOMPARE(store.spilledBytes(), (8000 - 2000) / MetricStore::kRankColumnRows * chunkBytes);
    // A small job stays in memory under the default policy.
    MetricStore small;
    for (qint64 n = 1; n <= 12000; ++n)
        small.onStep(stepOf(n));
    QCOMPARE(small.spilledBytes(), qint64(0));
}

// No spill file can be made: everything stays in memory, readable, and the store says why.
void tst_MetricStore::spillFailureKeepsEverything()
{
    MetricStore store;
    store.setSpillPolicy(100, 0, QStringLiteral("/proc/no-such-dir"));
    StepRecord r;
    for (qint64 n = 1; n <= 3000; ++n) {
        r.step = n;
        for (auto& v : r.perRank)
            v.assign(4, float(n));
        store.onStep(r);
    }
    QVERIFY(!store.spillError().isEmpty());
    QCOMPARE(store.spilledBytes(), qint64(0));
    QCOMPARE(store.rankAt(RankMetric::Data, 3, 0), 1.f);
    QCOMPARE(store.rankAt(RankMetric::Data, 3, 2999), 3000.f);
}

void tst_MetricStore::loadFixture()
{
    MetricStore s;
    const auto loaded = s.loadFile(QString::fromUtf8(TRAINDECK_SOURCE_DIR) +
                                   QStringLiteral("/tests/fixtures/metrics/example-4ranks.jsonl"));
    QVERIFY2(loaded, qPrintable(loaded.errorString()));
    const LoadReport& rep = loaded.value();
    QCOMPARE(rep.malformed, 0);
    QCOMPARE(rep.records, 15);
    QCOMPARE(rep.lines, 15);
    QCOMPARE(s.rowCount(), 10);
    QCOMPARE(s.worldSize(), 4);
    QCOMPARE(s.hello()->runId, QStringLiteral("example-4ranks"));
}

void tst_MetricStore::saveAndReload()
{
    QTemporaryDir dir;
    MetricStore a;
    MetricsParser p(&a);
    QByteArray stream = td::smallStream(4, 6);
    stream.insert(td::helloLine(4).size(), "garbage\n");
    p.feed(stream);
    QCOMPARE(a.issueCount(), 1);
    const QString path = dir.filePath(QStringLiteral("saved.jsonl"));
    const Status saved = a.saveJsonl(path);
    QVERIFY2(saved, qPrintable(saved.errorString()));
    MetricStore b;
    const auto loaded = b.loadFile(path);
    QVERIFY(loaded);
    const LoadReport& rep = loaded.value();
    QCOMPARE(rep.malformed, 0);
    QCOMPARE(b.rowCount(), a.rowCount());
    QCOMPARE(b.evals().size(), 1);
    QCOMPARE(b.warnings().size(), 1);
    QCOMPARE(b.errors().size(), 1);
    QVERIFY(b.done().has_value());
    for (qint64 r = 0; r < a.rowCount(); ++r)
        for (int m = 0; m < kRankMetricCount; ++m)
            for (int k = 0; k < 4; ++k)
                QCOMPARE(b.rankAt(RankMetric(m), k, r), a.rankAt(RankMetric(m), k, r));
    // Saving the reloaded store gives the same bytes (canonical form is stable).
    const QString path2 = dir.filePath(QStringLiteral("saved2.jsonl"));
    QVERIFY(b.saveJsonl(path2));
    QFile f1(path), f2(path2);
    QVERIFY(f1.open(QIODevice::ReadOnly) && f2.open(QIODevice::ReadOnly));
    QCOMPARE(f1.readAll(), f2.readAll());
}

void tst_MetricStore::loadMissingFile()
{
    MetricStore s;
    const auto rep = s.loadFile(QStringLiteral("/nonexistent/metrics.jsonl"));
    QVERIFY(!rep);
    QCOMPARE(rep.firstError().file, QStringLiteral("/nonexistent/metrics.jsonl"));
    QVERIFY(rep.errorString().startsWith(QStringLiteral("/nonexistent/metrics.jsonl: cannot open")));
    // Nor can a file be written where no directory is.
    const Status saved = s.saveJsonl(QStringLiteral("/nonexistent/saved.jsonl"));
    QVERIFY(!saved);
    QCOMPARE(saved.firstError().file, QStringLiteral("/nonexistent/saved.jsonl"));
}

QTEST_GUILESS_MAIN(tst_MetricStore)
#include "tst_metric_store.moc"
