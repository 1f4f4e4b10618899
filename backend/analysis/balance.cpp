#include "analysis/balance.h"

#include "analysis/statistics.h"

#include <algorithm>
#include <cmath>
#include <functional>

namespace traindeck::analysis {

using metrics::MetricStore;
using metrics::RankMetric;

namespace {

// A share as a number of sequences: anything else (NaN, negative, beyond an int) is no share.
bool isShare(float v)
{
    constexpr float kMaxShare = 1e9f;
    return v >= 0 && v <= kMaxShare;
}

// The row's shares (world size long).
std::vector<int> sharesAt(const MetricStore& store, qint64 row)
{
    std::vector<int> shares(size_t(store.worldSize()));
    for (int r = 0; r < store.worldSize(); ++r)
        shares[size_t(r)] = int(store.rankAt(RankMetric::Samples, r, row));
    return shares;
}

// The job's step time: every rank waits for the slowest in the allreduce, so the slowest step_ms.
double jobStepMs(const MetricStore& store, qint64 row)
{
    double slowest = detectors::kNaN;
    for (int r = 0; r < store.worldSize(); ++r) {
        const double v = store.rankAt(RankMetric::Step, r, row);
        if (std::isfinite(v) && !(v <= slowest))
            slowest = v;
    }
    return slowest;
}

// The median job step time over rows [from, to), or NaN with fewer than kMinSteps finite ones.
double medianStepMs(const MetricStore& store, qint64 from, qint64 to)
{
    std::vector<double> ms;
    for (qint64 row = std::max<qint64>(0, from); row < std::min(to, store.rowCount()); ++row)
        if (const double v = jobStepMs(store, row); std::isfinite(v))
            ms.push_back(v);
    return int(ms.size()) >= BalanceSummary::kMinSteps ? detectors::median(std::move(ms)) : detectors::kNaN;
}

} // namespace

bool BalanceSummary::hasGain() const
{
    return std::isfinite(beforeMs) && std::isfinite(afterMs) && std::isfinite(gainPct);
}

bool BalanceSummary::sharesEqual() const
{
    return std::adjacent_find(samples.begin(), samples.end(), std::not_equal_to<>()) == samples.end();
}

BalanceSummary balanceSummary(const MetricStore& store)
{
    BalanceTracker tracker;
    return tracker.update(store, 0);
}

const BalanceSummary& BalanceTracker::update(const MetricStore& store, quint64 storeId)
{
    if (m_version.moveTo(storeId, store.rewinds()) || store.worldSize() != m_world || store.rowCount() < m_rows) {
        m_world = store.worldSize();
        m_rows = 0;
        m_lastChangeRow = m_lastRow = -1;
        m_last.assign(size_t(m_world), -1);
        m_summary = BalanceSummary();
    }
    // No shares yet: nothing read, so the rows are read once some step carries them.
    if (store.rowCount() == 0 || m_world == 0 || !store.hasRankMetric(RankMetric::Samples))
        return m_summary;
    BalanceSummary& b = m_summary;
    // The new rows, rank by rank, a column at a time (a value at a time took 21 ms for 2,000 steps of 1,024
    // ranks): first the rows where some rank has no share (a step written without `samples`), which count for
    // nothing; then the rows whose split differs from the last row before them that counts.
    const qint64 from = m_rows, rows = store.rowCount(), n = rows - from;
    std::vector<char> counts(size_t(n), 1), differs(size_t(n), 0);
    std::vector<float> column(counts.size());
    for (int r = 0; r < m_world; ++r) {
        store.rankSamples(RankMetric::Samples, r, from, rows, 1, column.data());
        for (qint64 i = 0; i < n; ++i)
            counts[size_t(i)] &= char(isShare(column[size_t(i)]));
    }
    for (int r = 0; r < m_world; ++r) {
        store.rankSamples(RankMetric::Samples, r, from, rows, 1, column.data());
        int& last = m_last[size_t(r)];
        for (qint64 i = 0; i < n; ++i) {
            if (!counts[size_t(i)])
                continue;
            const int share = int(column[size_t(i)]);
            differs[size_t(i)] |= char(share != last);
            last = share;
        }
    }
    for (qint64 i = 0; i < n; ++i) {
        if (!counts[size_t(i)])
            continue;
        const qint64 row = from + i;
        m_lastRow = row;
        if (!differs[size_t(i)])
            continue;
        if (b.sinceStep >= 0) {
            b.changes.push_back({store.stepAt(row), sharesAt(store, row)});
            m_lastChangeRow = row;
        }
        b.sinceStep = store.stepAt(row);
    }
    m_rows = rows;
    if (m_lastRow >= 0) // a row that counts: the split is known (sinceStep too)
        b.samples = m_last;
    if (m_lastChangeRow < 0)
        return b;
    // The medians around the last change: the rows after it grow until it has kWindowSteps of them.
    b.beforeMs = medianStepMs(store, m_lastChangeRow - BalanceSummary::kWindowSteps, m_lastChangeRow);
    b.afterMs = medianStepMs(store, m_lastChangeRow + 1, m_lastChangeRow + 1 + BalanceSummary::kWindowSteps);
    b.gainPct = detectors::kNaN;
    if (std::isfinite(b.beforeMs) && std::isfinite(b.afterMs) && b.beforeMs > 0)
        b.gainPct = (b.afterMs / b.beforeMs - 1.0) * 100.0;
    else
        b.beforeMs = b.afterMs = detectors::kNaN; // one side without data: no comparison at all
    return b;
}

} // namespace traindeck::analysis
