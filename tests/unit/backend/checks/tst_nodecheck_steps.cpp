// The time each node check's command may take: every command gets the step time-out, and the trainer's
// self-check, which loads LibTorch, several of them (a runner that records what it was asked; no network).
#include "checks/nodecheck.h"
#include "ssh/commandrunner.h"

#include <QTest>

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
};

QTEST_GUILESS_MAIN(TestNodeCheckSteps)
#include "tst_nodecheck_steps.moc"
