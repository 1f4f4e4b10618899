#include "analysis/phases.h"

#include "analysis/diagnosis.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace traindeck::analysis {

using metrics::MetricStore;
using metrics::RankMetric;

// Adds (sign +1) or takes off (-1) the phases of row `row` of every rank, finite values only.
void PhaseSums::addRow(const MetricStore& store, qint64 row, int sign)
{
    const size_t n = size_t(store.worldSize());
    if (sum.empty() || sum[0].size() != n)
        reset(int(n));
    // A row of each metric at a time (MetricStore::rankRow).
    data.resize(n), fwd.resize(n), bwd.resize(n), comm.resize(n), opt.resize(n);
    store.rankRow(RankMetric::Data, row, data.data());
    store.rankRow(RankMetric::Fwd, row, fwd.data());
    store.rankRow(RankMetric::Bwd, row, bwd.data());
    store.rankRow(RankMetric::Comm, row, comm.data());
    store.rankRow(RankMetric::Opt, row, opt.data());
    const double transfer = Diagnosis::transferMs(comm);
    auto add = [&](Phase p, size_t rank, double v) {
        if (!std::isfinite(v))
            return;
        sum[size_t(p)][rank] += sign * v;
        count[size_t(p)][rank] += sign;
        largest = std::max(largest, std::abs(v));
    };
    for (size_t k = 0; k < n; ++k) {
        add(Phase::Data, k, data[k]);
        add(Phase::Forward, k, fwd[k]);
        add(Phase::Backward, k, bwd[k]);
        add(Phase::CommTransfer, k, transfer);
        add(Phase::CommWait, k, double(comm[k]) - transfer); // Diagnosis::waitMs
        add(Phase::Optimizer, k, opt[k]);
    }
}

void PhaseSums::reset(int ranks)
{
    largest = 0;
    sum.assign(size_t(Phase::Count), std::vector<double>(size_t(std::max(0, ranks)), 0.0));
    count.assign(size_t(Phase::Count), std::vector<int>(size_t(std::max(0, ranks)), 0));
}

PhaseMeans PhaseSums::means(const MetricStore& store, qint64 r0, qint64 r1) const
{
    PhaseMeans out;
    out.ranks = store.worldSize();
    out.ms.assign(size_t(Phase::Count),
                  std::vector<double>(size_t(out.ranks), std::numeric_limits<double>::quiet_NaN()));
    if (r1 > r0 && out.ranks > 0) {
        out.fromStep = store.stepAt(r0);
        out.toStep = store.stepAt(r1 - 1);
        out.steps = int(r1 - r0);
    }
    for (size_t p = 0; p < sum.size() && p < out.ms.size(); ++p)
        for (size_t k = 0; k < sum[p].size() && k < size_t(out.ranks); ++k)
            if (count[p][k] > 0)
                out.ms[p][k] = sum[p][k] / count[p][k];
    return out;
}

namespace {

// Means over rows [r0, r1), each phase and rank over its finite values.
PhaseMeans meansOverRows(const MetricStore& store, qint64 r0, qint64 r1)
{
    r0 = std::max<qint64>(0, r0);
    r1 = std::min(r1, store.rowCount());
    PhaseSums sums;
    sums.reset(store.worldSize());
    for (qint64 r = r0; r < r1; ++r)
        sums.addRow(store, r, +1);
    return sums.means(store, r0, r1);
}

} // namespace

const PhaseMeans& PhaseMeansTracker::update(const MetricStore& store, quint64 storeId, int steps)
{
    const qint64 rows = store.rowCount();
    const qint64 r1 = rows, r0 = steps <= 0 ? 0 : std::max<qint64>(0, rows - steps);
    // Sliding on when only rows were added; otherwise (and every kRecount updates, so rounding cannot build up, or
    // once an absurd value went through the sums: taking it off again would leave the others' digits lost) summed
    // again.
    constexpr int kRecount = 1000;
    constexpr double kLargestSlid = 1e9; // ms
    const bool sameStore = !m_version.moveTo(storeId, store.rewinds());
    const bool slides = sameStore && store.worldSize() == m_world && steps == m_steps && r0 >= m_r0 && r1 >= m_r1 &&
                        r0 <= m_r1 && m_sums.largest < kLargestSlid && ++m_updates < kRecount;
    if (!slides) {
        m_world = store.worldSize();
        m_steps = steps;
        m_updates = 0;
        m_sums.reset(m_world);
        m_r0 = m_r1 = r0;
    }
    for (qint64 r = m_r0; r < r0; ++r)
        m_sums.addRow(store, r, -1);
    for (qint64 r = m_r1; r < r1; ++r)
        m_sums.addRow(store, r, +1);
    m_r0 = r0;
    m_r1 = r1;
    m_means = m_sums.means(store, r0, r1);
    return m_means;
}

double PhaseMeans::total(int rank) const
{
    double t = 0;
    for (const auto& p : ms) {
        if (rank >= 0 && rank < int(p.size()) && std::isfinite(p[size_t(rank)]))
            t += p[size_t(rank)];
    }
    return t;
}

PhaseMeans phaseMeans(const MetricStore& store, int steps)
{
    const qint64 rows = store.rowCount();
    return meansOverRows(store, steps <= 0 ? 0 : rows - steps, rows);
}

PhaseMeans phaseBreakdown(const MetricStore& store, qint64 row)
{
    return meansOverRows(store, row, row + 1);
}

} // namespace traindeck::analysis
