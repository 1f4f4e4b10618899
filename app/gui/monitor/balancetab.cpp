#include "monitor/balancetab.h"

#include "analysis/phases.h"
#include "monitor/monitorplot.h"
#include "plotstyle.h"
#include "qcp.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMouseEvent>
#include <QTableWidget>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace traindeck::gui::monitor {

using metrics::MetricStore;

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

} // namespace

QString phaseName(Phase p)
{
    switch (p) {
    case Phase::Data: return BalanceTab::tr("data");
    case Phase::Forward: return BalanceTab::tr("forward");
    case Phase::Backward: return BalanceTab::tr("backward");
    case Phase::CommTransfer: return BalanceTab::tr("comm transfer");
    case Phase::CommWait: return BalanceTab::tr("comm wait");
    case Phase::Optimizer: return BalanceTab::tr("optimizer");
    case Phase::Count: break;
    }
    return {};
}

BalanceTab::BalanceTab(QWidget* parent) : QWidget(parent)
{
    auto* bg = new QVBoxLayout(this);
    bg->setContentsMargins(2, 2, 2, 2);
    m_sharesLabel = new QLabel(this);
    m_sharesLabel->setWordWrap(true);
    m_sharesLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_sharesLabel->hide();
    m_back = new QToolButton(this);
    m_back->setText(tr("\u2190 All hosts"));
    m_back->setToolTip(tr("Back to one bar per host (Backspace)"));
    m_back->setShortcut(QKeySequence(Qt::Key_Backspace));
    m_back->hide();
    connect(m_back, &QToolButton::clicked, this, [this] {
        setOpenHost({});
        Q_EMIT ranksPicked({});
    });
    buildBars();
    buildHeatmap();
    m_slowest = new QTableWidget(0, 5, this);
    m_slowest->setHorizontalHeaderLabels({tr("Rank"), tr("Host"), tr("Slower by"), tr("Phase"), tr("Since step")});
    m_slowest->verticalHeader()->hide();
    m_slowest->horizontalHeader()->setStretchLastSection(true);
    m_slowest->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_slowest->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_slowest->setSelectionMode(QAbstractItemView::SingleSelection);
    m_slowest->setToolTip(tr("The slowest ranks over the bars' steps: their own time (every phase but the wait "
                             "for the others) over the median rank's. Select one to open its host."));
    m_slowest->verticalHeader()->setDefaultSectionSize(m_slowest->fontMetrics().height() + 6);
    m_slowest->setMaximumHeight(6 * (m_slowest->fontMetrics().height() + 6) + m_slowest->fontMetrics().height() + 12);
    m_slowest->hide();
    connect(m_slowest, &QTableWidget::itemSelectionChanged, this, [this] {
        const auto rows = m_slowest->selectionModel()->selectedRows();
        if (rows.isEmpty())
            return;
        const QTableWidgetItem* rank = m_slowest->item(rows.first().row(), 0);
        const QTableWidgetItem* host = m_slowest->item(rows.first().row(), 1);
        if (!rank || !host)
            return;
        setOpenHost(host->text());
        Q_EMIT ranksPicked({rank->data(Qt::UserRole).toInt()});
    });
    m_heatRanks = new QCheckBox(tr("Heatmap: every &rank"), this);
    m_heatRanks->setToolTip(tr("Show a row per rank instead of a row per host (the median of its ranks)"));
    m_heatRanks->hide();
    auto* top = new QHBoxLayout;
    top->addWidget(m_back);
    top->addStretch(1);
    top->addWidget(m_heatRanks);
    bg->addWidget(m_sharesLabel);
    bg->addLayout(top);
    bg->addWidget(m_barsPlot, 3);
    bg->addWidget(m_slowest, 1);
    bg->addWidget(m_heatPlot, 3);
    connect(m_barsPlot, &QCustomPlot::plottableClick, this, [this](QCPAbstractPlottable*, int index, QMouseEvent*) {
        if (index < 0)
            return;
        if (index < m_barHosts.size()) { // a host: open it
            const QList<int> ranks = m_barHostRanks.value(index);
            setOpenHost(m_barHosts.at(index));
            Q_EMIT ranksPicked(ranks);
        } else if (index < m_barRanks.size()) {
            Q_EMIT ranksPicked({m_barRanks.at(index)});
        }
    });
    connect(m_barsPlot, &QCustomPlot::mouseDoubleClick, this, [this] { Q_EMIT ranksPicked({}); });
    // The tooltip names the rank or host under the mouse (the plot's tooltip, shown when the mouse rests).
    connect(m_barsPlot, &QCustomPlot::mouseMove, this, [this](QMouseEvent* e) {
        const double x = std::round(m_barsPlot->xAxis->pixelToCoord(e->position().x()));
        m_barsPlot->setToolTip(x >= 0 && x < m_barTips.size() ? m_barTips.at(int(x)) : QString());
    });
    connect(m_heatRanks, &QCheckBox::toggled, this, [this] {
        m_heatRows = -1;
        Q_EMIT heatmapRowsChanged();
    });
}

void BalanceTab::setOpenHost(const QString& host)
{
    if (host == m_openHost)
        return;
    m_openHost = host;
    m_back->setVisible(m_byHost && !host.isEmpty());
    Q_EMIT viewChanged();
}

// The load-balance bars: mean time per phase and rank, stacked, the legend in a row of its own.
void BalanceTab::buildBars()
{
    m_barsPlot = makePlot(this, tr("Load balance: mean time per phase and rank"));
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
    const int phaseColor[] = {6, 0, 5, 2, 3, 4};
    QCPBars* below = nullptr;
    for (int p = 0; p < int(Phase::Count); ++p) {
        auto* bars = new QCPBars(m_barsPlot->xAxis, m_barsPlot->yAxis);
        bars->setName(phaseName(Phase(p)));
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
    // Grouped by host: the spread of each host's ranks (their own time, lowest to highest) as an error bar
    // around the median rank's.
    m_spreadAnchor = new QCPGraph(m_barsPlot->xAxis, m_barsPlot->yAxis);
    m_spreadAnchor->setLineStyle(QCPGraph::lsNone);
    m_spreadAnchor->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, palette().color(QPalette::Text), 4));
    m_spreadAnchor->setName(tr("median rank's own time"));
    m_spread = new QCPErrorBars(m_barsPlot->xAxis, m_barsPlot->yAxis);
    m_spread->setDataPlottable(m_spreadAnchor);
    m_spread->setName(tr("its ranks: fastest to slowest"));
    m_spread->setPen(QPen(palette().color(QPalette::Text), 1.2));
    m_spread->setWhiskerWidth(5);
    m_spread->setSelectable(QCP::stNone);
    m_spreadAnchor->setSelectable(QCP::stNone);
    // The legend in its own row under the title, one line, never over the bars.
    m_barsPlot->legend->setVisible(true);
    m_barsPlot->axisRect()->insetLayout()->take(m_barsPlot->legend);
    m_barsPlot->plotLayout()->insertRow(1);
    m_barsPlot->plotLayout()->addElement(1, 0, m_barsPlot->legend);
    m_barsPlot->plotLayout()->setRowStretchFactor(1, 0.001);
    m_barsPlot->legend->setFillOrder(QCPLegend::foColumnsFirst);
    m_barsPlot->legend->setWrap(8);
    m_barsPlot->legend->setBorderPen(Qt::NoPen);
    m_barsPlot->legend->setMargins(QMargins(4, 0, 4, 0));
}

// The rank x step heatmap with its colour scale.
void BalanceTab::buildHeatmap()
{
    m_heatPlot = makePlot(this, tr("Step time per rank and step"));
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
}

void BalanceTab::setBarSteps(int steps)
{
    m_barSteps = steps;
}

void BalanceTab::setHeatmapMetric(HeatmapMetric metric, const QString& label)
{
    m_metric = metric;
    m_metricLabel = label;
    if (auto* title = qobject_cast<QCPTextElement*>(m_heatPlot->plotLayout()->element(0, 0)))
        title->setText(tr("%1 per rank and step").arg(label));
    m_heatScale->axis()->setLabel(m_metric == HeatmapMetric::Samples ? tr("samples") : tr("ms"));
}

void BalanceTab::refresh(const MetricStore& store, quint64 generation, bool following, bool rangeOnly)
{
    if (!rangeOnly) {
        m_sharesTracker.update(store, generation);
        refreshShares();
        refreshBars(store, generation);
    }
    refreshHeatmap(store, generation, following);
}

// The shares as the backend found them: the current split, since when, the steps it changed at and
// what the last change did to the step time.
void BalanceTab::refreshShares()
{
    const analysis::BalanceSummary& b = m_sharesTracker.summary();
    m_sharesLabel->setVisible(b.hasSamples());
    if (!b.hasSamples()) {
        m_sharesLabel->clear();
        return;
    }
    QStringList shares;
    for (int n : b.samples)
        shares.append(QString::number(n));
    QString split = shares.join(QStringLiteral(" / "));
    // Many ranks: the range of the shares, not a thousand numbers.
    if (b.samples.size() > 16) {
        const auto [lo, hi] = std::minmax_element(b.samples.begin(), b.samples.end());
        split = *lo == *hi ? tr("%1 each (%n rank(s))", nullptr, int(b.samples.size())).arg(*lo)
                           : tr("%1 to %2 (%n rank(s))", nullptr, int(b.samples.size())).arg(*lo).arg(*hi);
    }
    if (!b.changed()) {
        m_sharesLabel->setText(tr("Samples per rank: %1 since step %2 (unchanged)").arg(split).arg(b.sinceStep));
        return;
    }
    // A long history names its last changes only.
    constexpr int kListedChanges = 8;
    const int total = int(b.changes.size());
    QStringList steps;
    if (total > kListedChanges)
        steps.append(QStringLiteral("…"));
    for (int i = std::max(0, total - kListedChanges); i < total; ++i)
        steps.append(QString::number(b.changes[size_t(i)].step));
    QString text = tr("Samples per rank: %1 since step %2 — changed at step(s) %3", nullptr, total)
                       .arg(split)
                       .arg(b.sinceStep)
                       .arg(steps.join(QStringLiteral(", ")));
    if (b.hasGain())
        text += QLatin1Char('\n') +
                tr("Median step %1 ms before the last change, %2 ms after (%3 %)")
                    .arg(QString::number(b.beforeMs, 'f', 0), QString::number(b.afterMs, 'f', 0),
                         (b.gainPct > 0 ? QStringLiteral("+") : QString()) + QString::number(b.gainPct, 'f', 1));
    m_sharesLabel->setText(text);
}

void BalanceTab::refreshBars(const MetricStore& store, quint64 generation)
{
    const analysis::PhaseMeans& means = m_meansTracker.update(store, generation, m_barSteps);
    const analysis::BalanceSummary& shares = m_sharesTracker.summary();
    m_byHost = analysis::groupByHost(store);
    if (!m_byHost)
        m_openHost.clear();
    m_back->setVisible(m_byHost && !m_openHost.isEmpty());
    m_slowest->setVisible(m_byHost);
    m_heatRanks->setVisible(m_byHost);
    m_barHosts.clear();
    m_barHostRanks.clear();
    m_barRanks.clear();
    m_barTips.clear();
    const bool hosts = m_byHost && m_openHost.isEmpty();
    std::array<QVector<double>, size_t(Phase::Count)> values;
    QVector<double> keys, centre, below, above;
    double top = 0;
    if (hosts) {
        for (const analysis::HostBalance& h : analysis::hostBalance(store, means)) {
            const int key = int(keys.size());
            keys.append(key);
            for (int p = 0; p < int(Phase::Count); ++p)
                values[size_t(p)].append(std::isfinite(h.phaseMs[size_t(p)]) ? h.phaseMs[size_t(p)] : 0);
            centre.append(h.medianOwnMs);
            below.append(h.medianOwnMs - h.minOwnMs);
            above.append(h.maxOwnMs - h.medianOwnMs);
            top = std::max({top, h.total(), h.maxOwnMs});
            m_barHosts.append(h.host);
            m_barHostRanks.append(QList<int>(h.ranks.begin(), h.ranks.end()));
            m_barTips.append(tr("%1: %n rank(s)", nullptr, int(h.ranks.size())).arg(h.host) + QLatin1Char('\n') +
                             tr("own time per step: median %1 ms, fastest %2 ms, slowest %3 ms (rank %4)")
                                 .arg(QString::number(h.medianOwnMs, 'f', 1), QString::number(h.minOwnMs, 'f', 1),
                                      QString::number(h.maxOwnMs, 'f', 1))
                                 .arg(h.slowestRank) +
                             QLatin1Char('\n') + tr("Click to show its ranks"));
        }
    } else {
        QList<int> ranks;
        for (int r = 0; r < means.ranks; ++r)
            if (m_openHost.isEmpty() || store.hostOf(r) == m_openHost)
                ranks.append(r);
        for (int r : ranks) {
            keys.append(keys.size());
            for (int p = 0; p < int(Phase::Count); ++p) {
                const double v = means.ms[size_t(p)][size_t(r)];
                values[size_t(p)].append(std::isfinite(v) ? v : 0);
            }
            top = std::max(top, means.total(r));
            const QString host = store.hostOf(r);
            QString tip = host.isEmpty() ? tr("Rank %1").arg(r) : tr("Rank %1 on %2").arg(r).arg(host);
            tip += QLatin1Char('\n') +
                   tr("%1 ms per step (mean of the phases)").arg(QString::number(means.total(r), 'f', 1));
            if (r < int(shares.samples.size()))
                tip +=
                    QLatin1Char('\n') +
                    tr("%n sample(s) per step since step %1", nullptr, shares.samples[size_t(r)]).arg(shares.sinceStep);
            m_barTips.append(tip);
        }
        m_barRanks = ranks;
    }
    for (int p = 0; p < int(Phase::Count); ++p)
        m_bars[p]->setData(keys, values[size_t(p)], true);
    m_spreadAnchor->setData(keys.mid(0, centre.size()), centre, true);
    m_spread->setData(below, above);
    m_spreadAnchor->setVisible(hosts);
    m_spread->setVisible(hosts);
    m_spreadAnchor->removeFromLegend();
    m_spread->removeFromLegend();
    if (hosts) {
        m_spreadAnchor->addToLegend();
        m_spread->addToLegend();
    }
    const int bars = int(keys.size());
    m_barsPlot->xAxis->setRange(-0.6, std::max(1, bars) - 0.4);
    m_barsPlot->yAxis->setRange(0, top > 0 ? top * 1.08 : 1);
    if (auto* title = qobject_cast<QCPTextElement*>(m_barsPlot->plotLayout()->element(0, 0))) {
        const QString steps = means.steps > 0 ? tr(", steps %1–%2").arg(means.fromStep).arg(means.toStep) : QString();
        if (hosts)
            title->setText(tr("Load balance by host: mean time per phase, %n host(s), slowest first", nullptr, bars) +
                           steps);
        else if (!m_openHost.isEmpty())
            title->setText(tr("Load balance on %1: mean time per phase and rank").arg(m_openHost) + steps);
        else
            title->setText(tr("Load balance: mean time per phase and rank") + steps);
    }
    m_barsPlot->xAxis->setLabel(hosts ? tr("host, slowest first") : tr("rank and host"));
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    if (hosts) {
        // Host names, as many as fit across the plot (the slowest, at the left, always named).
        const int room = std::max(1, m_barsPlot->axisRect()->width() / (fontMetrics().height() + 2));
        const int every = std::max(1, (bars + room - 1) / room);
        for (int k = 0; k < bars; k += every)
            ticker->addTick(k, m_barHosts.at(k));
        m_barsPlot->xAxis->setTickLabelRotation(bars > 16 ? 90 : 0);
        m_barsPlot->xAxis->setTicker(ticker);
    } else if (bars > 16) {
        m_barsPlot->xAxis->setTickLabelRotation(0);
        m_barsPlot->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    } else {
        // Each rank labelled with its host, so a slow bar names the machine too.
        // With --balance, each rank's share under it.
        m_barsPlot->xAxis->setTickLabelRotation(0);
        for (int k = 0; k < bars; ++k) {
            const int r = m_barRanks.at(k);
            const QString host = store.hostOf(r);
            QString label = host.isEmpty() ? QString::number(r) : QStringLiteral("%1\n%2").arg(r).arg(host);
            if (r < int(shares.samples.size()))
                label += QLatin1Char('\n') + tr("%n sample(s)", nullptr, shares.samples[size_t(r)]);
            ticker->addTick(k, label);
        }
        m_barsPlot->xAxis->setTicker(ticker);
    }
    if (m_byHost)
        refreshSlowest(store, generation, means);
}

// The slowest ranks of the job over the bars' steps (analysis::slowestRanks).
void BalanceTab::refreshSlowest(const MetricStore& store, quint64 generation, const analysis::PhaseMeans& means)
{
    constexpr int kRows = 10;
    m_rowMedians.use(generation, store.rewinds());
    const std::vector<analysis::SlowRank> slow = analysis::slowestRanks(store, means, kRows, &m_rowMedians);
    const QSignalBlocker block(m_slowest);
    m_slowest->setRowCount(int(slow.size()));
    for (int i = 0; i < int(slow.size()); ++i) {
        const analysis::SlowRank& s = slow[size_t(i)];
        auto* rank = new QTableWidgetItem(QString::number(s.rank));
        rank->setData(Qt::UserRole, s.rank);
        m_slowest->setItem(i, 0, rank);
        m_slowest->setItem(i, 1, new QTableWidgetItem(s.host));
        m_slowest->setItem(i, 2,
                           new QTableWidgetItem(tr("%1 %").arg((s.excessPct >= 0 ? QStringLiteral("+") : QString()) +
                                                               QString::number(s.excessPct, 'f', 1))));
        m_slowest->setItem(i, 3, new QTableWidgetItem(phaseName(s.phase)));
        m_slowest->setItem(i, 4, new QTableWidgetItem(s.sinceStep >= 0 ? QString::number(s.sinceStep) : tr("–")));
    }
    m_slowest->resizeColumnsToContents();
}

void BalanceTab::refreshHeatmap(const MetricStore& store, quint64 generation, bool following)
{
    const QCPRange range = m_heatPlot->xAxis->range();
    qint64 r0 = 0, r1 = store.rowCount();
    if (store.rowCount() > 0 && !following) {
        r0 = store.lowerBoundRow(qint64(std::floor(range.lower)));
        r1 = store.lowerBoundRow(qint64(std::ceil(range.upper)) + 1);
    }
    // Grouped by host unless every rank is asked for: a row per host, the median of its ranks.
    const bool byHost = m_byHost && !m_heatRanks->isChecked();
    m_heatGroups.clear();
    m_heatHosts.clear();
    if (byHost) {
        for (analysis::HostRanks& h : analysis::ranksByHost(store)) {
            m_heatHosts.append(h.host);
            m_heatGroups.push_back(std::move(h.ranks));
        }
    }
    // A column per pixel, the width rounded down to 64: the axis' labels (host names or rank numbers) change the
    // width a little, and a grid of another shape is computed and set whole again.
    const int maxColumns = std::max(192, m_heatPlot->axisRect()->width() / 64 * 64);
    m_heatCache.use(generation, store.rewinds(), m_metric, m_heatGroups);
    // The rows not yet kept are read kHeatmapValuesPerRefresh values a refresh, so no refresh holds the GUI
    // thread for all of them (2,000 steps of 1,024 ranks: 44-59 ms by host, 20 ms of 49 by rank); the grid fills
    // in over the next refreshes (MonitorPage asks for them while heatmapComplete() is false).
    constexpr qint64 kHeatmapValuesPerRefresh = 256 * 1024;
    qint64 newRows = std::max<qint64>(16, kHeatmapValuesPerRefresh / std::max(1, store.worldSize()));
    // A grid of another number of rows is allocated and blanked first (768 x 1,024 cells: 5 ms of a 22 ms
    // frame, mostly page faults), so that frame reads a quarter of the rows.
    const int gridRows = byHost ? int(m_heatGroups.size()) : store.worldSize();
    if (m_heat->data()->valueSize() != gridRows)
        newRows = std::max<qint64>(16, newRows / 4);
    const HeatmapGrid g = heatmapGrid(store, m_metric, r0, r1, maxColumns, 8, m_heatGroups, &m_heatCache, newRows);
    m_heatComplete = g.complete;
    QCPColorMapData* cells = m_heat->data();
    if (g.columns == 0) {
        cells->clear();
        m_heatShown.clear();
        return;
    }
    // Only the cells that differ from the grid set last (of the same shape): a grid of every rank has a
    // million, and setting them all took 6.5 ms of each refresh that drew a piece of it.
    const bool sameShape =
        cells->keySize() == g.columns && cells->valueSize() == g.ranks && m_heatShown.size() == g.cells.size();
    cells->setSize(g.columns, g.ranks);
    cells->setRange(QCPRange(g.firstStep, g.lastStep), QCPRange(0, std::max(0, g.ranks - 1)));
    if (!sameShape) { // a new grid: blank, then its known cells (while in pieces, most are not known yet)
        cells->fill(std::numeric_limits<double>::quiet_NaN());
        m_heatShown.assign(g.cells.size(), std::numeric_limits<float>::quiet_NaN());
    }
    for (int c = 0; c < g.columns; ++c)
        for (int r = sameShape && g.unchanged[size_t(c)] ? g.ranks : 0; r < g.ranks; ++r) {
            const size_t i = size_t(c) * size_t(g.ranks) + size_t(r);
            const float v = g.cells[i], shown = m_heatShown[i];
            if (!(v == shown || (std::isnan(v) && std::isnan(shown))))
                cells->setCell(c, r, v);
        }
    m_heatShown = g.cells;
    // A flat grid gets a range around its value, so it shows the middle colour, not the lowest.
    const double spread = double(g.max) - double(g.min);
    if (spread > 1e-6 * std::max(1.0, std::abs(double(g.max))))
        m_heat->setDataRange(QCPRange(g.min, g.max));
    else
        m_heat->setDataRange(
            QCPRange(g.min - std::max(0.5, std::abs(g.min) * 0.1), g.max + std::max(0.5, std::abs(g.max) * 0.1)));
    if (auto* title = qobject_cast<QCPTextElement*>(m_heatPlot->plotLayout()->element(0, 0)))
        title->setText(byHost ? tr("%1 per host and step (the median of its ranks)").arg(m_metricLabel)
                              : tr("%1 per rank and step").arg(m_metricLabel));
    m_heatPlot->yAxis->setLabel(byHost ? tr("host") : tr("rank and host"));
    const bool rowsChanged = g.ranks != m_heatRows;
    m_heatRows = g.ranks;
    if (rowsChanged)
        m_heatPlot->yAxis->setRange(-0.5, g.ranks - 0.5);
    m_heatPlot->yAxis->setRangeReversed(true); // rank 0 at the top, as in the bars' legend order
    QSharedPointer<QCPAxisTickerText> t(new QCPAxisTickerText);
    if (byHost) {
        const int room = std::max(1, m_heatPlot->axisRect()->height() / (fontMetrics().height() + 1));
        const int every = std::max(1, (g.ranks + room - 1) / room);
        for (int k = 0; k < g.ranks; k += every)
            t->addTick(k, m_heatHosts.at(k));
        m_heatPlot->yAxis->setTicker(t);
    } else if (g.ranks <= 16) {
        for (int r = 0; r < g.ranks; ++r) {
            const QString host = store.hostOf(r);
            t->addTick(r, host.isEmpty() ? QString::number(r) : QStringLiteral("%1 %2").arg(r).arg(host));
        }
        m_heatPlot->yAxis->setTicker(t);
    } else {
        m_heatPlot->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    }
    markHeatmapRows();
}

// Bars: the bars of the selected ranks (or of their hosts) are selected; heatmap: an outline around every
// selected rank's row (or its host's), and with many rows the view moves to the first one.
void BalanceTab::setSelectedRanks(const QList<int>& ranks)
{
    m_selected = ranks;
    QCPDataSelection selection;
    for (int k = 0; k < m_barRanks.size(); ++k)
        if (ranks.contains(m_barRanks.at(k)))
            selection.addDataRange(QCPDataRange(k, k + 1), false);
    for (int k = 0; k < m_barHostRanks.size(); ++k)
        for (int r : ranks)
            if (m_barHostRanks.at(k).contains(r)) {
                selection.addDataRange(QCPDataRange(k, k + 1), false);
                break;
            }
    selection.simplify();
    for (QCPBars* b : std::as_const(m_bars))
        b->setSelection(selection);
    markHeatmapRows();
    if (!ranks.isEmpty() && m_heatRows > 64) {
        const double row = m_heatPlot->yAxis->range().size();
        int first = ranks.first();
        for (size_t g = 0; g < m_heatGroups.size(); ++g)
            if (std::find(m_heatGroups[g].begin(), m_heatGroups[g].end(), first) != m_heatGroups[g].end())
                first = int(g);
        const QCPRange now = m_heatPlot->yAxis->range();
        if (first < now.lower || first > now.upper) // jump to it, keeping the zoom
            m_heatPlot->yAxis->setRange(first - row / 2, first + row / 2);
    }
    // MonitorPage replots the visible tab after the refresh that called this (rpQueuedRefresh here drew both plots
    // a second time in that frame).
}

void BalanceTab::markHeatmapRows()
{
    for (QObject* o : std::as_const(m_heatMarks))
        m_heatPlot->removeItem(static_cast<QCPAbstractItem*>(o));
    m_heatMarks.clear();
    QList<int> rows;
    for (int r : std::as_const(m_selected)) {
        int row = r;
        for (size_t g = 0; g < m_heatGroups.size(); ++g)
            if (std::find(m_heatGroups[g].begin(), m_heatGroups[g].end(), r) != m_heatGroups[g].end())
                row = int(g);
        if (!rows.contains(row))
            rows.append(row);
    }
    for (int r : rows) {
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
}

} // namespace traindeck::gui::monitor
