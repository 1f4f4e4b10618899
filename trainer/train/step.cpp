// One optimizer step, as llm.c's train loop reads: micro-steps (data, forward, backward), the gradient
// exchange, the optimizer; each phase's time for the step record. Phase boundaries go through
// run.hooks (the stall inspector's marks, the test aids).
#include "train/run.h"

#include "train/device.h"
#include "train/trainer.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace traindeck::train {

namespace {

double learningRate(const TrainOptions& o, double peak, double minLr, int64_t step /*1-based*/, int64_t maxSteps)
{
    if (o.warmup > 0 && step <= o.warmup)
        return peak * static_cast<double>(step) / static_cast<double>(o.warmup);
    const double span = static_cast<double>(std::max<int64_t>(1, maxSteps - o.warmup));
    const double progress = std::min(1.0, static_cast<double>(step - o.warmup) / span);
    return minLr + 0.5 * (peak - minLr) * (1.0 + std::cos(M_PI * progress));
}

// Forward and backward over --grad-accum micro-batches; the gradients accumulate in the buckets.
void forwardBackward(TrainingRun& run, int64_t thisStep, StepStats& stats)
{
    const auto& o = run.o;
    double lossSum = 0;
    int64_t tokens = 0;
    for (int64_t micro = 0; micro < o.gradAccum; ++micro) {
        auto t = run.hooks.begin(thisStep, dist::Phase::Data);
        data::Batch batch = run.loader->next();
        stats.dataMs += msSince(t);
        stats.samples += static_cast<double>(batch.inputIds.size(0));
        run.epoch = batch.epoch;
        run.position = batch.positionAfter;
        tokens += batch.tokens;

        t = run.hooks.begin(thisStep, dist::Phase::Forward);
        torch::Tensor loss;
        {
            const auto inputIds = batch.inputIds.to(run.device, /*non_blocking=*/true);
            const auto labels = batch.labels.to(run.device, /*non_blocking=*/true);
            AutocastScope autocast(run.device, o.precision);
            loss = run.hooks.loss(thisStep, run.net->loss(inputIds, labels, {o.fusedLoss, o.lossChunk}));
        }
        lossSum += loss.item<double>(); // waits for the forward pass on a device
        run.hooks.slowDown(t);
        stats.fwdMs += msSince(t);

        // Overlapped, the last micro-step's backward hands each finished bucket to the communication
        // thread (and a backward delay happens there: PhaseHooks::onBucketReady).
        const bool overlapped = run.overlap && micro == o.gradAccum - 1;
        t = run.hooks.begin(thisStep, dist::Phase::Backward, /*delayElsewhere=*/overlapped);
        if (overlapped) {
            run.buckets->reattachViews();
            run.overlap->arm();
        }
        (loss * (run.scaler.scale() * run.balancer.lossWeight() / static_cast<double>(o.gradAccum))).backward();
        synchronize(run.device);
        run.hooks.slowDown(t);
        stats.bwdMs += msSince(t);
    }
    stats.loss = lossSum / static_cast<double>(o.gradAccum);
    stats.tokens = static_cast<double>(tokens);
}

// Averages gradients over ranks, bucket by bucket; only after the last micro-step. Without --overlap
// every reduction happens here, all of it on the critical path; with it this waits for the reductions
// backward started.
void allreduceGradients(TrainingRun& run, StepStats& stats)
{
    const auto started = Clock::now();
    if (run.overlap) {
        const auto timing = run.overlap->finish();
        synchronize(run.device);
        stats.commMs = msSince(started);
        stats.commHiddenMs = timing.hiddenMs();
    } else {
        run.buckets->reduceAll();
        synchronize(run.device);
        stats.commMs = msSince(started);
    }
    stats.commBytes = static_cast<double>(run.buckets->bytesSent());
}

// The optimizer step, skipped (with a warning) when the gradients are not finite; clears the gradients.
void applyGradients(TrainingRun& run, int64_t thisStep, StepResult& result)
{
    result.gradNorm = run.buckets->unscaleAndClip(run.scaler.scale(), run.o.clip);
    result.lr = learningRate(run.o, run.peakLr, run.minLr, thisStep, run.maxSteps);
    // Every rank holds the same averaged gradients, so every rank takes the same decision.
    result.lossScale = run.scaler.scale();
    const bool skip = run.scaler.update(std::isfinite(result.gradNorm));
    if (!skip) {
        run.optimizer->step(result.lr, run.o.weightDecay);
        if (run.o.zero == 1)
            run.buckets->allgatherParameters();
    } else if (run.lead)
        run.metrics->write("warning",
                           {{"rank", -1},
                            {"host", ""},
                            {"code", "non_finite_gradients"},
                            {"message", "step " + std::to_string(thisStep) + ": gradients are not finite (loss scale " +
                                            std::to_string(result.lossScale) + "); the step was skipped"}});
    run.buckets->zeroGradients();
    synchronize(run.device);
}

} // namespace

StepResult runStep(TrainingRun& run)
{
    const auto stepStart = Clock::now();
    const double cpuStart = telemetry::processCpuSeconds();
    const int64_t thisStep = run.step + 1;
    run.hooks.atStepStart(thisStep);
    StepResult result;
    StepStats& stats = result.stats;

    forwardBackward(run, thisStep, stats);

    run.hooks.mark(thisStep, dist::Phase::Allreduce);
    allreduceGradients(run, stats);

    const auto t = run.hooks.begin(thisStep, dist::Phase::Optimizer);
    applyGradients(run, thisStep, result);
    stats.optMs = msSince(t);
    run.step = thisStep;

    stats.stepMs = msSince(stepStart);
    const double cpu = telemetry::processCpuSeconds() - cpuStart;
    stats.util = std::min(100.0, 100.0 * cpu / (stats.stepMs / 1000.0) / std::max(1, torch::get_num_threads()));
    stats.memMb = telemetry::residentMiB();
    if (run.device.is_cuda())
        sampleGpu(run.deviceInfo, stats.util, stats.memMb);
    return result;
}

} // namespace traindeck::train
