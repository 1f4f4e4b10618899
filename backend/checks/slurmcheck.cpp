#include "checks/slurmcheck.h"

#include "common/shell.h"

#include <QElapsedTimer>
#include <QRandomGenerator>
#include <QThread>

namespace traindeck::checks {

using launch::slurm::SinfoNode;
using ssh::CancelToken;
using ssh::ExecOptions;
using ssh::ExecResult;

namespace {
struct Tr {
    Q_DECLARE_TR_FUNCTIONS(traindeck::checks::SlurmCheck)
};

// "tb-node2 (down: tdtest)", "tb-node3 (drained)".
QString describeNode(const SinfoNode& n)
{
    return n.reason.isEmpty() ? QStringLiteral("%1 (%2)").arg(n.name, n.stateText)
                              : QStringLiteral("%1 (%2: %3)").arg(n.name, n.stateText, n.reason);
}

QString sinfoLine(const SinfoNode& n)
{
    QString line = QStringLiteral("%1 %2 cpus=%3 memory=%4M gres=%5")
                       .arg(n.name, n.stateText)
                       .arg(n.cpus)
                       .arg(n.memoryMb)
                       .arg(n.gres.isEmpty() ? QStringLiteral("-") : n.gres);
    if (!n.reason.isEmpty())
        line += QStringLiteral(" reason=") + n.reason;
    return line;
}
} // namespace

CheckResult evaluateSlurmPartition(CheckResult r, const cluster::SlurmSettings& s, const QString& version,
                                   const QList<SinfoNode>& nodes)
{
    r.value = version;
    QList<SinfoNode> part;
    QStringList partitions;
    for (const SinfoNode& n : nodes) {
        if (!partitions.contains(n.partition))
            partitions << n.partition;
        if (n.partition == s.partition)
            part << n;
    }
    if (part.isEmpty()) {
        r.status = CheckStatus::Fail;
        r.summary = Tr::tr("no partition '%1' (%2)").arg(s.partition, version);
        r.evidence = partitions.isEmpty()
                         ? Tr::tr("sinfo lists no nodes")
                         : Tr::tr("sinfo lists the partitions: %1").arg(partitions.join(QStringLiteral(", ")));
        r.remedy = partitions.isEmpty()
                       ? Tr::tr("Slurm lists no nodes: check slurm.conf (NodeName and PartitionName lines) on the "
                                "cluster.")
                       : Tr::tr("Set \"partition\" in the profile's \"slurm\" section to one of: %1.")
                             .arg(partitions.join(QStringLiteral(", ")));
        return r;
    }
    QStringList lines, unusable;
    int usable = 0, withGpus = 0, maxGpus = 0;
    for (const SinfoNode& n : part) {
        lines << sinfoLine(n);
        if (!n.usable()) {
            unusable << describeNode(n);
            continue;
        }
        ++usable;
        maxGpus = qMax(maxGpus, n.gpus);
        withGpus += n.gpus >= s.gpusPerNode ? 1 : 0;
    }
    r.evidence = excerpt(lines.join(QLatin1Char('\n')), 20);
    r.summary = Tr::tr("partition %1: %2 of %n node(s) usable", nullptr, int(part.size())).arg(s.partition).arg(usable);
    if (s.gpusPerNode > 0)
        r.summary += Tr::tr(", %n with %1 or more GPUs", nullptr, withGpus).arg(s.gpusPerNode);
    r.summary += QStringLiteral(" (%1)").arg(version);
    const QString notUsable =
        unusable.isEmpty() ? QString() : Tr::tr("; not usable: %1").arg(unusable.join(QStringLiteral(", ")));
    r.summary += notUsable;
    const QString resume =
        Tr::tr("An administrator brings a node back with `scontrol update nodename=NODE state=resume` once the cause "
               "(Slurm's reason) is fixed.");
    if (usable < s.nodes) {
        r.status = CheckStatus::Fail;
        r.remedy = Tr::tr("The profile asks for %1 nodes but only %2 can run jobs now. Lower \"nodes\" in the "
                          "profile's \"slurm\" section, choose another partition, or wait for the nodes.")
                       .arg(s.nodes)
                       .arg(usable);
        if (!unusable.isEmpty())
            r.remedy += QLatin1Char(' ') + resume;
    } else if (s.gpusPerNode > 0 && withGpus < s.nodes) {
        r.status = CheckStatus::Fail;
        r.remedy = Tr::tr("The profile asks for %1 GPUs on each of %2 nodes, but only %3 usable node(s) have that "
                          "many (gres; at most %4 per node). Lower \"gpus_per_node\" or \"nodes\", or choose a "
                          "partition with GPU nodes.")
                       .arg(s.gpusPerNode)
                       .arg(s.nodes)
                       .arg(withGpus)
                       .arg(maxGpus);
    } else if (!unusable.isEmpty()) {
        r.status = CheckStatus::Warn;
        r.remedy = Tr::tr("Slurm places no jobs on these nodes; enough others are usable.") + QLatin1Char(' ') + resume;
    } else {
        r.status = CheckStatus::Pass;
    }
    return r;
}

// ---- SrunRunner --------------------------------------------------------------------------------

SrunRunner::SrunRunner(ssh::CommandRunner& login, const cluster::ClusterProfile& profile, const QString& jobId,
                       const QString& node)
    : m_login(login), m_pathPrefix(profile.pathPrefix), m_jobId(jobId), m_node(node)
{
    if (profile.slurm)
        m_cpus = qMax(1, profile.slurm->tasksPerNode * profile.slurm->cpusPerTask);
}

QString SrunRunner::stepCommand(const QString& command) const
{
    // The step gets the CPUs the node's ranks get, so nproc shows what training will have.
    return launch::slurm::loginCommand(m_pathPrefix,
                                       QStringLiteral("exec srun --jobid=%1 --overlap -N1 -n1 -c %2 -w %3 --quiet "
                                                      "/bin/sh -c %4")
                                           .arg(shellQuote(m_jobId))
                                           .arg(m_cpus)
                                           .arg(shellQuote(m_node), shellQuote(command)));
}

ExecResult SrunRunner::run(const QString& command, const ExecOptions& options)
{
    return m_login.run(stepCommand(command), options);
}

// ---- CheckJob ----------------------------------------------------------------------------------

CheckJob::CheckJob(ssh::CommandRunner& login, const cluster::ClusterProfile& profile, int waitMs)
    : m_login(login), m_profile(profile), m_waitMs(waitMs),
      m_marker(
          QStringLiteral("traindeck-check:%1").arg(QRandomGenerator::global()->generate64(), 16, 16, QLatin1Char('0')))
{
}

CheckJob::~CheckJob()
{
    cancel();
}

QString CheckJob::submitCommand() const
{
    QStringList args{QStringLiteral("sbatch"),
                     QStringLiteral("--parsable"),
                     QStringLiteral("--job-name=") + QLatin1String(JobName),
                     QStringLiteral("--comment=") + m_marker,
                     QStringLiteral("--output=/dev/null"),
                     QStringLiteral("--time=%1").arg(TimeLimitMinutes)};
    if (m_profile.slurm)
        args += launch::slurm::resourceOptions(*m_profile.slurm);
    args << QStringLiteral("--wrap") << QStringLiteral("sleep %1").arg(TimeLimitMinutes * 60);
    return launch::slurm::loginCommand(m_profile.pathPrefix, shellJoin(args));
}

ExecResult CheckJob::onLogin(const QString& command, int timeoutMs, const CancelToken& cancel) const
{
    ExecOptions o;
    o.timeoutMs = timeoutMs;
    o.cancel = cancel;
    o.maxCaptureBytes = 1024 * 1024;
    return m_login.run(command, o);
}

CheckResult CheckJob::start(CheckResult r, const CancelToken& cancel)
{
    QElapsedTimer waited;
    waited.start();
    const ExecResult sub = onLogin(submitCommand(), 60000, cancel);
    const QString answer = outputOf(sub);
    m_submitAttempted = true;
    std::optional<QString> id = sub.ok() ? launch::slurm::parseSbatchJobId(sub.stdOut) : std::nullopt;
    QString recovered;
    if (!id && sub.status != ExecResult::Status::Cancelled && !cancel.isCancelled()) {
        // sbatch may have submitted before its answer was lost: the job is found by its marker and
        // followed. (After a cancel, cancel() looks for it and ends it.)
        recovered = findOwnJob();
        m_submitAttempted = false; // asked once: a refused job is not looked for again
        if (!recovered.isEmpty())
            id = recovered;
    }
    if (!id && !sub.ok()) {
        r.status = sub.status == ExecResult::Status::Cancelled ? CheckStatus::Skip : CheckStatus::Fail;
        r.summary = Tr::tr("sbatch refused the check job (%1)").arg(sub.describe());
        r.evidence = excerpt(answer);
        r.remedy = Tr::tr("The check job asks for the same resources as a training job (the profile's \"slurm\" "
                          "section: partition, account, nodes, tasks, CPUs and GPUs per node); Slurm's answer above "
                          "says which one it cannot give.");
        return r;
    }
    if (!id) {
        r.status = CheckStatus::Fail;
        r.summary = Tr::tr("sbatch gave no job id");
        r.evidence = excerpt(answer);
        r.remedy = Tr::tr("Run the sbatch command by hand on the login node to see what it says.");
        return r;
    }
    m_jobId = *id;
    QStringList evidence{recovered.isEmpty()
                             ? Tr::tr("sbatch: job %1").arg(m_jobId)
                             : Tr::tr("sbatch gave no job id (%1); job %2 found by its name and marker")
                                   .arg(sub.ok() ? answer.section(QLatin1Char('\n'), 0, 0) : sub.describe(), m_jobId)};
    launch::SlurmJobStatus last;
    last.jobId = m_jobId;
    int unknown = 0;
    for (;;) {
        const ExecResult q = onLogin(
            launch::slurm::loginCommand(m_profile.pathPrefix, launch::slurm::squeueCommand(m_jobId)), 30000, cancel);
        if (q.status == ExecResult::Status::Cancelled || cancel.isCancelled()) {
            r.status = CheckStatus::Skip;
            r.summary = Tr::tr("cancelled (%1)").arg(last.describe());
            r.evidence = evidence.join(QLatin1Char('\n'));
            return r;
        }
        std::optional<launch::SlurmJobStatus> st = q.ok() ? launch::slurm::parseSqueue(q.stdOut) : std::nullopt;
        if (st) {
            st->jobId = m_jobId;
            last = *st;
            unknown = 0;
            if (evidence.last() != QStringLiteral("squeue: ") + st->describeState())
                evidence << QStringLiteral("squeue: ") + st->describeState();
        } else if (q.ok() && ++unknown >= 5) {
            last.state.clear(); // Slurm forgot the job
        }
        if (last.state == QLatin1String("RUNNING"))
            break;
        const bool gone = q.ok() && unknown >= 5;
        if (gone || (last.known() && !launch::slurm::isPendingState(last.state))) {
            r.status = CheckStatus::Fail;
            r.summary = Tr::tr("the check job ended before the checks ran: %1").arg(last.describe());
            r.evidence = evidence.join(QLatin1Char('\n'));
            r.remedy = Tr::tr("Slurm ended the job at once; `scontrol show job %1` on the login node (while Slurm "
                              "keeps it) tells why.")
                           .arg(m_jobId);
            return r;
        }
        if (waited.elapsed() > m_waitMs) {
            r.status = CheckStatus::Fail;
            r.summary = Tr::tr("%1 after %2 s; the compute nodes were not checked")
                            .arg(last.describe())
                            .arg(waited.elapsed() / 1000);
            if (!q.ok())
                evidence << QStringLiteral("squeue: ") + outputOf(q);
            r.evidence = excerpt(evidence.join(QLatin1Char('\n')));
            r.remedy = Tr::tr("The check job did not start in time (Slurm's reason above: Resources or Priority "
                              "means the nodes are busy). Run the checks when the partition has free nodes, or "
                              "let the job wait longer (traindeck-cli check --job-wait SECONDS).");
            return r;
        }
        for (int i = 0; i < 10 && !cancel.isCancelled(); ++i)
            QThread::msleep(100);
    }

    const ExecResult h =
        onLogin(launch::slurm::loginCommand(m_profile.pathPrefix,
                                            QStringLiteral("scontrol show hostnames %1").arg(shellQuote(last.nodes))),
                30000, cancel);
    for (const QByteArray& line : launch::slurm::nonEmptyLines(h.stdOut))
        m_nodes << QString::fromUtf8(line);
    if (!h.ok() || m_nodes.isEmpty()) {
        m_nodes.clear();
        r.status = h.status == ExecResult::Status::Cancelled ? CheckStatus::Skip : CheckStatus::Fail;
        r.summary =
            Tr::tr("job %1 runs on %2, but scontrol show hostnames failed (%3)").arg(m_jobId, last.nodes, h.describe());
        r.evidence = excerpt(evidence.join(QLatin1Char('\n')) + QLatin1Char('\n') + outputOf(h));
        r.remedy = Tr::tr("Check that scontrol works on the login node.");
        return r;
    }
    r.status = CheckStatus::Pass;
    r.summary = Tr::tr("job %1 running on %2 after %3 s")
                    .arg(m_jobId, m_nodes.join(QStringLiteral(", ")))
                    .arg(double(waited.elapsed()) / 1000.0, 0, 'f', 1);
    r.evidence = excerpt(evidence.join(QLatin1Char('\n')));
    return r;
}

QString CheckJob::findOwnJob() const
{
    // Without the checks' cancel token: a cancelled check still finds its job to end it.
    const ExecResult q =
        onLogin(launch::slurm::loginCommand(m_profile.pathPrefix, launch::slurm::ownJobsByNameCommand(
                                                                      QLatin1String(JobName), QStringLiteral("%i %k"))),
                30000, CancelToken{});
    if (!q.ok())
        return {};
    for (const QByteArray& line : launch::slurm::nonEmptyLines(q.stdOut)) {
        const QString text = QString::fromUtf8(line).trimmed();
        if (text.section(QLatin1Char(' '), 1).trimmed() == m_marker) {
            if (const std::optional<QString> jobId =
                    launch::slurm::parseSbatchJobId(text.section(QLatin1Char(' '), 0, 0).toUtf8()))
                return *jobId;
        }
    }
    return {};
}

QString CheckJob::cancel()
{
    // A cancel while sbatch ran: the job may exist all the same, under this check's marker.
    if (m_jobId.isEmpty() && m_submitAttempted && !m_cancelled) {
        m_submitAttempted = false;
        m_jobId = findOwnJob();
    }
    if (m_jobId.isEmpty() || m_cancelled)
        return QString();
    m_cancelled = true;
    // Without the checks' cancel token: a cancelled check still ends its job.
    const ExecResult e =
        onLogin(launch::slurm::loginCommand(m_profile.pathPrefix, launch::slurm::scancelCommand(m_jobId)), 30000,
                CancelToken{});
    if (e.ok())
        return QString();
    return Tr::tr("scancel %1 failed (%2): %3").arg(m_jobId, e.describe(), outputOf(e));
}

} // namespace traindeck::checks
