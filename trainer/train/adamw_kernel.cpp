#include "train/adamw_kernel.h"

#include <cmath>

namespace traindeck::train {

void adamwUpdate(float* __restrict param, const float* __restrict grad, float* __restrict expAvg,
                 float* __restrict expAvgSq, int64_t n, const AdamWScalars& s)
{
    const float decay = s.decayFactor, w1 = s.oneMinusBeta1, b2 = s.beta2, w2 = s.oneMinusBeta2, bc2 = s.bc2Sqrt,
                eps = s.eps, step = s.negStepSize;
    const bool lerpLow = std::abs(w1) < 0.5f;
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) {
        const float g = grad[i];
        const float p = param[i] * decay;
        // lerp(m, g, w1) as ATen computes it: m + w1 * (g - m) for w1 < 0.5, else g - (g - m) * (1 - w1).
        const float m = lerpLow ? expAvg[i] + w1 * (g - expAvg[i]) : g - (g - expAvg[i]) * (1.0f - w1);
        const float v = expAvgSq[i] * b2 + w2 * g * g;
        expAvg[i] = m;
        expAvgSq[i] = v;
        param[i] = p + step * (m / (std::sqrt(v) / bc2 + eps));
    }
}

} // namespace traindeck::train
