#include "cluster/savedlinktest.h"

#include "cluster/profilerecord.h"

#include <QJsonArray>
#include <QJsonObject>

#include <cmath>

namespace traindeck::cluster {

QString SavedLinkTest::pathFor(const QString& profile)
{
    return ProfileRecord::pathFor(QStringLiteral("links"), profile);
}

Status SavedLinkTest::save() const
{
    QJsonArray pairs;
    for (const SavedLink& l : links)
        pairs.append(QJsonObject{{QStringLiteral("host_a"), l.hostA},
                                 {QStringLiteral("host_b"), l.hostB},
                                 {QStringLiteral("bandwidth_mbps"), l.bandwidthMbps},
                                 {QStringLiteral("latency_us"), l.latencyUs}});
    return ProfileRecord::save(QStringLiteral("links"), profile, measuredAt, {{QStringLiteral("links"), pairs}});
}

Result<SavedLinkTest> SavedLinkTest::load(const QString& profile)
{
    const auto record = ProfileRecord::load(QStringLiteral("links"), profile, tr("no link test saved for this profile"),
                                            tr("a link test"));
    if (!record)
        return Result<SavedLinkTest>::failure(record.diagnostics());
    SavedLinkTest t;
    t.profile = profile;
    t.measuredAt = record->measuredAt;
    const QJsonArray pairs = record->body.value(QStringLiteral("links")).toArray();
    for (qsizetype i = 0; i < pairs.size(); ++i) {
        const QJsonObject p = pairs[i].toObject();
        SavedLink l;
        l.hostA = p.value(QStringLiteral("host_a")).toString();
        l.hostB = p.value(QStringLiteral("host_b")).toString();
        l.bandwidthMbps = p.value(QStringLiteral("bandwidth_mbps")).toDouble(-1);
        l.latencyUs = p.value(QStringLiteral("latency_us")).toDouble(-1);
        if (l.hostA.isEmpty() || l.hostB.isEmpty() || !(l.bandwidthMbps >= 0) || !std::isfinite(l.bandwidthMbps))
            return Result<SavedLinkTest>::failure(
                Diagnostic::keyError(pathFor(profile), QStringLiteral("links[%1]").arg(i),
                                     tr("needs host_a, host_b and a bandwidth_mbps of 0 or more")));
        t.links.append(l);
    }
    return t;
}

} // namespace traindeck::cluster
