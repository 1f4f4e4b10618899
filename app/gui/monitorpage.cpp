#include "monitorpage.h"

#include "analysis/diagnosis.h"
#include "analysis/phases.h"
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
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
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
using metrics::RankMetric;
using metrics::Scalar;
using metrics::SeriesId;

namespace {

QCPColorGradient viridis()
{
    QCPColorGradient g;
    g.clearColorStops();
    g.setColorStopAt(0.0, QColor(68, 1, 84));
    g.setColorStopAt(0.25, QColor(59, 82, 139));
    g.setColorStopAt(0.5, QColor(33, 145, 140));
    g.setColorStopAt(0.75, QColor(94, 201, 98));
    g.setColorStopAt(1.0, QColor(253, 231, 37));
    g.setNanHandling(QCPColorGradient::nhTransparent);
    return g;
}

void setGraphData(QCPGraph* graph, const XYSeries& s)
{
    graph->setData(s.keys, s.values, true);
}

int plotPoints(QCustomPlot* plot)
{
    return std::max(400, plot->width() * 2);
}

} // namespace

MonitorPage::MonitorPage(RunSession* session, QWidget* parent) : QWidget(parent), m_session(session)
{
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(buildControls());
    m_tabs = new QTabWidget(this);
    m_tabs->addTab(buildTrainingTab(), tr("&Training"));
    m_tabs->addTab(buildDevicesTab(), tr("&Devices"));
    m_tabs->addTab(buildBalanceTab(), tr("&Load balance"));
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

// Loss (raw and smoothed), throughput and MFU, learning rate, gradient norm.
QWidget* MonitorPage::buildTrainingTab()
{
    auto* training = new QWidget;
    auto* tg = new QGridLayout(training);
    tg->setContentsMargins(2, 2, 2, 2);
    m_lossPlot = makePlot(tr("Loss"));
    m_lrPlot = makePlot(tr("Learning rate"));
    m_gradPlot = makePlot(tr("Gradient norm"));
    m_tputPlot = makePlot(tr("Throughput"));
    tg->addWidget(m_lossPlot, 0, 0);
    tg->addWidget(m_tputPlot, 0, 1);
    tg->addWidget(m_lrPlot, 1, 0);
    tg->addWidget(m_gradPlot, 1, 1);
    tg->setRowStretch(0, 3);
    tg->setRowStretch(1, 2);

    m_lossRaw = m_lossPlot->addGraph();
    m_lossRaw->setName(tr("loss (raw)"));
    QColor rawColor = seriesColor(0);
    rawColor.setAlphaF(0.35f);
    m_lossRaw->setPen(QPen(rawColor, 1));
    m_lossSmooth = m_lossPlot->addGraph();
    m_lossSmooth->setName(tr("loss (smoothed)"));
    m_lossSmooth->setPen(QPen(seriesColor(0), 2));
    m_lossPlot->legend->setVisible(true);
    m_lossPlot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
    m_lossPlot->yAxis->setLabel(tr("loss"));

    m_lr = m_lrPlot->addGraph();
    m_lr->setName(tr("learning rate"));
    m_lr->setPen(QPen(seriesColor(2), 1.5));
    m_lrPlot->yAxis->setLabel(tr("learning rate"));
    m_lrPlot->yAxis->setNumberFormat(QStringLiteral("gb"));

    m_grad = m_gradPlot->addGraph();
    m_grad->setName(tr("gradient norm"));
    m_grad->setPen(QPen(seriesColor(3), 1.2));
    m_gradPlot->yAxis->setLabel(tr("L2 norm before clipping"));

    m_tokens = m_tputPlot->addGraph();
    m_tokens->setName(tr("tokens/s"));
    m_tokens->setPen(QPen(seriesColor(1), 1.5));
    m_tputPlot->yAxis->setLabel(tr("tokens/s"));
    m_tputPlot->yAxis2->setVisible(true);
    m_tputPlot->yAxis2->setLabel(tr("MFU (%)"));
    m_mfu = m_tputPlot->addGraph(m_tputPlot->xAxis, m_tputPlot->yAxis2);
    m_mfu->setName(tr("MFU (%)"));
    m_mfu->setPen(QPen(seriesColor(4), 1.5, Qt::DashLine));
    m_tputPlot->legend->setVisible(true);
    m_tputPlot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignBottom | Qt::AlignRight);
    stylePlot(m_tputPlot);

    return training;
}

// Utilisation and memory per rank.
QWidget* MonitorPage::buildDevicesTab()
{
    auto* devices = new QWidget;
    auto* dg = new QVBoxLayout(devices);
    dg->setContentsMargins(2, 2, 2, 2);
    m_utilPlot = makePlot(tr("Device utilisation per rank"));
    m_utilPlot->yAxis->setLabel(tr("utilisation (%)"));
    m_memPlot = makePlot(tr("Peak memory per rank"));
    m_memPlot->yAxis->setLabel(tr("memory (MiB)"));
    dg->addWidget(m_utilPlot);
    dg->addWidget(m_memPlot);

    return devices;
}

// The load-balance bars (mean time per phase and rank) and the rank x step heatmap.
QWidget* MonitorPage::buildBalanceTab()
{
    auto* balance = new QWidget;
    auto* bg = new QVBoxLayout(balance);
    bg->setContentsMargins(2, 2, 2, 2);
    m_barsPlot = makePlot(tr("Load balance: mean time per phase and rank"));
    m_barsPlot->xAxis->setLabel(tr("rank and host"));
    m_barsPlot->yAxis->setLabel(tr("ms per step"));
    m_barsPlot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom | QCP::iSelectPlottables);
    m_barsPlot->axisRect()->setRangeDrag(Qt::Horizontal);
    m_barsPlot->axisRect()->setRangeZoom(Qt::Horizontal);
    {
        QSharedPointer<QCPAxisTickerFixed> ticker(new QCPAxisTickerFixed);
        ticker->setTickStep(1.0);
        ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
        m_barsPlot->xAxis->setTicker(ticker);
    }
    const QStringList phaseNames = {tr("data"),          tr("forward"),   tr("backward"),
                                    tr("comm transfer"), tr("comm wait"), tr("optimizer")};
    const int phaseColor[] = {6, 0, 5, 2, 3, 4};
    QCPBars* below = nullptr;
    for (int p = 0; p < int(Phase::Count); ++p) {
        auto* bars = new QCPBars(m_barsPlot->xAxis, m_barsPlot->yAxis);
        bars->setName(phaseNames.at(p));
        const QColor c = seriesColors(PaletteKind::OkabeIto).at(phaseColor[p]);
        bars->setBrush(c);
        bars->setPen(QPen(c.darker(130), 1));
        bars->setWidth(0.7);
        bars->setStackingGap(0);
        bars->setSelectable(QCP::stDataRange);
        auto* decorator = new QCPSelectionDecorator;
        decorator->setBrush(c.darker(150));
        decorator->setPen(QPen(palette().color(QPalette::Text), 2));
        bars->setSelectionDecorator(decorator);
        if (below)
            bars->moveAbove(below);
        below = bars;
        m_bars.append(bars);
    }
    // The legend in its own row under the title, one line, never over the bars.
    m_barsPlot->legend->setVisible(true);
    m_barsPlot->axisRect()->insetLayout()->take(m_barsPlot->legend);
    m_barsPlot->plotLayout()->insertRow(1);
    m_barsPlot->plotLayout()->addElement(1, 0, m_barsPlot->legend);
    m_barsPlot->plotLayout()->setRowStretchFactor(1, 0.001);
    m_barsPlot->legend->setFillOrder(QCPLegend::foColumnsFirst);
    m_barsPlot->legend->setWrap(6);
    m_barsPlot->legend->setBorderPen(Qt::NoPen);
    m_barsPlot->legend->setMargins(QMargins(4, 0, 4, 0));

    m_heatPlot = makePlot(tr("Step time per rank and step"));
    m_heatPlot->yAxis->setLabel(tr("rank and host"));
    m_heatPlot->axisRect()->setRangeDrag(Qt::Horizontal);
    m_heatPlot->axisRect()->setRangeZoom(Qt::Horizontal);
    m_heat = new QCPColorMap(m_heatPlot->xAxis, m_heatPlot->yAxis);
    m_heat->setInterpolate(false);
    m_heat->setTightBoundary(false);
    m_heatScale = new QCPColorScale(m_heatPlot);
    m_heatPlot->plotLayout()->addElement(1, 1, m_heatScale);
    m_heatScale->setType(QCPAxis::atRight);
    m_heatScale->axis()->setLabel(tr("ms"));
    m_heatScale->axis()->setTickLabelColor(palette().color(QPalette::Text));
    m_heatScale->axis()->setLabelColor(palette().color(QPalette::Text));
    m_heatScale->axis()->setBasePen(QPen(palette().color(QPalette::Text)));
    m_heatScale->axis()->setTickPen(QPen(palette().color(QPalette::Text)));
    m_heat->setColorScale(m_heatScale);
    m_heat->setGradient(viridis());
    auto* margins = new QCPMarginGroup(m_heatPlot);
    m_heatPlot->axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
    m_heatScale->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
    bg->addWidget(m_barsPlot);
    bg->addWidget(m_heatPlot);

    return balance;
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
        m_ema = DebiasedEma(v / 1000.0);
        updateSmoothed(true);
        schedule(DirtyRebuild);
    });
    m_smoothLabel->setText(formatNumber(0.6, 3, 'f', QLocale()));
    m_ema = DebiasedEma(0.6);
    connect(m_balanceSteps, &QSpinBox::valueChanged, this, [this] { schedule(DirtyData); });
    connect(m_heatMetric, &QComboBox::currentIndexChanged, this, [this] {
        m_metric = HeatmapMetric(m_heatMetric->currentData().toInt());
        if (auto* title = qobject_cast<QCPTextElement*>(m_heatPlot->plotLayout()->element(0, 0)))
            title->setText(tr("%1 per rank and step").arg(m_heatMetric->currentText()));
        m_heatScale->axis()->setLabel(m_metric == HeatmapMetric::Samples ? tr("samples") : tr("ms"));
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
    connect(m_barsPlot, &QCustomPlot::plottableClick, this,
            [this](QCPAbstractPlottable*, int index, QMouseEvent*) { setSelectedRanks({index}); });
    connect(m_barsPlot, &QCustomPlot::mouseDoubleClick, this, [this] { setSelectedRanks({}); });
}

MonitorPage::~MonitorPage() = default;

QCustomPlot* MonitorPage::makePlot(const QString& title)
{
    auto* plot = new QCustomPlot(this);
    plot->setMinimumSize(260, 160);
    plot->plotLayout()->insertRow(0);
    auto* text = new QCPTextElement(plot, title);
    QFont f = font();
    f.setBold(true);
    text->setFont(f);
    text->setTextColor(palette().color(QPalette::Text));
    plot->plotLayout()->addElement(0, 0, text);
    plot->xAxis->setLabel(tr("step"));
    plot->setAccessibleName(title);
    stylePlot(plot);
    plot->axisRect()->setRangeDrag(Qt::Horizontal);
    plot->axisRect()->setRangeZoom(Qt::Horizontal);
    return plot;
}

QList<QCustomPlot*> MonitorPage::timePlots() const
{
    return {m_lossPlot, m_lrPlot, m_gradPlot, m_tputPlot, m_utilPlot, m_memPlot, m_heatPlot};
}

QCPGraph* MonitorPage::utilGraph(int rank) const
{
    return m_util.value(rank);
}
QCPGraph* MonitorPage::memGraph(int rank) const
{
    return m_mem.value(rank);
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
    if (m_session->generation() != m_generation) {
        m_generation = m_session->generation();
        for (unsigned& t : m_tabDirty)
            t |= DirtyRebuild;
        updateSmoothed(true);
    } else {
        updateSmoothed(false);
    }
    m_updating = true;
    // The x range: everything when following, otherwise what the user chose.
    if (m_follow && store.rowCount() > 0) {
        // Half a step of margin so the heatmap's first and last columns are whole.
        const double lo = double(store.firstStep()) - 0.5,
                     hi = double(std::max(store.lastStep(), store.firstStep() + 1)) + 0.5;
        for (QCustomPlot* p : timePlots())
            p->xAxis->setRange(lo, hi);
    }
    const int tab = m_tabs->currentIndex();
    const unsigned td = m_tabDirty[tab];
    m_tabDirty[tab] = 0;
    if (tab == TrainingTab && td)
        refreshTraining(td & DirtyRebuild);
    else if (tab == DevicesTab && td)
        refreshDevices(td & DirtyRebuild);
    else if (tab == BalanceTab && td) {
        refreshBalance();
        refreshHeatmap();
    }
    if (td & (DirtySelection | DirtyRebuild))
        applySelectionStyle();
    m_updating = false;
    refreshFindings(dirty & DirtyRebuild, dirty & DirtyFindings);
    ensureRankGraphs();
    updateStatus();
    replotVisible();
    ++m_redraws;
    if (m_dirty && !m_timer->isActive())
        m_timer->start(std::max(Settings::refreshMs(), int(m_findingsCadence.msUntilAllowed())));
}

void MonitorPage::replotVisible()
{
    QList<QCustomPlot*> plots;
    switch (m_tabs->currentIndex()) {
    case TrainingTab: plots = {m_lossPlot, m_lrPlot, m_gradPlot, m_tputPlot}; break;
    case DevicesTab: plots = {m_utilPlot, m_memPlot}; break;
    case LogsTab: break;
    default: plots = {m_barsPlot, m_heatPlot}; break;
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

void MonitorPage::updateSmoothed(bool rebuild)
{
    const MetricStore& store = m_session->store();
    const qint64 rows = store.rowCount();
    // A resumed run replaces steps: when the row we smoothed last changed step, start over.
    if (!rebuild && !m_smoothed.empty()) {
        const qint64 last = qint64(m_smoothed.size()) - 1;
        if (last >= rows || store.stepAt(last) != m_plottedLastStep)
            rebuild = true;
    }
    if (rebuild) {
        m_smoothed.clear();
        m_ema.reset();
        m_plottedRows = 0; // raw series must be rebuilt too
        m_plottedLastStep = -1;
        m_deviceRows = 0;
        for (unsigned& t : m_tabDirty)
            t |= DirtyRebuild;
    }
    m_smoothed.reserve(size_t(rows));
    for (qint64 r = qint64(m_smoothed.size()); r < rows; ++r)
        m_smoothed.push_back(float(m_ema.add(store.scalarAt(Scalar::Loss, r))));
    if (rows > 0 && rebuild)
        m_plottedLastStep = store.stepAt(rows - 1);
}

XYSeries MonitorPage::visibleSeries(const QString& key, const std::function<XYSeries(qint64, qint64, int)>& compute,
                                    qint64 lo, qint64 hi, int points)
{
    constexpr int kEnvelopePoints = 16384;
    const MetricStore& store = m_session->store();
    const qint64 visibleRows = store.lowerBoundRow(hi + 1) - store.lowerBoundRow(lo);
    if (visibleRows <= kRawLimit)
        return compute(lo, hi, points);
    if (m_envelopeGeneration != m_session->generation() ||
        (m_envelopeRows != store.rowCount() && (!m_envelopeClock.isValid() || m_envelopeClock.elapsed() >= 1000))) {
        m_envelopes.clear();
        m_envelopeGeneration = m_session->generation();
        m_envelopeRows = store.rowCount();
        m_envelopeClock.start();
    }
    auto it = m_envelopes.find(key);
    if (it == m_envelopes.end())
        it = m_envelopes.insert(key, compute(-1, -1, kEnvelopePoints));
    const XYSeries& env = it.value();
    const auto first = std::lower_bound(env.keys.cbegin(), env.keys.cend(), double(lo));
    const auto last = std::upper_bound(first, env.keys.cend(), double(hi));
    XYSeries out;
    out.decimated = true;
    const qsizetype a = first - env.keys.cbegin(), n = last - first;
    out.keys = env.keys.mid(a, n);
    out.values = env.values.mid(a, n);
    return out;
}

void MonitorPage::refreshTraining(bool rebuild)
{
    const MetricStore& store = m_session->store();
    const qint64 rows = store.rowCount();
    const std::pair<QCPGraph*, Scalar> scalars[] = {{m_lossRaw, Scalar::Loss},
                                                    {m_lr, Scalar::Lr},
                                                    {m_grad, Scalar::GradNorm},
                                                    {m_tokens, Scalar::TokensPerS},
                                                    {m_mfu, Scalar::Mfu}};
    if (rows > kRawLimit) {
        // Decimated from the store over the visible range, rebuilt on every refresh.
        m_decimatedMode = true;
        const QCPRange range = m_lossPlot->xAxis->range();
        const qint64 lo = std::max<qint64>(store.firstStep(), qint64(std::floor(range.lower)));
        const qint64 hi = std::min<qint64>(store.lastStep(), qint64(std::ceil(range.upper)));
        for (const auto& [graph, scalar] : scalars) {
            const SeriesId id = SeriesId::of(scalar);
            XYSeries s = visibleSeries(
                QString::fromLatin1(metrics::scalarKey(scalar)),
                [&](qint64 a, qint64 b, int n) { return seriesForPlot(store, id, a, b, n); }, lo, hi,
                plotPoints(graph->parentPlot()));
            if (scalar == Scalar::Mfu)
                for (double& v : s.values)
                    v *= 100;
            setGraphData(graph, s);
        }
        setGraphData(m_lossSmooth,
                     visibleSeries(
                         QStringLiteral("smoothed"),
                         [&](qint64 a, qint64 b, int n) { return vectorForPlot(store, m_smoothed, a, b, n); }, lo, hi,
                         plotPoints(m_lossPlot)));
        m_plottedRows = rows;
        m_plottedLastStep = store.lastStep();
    } else {
        if (rebuild || m_decimatedMode || m_plottedRows > rows ||
            (m_plottedRows > 0 && store.stepAt(m_plottedRows - 1) != m_plottedLastStep)) {
            for (const auto& [graph, scalar] : scalars)
                graph->data()->clear();
            m_lossSmooth->data()->clear();
            m_plottedRows = 0;
            m_decimatedMode = false;
        }
        // Append only the new rows.
        const qint64 from = m_plottedRows;
        if (rows > from) {
            QVector<double> keys, values;
            keys.reserve(rows - from);
            values.reserve(rows - from);
            for (const auto& [graph, scalar] : scalars) {
                keys.clear();
                values.clear();
                for (qint64 r = from; r < rows; ++r) {
                    double v = store.scalarAt(scalar, r);
                    if (!std::isfinite(v))
                        continue;
                    if (scalar == Scalar::Mfu)
                        v *= 100;
                    keys.append(double(store.stepAt(r)));
                    values.append(v);
                }
                graph->addData(keys, values, true);
            }
            keys.clear();
            values.clear();
            for (qint64 r = from; r < rows && r < qint64(m_smoothed.size()); ++r) {
                if (!std::isfinite(m_smoothed[size_t(r)]))
                    continue;
                keys.append(double(store.stepAt(r)));
                values.append(m_smoothed[size_t(r)]);
            }
            m_lossSmooth->addData(keys, values, true);
            m_plottedRows = rows;
            m_plottedLastStep = store.stepAt(rows - 1);
        }
    }
    for (QCustomPlot* p : {m_lossPlot, m_lrPlot, m_gradPlot}) {
        bool first = true;
        for (int i = 0; i < p->graphCount(); ++i) {
            if (p->graph(i)->dataCount() == 0)
                continue;
            p->graph(i)->rescaleValueAxis(!first, true);
            first = false;
        }
    }
    m_tokens->rescaleValueAxis(false, true);
    m_mfu->rescaleValueAxis(false, true);
    // Headroom so flat lines do not sit on the frame.
    for (QCPAxis* axis :
         {m_lossPlot->yAxis, m_lrPlot->yAxis, m_gradPlot->yAxis, m_tputPlot->yAxis, m_tputPlot->yAxis2}) {
        const QCPRange r = axis->range();
        const double pad = r.size() > 0 ? r.size() * 0.05 : std::max(1e-12, std::abs(r.upper) * 0.05);
        axis->setRange(r.lower - pad, r.upper + pad);
    }
    if (m_tokens->dataCount() > 0 && m_tputPlot->yAxis->range().lower > 0)
        m_tputPlot->yAxis->setRangeLower(0);
    if (m_mfu->dataCount() > 0)
        m_tputPlot->yAxis2->setRangeLower(0);
}

void MonitorPage::ensureRankGraphs()
{
    const int world = m_session->store().worldSize();
    if (m_util.size() == world)
        return;
    m_utilPlot->clearGraphs();
    m_memPlot->clearGraphs();
    m_util.clear();
    m_mem.clear();
    for (int r = 0; r < world; ++r) {
        const QString host = m_session->store().hostOf(r);
        const QString name = host.isEmpty() ? tr("rank %1").arg(r) : tr("rank %1 (%2)").arg(r).arg(host);
        auto* u = m_utilPlot->addGraph();
        u->setName(name);
        auto* m = m_memPlot->addGraph();
        m->setName(name);
        m_util.append(u);
        m_mem.append(m);
    }
    const bool legend = world > 0 && world <= 8;
    m_utilPlot->legend->setVisible(legend);
    m_memPlot->legend->setVisible(legend);
    m_utilPlot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignBottom | Qt::AlignRight);
    m_memPlot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignBottom | Qt::AlignRight);
    m_deviceRows = 0;
    applySelectionStyle();
}

void MonitorPage::refreshDevices(bool rebuild)
{
    ensureRankGraphs();
    const MetricStore& store = m_session->store();
    const qint64 rows = store.rowCount();
    const int world = store.worldSize();
    const bool decimate = qint64(rows) * std::max(1, world) > kRawLimit * 4LL;
    const std::pair<const QList<QCPGraph*>*, RankMetric> sets[] = {{&m_util, RankMetric::Util},
                                                                   {&m_mem, RankMetric::Mem}};
    if (decimate) {
        const QCPRange range = m_utilPlot->xAxis->range();
        const qint64 lo = std::max<qint64>(store.firstStep(), qint64(std::floor(range.lower)));
        const qint64 hi = std::min<qint64>(store.lastStep(), qint64(std::ceil(range.upper)));
        const int points = std::max(200, m_utilPlot->width() / std::max(1, world / 8));
        for (const auto& [graphs, metric] : sets) {
            for (int r = 0; r < world; ++r) {
                const SeriesId id = SeriesId::of(metric, r);
                setGraphData(graphs->at(r),
                             visibleSeries(
                                 QStringLiteral("%1/%2").arg(QLatin1String(metrics::rankMetricKey(metric))).arg(r),
                                 [&](qint64 a, qint64 b, int n) { return seriesForPlot(store, id, a, b, n); }, lo, hi,
                                 points));
            }
        }
        m_deviceDecimated = true;
        m_deviceRows = rows;
    } else {
        if (rebuild || m_deviceDecimated || m_deviceRows > rows ||
            (m_deviceRows > 0 && store.stepAt(m_deviceRows - 1) != m_deviceLastStep)) {
            for (const auto& [graphs, metric] : sets)
                for (QCPGraph* g : *graphs)
                    g->data()->clear();
            m_deviceRows = 0;
            m_deviceDecimated = false;
        }
        QVector<double> keys, values;
        for (const auto& [graphs, metric] : sets) {
            for (int r = 0; r < world; ++r) {
                keys.clear();
                values.clear();
                for (qint64 row = m_deviceRows; row < rows; ++row) {
                    const float v = store.rankAt(metric, r, row);
                    if (!std::isfinite(v))
                        continue;
                    keys.append(double(store.stepAt(row)));
                    values.append(v);
                }
                graphs->at(r)->addData(keys, values, true);
            }
        }
        m_deviceRows = rows;
    }
    if (rows > 0)
        m_deviceLastStep = store.stepAt(rows - 1);
    m_utilPlot->yAxis->setRange(0, 105);
    bool first = true;
    for (QCPGraph* g : std::as_const(m_mem)) {
        if (g->dataCount() == 0)
            continue;
        g->rescaleValueAxis(!first, true);
        first = false;
    }
    if (!first)
        m_memPlot->yAxis->setRangeLower(0);
    if (!first)
        m_memPlot->yAxis->setRangeUpper(m_memPlot->yAxis->range().upper * 1.05);
}

void MonitorPage::refreshBalance()
{
    const MetricStore& store = m_session->store();
    const analysis::PhaseMeans means = analysis::phaseMeans(store, m_balanceSteps->value());
    QVector<double> keys(means.ranks);
    for (int r = 0; r < means.ranks; ++r)
        keys[r] = r;
    double top = 0;
    for (int p = 0; p < int(Phase::Count); ++p) {
        QVector<double> values(means.ranks);
        for (int r = 0; r < means.ranks; ++r) {
            const double v = means.ms[size_t(p)][size_t(r)];
            values[r] = std::isfinite(v) ? v : 0;
        }
        m_bars[p]->setData(keys, values, true);
    }
    for (int r = 0; r < means.ranks; ++r)
        top = std::max(top, means.total(r));
    m_barsPlot->xAxis->setRange(-0.6, std::max(1, means.ranks) - 0.4);
    m_barsPlot->yAxis->setRange(0, top > 0 ? top * 1.08 : 1);
    if (auto* title = qobject_cast<QCPTextElement*>(m_barsPlot->plotLayout()->element(0, 0))) {
        title->setText(
            means.steps > 0
                ? tr("Load balance: mean time per phase and rank, steps %1–%2").arg(means.fromStep).arg(means.toStep)
                : tr("Load balance: mean time per phase and rank"));
    }
    if (means.ranks > 16) {
        m_barsPlot->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    } else {
        // Each rank labelled with its host, so a slow bar names the machine too.
        QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
        for (int r = 0; r < means.ranks; ++r) {
            const QString host = store.hostOf(r);
            ticker->addTick(r, host.isEmpty() ? QString::number(r) : QStringLiteral("%1\n%2").arg(r).arg(host));
        }
        m_barsPlot->xAxis->setTicker(ticker);
    }
}

void MonitorPage::refreshHeatmap()
{
    const MetricStore& store = m_session->store();
    const int world = store.worldSize();
    const QCPRange range = m_heatPlot->xAxis->range();
    qint64 r0 = 0, r1 = store.rowCount();
    if (store.rowCount() > 0 && !m_follow) {
        r0 = store.lowerBoundRow(qint64(std::floor(range.lower)));
        r1 = store.lowerBoundRow(qint64(std::ceil(range.upper)) + 1);
    }
    const int maxColumns = std::max(200, m_heatPlot->axisRect()->width());
    const HeatmapGrid g = heatmapGrid(store, m_metric, r0, r1, maxColumns);
    QCPColorMapData* cells = m_heat->data();
    if (g.columns == 0) {
        cells->clear();
        return;
    }
    cells->setSize(g.columns, g.ranks);
    cells->setRange(QCPRange(g.firstStep, g.lastStep), QCPRange(0, std::max(0, g.ranks - 1)));
    for (int c = 0; c < g.columns; ++c)
        for (int r = 0; r < g.ranks; ++r)
            cells->setCell(c, r, g.at(c, r));
    // A flat grid gets a range around its value, so it shows the middle colour, not the lowest.
    const double spread = double(g.max) - double(g.min);
    if (spread > 1e-6 * std::max(1.0, std::abs(double(g.max))))
        m_heat->setDataRange(QCPRange(g.min, g.max));
    else
        m_heat->setDataRange(
            QCPRange(g.min - std::max(0.5, std::abs(g.min) * 0.1), g.max + std::max(0.5, std::abs(g.max) * 0.1)));
    m_heatPlot->yAxis->setRange(-0.5, world - 0.5);
    m_heatPlot->yAxis->setRangeReversed(true); // rank 0 at the top, as in the bars' legend order
    if (world <= 16) {
        QSharedPointer<QCPAxisTickerText> t(new QCPAxisTickerText);
        for (int r = 0; r < world; ++r) {
            const QString host = store.hostOf(r);
            t->addTick(r, host.isEmpty() ? QString::number(r) : QStringLiteral("%1 %2").arg(r).arg(host));
        }
        m_heatPlot->yAxis->setTicker(t);
    } else {
        m_heatPlot->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
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
    const int world = m_util.size();
    const bool any = !m_selected.isEmpty();
    for (int r = 0; r < world; ++r) {
        QColor c = rankColor(r, world);
        const bool sel = m_selected.contains(r);
        if (any && !sel)
            c.setAlphaF(0.18f);
        const QPen pen(c, sel ? 2.5 : 1.2);
        m_util[r]->setPen(pen);
        m_mem[r]->setPen(pen);
        if (sel) {
            m_util[r]->setLayer(QStringLiteral("main")); // drawn above the others
            m_mem[r]->setLayer(QStringLiteral("main"));
        }
    }
    // Bars: the data points of the selected ranks are selected.
    QCPDataSelection selection;
    for (int r : std::as_const(m_selected))
        selection.addDataRange(QCPDataRange(r, r + 1), false);
    selection.simplify();
    for (QCPBars* b : std::as_const(m_bars))
        b->setSelection(selection);
    // Heatmap: an outline around every selected rank's row.
    for (QObject* o : std::as_const(m_heatMarks))
        m_heatPlot->removeItem(static_cast<QCPAbstractItem*>(o));
    m_heatMarks.clear();
    for (int r : selectedRanks()) {
        auto* rect = new QCPItemRect(m_heatPlot);
        rect->topLeft->setTypeY(QCPItemPosition::ptPlotCoords);
        rect->topLeft->setTypeX(QCPItemPosition::ptAxisRectRatio);
        rect->bottomRight->setTypeY(QCPItemPosition::ptPlotCoords);
        rect->bottomRight->setTypeX(QCPItemPosition::ptAxisRectRatio);
        rect->topLeft->setCoords(0, r - 0.5);
        rect->bottomRight->setCoords(1, r + 0.5);
        rect->setPen(QPen(palette().color(QPalette::Highlight), 2.5));
        rect->setBrush(Qt::NoBrush);
        rect->setClipToAxisRect(true);
        m_heatMarks.append(rect);
    }
    for (QCustomPlot* p : {m_utilPlot, m_memPlot, m_barsPlot, m_heatPlot})
        p->replot(QCustomPlot::rpQueuedRefresh);
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
    // Live: the last steps analysed on the GUI thread (a few ms); findings that stop holding stay
    // listed, resolved.
    if (m_liveGeneration != m_session->generation()) {
        m_liveDiagnosis.clear();
        m_liveDiagnosis.setOptions(runs::Operations::diagnosisOptions(sessionRunDir())); // small local files
        m_liveGeneration = m_session->generation();
    }
    m_liveDiagnosis.update(store);
    m_findings->setFindings(m_liveDiagnosis.findings());
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
    m_barsPlot->replot(QCustomPlot::rpImmediateRefresh);
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
        QByteArray chunk;
        const qint64 end = std::min(rows, *row + 5000);
        for (; *row < end; ++*row)
            chunk +=
                monitorCsvRow(store, *row, *row < qint64(m_smoothed.size()) ? m_smoothed[size_t(*row)] : metrics::kNaN)
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
