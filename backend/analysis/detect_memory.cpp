#include "analysis/detector.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace traindeck::analysis::detectors {

// ---- memory ---------------------------------------------------------------------------------

void memory(const Context& c, QList<Finding>& out)
{
    if (!c.s.hasRankMetric(RankMetric::Mem) || c.r1 <= c.r0)
        return;
    const qint64 W = std::min<qint64>(c.o.window, c.r1 - c.r0);
    QList<int> high;
    double worst = 0, worstMem = kNaN, worstTotal = kNaN;
    for (int k = 0; k < c.n; ++k) {
        const double total = c.s.memTotalMbOf(k);
        double peak = kNaN;
        for (qint64 row = c.r1 - W; row < c.r1; ++row) {
            const double m = c.rank(RankMetric::Mem, k, row);
            if (std::isfinite(m) && !(m <= peak))
                peak = m;
        }
        if (total > 0 && std::isfinite(peak) && peak / total >= c.o.memWarning) {
            high.append(k);
            if (peak / total > worst) {
                worst = peak / total;
                worstMem = peak;
                worstTotal = total;
            }
        }
    }
    if (!high.isEmpty()) {
        Finding f = c.make(FindingKind::MemoryPressure, high);
        f.severity = worst >= c.o.memCritical ? Severity::Critical : Severity::Warning;
        f.firstStep = qint64(c.step(c.r1 - W));
        f.lastStep = qint64(c.step(c.r1 - 1));
        f.addEvidence(QStringLiteral("mem_mb"), worstMem);
        f.addEvidence(QStringLiteral("mem_total_mb"), worstTotal);
        f.addEvidence(QStringLiteral("mem_used_pct"), worst * 100);
        f.summary = tr("Device memory is %1% full on %n rank(s)", nullptr, int(high.size())).arg(pct(worst));
        f.recommendation =
            tr("Memory is close to capacity; an out-of-memory error is likely on a longer sequence or batch. Lower "
               "the per-rank batch (raise gradient accumulation to keep the global batch), enable activation "
               "checkpointing, or shorten the sequence length.");
        out.append(f);
        return;
    }
    // Growth: the last window against the first window after warm-up.
    const qint64 start = c.r0 + std::min<qint64>(c.o.warmupSteps, (c.r1 - c.r0) / 4);
    if (c.r1 - start < 4 * W)
        return;
    QList<int> growing;
    double worstGrowth = 0, from = kNaN, to = kNaN;
    for (int k = 0; k < c.n; ++k) {
        std::vector<double> a, b;
        for (qint64 row = start; row < start + W; ++row)
            a.push_back(c.rank(RankMetric::Mem, k, row));
        for (qint64 row = c.r1 - W; row < c.r1; ++row)
            b.push_back(c.rank(RankMetric::Mem, k, row));
        const double ma = median(a), mb = median(b);
        if (ma > 0 && mb / ma - 1 >= c.o.memGrowth) {
            growing.append(k);
            if (mb / ma - 1 > worstGrowth) {
                worstGrowth = mb / ma - 1;
                from = ma;
                to = mb;
            }
        }
    }
    if (growing.isEmpty())
        return;
    Finding f = c.make(FindingKind::MemoryPressure, growing);
    f.severity = Severity::Warning;
    f.firstStep = qint64(c.step(start));
    f.lastStep = qint64(c.step(c.r1 - 1));
    f.addEvidence(QStringLiteral("mem_start_mb"), from);
    f.addEvidence(QStringLiteral("mem_now_mb"), to);
    f.addEvidence(QStringLiteral("growth_pct"), worstGrowth * 100);
    f.summary = tr("Device memory grew by %1% since the start of the run").arg(pct(worstGrowth));
    f.recommendation =
        tr("Memory keeps growing, which usually means tensors are kept across steps (a loss or metric kept with "
           "its graph, a growing cache). Detach values you keep for logging; watch for an out-of-memory error.");
    out.append(f);
}

} // namespace traindeck::analysis::detectors
