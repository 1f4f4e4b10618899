// The node checks of the machine itself: operating system, CPUs, memory, disk and GPUs.
#include "checks/nodecheck.h"

#include "checks/nodecheckprivate.h"
#include "ssh/commandrunner.h"
#include "ssh/sshsession.h"

#include <QRegularExpression>
#include <QSet>

namespace traindeck::checks {

using ssh::CancelToken;
using ssh::CommandRunner;
using ssh::ExecResult;
using ssh::shellPath;
using namespace nodecheck_detail;

CheckResult NodeChecker::checkOs(CheckResult r, CommandRunner& runner, const CancelToken& cancel)
{
    const ExecResult e =
        exec(runner, QStringLiteral("uname -srm; (. /etc/os-release 2>/dev/null && echo \"$PRETTY_NAME\")"), cancel);
    if (auto bad = ranBadly(r, e))
        return *bad;
    const QStringList lines = text(e.stdOut).split(QLatin1Char('\n'));
    r.evidence = excerpt(outputOf(e));
    const QString uname = lines.value(0).trimmed();
    const QString pretty = lines.value(1).trimmed();
    r.value = pretty.isEmpty() ? uname : pretty;
    r.summary = pretty.isEmpty() ? uname : tr("%1, %2").arg(pretty, uname);
    if (!uname.startsWith(QLatin1String("Linux"))) {
        r.status = CheckStatus::Warn;
        r.remedy = tr("TrainDeck's trainer is built and tested on Linux; other systems may not work.");
    } else {
        r.status = CheckStatus::Pass;
    }
    return r;
}

CheckResult NodeChecker::checkCpu(CheckResult r, CommandRunner& runner, const CancelToken& cancel)
{
    const ExecResult e =
        exec(runner, QStringLiteral("nproc; grep -m1 'model name' /proc/cpuinfo | cut -d: -f2"), cancel);
    if (auto bad = ranBadly(r, e))
        return *bad;
    const QStringList lines = text(e.stdOut).split(QLatin1Char('\n'));
    bool ok = false;
    const int cores = lines.value(0).trimmed().toInt(&ok);
    const QString model = lines.value(1).trimmed();
    r.evidence = excerpt(outputOf(e));
    if (!ok || cores <= 0) {
        r.status = CheckStatus::Warn;
        r.summary = tr("core count unknown");
        r.remedy = tr("`nproc` gave no number; check that coreutils are installed.");
        return r;
    }
    r.value = model;
    r.summary = tr("%n core(s)", nullptr, cores) + (model.isEmpty() ? QString() : QStringLiteral(", ") + model);
    r.status = CheckStatus::Pass;
    if (m_node.gpus == 0 && m_node.slots > cores) {
        r.status = CheckStatus::Warn;
        r.remedy = tr("The profile puts %1 CPU ranks on %2 cores; use at most %2 slots on this node.")
                       .arg(m_node.slots)
                       .arg(cores);
    }
    return r;
}

CheckResult NodeChecker::checkMemory(CheckResult r, CommandRunner& runner, const CancelToken& cancel)
{
    const ExecResult e = exec(runner, QStringLiteral("grep -E '^(MemTotal|MemAvailable):' /proc/meminfo"), cancel);
    if (auto bad = ranBadlyElseEvidence(r, e))
        return *bad;
    const QRegularExpression re(QStringLiteral("MemTotal:\\s+(\\d+)\\s*kB"));
    const auto m = re.match(QString::fromUtf8(e.stdOut));
    if (!m.hasMatch()) {
        r.status = CheckStatus::Warn;
        r.summary = tr("unknown");
        r.remedy = tr("/proc/meminfo could not be read.");
        return r;
    }
    const double bytes = m.captured(1).toDouble() * 1024.0;
    r.summary = gb(bytes);
    r.memoryMiB = bytes / (1024.0 * 1024.0);
    const double gib = bytes / (1024.0 * 1024 * 1024);
    if (gib + 0.5 < m_options.minMemoryGb) {
        r.status = CheckStatus::Warn;
        r.remedy = tr("%1 of RAM; at least %2 GB is recommended for the 1.5B model (weights, optimizer state and data "
                      "loading per rank). Use fewer ranks per node or a node with more memory.")
                       .arg(gb(bytes))
                       .arg(m_options.minMemoryGb);
    } else {
        r.status = CheckStatus::Pass;
    }
    return r;
}

CheckResult NodeChecker::checkDisk(CheckResult r, CommandRunner& runner, const CancelToken& cancel)
{
    const QString dir = m_profile.workdir.isEmpty() ? QStringLiteral("~/traindeck") : m_profile.workdir;
    const ExecResult e = exec(runner,
                              QStringLiteral("d=%1; mkdir -p \"$d\" || exit 3; t=\"$d/.traindeck-write-test.$$\"; "
                                             ": > \"$t\" || exit 4; rm -f \"$t\"; df -Pk \"$d\" | tail -n 1")
                                  .arg(shellPath(dir)),
                              cancel);
    if (auto bad = ranBadlyElseEvidence(r, e))
        return *bad;
    if (e.exitCode == 3 || e.exitCode == 4) {
        r.status = CheckStatus::Fail;
        r.summary = e.exitCode == 3 ? tr("cannot create %1").arg(dir) : tr("%1 is not writable").arg(dir);
        r.remedy = tr("Create the work directory %1 on the node with write access for the login user, or change "
                      "\"workdir\" in the profile.")
                       .arg(dir);
        return r;
    }
    const QStringList f = text(e.stdOut).simplified().split(QLatin1Char(' '));
    bool ok = false;
    const double availKb = f.value(3).toDouble(&ok);
    if (!ok) {
        r.status = CheckStatus::Warn;
        r.summary = tr("free space unknown");
        r.remedy = tr("`df -Pk` gave unexpected output.");
        return r;
    }
    const double bytes = availKb * 1024.0;
    r.summary = tr("%1 free in %2 (%3)").arg(gb(bytes), dir, f.value(5));
    const double g = bytes / 1e9;
    if (g < m_options.failDiskGb) {
        r.status = CheckStatus::Fail;
        r.remedy = tr("Only %1 free: a checkpoint of the 1.5B model with optimizer state needs about 30 GB. Free space "
                      "or point \"workdir\" at a larger file system.")
                       .arg(gb(bytes));
    } else if (g < m_options.minDiskGb) {
        r.status = CheckStatus::Warn;
        r.remedy =
            tr("%1 free; %2 GB or more is recommended to keep a few checkpoints (about 30 GB each with optimizer "
               "state).")
                .arg(gb(bytes))
                .arg(m_options.minDiskGb);
    } else {
        r.status = CheckStatus::Pass;
    }
    return r;
}

QList<NodeChecker::Gpu> NodeChecker::parseNvidiaSmi(const QString& csv)
{
    QList<Gpu> gpus;
    for (const QString& raw : csv.split(QLatin1Char('\n'))) {
        const QString line = raw.trimmed();
        if (line.isEmpty())
            continue;
        const QStringList f = line.split(QLatin1Char(','));
        if (f.size() < 3)
            continue;
        Gpu g;
        g.name = f.at(0).trimmed();
        QString mem = f.at(1).trimmed();
        double factor = 1;
        if (mem.endsWith(QLatin1String("MiB")))
            mem.chop(3);
        else if (mem.endsWith(QLatin1String("GiB"))) {
            mem.chop(3);
            factor = 1024;
        }
        g.memoryMiB = mem.trimmed().toDouble() * factor;
        g.driver = f.at(2).trimmed();
        gpus.append(g);
    }
    return gpus;
}

CheckResult NodeChecker::checkGpu(CheckResult r, CommandRunner& runner, const CancelToken& cancel)
{
    const ExecResult e =
        exec(runner,
             QStringLiteral("command -v nvidia-smi >/dev/null 2>&1 || { echo TRAINDECK_NO_NVIDIA_SMI; exit 0; }; "
                            "nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader"),
             cancel);
    if (auto bad = ranBadlyElseEvidence(r, e))
        return *bad;
    if (e.stdOut.contains("TRAINDECK_NO_NVIDIA_SMI")) {
        r.evidence = tr("nvidia-smi not found on PATH");
        r.value = tr("no GPU");
        r.summary = tr("no GPU (nvidia-smi not found)");
        if (m_node.gpus > 0) {
            r.status = CheckStatus::Fail;
            r.remedy =
                tr("The profile uses %n GPU(s) on this node but nvidia-smi is missing: install the NVIDIA driver "
                   "(and reboot), or set \"gpus\": 0 to train on the CPU.",
                   nullptr, m_node.gpus);
        } else {
            r.status = CheckStatus::Warn;
            r.remedy = tr("No NVIDIA GPU found; CPU training is still possible but much slower.");
        }
        return r;
    }
    if (e.exitCode != 0) {
        r.status = m_node.gpus > 0 ? CheckStatus::Fail : CheckStatus::Warn;
        r.summary = tr("nvidia-smi failed (exit code %1)").arg(e.exitCode);
        r.value = tr("no GPU");
        r.remedy = tr("nvidia-smi cannot talk to the driver: check that the NVIDIA kernel module is loaded (lsmod | "
                      "grep nvidia) and matches the installed driver, or reboot after a driver update.");
        return r;
    }
    const QList<Gpu> gpus = parseNvidiaSmi(QString::fromUtf8(e.stdOut));
    if (gpus.isEmpty()) {
        r.status = m_node.gpus > 0 ? CheckStatus::Fail : CheckStatus::Warn;
        r.summary = tr("nvidia-smi lists no GPU");
        r.value = tr("no GPU");
        r.remedy = tr("No GPU is visible (CUDA_VISIBLE_DEVICES, a container without GPUs, or a failed device).");
        return r;
    }
    m_hasGpu = true;
    QSet<QString> models;
    double minMem = 1e18;
    for (const Gpu& g : gpus) {
        models.insert(g.name);
        minMem = qMin(minMem, g.memoryMiB);
    }
    const QString model = gpus.first().name;
    r.memoryMiB = minMem;
    r.gpus = static_cast<int>(gpus.size());
    r.value = QStringLiteral("%1 × %2, driver %3").arg(gpus.size()).arg(model, gpus.first().driver);
    r.summary =
        tr("%1 × %2 (%3 GiB), driver %4")
            .arg(QString::number(gpus.size()), model, QString::number(minMem / 1024.0, 'f', 0), gpus.first().driver);
    QStringList problems, remedies;
    CheckStatus status = CheckStatus::Pass;
    if (m_node.gpus > gpus.size()) {
        status = CheckStatus::Fail;
        problems << tr("the profile uses %1 GPUs but %2 are present").arg(m_node.gpus).arg(gpus.size());
        remedies
            << tr("Set \"gpus\" to %1 for this node, or check CUDA_VISIBLE_DEVICES and the driver.").arg(gpus.size());
    }
    if (m_node.gpus > 0 && m_node.slots > gpus.size()) {
        status = CheckStatus::Fail;
        problems << tr("%1 ranks but %2 GPUs").arg(m_node.slots).arg(gpus.size());
        remedies << tr("Use one rank per GPU: set \"slots\" to at most %1.").arg(gpus.size());
    }
    if (m_node.gpus == 0 && m_node.slots <= gpus.size()) {
        if (status == CheckStatus::Pass)
            status = CheckStatus::Warn;
        problems << tr("the profile does not use the %n GPU(s) of this node", nullptr, int(gpus.size()));
        remedies << tr("Set \"gpus\": %1 for this node to train on them.").arg(gpus.size());
    }
    if (minMem / 1024.0 + 0.5 < m_options.minGpuMemoryGb) {
        if (status == CheckStatus::Pass)
            status = CheckStatus::Warn;
        problems << tr("%1 GiB per GPU").arg(minMem / 1024.0, 0, 'f', 0);
        remedies << tr("At least %1 GB per GPU is recommended for the 1.5B model; use a smaller micro-batch, "
                       "activation checkpointing or bf16 if memory runs out.")
                        .arg(m_options.minGpuMemoryGb);
    }
    if (models.size() > 1) {
        if (status == CheckStatus::Pass)
            status = CheckStatus::Warn;
        problems << tr("mixed models: %1").arg(QStringList(models.values()).join(QStringLiteral(", ")));
        remedies << tr("Mixed GPU models make the slowest one set the pace of every step.");
    }
    r.status = status;
    if (!problems.isEmpty())
        r.summary += QStringLiteral("; ") + problems.join(QStringLiteral("; "));
    r.remedy = remedies.join(QLatin1Char(' '));
    return r;
}

} // namespace traindeck::checks
