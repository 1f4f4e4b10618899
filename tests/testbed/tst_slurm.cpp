// Slurm as the launcher, against a real Slurm (Debian's slurm-wlm): slurmctld on tb-node1 (the login
// node) and one slurmd per testbed node, started by scripts/testbed.sh slurm-up and stopped with the
// testbed. Everything goes through traindeck-cli as a user would: launch (sbatch), watch (squeue, then
// scontrol: this cluster keeps no accounting database), runs, cancel (scancel), resume (a new job).
#include "cli_run.h"
#include "test_paths.h"
#include "testbed_fixture.h"

#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <csignal>

using traindeck::testing::lastOfType;
using Outcome = traindeck::testing::CliOutcome;
using traindeck::testing::Testbed;

class TestSlurm : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void cleanup();
    void badProfilesSubmitNothing();
    void submitAndFollowToTheEnd_data();
    void submitAndFollowToTheEnd();
    void failedSrunRankLeadsItsLogs();
    void queuedJobShowsPendingWithReasonAndCancels();
    void unreadableJobRecordIsNeverLost();
    void sbatchFailingAfterSubmittingIsFollowed();
    void unwritableJobRecordCancelsTheJob();
    void timeLimitStopsWithCheckpointAndResumes();
    void nodeDownShowsNodeFail();
    void checksRunInsideAJob();
    void checksNameADownNode();
    void checksFollowAJobWhoseSbatchAnswerWasLost();
    void interruptedChecksEndTheirJob();

  private:
    QJsonObject check(const QString& profile, const QStringList& extra = {});
    // Waits until every node is idle (a node an earlier case set down comes back only once its slurmd
    // answers again); says which are not when they do not.
    bool allNodesIdle();
    // A directory (under the shared one) holding an sbatch that is `script`.
    QString sbatchWrapperDir(const QString& name, const QByteArray& script);
    // A directory with an sbatch that submits, then fails (see its definition).
    QString failingSbatchDir();
    // traindeck-cli ARGS (with --runs-dir unless withRunsDir is false: not every command takes it).
    Outcome cli(const QStringList& args, int timeoutMs = 300000, bool withRunsDir = true);
    QString writeProfile(const QString& name, const std::function<void(QJsonObject&)>& edit);
    QString writeSpec(const QString& name, const QJsonObject& trainerExtra);
    QJsonObject runSummary(const QString& run, bool refresh);
    QString sh(const QString& command);
    bool waitFor(const std::function<bool()>& done, int timeoutMs);

    Testbed m_tb;
    QTemporaryDir m_tmp;
    QString m_runs, m_slurmProfile;
    QJsonObject m_profile;
};

void TestSlurm::initTestCase()
{
    const QString why = Testbed::unavailableReason();
    if (!why.isEmpty())
        QSKIP(qPrintable(QStringLiteral("Slurm scenarios skipped: ") + why));
    for (const char* tool : {"/usr/sbin/slurmctld", "/usr/sbin/slurmd", "/usr/sbin/munged"}) {
        if (!QFile::exists(QLatin1String(tool)))
            QSKIP(qPrintable(QStringLiteral("%1 missing: run scripts/setup-deps.sh").arg(QLatin1String(tool))));
    }
    if (!QFile::exists(traindeck::testing::demoCorpus()) || !QFile::exists(traindeck::testing::qwenTokenizer()))
        QSKIP("demo corpus or Qwen tokenizer missing: run scripts/setup-deps.sh");
    QVERIFY(m_tmp.isValid());
    m_runs = m_tmp.filePath(QStringLiteral("runs"));
    QString error;
    QVERIFY2(m_tb.up(3, &error), qPrintable(error));
    QByteArray out;
    QCOMPARE(m_tb.script({QStringLiteral("slurm-up")}, &out, 120000), 0);
    m_slurmProfile = QString::fromUtf8(out.trimmed().split('\n').last());
    QFile f(m_slurmProfile);
    QVERIFY2(f.open(QIODevice::ReadOnly), qPrintable(m_slurmProfile));
    m_profile = QJsonDocument::fromJson(f.readAll()).object();
    // Every node sees the build tree: the trainer needs no deploy here (a shared file system, as on
    // Slurm clusters).
    m_profile.insert(QStringLiteral("trainer"), QString::fromUtf8(TRAINDECK_TRAINER));
    QVERIFY(m_profile.contains(QStringLiteral("slurm")));
}

void TestSlurm::cleanupTestCase()
{
    if (m_tb.isUp())
        m_tb.script({QStringLiteral("slurm-down")});
    m_tb.down();
}

void TestSlurm::cleanup()
{
    // No job outlives its test.
    sh(QStringLiteral(
        "scancel --partition=debug 2>/dev/null; scontrol update nodename=tb-node[1-3] state=resume 2>/dev/null"));
    waitFor([&] { return sh(QStringLiteral("squeue -h -o %i")).trimmed().isEmpty(); }, 30000);
}

Outcome TestSlurm::cli(const QStringList& args, int timeoutMs, bool withRunsDir)
{
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), m_tmp.filePath(QStringLiteral("config")));
    p.setProcessEnvironment(env);
    p.start(QString::fromUtf8(TRAINDECK_CLI),
            withRunsDir ? args + QStringList{QStringLiteral("--runs-dir"), m_runs} : args);
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished(5000);
        return Outcome{-1, p.readAllStandardOutput(), p.readAllStandardError() + "\n<timed out>"};
    }
    return Outcome{p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(),
                   p.readAllStandardError()};
}

QString TestSlurm::sh(const QString& command)
{
    QProcess p;
    p.start(QStringLiteral("/bin/sh"), {QStringLiteral("-c"), command});
    p.waitForFinished(60000);
    return QString::fromUtf8(p.readAllStandardOutput() + p.readAllStandardError());
}

bool TestSlurm::waitFor(const std::function<bool()>& done, int timeoutMs)
{
    QElapsedTimer t;
    t.start();
    while (!done()) {
        if (t.elapsed() > timeoutMs)
            return false;
        QThread::msleep(500);
    }
    return true;
}

QString TestSlurm::sbatchWrapperDir(const QString& name, const QByteArray& script)
{
    // Put first on the PATH by a profile's path_prefix; the real sbatch stays /usr/bin/sbatch.
    const QString bin = m_tb.dir() + QStringLiteral("/shared/") + name;
    QDir().mkpath(bin);
    QFile wrapper(bin + QStringLiteral("/sbatch"));
    if (!wrapper.open(QIODevice::WriteOnly | QIODevice::Truncate) || wrapper.write(script) != script.size())
        return {};
    wrapper.close();
    wrapper.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner | QFile::ReadOther | QFile::ExeOther);
    return bin;
}

QString TestSlurm::failingSbatchDir()
{
    // Submits (and a job of the same name for another user, nobody), then fails as an sbatch whose
    // answer was lost.
    return sbatchWrapperDir(
        QStringLiteral("failing-sbatch"),
        "#!/bin/sh\n"
        "id=$(/usr/bin/sbatch \"$@\") || exit $?\n"
        "name=$(squeue -h -j \"${id%%;*}\" -o %j)\n"
        "/usr/bin/sbatch --uid=nobody --parsable --job-name=\"$name\" --output=/dev/null --wrap 'sleep 60' >/dev/null\n"
        "echo 'sbatch: error: Batch job submission failed: Socket timed out on send/recv operation' >&2\n"
        "exit 1\n");
}

QString TestSlurm::writeProfile(const QString& name, const std::function<void(QJsonObject&)>& edit)
{
    QJsonObject p = m_profile;
    p.insert(QStringLiteral("name"), name);
    if (edit)
        edit(p);
    const QString path = m_tmp.filePath(name + QStringLiteral(".json"));
    QFile f(path);
    if (f.open(QIODevice::WriteOnly | QIODevice::Truncate))
        f.write(QJsonDocument(p).toJson());
    return path;
}

QString TestSlurm::writeSpec(const QString& name, const QJsonObject& trainerExtra)
{
    return traindeck::testing::writeTinySpec(m_tmp.filePath(name + QStringLiteral("-spec.json")), name, trainerExtra);
}

QJsonObject TestSlurm::runSummary(const QString& run, bool refresh)
{
    QStringList args{QStringLiteral("runs"), QStringLiteral("--json")};
    if (refresh)
        args << QStringLiteral("--refresh");
    const Outcome r = cli(args, 120000);
    for (const QJsonValue v : QJsonDocument::fromJson(r.out).array()) {
        if (v.toObject().value(QStringLiteral("run_id")).toString() == run)
            return v.toObject();
    }
    return {};
}

static void setSlurm(QJsonObject& profile, const QString& key, const QJsonValue& value)
{
    QJsonObject s = profile.value(QStringLiteral("slurm")).toObject();
    if (value.isUndefined())
        s.remove(key);
    else
        s.insert(key, value);
    profile.insert(QStringLiteral("slurm"), s);
}

void TestSlurm::badProfilesSubmitNothing()
{
    const QString spec = writeSpec(QStringLiteral("bad"), {{QStringLiteral("max-steps"), 2}});
    const QString jobsBefore = sh(QStringLiteral("squeue -h -t all -o %i | sort"));
    const QString runsDir = m_tb.dir() + QStringLiteral("/shared/runs");
    const QStringList runsBefore = QDir(runsDir).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    auto launch = [&](const QString& profile) {
        return cli({QStringLiteral("launch"), QStringLiteral("--spec"), spec, QStringLiteral("--profile"), profile,
                    QStringLiteral("--detach")},
                   120000);
    };
    // No partition: refused when the profile is read.
    Outcome r = launch(writeProfile(QStringLiteral("nopart"), [](QJsonObject& p) {
        setSlurm(p, QStringLiteral("partition"), QJsonValue::Undefined);
    }));
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("slurm.partition") && r.err.contains("must not be empty"), r.all().constData());
    // A partition the cluster does not have: sinfo's list in the error.
    r = launch(writeProfile(QStringLiteral("wrongpart"),
                            [](QJsonObject& p) { setSlurm(p, QStringLiteral("partition"), QStringLiteral("gpu")); }));
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("no partition 'gpu'") && r.err.contains("debug"), r.all().constData());
    // An account on a cluster without an accounting database: sacctmgr cannot confirm it.
    r = launch(writeProfile(QStringLiteral("account"), [](QJsonObject& p) {
        setSlurm(p, QStringLiteral("account"), QStringLiteral("nosuchproject"));
    }));
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("slurm.account") && r.err.contains("nosuchproject"), r.all().constData());
    // A work directory that #SBATCH --output= cannot carry: sbatch would split it at the blank or expand %u.
    for (const QString& workdir : {QStringLiteral("~/my runs"), QStringLiteral("~/runs-%u")}) {
        r = launch(writeProfile(QStringLiteral("workdir"),
                                [&](QJsonObject& p) { p.insert(QStringLiteral("workdir"), workdir); }));
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("workdir") && r.err.contains("#SBATCH"), r.all().constData());
    }
    // sbatch missing on the login node.
    QCOMPARE(m_tb.script({QStringLiteral("mask"), QStringLiteral("tb-node1"), QStringLiteral("/usr/bin/sbatch")}), 0);
    r = launch(writeProfile(QStringLiteral("nosbatch"), {}));
    m_tb.script({QStringLiteral("unmask"), QStringLiteral("tb-node1"), QStringLiteral("/usr/bin/sbatch")});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("sbatch") && r.err.contains("login node"), r.all().constData());
    // Nothing reached Slurm, and no run directory was made.
    QCOMPARE(sh(QStringLiteral("squeue -h -t all -o %i | sort")), jobsBefore);
    QCOMPARE(QDir(runsDir).entryList(QDir::Dirs | QDir::NoDotAndDotDot), runsBefore);
}

void TestSlurm::submitAndFollowToTheEnd_data()
{
    QTest::addColumn<QString>("ranksVia");
    QTest::addColumn<QString>("expectedVia");
    QTest::newRow("mpirun") << QStringLiteral("mpirun") << QStringLiteral("mpirun");
    QTest::newRow("auto (srun --mpi=pmix is offered)") << QStringLiteral("auto") << QStringLiteral("srun");
}

void TestSlurm::submitAndFollowToTheEnd()
{
    QFETCH(QString, ranksVia);
    QFETCH(QString, expectedVia);
    const QString profile = writeProfile(QStringLiteral("follow-") + expectedVia,
                                         [&](QJsonObject& p) { setSlurm(p, QStringLiteral("ranks_via"), ranksVia); });
    const Outcome r = cli({QStringLiteral("launch"), QStringLiteral("--spec"),
                           writeSpec(QStringLiteral("follow"), {{QStringLiteral("max-steps"), 5}}),
                           QStringLiteral("--profile"), profile, QStringLiteral("--json")});
    QVERIFY2(r.exitCode == 0, r.all().constData());
    const QString run = QString::fromUtf8(r.out.left(r.out.indexOf('\n')));
    const QList<QJsonObject> lines = r.lines();
    const QJsonObject end = lastOfType(lines, QStringLiteral("end"));
    QCOMPARE(end.value(QStringLiteral("state")).toString(), QStringLiteral("finished"));
    QCOMPARE(end.value(QStringLiteral("last_step")).toInt(), 5);
    QVERIFY2(end.value(QStringLiteral("detail")).toString().contains(QLatin1String("completed")), r.all().constData());
    // The ranks ran on two nodes, as Slurm placed them.
    QStringList hosts;
    for (const QJsonValue host : lastOfType(lines, QStringLiteral("hello")).value(QStringLiteral("hosts")).toArray())
        hosts << host.toString();
    hosts.sort();
    QCOMPARE(hosts, (QStringList{QStringLiteral("tb-node1"), QStringLiteral("tb-node2")}));
    // The run directory on the shared file system: the batch script, the job id and how ranks started.
    const QString dir = m_tb.dir() + QStringLiteral("/shared/runs/") + run;
    QFile job(dir + QStringLiteral("/slurm-job"));
    QVERIFY(job.open(QIODevice::ReadOnly));
    const QList<QByteArray> words = job.readAll().simplified().split(' ');
    QCOMPARE(QString::fromUtf8(words.value(1)), expectedVia);
    QFile script(dir + QStringLiteral("/job.sbatch"));
    QVERIFY(script.open(QIODevice::ReadOnly));
    const QByteArray text = script.readAll();
    QVERIFY(text.contains("#SBATCH --nodes=2") && text.contains("#SBATCH --signal=B:USR1@120") &&
            text.contains("#SBATCH --partition=debug"));
    QVERIFY(text.contains(expectedVia == QLatin1String("srun") ? "srun --mpi=pmix" : "mpirun -np 2"));
    // runs: finished, with Slurm's word.
    const QJsonObject s = runSummary(run, false);
    QCOMPARE(s.value(QStringLiteral("state")).toString(), QStringLiteral("finished"));
    QVERIFY(s.value(QStringLiteral("detail"))
                .toString()
                .contains(QStringLiteral("job %1").arg(QString::fromUtf8(words.value(0)))));
}

void TestSlurm::failedSrunRankLeadsItsLogs()
{
    // Ranks started by srun --label: the logs by node and rank read srun's labels, the failed rank's
    // own error comes first, and the failure names its rank and node (as with mpirun --tag-output).
    const QString profile = writeProfile(QStringLiteral("fail-srun"), [](QJsonObject& p) {
        setSlurm(p, QStringLiteral("ranks_via"), QStringLiteral("srun"));
    });
    const Outcome r =
        cli({QStringLiteral("launch"), QStringLiteral("--spec"),
             writeSpec(QStringLiteral("failsrun"),
                       {{QStringLiteral("max-steps"), 5}, {QStringLiteral("inject-exit"), QStringLiteral("1:2")}}),
             QStringLiteral("--profile"), profile, QStringLiteral("--json")});
    const QString run = QString::fromUtf8(r.out.left(r.out.indexOf('\n')));
    QCOMPARE(lastOfType(r.lines(), QStringLiteral("end")).value(QStringLiteral("state")).toString(),
             QStringLiteral("failed"));
    QStringList hosts;
    for (const QJsonValue host :
         lastOfType(r.lines(), QStringLiteral("hello")).value(QStringLiteral("hosts")).toArray())
        hosts << host.toString();
    QCOMPARE(hosts.size(), 2);

    const Outcome logs = cli({QStringLiteral("logs"), run, QStringLiteral("--json")});
    QVERIFY2(logs.exitCode == 0, logs.all().constData());
    const QList<QJsonObject> lines = logs.lines();
    QVERIFY2(lines.size() > 2 && lines[0].value(QStringLiteral("tagged")).toBool(), logs.all().constData());
    const QJsonObject first = lines[1];
    QCOMPARE(first.value(QStringLiteral("type")).toString(), QStringLiteral("first_error"));
    QCOMPARE(first.value(QStringLiteral("ranks")).toArray(), QJsonArray{1});
    QCOMPARE(first.value(QStringLiteral("label")).toString(), hosts.value(1) + QStringLiteral(":1"));
    QVERIFY2(first.value(QStringLiteral("text")).toString().contains(QStringLiteral("injected exit")),
             logs.all().constData());
    bool srunOwn = false;
    for (const QJsonObject& o : lines) {
        srunOwn = srunOwn || o.value(QStringLiteral("origin")).toString() == QLatin1String("srun");
        // No line keeps srun's label: each was read as its rank's.
        QVERIFY2(!o.value(QStringLiteral("text")).toString().startsWith(QStringLiteral("1: ")), logs.all().constData());
    }
    QVERIFY2(srunOwn, logs.all().constData());
    const QJsonObject failure = first.value(QStringLiteral("failure")).toObject();
    QCOMPARE(failure.value(QStringLiteral("rank")).toInt(), 1);
    QCOMPARE(failure.value(QStringLiteral("host")).toString(), hosts.value(1));
}

void TestSlurm::queuedJobShowsPendingWithReasonAndCancels()
{
    // The first job takes every CPU of one node; the second asks for all three and waits behind it. (One
    // rank as the blocker: three would starve this 2-core machine's sshd and Slurm of CPU for minutes.)
    const QString one = writeProfile(QStringLiteral("one-node"), [](QJsonObject& p) {
        setSlurm(p, QStringLiteral("nodes"), 1);
        setSlurm(p, QStringLiteral("cpus_per_task"), 2);
        setSlurm(p, QStringLiteral("ranks_via"), QStringLiteral("mpirun"));
    });
    const QString all = writeProfile(QStringLiteral("all-nodes"), [](QJsonObject& p) {
        setSlurm(p, QStringLiteral("nodes"), 3);
        setSlurm(p, QStringLiteral("ranks_via"), QStringLiteral("mpirun"));
    });
    Outcome r = cli({QStringLiteral("launch"), QStringLiteral("--spec"),
                     writeSpec(QStringLiteral("blocker"), {{QStringLiteral("max-steps"), 100000}}),
                     QStringLiteral("--profile"), one, QStringLiteral("--detach")});
    QVERIFY2(r.exitCode == 0, r.all().constData());
    const QString blocker = QString::fromUtf8(r.out.trimmed().split('\n').last());
    r = cli({QStringLiteral("launch"), QStringLiteral("--spec"),
             writeSpec(QStringLiteral("waiting"), {{QStringLiteral("max-steps"), 3}}), QStringLiteral("--profile"), all,
             QStringLiteral("--detach")});
    QVERIFY2(r.exitCode == 0, r.all().constData());
    const QString waiting = QString::fromUtf8(r.out.trimmed().split('\n').last());

    QJsonObject s;
    QVERIFY2(waitFor(
                 [&] {
                     s = runSummary(waiting, true);
                     return s.value(QStringLiteral("state")).toString() == QLatin1String("pending") &&
                            s.value(QStringLiteral("detail")).toString().contains(QLatin1String("Resources"));
                 },
                 60000),
             QJsonDocument(s).toJson().constData());
    // The text listing shows the reason too.
    r = cli({QStringLiteral("runs")});
    QVERIFY2(r.out.contains("pending") && r.out.contains("Resources"), r.all().constData());

    // Cancel the waiting one (scancel of a pending job), then the blocker.
    r = cli({QStringLiteral("cancel"), waiting}, 120000);
    QVERIFY2(r.exitCode == 0, r.all().constData());
    QCOMPARE(runSummary(waiting, true).value(QStringLiteral("state")).toString(), QStringLiteral("cancelled"));
    r = cli({QStringLiteral("cancel"), blocker}, 120000);
    QVERIFY2(r.exitCode == 0, r.all().constData());
    QCOMPARE(runSummary(blocker, true).value(QStringLiteral("state")).toString(), QStringLiteral("cancelled"));
    QVERIFY(waitFor([&] { return sh(QStringLiteral("squeue -h -o %i")).trimmed().isEmpty(); }, 30000));
}

// One failed read of slurm-job (a transient SSH error, an unreadable file) while the job runs: the run
// is not lost, resume submits no second job into its directory, and cancel does not pretend; once the
// record reads again, cancel ends the job through scancel. (It used to fall through to the pid rules: a
// Slurm run has no pid file, so the run was lost a minute after its start, and resume then submitted a
// second job while the first still ran.)
void TestSlurm::unreadableJobRecordIsNeverLost()
{
    const QString one = writeProfile(QStringLiteral("one-node-record"), [](QJsonObject& p) {
        setSlurm(p, QStringLiteral("nodes"), 1);
        setSlurm(p, QStringLiteral("ranks_via"), QStringLiteral("mpirun"));
    });
    Outcome r = cli({QStringLiteral("launch"), QStringLiteral("--spec"),
                     writeSpec(QStringLiteral("record"), {{QStringLiteral("max-steps"), 100000}}),
                     QStringLiteral("--profile"), one, QStringLiteral("--detach")});
    QVERIFY2(r.exitCode == 0, r.all().constData());
    const QString run = QString::fromUtf8(r.out.trimmed().split('\n').last());
    const QString dir = m_tb.dir() + QStringLiteral("/shared/runs/") + run; // the login node's run directory
    QVERIFY2(QFile::exists(dir + QStringLiteral("/slurm-job")), qPrintable(dir));
    const QString job = sh(QStringLiteral("squeue -h -o %i")).trimmed();
    QVERIFY2(!job.isEmpty() && !job.contains(QLatin1Char('\n')), qPrintable(job));

    // The record becomes unreadable (a directory in its place: it exists, its read fails), and the run
    // looks an hour old, so that the one-minute rule for runs that never wrote a pid would apply.
    QVERIFY(QFile::rename(dir + QStringLiteral("/slurm-job"), dir + QStringLiteral("/slurm-job.saved")));
    QVERIFY(QDir().mkdir(dir + QStringLiteral("/slurm-job")));
    QFile info(dir + QStringLiteral("/run.json"));
    QVERIFY(info.open(QIODevice::ReadOnly));
    QJsonObject record = QJsonDocument::fromJson(info.readAll()).object();
    info.close();
    const QString hourAgo = QDateTime::currentDateTimeUtc().addSecs(-3600).toString(Qt::ISODateWithMs);
    record.insert(QStringLiteral("created"), hourAgo);
    record.insert(QStringLiteral("started"), hourAgo);
    QVERIFY(info.open(QIODevice::WriteOnly | QIODevice::Truncate));
    info.write(QJsonDocument(record).toJson());
    info.close();

    const QString state = runSummary(run, true).value(QStringLiteral("state")).toString();
    QVERIFY2(state == QLatin1String("starting") || state == QLatin1String("running"), qPrintable(state));
    r = cli({QStringLiteral("resume"), run}, 120000);
    QVERIFY2(r.exitCode != 0 && r.err.contains("Slurm job record"), r.all().constData());
    QCOMPARE(sh(QStringLiteral("squeue -h -o %i")).trimmed(), job); // still one job, the first
    QVERIFY(!QFile::exists(dir + QStringLiteral("/attempt-1")));
    r = cli({QStringLiteral("cancel"), run}, 120000);
    QVERIFY2(r.exitCode != 0 && r.err.contains("nothing was cancelled"), r.all().constData());
    QCOMPARE(sh(QStringLiteral("squeue -h -o %i")).trimmed(), job);

    // Readable again: Slurm's word counts, and cancel goes through scancel.
    QVERIFY(QDir().rmdir(dir + QStringLiteral("/slurm-job")));
    QVERIFY(QFile::rename(dir + QStringLiteral("/slurm-job.saved"), dir + QStringLiteral("/slurm-job")));
    r = cli({QStringLiteral("cancel"), run}, 120000);
    QVERIFY2(r.exitCode == 0, r.all().constData());
    QCOMPARE(runSummary(run, true).value(QStringLiteral("state")).toString(), QStringLiteral("cancelled"));
    QVERIFY(waitFor([&] { return sh(QStringLiteral("squeue -h -o %i")).trimmed().isEmpty(); }, 30000));
}

// Hardening 2, item 2 (a, d): sbatch submits the job and then fails (as one that times out or is killed
// after submitting): the run's job is found by its name among this user's own jobs (another user's job
// of the same name is not adopted) and followed, never reported "refused" while it runs unwatched.
void TestSlurm::sbatchFailingAfterSubmittingIsFollowed()
{
    const QString bin = failingSbatchDir();
    QVERIFY(!bin.isEmpty());
    const QString profile = writeProfile(QStringLiteral("failing-sbatch"), [&](QJsonObject& p) {
        p.insert(QStringLiteral("path_prefix"), QJsonArray{bin});
        setSlurm(p, QStringLiteral("nodes"), 1);
        setSlurm(p, QStringLiteral("ranks_via"), QStringLiteral("mpirun"));
    });
    Outcome r = cli({QStringLiteral("launch"), QStringLiteral("--spec"),
                     writeSpec(QStringLiteral("adopted"), {{QStringLiteral("max-steps"), 100000}}),
                     QStringLiteral("--profile"), profile, QStringLiteral("--detach")});
    QVERIFY2(r.exitCode == 0, r.all().constData());
    QVERIFY2(r.err.contains("found by its name"), r.all().constData());
    const QString run = QString::fromUtf8(r.out.trimmed().split('\n').last());
    // Two jobs carry the run's name: root's (the run's) and nobody's.
    const QString mine = sh(QStringLiteral("squeue -h -u root -n %1 -o %i").arg(run)).trimmed();
    const QString theirs = sh(QStringLiteral("squeue -h -t all -u nobody -n %1 -o %i").arg(run)).trimmed();
    QVERIFY2(!mine.isEmpty() && !mine.contains(QLatin1Char('\n')), qPrintable(mine));
    QVERIFY2(!theirs.isEmpty(), "the other user's job of the same name was not submitted");
    QFile record(m_tb.dir() + QStringLiteral("/shared/runs/") + run + QStringLiteral("/slurm-job"));
    QVERIFY(record.open(QIODevice::ReadOnly));
    QVERIFY2(record.readAll().contains(mine.toUtf8()), qPrintable(mine));
    QVERIFY(waitFor([&] { return runSummary(run, true).value(QStringLiteral("last_step")).toInt() >= 1; }, 120000));
    r = cli({QStringLiteral("cancel"), run}, 120000);
    QVERIFY2(r.exitCode == 0, r.all().constData());
    QCOMPARE(runSummary(run, true).value(QStringLiteral("state")).toString(), QStringLiteral("cancelled"));
}

// Hardening 2, item 2 (b): the job was submitted but slurm-job cannot be written (here sbatch's wrapper
// puts a directory in its place): the job is cancelled, and the error names it and says so.
void TestSlurm::unwritableJobRecordCancelsTheJob()
{
    // sbatch runs in the run directory.
    const QString bin =
        sbatchWrapperDir(QStringLiteral("sbatch-blocks-record"),
                         "#!/bin/sh\nid=$(/usr/bin/sbatch \"$@\") || exit $?\nmkdir slurm-job\necho \"$id\"\n");
    QVERIFY(!bin.isEmpty());
    const QString profile = writeProfile(QStringLiteral("blocked-record"), [&](QJsonObject& p) {
        p.insert(QStringLiteral("path_prefix"), QJsonArray{bin});
        setSlurm(p, QStringLiteral("nodes"), 1);
    });
    const Outcome r = cli({QStringLiteral("launch"), QStringLiteral("--spec"),
                           writeSpec(QStringLiteral("blocked"), {{QStringLiteral("max-steps"), 100000}}),
                           QStringLiteral("--profile"), profile, QStringLiteral("--detach")});
    QVERIFY2(r.exitCode == 1, r.all().constData()); // not the input's fault
    const QString job = sh(QStringLiteral("squeue -h -t all -n blocked -o %i; squeue -h -t all -o '%i %j' | "
                                          "awk '$2 ~ /^blocked-/ {print $1}'"))
                            .trimmed()
                            .section(QLatin1Char('\n'), 0, 0);
    QVERIFY2(!job.isEmpty(), r.all().constData());
    QVERIFY2(r.err.contains(QStringLiteral("Slurm job %1 was submitted").arg(job).toUtf8()) &&
                 r.err.contains("so it was cancelled"),
             r.all().constData());
    QVERIFY(waitFor([&] { return sh(QStringLiteral("squeue -h -o %i")).trimmed().isEmpty(); }, 30000));
}

void TestSlurm::timeLimitStopsWithCheckpointAndResumes()
{
    // A two-minute limit and SIGUSR1 40 s before it (slurmctld looks every 30 s, so it comes 80 to
    // 110 s in): the trainer checkpoints and stops (exit 75, cancelled and resumable); each resume is
    // a new job that goes on from the checkpoint.
    const QString profile = writeProfile(QStringLiteral("short"), [](QJsonObject& p) {
        setSlurm(p, QStringLiteral("time"), QStringLiteral("2"));
        setSlurm(p, QStringLiteral("signal_seconds"), 40);
        setSlurm(p, QStringLiteral("ranks_via"), QStringLiteral("mpirun"));
    });
    const int steps = 400;
    Outcome r = cli({QStringLiteral("launch"), QStringLiteral("--spec"),
                     writeSpec(QStringLiteral("limited"),
                               {{QStringLiteral("max-steps"), steps}, {QStringLiteral("checkpoint-every"), 1000}}),
                     QStringLiteral("--profile"), profile, QStringLiteral("--json")},
                    240000);
    QVERIFY2(r.exitCode != 0, r.all().constData());
    const QString run = QString::fromUtf8(r.out.left(r.out.indexOf('\n')));
    QList<QJsonObject> lines = r.lines();
    QCOMPARE(lastOfType(lines, QStringLiteral("end")).value(QStringLiteral("state")).toString(),
             QStringLiteral("cancelled"));
    // The trainer said why it stopped (metrics.jsonl on the shared file system).
    QFile metrics(m_tb.dir() + QStringLiteral("/shared/runs/") + run + QStringLiteral("/metrics.jsonl"));
    QVERIFY(metrics.open(QIODevice::ReadOnly));
    QVERIFY(metrics.readAll().contains("\"code\":\"stop_signal\""));
    const int stoppedAt = lastOfType(lines, QStringLiteral("end")).value(QStringLiteral("last_step")).toInt();
    QVERIFY2(stoppedAt > 0 && stoppedAt < steps, r.all().constData());
    QVERIFY(
        QFile::exists(m_tb.dir() + QStringLiteral("/shared/runs/") + run + QStringLiteral("/out/checkpoints/latest")));

    QString state;
    int lastStep = stoppedAt;
    for (int attempt = 0; attempt < 4 && state != QLatin1String("finished"); ++attempt) {
        r = cli({QStringLiteral("resume"), run, QStringLiteral("--json")}, 240000);
        lines = r.lines();
        const QJsonObject end = lastOfType(lines, QStringLiteral("end"));
        state = end.value(QStringLiteral("state")).toString();
        QVERIFY2(state == QLatin1String("finished") || state == QLatin1String("cancelled"), r.all().constData());
        // Each attempt starts after the checkpoint it resumed from: no step is trained from scratch.
        const QJsonObject firstStep = [&] {
            for (const QJsonObject& l : lines) {
                if (l.value(QStringLiteral("type")).toString() == QLatin1String("step") &&
                    l.value(QStringLiteral("step")).toInt() > lastStep - 1)
                    return l;
            }
            return QJsonObject();
        }();
        QVERIFY2(!firstStep.isEmpty(), r.all().constData());
        QVERIFY(end.value(QStringLiteral("last_step")).toInt() > lastStep);
        lastStep = end.value(QStringLiteral("last_step")).toInt();
    }
    QCOMPARE(state, QStringLiteral("finished"));
    QCOMPARE(lastStep, steps);
}

void TestSlurm::nodeDownShowsNodeFail()
{
    const QString profile = writeProfile(QStringLiteral("nodefail"), [](QJsonObject& p) {
        setSlurm(p, QStringLiteral("ranks_via"), QStringLiteral("mpirun"));
    });
    Outcome r = cli({QStringLiteral("launch"), QStringLiteral("--spec"),
                     writeSpec(QStringLiteral("nodefail"), {{QStringLiteral("max-steps"), 100000}}),
                     QStringLiteral("--profile"), profile, QStringLiteral("--detach")});
    QVERIFY2(r.exitCode == 0, r.all().constData());
    const QString run = QString::fromUtf8(r.out.trimmed().split('\n').last());
    QVERIFY(waitFor([&] { return runSummary(run, true).value(QStringLiteral("last_step")).toInt() >= 2; }, 120000));
    QVERIFY(sh(QStringLiteral("scontrol update nodename=tb-node2 state=down reason=tdtest; echo rc=$?"))
                .contains(QLatin1String("rc=0")));
    r = cli({QStringLiteral("watch"), run, QStringLiteral("--json")}, 180000);
    const QJsonObject end = lastOfType(r.lines(), QStringLiteral("end"));
    QVERIFY2(end.value(QStringLiteral("state")).toString() == QLatin1String("failed"),
             (r.out.right(3000) + r.err.right(2000) + "\nsqueue/sacct: " +
              sh(QStringLiteral("squeue -h -t all -o '%i %T %r %N'; cat %1/shared/runs/%2/exit-code "
                                "%1/shared/runs/%2/signals %1/shared/runs/%2/slurm-job")
                     .arg(m_tb.dir(), run))
                  .toUtf8())
                 .constData());
    const QString detail = end.value(QStringLiteral("detail")).toString();
    QVERIFY2(detail.contains(QLatin1String("node_fail")) && detail.contains(QLatin1String("tb-node2")) &&
                 detail.contains(QLatin1String("tdtest")),
             (QJsonDocument(end).toJson() + r.err).constData());
    const QJsonObject s = runSummary(run, true);
    QCOMPARE(s.value(QStringLiteral("state")).toString(), QStringLiteral("failed"));
    QVERIFY(s.value(QStringLiteral("detail")).toString().contains(QLatin1String("tb-node2")));
}

// traindeck-cli check --json on a profile; the report (empty when the output was no JSON).
QJsonObject TestSlurm::check(const QString& profile, const QStringList& extra)
{
    const Outcome r = cli(QStringList{QStringLiteral("check"), QStringLiteral("--profile"), profile,
                                      QStringLiteral("--json"), QStringLiteral("--accept-new-host-keys")} +
                              extra,
                          300000, false);
    const QJsonObject report = QJsonDocument::fromJson(r.out).object();
    if (report.isEmpty() || (r.exitCode != 0 && r.exitCode != 1))
        qWarning().noquote() << r.all();
    return report;
}

bool TestSlurm::allNodesIdle()
{
    if (waitFor([&] { return sh(QStringLiteral("sinfo -h -N -o %T | sort -u")).trimmed() == QLatin1String("idle"); },
                90000))
        return true;
    qWarning().noquote() << sh(QStringLiteral("sinfo -N -o '%N %T %E'"));
    return false;
}

static QJsonObject checkOf(const QJsonObject& node, const QString& id)
{
    for (const QJsonValue& c : node.value(QStringLiteral("checks")).toArray()) {
        if (c.toObject().value(QStringLiteral("id")).toString() == id)
            return c.toObject();
    }
    return {};
}

void TestSlurm::checksRunInsideAJob()
{
    QVERIFY(allNodesIdle());
    const QJsonObject report = check(writeProfile(QStringLiteral("checks"), {}));
    const QJsonArray nodes = report.value(QStringLiteral("nodes")).toArray();
    const QByteArray all = QJsonDocument(report).toJson();
    // The login node, then the job's two nodes.
    QCOMPARE(nodes.size(), 3);
    const QJsonObject login = nodes.at(0).toObject();
    QCOMPARE(login.value(QStringLiteral("role")).toString(), QStringLiteral("head"));
    QCOMPARE(checkOf(login, QStringLiteral("connect")).value(QStringLiteral("status")).toString(),
             QStringLiteral("pass"));
    const QJsonObject slurm = checkOf(login, QStringLiteral("slurm"));
    QVERIFY2(slurm.value(QStringLiteral("status")).toString() == QLatin1String("pass"),
             QJsonDocument(slurm).toJson().constData());
    QVERIFY2(slurm.value(QStringLiteral("summary")).toString().contains(QLatin1String("partition debug: 3 of 3")),
             all.constData());
    // sinfo --version: "slurm 23.11.4", Debian's "slurm-wlm 22.05.8".
    QVERIFY2(slurm.value(QStringLiteral("value")).toString().startsWith(QLatin1String("slurm")), all.constData());
    for (const char* node : {"tb-node1", "tb-node2", "tb-node3"})
        QVERIFY2(slurm.value(QStringLiteral("evidence")).toString().contains(QLatin1String(node)), all.constData());
    // The login node runs no environment checks of its own.
    QVERIFY(checkOf(login, QStringLiteral("os")).isEmpty());
    QVERIFY(checkOf(login, QStringLiteral("head-ssh")).isEmpty());

    const QJsonObject job = checkOf(login, QStringLiteral("slurm-job"));
    QVERIFY2(job.value(QStringLiteral("status")).toString() == QLatin1String("pass"), all.constData());
    const QString jobId = job.value(QStringLiteral("summary")).toString().section(QLatin1Char(' '), 1, 1);
    QVERIFY2(!jobId.isEmpty() && jobId.at(0).isDigit(), all.constData());

    // Each compute node is named by Slurm and its checks ran in a job step there.
    QStringList seen;
    for (int i = 1; i < nodes.size(); ++i) {
        const QJsonObject n = nodes.at(i).toObject();
        const QString name = n.value(QStringLiteral("node")).toString();
        QVERIFY2(name.startsWith(QLatin1String("tb-node")), all.constData());
        QCOMPARE(n.value(QStringLiteral("host")).toString(), name);
        QCOMPARE(n.value(QStringLiteral("role")).toString(), QStringLiteral("worker"));
        seen << name;
        const QJsonObject connect = checkOf(n, QStringLiteral("connect"));
        QVERIFY2(connect.value(QStringLiteral("status")).toString() == QLatin1String("pass"), all.constData());
        QVERIFY2(connect.value(QStringLiteral("summary"))
                     .toString()
                     .contains(QStringLiteral("job %1 on %2").arg(jobId, name)),
                 all.constData());
        for (const char* id : {"os", "cpu", "memory", "disk", "mpi", "clock"}) {
            const QString status = checkOf(n, QLatin1String(id)).value(QStringLiteral("status")).toString();
            QVERIFY2(status == QLatin1String("pass") || status == QLatin1String("warn"),
                     (QByteArray(id) + " on " + name.toUtf8() + "\n" + all).constData());
        }
    }
    seen.removeDuplicates();
    QCOMPARE(seen.size(), 2);
    // The matrix compares the compute nodes.
    QVERIFY(!report.value(QStringLiteral("matrix")).toArray().isEmpty());

    // The check job is gone: cancelled, not left running or pending.
    QVERIFY2(
        waitFor([&] { return sh(QStringLiteral("squeue -h -n traindeck-check -o %i")).trimmed().isEmpty(); }, 10000),
        qPrintable(sh(QStringLiteral("squeue"))));
    QVERIFY2(sh(QStringLiteral("scontrol -o show job %1").arg(jobId)).contains(QLatin1String("JobState=CANCELLED")),
             qPrintable(sh(QStringLiteral("scontrol -o show job %1").arg(jobId))));
}

void TestSlurm::checksNameADownNode()
{
    QVERIFY(allNodesIdle());
    const QString checkJobs = QStringLiteral("squeue -h -t all -n traindeck-check -o %i | sort");
    const QString jobsBefore = sh(checkJobs);
    QVERIFY(sh(QStringLiteral("scontrol update nodename=tb-node2 state=down reason=tdtest; echo rc=$?"))
                .contains(QLatin1String("rc=0")));

    // Three nodes asked, two usable: the Slurm check fails and no job is submitted.
    QJsonObject report =
        check(writeProfile(QStringLiteral("checks3"), [](QJsonObject& p) { setSlurm(p, QStringLiteral("nodes"), 3); }));
    QByteArray all = QJsonDocument(report).toJson();
    QJsonArray nodes = report.value(QStringLiteral("nodes")).toArray();
    QCOMPARE(nodes.size(), 4);
    QJsonObject slurm = checkOf(nodes.at(0).toObject(), QStringLiteral("slurm"));
    QVERIFY2(slurm.value(QStringLiteral("status")).toString() == QLatin1String("fail"), all.constData());
    QVERIFY2(slurm.value(QStringLiteral("summary")).toString().contains(QLatin1String("tb-node2 (down: tdtest)")),
             all.constData());
    QVERIFY(!slurm.value(QStringLiteral("remedy")).toString().isEmpty());
    QCOMPARE(checkOf(nodes.at(0).toObject(), QStringLiteral("slurm-job")).value(QStringLiteral("status")).toString(),
             QStringLiteral("skip"));
    QCOMPARE(checkOf(nodes.at(1).toObject(), QStringLiteral("os")).value(QStringLiteral("status")).toString(),
             QStringLiteral("skip"));
    QCOMPARE(report.value(QStringLiteral("ok")).toBool(), false);
    QCOMPARE(sh(checkJobs), jobsBefore);

    // Two asked: a warning names the down node, and the job runs on the other two.
    report = check(writeProfile(QStringLiteral("checks2"), {}));
    all = QJsonDocument(report).toJson();
    nodes = report.value(QStringLiteral("nodes")).toArray();
    QCOMPARE(nodes.size(), 3);
    slurm = checkOf(nodes.at(0).toObject(), QStringLiteral("slurm"));
    QVERIFY2(slurm.value(QStringLiteral("status")).toString() == QLatin1String("warn"), all.constData());
    QVERIFY2(slurm.value(QStringLiteral("summary")).toString().contains(QLatin1String("tb-node2 (down: tdtest)")),
             all.constData());
    QVERIFY2(checkOf(nodes.at(0).toObject(), QStringLiteral("slurm-job")).value(QStringLiteral("status")).toString() ==
                 QLatin1String("pass"),
             all.constData());
    QStringList names;
    for (int i = 1; i < nodes.size(); ++i)
        names << nodes.at(i).toObject().value(QStringLiteral("node")).toString();
    names.sort();
    QCOMPARE(names, (QStringList{QStringLiteral("tb-node1"), QStringLiteral("tb-node3")}));
    QVERIFY(
        waitFor([&] { return sh(QStringLiteral("squeue -h -n traindeck-check -o %i")).trimmed().isEmpty(); }, 10000));
}

QTEST_GUILESS_MAIN(TestSlurm)
// Hardening 2, item 2 (c): sbatch submitted the check job but its answer was lost: the job is found by
// its name and this check's marker among the user's own jobs, and the checks run in it.
void TestSlurm::checksFollowAJobWhoseSbatchAnswerWasLost()
{
    QVERIFY(allNodesIdle());
    const QString bin = failingSbatchDir();
    QVERIFY(!bin.isEmpty());
    const QJsonObject report = check(writeProfile(QStringLiteral("checks-lost-answer"), [&](QJsonObject& p) {
        p.insert(QStringLiteral("path_prefix"), QJsonArray{bin});
    }));
    const QByteArray all = QJsonDocument(report).toJson();
    const QJsonArray nodes = report.value(QStringLiteral("nodes")).toArray();
    QVERIFY2(!nodes.isEmpty(), all.constData());
    const QJsonObject job = checkOf(nodes.at(0).toObject(), QStringLiteral("slurm-job"));
    QVERIFY2(job.value(QStringLiteral("status")).toString() == QLatin1String("pass"), all.constData());
    QVERIFY2(job.value(QStringLiteral("evidence")).toString().contains(QLatin1String("found by its name")),
             all.constData());
    QCOMPARE(nodes.size(), 3); // the login node and the job's two nodes
    // Its job was ended; nobody's job of the same name was neither adopted nor cancelled.
    QVERIFY(waitFor(
        [&] { return sh(QStringLiteral("squeue -h -u root -n traindeck-check -o %i")).trimmed().isEmpty(); }, 30000));
    QVERIFY(!sh(QStringLiteral("squeue -h -t all -u nobody -n traindeck-check -o %i")).trimmed().isEmpty());
}

// Hardening 2, item 2 (c): Ctrl-C (SIGINT) or SIGTERM during `traindeck-cli check` cancels the checks and
// scancels their job, then exits 130 / 143; the job no longer holds its nodes for 15 minutes.
void TestSlurm::interruptedChecksEndTheirJob()
{
    for (const int sig : {SIGINT, SIGTERM}) {
        QVERIFY(allNodesIdle());
        // Another job holds every node, so the check job waits in the queue when the signal comes.
        QVERIFY(sh(QStringLiteral("sbatch --parsable --exclusive -N 3 --job-name=blocker --output=/dev/null "
                                  "--wrap 'sleep 300'; echo rc=$?"))
                    .contains(QLatin1String("rc=0")));
        QProcess p;
        const auto stop = qScopeGuard([&] {
            if (p.state() != QProcess::NotRunning) {
                p.kill();
                p.waitForFinished(5000);
            }
        });
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), m_tmp.filePath(QStringLiteral("config")));
        p.setProcessEnvironment(env);
        p.start(QString::fromUtf8(TRAINDECK_CLI),
                {QStringLiteral("check"), QStringLiteral("--profile"),
                 writeProfile(QStringLiteral("checks-interrupted"), {}), QStringLiteral("--json"),
                 QStringLiteral("--accept-new-host-keys"), QStringLiteral("--job-wait"), QStringLiteral("300")});
        QVERIFY(p.waitForStarted());
        const QString jobs = QStringLiteral("squeue -h -u root -n traindeck-check -o %i");
        QVERIFY2(waitFor([&] { return !sh(jobs).trimmed().isEmpty(); }, 60000), p.readAllStandardError().constData());
        QVERIFY(::kill(pid_t(p.processId()), sig) == 0);
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QVERIFY2(p.exitCode() == 128 + sig, p.readAllStandardError().constData());
        QVERIFY2(waitFor([&] { return sh(jobs).trimmed().isEmpty(); }, 30000), qPrintable(sh(jobs)));
        sh(QStringLiteral("scancel -n blocker"));
        QVERIFY(waitFor([&] { return sh(QStringLiteral("squeue -h -o %i")).trimmed().isEmpty(); }, 30000));
    }
}

#include "tst_slurm.moc"
