#include "runspage.h"

#include <QAbstractItemModelTester>
#include <QTest>

using namespace traindeck;
using namespace traindeck::gui;

class TestRunsModel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void model()
    {
        RunsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        launch::RunSummary a;
        a.runId = QStringLiteral("demo-1");
        a.runDir = QStringLiteral("/runs/demo-1");
        a.state = launch::JobState::Failed;
        a.exitCode = 3;
        a.lastStep = 42;
        a.hasLoss = true;
        a.lastLoss = 2.5;
        launch::RunSummary b = a;
        b.runId = QStringLiteral("demo-2");
        b.runDir = QStringLiteral("/runs/demo-2");
        b.state = launch::JobState::Running;
        model.setRuns({a, b});
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.index(0, RunsModel::StateColumn).data().toString(), QStringLiteral("failed (exit 3)"));
        QCOMPARE(model.index(1, RunsModel::StateColumn).data().toString(), QStringLiteral("running"));
        QCOMPARE(model.index(0, RunsModel::StepColumn).data().toLongLong(), 42);
        QCOMPARE(model.index(1, 0).data(RunsModel::RunDirRole).toString(), b.runDir);
        QCOMPARE(model.rowOfRunDir(b.runDir), 1);
        // Same runs again: updated in place; a new run: reset.
        b.state = launch::JobState::Finished;
        model.setRuns({a, b});
        QCOMPARE(model.index(1, RunsModel::StateColumn).data().toString(), QStringLiteral("finished"));
        model.setRuns({b});
        QCOMPARE(model.rowCount(), 1);
        model.setRuns({});
        QCOMPARE(model.rowCount(), 0);
    }
};

QTEST_MAIN(TestRunsModel)
#include "tst_runsmodel.moc"
