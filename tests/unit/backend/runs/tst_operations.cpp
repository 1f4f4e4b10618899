// The operations layer (runs::Operations) driven once through every operation with the real trainer
// under the real mpirun on this machine: validate (and traindeck-cli launch giving the same answer),
// launch, follow to a failure, resume to the end, launch and cancel. That the front ends call only
// this layer is checked by tests/architecture/check_layers.sh.
#include "cli_run.h"
#include "test_paths.h"

#include "cluster/names.h"
#include "cluster/savedlinktest.h"
#include "cluster/savednodememory.h"
#include "launch/runmonitor.h"
#include "launch/transport.h"
#include "runs/memoryfit.h"
#include "runs/operations.h"

#include <QDir>
#include <QEventLoop>
#include <QFile>
#include <QJsonDocument>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <QTimeZone>
#include <QTimer>

using namespace traindeck;
using launch::JobState;
using runs::Operations;

class TestOperations : public QObject {
    Q_OBJECT

    QTemporaryDir m_tmp;
    const Operations m_ops; // local runs only: no remote transport
    QString runsDir() const { return m_tmp.filePath(QStringLiteral("runs")); }

    launch::JobSpec tinySpec(const QString& name, const QJsonObject& extra) const
    {
        const QString path = testing::writeTinySpec(m_tmp.filePath(name + QStringLiteral(".json")), name, extra,
                                                    {{QStringLiteral("ranks"), 2}});
        return launch::JobSpec::load(path).value();
    }

    // Follows the run through the layer's monitor until it ends (or timeoutMs).
    std::pair<JobState, qint64> follow(const QString& localDir, int timeoutMs = 120000) const
    {
        const auto loc = m_ops.locate(localDir, false);
        if (!loc.ok())
            return {JobState::Lost, -1};
        const std::unique_ptr<launch::RunMonitor> m = Operations::monitor(loc.value());
        m->setPollInterval(100);
        QEventLoop loop;
        JobState end = JobState::Starting;
        QObject::connect(m.get(), &launch::RunMonitor::ended, &loop, [&](JobState s) {
            end = s;
            loop.quit();
        });
        QTimer::singleShot(timeoutMs, &loop, &QEventLoop::quit);
        m->start();
        loop.exec();
        return {end, m->store().lastStep()};
    }

  private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_tmp.isValid());
        qputenv("TRAINDECK_TRAINER", TRAINDECK_TRAINER);
        qputenv("XDG_CONFIG_HOME", m_tmp.filePath(QStringLiteral("config")).toUtf8());
        if (!QFile::exists(testing::demoCorpus()))
            QSKIP("the demo corpus is missing: run scripts/setup-deps.sh");
    }

    // A run's diagnosis compares its allreduce with the links its profile's last link test measured.
    void diagnosisOptionsCarryTheProfilesMeasuredLinks()
    {
        const QString runDir = m_tmp.filePath(QStringLiteral("linked-run"));
        QVERIFY(QDir().mkpath(runDir));
        launch::RunInfo info;
        info.runId = QStringLiteral("linked-run");
        info.profile = QStringLiteral("lab");
        QFile f(launch::runFile(runDir, launch::runfile::kRunInfo));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QJsonDocument(info.toJson()).toJson());
        f.close();
        QVERIFY(Operations::diagnosisOptions(runDir).measuredLinks.isEmpty()); // no link test yet

        cluster::SavedLinkTest saved;
        saved.profile = QStringLiteral("lab");
        saved.measuredAt = QDateTime(QDate(2026, 12, 1), QTime(9, 30), QTimeZone::utc());
        saved.links = {{QStringLiteral("n1"), QStringLiteral("n2"), 8000, 20},
                       {QStringLiteral("n1"), QStringLiteral("n3"), 100, 50}};
        QVERIFY(saved.save().ok());
        const analysis::DiagnosisOptions o = Operations::diagnosisOptions(runDir);
        QCOMPARE(o.measuredLinks.size(), 2);
        QCOMPARE(o.measuredLinks[0].hostA, QStringLiteral("n1"));
        QCOMPARE(o.measuredLinks[0].gbps, 1.0); // 8000 Mbit/s
        QCOMPARE(o.measuredLinks[1].gbps, 0.0125);
        QVERIFY(o.measuredLinks[1].measuredAt.startsWith(QStringLiteral("2026-12-01")));
        // Another profile's run does not get them.
        info.profile = QStringLiteral("other");
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(QJsonDocument(info.toJson()).toJson());
        f.close();
        QVERIFY(Operations::diagnosisOptions(runDir).measuredLinks.isEmpty());
    }

    // Before a launch: the trainer's plan against the memory the checks measured, the smallest per rank.
    void memoryPlanAgainstTheCheckedNodes()
    {
        cluster::ClusterProfile lab;
        lab.name = QStringLiteral("memlab");
        for (const char* name : {"n1", "n2"}) {
            cluster::ClusterNode node;
            node.name = QString::fromLatin1(name);
            node.host = node.name + QStringLiteral(".lab");
            node.slots = 4;
            lab.nodes.append(node);
        }
        launch::JobSpec spec = tinySpec(QStringLiteral("memory"), {});
        spec.ranks = 0; // the profile's 8 slots
        QCOMPARE(runs::ranksOf(spec, lab), 8);

        // Not checked yet: the plan alone.
        auto fit = runs::planMemoryFit(spec, lab, QString::fromUtf8(TRAINDECK_TRAINER));
        QVERIFY2(fit.ok(), qPrintable(fit.errorString()));
        QVERIFY(!fit->memory && fit->fits);
        QVERIFY2(fit->totalMiB > 300 && fit->totalMiB < 1500, qPrintable(QString::number(fit->totalMiB)));
        QVERIFY(fit->planText.contains(QLatin1String("optimizer")));
        QVERIFY2(fit->verdict().contains(QLatin1String("not known yet")), qPrintable(fit->verdict()));

        // n2 has the least RAM per rank; 8 ranks with --zero 1 hold 7/8 less optimizer state and fit.
        cluster::SavedNodeMemory saved;
        saved.profile = lab.name;
        saved.measuredAt = QDateTime::currentDateTimeUtc();
        const double tight = 4 * (fit->totalMiB - 20);
        saved.nodes = {{QStringLiteral("n1.lab"), 65536, 0, 0}, {QStringLiteral("n2.lab"), tight, 0, 0}};
        QVERIFY(saved.save().ok());
        fit = runs::planMemoryFit(spec, lab, QString::fromUtf8(TRAINDECK_TRAINER));
        QVERIFY2(fit.ok(), qPrintable(fit->verdict()));
        QVERIFY(fit->memory);
        QCOMPARE(fit->memory->node, QStringLiteral("n2"));
        QCOMPARE(fit->memory->availableMiB, tight / 4);
        QVERIFY(!fit->fits);
        QVERIFY2(fit->suggestions.join(QLatin1Char(' ')).contains(QLatin1String("--zero 1")),
                 qPrintable(fit->verdict()));
        QVERIFY2(fit->verdict().contains(QLatin1String("does NOT fit")) && fit->verdict().contains(QLatin1String("n2")),
                 qPrintable(fit->verdict()));

        // GPU nodes: a rank has a GPU's memory, the smallest one.
        lab.nodes[0].gpus = lab.nodes[1].gpus = 4;
        saved.nodes = {{QStringLiteral("n1.lab"), 65536, 4, 81559}, {QStringLiteral("n2.lab"), 65536, 4, 40960}};
        QVERIFY(saved.save().ok());
        fit = runs::planMemoryFit(spec, lab, QString::fromUtf8(TRAINDECK_TRAINER));
        QVERIFY2(fit.ok(), qPrintable(fit.errorString()));
        QVERIFY(fit->memory && fit->memory->gpu && fit->fits);
        QCOMPARE(fit->memory->availableMiB, 40960.0);
        QVERIFY2(fit->planText.contains(QLatin1String("CUDA")), qPrintable(fit->planText)); // planned for cuda

        // A Slurm profile's compute nodes are those the checks' job reported (all but the login node), each
        // with --ntasks-per-node ranks.
        cluster::SavedNodeMemory slurmNodes;
        slurmNodes.profile = lab.name;
        slurmNodes.measuredAt = QDateTime::currentDateTimeUtc();
        slurmNodes.nodes = {{QStringLiteral("n1.lab"), 1024, 0, 0}, // the login node: runs no rank
                            {QStringLiteral("c1"), 65536, 0, 0},
                            {QStringLiteral("c2"), 32768, 0, 0}};
        cluster::ClusterProfile hpc = lab;
        hpc.nodes[0].gpus = hpc.nodes[1].gpus = 0;
        hpc.slurm = cluster::SlurmSettings{};
        hpc.slurm->nodes = 2;
        hpc.slurm->tasksPerNode = 4;
        const auto onSlurm = runs::rankMemory(hpc, slurmNodes, runs::ranksOf(spec, hpc), false);
        QVERIFY(onSlurm);
        QCOMPARE(onSlurm->node, QStringLiteral("c2"));
        QCOMPARE(onSlurm->availableMiB, 32768.0 / 4);

        // A damaged record is an error naming the file, not a comparison.
        QFile damaged(cluster::SavedNodeMemory::pathFor(lab.name));
        QVERIFY(damaged.open(QIODevice::WriteOnly | QIODevice::Truncate));
        damaged.write(
            "{\"profile\": \"memlab\", \"measured_at\": \"2026-12-01T00:00:00Z\", \"nodes\": [{\"host\": 3}]}");
        damaged.close();
        const auto bad = cluster::SavedNodeMemory::load(lab.name);
        QVERIFY(!bad.ok() && bad.errorString().contains(QLatin1String("nodes[0]")));
    }

    void validationIsTheSameForEveryFrontEnd()
    {
        launch::JobSpec spec = tinySpec(QStringLiteral("bad"),
                                        {{QStringLiteral("lr"), QStringLiteral("fast")},
                                         {QStringLiteral("data"), m_tmp.filePath(QStringLiteral("missing.jsonl"))}});
        spec.trainer.remove(QStringLiteral("preset"));
        spec.trainer.insert(QStringLiteral("model"), m_tmp.path()); // no config.json there
        const traindeck::Diagnostics d =
            Operations::validate(spec, cluster::ClusterProfile::local(2), QStringLiteral("bad.json"));
        QStringList messages;
        for (const auto& x : d)
            messages << x.toString();
        QCOMPARE(messages.size(), 3);
        QVERIFY2(messages.filter(QStringLiteral("trainer.lr")).size() == 1,
                 qPrintable(messages.join(QLatin1Char('\n'))));
        QVERIFY(messages.filter(QStringLiteral("missing.jsonl")).size() == 1);
        QVERIFY(messages.filter(QStringLiteral("config.json")).size() == 1);
        // The launch through the layer refuses it before anything starts...
        const auto launched =
            m_ops.launch({spec, cluster::ClusterProfile::local(2), QString(), runsDir(), QStringLiteral("bad.json")});
        QVERIFY(!launched.ok());
        QVERIFY(!QDir(runsDir()).exists());
        // ... and so does traindeck-cli, exit 2, with the same three messages (it called the same code).
        QFile f(m_tmp.filePath(QStringLiteral("bad.json")));
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(spec.toJson());
        f.close();
        QProcess cli;
        cli.start(QString::fromUtf8(TRAINDECK_CLI),
                  {QStringLiteral("launch"), QStringLiteral("--detach"), QStringLiteral("--spec"), f.fileName(),
                   QStringLiteral("--runs-dir"), runsDir()});
        QVERIFY(cli.waitForFinished(60000));
        QCOMPARE(cli.exitCode(), 2);
        const QString err = QString::fromUtf8(cli.readAllStandardError());
        for (const auto& x : d)
            QVERIFY2(err.contains(x.message), qPrintable(err));
        QVERIFY(!QDir(runsDir()).exists());
    }

    // Secrets in mpirun's own arguments: "-x NAME=VALUE" and "--mca NAME VALUE" would land in spec.json,
    // run.sh, run.json and mpirun's argv. Exporting a name alone (-x WANDB_API_KEY) and harmless runtime
    // settings stay allowed.
    void remoteProfilesGoToTheGivenTransportFactory()
    {
        cluster::ClusterProfile far;
        far.name = QStringLiteral("far");
        cluster::ClusterNode node;
        node.name = node.host = QStringLiteral("far-head.invalid");
        far.nodes = {node};
        const runs::LaunchRequest request{tinySpec(QStringLiteral("ops-far"), {}), far, QString(), runsDir(),
                                          QStringLiteral("far.json")};
        QStringList asked;
        const Operations withFake([&asked](const cluster::ClusterProfile& p) {
            asked << p.name;
            return Result<std::shared_ptr<launch::Transport>>::failure(
                Diagnostic::error(p.head().host, QStringLiteral("the fake head refused")));
        });
        const auto refused = withFake.launch(request);
        QVERIFY(!refused.ok());
        QCOMPARE(asked, QStringList{QStringLiteral("far")});
        QVERIFY2(refused.errorString().contains(QStringLiteral("the fake head refused")),
                 qPrintable(refused.errorString()));
        // Operations without a factory: no SSH, said so, nothing tried.
        const auto none = m_ops.launch(request);
        QVERIFY(!none.ok());
        QVERIFY2(none.errorString().contains(QStringLiteral("no SSH transport")), qPrintable(none.errorString()));
        QCOMPARE(asked.size(), 1);
        QVERIFY(!QDir(runsDir()).exists());
    }

    void secretsInMpiArgsAreRefused()
    {
        launch::JobSpec spec = tinySpec(QStringLiteral("secret"), {});
        spec.mpiArgs = {QStringLiteral("-x"),
                        QStringLiteral("WANDB_API_KEY=abc123"),
                        QStringLiteral("-x"),
                        QStringLiteral("PGPASSWORD=hunter2"),
                        QStringLiteral("--mca"),
                        QStringLiteral("plm_rsh_args"),
                        QStringLiteral("-----BEGIN OPENSSH PRIVATE KEY----- x"),
                        QStringLiteral("-x"),
                        QStringLiteral("HF_TOKEN"),
                        QStringLiteral("-x"),
                        QStringLiteral("NCCL_IB_PKEY=0x8001"),
                        QStringLiteral("--mca"),
                        QStringLiteral("btl_tcp_if_include"),
                        QStringLiteral("lo")};
        QStringList messages;
        for (const auto& x : Operations::validate(spec, cluster::ClusterProfile::local(2), QStringLiteral("s.json")))
            messages << x.toString();
        QCOMPARE(messages.filter(QStringLiteral("mpi.args")).size(), 3);
        QVERIFY2(messages.filter(QStringLiteral("mpi.args[1]: -x WANDB_API_KEY")).size() == 1,
                 qPrintable(messages.join(QLatin1Char('\n'))));
        QVERIFY(messages.filter(QStringLiteral("mpi.args[3]: -x PGPASSWORD")).size() == 1);
        QVERIFY(messages.filter(QStringLiteral("mpi.args[6]: --mca plm_rsh_args")).size() == 1);
        QVERIFY(!messages.join(QLatin1Char(' ')).contains(QStringLiteral("hunter2")));
        // The names the old rule missed, and names that only look like it.
        for (const char* secret : {"PGPASSWORD", "MYSQL_PWD", "GITHUB_PAT", "OPENAI_KEY", "WANDB_API_KEY", "HF_TOKEN",
                                   "AWS_SECRET_ACCESS_KEY", "db_credentials", "sshPassphrase"})
            QVERIFY2(cluster::Names::looksLikeSecretKey(QLatin1String(secret)), secret);
        for (const char* harmless :
             {"TOKENIZERS_PARALLELISM", "tokens_per_s", "baseline_tokens_per_s", "NCCL_IB_PKEY", "OMPI_MCA_btl",
              "CUDA_VISIBLE_DEVICES", "path_prefix", "known_hosts", "PATH", "keygen", "tokenizer", "PATTERN"})
            QVERIFY2(!cluster::Names::looksLikeSecretKey(QLatin1String(harmless)), harmless);
    }

    void launchFailResume()
    {
        const auto launched = m_ops.launch(
            {tinySpec(QStringLiteral("ops-fail"), {{QStringLiteral("max-steps"), 5},
                                                   {QStringLiteral("checkpoint-every"), 2},
                                                   {QStringLiteral("inject-exit"), QStringLiteral("1:3")}}),
             cluster::ClusterProfile::local(2), QString(), runsDir(), QString()});
        QVERIFY2(launched.ok(), qPrintable(launched.errorString()));
        QVERIFY(!launched->remote);
        QCOMPARE(launched->localDir, launched->runDir);
        QVERIFY(launched->runDir.startsWith(runsDir()));
        const auto [failed, failedAt] = follow(launched->localDir);
        QCOMPARE(failed, JobState::Failed);
        QVERIFY(failedAt >= 2);
        // Listed with its state.
        const QList<launch::RunSummary> listed = m_ops.list(runsDir()).value();
        QCOMPARE(listed.size(), 1);
        QCOMPARE(listed.first().state, JobState::Failed);

        const auto resumed = m_ops.resume(launched->localDir);
        QVERIFY2(resumed.ok(), qPrintable(resumed.errorString()));
        QCOMPARE(resumed->runId, launched->runId);
        const auto [finished, last] = follow(resumed->localDir);
        QCOMPARE(finished, JobState::Finished);
        QCOMPARE(last, qint64(5));
        QVERIFY(QFile::exists(launched->runDir + QStringLiteral("/attempt-1/stderr.log")));
        // A finished run is not resumed again.
        QVERIFY(!m_ops.resume(launched->localDir).ok());
    }

    void launchCancel()
    {
        const auto launched =
            m_ops.launch({tinySpec(QStringLiteral("ops-cancel"), {{QStringLiteral("max-steps"), 100000}}),
                          cluster::ClusterProfile::local(2), QString(), runsDir(), QString()});
        QVERIFY2(launched.ok(), qPrintable(launched.errorString()));
        launch::LocalTransport local;
        QTRY_VERIFY_WITH_TIMEOUT(launch::readRunFiles(local, launched->runDir).pid > 0, 30000);
        const auto state = m_ops.cancel(launched->localDir, 5000);
        QVERIFY2(state.ok(), qPrintable(state.errorString()));
        QCOMPARE(state.value(), JobState::Cancelled);
        QCOMPARE(follow(launched->localDir).first, JobState::Cancelled);
    }
};

QTEST_GUILESS_MAIN(TestOperations)
#include "tst_operations.moc"
