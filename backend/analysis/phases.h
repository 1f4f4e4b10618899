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

} // namespace traindeck::analysis
