// Diagnosis::analyze runs the detectors (detect_*.cpp, declared in analysis/detector.h) over the chosen
// rows; the statistics they share are in analysis/statistics.cpp.
#include "analysis/diagnosis.h"

#include "analysis/detector.h"

#include <algorithm>
#include <cmath>

namespace traindeck::analysis {

using metrics::MetricStore;
using metrics::RankMetric;
using namespace detectors;

double Diagnosis::transferMs(const MetricStore& store, qint64 row)
{
    // The detectors call this for every row (and waitMs for every rank): one buffer per thread, not one per call.
    thread_local std::vector<float> comm;
    comm.resize(size_t(store.worldSize()));
    store.rankRow(RankMetric::Comm, row, comm.data());
    return transferMs(comm);
}

double Diagnosis::transferMs(const std::vector<float>& comm)
{
    double t = kNaN;
    for (const float c : comm)
        if (std::isfinite(c) && !(c >= t))
            t = c;
    return t;
}

double Diagnosis::waitMs(const MetricStore& store, qint64 row, int rank)
{
    return double(store.rankAt(RankMetric::Comm, rank, row)) - transferMs(store, row);
}

double Diagnosis::stragglerZ(const DiagnosisOptions& options, int ranks)
{
    // Bonferroni over the ranks, and beyond 8 ranks a further (8 / ranks)^2: the test's z has heavier tails
    // than a normal variable (windows of 10-30 steps with drift), so the chance that some rank passes by
    // noise grew almost in proportion to the ranks however small the per-rank alpha: on generated runs
    // with the real trainer's noise (tests/bench/analysis/bench_scale) alpha / ranks gave 26 false
    // findings in 10,000 steps at 1,024 ranks, against 0.5 at 8 (docs/measurements/bench_diagnosis.md).
    const double n = std::max(1, ranks), beyond = std::max(1.0, n / 8.0);
    const double p = options.stragglerAlpha / n / (beyond * beyond);
    // The normal quantile by bisection on erfc (no inverse in the standard library).
    double lo = 0, hi = 40;
    for (int i = 0; i < 100; ++i) {
        const double mid = (lo + hi) / 2;
        (0.5 * std::erfc(mid / std::sqrt(2.0)) > p ? lo : hi) = mid;
    }
    return (lo + hi) / 2;
}

double Diagnosis::computeMs(const MetricStore& store, qint64 row, int rank)
{
    return double(store.rankAt(RankMetric::Fwd, rank, row)) + double(store.rankAt(RankMetric::Bwd, rank, row)) +
           double(store.rankAt(RankMetric::Opt, rank, row));
}

QList<Finding> Diagnosis::analyze(const MetricStore& store, const DiagnosisOptions& options)
{
    QList<Finding> out;
    Context c{store, options};
    c.n = store.worldSize();
    c.r0 = options.fromStep >= 0 ? store.lowerBoundRow(options.fromStep) : 0;
    c.r1 = options.toStep >= 0 ? store.lowerBoundRow(options.toStep + 1) : store.rowCount();
    stalls(store, options, out); // a job can stall before its first step record
    if (c.r1 > c.r0 && c.n >= 1) {
        stragglers(c, out);
        dataLoading(c, out);
        commBound(c, out);
        memory(c, out);
        loss(c, out);
        throughput(c, out);
        scaling(c, out);
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const Finding& a, const Finding& b) { return int(a.severity) > int(b.severity); });
    return out;
}

} // namespace traindeck::analysis
