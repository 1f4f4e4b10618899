#include "launch/transport.h"

#include "cluster/clusterprofile.h"
#include "common/processgroup.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHostInfo>
#include <QProcess>
#include <QSaveFile>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <optional>
#include <sys/stat.h>
#include <unistd.h>

namespace traindeck::launch {

namespace {
struct Tr {
    Q_DECLARE_TR_FUNCTIONS(traindeck::launch::Transport)
};

Diagnostic error(const QString& file, const QString& message)
{
    return Diagnostic::error(file, message);
}

// Splits complete lines off buf and hands them to onLine.
void emitLines(QByteArray& buf, Transport::Stream s, const Transport::LineCallback& onLine, bool flushAll)
{
    qsizetype start = 0;
    for (;;) {
        const qsizetype nl = buf.indexOf('\n', start);
        if (nl < 0)
            break;
        if (onLine)
            onLine(s, buf.mid(start, nl - start));
        start = nl + 1;
    }
    buf.remove(0, start);
    if (flushAll && !buf.isEmpty()) {
        if (onLine)
            onLine(s, buf);
        buf.clear();
    }
}

} // namespace

Transport::~Transport() = default;

QString startTimeShellCommand(const QString& pidWord)
{
    // Everything up to the last ") " is "pid (comm)"; field 3 (the state) is then $1, field 22 is ${20}.
    return QStringLiteral("{ read -r l < /proc/%1/stat && l=${l##*\") \"} && set -- $l && printf %s \"${20}\"; } "
                          "2>/dev/null")
        .arg(pidWord);
}

std::optional<qint64> startTimeFromStat(const QByteArray& stat)
{
    const qsizetype paren = stat.lastIndexOf(')');
    if (paren < 0)
        return std::nullopt;
    const QList<QByteArray> fields = stat.mid(paren + 2).trimmed().split(' '); // field 3 first
    bool ok = false;
    const qint64 start = fields.size() > 19 ? fields.at(19).toLongLong(&ok) : -1;
    return ok ? std::optional<qint64>(start) : std::nullopt;
}

Result<bool> Transport::createDirectory(const QString& path, int mode)
{
    const QString d = shellQuote(path);
    // 0: created here; 1: it was there; otherwise mkdir's own message.
    const QString cmd =
        QStringLiteral("mkdir -p -- \"$(dirname -- %1)\" || exit 3; "
                       "mkdir -m %2 -- %1 2>/dev/null && exit 0; [ -e %1 ] && exit 1; mkdir -m %2 -- %1")
            .arg(d, QString::number(mode & 07777, 8));
    const Result<ExecResult> r = run(cmd, 20000);
    if (!r)
        return Result<bool>::failure(r.diagnostics());
    if (r->exitCode == 0 || r->exitCode == 1)
        return r->exitCode == 0;
    return Result<bool>::failure(error(
        path,
        Tr::tr("%1: cannot create the directory: %2").arg(displayName(), QString::fromLocal8Bit(r->err).trimmed())));
}

Result<ProcessIdentity> Transport::processIdentity(qint64 pid)
{
    const QString cmd = QStringLiteral("export LC_ALL=C; b=$(cat /proc/sys/kernel/random/boot_id) || exit 3; "
                                       "echo \"B $b\"; echo \"T $(awk '$1 == \"btime\" { print $2 }' /proc/stat)\"; "
                                       "s=$(%1); echo \"S $s\"")
                            .arg(startTimeShellCommand(QString::number(pid)));
    const Result<ExecResult> r = run(cmd, 20000);
    if (!r)
        return Result<ProcessIdentity>::failure(r.diagnostics());
    if (r->exitCode != 0)
        return Result<ProcessIdentity>::failure(
            error(QStringLiteral("/proc"),
                  Tr::tr("%1: cannot read the boot id (exit %2): %3")
                      .arg(displayName(), QString::number(r->exitCode), QString::fromLocal8Bit(r->err).trimmed())));
    ProcessIdentity id;
    for (const QByteArray& line : r->out.split('\n')) {
        const QByteArray value = line.mid(2).trimmed();
        bool ok = false;
        const qint64 number = value.toLongLong(&ok);
        if (line.startsWith("B "))
            id.bootId = QString::fromLatin1(value);
        else if (line.startsWith("T ") && ok)
            id.bootTime = number;
        else if (line.startsWith("S ") && ok)
            id.startTime = number;
    }
    return id;
}

QString LocalTransport::displayName() const
{
    return QStringLiteral("localhost");
}

bool LocalTransport::runsAsRoot() const
{
    return ::geteuid() == 0;
}

Result<ExecResult> LocalTransport::run(const QString& shellCommand, int timeoutMs, const LineCallback& onLine)
{
    QProcess p;
    p.setStandardInputFile(QProcess::nullDevice());
    startInOwnProcessGroup(p);
    p.start(QStringLiteral("/bin/sh"), {QStringLiteral("-c"), shellCommand});
    if (!p.waitForStarted(10000))
        return Result<ExecResult>::failure(
            error(QStringLiteral("/bin/sh"), Tr::tr("cannot start: %1").arg(p.errorString())));
    const qint64 leader = p.processId();
    ExecResult r;
    QByteArray outBuf, errBuf;
    const QDeadlineTimer deadline(timeoutMs);
    auto drain = [&] {
        const QByteArray o = p.readAllStandardOutput();
        const QByteArray e = p.readAllStandardError();
        r.out += o;
        r.err += e;
        outBuf += o;
        errBuf += e;
        emitLines(outBuf, Stream::Out, onLine, false);
        emitLines(errBuf, Stream::Err, onLine, false);
    };
    while (p.state() != QProcess::NotRunning) {
        if (deadline.hasExpired()) {
            r.timedOut = true;
            endProcessGroup(p, leader);
            break;
        }
        p.waitForReadyRead(int(qMin<qint64>(200, qMax<qint64>(1, deadline.remainingTime()))));
        drain();
    }
    drain();
    emitLines(outBuf, Stream::Out, onLine, true);
    emitLines(errBuf, Stream::Err, onLine, true);
    r.exitCode = (!r.timedOut && p.exitStatus() == QProcess::NormalExit) ? p.exitCode() : -1;
    return r;
}

Status LocalTransport::startDetached(const QString& scriptPath)
{
    if (!QFileInfo(scriptPath).isFile())
        return Status::failure(error(scriptPath, Tr::tr("no such script")));
    // setsid -f: fork, new session (the script's pid is its process group), return at once.
    const QString cmd = QStringLiteral("setsid -f /bin/sh %1 </dev/null >/dev/null 2>&1").arg(shellQuote(scriptPath));
    const Result<ExecResult> r = run(cmd, 15000);
    if (!r)
        return Status::failure(r.diagnostics());
    if (r->exitCode != 0)
        return Status::failure(error(
            scriptPath,
            Tr::tr("setsid failed (exit %1): %2").arg(r->exitCode).arg(QString::fromLocal8Bit(r->err).trimmed())));
    return Done{};
}

Result<FileChunk> LocalTransport::readFile(const QString& path, qint64 offset, qint64 maxBytes)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return Result<FileChunk>::failure(error(path, Tr::tr("cannot read: %1").arg(f.errorString())));
    FileChunk c;
    c.fileSize = f.size();
    if (offset < c.fileSize && maxBytes > 0) {
        if (!f.seek(offset))
            return Result<FileChunk>::failure(
                error(path, Tr::tr("cannot seek to %1: %2").arg(offset).arg(f.errorString())));
        c.data = f.read(qMin(maxBytes, c.fileSize - offset));
        // The file may have grown since size(): report at least what was read.
        c.fileSize = qMax(c.fileSize, offset + c.data.size());
    }
    return c;
}

Status LocalTransport::writeFile(const QString& path, const QByteArray& data, int mode)
{
    const QFileInfo info(path);
    if (!QDir().mkpath(info.absolutePath()))
        return Status::failure(error(info.absolutePath(), Tr::tr("cannot create directory")));
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(data) != data.size() || !f.commit())
        return Status::failure(error(path, Tr::tr("cannot write: %1").arg(f.errorString())));
    QFile::Permissions p;
    if (mode & 0400)
        p |= QFile::ReadOwner;
    if (mode & 0200)
        p |= QFile::WriteOwner;
    if (mode & 0100)
        p |= QFile::ExeOwner;
    if (mode & 0040)
        p |= QFile::ReadGroup;
    if (mode & 0020)
        p |= QFile::WriteGroup;
    if (mode & 0010)
        p |= QFile::ExeGroup;
    if (mode & 0004)
        p |= QFile::ReadOther;
    if (mode & 0002)
        p |= QFile::WriteOther;
    if (mode & 0001)
        p |= QFile::ExeOther;
    QFile::setPermissions(path, p);
    return Done{};
}

bool LocalTransport::exists(const QString& path)
{
    return QFileInfo::exists(path);
}

Result<bool> LocalTransport::createDirectory(const QString& path, int mode)
{
    const QString parent = QFileInfo(path).absolutePath();
    if (!QDir().mkpath(parent))
        return Result<bool>::failure(error(parent, Tr::tr("cannot create directory")));
    if (::mkdir(QFile::encodeName(path).constData(), mode_t(mode & 07777)) != 0) {
        if (errno == EEXIST)
            return false;
        return Result<bool>::failure(
            error(path, Tr::tr("cannot create the directory: %1").arg(QString::fromLocal8Bit(std::strerror(errno)))));
    }
    ::chmod(QFile::encodeName(path).constData(), mode_t(mode & 07777)); // exactly, whatever the umask
    return true;
}

Result<ProcessIdentity> LocalTransport::processIdentity(qint64 pid)
{
    QFile boot(QStringLiteral("/proc/sys/kernel/random/boot_id"));
    if (!boot.open(QIODevice::ReadOnly))
        return Result<ProcessIdentity>::failure(
            error(boot.fileName(), Tr::tr("cannot read: %1").arg(boot.errorString())));
    ProcessIdentity id;
    id.bootId = QString::fromLatin1(boot.readAll().trimmed());
    QFile stat(QStringLiteral("/proc/stat"));
    if (stat.open(QIODevice::ReadOnly)) {
        for (const QByteArray& line : stat.readAll().split('\n')) {
            if (line.startsWith("btime "))
                id.bootTime = line.mid(6).trimmed().toLongLong();
        }
    }
    QFile proc(QStringLiteral("/proc/%1/stat").arg(pid));
    if (pid > 0 && proc.open(QIODevice::ReadOnly))
        id.startTime = startTimeFromStat(proc.readAll());
    return id;
}

// Whether a process other than a zombie belongs to the group. kill(-pgid, 0) also counts zombies,
// and orphans stay zombies for good where PID 1 does not reap them (some containers).
static std::optional<bool> liveMemberOnLinux(qint64 pgid)
{
    const QDir proc(QStringLiteral("/proc"));
    if (!QFileInfo::exists(QStringLiteral("/proc/self/stat")))
        return std::nullopt;
    for (const QString& entry : proc.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        bool isPid = false;
        entry.toLongLong(&isPid);
        if (!isPid)
            continue;
        QFile f(QStringLiteral("/proc/") + entry + QStringLiteral("/stat"));
        if (!f.open(QIODevice::ReadOnly))
            continue;
        const QByteArray s = f.read(1024);
        const qsizetype paren = s.lastIndexOf(')');
        if (paren < 0)
            continue;
        const QList<QByteArray> fields = s.mid(paren + 2).split(' '); // state ppid pgrp ...
        if (fields.size() > 2 && fields[2].toLongLong() == pgid && fields[0] != "Z" && fields[0] != "X")
            return true;
    }
    return false;
}

SignalResult LocalTransport::signalProcessGroup(qint64 pgid, int signal)
{
    if (pgid <= 1)
        return SignalResult::Failed;
    if (signal == 0) {
        if (::kill(pid_t(-pgid), 0) != 0)
            return errno == ESRCH ? SignalResult::NoSuchProcess : SignalResult::Failed;
        const std::optional<bool> live = liveMemberOnLinux(pgid);
        return (!live || *live) ? SignalResult::Delivered : SignalResult::NoSuchProcess;
    }
    if (::kill(pid_t(-pgid), signal) == 0)
        return SignalResult::Delivered;
    return errno == ESRCH ? SignalResult::NoSuchProcess : SignalResult::Failed;
}

bool isLocalProfile(const cluster::ClusterProfile& profile)
{
    if (profile.isLocal)
        return true;
    if (profile.nodes.isEmpty())
        return false;
    const QString head = profile.head().host.toLower();
    return head == QLatin1String("localhost") || head == QLatin1String("127.0.0.1") || head == QLatin1String("::1") ||
           head == QHostInfo::localHostName().toLower();
}

Result<std::shared_ptr<Transport>> transportFor(const cluster::ClusterProfile& profile,
                                                const RemoteTransportFactory& remote)
{
    if (isLocalProfile(profile))
        return std::shared_ptr<Transport>(std::make_shared<LocalTransport>());
    if (remote)
        return remote(profile);
    return Result<std::shared_ptr<Transport>>::failure(
        Diagnostic::keyError(profile.name, QStringLiteral("nodes"),
                             Tr::tr("the head node %1 is remote and this build has no SSH transport yet; run "
                                    "traindeck-cli on the head node itself")
                                 .arg(profile.head().host)));
}

} // namespace traindeck::launch
