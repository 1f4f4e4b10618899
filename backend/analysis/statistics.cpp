#include "analysis/statistics.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace traindeck::analysis::detectors {

// Steps beyond kClip robust sigmas of a rank's median count as kClip sigmas (detect_stragglers.cpp says why).
constexpr double kClip = 2.5;

double median(std::vector<double> v)
{
    v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return !std::isfinite(x); }), v.end());
    if (v.empty())
        return kNaN;
    const size_t m = v.size() / 2;
    std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(m), v.end());
    double hi = v[m];
    if (v.size() % 2)
        return hi;
    const double lo = *std::max_element(v.begin(), v.begin() + std::ptrdiff_t(m));
    return (lo + hi) / 2;
}

double confidenceOf(double z, int ranks)
{
    const double p = 0.5 * std::erfc(z / std::sqrt(2.0));
    return std::max(0.0, 1.0 - p * std::max(1, ranks));
}

double medianOf(const std::vector<double>& v, size_t from, size_t to)
{
    return median(std::vector<double>(v.begin() + std::ptrdiff_t(from), v.begin() + std::ptrdiff_t(to)));
}

std::vector<double> winsorized(const std::vector<double>& v, size_t from, size_t to, double sigma)
{
    const double centre = medianOf(v, from, to);
    std::vector<double> out;
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
    return meanOf(winsorized(v, from, to, sigma));
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
