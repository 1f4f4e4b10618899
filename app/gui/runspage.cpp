#include "runspage.h"

#include "backgroundwork.h"
#include "plotstyle.h"
#include "qcp.h"
#include "runs/operations.h"
#include "series.h"
#include "settings.h"

#include <QDir>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QMessageBox>
#include <QPointer>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include <memory>

namespace traindeck::gui {

using launch::JobState;
using launch::RunSummary;

// Runs fn on a registered worker thread, then done(result) on the GUI thread (dropped if the receiver
// is gone or the application is quitting): see backgroundwork.h.
template <typename Fn, typename Done> static void runInBackground(QObject* receiver, Fn fn, Done done)
{
    background::run(receiver, std::move(fn), std::move(done), QStringLiteral("RunsPage"));
}

RunsPage::RunsPage(std::shared_ptr<const runs::Operations> operations, QWidget* parent)
    : QWidget(parent), m_operations(std::move(operations))
{
    auto* layout = new QVBoxLayout(this);
    auto* top = new QHBoxLayout;
    m_info = new QLabel(this);
    top->addWidget(m_info, 1);
    auto* refreshBtn = new QPushButton(tr("Re&fresh"), this);
    m_open = new QPushButton(tr("&Open in Monitor"), this);
    m_compareBtn = new QPushButton(tr("&Compare loss"), this);
    m_compareBtn->setToolTip(tr("Plot the loss of the selected runs together (select several with Ctrl or Shift)"));
    m_resume = new QPushButton(tr("&Resume"), this);
    m_resume->setToolTip(tr("Relaunch a failed, cancelled or lost run from its latest checkpoint"));
    m_cancel = new QPushButton(tr("C&ancel run"), this);
    m_cancel->setToolTip(tr("Stop a running job (SIGTERM, then SIGKILL after 10 s)"));
    for (QPushButton* b : {refreshBtn, m_open, m_compareBtn, m_resume, m_cancel})
        top->addWidget(b);
    layout->addLayout(top);

    m_model = new RunsModel(this);
    m_view = new QTableView(this);
    m_view->setModel(m_model);
    m_view->setAccessibleName(tr("Run history"));
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->verticalHeader()->setVisible(false);
    m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_view->horizontalHeader()->setSectionResizeMode(RunsModel::RunColumn, QHeaderView::Stretch);
    m_view->setAlternatingRowColors(true);

    m_compare = new QCustomPlot(this);
    m_compare->plotLayout()->insertRow(0);
    auto* title = new QCPTextElement(m_compare, tr("Loss of the compared runs"));
    QFont f = font();
    f.setBold(true);
    title->setFont(f);
    title->setTextColor(palette().color(QPalette::Text));
    m_compare->plotLayout()->addElement(0, 0, title);
    m_compare->xAxis->setLabel(tr("step"));
    m_compare->yAxis->setLabel(tr("loss"));
    m_compare->legend->setVisible(false); // shown once a run is added
    m_compare->setMinimumHeight(200);
    stylePlot(m_compare);
    m_compareHint = new QCPItemText(m_compare);
    m_compareHint->position->setType(QCPItemPosition::ptAxisRectRatio);
    m_compareHint->position->setCoords(0.5, 0.5);
    m_compareHint->setText(tr("Select one or more runs above and press Compare loss"));
    m_compareHint->setColor(palette().color(QPalette::PlaceholderText));

    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_view);
    split->addWidget(m_compare);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 1);
    layout->addWidget(split, 1);

    connect(refreshBtn, &QPushButton::clicked, this, &RunsPage::refresh);
    connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this, &RunsPage::updateButtons);
    connect(m_model, &QAbstractItemModel::dataChanged, this, &RunsPage::updateButtons);
    connect(m_model, &QAbstractItemModel::modelReset, this, &RunsPage::updateButtons);
    connect(m_view, &QTableView::activated, this, [this] { m_open->click(); });
    connect(m_open, &QPushButton::clicked, this, [this] {
        const QModelIndexList rows = m_view->selectionModel()->selectedRows();
        if (rows.isEmpty())
            return;
        const JobState s = JobState(rows.first().data(RunsModel::StateRole).toInt());
        Q_EMIT openRequested(rows.first().data(RunsModel::RunDirRole).toString(), !launch::isFinal(s));
    });
    connect(m_compareBtn, &QPushButton::clicked, this, [this] { compareRunDirs(selectedRunDirs()); });
    connect(m_resume, &QPushButton::clicked, this, &RunsPage::resumeSelected);
    connect(m_cancel, &QPushButton::clicked, this, &RunsPage::cancelSelected);

    m_timer = new QTimer(this);
    m_timer->setInterval(3000);
    connect(m_timer, &QTimer::timeout, this, &RunsPage::refresh);
    m_timer->start();
    m_remoteTimer = new QTimer(this);
    m_remoteTimer->setInterval(30000);
    connect(m_remoteTimer, &QTimer::timeout, this, &RunsPage::syncRemoteRuns);
    m_remoteTimer->start();
    // The first listing after start: ask the heads of remote runs that were running (reattach).
    QPointer<RunsPage> self(this);
    auto* once = new QObject(this);
    connect(this, &RunsPage::refreshed, once, [self, once] {
        delete once;
        if (self)
            self->syncRemoteRuns();
    });
    updateButtons();
    refresh();
}

RunsPage::~RunsPage() = default;

void RunsPage::refresh()
{
    if (m_listing)
        return;
    m_listing = true;
    const QString dir = Settings::runsDir();
    runInBackground(
        this,
        [operations = m_operations, dir] { return operations->list(dir).value(); }, // without refresh: never fails
        [this, dir](QList<RunSummary> runs) {
            m_listing = false;
            m_model->setRuns(runs);
            int live = 0;
            for (const RunSummary& r : runs)
                live += launch::isFinal(r.state) ? 0 : 1;
            m_info->setText(
                (runs.isEmpty()
                     ? tr("No runs in %1 yet: start one on the Launch page.").arg(QDir::toNativeSeparators(dir))
                     : tr("%n run(s) in %1", nullptr, int(runs.size())).arg(QDir::toNativeSeparators(dir))) +
                (live ? QStringLiteral(" — ") + tr("%n running", nullptr, live) : QString()));
            Q_EMIT refreshed();
        });
}

void RunsPage::syncRemoteRuns()
{
    QList<RunSummary> remote;
    for (const RunSummary& r : m_model->runs()) {
        if (r.remote && !r.synced)
            remote << r;
    }
    if (remote.isEmpty() || m_syncing)
        return;
    m_syncing = true;
    runInBackground(
        this,
        [operations = m_operations, remote] {
            // Told to stop (quitting): the next start syncs the rest.
            return operations->refreshRemote(remote, [] { return background::quitting(); });
        },
        [this](QStringList errors) {
            m_syncing = false;
            if (!errors.isEmpty())
                m_info->setText(tr("Cannot reach the head node of a remote run: %1").arg(errors.first()));
            Q_EMIT remoteSynced(errors);
            refresh();
        });
}

QStringList RunsPage::selectedRunDirs() const
{
    QStringList out;
    for (const QModelIndex& i : m_view->selectionModel()->selectedRows())
        out << i.data(RunsModel::RunDirRole).toString();
    return out;
}

void RunsPage::selectRunDir(const QString& runDir)
{
    const int row = m_model->rowOfRunDir(runDir);
    if (row >= 0)
        m_view->selectRow(row);
}

void RunsPage::updateButtons()
{
    const QModelIndexList rows = m_view->selectionModel()->selectedRows();
    bool canResume = rows.size() == 1, canCancel = rows.size() == 1;
    for (const QModelIndex& i : rows) {
        const JobState s = JobState(i.data(RunsModel::StateRole).toInt());
        canResume = canResume && (s == JobState::Failed || s == JobState::Cancelled || s == JobState::Lost);
        canCancel = canCancel && !launch::isFinal(s);
    }
    m_open->setEnabled(rows.size() == 1);
    m_compareBtn->setEnabled(!rows.isEmpty());
    m_resume->setEnabled(canResume);
    m_cancel->setEnabled(canCancel);
}

void RunsPage::compareRunDirs(const QStringList& runDirs)
{
    const quint64 ticket = ++m_compareTicket;
    m_compare->clearGraphs();
    m_compareHint->setVisible(runDirs.isEmpty());
    m_compare->replot(QCustomPlot::rpQueuedRefresh);
    struct Curve {
        QString name;
        XYSeries series;
        QString error;
    };
    for (int i = 0; i < runDirs.size(); ++i) {
        const QString dir = runDirs.at(i);
        runInBackground(
            this,
            [dir] {
                Curve c;
                metrics::MetricStore store;
                const auto report = store.loadFile(launch::runFile(dir, launch::runfile::kMetrics));
                c.name = store.hello() ? store.hello()->runId : QDir(dir).dirName();
                if (!report)
                    c.error = report.firstError().toString();
                c.series = seriesForPlot(store, metrics::SeriesId::of(metrics::Scalar::Loss), -1, -1, 4000);
                return c;
            },
            [this, ticket, i](Curve c) {
                if (ticket != m_compareTicket)
                    return;
                if (!c.error.isEmpty()) {
                    m_info->setText(tr("Cannot read the metrics of %1: %2").arg(c.name, c.error));
                    return;
                }
                QCPGraph* g = m_compare->addGraph();
                g->setName(c.name);
                g->setPen(QPen(seriesColor(i), 1.5));
                g->setData(c.series.keys, c.series.values, true);
                m_compare->legend->setVisible(true);
                m_compare->rescaleAxes();
                m_compare->replot(QCustomPlot::rpQueuedRefresh);
            });
    }
}

void RunsPage::resumeSelected()
{
    const QStringList dirs = selectedRunDirs();
    if (dirs.size() != 1)
        return;
    const QString dir = dirs.first();
    m_resume->setEnabled(false);
    m_info->setText(tr("Resuming %1…").arg(QDir(dir).dirName()));
    runInBackground(
        this, [operations = m_operations, dir] { return operations->resume(dir); },
        [this, dir](Result<runs::StartedRun> r) {
            if (!r.ok()) {
                QMessageBox::warning(this, tr("Resume failed"), r.errorString());
            } else {
                Q_EMIT runLaunched(dir);
            }
            refresh();
        });
}

void RunsPage::cancelSelected()
{
    const QStringList dirs = selectedRunDirs();
    if (dirs.size() != 1)
        return;
    const QString dir = dirs.first();
    if (QMessageBox::question(
            this, tr("Cancel run"),
            tr("Stop %1? Training ends now; the latest checkpoint stays for a resume.").arg(QDir(dir).dirName())) !=
        QMessageBox::Yes)
        return;
    m_cancel->setEnabled(false);
    m_info->setText(tr("Cancelling %1…").arg(QDir(dir).dirName()));
    runInBackground(
        this, [operations = m_operations, dir] { return operations->cancel(dir); },
        [this](Result<JobState> r) {
            if (!r.ok())
                QMessageBox::warning(this, tr("Cancel failed"), r.errorString());
            else if (!r.warnings().isEmpty())
                m_info->setText(formatDiagnostics(r.warnings()));
            refresh();
        });
}

} // namespace traindeck::gui
