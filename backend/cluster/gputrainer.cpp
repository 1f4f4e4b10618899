#include "cluster/gputrainer.h"

#include "cluster/clusterprofile.h"

#include <QJsonArray>

#include <algorithm>

namespace traindeck::cluster {

QString GpuTrainer::buildScript()
{
    return QStringLiteral("scripts/build-trainer.sh");
}

QString GpuTrainer::docsLink()
{
    return QStringLiteral("docs/reference/trainer.md#gpu-nodes");
}

QString GpuTrainer::advice()
{
    return tr("To train on GPUs, traindeck-trainer must be built against a CUDA LibTorch (Debian's LibTorch is "
              "CPU-only). On a GPU node, in a TrainDeck checkout, run %1: it builds the trainer against the "
              "LibTorch of the node's PyTorch (or --libtorch DIR) and prints whether it can use CUDA. Put that "
              "binary on PATH on the GPU nodes, or copy it to them with traindeck-cli deploy --trainer PATH. "
              "See %2.")
        .arg(buildScript(), docsLink());
}

int GpuTrainer::unusableGpus(const QJsonObject& selfCheck, int profileGpus)
{
    if (selfCheck.value(QStringLiteral("cuda")).toObject().value(QStringLiteral("available")).toBool())
        return 0;
    return std::max(int(selfCheck.value(QStringLiteral("gpus")).toArray().size()), std::max(profileGpus, 0));
}

QString GpuTrainer::unusableGpusWarning(int gpus)
{
    return tr("This traindeck-trainer cannot use the node's %n GPU(s): its LibTorch sees no CUDA device (a "
              "CPU-only LibTorch, or one whose CUDA does not match the driver).",
              nullptr, gpus) +
           QLatin1Char(' ') + advice();
}

QString GpuTrainer::profileAdvice(const ClusterProfile& profile)
{
    const auto gpuNodes =
        std::count_if(profile.nodes.cbegin(), profile.nodes.cend(), [](const ClusterNode& n) { return n.gpus > 0; });
    if (gpuNodes == 0)
        return QString();
    return tr("%n node(s) of this profile train on GPUs.", nullptr, int(gpuNodes)) + QLatin1Char(' ') + advice();
}

} // namespace traindeck::cluster
