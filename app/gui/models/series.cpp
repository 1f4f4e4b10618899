#include "series.h"

#include "analysis/diagnosis.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace traindeck::gui {

using metrics::MetricStore;
using metrics::RankMetric;

double DebiasedEma::add(double x)
{
    if (!std::isfinite(x))
        return std::numeric_limits<double>::quiet_NaN();
    if (m_beta <= 0)
        return x;
    m_state = m_beta * m_state + (1 - m_beta) * x;
    m_weight = m_beta * m_weight + (1 - m_beta); // = 1 - beta^n
    return m_state / m_weight;
}

namespace {

template <typename ValueAt>
XYSeries buildSeries(const MetricStore& store, qint64 fromStep, qint64 toStep, int maxPoints, ValueAt valueAt,
                     const std::vector<metrics::MinMaxBucket>* buckets)
{
    XYSeries out;
    if (buckets) {
        out.decimated = true;
        out.keys.reserve(qsizetype(buckets->size() * 2));
        out.values.reserve(qsizetype(buckets->size() * 2));
        for (const auto& b : *buckets) {
            if (b.count == 0)
                continue;
            if (b.firstStep == b.lastStep || b.min == b.max) {
                out.keys.append(double(b.firstStep + b.lastStep) / 2);
                out.values.append(b.min);
                continue;
            }
            // Keep the envelope: min then max (the order does not matter at this density).
            out.keys.append(double(b.firstStep));
            out.values.append(b.min);
            out.keys.append(double(b.lastStep));
            out.values.append(b.max);
        }
        return out;
    }
    const qint64 r0 = store.lowerBoundRow(fromStep);
    const qint64 r1 = toStep < 0 ? store.rowCount() : store.lowerBoundRow(toStep + 1);
    Q_UNUSED(maxPoints);
    out.keys.reserve(qsizetype(std::max<qint64>(0, r1 - r0)));
    out.values.reserve(qsizetype(std::max<qint64>(0, r1 - r0)));
    for (qint64 r = r0; r < r1; ++r) {
        const double v = valueAt(r);
        if (!std::isfinite(v))
            continue;
        out.keys.append(double(store.stepAt(r)));
        out.values.append(v);
    }
    return out;
}

qint64 rowsIn(const MetricStore& store, qint64 fromStep, qint64 toStep)
{
    const qint64 r0 = store.lowerBoundRow(fromStep);
    const qint64 r1 = toStep < 0 ? store.rowCount() : store.lowerBoundRow(toStep + 1);
    return r1 - r0;
}

} // namespace

XYSeries seriesForPlot(const MetricStore& store, const metrics::SeriesId& id, qint64 fromStep, qint64 toStep,
                       int maxPoints)
{
    if (store.rowCount() == 0)
        return {};
    if (fromStep < 0)
        fromStep = store.firstStep();
    if (toStep < 0)
        toStep = store.lastStep();
    if (rowsIn(store, fromStep, toStep) > maxPoints) {
        const auto buckets = store.decimate(id, fromStep, toStep, std::max(1, maxPoints / 2));
        return buildSeries(
            store, fromStep, toStep, maxPoints, [](qint64) { return 0.0; }, &buckets);
    }
    return buildSeries(
        store, fromStep, toStep, maxPoints, [&](qint64 r) { return store.valueAt(id, r); }, nullptr);
}

XYSeries vectorForPlot(const MetricStore& store, const std::vector<float>& values, qint64 fromStep, qint64 toStep,
                       int maxPoints)
{
    XYSeries out;
    const qint64 n = std::min<qint64>(store.rowCount(), qint64(values.size()));
    if (n == 0)
        return out;
    if (fromStep < 0)
        fromStep = store.firstStep();
    if (toStep < 0)
        toStep = store.lastStep();
    const qint64 r0 = store.lowerBoundRow(fromStep);
    const qint64 r1 = std::min(n, store.lowerBoundRow(toStep + 1));
    if (r1 <= r0)
        return out;
    const qint64 rows = r1 - r0;
    if (rows <= maxPoints) {
        out.keys.reserve(qsizetype(rows));
        out.values.reserve(qsizetype(rows));
        for (qint64 r = r0; r < r1; ++r) {
            const float v = values[size_t(r)];
            if (!std::isfinite(v))
                continue;
            out.keys.append(double(store.stepAt(r)));
            out.values.append(v);
        }
        return out;
    }
    // Min/max per bucket of rows.
    out.decimated = true;
    const int buckets = std::max(1, maxPoints / 2);
    out.keys.reserve(buckets * 2);
    out.values.reserve(buckets * 2);
    for (int b = 0; b < buckets; ++b) {
        const qint64 a = r0 + rows * b / buckets;
        const qint64 e = r0 + rows * (b + 1) / buckets;
        float mn = std::numeric_limits<float>::infinity(), mx = -mn;
        qint64 rmn = -1, rmx = -1;
        for (qint64 r = a; r < e; ++r) {
            const float v = values[size_t(r)];
            if (!std::isfinite(v))
                continue;
            if (v < mn) {
                mn = v;
                rmn = r;
            }
            if (v > mx) {
                mx = v;
                rmx = r;
            }
        }
        if (rmn < 0)
            continue;
        const qint64 first = std::min(rmn, rmx), second = std::max(rmn, rmx);
        out.keys.append(double(store.stepAt(first)));
        out.values.append(values[size_t(first)]);
        if (second != first) {
            out.keys.append(double(store.stepAt(second)));
            out.values.append(values[size_t(second)]);
        }
    }
    return out;
}

namespace {

// The per-rank metric a heatmap metric reads (the wait: comm, less the row's transfer); none for compute, a sum.
std::optional<RankMetric> storedMetric(HeatmapMetric metric)
{
    switch (metric) {
    case HeatmapMetric::Step: return RankMetric::Step;
    case HeatmapMetric::Data: return RankMetric::Data;
    case HeatmapMetric::Forward: return RankMetric::Fwd;
    case HeatmapMetric::Backward: return RankMetric::Bwd;
    case HeatmapMetric::Comm:
    case HeatmapMetric::CommWait: return RankMetric::Comm;
    case HeatmapMetric::CommHidden: return RankMetric::CommHidden;
    case HeatmapMetric::Optimizer: return RankMetric::Opt;
    case HeatmapMetric::Samples: return RankMetric::Samples;
    case HeatmapMetric::Compute:
    case HeatmapMetric::Count: break;
    }
    return std::nullopt;
}

} // namespace

double heatmapValue(const MetricStore& store, HeatmapMetric metric, qint64 row, int rank)
{
    if (metric == HeatmapMetric::CommWait)
        return analysis::Diagnosis::waitMs(store, row, rank);
    if (metric == HeatmapMetric::Compute)
        return analysis::Diagnosis::computeMs(store, row, rank);
    const std::optional<RankMetric> stored = storedMetric(metric);
    return stored ? double(store.rankAt(*stored, rank, row)) : std::numeric_limits<double>::quiet_NaN();
}

void heatmapRow(const MetricStore& store, HeatmapMetric metric, qint64 row, std::vector<float>& out)
{
    const int n = store.worldSize();
    out.resize(size_t(n));
    // A whole row a call where the value is one metric's (MetricStore::rankRow).
    const std::optional<RankMetric> stored = storedMetric(metric);
    if (!stored) {
        for (int k = 0; k < n; ++k)
            out[size_t(k)] = float(heatmapValue(store, metric, row, k));
        return;
    }
    store.rankRow(*stored, row, out.data());
    if (metric == HeatmapMetric::CommWait) { // Diagnosis::waitMs, the row's transfer taken once
        const double transfer = analysis::Diagnosis::transferMs(out);
        for (float& v : out)
            v = float(double(v) - transfer);
    }
}

void HeatmapRowCache::use(quint64 generation, qint64 rewinds, HeatmapMetric metric,
                          const std::vector<std::vector<int>>& groups)
{
    const bool moved = m_version.moveTo(generation, rewinds);
    if (!moved && metric == m_metric && groups == m_groups)
        return;
    m_metric = metric;
    m_groups = groups;
    m_rows.clear();
    m_values = 0;
    m_columns = Columns();
}

const std::vector<float>* HeatmapRowCache::find(qint64 row) const
{
    const auto it = m_rows.find(row);
    return it == m_rows.end() ? nullptr : &it->second;
}

void HeatmapRowCache::keep(qint64 row, const std::vector<float>& values)
{
    if (m_values + values.size() > kMaxValues) {
        m_rows.clear();
        m_values = 0;
    }
    m_values += values.size();
    m_rows[row] = values;
}

HeatmapGrid heatmapGrid(const MetricStore& store, HeatmapMetric metric, qint64 fromRow, qint64 toRow, int maxColumns,
                        int samplesPerBucket, const std::vector<std::vector<int>>& groups, HeatmapRowCache* cache,
                        qint64 maxNewRows)
{
    HeatmapGrid g;
    fromRow = std::max<qint64>(0, fromRow);
    toRow = std::min(toRow < 0 ? store.rowCount() : toRow, store.rowCount());
    const qint64 rows = toRow - fromRow;
    g.ranks = groups.empty() ? store.worldSize() : int(groups.size());
    if (rows <= 0 || g.ranks <= 0 || store.worldSize() <= 0 || maxColumns <= 0)
        return g;
    g.columns = int(std::min<qint64>(rows, maxColumns));
    g.cells.assign(size_t(g.columns) * size_t(g.ranks), std::numeric_limits<float>::quiet_NaN());
    float mn = std::numeric_limits<float>::infinity(), mx = -mn;
    // Every bucket holds at least rows / columns rows, so it holds a multiple of this stride.
    const qint64 stride = std::max<qint64>(1, rows / g.columns / std::max(1, samplesPerBucket));
    // In pieces only where the cache keeps every piece: the rows sampled, at most, times the grid's rows.
    const qint64 sampled = rows / stride + g.columns;
    // Rows are kept only where the cache holds them all: a grid of every rank over many steps (9,000 rows
    // sampled of 1,024 values) would fill it, start it over and fill it again at every call.
    const bool keep = cache && cache->holds(size_t(sampled) * size_t(g.ranks));
    qint64 budget = keep && maxNewRows >= 0 ? std::max<qint64>(1, maxNewRows) : std::numeric_limits<qint64>::max();
    std::vector<float> values, members, grouped(size_t(g.ranks)), best(size_t(g.ranks));
    // The values of row r by column of the grid: each rank's, or each group's median of its ranks'; null once
    // the budget of rows read is spent.
    auto rowValues = [&](qint64 r) -> const std::vector<float>* {
        if (cache)
            if (const std::vector<float>* kept = cache->find(r))
                return kept;
        if (budget == 0) {
            g.complete = false;
            return nullptr;
        }
        --budget;
        heatmapRow(store, metric, r, values);
        if (groups.empty()) {
            if (keep && r + 1 < store.rowCount())
                cache->keep(r, values);
            return &values;
        }
        for (int k = 0; k < g.ranks; ++k) {
            members.clear();
            for (int rank : groups[size_t(k)])
                if (std::isfinite(values[size_t(rank)]))
                    members.push_back(values[size_t(rank)]);
            float v = std::numeric_limits<float>::quiet_NaN();
            if (!members.empty()) {
                const auto mid = members.begin() + qsizetype(members.size() / 2);
                std::nth_element(members.begin(), mid, members.end());
                v = *mid;
            }
            grouped[size_t(k)] = v;
        }
        if (keep && r + 1 < store.rowCount())
            cache->keep(r, grouped);
        return &grouped;
    };
    // A grid the cache does not keep rows for is not kept either, and the one before it is forgotten: it is no
    // longer the grid the caller shows.
    if (cache && !keep)
        cache->lastColumns() = HeatmapRowCache::Columns();
    HeatmapRowCache::Columns* last = keep ? &cache->lastColumns() : nullptr;
    const bool reuse = last && last->sameShape(fromRow, toRow, stride, g.columns, g.ranks);
    std::vector<char> final(size_t(g.columns), 0);
    std::vector<float> columnMin(size_t(g.columns), std::numeric_limits<float>::infinity());
    std::vector<float> columnMax(size_t(g.columns), -std::numeric_limits<float>::infinity());
    g.unchanged.assign(size_t(g.columns), 0);
    for (int c = 0; c < g.columns; ++c) {
        const qint64 a = fromRow + rows * c / g.columns;
        const qint64 e = std::max(a + 1, fromRow + rows * (c + 1) / g.columns);
        float* column = g.cells.data() + size_t(c) * size_t(g.ranks);
        if (reuse && last->final[size_t(c)]) {
            std::copy_n(last->cells.data() + size_t(c) * size_t(g.ranks), g.ranks, column);
            final[size_t(c)] = g.unchanged[size_t(c)] = 1;
            columnMin[size_t(c)] = last->columnMin[size_t(c)];
            columnMax[size_t(c)] = last->columnMax[size_t(c)];
        } else {
            std::fill(best.begin(), best.end(), std::numeric_limits<float>::quiet_NaN());
            bool whole = true;
            qint64 lastRead = -1;
            for (qint64 r = (a + stride - 1) / stride * stride; r < e; r += stride) {
                const std::vector<float>* row = rowValues(r);
                if (!row) {
                    whole = false;
                    break; // the rest of this piece's rows come in a later call
                }
                lastRead = r;
                const std::vector<float>& v = *row;
                for (int k = 0; k < g.ranks; ++k) {
                    float& b = best[size_t(k)];
                    if (std::isfinite(v[size_t(k)]) && !(v[size_t(k)] <= b))
                        b = std::isfinite(b) ? std::max(b, v[size_t(k)]) : v[size_t(k)];
                }
            }
            // The store's last row may still change (it is never kept either).
            final[size_t(c)] = whole && lastRead + 1 < store.rowCount();
            std::copy(best.begin(), best.end(), column);
            for (int k = 0; k < g.ranks; ++k)
                if (std::isfinite(best[size_t(k)])) {
                    columnMin[size_t(c)] = std::min(columnMin[size_t(c)], best[size_t(k)]);
                    columnMax[size_t(c)] = std::max(columnMax[size_t(c)], best[size_t(k)]);
                }
        }
        mn = std::min(mn, columnMin[size_t(c)]);
        mx = std::max(mx, columnMax[size_t(c)]);
    }
    if (last) {
        last->fromRow = fromRow;
        last->toRow = toRow;
        last->stride = stride;
        last->columns = g.columns;
        last->ranks = g.ranks;
        last->cells = g.cells;
        last->final = std::move(final);
        last->columnMin = std::move(columnMin);
        last->columnMax = std::move(columnMax);
    }
    auto centre = [&](int c) {
        const qint64 a = fromRow + rows * c / g.columns;
        const qint64 e = std::max(a + 1, fromRow + rows * (c + 1) / g.columns);
        return (double(store.stepAt(a)) + double(store.stepAt(e - 1))) / 2;
    };
    g.firstStep = centre(0);
    g.lastStep = centre(g.columns - 1);
    g.min = std::isfinite(mn) ? mn : 0;
    g.max = std::isfinite(mx) ? mx : 1;
    return g;
}

} // namespace traindeck::gui
