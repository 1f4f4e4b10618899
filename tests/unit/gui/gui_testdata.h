// Synthetic runs for the GUI tests and the benchmark.
#pragma once

#include "metrics/records.h"

#include <QList>
#include <QString>

#include <cmath>

namespace traindeck::guitest {

inline metrics::HelloRecord hello(int ranks, const QString& runId = QStringLiteral("synthetic"))
{
    metrics::HelloRecord h;
    h.t = 1718000000;
    h.runId = runId;
    h.worldSize = ranks;
    for (int r = 0; r < ranks; ++r) {
        metrics::RankInfo info;
        info.rank = r;
        info.host = QStringLiteral("node%1").arg(r / 2 + 1);
        info.device = QStringLiteral("cuda:%1").arg(r % 2);
        info.memTotalMb = 81559;
        h.ranks.append(info);
    }
    return h;
}

// Step `step` of a run: 100 ms forward, 200 ms backward, 10 ms optimizer, 2 ms data; comm 50 ms on
// the slowest rank, the others wait for it. `straggler` (or -1) computes 40% longer.
inline metrics::StepRecord step(qint64 step, int ranks, int straggler = -1)
{
    using metrics::RankMetric;
    metrics::StepRecord s;
    s.t = 1718000000 + double(step);
    s.step = step;
    s.loss = 10.0 * std::exp(-double(step) / 200.0) + 0.05 * std::sin(double(step));
    s.lr = 3e-4 * std::min(1.0, double(step) / 10.0);
    s.gradNorm = 1.0 + 0.5 * std::cos(double(step) / 7.0);
    s.tokens = 32768;
    s.tokensPerS = 20000 + 100 * std::sin(double(step) / 3.0);
    s.samplesPerS = 20;
    s.mfu = 0.4;
    s.present = metrics::StepRecord::HasGradNorm | metrics::StepRecord::HasMfu | metrics::StepRecord::HasMem |
                metrics::StepRecord::HasUtil;
    for (auto& v : s.perRank)
        v.assign(size_t(ranks), metrics::kNaN);
    double slowest = 0;
    std::vector<double> compute(static_cast<size_t>(ranks));
    for (int r = 0; r < ranks; ++r) {
        const double k = r == straggler ? 1.4 : 1.0;
        compute[size_t(r)] = 2 + k * (100 + 200 + 10);
        slowest = std::max(slowest, compute[size_t(r)]);
    }
    for (int r = 0; r < ranks; ++r) {
        const double k = r == straggler ? 1.4 : 1.0;
        const double comm = 50 + (slowest - compute[size_t(r)]);
        auto set = [&](RankMetric m, double v) { s.perRank[size_t(m)][size_t(r)] = float(v); };
        set(RankMetric::Data, 2);
        set(RankMetric::Fwd, 100 * k);
        set(RankMetric::Bwd, 200 * k);
        set(RankMetric::Opt, 10 * k);
        set(RankMetric::Comm, comm);
        set(RankMetric::Step, compute[size_t(r)] + comm);
        set(RankMetric::Mem, 60000 + r);
        set(RankMetric::Util, 90 + r);
    }
    return s;
}

} // namespace traindeck::guitest
