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

// The least gain a new split must promise for the timings behind it to be trusted: three standard errors
// of the difference between two ranks' medians (each rank's error from its window's median absolute
// deviation, the noisiest rank's twice over), as a fraction of the step. 0 when every window is steady or
// has fewer than three timings. On this shared 2-core machine a step varies by 5-10 % from one to the next,
// and a fixed threshold let equal ranks trade samples back and forth (issue #40).
double timingNoise(const std::vector<std::vector<double>>& msPerSampleWindows);

// The predicted step time of a split: max over ranks of shares[r] x msPerSample[r].
double predictedStepMs(const std::vector<int64_t>& shares, const std::vector<double>& msPerSample);

} // namespace traindeck::train
