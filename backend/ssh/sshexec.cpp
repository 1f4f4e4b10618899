// SshSession::exec and its steps: open a session channel, start the command (behind the process-group
// marker), write stdin, read stdout/stderr until EOF with timeout, cancellation and keepalive, then
// collect the exit status or signal. The channel is released when the ExecRun goes out of scope.
#include "ssh/sshsession.h"

#include <QElapsedTimer>
#include <QIODevice>
#include <QRandomGenerator>

#include <libssh/callbacks.h>
#include <libssh/libssh.h>
#include <libssh/server.h> // ssh_send_keepalive (client and server)

#include <algorithm>

namespace traindeck::ssh {

namespace {

QString fromC(const char* s)
{
    return s ? QString::fromUtf8(s) : QString();
}

// How far into stderr the process-group marker is looked for (a login's output on stderr comes first).
constexpr qsizetype kMarkerSearchBytes = 64 * 1024;

// Splits a byte stream into lines for the streaming callbacks.
class LineSplitter {
  public:
    explicit LineSplitter(const std::function<void(const QByteArray&)>& sink) : m_sink(sink) {}
    void feed(const char* data, int n)
    {
        if (!m_sink)
            return;
        int start = 0;
        for (int i = 0; i < n; ++i) {
            if (data[i] == '\n') {
                m_pending.append(data + start, i - start);
                emitLine();
                start = i + 1;
            }
        }
        m_pending.append(data + start, n - start);
    }
    void finish()
    {
        if (m_sink && !m_pending.isEmpty())
            emitLine();
    }

  private:
    void emitLine()
    {
        if (m_pending.endsWith('\r'))
            m_pending.chop(1);
        m_sink(m_pending);
        m_pending.clear();
    }
    const std::function<void(const QByteArray&)>& m_sink;
    QByteArray m_pending;
};

// The command's stdout and stderr: counted, captured up to the limit, split into lines for the
// callbacks, and stderr scanned for the process-group marker, which is taken out.
class CommandOutput {
  public:
    CommandOutput(const ExecOptions& options, ExecResult& r, QByteArray markerTag)
        : m_options(options), m_r(r), m_outLines(options.onStdoutLine), m_errLines(options.onStderrLine),
          m_markerTag(std::move(markerTag)), m_markerPending(options.killOnCancel)
    {
    }

    // Stderr is held back until the marker line is complete (or the search gives up); what came
    // before and after it is delivered as it was.
    void take(const char* data, int n, bool isStderr)
    {
        if (!isStderr || !m_markerPending) {
            deliver(data, n, isStderr);
            return;
        }
        m_markerBuf.append(data, n);
        const qsizetype at = m_markerBuf.indexOf(m_markerTag);
        const qsizetype nl = at >= 0 ? m_markerBuf.indexOf('\n', at) : -1;
        if (nl < 0 && m_markerBuf.size() < kMarkerSearchBytes)
            return;
        m_markerPending = false;
        QByteArray rest = m_markerBuf;
        if (nl >= 0) {
            m_pgid = m_markerBuf.mid(at + m_markerTag.size(), nl - at - m_markerTag.size()).toLongLong();
            rest = m_markerBuf.left(at) + m_markerBuf.mid(nl + 1);
        }
        m_markerBuf.clear();
        deliver(rest.constData(), rest.size(), true);
    }
    void finish()
    {
        if (m_markerPending) { // ended before a complete marker: nothing of stderr is lost
            m_markerPending = false;
            deliver(m_markerBuf.constData(), m_markerBuf.size(), true);
            m_markerBuf.clear();
        }
        m_outLines.finish();
        m_errLines.finish();
    }
    // The remote process group announced by the marker (0 before it or without one).
    qint64 pgid() const { return m_pgid; }

  private:
    void deliver(const char* data, qint64 n, bool isStderr)
    {
        if (n <= 0)
            return;
        QByteArray& cap = isStderr ? m_r.stdErr : m_r.stdOut;
        (isStderr ? m_r.stdErrBytes : m_r.stdOutBytes) += n;
        if (m_options.captureOutput && cap.size() < m_options.maxCaptureBytes)
            cap.append(data, int(qMin<qint64>(n, m_options.maxCaptureBytes - cap.size())));
        (isStderr ? m_errLines : m_outLines).feed(data, int(n));
    }

    const ExecOptions& m_options;
    ExecResult& m_r;
    LineSplitter m_outLines;
    LineSplitter m_errLines;
    const QByteArray m_markerTag;
    bool m_markerPending;
    QByteArray m_markerBuf;
    qint64 m_pgid = 0;
};

struct ExitInfo {
    bool haveStatus = false;
    int status = -1;
    bool haveSignal = false;
    QString signal;
    bool core = false;
};

void onExitStatus(ssh_session, ssh_channel, int status, void* userdata)
{
    auto* info = static_cast<ExitInfo*>(userdata);
    info->haveStatus = true;
    info->status = status;
}

void onExitSignal(ssh_session, ssh_channel, const char* signal, int core, const char*, const char*, void* userdata)
{
    auto* info = static_cast<ExitInfo*>(userdata);
    info->haveSignal = true;
    info->signal = fromC(signal);
    info->core = core != 0;
}

// Over a second channel: SIGTERM to the process group, SIGKILL two seconds later (in the background).
void killRemoteGroupOn(ssh_session s, qint64 pgid)
{
    ssh_channel k = ssh_channel_new(s);
    if (!k)
        return;
    if (ssh_channel_open_session(k) == SSH_OK) {
        const QByteArray cmd = QStringLiteral("kill -TERM -%1 2>/dev/null; (sleep 2; kill -KILL -%1 2>/dev/null) "
                                              "</dev/null >/dev/null 2>&1 &")
                                   .arg(pgid)
                                   .toUtf8();
        if (ssh_channel_request_exec(k, cmd.constData()) == SSH_OK) {
            ssh_channel_send_eof(k);
            char buf[256];
            QElapsedTimer t;
            t.start();
            while (!ssh_channel_is_eof(k) && t.elapsed() < 3000) {
                if (ssh_channel_read_timeout(k, buf, sizeof buf, 0, 100) == SSH_ERROR)
                    break;
            }
        }
        ssh_channel_close(k);
    }
    ssh_channel_free(k);
}

} // namespace

// One command: its channel (with the exit callbacks pointing into this object), its output and its
// result. Not movable: libssh holds the address of `callbacks`.
struct SshSession::ExecRun {
    explicit ExecRun(const ExecOptions& execOptions) : options(execOptions) { timer.start(); }
    ExecRun(const ExecRun&) = delete;
    ExecRun& operator=(const ExecRun&) = delete;
    // The callbacks point into this object: detach them before the channel is freed (libssh keeps a
    // locally freed channel until the server closes it, and late exit messages would land in the next
    // command's frame).
    ~ExecRun()
    {
        if (!ch)
            return;
        ssh_remove_channel_callbacks(ch, &callbacks);
        if (ssh_channel_is_open(ch))
            ssh_channel_close(ch);
        ssh_channel_free(ch);
    }

    ExecResult failed(const QString& code, const QString& message)
    {
        r.status = ExecResult::Status::Failed;
        r.error = Diagnostic::codedError(code, message);
        r.elapsedMs = timer.elapsed();
        return r;
    }
    QString linkCode() const { return ssh_is_connected(s) ? codes::Channel : codes::LinkLost; }

    const ExecOptions& options;
    ssh_session s = nullptr;
    QElapsedTimer timer;
    ExecResult r;
    ssh_channel ch = nullptr;
    ExitInfo info;
    ssh_channel_callbacks_struct callbacks{};
    std::unique_ptr<CommandOutput> output; // from startCommand() on
};

void SshSession::killRemoteGroup(qint64 pgid)
{
    if (isConnected())
        killRemoteGroupOn(static_cast<ssh_session>(nativeHandle()), pgid);
}

ExecResult SshSession::exec(const QString& command, const ExecOptions& options)
{
    ExecRun run(options);
    if (!isConnected() || !m_authenticated)
        return run.failed(codes::Protocol, tr("%1: not connected").arg(m_target.displayName()));
    run.s = static_cast<ssh_session>(nativeHandle());
    if (!openExecChannel(run))
        return run.r;
    if (!startCommand(run, command))
        return run.r;
    writeStdin(run);
    const ExecEnd end = readOutput(run);
    run.output->finish();
    if (end == ExecEnd::LinkLost) {
        run.r.elapsedMs = run.timer.elapsed();
        run.r.status = ExecResult::Status::Failed;
        run.r.error = Diagnostic::codedError(
            codes::LinkLost,
            tr("%1: connection lost while the command ran: %2")
                .arg(m_target.displayName(), fromC(ssh_get_error(run.s))),
            tr("The node did not answer for %1 s (keepalive). Check the network and whether the node is up.")
                .arg(m_target.keepaliveIntervalMs * qMax(1, m_target.keepaliveCountMax) / 1000.0));
        return run.r;
    }
    if (end == ExecEnd::Eof)
        collectExitStatus(run);
    run.r.elapsedMs = run.timer.elapsed();
    return run.r;
}

// A new channel with the exit status/signal callbacks, opened as a session.
bool SshSession::openExecChannel(ExecRun& run)
{
    ssh_session s = run.s;
    run.ch = ssh_channel_new(s);
    if (!run.ch) {
        run.failed(run.linkCode(),
                   tr("%1: cannot open a channel: %2").arg(m_target.displayName(), fromC(ssh_get_error(s))));
        return false;
    }
    run.callbacks.userdata = &run.info;
    run.callbacks.channel_exit_status_function = &onExitStatus;
    run.callbacks.channel_exit_signal_function = &onExitSignal;
    ssh_callbacks_init(&run.callbacks);
    ssh_set_channel_callbacks(run.ch, &run.callbacks);
    if (ssh_channel_open_session(run.ch) != SSH_OK) {
        run.failed(run.linkCode(),
                   tr("%1: cannot open a session channel: %2").arg(m_target.displayName(), fromC(ssh_get_error(s))));
        return false;
    }
    return true;
}

// The "exec" request, the command behind the process-group marker when options.killOnCancel.
bool SshSession::startCommand(ExecRun& run, const QString& command)
{
    // The command's process group (sshd makes the remote shell a session leader) is announced first
    // on stderr, so that cancel/timeout can kill it over a second channel: sshd refuses the "signal"
    // request for root logins (no post-auth privilege separation).
    // A login shell may print to stderr before the marker (a ~/.bashrc or ~/.ssh/rc that talks): the
    // marker carries a nonce and is looked for in the first kMarkerSearchBytes, not only on line one.
    const QByteArray markerTag =
        "TRAINDECK_PGID_" + QByteArray::number(QRandomGenerator::global()->generate64(), 16) + "=";
    const QByteArray wrapped =
        run.options.killOnCancel ? "echo " + markerTag + "$$ >&2; " + command.toUtf8() : command.toUtf8();
    if (ssh_channel_request_exec(run.ch, wrapped.constData()) != SSH_OK) {
        run.failed(run.linkCode(),
                   tr("%1: cannot start the command: %2").arg(m_target.displayName(), fromC(ssh_get_error(run.s))));
        return false;
    }
    run.output = std::make_unique<CommandOutput>(run.options, run.r, markerTag);
    return true;
}

// stdin (written before output is read: meant for small inputs and files streamed to `cat`), then
// EOF unless writing failed or was cancelled.
void SshSession::writeStdin(ExecRun& run)
{
    const ExecOptions& options = run.options;
    auto writeAll = [&](const char* data, qint64 n) {
        while (n > 0) {
            if (options.cancel.isCancelled() || m_cancel.isCancelled())
                return false;
            const int w = ssh_channel_write(run.ch, data, uint32_t(qMin<qint64>(n, 32768)));
            if (w <= 0)
                return false;
            data += w;
            n -= w;
        }
        return true;
    };
    bool stdinOk = true;
    if (!options.stdinData.isEmpty())
        stdinOk = writeAll(options.stdinData.constData(), options.stdinData.size());
    if (stdinOk && options.stdinDevice) {
        QByteArray chunk(256 * 1024, Qt::Uninitialized);
        for (;;) {
            const qint64 n = options.stdinDevice->read(chunk.data(), chunk.size());
            if (n <= 0)
                break;
            if (!(stdinOk = writeAll(chunk.constData(), n)))
                break;
        }
    }
    if (stdinOk)
        ssh_channel_send_eof(run.ch);
}

// The process group gets SIGTERM (sshd's "signal" request, and over a second channel when the
// marker named it) and the channel closes.
void SshSession::stopCommand(ExecRun& run)
{
    ssh_channel_request_send_signal(run.ch, "TERM");
    ssh_channel_close(run.ch);
    if (run.output->pgid() > 1)
        killRemoteGroup(run.output->pgid());
}

// Reads stdout and stderr until EOF on both, the link fails, or the command is cancelled or runs past
// its timeout (then it is stopped and the result says so). Sends keepalives while waiting.
SshSession::ExecEnd SshSession::readOutput(ExecRun& run)
{
    const ExecOptions& options = run.options;
    ssh_session s = run.s;
    ssh_channel ch = run.ch;
    ExecResult& r = run.r;
    QElapsedTimer& timer = run.timer;
    static thread_local char buf[65536];
    qint64 lastKeepalive = timer.elapsed();
    const int interval = m_target.keepaliveIntervalMs;
    for (;;) {
        if (options.cancel.isCancelled() || m_cancel.isCancelled()) {
            stopCommand(run);
            r.status = ExecResult::Status::Cancelled;
            r.error = Diagnostic::codedError(codes::Cancelled, tr("%1: cancelled").arg(m_target.displayName()));
            return ExecEnd::Stopped;
        }
        if (options.timeoutMs > 0 && timer.elapsed() >= options.timeoutMs) {
            stopCommand(run);
            r.status = ExecResult::Status::TimedOut;
            r.error = Diagnostic::codedError(
                codes::Timeout, tr("%1: the command did not finish within %2 s")
                                    .arg(m_target.displayName(), QString::number(options.timeoutMs / 1000.0)));
            return ExecEnd::Stopped;
        }
        int wait = 100;
        if (options.timeoutMs > 0)
            wait = int(std::clamp<qint64>(qint64(options.timeoutMs) - timer.elapsed(), 1, 100));
        int n = ssh_channel_read_timeout(ch, buf, sizeof buf, 0, wait);
        if (n > 0)
            run.output->take(buf, n, false);
        int m = 0;
        while ((m = ssh_channel_read_nonblocking(ch, buf, sizeof buf, 1)) > 0)
            run.output->take(buf, m, true);
        // SSH_EOF (from ssh_channel_poll) only means "nothing more on this stream".
        if (n == SSH_EOF)
            n = 0;
        if (m == SSH_EOF)
            m = 0;
        if (n == SSH_ERROR || m == SSH_ERROR || !ssh_is_connected(s))
            return ExecEnd::LinkLost;
        if (n == 0 && m == 0 && ssh_channel_is_eof(ch))
            return ExecEnd::Eof;
        if (interval > 0 && timer.elapsed() - lastKeepalive >= interval) {
            ssh_send_keepalive(s);
            lastKeepalive = timer.elapsed();
        }
    }
}

// After EOF: the exit status or signal, which may arrive after EOF (then it is waited for, or the close).
void SshSession::collectExitStatus(ExecRun& run)
{
    ExecResult& r = run.r;
    const ExitInfo& info = run.info;
    if (!info.haveStatus && !info.haveSignal)
        ssh_channel_get_exit_status(run.ch);
    if (info.haveSignal) {
        r.status = ExecResult::Status::Signalled;
        r.exitSignal = info.signal;
        r.coreDumped = info.core;
    } else if (info.haveStatus) {
        r.status = ExecResult::Status::Exited;
        r.exitCode = info.status;
    } else {
        r.status = ExecResult::Status::Failed;
        r.error =
            Diagnostic::codedError(ssh_is_connected(run.s) ? codes::Protocol : codes::LinkLost,
                                   tr("%1: the command ended without an exit status").arg(m_target.displayName()));
    }
}

} // namespace traindeck::ssh
