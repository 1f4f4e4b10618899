// The Monitor's Logs tab: a failed 4-rank run directory (the protocol example's hello, hosts node1 and
// node2; the tagged stderr.log fixture in which rank 3 warns before rank 2 fails) followed through a
// RunSession like the app does. Every line is labelled host:rank, identical lines collapse, the
// banner names the failed rank's first error and selects it, the filters narrow the table, and the
// model passes QAbstractItemModelTester throughout.
#include "logspanel.h"
#include "monitorpage.h"
#include "runs/operations.h"
#include "runsession.h"
#include "test_paths.h"

#include "launch/ranklogmodel.h"
#include "launch/transport.h"

#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFont>
#include <QLabel>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace traindeck;
using namespace traindeck::gui;
using launch::RankLogModel;

class TestLogsPanel : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_tmp.isValid());
        m_run = m_tmp.filePath(QStringLiteral("tagged-20240610-091300"));
        QVERIFY(QDir().mkpath(m_run));
        QFile in(QString::fromUtf8(TRAINDECK_SOURCE_DIR) +
                 QStringLiteral("/tests/fixtures/metrics/example-4ranks.jsonl"));
        QVERIFY(in.open(QIODevice::ReadOnly));
        QList<QByteArray> lines = in.readAll().split('\n');
        lines.removeAll(QByteArray());
        lines.removeLast(); // done
        QVERIFY(QFile::copy((QString::fromUtf8(TRAINDECK_SOURCE_DIR) +
                             QStringLiteral("/tests/fixtures/launch/mpirun-tagged-4ranks.stderr.log")),
                            m_run + QStringLiteral("/stderr.log")));
        write("metrics.jsonl", lines.join('\n') + '\n');
        write("exit-code", "3\n");
        write("run.json", R"({"run_id":"tagged-20240610-091300","name":"x","created":"2024-06-10T09:13:00Z"})");
    }

    void failedRunFirstErrorFirst()
    {
        RunSession session(std::make_shared<runs::Operations>());
        MonitorPage page(&session);
        LogsPanel* panel = page.logsPanel();
        QVERIFY(panel);
        page.setCurrentTab(MonitorPage::LogsTab);
        QCOMPARE(page.currentTabWidget(), panel);
        page.resize(1200, 700);
        page.show();
        RankLogModel* m = panel->model();
        QAbstractItemModelTester tester(m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester viewTester(panel->view()->model(),
                                            QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy ended(&session, &RunSession::jobEnded);
        session.followRun(m_run, std::make_shared<launch::LocalTransport>());
        QTRY_COMPARE_WITH_TIMEOUT(ended.size(), 1, 15000);
        QCOMPARE(session.jobState(), launch::JobState::Failed);
        QCOMPARE(session.failureInfo().rank, 2);

        // 23 lines: the banner of mpirun's, 4 identical token-cache lines in one row.
        QCOMPARE(m->log().lineCount(), qint64(23));
        QCOMPARE(m->rowCount(), 20);
        QCOMPARE(m->data(m->index(1, RankLogModel::SourceColumn)).toString(), QStringLiteral("ranks 0\u20133"));
        QCOMPARE(m->data(m->index(0, RankLogModel::SourceColumn)).toString(), QStringLiteral("node1:0"));
        QCOMPARE(m->data(m->index(19, RankLogModel::SourceColumn)).toString(), QStringLiteral("mpirun"));

        // The banner names the failed rank's first error, and the table has it selected.
        QTRY_VERIFY(panel->firstErrorLabel()->isVisible());
        const QString banner = panel->firstErrorLabel()->text();
        QVERIFY2(banner.contains(QStringLiteral("rank 2 on node2 exited with code 3")), qPrintable(banner));
        QVERIFY2(banner.contains(QStringLiteral("node2:2: traindeck-trainer: rank 2 on node2: injected exit")),
                 qPrintable(banner));
        const int first = m->firstErrorRow();
        QCOMPARE(first, 7);
        QCOMPARE(panel->view()->currentIndex().row(), first);
        QCOMPARE(
            panel->view()->model()->data(panel->view()->model()->index(first, 1), Qt::FontRole).value<QFont>().bold(),
            true);
        QVERIFY(panel->view()->model()->data(panel->view()->model()->index(first, 1), Qt::ForegroundRole).isValid());
        QVERIFY(!panel->view()->model()->data(panel->view()->model()->index(0, 1), Qt::ForegroundRole).isValid());

        // Filters: the combo boxes list the ranks with their hosts, and the hosts.
        QComboBox* rank = panel->rankFilter();
        QComboBox* host = panel->hostFilter();
        QCOMPARE(rank->count(), 5); // all + 4 ranks
        QCOMPARE(rank->itemText(3), QStringLiteral("node2:2"));
        QCOMPARE(host->count(), 3); // all + node1, node2
        rank->setCurrentIndex(3);
        QCOMPARE(m->rowCount(), 2); // token cache (all ranks) and its error
        rank->setCurrentIndex(0);
        host->setCurrentIndex(host->findData(QStringLiteral("node1")));
        panel->errorsOnly()->setChecked(true);
        QCOMPARE(m->rowCount(), 1);
        QVERIFY(m->data(m->index(0, RankLogModel::TextColumn))
                    .toString()
                    .startsWith(QStringLiteral("traindeck-trainer: rank 0")));
        QCOMPARE(m->firstErrorRow(), -1);
        // "Show in log" clears the filters that hide the first error.
        panel->showFirstError();
        QCOMPARE(m->rowCount(), 20);
        QCOMPARE(panel->view()->currentIndex().row(), 7);

        // Another run: the tab starts empty.
        session.close();
        session.followRun(m_tmp.filePath(QStringLiteral("nothing-yet")), std::make_shared<launch::LocalTransport>());
        QCOMPARE(m->rowCount(), 0);
        QVERIFY(!panel->firstErrorLabel()->isVisible());
        session.close();
    }

    // The same run opened offline (its metrics.jsonl): the logs beside it show, grouped as when followed.
    void offlineRunShowsItsLogs()
    {
        RunSession session(std::make_shared<runs::Operations>());
        MonitorPage page(&session);
        LogsPanel* panel = page.logsPanel();
        page.setCurrentTab(MonitorPage::LogsTab);
        RankLogModel* m = panel->model();
        QAbstractItemModelTester tester(m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy loaded(&session, &RunSession::loaded);
        session.openOffline(m_run + QStringLiteral("/metrics.jsonl"));
        QTRY_COMPARE_WITH_TIMEOUT(loaded.size(), 1, 15000);
        QCOMPARE(m->log().lineCount(), qint64(23));
        QCOMPARE(m->rowCount(), 20);
        QCOMPARE(m->data(m->index(0, RankLogModel::SourceColumn)).toString(), QStringLiteral("node1:0"));
        QCOMPARE(m->data(m->index(1, RankLogModel::SourceColumn)).toString(), QStringLiteral("ranks 0\u20133"));
        QCOMPARE(panel->rankFilter()->count(), 5);

        // A file without logs beside it: the tab is empty, not the last run's.
        QTemporaryDir other;
        QVERIFY(QFile::copy(m_run + QStringLiteral("/metrics.jsonl"), other.filePath(QStringLiteral("metrics.jsonl"))));
        session.openOffline(other.filePath(QStringLiteral("metrics.jsonl")));
        QTRY_COMPARE_WITH_TIMEOUT(loaded.size(), 2, 15000);
        QCOMPARE(m->rowCount(), 0);
    }

  private:
    void write(const char* name, const QByteArray& data)
    {
        QFile f(m_run + QLatin1Char('/') + QString::fromLatin1(name));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(data);
    }
    QTemporaryDir m_tmp;
    QString m_run;
};

QTEST_MAIN(TestLogsPanel)
#include "tst_logspanel.moc"
