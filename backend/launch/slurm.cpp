#include "launch/slurm.h"

#include "common/shell.h"
#include "launch/transport.h"

#include <QRegularExpression>

namespace traindeck::launch {

namespace {
struct Tr {
    Q_DECLARE_TR_FUNCTIONS(traindeck::launch::Slurm)
};

// The first word of a state ("CANCELLED by 0" → CANCELLED), upper case; a trailing "+" (sacct marks
// states of requeued jobs) is dropped.
QString baseState(const QString& text)
{
    QString s = text.trimmed().section(QLatin1Char(' '), 0, 0).toUpper();
    while (s.endsWith(QLatin1Char('+')))
        s.chop(1);
    return s;
}

QString cleanReason(const QString& reason)
{
    const QString r = reason.trimmed();
    return r == QLatin1String("None") || r == QLatin1String("(null)") ? QString() : r;
}

// "Invalid job id specified": Slurm no longer (or never) knew the job; not a failure to ask.
bool saysUnknownJob(const ExecResult& r)
{
    return r.err.contains("Invalid job id") || r.out.contains("Invalid job id");
}

Result<ExecResult> runOn(Transport& t, const QStringList& pathPrefix, const QString& command, int timeoutMs = 30000)
{
    return t.run(slurm::loginCommand(pathPrefix, command), timeoutMs);
}

QString firstLine(const QByteArray& text)
{
    const QList<QByteArray> lines = slurm::nonEmptyLines(text);
    return lines.isEmpty() ? QString() : QString::fromUtf8(lines.first());
}
} // namespace

std::optional<SlurmJob> SlurmJob::parse(const QByteArray& text)
{
    const QList<QByteArray> words = text.simplified().split(' ');
    static const QRegularExpression id(QStringLiteral("^[0-9]+(_[0-9]+)?$"));
    if (words.isEmpty() || !id.match(QString::fromLatin1(words.first())).hasMatch())
        return std::nullopt;
    SlurmJob j;
    j.jobId = QString::fromLatin1(words.first());
    j.ranksVia = words.size() > 1 ? QString::fromLatin1(words.at(1)) : QStringLiteral("mpirun");
    return j;
}

QByteArray SlurmJob::toText() const
{
    return (jobId + QLatin1Char(' ') + ranksVia + QLatin1Char('\n')).toUtf8();
}

QString SlurmJobStatus::describe() const
{
    const QString job = jobId.isEmpty() ? QString() : Tr::tr("job %1 ").arg(jobId);
    if (state.isEmpty())
        return job + Tr::tr("unknown to Slurm");
    return job + describeState();
}

QString SlurmJobStatus::describeState() const
{
    const QString name = state.toLower();
    if (slurm::isPendingState(state))
        return reason.isEmpty() ? name : name + QStringLiteral(": ") + reason;
    if (state == QLatin1String("RUNNING") || state == QLatin1String("COMPLETING"))
        return nodes.isEmpty() ? name : Tr::tr("%1 on %2").arg(name, nodes);
    if (state == QLatin1String("NODE_FAIL")) {
        const QString which = failedNodes.isEmpty() ? nodes : failedNodes;
        return which.isEmpty() ? name : name + QStringLiteral(": ") + which;
    }
    return reason.isEmpty() ? name : name + QStringLiteral(": ") + reason;
}

namespace slurm {

QStringList resourceOptions(const cluster::SlurmSettings& s)
{
    QStringList o{QStringLiteral("--partition=") + s.partition};
    if (!s.account.isEmpty())
        o << QStringLiteral("--account=") + s.account;
    o << QStringLiteral("--nodes=%1").arg(s.nodes) << QStringLiteral("--ntasks-per-node=%1").arg(s.tasksPerNode)
      << QStringLiteral("--cpus-per-task=%1").arg(s.cpusPerTask);
    if (s.gpusPerNode > 0)
        o << QStringLiteral("--gpus-per-node=%1").arg(s.gpusPerNode);
    return o;
}

QString loginCommand(const QStringList& pathPrefix, const QString& command)
{
    const QString line = pathPrefix.isEmpty() ? command : shellPathPrefix(pathPrefix) + QStringLiteral("; ") + command;
    return QStringLiteral("sh -c ") + shellQuote(line);
}

QList<QByteArray> nonEmptyLines(const QByteArray& out)
{
    QList<QByteArray> lines;
    for (const QByteArray& l : out.split('\n')) {
        if (!l.trimmed().isEmpty())
            lines << l.trimmed();
    }
    return lines;
}

QString squeueCommand(const QString& jobId)
{
    return QStringLiteral("squeue -h -t all -j %1 -o '%T|%r|%N'").arg(shellQuote(jobId));
}

QString scancelCommand(const QString& jobId)
{
    return QStringLiteral("scancel %1").arg(shellQuote(jobId));
}

std::optional<QString> parseSbatchJobId(const QByteArray& out)
{
    const QString id = QString::fromUtf8(nonEmptyLines(out).value(0)).section(QLatin1Char(';'), 0, 0).trimmed();
    if (!SlurmJob::parse(id.toUtf8()))
        return std::nullopt;
    return id;
}

bool SinfoNode::usable() const
{
    static const QStringList ok = {QStringLiteral("idle"), QStringLiteral("mixed"), QStringLiteral("allocated"),
                                   QStringLiteral("completing"), QStringLiteral("planned")};
    // "*": the node does not respond to slurmctld.
    return ok.contains(state) && !stateText.contains(QLatin1Char('*'));
}

QString sinfoNodesCommand()
{
    return QStringLiteral("sinfo -h -N -o '%N|%P|%T|%G|%c|%m|%E'");
}

QList<SinfoNode> parseSinfoNodes(const QByteArray& out)
{
    QList<SinfoNode> nodes;
    for (const QByteArray& line : nonEmptyLines(out)) {
        // The reason is last: it may hold "|" itself.
        const QStringList f = QString::fromUtf8(line).split(QLatin1Char('|'));
        if (f.size() < 7 || f.at(0).trimmed().isEmpty())
            continue;
        SinfoNode n;
        n.name = f.at(0).trimmed();
        n.partition = f.at(1).trimmed();
        if (n.partition.endsWith(QLatin1Char('*')))
            n.partition.chop(1);
        n.stateText = f.at(2).trimmed().toLower();
        // Flags after the state: * not responding, ~ powered off, # powering up, ! powering down,
        // % powering down, $ maintenance reservation, @ pending reboot, ^ rebooting, - planned, + more.
        n.state = n.stateText;
        while (!n.state.isEmpty() && !n.state.back().isLetterOrNumber() && n.state.back() != QLatin1Char('_'))
            n.state.chop(1);
        n.gres = f.at(3).trimmed();
        if (n.gres == QLatin1String("(null)"))
            n.gres.clear();
        n.gpus = gresGpuCount(n.gres);
        n.cpus = f.at(4).trimmed().toInt();
        n.memoryMb = f.at(5).trimmed().toLongLong();
        n.reason = cleanReason(f.mid(6).join(QLatin1Char('|')));
        if (n.reason.compare(QLatin1String("none"), Qt::CaseInsensitive) == 0) // sinfo's word for no reason
            n.reason.clear();
        nodes << n;
    }
    return nodes;
}

int gresGpuCount(const QString& gres)
{
    // Entries are separated by commas outside parentheses ("gpu:a100:2(S:0,1),gpu:v100:1").
    QStringList entries;
    QString cur;
    int depth = 0;
    for (const QChar c : gres) {
        if (c == QLatin1Char('('))
            ++depth;
        else if (c == QLatin1Char(')'))
            depth = qMax(0, depth - 1);
        if (c == QLatin1Char(',') && depth == 0) {
            entries << cur;
            cur.clear();
        } else {
            cur += c;
        }
    }
    entries << cur;
    int gpus = 0;
    for (const QString& e : entries) {
        const QStringList parts = e.section(QLatin1Char('('), 0, 0).trimmed().split(QLatin1Char(':'));
        if (parts.first() != QLatin1String("gpu"))
            continue;
        bool ok = false;
        const int n = parts.last().toInt(&ok);
        // "gpu" or "gpu:a100" without a count: one GPU (Slurm's default count).
        gpus += ok ? n : 1;
    }
    return gpus;
}

bool isFinalState(const QString& state)
{
    static const QStringList finals = {
        QStringLiteral("COMPLETED"),    QStringLiteral("FAILED"),    QStringLiteral("CANCELLED"),
        QStringLiteral("TIMEOUT"),      QStringLiteral("NODE_FAIL"), QStringLiteral("OUT_OF_MEMORY"),
        QStringLiteral("BOOT_FAIL"),    QStringLiteral("DEADLINE"),  QStringLiteral("PREEMPTED"),
        QStringLiteral("SPECIAL_EXIT"), QStringLiteral("REVOKED"),
    };
    return finals.contains(state);
}

bool isPendingState(const QString& state)
{
    static const QStringList pending = {
        QStringLiteral("PENDING"),     QStringLiteral("CONFIGURING"),  QStringLiteral("REQUEUED"),
        QStringLiteral("REQUEUE_FED"), QStringLiteral("REQUEUE_HOLD"), QStringLiteral("RESV_DEL_HOLD"),
        QStringLiteral("SUSPENDED"),   QStringLiteral("STOPPED"),      QStringLiteral("RESIZING"),
    };
    return pending.contains(state);
}

std::optional<SlurmJobStatus> parseSqueue(const QByteArray& out)
{
    for (const QByteArray& line : nonEmptyLines(out)) {
        const QStringList f = QString::fromUtf8(line).split(QLatin1Char('|'));
        if (f.size() < 3 || f.at(0).isEmpty())
            continue;
        SlurmJobStatus s;
        s.state = baseState(f.at(0));
        s.reason = cleanReason(f.at(1));
        s.nodes = f.at(2).trimmed();
        s.source = QStringLiteral("squeue");
        return s;
    }
    return std::nullopt;
}

std::optional<SlurmJobStatus> parseSacct(const QByteArray& out, const QString& jobId)
{
    for (const QByteArray& line : nonEmptyLines(out)) {
        const QStringList f = QString::fromUtf8(line).split(QLatin1Char('|'));
        if (f.size() < 5 || f.at(0).trimmed() != jobId)
            continue;
        SlurmJobStatus s;
        s.state = baseState(f.at(1));
        s.exitCode = f.at(2).trimmed();
        s.reason = cleanReason(f.at(3));
        s.nodes = f.at(4).trimmed();
        if (s.nodes == QLatin1String("None assigned"))
            s.nodes.clear();
        s.source = QStringLiteral("sacct");
        return s;
    }
    return std::nullopt;
}

std::optional<SlurmJobStatus> parseScontrolJob(const QByteArray& out)
{
    const QString text = QString::fromUtf8(out);
    auto field = [&](const QString& key) -> std::optional<QString> {
        const QRegularExpression re(QStringLiteral("(?:^|\\s)%1=(\\S*)").arg(key));
        const QRegularExpressionMatch m = re.match(text);
        if (!m.hasMatch())
            return std::nullopt;
        return m.captured(1);
    };
    const std::optional<QString> state = field(QStringLiteral("JobState"));
    if (!state || state->isEmpty())
        return std::nullopt;
    SlurmJobStatus s;
    s.state = baseState(*state);
    s.reason = cleanReason(field(QStringLiteral("Reason")).value_or(QString()));
    s.exitCode = field(QStringLiteral("ExitCode")).value_or(QString());
    s.nodes = field(QStringLiteral("NodeList")).value_or(QString());
    if (s.nodes == QLatin1String("(null)"))
        s.nodes.clear();
    s.source = QStringLiteral("scontrol");
    return s;
}

Result<SlurmJobStatus> queryJob(Transport& t, const QString& jobId, const QStringList& pathPrefix)
{
    QString problems;
    std::optional<SlurmJobStatus> status;
    const Result<ExecResult> q = runOn(t, pathPrefix, squeueCommand(jobId));
    if (!q)
        return Result<SlurmJobStatus>::failure(q.diagnostics());
    if (q->exitCode == 0)
        status = parseSqueue(q->out);
    else if (!saysUnknownJob(q.value()))
        problems += QStringLiteral("squeue: ") + firstLine(q->err) + QLatin1Char(' ');
    if (status && !isFinalState(status->state)) {
        status->jobId = jobId;
        return *status;
    }

    // Ended (or gone from the queue): sacct has the final record where the cluster keeps accounting.
    const Result<ExecResult> a = runOn(
        t, pathPrefix,
        QStringLiteral("sacct -X -P -n -j %1 --format=JobID,State,ExitCode,Reason,NodeList").arg(shellQuote(jobId)));
    if (a && a->exitCode == 0) {
        if (const std::optional<SlurmJobStatus> s = parseSacct(a->out, jobId))
            status = s;
    } else if (a) {
        problems += QStringLiteral("sacct: ") + firstLine(a->err) + QLatin1Char(' ');
    }
    if (!status || status->exitCode.isEmpty()) {
        // No accounting: slurmctld keeps an ended job for MinJobAge seconds.
        const Result<ExecResult> c =
            runOn(t, pathPrefix, QStringLiteral("scontrol -o show job %1").arg(shellQuote(jobId)));
        if (c && c->exitCode == 0) {
            if (const std::optional<SlurmJobStatus> s = parseScontrolJob(c->out))
                status = s;
        } else if (c && !saysUnknownJob(c.value())) {
            problems += QStringLiteral("scontrol: ") + firstLine(c->err) + QLatin1Char(' ');
        } else if (!c) {
            return Result<SlurmJobStatus>::failure(c.diagnostics());
        }
    }
    if (!status) {
        // squeue answered "no such job": Slurm does not know it. Otherwise nothing could be asked.
        if (q->exitCode == 0 || saysUnknownJob(q.value())) {
            SlurmJobStatus unknown;
            unknown.jobId = jobId;
            return unknown;
        }
        return Result<SlurmJobStatus>::failure(Diagnostic::error(
            jobId, Tr::tr("cannot ask Slurm on %1 about job %2: %3").arg(t.displayName(), jobId, problems.trimmed())));
    }
    status->jobId = jobId;
    if (status->state == QLatin1String("NODE_FAIL") && !status->nodes.isEmpty()) {
        const Result<ExecResult> n =
            runOn(t, pathPrefix,
                  QStringLiteral("sinfo -h -N -n %1 -t down,drain,fail,no_respond -o '%N|%T|%E'")
                      .arg(shellQuote(status->nodes)));
        if (n && n->exitCode == 0) {
            QStringList down;
            for (const QByteArray& line : nonEmptyLines(n->out)) {
                const QStringList f = QString::fromUtf8(line).split(QLatin1Char('|'));
                if (f.size() < 3)
                    continue;
                const QString entry = cleanReason(f.at(2)).isEmpty()
                                          ? QStringLiteral("%1 (%2)").arg(f.at(0), f.at(1))
                                          : QStringLiteral("%1 (%2: %3)").arg(f.at(0), f.at(1), f.at(2));
                if (!down.contains(entry))
                    down << entry;
            }
            status->failedNodes = down.join(QStringLiteral(", "));
        }
    }
    return *status;
}

Result<QString> preflight(Transport& t, const cluster::ClusterProfile& profile)
{
    if (!profile.slurm)
        return Result<QString>::failure(
            Diagnostic::error(profile.name, Tr::tr("the profile has no \"slurm\" section")));
    const cluster::SlurmSettings& s = *profile.slurm;
    const QString where = t.displayName();
    const Result<ExecResult> tools =
        runOn(t, profile.pathPrefix,
              QStringLiteral("for c in sbatch squeue scancel sinfo; do p=$(command -v $c) && [ -x \"$p\" ] || "
                             "echo \"TD_MISSING $c\"; done; true"));
    if (!tools)
        return Result<QString>::failure(tools.diagnostics());
    QStringList missing;
    for (const QByteArray& line : nonEmptyLines(tools->out)) {
        if (line.startsWith("TD_MISSING "))
            missing << QString::fromUtf8(line.mid(11));
    }
    if (!missing.isEmpty())
        return Result<QString>::failure(Diagnostic::error(
            profile.name, Tr::tr("%1 not found on the login node %2: install Slurm's client commands there (Debian: "
                                 "slurm-client) or add their directory to \"path_prefix\"")
                              .arg(missing.join(QStringLiteral(", ")), where)));

    const Result<ExecResult> part = runOn(t, profile.pathPrefix, QStringLiteral("sinfo -h -o '%P|%a|%D|%G'"));
    if (!part)
        return Result<QString>::failure(part.diagnostics());
    if (part->exitCode != 0)
        return Result<QString>::failure(Diagnostic::error(
            profile.name,
            Tr::tr("sinfo failed on %1 (is slurmctld reachable?): %2").arg(where, firstLine(part->err + part->out))));
    QStringList partitions;
    bool found = false;
    for (const QByteArray& line : nonEmptyLines(part->out)) {
        QString name = QString::fromUtf8(line).section(QLatin1Char('|'), 0, 0);
        if (name.endsWith(QLatin1Char('*')))
            name.chop(1);
        if (!partitions.contains(name))
            partitions << name;
        found = found || name == s.partition;
    }
    if (!found)
        return Result<QString>::failure(
            Diagnostic::keyError(profile.name, QStringLiteral("slurm.partition"),
                                 Tr::tr("no partition '%1' on this cluster; sinfo on %2 lists: %3")
                                     .arg(s.partition, where, partitions.join(QStringLiteral(", ")))));

    if (!s.account.isEmpty()) {
        const Result<ExecResult> acct =
            runOn(t, profile.pathPrefix,
                  QStringLiteral("sacctmgr -n -P show account %1 format=Account").arg(shellQuote(s.account)));
        if (!acct)
            return Result<QString>::failure(acct.diagnostics());
        const QString answer = QString::fromUtf8(acct->out + acct->err).trimmed();
        if (acct->exitCode != 0)
            return Result<QString>::failure(Diagnostic::keyError(
                profile.name, QStringLiteral("slurm.account"),
                Tr::tr("account '%1' cannot be checked: sacctmgr on %2 says \"%3\" (a cluster without an "
                       "accounting database has no accounts; leave \"account\" empty there)")
                    .arg(s.account, where, firstLine(acct->err + acct->out))));
        bool known = false;
        for (const QByteArray& line : nonEmptyLines(acct->out))
            known = known || QString::fromUtf8(line).trimmed().compare(s.account, Qt::CaseInsensitive) == 0;
        if (!known)
            return Result<QString>::failure(Diagnostic::keyError(
                profile.name, QStringLiteral("slurm.account"),
                Tr::tr("unknown account '%1' (sacctmgr show account on %2 does not list it)").arg(s.account, where)));
    }

    if (s.ranksVia != QLatin1String("auto"))
        return s.ranksVia;
    const Result<ExecResult> mpi = runOn(t, profile.pathPrefix, QStringLiteral("srun --mpi=list 2>&1"));
    if (mpi && mpi->exitCode == 0) {
        for (const QByteArray& line : nonEmptyLines(mpi->out)) {
            const QString word = QString::fromUtf8(line).trimmed();
            if (word == QLatin1String("pmix") || word.startsWith(QLatin1String("pmix_v")) ||
                word.contains(QLatin1String("mpi/pmix")))
                return QStringLiteral("srun");
        }
    }
    return QStringLiteral("mpirun");
}

QString ownJobsByNameCommand(const QString& name, const QString& format)
{
    return QStringLiteral("squeue --me -h -t all -n %1 -o %2").arg(shellQuote(name), shellQuote(format));
}

Result<std::optional<QString>> findOwnJobByName(Transport& t, const QString& name, const QStringList& pathPrefix)
{
    using R = Result<std::optional<QString>>;
    const Result<ExecResult> q = runOn(t, pathPrefix, ownJobsByNameCommand(name));
    if (!q)
        return R::failure(q.diagnostics());
    if (q->exitCode != 0)
        return R::failure(Diagnostic::error(
            name, Tr::tr("squeue on %1 failed: %2").arg(t.displayName(), firstLine(q->err + q->out))));
    const QList<QByteArray> lines = nonEmptyLines(q->out);
    if (lines.isEmpty())
        return std::optional<QString>();
    if (lines.size() > 1)
        return R::failure(
            Diagnostic::error(name, Tr::tr("%1 of your jobs on %2 are named %3 (%4)")
                                        .arg(lines.size())
                                        .arg(t.displayName(), name, QString::fromUtf8(q->out).simplified())));
    const std::optional<QString> id = parseSbatchJobId(lines.first());
    if (!id)
        return R::failure(Diagnostic::error(
            name, Tr::tr("squeue on %1 answered no job id: %2").arg(t.displayName(), firstLine(q->out))));
    return id;
}

Result<QString> submit(Transport& t, const QString& runDir, const QString& runId, const QStringList& pathPrefix)
{
    const Result<ExecResult> r = runOn(t, pathPrefix,
                                       QStringLiteral("cd %1 && sbatch --parsable %2")
                                           .arg(shellQuote(runDir), shellQuote(QLatin1String(runfile::kBatchScript))),
                                       60000);
    if (r && r->exitCode == 0) {
        if (const std::optional<QString> id = parseSbatchJobId(r->out))
            return *id;
    }
    // What sbatch said, for the message: its answer, or why there was none.
    const QString answer =
        r ? (r->exitCode == 0 ? Tr::tr("gave no job id: %1").arg(firstLine(r->out))
                              : Tr::tr("refused the job: %1").arg(QString::fromUtf8(r->err + r->out).trimmed()))
          : r.errorString();
    // sbatch may have submitted before it failed, timed out or lost its connection: the job carries the
    // run id as its name, and only this user's jobs count.
    const Result<std::optional<QString>> found = findOwnJobByName(t, runId, pathPrefix);
    if (found && found->has_value())
        return Result<QString>(
            *found.value(),
            {Diagnostic::warning(runDir, Tr::tr("sbatch on %1 %2; Slurm has this run's job %3 all the same "
                                                "(found by its name), which is followed")
                                             .arg(t.displayName(), answer, *found.value()))});
    if (found)
        return Result<QString>::failure(
            Diagnostic::error(runDir, Tr::tr("sbatch on %1 %2").arg(t.displayName(), answer)));
    Diagnostics d = r ? Diagnostics{} : r.diagnostics();
    d << found.diagnostics();
    d << Diagnostic::error(runDir, Tr::tr("sbatch on %1 %2; whether job %3 was submitted is not known; check with "
                                          "squeue --me -n %3 on %1")
                                       .arg(t.displayName(), answer, runId));
    return Result<QString>::failure(d);
}

Status cancel(Transport& t, const QString& jobId, const QStringList& pathPrefix)
{
    const Result<ExecResult> r = runOn(t, pathPrefix, scancelCommand(jobId));
    if (!r)
        return Status::failure(r.diagnostics());
    if (r->exitCode != 0 && !saysUnknownJob(r.value()))
        return Status::failure(Diagnostic::error(
            jobId, Tr::tr("scancel %1 on %2 failed: %3").arg(jobId, t.displayName(), firstLine(r->err + r->out))));
    return Status(Done{});
}

} // namespace slurm

} // namespace traindeck::launch
