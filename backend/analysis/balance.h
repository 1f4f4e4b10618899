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

// balanceSummary of a store that grows: each update reads only the rows added since the last one (a live
// view summarised every share of the run at every refresh: 6-8 ms at 2,000 steps of 1,024 ranks, and a day
// holds 43 times as many). It starts over for another store (`storeId`, e.g. the session's generation), one
// that rewound (a resumed run replaces rows), or another world size.
class BalanceTracker {
  public:
    const BalanceSummary& update(const metrics::MetricStore& store, quint64 storeId);
    const BalanceSummary& summary() const { return m_summary; } // as of the last update

  private:
    BalanceSummary m_summary;
    metrics::StoreVersion m_version;
    qint64 m_rows = 0, m_lastChangeRow = -1, m_lastRow = -1;
    int m_world = -1;
    std::vector<int> m_last; // each rank's share in the last row that counts (-1 before one)
};

} // namespace traindeck::analysis
