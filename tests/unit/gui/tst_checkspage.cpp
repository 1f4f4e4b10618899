#include "checksmodel.h"
#include "checkspage.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QCheckBox>
#include <QLabel>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTableWidget>
#include <QTest>
#include <QTimer>

using namespace traindeck;
using namespace traindeck::gui;
using checks::CheckStatus;

static checks::CheckResult result(const QString& id, CheckStatus s, const QString& value = QString())
{
    checks::CheckResult r;
    r.id = id;
    r.title = id;
    r.status = s;
    r.summary = id + QStringLiteral(" summary");
    r.evidence = QStringLiteral("evidence of ") + id;
    r.remedy = s == CheckStatus::Pass ? QString() : QStringLiteral("remedy for ") + id;
    r.value = value;
    return r;
}

class TestChecksPage : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void linkMatrix()
    {
        // A finished link test: the matrix (both triangles), the slow node's links highlighted, the
        // verdict and the method in the summary; a profile with other nodes clears it.
        checks::LinkReport r;
        r.profile = QStringLiteral("lab");
        r.nodes = {QStringLiteral("n1"), QStringLiteral("n2"), QStringLiteral("n3")};
        r.bytes = 1 << 20;
        r.allPairs = true;
        r.medianBandwidthMbps = 15000;
        r.rounds = {{1, 1, 0.4}, {2, 1, 0.4}, {3, 1, 0.4}};
        r.pairs = {{0, 1, 1, QStringLiteral("n1"), QStringLiteral("n2"), 14, 103.4, true},
                   {0, 2, 2, QStringLiteral("n1"), QStringLiteral("n3"), 12, 15000, false},
                   {1, 2, 3, QStringLiteral("n2"), QStringLiteral("n3"), 13, 101, true}};
        checks::LinkVerdict slow;
        slow.kind = checks::LinkVerdict::Kind::SlowNode;
        slow.node = 1;
        slow.slowWith = {0, 2};
        r.verdicts = {slow};
        r.verdicts[0].reason = checks::LinkTest::reason(r, slow);
        cluster::ClusterProfile lab;
        lab.name = QStringLiteral("lab");
        for (const QString& name : r.nodes) {
            cluster::ClusterNode n;
            n.name = n.host = name;
            lab.nodes.append(n);
        }
        ChecksPage page;
        page.setProfile(lab);
        page.showLinks(r);
        QTableWidget* m = page.linksView();
        QCOMPARE(m->rowCount(), 3);
        QCOMPARE(m->columnCount(), 3);
        QCOMPARE(m->item(0, 1)->text(), QStringLiteral("103.4 Mbit/s\n14 µs"));
        QCOMPARE(m->item(1, 0)->text(), m->item(0, 1)->text());
        QCOMPARE(m->item(2, 0)->text(), QStringLiteral("15.00 Gbit/s\n12 µs"));
        QCOMPARE(m->item(1, 1)->text(), QStringLiteral("—"));
        QVERIFY(m->item(0, 1)->background().color() != m->item(0, 2)->background().color());
        QVERIFY2(page.linksSummary()->text().contains(QStringLiteral("⚠ slow node: n2 was slow with every partner")),
                 qPrintable(page.linksSummary()->text()));
        QVERIFY(page.linksSummary()->text().contains(QStringLiteral("1024 KiB")));
        QVERIFY2(page.linksSummary()->text().contains(QStringLiteral("3 pair(s) in 3 round(s)")),
                 qPrintable(page.linksSummary()->text()));

        Diagnostic why =
            Diagnostic::error(QStringLiteral("lab"), QStringLiteral("mpirun on root@n1 could not run the link test"));
        why.detail = QStringLiteral("ORTE was unable to reliably start one or more daemons.");
        page.showLinks(Result<checks::LinkReport>::failure(why));
        QCOMPARE(m->rowCount(), 0);
        QVERIFY2(page.linksSummary()->text().contains(why.message), qPrintable(page.linksSummary()->text()));
        QVERIFY(page.linksSummary()->text().contains(why.detail)); // the evidence

        // Kept or not for the diagnosis: a warning under the matrix.
        page.showLinks(Result<checks::LinkReport>(
            r, {Diagnostic::warning(QStringLiteral("lab"), QStringLiteral("not kept for the diagnosis: disk full"))}));
        QCOMPARE(m->rowCount(), 3);
        QVERIFY2(page.linksSummary()->text().contains(QStringLiteral("⚠ not kept for the diagnosis: disk full")),
                 qPrintable(page.linksSummary()->text()));

        page.showLinks(r);
        page.setProfile(cluster::ClusterProfile::local(2));
        QCOMPARE(m->rowCount(), 0);
        QVERIFY(page.linksSummary()->text().startsWith(QStringLiteral("Not tested yet")));
    }

    void searchRanksTheSlowestNodesFirst()
    {
        // 64 nodes searched in two rounds: a table of nodes (not a 64 x 64 matrix), the named node first
        // and marked, sortable by bandwidth.
        checks::LinkReport r;
        r.profile = QStringLiteral("big");
        cluster::ClusterProfile big;
        big.name = r.profile;
        for (int k = 0; k < 64; ++k) {
            r.nodes << QStringLiteral("tb-node%1").arg(k + 1);
            cluster::ClusterNode n;
            n.name = n.host = r.nodes.last();
            big.nodes.append(n);
        }
        r.bytes = 1 << 20;
        r.medianBandwidthMbps = 2000;
        r.rounds = {{1, 32, 3.1}, {2, 2, 0.6}};
        for (int k = 0; k < 64; k += 2) // tb-node17 (16) is slow: its pair with tb-node18 too
            r.pairs.append({k, k + 1, 1, {}, {}, 30, k == 16 ? 95.0 : 2000.0 + k, k == 16});
        r.pairs.append({0, 16, 2, {}, {}, 30, 94, true});
        r.pairs.append({2, 17, 2, {}, {}, 30, 2500, false});
        checks::LinkVerdict slow;
        slow.kind = checks::LinkVerdict::Kind::SlowNode;
        slow.node = 16;
        slow.slowWith = {17, 0};
        r.verdicts = {slow};
        r.verdicts[0].reason = checks::LinkTest::reason(r, slow);
        ChecksPage page;
        page.setProfile(big);
        page.showLinks(r);
        QTableWidget* t = page.linksView();
        QCOMPARE(t->rowCount(), 64);
        QCOMPARE(t->columnCount(), 6);
        QCOMPARE(t->item(0, 0)->text(), QStringLiteral("tb-node17"));
        QCOMPARE(t->item(0, 5)->text(), QStringLiteral("slow node"));
        QCOMPARE(t->item(0, 1)->text(), QStringLiteral("95.0 Mbit/s"));
        QVERIFY(t->item(0, 0)->toolTip().contains(QStringLiteral("tb-node17 was slow with every partner")));
        QVERIFY(t->item(0, 0)->background().color() != t->item(1, 0)->background().color());
        QVERIFY(t->isSortingEnabled());
        // Sorted by the fastest pair, descending: numbers, not text ("995" would sort above "2.00 G").
        t->sortItems(1, Qt::DescendingOrder);
        QCOMPARE(t->item(0, 0)->text(), QStringLiteral("tb-node18")); // its round-2 pair: 2.50 Gbit/s
        QCOMPARE(t->item(63, 0)->text(), QStringLiteral("tb-node17"));
        QVERIFY2(page.linksSummary()->text().contains(QStringLiteral("34 pair(s) in 2 round(s)")),
                 qPrintable(page.linksSummary()->text()));
        // All pairs: back to the matrix, with its row headers.
        page.allPairsBox()->setChecked(true);
        QVERIFY(page.allPairsBox()->isEnabled());
    }

    void localRun()
    {
        ChecksPage page;
        QAbstractItemModelTester t1(page.resultsModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t2(page.versionModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        page.setProfile(cluster::ClusterProfile::local(2));
        QSignalSpy done(&page, &ChecksPage::finished);
        page.runButton()->click();
        QVERIFY(page.isRunning() || done.count() == 1);
        QVERIFY(page.cancelButton()->isEnabled() || done.count() == 1);
        QVERIFY(done.count() == 1 || done.wait(90000));
        const auto report = done.at(0).at(0).value<checks::CheckReport>();
        QCOMPARE(report.nodes.size(), 1);
        auto* m = page.resultsModel();
        QCOMPARE(m->rowCount(), 1);
        QVERIFY(m->columnCount() >= 3);
        QCOMPARE(m->headerData(0, Qt::Vertical).toString(), QStringLiteral("localhost"));
        const QStringList texts = {
            CheckResultsModel::statusText(CheckStatus::Pass), CheckResultsModel::statusText(CheckStatus::Warn),
            CheckResultsModel::statusText(CheckStatus::Fail), CheckResultsModel::statusText(CheckStatus::Skip)};
        for (int c = 0; c < m->columnCount(); ++c) {
            const QModelIndex idx = m->index(0, c);
            QVERIFY2(m->result(idx), qPrintable(m->checkIds().at(c)));
            QVERIFY(texts.contains(idx.data().toString()));
            QVERIFY(idx.data(Qt::BackgroundRole).value<QColor>().isValid());
        }
        QCOMPARE(m->index(0, 0).data(CheckResultsModel::CheckIdRole).toString(), QStringLiteral("connect"));
        QCOMPARE(m->index(0, 0).data().toString(), QStringLiteral("✓ pass"));
        QCOMPARE(page.progressBar()->value(), page.progressBar()->maximum());
        QVERIFY(!page.cancelButton()->isEnabled());
        QCOMPARE(page.runButton()->text(), QStringLiteral("&Re-run"));

        // Details of a selected cell: evidence and (for a non-pass) the remedy.
        const checks::CheckResult* r = m->result(m->index(0, 0));
        page.resultsView()->setCurrentIndex(m->index(0, 0));
        const QString details = page.detailsView()->toPlainText();
        QVERIFY(details.contains(QStringLiteral("Evidence:")));
        if (!r->evidence.isEmpty())
            QVERIFY(details.contains(r->evidence.left(20)));
        for (int c = 0; c < m->columnCount(); ++c) {
            const checks::CheckResult* rc = m->result(m->index(0, c));
            if (rc && !rc->remedy.isEmpty()) {
                page.resultsView()->setCurrentIndex(m->index(0, c));
                QVERIFY(page.detailsView()->toPlainText().contains(rc->remedy));
                break;
            }
        }
    }

    void rerunSelected()
    {
        // Two nodes of the local profile (both run on this machine); the second one is a worker.
        cluster::ClusterProfile profile = cluster::ClusterProfile::local(2);
        cluster::ClusterNode worker = profile.nodes.first();
        worker.name = QStringLiteral("localhost-2");
        worker.role = cluster::NodeRole::Worker;
        profile.nodes.append(worker);

        ChecksPage page;
        QAbstractItemModelTester t1(page.resultsModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t2(page.versionModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        page.setProfile(profile);
        QVERIFY(!page.rerunSelectedButton()->isEnabled());
        QSignalSpy done(&page, &ChecksPage::finished);
        page.runButton()->click();
        QVERIFY(done.count() == 1 || done.wait(90000));
        auto* m = page.resultsModel();
        QCOMPARE(m->rowCount(), 2);
        QVERIFY(!page.rerunSelectedButton()->isEnabled()); // nothing selected yet
        // The head's check of its workers has no result on the worker: once the worker is done, its cell
        // says the check did not run there rather than that it is still to come.
        const int headSsh = int(m->checkIds().indexOf(QStringLiteral("head-ssh")));
        QVERIFY(headSsh >= 0);
        QVERIFY(!m->result(m->index(1, headSsh)));
        QCOMPARE(m->index(1, headSsh).data().toString(), QStringLiteral("—"));
        QCOMPARE(m->index(1, headSsh).data(Qt::ToolTipRole).toString(), QStringLiteral("Not run on this node"));
        QList<checks::CheckResult> headBefore;
        for (int c = 0; c < m->columnCount(); ++c) {
            QVERIFY(m->result(m->index(0, c)));
            headBefore.append(*m->result(m->index(0, c)));
        }
        const int columns = m->columnCount();

        // Select a cell of the worker: only its row is cleared and refreshed.
        page.resultsView()->selectionModel()->select(m->index(1, 1), QItemSelectionModel::ClearAndSelect);
        QCOMPARE(page.selectedNodes(), QList<int>{1});
        QVERIFY(page.rerunSelectedButton()->isEnabled());
        QSignalSpy changed(m, &QAbstractItemModel::dataChanged);
        QSignalSpy reset(m, &QAbstractItemModel::modelReset);
        page.rerunSelectedButton()->click();
        // While the worker is checked again, its cells without a result are to come again.
        QVERIFY(done.count() == 2 || m->index(1, headSsh).data().toString() == QStringLiteral("…"));
        QVERIFY(!page.rerunSelectedButton()->isEnabled() || done.count() == 2);
        QVERIFY(done.count() == 2 || done.wait(90000));
        QCOMPARE(reset.count(), 0);
        QVERIFY(changed.count() > 0);
        for (const auto& args : changed) {
            QCOMPARE(args.at(0).value<QModelIndex>().row(), 1);
            QCOMPARE(args.at(1).value<QModelIndex>().row(), 1);
        }
        // The progress counted the worker's checks only (not those of the head, run for head → worker SSH).
        int workerChecks = 0;
        for (int c = 0; c < m->columnCount(); ++c)
            workerChecks += m->result(m->index(1, c)) ? 1 : 0;
        QVERIFY(workerChecks > 0);
        QCOMPARE(page.progressBar()->maximum(), workerChecks);
        QCOMPARE(page.progressBar()->value(), workerChecks);
        // The head kept its results; the worker's row is complete again.
        QCOMPARE(m->rowCount(), 2);
        QCOMPARE(m->columnCount(), columns);
        for (int c = 0; c < m->columnCount(); ++c) {
            const checks::CheckResult* r = m->result(m->index(0, c));
            QVERIFY(r);
            QCOMPARE(r->id, headBefore.at(c).id);
            QCOMPARE(r->summary, headBefore.at(c).summary);
            QCOMPARE(int(r->status), int(headBefore.at(c).status));
        }
        QCOMPARE(m->index(1, 0).data(CheckResultsModel::CheckIdRole).toString(), QStringLiteral("connect"));
        QVERIFY(m->result(m->index(1, 0)));
        QCOMPARE(m->index(1, headSsh).data().toString(), QStringLiteral("—"));
        // The merged report has both nodes and the version matrix covers both.
        const auto report = done.at(1).at(0).value<checks::CheckReport>();
        QCOMPARE(report.nodes.size(), 2);
        QVERIFY(report.nodes.at(0).isHead);
        QCOMPARE(report.nodes.at(1).node, QStringLiteral("localhost-2"));
        QCOMPARE(page.versionModel()->columnCount(), 2);
        QVERIFY(page.runButton()->isEnabled());
        QVERIFY(page.rerunSelectedButton()->isEnabled());
    }

    void hostKeyDialog()
    {
        ssh::HostKeyInfo info;
        info.state = ssh::HostKeyInfo::State::Unknown;
        info.host = QStringLiteral("gpu-a");
        info.port = 2222;
        info.keyType = QStringLiteral("ssh-ed25519");
        info.fingerprint = QStringLiteral("SHA256:abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG");
        QString shown;
        auto answer = [&shown](const QString& buttonText) {
            QTimer::singleShot(0, [&shown, buttonText] {
                auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
                QVERIFY(box);
                shown = box->text();
                for (QAbstractButton* b : box->buttons()) {
                    if (b->text() == buttonText)
                        b->click();
                }
            });
        };
        answer(QStringLiteral("&Trust and save"));
        QCOMPARE(askHostKeyDecision(nullptr, info), ssh::HostKeyDecision::AcceptAndSave);
        QVERIFY(shown.contains(info.fingerprint));
        QVERIFY(shown.contains(QStringLiteral("[gpu-a]:2222")));
        answer(QStringLiteral("Trust &once"));
        QCOMPARE(askHostKeyDecision(nullptr, info), ssh::HostKeyDecision::AcceptOnce);
        answer(QStringLiteral("&Reject"));
        QCOMPARE(askHostKeyDecision(nullptr, info), ssh::HostKeyDecision::Reject);
        // A changed key is refused, with the explanation.
        info.state = ssh::HostKeyInfo::State::Changed;
        answer(QStringLiteral("OK"));
        QCOMPARE(askHostKeyDecision(nullptr, info), ssh::HostKeyDecision::Reject);
        QCOMPARE(shown, info.explanation());
    }

    void versionMatrixCollapsesAtManyNodes()
    {
        // 20 nodes, node13's Open MPI differs: the head, "18 nodes: same" and node13, in node order; the
        // full matrix one click away.
        checks::CheckReport report;
        report.profile = QStringLiteral("big");
        for (int i = 0; i < 20; ++i) {
            checks::NodeReport n;
            n.node = n.host = QStringLiteral("node%1").arg(i);
            n.isHead = i == 0;
            n.results = {result(QStringLiteral("connect"), CheckStatus::Pass),
                         result(QStringLiteral("mpi"), CheckStatus::Pass,
                                i == 13 ? QStringLiteral("4.1.2") : QStringLiteral("4.1.4"))};
            if (i == 0)
                n.results << result(QStringLiteral("head-ssh"), CheckStatus::Pass);
            report.nodes.append(n);
        }
        checks::buildMatrix(report);
        ChecksPage page;
        QAbstractItemModelTester t(page.versionModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        page.showReport(report);
        auto* v = page.versionModel();
        QVERIFY(v->collapsed());
        QCOMPARE(v->columnCount(), 3);
        QCOMPARE(v->headColumn(), 0);
        QCOMPARE(v->headerData(0, Qt::Horizontal).toString(), QStringLiteral("node0 (head)"));
        QCOMPARE(v->headerData(1, Qt::Horizontal).toString(), QStringLiteral("18 nodes: same"));
        QVERIFY(v->headerData(1, Qt::Horizontal, Qt::ToolTipRole).toString().contains(QStringLiteral("node19")));
        QCOMPARE(v->headerData(2, Qt::Horizontal).toString(), QStringLiteral("node13"));
        QCOMPARE(v->nodesOfColumn(2), QList<int>{13});
        // The row that differs comes first, before the rows the report lists above it.
        QVERIFY(report.matrix.first().id != QLatin1String("mpi"));
        const int mpi = 0;
        QCOMPARE(v->headerData(mpi, Qt::Vertical).toString(), QStringLiteral("Open MPI"));
        QCOMPARE(v->index(mpi, 2).data().toString(), QStringLiteral("4.1.2"));
        QVERIFY(v->index(mpi, 2).data(VersionMatrixModel::DiffersFromHeadRole).toBool());
        QVERIFY(!v->index(mpi, 1).data(VersionMatrixModel::DiffersFromHeadRole).toBool());
        // One click: a column per node.
        QVERIFY(page.everyNodeBox()->isEnabled());
        page.everyNodeBox()->click();
        QCOMPARE(v->columnCount(), 20);
        QVERIFY(v->index(mpi, 13).data(VersionMatrixModel::DiffersFromHeadRole).toBool());
        page.everyNodeBox()->click();
        QCOMPARE(v->columnCount(), 3);
    }

    void versionMatrixHighlight()
    {
        checks::CheckReport report;
        report.profile = QStringLiteral("lab");
        for (int i = 0; i < 3; ++i) {
            checks::NodeReport n;
            n.node = QStringLiteral("node%1").arg(i);
            n.host = n.node;
            n.isHead = i == 0;
            n.results = {result(QStringLiteral("connect"), CheckStatus::Pass),
                         result(QStringLiteral("mpi"), i == 2 ? CheckStatus::Fail : CheckStatus::Pass,
                                i == 2 ? QStringLiteral("4.1.2") : QStringLiteral("4.1.4")),
                         result(QStringLiteral("cuda"), CheckStatus::Warn, QStringLiteral("12.4"))};
            report.nodes.append(n);
        }
        checks::buildMatrix(report);

        ChecksPage page;
        QAbstractItemModelTester t1(page.resultsModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t2(page.versionModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        page.showReport(report);
        auto* m = page.resultsModel();
        QCOMPARE(m->rowCount(), 3);
        QCOMPARE(m->columnCount(), 3);
        QCOMPARE(m->index(2, 1).data().toString(), QStringLiteral("✗ fail"));
        QCOMPARE(m->index(0, 2).data().toString(), QStringLiteral("! warn"));
        QCOMPARE(m->index(0, 1).data().toString(), QStringLiteral("✓ pass"));
        QVERIFY(m->index(2, 1).data(Qt::BackgroundRole).value<QColor>() !=
                m->index(0, 1).data(Qt::BackgroundRole).value<QColor>());
        page.resultsView()->setCurrentIndex(m->index(2, 1));
        QVERIFY(page.detailsView()->toPlainText().contains(QStringLiteral("evidence of mpi")));
        QVERIFY(page.detailsView()->toPlainText().contains(QStringLiteral("remedy for mpi")));

        auto* v = page.versionModel();
        QCOMPARE(v->columnCount(), 3);
        QCOMPARE(v->headColumn(), 0);
        int mpiRow = -1, cudaRow = -1;
        for (int r = 0; r < v->rowCount(); ++r) {
            if (v->headerData(r, Qt::Vertical).toString() == QLatin1String("Open MPI"))
                mpiRow = r;
            if (v->headerData(r, Qt::Vertical).toString() == QLatin1String("CUDA"))
                cudaRow = r;
        }
        QVERIFY(mpiRow >= 0 && cudaRow >= 0);
        QCOMPARE(v->index(mpiRow, 2).data().toString(), QStringLiteral("4.1.2"));
        QVERIFY(v->index(mpiRow, 2).data(VersionMatrixModel::DiffersFromHeadRole).toBool());
        QVERIFY(v->index(mpiRow, 2).data(Qt::BackgroundRole).value<QColor>().isValid());
        QVERIFY(!v->index(mpiRow, 1).data(VersionMatrixModel::DiffersFromHeadRole).toBool());
        QVERIFY(!v->index(mpiRow, 1).data(Qt::BackgroundRole).isValid());
        QVERIFY(!v->index(cudaRow, 2).data(VersionMatrixModel::DiffersFromHeadRole).toBool());
        QVERIFY(v->headerData(0, Qt::Horizontal).toString().contains(QStringLiteral("node0")));
    }
};

QTEST_MAIN(TestChecksPage)
#include "tst_checkspage.moc"
