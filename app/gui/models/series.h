// Plain numeric helpers for the Monitor page (no widgets; tested on their own).
#pragma once

#include "analysis/phases.h"
#include "metrics/metricstore.h"

#include <QVector>

#include <unordered_map>
#include <vector>

namespace traindeck::gui {

// Debiased exponential moving average (as TensorBoard's smoothing): s_t = b*s_{t-1} + (1-b)*x_t,
// shown as s_t / (1 - b^n) with n the finite values seen. Non-finite inputs give NaN and leave the
// state unchanged. beta in [0, 1); 0 returns the input.
class DebiasedEma {
  public:
    explicit DebiasedEma(double beta = 0.6) : m_beta(beta) {}
    void reset()
    {
        m_state = 0;
        m_weight = 0;
    }
    double beta() const { return m_beta; }
    double add(double x);

  private:
    double m_beta;
    double m_state = 0;
    double m_weight = 0; // 1 - b^n, kept incrementally
};

// Keys and values for a line plot of one store series over steps [fromStep, toStep]: every row when
// the range holds at most maxPoints rows, otherwise min/max per bucket (two points per bucket, in
// step order) from MetricStore::decimate, so spikes survive.
struct XYSeries {
    QVector<double> keys;
    QVector<double> values;
    bool decimated = false;
};
XYSeries seriesForPlot(const metrics::MetricStore& store, const metrics::SeriesId& id, qint64 fromStep, qint64 toStep,
                       int maxPoints);

// The same for a vector indexed like the store's rows (e.g. a smoothed copy of a series).
XYSeries vectorForPlot(const metrics::MetricStore& store, const std::vector<float>& values, qint64 fromStep,
                       qint64 toStep, int maxPoints);

// The load-balance bars use analysis::phaseMeans; monitorpage.h names the phases unqualified.
using analysis::Phase;

// What the heatmap shows per (step, rank).
// Samples: each rank's share of the global batch (changes under --balance auto), not a time.
// Comm: the allreduce on the critical path; CommHidden: the part overlapped with backward (--overlap on).
enum class HeatmapMetric {
    Step,
    Data,
    Forward,
    Backward,
    Comm,
    CommWait,
    CommHidden,
    Optimizer,
    Compute,
    Samples,
    Count
};

// The values of the heatmap's rows (each rank's, or the median of each host's ranks), kept between refreshes:
// panning a heatmap by host then reads 128 values per sampled row instead of taking 128 medians of 1,024 again
// (106 ms a frame at 1,024 ranks and 2,000 steps before), and a grid of every rank can be drawn in pieces. For
// one store generation (the session's run), rewind count
// (MetricStore::rewinds: a resumed run replaces rows), metric and grouping; a row is kept once it is not the
// store's last (a row does not change after that, unless the store rewinds).
class HeatmapRowCache {
  public:
    // Forgets every row unless these are the generation, rewinds, metric and groups of the last call.
    void use(quint64 generation, qint64 rewinds, HeatmapMetric metric, const std::vector<std::vector<int>>& groups);
    const std::vector<float>* find(qint64 row) const;
    void keep(qint64 row, const std::vector<float>& values);
    size_t rows() const { return m_rows.size(); }
    // Whether `values` more values fit without starting over (a grid computed in pieces needs its earlier
    // pieces kept).
    bool holds(size_t values) const { return values <= kMaxValues; }

    // The columns of the grid computed last, with which of them are final (every row sampled was read, none
    // the store's last). A call of the same shape copies those instead of taking their maximum again: a grid
    // of every rank drawn in pieces took the maximum of up to 2,000 kept rows of 1,024 values at every piece
    // (5-8 ms of a 14-17 ms frame).
    struct Columns {
        qint64 fromRow = -1, toRow = -1, stride = 0;
        int columns = 0, ranks = 0;
        std::vector<float> cells;                // as HeatmapGrid::cells
        std::vector<char> final;                 // per column
        std::vector<float> columnMin, columnMax; // over each column's finite cells
        bool sameShape(qint64 from, qint64 to, qint64 s, int c, int r) const
        {
            return from == fromRow && to == toRow && s == stride && c == columns && r == ranks;
        }
    };
    Columns& lastColumns() { return m_columns; }

  private:
    static constexpr size_t kMaxValues = size_t(1) << 22; // 16 MiB of floats, then it starts over
    metrics::StoreVersion m_version;
    HeatmapMetric m_metric = HeatmapMetric::Count;
    std::vector<std::vector<int>> m_groups;
    size_t m_values = 0;
    std::unordered_map<qint64, std::vector<float>> m_rows;
    Columns m_columns;
};

// A rank x step grid over rows [fromRow, toRow): one column per row when they fit in maxColumns,
// otherwise the maximum over each bucket of rows (sampled: the rows that are multiples of one stride for
// the whole grid, so that a panned view samples the same rows, at most about samplesPerBucket per
// bucket). With `groups` (e.g. the ranks of each host, analysis::ranksByHost), one row per group instead,
// holding the median of its ranks' values; `ranks` then counts the groups. `cache` keeps the values (the
// groups' or the ranks') of each sampled row for the next call. `maxNewRows` (with a cache only): at most
// that many rows not in the cache are read, left to right; the grid is then `complete` once a call finds
// every row it needs in the cache, and until then a column of which no row was read yet is unknown (NaN).
// That bounds a call's cost, so a caller draws the grid in pieces, one call per frame (the first frame that
// showed all 2,000 steps of a 1,024-rank job by host took 44-59 ms; bench_gui_monitor).
struct HeatmapGrid {
    int columns = 0, ranks = 0;
    bool complete = true;
    double firstStep = 0, lastStep = 0; // step at the centre of the first and last column
    std::vector<float> cells;           // column-major: cells[col * ranks + rank], NaN = unknown
    // Per column: copied from the grid the cache computed last, of the same shape (so a caller that shows
    // every grid it gets need not compare that column's cells again).
    std::vector<char> unchanged;
    float min = 0, max = 0; // over finite cells
    float at(int col, int rank) const { return cells[size_t(col) * size_t(ranks) + size_t(rank)]; }
};
double heatmapValue(const metrics::MetricStore& store, HeatmapMetric metric, qint64 row, int rank);
HeatmapGrid heatmapGrid(const metrics::MetricStore& store, HeatmapMetric metric, qint64 fromRow, qint64 toRow,
                        int maxColumns, int samplesPerBucket = 8, const std::vector<std::vector<int>>& groups = {},
                        HeatmapRowCache* cache = nullptr, qint64 maxNewRows = -1);
// Every rank's value of one row (CommWait: the row's transfer taken once, not once per rank).
void heatmapRow(const metrics::MetricStore& store, HeatmapMetric metric, qint64 row, std::vector<float>& out);

} // namespace traindeck::gui
