// Dynamic load balancing (--balance auto): how many samples of the global micro-batch each rank takes,
// from each rank's measured time per sample. No LibTorch here, so it is cheap to test.
#pragma once

#include <cstdint>
#include <vector>

namespace traindeck::train {

// New shares (samples per rank, each >= 1, same total as `current`) proportional to each rank's speed
// (1 / msPerSample). They replace `current` only when the predicted step (the slowest rank's
// share x its time per sample) is at least `minGain` shorter; otherwise `current` comes back, so noise
// does not move samples back and forth. Unusable timings (not finite, <= 0) keep `current`.
std::vector<int64_t> proposeShares(const std::vector<int64_t>& current, const std::vector<double>& msPerSample,
                                   double minGain = 0.05);

// The predicted step time of a split: max over ranks of shares[r] x msPerSample[r].
double predictedStepMs(const std::vector<int64_t>& shares, const std::vector<double>& msPerSample);

} // namespace traindeck::train
