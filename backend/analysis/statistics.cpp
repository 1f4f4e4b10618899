#include "analysis/statistics.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace traindeck::analysis::detectors {

// Steps beyond kClip robust sigmas of a rank's median count as kClip sigmas (detect_stragglers.cpp says why).
constexpr double kClip = 2.5;

namespace {
// The median of the finite values in [first, last), which it reorders.
double medianInPlace(double* first, double* last)
{
    last = std::remove_if(first, last, [](double x) { return !std::isfinite(x); });
    if (first == last)
        return kNaN;
    const size_t n = size_t(last - first), m = n / 2;
    std::nth_element(first, first + m, last);
    const double hi = first[m];
    if (n % 2)
        return hi;
    return (*std::max_element(first, first + m) + hi) / 2;
}

// Scratch space for the window medians, which run a million times an analysis at 1,024 ranks.
std::vector<double>& scratch()
{
    thread_local std::vector<double> buffer;
    return buffer;
}
} // namespace

double median(std::vector<double> v)
{
    return medianInPlace(v.data(), v.data() + v.size());
}

double confidenceOf(double z, int ranks)
{
    const double p = 0.5 * std::erfc(z / std::sqrt(2.0));
    return std::max(0.0, 1.0 - p * std::max(1, ranks));
}

double medianOf(const std::vector<double>& v, size_t from, size_t to)
{
    std::vector<double>& b = scratch();
    b.assign(v.begin() + std::ptrdiff_t(from), v.begin() + std::ptrdiff_t(to));
    return medianInPlace(b.data(), b.data() + b.size());
}

std::vector<double> winsorized(const std::vector<double>& v, size_t from, size_t to, double sigma)
{
    return winsorizedAround(v, from, to, sigma, medianOf(v, from, to));
}

std::vector<double> winsorizedAround(const std::vector<double>& v, size_t from, size_t to, double sigma, double centre)
{
    std::vector<double> out;
    out.reserve(to - from);
    for (size_t j = from; j < to; ++j)
        if (std::isfinite(v[j]))
            out.push_back(std::clamp(v[j], centre - kClip * sigma, centre + kClip * sigma));
    return out;
}

double meanOf(const std::vector<double>& v)
{
    return v.empty() ? kNaN : std::accumulate(v.begin(), v.end(), 0.0) / double(v.size());
}

double winsorizedMean(const std::vector<double>& v, size_t from, size_t to, double sigma)
{
    return winsorizedMeanAround(v, from, to, sigma, medianOf(v, from, to));
}

double winsorizedMeanAround(const std::vector<double>& v, size_t from, size_t to, double sigma, double centre)
{
    const double lo = centre - kClip * sigma, hi = centre + kClip * sigma;
    double sum = 0;
    size_t n = 0;
    for (size_t j = from; j < to; ++j)
        if (std::isfinite(v[j]))
            sum += std::clamp(v[j], lo, hi), ++n;
    return n ? sum / double(n) : kNaN;
}

void Signs::add(const double* d, size_t n)
{
    for (size_t j = 0; j < n; ++j) {
        if (!std::isfinite(d[j]) || d[j] == 0)
            continue;
        for (int lag = 1; lag <= kLags && size_t(lag) <= j; ++lag) {
            const double p = d[j - size_t(lag)];
            if (!std::isfinite(p) || p == 0)
                continue;
            same[size_t(lag)] += (d[j] > 0) == (p > 0);
            ++pairs[size_t(lag)];
        }
    }
}

double Signs::independentShare() const
{
    double sum = 0;
    for (int lag = 1; lag <= kLags; ++lag)
        if (pairs[size_t(lag)] > 0)
            sum += std::sin(M_PI * (double(same[size_t(lag)]) / pairs[size_t(lag)] - 0.5));
    return std::max(0.1, 1.0 / (1.0 + 2.0 * std::max(0.0, sum)));
}

MedianTest medianAbove(const std::vector<double>& series, double threshold, double noiseFloor)
{
    std::vector<double> v;
    for (double x : series)
        if (std::isfinite(x))
            v.push_back(x);
    MedianTest t;
    t.samples = int(v.size());
    if (v.size() < 2)
        return t;
    t.median = median(v);
    std::vector<double> dev, signed_;
    for (double x : v) {
        dev.push_back(std::fabs(x - t.median));
        signed_.push_back(x - t.median);
    }
    Signs signs;
    signs.add(signed_.data(), signed_.size());
    const double sigma = std::max(1.4826 * median(dev), noiseFloor);
    const double se = 1.2533 * sigma / std::sqrt(double(v.size()) * signs.independentShare());
    t.z = (t.median - threshold) / se;
    t.confidence = confidenceOf(t.z, 1);
    return t;
}

} // namespace traindeck::analysis::detectors
