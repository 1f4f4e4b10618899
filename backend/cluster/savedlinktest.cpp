#include "cluster/savedlinktest.h"

#include "cluster/names.h"
#include "common/paths.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>

#include <cmath>

namespace traindeck::cluster {

namespace {
constexpr qint64 kMaxBytes = 16 * 1024 * 1024; // 1000 nodes' pairs fit many times over
}

QString SavedLinkTest::pathFor(const QString& profile)
{
    return traindeck::paths::configDir() + QStringLiteral("/links/") + profile + QStringLiteral(".json");
}

Status SavedLinkTest::save() const
{
    const NameCheck check = Names::checkProfileName(profile);
    if (!check.ok)
        return Status::failure(Diagnostic::keyError(QString(), QStringLiteral("profile"), check.message));
    const QString path = pathFor(profile);
    if (!QDir().mkpath(QFileInfo(path).absolutePath()))
        return Status::failure(Diagnostic::error(QFileInfo(path).absolutePath(), tr("cannot create the directory")));
    QJsonArray pairs;
    for (const SavedLink& l : links)
        pairs.append(QJsonObject{{QStringLiteral("host_a"), l.hostA},
                                 {QStringLiteral("host_b"), l.hostB},
                                 {QStringLiteral("bandwidth_mbps"), l.bandwidthMbps},
                                 {QStringLiteral("latency_us"), l.latencyUs}});
    const QJsonObject o{{QStringLiteral("profile"), profile},
                        {QStringLiteral("measured_at"), measuredAt.toUTC().toString(Qt::ISODate)},
                        {QStringLiteral("links"), pairs}};
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || !file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner) ||
        file.write(QJsonDocument(o).toJson()) < 0 || !file.commit())
        return Status::failure(Diagnostic::error(path, tr("cannot write: %1").arg(file.errorString())));
    return Done{};
}

Result<SavedLinkTest> SavedLinkTest::load(const QString& profile)
{
    const QString path = pathFor(profile);
    auto fail = [&](const QString& message) {
        return Result<SavedLinkTest>::failure(Diagnostic::error(path, message));
    };
    if (!Names::checkProfileName(profile).ok)
        return fail(tr("not a profile name"));
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return fail(tr("no link test saved for this profile: %1").arg(file.errorString()));
    if (file.size() > kMaxBytes)
        return fail(tr("file is larger than 16 MiB; not a link test"));
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(file.readAll(), &parseError);
    if (!doc.isObject())
        return fail(tr("not a JSON object: %1").arg(parseError.errorString()));
    const QJsonObject o = doc.object();
    SavedLinkTest t;
    t.profile = o.value(QStringLiteral("profile")).toString();
    t.measuredAt = QDateTime::fromString(o.value(QStringLiteral("measured_at")).toString(), Qt::ISODate);
    if (t.profile != profile || !t.measuredAt.isValid())
        return fail(tr("\"profile\" or \"measured_at\" is missing or wrong"));
    const QJsonArray pairs = o.value(QStringLiteral("links")).toArray();
    for (qsizetype i = 0; i < pairs.size(); ++i) {
        const QJsonObject p = pairs[i].toObject();
        SavedLink l;
        l.hostA = p.value(QStringLiteral("host_a")).toString();
        l.hostB = p.value(QStringLiteral("host_b")).toString();
        l.bandwidthMbps = p.value(QStringLiteral("bandwidth_mbps")).toDouble(-1);
        l.latencyUs = p.value(QStringLiteral("latency_us")).toDouble(-1);
        if (l.hostA.isEmpty() || l.hostB.isEmpty() || !(l.bandwidthMbps >= 0) || !std::isfinite(l.bandwidthMbps))
            return Result<SavedLinkTest>::failure(
                Diagnostic::keyError(path, QStringLiteral("links[%1]").arg(i),
                                     tr("needs host_a, host_b and a bandwidth_mbps of 0 or more")));
        t.links.append(l);
    }
    return t;
}

} // namespace traindeck::cluster
