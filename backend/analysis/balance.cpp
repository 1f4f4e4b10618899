#include "analysis/balance.h"

#include "analysis/statistics.h"

#include <algorithm>
#include <cmath>
#include <functional>

namespace traindeck::analysis {

using metrics::MetricStore;
using metrics::RankMetric;

namespace {

// Reads the row's shares into `shares` (world size long); false when any rank's is missing (a step
// written without `samples`) or out of range. Whether they differ from what `shares` held before goes to `differs`.
// In place: a long run's every row is read on each refresh.
bool readShares(const MetricStore& store, qint64 row, std::vector<int>& shares, bool& differs)
{
    // Sequences per rank and step; anything else (NaN, negative, beyond an int) is no share.
    constexpr float kMaxShare = 1e9f;
    for (int r = 0; r < store.worldSize(); ++r)
        if (const float v = store.rankAt(RankMetric::Samples, r, row); !(v >= 0 && v <= kMaxShare))
            return false;
    differs = false;
    for (int r = 0; r < store.worldSize(); ++r) {
        const int n = int(store.rankAt(RankMetric::Samples, r, row));
        differs |= shares[size_t(r)] != n;
        shares[size_t(r)] = n;
    }
    return true;
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
    qint64 lastChangeRow = -1;
    std::vector<int> shares(size_t(store.worldSize()), -1);
    for (qint64 row = 0; row < store.rowCount(); ++row) {
        bool differs = false;
        if (!readShares(store, row, shares, differs) || !differs)
            continue;
        if (b.sinceStep >= 0) {
            b.changes.push_back({store.stepAt(row), shares});
            lastChangeRow = row;
        }
        b.sinceStep = store.stepAt(row);
    }
    if (b.sinceStep >= 0)
        b.samples = std::move(shares);
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
