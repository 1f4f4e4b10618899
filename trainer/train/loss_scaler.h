// Dynamic loss scaling in the manner of torch.cuda.amp.GradScaler (which LibTorch lacks): gradients of
// a scaled loss are unscaled before clipping; a step whose gradients hold inf/NaN is skipped and the
// scale backs off; after `growthInterval` good steps in a row the scale grows. With scaling disabled
// (fp32, bf16) the scale stays 1 but non-finite steps are still skipped, so one bad batch never
// poisons the weights.
#pragma once

#include <cstdint>

namespace traindeck::train {

class LossScaler {
  public:
    explicit LossScaler(bool enabled, double initScale = 65536.0, double growthFactor = 2.0, double backoffFactor = 0.5,
                        int64_t growthInterval = 2000);

    bool enabled() const { return enabled_; }
    double scale() const { return scale_; }
    // Records whether this step's (unscaled) gradients were finite; returns true when the optimizer step
    // must be skipped.
    bool update(bool gradientsFinite);
    int64_t skippedSteps() const { return skipped_; }

    // For checkpoints.
    int64_t goodSteps() const { return goodSteps_; }
    void restore(double scale, int64_t goodSteps, int64_t skipped);

  private:
    bool enabled_;
    double scale_, growth_, backoff_;
    int64_t interval_, goodSteps_ = 0, skipped_ = 0;
};

} // namespace traindeck::train
