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

#include <QThread>

#include <csignal>
#include <unistd.h>

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
    void probeScriptAgreesWithCalls();
    void probeScriptGivesTheSameRunFiles();
    void probeAnswerCutShortIsAnError();
};

namespace {
// Answers probe() as the SSH transport does, with probeScript() run by /bin/sh here.
class ScriptProbeTransport : public LocalTransport {
  public:
    int probes = 0;
    Result<ProbeAnswer> probe(const ProbeRequest& request) override
    {
        ++probes;
        const Result<ExecResult> r = run(probeScript(request), 30000);
        if (!r || r->exitCode != 0)
            return Result<ProbeAnswer>::failure(traindeck::Diagnostic::error(request.dir, QStringLiteral("sh failed")));
        return parseProbeOutput(request, r->out, displayName());
    }
};

QString describe(const ProbeAnswer& a)
{
    QStringList out{QStringLiteral("dir %1").arg(a.dirSeen)};
    for (const ProbedFile& f : a.files)
        out << QStringLiteral("%1 %2 %3 %4")
                   .arg(int(f.status))
                   .arg(f.chunk.fileSize)
                   .arg(QString::fromLatin1(f.chunk.data.toHex()))
                   .arg(f.chunk.data.size());
    out << QStringLiteral("pid %1 group %2").arg(a.checkedPid).arg(int(a.group));
    if (a.identity)
        out << QStringLiteral("boot %1 btime %2 start %3")
                   .arg(a.identity->bootId)
                   .arg(a.identity->bootTime)
                   .arg(a.identity->startTime ? QString::number(*a.identity->startTime) : QStringLiteral("-"));
    return out.join(QLatin1Char('\n'));
}

// A process group of its own (setsid), alive until the object goes: stands for a run's wrapper.
class Sleeper {
  public:
    qint64 pgid = -1;
    explicit Sleeper(const QString& dir)
    {
        const QString pidFile = dir + QStringLiteral("/sleeper.pid");
        const QString script = dir + QStringLiteral("/sleeper.sh");
        LocalTransport t;
        if (!t.writeFile(script, QStringLiteral("echo $$ > '%1'\nexec sleep 120\n").arg(pidFile).toUtf8(), 0755).ok() ||
            !t.startDetached(script).ok())
            return;
        for (int i = 0; i < 200 && pgid <= 0; ++i) {
            QFile f(pidFile);
            if (f.open(QIODevice::ReadOnly))
                pgid = f.readAll().trimmed().toLongLong();
            if (pgid <= 0)
                QThread::msleep(25);
        }
    }
    ~Sleeper()
    {
        if (pgid > 1)
            ::kill(pid_t(-pgid), SIGKILL);
    }
};

void writeBytes(const QString& path, const QByteArray& bytes)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    QCOMPARE(f.write(bytes), bytes.size());
}
} // namespace

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

// The one-command probe (what SshTransport sends) answers exactly what the calls one at a time answer:
// every file state, byte ranges at offsets (binary bytes that look like the answer's own markers
// included), and the pid's identity and liveness.
void TestRunDir::probeScriptAgreesWithCalls()
{
    QTemporaryDir tmp;
    const QString dir = tmp.filePath(QStringLiteral("run dir 'quoted' $x"));
    QVERIFY(QDir().mkpath(dir));
    QByteArray binary("TDPROBE\nR 1 1\n\nE\nZ\n");
    for (int i = 0; i < 256; ++i)
        binary.append(char(i));
    binary += "\nE\n";
    writeBytes(dir + QStringLiteral("/metrics.jsonl"), binary);
    writeBytes(dir + QStringLiteral("/empty"), QByteArray());
    QVERIFY(QDir().mkpath(dir + QStringLiteral("/a-directory")));
    writeBytes(dir + QStringLiteral("/garbage-pid"), "12ab 7\n");
    writeBytes(dir + QStringLiteral("/gone-pid"), "999999999 5 -\n");
    const Sleeper sleeper(tmp.path());
    QVERIFY(sleeper.pgid > 1);
    writeBytes(dir + QStringLiteral("/live-pid"), QByteArray::number(sleeper.pgid) + " 1 x\n");

    LocalTransport calls;
    ScriptProbeTransport script;
    auto compare = [&](const ProbeRequest& request) {
        const Result<ProbeAnswer> a = calls.probe(request);
        const Result<ProbeAnswer> b = script.probe(request);
        QVERIFY2(a.ok(), qPrintable(a.errorString()));
        QVERIFY2(b.ok(), qPrintable(b.errorString()));
        // Line by line: a difference names the read it is in.
        const QStringList one = describe(b.value()).split(QLatin1Char('\n'));
        const QStringList each = describe(a.value()).split(QLatin1Char('\n'));
        QCOMPARE(one.size(), each.size());
        for (qsizetype i = 0; i < one.size(); ++i)
            QCOMPARE(one.at(i).right(160), each.at(i).right(160));
    };
    const QString m = dir + QStringLiteral("/metrics.jsonl");
    ProbeRequest r;
    r.dir = dir;
    r.reads = {{m, 0, 1 << 20},
               {m, 5, 7},
               {m, 250, 1 << 20},
               {m, qint64(binary.size()), 100},
               {m, 10000, 100},
               {m, 3, 0},
               {dir + QStringLiteral("/empty"), 0, 10},
               {dir + QStringLiteral("/missing"), 0, 10},
               {dir + QStringLiteral("/a-directory"), 0, 10}};
    compare(r);
    const Result<ProbeAnswer> whole = script.probe(r);
    QCOMPARE(whole->files.at(0).chunk.data, binary);
    QCOMPARE(whole->files.at(1).chunk.data, binary.mid(5, 7));
    QCOMPARE(int(whole->files.at(7).status), int(ProbedFile::Status::Missing));
    QCOMPARE(int(whole->files.at(8).status), int(ProbedFile::Status::Unreadable));

    // The pid checks: this test's own live group, a pid with no process, a file that names no pid.
    for (const char* pidFile : {"live-pid", "gone-pid", "garbage-pid", "missing"}) {
        ProbeRequest p;
        p.dir = dir;
        p.reads = {{dir + QLatin1Char('/') + QLatin1String(pidFile), 0, 256}, {m, 0, 4}};
        p.pidRead = 0;
        compare(p);
    }
    ProbeRequest live;
    live.dir = dir;
    live.reads = {{dir + QStringLiteral("/live-pid"), 0, 256}};
    live.pidRead = 0;
    const Result<ProbeAnswer> l = script.probe(live);
    QCOMPARE(l->checkedPid, sleeper.pgid);
    QCOMPARE(int(l->group), int(SignalResult::Delivered));
    QVERIFY(l->identity && l->identity->startTime && !l->identity->bootId.isEmpty());

    // A directory that is not there.
    ProbeRequest gone;
    gone.dir = dir + QStringLiteral("/nope");
    gone.reads = {{gone.dir + QStringLiteral("/pid"), 0, 256}};
    gone.pidRead = 0;
    compare(gone);
}

// readRunFiles() through the one-command probe gives the RunFiles of the calls one at a time, in each
// state of a run directory, and asks once.
void TestRunDir::probeScriptGivesTheSameRunFiles()
{
    QTemporaryDir tmp;
    const QString dir = tmp.path();
    LocalTransport calls;
    ScriptProbeTransport script;
    auto summary = [](const RunFiles& f) {
        return QStringLiteral("pid %1 alive %2 reused %3 unknown %4 exit %5 cancel %6 slurm %7 %8")
            .arg(f.pid)
            .arg(f.groupAlive)
            .arg(f.pidReused)
            .arg(f.livenessUnknown)
            .arg(f.exitCode.value_or(-1000))
            .arg(f.cancelRequested)
            .arg(f.slurmRecordUnreadable)
            .arg(f.slurmJob ? f.slurmJob->jobId : QString());
    };
    auto same = [&](const char* what) {
        const int before = script.probes;
        const RunFiles a = readRunFiles(calls, dir);
        const RunFiles b = readRunFiles(script, dir);
        QCOMPARE(script.probes, before + 1);
        const QString sa = summary(a);
        const QString sb = summary(b);
        QVERIFY2(qAbs(a.launchedSecsAgo - b.launchedSecsAgo) <= 2, what);
        QVERIFY2(sa == sb,
                 qPrintable(QStringLiteral("%1: calls: %2; one command: %3").arg(QLatin1String(what), sa, sb)));
    };
    same("empty directory");
    RunInfo i;
    i.runId = QStringLiteral("r");
    i.created = i.started = QDateTime::currentDateTimeUtc().addSecs(-3600);
    writeBytes(runFile(dir, runfile::kRunInfo), QJsonDocument(i.toJson()).toJson());
    same("run.json only");
    // A live group stands for the run's; the pid record names its start time and boot.
    QTemporaryDir sleeperDir;
    const Sleeper sleeper(sleeperDir.path());
    QVERIFY(sleeper.pgid > 1);
    const Result<ProcessIdentity> id = LocalTransport().processIdentity(sleeper.pgid);
    QVERIFY(id && id->startTime);
    const QByteArray pid = QByteArray::number(sleeper.pgid);
    writeBytes(runFile(dir, runfile::kPid),
               pid + " " + QByteArray::number(*id->startTime) + " " + id->bootId.toLatin1());
    same("alive");
    QVERIFY(readRunFiles(script, dir).groupAlive);
    writeBytes(runFile(dir, runfile::kPid), pid + " 1 " + id->bootId.toLatin1() + "\n"); // another start time
    same("pid reused");
    QVERIFY(readRunFiles(script, dir).pidReused);
    writeBytes(runFile(dir, runfile::kPid), "999999999 1\n");
    same("gone");
    writeBytes(runFile(dir, runfile::kExitCode), "3\n");
    writeBytes(runFile(dir, runfile::kCancel), "");
    same("exit code and cancel");
    QCOMPARE(readRunFiles(script, dir).exitCode.value_or(-1), 3);
    QFile::remove(runFile(dir, runfile::kExitCode));
    QVERIFY(QDir().mkpath(runFile(dir, runfile::kExitCode))); // there, but not readable
    same("unreadable exit code");
    QVERIFY(readRunFiles(script, dir).livenessUnknown);
    QVERIFY(QDir().mkpath(runFile(dir, runfile::kSlurmJob)));
    QFile::remove(runFile(dir, runfile::kPid));
    same("unreadable slurm-job");
    QVERIFY(readRunFiles(script, dir).slurmRecordUnreadable);

    // The followed files come in the same request.
    writeBytes(runFile(dir, runfile::kStderr), "one\ntwo\n");
    const RunDirPoll p =
        pollRunDir(script, dir, {{runFile(dir, runfile::kStderr), 4, 100}, {runFile(dir, runfile::kMetrics), 0, 100}});
    QCOMPARE(p.tails.size(), qsizetype(2));
    QVERIFY(p.tails.at(0));
    QCOMPARE(p.tails.at(0)->data, QByteArray("two\n"));
    QCOMPARE(p.tails.at(0)->fileSize, qint64(8));
    QVERIFY(!p.tails.at(1)); // not there yet
}

// An answer cut short (a dropped connection, a file truncated while read) is an error, never a
// shorter file or a missing one: readRunFiles then says "unknown".
void TestRunDir::probeAnswerCutShortIsAnError()
{
    QTemporaryDir tmp;
    writeBytes(tmp.filePath(QStringLiteral("f")), "0123456789");
    ProbeRequest r;
    r.dir = tmp.path();
    r.reads = {{tmp.filePath(QStringLiteral("f")), 0, 100}, {tmp.filePath(QStringLiteral("g")), 0, 100}};
    LocalTransport t;
    const Result<ExecResult> ran = t.run(probeScript(r), 30000);
    QVERIFY(ran && ran->exitCode == 0);
    const QByteArray out = ran->out;
    // A login script's greeting before the answer is skipped.
    const Result<ProbeAnswer> greeted = parseProbeOutput(r, "welcome to the cluster\n" + out, QStringLiteral("h"));
    QVERIFY2(greeted.ok(), qPrintable(greeted.errorString()));
    QCOMPARE(greeted->files.at(0).chunk.data, QByteArray("0123456789"));
    QCOMPARE(int(greeted->files.at(1).status), int(ProbedFile::Status::Missing));
    for (qsizetype cut = 1; cut < out.size(); ++cut) {
        const Result<ProbeAnswer> a = parseProbeOutput(r, out.left(out.size() - cut), QStringLiteral("h"));
        QVERIFY2(!a.ok(), qPrintable(QStringLiteral("cut %1 bytes: parsed").arg(cut)));
    }
    // Fewer bytes than announced (the file shrank between wc and tail).
    QByteArray shrunk = out;
    shrunk.replace("R 10 10\n0123456789", "R 10 10\n01234");
    QVERIFY(!parseProbeOutput(r, shrunk, QStringLiteral("h")).ok());
    QVERIFY(parseProbeOutput(r, QByteArray(), QStringLiteral("h")).errorString().contains(QStringLiteral("h:")));
}

QTEST_GUILESS_MAIN(TestRunDir)
#include "tst_rundir.moc"
