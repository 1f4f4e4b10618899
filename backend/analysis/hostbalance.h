// The load balance of a large job, as a person can read it: the ranks grouped by host (one row per host,
// slowest first, with the spread inside it), and the slowest ranks of the job. The Monitor's Load balance
// tab and `report` present it; at 1,024 ranks on 128 hosts a bar per rank is not readable.
#pragma once

#include "analysis/phases.h"
#include "metrics/metricstore.h"

#include <QList>
#include <QString>

#include <array>
#include <unordered_map>
#include <vector>

namespace traindeck::analysis {

// The job's hosts in the order of their first rank, each with its ranks (ascending); "" for ranks whose host
// is unknown.
struct HostRanks {
    QString host;
    std::vector<int> ranks;
};
std::vector<HostRanks> ranksByHost(const metrics::MetricStore& store);

// A rank's own time in a step: every phase but the wait for the others (what it would take alone).
double ownMs(const PhaseMeans& means, int rank);

struct HostBalance {
    QString host;           // "" for ranks whose host is unknown
    std::vector<int> ranks; // ascending
    // Mean over the host's ranks of each phase's mean (ms per step), in Phase order.
    std::array<double, size_t(Phase::Count)> phaseMs{};
    double medianOwnMs = 0;            // the median of its ranks' own time: the host's place in the order
    double minOwnMs = 0, maxOwnMs = 0; // the spread inside the host
    int slowestRank = -1;
    double total() const; // sum of phaseMs
};

// One row per host, slowest (median own time) first; ties in host order.
std::vector<HostBalance> hostBalance(const metrics::MetricStore& store, const PhaseMeans& means);

struct SlowRank {
    int rank = -1;
    QString host;
    double ownMs = 0;
    double excessPct = 0;         // own time over the median rank's, percent
    Phase phase = Phase::Forward; // the phase with the largest excess over that phase's median
    // Since when: the step from which, counted to the last step, it was slower than the median rank in more
    // than three steps of four, by the widest margin (-1: in none of the suffixes).
    qint64 sinceStep = -1;
};

// Each row's median own time over the ranks (data + compute), slowestRanks' reference, kept between calls for one
// store (`storeId`) and rewind count: a row does not change after that, and a followed 1,024-rank run took 50
// medians of 1,024 values at every step (2 ms). Holds the rows of the last call only.
class RowOwnMedians {
  public:
    void use(quint64 storeId, qint64 rewinds);
    double at(const metrics::MetricStore& store, qint64 row);
    void keepOnly(qint64 fromRow, qint64 toRow);
    size_t rows() const { return m_rows.size(); }

  private:
    metrics::StoreVersion m_version;
    std::unordered_map<qint64, double> m_rows;
    std::vector<float> m_data, m_fwd, m_bwd, m_opt;
    std::vector<double> m_own;
};

// The `count` ranks with the largest own time over the steps of `means`, slowest first. `medians`: the rows'
// median own times kept from the last call (for the same store), else computed.
std::vector<SlowRank> slowestRanks(const metrics::MetricStore& store, const PhaseMeans& means, int count,
                                   RowOwnMedians* medians = nullptr);

// Whether a view should group by host: more ranks than bars a person can tell apart, on several hosts.
bool groupByHost(const metrics::MetricStore& store);
inline constexpr int kGroupByHostAbove = 32;

} // namespace traindeck::analysis
