// Node checks: parsers, the local profile through LocalRunner, three sshd "nodes" on this machine
// with one running a different (fake) traindeck-trainer version, an unreachable node, cancellation,
// and `traindeck-cli check` exit codes and JSON.
#include "sshd_fixture.h"
#include "test_paths.h"

#include "checks/clusterchecker.h"
#include "cluster/savednodememory.h"
#include "ssh/sshsession.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMutex>
#include <QProcess>
#include <QScopeGuard>
#include <QSet>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <csignal>

using namespace traindeck::checks;
using namespace traindeck::cluster;
using namespace traindeck::ssh;
using namespace traindeck::testing;

namespace {

void writeExecutable(const QString& path, const QByteArray& text)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(text);
    f.close();
    f.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner | QFile::ReadGroup | QFile::ExeGroup |
                     QFile::ReadOther | QFile::ExeOther);
}

const CheckResult* findResult(const CheckReport& report, int node, const QString& id)
{
    return report.nodes.value(node).find(id);
}

} // namespace

class TestChecks : public QObject {
    Q_OBJECT

  private:
    QTemporaryDir m_tmp;
    SshdInstance m_nodes[3] = {SshdInstance(QStringLiteral("n1")), SshdInstance(QStringLiteral("n2")),
                               SshdInstance(QStringLiteral("n3"))};
    std::unique_ptr<SshClientEnv> m_client;
    QString fakeBin() const { return m_tmp.path() + QStringLiteral("/fakebin"); }

    ClusterProfile threeNodeProfile()
    {
        ClusterProfile p;
        p.name = QStringLiteral("three");
        p.knownHosts = m_client->knownHosts();
        p.workdir = m_tmp.path() + QStringLiteral("/work");
        p.pathPrefix = {fakeBin()};
        for (int i = 0; i < 3; ++i) {
            ClusterNode n;
            n.name = QStringLiteral("n%1").arg(i + 1);
            n.host = QStringLiteral("127.0.0.1");
            n.port = m_nodes[i].port();
            n.user = QStringLiteral("root");
            n.identity = m_client->identity();
            n.role = i == 0 ? NodeRole::Head : NodeRole::Worker;
            p.nodes.append(n);
        }
        return p;
    }
    CheckOptions testOptions() const
    {
        CheckOptions o;
        o.targetTemplate.configFile = m_client->configFile();
        o.targetTemplate.globalKnownHosts = m_client->dir() + QStringLiteral("/global_known_hosts");
        o.targetTemplate.useAgent = false;
        o.targetTemplate.useDefaultIdentities = false;
        o.stepTimeoutMs = 15000;
        return o;
    }
    // traindeck-cli's environment: no agent, its data and settings in this test's folder.
    QProcessEnvironment cliEnvironment() const
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove(QStringLiteral("SSH_AUTH_SOCK"));
        env.insert(QStringLiteral("XDG_DATA_HOME"), m_tmp.path() + QStringLiteral("/xdg-data"));
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), m_tmp.path() + QStringLiteral("/xdg-config"));
        return env;
    }
    void trustAll()
    {
        QFile f(m_client->knownHosts());
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        for (const SshdInstance& n : m_nodes)
            f.write((n.knownHostsLine() + QLatin1Char('\n')).toUtf8());
    }

  private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_tmp.isValid());
        // The checks keep the nodes' memory for launches (cluster/savednodememory.h): here, not in ~/.config.
        qputenv("XDG_CONFIG_HOME", (m_tmp.path() + QStringLiteral("/xdg-config")).toUtf8());
        m_client = std::make_unique<SshClientEnv>();
        QVERIFY(m_client->ok());
        QDir().mkpath(fakeBin());
        // A fake trainer whose version a node's sshd can change (SetEnv), and an ssh wrapper that keeps the
        // head's ssh away from the real ~/.ssh (test known_hosts and key).
        writeExecutable(
            fakeBin() + QStringLiteral("/traindeck-trainer"),
            "#!/bin/sh\n"
            "case \"$1\" in\n"
            "  self-check) printf '{\"trainer\": \"%s\", \"libtorch\": \"1.13.1\", \"cuda\": {\"available\": false, "
            "\"devices\": 0}, \"nccl\": {\"compiled\": false}, \"mpi\": \"Open MPI v4.1.4\"}\\n' "
            "\"${TD_FAKE_TRAINER_VERSION:-0.1.0}\";;\n"
            "  --help) echo 'usage: traindeck-trainer self-check';;\n"
            "  *) echo \"traindeck-trainer: unknown command \\\"$1\\\"\" >&2; exit 2;;\n"
            "esac\n");
        const QString headConfig = m_tmp.path() + QStringLiteral("/head_ssh_config");
        QFile hc(headConfig);
        QVERIFY(hc.open(QIODevice::WriteOnly));
        hc.write(QStringLiteral("Host *\n  UserKnownHostsFile %1\n  GlobalKnownHostsFile /dev/null\n  IdentityFile %2\n"
                                "  IdentitiesOnly yes\n")
                     .arg(m_client->knownHosts(), m_client->identity())
                     .toUtf8());
        hc.close();
        writeExecutable(fakeBin() + QStringLiteral("/ssh"),
                        QStringLiteral("#!/bin/sh\nexec /usr/bin/ssh -F %1 \"$@\"\n").arg(headConfig).toUtf8());
        QString error;
        for (int i = 0; i < 3; ++i) {
            const QStringList extra =
                i == 2 ? QStringList{QStringLiteral("SetEnv TD_FAKE_TRAINER_VERSION=0.0.9-other")} : QStringList{};
            QVERIFY2(m_nodes[i].start(&error, extra), qPrintable(error));
            m_nodes[i].authorize(m_client->publicKeyLine());
        }
    }

    void parseNvidiaSmi()
    {
        const auto gpus =
            NodeChecker::parseNvidiaSmi(QStringLiteral("NVIDIA H200, 143771 MiB, 550.54.15\nNVIDIA H200, 143771 MiB, "
                                                       "550.54.15\n\nNVIDIA GeForce RTX 4090, 24564, 550.54.15\n"));
        QCOMPARE(gpus.size(), 3);
        QCOMPARE(gpus.at(0).name, QStringLiteral("NVIDIA H200"));
        QCOMPARE(gpus.at(0).memoryMiB, 143771.0);
        QCOMPARE(gpus.at(2).memoryMiB, 24564.0);
        QCOMPARE(gpus.at(1).driver, QStringLiteral("550.54.15"));
    }

    void suggestIfname_data()
    {
        QTest::addColumn<QString>("ip");
        QTest::addColumn<QString>("prefer");
        QTest::addColumn<QString>("expected");
        const QString out =
            QStringLiteral("1: lo    inet 127.0.0.1/8 scope host lo\\       valid_lft forever preferred_lft forever\n"
                           "2: docker0    inet 172.17.0.1/16 brd 172.17.255.255 scope global docker0\n"
                           "3: eth0@if12    inet 10.0.0.5/24 brd 10.0.0.255 scope global eth0\n"
                           "4: ib0    inet 192.168.10.5/24 brd 192.168.10.255 scope global ib0\n");
        QTest::addRow("first real") << out << QString() << QStringLiteral("eth0");
        QTest::addRow("node address") << out << QStringLiteral("192.168.10.5") << QStringLiteral("ib0");
        QTest::addRow("only lo") << QStringLiteral("1: lo    inet 127.0.0.1/8 scope host lo\n") << QString()
                                 << QString();
    }
    void suggestIfname()
    {
        QFETCH(QString, ip);
        QFETCH(QString, prefer);
        QFETCH(QString, expected);
        QCOMPARE(NodeChecker::suggestSocketIfname(ip, prefer), expected);
    }

    void wrapCommand()
    {
        ClusterProfile p;
        p.pathPrefix = {QStringLiteral("~/bin"), QStringLiteral("/opt/it's")};
        p.env.insert(QStringLiteral("A"), QStringLiteral("x y"));
        const QString w = NodeChecker::wrapCommand(p, QStringLiteral("echo \"$A\"; echo $PATH"));
        QProcess sh;
        sh.start(QStringLiteral("/bin/sh"), {QStringLiteral("-c"), w});
        QVERIFY(sh.waitForFinished());
        const QStringList lines = QString::fromUtf8(sh.readAllStandardOutput()).split(QLatin1Char('\n'));
        QCOMPARE(lines.value(0), QStringLiteral("x y"));
        QVERIFY2(lines.value(1).startsWith(QDir::homePath() + QStringLiteral("/bin:/opt/it's:")),
                 qPrintable(lines.value(1)));
    }

    void localProfile()
    {
        ClusterProfile p = ClusterProfile::local(2);
        p.workdir = m_tmp.path() + QStringLiteral("/localwork");
        p.pathPrefix = {fakeBin()};
        QFile::remove(traindeck::cluster::SavedNodeMemory::pathFor(QStringLiteral("local")));
        ClusterChecker checker(p, testOptions());
        QSignalSpy steps(&checker, &ClusterChecker::checkFinished);
        QSignalSpy progress(&checker, &ClusterChecker::progress);
        const CheckReport report = checker.runAndWait();
        QCOMPARE(report.nodes.size(), 1);
        QCOMPARE(steps.size(), checker.totalSteps());
        QCOMPARE(progress.last().at(0).toInt(), checker.totalSteps());
        const NodeReport& n = report.nodes.first();
        QCOMPARE(n.results.size(), checker.checkIds(0).size());
        QCOMPARE(n.find(QStringLiteral("connect"))->status, CheckStatus::Pass);
        QCOMPARE(n.find(QStringLiteral("os"))->status, CheckStatus::Pass);
        QCOMPARE(n.find(QStringLiteral("cpu"))->status, CheckStatus::Pass);
        QVERIFY(n.find(QStringLiteral("memory"))->summary.endsWith(QLatin1String(" GB")));
        const auto saved = traindeck::cluster::SavedNodeMemory::load(QStringLiteral("local"));
        QVERIFY2(saved.ok(), qPrintable(saved.errorString()));
        QCOMPARE(saved->nodes.size(), 1);
        QCOMPARE(saved->nodes.first().host, n.host);
        QVERIFY(saved->nodes.first().ramMiB > 100);
        QCOMPARE(saved->nodes.first().ramMiB, n.find(QStringLiteral("memory"))->memoryMiB);
        QVERIFY(n.find(QStringLiteral("disk"))->status != CheckStatus::Skip);
        QCOMPARE(n.find(QStringLiteral("trainer"))->status, CheckStatus::Pass);
        QCOMPARE(n.find(QStringLiteral("trainer"))->value, QStringLiteral("0.1.0"));
        QCOMPARE(n.find(QStringLiteral("mpi"))->status, CheckStatus::Pass);
        QVERIFY(n.find(QStringLiteral("mpi"))->value.startsWith(QLatin1String("Open MPI ")));
        QCOMPARE(n.find(QStringLiteral("clock"))->status, CheckStatus::Pass);
        QVERIFY(!n.find(QStringLiteral("head-ssh"))); // single node
        // No nvidia-smi here: a warning with a remedy, CPU training still possible; CUDA/NCCL skipped.
        if (QStandardPaths::findExecutable(QStringLiteral("nvidia-smi")).isEmpty()) {
            QCOMPARE(n.find(QStringLiteral("gpu"))->status, CheckStatus::Warn);
            QVERIFY(n.find(QStringLiteral("gpu"))->remedy.contains(QLatin1String("CPU")));
            QCOMPARE(n.find(QStringLiteral("cuda"))->status, CheckStatus::Skip);
        }
        for (const CheckResult& r : n.results) {
            QVERIFY2(!r.title.isEmpty() && !r.summary.isEmpty(), qPrintable(r.id));
            if (r.status == CheckStatus::Fail || r.status == CheckStatus::Warn)
                QVERIFY2(!r.remedy.isEmpty(), qPrintable(r.id));
        }
        QVERIFY(report.matrix.isEmpty());
        // Memory below 64 GB on this machine is a warning, never a failure.
        QVERIFY2(!report.hasFailures(), QJsonDocument(report.toJson()).toJson().constData());
    }

    // A GPU node (a fake nvidia-smi) whose trainer's LibTorch sees no CUDA device: the CUDA check warns
    // and says how to build a trainer that can use the GPUs (cluster::GpuTrainer).
    void gpuNodeWithCpuTrainer()
    {
        const QString gpuBin = m_tmp.path() + QStringLiteral("/gpubin");
        QDir().mkpath(gpuBin);
        writeExecutable(gpuBin + QStringLiteral("/nvidia-smi"),
                        "#!/bin/sh\n"
                        "case \"$*\" in\n"
                        "  *--query-gpu*) echo 'NVIDIA H200, 143771 MiB, 550.54.15';;\n"
                        "  *) echo '| NVIDIA-SMI 550.54.15    Driver Version: 550.54.15    CUDA Version: 12.4 |';;\n"
                        "esac\n");
        ClusterProfile p = ClusterProfile::local(1);
        p.workdir = m_tmp.path() + QStringLiteral("/localwork");
        p.pathPrefix = {gpuBin, fakeBin()};
        p.nodes[0].gpus = 1; // trains on its one GPU
        ClusterChecker checker(p, testOptions());
        const CheckReport report = checker.runAndWait();
        const NodeReport& n = report.nodes.first();
        QCOMPARE(n.find(QStringLiteral("gpu"))->status, CheckStatus::Pass);
        const CheckResult* cuda = n.find(QStringLiteral("cuda"));
        QVERIFY(cuda);
        QCOMPARE(cuda->status, CheckStatus::Warn);
        QVERIFY2(cuda->summary.contains(QLatin1String("trainer: CUDA not available")), qPrintable(cuda->summary));
        QVERIFY2(cuda->remedy.startsWith(QLatin1String("The trainer on this node cannot use CUDA")),
                 qPrintable(cuda->remedy));
        QVERIFY(cuda->remedy.contains(QLatin1String("scripts/build-trainer.sh")));
        QVERIFY(cuda->remedy.contains(QLatin1String("docs/reference/trainer.md#gpu-nodes")));
    }

    void threeNodesMatrix()
    {
        trustAll();
        ClusterChecker checker(threeNodeProfile(), testOptions());
        QElapsedTimer t;
        t.start();
        const CheckReport report = checker.runAndWait();
        qInfo("three nodes checked in %lld ms", t.elapsed());
        QCOMPARE(report.nodes.size(), 3);
        for (int i = 0; i < 3; ++i) {
            QCOMPARE(findResult(report, i, QStringLiteral("connect"))->status, CheckStatus::Pass);
            QVERIFY(findResult(report, i, QStringLiteral("connect"))->summary.contains(QLatin1String("publickey")));
        }
        QCOMPARE(findResult(report, 0, QStringLiteral("trainer"))->status, CheckStatus::Pass);
        QCOMPARE(findResult(report, 1, QStringLiteral("trainer"))->status, CheckStatus::Pass);
        const CheckResult* odd = findResult(report, 2, QStringLiteral("trainer"));
        QCOMPARE(odd->value, QStringLiteral("0.0.9-other"));
        QCOMPARE(odd->status, CheckStatus::Fail);
        QVERIFY(odd->summary.contains(QLatin1String("0.1.0")));
        QVERIFY(!odd->remedy.isEmpty());
        const auto row = std::find_if(report.matrix.cbegin(), report.matrix.cend(),
                                      [](const MatrixRow& m) { return m.id == QLatin1String("trainer"); });
        QVERIFY(row != report.matrix.cend());
        QVERIFY(row->differs);
        QCOMPARE(row->values,
                 (QStringList{QStringLiteral("0.1.0"), QStringLiteral("0.1.0"), QStringLiteral("0.0.9-other")}));
        QCOMPARE(row->severity, CheckStatus::Fail);
        const auto mpi = std::find_if(report.matrix.cbegin(), report.matrix.cend(),
                                      [](const MatrixRow& m) { return m.id == QLatin1String("mpi"); });
        QVERIFY(mpi != report.matrix.cend() && !mpi->differs);
        // Head → workers through the (wrapped) system ssh client.
        const CheckResult* headSsh = findResult(report, 0, QStringLiteral("head-ssh"));
        QVERIFY(headSsh);
        QVERIFY2(headSsh->status == CheckStatus::Pass,
                 qPrintable(headSsh->summary + QLatin1Char('\n') + headSsh->evidence));
        QVERIFY(!findResult(report, 1, QStringLiteral("head-ssh")));
        QVERIFY(report.hasFailures());
        // JSON: per node, per check.
        const QJsonObject j = report.toJson();
        QCOMPARE(j.value(QStringLiteral("ok")).toBool(), false);
        const QJsonArray nodes = j.value(QStringLiteral("nodes")).toArray();
        QCOMPARE(nodes.size(), 3);
        // No two nodes agree: the head ran head-ssh, node 3's trainer differs.
        QCOMPARE(j.value(QStringLiteral("groups")).toArray().size(), 3);
        QCOMPARE(nodes.at(2).toObject().value(QStringLiteral("status")).toString(), QStringLiteral("fail"));
        bool sawTrainer = false;
        for (const QJsonValue& c : nodes.at(2).toObject().value(QStringLiteral("checks")).toArray()) {
            const QJsonObject o = c.toObject();
            if (o.value(QStringLiteral("id")).toString() == QLatin1String("trainer")) {
                sawTrainer = true;
                QCOMPARE(o.value(QStringLiteral("status")).toString(), QStringLiteral("fail"));
                QVERIFY(!o.value(QStringLiteral("remedy")).toString().isEmpty());
                QVERIFY(o.contains(QStringLiteral("evidence")));
            }
        }
        QVERIFY(sawTrainer);
    }

    void headSshFailsWithoutKeys()
    {
        trustAll();
        ClusterProfile p = threeNodeProfile();
        p.pathPrefix.clear(); // the real ssh: no key of the head's root is authorized on the workers
        p.env.insert(QStringLiteral("PATH"),
                     QStringLiteral("%1/nokeys:/usr/local/bin:/usr/bin:/bin").arg(m_tmp.path()));
        QDir().mkpath(m_tmp.path() + QStringLiteral("/nokeys"));
        writeExecutable(m_tmp.path() + QStringLiteral("/nokeys/ssh"),
                        QStringLiteral("#!/bin/sh\nexec /usr/bin/ssh -F /dev/null -o UserKnownHostsFile=%1 "
                                       "-o IdentityFile=/nonexistent -o IdentitiesOnly=yes \"$@\"\n")
                            .arg(m_client->knownHosts())
                            .toUtf8());
        p.nodes.removeLast();
        ClusterChecker checker(p, testOptions());
        const CheckReport report = checker.runAndWait();
        const CheckResult* headSsh = findResult(report, 0, QStringLiteral("head-ssh"));
        QVERIFY(headSsh);
        QCOMPARE(headSsh->status, CheckStatus::Fail);
        QVERIFY2(headSsh->remedy.contains(QLatin1String("ssh-copy-id")),
                 qPrintable(headSsh->remedy + headSsh->evidence));
    }

    void unreachableNode()
    {
        trustAll();
        ClusterProfile p = threeNodeProfile();
        p.nodes[1].port = freePort(); // nothing listens
        CheckOptions o = testOptions();
        o.connectTimeoutMs = 2000;
        ClusterChecker checker(p, o);
        const CheckReport report = checker.runAndWait();
        const CheckResult* c = findResult(report, 1, QStringLiteral("connect"));
        QCOMPARE(c->status, CheckStatus::Fail);
        QVERIFY(!c->remedy.isEmpty());
        QCOMPARE(findResult(report, 1, QStringLiteral("os"))->status, CheckStatus::Skip);
        QCOMPARE(findResult(report, 1, QStringLiteral("os"))->title, NodeChecker::titleFor(QStringLiteral("os")));
        QCOMPARE(findResult(report, 0, QStringLiteral("os"))->status, CheckStatus::Pass); // others continue
        QCOMPARE(findResult(report, 0, QStringLiteral("head-ssh"))->status, CheckStatus::Fail);
    }

    void unknownHostKeyAsked()
    {
        QFile::remove(m_client->knownHosts());
        ClusterProfile p = threeNodeProfile();
        p.nodes = {p.nodes.first()};
        ClusterChecker checker(p, testOptions());
        QStringList asked;
        connect(checker.prompts(), &PromptBroker::hostKeyQuestion, this, [&](quint64 id, const HostKeyInfo& info) {
            asked << info.fingerprint;
            checker.prompts()->answerHostKey(id, HostKeyDecision::Reject);
        });
        CheckReport report = checker.runAndWait();
        QCOMPARE(asked, QStringList{m_nodes[0].hostKeyFingerprint()});
        QCOMPARE(findResult(report, 0, QStringLiteral("connect"))->status, CheckStatus::Fail);
        QVERIFY(
            findResult(report, 0, QStringLiteral("connect"))->remedy.contains(QLatin1String("--accept-new-host-keys")));
        checker.prompts()->setAcceptNewHostKeys(true);
        report = checker.runAndWait();
        QCOMPARE(findResult(report, 0, QStringLiteral("connect"))->status, CheckStatus::Pass);
    }

    void cancel()
    {
        trustAll();
        ClusterProfile p = threeNodeProfile();
        p.pathPrefix.prepend(m_tmp.path() + QStringLiteral("/slow"));
        QDir().mkpath(m_tmp.path() + QStringLiteral("/slow"));
        writeExecutable(m_tmp.path() + QStringLiteral("/slow/nproc"), "#!/bin/sh\nsleep 30\n");
        ClusterChecker checker(p, testOptions());
        QSignalSpy finished(&checker, &ClusterChecker::finished);
        QElapsedTimer t;
        t.start();
        checker.start();
        QTest::qWait(1500);
        checker.cancel();
        QVERIFY(finished.wait(10000));
        QVERIFY2(t.elapsed() < 8000, qPrintable(QString::number(t.elapsed())));
        const CheckReport report = finished.at(0).at(0).value<CheckReport>();
        QVERIFY(report.cancelled);
        QVERIFY(report.hasFailures());
        QCOMPARE(findResult(report, 0, QStringLiteral("clock"))->status, CheckStatus::Skip);
    }

    // A large profile is checked by at most maxParallelNodes workers (threads and SSH sessions), and a
    // cancel still ends with every node reported.
    void boundedWorkers()
    {
        trustAll();
        CheckOptions o = testOptions();
        o.maxParallelNodes = 2;
        ClusterChecker checker(threeNodeProfile(), o);
        QMutex mutex;
        QSet<QThread*> workers;
        connect(
            &checker, &ClusterChecker::nodeStarted, this,
            [&](int) {
                QMutexLocker lock(&mutex);
                workers.insert(QThread::currentThread());
            },
            Qt::DirectConnection);
        const CheckReport report = checker.runAndWait();
        QVERIFY2(workers.size() <= 2, qPrintable(QString::number(workers.size())));
        QCOMPARE(report.nodes.size(), 3);
        for (int i = 0; i < 3; ++i)
            QCOMPARE(findResult(report, i, QStringLiteral("connect"))->status, CheckStatus::Pass);

        ClusterProfile slow = threeNodeProfile();
        slow.pathPrefix.prepend(m_tmp.path() + QStringLiteral("/slow"));
        QDir().mkpath(m_tmp.path() + QStringLiteral("/slow"));
        writeExecutable(m_tmp.path() + QStringLiteral("/slow/nproc"), "#!/bin/sh\nsleep 30\n");
        o.maxParallelNodes = 1;
        ClusterChecker one(slow, o);
        QSignalSpy finished(&one, &ClusterChecker::finished);
        one.start();
        QTest::qWait(1500);
        one.cancel();
        QVERIFY(finished.wait(10000));
        const CheckReport cancelled = finished.at(0).at(0).value<CheckReport>();
        QVERIFY(cancelled.cancelled);
        QCOMPARE(cancelled.nodes.size(), 3);
        QCOMPARE(findResult(cancelled, 2, QStringLiteral("connect"))->status, CheckStatus::Skip); // never started
    }

    // The remedy the trainer check offers: copy this machine's trainer to the nodes, checked there.
    void deployTrainer()
    {
        trustAll();
        const QString profileFile = m_tmp.path() + QStringLiteral("/deploy.json");
        {
            ClusterProfile p = threeNodeProfile();
            QVERIFY2(p.save(profileFile).ok(), "save");
        }
        auto deploy = [&](const QStringList& args, QByteArray* out = nullptr, QByteArray* errOut = nullptr) {
            QProcess proc;
            QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
            env.remove(QStringLiteral("SSH_AUTH_SOCK"));
            proc.setProcessEnvironment(env);
            proc.start(QString::fromUtf8(TRAINDECK_CLI), QStringList{QStringLiteral("deploy")} + args);
            proc.closeWriteChannel();
            if (!proc.waitForFinished(90000))
                return -1;
            if (out)
                *out = proc.readAllStandardOutput();
            if (errOut)
                *errOut = proc.readAllStandardError();
            return proc.exitCode();
        };
        const QString local = fakeBin() + QStringLiteral("/traindeck-trainer");
        // The test nodes log in as root on this machine: deploy into the test's own directory.
        const QString dest = m_tmp.path() + QStringLiteral("/deployed/bin/traindeck-trainer");
        QCOMPARE(deploy({}), 2);
        QCOMPARE(deploy({QStringLiteral("--profile"), profileFile, QStringLiteral("--trainer"),
                         m_tmp.path() + QStringLiteral("/nope")}),
                 2);
        QCOMPARE(
            deploy({QStringLiteral("--profile"), profileFile, QStringLiteral("--node"), QStringLiteral("nosuchnode")}),
            2);
        QByteArray out, errOut;
        const int code =
            deploy({QStringLiteral("--profile"), profileFile, QStringLiteral("--trainer"), local,
                    QStringLiteral("--dest"), dest, QStringLiteral("--node"), threeNodeProfile().nodes.at(1).name},
                   &out, &errOut);
        QVERIFY2(code == 0 && out.contains("deployed"), errOut.constData());
        QVERIFY2(!out.contains("build-trainer.sh"), out.constData()); // a CPU node: nothing to say
        const QString copy = dest;
        QFile a(local), b(copy);
        QVERIFY(a.open(QIODevice::ReadOnly) && b.open(QIODevice::ReadOnly));
        QCOMPARE(b.readAll(), a.readAll());
        QVERIFY(QFileInfo(copy).permissions() & QFileDevice::ExeOwner);
        QFile::remove(copy);

        // A trainer without CUDA on a node whose driver lists a GPU: deployed all the same (it trains on
        // the CPU), with how to build one that uses the GPU.
        const QString cpuOnly = m_tmp.path() + QStringLiteral("/cpu-only-trainer");
        writeExecutable(cpuOnly,
                        "#!/bin/sh\n"
                        "printf '{\"trainer\": \"0.1.0\", \"libtorch\": \"1.13.0\", \"cuda\": {\"available\": false, "
                        "\"devices\": 0}, \"gpus\": [{\"index\": 0, \"name\": \"NVIDIA H200\"}]}\\n'\n");
        out.clear();
        errOut.clear();
        const int gpuCode =
            deploy({QStringLiteral("--profile"), profileFile, QStringLiteral("--trainer"), cpuOnly,
                    QStringLiteral("--dest"), dest, QStringLiteral("--node"), threeNodeProfile().nodes.at(1).name},
                   &out, &errOut);
        QVERIFY2(gpuCode == 0 && out.contains("deployed"), errOut.constData());
        QVERIFY2(out.contains("n2: This traindeck-trainer cannot use the node's 1 GPU(s)"), out.constData());
        QVERIFY2(out.contains("scripts/build-trainer.sh"), out.constData());
        QFile::remove(copy);
    }

    void cli()
    {
        trustAll();
        const QString profileFile = m_tmp.path() + QStringLiteral("/three.json");
        {
            ClusterProfile p = threeNodeProfile();
            QVERIFY2(p.save(profileFile).ok(), "save");
        }
        auto run = [&](const QStringList& args, QByteArray* out = nullptr) {
            QProcess proc;
            proc.setProcessEnvironment(cliEnvironment());
            proc.start(QString::fromUtf8(TRAINDECK_CLI), QStringList{QStringLiteral("check")} + args);
            proc.closeWriteChannel();
            if (!proc.waitForFinished(90000))
                return -1;
            if (out)
                *out = proc.readAllStandardOutput();
            return proc.exitCode();
        };
        QCOMPARE(run({}), 2);
        QCOMPARE(run({QStringLiteral("--profile"), m_tmp.path() + QStringLiteral("/missing.json")}), 2);
        QCOMPARE(run({QStringLiteral("--profile"), QStringLiteral("local"), QStringLiteral("--timeout"),
                      QStringLiteral("-1")}),
                 2);
        QByteArray out;
        QCOMPARE(run({QStringLiteral("--profile"), profileFile, QStringLiteral("--json")}, &out), 1);
        QJsonObject j = QJsonDocument::fromJson(out).object();
        QCOMPARE(j.value(QStringLiteral("nodes")).toArray().size(), 3);
        const QJsonArray matrix = j.value(QStringLiteral("matrix")).toArray();
        bool trainerDiffers = false;
        for (const QJsonValue& m : matrix)
            trainerDiffers =
                trainerDiffers || (m.toObject().value(QStringLiteral("id")).toString() == QLatin1String("trainer") &&
                                   m.toObject().value(QStringLiteral("differs")).toBool());
        QVERIFY(trainerDiffers);
        // Human output names the failing node and the remedy.
        QCOMPARE(run({QStringLiteral("--profile"), profileFile}, &out), 1);
        QVERIFY(out.contains("[FAIL]"));
        QVERIFY(out.contains("0.0.9-other"));

        // Unknown host keys without a terminal: refused unless --accept-new-host-keys.
        QFile::remove(m_client->knownHosts());
        ClusterProfile two = threeNodeProfile();
        two.nodes.removeLast();
        const QString twoFile = m_tmp.path() + QStringLiteral("/two.json");
        QVERIFY(two.save(twoFile).ok());
        QCOMPARE(run({QStringLiteral("--profile"), twoFile, QStringLiteral("--json")}, &out), 1);
        j = QJsonDocument::fromJson(out).object();
        QCOMPARE(j.value(QStringLiteral("nodes"))
                     .toArray()
                     .at(0)
                     .toObject()
                     .value(QStringLiteral("checks"))
                     .toArray()
                     .at(0)
                     .toObject()
                     .value(QStringLiteral("status"))
                     .toString(),
                 QStringLiteral("fail"));
        QCOMPARE(run({QStringLiteral("--profile"), twoFile, QStringLiteral("--json"),
                      QStringLiteral("--accept-new-host-keys")},
                     &out),
                 0);
        QVERIFY2(QJsonDocument::fromJson(out).object().value(QStringLiteral("ok")).toBool(), out.constData());
    }

    // SIGTERM (or Ctrl-C) during the link test cancels it, and the cancel ends the mpirun it started on the
    // head: a killed command left the ranks running on the cluster. A fake mpirun on the head (first on
    // path_prefix) writes its pid and waits. With --links the node checks' own watcher comes first and
    // must be gone, or the link test's would not get the signal.
    void cliInterruptEndsTheLinkTest_data()
    {
        QTest::addColumn<QString>("mode");
        QTest::newRow("links only") << QStringLiteral("--links-only");
        QTest::newRow("links after the node checks") << QStringLiteral("--links");
    }
    void cliInterruptEndsTheLinkTest()
    {
        QFETCH(QString, mode);
        trustAll();
        const QString linkBin = m_tmp.path() + QStringLiteral("/linkbin");
        QVERIFY(QDir().mkpath(linkBin));
        const QString pidFile = m_tmp.path() + QStringLiteral("/mpirun.pid");
        QFile::remove(pidFile);
        writeExecutable(linkBin + QStringLiteral("/mpirun"),
                        QStringLiteral("#!/bin/sh\n"
                                       "[ \"$1\" = --version ] && { echo 'mpirun (Open MPI) 4.1.4'; exit 0; }\n"
                                       "echo $$ > %1.tmp && mv %1.tmp %1\nexec sleep 600\n")
                            .arg(pidFile)
                            .toUtf8());
        ClusterProfile p = threeNodeProfile();
        p.nodes.removeLast();
        p.pathPrefix.prepend(linkBin);
        const QString file = m_tmp.path() + QStringLiteral("/links.json");
        QVERIFY(p.save(file).ok());
        QProcess proc;
        proc.setProcessEnvironment(cliEnvironment());
        proc.start(QString::fromUtf8(TRAINDECK_CLI),
                   {QStringLiteral("check"), QStringLiteral("--profile"), file, mode});
        proc.closeWriteChannel();
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(pidFile), 90000);
        QFile f(pidFile);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const pid_t mpirun = pid_t(f.readAll().trimmed().toLongLong());
        QVERIFY(mpirun > 0);
        const auto reap = qScopeGuard([mpirun] { ::kill(mpirun, SIGKILL); }); // also when a check below fails
        QCOMPARE(::kill(mpirun, 0), 0);
        ::kill(pid_t(proc.processId()), SIGTERM);
        QVERIFY(proc.waitForFinished(30000));
        const QByteArray stderrText = proc.readAllStandardError();
        QVERIFY2(proc.exitStatus() == QProcess::NormalExit, stderrText.constData());
        QVERIFY2(proc.exitCode() == 128 + SIGTERM, stderrText.constData());
        QVERIFY2(stderrText.contains("the link test was cancelled"), stderrText.constData());
        // The head's sshd delivered the cancel's SIGTERM to the fake mpirun (same machine here).
        QTRY_VERIFY_WITH_TIMEOUT(::kill(mpirun, 0) != 0, 15000);
    }
};

QTEST_GUILESS_MAIN(TestChecks)
#include "tst_checks.moc"
