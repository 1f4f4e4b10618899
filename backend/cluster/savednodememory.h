// The memory of a profile's nodes as the last checks measured it (RAM, and the smallest GPU's memory),
// kept so that a launch can compare the trainer's memory plan with it before it starts (the Launch page,
// `traindeck-cli launch --dry-run`): the checks write it, the operations layer reads it.
//   $XDG_CONFIG_HOME/traindeck/memory/<profile>.json
#pragma once

#include "common/result.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QList>
#include <QString>

namespace traindeck::cluster {

struct NodeMemory {
    QString host;
    double ramMiB = 0; // 0: not measured
    int gpus = 0;      // GPUs nvidia-smi listed
    double gpuMiB = 0; // the smallest GPU's memory; 0 without GPUs
};

struct SavedNodeMemory {
    Q_DECLARE_TR_FUNCTIONS(traindeck::cluster::SavedNodeMemory)

  public:
    QString profile;
    QDateTime measuredAt;
    QList<NodeMemory> nodes;

    const NodeMemory* find(const QString& host) const;

    static QString pathFor(const QString& profile);
    // Written whole (temporary file, then rename), 0600 like the profiles.
    Status save() const;
    // An error naming the file when there is none for the profile or it is damaged.
    static Result<SavedNodeMemory> load(const QString& profile);
};

} // namespace traindeck::cluster
