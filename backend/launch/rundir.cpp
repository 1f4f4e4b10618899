#include "launch/rundir.h"

#include "launch/remoterun.h"
#include "launch/transport.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QRegularExpression>

#include <algorithm>
#include <csignal>

namespace traindeck::launch {

namespace {
struct Tr {
    Q_DECLARE_TR_FUNCTIONS(traindeck::launch::RunDir)
};

std::optional<QByteArray> readSmall(Transport& t, const QString& path, qint64 max = 1 << 20)
{
    const Result<FileChunk> c = t.readFile(path, 0, max);
    if (!c)
        return std::nullopt;
    return c->data;
}
// run.json's record from its bytes (unset: not read, or not a JSON object).
std::optional<RunInfo> runInfoFrom(const std::optional<QByteArray>& bytes)
{
    if (!bytes)
        return std::nullopt;
    const QJsonDocument d = QJsonDocument::fromJson(*bytes);
    if (!d.isObject())
        return std::nullopt;
    return RunInfo::fromJson(d.object());
}
} // namespace

QString runFile(const QString& runDir, const char* name)
{
    return runDir + QLatin1Char('/') + QString::fromLatin1(name);
}

QString jobStateName(JobState s)
{
    switch (s) {
    case JobState::Starting: return QStringLiteral("starting");
    case JobState::Pending: return QStringLiteral("pending");
    case JobState::Running: return QStringLiteral("running");
    case JobState::Finished: return QStringLiteral("finished");
    case JobState::Failed: return QStringLiteral("failed");
    case JobState::Cancelled: return QStringLiteral("cancelled");
    case JobState::Lost: return QStringLiteral("lost");
    }
    return QString();
}

bool isFinal(JobState s)
{
    return s != JobState::Starting && s != JobState::Pending && s != JobState::Running;
}

int exitCodeFor(JobState s)
{
    return s == JobState::Finished ? 0 : 1;
}

JobState deriveState(const RunFiles& f, bool sawTelemetry)
{
    // A Slurm job whose batch script wrote its exit code but that Slurm has not ended yet (it is still
    // completing, or killing it for a failed node): Slurm's final word, with its reason, comes soon.
    const bool slurmKnows = f.slurmJob && f.slurm && f.slurm->known();
    const bool slurmStillOn = slurmKnows && !slurm::isFinalState(f.slurm->state);
    if (f.exitCode && slurmStillOn)
        return JobState::Running;
    if (f.exitCode) {
        // The trainer's exit status after a stop on SIGUSR1 (a checkpoint first; resumable).
        if (f.cancelRequested || *f.exitCode == kTrainerStoppedExitCode)
            return JobState::Cancelled;
        // Ranks torn down with a job that Slurm ended for a failure (a node failed, a limit) can still
        // leave the batch script an exit status of 0: such a run did not finish.
        const bool slurmFailedIt = slurmKnows && !slurmStillOn && f.slurm->state != QLatin1String("COMPLETED") &&
                                   f.slurm->state != QLatin1String("CANCELLED");
        return *f.exitCode == 0 && !slurmFailedIt ? JobState::Finished : JobState::Failed;
    }
    if (f.livenessUnknown)
        return sawTelemetry ? JobState::Running : JobState::Starting; // not known to be gone: ask again
    if (f.slurmJob) {
        // The batch script writes exit-code when its ranks end; without one, Slurm's word decides.
        if (!f.slurm || !f.slurm->known()) {
            if (f.cancelRequested)
                return JobState::Cancelled;
            return f.launchedSecsAgo > 60 ? JobState::Lost : JobState::Starting;
        }
        const QString& st = f.slurm->state;
        if (slurm::isPendingState(st))
            return f.cancelRequested ? JobState::Cancelled : JobState::Pending;
        if (!slurm::isFinalState(st))
            return sawTelemetry ? JobState::Running : JobState::Starting;
        if (f.cancelRequested || st == QLatin1String("CANCELLED"))
            return JobState::Cancelled;
        if (st == QLatin1String("COMPLETED"))
            return f.slurm->exitCode.isEmpty() || f.slurm->exitCode == QLatin1String("0:0") ? JobState::Finished
                                                                                            : JobState::Failed;
        return JobState::Failed; // FAILED, TIMEOUT, NODE_FAIL, OUT_OF_MEMORY, BOOT_FAIL, DEADLINE, ...
    }
    if (f.pid <= 0) {
        // The wrapper writes its pid first thing; give it a minute (a loaded machine) before calling it lost.
        if (f.cancelRequested)
            return JobState::Cancelled;
        return f.launchedSecsAgo > 60 ? JobState::Lost : JobState::Starting;
    }
    if (f.groupAlive)
        return sawTelemetry ? JobState::Running : JobState::Starting;
    return f.cancelRequested ? JobState::Cancelled : JobState::Lost;
}

std::optional<PidRecord> PidRecord::parse(const QByteArray& text)
{
    const QList<QByteArray> words = text.simplified().split(' ');
    bool ok = false;
    PidRecord r;
    r.pid = words.value(0).toLongLong(&ok);
    if (!ok || r.pid <= 1)
        return std::nullopt;
    if (words.size() > 1) {
        const qint64 start = words.at(1).toLongLong(&ok);
        if (ok)
            r.startTime = start;
    }
    if (words.size() > 2 && words.at(2) != "-")
        r.bootId = QString::fromLatin1(words.at(2));
    return r;
}

QString pidRecordShellLine(const QString& pidPath)
{
    // "-" for what this system does not tell (no /proc).
    const QString p = shellQuote(pidPath);
    return QStringLiteral("td_start=$(%1); td_boot=$(cat /proc/sys/kernel/random/boot_id 2>/dev/null); "
                          "printf '%s %s %s\\n' $$ \"${td_start:--}\" \"${td_boot:--}\" > %2.tmp && mv -f %2.tmp %2\n")
        .arg(startTimeShellCommand(QStringLiteral("$$")), p);
}

PidOwner pidOwner(Transport& t, const PidRecord& record, const QDateTime& started)
{
    const Result<ProcessIdentity> now = t.processIdentity(record.pid);
    return pidOwner(now ? std::optional<ProcessIdentity>(now.value()) : std::nullopt, record, started);
}

PidOwner pidOwner(const std::optional<ProcessIdentity>& now, const PidRecord& record, const QDateTime& started)
{
    if (!now)
        return PidOwner::Unknown;
    if (!record.bootId.isEmpty() && !now->bootId.isEmpty())
        if (record.bootId != now->bootId)
            return PidOwner::NotOurs; // another boot: pid numbers started over
    if (record.startTime) {
        if (now->startTime && *now->startTime != *record.startTime)
            return PidOwner::NotOurs; // the same number, another process
        return PidOwner::Ours;
    }
    // An old record (pid only): a live process with that pid that started well after the attempt did
    // (after a reboot, or a reused number) is not the run's wrapper, which started right after run.json
    // was written. Two minutes' grace for clocks that differ between this machine (run.json) and the
    // head; start times count clock ticks of 1/100 s (Linux's USER_HZ) after the boot.
    if (record.bootId.isEmpty() && now->startTime && now->bootTime > 0 && started.isValid() &&
        now->bootTime + *now->startTime / 100 > started.toSecsSinceEpoch() + 120)
        return PidOwner::NotOurs;
    return PidOwner::Ours;
}

RunFiles readRunFiles(Transport& t, const QString& runDir)
{
    return pollRunDir(t, runDir, {}).files;
}

RunDirPoll pollRunDir(Transport& t, const QString& runDir, const QList<FileRead>& tails)
{
    // The reads in this order: liveness (after the pid file) before the exit code (see readRunFiles), the
    // state before the followed files (what is read after the state is at least as new as it).
    enum { kInfo, kSlurm, kPid, kCode, kCancel, kTails };
    ProbeRequest request;
    request.dir = runDir;
    request.reads = {{runFile(runDir, runfile::kRunInfo), 0, 1 << 20},
                     {runFile(runDir, runfile::kSlurmJob), 0, 256},
                     {runFile(runDir, runfile::kPid), 0, 256},
                     {runFile(runDir, runfile::kExitCode), 0, 64},
                     {runFile(runDir, runfile::kCancel), 0, 0}};
    request.pidRead = kPid;
    request.reads += tails;
    RunDirPoll poll;
    RunFiles& f = poll.files;
    const Result<ProbeAnswer> answer = t.probe(request);
    if (!answer || answer->files.size() != request.reads.size()) {
        // Nothing could be asked: whether this is a Slurm run, and whether it lives, is unknown.
        f.slurmRecordUnreadable = true;
        f.livenessUnknown = true;
        for (qsizetype i = 0; i < tails.size(); ++i)
            poll.tails.append(std::nullopt);
        return poll;
    }
    const ProbeAnswer& a = answer.value();
    auto read = [&](int i) -> std::optional<QByteArray> {
        const ProbedFile& p = a.files.at(i);
        return p.status == ProbedFile::Status::Read ? std::optional<QByteArray>(p.chunk.data) : std::nullopt;
    };
    // A failed read means "missing" only when the file is not there while the run directory is seen
    // (over SSH a read also fails on a timeout or a broken session).
    auto reallyMissing = [&](int i) { return a.files.at(i).status == ProbedFile::Status::Missing && a.dirSeen; };
    std::optional<QByteArray> code = read(kCode);
    const std::optional<RunInfo> info = runInfoFrom(read(kInfo));
    if (const auto job = read(kSlurm)) {
        // A Slurm job: Slurm, not a process group on the login node, says whether it lives.
        f.slurmJob = SlurmJob::parse(*job);
        if (f.slurmJob) {
            if (const auto bytes = readSmall(t, runDir + QStringLiteral("/profile.json"))) {
                if (const auto p = cluster::ClusterProfile::fromJson(*bytes, QStringLiteral("profile.json")))
                    f.slurmJob->pathPrefix = p->pathPrefix;
            }
            const Result<SlurmJobStatus> st = slurm::queryJob(t, f.slurmJob->jobId, f.slurmJob->pathPrefix);
            if (st)
                f.slurm = st.value();
            else
                f.livenessUnknown = true;
            // Slurm's word first, then the exit code, as the pid rules check liveness first: the batch
            // script writes exit-code before it ends, so a code missing from the request (read before
            // Slurm was asked) and a final state read after it would make a stopped run "failed".
            if (!code)
                code = readSmall(t, runFile(runDir, runfile::kExitCode), 64);
        }
    } else if (const auto pid = read(kPid)) {
        if (const std::optional<PidRecord> rec = PidRecord::parse(*pid)) {
            f.pid = rec->pid;
            // The identity and liveness asked about this pid (the file may have been replaced in between).
            const bool checked = a.checkedPid == rec->pid;
            // Never ask about (let alone signal) a process that is not the run's.
            const PidOwner owner =
                pidOwner(checked ? a.identity : std::nullopt, *rec, info ? info->started : QDateTime());
            if (owner == PidOwner::NotOurs) {
                f.pidReused = true;
            } else {
                const SignalResult alive = checked ? a.group : SignalResult::Failed;
                f.groupAlive = alive == SignalResult::Delivered;
                // A live group behind a pid whose owner could not be checked: not known to be the run's.
                if (alive == SignalResult::Failed || (f.groupAlive && owner == PidOwner::Unknown))
                    f.livenessUnknown = true;
            }
        }
    } else if (!reallyMissing(kSlurm)) {
        // Neither record was read, and slurm-job is there (or the run directory could not be seen): a read
        // that failed is "unknown", never "gone". A Slurm run has no pid file, so the pid rules would call
        // a running job lost after a minute (and resume would then submit a second one).
        f.slurmRecordUnreadable = true;
        f.livenessUnknown = true;
    } else if (!reallyMissing(kPid)) {
        f.livenessUnknown = true;
    }
    if (code) {
        bool ok = false;
        const int c = code->trimmed().toInt(&ok);
        if (ok)
            f.exitCode = c;
    } else if (!f.slurmJob && !f.groupAlive && !f.livenessUnknown && !reallyMissing(kCode)) {
        // Only asked when the answer decides between "ended" and "lost".
        f.livenessUnknown = true;
    }
    f.cancelRequested = a.files.at(kCancel).status != ProbedFile::Status::Missing;
    if (info && info->started.isValid())
        f.launchedSecsAgo = info->started.secsTo(QDateTime::currentDateTimeUtc());
    for (qsizetype i = 0; i < tails.size(); ++i) {
        const ProbedFile& p = a.files.at(kTails + i);
        poll.tails.append(p.status == ProbedFile::Status::Read ? std::optional<FileChunk>(p.chunk) : std::nullopt);
    }
    return poll;
}

QJsonObject RunInfo::toJson() const
{
    QJsonObject o;
    o.insert(QStringLiteral("run_id"), runId);
    o.insert(QStringLiteral("name"), name);
    o.insert(QStringLiteral("created"), created.toUTC().toString(Qt::ISODateWithMs));
    o.insert(QStringLiteral("started"), (started.isValid() ? started : created).toUTC().toString(Qt::ISODateWithMs));
    o.insert(QStringLiteral("profile"), profile);
    o.insert(QStringLiteral("host"), host);
    o.insert(QStringLiteral("trainer"), trainer);
    o.insert(QStringLiteral("command"), command);
    o.insert(QStringLiteral("attempts"), attempts);
    return o;
}

RunInfo RunInfo::fromJson(const QJsonObject& o)
{
    RunInfo i;
    i.runId = o.value(QStringLiteral("run_id")).toString();
    i.name = o.value(QStringLiteral("name")).toString();
    i.created = QDateTime::fromString(o.value(QStringLiteral("created")).toString(), Qt::ISODateWithMs);
    i.started = QDateTime::fromString(o.value(QStringLiteral("started")).toString(), Qt::ISODateWithMs);
    if (!i.started.isValid())
        i.started = i.created;
    i.profile = o.value(QStringLiteral("profile")).toString();
    i.host = o.value(QStringLiteral("host")).toString();
    i.trainer = o.value(QStringLiteral("trainer")).toString();
    i.command = o.value(QStringLiteral("command")).toString();
    i.attempts = o.value(QStringLiteral("attempts")).toInt(1);
    return i;
}

std::optional<RunInfo> readRunInfo(Transport& t, const QString& runDir)
{
    return runInfoFrom(readSmall(t, runFile(runDir, runfile::kRunInfo)));
}

QString makeRunId(const QString& name, const QDateTime& now, const std::function<bool(const QString&)>& taken)
{
    QString base;
    for (const QChar c : name) {
        const ushort u = c.unicode();
        const bool ok = (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') || u == '.' ||
                        u == '_' || u == '-';
        base.append(ok ? c : QLatin1Char('-'));
    }
    static const QRegularExpression dashes(QStringLiteral("-{2,}"));
    base.replace(dashes, QStringLiteral("-"));
    while (base.startsWith(QLatin1Char('-')) || base.startsWith(QLatin1Char('.')))
        base.remove(0, 1);
    base.truncate(48);
    while (base.endsWith(QLatin1Char('-')) || base.endsWith(QLatin1Char('.')))
        base.chop(1);
    if (base.isEmpty())
        base = QStringLiteral("run");
    const QString stem = base + QLatin1Char('-') + now.toString(QStringLiteral("yyyyMMdd-HHmmss"));
    QString id = stem;
    for (int n = 2; taken && taken(id); ++n)
        id = stem + QLatin1Char('-') + QString::number(n);
    return id;
}

Result<QString> resolveRunDir(const QString& runsDir, const QString& run)
{
    auto isRunDir = [](const QString& d) {
        return QFileInfo::exists(d + QStringLiteral("/run.json")) ||
               QFileInfo::exists(d + QStringLiteral("/spec.json"));
    };
    if (run.isEmpty())
        return Result<QString>::failure(Diagnostic::error(QStringLiteral("RUN"), Tr::tr("no run given")));
    if (!run.contains(QLatin1Char('/')) && run != QLatin1String(".") && run != QLatin1String("..")) {
        const QString d = QDir(runsDir).absoluteFilePath(run);
        if (isRunDir(d))
            return QDir::cleanPath(d);
    }
    if (QFileInfo(run).isDir() && isRunDir(run))
        return QDir::cleanPath(QFileInfo(run).absoluteFilePath());
    return Result<QString>::failure(Diagnostic::error(
        run, 0, 0,
        Tr::tr("no such run (neither a run id under %1 nor a run directory); see traindeck-cli runs").arg(runsDir)));
}

QJsonObject RunSummary::toJson() const
{
    QJsonObject o = info.toJson();
    o.insert(QStringLiteral("run_id"), runId);
    o.insert(QStringLiteral("run_dir"), runDir);
    o.insert(QStringLiteral("state"), jobStateName(state));
    o.insert(QStringLiteral("last_step"), lastStep);
    if (hasLoss)
        o.insert(QStringLiteral("loss"), lastLoss);
    if (exitCode)
        o.insert(QStringLiteral("exit_code"), *exitCode);
    o.insert(QStringLiteral("remote"), remote);
    if (remote) {
        o.insert(QStringLiteral("head"), head);
        o.insert(QStringLiteral("remote_run_dir"), remoteRunDir);
        if (lastSeen.isValid())
            o.insert(QStringLiteral("last_seen"), lastSeen.toUTC().toString(Qt::ISODateWithMs));
        o.insert(QStringLiteral("synced"), synced);
    }
    if (!detail.isEmpty())
        o.insert(QStringLiteral("detail"), detail);
    return o;
}

QList<RunSummary> listRuns(const QString& runsDir)
{
    QList<RunSummary> out;
    LocalTransport t;
    const QDir dir(runsDir);
    for (const QString& id : dir.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        const QString rd = dir.absoluteFilePath(id);
        const auto info = readRunInfo(t, rd);
        if (!info)
            continue;
        RunSummary s;
        s.runId = id;
        s.runDir = rd;
        s.info = *info;
        std::optional<RemoteRecord> remote = readRemoteRecord(rd);
        RunFiles f;
        if (remote) {
            // Only what was copied here: the pid of a remote run means nothing on this machine.
            if (const auto code = readSmall(t, runFile(rd, runfile::kExitCode), 64)) {
                bool ok = false;
                const int c = code->trimmed().toInt(&ok);
                if (ok)
                    f.exitCode = c;
            }
            f.cancelRequested = QFileInfo::exists(runFile(rd, runfile::kCancel));
            s.remote = true;
            s.head = remote->head;
            s.remoteRunDir = remote->remoteRunDir;
            s.lastSeen = remote->lastSeen;
            s.synced = remote->synced;
            s.detail = remote->detail;
        } else {
            f = readRunFiles(t, rd);
            s.detail = f.detail();
        }
        s.exitCode = f.exitCode;
        // The last step line in the file's tail.
        QFile m(runFile(rd, runfile::kMetrics));
        bool telemetry = false;
        if (m.open(QIODevice::ReadOnly) && m.size() > 0) {
            telemetry = true;
            const qint64 from = qMax<qint64>(0, m.size() - (256 << 10));
            m.seek(from);
            const QList<QByteArray> lines = m.readAll().split('\n');
            for (auto it = lines.crbegin(); it != lines.crend(); ++it) {
                if (!it->contains("\"step\""))
                    continue;
                const QJsonDocument d = QJsonDocument::fromJson(*it);
                if (!d.isObject() || d.object().value(QStringLiteral("type")).toString() != QLatin1String("step"))
                    continue;
                s.lastStep = qint64(d.object().value(QStringLiteral("step")).toDouble(-1));
                const QJsonValue loss = d.object().value(QStringLiteral("loss"));
                if (loss.isDouble()) {
                    s.lastLoss = loss.toDouble();
                    s.hasLoss = true;
                }
                break;
            }
        }
        if (remote) {
            // A synced record's state is final as last seen (a lost run stays lost, not "failed (exit -1)").
            s.state = f.exitCode && !remote->synced ? deriveState(f, telemetry) : remote->lastState;
            if (remote->synced && s.state == JobState::Lost)
                s.exitCode.reset(); // older records hold a placeholder -1
        } else {
            s.state = deriveState(f, telemetry);
        }
        out.append(s);
    }
    std::sort(out.begin(), out.end(), [](const RunSummary& a, const RunSummary& b) {
        if (a.info.created != b.info.created)
            return a.info.created > b.info.created;
        return a.runId > b.runId;
    });
    return out;
}

} // namespace traindeck::launch
