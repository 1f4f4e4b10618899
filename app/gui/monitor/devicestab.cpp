#include "monitor/devicestab.h"

#include "plotstyle.h"
#include "qcp.h"

#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <utility>

namespace traindeck::gui::monitor {

using metrics::MetricStore;
using metrics::RankMetric;
using metrics::SeriesId;

DevicesTab::DevicesTab(QWidget* parent) : QWidget(parent)
{
    auto* dg = new QVBoxLayout(this);
    dg->setContentsMargins(2, 2, 2, 2);
    m_utilPlot = makePlot(this, tr("Device utilisation per rank"));
    m_utilPlot->yAxis->setLabel(tr("utilisation (%)"));
    m_memPlot = makePlot(this, tr("Peak memory per rank"));
    m_memPlot->yAxis->setLabel(tr("memory (MiB)"));
    dg->addWidget(m_utilPlot);
    dg->addWidget(m_memPlot);
}

bool DevicesTab::ensureRankGraphs(const MetricStore& store)
{
    const int world = store.worldSize();
    if (m_util.size() == world)
        return false;
    m_utilPlot->clearGraphs();
    m_memPlot->clearGraphs();
    m_util.clear();
    m_mem.clear();
    for (int r = 0; r < world; ++r) {
        const QString host = store.hostOf(r);
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
    return true;
}

void DevicesTab::refresh(const MetricStore& store, quint64 generation, bool rebuild)
{
    ensureRankGraphs(store);
    const qint64 rows = store.rowCount();
    const int world = store.worldSize();
    if (qint64(rows) * std::max(1, world) > kRawLimit * 4LL)
        refreshDecimated(store, generation);
    else
        appendRows(store, rebuild);
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

// Many rows times ranks: each rank's series decimated over the visible step range.
void DevicesTab::refreshDecimated(const MetricStore& store, quint64 generation)
{
    const int world = store.worldSize();
    const std::pair<const QList<QCPGraph*>*, RankMetric> sets[] = {{&m_util, RankMetric::Util},
                                                                   {&m_mem, RankMetric::Mem}};
    const QCPRange range = m_utilPlot->xAxis->range();
    const qint64 lo = std::max<qint64>(store.firstStep(), qint64(std::floor(range.lower)));
    const qint64 hi = std::min<qint64>(store.lastStep(), qint64(std::ceil(range.upper)));
    const int points = std::max(200, m_utilPlot->width() / std::max(1, world / 8));
    for (const auto& [graphs, metric] : sets) {
        for (int r = 0; r < world; ++r) {
            const SeriesId id = SeriesId::of(metric, r);
            setGraphData(graphs->at(r),
                         m_envelopes.visibleSeries(
                             store, generation,
                             QStringLiteral("%1/%2").arg(QLatin1String(metrics::rankMetricKey(metric))).arg(r),
                             [&](qint64 a, qint64 b, int n) { return seriesForPlot(store, id, a, b, n); }, lo, hi,
                             points));
        }
    }
    m_deviceDecimated = true;
    m_deviceRows = store.rowCount();
}

// Raw: only the rows added since the last refresh are appended (everything after a rebuild).
void DevicesTab::appendRows(const MetricStore& store, bool rebuild)
{
    const qint64 rows = store.rowCount();
    const int world = store.worldSize();
    const std::pair<const QList<QCPGraph*>*, RankMetric> sets[] = {{&m_util, RankMetric::Util},
                                                                   {&m_mem, RankMetric::Mem}};
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

void DevicesTab::setSelectedRanks(const QList<int>& ranks)
{
    m_selected = ranks;
    applySelectionStyle();
}

void DevicesTab::applySelectionStyle()
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
    for (QCustomPlot* p : {m_utilPlot, m_memPlot})
        p->replot(QCustomPlot::rpQueuedRefresh);
}

} // namespace traindeck::gui::monitor
