// What --balance did in a run: the per-rank shares (`samples` of the step records), the steps where a
// new split appeared, and the job's median step time before and after the last change. The Monitor's
// Balance tab and `report` present it.
#pragma once

#include "metrics/metricstore.h"

#include <limits>
#include <vector>

namespace traindeck::analysis {

// The step where a split first appeared, and the split (samples per rank).
struct ShareChange {
    qint64 step = -1;
    std::vector<int> samples;
};

struct BalanceSummary {
    // Steps on each side of the last change that the medians take (at most) and need (at least).
    static constexpr int kWindowSteps = 20;
    static constexpr int kMinSteps = 3;

    std::vector<int> samples;         // each rank's share in the last step that has them; empty: no data
    qint64 sinceStep = -1;            // the first step of that split
    std::vector<ShareChange> changes; // every step whose split differs from the last one before it
    // The job's step time (the slowest rank's step_ms) as medians over up to kWindowSteps steps before
    // the last change and after it, the change step itself in neither (the step the data loader
    // re-splits in); NaN with fewer than kMinSteps on a side or no change.
    double beforeMs = std::numeric_limits<double>::quiet_NaN();
    double afterMs = std::numeric_limits<double>::quiet_NaN();
    double gainPct = std::numeric_limits<double>::quiet_NaN(); // (after / before - 1) x 100: negative is faster

    bool hasSamples() const { return !samples.empty(); }
    bool changed() const { return !changes.empty(); }
    bool hasGain() const;
    bool sharesEqual() const; // every rank the same share (also true without samples)
};

BalanceSummary balanceSummary(const metrics::MetricStore& store);

} // namespace traindeck::analysis
