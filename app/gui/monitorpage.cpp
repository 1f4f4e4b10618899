#include "monitorpage.h"

#include "analysis/diagnosis.h"
#include "backgroundwork.h"
#include "common/format.h"
#include "findingspanel.h"
#include "logspanel.h"
#include "monitorcsv.h"
#include "plotstyle.h"
#include "qcp.h"
#include "runs/operations.h"
#include "runsession.h"
#include "settings.h"

#include <QCheckBox>
#include <QComboBox>
#include <QElapsedTimer>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QPointer>
#include <QProgressDialog>
#include <QSaveFile>
#include <QSlider>
#include <QSpinBox>
#include <QSplitter>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTextStream>
#include <QThread>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace traindeck::gui {

using metrics::MetricStore;
using metrics::Scalar;

MonitorPage::MonitorPage(RunSession* session, QWidget* parent) : QWidget(parent), m_session(session)
{
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(buildControls());
    m_tabs = new QTabWidget(this);
    // Parented here first, so their plots take this page's font and palette, as the tabs' own did.
    m_training = new monitor::TrainingTab(this);
    m_devices = new monitor::DevicesTab(this);
    m_balance = new monitor::BalanceTab(this);
    m_tabs->addTab(m_training, tr("&Training"));
    m_tabs->addTab(m_devices, tr("&Devices"));
    m_tabs->addTab(m_balance, tr("&Load balance"));
    m_logs = new LogsPanel(session, this);
    m_tabs->addTab(m_logs, tr("L&ogs"));

    m_findings = new FindingsPanel(this);
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(m_tabs);
    split->addWidget(m_findings);
    split->setStretchFactor(0, 4);
    split->setStretchFactor(1, 1);
    split->setSizes({900, 300});
    layout->addWidget(split, 1);
    m_status = new QLabel(this); // shown in the main window's status bar
    m_status->setVisible(false);

    connectBehaviour();
    schedule(DirtyRebuild);
}

// The title and the controls above the tabs: smoothing, the bars' window, the heatmap's metric, follow,
// zoom reset and the exports.
QHBoxLayout* MonitorPage::buildControls()
{
    auto* controls = new QHBoxLayout;
    m_title = new QLabel(tr("No run"), this);
    QFont tf = m_title->font();
    tf.setBold(true);
    tf.setPointSizeF(tf.pointSizeF() * 1.15);
    m_title->setFont(tf);
    controls->addWidget(m_title);
    controls->addStretch(1);

    auto* smoothLabel = new QLabel(tr("&Smoothing:"), this);
    m_smoothSlider = new QSlider(Qt::Horizontal, this);
    m_smoothSlider->setRange(0, 999);
    m_smoothSlider->setValue(600);
    m_smoothSlider->setFixedWidth(120);
    m_smoothSlider->setToolTip(tr("Weight of the exponential moving average of the loss (debiased)"));
    smoothLabel->setBuddy(m_smoothSlider);
    m_smoothLabel = new QLabel(this);
    m_smoothLabel->setMinimumWidth(QFontMetrics(font()).horizontalAdvance(QStringLiteral("0.999")) + 4);
    controls->addWidget(smoothLabel);
    controls->addWidget(m_smoothSlider);
    controls->addWidget(m_smoothLabel);

    auto* stepsLabel = new QLabel(tr("&Bars over last:"), this);
    m_balanceSteps = new QSpinBox(this);
    m_balanceSteps->setRange(1, 100000);
    m_balanceSteps->setValue(50);
    m_balanceSteps->setSuffix(tr(" steps"));
    m_balanceSteps->setToolTip(tr("The load-balance bars show the mean of each phase over these last steps"));
    stepsLabel->setBuddy(m_balanceSteps);
    controls->addWidget(stepsLabel);
    controls->addWidget(m_balanceSteps);

    auto* heatLabel = new QLabel(tr("&Heatmap:"), this);
    m_heatMetric = new QComboBox(this);
    m_heatMetric->addItem(tr("Step time"), int(HeatmapMetric::Step));
    m_heatMetric->addItem(tr("Data loading"), int(HeatmapMetric::Data));
    m_heatMetric->addItem(tr("Forward"), int(HeatmapMetric::Forward));
    m_heatMetric->addItem(tr("Backward"), int(HeatmapMetric::Backward));
    m_heatMetric->addItem(tr("Communication (critical path)"), int(HeatmapMetric::Comm));
    m_heatMetric->addItem(tr("Communication wait"), int(HeatmapMetric::CommWait));
    m_heatMetric->addItem(tr("Communication hidden by backward"), int(HeatmapMetric::CommHidden));
    m_heatMetric->addItem(tr("Optimizer"), int(HeatmapMetric::Optimizer));
    m_heatMetric->addItem(tr("Compute (fwd+bwd+opt)"), int(HeatmapMetric::Compute));
    m_heatMetric->addItem(tr("Samples (share of the batch)"), int(HeatmapMetric::Samples));
    heatLabel->setBuddy(m_heatMetric);
    controls->addWidget(heatLabel);
    controls->addWidget(m_heatMetric);

    m_followBox = new QCheckBox(tr("&Follow latest"), this);
    m_followBox->setChecked(true);
    m_followBox->setToolTip(tr("Keep the newest step in view; zooming or panning turns this off"));
    controls->addWidget(m_followBox);

    auto* resetBtn = new QToolButton(this);
    resetBtn->setText(tr("Reset &zoom"));
    resetBtn->setToolTip(tr("Show the whole run again (also: double-click a plot)"));
    auto* pngBtn = new QToolButton(this);
    pngBtn->setText(tr("Export &PNG…"));
    pngBtn->setToolTip(tr("Save the plots of the current tab as an image"));
    auto* csvBtn = new QToolButton(this);
    csvBtn->setText(tr("Export &CSV…"));
    csvBtn->setToolTip(tr("Save the run's series (scalars and per-rank step times) as CSV"));
    controls->addWidget(resetBtn);
    controls->addWidget(pngBtn);
    controls->addWidget(csvBtn);
    connect(resetBtn, &QToolButton::clicked, this, &MonitorPage::resetZoom);
    connect(pngBtn, &QToolButton::clicked, this, &MonitorPage::exportPng);
    connect(csvBtn, &QToolButton::clicked, this, &MonitorPage::exportCsv);
    return controls;
}

// The session's updates, the controls and the plots' interactions.
void MonitorPage::connectBehaviour()
{
    m_timer = new QTimer(this);
    m_timer->setSingleShot(true);
    m_timer->setInterval(Settings::refreshMs());
    connect(m_timer, &QTimer::timeout, this, &MonitorPage::refresh);
    connect(m_session, &RunSession::changed, this, [this] { schedule(DirtyData | DirtyFindings); });
    connect(m_session, &RunSession::reset, this, [this] { schedule(DirtyRebuild | DirtyFindings); });
    connect(m_session, &RunSession::modeChanged, this, [this] { updateStatus(); });
    connect(m_smoothSlider, &QSlider::valueChanged, this, [this](int v) {
        m_smoothLabel->setText(formatNumber(v / 1000.0, 3, 'f', QLocale()));
        m_training->setSmoothing(v / 1000.0);
        m_training->updateSmoothed(m_session->store(), true);
        schedule(DirtyRebuild);
    });
    m_smoothLabel->setText(formatNumber(0.6, 3, 'f', QLocale()));
    m_training->setSmoothing(0.6);
    m_balance->setBarSteps(m_balanceSteps->value());
    connect(m_balanceSteps, &QSpinBox::valueChanged, this, [this](int steps) {
        m_balance->setBarSteps(steps);
        schedule(DirtyData);
    });
    connect(m_heatMetric, &QComboBox::currentIndexChanged, this, [this] {
        m_balance->setHeatmapMetric(HeatmapMetric(m_heatMetric->currentData().toInt()), m_heatMetric->currentText());
        schedule(DirtyData);
    });
    connect(m_followBox, &QCheckBox::toggled, this, &MonitorPage::setFollowLatest);
    connect(m_tabs, &QTabWidget::currentChanged, this, [this] { schedule(0); });
    connect(m_findings, &FindingsPanel::ranksSelected, this, &MonitorPage::setSelectedRanks);
    for (QCustomPlot* plot : timePlots()) {
        connect(plot->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this,
                [this, plot](const QCPRange& r) { onXRangeChanged(plot, r); });
        connect(plot, &QCustomPlot::mouseDoubleClick, this, [this] { resetZoom(); });
    }
    connect(m_balance, &monitor::BalanceTab::ranksPicked, this, &MonitorPage::setSelectedRanks);
    connect(m_balance, &monitor::BalanceTab::viewChanged, this, [this] { schedule(DirtyData); });
    connect(m_balance, &monitor::BalanceTab::heatmapRowsChanged, this, [this] { schedule(DirtyRange); });
}

MonitorPage::~MonitorPage() = default;

QList<QCustomPlot*> MonitorPage::timePlots() const
{
    return m_training->plots() + m_devices->plots() + QList<QCustomPlot*>{m_balance->heatmapPlot()};
}

QList<int> MonitorPage::selectedRanks() const
{
    QList<int> out(m_selected.begin(), m_selected.end());
    std::sort(out.begin(), out.end());
    return out;
}

double MonitorPage::smoothing() const
{
    return m_smoothSlider->value() / 1000.0;
}
void MonitorPage::setSmoothing(double beta)
{
    m_smoothSlider->setValue(int(std::lround(beta * 1000)));
}
void MonitorPage::setBalanceSteps(int steps)
{
    m_balanceSteps->setValue(steps);
}

void MonitorPage::setHeatmapMetric(HeatmapMetric metric)
{
    const int i = m_heatMetric->findData(int(metric));
    if (i >= 0)
        m_heatMetric->setCurrentIndex(i);
}

void MonitorPage::setFollowLatest(bool follow)
{
    m_follow = follow;
    if (m_followBox->isChecked() != follow) {
        const QSignalBlocker b(m_followBox);
        m_followBox->setChecked(follow);
    }
    if (follow)
        schedule(DirtyRange);
}

void MonitorPage::resetZoom()
{
    setFollowLatest(true);
}

void MonitorPage::setCurrentTab(Tab tab)
{
    m_tabs->setCurrentIndex(int(tab));
}
QWidget* MonitorPage::currentTabWidget() const
{
    return m_tabs->currentWidget();
}

void MonitorPage::schedule(unsigned flags)
{
    m_dirty |= flags;
    for (unsigned& t : m_tabDirty)
        t |= flags & (DirtyData | DirtyRange | DirtyRebuild | DirtySelection);
    // Data changes are drawn within one refresh period, even when a later findings pass was armed.
    const bool dataDirty = m_dirty & ~unsigned(DirtyFindings);
    if (!m_timer->isActive() || (dataDirty && m_timer->remainingTime() > Settings::refreshMs()))
        m_timer->start(Settings::refreshMs());
}

void MonitorPage::refreshNow()
{
    m_timer->stop();
    refresh();
}

void MonitorPage::onXRangeChanged(QCustomPlot* source, const QCPRange& range)
{
    if (m_updating)
        return;
    m_updating = true;
    for (QCustomPlot* p : timePlots()) {
        if (p != source)
            p->xAxis->setRange(range);
    }
    m_updating = false;
    setFollowLatest(false);
    schedule(DirtyRange);
}

void MonitorPage::refresh()
{
    const unsigned dirty = m_dirty;
    m_dirty = 0;
    const MetricStore& store = m_session->store();
    const bool newGeneration = m_session->generation() != m_generation;
    m_generation = m_session->generation();
    // The smoothed loss follows the store whichever tab shows (the CSV export writes it too).
    if (m_training->updateSmoothed(store, newGeneration))
        for (unsigned& t : m_tabDirty)
            t |= DirtyRebuild;
    m_updating = true;
    // The x range: everything when following, otherwise what the user chose.
    if (m_follow && store.rowCount() > 0) {
        // Half a step of margin so the heatmap's first and last columns are whole.
        const double lo = double(store.firstStep()) - 0.5,
                     hi = double(std::max(store.lastStep(), store.firstStep() + 1)) + 0.5;
        for (QCustomPlot* p : timePlots())
            p->xAxis->setRange(lo, hi);
    }
    refreshCurrentTab();
    m_updating = false;
    refreshFindings(dirty & DirtyRebuild, dirty & DirtyFindings);
    m_devices->ensureRankGraphs(store);
    updateStatus();
    replotVisible();
    ++m_redraws;
    // The heatmap drawn in pieces: the next piece at the next refresh.
    if (m_tabs->currentIndex() == BalanceTab && !m_balance->heatmapComplete()) {
        m_tabDirty[BalanceTab] |= DirtyRange;
        m_dirty |= DirtyRange;
    }
    // Data still to draw waits one refresh period; only a findings pass waits for the analysis' cadence.
    if (m_dirty && !m_timer->isActive())
        m_timer->start(m_dirty & ~unsigned(DirtyFindings)
                           ? Settings::refreshMs()
                           : std::max(Settings::refreshMs(), int(m_findingsCadence.msUntilAllowed())));
}

// Only the visible tab is brought up to date; the others keep their dirty flags for when they show.
void MonitorPage::refreshCurrentTab()
{
    const MetricStore& store = m_session->store();
    const int tab = m_tabs->currentIndex();
    const unsigned td = m_tabDirty[tab];
    m_tabDirty[tab] = 0;
    if (tab == TrainingTab && td)
        m_training->refresh(store, m_session->generation(), td & DirtyRebuild);
    else if (tab == DevicesTab && td)
        m_devices->refresh(store, m_session->generation(), td & DirtyRebuild);
    else if (tab == BalanceTab && td)
        m_balance->refresh(store, m_session->generation(), m_follow, td == DirtyRange);
    if (td & (DirtySelection | DirtyRebuild))
        applySelectionStyle();
}

void MonitorPage::replotVisible()
{
    QList<QCustomPlot*> plots;
    switch (m_tabs->currentIndex()) {
    case TrainingTab: plots = m_training->plots(); break;
    case DevicesTab: plots = m_devices->plots(); break;
    case LogsTab: break;
    default: plots = m_balance->plots(); break;
    }
    // One queued call per plot, so the event loop serves input between two plots' drawing.
    for (QCustomPlot* p : std::as_const(plots)) {
        if (m_replotPending.contains(p))
            continue;
        m_replotPending.insert(p);
        QMetaObject::invokeMethod(
            this,
            [this, p] {
                m_replotPending.remove(p);
                p->replot(QCustomPlot::rpQueuedRefresh);
            },
            Qt::QueuedConnection);
    }
}

void MonitorPage::setSelectedRanks(const QList<int>& ranks)
{
    QSet<int> s(ranks.begin(), ranks.end());
    if (s == m_selected)
        return;
    m_selected = s;
    schedule(DirtySelection);
    refreshNow();
    Q_EMIT selectedRanksChanged(selectedRanks());
}

void MonitorPage::applySelectionStyle()
{
    const QList<int> ranks = selectedRanks();
    m_devices->setSelectedRanks(ranks);
    m_balance->setSelectedRanks(ranks);
}

// What the run is known by locally: a remote run's record, a run directory, or the directory of an
// opened metrics file.
QString MonitorPage::sessionRunDir() const
{
    if (!m_session->recordDir().isEmpty())
        return m_session->recordDir();
    if (!m_session->runDir().isEmpty())
        return m_session->runDir();
    return QFileInfo(m_session->path()).absolutePath();
}

void MonitorPage::refreshFindings(bool force, bool dirty)
{
    if (!force && !dirty)
        return;
    const MetricStore& store = m_session->store();
    if (!force && !m_findingsCadence.hasNewRecords(store))
        return;
    if (!force && m_findingsCadence.msUntilAllowed() > 0) {
        m_dirty |= DirtyFindings; // analysed again later (coalesced)
        return;
    }
    m_findingsCadence.ran(store);
    if (store.rowCount() == 0) {
        m_findings->setFindings({});
        return;
    }
    if (m_session->mode() == RunSession::Mode::Offline) {
        // A finished run does not change: the whole run is analysed on a worker thread.
        const auto shared = m_session->storePointer();
        const quint64 generation = m_session->generation();
        const QString runDir = sessionRunDir();
        QPointer<MonitorPage> self(this);
        // A registered worker thread (backgroundwork.h): waited for, bounded, at exit.
        background::start(
            [self, shared, generation, runDir] {
                const QList<analysis::Finding> findings =
                    analysis::Diagnosis::analyze(*shared, runs::Operations::diagnosisOptions(runDir));
                background::post([self, findings, generation] {
                    if (self && self->m_session->generation() == generation)
                        self->m_findings->setFindings(findings);
                });
            },
            QStringLiteral("Findings"), QThread::LowPriority);
        return;
    }
    // Live: the last steps analysed; findings that stop holding stay listed, resolved.
    if (m_liveGeneration != m_session->generation()) {
        m_liveDiagnosis.clear();
        m_liveDiagnosis.setOptions(runs::Operations::diagnosisOptions(sessionRunDir())); // small local files
        m_liveGeneration = m_session->generation();
    }
    if (store.worldSize() <= analysis::LiveDiagnosis::kLargeJobRanks) {
        // A few ms: on the GUI thread.
        QElapsedTimer took;
        took.start();
        m_liveDiagnosis.update(store);
        m_findingsCadence.took(took.elapsed());
        m_findings->setFindings(m_liveDiagnosis.findings());
        return;
    }
    // A large job's analysis takes up to a second: on a worker thread, over a copy of the analysed steps
    // (the store grows meanwhile), one at a time; the cadence spaces them by their cost.
    if (m_liveAnalysing) {
        m_dirty |= DirtyFindings;
        return;
    }
    const analysis::DiagnosisOptions options = m_liveDiagnosis.optionsFor(store);
    // The worker's last copy is not read by it any more (m_liveAnalysing was false): extend it, or copy anew
    // once it holds half a window more than the window (memory: 1.5 windows, 160 MB at 1,024 ranks). At most
    // kLiveCopyRowsPerRefresh rows a refresh: the whole window at once (2,000 steps of 1,024 ranks) held the
    // GUI thread 56-80 ms, the first frame of whichever tab showed.
    constexpr qint64 kLiveCopyRowsPerRefresh = 256;
    const qint64 rows = store.lastStep() - options.fromStep + 1;
    // Rows to copy that start new chunks: those are allocated first, 4,096 columns a refresh, the rows copied in the
    // refresh after (both in one refresh took 12 ms at 1,024 ranks, and the frame over 16 ms with the plots).
    // Only for a copy that will be extended.
    const bool extends = m_liveCopy && m_liveCopyGeneration == m_session->generation() &&
                         m_liveCopy->newRowsOf(store, rows + rows / 2) > 0;
    if (extends && m_liveCopy->startNextRankChunks(4096)) {
        m_findingsCadence.reset();
        m_dirty |= DirtyFindings;
        return;
    }
    if (!m_liveCopy || m_liveCopyGeneration != m_session->generation() ||
        !m_liveCopy->appendNewRowsOf(store, rows + rows / 2, kLiveCopyRowsPerRefresh)) {
        m_liveCopy = store.copyTail(rows, kLiveCopyRowsPerRefresh);
        m_liveCopyGeneration = m_session->generation();
    }
    if (m_liveCopy->lastStep() < store.lastStep()) {
        // Not whole yet: the next refresh copies the next piece, and the analysis is due once it is whole.
        m_findingsCadence.reset();
        m_dirty |= DirtyFindings;
        return;
    }
    m_liveAnalysing = true;
    std::shared_ptr<const MetricStore> copy = m_liveCopy;
    const quint64 generation = m_session->generation();
    QPointer<MonitorPage> self(this);
    background::start(
        [self, copy, options, generation] {
            QElapsedTimer took;
            took.start();
            const QList<analysis::Finding> findings = analysis::Diagnosis::analyze(*copy, options);
            const qint64 ms = took.elapsed(), lastStep = copy->lastStep();
            background::post([self, findings, generation, ms, lastStep] {
                if (!self)
                    return;
                self->m_liveAnalysing = false;
                self->m_findingsCadence.took(ms);
                if (self->m_session->generation() != generation)
                    return;
                self->m_liveDiagnosis.merge(findings, lastStep);
                self->m_findings->setFindings(self->m_liveDiagnosis.findings());
            });
        },
        QStringLiteral("Findings"), QThread::LowPriority);
}

void MonitorPage::updateStatus()
{
    const MetricStore& store = m_session->store();
    const QString title = m_session->title();
    switch (m_session->mode()) {
    case RunSession::Mode::None: m_title->setText(tr("No run — open one on the Runs page or launch one")); break;
    case RunSession::Mode::Loading: m_title->setText(tr("Loading %1…").arg(m_session->path())); break;
    case RunSession::Mode::Live: m_title->setText(tr("Run %1 (live)").arg(title)); break;
    case RunSession::Mode::Offline: m_title->setText(tr("Run %1 (finished, offline)").arg(title)); break;
    }
    QStringList parts;
    if (store.rowCount() > 0) {
        const qint64 row = store.rowCount() - 1;
        parts << tr("step %1").arg(store.lastStep());
        parts << tr("%n rank(s)", nullptr, store.worldSize());
        const double loss = store.scalarAt(Scalar::Loss, row);
        parts << tr("loss %1").arg(formatNumber(loss, 4, 'f', QLocale()));
        const double tps = store.scalarAt(Scalar::TokensPerS, row);
        if (std::isfinite(tps))
            parts << tr("%1 tokens/s").arg(formatNumber(tps, 0, 'f', QLocale()));
        const double mfu = store.scalarAt(Scalar::Mfu, row);
        if (std::isfinite(mfu))
            parts << tr("MFU %1%").arg(formatNumber(mfu * 100, 1, 'f', QLocale()));
    }
    if (m_session->malformedCount() > 0)
        parts << tr("%n malformed line(s) skipped", nullptr, int(m_session->malformedCount()));
    if (!m_selected.isEmpty()) {
        QStringList r;
        for (int k : selectedRanks())
            r << QString::number(k);
        parts << tr("selected ranks: %1").arg(r.join(QStringLiteral(", ")));
    }
    const QString text = parts.join(QStringLiteral(" · "));
    if (text != m_status->text()) {
        m_status->setText(text);
        Q_EMIT statusTextChanged(text);
    }
}

bool MonitorPage::exportPngTo(const QString& path)
{
    refreshNow();
    for (QCustomPlot* p : timePlots())
        p->replot(QCustomPlot::rpImmediateRefresh);
    m_balance->barsPlot()->replot(QCustomPlot::rpImmediateRefresh);
    return m_tabs->currentWidget()->grab().save(path, "PNG");
}

void MonitorPage::exportPng()
{
    const QString dir = QStandardPaths::writableLocation(QStandardPaths::PicturesLocation);
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export plots as PNG"), dir + QLatin1Char('/') + m_session->title() + QStringLiteral(".png"),
        tr("PNG images (*.png)"));
    if (path.isEmpty())
        return;
    if (!exportPngTo(path))
        QMessageBox::warning(this, tr("Export failed"), tr("Could not write %1.").arg(path));
}

void MonitorPage::exportCsv()
{
    if (m_session->store().rowCount() == 0) {
        QMessageBox::information(this, tr("Export CSV"), tr("There is no data to export yet."));
        return;
    }
    const QString dir = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export series as CSV"), dir + QLatin1Char('/') + m_session->title() + QStringLiteral(".csv"),
        tr("CSV files (*.csv)"));
    if (path.isEmpty())
        return;
    // Written in slices from the event loop, with progress and cancel; the store keeps growing
    // meanwhile, so the rows present now are exported.
    auto file = std::make_shared<QSaveFile>(path);
    if (!file->open(QIODevice::WriteOnly | QIODevice::Text)) {
        QMessageBox::warning(this, tr("Export failed"), tr("Could not write %1: %2").arg(path, file->errorString()));
        return;
    }
    const qint64 rows = m_session->store().rowCount();
    const quint64 generation = m_session->generation();
    auto* progress = new QProgressDialog(tr("Exporting %1…").arg(path), tr("Cancel"), 0, 1000, this);
    progress->setWindowModality(Qt::WindowModal);
    progress->setMinimumDuration(300);
    progress->setAttribute(Qt::WA_DeleteOnClose);
    file->write(monitorCsvHeader(m_session->store()).toUtf8());
    auto row = std::make_shared<qint64>(0);
    auto* timer = new QTimer(progress);
    connect(timer, &QTimer::timeout, this, [this, file, row, rows, generation, progress, timer, path] {
        if (progress->wasCanceled() || m_session->generation() != generation) {
            file->cancelWriting();
            timer->stop();
            progress->close();
            return;
        }
        const MetricStore& store = m_session->store();
        const std::vector<float>& smoothed = m_training->smoothedLoss();
        QByteArray chunk;
        const qint64 end = std::min(rows, *row + 5000);
        for (; *row < end; ++*row)
            chunk += monitorCsvRow(store, *row, *row < qint64(smoothed.size()) ? smoothed[size_t(*row)] : metrics::kNaN)
                         .toUtf8();
        file->write(chunk);
        progress->setValue(int(1000 * *row / std::max<qint64>(1, rows)));
        if (*row >= rows) {
            timer->stop();
            progress->close();
            if (!file->commit())
                QMessageBox::warning(this, tr("Export failed"),
                                     tr("Could not write %1: %2").arg(path, file->errorString()));
        }
    });
    timer->start(0);
}

} // namespace traindeck::gui
