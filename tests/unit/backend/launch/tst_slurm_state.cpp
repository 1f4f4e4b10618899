// The Slurm launcher's pure parts: the profile's "slurm" section, what squeue / sacct / scontrol print
// (captured from slurm-wlm 22.05), how Slurm's states map onto run states, and the batch script.
// tests/testbed/tst_slurm runs all of it against a real Slurm.
#include "cluster/clusterprofile.h"
#include "launch/launchplan.h"
#include "launch/ranklogs.h"
#include "launch/rundir.h"
#include "launch/slurm.h"

#include <QTest>

using namespace traindeck;
using namespace traindeck::launch;

class TestSlurmState : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void profileSection();
    void profileErrors_data();
    void profileErrors();
    void workdirForSbatch();
    void timeLimits();
    void parsesSqueue();
    void parsesSacct();
    void parsesScontrol();
    void slurmJobFile();
    void stateMapping_data();
    void stateMapping();
    void exitCodeWaitsForSlurmToEnd();
    void batchScript();
    void srunPlan();
    void resourceOptions();
    void parsesSinfoNodes();
    void gresGpus_data();
    void gresGpus();
};

static QByteArray profileJson(const QByteArray& slurm)
{
    return R"({"version": 1, "name": "hpc", "known_hosts": "/k", "workdir": "/shared/td",
               "nodes": [{"host": "login1", "role": "head"}], "slurm": )" +
           slurm + "}";
}

void TestSlurmState::profileSection()
{
    const auto p = cluster::ClusterProfile::fromJson(
        profileJson(R"({"partition": "gpu", "account": "proj1", "time": "2-00:00:00", "nodes": 4,
                       "tasks_per_node": 8, "gpus_per_node": 8, "cpus_per_task": 12, "ranks_via": "srun",
                       "signal_seconds": 300})"),
        QStringLiteral("hpc.json"));
    QVERIFY2(p, qPrintable(p.errorString()));
    QVERIFY(p->slurm);
    QCOMPARE(p->slurm->partition, QStringLiteral("gpu"));
    QCOMPARE(p->slurm->account, QStringLiteral("proj1"));
    QCOMPARE(p->slurm->timeLimit, QStringLiteral("2-00:00:00"));
    QCOMPARE(p->totalSlots(), 32);
    QCOMPARE(p->slurm->signalSeconds, 300);
    // Round trip.
    const auto again = cluster::ClusterProfile::fromJson(p->toJson(), QStringLiteral("again.json"));
    QVERIFY(again);
    QCOMPARE(*again->slurm, *p->slurm);
    // Defaults.
    const auto d =
        cluster::ClusterProfile::fromJson(profileJson(R"({"partition": "debug"})"), QStringLiteral("d.json"));
    QVERIFY(d);
    QCOMPARE(d->slurm->timeLimit, QStringLiteral("01:00:00"));
    QCOMPARE(d->slurm->ranksVia, QStringLiteral("auto"));
    QCOMPARE(d->slurm->signalSeconds, 120);
    QCOMPARE(d->totalSlots(), 1);
}

void TestSlurmState::profileErrors_data()
{
    QTest::addColumn<QByteArray>("slurm");
    QTest::addColumn<QString>("expected");
    QTest::newRow("no partition") << QByteArray(R"({"nodes": 2})")
                                  << QStringLiteral("hpc.json: slurm.partition: must not be empty");
    QTest::newRow("option as partition") << QByteArray(R"({"partition": "--wrap=x"})")
                                         << QStringLiteral("slurm.partition: expected a Slurm name");
    QTest::newRow("bad time") << QByteArray(R"({"partition": "p", "time": "1h"})")
                              << QStringLiteral("slurm.time: expected a Slurm time limit");
    QTest::newRow("zero nodes") << QByteArray(R"({"partition": "p", "nodes": 0})")
                                << QStringLiteral("slurm.nodes: expected an integer 1..100000");
    QTest::newRow("ranks via") << QByteArray(R"({"partition": "p", "ranks_via": "ssh"})")
                               << QStringLiteral("slurm.ranks_via: expected \"auto\", \"mpirun\" or \"srun\"");
    QTest::newRow("typo") << QByteArray(R"({"partition": "p", "gpus": 8})")
                          << QStringLiteral("slurm.gpus: unknown key");
    QTest::newRow("not an object") << QByteArray(R"("debug")") << QStringLiteral("slurm: expected an object");
}

// A work directory that #SBATCH --output= cannot carry (sbatch splits directives at blanks and expands %)
// is refused for Slurm profiles when the profile is read; an mpirun profile keeps it (its paths are quoted).
void TestSlurmState::workdirForSbatch()
{
    auto withWorkdir = [](const char* workdir, bool slurm) {
        return QByteArray(R"({"version": 1, "name": "hpc", "known_hosts": "/k", "workdir": ")") + workdir +
               R"(", "nodes": [{"host": "login1", "role": "head"}])" +
               (slurm ? QByteArray(R"(, "slurm": {"partition": "debug"}})") : QByteArray("}"));
    };
    for (const char* bad : {"~/my runs", "/shared/100%", "/shared/it's", "/shared/a\\\\b"}) {
        const auto p = cluster::ClusterProfile::fromJson(withWorkdir(bad, true), QStringLiteral("hpc.json"));
        QVERIFY2(!p, bad);
        QVERIFY2(p.errorString().contains(QStringLiteral("hpc.json: workdir:")) &&
                     p.errorString().contains(QStringLiteral("#SBATCH")),
                 qPrintable(p.errorString()));
        QVERIFY2(cluster::ClusterProfile::fromJson(withWorkdir(bad, false), QStringLiteral("mpi.json")), bad);
    }
    QVERIFY(cluster::ClusterProfile::fromJson(withWorkdir("~/runs-1.2_x+y", true), QStringLiteral("hpc.json")));
}

void TestSlurmState::profileErrors()
{
    QFETCH(QByteArray, slurm);
    QFETCH(QString, expected);
    const auto p = cluster::ClusterProfile::fromJson(profileJson(slurm), QStringLiteral("hpc.json"));
    QVERIFY(!p);
    QVERIFY2(p.errorString().contains(expected), qPrintable(p.errorString()));
}

void TestSlurmState::timeLimits()
{
    for (const char* ok : {"30", "30:00", "01:00:00", "2-00", "2-12:30", "7-00:00:00"})
        QVERIFY2(cluster::isSlurmTimeLimit(QLatin1String(ok)), ok);
    for (const char* bad : {"", "0", "1h", "-1", "1:2:3:4", "2-", "a-00"})
        QVERIFY2(!cluster::isSlurmTimeLimit(QLatin1String(bad)), bad);
}

void TestSlurmState::parsesSqueue()
{
    auto s = slurm::parseSqueue("PENDING|Resources|\n");
    QVERIFY(s);
    QCOMPARE(s->state, QStringLiteral("PENDING"));
    QCOMPARE(s->reason, QStringLiteral("Resources"));
    s = slurm::parseSqueue("RUNNING|None|tb-node[1-2]\n");
    QVERIFY(s);
    QCOMPARE(s->reason, QString());
    QCOMPARE(s->nodes, QStringLiteral("tb-node[1-2]"));
    s->jobId = QStringLiteral("7");
    QCOMPARE(s->describe(), QStringLiteral("job 7 running on tb-node[1-2]"));
    QVERIFY(!slurm::parseSqueue(""));
    QVERIFY(!slurm::parseSqueue("garbage\n"));
}

void TestSlurmState::parsesSacct()
{
    // sacct -X -P -n: the allocation line; "CANCELLED by 0" names who cancelled.
    const QByteArray out = "41|CANCELLED by 0|0:15|None|tb-node[1-2]\n"
                           "42|NODE_FAIL|0:0|None|tb-node[1-2]\n";
    auto s = slurm::parseSacct(out, QStringLiteral("41"));
    QVERIFY(s);
    QCOMPARE(s->state, QStringLiteral("CANCELLED"));
    QCOMPARE(s->exitCode, QStringLiteral("0:15"));
    s = slurm::parseSacct(out, QStringLiteral("42"));
    QVERIFY(s);
    QCOMPARE(s->state, QStringLiteral("NODE_FAIL"));
    s->failedNodes = QStringLiteral("tb-node2 (down: tdtest)");
    s->jobId = QStringLiteral("42");
    QCOMPARE(s->describe(), QStringLiteral("job 42 node_fail: tb-node2 (down: tdtest)"));
    QVERIFY(!slurm::parseSacct(out, QStringLiteral("43")));
    QVERIFY(!slurm::parseSacct("4|PENDING|0:0|Priority|None assigned\n", QStringLiteral("41")));
    s = slurm::parseSacct("5|PENDING|0:0|Priority|None assigned\n", QStringLiteral("5"));
    QVERIFY(s && s->nodes.isEmpty());
}

void TestSlurmState::parsesScontrol()
{
    const QByteArray out =
        "JobId=9 JobName=tiny-20261202 UserId=root(0) GroupId=root(0) MCS_label=N/A Priority=4294901758 "
        "Nice=0 Account=(null) QOS=(null) JobState=TIMEOUT Reason=TimeLimit Dependency=(null) Requeue=1 "
        "Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:15 RunTime=00:01:01 TimeLimit=00:01:00 "
        "NodeList=tb-node[1-2] BatchHost=tb-node1 NumNodes=2\n";
    const auto s = slurm::parseScontrolJob(out);
    QVERIFY(s);
    QCOMPARE(s->state, QStringLiteral("TIMEOUT"));
    QCOMPARE(s->reason, QStringLiteral("TimeLimit"));
    QCOMPARE(s->exitCode, QStringLiteral("0:15"));
    QCOMPARE(s->nodes, QStringLiteral("tb-node[1-2]"));
    QCOMPARE(s->describeState(), QStringLiteral("timeout: TimeLimit"));
    QVERIFY(!slurm::parseScontrolJob("slurm_load_jobs error: Invalid job id specified\n"));
}

void TestSlurmState::slurmJobFile()
{
    const auto j = SlurmJob::parse("123 srun\n");
    QVERIFY(j);
    QCOMPARE(j->jobId, QStringLiteral("123"));
    QCOMPARE(j->ranksVia, QStringLiteral("srun"));
    QCOMPARE(j->toText(), QByteArray("123 srun\n"));
    QCOMPARE(SlurmJob::parse("77")->ranksVia, QStringLiteral("mpirun"));
    QVERIFY(!SlurmJob::parse("; rm -rf /"));
    QVERIFY(!SlurmJob::parse(""));
}

void TestSlurmState::stateMapping_data()
{
    QTest::addColumn<QString>("slurmState");
    QTest::addColumn<bool>("telemetry");
    QTest::addColumn<bool>("cancelRequested");
    QTest::addColumn<int>("expected");
    auto row = [](const char* name, const char* st, bool tel, bool cancel, JobState s) {
        QTest::newRow(name) << QString::fromLatin1(st) << tel << cancel << int(s);
    };
    row("pending", "PENDING", false, false, JobState::Pending);
    row("configuring", "CONFIGURING", false, false, JobState::Pending);
    row("running, no telemetry yet", "RUNNING", false, false, JobState::Starting);
    row("running", "RUNNING", true, false, JobState::Running);
    row("completing", "COMPLETING", true, false, JobState::Running);
    row("completed", "COMPLETED", true, false, JobState::Finished);
    row("failed", "FAILED", true, false, JobState::Failed);
    row("timeout", "TIMEOUT", true, false, JobState::Failed);
    row("node_fail", "NODE_FAIL", true, false, JobState::Failed);
    row("out_of_memory", "OUT_OF_MEMORY", true, false, JobState::Failed);
    row("cancelled", "CANCELLED", true, false, JobState::Cancelled);
    row("pending, cancel asked", "PENDING", false, true, JobState::Cancelled);
    row("failed after cancel", "FAILED", true, true, JobState::Cancelled);
    row("unknown to Slurm", "", true, false, JobState::Lost);
}

void TestSlurmState::stateMapping()
{
    QFETCH(QString, slurmState);
    QFETCH(bool, telemetry);
    QFETCH(bool, cancelRequested);
    QFETCH(int, expected);
    RunFiles f;
    f.slurmJob = SlurmJob{QStringLiteral("5"), QStringLiteral("mpirun"), {}};
    SlurmJobStatus st;
    st.state = slurmState;
    f.slurm = st;
    f.cancelRequested = cancelRequested;
    f.launchedSecsAgo = 600;
    QCOMPARE(jobStateName(deriveState(f, telemetry)), jobStateName(JobState(expected)));
    QVERIFY(!isFinal(JobState::Pending));
    // A Slurm query that failed is "not known", never final.
    f.slurm.reset();
    f.livenessUnknown = true;
    QVERIFY(!isFinal(deriveState(f, telemetry)));
}

void TestSlurmState::exitCodeWaitsForSlurmToEnd()
{
    RunFiles f;
    f.slurmJob = SlurmJob{QStringLiteral("5"), QStringLiteral("mpirun"), {}};
    f.exitCode = 1;
    SlurmJobStatus st;
    st.state = QStringLiteral("COMPLETING");
    f.slurm = st;
    // The batch script wrote its exit code while Slurm still ends the job (a node failed): wait for
    // Slurm's word, which carries the reason.
    QCOMPARE(deriveState(f, true), JobState::Running);
    f.slurm->state = QStringLiteral("NODE_FAIL");
    QCOMPARE(deriveState(f, true), JobState::Failed);
    // An exit status of 0 does not make a job that Slurm failed finished.
    f.exitCode = 0;
    QCOMPARE(deriveState(f, true), JobState::Failed);
    f.slurm->state = QStringLiteral("COMPLETED");
    QCOMPARE(deriveState(f, true), JobState::Finished);
    // The trainer stopped on SIGUSR1 (exit 75): cancelled and resumable, whatever Slurm calls it.
    f.exitCode = kTrainerStoppedExitCode;
    f.slurm->state = QStringLiteral("FAILED");
    QCOMPARE(deriveState(f, true), JobState::Cancelled);
}

static LaunchInputs slurmInputs(const QString& via)
{
    const auto p = cluster::ClusterProfile::fromJson(
        profileJson(R"({"partition": "gpu", "account": "proj1", "time": "00:30:00", "nodes": 2,
                       "tasks_per_node": 4, "gpus_per_node": 4, "cpus_per_task": 8})"),
        QStringLiteral("hpc.json"));
    LaunchInputs in;
    in.profile = p.value();
    in.spec = JobSpec::fromJson(R"({"version": 1, "name": "t", "trainer": {"preset": "qwen2-tiny"}})",
                                QStringLiteral("spec.json"))
                  .value();
    in.runDir = QStringLiteral("/shared/td/runs/t-1");
    in.runId = QStringLiteral("t-1");
    in.trainerPath = QStringLiteral("/opt/td/traindeck-trainer");
    in.mpirunPath = QStringLiteral("/usr/bin/mpirun");
    in.slurmRanksVia = via;
    return in;
}

void TestSlurmState::batchScript()
{
    const auto plan = buildLaunchPlan(slurmInputs(QStringLiteral("mpirun")));
    QVERIFY2(plan, qPrintable(plan.errorString()));
    QCOMPARE(plan->np, 8);
    QVERIFY(plan->hostfileText.isEmpty());
    const QString s = plan->batchScript();
    for (const char* line : {"#SBATCH --job-name=t-1\n", "#SBATCH --partition=gpu\n", "#SBATCH --account=proj1\n",
                             "#SBATCH --nodes=2\n", "#SBATCH --ntasks-per-node=4\n", "#SBATCH --cpus-per-task=8\n",
                             "#SBATCH --gpus-per-node=4\n", "#SBATCH --time=00:30:00\n",
                             "#SBATCH --output=/shared/td/runs/t-1/slurm-%j.out\n", "#SBATCH --signal=B:USR1@120\n"})
        QVERIFY2(s.contains(QLatin1String(line)), line);
    // mpirun takes the hosts from the allocation: no hostfile; ranks per node as Slurm gave them.
    QVERIFY(s.contains(QLatin1String("/usr/bin/mpirun -np 8 --map-by ppr:4:node")));
    QVERIFY(!s.contains(QLatin1String("--hostfile")));
    // SIGUSR1 reaches the ranks through the shell's trap, and the exit status is still recorded.
    QVERIFY(s.contains(QLatin1String("trap 'echo USR1 >> signals; [ -n \"$child\" ] && kill -USR1 \"$child\"")));
    QVERIFY(s.contains(QLatin1String("exit-code")));
    QVERIFY(!s.contains(QLatin1String("/pid")));
    // #SBATCH lines must come before the first command, or sbatch ignores them.
    QVERIFY(s.indexOf(QLatin1String("#SBATCH --signal")) < s.indexOf(QLatin1String("umask")));
}

void TestSlurmState::srunPlan()
{
    LaunchInputs in = slurmInputs(QStringLiteral("srun"));
    in.spec.mpiArgs = QStringList{QStringLiteral("--mca"), QStringLiteral("btl"), QStringLiteral("tcp,self")};
    const auto plan = buildLaunchPlan(in);
    QVERIFY(plan);
    QCOMPARE(plan->mpirunArgv.mid(0, 5),
             (QStringList{QStringLiteral("srun"), QStringLiteral("--mpi=pmix"), QStringLiteral("--kill-on-bad-exit=1"),
                          QStringLiteral("--export=ALL"), QStringLiteral("--label")}));
    QVERIFY(plan->mpirunArgv.contains(QStringLiteral("--run-id=t-1")));
    QVERIFY(!plan->mpirunArgv.contains(QStringLiteral("--mca")));
    QCOMPARE(plan->warnings.size(), 1);
    QVERIFY(plan->warnings.first().message.contains(QLatin1String("mpi-args")));
    // The logs say, before the ranks' first line, that their lines carry srun's labels (ranklogs.h).
    const QString script = plan->batchScript();
    const qsizetype marker = script.indexOf(QLatin1String(kSrunLabelMarker));
    QVERIFY2(marker > 0 && marker < script.indexOf(QLatin1String("srun --mpi=pmix")), qPrintable(script));
    QVERIFY(!buildLaunchPlan(slurmInputs(QStringLiteral("mpirun")))
                 ->batchScript()
                 .contains(QLatin1String(kSrunLabelMarker)));
    // A Slurm profile is never launched over SSH with a hostfile.
    in.slurmRanksVia.clear();
    QVERIFY(!buildLaunchPlan(in));
}

void TestSlurmState::resourceOptions()
{
    cluster::SlurmSettings s;
    s.partition = QStringLiteral("gpu");
    s.nodes = 4;
    s.tasksPerNode = 8;
    s.cpusPerTask = 6;
    QCOMPARE(slurm::resourceOptions(s),
             (QStringList{QStringLiteral("--partition=gpu"), QStringLiteral("--nodes=4"),
                          QStringLiteral("--ntasks-per-node=8"), QStringLiteral("--cpus-per-task=6")}));
    s.account = QStringLiteral("proj1");
    s.gpusPerNode = 8;
    QCOMPARE(slurm::resourceOptions(s),
             (QStringList{QStringLiteral("--partition=gpu"), QStringLiteral("--account=proj1"),
                          QStringLiteral("--nodes=4"), QStringLiteral("--ntasks-per-node=8"),
                          QStringLiteral("--cpus-per-task=6"), QStringLiteral("--gpus-per-node=8")}));
}

void TestSlurmState::parsesSinfoNodes()
{
    // sinfo -h -N -o '%N|%P|%T|%G|%c|%m|%E' (slurm-wlm 22.05; a node is listed once per partition).
    const QByteArray out = "tb-node1|debug*|idle|(null)|4|3900|none\n"
                           "tb-node2|debug*|down*|(null)|4|3900|tdtest\n"
                           "\n"
                           "gpu7|gpu|mixed|gpu:a100:4(S:0-1)|64|512000|none\n"
                           "gpu8|gpu|drained|gpu:a100:4(S:0-1)|64|512000|bad dimm | ticket 12\n"
                           "gpu9|gpu|idle~|gpu:a100:4|64|512000|none\n"
                           "short line|x\n";
    const QList<slurm::SinfoNode> n = slurm::parseSinfoNodes(out);
    QCOMPARE(n.size(), 5);
    QCOMPARE(n.at(0).name, QStringLiteral("tb-node1"));
    QCOMPARE(n.at(0).partition, QStringLiteral("debug"));
    QCOMPARE(n.at(0).state, QStringLiteral("idle"));
    QVERIFY(n.at(0).reason.isEmpty());
    QVERIFY(n.at(0).gres.isEmpty());
    QCOMPARE(n.at(0).gpus, 0);
    QCOMPARE(n.at(0).cpus, 4);
    QCOMPARE(n.at(0).memoryMb, 3900);
    QVERIFY(n.at(0).usable());
    QCOMPARE(n.at(1).state, QStringLiteral("down"));
    QCOMPARE(n.at(1).stateText, QStringLiteral("down*"));
    QCOMPARE(n.at(1).reason, QStringLiteral("tdtest"));
    QVERIFY(!n.at(1).usable());
    QCOMPARE(n.at(2).partition, QStringLiteral("gpu"));
    QCOMPARE(n.at(2).gpus, 4);
    QVERIFY(n.at(2).usable());
    QCOMPARE(n.at(3).reason, QStringLiteral("bad dimm | ticket 12"));
    QVERIFY(!n.at(3).usable());
    QCOMPARE(n.at(4).state, QStringLiteral("idle")); // powered off: Slurm powers it up for a job
    QVERIFY(n.at(4).usable());
    // Not responding: its state word alone would say idle.
    QVERIFY(!slurm::parseSinfoNodes("n1|p|idle*|(null)|1|1|none").value(0).usable());
    QVERIFY(!slurm::parseSinfoNodes("n1|p|draining|(null)|1|1|maint").value(0).usable());
    QVERIFY(slurm::parseSinfoNodes("n1|p|allocated+|(null)|1|1|none").value(0).usable());
    QVERIFY(slurm::parseSinfoNodes("").isEmpty());
}

void TestSlurmState::gresGpus_data()
{
    QTest::addColumn<QString>("gres");
    QTest::addColumn<int>("gpus");
    QTest::newRow("none") << QString() << 0;
    QTest::newRow("count") << QStringLiteral("gpu:4") << 4;
    QTest::newRow("typed") << QStringLiteral("gpu:a100:8") << 8;
    QTest::newRow("sockets") << QStringLiteral("gpu:a100:2(S:0,1)") << 2;
    QTest::newRow("two types") << QStringLiteral("gpu:a100:2(S:0),gpu:v100:1(S:1)") << 3;
    QTest::newRow("with mps") << QStringLiteral("gpu:4,mps:400") << 4;
    QTest::newRow("no gpu") << QStringLiteral("mps:100,shard:8") << 0;
    QTest::newRow("bare") << QStringLiteral("gpu") << 1;
}

void TestSlurmState::gresGpus()
{
    QFETCH(QString, gres);
    QFETCH(int, gpus);
    QCOMPARE(slurm::gresGpuCount(gres), gpus);
}

QTEST_GUILESS_MAIN(TestSlurmState)
#include "tst_slurm_state.moc"
