#include "analysis/findinghistory.h"

#include "analysis/diagnosis.h"

#include <QCoreApplication>
#include <QStringList>

#include <algorithm>
#include <chrono>

namespace traindeck::analysis {

namespace {

QString tr(const char* s)
{
    return QCoreApplication::translate("traindeck::analysis::FindingHistory", s);
}

const Finding* findKey(const QList<Finding>& list, const QString& key)
{
    for (const Finding& f : list)
        if (FindingHistory::keyOf(f) == key)
            return &f;
    return nullptr;
}

} // namespace

QString FindingHistory::keyOf(const Finding& f)
{
    QStringList r;
    for (int x : f.ranks)
        r.append(QString::number(x));
    QString key = Finding::kindName(f.kind) + QLatin1Char(':') + r.join(QLatin1Char(','));
    if (f.evidenceValue(QStringLiteral("data_cause"), 0) > 0)
        key += QStringLiteral(":data");
    return key;
}

QList<FindingHistory::Change> FindingHistory::update(const QList<Finding>& current, qint64 lastStep)
{
    // The analysis' view of each key: its newest episode (an analysis may also report older, resolved
    // episodes of the same key).
    QList<Finding> latest;
    for (const Finding& f : current) {
        const QString key = keyOf(f);
        auto it = std::find_if(latest.begin(), latest.end(), [&](const Finding& g) { return keyOf(g) == key; });
        if (it == latest.end())
            latest.append(f);
        else if ((f.state != FindingState::Resolved) > (it->state != FindingState::Resolved) ||
                 ((f.state != FindingState::Resolved) == (it->state != FindingState::Resolved) &&
                  f.raisedStep > it->raisedStep))
            *it = f;
    }

    QList<Change> changes;
    QList<Finding> next;
    QList<QString> matched;
    for (const Finding& old : std::as_const(m_entries)) {
        if (old.state == FindingState::Tentative)
            continue; // tentative findings live only as long as the analysis reports them
        if (old.state == FindingState::Resolved) {
            next.append(old);
            continue;
        }
        const QString key = keyOf(old);
        const Finding* now = findKey(latest, key);
        matched.append(key);
        if (now && now->state == FindingState::Active) {
            Finding merged = *now;
            if (old.raisedStep >= 0 && (merged.raisedStep < 0 || old.raisedStep < merged.raisedStep))
                merged.raisedStep = old.raisedStep;
            if (old.firstStep >= 0 && (merged.firstStep < 0 || old.firstStep < merged.firstStep))
                merged.firstStep = old.firstStep;
            next.append(merged);
            continue;
        }
        // It stopped holding: keep it, resolved (at the step the analysis says, or now).
        Finding gone = now && now->state == FindingState::Resolved ? *now : old;
        if (old.raisedStep >= 0 && (gone.raisedStep < 0 || old.raisedStep < gone.raisedStep))
            gone.raisedStep = old.raisedStep;
        if (gone.state != FindingState::Resolved) {
            gone.state = FindingState::Resolved;
            gone.resolvedStep = lastStep;
            gone.summary = tr("Resolved at step %1: %2").arg(lastStep).arg(gone.summary);
        }
        next.append(gone);
        changes.append({Change::Type::Resolved, gone});
    }

    for (const Finding& f : std::as_const(latest)) {
        const QString key = keyOf(f);
        if (matched.contains(key))
            continue;
        if (f.state == FindingState::Resolved) {
            // Already known when a resolved episode of this key overlaps it.
            const bool known = std::any_of(next.cbegin(), next.cend(), [&](const Finding& g) {
                return keyOf(g) == key && g.resolvedStep >= f.raisedStep;
            });
            if (known)
                continue;
            changes.append({Change::Type::Raised, f});
            changes.append({Change::Type::Resolved, f}); // raised and resolved between two updates
        } else if (f.state == FindingState::Active) {
            changes.append({Change::Type::Raised, f});
        }
        next.append(f);
    }
    m_entries = next;
    return changes;
}

QList<Finding> FindingHistory::findings() const
{
    QList<Finding> out = m_entries;
    std::stable_sort(out.begin(), out.end(), [](const Finding& a, const Finding& b) {
        const bool ra = a.state == FindingState::Resolved, rb = b.state == FindingState::Resolved;
        if (ra != rb)
            return rb;
        return int(a.severity) > int(b.severity);
    });
    return out;
}

DiagnosisOptions LiveDiagnosis::optionsFor(const metrics::MetricStore& store) const
{
    DiagnosisOptions options = m_options;
    options.stragglerSteps = store.worldSize() > kLargeJobRanks ? kStragglerStepsLarge : kStragglerSteps;
    if (store.lastStep() - store.firstStep() > m_window)
        options.fromStep = store.lastStep() - m_window;
    return options;
}

QList<FindingHistory::Change> LiveDiagnosis::merge(const QList<Finding>& findings, qint64 lastStep)
{
    return m_history.update(findings, lastStep);
}

QList<FindingHistory::Change> LiveDiagnosis::update(const metrics::MetricStore& store)
{
    if (store.rowCount() == 0)
        return {};
    return merge(Diagnosis::analyze(store, optionsFor(store)), store.lastStep());
}

DiagnosisCadence::DiagnosisCadence(Clock now) : m_now(std::move(now))
{
    if (!m_now)
        m_now = [] {
            return std::chrono::duration_cast<std::chrono::milliseconds>(
                       std::chrono::steady_clock::now().time_since_epoch())
                .count();
        };
}

qint64 DiagnosisCadence::recordsIn(const metrics::MetricStore& store)
{
    return store.rowCount() + store.hellos().size() + store.evals().size() + store.checkpoints().size() +
           store.warnings().size() + store.errors().size();
}

bool DiagnosisCadence::hasNewRecords(const metrics::MetricStore& store) const
{
    return m_lastRecords < 0 || recordsIn(store) != m_lastRecords;
}

qint64 DiagnosisCadence::msUntilAllowed() const
{
    if (m_lastAt < 0)
        return 0;
    return std::max<qint64>(0, m_lastAt + m_intervalMs - m_now());
}

void DiagnosisCadence::ran(const metrics::MetricStore& store)
{
    m_lastAt = m_now();
    m_lastRecords = recordsIn(store);
}

void DiagnosisCadence::took(qint64 ms)
{
    m_lastAt = m_now();
    m_intervalMs = std::max(kIntervalMs, kCostFactor * ms);
}

void DiagnosisCadence::reset()
{
    m_lastAt = -1;
    m_lastRecords = -1;
    m_intervalMs = kIntervalMs;
}

} // namespace traindeck::analysis
