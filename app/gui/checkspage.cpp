#include "checkspage.h"

#include "backgroundwork.h"
#include "checks/clusterchecker.h"
#include "checksmodel.h"
#include "ssh/promptbroker.h"

#include <QCheckBox>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace traindeck::gui {

using checks::CheckReport;
using checks::CheckStatus;
using ssh::HostKeyDecision;
using ssh::HostKeyInfo;

ssh::HostKeyDecision askHostKeyDecision(QWidget* parent, const HostKeyInfo& info)
{
    if (info.state != HostKeyInfo::State::Unknown) {
        QMessageBox::critical(parent, QCoreApplication::translate("traindeck::gui::ChecksPage", "Host key refused"),
                              info.explanation());
        return HostKeyDecision::Reject;
    }
    QMessageBox box(QMessageBox::Question,
                    QCoreApplication::translate("traindeck::gui::ChecksPage", "Unknown host key"),
                    QCoreApplication::translate("traindeck::gui::ChecksPage",
                                                "First connection to %1. Compare the fingerprint with the one the "
                                                "node's administrator sees (ssh-keygen -lf on the node's host key).\n\n"
                                                "%2 key fingerprint:\n%3")
                        .arg(info.knownHostsName(), info.keyType, info.fingerprint),
                    QMessageBox::NoButton, parent);
    box.setDetailedText(info.explanation());
    box.setTextInteractionFlags(Qt::TextSelectableByMouse);
    QPushButton* save = box.addButton(QCoreApplication::translate("traindeck::gui::ChecksPage", "&Trust and save"),
                                      QMessageBox::AcceptRole);
    QPushButton* once =
        box.addButton(QCoreApplication::translate("traindeck::gui::ChecksPage", "Trust &once"), QMessageBox::YesRole);
    QPushButton* reject =
        box.addButton(QCoreApplication::translate("traindeck::gui::ChecksPage", "&Reject"), QMessageBox::RejectRole);
    box.setDefaultButton(reject);
    box.setEscapeButton(reject);
    box.exec();
    if (box.clickedButton() == save)
        return HostKeyDecision::AcceptAndSave;
    if (box.clickedButton() == once)
        return HostKeyDecision::AcceptOnce;
    return HostKeyDecision::Reject;
}

void connectPromptDialogs(ssh::PromptBroker* broker, QWidget* parent)
{
    QPointer<QWidget> guard(parent);
    QObject::connect(broker, &ssh::PromptBroker::hostKeyQuestion, parent,
                     [broker, guard](quint64 id, const HostKeyInfo& info) {
                         broker->answerHostKey(id, askHostKeyDecision(guard, info));
                     });
    QObject::connect(broker, &ssh::PromptBroker::secretQuestion, parent,
                     [broker, guard](quint64 id, const ssh::SecretRequest& request) {
                         bool ok = false;
                         const QString secret = QInputDialog::getText(
                             guard, QCoreApplication::translate("traindeck::gui::ChecksPage", "SSH"),
                             request.prompt.isEmpty()
                                 ? QCoreApplication::translate("traindeck::gui::ChecksPage", "Passphrase:")
                                 : request.prompt,
                             QLineEdit::Password, QString(), &ok);
                         if (ok)
                             broker->answerSecret(id, secret.toUtf8());
                         else
                             broker->declineSecret(id);
                     });
}

ChecksPage::ChecksPage(QWidget* parent) : QWidget(parent), m_profile(cluster::ClusterProfile::local())
{
    m_results = new CheckResultsModel(this);
    m_versions = new VersionMatrixModel(this);

    auto* layout = new QVBoxLayout(this);
    auto* top = new QHBoxLayout;
    m_profileLabel = new QLabel(this);
    m_run = new QPushButton(tr("&Run checks"), this);
    m_run->setToolTip(tr("Run the environment checks on every node of the profile"));
    m_rerunSelected = new QPushButton(tr("Re-run &selected"), this);
    m_rerunSelected->setToolTip(tr("Run the checks again on the nodes of the selected rows or cells only"));
    m_rerunSelected->setEnabled(false);
    m_cancel = new QPushButton(tr("&Cancel"), this);
    m_cancel->setEnabled(false);
    m_links = new QPushButton(tr("Test &links"), this);
    m_links->setToolTip(tr("Measure latency and bandwidth between the nodes in rounds of pairs measured side by "
                           "side (MPI point-to-point, started on the head) and name slow nodes and slow links"));
    m_allPairs = new QCheckBox(tr("&All pairs"), this);
    m_allPairs->setToolTip(tr("Measure every pair of nodes (N-1 rounds) and show the full matrix: finds a slow link "
                              "between two healthy nodes. Without it, a search for slow nodes in a few rounds."));
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 1);
    m_progress->setValue(0);
    m_progress->setAccessibleName(tr("Check progress"));
    top->addWidget(m_profileLabel);
    top->addWidget(m_run);
    top->addWidget(m_rerunSelected);
    top->addWidget(m_cancel);
    top->addWidget(m_links);
    top->addWidget(m_allPairs);
    top->addWidget(m_progress, 1);
    layout->addLayout(top);
    m_summary = new QLabel(tr("Not run yet."), this);
    m_summary->setWordWrap(true);
    layout->addWidget(m_summary);

    auto* split = new QSplitter(Qt::Vertical, this);
    m_resultsView = new QTableView(split);
    m_resultsView->setModel(m_results);
    m_resultsView->setAccessibleName(tr("Check results: nodes × checks"));
    m_resultsView->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_resultsView->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_resultsView->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_details = new QPlainTextEdit(split);
    m_details->setReadOnly(true);
    m_details->setAccessibleName(tr("Check details"));
    m_details->setPlaceholderText(tr("Select a cell to see what was seen and what to do."));
    auto* versionBox =
        new QGroupBox(tr("Versions across nodes (cells that differ from the head are highlighted)"), split);
    auto* vl = new QVBoxLayout(versionBox);
    m_versionView = new QTableView(versionBox);
    m_versionView->setModel(m_versions);
    m_versionView->setAccessibleName(tr("Version matrix"));
    m_versionView->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_versionView->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    // Above VersionMatrixModel::kCollapseAbove nodes the nodes that agree share a column; the full
    // matrix is this box away.
    m_everyNode = new QCheckBox(tr("Show &every node"), versionBox);
    m_everyNode->setToolTip(tr("At more than %n node(s) the nodes that agree share one column (\"62 nodes: same\"); "
                               "check to see a column per node.",
                               nullptr, VersionMatrixModel::kCollapseAbove));
    m_everyNode->setEnabled(false);
    connect(m_everyNode, &QCheckBox::toggled, m_versions, &VersionMatrixModel::setShowEveryNode);
    connect(m_versions, &QAbstractItemModel::modelReset, this, [this] {
        // A column per node at many nodes: as wide as their contents, scrolled.
        const bool wide = m_versions->columnCount() > VersionMatrixModel::kCollapseAbove;
        m_versionView->horizontalHeader()->setSectionResizeMode(wide ? QHeaderView::ResizeToContents
                                                                     : QHeaderView::Stretch);
        m_everyNode->setEnabled(m_versions->collapsed() || m_versions->showsEveryNode());
    });
    vl->addWidget(m_everyNode);
    vl->addWidget(m_versionView);
    auto* linksBox = new QGroupBox(tr("Links between nodes (bandwidth, one-way latency)"), split);
    auto* ll = new QVBoxLayout(linksBox);
    m_linksSummary =
        new QLabel(tr("Not tested yet: Test links searches the links between the nodes for slow ones."), linksBox);
    m_linksSummary->setWordWrap(true);
    m_linksView = new QTableWidget(linksBox);
    m_linksView->setAccessibleName(tr("Link test results"));
    m_linksView->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_linksView->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    ll->addWidget(m_linksSummary);
    ll->addWidget(m_linksView);
    m_linkPrompts = new ssh::PromptBroker(this);
    connectPromptDialogs(m_linkPrompts, this);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    split->setStretchFactor(2, 2);
    split->setStretchFactor(3, 2);
    layout->addWidget(split, 1);

    connect(m_run, &QPushButton::clicked, this, &ChecksPage::run);
    connect(m_rerunSelected, &QPushButton::clicked, this, &ChecksPage::runSelected);
    connect(m_cancel, &QPushButton::clicked, this, &ChecksPage::cancel);
    connect(m_links, &QPushButton::clicked, this, &ChecksPage::testLinks);
    connect(m_resultsView->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &ChecksPage::updateRerunSelected);
    connect(m_resultsView->selectionModel(), &QItemSelectionModel::currentChanged, this, &ChecksPage::onCurrentChanged);
    connect(m_results, &QAbstractItemModel::dataChanged, this, [this](const QModelIndex& tl) {
        if (tl == m_resultsView->currentIndex())
            onCurrentChanged();
    });
    setProfile(m_profile);
}

ChecksPage::~ChecksPage()
{
    if (m_checker)
        m_checker->prompts()->shutdown();
    m_linkCancel.cancel();
    m_linkPrompts->shutdown();
}

void ChecksPage::testLinks()
{
    if (m_linksRunning)
        return;
    m_linksRunning = true;
    m_links->setEnabled(false);
    m_allPairs->setEnabled(false);
    m_linkCancel = ssh::CancelToken();
    m_linksSummary->setText(tr("Testing the links between %n node(s)…", nullptr, int(m_profile.nodes.size())));
    const cluster::ClusterProfile profile = m_profile;
    const ssh::SshPrompts prompts = m_linkPrompts->prompts(m_linkCancel);
    const ssh::CancelToken cancel = m_linkCancel;
    checks::LinkTestOptions options;
    options.allPairs = m_allPairs->isChecked();
    // Rounds done, from the worker thread.
    options.onRound = [page = QPointer<ChecksPage>(this), nodes = int(profile.nodes.size())](int round, int pairs) {
        QMetaObject::invokeMethod(
            page,
            [page, nodes, round, pairs] {
                if (page && page->m_linksRunning)
                    page->m_linksSummary->setText(
                        tr("Testing the links between %n node(s)… round %1 done (%2 pair(s) side by side).", nullptr,
                           nodes)
                            .arg(round)
                            .arg(pairs));
            },
            Qt::QueuedConnection);
    };
    background::run(
        this, [profile, prompts, cancel, options] { return checks::LinkTest::run(profile, options, prompts, cancel); },
        [this](Result<checks::LinkReport> result) {
            m_linksRunning = false;
            m_links->setEnabled(true);
            m_allPairs->setEnabled(true);
            showLinks(result);
            Q_EMIT linksFinished(result);
        },
        QStringLiteral("link-test"));
}

namespace {
// A cell that sorts by a number (bandwidth, latency) while it shows text.
class SortKeyItem : public QTableWidgetItem {
  public:
    SortKeyItem(const QString& text, double key) : QTableWidgetItem(text) { setData(Qt::UserRole, key); }
    bool operator<(const QTableWidgetItem& other) const override
    {
        return data(Qt::UserRole).toDouble() < other.data(Qt::UserRole).toDouble();
    }
};
} // namespace

void ChecksPage::showLinks(const Result<checks::LinkReport>& result)
{
    m_linksView->setSortingEnabled(false);
    m_linksView->clear();
    if (!result) {
        m_linksView->setRowCount(0);
        m_linksView->setColumnCount(0);
        // The error, then the test's last output lines (the diagnostic's detail).
        m_linksSummary->setText(tr("✗ The link test could not run: %1").arg(formatDiagnostics(result.diagnostics())));
        return;
    }
    const checks::LinkReport& report = result.value();
    const int n = int(report.nodes.size());
    const auto named = [&](int node) { return report.verdictFor(node) != nullptr; };
    if (report.allPairs) {
        // Every pair was measured: the matrix, the cells of named nodes and links marked.
        m_linksView->verticalHeader()->setVisible(true);
        m_linksView->setRowCount(n);
        m_linksView->setColumnCount(n);
        m_linksView->setHorizontalHeaderLabels(report.nodes);
        m_linksView->setVerticalHeaderLabels(report.nodes);
        m_linksView->horizontalHeader()->setSectionResizeMode(n > 12 ? QHeaderView::ResizeToContents
                                                                     : QHeaderView::Stretch);
        for (int i = 0; i < n; ++i) {
            for (int k = 0; k < n; ++k) {
                auto* item = new QTableWidgetItem;
                const checks::LinkMeasurement* m = report.find(i, k);
                if (!m) {
                    item->setText(QStringLiteral("—"));
                } else {
                    item->setText(tr("%1\n%2 µs")
                                      .arg(checks::LinkTest::formatBandwidth(m->bandwidthMbps))
                                      .arg(m->latencyUs, 0, 'f', 0));
                    if (m->slow) {
                        item->setBackground(CheckResultsModel::statusBackground(checks::CheckStatus::Warn));
                        item->setToolTip(named(i) || named(k) ? tr("A link of a slow node") : tr("A slow link"));
                    }
                }
                item->setTextAlignment(Qt::AlignCenter);
                m_linksView->setItem(i, k, item);
            }
        }
    } else {
        // The search measured a few pairs per node: the nodes, the slowest first, sortable by any column.
        const QStringList headers{tr("Node"),    tr("Fastest pair"), tr("Slowest pair"),
                                  tr("Latency"), tr("Pairs"),        tr("Verdict")};
        const QList<checks::NodeLinkSummary> ranked = report.rankedNodes();
        m_linksView->setColumnCount(int(headers.size()));
        m_linksView->setHorizontalHeaderLabels(headers);
        m_linksView->setRowCount(int(ranked.size()));
        m_linksView->verticalHeader()->setVisible(false);
        m_linksView->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
        m_linksView->horizontalHeader()->setStretchLastSection(true);
        for (int row = 0; row < ranked.size(); ++row) {
            const checks::NodeLinkSummary& s = ranked.at(row);
            const bool measured = s.pairs > 0;
            QList<QTableWidgetItem*> items{
                new SortKeyItem(report.nodes.at(s.node), row),
                new SortKeyItem(measured ? checks::LinkTest::formatBandwidth(s.bestMbps) : tr("—"), s.bestMbps),
                new SortKeyItem(measured ? checks::LinkTest::formatBandwidth(s.worstMbps) : tr("—"), s.worstMbps),
                new SortKeyItem(measured ? tr("%1 µs").arg(s.latencyUs, 0, 'f', 0) : tr("—"), s.latencyUs),
                new SortKeyItem(QString::number(s.pairs), s.pairs),
                new SortKeyItem(s.verdict ? report.verdictLabel(*s.verdict) : QString(), s.verdict ? 0 : 1)};
            for (int c = 0; c < items.size(); ++c) {
                if (s.verdict) {
                    items[c]->setBackground(CheckResultsModel::statusBackground(checks::CheckStatus::Warn));
                    items[c]->setToolTip(s.verdict->reason);
                }
                m_linksView->setItem(row, c, items[c]);
            }
        }
        m_linksView->setSortingEnabled(true);
        m_linksView->horizontalHeader()->setSortIndicator(0, Qt::AscendingOrder);
    }
    m_linksView->resizeRowsToContents();
    QStringList lines;
    for (const checks::LinkVerdict& v : report.verdicts)
        lines << tr("⚠ %1: %2").arg(report.verdictLabel(v), v.reason);
    if (lines.isEmpty())
        lines << (n < 3 ? tr("✓ Measured the link between the two nodes (with two nodes no node can be singled out).")
                        : tr("✓ No node or link stands out."));
    lines << tr("MPI point-to-point, %1 KiB messages: %2 pair(s) in %n round(s) of pairs measured side by side, "
                "%3 s; median %4.",
                nullptr, int(report.rounds.size()))
                 .arg(report.bytes / 1024)
                 .arg(report.pairs.size())
                 .arg(report.elapsedMs / 1000.0, 0, 'f', 1)
                 .arg(checks::LinkTest::formatBandwidth(report.medianBandwidthMbps));
    for (const Diagnostic& w : result.diagnostics())
        lines << QStringLiteral("⚠ ") + w.message; // not kept for the diagnosis (SavedLinkTest)
    m_linksSummary->setText(lines.join(QLatin1Char('\n')));
}

void ChecksPage::setProfile(const cluster::ClusterProfile& profile)
{
    bool sameNodes = profile.nodes.size() == m_profile.nodes.size();
    for (int i = 0; sameNodes && i < profile.nodes.size(); ++i)
        sameNodes = profile.nodes.at(i).name == m_profile.nodes.at(i).name &&
                    profile.nodes.at(i).host == m_profile.nodes.at(i).host;
    if (!sameNodes) {
        m_raw.clear(); // the results of the last run belong to other nodes: no partial re-run on them
        m_linksView->clear();
        m_linksView->setRowCount(0);
        m_linksView->setColumnCount(0);
        m_linksSummary->setText(tr("Not tested yet: Test links searches the links between the nodes for slow ones."));
    }
    m_profile = profile;
    updateRerunSelected();
    m_profileLabel->setText(tr("Profile: %1 (%n node(s))", nullptr, int(profile.nodes.size())).arg(profile.name));
}

bool ChecksPage::isRunning() const
{
    return m_checker && m_checker->isRunning();
}

void ChecksPage::run()
{
    if (isRunning())
        return;
    if (m_profile.nodes.isEmpty()) {
        m_summary->setText(tr("The profile has no nodes: add nodes on the Cluster page."));
        return;
    }
    // Every row of the checker: the profile's nodes, or a Slurm profile's login and compute nodes.
    startChecker(m_profile, {}, false);
    m_summary->setText(tr("Checking %n node(s)…", nullptr, int(m_rowOf.size())));
}

QList<int> ChecksPage::selectedNodes() const
{
    QList<int> rows;
    for (const QModelIndex& idx : m_resultsView->selectionModel()->selectedIndexes()) {
        if (!rows.contains(idx.row()))
            rows.append(idx.row());
    }
    std::sort(rows.begin(), rows.end());
    return rows;
}

void ChecksPage::runSelected()
{
    if (isRunning() || !canRerunSelected())
        return;
    const QList<int> selected = selectedNodes();
    if (selected.isEmpty())
        return;
    // The head runs the head → worker SSH check of the workers in the profile: a selected worker keeps
    // the head in the copy; its results are only taken over when it is selected itself.
    const int head = m_profile.headIndex();
    bool needHead = false;
    for (int row : selected)
        needHead = needHead || row != head;
    cluster::ClusterProfile sub = m_profile;
    sub.nodes.clear();
    QList<int> rowOf;
    for (int i = 0; i < m_profile.nodes.size(); ++i) {
        const bool isSelected = selected.contains(i);
        if (!isSelected && !(needHead && i == head))
            continue;
        sub.nodes.append(m_profile.nodes.at(i));
        rowOf.append(isSelected ? i : -1);
    }
    startChecker(sub, rowOf, true);
    m_summary->setText(tr("Checking %n selected node(s)…", nullptr, int(selected.size())));
}

void ChecksPage::startChecker(const cluster::ClusterProfile& profile, const QList<int>& rowOf, bool partial)
{
    if (m_checker)
        m_checker->prompts()->shutdown();
    m_checker = std::make_unique<checks::ClusterChecker>(profile);
    checks::ClusterChecker* checker = m_checker.get();
    const int nodeCount = checker->nodeCount();
    m_rowOf = rowOf;
    if (!partial) {
        m_rowOf.clear();
        for (int i = 0; i < nodeCount; ++i)
            m_rowOf.append(i);
    }
    m_partial = partial;
    m_pending = QList<checks::NodeReport>(nodeCount);
    int steps = 0;
    if (partial) {
        // Only the re-run nodes' cells are cleared; the other rows keep their results.
        for (int i = 0; i < nodeCount; ++i) {
            if (m_rowOf.at(i) < 0)
                continue;
            const QStringList ids = checker->checkIds(i);
            steps += int(ids.size());
            m_results->clearResults(m_rowOf.at(i), ids);
        }
    } else {
        QStringList nodes;
        QStringList ids;
        for (int i = 0; i < nodeCount; ++i) {
            nodes.append(checker->nodeName(i));
            const QStringList nodeIds = checker->checkIds(i);
            steps += int(nodeIds.size());
            for (const QString& id : nodeIds) {
                if (!ids.contains(id))
                    ids.append(id);
            }
        }
        m_raw.clear();
        m_results->setLayout(nodes, ids);
        m_versions->clear();
    }
    m_details->clear();
    // Progress counts the checks of the nodes whose results are shown (not those of a head run only
    // for the head → worker SSH check).
    m_progress->setRange(0, qMax(1, steps));
    m_progress->setValue(0);
    // Nodes done of N in the bar (at many nodes the steps alone say little).
    const int nodesTotal = nodeCount;
    m_progress->setFormat(tr("%p% — %1 of %n node(s) done", nullptr, nodesTotal).arg(0));
    connectPromptDialogs(checker->prompts(), this);
    connect(checker, &checks::ClusterChecker::checkFinished, this, [this](int node, const checks::CheckResult& r) {
        const int row = m_rowOf.value(node, -1);
        if (row < 0)
            return;
        m_results->setResult(row, r);
        m_progress->setValue(qMin(m_progress->maximum(), m_progress->value() + 1));
    });
    connect(checker, &checks::ClusterChecker::nodeFinished, this,
            [this, nodesTotal, done = 0](int node, const checks::NodeReport& report) mutable {
                if (node >= 0 && node < m_pending.size())
                    m_pending[node] = report;
                m_results->setNodeDone(m_rowOf.value(node, -1));
                m_progress->setFormat(tr("%p% — %1 of %n node(s) done", nullptr, nodesTotal).arg(++done));
            });
    connect(checker, &checks::ClusterChecker::nodeNamesKnown, this, [this](const QStringList& names) {
        if (!m_partial)
            m_results->setNodeNames(names);
    });
    connect(checker, &checks::ClusterChecker::finished, this, &ChecksPage::onFinished);
    m_run->setEnabled(false);
    m_rerunSelected->setEnabled(false);
    m_cancel->setEnabled(true);
    checker->start();
}

void ChecksPage::cancel()
{
    if (!isRunning())
        return;
    m_checker->cancel();
    m_checker->prompts()->shutdown();
    m_summary->setText(tr("Cancelling…"));
}

void ChecksPage::onFinished(const CheckReport& report)
{
    // The node reports as the workers sent them (before buildMatrix added its findings), merged into
    // the rows of the last run; the matrix is then rebuilt from the merged report.
    if (!m_partial)
        m_raw = QList<checks::NodeReport>(m_rowOf.size());
    for (int i = 0; i < m_rowOf.size(); ++i) {
        const int row = m_rowOf.at(i);
        if (row < 0 || row >= m_raw.size())
            continue;
        checks::NodeReport fresh = m_pending.value(i);
        if (fresh.node.isEmpty() && fresh.results.isEmpty())
            fresh = report.nodes.value(i);
        if (!m_partial) {
            m_raw[row] = fresh;
            continue;
        }
        // A check the partial run did not repeat (the head's SSH check without workers) keeps its result.
        checks::NodeReport& merged = m_raw[row];
        for (const auto& r : fresh.results) {
            bool replaced = false;
            for (auto& old : merged.results) {
                if (old.id == r.id) {
                    old = r;
                    replaced = true;
                }
            }
            if (!replaced)
                merged.results.append(r);
        }
    }
    CheckReport merged;
    merged.profile = m_profile.name;
    merged.nodes = m_raw;
    checks::buildMatrix(merged);
    merged.cancelled = report.cancelled;
    merged.elapsedMs = report.elapsedMs;
    m_report = merged;
    m_versions->setReport(merged);
    for (const int row : std::as_const(m_rowOf))
        m_results->setNodeDone(row);
    // Results that arrived only with the report (e.g. after cancelling) or that the matrix changed
    // ("differs from the head") update their cells; the others stay as they are.
    for (int row = 0; row < merged.nodes.size() && row < m_results->rowCount(); ++row) {
        for (const auto& r : merged.nodes.at(row).results) {
            const int col = int(m_results->checkIds().indexOf(r.id));
            const checks::CheckResult* cur = col < 0 ? nullptr : m_results->result(m_results->index(row, col));
            if (!cur || cur->status != r.status || cur->summary != r.summary || cur->remedy != r.remedy ||
                cur->evidence != r.evidence || cur->value != r.value)
                m_results->setResult(row, r);
        }
    }
    m_run->setEnabled(true);
    m_run->setText(tr("&Re-run"));
    m_run->setToolTip(tr("Run the checks again on every node"));
    m_cancel->setEnabled(false);
    m_progress->setValue(m_progress->maximum());
    updateRerunSelected();
    updateSummary();
    Q_EMIT finished(m_report);
}

void ChecksPage::updateRerunSelected()
{
    m_rerunSelected->setEnabled(!isRunning() && canRerunSelected() && m_resultsView->selectionModel()->hasSelection());
}

bool ChecksPage::canRerunSelected() const
{
    // A Slurm profile's rows are the nodes of one check job: another job may get other nodes.
    return !m_profile.slurm && !m_raw.isEmpty() && m_raw.size() == m_profile.nodes.size();
}

void ChecksPage::showReport(const CheckReport& report)
{
    m_report = report;
    m_raw.clear(); // a shown report has no raw node results to merge a partial re-run into
    m_results->setReport(report);
    m_versions->setReport(report);
    m_details->clear();
    updateRerunSelected();
    updateSummary();
}

void ChecksPage::updateSummary()
{
    int differ = 0;
    for (const auto& row : m_report.matrix)
        differ += row.differs ? 1 : 0;
    QString text = tr("%1 passed, %2 warnings, %3 failed in %4 s.")
                       .arg(m_report.count(CheckStatus::Pass))
                       .arg(m_report.count(CheckStatus::Warn))
                       .arg(m_report.count(CheckStatus::Fail))
                       .arg(double(m_report.elapsedMs) / 1000.0, 0, 'f', 1);
    if (differ > 0)
        text += QLatin1Char(' ') + tr("%n version(s) differ between nodes.", nullptr, differ);
    if (m_report.cancelled)
        text += QLatin1Char(' ') + tr("Cancelled: some checks did not run.");
    m_summary->setText(text);
}

void ChecksPage::onCurrentChanged()
{
    const QModelIndex idx = m_resultsView->currentIndex();
    const checks::CheckResult* r = m_results->result(idx);
    if (!r) {
        m_details->setPlainText(idx.isValid() ? tr("Not checked yet.") : QString());
        return;
    }
    QString text = tr("%1 on %2: %3")
                       .arg(r->title.isEmpty() ? checks::NodeChecker::titleFor(r->id) : r->title,
                            m_results->nodeName(idx.row()), CheckResultsModel::statusText(r->status));
    if (!r->summary.isEmpty())
        text += QLatin1Char('\n') + r->summary;
    text += QLatin1String("\n\n") + tr("Evidence:") + QLatin1Char('\n') +
            (r->evidence.isEmpty() ? tr("(none)") : r->evidence);
    if (!r->remedy.isEmpty())
        text += QLatin1String("\n\n") + tr("Remedy:") + QLatin1Char('\n') + r->remedy;
    m_details->setPlainText(text);
}

} // namespace traindeck::gui
