#include "ssh/sshtransport.h"

#include "cluster/clusterprofile.h"
#include "ssh/sshsession.h"

#include <QCryptographicHash>
#include <QFileInfo>

#include <map>
#include <mutex>
#include <optional>
#include <thread>

namespace traindeck::ssh {

struct SshTransport::Private {
    SshTarget target;
    SshTransportOptions options;
    std::mutex mutex;
    // One session per calling thread (libssh sessions are not thread-safe). A session stays with its
    // thread id until the transport is destroyed; a later thread that gets the same id (the old one
    // has ended) simply continues with it.
    std::map<std::thread::id, std::unique_ptr<SshSession>> sessions;
    std::once_flag rootOnce;
    bool root = false;
};

SshTransport::SshTransport(SshTarget target, SshTransportOptions options) : d(std::make_unique<Private>())
{
    d->target = std::move(target);
    d->options = std::move(options);
}

SshTransport::~SshTransport() = default;

void SshTransport::releaseCallingThread()
{
    std::unique_ptr<SshSession> session;
    {
        std::lock_guard lock(d->mutex);
        const auto it = d->sessions.find(std::this_thread::get_id());
        if (it == d->sessions.end())
            return;
        session = std::move(it->second);
        d->sessions.erase(it);
    }
    if (session)
        session->disconnect(); // outside the lock: it may wait for the server
}

std::shared_ptr<SshTransport> SshTransport::forProfile(const cluster::ClusterProfile& profile,
                                                       SshTransportOptions options)
{
    return std::make_shared<SshTransport>(SshSession::targetFor(profile, profile.head()), std::move(options));
}

QString SshTransport::displayName() const
{
    return d->target.displayName();
}

namespace {

// The diagnostics as being about `where` (the head node, a path on it).
Diagnostics about(Diagnostics diagnostics, const QString& where)
{
    for (Diagnostic& d : diagnostics)
        d.file = where;
    return diagnostics;
}

} // namespace

Result<SshSession*> SshTransport::threadSession() const
{
    SshSession* s = nullptr;
    {
        std::lock_guard lock(d->mutex);
        auto& slot = d->sessions[std::this_thread::get_id()];
        if (!slot)
            slot = std::make_unique<SshSession>(d->target);
        s = slot.get();
    }
    // Only this thread uses *s from here on.
    if (s->isConnected() && s->isAuthenticated())
        return s;
    s->disconnect();
    SshPrompts prompts = d->options.prompts;
    if (d->options.acceptNewHostKeys)
        prompts.hostKey = [](const HostKeyInfo&) { return HostKeyDecision::AcceptAndSave; };
    s->setPrompts(prompts);
    const Status opened = s->open();
    if (opened)
        return s;
    Diagnostics diagnostics = opened.diagnostics();
    for (Diagnostic& e : diagnostics) {
        if (e.code == codes::HostKeyUnknown) {
            const QString accept =
                tr("After verifying the fingerprint, accept the key with `traindeck-cli check --profile PROFILE "
                   "--accept-new-host-keys` (or connect once with ssh(1) and answer yes).");
            e.detail = e.detail.isEmpty() ? accept : e.detail + QLatin1Char('\n') + accept;
        }
    }
    s->disconnect();
    return Result<SshSession*>::failure(diagnostics);
}

Status SshTransport::connect()
{
    const Result<SshSession*> s = threadSession();
    if (!s)
        return Status::failure(about(s.diagnostics(), displayName()));
    return Done{};
}

Result<ExecResult> SshTransport::exec(const QString& shellCommand, const ExecOptions& options) const
{
    const Result<SshSession*> session = threadSession();
    if (!session)
        return Result<ExecResult>::failure(session.diagnostics());
    SshSession* s = session.value();
    // `exec` keeps the login shell's pid (whose process group exec() kills on timeout).
    ExecResult result = s->exec(QStringLiteral("exec /bin/sh -c ") + shellQuote(shellCommand), options);
    if (result.status == ExecResult::Status::Failed) {
        if (!s->isConnected())
            s->disconnect(); // reopened by the next call
        return Result<ExecResult>::failure(result.error);
    }
    return result;
}

bool SshTransport::runsAsRoot() const
{
    std::call_once(d->rootOnce, [this] {
        const Result<ExecResult> r = exec(QStringLiteral("id -u"), ExecOptions::withTimeout(15000));
        if (r && r->ok())
            d->root = r->stdOut.trimmed() == "0";
    });
    return d->root;
}

Result<launch::ExecResult> SshTransport::run(const QString& shellCommand, int timeoutMs, const LineCallback& onLine)
{
    ExecOptions o;
    o.timeoutMs = qMax(1, timeoutMs);
    if (onLine) {
        o.onStdoutLine = [&onLine](const QByteArray& line) { onLine(Stream::Out, line); };
        o.onStderrLine = [&onLine](const QByteArray& line) { onLine(Stream::Err, line); };
    }
    Result<ExecResult> ran = exec(shellCommand, o);
    if (!ran)
        return Result<launch::ExecResult>::failure(about(ran.diagnostics(), displayName()));
    ExecResult& r = ran.value();
    launch::ExecResult out;
    out.timedOut = r.status == ExecResult::Status::TimedOut;
    out.exitCode = r.status == ExecResult::Status::Exited ? r.exitCode : -1;
    out.out = std::move(r.stdOut);
    out.err = std::move(r.stdErr);
    return out;
}

Status SshTransport::startDetached(const QString& scriptPath)
{
    // setsid -f: fork into a new session (the script's pid is its process group) and return at once;
    // stdio on /dev/null so the channel closes. Without -f (old util-linux): a background subshell.
    const QString s = shellQuote(scriptPath);
    const QString cmd = QStringLiteral("[ -f %1 ] || { echo 'no such script' >&2; exit 2; }; "
                                       "if setsid --help 2>&1 | grep -q -- --fork; then "
                                       "setsid -f /bin/sh %1 </dev/null >/dev/null 2>&1; "
                                       "else (setsid /bin/sh %1 </dev/null >/dev/null 2>&1 &); fi")
                            .arg(s);
    const Result<launch::ExecResult> r = run(cmd, 15000);
    if (!r)
        return Status::failure(r.diagnostics());
    if (r->exitCode != 0)
        return Status::failure(Diagnostic::error(scriptPath, tr("%1: cannot start detached (exit %2): %3")
                                                                 .arg(displayName(), QString::number(r->exitCode),
                                                                      QString::fromLocal8Bit(r->err).trimmed())));
    return Done{};
}

Result<launch::FileChunk> SshTransport::readFile(const QString& path, qint64 offset, qint64 maxBytes)
{
    offset = qMax<qint64>(0, offset);
    maxBytes = qBound<qint64>(0, maxBytes, qint64(1) << 30); // one QByteArray
    // First line: the size; then the bytes [offset, offset + maxBytes) as they are (binary-safe).
    const QString f = shellQuote(path);
    const QString cmd = QStringLiteral("export LC_ALL=C; "
                                       "[ -e %1 ] || { echo 'No such file or directory' >&2; exit 2; }; "
                                       "[ -d %1 ] && { echo 'Is a directory' >&2; exit 2; }; "
                                       "s=$(wc -c < %1) || exit 3; echo $s; "
                                       "if [ %2 -lt $s ] && [ %3 -gt 0 ]; then tail -c +%4 %1 | head -c %3; fi")
                            .arg(f, QString::number(offset), QString::number(maxBytes), QString::number(offset + 1));
    ExecOptions o;
    o.timeoutMs = 60000;
    o.maxCaptureBytes = maxBytes + 64;
    const Result<ExecResult> ran = exec(cmd, o);
    if (!ran)
        return Result<launch::FileChunk>::failure(about(ran.diagnostics(), path));
    const ExecResult& r = ran.value();
    if (!r.ok())
        return Result<launch::FileChunk>::failure(Diagnostic::error(
            path, 0, 0,
            tr("%1: cannot read: %2")
                .arg(displayName(),
                     r.stdErr.trimmed().isEmpty() ? r.describe() : QString::fromLocal8Bit(r.stdErr).trimmed())));
    const qsizetype nl = r.stdOut.indexOf('\n');
    bool sizeOk = false;
    const qint64 size = nl > 0 ? r.stdOut.left(nl).trimmed().toLongLong(&sizeOk) : 0;
    if (!sizeOk)
        return Result<launch::FileChunk>::failure(
            Diagnostic::error(path, tr("%1: cannot read: unexpected answer from the head node").arg(displayName())));
    launch::FileChunk c;
    c.data = r.stdOut.mid(nl + 1, maxBytes);
    // The file may have grown between wc and tail: report at least what was read.
    c.fileSize = c.data.isEmpty() ? size : qMax(size, offset + c.data.size());
    return c;
}

Status SshTransport::writeFile(const QString& path, const QByteArray& data, int mode)
{
    // Parents with the default umask; the data goes to a private temporary file (umask 077) whose length
    // and hash are checked before it gets its mode and replaces the target atomically: a write cut
    // short by a dropped connection never replaces the file.
    const QString cmd = verifiedReplaceScript(shellQuote(path), mode, data.size(),
                                              QCryptographicHash::hash(data, QCryptographicHash::Sha256).toHex());
    ExecOptions o;
    o.timeoutMs = 120000;
    o.stdinData = data;
    const Result<ExecResult> ran = exec(cmd, o);
    if (!ran)
        return Status::failure(about(ran.diagnostics(), path));
    const ExecResult& r = ran.value();
    if (!r.ok())
        return Status::failure(Diagnostic::error(
            path, 0, 0,
            tr("%1: cannot write: %2")
                .arg(displayName(),
                     r.stdErr.trimmed().isEmpty() ? r.describe() : QString::fromLocal8Bit(r.stdErr).trimmed())));
    return Done{};
}

bool SshTransport::exists(const QString& path)
{
    const Result<ExecResult> r = exec(QStringLiteral("test -e ") + shellQuote(path), ExecOptions::withTimeout(30000));
    return r && r->ok();
}

launch::SignalResult SshTransport::signalProcessGroup(qint64 pgid, int signal)
{
    if (pgid <= 1 || signal < 0)
        return launch::SignalResult::Failed;
    // `kill -SIG -PGID` (dash's kill takes no "--"). Exit 0: a process of the group that is not a zombie exists; 1:
    // none; 3: cannot tell (no /proc).
    const QString live = launch::groupLivenessShellFunction();
    QString cmd;
    if (signal == 0)
        cmd =
            live + QStringLiteral("kill -0 -%1 2>/dev/null || exit 1; td_live %1; r=$?; [ $r = 3 ] && exit 0; exit $r")
                       .arg(pgid);
    else
        cmd = live + QStringLiteral("export LC_ALL=C; kill -%1 -%2 && exit 0; td_live %2; [ $? = 1 ] && exit 1; exit 4")
                         .arg(signal)
                         .arg(pgid);
    const Result<ExecResult> r = exec(cmd, ExecOptions::withTimeout(30000));
    if (!r || r->status != ExecResult::Status::Exited)
        return launch::SignalResult::Failed;
    switch (r->exitCode) {
    case 0: return launch::SignalResult::Delivered;
    case 1: return launch::SignalResult::NoSuchProcess;
    default: return launch::SignalResult::Failed;
    }
}

Result<launch::ProbeAnswer> SshTransport::probe(const launch::ProbeRequest& request)
{
    // One command for every read: one round trip, one start of the login shell (a ~/.bashrc that takes a
    // second costs one second per poll, not one per file).
    ExecOptions o;
    o.timeoutMs = 60000;
    o.maxCaptureBytes = 4096;
    for (const launch::FileRead& r : request.reads)
        o.maxCaptureBytes += qBound<qint64>(0, r.maxBytes, qint64(1) << 30) + 64;
    const Result<ExecResult> ran = exec(launch::probeScript(request), o);
    if (!ran)
        return Result<launch::ProbeAnswer>::failure(about(ran.diagnostics(), request.dir));
    if (!ran->ok())
        return Result<launch::ProbeAnswer>::failure(Diagnostic::error(
            request.dir, 0, 0,
            tr("%1: cannot read the run directory: %2")
                .arg(displayName(), ran->stdErr.trimmed().isEmpty() ? ran->describe()
                                                                    : QString::fromLocal8Bit(ran->stdErr).trimmed())));
    return launch::parseProbeOutput(request, ran->stdOut, displayName());
}

launch::RemoteTransportFactory sshTransportFactory(SshTransportOptions options)
{
    return [options](const cluster::ClusterProfile& profile) -> Result<std::shared_ptr<launch::Transport>> {
        if (profile.nodes.isEmpty())
            return Result<std::shared_ptr<launch::Transport>>::failure(Diagnostic::keyError(
                profile.name, QStringLiteral("nodes"), SshTransport::tr("the profile has no nodes")));
        auto t = SshTransport::forProfile(profile, options);
        const Status connected = t->connect();
        if (!connected)
            return Result<std::shared_ptr<launch::Transport>>::failure(connected.diagnostics());
        return std::shared_ptr<launch::Transport>(std::move(t));
    };
}

} // namespace traindeck::ssh
