#include "analysis/hostbalance.h"

#include "analysis/statistics.h"

#include <QHash>

#include <algorithm>
#include <cmath>

namespace traindeck::analysis {

using metrics::MetricStore;
using metrics::RankMetric;

double ownMs(const PhaseMeans& means, int rank)
{
    double sum = 0;
    for (int p = 0; p < int(Phase::Count); ++p) {
        const double v = means.ms[size_t(p)][size_t(rank)];
        if (Phase(p) != Phase::CommWait && std::isfinite(v))
            sum += v;
    }
    return sum;
}

double HostBalance::total() const
{
    double sum = 0;
    for (double v : phaseMs)
        sum += std::isfinite(v) ? v : 0;
    return sum;
}

std::vector<HostRanks> ranksByHost(const MetricStore& store)
{
    std::vector<HostRanks> hosts;
    QHash<QString, size_t> index;
    for (int r = 0; r < store.worldSize(); ++r) {
        const QString host = store.hostOf(r);
        auto it = index.constFind(host);
        if (it == index.cend()) {
            it = index.insert(host, hosts.size());
            hosts.push_back({host, {}});
        }
        hosts[*it].ranks.push_back(r);
    }
    return hosts;
}

std::vector<HostBalance> hostBalance(const MetricStore& store, const PhaseMeans& means)
{
    std::vector<HostBalance> hosts;
    for (HostRanks& h : ranksByHost(store)) {
        hosts.push_back({});
        hosts.back().host = h.host;
        hosts.back().ranks = std::move(h.ranks);
    }
    for (HostBalance& h : hosts) {
        std::vector<double> own;
        for (int p = 0; p < int(Phase::Count); ++p) {
            double sum = 0;
            int n = 0;
            for (int r : h.ranks) {
                const double v = means.ms[size_t(p)][size_t(r)];
                if (std::isfinite(v))
                    sum += v, ++n;
            }
            h.phaseMs[size_t(p)] = n ? sum / n : detectors::kNaN;
        }
        for (int r : h.ranks)
            own.push_back(ownMs(means, r));
        const auto [lo, hi] = std::minmax_element(own.begin(), own.end());
        h.minOwnMs = *lo;
        h.maxOwnMs = *hi;
        h.slowestRank = h.ranks[size_t(hi - own.begin())];
        h.medianOwnMs = detectors::median(std::move(own));
    }
    std::stable_sort(hosts.begin(), hosts.end(),
                     [](const HostBalance& a, const HostBalance& b) { return a.medianOwnMs > b.medianOwnMs; });
    return hosts;
}

void RowOwnMedians::use(quint64 storeId, qint64 rewinds)
{
    if (m_version.moveTo(storeId, rewinds))
        m_rows.clear();
}

double RowOwnMedians::at(const MetricStore& store, qint64 row)
{
    if (const auto it = m_rows.find(row); it != m_rows.end())
        return it->second;
    const size_t world = size_t(std::max(0, store.worldSize()));
    m_data.resize(world), m_fwd.resize(world), m_bwd.resize(world), m_opt.resize(world), m_own.resize(world);
    store.rankRow(RankMetric::Data, row, m_data.data());
    store.rankRow(RankMetric::Fwd, row, m_fwd.data());
    store.rankRow(RankMetric::Bwd, row, m_bwd.data());
    store.rankRow(RankMetric::Opt, row, m_opt.data());
    for (size_t k = 0; k < world; ++k)
        m_own[k] = double(m_data[k]) + m_fwd[k] + m_bwd[k] + m_opt[k];
    return m_rows[row] = detectors::median(m_own);
}

void RowOwnMedians::keepOnly(qint64 fromRow, qint64 toRow)
{
    for (auto it = m_rows.begin(); it != m_rows.end();)
        it = it->first < fromRow || it->first >= toRow ? m_rows.erase(it) : std::next(it);
}

std::vector<SlowRank> slowestRanks(const MetricStore& store, const PhaseMeans& means, int count, RowOwnMedians* medians)
{
    std::vector<SlowRank> out;
    if (means.ranks == 0 || means.steps == 0)
        return out;
    std::vector<double> own(size_t(means.ranks));
    for (int r = 0; r < means.ranks; ++r)
        own[size_t(r)] = ownMs(means, r);
    const double medianOwn = detectors::median(own);
    std::array<double, size_t(Phase::Count)> phaseMedian{};
    for (int p = 0; p < int(Phase::Count); ++p)
        phaseMedian[size_t(p)] = detectors::median(means.ms[size_t(p)]);
    std::vector<int> order(size_t(means.ranks));
    for (int r = 0; r < means.ranks; ++r)
        order[size_t(r)] = r;
    const size_t n = size_t(std::clamp(count, 0, means.ranks));
    std::partial_sort(order.begin(), order.begin() + qsizetype(n), order.end(),
                      [&](int a, int b) { return own[size_t(a)] > own[size_t(b)]; });
    // Each row's median own time (data + compute), for the steps since which a rank has been slower.
    const qint64 r0 = std::max<qint64>(0, store.rowOfStep(means.fromStep)), r1 = store.rowOfStep(means.toStep) + 1;
    RowOwnMedians once;
    RowOwnMedians& kept = medians ? *medians : once;
    std::vector<double> rowMedian;
    for (qint64 row = r0; row < r1; ++row)
        rowMedian.push_back(kept.at(store, row));
    kept.keepOnly(r0, r1);
    auto ownAt = [&](int k, qint64 row) {
        return double(store.rankAt(RankMetric::Data, k, row)) + store.rankAt(RankMetric::Fwd, k, row) +
               store.rankAt(RankMetric::Bwd, k, row) + store.rankAt(RankMetric::Opt, k, row);
    };
    for (size_t i = 0; i < n; ++i) {
        SlowRank s;
        s.rank = order[i];
        s.host = store.hostOf(s.rank);
        s.ownMs = own[size_t(s.rank)];
        s.excessPct = medianOwn > 0 ? (s.ownMs / medianOwn - 1) * 100 : detectors::kNaN;
        double most = -1e300;
        for (int p = 0; p < int(Phase::Count); ++p) {
            const double excess = means.ms[size_t(p)][size_t(s.rank)] - phaseMedian[size_t(p)];
            if (Phase(p) != Phase::CommWait && std::isfinite(excess) && excess > most)
                most = excess, s.phase = Phase(p);
        }
        // Since: the change point, where a walk back from the last step gains the most: +1 for a step it was
        // slower than the median rank, -3 for one it was not, so a rank slower in more than three steps of four
        // gains and one that is slower by chance (half the steps) loses.
        int sum = 0, best = 0;
        for (qint64 row = r1 - 1; row >= r0; --row) {
            sum += ownAt(s.rank, row) > rowMedian[size_t(row - r0)] ? 1 : -3;
            if (sum > best) {
                best = sum;
                s.sinceStep = store.stepAt(row);
            }
        }
        out.push_back(s);
    }
    return out;
}

bool groupByHost(const MetricStore& store)
{
    if (store.worldSize() <= kGroupByHostAbove)
        return false;
    const QString first = store.hostOf(0);
    for (int r = 1; r < store.worldSize(); ++r)
        if (store.hostOf(r) != first)
            return true;
    return false;
}

} // namespace traindeck::analysis
