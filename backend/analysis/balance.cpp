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
    BalanceSummary b;
    if (store.rowCount() == 0 || store.worldSize() == 0 || !store.hasRankMetric(RankMetric::Samples))
        return b;
    // Rank by rank, a column at a time (2,000 steps of 1,024 ranks: 5 ms, against 21 ms a value at a time, the
    // largest part of the load-balance tab's first frame): first the rows where some rank has no share (a step
    // written without `samples`), which count for nothing; then the rows whose split differs from the last
    // row before them that counts.
    const qint64 rows = store.rowCount();
    std::vector<char> counts(size_t(rows), 1), differs(size_t(rows), 0);
    for (int r = 0; r < store.worldSize(); ++r) {
        const std::vector<float> column = store.series(metrics::SeriesId::of(RankMetric::Samples, r));
        for (qint64 row = 0; row < rows; ++row)
            counts[size_t(row)] &= char(isShare(column[size_t(row)]));
    }
    for (int r = 0; r < store.worldSize(); ++r) {
        const std::vector<float> column = store.series(metrics::SeriesId::of(RankMetric::Samples, r));
        int last = -1;
        for (qint64 row = 0; row < rows; ++row) {
            if (!counts[size_t(row)])
                continue;
            const int n = int(column[size_t(row)]);
            differs[size_t(row)] |= char(n != last);
            last = n;
        }
    }
    qint64 lastChangeRow = -1, lastRow = -1;
    for (qint64 row = 0; row < rows; ++row) {
        if (!counts[size_t(row)])
            continue;
        lastRow = row;
        if (!differs[size_t(row)])
            continue;
        if (b.sinceStep >= 0) {
            b.changes.push_back({store.stepAt(row), sharesAt(store, row)});
            lastChangeRow = row;
        }
        b.sinceStep = store.stepAt(row);
    }
    if (lastRow >= 0) // a row that counts: the split is known (sinceStep too)
        b.samples = sharesAt(store, lastRow);
    if (lastChangeRow < 0)
        return b;
    b.beforeMs = medianStepMs(store, lastChangeRow - BalanceSummary::kWindowSteps, lastChangeRow);
    b.afterMs = medianStepMs(store, lastChangeRow + 1, lastChangeRow + 1 + BalanceSummary::kWindowSteps);
    if (std::isfinite(b.beforeMs) && std::isfinite(b.afterMs) && b.beforeMs > 0)
        b.gainPct = (b.afterMs / b.beforeMs - 1.0) * 100.0;
    else
        b.beforeMs = b.afterMs = detectors::kNaN; // one side without data: no comparison at all
    return b;
}

} // namespace traindeck::analysis
