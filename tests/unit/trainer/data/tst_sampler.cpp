// DistributedSampler semantics (PyTorch's) and the resumable, prefetching data loader.
#include "data/dataset.h"
#include "data/sampler.h"
#include "testsupport.h"

#include <QTemporaryDir>
#include <QTest>

#include <set>

using namespace traindeck::data;

class TestSampler : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void partition_data();
    void partition();
    void deterministicPerSeedAndEpoch();
    void unshuffledOrder();
    void invalidArguments();
    void loaderResumesExactly();
};

void TestSampler::partition_data()
{
    QTest::addColumn<int>("n");
    QTest::addColumn<int>("world");
    QTest::addColumn<bool>("dropLast");
    for (int n : {1, 7, 10, 64, 101})
        for (int world : {1, 2, 3, 8})
            for (bool drop : {false, true})
                if (!(drop && n < world))
                    QTest::addRow("n=%d world=%d drop_last=%d", n, world, int(drop)) << n << world << drop;
}

void TestSampler::partition()
{
    QFETCH(int, n);
    QFETCH(int, world);
    QFETCH(bool, dropLast);
    // PyTorch: num_samples = ceil((n - w) / w) with drop_last and a remainder, else ceil(n / w).
    const int64_t expectedPerRank = (dropLast && n % world) ? (n - world + world - 1) / world : (n + world - 1) / world;
    std::multiset<int64_t> all;
    std::set<int64_t> unique;
    for (int r = 0; r < world; ++r) {
        DistributedSampler s(n, {world, r, true, 42, dropLast});
        QCOMPARE(s.samplesPerRank(), expectedPerRank);
        const auto idx = s.indices(0);
        QCOMPARE(int64_t(idx.size()), expectedPerRank);
        for (auto i : idx) {
            QVERIFY(i >= 0 && i < n);
            all.insert(i);
            unique.insert(i);
        }
    }
    if (!dropLast)
        QCOMPARE(int(unique.size()), n); // complete: every sample is seen
    if (dropLast || n % world == 0)
        QCOMPARE(unique.size(), all.size()); // disjoint across ranks
    else
        QCOMPARE(int(all.size()), int(expectedPerRank * world)); // padded by repetition
}

void TestSampler::deterministicPerSeedAndEpoch()
{
    DistributedSampler a(1000, {2, 1, true, 7, false}), b(1000, {2, 1, true, 7, false}),
        c(1000, {2, 1, true, 8, false});
    QCOMPARE(a.indices(3), b.indices(3));
    QVERIFY(a.indices(3) != a.indices(4));
    QVERIFY(a.indices(3) != c.indices(3));
}

void TestSampler::unshuffledOrder()
{
    DistributedSampler s(10, {3, 1, false, 0, false});
    QCOMPARE(s.indices(0), (std::vector<int64_t>{1, 4, 7, 0})); // padded with the start: 0 1 2 ... 9 0 1
}

void TestSampler::invalidArguments()
{
    QVERIFY_THROWS_EXCEPTION(traindeck::InputError, DistributedSampler(0, {1, 0, true, 0, false}));
    QVERIFY_THROWS_EXCEPTION(traindeck::InputError, DistributedSampler(10, {2, 2, true, 0, false}));
    QVERIFY_THROWS_EXCEPTION(traindeck::InputError, DistributedSampler(1, {2, 0, true, 0, true}));
}

void TestSampler::loaderResumesExactly()
{
    QTemporaryDir dir;
    QByteArray corpus;
    for (int i = 0; i < 60; ++i)
        corpus += "{\"text\":\"document number " + QByteArray::number(i) + " with some words\"}\n";
    testsupport::writeFile(dir.path() + "/c.jsonl", corpus);
    TokenCacheOptions o;
    o.dataPath = (dir.path() + "/c.jsonl").toStdString();
    o.cacheRoot = (dir.path() + "/cache").toStdString();
    o.verbose = false;
    auto cache = TokenCache::buildOrLoad(o, nullptr);
    auto ds = std::make_shared<const TokenDataset>(cache, BatchMode::Pack, 16);
    const SamplerOptions so{2, 1, true, 3, false};
    DataLoader full(ds, so, 3);
    std::vector<Batch> reference;
    for (int i = 0; i < 3 * full.batchesPerEpoch() + 2; ++i)
        reference.push_back(full.next());
    QVERIFY(reference.back().epoch >= 2);
    // Restart from every position, crossing epoch boundaries, and compare the rest.
    for (size_t k = 0; k + 1 < reference.size(); k += 3) {
        DataLoader resumed(ds, so, 3, reference[k].epoch, reference[k].positionAfter);
        for (size_t j = k + 1; j < std::min(reference.size(), k + 6); ++j) {
            Batch b = resumed.next();
            QVERIFY2(b.inputIds.equal(reference[j].inputIds),
                     qPrintable(QStringLiteral("batch %1 after %2").arg(j).arg(k)));
            QCOMPARE(b.epoch, reference[j].epoch);
        }
    }
}

QTEST_GUILESS_MAIN(TestSampler)
#include "tst_sampler.moc"
