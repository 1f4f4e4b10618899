// The synchronous SSH core over libssh: connect (timeouts, ~/.ssh/config, strict host-key checking),
// authenticate (agent, key files, password, keyboard-interactive) and run commands (streamed lines,
// exit status and signal, timeout, cancellation, keepalive). One SshSession belongs to one thread at a
// time (libssh sessions are not thread-safe); SshConnection runs one in a worker thread.
#pragma once

#include "common/shell.h"
#include "ssh/sshtypes.h"

#include <QCoreApplication>

#include <memory>

namespace traindeck::cluster {
class ClusterProfile;
struct ClusterNode;
} // namespace traindeck::cluster

namespace traindeck::ssh {

// How to authenticate. Password and keyboard-interactive are meant for installing keys: the secret
// comes from SshPrompts::secret each time and is never stored.
struct AuthOptions {
    bool publicKey = true;            // agent and key files (SshTarget::useAgent/useDefaultIdentities)
    bool password = false;            // "password" method
    bool keyboardInteractive = false; // "keyboard-interactive" method
};

class SshSession {
    Q_DECLARE_TR_FUNCTIONS(traindeck::ssh::SshSession)

  public:
    explicit SshSession(SshTarget target = {});
    ~SshSession();
    SshSession(const SshSession&) = delete;
    SshSession& operator=(const SshSession&) = delete;

    // The target for a profile's node: known_hosts from the profile, port 22 left to ~/.ssh/config.
    static SshTarget targetFor(const cluster::ClusterProfile& profile, const cluster::ClusterNode& node);
    // The same, connecting as `connection` says (a front end's or a test's settings): its known_hosts files
    // when it names them, its config file, agent, default identities, keepalive and connect timeout, and its
    // identity for a node that names none. The one rule of the SSH wizard, the node checks and the link test.
    static SshTarget targetFor(const cluster::ClusterProfile& profile, const cluster::ClusterNode& node,
                               const SshTarget& connection);

    const SshTarget& target() const { return m_target; }
    void setPrompts(SshPrompts prompts) { m_prompts = std::move(prompts); }
    // Checked between protocol steps and while waiting for output.
    void setCancelToken(CancelToken token) { m_cancel = std::move(token); }

    // TCP + SSH handshake + host-key check. Fails with codes::HostKeyUnknown/HostKeyChanged when
    // refused (the detail: HostKeyInfo::explanation()). Every failure carries one of codes::*.
    Status connectToHost();
    // Fails with codes::Auth when no method worked (the detail says what to do).
    Status authenticate(const AuthOptions& options = {});
    // connectToHost() + authenticate().
    Status open(const AuthOptions& options = {});
    void disconnect();
    bool isConnected() const;
    bool isAuthenticated() const { return m_authenticated; }

    // Runs `command` with the login shell of the remote user (like `ssh host command`).
    ExecResult exec(const QString& command, const ExecOptions& options = {});

    const HostKeyInfo& hostKey() const { return m_hostKey; }
    // The host key as an OpenSSH public key line "ssh-ed25519 AAAA..." (empty before connect).
    QString hostPublicKeyLine() const { return m_hostKeyLine; }
    // After connect: what ~/.ssh/config resolved.
    QString resolvedHost() const { return m_resolvedHost; }
    QString resolvedUser() const { return m_resolvedUser; }
    int resolvedPort() const { return m_resolvedPort; }
    QString authMethodUsed() const { return m_authMethod; } // "agent", "publickey", "password", ...

    // The raw libssh session (ssh_session) for code in backend/ssh/ (SFTP). Owned by this object.
    void* nativeHandle() const;

  private:
    struct Private;
    static Status fail(const QString& code, const QString& message, const QString& detail = QString());
    Status checkHostKey();
    bool authPublicKey();
    bool authPassword();
    bool authKeyboardInteractive();
    void applyTcpKeepalive();

    // exec()'s steps (sshexec.cpp); an ExecRun holds one command's channel, output and result.
    struct ExecRun;
    enum class ExecEnd { Eof, Stopped, LinkLost };
    bool openExecChannel(ExecRun& run);
    bool startCommand(ExecRun& run, const QString& command);
    void writeStdin(ExecRun& run);
    ExecEnd readOutput(ExecRun& run);
    void stopCommand(ExecRun& run);
    void collectExitStatus(ExecRun& run);
    void killRemoteGroup(qint64 pgid);

    SshTarget m_target;
    SshPrompts m_prompts;
    CancelToken m_cancel;
    HostKeyInfo m_hostKey;
    QString m_hostKeyLine;
    QString m_resolvedHost;
    QString m_resolvedUser;
    int m_resolvedPort = 0;
    QString m_authMethod;
    bool m_authenticated = false;
    std::unique_ptr<Private> d;
};

// common/shell.h's, where the ssh area's callers have always found them.
using traindeck::expandTilde;
using traindeck::shellPath;

} // namespace traindeck::ssh
