// Launcher with a fake mpirun (a shell script) and /bin/true as the trainer: detached start in its own
// session, pid / exit-code / logs in the run directory, cancel (SIGTERM, then SIGKILL), resume moving
// the previous attempt aside, and clear errors for a missing trainer or mpirun before anything starts.
#include "faketransport.h"
#include "launch/launcher.h"
#include "launch/remoterun.h"
#include "launch/transport.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QMap>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <atomic>
#include <mutex>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace traindeck::launch;
using traindeck::Result;
using traindeck::cluster::ClusterProfile;

class TestLauncher : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void initTestCase();
    void missingTrainer();
    void missingMpirun();
    void launchCancelResume();
    void cancelEscalatesToKill();
    void cancelInTheLaunchWindowStopsTheRun();
    void runDirectoryIsPrivate();
    void stalePidIsNeverSignalled();
    void launchesInTheSameSecondClaimTheirOwnDirectory();
    void secondResumeOfARunIsRefused();
    void failedResumeLeavesTheRunAsItWas();
    void startErrorLooksForThePid();
    void remoteRecordIsWrittenBeforeTheStart();

  private:
    QString script(const QString& name, const QByteArray& body);
    ClusterProfile profileWith(const QString& launcher) const;
    JobSpec spec() const;
    QTemporaryDir m_tmp;
    LocalTransport m_t;
};

void TestLauncher::initTestCase()
{
    QVERIFY(m_tmp.isValid());
    qputenv("TRAINDECK_TRAINER", "/bin/true");
}

QString TestLauncher::script(const QString& name, const QByteArray& body)
{
    const QString path = m_tmp.filePath(name);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        return QString();
    f.write("#!/bin/sh\n" + body);
    f.close();
    QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    return path;
}

ClusterProfile TestLauncher::profileWith(const QString& launcher) const
{
    ClusterProfile p = ClusterProfile::local();
    p.launcher = launcher;
    return p;
}

JobSpec TestLauncher::spec() const
{
    JobSpec s;
    s.name = QStringLiteral("fake run");
    s.ranks = 2;
    s.trainer.insert(QStringLiteral("preset"), QStringLiteral("qwen2-tiny"));
    s.trainer.insert(QStringLiteral("inject-exit"), QStringLiteral("1:5"));
    return s;
}

static qint64 sessionOf(qint64 pid)
{
    QFile f(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!f.open(QIODevice::ReadOnly))
        return -1;
    const QByteArray s = f.readAll();
    const QList<QByteArray> fields = s.mid(s.lastIndexOf(')') + 2).split(' ');
    return fields.size() > 3 ? fields[3].toLongLong() : -1; // state ppid pgrp session
}

void TestLauncher::missingTrainer()
{
    qputenv("TRAINDECK_TRAINER", "/nonexistent/traindeck-trainer");
    const QString runs = m_tmp.filePath(QStringLiteral("runs-a"));
    const auto r = Launcher::launch(m_t, spec(), profileWith(QStringLiteral("mpirun")), runs);
    qputenv("TRAINDECK_TRAINER", "/bin/true");
    QVERIFY(!r.ok());
    QVERIFY2(r.errorString().contains(QStringLiteral("/nonexistent/traindeck-trainer")), qPrintable(r.errorString()));
    QVERIFY(!QDir(runs).exists());
}

void TestLauncher::missingMpirun()
{
    const QString runs = m_tmp.filePath(QStringLiteral("runs-b"));
    const auto r = Launcher::launch(m_t, spec(), profileWith(QStringLiteral("/nonexistent/mpirun")), runs);
    QVERIFY(!r.ok());
    QVERIFY2(r.errorString().contains(QStringLiteral("/nonexistent/mpirun: not found")), qPrintable(r.errorString()));
    QVERIFY(!QDir(runs).exists());
}

void TestLauncher::launchCancelResume()
{
    const QString mpirun =
        script(QStringLiteral("mpirun-ok"), "echo \"fake mpirun $*\"\ntrap 'echo got TERM >&2; exit 143' TERM\n"
                                            "sleep 30 &\nwait $!\n");
    const QString runs = m_tmp.filePath(QStringLiteral("runs-c"));
    const auto r = Launcher::launch(m_t, spec(), profileWith(mpirun), runs);
    QVERIFY2(r.ok(), qPrintable(r.errorString()));
    const QString dir = r->runDir;
    QVERIFY(dir.startsWith(runs + QStringLiteral("/fake-run-")));
    for (const char* f : {runfile::kSpec, runfile::kRunInfo, runfile::kHostfile, runfile::kWrapper})
        QVERIFY2(QFile::exists(runFile(dir, f)), f);
    QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(runFile(dir, runfile::kPid)), 10000);
    RunFiles files = readRunFiles(m_t, dir);
    QVERIFY(files.pid > 1);
    QVERIFY(files.groupAlive);
    // Detached: its own session, not ours.
    QCOMPARE(sessionOf(files.pid), files.pid);
    QVERIFY(sessionOf(files.pid) != sessionOf(::getpid()));
    QCOMPARE(deriveState(files, false), JobState::Starting);
    QTRY_VERIFY_WITH_TIMEOUT(QFile(runFile(dir, runfile::kStdout)).size() > 0, 5000);

    // Still running: resume refuses.
    QVERIFY(!Launcher::resume(m_t, dir).ok());

    const auto cancelled = Launcher::cancel(m_t, dir, 5000);
    QVERIFY2(cancelled.ok(), qPrintable(cancelled.errorString()));
    QCOMPARE(jobStateName(cancelled.value()), QStringLiteral("cancelled"));
    files = readRunFiles(m_t, dir);
    QVERIFY(files.exitCode.has_value());
    QTRY_VERIFY_WITH_TIMEOUT(!readRunFiles(m_t, dir).groupAlive, 5000);
    QFile err(runFile(dir, runfile::kStderr));
    QVERIFY(err.open(QIODevice::ReadOnly));
    QVERIFY(err.readAll().contains("got TERM"));

    // Resume needs a checkpoint.
    auto resumed = Launcher::resume(m_t, dir);
    QVERIFY(!resumed.ok());
    QVERIFY2(resumed.errorString().contains(QStringLiteral("no checkpoint")), qPrintable(resumed.errorString()));
    QVERIFY(m_t.writeFile(runFile(dir, runfile::kOut) + QStringLiteral("/checkpoints/latest"), "step-00000004\n").ok());
    resumed = Launcher::resume(m_t, dir);
    QVERIFY2(resumed.ok(), qPrintable(resumed.errorString()));
    for (const char* f : {runfile::kPid, runfile::kExitCode, runfile::kCancel, runfile::kStdout, runfile::kStderr})
        QVERIFY2(QFile::exists(dir + QStringLiteral("/attempt-1/") + QString::fromLatin1(f)), f);
    QVERIFY(resumed->plan.mpirunArgv.contains(QStringLiteral("--resume=latest")));
    QVERIFY(!resumed->plan.commandLine().contains(QStringLiteral("inject-exit")));
    QCOMPARE(readRunInfo(m_t, dir)->attempts, 2);
    QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(runFile(dir, runfile::kPid)), 10000);
    QCOMPARE(jobStateName(Launcher::cancel(m_t, dir, 5000).value()), QStringLiteral("cancelled"));
}

// Hardening 2, item 8: a cancel issued while the wrapper starts. Forced first: cancel reads no pid, then
// (the hook) the wrapper writes its pid, finds no request and starts mpirun, then cancel writes its
// request; it must still stop the run. Then 50 cancels right after launch, unforced.
void TestLauncher::cancelInTheLaunchWindowStopsTheRun()
{
    const QString mpirun = script(QStringLiteral("mpirun-window"), "echo started\nsleep 30 &\nwait $!\n");
    const QString runs = m_tmp.filePath(QStringLiteral("runs-window"));
    {
        // The wrapper can write its pid before cancel first reads it (a loaded machine, a sanitized build: the
        // TSan run of 59cb1ff): the window is missed, the run is cancelled the ordinary way, and it launches again.
        bool forced = false;
        for (int attempt = 0; attempt < 5 && !forced; ++attempt) {
            FakeTransport t;
            t.start = FakeTransport::Start::Normal;
            const auto r = Launcher::launch(t, spec(), profileWith(mpirun), runs);
            QVERIFY2(r.ok(), qPrintable(r.errorString()));
            const QString dir = r->runDir;
            t.afterRead = [&](const QString& path, qint64, qint64) {
                if (forced || path != runFile(dir, runfile::kPid) || QFile::exists(runFile(dir, runfile::kPid)))
                    return;
                forced = true;
                QElapsedTimer waited;
                waited.start();
                while (QFile(runFile(dir, runfile::kStdout)).size() == 0 && waited.elapsed() < 10000)
                    QThread::msleep(10);
            };
            const auto cancelled = Launcher::cancel(t, dir, 5000);
            QVERIFY2(cancelled.ok(), qPrintable(cancelled.errorString()));
            QCOMPARE(jobStateName(cancelled.value()), QStringLiteral("cancelled"));
            QTRY_VERIFY_WITH_TIMEOUT(!readRunFiles(m_t, dir).groupAlive, 5000);
        }
        QVERIFY2(forced, "no launch of five left the window open");
    }
    for (int trial = 0; trial < 50; ++trial) {
        const auto r = Launcher::launch(m_t, spec(), profileWith(mpirun), runs);
        QVERIFY2(r.ok(), qPrintable(r.errorString()));
        const auto cancelled = Launcher::cancel(m_t, r->runDir, 5000);
        QVERIFY2(cancelled.ok(), qPrintable(cancelled.errorString()));
        QVERIFY2(cancelled.value() == JobState::Cancelled,
                 qPrintable(QStringLiteral("trial %1: %2").arg(trial).arg(jobStateName(cancelled.value()))));
        QTRY_VERIFY_WITH_TIMEOUT(!readRunFiles(m_t, r->runDir).groupAlive, 5000);
    }
}

void TestLauncher::cancelEscalatesToKill()
{
    const QString mpirun = script(QStringLiteral("mpirun-stubborn"), "trap '' TERM\nsleep 30 &\nwait $!\n");
    const auto r = Launcher::launch(m_t, spec(), profileWith(mpirun), m_tmp.filePath(QStringLiteral("runs-d")));
    QVERIFY2(r.ok(), qPrintable(r.errorString()));
    QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(runFile(r->runDir, runfile::kPid)), 10000);
    QTest::qWait(300);
    QElapsedTimer timer;
    timer.start();
    const auto state = Launcher::cancel(m_t, r->runDir, 500);
    QVERIFY(state.ok());
    QCOMPARE(jobStateName(state.value()), QStringLiteral("cancelled"));
    QVERIFY(timer.elapsed() < 8000);
    const RunFiles f = readRunFiles(m_t, r->runDir);
    QVERIFY(!f.groupAlive);
    QVERIFY(f.exitCode.has_value());
}

static int modeOf(const QString& path)
{
    struct stat st {};
    if (::stat(QFile::encodeName(path).constData(), &st) != 0)
        return -1;
    return int(st.st_mode & 07777);
}

static void rewrite(const QString& path, const QByteArray& data)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(data);
}

// Issue #17, 1: a shared head's other users read nothing of a run: the directory is 0700, every file
// TrainDeck writes is 0600 (the wrapper 0700), and what the wrapper and mpirun create follows its umask 077.
void TestLauncher::runDirectoryIsPrivate()
{
    const QString mpirun = script(QStringLiteral("mpirun-quick"), "echo fake mpirun; mkdir -p out; echo x > out/f\n");
    const auto r = Launcher::launch(m_t, spec(), profileWith(mpirun), m_tmp.filePath(QStringLiteral("runs-private")));
    QVERIFY2(r.ok(), qPrintable(r.errorString()));
    const QString dir = r->runDir;
    QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(runFile(dir, runfile::kExitCode)), 10000);
    QCOMPARE(modeOf(dir), 0700);
    for (const char* f : {runfile::kSpec, runfile::kRunInfo, runfile::kHostfile, "profile.json", runfile::kPid,
                          runfile::kExitCode, runfile::kStdout, runfile::kStderr, "out/f"})
        QVERIFY2(modeOf(dir + QLatin1Char('/') + QLatin1String(f)) == 0600,
                 qPrintable(QStringLiteral("%1: %2").arg(QLatin1String(f)).arg(modeOf(runFile(dir, f)), 0, 8)));
    QCOMPARE(modeOf(runFile(dir, runfile::kWrapper)), 0700);
    QCOMPARE(modeOf(runFile(dir, runfile::kOut)), 0700);
}

// Issue #17, 2: the pid file carries the wrapper's start time and the boot id; a pid that names another
// process now (after a reboot, or reused) is neither reported running nor signalled.
void TestLauncher::stalePidIsNeverSignalled()
{
    const QString mpirun = script(QStringLiteral("mpirun-long"), "sleep 30 &\nwait $!\n");
    const auto r = Launcher::launch(m_t, spec(), profileWith(mpirun), m_tmp.filePath(QStringLiteral("runs-stale")));
    QVERIFY2(r.ok(), qPrintable(r.errorString()));
    const QString dir = r->runDir;
    const QString pidPath = runFile(dir, runfile::kPid);
    QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(pidPath), 10000);
    QFile pf(pidPath);
    QVERIFY(pf.open(QIODevice::ReadOnly));
    const QByteArray original = pf.readAll();
    pf.close();
    const std::optional<PidRecord> rec = PidRecord::parse(original);
    QVERIFY(rec);
    QVERIFY2(rec->startTime.has_value(), original.constData());
    const Result<ProcessIdentity> here = m_t.processIdentity(rec->pid);
    QVERIFY(here.ok());
    QCOMPARE(rec->bootId, here->bootId);
    QCOMPARE(rec->startTime.value_or(-1), here->startTime.value_or(-2));
    QVERIFY(readRunFiles(m_t, dir).groupAlive);

    auto checkNotOurs = [&](const QByteArray& pidFile, const char* what) {
        rewrite(pidPath, pidFile);
        const RunFiles f = readRunFiles(m_t, dir);
        QVERIFY2(f.pidReused, what);
        QVERIFY2(!f.groupAlive, what);
        QCOMPARE(jobStateName(deriveState(f, true)), QStringLiteral("lost"));
        const auto c = Launcher::cancel(m_t, dir, 500);
        QVERIFY2(c.ok(), what);
        QCOMPARE(jobStateName(c.value()), QStringLiteral("lost"));
        // The process group behind that number was not touched.
        QVERIFY2(m_t.signalProcessGroup(rec->pid, 0) == SignalResult::Delivered, what);
        QVERIFY2(!QFile::exists(runFile(dir, runfile::kCancel)), what);
    };
    const QByteArray pid = QByteArray::number(rec->pid);
    // After a reboot: another boot id.
    checkNotOurs(pid + ' ' + QByteArray::number(*rec->startTime) + " 00000000-0000-0000-0000-000000000000\n",
                 "other boot");
    // The same boot, the pid now another process's (another start time).
    checkNotOurs(pid + ' ' + QByteArray::number(*rec->startTime + 1) + ' ' + rec->bootId.toLatin1() + '\n',
                 "reused pid");
    // An old record (pid only) of an attempt that started before this machine booted.
    {
        QFile info(runFile(dir, runfile::kRunInfo));
        QVERIFY(info.open(QIODevice::ReadOnly));
        RunInfo ri = RunInfo::fromJson(QJsonDocument::fromJson(info.readAll()).object());
        info.close();
        const RunInfo saved = ri;
        ri.started = QDateTime::fromSecsSinceEpoch(here->bootTime - 3600, Qt::UTC);
        rewrite(runFile(dir, runfile::kRunInfo), QJsonDocument(ri.toJson()).toJson());
        checkNotOurs(pid + '\n', "old record, earlier boot");
        rewrite(runFile(dir, runfile::kRunInfo), QJsonDocument(saved.toJson()).toJson());
    }
    // An old record of this boot still works as before.
    rewrite(pidPath, pid + '\n');
    QVERIFY(readRunFiles(m_t, dir).groupAlive);
    // The real record: cancelled as usual.
    rewrite(pidPath, original);
    QCOMPARE(jobStateName(Launcher::cancel(m_t, dir, 5000).value()), QStringLiteral("cancelled"));
    QTRY_VERIFY_WITH_TIMEOUT(m_t.signalProcessGroup(rec->pid, 0) == SignalResult::NoSuchProcess, 5000);
}

// Issue #17, 3: run ids have a resolution of one second and the check for a taken id races with other
// launches; the run directory is claimed with an exclusive mkdir instead.
void TestLauncher::launchesInTheSameSecondClaimTheirOwnDirectory()
{
    const QString mpirun = script(QStringLiteral("mpirun-nothing"), "exit 0\n");
    const QString runs = m_tmp.filePath(QStringLiteral("runs-same-second"));
    // Another launch's directories for the next seconds, which a racing exists() check does not see yet.
    const QDateTime now = QDateTime::currentDateTime();
    QStringList others;
    for (int s = 0; s < 10; ++s) {
        const QString d =
            runs + QStringLiteral("/fake-run-") + now.addSecs(s).toString(QStringLiteral("yyyyMMdd-HHmmss"));
        QVERIFY(QDir().mkpath(d));
        rewrite(d + QStringLiteral("/other-launch"), "mine\n");
        others << d;
    }
    FakeTransport t;
    t.hideFromExists = [&](const QString& path) { return path.startsWith(runs + QLatin1Char('/')); };
    const auto a = Launcher::launch(t, spec(), profileWith(mpirun), runs);
    const auto b = Launcher::launch(t, spec(), profileWith(mpirun), runs);
    QVERIFY2(a.ok(), qPrintable(a.errorString()));
    QVERIFY2(b.ok(), qPrintable(b.errorString()));
    QVERIFY(a->runDir != b->runDir);
    QVERIFY2(!others.contains(a->runDir), qPrintable(a->runDir));
    QVERIFY2(!others.contains(b->runDir), qPrintable(b->runDir));
    QVERIFY(a->runId.endsWith(QStringLiteral("-2")) || a->runId.endsWith(QStringLiteral("-3")));
    for (const QString& d : others)
        QCOMPARE(QDir(d).entryList(QDir::NoDotAndDotDot | QDir::AllEntries),
                 QStringList{QStringLiteral("other-launch")});
}

// Hardening 2, item 3: a resume that fails before it starts anything (here a write in the run directory)
// puts the run back as it was, so the next resume goes on instead of finding attempt-1 taken.
void TestLauncher::failedResumeLeavesTheRunAsItWas()
{
    const QString mpirun =
        script(QStringLiteral("mpirun-fail-first"), "[ -e attempt-1 ] || exit 3\nsleep 30 &\nwait $!\n");
    const auto r =
        Launcher::launch(m_t, spec(), profileWith(mpirun), m_tmp.filePath(QStringLiteral("runs-failed-resume")));
    QVERIFY2(r.ok(), qPrintable(r.errorString()));
    const QString dir = r->runDir;
    QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(runFile(dir, runfile::kExitCode)), 10000);
    QVERIFY(m_t.writeFile(runFile(dir, runfile::kOut) + QStringLiteral("/checkpoints/latest"), "step-00000004\n").ok());
    auto contents = [&] {
        QMap<QString, QByteArray> files;
        for (const QString& name : QDir(dir).entryList(QDir::Files)) {
            QFile f(dir + QLatin1Char('/') + name);
            files[name] = f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("unreadable");
        }
        return files;
    };
    QVERIFY(QFile::remove(runFile(dir, runfile::kWrapper)));
    const QMap<QString, QByteArray> before = contents();
    // The wrapper cannot be written: a directory stands where it goes.
    QVERIFY(QDir().mkpath(runFile(dir, runfile::kWrapper) + QStringLiteral("/in-the-way")));

    const auto failed = Launcher::resume(m_t, dir);
    QVERIFY(!failed.ok());
    QVERIFY2(failed.errorString().contains(QStringLiteral("as it was")), qPrintable(failed.errorString()));
    // Not the input's fault: the CLI exits 1, not 2 (runs::Operations::isInputProblem).
    QCOMPARE(failed.diagnostics().first().code, QString::fromLatin1(kStartFailedCode));
    QVERIFY2(!QFileInfo::exists(dir + QStringLiteral("/attempt-1")), "the claim was not given back");
    QMap<QString, QByteArray> after = contents();
    after.remove(QString::fromLatin1(runfile::kHostfile)); // the resume's own, written before the failure
    QMap<QString, QByteArray> expected = before;
    expected.remove(QString::fromLatin1(runfile::kHostfile));
    QCOMPARE(after.keys(), expected.keys());
    for (auto it = expected.cbegin(); it != expected.cend(); ++it)
        QVERIFY2(after.value(it.key()) == it.value(), qPrintable(it.key()));
    QCOMPARE(readRunInfo(m_t, dir)->attempts, 1);

    // The cause fixed, the next resume starts attempt 2.
    QVERIFY(QDir(runFile(dir, runfile::kWrapper)).removeRecursively());
    const auto resumed = Launcher::resume(m_t, dir);
    QVERIFY2(resumed.ok(), qPrintable(resumed.errorString()));
    QCOMPARE(readRunInfo(m_t, dir)->attempts, 2);
    QVERIFY(QFile::exists(dir + QStringLiteral("/attempt-1/") + QString::fromLatin1(runfile::kExitCode)));
    QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(runFile(dir, runfile::kPid)), 10000);
    QCOMPARE(jobStateName(Launcher::cancel(m_t, dir, 5000).value()), QStringLiteral("cancelled"));
}

// Issue #17, 4: of two resumes of one run (GUI and CLI, two CLIs), one starts; the other is told.
void TestLauncher::secondResumeOfARunIsRefused()
{
    // Fails the first attempt, runs on in the next ones.
    const QString mpirun =
        script(QStringLiteral("mpirun-fail-once"), "[ -e attempt-1 ] || exit 3\nsleep 30 &\nwait $!\n");
    const auto r = Launcher::launch(m_t, spec(), profileWith(mpirun), m_tmp.filePath(QStringLiteral("runs-resume")));
    QVERIFY2(r.ok(), qPrintable(r.errorString()));
    const QString dir = r->runDir;
    QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(runFile(dir, runfile::kExitCode)), 10000);
    QVERIFY(m_t.writeFile(runFile(dir, runfile::kOut) + QStringLiteral("/checkpoints/latest"), "step-00000004\n").ok());

    // Another resume has claimed attempt 1 already: this one starts nothing and moves nothing.
    QVERIFY(QDir().mkdir(dir + QStringLiteral("/attempt-1")));
    const auto refused = Launcher::resume(m_t, dir);
    QVERIFY(!refused.ok());
    QVERIFY2(refused.errorString().contains(QStringLiteral("another resume")), qPrintable(refused.errorString()));
    QVERIFY(QFile::exists(runFile(dir, runfile::kExitCode)));
    QCOMPARE(readRunInfo(m_t, dir)->attempts, 1);
    QVERIFY(QDir(dir + QStringLiteral("/attempt-1")).isEmpty());
    QVERIFY(QDir().rmdir(dir + QStringLiteral("/attempt-1")));

    // Two at once: exactly one starts attempt 2.
    std::atomic<int> ok{0};
    QStringList errors;
    std::mutex m;
    auto resume = [&] {
        LocalTransport t;
        const auto x = Launcher::resume(t, dir);
        if (x.ok()) {
            ++ok;
        } else {
            std::lock_guard lock(m);
            errors << x.errorString();
        }
    };
    std::thread one(resume), two(resume);
    one.join();
    two.join();
    QCOMPARE(ok.load(), 1);
    QCOMPARE(errors.size(), 1);
    QCOMPARE(readRunInfo(m_t, dir)->attempts, 2);
    QVERIFY(QFile::exists(dir + QStringLiteral("/attempt-1/") + QLatin1String(runfile::kExitCode)));
    QVERIFY(!QFile::exists(dir + QStringLiteral("/attempt-2")));
    QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(runFile(dir, runfile::kPid)), 10000);
    QCOMPARE(jobStateName(Launcher::cancel(m_t, dir, 5000).value()), QStringLiteral("cancelled"));
}

// Issue #17, 6: a start command that fails after the wrapper started (the SSH connection dropped) is no
// failed launch; one that really started nothing is.
void TestLauncher::startErrorLooksForThePid()
{
    const QString mpirun = script(QStringLiteral("mpirun-start"), "sleep 30 &\nwait $!\n");
    FakeTransport t;
    t.start = FakeTransport::Start::FailAfterStarting;
    const auto started = Launcher::launch(t, spec(), profileWith(mpirun), m_tmp.filePath(QStringLiteral("runs-drop")));
    QVERIFY2(started.ok(), qPrintable(started.errorString()));
    QVERIFY2(traindeck::formatDiagnostics(started.diagnostics()).contains(QStringLiteral("connection lost")),
             qPrintable(traindeck::formatDiagnostics(started.diagnostics())));
    QVERIFY(readRunFiles(m_t, started->runDir).groupAlive);
    QCOMPARE(jobStateName(Launcher::cancel(m_t, started->runDir, 5000).value()), QStringLiteral("cancelled"));

    t.start = FakeTransport::Start::FailWithoutStarting;
    const auto failed = Launcher::launch(t, spec(), profileWith(mpirun), m_tmp.filePath(QStringLiteral("runs-drop")));
    QVERIFY(!failed.ok());
    QVERIFY2(failed.errorString().contains(QStringLiteral("did not start")), qPrintable(failed.errorString()));
}

// Issue #17, 6: a remote run's local record exists before the run starts, so a launch whose
// connection drops during the start leaves a record (that `runs --refresh` settles), never a job
// nobody knows of.
void TestLauncher::remoteRecordIsWrittenBeforeTheStart()
{
    const QString mpirun = script(QStringLiteral("mpirun-remote"), "sleep 30 &\nwait $!\n");
    ClusterProfile profile = profileWith(mpirun);
    profile.workdir = m_tmp.filePath(QStringLiteral("head"));
    const QString records = m_tmp.filePath(QStringLiteral("records"));
    QVERIFY(QDir().mkpath(records));
    FakeTransport t;
    t.start = FakeTransport::Start::FailAfterStarting;
    bool recordSeenAtStart = false;
    t.beforeStart = [&] {
        const QStringList ids = QDir(records).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
        recordSeenAtStart = ids.size() == 1 && isRemoteRecord(records + QLatin1Char('/') + ids.first());
    };
    const auto launched = RemoteRuns::launch(t, spec(), profile, records);
    QVERIFY2(launched.ok(), qPrintable(launched.errorString()));
    QVERIFY(recordSeenAtStart);
    QVERIFY(launched->remote);
    QCOMPARE(modeOf(launched->localDir), 0700);
    QCOMPARE(modeOf(runFile(launched->localDir, runfile::kSpec)), 0600);
    QCOMPARE(jobStateName(Launcher::cancel(m_t, launched->outcome.runDir, 5000).value()), QStringLiteral("cancelled"));

    // Nothing started: the launch fails, and the record stays (runs --refresh settles it: lost a minute
    // after the start without a pid).
    t.start = FakeTransport::Start::FailWithoutStarting;
    const auto failed = RemoteRuns::launch(t, spec(), profile, records);
    QVERIFY(!failed.ok());
    QCOMPARE(QDir(records).entryList(QDir::Dirs | QDir::NoDotAndDotDot).size(), 2);
}

QTEST_GUILESS_MAIN(TestLauncher)
#include "tst_launcher.moc"
