#include "runs/operations.h"
#include "runspage.h"

#include "settings.h"

#include <QAbstractItemModelTester>
#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace traindeck;
using namespace traindeck::gui;

class TestRunsModel : public QObject {
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

    void remoteRun()
    {
        RunsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        launch::RunSummary local;
        local.runId = QStringLiteral("here-1");
        local.runDir = QStringLiteral("/runs/here-1");
        local.info.host = QStringLiteral("localhost");
        local.state = launch::JobState::Finished;
        launch::RunSummary r;
        r.runId = QStringLiteral("gpu-1");
        r.runDir = QStringLiteral("/runs/gpu-1");
        r.info.host = QStringLiteral("ops@gpu-head:2222");
        r.remote = true;
        r.head = QStringLiteral("ops@gpu-head:2222");
        r.remoteRunDir = QStringLiteral("/home/ops/traindeck/runs/gpu-1");
        r.state = launch::JobState::Running;
        r.lastSeen = QDateTime::currentDateTimeUtc();
        model.setRuns({local, r});
        QCOMPARE(model.index(0, RunsModel::HostColumn).data().toString(), QStringLiteral("localhost"));
        QCOMPARE(model.index(1, RunsModel::HostColumn).data().toString(), QStringLiteral("ops@gpu-head:2222 (remote)"));
        QCOMPARE(model.index(0, 0).data(RunsModel::RemoteRole).toBool(), false);
        QCOMPARE(model.index(1, 0).data(RunsModel::RemoteRole).toBool(), true);
        // Not asked now: the state says when it was seen.
        QVERIFY2(model.index(1, RunsModel::StateColumn).data().toString().startsWith(QStringLiteral("running (seen ")),
                 qPrintable(model.index(1, RunsModel::StateColumn).data().toString()));
        const QString tip = model.index(1, RunsModel::RunColumn).data(Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains(r.remoteRunDir) && tip.contains(r.head) && tip.contains(r.runDir), qPrintable(tip));
        // Once synced (ended), it is plain "finished".
        r.synced = true;
        r.state = launch::JobState::Finished;
        model.setRuns({local, r});
        QCOMPARE(model.index(1, RunsModel::StateColumn).data().toString(), QStringLiteral("finished"));
    }

    void remoteRecordOnThePage()
    {
        // A record on disk as RemoteRuns writes it: the page lists it with its head, and asks the head
        // (unreachable: this test registers no SSH transport) on a worker thread.
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QString dir = tmp.filePath(QStringLiteral("gpu-20250101-100000"));
        QVERIFY(QDir().mkpath(dir));
        auto write = [&](const char* name, const QByteArray& data) {
            QFile f(dir + QLatin1Char('/') + QString::fromLatin1(name));
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(data);
        };
        write("remote.json",
              R"({"version":1,"profile":"gpu","head":"ops@gpu-head.invalid:2222","head_host":"gpu-head.invalid",
            "remote_run_dir":"/home/ops/traindeck/runs/gpu-20250101-100000","created":"2025-01-01T10:00:00Z",
            "state":"running","last_seen":"2025-01-01T10:05:00Z","synced":false})");
        write(
            "run.json",
            R"({"run_id":"gpu-20250101-100000","name":"gpu","created":"2025-01-01T10:00:00Z","profile":"gpu","host":"ops@gpu-head.invalid:2222","attempts":1})");
        write("profile.json",
              R"({"version":1,"name":"gpu","nodes":[{"host":"gpu-head.invalid","port":2222,"user":"ops","slots":1}]})");
        Settings::setRunsDirOverride(tmp.path());
        RunsPage page(std::make_shared<runs::Operations>());
        QSignalSpy synced(&page, &RunsPage::remoteSynced);
        QTRY_COMPARE(page.model()->rowCount(), 1);
        const QModelIndex host = page.model()->index(0, RunsModel::HostColumn);
        QCOMPARE(host.data().toString(), QStringLiteral("ops@gpu-head.invalid:2222 (remote)"));
        QCOMPARE(host.data(RunsModel::RunDirRole).toString(), QDir::cleanPath(dir));
        QCOMPARE(launch::JobState(host.data(RunsModel::StateRole).toInt()), launch::JobState::Running);
        QTRY_COMPARE_WITH_TIMEOUT(synced.size(), 1, 10000);
        const QStringList errors = synced.first().first().toStringList();
        QCOMPARE(errors.size(), 1);
        QVERIFY2(errors.first().contains(QStringLiteral("gpu-head.invalid")), qPrintable(errors.first()));
        Settings::setRunsDirOverride(QString());
    }
};

QTEST_MAIN(TestRunsModel)
#include "tst_runsmodel.moc"
