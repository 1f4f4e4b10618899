// Fault tests of checkpointing with the real trainer:
// - kill -9 at random moments while a checkpoint is being written (100 trials, or
//   TRAINDECK_FAULT_TRIALS, one worker per core): `--resume latest` always finds a complete checkpoint and the resumed
//   run ends with the same bits as a run that was never interrupted;
// - a full disk (a small tmpfs as --out, needs root) during a checkpoint: the previous checkpoint stays
//   intact, the error names the path, the job stops with an error record and exit code 1.
#include "testsupport.h"

#include <QDir>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <mutex>
#include <random>
#include <sys/mount.h>
#include <thread>
#include <unistd.h>

namespace fs = std::filesystem;
using testsupport::ProcessResult;

namespace {

constexpr int kSteps = 8;

// The name prefix of the temporary directory a checkpoint of `step` is written into.
std::string temporaryPrefix(int step)
{
    char name[64];
    std::snprintf(name, sizeof name, ".tmp-step-%08d-", step);
    return name;
}

// The last step's checkpoint directory, relative to --out.
const QString& lastCheckpoint()
{
    static const QString last = QString("/checkpoints/step-%1/").arg(kSteps, 8, 10, QChar('0'));
    return last;
}

bool writing(const fs::path& checkpoints, const std::string& prefix)
{
    std::error_code ec;
    for (fs::directory_iterator it(checkpoints, ec), end; !ec && it != end; it.increment(ec))
        if (it->path().filename().string().rfind(prefix, 0) == 0)
            return true;
    return false;
}

} // namespace

class TestCheckpointFaults : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase();
    void killDuringCheckpointWritesResumesBitExactly();
    void fullDiskKeepsThePreviousCheckpoint();

  private:
    struct TrialOutcome {
        bool midWrite = false, fromScratch = false;
        QString failure; // empty when the trial passed
    };
    // Trial `t`: start a run, kill -9 it `delayUs` after the temporary directory of `step`'s checkpoint
    // appears, resume (or start again), and compare the last checkpoint with the reference's bits. Runs on
    // a worker thread, so it reports instead of using QVERIFY.
    TrialOutcome killAndResume(int t, int step, int delayUs, const QByteArray& refModel,
                               const QByteArray& refOptimizer) const;
    QStringList args(const QString& out, int steps = kSteps) const
    {
        // trainMicro's settings, one checkpoint per step.
        return {"train",
                "--model",
                model_,
                "--data",
                data_,
                "--max-steps",
                QString::number(steps),
                "--micro-batch",
                "2",
                "--checkpoint-every",
                "1",
                "--keep",
                "2",
                "--out",
                out,
                "--threads",
                "1",
                "--seq-len",
                "32",
                "--warmup",
                "2",
                "--lr",
                "0.001"};
    }
    QTemporaryDir dir_;
    QString model_, data_;
};

void TestCheckpointFaults::initTestCase()
{
    QVERIFY(dir_.isValid());
    const auto micro = testsupport::writeMicroRun(dir_.path(), 31, "a checkpoint is whole or absent.");
    model_ = micro.model;
    data_ = micro.data;
}

void TestCheckpointFaults::killDuringCheckpointWritesResumesBitExactly()
{
    const int trials = qEnvironmentVariableIsSet("TRAINDECK_FAULT_TRIALS")
                           ? qEnvironmentVariableIntValue("TRAINDECK_FAULT_TRIALS")
                           : 100;
    const QString ref = dir_.path() + "/reference";
    auto r = testsupport::run(testsupport::trainerExe(), args(ref) + QStringList{"--metrics-out", ref + "/m.jsonl"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const QByteArray refModel = testsupport::readFile(ref + lastCheckpoint() + "model.safetensors");
    const QByteArray refOptimizer = testsupport::readFile(ref + lastCheckpoint() + "optimizer.safetensors");
    QVERIFY(!refModel.isEmpty() && !refOptimizer.isEmpty());
    // Kill within half the time a whole save takes (files, fsyncs, rename, `latest`, pruning) after the
    // temporary directory appears: mostly while it is being filled, sometimes during the rename and after.
    double writeMs = 0;
    const auto cps = testsupport::records(ref + "/m.jsonl", "checkpoint");
    for (const auto& c : cps)
        writeMs += c.value("ms", 0.0);
    writeMs = std::max(1.0, writeMs / std::max<size_t>(1, cps.size()));

    // Draw every trial's step and delay up front, so that trial t is the same however the trials are
    // spread over the workers.
    std::mt19937 rng(20261202);
    std::uniform_int_distribution<int> stepOf(1, kSteps - 1);
    std::uniform_int_distribution<int> delayUs(0, static_cast<int>(500 * writeMs));
    std::vector<std::pair<int, int>> plan(static_cast<size_t>(std::max(0, trials)));
    for (auto& [step, delay] : plan) {
        step = stepOf(rng);
        delay = delayUs(rng);
    }
    // Each trial is two or three trainer starts of about a second each (loading LibTorch), nearly all
    // of it one busy core: one worker per core keeps the 100 trials well inside the time limit.
    const int workers = std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 1, 4);
    std::atomic<int> next{0}, midWrite{0}, fromScratch{0};
    std::mutex failuresMutex;
    QStringList failures;
    auto work = [&] {
        for (int t = next++; t < trials; t = next++) {
            const auto outcome = killAndResume(t, plan[static_cast<size_t>(t)].first,
                                               plan[static_cast<size_t>(t)].second, refModel, refOptimizer);
            midWrite += outcome.midWrite ? 1 : 0;
            fromScratch += outcome.fromScratch ? 1 : 0;
            if (!outcome.failure.isEmpty()) {
                std::lock_guard lock(failuresMutex);
                failures << outcome.failure;
                next = trials; // the first failures say enough; stop early
            }
        }
    };
    std::vector<std::thread> pool;
    for (int w = 0; w < workers; ++w)
        pool.emplace_back(work);
    for (auto& worker : pool)
        worker.join();
    QVERIFY2(failures.isEmpty(), qPrintable(failures.join("\n")));
    qInfo("%d trials on %d workers: %d killed while the temporary checkpoint directory existed, %d after its "
          "rename; %d restarted without a checkpoint; every resumed run ended bit-exact (checkpoint write %.1f ms)",
          trials, workers, midWrite.load(), trials - midWrite.load(), fromScratch.load(), writeMs);
    // The kills must land inside writes for the test to mean anything.
    QVERIFY2(midWrite * 4 >= trials, qPrintable(QString::number(midWrite.load())));
}

TestCheckpointFaults::TrialOutcome TestCheckpointFaults::killAndResume(int t, int step, int delayUs,
                                                                       const QByteArray& refModel,
                                                                       const QByteArray& refOptimizer) const
{
    TrialOutcome outcome;
    auto fail = [&](const QString& why) {
        outcome.failure =
            QString("trial %1 (killed %2 us into the write of step %3): %4").arg(t).arg(delayUs).arg(step).arg(why);
        return outcome;
    };
    const QString out = dir_.path() + "/trial-" + QString::number(t);
    const fs::path checkpoints = fs::path(out.toStdString()) / "checkpoints";
    QProcess p;
    p.start(testsupport::trainerExe(), args(out));
    if (!p.waitForStarted(10000))
        return fail("the trainer did not start: " + p.errorString());
    const std::string prefix = temporaryPrefix(step);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    // Look coarsely while LibTorch loads (about a second), until the run directory appears with the
    // hello, then closely: polling every 50 us from the start took as much CPU as the trainers.
    std::error_code ec;
    while (!fs::exists(out.toStdString(), ec) && p.state() == QProcess::Running &&
           std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    while (!writing(checkpoints, prefix) && p.state() == QProcess::Running &&
           std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::microseconds(50));
    if (p.state() != QProcess::Running)
        return fail("the trainer ended before the write was seen");
    std::this_thread::sleep_for(std::chrono::microseconds(delayUs));
    ::kill(static_cast<pid_t>(p.processId()), SIGKILL);
    if (!p.waitForFinished(10000))
        return fail("the killed trainer did not end");
    outcome.midWrite = writing(checkpoints, prefix);

    // What a person does next: resume from the latest checkpoint (or start again when there is none).
    auto r = testsupport::run(testsupport::trainerExe(), args(out) + QStringList{"--resume", "latest"});
    if (r.exitCode == 2 && r.err.contains("no checkpoint to resume from")) {
        outcome.fromScratch = true;
        r = testsupport::run(testsupport::trainerExe(), args(out));
    }
    if (r.exitCode != 0)
        return fail("the resumed run failed: " + QString::fromUtf8(r.err.right(2000)));
    if (testsupport::readFile(out + lastCheckpoint() + "model.safetensors") != refModel)
        return fail("the resumed run's weights differ");
    if (testsupport::readFile(out + lastCheckpoint() + "optimizer.safetensors") != refOptimizer)
        return fail("the resumed run's optimizer state differs");
    if (writing(checkpoints, ".tmp-"))
        return fail("the resumed run left what the killed one wrote in a temporary directory");
    QDir(out).removeRecursively();
    return outcome;
}

void TestCheckpointFaults::fullDiskKeepsThePreviousCheckpoint()
{
    if (::geteuid() != 0)
        QSKIP("mounting a tmpfs needs root");
    // One checkpoint of the micro model is about 0.6 MiB (model, optimizer, state): room for the first
    // only.
    const QString ref = dir_.path() + "/size";
    auto r = testsupport::run(testsupport::trainerExe(), args(ref, 1));
    QVERIFY2(r.exitCode == 0, r.err.constData());
    qint64 bytes = 0;
    for (const auto& e : fs::recursive_directory_iterator((ref + "/checkpoints/step-00000001").toStdString()))
        if (e.is_regular_file())
            bytes += static_cast<qint64>(e.file_size());
    const QString mountPoint = dir_.path() + "/small-disk";
    QVERIFY(QDir().mkpath(mountPoint));
    const std::string size = "size=" + std::to_string((bytes * 3 / 2) / 4096 * 4096 + 8192);
    if (::mount("tmpfs", mountPoint.toUtf8().constData(), "tmpfs", 0, size.c_str()) != 0)
        QSKIP(qPrintable(QString("cannot mount a tmpfs here: %1").arg(strerror(errno))));
    struct Unmount {
        QString path;
        ~Unmount() { ::umount2(path.toUtf8().constData(), MNT_DETACH); }
    } unmount{mountPoint};

    const QString out = mountPoint + "/out", metrics = dir_.path() + "/full-disk.jsonl";
    r = testsupport::run(testsupport::trainerExe(), args(out) + QStringList{"--metrics-out", metrics});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains(out.toUtf8()), r.err.constData());
    QVERIFY2(r.err.contains("No space left on device"), r.err.constData());
    // The first checkpoint is whole and `latest` names it; no temporary directory is left behind.
    const QString first = out + "/checkpoints/step-00000001";
    for (const char* f : {"model.safetensors", "optimizer.safetensors", "trainer_state.json", "config.json"})
        QVERIFY2(QFileInfo::exists(first + "/" + f), f);
    QCOMPARE(testsupport::readFile(out + "/checkpoints/latest").trimmed(), QByteArray("step-00000001"));
    QVERIFY(!writing(fs::path(out.toStdString()) / "checkpoints", ".tmp-"));
    QCOMPARE(testsupport::readFile(first + "/model.safetensors"),
             testsupport::readFile(ref + "/checkpoints/step-00000001/model.safetensors"));
    // The telemetry says so: an error record naming the path, then done failed.
    const auto errors = testsupport::records(metrics, "error");
    QVERIFY(!errors.empty());
    QVERIFY2(errors.back().dump().find(out.toStdString()) != std::string::npos, errors.back().dump().c_str());
    const auto done = testsupport::records(metrics, "done");
    QCOMPARE(done.size(), size_t(1));
    QCOMPARE(done.front()["status"].get<std::string>(), std::string("failed"));
}

QTEST_GUILESS_MAIN(TestCheckpointFaults)
#include "tst_checkpoint_faults.moc"
