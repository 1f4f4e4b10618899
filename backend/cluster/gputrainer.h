// A traindeck-trainer for GPU nodes: one that can use their GPUs is built on a GPU node against a CUDA
// LibTorch with scripts/build-trainer.sh (docs/reference/trainer.md#gpu-nodes). The one place of that
// advice for every front end: the node checks' CUDA remedy, `traindeck-cli deploy` and the SSH wizard.
#pragma once

#include <QCoreApplication>
#include <QJsonObject>
#include <QString>

namespace traindeck::cluster {

class ClusterProfile;

class GpuTrainer {
    Q_DECLARE_TR_FUNCTIONS(traindeck::cluster::GpuTrainer)

  public:
    // "scripts/build-trainer.sh" and "docs/reference/trainer.md#gpu-nodes" (paths, never translated).
    static QString buildScript();
    static QString docsLink();
    // How to get such a trainer: build it on a GPU node with the script, then put it on PATH there or
    // copy it to the other GPU nodes with `traindeck-cli deploy --trainer PATH`.
    static QString advice();
    // The GPUs a node has that the trainer whose `self-check` printed selfCheck cannot use: 0 when its
    // LibTorch sees a CUDA device, else the GPUs the self-check lists (the driver's) or the profile gives
    // the node (profileGpus), whichever is more.
    static int unusableGpus(const QJsonObject& selfCheck, int profileGpus = 0);
    // "This traindeck-trainer cannot use the node's N GPU(s) ..." followed by advice().
    static QString unusableGpusWarning(int gpus);
    // For a profile with nodes that train on GPUs ("gpus" > 0): how many, followed by advice(); empty
    // for a profile without.
    static QString profileAdvice(const ClusterProfile& profile);
};

} // namespace traindeck::cluster
