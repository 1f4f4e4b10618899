#include "monitor/balancetab.h"

#include "analysis/phases.h"
#include "monitor/monitorplot.h"
#include "plotstyle.h"
#include "qcp.h"

#include <QLabel>
#include <QMouseEvent>
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

BalanceTab::BalanceTab(QWidget* parent) : QWidget(parent)
{
    auto* bg = new QVBoxLayout(this);
    bg->setContentsMargins(2, 2, 2, 2);
    m_sharesLabel = new QLabel(this);
    m_sharesLabel->setWordWrap(true);
    m_sharesLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_sharesLabel->hide();
    buildBars();
    buildHeatmap();
    bg->addWidget(m_sharesLabel);
    bg->addWidget(m_barsPlot);
    bg->addWidget(m_heatPlot);
    connect(m_barsPlot, &QCustomPlot::plottableClick, this,
            [this](QCPAbstractPlottable*, int index, QMouseEvent*) { Q_EMIT ranksPicked({index}); });
    connect(m_barsPlot, &QCustomPlot::mouseDoubleClick, this, [this] { Q_EMIT ranksPicked({}); });
    // The tooltip names the rank under the mouse (the plot's tooltip, shown when the mouse rests).
    connect(m_barsPlot, &QCustomPlot::mouseMove, this, [this](QMouseEvent* e) {
        const double x = std::round(m_barsPlot->xAxis->pixelToCoord(e->position().x()));
        m_barsPlot->setToolTip(x >= 0 && x < m_barTips.size() ? barToolTip(int(x)) : QString());
    });
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
    if (auto* title = qobject_cast<QCPTextElement*>(m_heatPlot->plotLayout()->element(0, 0)))
        title->setText(tr("%1 per rank and step").arg(label));
    m_heatScale->axis()->setLabel(m_metric == HeatmapMetric::Samples ? tr("samples") : tr("ms"));
}

void BalanceTab::refresh(const MetricStore& store, bool following)
{
    m_shares = analysis::balanceSummary(store);
    refreshShares();
    refreshBars(store);
    refreshHeatmap(store, following);
}

// The shares as the backend found them: the current split, since when, the steps it changed at and
// what the last change did to the step time.
void BalanceTab::refreshShares()
{
    const analysis::BalanceSummary& b = m_shares;
    m_sharesLabel->setVisible(b.hasSamples());
    if (!b.hasSamples()) {
        m_sharesLabel->clear();
        return;
    }
    QStringList shares;
    for (int n : b.samples)
        shares.append(QString::number(n));
    const QString split = shares.join(QStringLiteral(" / "));
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

void BalanceTab::refreshBars(const MetricStore& store)
{
    const analysis::PhaseMeans means = analysis::phaseMeans(store, m_barSteps);
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
    m_barTips.clear();
    for (int r = 0; r < means.ranks; ++r) {
        top = std::max(top, means.total(r));
        const QString host = store.hostOf(r);
        QString tip = host.isEmpty() ? tr("Rank %1").arg(r) : tr("Rank %1 on %2").arg(r).arg(host);
        tip +=
            QLatin1Char('\n') + tr("%1 ms per step (mean of the phases)").arg(QString::number(means.total(r), 'f', 1));
        if (r < int(m_shares.samples.size()))
            tip +=
                QLatin1Char('\n') +
                tr("%n sample(s) per step since step %1", nullptr, m_shares.samples[size_t(r)]).arg(m_shares.sinceStep);
        m_barTips.append(tip);
    }
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
        // With --balance, each rank's share under it.
        QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
        for (int r = 0; r < means.ranks; ++r) {
            const QString host = store.hostOf(r);
            QString label = host.isEmpty() ? QString::number(r) : QStringLiteral("%1\n%2").arg(r).arg(host);
            if (r < int(m_shares.samples.size()))
                label += QLatin1Char('\n') + tr("%n sample(s)", nullptr, m_shares.samples[size_t(r)]);
            ticker->addTick(r, label);
        }
        m_barsPlot->xAxis->setTicker(ticker);
    }
}

void BalanceTab::refreshHeatmap(const MetricStore& store, bool following)
{
    const int world = store.worldSize();
    const QCPRange range = m_heatPlot->xAxis->range();
    qint64 r0 = 0, r1 = store.rowCount();
    if (store.rowCount() > 0 && !following) {
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

// Bars: the data points of the selected ranks are selected; heatmap: an outline around every
// selected rank's row.
void BalanceTab::setSelectedRanks(const QList<int>& ranks)
{
    QCPDataSelection selection;
    for (int r : ranks)
        selection.addDataRange(QCPDataRange(r, r + 1), false);
    selection.simplify();
    for (QCPBars* b : std::as_const(m_bars))
        b->setSelection(selection);
    for (QObject* o : std::as_const(m_heatMarks))
        m_heatPlot->removeItem(static_cast<QCPAbstractItem*>(o));
    m_heatMarks.clear();
    for (int r : ranks) {
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
    for (QCustomPlot* p : {m_barsPlot, m_heatPlot})
        p->replot(QCustomPlot::rpQueuedRefresh);
}

} // namespace traindeck::gui::monitor
