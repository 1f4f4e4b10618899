// What a live view has been told so far: the findings of successive analyses merged, so that a
// finding that stops holding (the straggler recovered, or its steps left the analysed window) is kept
// and marked resolved instead of disappearing. The Monitor and `traindeck-cli watch` both use it.
#pragma once

#include "analysis/diagnosis.h"
#include "analysis/finding.h"
#include "metrics/metricstore.h"

#include <QList>
#include <QString>

#include <functional>

namespace traindeck::analysis {

class FindingHistory {
  public:
    struct Change {
        enum class Type { Raised, Resolved };
        Type type = Type::Raised;
        Finding finding;
    };

    // Merges the findings of one analysis that reached `lastStep`. Returns what changed: findings
    // raised for the first time (or again after they resolved) and findings that stopped holding.
    // Tentative findings are shown while they last and never count as raised.
    QList<Change> update(const QList<Finding>& current, qint64 lastStep);

    // Every finding: active and tentative first (most severe first), then resolved ones.
    QList<Finding> findings() const;

    void clear() { m_entries.clear(); }

    // Identity of a finding across analyses: kind, ranks and cause ("straggler:3:data").
    static QString keyOf(const Finding& f);

  private:
    QList<Finding> m_entries;
};

// The diagnosis of a run that is still going, as the Monitor and `watch` show it: each update analyses
// the last `window` steps (bounded work however long the run) and merges the result into the history.
class LiveDiagnosis {
  public:
    static constexpr qint64 kDefaultWindow = 2000;
    // Stragglers need only the recent steps (the history keeps earlier episodes); the per-step test
    // over every rank is the analysis' costliest part.
    static constexpr qint64 kStragglerSteps = 300;
    // ... and of a job of more than 64 ranks, 120 (four windows: a raise, its resolution and where an episode
    // began within them; the history keeps an earlier start): at 1,024 ranks 300 steps took seconds.
    static constexpr qint64 kStragglerStepsLarge = 120;
    static constexpr int kLargeJobRanks = 64;
    explicit LiveDiagnosis(qint64 window = kDefaultWindow) : m_window(window) {}

    // The run's options (runs::Operations::diagnosisOptions); the window and step range are set here.
    void setOptions(const DiagnosisOptions& options) { m_options = options; }
    QList<FindingHistory::Change> update(const metrics::MetricStore& store);
    // update() in two parts, for an analysis on another thread: the options of the analysis of `store`,
    // and merging its findings, which reached `lastStep`, into the history.
    DiagnosisOptions optionsFor(const metrics::MetricStore& store) const;
    QList<FindingHistory::Change> merge(const QList<Finding>& findings, qint64 lastStep);
    QList<Finding> findings() const { return m_history.findings(); }
    void clear() { m_history.clear(); }

  private:
    qint64 m_window;
    DiagnosisOptions m_options;
    FindingHistory m_history;
};

// How often a live view runs the diagnosis again: when records arrived since the last analysis (steps,
// warnings such as a stall, errors, checkpoints), at most every kIntervalMs, since each analysis reads the
// last steps of every rank. `traindeck-cli follow` and the Monitor page both ask it, so both show the
// same findings at the same moments.
class DiagnosisCadence {
  public:
    static constexpr qint64 kIntervalMs = 2000;
    // The next analysis waits at least this many times as long as the last one took, so that analysing
    // takes at most a tenth of a core however large the job (a 1,024-rank analysis takes most of a second).
    static constexpr qint64 kCostFactor = 10;
    using Clock = std::function<qint64()>; // monotonic milliseconds; a steady clock by default

    explicit DiagnosisCadence(Clock now = {});
    // Records arrived since the last analysis (always true before the first).
    bool hasNewRecords(const metrics::MetricStore& store) const;
    // Milliseconds until the interval allows the next analysis (0: now).
    qint64 msUntilAllowed() const;
    // Both of the above: an analysis is due now.
    bool due(const metrics::MetricStore& store) const { return hasNewRecords(store) && msUntilAllowed() == 0; }
    // An analysis of `store` ran (started) now.
    void ran(const metrics::MetricStore& store);
    // ... and took this long: the next one waits kCostFactor times that, from now.
    void took(qint64 ms);
    void reset();

  private:
    static qint64 recordsIn(const metrics::MetricStore& store);

    Clock m_now;
    qint64 m_lastAt = -1;
    qint64 m_lastRecords = -1;
    qint64 m_intervalMs = kIntervalMs;
};

} // namespace traindeck::analysis
