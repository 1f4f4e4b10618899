// Asynchronous SSH for the GUI: one SshSession in its own worker thread (libssh sessions are not
// thread-safe). Every call returns at once; results arrive as signals, queued to the thread this
// object lives in. Commands run one after another on the session, in the order exec() was called.
// Host-key and passphrase/password questions come from prompts() (a PromptBroker).
#pragma once

#include "ssh/promptbroker.h"
#include "ssh/sshsession.h"

#include <QHash>
#include <QMutex>
#include <QObject>

class QThread;

namespace traindeck::ssh {

class SshConnection : public QObject {
    Q_OBJECT

  public:
    enum class State { Disconnected, Connecting, Connected };
    Q_ENUM(State)

    explicit SshConnection(const SshTarget& target, QObject* parent = nullptr);
    ~SshConnection() override; // cancels everything, waits for the worker (bounded by the timeouts)

    const SshTarget& target() const { return m_target; }
    PromptBroker* prompts() const { return m_prompts; }
    State state() const;

    void connectToHost(const traindeck::ssh::AuthOptions& auth = {});
    // Queues a command; returns its id (> 0), used by the signals and cancel().
    quint64 exec(const QString& command, int timeoutMs = 0, const QByteArray& stdinData = {});
    void cancel(quint64 id);
    void cancelAll();
    void disconnectFromHost();

  Q_SIGNALS:
    void stateChanged(traindeck::ssh::SshConnection::State state);
    void connected(const QString& authMethod);
    void connectFailed(const traindeck::Diagnostics& diagnostics); // codes::Auth, codes::HostKeyUnknown, ...
    void started(quint64 id);
    void stdoutLine(quint64 id, const QString& line);
    void stderrLine(quint64 id, const QString& line);
    void finished(quint64 id, const traindeck::ssh::ExecResult& result);
    void disconnected();

  private:
    void setState(State s);
    void post(std::function<void()> job);

    SshTarget m_target;
    PromptBroker* m_prompts;
    QThread* m_thread;
    QObject* m_context;                    // lives in m_thread; queued jobs run there
    std::unique_ptr<SshSession> m_session; // touched only in m_thread
    CancelToken m_lifetime;                // cancelled by the destructor
    mutable QMutex m_mutex;
    QHash<quint64, CancelToken> m_jobs;
    quint64 m_nextId = 1;
    State m_state = State::Disconnected;
};

} // namespace traindeck::ssh
