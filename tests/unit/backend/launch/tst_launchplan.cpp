// The mpirun command and the wrapper script: layout flags, exported variables, the as-root variables,
// and hostile values (spaces, quotes, ;, $(), backticks, newlines) that must arrive as exactly one
// argument each — checked by running the command through /bin/sh with a fake mpirun printing its argv.
#include "launch/launchplan.h"
#include "launch/rundir.h"
#include "launch/transport.h"
#include "process_state.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace traindeck::launch;
using traindeck::shellQuote;
using traindeck::cluster::ClusterNode;
using traindeck::cluster::ClusterProfile;

class TestLaunchPlan : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void initTestCase();
    void localLayout();
    void asRootOnlyWhenRoot();
    void clusterLayout();
    void shellQuoting_data();
    void shellQuoting();
    void hostileValuesArriveIntact();
    void wrapperRecordsPidExitAndOutput();
    void localTimeoutEndsWhatTheShellStarted();

  private:
    LaunchInputs hostileInputs() const;
    QTemporaryDir m_tmp;
    QString m_fakeMpirun;
};

static const QString kHostile =
    QStringLiteral("a b'c\"d;e$(touch pwned)`touch pwned2` && touch pwned3\nsecond line\\ |&<>*?[]~#");

void TestLaunchPlan::initTestCase()
{
    QVERIFY(m_tmp.isValid());
    m_fakeMpirun = m_tmp.filePath(QStringLiteral("fake mpirun's"));
    QFile f(m_fakeMpirun);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("#!/bin/sh\nfor a in \"$@\"; do printf '%s\\0' \"$a\"; done\nprintf 'ENV=%s\\0' \"$HOSTILE\"\nexit 7\n");
    f.close();
    QFile::setPermissions(m_fakeMpirun, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
}

static JobSpec tinySpec()
{
    JobSpec s;
    s.name = QStringLiteral("demo");
    s.ranks = 2;
    s.trainer.insert(QStringLiteral("preset"), QStringLiteral("qwen2-tiny"));
    s.trainer.insert(QStringLiteral("max-steps"), 200);
    return s;
}

void TestLaunchPlan::localLayout()
{
    LaunchInputs in;
    in.spec = tinySpec();
    in.spec.env.insert(QStringLiteral("OMP_NUM_THREADS"), QStringLiteral("1"));
    in.profile = ClusterProfile::local();
    in.runDir = QStringLiteral("/runs/demo-1");
    in.runId = QStringLiteral("demo-1");
    in.trainerPath = QStringLiteral("/opt/td/traindeck-trainer");
    in.mpirunPath = QStringLiteral("/usr/bin/mpirun");
    const auto p = buildLaunchPlan(in);
    QVERIFY2(p.ok(), qPrintable(p.errorString()));
    QCOMPARE(p->np, 2);
    QVERIFY2(p->hostfileText.contains(QStringLiteral("\nlocalhost slots=2")), qPrintable(p->hostfileText));
    QCOMPARE(p->mpirunArgv,
             (QStringList{QStringLiteral("/usr/bin/mpirun"), QStringLiteral("--hostfile"),
                          QStringLiteral("/runs/demo-1/hostfile"), QStringLiteral("-np"), QStringLiteral("2"),
                          QStringLiteral("--map-by"), QStringLiteral("ppr:2:node"), QStringLiteral("--bind-to"),
                          QStringLiteral("none"), QStringLiteral("--tag-output"), QStringLiteral("-x"),
                          QStringLiteral("OMP_NUM_THREADS"), QStringLiteral("/opt/td/traindeck-trainer"),
                          QStringLiteral("train"), QStringLiteral("--preset=qwen2-tiny"),
                          QStringLiteral("--max-steps=200"), QStringLiteral("--metrics-out=/runs/demo-1/metrics.jsonl"),
                          QStringLiteral("--out=/runs/demo-1/out"), QStringLiteral("--run-id=demo-1")}));
    in.resume = true;
    QCOMPARE(buildLaunchPlan(in)->mpirunArgv.last(), QStringLiteral("--resume=latest"));
    // A plain command line needs no quotes.
    QVERIFY(!p->commandLine().contains(QLatin1Char('\'')));
}

void TestLaunchPlan::asRootOnlyWhenRoot()
{
    LaunchInputs in;
    in.spec = tinySpec();
    in.profile = ClusterProfile::local();
    in.runDir = QStringLiteral("/r");
    in.runId = QStringLiteral("r");
    in.trainerPath = QStringLiteral("/t");
    in.asRoot = false;
    QVERIFY(!buildLaunchPlan(in)->wrapperScript().contains(QStringLiteral("OMPI_ALLOW_RUN_AS_ROOT")));
    in.asRoot = true;
    const auto p = buildLaunchPlan(in);
    QVERIFY(p->wrapperScript().contains(QStringLiteral("OMPI_ALLOW_RUN_AS_ROOT=1; export OMPI_ALLOW_RUN_AS_ROOT\n")));
    QVERIFY(p->wrapperScript().contains(
        QStringLiteral("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM\n")));
    QVERIFY(!p->mpirunArgv.contains(QStringLiteral("OMPI_ALLOW_RUN_AS_ROOT"))); // for mpirun, not exported
}

void TestLaunchPlan::clusterLayout()
{
    ClusterProfile prof;
    prof.name = QStringLiteral("lab");
    ClusterNode a, b;
    a.name = a.host = QStringLiteral("node1");
    a.slots = 4;
    a.role = traindeck::cluster::NodeRole::Head;
    b.name = b.host = QStringLiteral("node2");
    b.slots = 4;
    prof.nodes = {a, b};
    prof.env.insert(QStringLiteral("NCCL_DEBUG"), QStringLiteral("WARN"));
    prof.pathPrefix = {QStringLiteral("/opt/ompi/bin")};
    LaunchInputs in;
    in.spec = tinySpec();
    in.spec.ranks = 0;
    in.spec.btlTcpIfInclude = QStringLiteral("eth0");
    in.spec.oobTcpIfInclude = QStringLiteral("eth1");
    in.profile = prof;
    in.runDir = QStringLiteral("/r");
    in.runId = QStringLiteral("r");
    in.trainerPath = QStringLiteral("/t");
    auto p = buildLaunchPlan(in);
    QVERIFY2(p.ok(), qPrintable(p.errorString()));
    QCOMPARE(p->np, 8);
    QVERIFY(p->hostfileText.contains(QStringLiteral("node1 slots=4")));
    QVERIFY(p->hostfileText.contains(QStringLiteral("node2 slots=4")));
    const QString cmd = p->commandLine();
    QVERIFY2(cmd.contains(
                 QStringLiteral("-np 8 --map-by ppr:4:node --bind-to none --tag-output --mca btl_tcp_if_include eth0 "
                                "--mca oob_tcp_if_include eth1 -x PATH -x NCCL_DEBUG")),
             qPrintable(cmd));
    QVERIFY(p->wrapperScript().contains(QStringLiteral("PATH=/opt/ompi/bin:\"$PATH\"; export PATH")));
    {
        // "~" in path_prefix is the head's home in launch as in checks, and a space stays one directory.
        LaunchInputs tilde = in;
        tilde.profile.pathPrefix = {QStringLiteral("~/mpi/bin"), QStringLiteral("/opt/my dir")};
        const QString script = buildLaunchPlan(tilde)->wrapperScript();
        const qsizetype at = script.indexOf(QStringLiteral("\nPATH="));
        QVERIFY2(at >= 0, qPrintable(script));
        const QString line = script.mid(at + 1, script.indexOf(QLatin1Char('\n'), at + 1) - at - 1);
        QProcess sh;
        QProcessEnvironment env;
        env.insert(QStringLiteral("HOME"), QStringLiteral("/home/u"));
        env.insert(QStringLiteral("PATH"), QStringLiteral("/usr/bin"));
        sh.setProcessEnvironment(env);
        sh.start(QStringLiteral("/bin/sh"), {QStringLiteral("-c"), line + QStringLiteral("; printf %s \"$PATH\"")});
        QVERIFY(sh.waitForFinished(10000));
        QCOMPARE(QString::fromUtf8(sh.readAllStandardOutput()), QStringLiteral("/home/u/mpi/bin:/opt/my dir:/usr/bin"));
    }
    // ranks must match the profile.
    in.spec.ranks = 3;
    p = buildLaunchPlan(in);
    QVERIFY(!p.ok());
    QVERIFY2(p.errorString().contains(QStringLiteral("ranks: 3 does not match profile 'lab' (8 slots)")),
             qPrintable(p.errorString()));
    // Different slot counts: --map-by slot, with a warning.
    in.spec.ranks = 0;
    in.profile.nodes[1].slots = 2;
    p = buildLaunchPlan(in);
    QVERIFY(p.ok());
    QVERIFY(p->commandLine().contains(QStringLiteral("--map-by slot")));
    QVERIFY(!p->warnings.isEmpty());
}

void TestLaunchPlan::shellQuoting_data()
{
    QTest::addColumn<QString>("word");
    QTest::addColumn<QString>("quoted");
    QTest::addRow("plain") << "abc-1.2/x:y=z@h%+,"
                           << "abc-1.2/x:y=z@h%+,";
    QTest::addRow("empty") << ""
                           << "''";
    QTest::addRow("space") << "a b"
                           << "'a b'";
    QTest::addRow("quote") << "it's"
                           << "'it'\\''s'";
    QTest::addRow("dollar") << "$(x)"
                            << "'$(x)'";
    QTest::addRow("newline") << "a\nb"
                             << "'a\nb'";
}

void TestLaunchPlan::shellQuoting()
{
    QFETCH(QString, word);
    QFETCH(QString, quoted);
    QCOMPARE(shellQuote(word), quoted);
}

LaunchInputs TestLaunchPlan::hostileInputs() const
{
    LaunchInputs in;
    in.spec = tinySpec();
    in.spec.name = kHostile;
    in.spec.env.insert(QStringLiteral("HOSTILE"), kHostile);
    in.spec.trainer.insert(QStringLiteral("data"), QStringLiteral("/data/") + kHostile);
    in.spec.trainer.insert(QStringLiteral("inject-delay"), QStringLiteral("1:50:forward; touch pwned4"));
    in.spec.btlTcpIfInclude = QStringLiteral("eth0; touch pwned5");
    in.spec.mpiArgs = {QStringLiteral("--mca"), QStringLiteral("x"), kHostile};
    in.profile = ClusterProfile::local();
    in.runDir = m_tmp.filePath(QStringLiteral("run 'dir' $(touch pwned6)"));
    in.runId = QStringLiteral("demo-1");
    in.trainerPath = QStringLiteral("/opt/my trainer/traindeck-trainer");
    in.mpirunPath = m_fakeMpirun;
    return in;
}

static QStringList splitNul(const QByteArray& out)
{
    QStringList words;
    for (const QByteArray& w : out.split('\0'))
        words.append(QString::fromUtf8(w));
    if (!words.isEmpty() && words.last().isEmpty())
        words.removeLast();
    return words;
}

void TestLaunchPlan::hostileValuesArriveIntact()
{
    const LaunchInputs in = hostileInputs();
    QVERIFY(JobSpec::fromJson(in.spec.toJson(), QStringLiteral("hostile")).ok());
    const auto p = buildLaunchPlan(in);
    QVERIFY2(p.ok(), qPrintable(p.errorString()));
    QTemporaryDir cwd;
    QProcess sh;
    sh.setWorkingDirectory(cwd.path());
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("HOSTILE"), kHostile);
    sh.setProcessEnvironment(env);
    sh.start(QStringLiteral("/bin/sh"), {QStringLiteral("-c"), p->commandLine()});
    QVERIFY(sh.waitForFinished(10000));
    QCOMPARE(sh.exitCode(), 7);
    QStringList words = splitNul(sh.readAllStandardOutput());
    QCOMPARE(words.takeLast(), QStringLiteral("ENV=") + kHostile);
    QCOMPARE(words, p->mpirunArgv.mid(1));
    QVERIFY(words.contains(QStringLiteral("--data=/data/") + kHostile));
    QVERIFY(words.contains(QStringLiteral("eth0; touch pwned5")));
    QCOMPARE(QDir(cwd.path()).entryList(QDir::NoDotAndDotDot | QDir::AllEntries), QStringList());
}

void TestLaunchPlan::wrapperRecordsPidExitAndOutput()
{
    const LaunchInputs in = hostileInputs();
    const auto p = buildLaunchPlan(in);
    QVERIFY(p.ok());
    LocalTransport t;
    const QString script = runFile(in.runDir, runfile::kWrapper);
    QVERIFY(t.writeFile(script, p->wrapperScript().toUtf8(), 0755).ok());
    QTemporaryDir cwd;
    QProcess sh;
    sh.setWorkingDirectory(cwd.path());
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("HOSTILE")); // the wrapper sets it from the spec
    sh.setProcessEnvironment(env);
    sh.start(QStringLiteral("/bin/sh"), {script});
    QVERIFY(sh.waitForStarted(10000));
    const qint64 shPid = sh.processId();
    QVERIFY(sh.waitForFinished(10000));
    QCOMPARE(sh.exitCode(), 7);
    QFile code(runFile(in.runDir, runfile::kExitCode));
    QVERIFY(code.open(QIODevice::ReadOnly));
    QCOMPARE(code.readAll(), QByteArray("7\n"));
    QFile pid(runFile(in.runDir, runfile::kPid));
    QVERIFY(pid.open(QIODevice::ReadOnly));
    // "PID START_TIME BOOT_ID": the wrapper's pid, when it started and in which boot.
    const std::optional<PidRecord> rec = PidRecord::parse(pid.readAll());
    QVERIFY(rec);
    QCOMPARE(rec->pid, shPid);
    QVERIFY(rec->startTime.value_or(-1) > 0);
    QFile boot(QStringLiteral("/proc/sys/kernel/random/boot_id"));
    QVERIFY(boot.open(QIODevice::ReadOnly));
    QCOMPARE(rec->bootId, QString::fromLatin1(boot.readAll().trimmed()));
    QFile out(runFile(in.runDir, runfile::kStdout));
    QVERIFY(out.open(QIODevice::ReadOnly));
    QStringList words = splitNul(out.readAll());
    QCOMPARE(words.takeLast(), QStringLiteral("ENV=") + kHostile);
    QCOMPARE(words, p->mpirunArgv.mid(1));
    QCOMPARE(QDir(cwd.path()).entryList(QDir::NoDotAndDotDot | QDir::AllEntries), QStringList());
    QVERIFY(!QFile::exists(m_tmp.filePath(QStringLiteral("pwned"))));
}

QTEST_GUILESS_MAIN(TestLaunchPlan)
void TestLaunchPlan::localTimeoutEndsWhatTheShellStarted()
{
    // A child that ignores SIGTERM, in the background: killing /bin/sh alone would leave it running.
    const QString pidFile = m_tmp.filePath(QStringLiteral("background.pid"));
    LocalTransport t;
    const auto r =
        t.run(QStringLiteral("sh -c 'trap \"\" TERM; sleep 30' & echo $! > %1; wait").arg(shellQuote(pidFile)), 700);
    QVERIFY2(r.ok(), qPrintable(r.errorString()));
    QVERIFY(r->timedOut);
    QFile f(pidFile);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const qint64 pid = f.readAll().trimmed().toLongLong();
    QVERIFY(pid > 1);
    QTRY_VERIFY_WITH_TIMEOUT(!traindeck::testing::processRunning(pid), 5000);
}

#include "tst_launchplan.moc"
