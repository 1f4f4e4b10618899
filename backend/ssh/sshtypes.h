// Plain value types shared by the SSH core (SshSession), the async front (SshConnection), the local
// process runner and the node checks. No libssh types leak out of backend/ssh/*.cpp.
#pragma once

#include "common/result.h"

#include <QByteArray>
#include <QCoreApplication>
#include <QMetaType>
#include <QString>
#include <QStringList>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>

class QIODevice;

namespace traindeck::ssh {

// Where and how to connect. Values left empty/0 come from ~/.ssh/config (HostName, User, Port,
// IdentityFile) and then from the SSH defaults, as with OpenSSH's ssh(1).
struct SshTarget {
    QString host;                     // name or address as written in the profile (also the known_hosts name)
    int port = 0;                     // 0: ~/.ssh/config or 22. A profile's default 22 is passed as 0 (see fromNode)
    QString user;                     // empty: ~/.ssh/config, then the local user
    QString identity;                 // private key file tried first ("~" allowed); empty: config/defaults
    QString knownHosts;               // empty: ~/.ssh/known_hosts
    QString globalKnownHosts;         // empty: libssh default (/etc/ssh/ssh_known_hosts)
    QString configFile;               // empty: ~/.ssh/config (+ /etc/ssh/ssh_config); "none": no config at all
    bool useAgent = true;             // try ssh-agent (SSH_AUTH_SOCK) first
    bool useDefaultIdentities = true; // try ~/.ssh/id_* and the config's IdentityFile entries
    int connectTimeoutMs = 10000;     // TCP connect, banner, key exchange and each blocking protocol step
    int keepaliveIntervalMs = 5000;   // while waiting for a command: keepalive every interval...
    int keepaliveCountMax = 3;        // ...and the link is dead after interval * count without an answer

    // "user@host:port" for messages (only what is known).
    QString displayName() const;
};

// The server's host key as seen on connect.
struct HostKeyInfo {
    enum class State {
        Known,     // matches known_hosts
        Unknown,   // no key for this host (or no known_hosts file yet)
        Changed,   // a different key of the same type is recorded: refuse (possible attack)
        OtherType, // only keys of another type are recorded: refuse
        Error,     // could not read the key or the file
    };
    State state = State::Error;
    QString host; // the name the key is recorded under ("[host]:port" form is made by libssh)
    int port = 22;
    QString keyType;     // "ssh-ed25519", ...
    QString fingerprint; // "SHA256:..." (as ssh-keygen -l prints it)
    QString knownHostsFile;
    QString knownHostsName() const; // "host" for port 22, "[host]:port" otherwise
    // A multi-line explanation for a person: what happened, whether it may be an attack, what to do.
    QString explanation() const;
};

enum class HostKeyDecision {
    Reject,        // do not connect
    AcceptOnce,    // connect, do not record
    AcceptAndSave, // connect and append to known_hosts
};

enum class SecretKind { KeyPassphrase, Password, KeyboardInteractive };

struct SecretRequest {
    SecretKind kind = SecretKind::Password;
    QString target;      // user@host:port or the key file
    QString prompt;      // text to show ("Password:", the kbd-interactive prompt, ...)
    QString instruction; // keyboard-interactive instruction (may be empty)
    bool echo = false;   // keyboard-interactive: whether the answer may be shown
};

// Diagnostic::code of the ssh area's errors (Result/Status, ExecResult::error), for code that
// branches on why something failed. The messages name the host or file themselves.
namespace codes {
inline constexpr QLatin1String Resolve("ssh.resolve"); // name resolution failed, invalid or missing host
inline constexpr QLatin1String Connect("ssh.connect"); // TCP connect refused/unreachable
inline constexpr QLatin1String Timeout("ssh.timeout"); // no answer within the timeout
inline constexpr QLatin1String HostKeyUnknown("ssh.host_key_unknown"); // unknown host key and nobody accepted it
inline constexpr QLatin1String HostKeyChanged("ssh.host_key_changed"); // changed / other-type host key: refused
inline constexpr QLatin1String HostKey("ssh.host_key");                // host key could not be checked (file error)
inline constexpr QLatin1String Auth("ssh.auth");                       // no authentication method worked
inline constexpr QLatin1String Channel("ssh.channel");                 // opening a channel or starting a command failed
inline constexpr QLatin1String LinkLost("ssh.link_lost");              // the connection died (keepalive, socket error)
inline constexpr QLatin1String Cancelled("ssh.cancelled");
inline constexpr QLatin1String Protocol("ssh.protocol"); // anything else libssh reports
inline constexpr QLatin1String Io("ssh.io");             // local file I/O
inline constexpr QLatin1String Key("ssh.key");           // a key, key line, key name or passphrase is unusable
inline constexpr QLatin1String RemoteCommand("ssh.remote_command"); // a command TrainDeck runs on a node failed
inline constexpr QLatin1String
    Input("ssh.input"); // the request itself cannot be carried out (refused before any login)
} // namespace codes

// Shared cancellation flag: set from any thread, checked by the worker between protocol steps.
class CancelToken {
  public:
    CancelToken() : m_flag(std::make_shared<std::atomic_bool>(false)) {}
    void cancel() const { m_flag->store(true); }
    bool isCancelled() const { return m_flag->load(); }
    void reset() const { m_flag->store(false); }

  private:
    std::shared_ptr<std::atomic_bool> m_flag;
};

// Callbacks the core calls (on its own thread) when it needs a person. Unset: unknown host keys
// are rejected and no secret is available.
struct SshPrompts {
    std::function<HostKeyDecision(const HostKeyInfo&)> hostKey;
    std::function<std::optional<QByteArray>(const SecretRequest&)> secret;
};

struct ExecOptions {
    int timeoutMs = 0;                // 0: none. On timeout the process group gets SIGTERM and the channel closes
    QByteArray stdinData;             // written to the command's stdin, then EOF
    QIODevice* stdinDevice = nullptr; // alternatively streamed from here (e.g. a file to deploy)
    // Streamed output, split into lines (without '\n'; a last unterminated line is delivered at the end).
    std::function<void(const QByteArray& line)> onStdoutLine;
    std::function<void(const QByteArray& line)> onStderrLine;
    bool captureOutput = true;                  // keep stdout/stderr in ExecResult
    qint64 maxCaptureBytes = 256 * 1024 * 1024; // per stream; beyond it output is counted, not kept
    CancelToken cancel;                         // cancel from another thread
    // SSH: announce the remote process group first (a line on stderr that exec() removes) so that
    // cancel/timeout can kill it over a second channel when sshd ignores the "signal" request
    // (it does for root logins). Assumes a POSIX-like login shell ($$).
    bool killOnCancel = true;

    static ExecOptions withTimeout(int ms)
    {
        ExecOptions o;
        o.timeoutMs = ms;
        return o;
    }
};

struct ExecResult {
    Q_DECLARE_TR_FUNCTIONS(traindeck::ssh::ExecResult)

  public:
    enum class Status {
        Exited,    // exitCode is valid
        Signalled, // exitSignal is valid ("TERM", "KILL", ...)
        TimedOut,
        Cancelled,
        Failed, // could not run or the link died: error says why
    };
    Status status = Status::Failed;
    int exitCode = -1;
    QString exitSignal;
    bool coreDumped = false;
    QByteArray stdOut;
    QByteArray stdErr;
    qint64 stdOutBytes = 0; // total seen (may exceed stdOut.size() when capping)
    qint64 stdErrBytes = 0;
    qint64 elapsedMs = 0;
    // Why, when the status is Failed, TimedOut or Cancelled (code: codes::LinkLost, ...); empty otherwise.
    Diagnostic error;

    bool ok() const { return status == Status::Exited && exitCode == 0; }
    // "exit code 3", "killed by signal TERM", "timed out after 5 s", "cancelled", the error message.
    QString describe() const;
};

} // namespace traindeck::ssh

Q_DECLARE_METATYPE(traindeck::ssh::HostKeyInfo)
Q_DECLARE_METATYPE(traindeck::ssh::SecretRequest)
Q_DECLARE_METATYPE(traindeck::ssh::ExecResult)
Q_DECLARE_METATYPE(traindeck::ssh::HostKeyDecision)
