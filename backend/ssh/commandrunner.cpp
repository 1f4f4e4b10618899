#include "ssh/commandrunner.h"

#include "common/processgroup.h"
#include "ssh/sshsession.h"

#include <QElapsedTimer>
#include <QProcess>

#include <csignal>
#include <unistd.h>

namespace traindeck::ssh {

QString signalName(int signal)
{
    switch (signal) {
    case SIGHUP: return QStringLiteral("HUP");
    case SIGINT: return QStringLiteral("INT");
    case SIGQUIT: return QStringLiteral("QUIT");
    case SIGILL: return QStringLiteral("ILL");
    case SIGABRT: return QStringLiteral("ABRT");
    case SIGFPE: return QStringLiteral("FPE");
    case SIGKILL: return QStringLiteral("KILL");
    case SIGSEGV: return QStringLiteral("SEGV");
    case SIGPIPE: return QStringLiteral("PIPE");
    case SIGALRM: return QStringLiteral("ALRM");
    case SIGTERM: return QStringLiteral("TERM");
    case SIGUSR1: return QStringLiteral("USR1");
    case SIGUSR2: return QStringLiteral("USR2");
    case SIGBUS: return QStringLiteral("BUS");
    default: return QString::number(signal);
    }
}

ExecResult SshRunner::run(const QString& command, const ExecOptions& options)
{
    return m_session.exec(command, options);
}

QString SshRunner::name() const
{
    return m_session.target().displayName();
}

namespace {

void feedLines(QByteArray& pending, const QByteArray& data, const std::function<void(const QByteArray&)>& sink)
{
    if (!sink)
        return;
    pending.append(data);
    qsizetype start = 0;
    for (;;) {
        const qsizetype nl = pending.indexOf('\n', start);
        if (nl < 0)
            break;
        QByteArray line = pending.mid(start, nl - start);
        if (line.endsWith('\r'))
            line.chop(1);
        sink(line);
        start = nl + 1;
    }
    pending.remove(0, start);
}

} // namespace

ExecResult LocalRunner::run(const QString& command, const ExecOptions& options)
{
    ExecResult r;
    QElapsedTimer timer;
    timer.start();
    QProcess p;
    p.setProgram(QStringLiteral("/bin/sh"));
    p.setArguments({QStringLiteral("-c"), command});
    startInOwnProcessGroup(p);
    p.start();
    if (!p.waitForStarted(10000)) {
        r.status = ExecResult::Status::Failed;
        r.error = Diagnostic::codedError(codes::Channel, tr("local: cannot start /bin/sh: %1").arg(p.errorString()));
        return r;
    }
    const qint64 pid = p.processId();
    if (!options.stdinData.isEmpty())
        p.write(options.stdinData);
    if (options.stdinDevice) {
        while (!options.stdinDevice->atEnd()) {
            const QByteArray chunk = options.stdinDevice->read(256 * 1024);
            if (chunk.isEmpty())
                break;
            p.write(chunk);
            p.waitForBytesWritten(-1);
        }
    }
    p.closeWriteChannel();

    QByteArray outPending, errPending;
    auto drain = [&] {
        const QByteArray out = p.readAllStandardOutput();
        const QByteArray err = p.readAllStandardError();
        for (int i = 0; i < 2; ++i) {
            const QByteArray& data = i == 0 ? out : err;
            if (data.isEmpty())
                continue;
            QByteArray& cap = i == 0 ? r.stdOut : r.stdErr;
            (i == 0 ? r.stdOutBytes : r.stdErrBytes) += data.size();
            if (options.captureOutput && cap.size() < options.maxCaptureBytes)
                cap.append(data.left(options.maxCaptureBytes - cap.size()));
            feedLines(i == 0 ? outPending : errPending, data, i == 0 ? options.onStdoutLine : options.onStderrLine);
        }
    };
    auto stop = [&] { endProcessGroup(p, pid); };
    bool finished = false;
    while (!finished) {
        if (options.cancel.isCancelled()) {
            stop();
            r.status = ExecResult::Status::Cancelled;
            r.error = Diagnostic::codedError(codes::Cancelled, tr("local: cancelled"));
            break;
        }
        if (options.timeoutMs > 0 && timer.elapsed() >= options.timeoutMs) {
            stop();
            r.status = ExecResult::Status::TimedOut;
            r.error = Diagnostic::codedError(
                codes::Timeout, tr("local: the command did not finish within %1 s").arg(options.timeoutMs / 1000.0));
            break;
        }
        finished = p.waitForFinished(50) || p.state() == QProcess::NotRunning;
        drain();
    }
    drain();
    if (options.onStdoutLine && !outPending.isEmpty())
        options.onStdoutLine(outPending);
    if (options.onStderrLine && !errPending.isEmpty())
        options.onStderrLine(errPending);
    if (finished) {
        if (p.exitStatus() == QProcess::CrashExit) {
            r.status = ExecResult::Status::Signalled;
            r.exitSignal = signalName(p.exitCode());
        } else {
            r.status = ExecResult::Status::Exited;
            r.exitCode = p.exitCode();
        }
    }
    r.elapsedMs = timer.elapsed();
    return r;
}

} // namespace traindeck::ssh
