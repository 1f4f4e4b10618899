// --overlap on: the gradient allreduce runs during backward on a communication thread. Under a real
// mpirun: the same bits as the reductions after backward (2 and 3 ranks, several buckets, gradient
// accumulation, fp16 wire compression), the allreduce time split into the part on the critical path
// (comm_ms) and the part hidden behind backward (comm_hidden_ms), and a bad value refused. With
// --recompute layers (and ZeRO-1, gradient accumulation, overlap on) the same bits as without.
#include "testsupport.h"

#include <QTemporaryDir>
#include <QTest>
#include <nlohmann/json.hpp>

using testsupport::ProcessResult;
using testsupport::trainMicro;

class TestOverlap : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase();
    void sameBitsAsReducingAfterBackward_data();
    void sameBitsAsReducingAfterBackward();
    void hiddenTimeIsReported();
    void recomputedLayersSameBits();
    void badValueIsRefused();

  private:
    ProcessResult train(const QString& out, int np, const QString& overlap, const QStringList& extra = {});
    QTemporaryDir dir_;
    QString model_, data_;
};

void TestOverlap::initTestCase()
{
    QVERIFY(dir_.isValid());
    const auto micro = testsupport::writeMicroRun(dir_.path(), 23, "buckets leave while backward goes on.");
    model_ = micro.model;
    data_ = micro.data;
}

ProcessResult TestOverlap::train(const QString& out, int np, const QString& overlap, const QStringList& extra)
{
    // Small buckets (about 2600 floats) so that backward hands over many of them one by one.
    return trainMicro(np, QStringList{"--model",
                                      model_,
                                      "--data",
                                      data_,
                                      "--max-steps",
                                      "8",
                                      "--micro-batch",
                                      "2",
                                      "--grad-accum",
                                      "2",
                                      "--bucket-mb",
                                      "0.01",
                                      "--checkpoint-every",
                                      "8",
                                      "--overlap",
                                      overlap,
                                      "--out",
                                      out,
                                      "--metrics-out",
                                      out + "/metrics.jsonl"} +
                              extra);
}

void TestOverlap::sameBitsAsReducingAfterBackward_data()
{
    QTest::addColumn<int>("ranks");
    QTest::addColumn<QStringList>("extra");
    QTest::newRow("2 ranks") << 2 << QStringList{};
    QTest::newRow("3 ranks") << 3 << QStringList{};
    QTest::newRow("2 ranks, fp16 on the wire") << 2 << QStringList{"--compression", "fp16"};
}

void TestOverlap::sameBitsAsReducingAfterBackward()
{
    QFETCH(int, ranks);
    QFETCH(QStringList, extra);
    const QString tag = QString::number(ranks) + "-" + extra.join('-');
    const QString on = dir_.path() + "/on-" + tag, off = dir_.path() + "/off-" + tag;
    auto r = train(on, ranks, "on", extra);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    r = train(off, ranks, "off", extra);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    for (const char* file : {"model.safetensors", "optimizer.safetensors"}) {
        const QByteArray a = testsupport::readFile(on + "/checkpoints/step-00000008/" + file);
        const QByteArray b = testsupport::readFile(off + "/checkpoints/step-00000008/" + file);
        QVERIFY(!a.isEmpty());
        QVERIFY2(a == b, file);
    }
    // The losses of every step too (they are gathered, not reduced, so this checks the whole path).
    const auto a = testsupport::records(on + "/metrics.jsonl", "step"),
               b = testsupport::records(off + "/metrics.jsonl", "step");
    QCOMPARE(a.size(), size_t(8));
    QCOMPARE(b.size(), size_t(8));
    for (size_t i = 0; i < a.size(); ++i) {
        QCOMPARE(a[i]["loss"].get<double>(), b[i]["loss"].get<double>());
        QCOMPARE(a[i]["grad_norm"].get<double>(), b[i]["grad_norm"].get<double>());
    }
    QCOMPARE(testsupport::readFile(on + "/metrics.jsonl").contains("\"overlap\":\"on\""), true);
}

void TestOverlap::hiddenTimeIsReported()
{
    const QString on = dir_.path() + "/timing-on", off = dir_.path() + "/timing-off";
    // Rank 1 sleeps 40 ms inside its backward once its first bucket is ready: rank 0's communication
    // thread waits in that bucket's allreduce while rank 0's backward goes on.
    auto r = train(on, 2, "on", {"--inject-delay", "1:40:backward"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    r = train(off, 2, "off", {"--inject-delay", "1:40:backward"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    double hiddenOn = 0;
    for (const auto& s : testsupport::records(on + "/metrics.jsonl", "step")) {
        QCOMPARE(s["comm_hidden_ms"].size(), size_t(2));
        for (int k = 0; k < 2; ++k) {
            QVERIFY(s["comm_hidden_ms"][k].get<double>() >= 0);
            QVERIFY(s["comm_ms"][k].get<double>() >= 0);
            hiddenOn += s["comm_hidden_ms"][k].get<double>();
        }
        // The delay is rank 1's own backward time, not rank 0's: rank 0 waits after its backward.
        QVERIFY2(s["bwd_ms"][1].get<double>() >= 40, s.dump().c_str());
        QVERIFY2(s["bwd_ms"][0].get<double>() < s["bwd_ms"][1].get<double>() - 20, s.dump().c_str());
        QVERIFY2(s["comm_ms"][0].get<double>() > s["comm_ms"][1].get<double>(), s.dump().c_str());
    }
    QVERIFY2(hiddenOn > 0, "no allreduce time ran during backward");
    for (const auto& s : testsupport::records(off + "/metrics.jsonl", "step"))
        for (int k = 0; k < 2; ++k)
            QCOMPARE(s["comm_hidden_ms"][k].get<double>(), 0.0);
}

// The layers' gradients leave through the recomputation's node: the buckets' hooks still fire during
// backward (time hidden), and ZeRO-1 over 2 ranks with 2 micro-steps ends on the same bits.
void TestOverlap::recomputedLayersSameBits()
{
    const QString plain = dir_.path() + "/zero-plain", recomputed = dir_.path() + "/zero-recomputed";
    auto r = train(plain, 2, "on", {"--zero", "1"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    r = train(recomputed, 2, "on", {"--zero", "1", "--recompute", "layers"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    for (const char* file : {"model.safetensors", "optimizer.safetensors"}) {
        const QByteArray a = testsupport::readFile(plain + "/checkpoints/step-00000008/" + file);
        QVERIFY(!a.isEmpty());
        QVERIFY2(a == testsupport::readFile(recomputed + "/checkpoints/step-00000008/" + file), file);
    }
    const auto a = testsupport::records(plain + "/metrics.jsonl", "step"),
               b = testsupport::records(recomputed + "/metrics.jsonl", "step");
    QCOMPARE(b.size(), size_t(8));
    double hidden = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        QCOMPARE(b[i]["loss"].get<double>(), a[i]["loss"].get<double>());
        QCOMPARE(b[i]["grad_norm"].get<double>(), a[i]["grad_norm"].get<double>());
        hidden += b[i]["comm_hidden_ms"][0].get<double>() + b[i]["comm_hidden_ms"][1].get<double>();
    }
    QVERIFY2(hidden > 0, "no allreduce ran during the recomputing backward");
    const auto hello = testsupport::records(recomputed + "/metrics.jsonl", "hello").at(0);
    QCOMPARE(QString::fromStdString(hello["hparams"]["recompute"].get<std::string>()), QStringLiteral("layers"));
}

void TestOverlap::badValueIsRefused()
{
    const auto bad = trainMicro(0, {"--model", model_, "--data", data_, "--max-steps", "1", "--recompute", "all",
                                    "--out", dir_.path() + "/bad-recompute"});
    QCOMPARE(bad.exitCode, 2);
    QVERIFY2(bad.err.contains("--recompute must be off or layers"), bad.err.constData());

    const auto r = trainMicro(0, {"--model", model_, "--data", data_, "--max-steps", "1", "--overlap", "maybe", "--out",
                                  dir_.path() + "/bad"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("--overlap must be on or off"), r.err.constData());
}

QTEST_GUILESS_MAIN(TestOverlap)
#include "tst_overlap.moc"
