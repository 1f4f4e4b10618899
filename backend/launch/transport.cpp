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

QString groupLivenessShellFunction()
{
    // Field 3 of /proc/PID/stat is the state, field 5 the process group ($1 and $3 after the cut).
    return QStringLiteral("td_live() { td_g=$1; [ -r /proc/self/stat ] || return 3; "
                          "for td_f in /proc/[0-9]*/stat; do "
                          "read -r td_l 2>/dev/null < \"$td_f\" || continue; "
                          "set -- ${td_l##*\") \"}; "
                          "[ \"$3\" = \"$td_g\" ] && [ \"$1\" != Z ] && [ \"$1\" != X ] && return 0; "
                          "done; return 1; }; ");
}

namespace {
// The first word of a pid file, when it is a pid above 1.
qint64 pidFromText(const QByteArray& text)
{
    bool ok = false;
    const qint64 pid = text.simplified().split(' ').value(0).toLongLong(&ok);
    return ok && pid > 1 ? pid : -1;
}
} // namespace

Result<ProbeAnswer> Transport::probe(const ProbeRequest& request)
{
    ProbeAnswer a;
    for (int i = 0; i < request.reads.size(); ++i) {
        const FileRead& r = request.reads.at(i);
        ProbedFile f;
        Result<FileChunk> c = readFile(r.path, r.offset, r.maxBytes);
        if (c) {
            f.status = ProbedFile::Status::Read;
            f.chunk = std::move(c.value());
        } else {
            f.status = exists(r.path) ? ProbedFile::Status::Unreadable : ProbedFile::Status::Missing;
        }
        a.files.append(f);
        if (i != request.pidRead || f.status != ProbedFile::Status::Read)
            continue;
        a.checkedPid = pidFromText(f.chunk.data);
        if (a.checkedPid <= 0)
            continue;
        if (const Result<ProcessIdentity> id = processIdentity(a.checkedPid))
            a.identity = id.value();
        a.group = signalProcessGroup(a.checkedPid, 0);
    }
    a.dirSeen = exists(request.dir); // after the reads (see probeScript)
    return a;
}

QString probeScript(const ProbeRequest& request)
{
    // Per read: "M" (missing), "U" (there, not readable) or "R SIZE N", then N bytes, "\n", "E". The
    // pid check: "P PID", "B BOOT_ID" ("B -": cannot tell), "T BTIME", "S START", "L 0|1|3"; after the
    // reads "D 0|1" (the directory). The first line is a marker (a login script may print before it) and
    // the last one "Z" (nothing was cut).
    QString s = QStringLiteral(
        "export LC_ALL=C; echo TDPROBE; "
        "td_t=$(mktemp 2>/dev/null) || { echo 'cannot create a temporary file' >&2; exit 3; }; "
        "trap 'rm -f \"$td_t\"' EXIT; "
        // The bytes go through a file of their own: one open of the file read, so a
        // file replaced meanwhile (tmp + mv) gives the new file's bytes, never a mix
        // cut to the old one's length; their count is known before they are sent.
        "td_read() { "
        "if [ ! -e \"$1\" ]; then echo M; return 0; fi; "
        "if [ -d \"$1\" ] || ! td_s=$(wc -c 2>/dev/null < \"$1\"); then echo U; return 0; fi; "
        ": > \"$td_t\"; "
        "if [ \"$3\" -gt 0 ]; then tail -c +$(($2 + 1)) \"$1\" 2>/dev/null | head -c \"$3\" > \"$td_t\"; fi; "
        "td_n=$(wc -c < \"$td_t\"); "
        "echo \"R $((td_s)) $((td_n))\"; cat \"$td_t\"; "
        "echo; echo E; }; ");
    s += groupLivenessShellFunction();
    for (int i = 0; i < request.reads.size(); ++i) {
        const FileRead& r = request.reads.at(i);
        const QString path = shellQuote(r.path);
        s += QStringLiteral("td_read %1 %2 %3; ")
                 .arg(path, QString::number(qMax<qint64>(0, r.offset)), QString::number(qMax<qint64>(0, r.maxBytes)));
        if (i != request.pidRead)
            continue;
        s += QStringLiteral("td_p=; read -r td_p td_rest 2>/dev/null < %1; "
                            "case \"$td_p\" in ''|*[!0-9]*) td_p=0 ;; esac; "
                            "if [ \"$td_p\" -gt 1 ]; then echo \"P $td_p\"; "
                            "if td_b=$(cat /proc/sys/kernel/random/boot_id 2>/dev/null); then echo \"B $td_b\"; "
                            "echo \"T $(awk '$1 == \"btime\" { print $2 }' /proc/stat 2>/dev/null)\"; "
                            "echo \"S $(%2)\"; else echo 'B -'; fi; "
                            "if kill -0 -\"$td_p\" 2>/dev/null; then td_live \"$td_p\"; td_r=$?; "
                            "else td_r=1; fi; echo \"L $td_r\"; fi; ")
                 .arg(path, startTimeShellCommand(QStringLiteral("$td_p")));
    }
    // After the reads, as a failed read was followed by a look at the directory: one that went away
    // meanwhile makes the files "unknown", not "missing".
    s += QStringLiteral("if [ -e %1 ]; then echo 'D 1'; else echo 'D 0'; fi; ").arg(shellQuote(request.dir));
    s += QStringLiteral("echo Z");
    return s;
}

Result<ProbeAnswer> parseProbeOutput(const ProbeRequest& request, const QByteArray& out, const QString& host)
{
    auto bad = [&](const QString& why) {
        return Result<ProbeAnswer>::failure(
            error(request.dir, Tr::tr("%1: unexpected answer while reading the run directory: %2").arg(host, why)));
    };
    qsizetype at = out.startsWith("TDPROBE\n") ? 0 : out.indexOf("\nTDPROBE\n");
    if (at < 0)
        return bad(Tr::tr("no start marker"));
    at += out.startsWith("TDPROBE\n") ? 8 : 9;
    auto line = [&](QByteArray* l) {
        const qsizetype nl = out.indexOf('\n', at);
        if (nl < 0)
            return false;
        *l = out.mid(at, nl - at);
        at = nl + 1;
        return true;
    };
    auto peek = [&] {
        const qsizetype nl = out.indexOf('\n', at);
        return nl < 0 ? QByteArray() : out.mid(at, nl - at);
    };
    ProbeAnswer a;
    QByteArray l;
    for (int i = 0; i < request.reads.size(); ++i) {
        const QString path = request.reads.at(i).path;
        if (!line(&l))
            return bad(Tr::tr("cut short before %1").arg(path));
        ProbedFile f;
        if (l == "M") {
            f.status = ProbedFile::Status::Missing;
        } else if (l == "U") {
            f.status = ProbedFile::Status::Unreadable;
        } else {
            const QList<QByteArray> w = l.split(' ');
            bool sizeOk = false, countOk = false;
            const qint64 size = w.value(1).toLongLong(&sizeOk);
            const qint64 n = w.value(2).toLongLong(&countOk);
            if (w.size() != 3 || w.at(0) != "R" || !sizeOk || !countOk || n < 0 || at + n + 3 > out.size() ||
                out.mid(at + n, 3) != "\nE\n")
                return bad(
                    Tr::tr("the bytes of %1 do not match their count (the file changed while it was read?)").arg(path));
            f.status = ProbedFile::Status::Read;
            f.chunk.data = out.mid(at, n);
            // The file may have grown between wc and tail: at least what was read.
            f.chunk.fileSize = n == 0 ? size : qMax(size, request.reads.at(i).offset + n);
            at += n + 3;
        }
        a.files.append(f);
        if (i != request.pidRead || !peek().startsWith("P "))
            continue;
        line(&l);
        bool ok = false;
        a.checkedPid = l.mid(2).toLongLong(&ok);
        if (!ok)
            return bad(Tr::tr("no pid"));
        if (!line(&l) || !l.startsWith("B "))
            return bad(Tr::tr("no boot id"));
        if (l != "B -") {
            ProcessIdentity id;
            id.bootId = QString::fromLatin1(l.mid(2).trimmed());
            if (!line(&l) || !l.startsWith("T "))
                return bad(Tr::tr("no boot time"));
            const qint64 bootTime = l.mid(2).trimmed().toLongLong(&ok);
            if (ok)
                id.bootTime = bootTime;
            if (!line(&l) || !l.startsWith("S "))
                return bad(Tr::tr("no start time"));
            const qint64 start = l.mid(2).trimmed().toLongLong(&ok);
            if (ok)
                id.startTime = start;
            a.identity = id;
        }
        if (!line(&l) || !l.startsWith("L "))
            return bad(Tr::tr("no liveness"));
        const QByteArray code = l.mid(2).trimmed();
        // As signalProcessGroup(pid, 0) over SSH: without /proc, kill -0's word stands.
        a.group = code == "0" || code == "3" ? SignalResult::Delivered
                  : code == "1"              ? SignalResult::NoSuchProcess
                                             : SignalResult::Failed;
    }
    if (!line(&l) || (l != "D 0" && l != "D 1"))
        return bad(Tr::tr("no directory line"));
    a.dirSeen = l == "D 1";
    if (!line(&l) || l != "Z")
        return bad(Tr::tr("no end marker"));
    return a;
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
