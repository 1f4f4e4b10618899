#include "cluster/profilerecord.h"

#include "cluster/names.h"
#include "common/paths.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QSaveFile>

namespace traindeck::cluster {

namespace {
constexpr qint64 kMaxBytes = 16 * 1024 * 1024; // 1000 nodes' pairs fit many times over
}

QString ProfileRecord::pathFor(const QString& kind, const QString& profile)
{
    return traindeck::paths::configDir() + QLatin1Char('/') + kind + QLatin1Char('/') + profile +
           QStringLiteral(".json");
}

Status ProfileRecord::save(const QString& kind, const QString& profile, const QDateTime& measuredAt, QJsonObject body)
{
    const NameCheck check = Names::checkProfileName(profile);
    if (!check.ok)
        return Status::failure(Diagnostic::keyError(QString(), QStringLiteral("profile"), check.message));
    const QString path = pathFor(kind, profile);
    if (!QDir().mkpath(QFileInfo(path).absolutePath()))
        return Status::failure(Diagnostic::error(QFileInfo(path).absolutePath(), tr("cannot create the directory")));
    body.insert(QStringLiteral("profile"), profile);
    body.insert(QStringLiteral("measured_at"), measuredAt.toUTC().toString(Qt::ISODate));
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || !file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner) ||
        file.write(QJsonDocument(body).toJson()) < 0 || !file.commit())
        return Status::failure(Diagnostic::error(path, tr("cannot write: %1").arg(file.errorString())));
    return Done{};
}

Result<ProfileRecord> ProfileRecord::load(const QString& kind, const QString& profile, const QString& missing,
                                          const QString& what)
{
    const QString path = pathFor(kind, profile);
    auto fail = [&](const QString& message) {
        return Result<ProfileRecord>::failure(Diagnostic::error(path, message));
    };
    if (!Names::checkProfileName(profile).ok)
        return fail(tr("not a profile name"));
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return fail(QStringLiteral("%1: %2").arg(missing, file.errorString()));
    if (file.size() > kMaxBytes)
        return fail(tr("file is larger than 16 MiB; not %1").arg(what));
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(file.readAll(), &parseError);
    if (!doc.isObject())
        return fail(tr("not a JSON object: %1").arg(parseError.errorString()));
    ProfileRecord r;
    r.body = doc.object();
    r.measuredAt = QDateTime::fromString(r.body.value(QStringLiteral("measured_at")).toString(), Qt::ISODate);
    if (r.body.value(QStringLiteral("profile")).toString() != profile || !r.measuredAt.isValid())
        return fail(tr("\"profile\" or \"measured_at\" is missing or wrong"));
    return r;
}

} // namespace traindeck::cluster
