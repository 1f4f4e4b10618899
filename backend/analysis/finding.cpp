#include "analysis/finding.h"

#include <QCoreApplication>
#include <QJsonArray>

#include <cmath>

namespace traindeck::analysis {

double Finding::evidenceValue(const QString& name, double fallback) const
{
    for (const auto& e : evidence)
        if (e.first == name)
            return e.second;
    return fallback;
}

QString Finding::kindName(FindingKind k)
{
    switch (k) {
    case FindingKind::Straggler: return QStringLiteral("straggler");
    case FindingKind::DataLoading: return QStringLiteral("data_loading");
    case FindingKind::CommBound: return QStringLiteral("comm_bound");
    case FindingKind::MemoryPressure: return QStringLiteral("memory_pressure");
    case FindingKind::LossNaN: return QStringLiteral("loss_nan");
    case FindingKind::LossSpike: return QStringLiteral("loss_spike");
    case FindingKind::LossDivergence: return QStringLiteral("loss_divergence");
    case FindingKind::ThroughputDrift: return QStringLiteral("throughput_drift");
    case FindingKind::ScalingEfficiency: return QStringLiteral("scaling_efficiency");
    case FindingKind::Stall: return QStringLiteral("stall");
    }
    return {};
}

QString Finding::severityName(Severity s)
{
    switch (s) {
    case Severity::Info: return QStringLiteral("info");
    case Severity::Warning: return QStringLiteral("warning");
    case Severity::Critical: return QStringLiteral("critical");
    }
    return {};
}

bool Finding::isHostWide() const
{
    return std::isfinite(evidenceValue(QStringLiteral("host_ranks"))) && !hosts.isEmpty() &&
           hosts.count(hosts.first()) == hosts.size();
}

QString Finding::timeline() const
{
    auto tr = [](const char* text) { return QCoreApplication::translate("traindeck::analysis::Finding", text); };
    QStringList parts;
    if (raisedStep >= 0)
        parts << tr("raised at step %1").arg(raisedStep);
    if (resolvedStep >= 0)
        parts << tr("resolved at step %1").arg(resolvedStep);
    if (state == FindingState::Tentative)
        parts << tr("not enough evidence yet");
    return parts.join(QStringLiteral("; "));
}

QString Finding::stateName(FindingState s)
{
    switch (s) {
    case FindingState::Active: return QStringLiteral("active");
    case FindingState::Resolved: return QStringLiteral("resolved");
    case FindingState::Tentative: return QStringLiteral("tentative");
    }
    return {};
}

QJsonObject Finding::toJson() const
{
    QJsonArray r, h;
    for (int x : ranks)
        r.append(x);
    for (const QString& x : hosts)
        h.append(x);
    QJsonObject ev;
    for (const auto& e : evidence)
        ev.insert(e.first, std::isfinite(e.second) ? QJsonValue(e.second) : QJsonValue());
    QJsonObject o{{QStringLiteral("kind"), kindName(kind)},
                  {QStringLiteral("severity"), severityName(severity)},
                  {QStringLiteral("state"), stateName(state)},
                  {QStringLiteral("ranks"), r},
                  {QStringLiteral("hosts"), h},
                  {QStringLiteral("evidence"), ev},
                  {QStringLiteral("recommendation"), recommendation},
                  {QStringLiteral("summary"), summary}};
    if (firstStep >= 0)
        o.insert(QStringLiteral("first_step"), double(firstStep));
    if (lastStep >= 0)
        o.insert(QStringLiteral("last_step"), double(lastStep));
    if (raisedStep >= 0)
        o.insert(QStringLiteral("raised_step"), double(raisedStep));
    if (resolvedStep >= 0)
        o.insert(QStringLiteral("resolved_step"), double(resolvedStep));
    return o;
}

} // namespace traindeck::analysis
