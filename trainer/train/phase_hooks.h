// What happens at the step's phase boundaries besides the training itself: the stall inspector learns
// where this rank is, and the test aids act (--inject-delay, --inject-slowdown, --inject-stall, --inject-exit,
// --inject-nan). The step calls these hooks; it holds no test aid of its own.
#pragma once

#include "dist/communicator.h"
#include "dist/stall.h"
#include "train/options.h"

#include <torch/torch.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace traindeck::telemetry {
class MetricsWriter;
}

namespace traindeck::train {

class DoneRecord;

class PhaseHooks {
  public:
    using Clock = std::chrono::steady_clock;

    PhaseHooks(const TrainOptions& options, dist::Communicator& comm);

    // The step enters `phase`: the stall inspector learns it, and --inject-stall stops the rank there once.
    // (Overlapped, an allreduce stall is injected on the communication thread instead: beforeBucketReduce.)
    void mark(int64_t step, dist::Phase phase);
    // mark(), then the phase's clock starts and --inject-delay R:MS:PHASE sleeps inside it, so the delay
    // counts as the phase's time. delayElsewhere: an overlapped backward sleeps in onBucketReady instead.
    Clock::time_point begin(int64_t step, dist::Phase phase, bool delayElsewhere = false);
    // At the end of a forward or backward begun at `started`: --inject-slowdown R:F sleeps (F - 1) x the
    // time it took, inside the phase, so the rank's time per sample is F times its own.
    void slowDown(Clock::time_point started) const;
    // At the start of a step: --inject-exit ends the rank there as if it had crashed.
    void atStepStart(int64_t step) const;
    // The micro-step's loss; --inject-nan makes it NaN on the planned rank and step.
    torch::Tensor loss(int64_t step, torch::Tensor loss) const;

    // The overlapped allreduce's hooks: on the communication thread before bucket `index` is reduced, and
    // on the backward thread when a bucket's gradients are complete.
    void beforeBucketReduce(size_t index, int64_t step);
    void onBucketReady(size_t index) const;
    void setOverlapped(bool on) { overlapped_ = on; }

    // Every rank: the inspector watches the training loop from `step` + 1 on (setup, with its uneven data
    // preparation, is not watched). All ranks agree whether it runs. Rank 0 reports through `metrics` and
    // on --stall-abort ends the job with an `error` and the `done` record.
    void startStallInspector(std::unique_ptr<telemetry::MetricsWriter>& metrics, DoneRecord& done, int64_t step);
    void finishStallInspector();

  private:
    void injectStall(int64_t step, dist::Phase phase);
    void injectDelay(dist::Phase phase) const;
    void reportStall(telemetry::MetricsWriter& metrics, DoneRecord& done, const std::vector<std::string>& hosts,
                     const dist::StallVerdict& v, const std::vector<dist::RankProgress>& board, bool abort);

    const TrainOptions& o_;
    dist::Communicator& comm_;
    const int rank_;
    bool overlapped_ = false;
    std::atomic<bool> stallInjected_{false};      // --inject-stall happens once (either thread)
    std::unique_ptr<dist::StallInspector> stall_; // null: --stall-warning 0, or no channel for it
};

} // namespace traindeck::train
