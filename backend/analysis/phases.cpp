#include "analysis/phases.h"

#include "analysis/diagnosis.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace traindeck::analysis {

using metrics::MetricStore;
using metrics::RankMetric;

namespace {

// Means over rows [r0, r1), each phase and rank over its finite values.
PhaseMeans meansOverRows(const MetricStore& store, qint64 r0, qint64 r1)
{
    PhaseMeans out;
    out.ranks = store.worldSize();
    out.ms.assign(size_t(Phase::Count), std::vector<double>(size_t(out.ranks), 0.0));
    r0 = std::max<qint64>(0, r0);
    r1 = std::min(r1, store.rowCount());
    if (r1 > r0 && out.ranks > 0) {
        out.fromStep = store.stepAt(r0);
        out.toStep = store.stepAt(r1 - 1);
        out.steps = int(r1 - r0);
    }
    std::vector<std::vector<int>> counts(size_t(Phase::Count), std::vector<int>(size_t(out.ranks), 0));
    auto add = [&](Phase p, int rank, double v) {
        if (!std::isfinite(v))
            return;
        out.ms[size_t(p)][size_t(rank)] += v;
        ++counts[size_t(p)][size_t(rank)];
    };
    // A row of each metric at a time (MetricStore::rankRow).
    const size_t n = size_t(out.ranks);
    std::vector<float> data(n), fwd(n), bwd(n), comm(n), opt(n);
    for (qint64 r = r0; r < r1; ++r) {
        store.rankRow(RankMetric::Data, r, data.data());
        store.rankRow(RankMetric::Fwd, r, fwd.data());
        store.rankRow(RankMetric::Bwd, r, bwd.data());
        store.rankRow(RankMetric::Comm, r, comm.data());
        store.rankRow(RankMetric::Opt, r, opt.data());
        const double transfer = Diagnosis::transferMs(comm);
        for (int k = 0; k < out.ranks; ++k) {
            add(Phase::Data, k, data[size_t(k)]);
            add(Phase::Forward, k, fwd[size_t(k)]);
            add(Phase::Backward, k, bwd[size_t(k)]);
            add(Phase::CommTransfer, k, transfer);
            add(Phase::CommWait, k, double(comm[size_t(k)]) - transfer); // Diagnosis::waitMs
            add(Phase::Optimizer, k, opt[size_t(k)]);
        }
    }
    for (size_t p = 0; p < out.ms.size(); ++p) {
        for (size_t k = 0; k < size_t(out.ranks); ++k)
            out.ms[p][k] = counts[p][k] ? out.ms[p][k] / counts[p][k] : std::numeric_limits<double>::quiet_NaN();
    }
    return out;
}

} // namespace

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
