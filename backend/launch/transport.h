// Transport: the few operations the launcher and the monitor need on the machine that runs mpirun
// (the head node). LocalTransport does them on this machine; an SSH implementation (backend/ssh) does
// them over libssh. Every call is blocking and may be slow (network): GUI code calls them from a
// worker thread. Paths are absolute paths on the transport's machine. No call throws.
#pragma once

#include "common/result.h"
#include "common/shell.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

#include <functional>
#include <memory>
#include <optional>

namespace traindeck::cluster {
class ClusterProfile;
}

namespace traindeck::launch {

struct ExecResult {
    int exitCode = -1; // the command's exit status; -1 when it was killed by a signal or timed out
    bool timedOut = false;
    QByteArray out; // whole stdout (also passed line by line to onLine)
    QByteArray err; // whole stderr
};

struct FileChunk {
    QByteArray data;     // bytes [offset, offset + data.size())
    qint64 fileSize = 0; // size of the file when it was read
};

enum class SignalResult { Delivered, NoSuchProcess, Failed };

// What tells a process apart from a later one with the same pid: pid numbers are reused, and a reboot
// starts them over (docs/users/security.md, "Run directories").
struct ProcessIdentity {
    QString bootId;                  // /proc/sys/kernel/random/boot_id; empty when unknown
    qint64 bootTime = -1;            // btime of /proc/stat (Unix seconds); -1 when unknown
    std::optional<qint64> startTime; // field 22 of /proc/PID/stat (clock ticks after boot); unset: no such process
};

// Several reads and a liveness check in one request (Transport::probe): what following a run needs on
// every poll (rundir.h, pollRunDir). Over SSH that is one command, so one round trip and one start of the
// user's login shell, however many files it reads.
struct FileRead {
    QString path;
    qint64 offset = 0;
    qint64 maxBytes = 1 << 20;
};
struct ProbeRequest {
    QString dir;           // ProbeAnswer::dirSeen tells whether it exists
    QList<FileRead> reads; // read in this order
    // When >= 0: right after reads[pidRead], the identity and the group liveness of the pid that file
    // names (its first word), before the reads after it.
    int pidRead = -1;
};
struct ProbedFile {
    enum class Status { Read, Missing, Unreadable };
    Status status = Status::Unreadable; // Unreadable: the file exists (or could not be looked for) but was not read
    FileChunk chunk;                    // when Read
};
struct ProbeAnswer {
    bool dirSeen = false;
    QList<ProbedFile> files;                 // one per read, in the request's order
    qint64 checkedPid = -1;                  // the pid the identity and the liveness are about; -1: none was checked
    std::optional<ProcessIdentity> identity; // unset: could not ask
    SignalResult group = SignalResult::Failed;
};

class Transport {
  public:
    enum class Stream { Out, Err };
    // Called once per complete output line (without '\n'; a last unterminated line is passed too).
    using LineCallback = std::function<void(Stream, const QByteArray& line)>;

    virtual ~Transport();

    // "localhost" or the SSH target ("user@host"); used in messages.
    virtual QString displayName() const = 0;
    // True when paths are on this machine (no mirror needed).
    virtual bool isLocal() const = 0;
    // True when processes started by this transport run as root (mpirun then needs OMPI_ALLOW_RUN_AS_ROOT).
    virtual bool runsAsRoot() const = 0;

    // Runs a command line with /bin/sh -c and waits for it (at most timeoutMs; then it is killed and
    // timedOut set). stdin is /dev/null. Fails only when the command could not be started at all.
    virtual Result<ExecResult> run(const QString& shellCommand, int timeoutMs = 30000,
                                   const LineCallback& onLine = {}) = 0;

    // Starts a shell script in a new session (setsid), detached from this process: it survives the
    // caller exiting. Returns once it is started; stdio goes to /dev/null (the script redirects).
    virtual Status startDetached(const QString& scriptPath) = 0;

    // Reads at most maxBytes from byte offset `offset`. A missing file is an error; offset past the end
    // gives empty data (fileSize tells the caller the file shrank).
    virtual Result<FileChunk> readFile(const QString& path, qint64 offset, qint64 maxBytes) = 0;
    // Writes a whole file (replacing it atomically), creating missing parent directories. mode: octal
    // permission bits, e.g. 0644 or 0755.
    virtual Status writeFile(const QString& path, const QByteArray& data, int mode = 0644) = 0;
    virtual bool exists(const QString& path) = 0;
    // Creates the directory path with the permission bits mode, exclusively: true when this call
    // created it, false when it existed already (someone else's claim). Missing parents are created
    // with the default mode. The default implementation runs mkdir through run().
    virtual Result<bool> createDirectory(const QString& path, int mode = 0700);
    // The boot id, the boot time and pid's start time on the transport's machine. Fails only when it
    // could not ask (then nothing is known). The default implementation reads /proc through run().
    virtual Result<ProcessIdentity> processIdentity(qint64 pid);

    // kill(-pgid, signal). signal 0 only tests whether a live process of the group exists: zombies do
    // not count (where PID 1 does not reap orphans they never go away; over SSH e.g.
    // `ps -eo pgid=,stat= | awk '$1==PGID && $2!~/^Z/'`).
    virtual SignalResult signalProcessGroup(qint64 pgid, int signal) = 0;

    // The reads of `request` and its pid's liveness. The default implementation makes them one call at a
    // time (readFile, exists, processIdentity, signalProcessGroup); a remote transport answers them in
    // one command (probeScript). Fails only when nothing could be asked.
    virtual Result<ProbeAnswer> probe(const ProbeRequest& request);

    // Drops what the transport keeps for the calling thread (SSH: that thread's session, which is
    // disconnected). For a worker thread that is about to end while the transport lives on elsewhere.
    virtual void releaseCallingThread() {}
};

// A shell command that prints the start time (field 22 of /proc/PID/stat) of the process whose pid
// the shell word pidWord gives ("$$", "123"), and nothing when there is no such process.
QString startTimeShellCommand(const QString& pidWord);
// Parses the text of /proc/PID/stat: its field 22, the start time.
std::optional<qint64> startTimeFromStat(const QByteArray& stat);
// A shell function `td_live PGID`: returns 0 when a process of the group that is not a zombie exists,
// 1 when none does, 3 when it cannot tell (no /proc).
QString groupLivenessShellFunction();
// The /bin/sh command that answers a ProbeRequest on the transport's machine, and the parser of its
// output (an error naming `host` and the directory when the answer is cut short or is not one).
QString probeScript(const ProbeRequest& request);
Result<ProbeAnswer> parseProbeOutput(const ProbeRequest& request, const QByteArray& out, const QString& host);

// This machine: QProcess and POSIX calls.
class LocalTransport : public Transport {
  public:
    QString displayName() const override;
    bool isLocal() const override { return true; }
    bool runsAsRoot() const override;
    Result<ExecResult> run(const QString& shellCommand, int timeoutMs = 30000,
                           const LineCallback& onLine = {}) override;
    Status startDetached(const QString& scriptPath) override;
    Result<FileChunk> readFile(const QString& path, qint64 offset, qint64 maxBytes) override;
    Status writeFile(const QString& path, const QByteArray& data, int mode = 0644) override;
    bool exists(const QString& path) override;
    Result<bool> createDirectory(const QString& path, int mode = 0700) override;
    Result<ProcessIdentity> processIdentity(qint64 pid) override;
    SignalResult signalProcessGroup(qint64 pgid, int signal) override;
};

// Whether a profile's head node is this machine (the built-in "local" profile, or a head named
// localhost / 127.0.0.1 / ::1 / this host's name).
bool isLocalProfile(const cluster::ClusterProfile& profile);

// Makes the transport to a remote profile's head node (ssh::sshTransportFactory() gives the SSH one;
// tests give fakes). Called on the thread that will use the transport.
using RemoteTransportFactory = std::function<Result<std::shared_ptr<Transport>>(const cluster::ClusterProfile&)>;

// The transport for a profile's head node: LocalTransport when isLocalProfile(), otherwise what
// `remote` makes, else (no factory) an error saying this program has no SSH transport.
Result<std::shared_ptr<Transport>> transportFor(const cluster::ClusterProfile& profile,
                                                const RemoteTransportFactory& remote);

} // namespace traindeck::launch
