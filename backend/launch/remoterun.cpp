#include "launch/remoterun.h"

#include "launch/transport.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QLockFile>

using traindeck::cluster::ClusterProfile;

namespace traindeck::launch {

namespace {
constexpr qint64 kLogTail = 1 << 20; // the last MiB of each log is copied (what failure attribution reads)
constexpr qint64 kChunk = 16 << 20;
// Every file of a record is its owner's only, as the run directory on the head is (docs/users/security.md).
constexpr int kOwnerOnly = 0600;

Diagnostic err(const QString& what, const QString& message)
{
    return Diagnostic::error(what, message);
}

QString localFile(const QString& dir, const char* name)
{
    return runFile(dir, name);
}

std::optional<JobState> stateFromName(const QString& name)
{
    for (JobState s : {JobState::Starting, JobState::Pending, JobState::Running, JobState::Finished, JobState::Failed,
                       JobState::Cancelled, JobState::Lost}) {
        if (jobStateName(s) == name)
            return s;
    }
    return std::nullopt;
}

// Brings the local mirror up to the remote file: the bytes it lacks are written at their own offsets
// (idempotent: a RunMonitor mirroring the same file at the same time writes the same bytes there). A
// mirror longer than the remote file is not a prefix of it: it is rewritten from the start. The
// mirror's size is taken before the head's: another writer can only make the mirror grow to what the
// head had, so a mirror size taken first that exceeds the head's means the head's file was replaced.
Status catchUpMirror(Transport& t, const QString& remotePath, const QString& mirrorPath)
{
    const qint64 mirrorBefore = QFileInfo(mirrorPath).size(); // 0 when missing
    const Result<FileChunk> head = t.readFile(remotePath, 0, 0);
    if (!head)
        return Done{}; // no metrics (yet): nothing to mirror
    QFile m(mirrorPath);
    if (!m.open(QIODevice::ReadWrite | QIODevice::Unbuffered))
        return Status::failure(
            err(mirrorPath, RemoteRuns::tr("cannot write the metrics mirror: %1").arg(m.errorString())));
    if (!mirrorIsPrefixOf(mirrorBefore, head->fileSize))
        m.resize(0);
    qint64 at = m.size();
    // Up to the size seen above: a run that writes faster than each read's round trip would otherwise
    // keep this loop chasing its file until the run ends (a RunMonitor follows the rest).
    while (at < head->fileSize) {
        const Result<FileChunk> c = t.readFile(remotePath, at, qMin<qint64>(kChunk, head->fileSize - at));
        if (!c)
            return Status::failure(c.diagnostics());
        if (c->data.isEmpty())
            break;
        if (!m.seek(at) || m.write(c->data) != c->data.size())
            return Status::failure(
                err(mirrorPath, RemoteRuns::tr("cannot write the metrics mirror: %1").arg(m.errorString())));
        at += c->data.size();
    }
    return Done{};
}

// A remote file's last maxBytes for the record: data, or "remove the copy" (no such remote file), or
// "keep the copy" (the file is there but could not be read).
struct Tail {
    enum class Action { Write, Remove, Keep } action = Action::Write;
    QByteArray data;
};
Result<Tail> fetchTail(Transport& t, const QString& remotePath, qint64 maxBytes)
{
    const Result<FileChunk> head = t.readFile(remotePath, 0, 0);
    if (!head)
        return Tail{t.exists(remotePath) ? Tail::Action::Keep : Tail::Action::Remove, {}};
    const qint64 from = qMax<qint64>(0, head->fileSize - maxBytes);
    const Result<FileChunk> c = t.readFile(remotePath, from, maxBytes);
    if (!c)
        return Result<Tail>::failure(c.diagnostics());
    return Tail{Tail::Action::Write, c->data};
}

// The attempt count in the record's copy of run.json; 0 when there is none.
int recordAttempts(const QString& localDir)
{
    QFile f(localFile(localDir, runfile::kRunInfo));
    if (!f.open(QIODevice::ReadOnly))
        return 0;
    const QJsonDocument d = QJsonDocument::fromJson(f.read(1 << 20));
    return d.isObject() ? RunInfo::fromJson(d.object()).attempts : 0;
}
} // namespace

bool mirrorIsPrefixOf(qint64 mirrorSizeBefore, qint64 headSize)
{
    return mirrorSizeBefore <= headSize;
}

// ---------------------------------------------------------------- record lock

RecordLock::RecordLock(const QString& localDir, int timeoutMs)
    : m_lock(std::make_unique<QLockFile>(localFile(localDir, runfile::kRecordLock)))
{
    m_locked = m_lock->tryLock(timeoutMs);
}

RecordLock::~RecordLock() = default;

// ---------------------------------------------------------------- remote.json

QJsonObject RemoteRecord::toJson() const
{
    QJsonObject o;
    o.insert(QStringLiteral("version"), 1);
    o.insert(QStringLiteral("profile"), profile);
    o.insert(QStringLiteral("head"), head);
    o.insert(QStringLiteral("head_host"), headHost);
    o.insert(QStringLiteral("remote_run_dir"), remoteRunDir);
    o.insert(QStringLiteral("created"), created.toUTC().toString(Qt::ISODateWithMs));
    o.insert(QStringLiteral("state"), jobStateName(lastState));
    if (lastSeen.isValid())
        o.insert(QStringLiteral("last_seen"), lastSeen.toUTC().toString(Qt::ISODateWithMs));
    o.insert(QStringLiteral("synced"), synced);
    if (!detail.isEmpty())
        o.insert(QStringLiteral("detail"), detail);
    return o;
}

std::optional<RemoteRecord> RemoteRecord::fromJson(const QJsonObject& o)
{
    RemoteRecord r;
    r.remoteRunDir = o.value(QStringLiteral("remote_run_dir")).toString();
    if (r.remoteRunDir.isEmpty())
        return std::nullopt;
    r.profile = o.value(QStringLiteral("profile")).toString();
    r.head = o.value(QStringLiteral("head")).toString();
    r.headHost = o.value(QStringLiteral("head_host")).toString();
    r.created = QDateTime::fromString(o.value(QStringLiteral("created")).toString(), Qt::ISODateWithMs);
    r.lastState = stateFromName(o.value(QStringLiteral("state")).toString()).value_or(JobState::Starting);
    r.lastSeen = QDateTime::fromString(o.value(QStringLiteral("last_seen")).toString(), Qt::ISODateWithMs);
    r.synced = o.value(QStringLiteral("synced")).toBool();
    r.detail = o.value(QStringLiteral("detail")).toString();
    return r;
}

bool isRemoteRecord(const QString& localDir)
{
    return QFileInfo::exists(localFile(localDir, runfile::kRemote));
}

std::optional<RemoteRecord> readRemoteRecord(const QString& localDir)
{
    QFile f(localFile(localDir, runfile::kRemote));
    if (!f.open(QIODevice::ReadOnly))
        return std::nullopt;
    const QJsonDocument d = QJsonDocument::fromJson(f.read(1 << 20));
    if (!d.isObject())
        return std::nullopt;
    return RemoteRecord::fromJson(d.object());
}

Status writeRemoteRecord(const QString& localDir, const RemoteRecord& record)
{
    LocalTransport local;
    return local.writeFile(localFile(localDir, runfile::kRemote),
                           QJsonDocument(record.toJson()).toJson(QJsonDocument::Indented), kOwnerOnly);
}

// ---------------------------------------------------------------- RemoteRuns

Result<QString> RemoteRuns::remoteRunsDir(Transport& t, const ClusterProfile& profile)
{
    QString w = profile.workdir.trimmed();
    if (w.isEmpty())
        w = QStringLiteral("~/traindeck");
    QString base;
    if (w.startsWith(QLatin1Char('/'))) {
        base = w;
    } else {
        if (w.startsWith(QLatin1Char('~')) && w != QLatin1String("~") && !w.startsWith(QLatin1String("~/")))
            return Result<QString>::failure(Diagnostic::keyError(
                profile.name, QStringLiteral("workdir"),
                tr("%1: only ~/ is understood here; write the work directory as ~/DIR or an absolute path").arg(w)));
        const Result<ExecResult> home = t.run(QStringLiteral("printf %s \"$HOME\""), 20000);
        const QString h = home && home->exitCode == 0 ? QString::fromUtf8(home->out).trimmed() : QString();
        if (!h.startsWith(QLatin1Char('/')))
            return Result<QString>::failure(Diagnostic::keyError(
                profile.name, QStringLiteral("workdir"),
                tr("cannot resolve %1 on %2: $HOME is not an absolute path there (%3); set an absolute workdir in the "
                   "profile")
                    .arg(w, t.displayName(), home ? (h.isEmpty() ? tr("empty") : h) : home.errorString())));
        const QString rest = w.startsWith(QLatin1Char('~')) ? w.mid(1) : QLatin1Char('/') + w;
        base = h + rest;
    }
    return QDir::cleanPath(base + QStringLiteral("/runs"));
}

Result<RemoteRuns::Launched> RemoteRuns::launch(Transport& t, const JobSpec& spec, const ClusterProfile& profile,
                                                const QString& localRunsDir)
{
    if (t.isLocal()) {
        const Result<LaunchOutcome> r = Launcher::launch(t, spec, profile, localRunsDir);
        if (!r)
            return Result<Launched>::failure(r.diagnostics());
        return Result<Launched>(Launched{r.value(), r->runDir, QString(), false}, r.diagnostics());
    }
    if (localRunsDir.isEmpty() || !QDir::isAbsolutePath(localRunsDir))
        return Result<Launched>::failure(
            err(localRunsDir, Launcher::tr("the runs directory must be an absolute path")));
    const Result<QString> runs = remoteRunsDir(t, profile);
    if (!runs)
        return Result<Launched>::failure(runs.diagnostics());
    // The local record is written before the run starts (state "starting" until the head is asked):
    // whatever happens to the connection during the start, a run never runs without a record here,
    // and a failed start leaves a record that `runs --refresh` settles (lost after a minute without
    // a pid) instead of a job nobody knows of.
    QString recordDir;
    const Result<LaunchOutcome> r =
        Launcher::launch(t, spec, profile, runs.value(), [&](const LaunchOutcome& outcome) -> Status {
            const Result<QString> record = writeRecord(t, outcome, profile, localRunsDir);
            if (!record) {
                t.run(QStringLiteral("rm -rf -- %1").arg(shellQuote(outcome.runDir)), 20000); // never started
                return Status::failure(
                    err(outcome.runDir, tr("run %1 was not started on %2: its local record could not be written: %3")
                                            .arg(outcome.runId, t.displayName(), record.errorString())));
            }
            recordDir = record.value();
            return Done{};
        });
    if (!r) {
        Diagnostics d = r.diagnostics();
        if (!recordDir.isEmpty())
            d << Diagnostic::error(recordDir, tr("the run's record is kept: traindeck-cli runs --refresh tells "
                                                 "whether it runs"));
        return Result<Launched>::failure(d);
    }
    Launched out{r.value(), recordDir, localFile(recordDir, runfile::kMetrics), true};
    return Result<Launched>(out, r.diagnostics());
}

Result<QString> RemoteRuns::writeRecord(Transport& t, const LaunchOutcome& outcome, const ClusterProfile& profile,
                                        const QString& localRunsDir)
{
    const QString dir = QDir::cleanPath(localRunsDir + QLatin1Char('/') + outcome.runId);
    if (QFileInfo::exists(localFile(dir, runfile::kRunInfo)) && !isRemoteRecord(dir))
        return Result<QString>::failure(err(dir, tr("a local run with this id already exists")));
    LocalTransport local;
    const Result<bool> created = local.createDirectory(dir, 0700);
    if (!created)
        return Result<QString>::failure(err(dir, tr("cannot create the run's local record directory")));
    if (!created.value())
        return Result<QString>::failure(err(dir, tr("a run with this id already exists here")));
    RemoteRecord rec;
    rec.profile = profile.name;
    rec.head = t.displayName();
    rec.headHost = profile.nodes.isEmpty() ? QString() : profile.head().host;
    rec.remoteRunDir = outcome.runDir;
    rec.created = QDateTime::currentDateTimeUtc();
    rec.lastState = JobState::Starting;
    rec.lastSeen = rec.created;
    // remote.json first: a listing never takes the record for a local run.
    QList<Status> writes;
    writes << writeRemoteRecord(dir, rec);
    writes << local.writeFile(localFile(dir, runfile::kProfile), profile.toJson(), kOwnerOnly);
    for (const char* name : {runfile::kSpec, runfile::kRunInfo}) {
        const Result<FileChunk> c = t.readFile(runFile(outcome.runDir, name), 0, 1 << 20);
        if (!c)
            return Result<QString>::failure(c.diagnostics());
        writes << local.writeFile(localFile(dir, name), c->data, kOwnerOnly);
    }
    for (const Status& s : writes) {
        if (!s)
            return Result<QString>::failure(s.diagnostics());
    }
    return dir;
}

void RemoteRuns::noteState(const QString& localDir, JobState state, const QString& detail)
{
    const RecordLock lock(localDir);
    if (!lock)
        return; // a state note is not worth waiting for
    std::optional<RemoteRecord> rec = readRemoteRecord(localDir);
    if (!rec || rec->synced)
        return;
    rec->lastState = state;
    rec->detail = detail;
    rec->lastSeen = QDateTime::currentDateTimeUtc();
    writeRemoteRecord(localDir, *rec);
}

Result<JobState> RemoteRuns::sync(Transport& t, const QString& remoteRunDir, const QString& localDir)
{
    if (!readRemoteRecord(localDir))
        return Result<JobState>::failure(
            err(localFile(localDir, runfile::kRemote), tr("not the record of a remote run")));
    // A resume that reopens the record meanwhile changes the attempt count of the record's run.json.
    const int attemptsAtStart = recordAttempts(localDir);
    // The run record must be readable, or nothing below means anything (link down, directory gone).
    const Result<FileChunk> info = t.readFile(runFile(remoteRunDir, runfile::kRunInfo), 0, 1 << 20);
    if (!info)
        return Result<JobState>::failure(
            err(remoteRunDir, tr("cannot read run %1 on %2: %3")
                                  .arg(QFileInfo(localDir).fileName(), t.displayName(), info.errorString())));
    const RunFiles files = readRunFiles(t, remoteRunDir);
    const QString metrics = runFile(remoteRunDir, runfile::kMetrics);
    const Result<FileChunk> m = t.readFile(metrics, 0, 0);
    const JobState state = deriveState(files, m && m->fileSize > 0);
    // Final only on the head's word: an exit code, or a group known to be gone (never "could not ask").
    const bool ended = isFinal(state) && (files.exitCode || !files.livenessUnknown);
    if (const Status s = catchUpMirror(t, metrics, localFile(localDir, runfile::kMetrics)); !s)
        return Result<JobState>::failure(s.diagnostics());
    // Network first, then the local writes under the lock.
    QList<QPair<const char*, Tail>> tails;
    if (ended) {
        for (const char* name : {runfile::kStderr, runfile::kStdout, runfile::kCancel}) {
            const Result<Tail> tail = fetchTail(t, runFile(remoteRunDir, name), kLogTail);
            if (!tail)
                return Result<JobState>::failure(tail.diagnostics());
            tails.append({name, tail.value()});
        }
    }
    const RecordLock lock(localDir);
    if (!lock)
        return Result<JobState>::failure(
            err(localFile(localDir, runfile::kRecordLock), tr("the run's record is locked by another process")));
    std::optional<RemoteRecord> rec = readRemoteRecord(localDir);
    if (!rec)
        return Result<JobState>::failure(
            err(localFile(localDir, runfile::kRemote), tr("not the record of a remote run")));
    if (recordAttempts(localDir) != attemptsAtStart)
        return state; // resumed while this sync read the old attempt: the record is the new attempt's now
    LocalTransport local;
    if (ended) {
        QList<Status> writes;
        writes << local.writeFile(localFile(localDir, runfile::kRunInfo), info->data, kOwnerOnly);
        if (files.exitCode)
            writes << local.writeFile(localFile(localDir, runfile::kExitCode),
                                      QByteArray::number(*files.exitCode) + '\n', kOwnerOnly);
        else
            QFile::remove(localFile(localDir, runfile::kExitCode)); // lost: remote.json's state says so
        for (const auto& [name, tail] : tails) {
            if (tail.action == Tail::Action::Write)
                writes << local.writeFile(localFile(localDir, name), tail.data, kOwnerOnly);
            else if (tail.action == Tail::Action::Remove)
                QFile::remove(localFile(localDir, name));
        }
        for (const Status& s : writes) {
            if (!s)
                return Result<JobState>::failure(s.diagnostics());
        }
        rec->synced = true;
        rec->lastState = state;
        rec->detail = files.detail();
    } else {
        QFile copy(localFile(localDir, runfile::kRunInfo));
        if (!copy.open(QIODevice::ReadOnly) || copy.readAll() != info->data) {
            copy.close();
            local.writeFile(localFile(localDir, runfile::kRunInfo), info->data, kOwnerOnly); // attempts, started
        }
        // Liveness unknown: the state last seen stays; only the time of this contact is new.
        if (!files.livenessUnknown && !rec->synced) {
            rec->lastState = state;
            rec->detail = files.detail();
        }
    }
    rec->lastSeen = QDateTime::currentDateTimeUtc();
    if (const Status s = writeRemoteRecord(localDir, *rec); !s)
        return Result<JobState>::failure(s.diagnostics());
    return state;
}

void RemoteRuns::reopen(Transport& t, const QString& remoteRunDir, const QString& localDir, int previousAttempt)
{
    const Result<FileChunk> info = t.readFile(runFile(remoteRunDir, runfile::kRunInfo), 0, 1 << 20);
    // Waits for a sync in flight to finish its writes; the files it wrote go to attempt-N/ below.
    const RecordLock lock(localDir, 60000);
    LocalTransport local;
    const QString keep = localDir + QStringLiteral("/attempt-%1").arg(previousAttempt);
    QDir().mkpath(keep);
    QFile::setPermissions(keep, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner); // 0700
    for (const char* name : {runfile::kExitCode, runfile::kCancel, runfile::kStdout, runfile::kStderr}) {
        const QString from = localFile(localDir, name);
        if (QFileInfo::exists(from)) {
            QFile::remove(localFile(keep, name));
            QFile::rename(from, localFile(keep, name));
        }
    }
    if (info) {
        local.writeFile(localFile(localDir, runfile::kRunInfo), info->data, kOwnerOnly);
    } else if (const std::optional<RunInfo> old = readRunInfo(local, localDir)) {
        // The new attempt count at least, so that a sync of the old attempt still in flight writes nothing.
        RunInfo next = *old;
        next.attempts = qMax(next.attempts, previousAttempt + 1);
        local.writeFile(localFile(localDir, runfile::kRunInfo), QJsonDocument(next.toJson()).toJson(), kOwnerOnly);
    }
    if (std::optional<RemoteRecord> rec = readRemoteRecord(localDir)) {
        rec->synced = false;
        rec->lastState = JobState::Starting;
        rec->lastSeen = QDateTime::currentDateTimeUtc();
        writeRemoteRecord(localDir, *rec);
    }
}

// ---------------------------------------------------------------- locating a run

Result<ClusterProfile> recordProfile(const QString& localDir, const RemoteRecord& record)
{
    const QString path = localFile(localDir, runfile::kProfile);
    QFile f(path);
    if (f.open(QIODevice::ReadOnly)) {
        Result<ClusterProfile> p = ClusterProfile::fromJson(f.readAll(), path);
        if (p)
            return p;
    }
    if (record.profile.isEmpty())
        return Result<ClusterProfile>::failure(err(path, RemoteRuns::tr("the record names no cluster profile")));
    return ClusterProfile::loadNamed(record.profile);
}

Result<RunLocation> locateRun(const QString& localDir, const RemoteTransportFactory& remote)
{
    RunLocation loc;
    loc.localDir = localDir;
    if (!isRemoteRecord(localDir)) {
        loc.transport = std::make_shared<LocalTransport>();
        loc.runDir = localDir;
        return loc;
    }
    loc.record = readRemoteRecord(localDir);
    if (!loc.record)
        return Result<RunLocation>::failure(
            err(localFile(localDir, runfile::kRemote), RemoteRuns::tr("unreadable record of a remote run")));
    const Result<ClusterProfile> profile = recordProfile(localDir, *loc.record);
    if (!profile)
        return Result<RunLocation>::failure(profile.diagnostics());
    loc.profile = profile.value();
    loc.remote = true;
    loc.runDir = loc.record->remoteRunDir;
    loc.mirrorPath = localFile(localDir, runfile::kMetrics);
    Result<std::shared_ptr<Transport>> t = transportFor(loc.profile, remote);
    if (!t)
        // The transport's own message names the host and the cause.
        return Result<RunLocation>::failure(err(
            loc.record->head, RemoteRuns::tr("cannot reach the head node of run %1: %2")
                                  .arg(QFileInfo(localDir).fileName(),
                                       t.diagnostics().isEmpty() ? t.errorString() : t.diagnostics().first().message)));
    loc.transport = t.value();
    return loc;
}

} // namespace traindeck::launch
