// Per-rank phase breakdown of steps, for the load-balance views (GUI bars, CLI terminal bars, the
// HTML report). Communication is split as the diagnosis sees it (diagnosis.h): transfer is the
// smallest comm time over ranks of a step, wait is each rank's excess over it.
#pragma once

#include "metrics/metricstore.h"

#include <vector>

namespace traindeck::analysis {

// In the order of a step (and of stacked bars).
enum class Phase { Data, Forward, Backward, CommTransfer, CommWait, Optimizer, Count };

// Mean time per phase and rank over the rows of steps [fromStep, toStep].
struct PhaseMeans {
    int ranks = 0;
    qint64 fromStep = -1, toStep = -1;
    int steps = 0;
    // ms[phase][rank]; NaN where the phase was never measured in those rows.
    std::vector<std::vector<double>> ms;
    double at(Phase phase, int rank) const { return ms[size_t(phase)][size_t(rank)]; }
    double total(int rank) const; // sum of the finite phases
};

// Over the last `steps` rows (all of them when steps <= 0 or more than the store holds).
PhaseMeans phaseMeans(const metrics::MetricStore& store, int steps);

// One row's breakdown (steps = 1), e.g. the latest step's.
PhaseMeans phaseBreakdown(const metrics::MetricStore& store, qint64 row);

// Running sums of the phases per rank over rows (finite values only), a row at a time.
struct PhaseSums {
    std::vector<std::vector<double>> sum; // [phase][rank]
    std::vector<std::vector<int>> count;
    double largest = 0; // the largest |value| added since the reset
    void reset(int ranks);
    void addRow(const metrics::MetricStore& store, qint64 row, int sign); // sign +1 adds the row, -1 takes it off
    PhaseMeans means(const metrics::MetricStore& store, qint64 r0, qint64 r1) const;

  private:
    std::vector<float> data, fwd, bwd, comm, opt; // one row's values, reused
};

// phaseMeans(store, steps) of a store that grows, kept as running sums: each update adds the rows that entered
// the last `steps` and takes off those that left (the load-balance bars of a followed 1,024-rank run read
// 50 x 1,024 x 5 values at every step: 2.3 ms). Starts over for another store (`storeId`), a rewound one,
// another world size or window.
class PhaseMeansTracker {
  public:
    const PhaseMeans& update(const metrics::MetricStore& store, quint64 storeId, int steps);

  private:
    PhaseSums m_sums;
    PhaseMeans m_means;
    metrics::StoreVersion m_version;
    qint64 m_r0 = 0, m_r1 = 0;
    int m_world = -1, m_steps = -1, m_updates = 0;
};

} // namespace traindeck::analysis
