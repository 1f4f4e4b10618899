// Node checks against runners that answer from a script (no network): the time each command may take
// (every command gets the step time-out, and the trainer's self-check, which loads LibTorch, several of
// them), and the network check's verdict on a neighbour table too small for the cluster.
#include "checks/nodecheck.h"
#include "ssh/commandrunner.h"

#include <QTest>

#include <optional>

using namespace traindeck;
using namespace traindeck::checks;

namespace {

// Answers every command with exit 0 and no output, and keeps each command's time-out.
class RecordingRunner : public ssh::CommandRunner {
  public:
    ssh::ExecResult run(const QString& command, const ssh::ExecOptions& options = {}) override
    {
        asked.append({command, options.timeoutMs});
        ssh::ExecResult r;
        r.status = ssh::ExecResult::Status::Exited;
        r.exitCode = 0;
        return r;
    }
    QString name() const override { return QStringLiteral("root@node1:22"); }

    QList<QPair<QString, int>> asked;
};

// The network check's command gets `ip` output for one interface and the given neighbour cap; every other
// command exit 0 and no output.
class NetworkRunner : public RecordingRunner {
  public:
    explicit NetworkRunner(QByteArray neighbourCap) : m_cap(std::move(neighbourCap)) {}
    ssh::ExecResult run(const QString& command, const ssh::ExecOptions& options = {}) override
    {
        ssh::ExecResult r = RecordingRunner::run(command, options);
        if (command.contains(QLatin1String("TRAINDECK_NEIGH")))
            r.stdOut = "1: lo    inet 127.0.0.1/8 scope host lo\n"
                       "2: eth0    inet 10.0.0.5/24 brd 10.0.0.255 scope global eth0\n"
                       "TRAINDECK_ADDR 10.0.0.5\n"
                       "TRAINDECK_NEIGH " +
                       m_cap + "\n";
        return r;
    }

  private:
    QByteArray m_cap;
};

cluster::ClusterProfile profileOf(int nodes)
{
    cluster::ClusterProfile profile;
    profile.name = QStringLiteral("p");
    for (int i = 1; i <= nodes; ++i) {
        cluster::ClusterNode node;
        node.name = node.host = QStringLiteral("node%1").arg(i);
        profile.nodes.append(node);
    }
    return profile;
}

} // namespace

class TestNodeCheckSteps : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void trainerSelfCheckGetsSeveralStepTimeouts()
    {
        cluster::ClusterProfile profile;
        profile.name = QStringLiteral("p");
        cluster::ClusterNode node;
        node.name = node.host = QStringLiteral("node1");
        profile.nodes = {node};
        CheckOptions options;
        options.stepTimeoutMs = 7000;
        NodeChecker checker(profile, 0, options);
        RecordingRunner runner;
        checker.run(runner, ssh::CancelToken{}, [](const CheckResult&) {});

        int selfChecks = 0;
        QVERIFY(runner.asked.size() > 3);
        for (const auto& [command, timeoutMs] : runner.asked) {
            if (command.contains(QLatin1String("self-check"))) {
                ++selfChecks;
                QCOMPARE(timeoutMs, 7000 * CheckOptions::kTrainerTimeoutSteps);
            } else {
                QVERIFY2(timeoutMs == 7000, qPrintable(command));
            }
        }
        QCOMPARE(selfChecks, 1);
        QVERIFY(CheckOptions::kTrainerTimeoutSteps > 1);
    }

    // The kernel's default cap (1,024 entries) is room for a 64-node cluster, not for 1,024 nodes: there
    // the check warns and says which limits to raise. An unreadable cap is no verdict.
    void neighbourTableAgainstClusterSize_data()
    {
        QTest::addColumn<int>("nodes");
        QTest::addColumn<QByteArray>("cap");
        QTest::addColumn<bool>("warns");
        QTest::newRow("64 nodes, default cap") << 64 << QByteArray("1024") << false;
        QTest::newRow("1024 nodes, default cap") << 1024 << QByteArray("1024") << true;
        QTest::newRow("1024 nodes, raised cap") << 1024 << QByteArray("8192") << false;
        QTest::newRow("1024 nodes, cap not readable") << 1024 << QByteArray() << false;
        QTest::newRow("the boundary, just enough")
            << 300 << QByteArray::number(NodeChecker::neighbourEntriesNeeded(300)) << false;
        QTest::newRow("the boundary, one short")
            << 300 << QByteArray::number(NodeChecker::neighbourEntriesNeeded(300) - 1) << true;
    }
    void neighbourTableAgainstClusterSize()
    {
        QFETCH(int, nodes);
        QFETCH(QByteArray, cap);
        QFETCH(bool, warns);
        const cluster::ClusterProfile profile = profileOf(nodes);
        NodeChecker checker(profile, 1, CheckOptions{});
        NetworkRunner runner(cap);
        std::optional<CheckResult> network;
        checker.run(runner, ssh::CancelToken{}, [&](const CheckResult& r) {
            if (r.id == QLatin1String("network"))
                network = r;
        });
        QVERIFY(network);
        QCOMPARE(network->status, warns ? CheckStatus::Warn : CheckStatus::Pass);
        QVERIFY2(network->summary.contains(QLatin1String("NCCL_SOCKET_IFNAME=eth0")), qPrintable(network->summary));
        if (warns) {
            QVERIFY2(network->summary.contains(QString::fromLatin1(cap)), qPrintable(network->summary));
            QVERIFY2(network->remedy.contains(QLatin1String("node2")), qPrintable(network->remedy));
            QVERIFY2(network->remedy.contains(QLatin1String("gc_thresh3")), qPrintable(network->remedy));
            QVERIFY2(network->remedy.contains(QString::number(NodeChecker::neighbourEntriesNeeded(nodes))),
                     qPrintable(network->remedy));
        } else {
            QVERIFY(network->remedy.isEmpty());
        }
    }
};

QTEST_GUILESS_MAIN(TestNodeCheckSteps)
#include "tst_nodecheck_steps.moc"
