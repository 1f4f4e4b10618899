// SIGUSR1, as Slurm sends it before a job's time limit (--signal=B:USR1@T) and mpirun forwards it to
// every rank: the real trainer under a real mpirun stops at the next step boundary with a checkpoint, a
// `warning` (code stop_signal) and `done` (cancelled), exits 75, and `--resume latest` continues to the
// same bits as a run that was never stopped.
#include "testsupport.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <nlohmann/json.hpp>

#include <chrono>
#include <csignal>
#include <thread>

using testsupport::ProcessResult;

namespace {

constexpr int kSteps = 40;

} // namespace

class TestStopSignal : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase();
    void stopsWithACheckpointAndResumesBitExactly_data();
    void stopsWithACheckpointAndResumesBitExactly();

  private:
    QStringList args(const QString& out, const QStringList& extra = {}) const
    {
        return QStringList{"--model", model_, "--data",        data_, "--max-steps",   QString::number(kSteps),
                           "--out",   out,    "--micro-batch", "2",   "--metrics-out", out + "/m.jsonl"} +
               extra;
    }
    QTemporaryDir dir_;
    QString model_, data_;
};

void TestStopSignal::initTestCase()
{
    QVERIFY(dir_.isValid());
    const auto micro = testsupport::writeMicroRun(dir_.path(), 37, "a time limit is a pause, not an end.");
    model_ = micro.model;
    data_ = micro.data;
}

void TestStopSignal::stopsWithACheckpointAndResumesBitExactly_data()
{
    QTest::addColumn<int>("ranks");
    QTest::newRow("1 rank") << 0;
    QTest::newRow("2 ranks under mpirun") << 2;
}

void TestStopSignal::stopsWithACheckpointAndResumesBitExactly()
{
    QFETCH(int, ranks);
    const QString tag = QString::number(ranks);
    const QString ref = dir_.filePath("reference-" + tag), run = dir_.filePath("stopped-" + tag);
    ProcessResult r = testsupport::trainMicro(ranks, args(ref));
    QVERIFY2(r.exitCode == 0, r.err.constData());

    // The same run, sent SIGUSR1 once its third step is in the telemetry (mpirun forwards the signal).
    const QStringList full = QStringList{"train"} + args(run) +
                             QStringList{"--threads", "1", "--seq-len", "32", "--warmup", "2", "--lr", "0.001"};
    QProcess p;
    if (ranks == 0)
        p.start(testsupport::trainerExe(), full);
    else
        p.start("mpirun", QStringList{"-np", QString::number(ranks), "--bind-to", "none", "--oversubscribe",
                                      testsupport::trainerExe()} +
                              full);
    QVERIFY(p.waitForStarted(10000));
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (testsupport::records(run + "/m.jsonl", "step").size() < 3 && p.state() == QProcess::Running &&
           std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    QVERIFY2(p.state() == QProcess::Running, "the run ended before its third step was seen");
    ::kill(static_cast<pid_t>(p.processId()), SIGUSR1);
    QVERIFY2(p.waitForFinished(60000), "the trainer did not stop after SIGUSR1");
    const QByteArray err = p.readAllStandardError();
    QCOMPARE(p.exitStatus(), QProcess::NormalExit);
    QVERIFY2(p.exitCode() == 75, err.constData());

    const auto steps = testsupport::records(run + "/m.jsonl", "step");
    const auto warnings = testsupport::records(run + "/m.jsonl", "warning");
    const auto done = testsupport::records(run + "/m.jsonl", "done");
    const int stoppedAt = steps.back()["step"].get<int>();
    QVERIFY2(stoppedAt >= 3 && stoppedAt < kSteps, qPrintable(QString::number(stoppedAt)));
    QCOMPARE(warnings.size(), size_t(1));
    QCOMPARE(warnings[0]["code"].get<std::string>(), std::string("stop_signal"));
    QCOMPARE(done.size(), size_t(1));
    QCOMPARE(done[0]["status"].get<std::string>(), std::string("cancelled"));
    QCOMPARE(done[0]["steps"].get<int>(), stoppedAt);
    const QString latest = testsupport::readFile(run + "/checkpoints/latest").trimmed();
    QCOMPARE(latest, QString("step-%1").arg(stoppedAt, 8, 10, QChar('0')));

    // Resumed from that checkpoint, the run ends where the uninterrupted one did, bit for bit.
    r = testsupport::trainMicro(ranks, args(run, {"--resume", "latest"}));
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const QString last = QString("/checkpoints/step-%1").arg(kSteps, 8, 10, QChar('0'));
    QCOMPARE(testsupport::readFile(run + last + "/model.safetensors"),
             testsupport::readFile(ref + last + "/model.safetensors"));
    QCOMPARE(testsupport::readFile(run + last + "/optimizer.safetensors"),
             testsupport::readFile(ref + last + "/optimizer.safetensors"));
}

QTEST_GUILESS_MAIN(TestStopSignal)
#include "tst_stop_signal.moc"
