// The node checks of the software stack: the trainer (and its self-check), CUDA, NCCL and MPI.
#include "checks/nodecheck.h"

#include "checks/nodecheckprivate.h"
#include "cluster/gputrainer.h"
#include "ssh/commandrunner.h"
#include "ssh/sshsession.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

namespace traindeck::checks {

using ssh::CancelToken;
using ssh::CommandRunner;
using ssh::ExecResult;
using ssh::shellPath;
using namespace nodecheck_detail;

CheckResult NodeChecker::checkTrainer(CheckResult r, CommandRunner& runner, const CancelToken& cancel)
{
    const ExecResult e =
        exec(runner,
             QStringLiteral("p=$(command -v traindeck-trainer) || { echo TRAINDECK_NOT_FOUND; exit 0; }; "
                            "echo \"TRAINDECK_PATH $p\"; \"$p\" self-check"),
             cancel, CheckOptions::kTrainerTimeoutSteps);
    if (auto bad = ranBadly(r, e))
        return *bad;
    const QString deployRemedy =
        tr("Install traindeck-trainer on %1 in a directory on PATH or in the profile's \"path_prefix\" (for example "
           "~/.local/bin), in the same version as on the other nodes. TrainDeck copies this machine's binary there "
           "with: traindeck-cli deploy --profile FILE --node %1")
            .arg(m_node.name);
    if (e.stdOut.contains("TRAINDECK_NOT_FOUND")) {
        r.status = CheckStatus::Fail;
        r.summary = tr("not found on PATH");
        r.evidence = tr("command -v traindeck-trainer: not found");
        r.remedy = deployRemedy;
        return r;
    }
    QString out = QString::fromUtf8(e.stdOut);
    const int nl = out.indexOf(QLatin1Char('\n'));
    const QString path = out.left(nl).section(QLatin1Char(' '), 1);
    out = out.mid(nl + 1);
    r.evidence = excerpt(path + QLatin1Char('\n') + out.trimmed() + QLatin1Char('\n') + text(e.stdErr), 8);
    if (e.exitCode != 0) {
        r.status = CheckStatus::Fail;
        r.summary = tr("%1 self-check failed (%2)").arg(path, e.describe());
        r.remedy = e.stdErr.contains("shared librar")
                       ? tr("A library is missing (see the evidence): install LibTorch/Open MPI on the node or deploy "
                            "a trainer built for it.")
                       : deployRemedy;
        return r;
    }
    QJsonParseError err{};
    const QJsonDocument doc = QJsonDocument::fromJson(out.toUtf8(), &err);
    if (!doc.isObject()) {
        r.status = CheckStatus::Fail;
        r.summary = tr("%1 self-check printed no JSON").arg(path);
        r.remedy = deployRemedy;
        return r;
    }
    const QJsonObject j = doc.object();
    r.value = j.value(QStringLiteral("trainer")).toString();
    const QString torch = j.value(QStringLiteral("libtorch")).toString();
    const QJsonValue nccl = j.value(QStringLiteral("nccl"));
    if (nccl.isString())
        m_selfCheckNccl = nccl.toString();
    else if (nccl.isObject())
        m_selfCheckNccl =
            nccl.toObject()
                .value(QStringLiteral("version"))
                .toString(nccl.toObject().value(QStringLiteral("compiled")).toBool() ? QStringLiteral("compiled in")
                                                                                     : QString());
    const QJsonValue cuda = j.value(QStringLiteral("cuda"));
    if (cuda.isObject())
        m_selfCheckCuda =
            cuda.toObject().value(QStringLiteral("available")).toBool() ? tr("available") : tr("not available");
    r.summary = tr("%1 (LibTorch %2) at %3").arg(r.value.isEmpty() ? tr("unknown version") : r.value, torch, path);
    r.status = r.value.isEmpty() ? CheckStatus::Warn : CheckStatus::Pass;
    if (r.value.isEmpty())
        r.remedy = tr("The self-check has no \"trainer\" version; deploy a current traindeck-trainer.");
    return r;
}

CheckResult NodeChecker::checkCuda(CheckResult r, CommandRunner& runner, const CancelToken& cancel)
{
    if (!m_hasGpu)
        return skipped(r, tr("no GPU"));
    const ExecResult e =
        exec(runner,
             QStringLiteral("nvidia-smi 2>/dev/null | grep -o 'CUDA Version: [0-9.]*'; "
                            "(nvcc --version 2>/dev/null || /usr/local/cuda/bin/nvcc --version 2>/dev/null) "
                            "| grep -o 'release [0-9.]*'; true"),
             cancel);
    if (auto bad = ranBadlyElseEvidence(r, e))
        return *bad;
    const QString out = QString::fromUtf8(e.stdOut);
    const QString driverCuda = QRegularExpression(QStringLiteral("CUDA Version: ([0-9.]+)")).match(out).captured(1);
    const QString toolkit = QRegularExpression(QStringLiteral("release ([0-9.]+)")).match(out).captured(1);
    r.value = driverCuda;
    QStringList parts;
    if (!driverCuda.isEmpty())
        parts << tr("driver supports CUDA %1").arg(driverCuda);
    if (!toolkit.isEmpty())
        parts << tr("toolkit %1").arg(toolkit);
    if (!m_selfCheckCuda.isEmpty())
        parts << tr("trainer: CUDA %1").arg(m_selfCheckCuda);
    r.summary = parts.isEmpty() ? tr("CUDA version unknown") : parts.join(QStringLiteral(", "));
    if (driverCuda.isEmpty()) {
        r.status = CheckStatus::Warn;
        r.remedy = tr("nvidia-smi shows no CUDA version; update the NVIDIA driver.");
    } else if (m_selfCheckCuda == tr("not available")) {
        r.status = CheckStatus::Warn;
        r.remedy = tr("The trainer on this node cannot use CUDA (a CPU-only LibTorch?).") + QLatin1Char(' ') +
                   cluster::GpuTrainer::advice();
    } else {
        r.status = CheckStatus::Pass;
    }
    return r;
}

CheckResult NodeChecker::checkNccl(CheckResult r, CommandRunner& runner, const CancelToken& cancel)
{
    if (!m_hasGpu)
        return skipped(r, tr("no GPU (NCCL is used for GPU training)"));
    const ExecResult e =
        exec(runner,
             QStringLiteral("for h in /usr/local/cuda/include/nccl.h /usr/include/nccl.h /usr/local/include/nccl.h; do "
                            "[ -f \"$h\" ] && grep -hE '^#define NCCL_(MAJOR|MINOR|PATCH) ' \"$h\" && break; done; "
                            "(ldconfig -p 2>/dev/null | grep -o 'libnccl\\.so[.0-9]*' | sort -u; "
                            "ls /usr/local/cuda/lib64/libnccl.so.* 2>/dev/null); true"),
             cancel);
    if (auto bad = ranBadlyElseEvidence(r, e))
        return *bad;
    const QString out = QString::fromUtf8(e.stdOut);
    auto def = [&](const char* what) {
        return QRegularExpression(QStringLiteral("NCCL_%1\\s+(\\d+)").arg(QLatin1String(what))).match(out).captured(1);
    };
    QString version;
    if (!def("MAJOR").isEmpty())
        version = QStringLiteral("%1.%2.%3").arg(def("MAJOR"), def("MINOR"), def("PATCH"));
    if (version.isEmpty()) {
        const auto m = QRegularExpression(QStringLiteral("libnccl\\.so\\.(\\d+(?:\\.\\d+)*)")).match(out);
        version = m.captured(1);
    }
    r.value = version;
    if (version.isEmpty()) {
        r.status = CheckStatus::Fail;
        r.summary = tr("NCCL not found");
        r.remedy = tr("Install NCCL (libnccl2 from NVIDIA's repository, or the CUDA toolkit's copy under "
                      "/usr/local/cuda); multi-GPU training needs it.");
        return r;
    }
    r.status = CheckStatus::Pass;
    r.summary = tr("NCCL %1").arg(version) +
                (m_selfCheckNccl.isEmpty() ? QString() : tr(" (trainer: %1)").arg(m_selfCheckNccl));
    return r;
}

CheckResult NodeChecker::checkMpi(CheckResult r, CommandRunner& runner, const CancelToken& cancel)
{
    const QString launcher = m_profile.launcher.isEmpty() ? QStringLiteral("mpirun") : m_profile.launcher;
    const ExecResult e = exec(runner, shellPath(launcher) + QStringLiteral(" --version 2>&1 | head -n 5"), cancel);
    if (auto bad = ranBadly(r, e))
        return *bad;
    const QString out = QString::fromUtf8(e.stdOut);
    r.evidence = excerpt(outputOf(e), 5);
    const auto ompi = QRegularExpression(QStringLiteral("\\(Open MPI\\)\\s+([0-9][0-9A-Za-z.]*)")).match(out);
    if (ompi.hasMatch()) {
        r.value = QStringLiteral("Open MPI ") + ompi.captured(1);
        r.summary = r.value;
        r.status = CheckStatus::Pass;
        return r;
    }
    if (out.contains(QLatin1String("not found")) || out.trimmed().isEmpty()) {
        r.status = CheckStatus::Fail;
        r.summary = tr("%1 not found").arg(launcher);
        r.remedy = tr("Install Open MPI on every node (Debian/Ubuntu: apt install openmpi-bin libopenmpi-dev), the "
                      "same version everywhere, or set \"launcher\"/\"path_prefix\" in the profile.");
        return r;
    }
    const auto hydra = QRegularExpression(QStringLiteral("Version:\\s+([0-9.]+)")).match(out);
    r.value = hydra.hasMatch() ? QStringLiteral("MPICH ") + hydra.captured(1)
                               : out.section(QLatin1Char('\n'), 0, 0).trimmed();
    r.summary = r.value;
    r.status = CheckStatus::Warn;
    r.remedy = tr("TrainDeck launches with Open MPI's mpirun; another MPI may need different options.");
    return r;
}

} // namespace traindeck::checks
