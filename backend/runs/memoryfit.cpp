#include "runs/memoryfit.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>
#include <QProcess>

#include <limits>

namespace traindeck::runs {

namespace {

QString gib(double mib)
{
    return QStringLiteral("%1 GiB").arg(mib / 1024.0, 0, 'f', 1);
}

} // namespace

QString MemoryFit::verdict() const
{
    if (!memory)
        return tr("Memory plan: %1 per rank; the nodes' memory is not known yet (run the checks to compare).")
            .arg(gib(totalMiB));
    if (fits)
        return tr("Memory plan: %1 per rank fits in %2 (%3, checked %4).")
            .arg(gib(totalMiB), gib(memory->availableMiB), memory->basis, checkedAt);
    QString line = tr("Memory plan: %1 per rank does NOT fit in %2 (%3, checked %4).")
                       .arg(gib(totalMiB), gib(memory->availableMiB), memory->basis, checkedAt);
    if (suggestions.isEmpty())
        return line + QLatin1Char(' ') +
               tr("No combination of --fused-loss, --recompute, --zero and a smaller --micro-batch fits: use more "
                  "nodes or a smaller model.");
    return line + QLatin1Char(' ') + tr("It would fit with: %1.").arg(suggestions.join(QStringLiteral("; ")));
}

int ranksOf(const launch::JobSpec& spec, const cluster::ClusterProfile& profile)
{
    if (spec.ranks > 0)
        return spec.ranks;
    if (profile.slurm)
        return profile.slurm->ranks();
    int slots = 0;
    for (const auto& n : profile.nodes)
        slots += n.slots;
    return std::max(1, slots);
}

std::optional<RankMemory> rankMemory(const cluster::ClusterProfile& profile, const cluster::SavedNodeMemory& saved,
                                     int ranks, bool wantGpu)
{
    // The nodes that run ranks, with the ranks each runs: a Slurm profile's compute nodes are known from
    // the checks' job only (every node in the record but the login node), with --ntasks-per-node ranks;
    // the local profile's one node runs every rank; a cluster node at most its slots.
    struct Runner {
        QString name;
        const cluster::NodeMemory* memory;
        int ranks;
    };
    QList<Runner> runners;
    if (profile.slurm) {
        const int head = profile.headIndex();
        const QString login = head >= 0 ? profile.nodes.at(head).host : QString();
        for (const cluster::NodeMemory& m : saved.nodes)
            if (m.host != login)
                runners.append({m.host, &m, std::max(1, std::min(ranks, profile.slurm->tasksPerNode))});
    } else {
        for (const auto& node : profile.nodes)
            if (const cluster::NodeMemory* m = saved.find(node.host))
                runners.append({node.name, m, std::max(1, profile.isLocal ? ranks : std::min(ranks, node.slots))});
    }
    std::optional<RankMemory> best;
    for (const Runner& node : runners) {
        const cluster::NodeMemory* m = node.memory;
        RankMemory r;
        r.node = node.name;
        if (wantGpu && m->gpus > 0 && m->gpuMiB > 0) {
            r.gpu = true;
            r.availableMiB = m->gpuMiB;
            r.basis = MemoryFit::tr("the smallest GPU of %1 (%2)").arg(node.name, gib(m->gpuMiB));
        } else {
            r.availableMiB = m->ramMiB / node.ranks;
            r.basis = MemoryFit::tr("RAM of %1 (%2) / %n rank(s)", nullptr, node.ranks).arg(node.name, gib(m->ramMiB));
        }
        if (!best || r.availableMiB < best->availableMiB)
            best = r;
    }
    return best;
}

Result<MemoryFit> planMemoryFit(const launch::JobSpec& spec, const cluster::ClusterProfile& profile,
                                const QString& trainer)
{
    MemoryFit fit;
    fit.ranks = ranksOf(spec, profile);
    const QString device = spec.trainer.value(QStringLiteral("device")).toString();
    bool nodesHaveGpus = false;
    for (const auto& n : profile.nodes)
        nodesHaveGpus = nodesHaveGpus || n.gpus > 0;
    if (profile.slurm)
        nodesHaveGpus = nodesHaveGpus || profile.slurm->gpusPerNode > 0;
    const bool wantGpu = device.startsWith(QLatin1String("cuda")) || (device.isEmpty() && nodesHaveGpus);

    if (const auto saved = cluster::SavedNodeMemory::load(profile.name)) {
        fit.memory = rankMemory(profile, saved.value(), fit.ranks, wantGpu);
        fit.checkedAt = QLocale().toString(saved.value().measuredAt.toLocalTime(), QLocale::ShortFormat);
    }
    QStringList args = QStringList{QStringLiteral("plan")} + spec.trainerArgs();
    args << QStringLiteral("--world-size") << QString::number(fit.ranks) << QStringLiteral("--json");
    if (device.isEmpty())
        args << QStringLiteral("--device") << (wantGpu ? QStringLiteral("cuda") : QStringLiteral("cpu"));
    if (fit.memory)
        args << QStringLiteral("--available-mb") << QString::number(fit.memory->availableMiB, 'f', 1);

    QProcess process;
    process.start(trainer, args);
    if (!process.waitForFinished(60000) || process.exitStatus() != QProcess::NormalExit) {
        process.kill();
        process.waitForFinished(5000);
        return Result<MemoryFit>::failure(
            Diagnostic::error(trainer, MemoryFit::tr("the memory plan did not finish: %1").arg(process.errorString())));
    }
    const QByteArray out = process.readAllStandardOutput();
    if (process.exitCode() != 0)
        return Result<MemoryFit>::failure(
            Diagnostic::error(trainer, MemoryFit::tr("cannot plan the memory: %1")
                                           .arg(QString::fromUtf8(process.readAllStandardError()).trimmed())));
    const QJsonObject j = QJsonDocument::fromJson(out).object();
    const QJsonObject plan = j.value(QStringLiteral("plan")).toObject();
    const QJsonObject mib = plan.value(QStringLiteral("mib")).toObject();
    fit.totalMiB = mib.value(QStringLiteral("total")).toDouble();
    if (fit.totalMiB <= 0)
        return Result<MemoryFit>::failure(Diagnostic::error(
            trainer,
            MemoryFit::tr("the memory plan's output is not understood: %1").arg(QString::fromUtf8(out.left(200)))));
    QStringList lines;
    lines << MemoryFit::tr("Memory per rank (%n rank(s), traindeck-trainer plan):", nullptr, fit.ranks);
    for (const char* part : {"parameters", "gradients", "optimizer", "activations", "logits", "workspace", "total"})
        lines << QStringLiteral("  %1 %2 MiB")
                     .arg(QString::fromLatin1(part).leftJustified(12))
                     .arg(mib.value(QLatin1String(part)).toDouble(), 10, 'f', 1);
    for (const auto& a : plan.value(QStringLiteral("assumptions")).toArray())
        lines << QStringLiteral("  ") + a.toString();
    fit.planText = lines.join(QLatin1Char('\n'));
    if (fit.memory) {
        fit.fits = j.value(QStringLiteral("fits")).toBool(true);
        for (const auto& s : j.value(QStringLiteral("suggestions")).toArray()) {
            const QJsonObject o = s.toObject();
            fit.suggestions << MemoryFit::tr("%1 (%2)").arg(
                o.value(QStringLiteral("flags")).toString(),
                gib(o.value(QStringLiteral("total_bytes")).toDouble() / (1024.0 * 1024.0)));
        }
    }
    return fit;
}

} // namespace traindeck::runs
