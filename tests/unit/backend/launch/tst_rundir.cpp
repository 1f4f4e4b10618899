// The run directory: the job state machine, run ids from hostile names, RUN arguments, history listing.
#include "faketransport.h"
#include "launch/launcher.h"
#include "launch/remoterun.h"
#include "launch/rundir.h"
#include "launch/transport.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

using namespace traindeck::launch;
using traindeck::Result;

class TestRunDir : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void states_data();
    void states();
    void runIds_data();
    void runIds();
    void resolveAndList();
    void livenessUnknown_data();
    void livenessUnknown();
    void readRunFilesWhenAskingFails();
    void syncedRemoteRecordKeepsItsState();
};

Q_DECLARE_METATYPE(JobState)

void TestRunDir::states_data()
{
    QTest::addColumn<qint64>("pid");
    QTest::addColumn<bool>("alive");
    QTest::addColumn<int>("exitCode"); // -1: no file
    QTest::addColumn<bool>("cancel");
    QTest::addColumn<qint64>("age");
    QTest::addColumn<bool>("telemetry");
    QTest::addColumn<JobState>("state");
    QTest::addRow("just launched") << qint64(-1) << false << -1 << false << qint64(1) << false << JobState::Starting;
    QTest::addRow("never started") << qint64(-1) << false << -1 << false << qint64(120) << false << JobState::Lost;
    QTest::addRow("mpirun up") << qint64(100) << true << -1 << false << qint64(5) << false << JobState::Starting;
    QTest::addRow("telemetry") << qint64(100) << true << -1 << false << qint64(5) << true << JobState::Running;
    QTest::addRow("finished") << qint64(100) << false << 0 << false << qint64(5) << true << JobState::Finished;
    QTest::addRow("failed") << qint64(100) << false << 3 << false << qint64(5) << true << JobState::Failed;
    QTest::addRow("exit code, stray ranks")
        << qint64(100) << true << 1 << false << qint64(5) << true << JobState::Failed;
    QTest::addRow("cancelled") << qint64(100) << false << 143 << true << qint64(5) << true << JobState::Cancelled;
    // The trainer stopped on SIGUSR1 (Slurm's time-limit warning) after a checkpoint: resumable.
    QTest::addRow("stopped on SIGUSR1") << qint64(100) << false << 75 << false << qint64(5) << true
                                        << JobState::Cancelled;
    QTest::addRow("cancel pending") << qint64(100) << true << -1 << true << qint64(5) << true << JobState::Running;
    QTest::addRow("killed after cancel") << qint64(100) << false << -1 << true << qint64(5) << true
                                         << JobState::Cancelled;
    QTest::addRow("lost") << qint64(100) << false << -1 << false << qint64(5) << true << JobState::Lost;
}

void TestRunDir::states()
{
    QFETCH(qint64, pid);
    QFETCH(bool, alive);
    QFETCH(int, exitCode);
    QFETCH(bool, cancel);
    QFETCH(qint64, age);
    QFETCH(bool, telemetry);
    QFETCH(JobState, state);
    RunFiles f;
    f.pid = pid;
    f.groupAlive = alive;
    if (exitCode >= 0)
        f.exitCode = exitCode;
    f.cancelRequested = cancel;
    f.launchedSecsAgo = age;
    QCOMPARE(jobStateName(deriveState(f, telemetry)), jobStateName(state));
}

void TestRunDir::runIds_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("id");
    QTest::addRow("plain") << "demo"
                           << "demo-20240610-091300";
    QTest::addRow("spaces") << "my demo run"
                            << "my-demo-run-20240610-091300";
    QTest::addRow("hostile") << "../x'; rm -rf / $(y)\n"
                             << "x-rm-rf-y-20240610-091300";
    QTest::addRow("dots") << ".."
                          << "run-20240610-091300";
    QTest::addRow("empty") << ""
                           << "run-20240610-091300";
    QTest::addRow("unicode") << QStringLiteral("训练") << "run-20240610-091300";
    QTest::addRow("long") << QString(100, QLatin1Char('a'))
                          << QString(48, QLatin1Char('a')) + QStringLiteral("-20240610-091300");
}

void TestRunDir::runIds()
{
    QFETCH(QString, name);
    QFETCH(QString, id);
    const QDateTime now(QDate(2024, 6, 10), QTime(9, 13, 0));
    QCOMPARE(makeRunId(name, now, {}), id);
    QStringList taken{id, id + QStringLiteral("-2")};
    QCOMPARE(makeRunId(name, now, [&](const QString& s) { return taken.contains(s); }), id + QStringLiteral("-3"));
}

void TestRunDir::resolveAndList()
{
    QTemporaryDir runs;
    LocalTransport t;
    auto make = [&](const QString& id, const QString& created, const QByteArray& metrics, const QByteArray& exitCode) {
        RunInfo i;
        i.runId = id;
        i.name = id;
        i.created = QDateTime::fromString(created, Qt::ISODate);
        const QString d = runs.filePath(id);
        QVERIFY(t.writeFile(runFile(d, runfile::kRunInfo), QJsonDocument(i.toJson()).toJson()).ok());
        if (!metrics.isEmpty())
            QVERIFY(t.writeFile(runFile(d, runfile::kMetrics), metrics).ok());
        if (!exitCode.isEmpty())
            QVERIFY(t.writeFile(runFile(d, runfile::kExitCode), exitCode).ok());
    };
    make(QStringLiteral("old"), QStringLiteral("2024-01-01T00:00:00Z"),
         "{\"v\":1,\"type\":\"step\",\"t\":1,\"step\":7,\"loss\":2.5}\n{\"v\":1,\"type\":\"done\",\"t\":2,\"status\":"
         "\"finished\"}\n",
         "0\n");
    make(QStringLiteral("new"), QStringLiteral("2024-02-01T00:00:00Z"), QByteArray(), "3\n");
    QDir().mkpath(runs.filePath(QStringLiteral("not-a-run")));

    QCOMPARE(resolveRunDir(runs.path(), QStringLiteral("old")).value(), runs.filePath(QStringLiteral("old")));
    QCOMPARE(resolveRunDir(QStringLiteral("/elsewhere"), runs.filePath(QStringLiteral("new"))).value(),
             runs.filePath(QStringLiteral("new")));
    const auto missing = resolveRunDir(runs.path(), QStringLiteral("nope"));
    QVERIFY(!missing.ok());
    QVERIFY(missing.errorString().contains(QStringLiteral("no such run")));
    QVERIFY(!resolveRunDir(runs.path(), QStringLiteral("not-a-run")).ok());

    const QList<RunSummary> list = listRuns(runs.path());
    QCOMPARE(list.size(), 2);
    QCOMPARE(list[0].runId, QStringLiteral("new"));
    QCOMPARE(list[0].state, JobState::Failed);
    QCOMPARE(list[1].runId, QStringLiteral("old"));
    QCOMPARE(list[1].state, JobState::Finished);
    QCOMPARE(list[1].lastStep, 7);
    QCOMPARE(list[1].lastLoss, 2.5);
}

// "Could not ask" (an SSH exec failure or timeout) is not "gone": without an exit code the state stays
// non-final; an exit code still decides.
void TestRunDir::livenessUnknown_data()
{
    QTest::addColumn<qint64>("pid");
    QTest::addColumn<int>("exitCode"); // -1: no file
    QTest::addColumn<bool>("cancel");
    QTest::addColumn<qint64>("age");
    QTest::addColumn<bool>("telemetry");
    QTest::addColumn<JobState>("state");
    QTest::addRow("running, check failed") << qint64(100) << -1 << false << qint64(5) << true << JobState::Running;
    QTest::addRow("starting, check failed") << qint64(100) << -1 << false << qint64(5) << false << JobState::Starting;
    QTest::addRow("old run, check failed") << qint64(100) << -1 << false << qint64(7200) << true << JobState::Running;
    QTest::addRow("pid unreadable") << qint64(-1) << -1 << false << qint64(7200) << false << JobState::Starting;
    QTest::addRow("cancel pending, check failed")
        << qint64(100) << -1 << true << qint64(5) << true << JobState::Running;
    QTest::addRow("exit code read") << qint64(100) << 0 << false << qint64(5) << true << JobState::Finished;
    QTest::addRow("failed, exit code read") << qint64(100) << 2 << false << qint64(5) << true << JobState::Failed;
}

void TestRunDir::livenessUnknown()
{
    QFETCH(qint64, pid);
    QFETCH(int, exitCode);
    QFETCH(bool, cancel);
    QFETCH(qint64, age);
    QFETCH(bool, telemetry);
    QFETCH(JobState, state);
    RunFiles f;
    f.pid = pid;
    f.groupAlive = false;
    f.livenessUnknown = true;
    if (exitCode >= 0)
        f.exitCode = exitCode;
    f.cancelRequested = cancel;
    f.launchedSecsAgo = age;
    QCOMPARE(jobStateName(deriveState(f, telemetry)), jobStateName(state));
}

void TestRunDir::readRunFilesWhenAskingFails()
{
    QTemporaryDir dir;
    FakeTransport t;
    RunInfo i;
    i.runId = QStringLiteral("r");
    i.created = i.started = QDateTime::currentDateTimeUtc().addSecs(-3600);
    QVERIFY(t.writeFile(runFile(dir.path(), runfile::kRunInfo), QJsonDocument(i.toJson()).toJson()).ok());
    QVERIFY(t.writeFile(runFile(dir.path(), runfile::kPid), "999999999\n").ok()); // no such group

    // The real answer: the group is gone and there is no exit code: lost.
    RunFiles f = readRunFiles(t, dir.path());
    QVERIFY(!f.livenessUnknown);
    QCOMPARE(deriveState(f, true), JobState::Lost);

    // The liveness check could not be made: not lost.
    t.signalResult = SignalResult::Failed;
    f = readRunFiles(t, dir.path());
    QVERIFY(f.livenessUnknown);
    QVERIFY(!f.groupAlive);
    QCOMPARE(deriveState(f, true), JobState::Running);
    t.signalResult.reset();

    // The group is gone, the exit-code file is there but its read failed: not lost either.
    QVERIFY(t.writeFile(runFile(dir.path(), runfile::kExitCode), "0\n").ok());
    t.failingReads.insert(runFile(dir.path(), runfile::kExitCode));
    f = readRunFiles(t, dir.path());
    QVERIFY(f.livenessUnknown);
    QVERIFY(!f.exitCode);
    QCOMPARE(deriveState(f, true), JobState::Running);
    t.failingReads.clear();
    f = readRunFiles(t, dir.path());
    QCOMPARE(deriveState(f, true), JobState::Finished);

    // The pid file is there but unreadable (an hour after the launch): not "never started".
    QFile::remove(runFile(dir.path(), runfile::kExitCode));
    t.failingReads.insert(runFile(dir.path(), runfile::kPid));
    f = readRunFiles(t, dir.path());
    QVERIFY(f.livenessUnknown);
    QCOMPARE(deriveState(f, false), JobState::Starting);
    // Really missing: lost after a minute, as before.
    QFile::remove(runFile(dir.path(), runfile::kPid));
    f = readRunFiles(t, dir.path());
    QVERIFY(!f.livenessUnknown);
    QVERIFY(!f.slurmRecordUnreadable);
    QCOMPARE(deriveState(f, false), JobState::Lost);

    // A Slurm run (no pid file) whose slurm-job read fails once, an hour after the submit: unknown, never
    // lost (it used to fall through to the pid rules and be lost for good; resume then submitted a second
    // job into the same run directory).
    QVERIFY(t.writeFile(runFile(dir.path(), runfile::kSlurmJob), "4242\n").ok());
    t.failingReads.insert(runFile(dir.path(), runfile::kSlurmJob));
    f = readRunFiles(t, dir.path());
    QCOMPARE(deriveState(f, false), JobState::Starting);
    QCOMPARE(deriveState(f, true), JobState::Running);
    QVERIFY(f.slurmRecordUnreadable);
    QVERIFY(f.livenessUnknown);
    QVERIFY(!f.slurmJob);
    // Resume and cancel refuse to act on it, and say why.
    const Result<LaunchOutcome> resumed = Launcher::resume(t, dir.path());
    QVERIFY(!resumed);
    QVERIFY2(resumed.errorString().contains(QStringLiteral("Slurm job record")), qPrintable(resumed.errorString()));
    QVERIFY(!QFileInfo::exists(dir.path() + QStringLiteral("/attempt-0")));
    const Result<JobState> cancelled = Launcher::cancel(t, dir.path(), 1000);
    QVERIFY(!cancelled);
    QVERIFY2(cancelled.errorString().contains(QStringLiteral("nothing was cancelled")),
             qPrintable(cancelled.errorString()));
    QVERIFY(!QFileInfo::exists(runFile(dir.path(), runfile::kCancel)));
}

// A synced remote record is final as remote.json says: a lost run is listed lost, not failed with the
// placeholder exit code -1 older records hold.
void TestRunDir::syncedRemoteRecordKeepsItsState()
{
    QTemporaryDir runs;
    LocalTransport t;
    auto make = [&](const QString& id, JobState last, bool synced, const QByteArray& exitCode) {
        const QString d = runs.filePath(id);
        RunInfo i;
        i.runId = id;
        i.created = i.started = QDateTime::currentDateTimeUtc();
        QVERIFY(t.writeFile(runFile(d, runfile::kRunInfo), QJsonDocument(i.toJson()).toJson()).ok());
        RemoteRecord r;
        r.remoteRunDir = QStringLiteral("/remote/") + id;
        r.lastState = last;
        r.synced = synced;
        QVERIFY(writeRemoteRecord(d, r).ok());
        if (!exitCode.isEmpty())
            QVERIFY(t.writeFile(runFile(d, runfile::kExitCode), exitCode).ok());
    };
    make(QStringLiteral("lost-old"), JobState::Lost, true, "-1\n");
    make(QStringLiteral("lost-new"), JobState::Lost, true, QByteArray());
    make(QStringLiteral("failed"), JobState::Failed, true, "3\n");
    make(QStringLiteral("cancelled"), JobState::Cancelled, true, "143\n");
    QHash<QString, RunSummary> byId;
    for (const RunSummary& s : listRuns(runs.path()))
        byId.insert(s.runId, s);
    QCOMPARE(byId.size(), 4);
    QCOMPARE(jobStateName(byId[QStringLiteral("lost-old")].state), QStringLiteral("lost"));
    QVERIFY(!byId[QStringLiteral("lost-old")].exitCode);
    QVERIFY(!byId[QStringLiteral("lost-old")].toJson().contains(QStringLiteral("exit_code")));
    QCOMPARE(jobStateName(byId[QStringLiteral("lost-new")].state), QStringLiteral("lost"));
    QCOMPARE(jobStateName(byId[QStringLiteral("failed")].state), QStringLiteral("failed"));
    QCOMPARE(byId[QStringLiteral("failed")].exitCode.value_or(0), 3);
    QCOMPARE(jobStateName(byId[QStringLiteral("cancelled")].state), QStringLiteral("cancelled"));
}

QTEST_GUILESS_MAIN(TestRunDir)
#include "tst_rundir.moc"
