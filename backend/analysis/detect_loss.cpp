#include "analysis/detector.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace traindeck::analysis::detectors {

// ---- loss -----------------------------------------------------------------------------------

namespace {

// The last checkpoint before the finding's first step, as evidence (the step to resume from); -1 if none.
qint64 addLastCheckpointBefore(const Context& c, Finding& f)
{
    qint64 ckpt = -1;
    for (const auto& cp : c.s.checkpoints())
        if (cp.step < f.firstStep && cp.step > ckpt)
            ckpt = cp.step;
    if (ckpt >= 0)
        f.addEvidence(QStringLiteral("last_checkpoint_step"), double(ckpt));
    return ckpt;
}

} // namespace

void loss(const Context& c, QList<Finding>& out)
{
    // Non-finite loss or gradient norm.
    qint64 firstBad = -1, lastBad = -1, bad = 0;
    double lastGood = kNaN;
    for (qint64 row = c.r0; row < c.r1; ++row) {
        const double l = c.s.scalarAt(Scalar::Loss, row);
        const double g = c.s.scalarAt(Scalar::GradNorm, row);
        const bool nonFinite = std::isinf(g) || (std::isnan(l) || std::isinf(l));
        if (nonFinite) {
            if (firstBad < 0)
                firstBad = row;
            lastBad = row;
            ++bad;
        } else if (firstBad < 0) {
            lastGood = l;
        }
    }
    if (firstBad >= 0) {
        Finding f = c.make(FindingKind::LossNaN);
        f.severity = Severity::Critical;
        f.firstStep = qint64(c.step(firstBad));
        f.lastStep = qint64(c.step(lastBad));
        f.addEvidence(QStringLiteral("first_step"), double(f.firstStep));
        f.addEvidence(QStringLiteral("steps_affected"), double(bad));
        f.addEvidence(QStringLiteral("last_finite_loss"), lastGood);
        const qint64 ckpt = addLastCheckpointBefore(c, f);
        f.summary = tr("The loss became NaN/infinite at step %1").arg(f.firstStep);
        f.recommendation =
            ckpt >= 0 ? tr("Resume from the checkpoint of step %1 with a lower learning rate (or longer warm-up) and "
                           "gradient clipping; with fp16, check the loss scale, or train in bf16.")
                            .arg(ckpt)
                      : tr("Restart with a lower learning rate (or longer warm-up) and gradient clipping; with fp16, "
                           "check the loss scale, or train in bf16. Save checkpoints more often to resume sooner.");
        out.append(f);
    }

    // Spikes and divergence, on blocks of lossWindow steps.
    const qint64 B = std::max(5, c.o.lossWindow);
    std::vector<double> blockMed;
    std::vector<qint64> spikes;
    double maxRatio = 0;
    double best = kNaN;
    int divergentBlocks = 0;
    qint64 divergeRow = -1;
    double divergeRatio = 0;
    for (qint64 b0 = c.r0; b0 < c.r1; b0 += B) {
        const qint64 b1 = std::min(c.r1, b0 + B);
        std::vector<double> v;
        for (qint64 row = b0; row < b1; ++row)
            v.push_back(c.s.scalarAt(Scalar::Loss, row));
        // Spikes against the previous block.
        if (!blockMed.empty() && std::isfinite(blockMed.back())) {
            const double med = blockMed.back();
            std::vector<double> prev;
            for (qint64 row = b0 - B; row < b0; ++row)
                prev.push_back(std::fabs(c.s.scalarAt(Scalar::Loss, row) - med));
            const double mad = 1.4826 * median(prev);
            for (qint64 row = b0; row < b1; ++row) {
                const double l = c.s.scalarAt(Scalar::Loss, row);
                if (std::isfinite(l) && l >= med * (1 + c.o.spikeRelative) && l >= med + c.o.spikeMad * mad) {
                    spikes.push_back(row);
                    maxRatio = std::max(maxRatio, l / med);
                }
            }
        }
        const double med = median(v);
        blockMed.push_back(med);
        if (b1 - b0 < B / 2 || !std::isfinite(med))
            continue;
        if (std::isfinite(best) && med >= best * c.o.divergenceFactor) {
            if (++divergentBlocks >= 2 && divergeRow < 0)
                divergeRow = b0;
            divergeRatio = med / best;
        } else {
            divergentBlocks = 0;
        }
        if (!(med >= best))
            best = med;
    }
    // Spike steps that belong to a divergence are not spikes.
    if (divergeRow >= 0)
        spikes.erase(std::remove_if(spikes.begin(), spikes.end(), [&](qint64 r) { return r >= divergeRow - B; }),
                     spikes.end());
    if (!spikes.empty()) {
        Finding f = c.make(FindingKind::LossSpike);
        f.severity = spikes.size() >= 5 ? Severity::Warning : Severity::Info;
        f.firstStep = qint64(c.step(spikes.front()));
        f.lastStep = qint64(c.step(spikes.back()));
        f.addEvidence(QStringLiteral("spikes"), double(spikes.size()));
        f.addEvidence(QStringLiteral("max_ratio"), maxRatio);
        f.addEvidence(QStringLiteral("first_step"), double(f.firstStep));
        f.summary =
            tr("The loss spiked %1 time(s), up to %2x its recent level").arg(spikes.size()).arg(maxRatio, 0, 'f', 2);
        f.recommendation =
            tr("Occasional loss spikes often come from a few bad batches or too high a learning rate. Inspect the "
               "data around step %1, enable gradient clipping, or lower the peak learning rate.")
                .arg(f.firstStep);
        out.append(f);
    }
    if (divergeRow >= 0) {
        Finding f = c.make(FindingKind::LossDivergence);
        f.severity = Severity::Critical;
        f.firstStep = qint64(c.step(divergeRow - B));
        f.lastStep = qint64(c.step(c.r1 - 1));
        f.addEvidence(QStringLiteral("best_loss"), best);
        f.addEvidence(QStringLiteral("loss_now"), blockMed.back());
        f.addEvidence(QStringLiteral("ratio"), divergeRatio);
        const qint64 ckpt = addLastCheckpointBefore(c, f);
        f.summary = tr("The loss diverged: it is %1x its best level since step %2")
                        .arg(divergeRatio, 0, 'f', 2)
                        .arg(f.firstStep);
        f.recommendation =
            ckpt >= 0
                ? tr("Stop the run and resume from the checkpoint of step %1 with a lower learning rate and "
                     "gradient clipping.")
                      .arg(ckpt)
                : tr("Stop the run and restart with a lower learning rate, a longer warm-up and gradient clipping.");
        out.append(f);
    }
}

} // namespace traindeck::analysis::detectors
