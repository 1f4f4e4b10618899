#include "launch/launcher.h"

#include "launch/slurm.h"
#include "launch/transport.h"

#include <QDateTime>
#include <QDeadlineTimer>
#include <QDir>
#include <QFileInfo>
#include <QHash>
#include <QJsonDocument>
#include <QSet>
#include <QStandardPaths>
#include <QThread>

#include <csignal>
#include <optional>

using traindeck::cluster::ClusterProfile;

namespace traindeck::launch {

namespace {
Diagnostic err(const QString& what, const QString& message)
{
    return Diagnostic::error(what, message);
}

// An executable by name or path on the transport's machine.
Result<QString> findExecutable(Transport& t, const QString& nameOrPath, const QStringList& pathPrefix,
                               const QString& what)
{
    if (t.isLocal()) {
        if (nameOrPath.contains(QLatin1Char('/'))) {
            const QFileInfo fi(nameOrPath);
            if (fi.isFile() && fi.isExecutable())
                return fi.absoluteFilePath();
            return Result<QString>::failure(err(nameOrPath, Launcher::tr("%1 not found or not executable").arg(what)));
        }
        QStringList dirs;
        for (const QString& d : pathPrefix)
            dirs << expandTilde(d);
        QString found = QStandardPaths::findExecutable(nameOrPath, dirs);
        if (found.isEmpty())
            found = QStandardPaths::findExecutable(nameOrPath);
        if (!found.isEmpty())
            return found;
        return Result<QString>::failure(err(nameOrPath, Launcher::tr("%1 not found in PATH").arg(what)));
    }
    QString cmd;
    if (!pathPrefix.isEmpty())
        cmd = shellPathPrefix(pathPrefix) + QStringLiteral("; ");
    cmd += nameOrPath.contains(QLatin1Char('/')) ? QStringLiteral("test -x %1 && echo %1").arg(shellQuote(nameOrPath))
                                                 : QStringLiteral("command -v %1").arg(shellQuote(nameOrPath));
    const Result<ExecResult> r = t.run(QStringLiteral("sh -c %1").arg(shellQuote(cmd)), 20000);
    if (r && r->exitCode == 0 && !r->out.trimmed().isEmpty())
        return QString::fromUtf8(r->out.trimmed());
    return Result<QString>::failure(err(nameOrPath, Launcher::tr("%1 not found on %2").arg(what, t.displayName())));
}

// Whether the wrapper wrote its pid within waitMs: after a failed start command (the connection may
// have dropped after the wrapper had started) this tells "running" from "not started". nullopt with
// *unknown set: the run directory could not be read at all.
std::optional<PidRecord> waitForPid(Transport& t, const QString& runDir, int waitMs, bool* unknown)
{
    const QDeadlineTimer deadline(waitMs);
    for (;;) {
        const Result<FileChunk> c = t.readFile(runFile(runDir, runfile::kPid), 0, 256);
        if (c) {
            if (const std::optional<PidRecord> rec = PidRecord::parse(c->data))
                return rec;
        }
        if (deadline.hasExpired()) {
            *unknown = !c && !t.exists(runDir);
            return std::nullopt;
        }
        QThread::msleep(250);
    }
}

// Signals the run's process group only while its pid is still the run's (pidOwner): never a process
// that got the number after a reboot or a reuse.
SignalResult signalRun(Transport& t, const QString& runDir, int signal)
{
    const Result<FileChunk> c = t.readFile(runFile(runDir, runfile::kPid), 0, 256);
    if (!c)
        return SignalResult::Failed;
    const std::optional<PidRecord> rec = PidRecord::parse(c->data);
    if (!rec)
        return SignalResult::NoSuchProcess;
    const std::optional<RunInfo> info = readRunInfo(t, runDir);
    switch (pidOwner(t, *rec, info ? info->started : QDateTime())) {
    case PidOwner::NotOurs: return SignalResult::NoSuchProcess;
    case PidOwner::Unknown: return SignalResult::Failed;
    case PidOwner::Ours: break;
    }
    return t.signalProcessGroup(rec->pid, signal);
}

// How the ranks start: through Slurm (its checks on the login node first) with mpirun or srun, or
// with mpirun over SSH.
struct RankStarter {
    QString slurmRanksVia; // empty: not a Slurm profile
    QString mpirunPath;    // empty: srun starts the ranks
};
Result<RankStarter> findRankStarter(Transport& t, const ClusterProfile& profile)
{
    RankStarter r;
    if (profile.slurm) {
        const Result<QString> checked = slurm::preflight(t, profile);
        if (!checked)
            return Result<RankStarter>::failure(checked.diagnostics());
        r.slurmRanksVia = checked.value();
    }
    if (r.slurmRanksVia != QLatin1String("srun")) {
        const Result<QString> mpirun = Launcher::findMpirun(t, profile);
        if (!mpirun)
            return Result<RankStarter>::failure(mpirun.diagnostics());
        r.mpirunPath = mpirun.value();
    }
    return r;
}

// Errors of starting a run that carry no code of their own get kStartFailedCode (an SSH error keeps its
// ssh.* code): they are the head's or the link's, not the input's.
Diagnostics startFailure(Diagnostics d)
{
    for (Diagnostic& x : d) {
        if (x.isError() && x.code.isEmpty())
            x.code = QString::fromLatin1(kStartFailedCode);
    }
    return d;
}

// *startedNothing (when given) tells a failure that happened before anything was submitted or started
// (a plan, a write, the caller's check) from one after, when a job or wrapper may be running.
Result<LaunchOutcome> start(Transport& t, const LaunchInputs& in, const RunInfo& info, bool writeSpec,
                            const ClusterProfile& profile, const Launcher::BeforeStart& beforeStart = {},
                            bool* startedNothing = nullptr)
{
    if (startedNothing)
        *startedNothing = true;
    const Result<LaunchPlan> plan = buildLaunchPlan(in);
    if (!plan)
        return Result<LaunchOutcome>::failure(plan.diagnostics());
    RunInfo ri = info;
    ri.command = plan->commandLine();
    // The owner's only (docs/users/security.md, "Run directories"): the spec and the wrapper hold the
    // environment, the profile names hosts and users.
    auto write = [&](const char* name, const QByteArray& data, int mode = 0600) {
        return t.writeFile(runFile(in.runDir, name), data, mode);
    };
    QList<Status> writes;
    if (writeSpec) {
        writes << write(runfile::kSpec, in.spec.toJson());
        writes << write("profile.json", profile.toJson());
    }
    const bool viaSlurm = !plan->slurmRanksVia.isEmpty();
    if (viaSlurm) {
        writes << write(runfile::kBatchScript, plan->batchScript().toUtf8(), 0700);
    } else {
        writes << write(runfile::kHostfile, plan->hostfileText.toUtf8());
        writes << write(runfile::kWrapper, plan->wrapperScript().toUtf8(), 0700);
    }
    writes << write(runfile::kRunInfo, QJsonDocument(ri.toJson()).toJson(QJsonDocument::Indented));
    for (const Status& s : writes) {
        if (!s)
            return Result<LaunchOutcome>::failure(startFailure(s.diagnostics()));
    }
    const LaunchOutcome outcome{in.runId, in.runDir, plan.value()};
    if (beforeStart) {
        if (const Status ready = beforeStart(outcome); !ready)
            return Result<LaunchOutcome>::failure(startFailure(ready.diagnostics()));
    }
    if (startedNothing)
        *startedNothing = false;
    if (viaSlurm) {
        const Result<QString> job = slurm::submit(t, in.runDir, in.runId, profile.pathPrefix);
        if (!job)
            return Result<LaunchOutcome>::failure(startFailure(job.diagnostics()));
        const SlurmJob record{job.value(), plan->slurmRanksVia, profile.pathPrefix};
        if (const Status s = write(runfile::kSlurmJob, record.toText()); !s) {
            // Not followable without its job id: take the job back rather than leave it unwatched, and
            // say which job it was and whether that worked.
            Diagnostics d = s.diagnostics();
            const Status cancelled = slurm::cancel(t, job.value(), profile.pathPrefix);
            if (cancelled)
                d << Diagnostic::error(in.runDir,
                                       Launcher::tr("Slurm job %1 was submitted but its record could not be written, "
                                                    "so it was cancelled (scancel %1)")
                                           .arg(job.value()));
            else
                d << cancelled.diagnostics()
                  << Diagnostic::error(in.runDir, Launcher::tr("Slurm job %1 was submitted but its record could not "
                                                               "be written, and scancel %1 failed: it may still run; "
                                                               "cancel it on %2 with scancel %1")
                                                      .arg(job.value(), t.displayName()));
            return Result<LaunchOutcome>::failure(startFailure(d));
        }
        return Result<LaunchOutcome>(outcome, plan->warnings + job.diagnostics());
    }
    const Status started = t.startDetached(runFile(in.runDir, runfile::kWrapper));
    if (!started) {
        // The start command failed, but the wrapper may be running (a connection that dropped after it
        // started): a pid in the run directory says so, and then this is no failure.
        bool unknown = false;
        if (const std::optional<PidRecord> pid = waitForPid(t, in.runDir, 5000, &unknown)) {
            Diagnostics warnings = plan->warnings;
            warnings << Diagnostic::warning(
                in.runDir, Launcher::tr("the start command reported an error (%1), but run %2 is running (pid %3)")
                               .arg(started.errorString(), in.runId)
                               .arg(pid->pid));
            return Result<LaunchOutcome>(outcome, warnings);
        }
        Diagnostics d = started.diagnostics();
        d << Diagnostic::error(
            in.runDir,
            unknown ? Launcher::tr("whether run %1 started is not known (its run directory cannot be read); check "
                                   "with traindeck-cli runs --refresh before launching it again")
                          .arg(in.runId)
                    : Launcher::tr("run %1 did not start (no pid after 5 s)").arg(in.runId));
        return Result<LaunchOutcome>::failure(startFailure(d));
    }
    return Result<LaunchOutcome>(outcome, plan->warnings);
}
} // namespace

Result<QString> Launcher::findTrainer(Transport& t, const ClusterProfile& profile)
{
    const QString name = QStringLiteral("traindeck-trainer");
    const QJsonValue fromProfile = profile.extra.value(QStringLiteral("trainer"));
    if (fromProfile.isString() && !fromProfile.toString().isEmpty()) {
        const Result<QString> r = findExecutable(t, fromProfile.toString(), profile.pathPrefix, name);
        if (!r)
            return Result<QString>::failure(
                Diagnostic::keyError(profile.name, QStringLiteral("trainer"),
                                     tr("%1: traindeck-trainer not found or not executable on %2")
                                         .arg(fromProfile.toString(), t.displayName())));
        return r;
    }
    const QString env = qEnvironmentVariable("TRAINDECK_TRAINER");
    if (!env.isEmpty())
        return findExecutable(t, env, {}, QStringLiteral("$TRAINDECK_TRAINER (%1)").arg(name));
    if (t.isLocal()) {
        const QString app = QCoreApplication::applicationDirPath();
        for (const QString& candidate :
             {app + QLatin1Char('/') + name, app + QStringLiteral("/../../trainer/") + name}) {
            const QFileInfo fi(candidate);
            if (fi.isFile() && fi.isExecutable())
                return QDir::cleanPath(fi.absoluteFilePath());
        }
    }
    const Result<QString> r = findExecutable(t, name, profile.pathPrefix, name);
    if (!r)
        return Result<QString>::failure(err(
            name, tr("not found: set \"trainer\" in the cluster profile, put it beside traindeck-cli or in PATH on %1")
                      .arg(t.displayName())));
    return r;
}

Result<QString> Launcher::findMpirun(Transport& t, const ClusterProfile& profile)
{
    const QString launcher = profile.launcher.isEmpty() ? QStringLiteral("mpirun") : profile.launcher;
    const Result<QString> r = findExecutable(t, launcher, profile.pathPrefix, launcher);
    if (!r)
        return Result<QString>::failure(err(
            launcher, tr("not found on %1: install Open MPI (Debian: openmpi-bin) or set \"launcher\" in the profile")
                          .arg(t.displayName())));
    return r;
}

QStringList Launcher::filesReadByRanks(const JobSpec& spec)
{
    QStringList files;
    for (const char* key : {"data", "tokenizer", "model", "config"}) {
        const QJsonValue v = spec.trainer.value(QLatin1String(key));
        if (v.isString() && !v.toString().isEmpty())
            files << v.toString();
    }
    return files;
}

Status Launcher::preflightWorkers(Transport& t, const ClusterProfile& profile, const QString& trainerPath,
                                  const QStringList& requiredFiles)
{
    if (profile.isLocal || profile.nodes.size() < 2)
        return Status(Done{});
    const int head = profile.headIndex();
    QString prefix;
    if (!profile.pathPrefix.isEmpty())
        prefix = shellPathPrefix(profile.pathPrefix) + QStringLiteral("; ");
    const QString findTrainer =
        trainerPath.contains(QLatin1Char('/'))
            ? QStringLiteral("T=%1; [ -x \"$T\" ] || { echo TD_NO_TRAINER; exit 0; }; ").arg(shellQuote(trainerPath))
            : QStringLiteral("T=$(%1command -v %2) && [ -x \"$T\" ] || { echo TD_NO_TRAINER; exit 0; }; ")
                  .arg(prefix, shellQuote(trainerPath));
    // What runs on the worker: orted with the login's own PATH (mpirun adds no prefix), the trainer.
    // (bash's command -v also names a file it cannot execute, hence the -x.)
    QString onWorker = QStringLiteral("d=$(command -v orted || command -v prted) && [ -x \"$d\" ] || "
                                      "{ echo TD_NO_MPI; exit 0; }; ") +
                       findTrainer;
    for (const QString& file : requiredFiles)
        onWorker += QStringLiteral("[ -e %1 ] || { echo TD_NO_FILE %1; exit 0; }; ").arg(shellQuote(file));
    onWorker += QStringLiteral("echo \"TD_OK $(\"$T\" --version 2>&1 | head -n1)\"");
    QString script =
        QStringLiteral("T=%1; echo \"TD_HEAD $(\"$T\" --version 2>&1 | head -n1)\"; ").arg(shellQuote(trainerPath));
    QHash<QString, QString> nameOfHost;
    for (int i = 0; i < profile.nodes.size(); ++i) {
        if (i == head)
            continue;
        const cluster::ClusterNode& n = profile.nodes.at(i);
        nameOfHost.insert(n.host, n.name);
        QString ssh = QStringLiteral("ssh -o BatchMode=yes -o ConnectTimeout=10");
        if (n.port > 0 && n.port != 22)
            ssh += QStringLiteral(" -p %1").arg(n.port);
        if (!n.user.isEmpty())
            ssh += QStringLiteral(" -l ") + shellQuote(n.user);
        script +=
            QStringLiteral(
                "( r=$(%1 %2 %3 </dev/null 2>&1); c=$?; echo \"TD_NODE %4 $c $(printf '%s' \"$r\" | tail -n1)\" ) & ")
                .arg(ssh, shellQuote(n.host), shellQuote(onWorker), n.host);
    }
    script += QStringLiteral("wait");
    // Every worker at once, each loading the trainer for --version: on a cluster that is one node's time, but
    // where the nodes share CPUs (the testbed's 64 nodes on 2 cores) it grows with their number.
    const int workers = int(profile.nodes.size()) - 1;
    const int timeoutMs = 60000 + 1000 * workers;
    const Result<ExecResult> r = t.run(QStringLiteral("sh -c %1").arg(shellQuote(script)), timeoutMs);
    if (!r)
        return Status::failure(r.diagnostics());
    QString headVersion;
    Diagnostics problems;
    int answered = 0;
    QSet<QString> silent(nameOfHost.keyBegin(), nameOfHost.keyEnd());
    for (const QByteArray& raw : r->out.split('\n')) {
        const QString line = QString::fromUtf8(raw).trimmed();
        if (line.startsWith(QLatin1String("TD_HEAD ")))
            headVersion = line.mid(8).trimmed();
    }
    for (const QByteArray& raw : r->out.split('\n')) {
        const QString line = QString::fromUtf8(raw).trimmed();
        if (!line.startsWith(QLatin1String("TD_NODE ")))
            continue;
        ++answered;
        const QString host = line.section(QLatin1Char(' '), 1, 1);
        silent.remove(host);
        const int code = line.section(QLatin1Char(' '), 2, 2).toInt();
        const QString rest = line.section(QLatin1Char(' '), 3).trimmed();
        const QString node = nameOfHost.value(host, host);
        const QString headName = profile.nodes.value(head).name;
        if (code != 0) {
            problems.append(
                err(node, tr("the head %1 cannot log in to %2 with `ssh -o BatchMode=yes %3` as mpirun will (%4); "
                             "set up head → worker trust: traindeck-cli install-key --head-to-workers --profile FILE")
                              .arg(headName, node, host, rest)));
        } else if (rest == QLatin1String("TD_NO_MPI")) {
            problems.append(
                err(node, tr("Open MPI's daemon (orted) is not on the PATH of a non-interactive SSH login on %1; "
                             "install Open MPI there (Debian: openmpi-bin), the same version as on the head")
                              .arg(node)));
        } else if (rest == QLatin1String("TD_NO_TRAINER")) {
            problems.append(err(node, tr("%1 is not on %2: copy it with traindeck-cli deploy --profile FILE --node %2")
                                          .arg(trainerPath, node)));
        } else if (rest.startsWith(QLatin1String("TD_NO_FILE "))) {
            problems.append(
                err(node, tr("%1 does not exist on %2, and every rank reads it: put it on a shared file system "
                             "or copy it to the same path on every node")
                              .arg(rest.mid(11), node)));
        } else if (rest.startsWith(QLatin1String("TD_OK"))) {
            const QString version = rest.mid(5).trimmed();
            if (!headVersion.isEmpty() && version != headVersion)
                problems.append(
                    err(node, tr("%1 reports \"%2\" but the head's reports \"%3\": every node must run the same "
                                 "build; copy the head's with traindeck-cli deploy --profile FILE --node %1")
                                  .arg(node, version, headVersion)));
        } else {
            problems.append(err(node, tr("unexpected answer from %1: %2").arg(node, rest)));
        }
    }
    // Workers are told apart by host name; two on one host (other ports) answer under one name.
    const int missing = qMax(int(silent.size()), workers - answered);
    if (missing > 0 && problems.isEmpty()) {
        QStringList names;
        for (const QString& host : std::as_const(silent))
            names.append(nameOfHost.value(host, host));
        names.sort();
        if (names.size() > 8) { // the first eight, then how many more
            const qsizetype more = names.size() - 8;
            names = names.mid(0, 8);
            names.append(tr("%n more", nullptr, int(more)));
        }
        const QString why = r->timedOut ? tr("the check timed out after %1 s").arg(timeoutMs / 1000)
                                        : QString::fromUtf8(r->err).trimmed();
        problems.append(
            err(profile.name, tr("the worker check on the head did not answer for %n worker(s) of %1 "
                                 "(%2): %3",
                                 nullptr, missing)
                                  .arg(QString::number(workers),
                                       names.isEmpty() ? QStringLiteral("?") : names.join(QStringLiteral(", ")), why)));
    }
    if (!problems.isEmpty())
        return Status::failure(problems);
    return Status(Done{});
}

Result<LaunchOutcome> Launcher::launch(Transport& t, const JobSpec& spec, const ClusterProfile& profile,
                                       const QString& runsDir, const BeforeStart& beforeStart)
{
    const Diagnostics specErrors = spec.validate(QStringLiteral("spec"));
    if (hasErrors(specErrors))
        return Result<LaunchOutcome>::failure(specErrors);
    const Result<QString> trainer = findTrainer(t, profile);
    if (!trainer)
        return Result<LaunchOutcome>::failure(trainer.diagnostics());
    const Result<RankStarter> starter = findRankStarter(t, profile);
    if (!starter)
        return Result<LaunchOutcome>::failure(starter.diagnostics());
    const QString ranksVia = starter->slurmRanksVia;
    const QString mpirunPath = starter->mpirunPath;
    if (const Status workers = preflightWorkers(t, profile, trainer.value(), filesReadByRanks(spec)); !workers)
        return Result<LaunchOutcome>::failure(workers.diagnostics());
    if (runsDir.isEmpty() || !QDir::isAbsolutePath(runsDir))
        return Result<LaunchOutcome>::failure(err(runsDir, tr("the runs directory must be an absolute path")));

    // The run directory is claimed with an exclusive mkdir (0700): two launches in the same second
    // (or on two machines sharing the head) never share one; the second takes the next suffix.
    const QDateTime now = QDateTime::currentDateTime();
    QSet<QString> taken;
    QString runId;
    for (int tries = 0; runId.isEmpty(); ++tries) {
        const QString id = makeRunId(spec.name, now, [&](const QString& x) { return taken.contains(x); });
        const Result<bool> claimed = t.createDirectory(QDir::cleanPath(runsDir + QLatin1Char('/') + id), 0700);
        if (!claimed)
            return Result<LaunchOutcome>::failure(claimed.diagnostics());
        if (claimed.value())
            runId = id;
        else if (tries > 1000)
            return Result<LaunchOutcome>::failure(err(runsDir, tr("no free run id for %1").arg(id)));
        taken.insert(id);
    }
    LaunchInputs in;
    in.spec = spec;
    in.profile = profile;
    in.runId = runId;
    in.runDir = QDir::cleanPath(runsDir + QLatin1Char('/') + runId);
    in.trainerPath = trainer.value();
    in.mpirunPath = mpirunPath;
    in.slurmRanksVia = ranksVia;
    in.asRoot = t.runsAsRoot();
    RunInfo info;
    info.runId = runId;
    info.name = spec.name;
    info.created = now.toUTC();
    info.started = info.created;
    info.profile = profile.name.isEmpty() ? spec.profile : profile.name;
    info.host = t.displayName();
    info.trainer = trainer.value();
    return start(t, in, info, true, profile, beforeStart);
}

Result<LaunchOutcome> Launcher::resume(Transport& t, const QString& runDir)
{
    const std::optional<RunInfo> info = readRunInfo(t, runDir);
    if (!info)
        return Result<LaunchOutcome>::failure(
            err(runFile(runDir, runfile::kRunInfo), tr("cannot read the run record")));
    const RunFiles files = readRunFiles(t, runDir);
    if (files.slurmRecordUnreadable)
        return Result<LaunchOutcome>::failure(
            err(runFile(runDir, runfile::kSlurmJob),
                tr("cannot read the run's Slurm job record: whether its job still runs is unknown; nothing was "
                   "submitted, try again")));
    const JobState state = deriveState(files, true);
    if (!isFinal(state))
        return Result<LaunchOutcome>::failure(
            err(runDir, tr("the run is still %1; cancel it first or wait for it to end").arg(jobStateName(state))));
    if (state == JobState::Finished)
        return Result<LaunchOutcome>::failure(err(runDir, tr("the run finished; there is nothing to resume")));
    const QString latest = runFile(runDir, runfile::kOut) + QStringLiteral("/checkpoints/latest");
    if (!t.exists(latest))
        return Result<LaunchOutcome>::failure(err(
            latest,
            tr("no checkpoint to resume from (set trainer.checkpoint-every in the spec); launch it again instead")));

    const Result<FileChunk> specBytes = t.readFile(runFile(runDir, runfile::kSpec), 0, 1 << 20);
    if (!specBytes)
        return Result<LaunchOutcome>::failure(specBytes.diagnostics());
    const Result<JobSpec> spec = JobSpec::fromJson(specBytes->data, runFile(runDir, runfile::kSpec));
    if (!spec)
        return Result<LaunchOutcome>::failure(spec.diagnostics());
    const Result<FileChunk> profileBytes = t.readFile(runDir + QStringLiteral("/profile.json"), 0, 1 << 20);
    if (!profileBytes)
        return Result<LaunchOutcome>::failure(profileBytes.diagnostics());
    const Result<ClusterProfile> profile =
        ClusterProfile::fromJson(profileBytes->data, runDir + QStringLiteral("/profile.json"));
    if (!profile)
        return Result<LaunchOutcome>::failure(profile.diagnostics());
    ClusterProfile prof = profile.value();
    if (prof.name == QLatin1String("local") || prof.extra.value(QStringLiteral("local")).toBool())
        prof.isLocal = true;

    const Result<QString> trainer = findTrainer(t, prof);
    if (!trainer)
        return Result<LaunchOutcome>::failure(trainer.diagnostics());
    const Result<RankStarter> starter = findRankStarter(t, prof);
    if (!starter)
        return Result<LaunchOutcome>::failure(starter.diagnostics());
    const QString ranksVia = starter->slurmRanksVia;
    const QString mpirunPath = starter->mpirunPath;
    if (const Status workers = preflightWorkers(t, prof, trainer.value(), filesReadByRanks(spec.value())); !workers)
        return Result<LaunchOutcome>::failure(workers.diagnostics());

    // Claim the attempt: an exclusive mkdir of attempt-N, so that of two resumes of the same run (GUI
    // and CLI, two CLIs) exactly one goes on; then keep the previous attempt's records there.
    const int attempt = info->attempts;
    const QString keep = runDir + QStringLiteral("/attempt-%1").arg(attempt);
    const Result<bool> claimed = t.createDirectory(keep, 0700);
    if (!claimed)
        return Result<LaunchOutcome>::failure(claimed.diagnostics());
    if (!claimed.value())
        return Result<LaunchOutcome>::failure(
            err(runDir, tr("another resume of this run is under way or has already started attempt %1 (%2 exists); "
                           "follow it with traindeck-cli watch")
                            .arg(attempt + 1)
                            .arg(keep)));
    QStringList moves, back;
    for (const char* name : {runfile::kPid, runfile::kExitCode, runfile::kCancel, runfile::kStdout, runfile::kStderr,
                             "signals", runfile::kSlurmJob}) {
        moves << QStringLiteral("if [ -e %1 ]; then mv -f %1 %2/; fi")
                     .arg(shellQuote(runFile(runDir, name)), shellQuote(keep));
        back << QStringLiteral("if [ -e %1 ]; then mv -f %1 %2/; fi")
                    .arg(shellQuote(runFile(keep, name)), shellQuote(runDir));
    }
    const Result<ExecResult> mv = t.run(moves.join(QStringLiteral(" && ")), 20000);
    if (!mv || mv->exitCode != 0) {
        // Give the claim back so that the run stays resumable.
        t.run(back.join(QStringLiteral("; ")) + QStringLiteral("; rmdir %1").arg(shellQuote(keep)), 20000);
        return Result<LaunchOutcome>::failure(
            err(keep, tr("cannot move the previous attempt's files: %1")
                          .arg(mv ? QString::fromLocal8Bit(mv->err).trimmed() : mv.errorString())));
    }

    LaunchInputs in;
    in.spec = spec.value();
    // An injected failure is a one-shot test aid: repeating it would fail the resumed run the same way.
    in.spec.trainer.remove(QStringLiteral("inject-exit"));
    in.profile = prof;
    in.runId = info->runId.isEmpty() ? QFileInfo(runDir).fileName() : info->runId;
    in.runDir = runDir;
    in.trainerPath = trainer.value();
    in.mpirunPath = mpirunPath;
    in.slurmRanksVia = ranksVia;
    in.asRoot = t.runsAsRoot();
    in.resume = true;
    RunInfo ri = *info;
    ri.attempts = attempt + 1;
    ri.started = QDateTime::currentDateTimeUtc();
    ri.trainer = trainer.value();
    const Result<FileChunk> runInfoBefore = t.readFile(runFile(runDir, runfile::kRunInfo), 0, 1 << 20);
    bool startedNothing = false;
    Result<LaunchOutcome> started = start(t, in, ri, false, prof, {}, &startedNothing);
    if (started || !startedNothing)
        return started;
    // Nothing runs: put the run back as it was (its record, the previous attempt's files, the claim), so
    // that the next resume claims the same attempt instead of finding it taken.
    Diagnostics d = started.diagnostics();
    const Status record = runInfoBefore ? t.writeFile(runFile(runDir, runfile::kRunInfo), runInfoBefore->data, 0600)
                                        : Status::failure(runInfoBefore.diagnostics());
    const Result<ExecResult> moved =
        t.run(back.join(QStringLiteral(" && ")) + QStringLiteral(" && rmdir %1").arg(shellQuote(keep)), 20000);
    if (record && moved && moved->exitCode == 0)
        d << Diagnostic::error(runDir, tr("nothing was started and the run is as it was before this resume: "
                                          "resume it again once the cause is fixed"));
    else
        d << Diagnostic::error(
            keep, tr("nothing was started, but the run could not be put back as it was (%1): move the files of %2 "
                     "back into the run directory, remove it and restore run.json's attempts to %3")
                      .arg(record ? (moved ? QString::fromLocal8Bit(moved->err).trimmed() : moved.errorString())
                                  : record.errorString(),
                           keep)
                      .arg(attempt));
    return Result<LaunchOutcome>::failure(d);
}

Result<JobState> Launcher::cancel(Transport& t, const QString& runDir, int graceMs)
{
    RunFiles f = readRunFiles(t, runDir);
    if (f.slurmRecordUnreadable)
        return Result<JobState>::failure(
            err(runFile(runDir, runfile::kSlurmJob),
                tr("cannot read the run's Slurm job record, so there is no job to scancel; nothing was "
                   "cancelled, try again")));
    const JobState before = deriveState(f, true);
    if (isFinal(before))
        return before;
    const Status marked = t.writeFile(runFile(runDir, runfile::kCancel),
                                      QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs).toUtf8() + '\n');
    if (!marked)
        return Result<JobState>::failure(marked.diagnostics());
    // The request is written before the pid is read, and the wrapper writes its pid before it looks for
    // the request: either the wrapper sees the request and exits, or its pid is read here and signalled.
    // (Read before the request, a wrapper starting in between was neither.) A Slurm job submitted
    // meanwhile is found the same way.
    f = readRunFiles(t, runDir);
    if (f.slurmJob) {
        // Slurm ends the job: scancel signals the batch script (passed on to the ranks) and every step.
        if (const Status s = slurm::cancel(t, f.slurmJob->jobId, f.slurmJob->pathPrefix); !s)
            return Result<JobState>::failure(s.diagnostics());
        const QDeadlineTimer deadline(qMax(graceMs, 5000) + 30000); // Slurm's KillWait comes on top
        for (;;) {
            const JobState now = deriveState(readRunFiles(t, runDir), true);
            if (isFinal(now) || deadline.hasExpired())
                return now;
            QThread::msleep(500);
        }
    }
    auto waitGone = [&](int ms) {
        const QDeadlineTimer deadline(ms);
        for (;;) {
            f = readRunFiles(t, runDir);
            if ((f.pid > 0 && !f.groupAlive) || f.exitCode)
                return true;
            if (deadline.hasExpired())
                return false;
            QThread::msleep(100);
        }
    };
    if (f.pid <= 0) {
        // Not started yet: the wrapper sees cancel-requested once it has written its pid, and exits.
        if (waitGone(qMin(graceMs, 3000)) || f.pid <= 0)
            return deriveState(readRunFiles(t, runDir), true);
        // A pid, and the group still there: signalled below like any running wrapper.
    }
    if (signalRun(t, runDir, SIGTERM) == SignalResult::Failed && readRunFiles(t, runDir).livenessUnknown)
        return Result<JobState>::failure(
            err(runDir,
                tr("cannot tell whether process group %1 on %2 is still the run's; nothing was signalled, try again")
                    .arg(f.pid)
                    .arg(t.displayName())));
    if (!waitGone(graceMs)) {
        signalRun(t, runDir, SIGKILL);
        waitGone(5000);
    }
    f = readRunFiles(t, runDir);
    if (!f.exitCode && !f.groupAlive && !f.livenessUnknown)
        t.writeFile(runFile(runDir, runfile::kExitCode), QByteArrayLiteral("137\n"));
    return deriveState(readRunFiles(t, runDir), true);
}

} // namespace traindeck::launch
