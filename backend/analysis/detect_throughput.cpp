#include "analysis/detector.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace traindeck::analysis::detectors {

// ---- throughput -----------------------------------------------------------------------------

void throughput(const Context& c, QList<Finding>& out)
{
    const qint64 W = std::max(5, c.o.driftWindow);
    const qint64 start = c.r0 + c.o.warmupSteps;
    if (c.r1 - start < 2 * W)
        return;
    bool tokens = true;
    for (qint64 row = start; row < start + W && tokens; ++row)
        tokens = std::isfinite(c.s.scalarAt(Scalar::TokensPerS, row)) && c.s.scalarAt(Scalar::TokensPerS, row) > 0;
    auto rate = [&](qint64 row) {
        if (tokens)
            return c.s.scalarAt(Scalar::TokensPerS, row);
        const double st = c.stepMs(row);
        return st > 0 ? 1000.0 / st : kNaN;
    };
    std::vector<double> a, b;
    for (qint64 row = start; row < start + W; ++row)
        a.push_back(rate(row));
    for (qint64 row = c.r1 - W; row < c.r1; ++row)
        b.push_back(rate(row));
    const double base = median(a), now = median(b);
    if (!(base > 0) || !std::isfinite(now))
        return;
    const double drop = 1 - now / base;
    if (drop < c.o.driftWarning)
        return;
    Finding f = c.make(FindingKind::ThroughputDrift);
    f.severity = drop >= c.o.driftCritical ? Severity::Critical : Severity::Warning;
    f.firstStep = qint64(c.step(start));
    f.lastStep = qint64(c.step(c.r1 - 1));
    f.addEvidence(tokens ? QStringLiteral("baseline_tokens_per_s") : QStringLiteral("baseline_steps_per_s"), base);
    f.addEvidence(tokens ? QStringLiteral("tokens_per_s") : QStringLiteral("steps_per_s"), now);
    f.addEvidence(QStringLiteral("drop_pct"), drop * 100);
    f.summary = tr("Throughput dropped by %1% since the start of the run").arg(pct(drop));
    f.recommendation =
        tr("Throughput fell from %1 to %2 %3. Look at which step phase grew (data, compute or communication) in "
           "the per-rank view; check for thermal throttling, other jobs on the nodes, or a filling disk.")
            .arg(QString::number(base, 'f', 1), QString::number(now, 'f', 1), tokens ? tr("tokens/s") : tr("steps/s"));
    out.append(f);
}

// ---- scaling efficiency ---------------------------------------------------------------------

void scaling(const Context& c, QList<Finding>& out)
{
    if (c.n < 2 || c.r1 - c.r0 < std::max(c.o.window, 5))
        return;
    std::vector<double> eff, compute, step, transfer, wait, data, tps;
    static constexpr RankMetric kData = RankMetric::Data;
    for (qint64 row = c.r0 + std::min<qint64>(c.o.warmupSteps, (c.r1 - c.r0) / 4); row < c.r1; ++row) {
        const double st = c.stepMs(row);
        const double co = c.medianOverRanks(row, nullptr);
        if (!(st > 0) || !std::isfinite(co))
            continue;
        eff.push_back(std::min(1.0, co / st));
        compute.push_back(co);
        step.push_back(st);
        const double t = Diagnosis::transferMs(c.s, row);
        transfer.push_back(t);
        double w = 0;
        for (int k = 0; k < c.n; ++k) // comm - transfer, the transfer once per row
            w += c.rank(RankMetric::Comm, k, row) - t;
        wait.push_back(w / c.n);
        data.push_back(c.medianOverRanks(row, &kData));
        tps.push_back(c.s.scalarAt(Scalar::TokensPerS, row));
    }
    double e = median(eff);
    const bool measured = c.o.singleRankTokensPerS > 0;
    if (measured)
        e = median(tps) / (c.n * c.o.singleRankTokensPerS);
    if (!(e < c.o.efficiencyInfo))
        return;
    Finding f = c.make(FindingKind::ScalingEfficiency);
    f.severity = e < c.o.efficiencyCritical  ? Severity::Critical
                 : e < c.o.efficiencyWarning ? Severity::Warning
                                             : Severity::Info;
    f.firstStep = qint64(c.step(c.r0));
    f.lastStep = qint64(c.step(c.r1 - 1));
    const double stepMs = median(step), transferMs = median(transfer), waitMs = median(wait), dataMs = median(data);
    f.addEvidence(QStringLiteral("efficiency_pct"), e * 100);
    f.addEvidence(QStringLiteral("world_size"), c.n);
    f.addEvidence(QStringLiteral("effective_ranks"), e * c.n);
    f.addEvidence(QStringLiteral("compute_ms"), median(compute));
    f.addEvidence(QStringLiteral("step_ms"), stepMs);
    f.addEvidence(QStringLiteral("transfer_ms"), transferMs);
    f.addEvidence(QStringLiteral("wait_ms"), waitMs);
    f.addEvidence(QStringLiteral("data_ms"), dataMs);
    if (measured)
        f.addEvidence(QStringLiteral("single_rank_tokens_per_s"), c.o.singleRankTokensPerS);
    // Name the biggest loss.
    QString biggest;
    const double parts[3] = {transferMs, waitMs, dataMs};
    int arg = 0;
    for (int i = 1; i < 3; ++i)
        if (std::isfinite(parts[i]) && !(parts[i] <= parts[arg]))
            arg = i;
    biggest = arg == 0 ? tr("gradient transfer") : arg == 1 ? tr("waiting for slower ranks") : tr("data loading");
    f.summary = tr("%1 ranks do the work of %2 (%3% scaling efficiency)").arg(c.n).arg(e * c.n, 0, 'f', 1).arg(pct(e));
    f.recommendation = tr("The largest loss is %1 (%2 ms of a %3 ms step). Address it first; see the other findings "
                          "for the details.")
                           .arg(biggest, ms(parts[arg]), ms(stepMs));
    out.append(f);
}

} // namespace traindeck::analysis::detectors
