// What the detectors behind Diagnosis::analyze share: the rows and ranks under analysis (Context), the
// translated text helpers, and one entry point per detector (detect_*.cpp), each appending its findings.
#pragma once

#include "analysis/diagnosis.h"
#include "analysis/statistics.h"

#include <QList>
#include <QString>

namespace traindeck::analysis::detectors {

using metrics::MetricStore;
using metrics::RankMetric;
using metrics::Scalar;

// The findings' texts are translated in the context lupdate gives a bare tr() in this namespace, so that
// translations/*.ts and the lookups agree (tests/unit/gui/tst_language.cpp checks one).
inline constexpr char kTextContext[] = "traindeck::analysis::detectors";
QString tr(const char* s, const char* disambiguation = nullptr, int n = -1);
QString pct(double fraction); // "12" for 0.12
QString ms(double v);         // milliseconds, 2 decimals under 10

struct Context {
    const MetricStore& s;
    const DiagnosisOptions& o;
    qint64 r0 = 0, r1 = 0; // rows analysed: [r0, r1)
    int n = 0;             // ranks

    double step(qint64 row) const { return double(s.stepAt(row)); }
    double rank(RankMetric m, int k, qint64 row) const { return double(s.rankAt(m, k, row)); }
    double compute(qint64 row, int k) const
    {
        return rank(RankMetric::Fwd, k, row) + rank(RankMetric::Bwd, k, row) + rank(RankMetric::Opt, k, row);
    }
    // Median over ranks of a per-rank metric (or of compute when m is nullptr).
    double medianOverRanks(qint64 row, const RankMetric* m) const
    {
        std::vector<double> v(static_cast<size_t>(n));
        for (int k = 0; k < n; ++k)
            v[size_t(k)] = m ? rank(*m, k, row) : compute(row, k);
        return median(std::move(v));
    }
    double stepMs(qint64 row) const
    {
        static constexpr RankMetric m = RankMetric::Step;
        return medianOverRanks(row, &m);
    }
    // What the median rank's step would take without waiting for the others: its data and compute time
    // plus the transfer (the least comm time of the step). NaN where not measured.
    double ownStepMs(qint64 row) const
    {
        std::vector<double> v(static_cast<size_t>(n));
        double transfer = kNaN;
        for (int k = 0; k < n; ++k) {
            v[size_t(k)] = rank(RankMetric::Data, k, row) + compute(row, k);
            const double comm = rank(RankMetric::Comm, k, row);
            if (std::isfinite(comm) && !(comm >= transfer))
                transfer = comm;
        }
        return median(std::move(v)) + transfer;
    }
    Finding make(FindingKind kind, const QList<int>& ranks = {}) const
    {
        Finding f;
        f.kind = kind;
        f.ranks = ranks;
        for (int k : ranks)
            f.hosts.append(s.hostOf(k));
        return f;
    }
};

QString rankLabel(const Context& c, int k); // "rank 3 (node-b)"
QString confidenceText(double confidence);  // "99.20", "> 99.99"

// ---- the detectors ------------------------------------------------------------------------------------
void stragglers(const Context& whole, QList<Finding>& out);                        // detect_stragglers.cpp
void stalls(const MetricStore& s, const DiagnosisOptions& o, QList<Finding>& out); // detect_stalls.cpp
void dataLoading(const Context& c, QList<Finding>& out);                           // detect_data_loading.cpp
void commBound(const Context& c, QList<Finding>& out);                             // detect_communication.cpp
void memory(const Context& c, QList<Finding>& out);                                // detect_memory.cpp
void loss(const Context& c, QList<Finding>& out);                                  // detect_loss.cpp
void throughput(const Context& c, QList<Finding>& out);                            // detect_throughput.cpp
void scaling(const Context& c, QList<Finding>& out);                               // detect_throughput.cpp

} // namespace traindeck::analysis::detectors
