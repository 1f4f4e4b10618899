// The fused AdamW update over plain float arrays: one pass that reads p, g, m, v and writes p, m, v,
// where the op-by-op version makes about 20 passes over memory (the optimizer step is memory-bound).
// Kept free of LibTorch headers so it can be compiled with vectorising flags of its own.
#pragma once

#include <cstdint>

namespace traindeck::train {

struct AdamWScalars {
    float decayFactor = 1;   // 1 - lr * weight_decay (1: no decay)
    float oneMinusBeta1 = 0; // lerp weight
    float beta2 = 0, oneMinusBeta2 = 0;
    float bc2Sqrt = 1; // sqrt(1 - beta2^t)
    float eps = 0;
    float negStepSize = 0; // -lr / (1 - beta1^t)
};

// Elements [0, n): the arithmetic of torch.optim.AdamW's single-tensor path, in float, in the same order:
// p *= decay; m = lerp(m, g, 1 - beta1); v = v * beta2 + (1 - beta2) * g * g;
// p += negStepSize * m / (sqrt(v) / bc2Sqrt + eps).
void adamwUpdate(float* param, const float* grad, float* expAvg, float* expAvgSq, int64_t n, const AdamWScalars& s);

} // namespace traindeck::train
