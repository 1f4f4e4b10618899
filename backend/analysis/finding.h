// A diagnosis finding: what, how bad, where (ranks, hosts, steps), the numbers behind it, and what
// to do about it.
#pragma once

#include <QJsonObject>
#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>

#include <limits>

namespace traindeck::analysis {

enum class FindingKind {
    Straggler,         // one rank's compute or data time persistently above the others'
    DataLoading,       // the input pipeline starves the job (high data share of the step, or stalls)
    CommBound,         // gradient transfer takes a large share of the step
    MemoryPressure,    // device memory close to capacity, or growing without bound
    LossNaN,           // non-finite loss or gradient norm
    LossSpike,         // short upward excursions of the loss
    LossDivergence,    // the loss moved persistently up from its best level
    ThroughputDrift,   // throughput fell compared with the start of the run
    ScalingEfficiency, // how much of the step is useful compute (what N ranks really give)
    Stall,             // ranks stopped moving: the trainer's stall inspector named who holds the job up
};

enum class Severity { Info, Warning, Critical };

// Where a finding stands: it holds now, it held and stopped holding (kept, so a person sees what
// happened), or the data point that way without enough evidence for a verdict yet.
enum class FindingState { Active, Resolved, Tentative };

struct Finding {
    FindingKind kind = FindingKind::Straggler;
    Severity severity = Severity::Info;
    QList<int> ranks;  // ranks concerned (empty: the whole job)
    QStringList hosts; // their hosts, same order as ranks ("" where unknown)
    qint64 firstStep = -1;
    qint64 lastStep = -1;
    FindingState state = FindingState::Active;
    qint64 raisedStep = -1;                 // the step at which the evidence first sufficed (-1: not tracked)
    qint64 resolvedStep = -1;               // the step at which it stopped holding (state Resolved)
    QList<QPair<QString, double>> evidence; // named numbers, in a readable order
    QString summary;                        // one translated line, e.g. for a list view
    QString recommendation;                 // a translated sentence a person can act on

    double evidenceValue(const QString& name, double fallback = std::numeric_limits<double>::quiet_NaN()) const;
    void addEvidence(const QString& name, double value) { evidence.append({name, value}); }
    // About a whole host (its ranks together; evidence host_ranks), not about each of its ranks.
    bool isHostWide() const;

    // When it was raised and resolved, translated ("raised at step 14; resolved at step 80"); "" when
    // not tracked.
    QString timeline() const;

    // {kind, severity, state, ranks, hosts, evidence:{...}, recommendation, summary, first_step, last_step,
    //  raised_step, resolved_step}
    QJsonObject toJson() const;

    static QString kindName(FindingKind k);   // "straggler", "data_loading", ...
    static QString severityName(Severity s);  // "info", "warning", "critical"
    static QString stateName(FindingState s); // "active", "resolved", "tentative"
};

} // namespace traindeck::analysis
