// The statistics the detectors share (analysis/detector.h): medians, winsorized means, the effective sample
// size of a series whose neighbouring steps are alike, the one-sided test of a median against a threshold,
// and its Bonferroni-corrected confidence.
#pragma once

#include <array>
#include <cstddef>
#include <limits>
#include <vector>

namespace traindeck::analysis::detectors {

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The median of the finite values of v (NaN when there is none).
double median(std::vector<double> v);
// The median of v[from, to).
double medianOf(const std::vector<double>& v, size_t from, size_t to);
// v[from, to) without its NaNs, every value clipped to the median +- kClip (2.5) * sigma.
std::vector<double> winsorized(const std::vector<double>& v, size_t from, size_t to, double sigma);
// The same around a median already known.
std::vector<double> winsorizedAround(const std::vector<double>& v, size_t from, size_t to, double sigma, double centre);
double meanOf(const std::vector<double>& v); // NaN when empty
double winsorizedMean(const std::vector<double>& v, size_t from, size_t to, double sigma);
double winsorizedMeanAround(const std::vector<double>& v, size_t from, size_t to, double sigma, double centre);
// One-sided confidence that a z-score is not chance, Bonferroni-corrected over `ranks` comparisons.
double confidenceOf(double z, int ranks);

// Neighbouring steps that are alike (slow drifts: other processes on a core, clocks) count as fewer
// independent samples. The share of independent ones, 1 / (1 + 2 sum of the lag-1..5 correlations), each
// correlation estimated from how often deviations that far apart share their sign (robust to spikes);
// Signs counts them. The correlations are summed with their signs and only the sum is kept from going
// negative (never more than one independent sample per step): clamping each lag at zero counted the
// estimates' own noise as drift (with 30 steps, white noise lost a quarter of its z on average) and ignored
// that an alternating pattern (ranks taking turns on a slower core) cancels in a median.
struct Signs {
    static constexpr int kLags = 5;
    std::array<int, kLags + 1> same{}, pairs{};

    // Deviations d[0..n) of one series from its centre.
    void add(const double* d, size_t n);
    double independentShare() const;
};

// Is the median of `v` above `threshold` beyond the noise of `v` itself? Robust sigma (MAD), the
// median's standard error with the effective sample size, and the one-sided confidence.
struct MedianTest {
    double median = kNaN, z = kNaN, confidence = 0;
    int samples = 0;
};

MedianTest medianAbove(const std::vector<double>& series, double threshold, double noiseFloor);

} // namespace traindeck::analysis::detectors
