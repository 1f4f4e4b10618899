// Launcher with a fake mpirun (a shell script) and /bin/true as the trainer: detached start in its own
// session, pid / exit-code / logs in the run directory, cancel (SIGTERM, then SIGKILL), resume moving
// the previous attempt aside, and clear errors for a missing trainer or mpirun before anything starts.
#include "launch/launcher.h"
#include "launch/transport.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <unistd.h>

using namespace traindeck::launch;
using traindeck::cluster::ClusterProfile;

class TestLauncher : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void initTestCase();
    void missingTrainer();
    void missingMpirun();
    void launchCancelResume();
    void cancelEscalatesToKill();

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

QTEST_GUILESS_MAIN(TestLauncher)
#include "tst_launcher.moc"
