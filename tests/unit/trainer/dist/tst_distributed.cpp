// Data-parallel training under a real `mpirun -np 2`: Horovod semantics (2 ranks x b == 1 rank x 2b,
// gradient accumulation == the larger batch, the start-up broadcast), wire compression, bit-exact resume,
// resuming on another world size, and a failing rank that ends the job naming itself.
#include "testsupport_tensors.h"

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTest>
#include <nlohmann/json.hpp>

using namespace traindeck::model;
using testsupport::ProcessResult;

namespace {

using testsupport::checkpointWeights;
using testsupport::maxRelativeDifference;
using testsupport::trainMicro; // under mpirun with np ranks (np 0: without mpirun)

// step -> loss text, later records winning (the resume rule of the protocol).
std::map<int, std::string> losses(const QString& metricsPath)
{
    std::map<int, std::string> out;
    for (const auto& line : testsupport::readFile(metricsPath).split('\n')) {
        if (line.trimmed().isEmpty())
            continue;
        auto j = nlohmann::json::parse(line.toStdString());
        if (j["type"] == "step")
            out[j["step"].get<int>()] = j["loss"].dump();
    }
    return out;
}

} // namespace

class TestDistributed : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase();
    void twoRanksMatchOneRankWithDoubleBatch();
    void gradientAccumulationMatchesLargerBatch();
    void broadcastMakesRanksEqual();
    void compressionStaysWithinItsError_data();
    void compressionStaysWithinItsError();
    void injectedExitFailsNamingTheRank_thenResumeIsBitExact_data();
    void injectedExitFailsNamingTheRank_thenResumeIsBitExact();
    void resumeWithoutCheckpointEndsEveryRank();
    void compressionErrorOfTheWire();
    void nonFiniteGradientsSkipTheStep();
    void benchComm();

  private:
    QTemporaryDir dir_;
    QString model_, data_;
};

void TestDistributed::initTestCase()
{
    QVERIFY(dir_.isValid());
    // A small model (vocab 512, byte-level data) keeps each step in milliseconds.
    const auto micro =
        testsupport::writeMicroRun(dir_.path(), 11, "data-parallel training averages gradients over ranks.");
    model_ = micro.model;
    data_ = micro.data;
}

void TestDistributed::twoRanksMatchOneRankWithDoubleBatch()
{
    const QString a = dir_.path() + "/one-rank", b = dir_.path() + "/two-ranks";
    auto r1 =
        trainMicro(0, {"--model", model_, "--data", data_, "--max-steps", "20", "--micro-batch", "4", "--out", a});
    QVERIFY2(r1.exitCode == 0, r1.err.constData());
    auto r2 =
        trainMicro(2, {"--model", model_, "--data", data_, "--max-steps", "20", "--micro-batch", "2", "--out", b});
    QVERIFY2(r2.exitCode == 0, r2.err.constData());
    const double diff = maxRelativeDifference(a + "/checkpoints/step-00000020", b + "/checkpoints/step-00000020");
    qInfo("max relative parameter difference after 20 steps: %.3g", diff);
    QVERIFY2(diff <= 1e-5, qPrintable(QString::number(diff)));
    // And training did move the parameters (the comparison is not vacuous).
    QVERIFY(maxRelativeDifference(model_, b + "/checkpoints/step-00000020") > 1e-3);
}

void TestDistributed::gradientAccumulationMatchesLargerBatch()
{
    const QString a = dir_.path() + "/accum", b = dir_.path() + "/big-batch";
    auto r1 = trainMicro(0, {"--model", model_, "--data", data_, "--max-steps", "10", "--micro-batch", "2",
                             "--grad-accum", "2", "--out", a});
    QVERIFY2(r1.exitCode == 0, r1.err.constData());
    auto r2 =
        trainMicro(0, {"--model", model_, "--data", data_, "--max-steps", "10", "--micro-batch", "4", "--out", b});
    QVERIFY2(r2.exitCode == 0, r2.err.constData());
    const double diff = maxRelativeDifference(a + "/checkpoints/step-00000010", b + "/checkpoints/step-00000010");
    qInfo("gradient accumulation vs larger batch: %.3g", diff);
    QVERIFY(diff <= 1e-5);
}

void TestDistributed::broadcastMakesRanksEqual()
{
    auto r = trainMicro(2, {"--model", model_, "--data", data_, "--max-steps", "3", "--micro-batch", "2",
                            "--init-seed-per-rank", "--verify-sync", "--out", dir_.path() + "/sync"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY2(r.err.contains("sync check before broadcast: ranks differ"), r.err.constData());
    QVERIFY(r.err.contains("sync check after broadcast: ranks equal"));
    QVERIFY(r.err.contains("sync check at the end: ranks equal"));
}

void TestDistributed::compressionStaysWithinItsError_data()
{
    QTest::addColumn<QString>("wire");
    QTest::addColumn<double>("bound");
    // Rounding the averaged gradient to 11 (fp16, scaled) or 8 (bf16) mantissa bits perturbs AdamW's
    // update slightly each step; after 5 steps at lr 1e-3 the parameters stay within 1e-2 (relative).
    QTest::addRow("fp16") << "fp16" << 1e-2;
    QTest::addRow("bf16") << "bf16" << 1e-2;
}

void TestDistributed::compressionStaysWithinItsError()
{
    QFETCH(QString, wire);
    QFETCH(double, bound);
    const QString exact = dir_.path() + "/wire-none", lossy = dir_.path() + "/wire-" + wire;
    if (!QFile::exists(exact + "/checkpoints/latest")) {
        auto r = trainMicro(
            2, {"--model", model_, "--data", data_, "--max-steps", "5", "--micro-batch", "2", "--out", exact});
        QVERIFY2(r.exitCode == 0, r.err.constData());
    }
    auto r = trainMicro(2, {"--model", model_, "--data", data_, "--max-steps", "5", "--micro-batch", "2",
                            "--compression", wire, "--out", lossy});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const double diff =
        maxRelativeDifference(exact + "/checkpoints/step-00000005", lossy + "/checkpoints/step-00000005");
    qInfo("%s wire compression: max relative parameter difference %.3g", qPrintable(wire), diff);
    QVERIFY(diff > 0); // the compression really happened
    QVERIFY(diff < bound);
}

// Only rank 0 reads the checkpoint: a rank whose node cannot see the out directory (the head's own
// disk) resumes from what rank 0 sends. When rank 0 cannot read it, the other ranks are told instead of
// waiting for a broadcast that never comes.
void TestDistributed::resumeWithoutCheckpointEndsEveryRank()
{
    const QString head = dir_.path() + "/head-out", elsewhere = dir_.path() + "/other-node-out";
    QDir().mkpath(elsewhere);
    const QStringList common = {
        "--model",   model_, "--data",   data_, "--micro-batch", "2",    "--checkpoint-every", "2", "--threads", "1",
        "--seq-len", "32",   "--warmup", "2",   "--lr",          "0.001"};
    auto r = trainMicro(2, QStringList{"--model", model_, "--data", data_, "--micro-batch", "2", "--checkpoint-every",
                                       "2", "--max-steps", "2", "--out", head});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    // MPMD: rank 0 with the head's out directory, rank 1 with an empty one.
    auto mpmd = [&](const QString& outOfRank1) {
        const QStringList train = QStringList{"train"} + common + QStringList{"--max-steps", "4", "--resume", "latest"};
        return testsupport::run(
            "mpirun",
            QStringList{"--bind-to", "none", "--oversubscribe", "-np", "1", testsupport::trainerExe()} + train +
                QStringList{"--out", head, ":", "-np", "1", testsupport::trainerExe()} + train +
                QStringList{"--out", outOfRank1},
            60000);
    };
    r = mpmd(elsewhere);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY(QFile::exists(head + "/checkpoints/step-00000004/model.safetensors"));
    QVERIFY(!QFile::exists(elsewhere + "/checkpoints"));

    const QString empty = dir_.path() + "/never-checkpointed";
    QDir().mkpath(empty);
    QElapsedTimer timer;
    timer.start();
    r = trainMicro(2,
                   {"--model", model_, "--data", data_, "--max-steps", "4", "--micro-batch", "2", "--out", empty,
                    "--resume", "latest"},
                   60000);
    QVERIFY2(r.finished, "the ranks hung");
    QCOMPARE(r.exitCode, 2);
    QVERIFY(timer.elapsed() < 30000);
    QVERIFY2(r.err.contains("rank 0") && r.err.contains("no checkpoint to resume from"), r.err.constData());
}

void TestDistributed::injectedExitFailsNamingTheRank_thenResumeIsBitExact_data()
{
    QTest::addColumn<QStringList>("lossFlags");
    QTest::addColumn<QString>("name");
    QTest::addRow("unfused loss") << QStringList{"--fused-loss", "off"} << "unfused";
    // 62 predicted tokens per rank: chunks of 16, 16, 16 and 14.
    QTest::addRow("fused loss") << QStringList{"--fused-loss", "on", "--loss-chunk", "16"} << "fused";
}

void TestDistributed::injectedExitFailsNamingTheRank_thenResumeIsBitExact()
{
    QFETCH(QStringList, lossFlags);
    QFETCH(QString, name);
    const QString full = dir_.path() + "/uninterrupted-" + name, broken = dir_.path() + "/interrupted-" + name;
    const QStringList common =
        QStringList{"--model", model_, "--data", data_, "--max-steps", "12", "--micro-batch", "2", "--checkpoint-every",
                    "4"} +
        lossFlags;
    auto r = trainMicro(2, common + QStringList{"--out", full, "--metrics-out", full + ".jsonl"});
    QVERIFY2(r.exitCode == 0, r.err.constData());

    QElapsedTimer timer;
    timer.start();
    r = trainMicro(2, common + QStringList{"--out", broken, "--metrics-out", broken + ".jsonl", "--inject-exit", "1:7"},
                   60000);
    QVERIFY(r.finished);
    QVERIFY(timer.elapsed() < 30000);
    QVERIFY(r.exitCode != 0);
    QVERIFY2(r.err.contains("rank 1") && r.err.contains("injected exit"), r.err.constData());
    QCOMPARE(testsupport::readFile(broken + "/checkpoints/latest").trimmed(), QByteArray("step-00000004"));

    r = trainMicro(2, common + QStringList{"--out", broken, "--metrics-out", broken + ".jsonl", "--resume", "latest"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const auto expected = losses(full + ".jsonl"), resumed = losses(broken + ".jsonl");
    QCOMPARE(int(resumed.size()), 12);
    for (int step = 5; step <= 12; ++step)
        QCOMPARE(QString::fromStdString(resumed.at(step)), QString::fromStdString(expected.at(step)));
    QVERIFY(testsupport::readFile(broken + ".jsonl").contains("\"resumed_from\""));
    // Bit-identical parameters at the end too.
    QCOMPARE(maxRelativeDifference(full + "/checkpoints/step-00000012", broken + "/checkpoints/step-00000012"), 0.0);

    // Another world size resumes too (documented semantics: same global sample position).
    const QString other = dir_.path() + "/one-rank-resume-" + name;
    QDir().mkpath(other);
    r = trainMicro(0, QStringList{"--model", model_, "--data", data_, "--max-steps", "8", "--micro-batch", "4", "--out",
                                  other, "--resume", broken + "/checkpoints/step-00000004"} +
                          lossFlags);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY(QFile::exists(other + "/checkpoints/step-00000008/model.safetensors"));
}

void TestDistributed::compressionErrorOfTheWire()
{
    auto r = testsupport::run("mpirun", {"-np", "2", "--bind-to", "none", "--oversubscribe", testsupport::trainerExe(),
                                         "bench-comm", "--verify"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    auto e = nlohmann::json::parse(r.out.trimmed().toStdString())["max_relative_error"];
    qInfo("wire error relative to the largest magnitude: none %g, fp16 %g, bf16 %g", e["none"].get<double>(),
          e["fp16"].get<double>(), e["bf16"].get<double>());
    QCOMPARE(e["none"].get<double>(), 0.0);
    // Two roundings (to the wire type, then of the sum) of half an ulp each: 2^-11 (fp16) and 2^-8 (bf16).
    QVERIFY(e["fp16"].get<double>() > 0 && e["fp16"].get<double>() <= std::ldexp(1.0, -10));
    QVERIFY(e["bf16"].get<double>() > 0 && e["bf16"].get<double>() <= std::ldexp(1.0, -7));
}

void TestDistributed::nonFiniteGradientsSkipTheStep()
{
    const QString out = dir_.path() + "/nan";
    auto r = trainMicro(2, {"--model", model_, "--data", data_, "--max-steps", "4", "--micro-batch", "2",
                            "--inject-nan", "1:2", "--out", out, "--metrics-out", out + ".jsonl"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const QByteArray metrics = testsupport::readFile(out + ".jsonl");
    QVERIFY(metrics.contains("\"code\":\"non_finite_gradients\""));
    QVERIFY(metrics.contains("\"loss\":\"NaN\"")); // the protocol's spelling of a NaN loss
    for (const auto& [name, t] : checkpointWeights(out + "/checkpoints/step-00000004"))
        QVERIFY2(t.isfinite().all().item<bool>(), name.c_str());
}

void TestDistributed::benchComm()
{
    auto r = testsupport::run("mpirun", {"-np", "2", "--bind-to", "none", "--oversubscribe", testsupport::trainerExe(),
                                         "bench-comm", "--json", "--iters", "2", "--max-bytes", "4194304"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    auto j = nlohmann::json::parse(r.out.trimmed().toStdString());
    QCOMPARE(j["ranks"].get<int>(), 2);
    QCOMPARE(j["results"].size(), size_t(7)); // 1 KiB, 4 KiB, ..., 4 MiB
    for (const auto& row : j["results"]) {
        QVERIFY(row["time_us"].get<double>() > 0);
        // busbw = algbw * 2(n-1)/n, which is algbw for n = 2.
        QCOMPARE(row["busbw_gbps"].get<double>(), row["algbw_gbps"].get<double>());
    }
}

QTEST_GUILESS_MAIN(TestDistributed)
#include "tst_distributed.moc"
