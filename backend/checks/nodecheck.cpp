// The node checks' results and reports, and NodeChecker's table of checks and its run loop. The checks
// themselves: nodecheckmachine.cpp (os, cpu, memory, disk, gpu), nodechecksoftware.cpp (trainer,
// cuda, nccl, mpi), nodechecknetwork.cpp (network, clock, head-ssh, interconnect, slurm); the
// cross-node matrix: nodematrix.cpp.
#include "checks/nodecheck.h"

#include "checks/nodecheckprivate.h"
#include "ssh/commandrunner.h"
#include "ssh/sshsession.h"

#include <QElapsedTimer>
#include <QJsonArray>

namespace traindeck::checks {

using ssh::CancelToken;
using ssh::CommandRunner;
using ssh::ExecResult;
using ssh::shellPath;
using namespace nodecheck_detail;

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
    if (memoryMiB > 0)
        o.insert(QStringLiteral("memory_mib"), memoryMiB);
    if (gpus > 0)
        o.insert(QStringLiteral("gpus"), gpus);
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

namespace {
// agreeingNodeGroups() by node name.
QJsonArray groupsJson(const CheckReport& report)
{
    QJsonArray groups;
    for (const QList<int>& g : agreeingNodeGroups(report)) {
        QJsonArray names;
        for (int i : g)
            names.append(report.nodes.at(i).node);
        groups.append(names);
    }
    return groups;
}
} // namespace

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
            {QStringLiteral("matrix"), rows},
            {QStringLiteral("groups"), groupsJson(*this)}};
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

ExecResult NodeChecker::exec(CommandRunner& runner, const QString& command, const CancelToken& cancel,
                             int timeoutSteps) const
{
    ssh::ExecOptions o;
    o.timeoutMs = m_options.stepTimeoutMs * timeoutSteps;
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
std::optional<CheckResult> nodecheck_detail::ranBadly(CheckResult r, const ExecResult& e)
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

} // namespace traindeck::checks
