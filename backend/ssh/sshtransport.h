// launch::Transport over SSH (libssh): the launcher and the run monitor work on a remote head node
// through the same calls as on this machine. Every call blocks; the transport is used from several
// worker threads at once, and libssh sessions are not thread-safe, so each calling thread gets its
// own SshSession, opened on its first call (host-key checking strict, see SshSession) and reopened
// when its link was lost. Commands run with /bin/sh -c on the head (the login shell must be
// POSIX-like: it runs `exec /bin/sh -c '...'`).
#pragma once

#include "launch/transport.h"
#include "ssh/sshtypes.h"

#include <QCoreApplication>

#include <memory>

namespace traindeck::ssh {

class SshSession;

struct SshTransportOptions {
    // Unknown host keys are accepted and appended to known_hosts (the CLI's --accept-new-host-keys).
    // Changed keys are always refused (SshSession).
    bool acceptNewHostKeys = false;
    // Questions to a person (host keys when acceptNewHostKeys is false, key passphrases). Called on
    // the worker thread; e.g. PromptBroker::prompts(). Unset: unknown hosts fail, no passphrases.
    SshPrompts prompts;
};

class SshTransport : public launch::Transport {
    Q_DECLARE_TR_FUNCTIONS(traindeck::ssh::SshTransport)

  public:
    explicit SshTransport(SshTarget target, SshTransportOptions options = {});
    ~SshTransport() override;

    // The head node of a profile (SshSession::targetFor).
    static std::shared_ptr<SshTransport> forProfile(const cluster::ClusterProfile& profile,
                                                    SshTransportOptions options = {});

    // Opens the calling thread's session now (otherwise the first call does). The error says why
    // not: for an unknown host the fingerprint and how to accept it.
    Status connect();

    QString displayName() const override;
    bool isLocal() const override { return false; }
    bool runsAsRoot() const override; // `id -u` on the head, asked once
    Result<launch::ExecResult> run(const QString& shellCommand, int timeoutMs = 30000,
                                   const LineCallback& onLine = {}) override;
    Status startDetached(const QString& scriptPath) override;
    Result<launch::FileChunk> readFile(const QString& path, qint64 offset, qint64 maxBytes) override;
    Status writeFile(const QString& path, const QByteArray& data, int mode = 0644) override;
    bool exists(const QString& path) override;
    launch::SignalResult signalProcessGroup(qint64 pgid, int signal) override;
    Result<launch::ProbeAnswer> probe(const launch::ProbeRequest& request) override; // one command
    void releaseCallingThread() override; // disconnects and forgets this thread's session

  private:
    struct Private;
    // This thread's session, opened (or reopened) when needed.
    Result<SshSession*> threadSession() const;
    // Runs a command (wrapped in /bin/sh -c) on this thread's session; fails when it could not run at
    // all (no session, lost link). The diagnostics name no file: the callers say what they are about.
    Result<ExecResult> exec(const QString& shellCommand, const ExecOptions& options) const;
    std::unique_ptr<Private> d;
};

// The factory of SshTransports for remote profiles, which front ends give runs::Operations. It opens
// the calling thread's session at once, so host-key and login problems are reported by
// launch::transportFor().
launch::RemoteTransportFactory sshTransportFactory(SshTransportOptions options = {});

} // namespace traindeck::ssh
