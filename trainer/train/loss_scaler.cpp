#include "train/loss_scaler.h"

#include <algorithm>

namespace traindeck::train {

LossScaler::LossScaler(bool enabled, double initScale, double growthFactor, double backoffFactor,
                       int64_t growthInterval)
    : enabled_(enabled), scale_(enabled ? initScale : 1.0), growth_(growthFactor), backoff_(backoffFactor),
      interval_(growthInterval)
{
}

bool LossScaler::update(bool gradientsFinite)
{
    if (!gradientsFinite) {
        ++skipped_;
        goodSteps_ = 0;
        if (enabled_)
            scale_ = std::max(1.0, scale_ * backoff_);
        return true;
    }
    if (enabled_ && ++goodSteps_ >= interval_) {
        scale_ = std::min(scale_ * growth_, 16777216.0); // 2^24, like GradScaler's practical ceiling
        goodSteps_ = 0;
    }
    return false;
}

void LossScaler::restore(double scale, int64_t goodSteps, int64_t skipped)
{
    scale_ = enabled_ ? scale : 1.0;
    goodSteps_ = goodSteps;
    skipped_ = skipped;
}

} // namespace traindeck::train
