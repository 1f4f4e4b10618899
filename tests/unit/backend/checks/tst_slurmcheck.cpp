// The checks on a Slurm cluster without Slurm: the "slurm" verdict from sinfo's nodes, and the check
// job and its job steps against fake sbatch/squeue/scontrol/scancel/srun scripts on this machine (the
// profile's path_prefix finds them first). tests/testbed/tst_slurm runs the same against a real Slurm.
#include "checks/slurmcheck.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <thread>

using namespace traindeck;
using namespace traindeck::checks;
using launch::slurm::SinfoNode;

class TestSlurmCheck : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void init();
    void partitionVerdict_data();
    void partitionVerdict();
    void jobRunsAndIsCancelled();
    void pendingJobTimesOutWithReason();
    void cancelledChecksStillCancelTheJob();
    void refusedJob();
    void stepsRunOnTheNamedNode();

  private:
    void write(const QString& name, const QByteArray& text, bool executable = false);
    QByteArray read(const QString& name) const;
    cluster::ClusterProfile profile() const;

    std::unique_ptr<QTemporaryDir> m_dir;
};

void TestSlurmCheck::write(const QString& name, const QByteArray& text, bool executable)
{
    QFile f(m_dir->filePath(name));
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(text);
    f.close();
    if (executable)
        f.setPermissions(f.permissions() | QFileDevice::ExeOwner);
}

QByteArray TestSlurmCheck::read(const QString& name) const
{
    QFile f(m_dir->filePath(name));
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

cluster::ClusterProfile TestSlurmCheck::profile() const
{
    cluster::ClusterProfile p;
    p.name = QStringLiteral("hpc");
    p.pathPrefix = {m_dir->path()};
    cluster::SlurmSettings s;
    s.partition = QStringLiteral("debug");
    s.nodes = 2;
    s.tasksPerNode = 2;
    s.cpusPerTask = 3;
    p.slurm = s;
    return p;
}

void TestSlurmCheck::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    const QByteArray d = m_dir->path().toUtf8();
    // squeue answers squeue.N on its Nth call, then squeue.last.
    write(QStringLiteral("sbatch"),
          "#!/bin/sh\nprintf '%s\\n' \"$@\" > " + d + "/sbatch.args\ncat " + d + "/sbatch.out\n", true);
    write(QStringLiteral("sbatch.out"), "42\n");
    write(QStringLiteral("squeue"),
          "#!/bin/sh\nD=" + d +
              "\nn=$(cat $D/n 2>/dev/null || echo 0); echo $((n+1)) > $D/n\n"
              "if [ -f $D/squeue.$n ]; then cat $D/squeue.$n; else cat $D/squeue.last; fi\n",
          true);
    write(QStringLiteral("scontrol"), "#!/bin/sh\necho \"$3\" > " + d + "/hostnames.arg\nprintf 'n1\\nn2\\n'\n", true);
    write(QStringLiteral("scancel"), "#!/bin/sh\necho \"$@\" >> " + d + "/scancel.log\n", true);
    // srun: logs its options, then runs the command after them on "node" -w.
    write(QStringLiteral("srun"),
          "#!/bin/sh\nnode=\nwhile [ \"$1\" != /bin/sh ]; do echo \"$1\" >> " + d +
              "/srun.log; [ \"$1\" = -w ] && node=$2; shift; done\n"
              "SLURMD_NODENAME=$node exec \"$@\"\n",
          true);
}

static SinfoNode node(const QString& name, const QString& state, int gpus = 0, const QString& reason = QString())
{
    SinfoNode n;
    n.name = name;
    n.partition = QStringLiteral("debug");
    n.state = n.stateText = state;
    n.gpus = gpus;
    n.gres = gpus > 0 ? QStringLiteral("gpu:%1").arg(gpus) : QString();
    n.reason = reason;
    return n;
}

void TestSlurmCheck::partitionVerdict_data()
{
    QTest::addColumn<int>("nodes");
    QTest::addColumn<int>("gpusPerNode");
    QTest::addColumn<QList<SinfoNode>>("sinfo");
    QTest::addColumn<QString>("status");
    QTest::addColumn<QString>("named"); // in the summary

    const QList<SinfoNode> two{node(QStringLiteral("n1"), QStringLiteral("idle"), 4),
                               node(QStringLiteral("n2"), QStringLiteral("mixed"), 4)};
    QList<SinfoNode> oneDown = two;
    oneDown << node(QStringLiteral("n3"), QStringLiteral("down"), 4, QStringLiteral("tdtest"));
    SinfoNode other = node(QStringLiteral("x1"), QStringLiteral("idle"));
    other.partition = QStringLiteral("long");
    QTest::newRow("enough") << 2 << 4 << two << "pass"
                            << "2 of 2 node";
    QTest::newRow("one down, enough left") << 2 << 0 << oneDown << "warn"
                                           << "n3 (down: tdtest)";
    QTest::newRow("one down, too few") << 3 << 0 << oneDown << "fail"
                                       << "n3 (down: tdtest)";
    QTest::newRow("too few GPUs") << 2 << 8 << two << "fail"
                                  << "0 with 8 or more GPUs";
    QTest::newRow("no such partition") << 1 << 0 << QList<SinfoNode>{other} << "fail"
                                       << "no partition 'debug'";
    QTest::newRow("no nodes at all") << 1 << 0 << QList<SinfoNode>{} << "fail"
                                     << "no partition 'debug'";
}

void TestSlurmCheck::partitionVerdict()
{
    QFETCH(int, nodes);
    QFETCH(int, gpusPerNode);
    QFETCH(QList<SinfoNode>, sinfo);
    QFETCH(QString, status);
    QFETCH(QString, named);
    cluster::SlurmSettings s;
    s.partition = QStringLiteral("debug");
    s.nodes = nodes;
    s.gpusPerNode = gpusPerNode;
    const CheckResult r = evaluateSlurmPartition(NodeChecker::resultFor(QStringLiteral("slurm")), s,
                                                 QStringLiteral("slurm 22.05.8"), sinfo);
    QCOMPARE(checkStatusName(r.status), status);
    QVERIFY2(r.summary.contains(named), qPrintable(r.summary));
    QCOMPARE(r.value, QStringLiteral("slurm 22.05.8"));
    QCOMPARE(r.remedy.isEmpty(), status == QLatin1String("pass"));
    if (!sinfo.isEmpty() && sinfo.first().partition == s.partition)
        QVERIFY2(r.evidence.contains(QLatin1String("n1 idle")), qPrintable(r.evidence));
}

void TestSlurmCheck::jobRunsAndIsCancelled()
{
    write(QStringLiteral("squeue.0"), "PENDING|Resources|\n");
    write(QStringLiteral("squeue.last"), "RUNNING|None|n[1-2]\n");
    ssh::LocalRunner login;
    const cluster::ClusterProfile p = profile();
    {
        CheckJob job(login, p, 30000);
        const CheckResult r = job.start(NodeChecker::resultFor(QStringLiteral("slurm-job")), ssh::CancelToken{});
        QCOMPARE(r.status, CheckStatus::Pass);
        QVERIFY2(r.summary.contains(QLatin1String("job 42 running on n1, n2")), qPrintable(r.summary));
        QVERIFY2(r.evidence.contains(QLatin1String("pending: Resources")), qPrintable(r.evidence));
        QVERIFY(job.isRunning());
        QCOMPARE(job.nodes(), (QStringList{QStringLiteral("n1"), QStringLiteral("n2")}));
        QCOMPARE(read(QStringLiteral("hostnames.arg")).trimmed(), QByteArray("n[1-2]"));
        QVERIFY(read(QStringLiteral("scancel.log")).isEmpty());
    }
    // The same resources as the launcher's job, a name, no output file, a short limit.
    const QList<QByteArray> args = read(QStringLiteral("sbatch.args")).split('\n');
    for (const char* a :
         {"--parsable", "--job-name=traindeck-check", "--output=/dev/null", "--time=15", "--partition=debug",
          "--nodes=2", "--ntasks-per-node=2", "--cpus-per-task=3", "--wrap", "sleep 900"})
        QVERIFY2(args.contains(a), a);
    QCOMPARE(read(QStringLiteral("scancel.log")), QByteArray("42\n"));
}

void TestSlurmCheck::pendingJobTimesOutWithReason()
{
    write(QStringLiteral("squeue.last"), "PENDING|ReqNodeNotAvail, UnavailableNodes:n2|\n");
    ssh::LocalRunner login;
    const cluster::ClusterProfile p = profile();
    CheckJob job(login, p, 1500);
    const CheckResult r = job.start(NodeChecker::resultFor(QStringLiteral("slurm-job")), ssh::CancelToken{});
    QCOMPARE(r.status, CheckStatus::Fail);
    QVERIFY2(r.summary.contains(QLatin1String("job 42 pending: ReqNodeNotAvail, UnavailableNodes:n2")),
             qPrintable(r.summary));
    QVERIFY(!r.remedy.isEmpty());
    QVERIFY(!job.isRunning());
    QCOMPARE(job.cancel(), QString());
    QCOMPARE(read(QStringLiteral("scancel.log")), QByteArray("42\n"));
    QCOMPARE(job.cancel(), QString()); // once
    QCOMPARE(read(QStringLiteral("scancel.log")), QByteArray("42\n"));
}

void TestSlurmCheck::cancelledChecksStillCancelTheJob()
{
    write(QStringLiteral("squeue.last"), "PENDING|Priority|\n");
    ssh::LocalRunner login;
    const cluster::ClusterProfile p = profile();
    const ssh::CancelToken cancel;
    std::thread canceller([cancel] {
        QThread::msleep(800);
        cancel.cancel();
    });
    CheckResult r;
    {
        CheckJob job(login, p, 60000);
        r = job.start(NodeChecker::resultFor(QStringLiteral("slurm-job")), cancel);
    }
    canceller.join();
    QCOMPARE(r.status, CheckStatus::Skip);
    QCOMPARE(read(QStringLiteral("scancel.log")), QByteArray("42\n"));
}

void TestSlurmCheck::refusedJob()
{
    write(QStringLiteral("sbatch"),
          "#!/bin/sh\necho 'sbatch: error: Batch job submission failed: Invalid account or account/partition "
          "combination specified' >&2\nexit 1\n",
          true);
    ssh::LocalRunner login;
    const cluster::ClusterProfile p = profile();
    CheckJob job(login, p, 30000);
    const CheckResult r = job.start(NodeChecker::resultFor(QStringLiteral("slurm-job")), ssh::CancelToken{});
    QCOMPARE(r.status, CheckStatus::Fail);
    QVERIFY2(r.evidence.contains(QLatin1String("Invalid account")), qPrintable(r.evidence));
    QVERIFY(job.jobId().isEmpty());
    QCOMPARE(job.cancel(), QString());
    QVERIFY(read(QStringLiteral("scancel.log")).isEmpty());
}

void TestSlurmCheck::stepsRunOnTheNamedNode()
{
    ssh::LocalRunner login;
    SrunRunner srun(login, profile(), QStringLiteral("42"), QStringLiteral("n2"));
    QCOMPARE(srun.name(), QStringLiteral("n2"));
    const ssh::ExecResult e = srun.run(QStringLiteral("printf '%s|' \"it's\" \"$SLURMD_NODENAME\" 'a b'"));
    QVERIFY2(e.ok(), e.stdErr.constData());
    QCOMPARE(e.stdOut, QByteArray("it's|n2|a b|"));
    const QList<QByteArray> args = read(QStringLiteral("srun.log")).split('\n');
    for (const char* a : {"--jobid=42", "--overlap", "-N1", "-n1", "-c", "6", "-w", "n2", "--quiet"})
        QVERIFY2(args.contains(a), a);
}

QTEST_GUILESS_MAIN(TestSlurmCheck)
#include "tst_slurmcheck.moc"
