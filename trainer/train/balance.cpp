#include "train/balance.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace traindeck::train {

double predictedStepMs(const std::vector<int64_t>& shares, const std::vector<double>& msPerSample)
{
    double worst = 0;
    for (size_t r = 0; r < shares.size() && r < msPerSample.size(); ++r)
        worst = std::max(worst, static_cast<double>(shares[r]) * msPerSample[r]);
    return worst;
}

namespace {

double medianOf(std::vector<double> v)
{
    const auto middle = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
    std::nth_element(v.begin(), middle, v.end());
    return *middle;
}

} // namespace

double timingNoise(const std::vector<std::vector<double>>& windows)
{
    double worst = 0;
    for (const auto& window : windows) {
        if (window.size() < 3)
            continue;
        const double median = medianOf(window);
        if (!(median > 0))
            continue;
        std::vector<double> deviations;
        for (double t : window)
            deviations.push_back(std::abs(t - median));
        // sigma = 1.4826 MAD; the median's standard error is 1.2533 sigma / sqrt(n).
        const double sigma = 1.4826 * medianOf(deviations);
        const double error = 1.2533 * sigma / std::sqrt(static_cast<double>(window.size())) / median;
        worst = std::max(worst, error);
    }
    return 3.0 * std::sqrt(2.0) * worst;
}

std::vector<int64_t> proposeShares(const std::vector<int64_t>& current, const std::vector<double>& msPerSample,
                                   double minGain)
{
    const size_t n = current.size();
    const int64_t total = std::accumulate(current.begin(), current.end(), int64_t(0));
    if (n < 2 || msPerSample.size() != n || total < static_cast<int64_t>(n) ||
        std::any_of(msPerSample.begin(), msPerSample.end(), [](double t) { return !(t > 0) || !std::isfinite(t); }))
        return current;
    double speedSum = 0;
    for (double t : msPerSample)
        speedSum += 1.0 / t;
    // Largest remainder over the ideal real-valued split, at least one sample each.
    std::vector<int64_t> shares(n);
    std::vector<double> remainder(n);
    int64_t given = 0;
    for (size_t r = 0; r < n; ++r) {
        const double ideal = static_cast<double>(total) * (1.0 / msPerSample[r]) / speedSum;
        shares[r] = std::max<int64_t>(1, static_cast<int64_t>(std::floor(ideal)));
        remainder[r] = ideal - std::floor(ideal);
        given += shares[r];
    }
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), size_t(0));
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return remainder[a] > remainder[b]; });
    for (size_t i = 0; given < total; i = (i + 1) % n, ++given)
        ++shares[order[i]];
    // Too many (ranks raised to one sample): take from the ranks that would be slowest with them.
    while (given > total) {
        size_t worst = n;
        for (size_t r = 0; r < n; ++r)
            if (shares[r] > 1 && (worst == n || shares[r] * msPerSample[r] > shares[worst] * msPerSample[worst]))
                worst = r;
        --shares[worst];
        --given;
    }
    if (predictedStepMs(shares, msPerSample) < (1.0 - minGain) * predictedStepMs(current, msPerSample))
        return shares;
    return current;
}

} // namespace traindeck::train
