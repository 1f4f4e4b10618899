#include "monitor/devicestab.h"

#include "analysis/hostbalance.h"

#include "plotstyle.h"
#include "qcp.h"

#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>
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
    const bool byHost = analysis::groupByHost(store);
    std::vector<std::vector<int>> hostRanks;
    QStringList names;
    if (byHost) {
        for (analysis::HostRanks& h : analysis::ranksByHost(store)) {
            names.append(h.host);
            hostRanks.push_back(std::move(h.ranks));
        }
    } else {
        for (int r = 0; r < world; ++r) {
            const QString host = store.hostOf(r);
            names.append(host.isEmpty() ? tr("rank %1").arg(r) : tr("rank %1 (%2)").arg(r).arg(host));
        }
    }
    if (m_util.size() == names.size() && byHost == m_byHost && hostRanks == m_hostRanks)
        return false;
    m_byHost = byHost;
    m_hostRanks = std::move(hostRanks);
    m_hostRows.clear(); // kept for the last grouping
    m_utilPlot->clearGraphs();
    m_memPlot->clearGraphs();
    m_util.clear();
    m_mem.clear();
    for (const QString& name : std::as_const(names)) {
        auto* u = m_utilPlot->addGraph();
        u->setName(name);
        auto* m = m_memPlot->addGraph();
        m->setName(name);
        m_util.append(u);
        m_mem.append(m);
    }
    setPlotTitle(m_utilPlot, byHost ? tr("Device utilisation per host (the median of its ranks)")
                                    : tr("Device utilisation per rank"));
    setPlotTitle(m_memPlot, byHost ? tr("Peak memory per host (its largest rank)") : tr("Peak memory per rank"));
    const bool legend = !names.isEmpty() && names.size() <= 8;
    m_utilPlot->legend->setVisible(legend);
    m_memPlot->legend->setVisible(legend);
    m_utilPlot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignBottom | Qt::AlignRight);
    m_memPlot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignBottom | Qt::AlignRight);
    m_deviceRows = 0;
    applySelectionStyle();
    return true;
}

// Grouped by host: each host's line over the visible steps, one sampled row per point (at most a few hundred
// per host): the median utilisation of its ranks and the largest memory.
void DevicesTab::refreshByHost(const MetricStore& store, quint64 generation)
{
    const QCPRange range = m_utilPlot->xAxis->range();
    const qint64 rows = store.rowCount();
    qint64 r0 = 0, r1 = rows;
    if (rows > 0 && range.size() > 0 && m_deviceRows > 0) {
        r0 = store.lowerBoundRow(qint64(std::floor(range.lower)));
        r1 = std::min(rows, store.lowerBoundRow(qint64(std::ceil(range.upper)) + 1));
    }
    // A point per 6 pixels: 128 lines of 340 points took 6-7 ms to draw per plot and 10 ms to compute.
    const int points = std::max(100, m_utilPlot->width() / 6);
    const qint64 stride = std::max<qint64>(1, (r1 - r0) / points);
    // The rows sampled are the multiples of the stride (and the last row), so the next refresh samples the same
    // ones and computes only the rows it has not kept: a followed run's frame computed 128 x 171 host values
    // again at every step (6 ms).
    if (m_hostRowsVersion.moveTo(generation, store.rewinds()))
        m_hostRows.clear();
    const size_t hosts = m_hostRanks.size();
    std::vector<float> util(size_t(store.worldSize())), mem(util.size()), v;
    // Only the rows sampled now stay kept (the last row is seldom a multiple of the stride, and the stride grows
    // with the run): about `points` of them.
    std::unordered_map<qint64, std::vector<float>> keptNow;
    auto hostValues = [&](qint64 row) -> const std::vector<float>& {
        std::vector<float>& kept = keptNow[row];
        if (const auto it = m_hostRows.find(row); it != m_hostRows.end()) {
            kept = std::move(it->second);
            return kept;
        }
        store.rankRow(RankMetric::Util, row, util.data());
        store.rankRow(RankMetric::Mem, row, mem.data());
        kept.resize(2 * hosts);
        for (size_t h = 0; h < hosts; ++h) {
            v.clear();
            float most = std::numeric_limits<float>::quiet_NaN();
            for (int r : m_hostRanks[h]) {
                if (std::isfinite(util[size_t(r)]))
                    v.push_back(util[size_t(r)]);
                if (std::isfinite(mem[size_t(r)]) && !(mem[size_t(r)] <= most))
                    most = std::isfinite(most) ? std::max(most, mem[size_t(r)]) : mem[size_t(r)];
            }
            std::sort(v.begin(), v.end()); // a host's few ranks: sorting is quicker than selecting
            kept[h] = v.empty() ? std::numeric_limits<float>::quiet_NaN() : v[v.size() / 2];
            kept[hosts + h] = most;
        }
        return kept;
    };
    std::vector<qint64> sampled;
    for (qint64 row = (r0 + stride - 1) / stride * stride; row < r1; row += stride)
        sampled.push_back(row);
    if (r1 > r0 && (sampled.empty() || sampled.back() != r1 - 1))
        sampled.push_back(r1 - 1);
    std::vector<QVector<double>> keys(hosts), hostUtil(hosts), hostMem(hosts);
    for (qint64 row : sampled) {
        const std::vector<float>& values = hostValues(row);
        const double step = double(store.stepAt(row));
        for (size_t h = 0; h < hosts; ++h) {
            if (!std::isfinite(values[h]) && !std::isfinite(values[hosts + h]))
                continue;
            keys[h].append(step);
            hostUtil[h].append(values[h]);
            hostMem[h].append(values[hosts + h]);
        }
    }
    m_hostRows.swap(keptNow);
    for (size_t h = 0; h < hosts; ++h) {
        m_util[qsizetype(h)]->setData(keys[h], hostUtil[h], true);
        m_mem[qsizetype(h)]->setData(keys[h], hostMem[h], true);
    }
    m_deviceRows = rows;
    m_deviceDecimated = true;
}

void DevicesTab::refresh(const MetricStore& store, quint64 generation, bool rebuild)
{
    ensureRankGraphs(store);
    const qint64 rows = store.rowCount();
    const int world = store.worldSize();
    if (m_byHost)
        refreshByHost(store, generation);
    else if (qint64(rows) * std::max(1, world) > kRawLimit * 4LL)
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
        bool sel = !m_byHost && m_selected.contains(r);
        if (m_byHost) // a host's line is selected with any of its ranks
            for (int k : m_hostRanks[size_t(r)])
                sel = sel || m_selected.contains(k);
        if (any && !sel)
            c.setAlphaF(0.18f);
        // Many lines (128 hosts, or ranks): one pixel wide and not antialiased but the selected ones, as the
        // raster engine strokes those several times faster (128 host lines of 340 points: 21 ms a plot at 1.2 px).
        const bool many = world > 16;
        const QPen pen(c, sel ? 2.5 : (many ? 1.0 : 1.2));
        for (QCPGraph* g : {m_util[r], m_mem[r]}) {
            g->setPen(pen);
            g->setAntialiased(sel || !many);
        }
        if (sel) {
            m_util[r]->setLayer(QStringLiteral("main")); // drawn above the others
            m_mem[r]->setLayer(QStringLiteral("main"));
        }
    }
    // Not replotted here: MonitorPage replots the visible tab after every refresh, the only caller (rpQueuedRefresh
    // draws at once, so this drew both plots a second time in the frame: 5-8 ms at 128 hosts).
}

} // namespace traindeck::gui::monitor
