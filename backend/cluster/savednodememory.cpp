#include "cluster/savednodememory.h"

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
constexpr qint64 kMaxBytes = 16 * 1024 * 1024;
}

const NodeMemory* SavedNodeMemory::find(const QString& host) const
{
    for (const NodeMemory& n : nodes)
        if (n.host == host)
            return &n;
    return nullptr;
}

QString SavedNodeMemory::pathFor(const QString& profile)
{
    return traindeck::paths::configDir() + QStringLiteral("/memory/") + profile + QStringLiteral(".json");
}

Status SavedNodeMemory::save() const
{
    const NameCheck check = Names::checkProfileName(profile);
    if (!check.ok)
        return Status::failure(Diagnostic::keyError(QString(), QStringLiteral("profile"), check.message));
    const QString path = pathFor(profile);
    if (!QDir().mkpath(QFileInfo(path).absolutePath()))
        return Status::failure(Diagnostic::error(QFileInfo(path).absolutePath(), tr("cannot create the directory")));
    QJsonArray list;
    for (const NodeMemory& n : nodes)
        list.append(QJsonObject{{QStringLiteral("host"), n.host},
                                {QStringLiteral("ram_mib"), n.ramMiB},
                                {QStringLiteral("gpus"), n.gpus},
                                {QStringLiteral("gpu_mib"), n.gpuMiB}});
    const QJsonObject o{{QStringLiteral("profile"), profile},
                        {QStringLiteral("measured_at"), measuredAt.toUTC().toString(Qt::ISODate)},
                        {QStringLiteral("nodes"), list}};
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || !file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner) ||
        file.write(QJsonDocument(o).toJson()) < 0 || !file.commit())
        return Status::failure(Diagnostic::error(path, tr("cannot write: %1").arg(file.errorString())));
    return Done{};
}

Result<SavedNodeMemory> SavedNodeMemory::load(const QString& profile)
{
    const QString path = pathFor(profile);
    auto fail = [&](const QString& message) {
        return Result<SavedNodeMemory>::failure(Diagnostic::error(path, message));
    };
    if (!Names::checkProfileName(profile).ok)
        return fail(tr("not a profile name"));
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return fail(tr("the nodes' memory was not checked for this profile: %1").arg(file.errorString()));
    if (file.size() > kMaxBytes)
        return fail(tr("file is larger than 16 MiB; not a memory record"));
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(file.readAll(), &parseError);
    if (!doc.isObject())
        return fail(tr("not a JSON object: %1").arg(parseError.errorString()));
    const QJsonObject o = doc.object();
    SavedNodeMemory m;
    m.profile = o.value(QStringLiteral("profile")).toString();
    m.measuredAt = QDateTime::fromString(o.value(QStringLiteral("measured_at")).toString(), Qt::ISODate);
    if (m.profile != profile || !m.measuredAt.isValid())
        return fail(tr("\"profile\" or \"measured_at\" is missing or wrong"));
    const QJsonArray list = o.value(QStringLiteral("nodes")).toArray();
    for (qsizetype i = 0; i < list.size(); ++i) {
        const QJsonObject n = list[i].toObject();
        NodeMemory node;
        node.host = n.value(QStringLiteral("host")).toString();
        node.ramMiB = n.value(QStringLiteral("ram_mib")).toDouble(-1);
        node.gpus = n.value(QStringLiteral("gpus")).toInt(-1);
        node.gpuMiB = n.value(QStringLiteral("gpu_mib")).toDouble(-1);
        if (node.host.isEmpty() || !(node.ramMiB >= 0) || !std::isfinite(node.ramMiB) || node.gpus < 0 ||
            !(node.gpuMiB >= 0) || !std::isfinite(node.gpuMiB))
            return Result<SavedNodeMemory>::failure(
                Diagnostic::keyError(path, QStringLiteral("nodes[%1]").arg(i),
                                     tr("needs a host, and ram_mib, gpus and gpu_mib of 0 or more")));
        m.nodes.append(node);
    }
    return m;
}

} // namespace traindeck::cluster
