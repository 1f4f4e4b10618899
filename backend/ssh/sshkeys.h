// Key management: generate ED25519 key pairs (private key written by us with mode 0600 in a 0700
// directory), install a public key on a node the way ssh-copy-id does and prove that key login works,
// set up head → worker keys and host keys, and deploy a file (the trainer) to a node.
#pragma once

#include "ssh/sshsession.h"

#include <QCoreApplication>

#include <functional>
#include <optional>

// Every call that can fail returns a Result or Status whose error carries one of ssh::codes: the
// session's own (codes::Auth, codes::HostKeyChanged, ...), codes::Key for an unusable key, key line,
// key name or passphrase, codes::Io for local files, codes::RemoteCommand for a command on a node
// that failed or answered unexpectedly.

namespace traindeck::cluster {
class ClusterProfile;
}

namespace traindeck::ssh {

struct GeneratedKey {
    QString privateKeyPath;
    QString publicKeyPath;
    QString publicKeyLine; // "ssh-ed25519 AAAA... traindeck@host"
    QString fingerprint;   // "SHA256:..."
};

struct InstallResult {
    bool added = false; // false: the key was already authorized
    bool keyLoginVerified = false;
};

// What installOnNode() did on a node; in every case a key-only login was proved afterwards.
struct NodeInstall {
    enum class Outcome { AlreadyWorked, Added, WasAuthorized };
    Outcome outcome = Outcome::AlreadyWorked;
    QString message() const; // "key login already works", "key added, key login verified", ...
};

// One install-key run over a profile's nodes, as the SSH wizard and `traindeck-cli install-key` run it
// (SshKeys::installOnNodes).
struct NodesKeyInstall {
    QList<SshTarget> targets;   // one per node of the profile, in the profile's order
    QList<bool> chosen;         // which nodes get the key; empty: every node
    int head = 0;               // index of the head node in targets
    QString publicKeyLine;      // the key to authorize
    QString privateKeyPath;     // its private half, for the key-only login that proves it
    bool headToWorkers = false; // then head -> worker trust for mpirun
};

// What installOnNodes() tells its front end, from the thread it runs on. node: an index into
// targets, or kHeadToWorkers for the head -> workers step.
struct NodesKeyInstallEvents {
    static constexpr int kHeadToWorkers = -1;
    std::function<SshPrompts(int node)> prompts; // host key and secret prompts for a node's logins
    std::function<void(int node)> started;
    std::function<void(int node, const Result<QString>& outcome)> finished; // what was done, or why not
};

class SshKeys {
    Q_DECLARE_TR_FUNCTIONS(traindeck::ssh::SshKeys)

  public:
    static QString defaultKeyDir();  // ~/.ssh
    static QString defaultKeyName(); // id_ed25519_traindeck
    static QString defaultComment(); // traindeck@<local host name>

    // Generates an ED25519 key pair as DIR/NAME and DIR/NAME.pub. passphrase: nullopt writes an
    // unencrypted key; a non-empty value encrypts it; "" is refused (libssh treats it as a passphrase,
    // not as "none", and cannot encrypt with it). DIR is created with 0700
    // (an existing one with group/other access is tightened to 0700); the private key file gets
    // 0600 whatever the umask. Refuses to overwrite unless overwrite.
    static Result<GeneratedKey> generateEd25519(const QString& dir, const QString& name,
                                                const std::optional<QByteArray>& passphrase, const QString& comment,
                                                bool overwrite = false);

    // Reads one OpenSSH public key line from FILE.pub (validated).
    static Result<QString> readPublicKeyLine(const QString& path);
    // "SHA256:..." of a public key line; empty when invalid.
    static QString fingerprintOfLine(const QString& publicKeyLine);
    // "ssh-ed25519 AAAA..." (type and key, no comment) of a line, for comparisons.
    static QString keyPart(const QString& publicKeyLine);

    // The ssh-copy-id style script: umask 077, mkdir -p ~/.ssh, newline added when the file lacks
    // one, the key (read from stdin) appended unless already authorized. Prints TRAINDECK_KEY_ADDED
    // or TRAINDECK_KEY_PRESENT.
    static QString installScript();

    // On an authenticated session (password or keyboard-interactive allowed), installs the key, then
    // proves that a fresh session logs in with privateKeyPath only (no agent, no other keys).
    // passphrase prompts for the proof come from `prompts`.
    static Result<InstallResult> installPublicKey(SshSession& session, const QString& publicKeyLine,
                                                  const QString& privateKeyPath, const SshPrompts& prompts);

    // Installs the key on one node, with the one policy every front end uses: the key counts as
    // installed only once a login with privateKeyPath alone (no agent, no other keys) works. That
    // login is tried first (nothing to do when it works); otherwise logs in as the target allows
    // (agent, keys, then the password or keyboard-interactive answers from prompts.secret), installs
    // the key (installPublicKey) and proves the key-only login. The front end names the node in errors.
    // Fails with the login's code (codes::Auth also when no password was given, codes::HostKeyChanged
    // with the host key's explanation as the message, ...).
    static Result<NodeInstall> installOnNode(const SshTarget& target, const QString& publicKeyLine,
                                             const QString& privateKeyPath, const SshPrompts& prompts,
                                             const CancelToken& cancel);
    // The target logging in with privateKeyPath only: no agent, no default identities.
    static SshTarget keyOnlyTarget(SshTarget target, const QString& privateKeyPath);

    // Head → workers: ensures the head has a key (~/.ssh/id_ed25519_traindeck, created there with
    // ssh-keygen when missing), installs its public key on every worker session, and adds each
    // worker's host key — the one verified from this machine, never a fresh scan — to the head's
    // ~/.ssh/known_hosts under the name the hostfile uses. workers[i] are authenticated sessions
    // whose target().host is that name. Returns human-readable lines of what was done.
    static Result<QStringList> setupHeadToWorkers(SshSession& head, const QList<SshSession*>& workers);
    // The whole head → workers step as the SSH wizard and `install-key --head-to-workers` run it:
    // opens a key-only session (publickey auth, no password) to every target, then the above with
    // targets[head] as the head. A node that cannot be opened stops it with that node named.
    static Result<QStringList> setupHeadToWorkers(const QList<SshTarget>& targets, int head, const SshPrompts& prompts,
                                                  const CancelToken& cancel);

    // The whole install-key run, the one rule both front ends follow: refused up front (codes::Input,
    // nothing done) when head -> workers is asked without every node chosen or the head is not a node;
    // then installOnNode() on every chosen node in order (a failed node does not stop the others); then,
    // when asked, head -> workers once every node accepted the key, else that step is reported skipped.
    // Stops between nodes when `cancel` fires. Fails when any node or step failed, naming how many.
    static Status installOnNodes(const NodesKeyInstall& plan, const NodesKeyInstallEvents& events,
                                 const CancelToken& cancel);
    // The up-front part of that rule alone (codes::Input), for a front end that answers bad input its own way.
    static Status checkNodesKeyInstall(const NodesKeyInstall& plan);

    // Copies a local file to remotePath (parent directories created, mode applied, written to a
    // temporary name and renamed), streamed over an exec channel (`cat`), then compares sha256sum.
    static Status deployFile(SshSession& session, const QString& localPath, const QString& remotePath, int mode);
};

} // namespace traindeck::ssh
