// Runs shell commands on a node: over SSH (SshRunner, on an open SshSession) or on this machine
// (LocalRunner, /bin/sh -c through QProcess). The node checks use this interface, so the local
// profile runs the same checks without SSH.
#pragma once

#include "ssh/sshtypes.h"

#include <QCoreApplication>

namespace traindeck::ssh {

class SshSession;

class CommandRunner {
  public:
    virtual ~CommandRunner() = default;
    // `command` is a POSIX shell command line.
    virtual ExecResult run(const QString& command, const ExecOptions& options = {}) = 0;
    // "user@host:port" or "local", for messages.
    virtual QString name() const = 0;
    virtual bool isLocal() const { return false; }
};

class SshRunner final : public CommandRunner {
  public:
    explicit SshRunner(SshSession& session) : m_session(session) {}
    ExecResult run(const QString& command, const ExecOptions& options = {}) override;
    QString name() const override;

  private:
    SshSession& m_session;
};

// Same semantics as SshSession::exec: streamed lines, exit code or signal, timeout and cancellation
// (SIGTERM to the process group, then SIGKILL after a grace period).
class LocalRunner final : public CommandRunner {
    Q_DECLARE_TR_FUNCTIONS(traindeck::ssh::LocalRunner)

  public:
    ExecResult run(const QString& command, const ExecOptions& options = {}) override;
    QString name() const override { return QStringLiteral("local"); }
    bool isLocal() const override { return true; }
};

// "TERM" for 15, ... (POSIX names without "SIG"); the number as text when unknown.
QString signalName(int signal);

} // namespace traindeck::ssh
