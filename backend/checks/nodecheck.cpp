#include "checks/nodecheck.h"

#include "checks/slurmcheck.h"
#include "ssh/commandrunner.h"
#include "ssh/sshsession.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QHostAddress>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QSet>

namespace traindeck::checks {

using ssh::CancelToken;
using ssh::CommandRunner;
using ssh::ExecResult;
using ssh::shellPath;

namespace {

QString text(const QByteArray& b)
{
    return QString::fromUtf8(b).trimmed();
}

QString gb(double bytes)
{
    return QString::number(bytes / 1e9, 'f', 1) + QStringLiteral(" GB");
}

} // namespace

QString excerpt(const QString& s, int lines)
{
    QStringList l = s.split(QLatin1Char('\n'));
    QString out;
    if (l.size() > lines) {
        const int total = l.size();
        l = l.mid(0, lines);
        l << QCoreApplication::translate("traindeck::checks::NodeChecker", "… (%1 more lines)").arg(total - lines);
    }
    out = l.join(QLatin1Char('\n'));
    if (out.size() > 2000)
        out = out.left(2000) + QStringLiteral("…");
    return out;
}

QString outputOf(const ExecResult& r)
{
    QString s = text(r.stdOut);
    const QString e = text(r.stdErr);
    if (!e.isEmpty())
        s += (s.isEmpty() ? QString() : QStringLiteral("\n")) + e;
    return s;
}

QString checkStatusName(CheckStatus s)
{
    switch (s) {
    case CheckStatus::Pass: return QStringLiteral("pass");
    case CheckStatus::Warn: return QStringLiteral("warn");
    case CheckStatus::Fail: return QStringLiteral("fail");
    case CheckStatus::Skip: return QStringLiteral("skip");
    }
    return QString();
}

QJsonObject CheckResult::toJson() const
{
    QJsonObject o{{QStringLiteral("id"), id},
                  {QStringLiteral("title"), title},
                  {QStringLiteral("status"), checkStatusName(status)},
                  {QStringLiteral("summary"), summary},
                  {QStringLiteral("evidence"), evidence},
                  {QStringLiteral("remedy"), remedy},
                  {QStringLiteral("ms"), elapsedMs}};
    if (!value.isEmpty())
        o.insert(QStringLiteral("value"), value);
    return o;
}

const CheckResult* NodeReport::find(const QString& id) const
{
    for (const CheckResult& r : results) {
        if (r.id == id)
            return &r;
    }
    return nullptr;
}

CheckStatus NodeReport::worst() const
{
    CheckStatus w = CheckStatus::Pass;
    for (const CheckResult& r : results) {
        if (r.status == CheckStatus::Fail)
            return CheckStatus::Fail;
        if (r.status == CheckStatus::Warn)
            w = CheckStatus::Warn;
    }
    return w;
}

QJsonObject NodeReport::toJson() const
{
    QJsonArray checks;
    for (const CheckResult& r : results)
        checks.append(r.toJson());
    return {{QStringLiteral("node"), node},
            {QStringLiteral("host"), host},
            {QStringLiteral("role"), isHead ? QStringLiteral("head") : QStringLiteral("worker")},
            {QStringLiteral("status"), checkStatusName(worst())},
            {QStringLiteral("checks"), checks}};
}

bool CheckReport::hasFailures() const
{
    if (cancelled)
        return true;
    for (const NodeReport& n : nodes) {
        if (n.worst() == CheckStatus::Fail)
            return true;
    }
    for (const MatrixRow& m : matrix) {
        if (m.differs && m.severity == CheckStatus::Fail)
            return true;
    }
    return false;
}

int CheckReport::count(CheckStatus s) const
{
    int n = 0;
    for (const NodeReport& node : nodes) {
        for (const CheckResult& r : node.results)
            n += r.status == s;
    }
    return n;
}

QJsonObject CheckReport::toJson() const
{
    QJsonArray ns;
    for (const NodeReport& n : nodes)
        ns.append(n.toJson());
    QJsonArray rows;
    for (const MatrixRow& m : matrix) {
        rows.append(QJsonObject{{QStringLiteral("id"), m.id},
                                {QStringLiteral("title"), m.title},
                                {QStringLiteral("values"), QJsonArray::fromStringList(m.values)},
                                {QStringLiteral("differs"), m.differs},
                                {QStringLiteral("status"), checkStatusName(m.differs ? m.severity : CheckStatus::Pass)},
                                {QStringLiteral("remedy"), m.remedy}});
    }
    return {{QStringLiteral("profile"), profile},
            {QStringLiteral("ok"), !hasFailures()},
            {QStringLiteral("cancelled"), cancelled},
            {QStringLiteral("counts"), QJsonObject{{QStringLiteral("pass"), count(CheckStatus::Pass)},
                                                   {QStringLiteral("warn"), count(CheckStatus::Warn)},
                                                   {QStringLiteral("fail"), count(CheckStatus::Fail)},
                                                   {QStringLiteral("skip"), count(CheckStatus::Skip)}}},
            {QStringLiteral("ms"), elapsedMs},
            {QStringLiteral("nodes"), ns},
            {QStringLiteral("matrix"), rows}};
}

// ---- NodeChecker -------------------------------------------------------------------------------

NodeChecker::NodeChecker(const cluster::ClusterProfile& profile, int nodeIndex, const CheckOptions& options)
    : m_profile(profile), m_index(nodeIndex), m_node(profile.nodes.value(nodeIndex)), m_options(options)
{
}

ssh::SshTarget nodeTarget(const cluster::ClusterProfile& profile, const cluster::ClusterNode& node,
                          const ssh::SshTarget& tpl, int connectTimeoutMs)
{
    ssh::SshTarget t = ssh::SshSession::targetFor(profile, node, tpl);
    t.connectTimeoutMs = connectTimeoutMs;
    return t;
}

QString NodeChecker::wrapCommand(const cluster::ClusterProfile& profile, const QString& command)
{
    QString pre;
    if (!profile.pathPrefix.isEmpty())
        pre += shellPathPrefix(profile.pathPrefix) + QStringLiteral("; ");
    for (auto it = profile.env.cbegin(); it != profile.env.cend(); ++it)
        pre += it.key() + QLatin1Char('=') + shellQuote(it.value()) + QStringLiteral("; export ") + it.key() +
               QStringLiteral("; ");
    return QStringLiteral("sh -c ") + shellQuote(pre + command);
}

// Titles spelled out with QT_TRANSLATE_NOOP: lupdate does not expand macros.
// In the order they run: gpu before cuda and nccl (they skip without a GPU), trainer before cuda and
// nccl (they show what its self-check said).
const NodeChecker::Check NodeChecker::kChecks[] = {
    {"connect", QT_TRANSLATE_NOOP("traindeck::checks::NodeChecker", "Reachable and logged in"), nullptr,
     AppliesTo::EveryNode},
    {"os", QT_TRANSLATE_NOOP("traindeck::checks::NodeChecker", "Operating system"), &NodeChecker::checkOs,
     AppliesTo::EveryNode},
    {"cpu", QT_TRANSLATE_NOOP("traindeck::checks::NodeChecker", "CPU cores"), &NodeChecker::checkCpu,
     AppliesTo::EveryNode},
    {"memory", QT_TRANSLATE_NOOP("traindeck::checks::NodeChecker", "Memory"), &NodeChecker::checkMemory,
     AppliesTo::EveryNode},
    {"disk", QT_TRANSLATE_NOOP("traindeck::checks::NodeChecker", "Free disk in the work directory"),
     &NodeChecker::checkDisk, AppliesTo::EveryNode},
    {"gpu", QT_TRANSLATE_NOOP("traindeck::checks::NodeChecker", "GPUs"), &NodeChecker::checkGpu, AppliesTo::EveryNode},
    {"trainer", QT_TRANSLATE_NOOP("traindeck::checks::NodeChecker", "traindeck-trainer"), &NodeChecker::checkTrainer,
     AppliesTo::EveryNode},
    {"cuda", QT_TRANSLATE_NOOP("traindeck::checks::NodeChecker", "CUDA"), &NodeChecker::checkCuda,
     AppliesTo::EveryNode},
    {"nccl", QT_TRANSLATE_NOOP("traindeck::checks::NodeChecker", "NCCL"), &NodeChecker::checkNccl,
     AppliesTo::EveryNode},
    {"mpi", QT_TRANSLATE_NOOP("traindeck::checks::NodeChecker", "Open MPI"), &NodeChecker::checkMpi,
     AppliesTo::EveryNode},
    {"network", QT_TRANSLATE_NOOP("traindeck::checks::NodeChecker", "Network interfaces"), &NodeChecker::checkNetwork,
     AppliesTo::EveryNode},
    {"clock", QT_TRANSLATE_NOOP("traindeck::checks::NodeChecker", "Clock"), &NodeChecker::checkClock,
     AppliesTo::EveryNode},
    {"head-ssh", QT_TRANSLATE_NOOP("traindeck::checks::NodeChecker", "Head → workers SSH"), &NodeChecker::checkHeadSsh,
     AppliesTo::HeadOfSeveral},
    {"interconnect", QT_TRANSLATE_NOOP("traindeck::checks::NodeChecker", "Interconnect (allreduce)"),
     &NodeChecker::checkInterconnect, AppliesTo::HeadWithInterconnect},
    {"slurm", QT_TRANSLATE_NOOP("traindeck::checks::NodeChecker", "Slurm"), &NodeChecker::checkSlurm,
     AppliesTo::SlurmLogin},
    // Run by ClusterChecker (the job outlives this node's checks: the compute nodes' run inside it).
    {"slurm-job", QT_TRANSLATE_NOOP("traindeck::checks::NodeChecker", "Check job"), nullptr, AppliesTo::SlurmLogin},
};

const NodeChecker::Check* NodeChecker::findCheck(const QString& id)
{
    for (const Check& c : kChecks) {
        if (id == QLatin1String(c.id))
            return &c;
    }
    return nullptr;
}

bool NodeChecker::appliesHere(const Check& check) const
{
    const bool head = m_index == m_profile.headIndex();
    // On a Slurm cluster the head is the login node: it runs the Slurm checks, the compute nodes the
    // environment checks, and Slurm (not SSH from the head) starts the ranks.
    const bool slurm = m_profile.slurm.has_value() && !m_profile.isLocal;
    switch (check.appliesTo) {
    case AppliesTo::EveryNode: return !(slurm && head);
    case AppliesTo::HeadOfSeveral: return !slurm && head && m_profile.nodes.size() > 1;
    case AppliesTo::HeadWithInterconnect: return !slurm && head && m_options.interconnect;
    case AppliesTo::SlurmLogin: return slurm && head;
    }
    return false;
}

QString NodeChecker::connectId()
{
    return QString::fromLatin1(kChecks[0].id);
}

QStringList NodeChecker::checkIds() const
{
    QStringList ids;
    for (const Check& c : kChecks) {
        if (c.fn && appliesHere(c))
            ids << QString::fromLatin1(c.id);
    }
    return ids;
}

QString NodeChecker::titleFor(const QString& id)
{
    const Check* c = findCheck(id);
    return c ? tr(c->title) : id;
}

CheckResult NodeChecker::resultFor(const QString& id)
{
    CheckResult r;
    r.id = id;
    r.title = titleFor(id);
    return r;
}

ExecResult NodeChecker::exec(CommandRunner& runner, const QString& command, const CancelToken& cancel) const
{
    ssh::ExecOptions o;
    o.timeoutMs = m_options.stepTimeoutMs;
    o.cancel = cancel;
    o.maxCaptureBytes = 1024 * 1024;
    return runner.run(wrapCommand(m_profile, command), o);
}

QList<CheckResult> NodeChecker::run(CommandRunner& runner, const CancelToken& cancel,
                                    const std::function<void(const CheckResult&)>& progress)
{
    QList<CheckResult> out;
    for (const Check& c : kChecks) {
        if (!c.fn || !appliesHere(c))
            continue;
        QElapsedTimer t;
        t.start();
        CheckResult r = resultFor(QString::fromLatin1(c.id));
        if (cancel.isCancelled()) {
            r.status = CheckStatus::Skip;
            r.summary = tr("cancelled");
        } else {
            r = (this->*c.fn)(r, runner, cancel);
        }
        r.elapsedMs = t.elapsed();
        out.append(r);
        if (progress)
            progress(r);
    }
    return out;
}

// Turns a failed command into a result (timeout, cancel, link loss); nullopt when it ran.
static std::optional<CheckResult> ranBadly(CheckResult r, const ExecResult& e)
{
    if (e.status == ExecResult::Status::Exited || e.status == ExecResult::Status::Signalled)
        return std::nullopt;
    r.status = e.status == ExecResult::Status::Cancelled ? CheckStatus::Skip : CheckStatus::Fail;
    r.summary = e.describe();
    r.evidence = excerpt(outputOf(e));
    if (e.status == ExecResult::Status::TimedOut)
        r.remedy =
            NodeChecker::tr("The command did not answer in time; the node may be overloaded or a file system hangs.");
    else if (e.status == ExecResult::Status::Failed)
        r.remedy = e.error.detail.isEmpty() ? NodeChecker::tr("Check the connection to the node.") : e.error.detail;
    return r;
}

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
    if (auto bad = ranBadly(r, e))
        return *bad;
    r.evidence = excerpt(outputOf(e));
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
    if (auto bad = ranBadly(r, e))
        return *bad;
    r.evidence = excerpt(outputOf(e));
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
    if (auto bad = ranBadly(r, e))
        return *bad;
    r.evidence = excerpt(outputOf(e));
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

CheckResult NodeChecker::checkTrainer(CheckResult r, CommandRunner& runner, const CancelToken& cancel)
{
    const ExecResult e =
        exec(runner,
             QStringLiteral("p=$(command -v traindeck-trainer) || { echo TRAINDECK_NOT_FOUND; exit 0; }; "
                            "echo \"TRAINDECK_PATH $p\"; \"$p\" self-check"),
             cancel);
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
    if (!m_hasGpu) {
        r.status = CheckStatus::Skip;
        r.summary = tr("no GPU");
        return r;
    }
    const ExecResult e =
        exec(runner,
             QStringLiteral("nvidia-smi 2>/dev/null | grep -o 'CUDA Version: [0-9.]*'; "
                            "(nvcc --version 2>/dev/null || /usr/local/cuda/bin/nvcc --version 2>/dev/null) "
                            "| grep -o 'release [0-9.]*'; true"),
             cancel);
    if (auto bad = ranBadly(r, e))
        return *bad;
    r.evidence = excerpt(outputOf(e));
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
        r.remedy = tr("The trainer on this node cannot use CUDA (a CPU-only LibTorch?). Deploy a trainer built "
                      "against a CUDA LibTorch to use the GPUs.");
    } else {
        r.status = CheckStatus::Pass;
    }
    return r;
}

CheckResult NodeChecker::checkNccl(CheckResult r, CommandRunner& runner, const CancelToken& cancel)
{
    if (!m_hasGpu) {
        r.status = CheckStatus::Skip;
        r.summary = tr("no GPU (NCCL is used for GPU training)");
        return r;
    }
    const ExecResult e =
        exec(runner,
             QStringLiteral("for h in /usr/local/cuda/include/nccl.h /usr/include/nccl.h /usr/local/include/nccl.h; do "
                            "[ -f \"$h\" ] && grep -hE '^#define NCCL_(MAJOR|MINOR|PATCH) ' \"$h\" && break; done; "
                            "(ldconfig -p 2>/dev/null | grep -o 'libnccl\\.so[.0-9]*' | sort -u; "
                            "ls /usr/local/cuda/lib64/libnccl.so.* 2>/dev/null); true"),
             cancel);
    if (auto bad = ranBadly(r, e))
        return *bad;
    r.evidence = excerpt(outputOf(e));
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

QString NodeChecker::suggestSocketIfname(const QString& ipOutput, const QString& preferAddress)
{
    QString first;
    for (const QString& raw : ipOutput.split(QLatin1Char('\n'))) {
        const QStringList f = raw.simplified().split(QLatin1Char(' '));
        const int inet = f.indexOf(QStringLiteral("inet"));
        if (f.size() < 4 || inet < 1)
            continue;
        QString ifname = f.at(1);
        if (ifname.endsWith(QLatin1Char(':')))
            ifname.chop(1);
        ifname = ifname.section(QLatin1Char('@'), 0, 0);
        const QString addr = f.value(inet + 1).section(QLatin1Char('/'), 0, 0);
        if (ifname == QLatin1String("lo") || addr.startsWith(QLatin1String("127.")))
            continue;
        if (!preferAddress.isEmpty() && addr == preferAddress)
            return ifname;
        static const QStringList virtualPrefixes{
            QStringLiteral("docker"), QStringLiteral("virbr"),   QStringLiteral("veth"), QStringLiteral("br-"),
            QStringLiteral("cni"),    QStringLiteral("flannel"), QStringLiteral("tun"),  QStringLiteral("tap")};
        bool isVirtual = false;
        for (const QString& p : virtualPrefixes)
            isVirtual = isVirtual || ifname.startsWith(p);
        if (!isVirtual && first.isEmpty())
            first = ifname;
    }
    return first;
}

CheckResult NodeChecker::checkNetwork(CheckResult r, CommandRunner& runner, const CancelToken& cancel)
{
    const bool literal = !QHostAddress(m_node.host).isNull();
    const QString resolve =
        literal || runner.isLocal()
            ? QStringLiteral("echo TRAINDECK_ADDR %1").arg(shellQuote(m_node.host))
            : QStringLiteral("echo TRAINDECK_ADDR $(getent ahostsv4 %1 2>/dev/null | awk 'NR==1{print $1}')")
                  .arg(shellQuote(m_node.host));
    const ExecResult e = exec(runner, QStringLiteral("ip -o -4 addr show 2>&1; ") + resolve, cancel);
    if (auto bad = ranBadly(r, e))
        return *bad;
    const QString out = QString::fromUtf8(e.stdOut);
    QString addr;
    QStringList ifLines;
    for (const QString& l : out.split(QLatin1Char('\n'))) {
        if (l.startsWith(QLatin1String("TRAINDECK_ADDR")))
            addr = l.mid(14).trimmed();
        else if (!l.trimmed().isEmpty())
            ifLines << l.simplified().section(QLatin1Char(' '), 0, 3);
    }
    r.evidence = excerpt(ifLines.join(QLatin1Char('\n')));
    if (out.contains(QLatin1String("not found")) && ifLines.size() <= 1) {
        r.status = CheckStatus::Warn;
        r.summary = tr("`ip` not found");
        r.remedy = tr("Install iproute2 to list the interfaces, then set NCCL_SOCKET_IFNAME in the profile's env.");
        return r;
    }
    const QString suggestion = suggestSocketIfname(out, addr);
    r.value = suggestion;
    const QString configured = m_profile.env.value(QStringLiteral("NCCL_SOCKET_IFNAME"));
    if (!configured.isEmpty()) {
        // NCCL: "=eth0" exact, "^eth" excluded, otherwise a prefix.
        bool found = false;
        const bool exact = configured.startsWith(QLatin1Char('='));
        const bool exclude = configured.startsWith(QLatin1Char('^'));
        for (QString want : configured.mid(exact || exclude ? 1 : 0).split(QLatin1Char(','))) {
            for (const QString& l : ifLines) {
                QString ifname = l.section(QLatin1Char(' '), 1, 1);
                ifname = ifname.section(QLatin1Char('@'), 0, 0).remove(QLatin1Char(':'));
                if (exclude ? !ifname.startsWith(want) : (exact ? ifname == want : ifname.startsWith(want)))
                    found = true;
            }
        }
        r.summary = tr("NCCL_SOCKET_IFNAME=%1 is set").arg(configured);
        if (!found) {
            r.status = CheckStatus::Fail;
            r.summary += tr("; no matching interface");
            r.remedy =
                tr("No interface on %1 matches NCCL_SOCKET_IFNAME=%2; NCCL would fail to start. Use %3.")
                    .arg(m_node.name, configured, suggestion.isEmpty() ? tr("an existing interface") : suggestion);
        } else {
            r.status = CheckStatus::Pass;
        }
        return r;
    }
    if (suggestion.isEmpty()) {
        r.status = m_profile.nodes.size() > 1 ? CheckStatus::Warn : CheckStatus::Pass;
        r.summary = tr("only loopback");
        if (r.status == CheckStatus::Warn)
            r.remedy = tr("No network interface besides loopback: other nodes cannot reach this one.");
        return r;
    }
    r.status = CheckStatus::Pass;
    r.summary =
        tr("suggested NCCL_SOCKET_IFNAME=%1").arg(suggestion) + (addr.isEmpty() ? QString() : tr(" (%1)").arg(addr));
    return r;
}

CheckResult NodeChecker::checkClock(CheckResult r, CommandRunner& runner, const CancelToken& cancel)
{
    const qint64 t0 = QDateTime::currentMSecsSinceEpoch();
    const ExecResult e = exec(runner, QStringLiteral("date +%s.%N"), cancel);
    const qint64 t1 = QDateTime::currentMSecsSinceEpoch();
    if (auto bad = ranBadly(r, e))
        return *bad;
    bool ok = false;
    const double remote = text(e.stdOut).toDouble(&ok);
    r.evidence = excerpt(outputOf(e));
    if (!ok) {
        r.status = CheckStatus::Warn;
        r.summary = tr("unknown");
        r.remedy = tr("`date +%s.%N` gave no time.");
        return r;
    }
    const double local = (t0 + t1) / 2000.0;
    const double uncertainty = (t1 - t0) / 2000.0;
    const double skew = remote - local;
    r.value.clear();
    r.summary = tr("offset %1 s (± %2 s) from this machine").arg(skew, 0, 'f', 3).arg(uncertainty, 0, 'f', 3);
    if (qAbs(skew) > m_options.maxClockSkewS + uncertainty) {
        r.status = CheckStatus::Warn;
        r.remedy = tr("The clock differs by %1 s: timestamps in metrics and logs will not line up. Enable time "
                      "synchronisation (systemd-timesyncd, chrony or ntpd) on every node.")
                       .arg(skew, 0, 'f', 1);
    } else {
        r.status = CheckStatus::Pass;
    }
    return r;
}

CheckResult NodeChecker::checkHeadSsh(CheckResult r, CommandRunner& runner, const CancelToken& cancel)
{
    QString script;
    int workers = 0;
    for (int i = 0; i < m_profile.nodes.size(); ++i) {
        if (i == m_index)
            continue;
        const cluster::ClusterNode& w = m_profile.nodes.at(i);
        ++workers;
        QString ssh = QStringLiteral("ssh -o BatchMode=yes -o ConnectTimeout=5 -o StrictHostKeyChecking=yes");
        if (w.port != 22)
            ssh += QStringLiteral(" -p %1").arg(w.port);
        if (!w.user.isEmpty())
            ssh += QStringLiteral(" -l ") + shellQuote(w.user);
        ssh += QLatin1Char(' ') + shellQuote(w.host) + QStringLiteral(" true");
        script += QStringLiteral("if getent hosts %1 >/dev/null 2>&1; then r=ok; else r=noresolve; fi; "
                                 "out=$(%2 2>&1 </dev/null); rc=$?; echo \"TDW %3 $r $rc\"; "
                                 "printf '%s\\n' \"$out\" | head -n 3 | sed 's/^/TDO %3 /'; ")
                      .arg(shellQuote(w.host), ssh)
                      .arg(i);
    }
    ssh::ExecOptions o;
    o.timeoutMs = m_options.stepTimeoutMs + workers * 7000;
    o.cancel = cancel;
    const ExecResult e = runner.run(wrapCommand(m_profile, script), o);
    if (auto bad = ranBadly(r, e))
        return *bad;
    QStringList failed, evidence, remedies;
    int okCount = 0;
    const QStringList lines = QString::fromUtf8(e.stdOut).split(QLatin1Char('\n'));
    for (const QString& l : lines) {
        if (!l.startsWith(QLatin1String("TDW ")))
            continue;
        const QStringList f = l.split(QLatin1Char(' '));
        const int i = f.value(1).toInt();
        const cluster::ClusterNode& w = m_profile.nodes.value(i);
        const bool resolves = f.value(2) == QLatin1String("ok");
        const int rc = f.value(3).toInt();
        QStringList said;
        for (const QString& o2 : lines) {
            if (o2.startsWith(QStringLiteral("TDO %1 ").arg(i)))
                said << o2.mid(QStringLiteral("TDO %1 ").arg(i).size());
        }
        const QString msg = said.join(QLatin1Char(' ')).trimmed();
        if (rc == 0) {
            ++okCount;
            evidence << tr("%1: ok%2")
                            .arg(w.name,
                                 resolves ? QString() : tr(" (getent cannot resolve %1, ssh could)").arg(w.host));
            continue;
        }
        failed << w.name;
        evidence << tr("%1: exit %2: %3").arg(w.name, QString::number(rc), msg);
        const QString target = (w.user.isEmpty() ? QString() : w.user + QLatin1Char('@')) + w.host;
        if (!resolves || msg.contains(QLatin1String("resolve")))
            remedies
                << tr("%1 cannot resolve %2: add it to /etc/hosts on the head or to DNS, or use its IP address in the "
                      "profile.")
                       .arg(m_node.name, w.host);
        else if (msg.contains(QLatin1String("Host key verification failed")) ||
                 msg.contains(QLatin1String("REMOTE HOST IDENTIFICATION")))
            remedies << tr("The head does not know the host key of %1 (or it changed). Let TrainDeck set up head → "
                           "worker SSH (it copies the key this machine verified), or on the head run "
                           "`ssh%2 %3` once and compare the fingerprint.")
                            .arg(w.host, w.port != 22 ? QStringLiteral(" -p %1").arg(w.port) : QString(), target);
        else if (msg.contains(QLatin1String("Permission denied")))
            remedies
                << tr("The head has no key authorized on %1. Let TrainDeck set up head → worker SSH, or on the head "
                      "run: ssh-keygen -t ed25519 (if it has no key) and ssh-copy-id%2 %3")
                       .arg(w.name, w.port != 22 ? QStringLiteral(" -p %1").arg(w.port) : QString(), target);
        else if (msg.contains(QLatin1String("not found")) && rc == 127)
            remedies << tr("ssh is not installed on the head: apt install openssh-client.");
        else
            remedies << tr("Check that %1 is reachable from the head on port %2 (firewall, routing).")
                            .arg(w.host, QString::number(w.port));
    }
    r.evidence = excerpt(evidence.join(QLatin1Char('\n')), 40);
    if (okCount + failed.size() < workers) {
        r.status = CheckStatus::Fail;
        r.summary = tr("the test did not complete");
        r.evidence = excerpt(outputOf(e));
        r.remedy = tr("Run `ssh -o BatchMode=yes WORKER true` on the head by hand to see what fails.");
        return r;
    }
    if (failed.isEmpty()) {
        r.status = CheckStatus::Pass;
        r.summary = tr("passwordless SSH to all %n worker(s)", nullptr, workers);
    } else {
        r.status = CheckStatus::Fail;
        r.summary = tr("no passwordless SSH to %1").arg(failed.join(QStringLiteral(", ")));
        remedies.removeDuplicates();
        r.remedy = remedies.join(QLatin1Char('\n'));
    }
    return r;
}

CheckResult NodeChecker::checkInterconnect(CheckResult r, CommandRunner& runner, const CancelToken& cancel)
{
    if (m_profile.nodes.size() < 2) {
        r.status = CheckStatus::Skip;
        r.summary = tr("single node");
        return r;
    }
    QStringList hosts;
    for (const cluster::ClusterNode& n : m_profile.nodes)
        hosts << n.host + QStringLiteral(":1");
    const QString launcher = m_profile.launcher.isEmpty() ? QStringLiteral("mpirun") : m_profile.launcher;
    // Older trainers have no bench-comm: their usage does not list it (and the command exits 2).
    const QString cmd =
        QStringLiteral("traindeck-trainer --help 2>&1 | grep -q bench-comm || "
                       "{ echo TRAINDECK_NO_BENCH; exit 0; }; "
                       "if [ \"$(id -u)\" = 0 ]; then OMPI_ALLOW_RUN_AS_ROOT=1; OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; "
                       "export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM; fi; "
                       "%1 -np %2 --host %3 --map-by node traindeck-trainer bench-comm --json --iters 3 "
                       "--max-bytes 67108864")
            .arg(shellPath(launcher), QString::number(hosts.size()), shellQuote(hosts.join(QLatin1Char(','))));
    ssh::ExecOptions o;
    o.timeoutMs = qMax(m_options.stepTimeoutMs, 180000);
    o.cancel = cancel;
    const ExecResult e = runner.run(wrapCommand(m_profile, cmd), o);
    if (auto bad = ranBadly(r, e))
        return *bad;
    r.evidence = excerpt(outputOf(e));
    const bool unknown =
        e.stdOut.contains("TRAINDECK_NO_BENCH") || (e.exitCode == 2 && e.stdErr.contains("unknown command"));
    if (unknown) {
        r.status = CheckStatus::Skip;
        r.summary = tr("traindeck-trainer has no bench-comm (older version)");
        return r;
    }
    QJsonObject j;
    for (const QByteArray& line : e.stdOut.split('\n')) {
        const QJsonDocument d = QJsonDocument::fromJson(line.trimmed());
        if (d.isObject() && d.object().contains(QStringLiteral("results")))
            j = d.object();
    }
    const QJsonArray rows = j.value(QStringLiteral("results")).toArray();
    if (e.exitCode != 0 || rows.isEmpty()) {
        r.status = CheckStatus::Fail;
        r.summary = tr("allreduce test failed (%1)").arg(e.describe());
        r.remedy = tr("mpirun could not run across the nodes: check head → worker SSH, that Open MPI and the trainer "
                      "are the same on every node, and NCCL_SOCKET_IFNAME / btl_tcp_if_include.");
        return r;
    }
    const QJsonObject last = rows.last().toObject();
    const double busbw = last.value(QStringLiteral("busbw_gbps")).toDouble();
    const double bytes = last.value(QStringLiteral("bytes")).toDouble();
    r.value = QString::number(busbw, 'f', 2);
    r.summary = tr("allreduce bus bandwidth %1 GB/s at %2 MiB over %3 ranks")
                    .arg(busbw, 0, 'f', 2)
                    .arg(bytes / 1048576.0, 0, 'f', 0)
                    .arg(j.value(QStringLiteral("ranks")).toInt());
    if (busbw < 1.0) {
        r.status = CheckStatus::Warn;
        r.remedy = tr("Below 1 GB/s: gradient allreduce will dominate each step. Use a faster link (25 GbE or "
                      "InfiniBand) and make sure NCCL/MPI use it (NCCL_SOCKET_IFNAME, NCCL_IB_HCA).");
    } else {
        r.status = CheckStatus::Pass;
    }
    return r;
}

CheckResult NodeChecker::checkSlurm(CheckResult r, CommandRunner& runner, const CancelToken& cancel)
{
    const ExecResult e =
        exec(runner,
             QStringLiteral("command -v sinfo >/dev/null 2>&1 || { echo TRAINDECK_NO_SINFO; exit 0; }; "
                            "sinfo --version && echo TRAINDECK_SINFO_NODES && ") +
                 launch::slurm::sinfoNodesCommand(),
             cancel);
    if (auto bad = ranBadly(r, e))
        return *bad;
    if (e.stdOut.contains("TRAINDECK_NO_SINFO")) {
        r.status = CheckStatus::Fail;
        r.summary = tr("sinfo not found on the login node");
        r.evidence = tr("command -v sinfo: not found");
        r.remedy = tr("Install Slurm's client commands on the login node (Debian: slurm-client) or add their "
                      "directory to the profile's \"path_prefix\".");
        return r;
    }
    const int split = e.stdOut.indexOf("TRAINDECK_SINFO_NODES");
    if (e.exitCode != 0 || split < 0) {
        r.status = CheckStatus::Fail;
        r.summary = tr("sinfo failed (%1)").arg(e.describe());
        r.evidence = excerpt(outputOf(e));
        r.remedy = tr("Slurm's controller did not answer: check that slurmctld runs and is reachable from the login "
                      "node (scontrol ping).");
        return r;
    }
    return evaluateSlurmPartition(r, *m_profile.slurm, text(e.stdOut.left(split)),
                                  launch::slurm::parseSinfoNodes(e.stdOut.mid(split)));
}

// ---- matrix ------------------------------------------------------------------------------------

void buildMatrix(CheckReport& report)
{
    struct Row {
        const char* id;
        const char* title;
        CheckStatus severity;
        const char* remedy;
    };
    static const Row rows[] = {
        {"os", QT_TRANSLATE_NOOP("traindeck::checks::NodeChecker", "Operating system"), CheckStatus::Warn,
         QT_TRANSLATE_NOOP("traindeck::checks::NodeChecker", "Different systems may ship different library versions.")},
        {"gpu", QT_TRANSLATE_NOOP("traindeck::checks::NodeChecker", "GPUs and driver"), CheckStatus::Warn,
         QT_TRANSLATE_NOOP(
             "traindeck::checks::NodeChecker",
             "Different GPUs or drivers: the slowest node sets the pace; use the same driver everywhere.")},
        {"cuda", QT_TRANSLATE_NOOP("traindeck::checks::NodeChecker", "CUDA"), CheckStatus::Warn,
         QT_TRANSLATE_NOOP("traindeck::checks::NodeChecker", "Use the same CUDA version on every node.")},
        {"nccl", QT_TRANSLATE_NOOP("traindeck::checks::NodeChecker", "NCCL"), CheckStatus::Warn,
         QT_TRANSLATE_NOOP(
             "traindeck::checks::NodeChecker",
             "Different NCCL versions can hang or fail in collectives; install the same one everywhere.")},
        {"mpi", QT_TRANSLATE_NOOP("traindeck::checks::NodeChecker", "Open MPI"), CheckStatus::Fail,
         QT_TRANSLATE_NOOP(
             "traindeck::checks::NodeChecker",
             "Open MPI must be the same version on every node; install the head's version on all nodes.")},
        {"trainer", QT_TRANSLATE_NOOP("traindeck::checks::NodeChecker", "traindeck-trainer"), CheckStatus::Fail,
         QT_TRANSLATE_NOOP("traindeck::checks::NodeChecker",
                           "Every node must run the same traindeck-trainer version: deploy the head's binary to the "
                           "nodes that differ.")},
        {"network", QT_TRANSLATE_NOOP("traindeck::checks::NodeChecker", "NCCL_SOCKET_IFNAME"), CheckStatus::Warn,
         QT_TRANSLATE_NOOP("traindeck::checks::NodeChecker",
                           "The interfaces have different names: set NCCL_SOCKET_IFNAME in the profile's env to a "
                           "common prefix or a comma-separated list.")},
    };
    report.matrix.clear();
    if (report.nodes.size() < 2)
        return;
    int headIdx = 0;
    for (int i = 0; i < report.nodes.size(); ++i) {
        if (report.nodes.at(i).isHead)
            headIdx = i;
    }
    for (const Row& row : rows) {
        MatrixRow m;
        m.id = QString::fromLatin1(row.id);
        m.title = QCoreApplication::translate("traindeck::checks::NodeChecker", row.title);
        QSet<QString> distinct;
        for (const NodeReport& n : report.nodes) {
            const CheckResult* r = n.find(m.id);
            const QString v = r ? r->value : QString();
            m.values << v;
            if (!v.isEmpty())
                distinct.insert(v);
        }
        m.differs = distinct.size() > 1;
        m.severity = row.severity;
        if (m.differs) {
            m.remedy = QCoreApplication::translate("traindeck::checks::NodeChecker", row.remedy);
            // The nodes that differ from the head get the finding on their own result too. A Slurm login
            // node runs no environment checks: there the first compute node is the reference.
            QString reference = m.values.value(headIdx);
            int referenceIdx = headIdx;
            for (int i = 0; reference.isEmpty() && i < m.values.size(); ++i) {
                reference = m.values.at(i);
                referenceIdx = i;
            }
            for (int i = 0; i < report.nodes.size(); ++i) {
                if (reference.isEmpty() || m.values.at(i).isEmpty() || m.values.at(i) == reference)
                    continue;
                for (CheckResult& r : report.nodes[i].results) {
                    if (r.id != m.id)
                        continue;
                    if (row.severity == CheckStatus::Fail || r.status == CheckStatus::Pass)
                        r.status = row.severity;
                    r.summary += referenceIdx == headIdx ? QCoreApplication::translate("traindeck::checks::NodeChecker",
                                                                                       "; differs from the head (%1)")
                                                               .arg(reference)
                                                         : QCoreApplication::translate("traindeck::checks::NodeChecker",
                                                                                       "; differs from %1 (%2)")
                                                               .arg(report.nodes.at(referenceIdx).node, reference);
                    r.remedy = (r.remedy.isEmpty() ? QString() : r.remedy + QLatin1Char('\n')) + m.remedy;
                }
            }
        }
        report.matrix.append(m);
    }
}

} // namespace traindeck::checks
