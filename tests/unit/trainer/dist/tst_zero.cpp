// ZeRO-1 (--zero 1): the shard layout, and under a real mpirun the update of plain data parallelism
// within fp32 tolerance (2 and 3 ranks, uneven shards), resume on the same world size bit for bit and on
// another one re-sharded, the optimizer memory per rank in the hello record, and bad values refused.
#include "model/safetensors.h"
#include "testsupport.h"
#include "train/zero.h"

#include <QTemporaryDir>
#include <QTest>
#include <nlohmann/json.hpp>

using testsupport::maxRelativeDifference;
using testsupport::ProcessResult;
using testsupport::trainMicro;
using traindeck::train::piecesIn;
using traindeck::train::shardCounts;

namespace {

// The largest relative difference over the optimizer state tensors of two checkpoints.
double optimizerDifference(const QString& a, const QString& b)
{
    auto fa = traindeck::model::SafetensorsFile::open((a + "/optimizer.safetensors").toStdString());
    auto fb = traindeck::model::SafetensorsFile::open((b + "/optimizer.safetensors").toStdString());
    std::map<std::string, at::Tensor> other;
    for (const auto& t : fb->tensors())
        other[t.name] = fb->view(t);
    double worst = 0;
    size_t compared = 0;
    for (const auto& t : fa->tensors()) {
        if (t.name.find("k_proj.bias") != std::string::npos) // see maxRelativeDifference
            continue;
        const auto x = fa->view(t);
        const auto& y = other.at(t.name);
        const double scale = std::max(x.abs().max().item<double>(), 1e-12);
        worst = std::max(worst, x.sub(y).abs().max().item<double>() / scale);
        ++compared;
    }
    return compared > 0 ? worst : 1e9;
}

} // namespace

class TestZero : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase();
    void shardLayout();
    void equalsPlainDataParallel_data();
    void equalsPlainDataParallel();
    void resumeOnTheSameWorldSizeIsExact();
    void resumeOnAnotherWorldSizeReshards();
    void badValuesAreRefused();

  private:
    ProcessResult train(int np, int zero, const QString& out, int steps, const QStringList& extra = {});
    QTemporaryDir dir_;
    QString model_, data_;
};

void TestZero::initTestCase()
{
    QVERIFY(dir_.isValid());
    const auto micro = testsupport::writeMicroRun(dir_.path(), 29, "each rank keeps a slice of the optimizer.");
    model_ = micro.model;
    data_ = micro.data;
}

ProcessResult TestZero::train(int np, int zero, const QString& out, int steps, const QStringList& extra)
{
    // Buckets of about 2600 floats: many buckets whose sizes do not divide by 3 (uneven shards), and
    // shard boundaries inside parameters.
    return trainMicro(np, QStringList{"--model",
                                      model_,
                                      "--data",
                                      data_,
                                      "--max-steps",
                                      QString::number(steps),
                                      "--micro-batch",
                                      "2",
                                      "--grad-accum",
                                      "2",
                                      "--bucket-mb",
                                      "0.01",
                                      "--checkpoint-every",
                                      "4",
                                      "--keep",
                                      "5",
                                      "--zero",
                                      QString::number(zero),
                                      "--out",
                                      out,
                                      "--metrics-out",
                                      out + "/metrics.jsonl"} +
                              extra);
}

void TestZero::shardLayout()
{
    QCOMPARE(shardCounts(10, 3), (std::vector<int64_t>{4, 3, 3}));
    QCOMPARE(shardCounts(2, 3), (std::vector<int64_t>{1, 1, 0}));
    QCOMPARE(shardCounts(7, 1), (std::vector<int64_t>{7}));
    // Parameters of 4 and 6 elements; the range [3, 7) takes the last of the first and 3 of the second.
    const auto p = piecesIn({4, 6}, 3, 7);
    QCOMPARE(p.size(), size_t(2));
    QCOMPARE(p[0].param, size_t(0));
    QCOMPARE(p[0].paramOffset, int64_t(3));
    QCOMPARE(p[0].bucketOffset, int64_t(3));
    QCOMPARE(p[0].length, int64_t(1));
    QCOMPARE(p[1].param, size_t(1));
    QCOMPARE(p[1].paramOffset, int64_t(0));
    QCOMPARE(p[1].bucketOffset, int64_t(4));
    QCOMPARE(p[1].length, int64_t(3));
    QVERIFY(piecesIn({4, 6}, 4, 4).empty());
}

void TestZero::equalsPlainDataParallel_data()
{
    QTest::addColumn<int>("ranks");
    QTest::newRow("2 ranks") << 2;
    QTest::newRow("3 ranks") << 3;
}

void TestZero::equalsPlainDataParallel()
{
    QFETCH(int, ranks);
    const QString plain = dir_.path() + "/plain-" + QString::number(ranks);
    const QString sharded = dir_.path() + "/zero-" + QString::number(ranks);
    auto r = train(ranks, 0, plain, 8);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    r = train(ranks, 1, sharded, 8);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const QString last = "/checkpoints/step-00000008";
    const double weights = maxRelativeDifference(plain + last, sharded + last);
    const double state = optimizerDifference(plain + last, sharded + last);
    qInfo("%d ranks: --zero 1 against plain data parallelism: weights %.3g, optimizer state %.3g (relative)", ranks,
          weights, state);
    QVERIFY2(weights <= 1e-5, qPrintable(QString::number(weights)));
    QVERIFY2(state <= 1e-4, qPrintable(QString::number(state)));
    // Each rank holds about 1/ranks of the optimizer state.
    const auto h0 = testsupport::records(plain + "/metrics.jsonl", "hello").at(0);
    const auto h1 = testsupport::records(sharded + "/metrics.jsonl", "hello").at(0);
    double plainMb = h0["ranks"][0]["optimizer_mb"].get<double>(), total = 0;
    for (const auto& rank : h1["ranks"]) {
        const double mb = rank["optimizer_mb"].get<double>();
        QVERIFY2(std::abs(mb - plainMb / ranks) <= 0.02 * plainMb, h1["ranks"].dump().c_str());
        total += mb;
    }
    QVERIFY(std::abs(total - plainMb) <= 1e-6 * plainMb + 1e-9);
    QCOMPARE(h1["hparams"]["zero"].get<int>(), 1);
}

void TestZero::resumeOnTheSameWorldSizeIsExact()
{
    const QString whole = dir_.path() + "/zero-2"; // equalsPlainDataParallel's run, 8 steps in one go
    if (!QFileInfo::exists(whole + "/checkpoints/step-00000008/model.safetensors"))
        QSKIP("needs equalsPlainDataParallel");
    const QString out = dir_.path() + "/resumed-2";
    // The same 8-step run (same schedule), ended at the start of step 5 after the checkpoint of step 4.
    auto r = train(2, 1, out, 8, {"--inject-exit", "1:5"});
    QVERIFY2(r.exitCode != 0 && r.err.contains("injected exit"), r.err.constData());
    r = train(2, 1, out, 8, {"--resume", "latest"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    for (const char* f : {"model.safetensors", "optimizer.safetensors"})
        QVERIFY2(testsupport::readFile(out + "/checkpoints/step-00000008/" + f) ==
                     testsupport::readFile(whole + "/checkpoints/step-00000008/" + f),
                 f);
}

void TestZero::resumeOnAnotherWorldSizeReshards()
{
    // The 2-rank sharded checkpoint of step 4 resumed on 3 ranks, sharded and plain: the same run.
    const QString from = dir_.path() + "/zero-2/checkpoints/step-00000004";
    if (!QFileInfo::exists(from + "/optimizer.safetensors"))
        QSKIP("needs equalsPlainDataParallel");
    QString outs[2];
    for (int zero = 0; zero < 2; ++zero) {
        outs[zero] = dir_.path() + "/reshard-" + QString::number(zero);
        const auto r = train(3, zero, outs[zero], 8, {"--resume", from});
        QVERIFY2(r.exitCode == 0, r.err.constData());
    }
    const QString last = "/checkpoints/step-00000008";
    const double weights = maxRelativeDifference(outs[0] + last, outs[1] + last);
    const double state = optimizerDifference(outs[0] + last, outs[1] + last);
    qInfo("2 -> 3 ranks: sharded against plain after resuming: weights %.3g, optimizer state %.3g", weights, state);
    QVERIFY2(weights <= 1e-5, qPrintable(QString::number(weights)));
    QVERIFY2(state <= 1e-4, qPrintable(QString::number(state)));
}

void TestZero::badValuesAreRefused()
{
    auto r = trainMicro(
        0, {"--model", model_, "--data", data_, "--max-steps", "1", "--zero", "2", "--out", dir_.path() + "/bad"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("--zero must be 0 or 1"), r.err.constData());
    r = trainMicro(0, {"--model", model_, "--data", data_, "--max-steps", "1", "--zero", "1", "--compression", "fp16",
                       "--out", dir_.path() + "/bad"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("leave --compression at none"), r.err.constData());
}

QTEST_GUILESS_MAIN(TestZero)
#include "tst_zero.moc"
