#include "cluster/savednodememory.h"

#include "cluster/profilerecord.h"

#include <QJsonArray>
#include <QJsonObject>

#include <cmath>

namespace traindeck::cluster {

const NodeMemory* SavedNodeMemory::find(const QString& host) const
{
    for (const NodeMemory& n : nodes)
        if (n.host == host)
            return &n;
    return nullptr;
}

QString SavedNodeMemory::pathFor(const QString& profile)
{
    return ProfileRecord::pathFor(QStringLiteral("memory"), profile);
}

Status SavedNodeMemory::save() const
{
    QJsonArray list;
    for (const NodeMemory& n : nodes)
        list.append(QJsonObject{{QStringLiteral("host"), n.host},
                                {QStringLiteral("ram_mib"), n.ramMiB},
                                {QStringLiteral("gpus"), n.gpus},
                                {QStringLiteral("gpu_mib"), n.gpuMiB}});
    return ProfileRecord::save(QStringLiteral("memory"), profile, measuredAt, {{QStringLiteral("nodes"), list}});
}

Result<SavedNodeMemory> SavedNodeMemory::load(const QString& profile)
{
    const auto record =
        ProfileRecord::load(QStringLiteral("memory"), profile, tr("the nodes' memory was not checked for this profile"),
                            tr("a memory record"));
    if (!record)
        return Result<SavedNodeMemory>::failure(record.diagnostics());
    SavedNodeMemory m;
    m.profile = profile;
    m.measuredAt = record->measuredAt;
    const QJsonArray list = record->body.value(QStringLiteral("nodes")).toArray();
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
                Diagnostic::keyError(pathFor(profile), QStringLiteral("nodes[%1]").arg(i),
                                     tr("needs a host, and ram_mib, gpus and gpu_mib of 0 or more")));
        m.nodes.append(node);
    }
    return m;
}

} // namespace traindeck::cluster
