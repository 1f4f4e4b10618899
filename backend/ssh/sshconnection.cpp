#include "ssh/sshconnection.h"

#include <QThread>

namespace traindeck::ssh {

SshConnection::SshConnection(const SshTarget& target, QObject* parent)
    : QObject(parent), m_target(target), m_prompts(new PromptBroker(this)), m_thread(new QThread),
      m_context(new QObject)
{
    qRegisterMetaType<Diagnostics>();
    qRegisterMetaType<ExecResult>();
    qRegisterMetaType<State>();
    m_thread->setObjectName(QStringLiteral("ssh:") + target.host);
    m_context->moveToThread(m_thread);
    QObject::connect(m_thread, &QThread::finished, m_context, &QObject::deleteLater);
    m_thread->start();
}

SshConnection::~SshConnection()
{
    m_lifetime.cancel();
    cancelAll();
    m_prompts->shutdown();
    QThread* thread = m_thread;
    post([this, thread] {
        m_session.reset();
        thread->quit();
    });
    m_thread->wait();
    delete m_thread;
}

void SshConnection::post(std::function<void()> job)
{
    QMetaObject::invokeMethod(m_context, std::move(job), Qt::QueuedConnection);
}

SshConnection::State SshConnection::state() const
{
    QMutexLocker lock(&m_mutex);
    return m_state;
}

void SshConnection::setState(State s)
{
    {
        QMutexLocker lock(&m_mutex);
        if (m_state == s)
            return;
        m_state = s;
    }
    Q_EMIT stateChanged(s);
}

void SshConnection::connectToHost(const AuthOptions& auth)
{
    setState(State::Connecting);
    post([this, auth] {
        if (m_lifetime.isCancelled())
            return;
        m_session = std::make_unique<SshSession>(m_target);
        m_session->setPrompts(m_prompts->prompts(m_lifetime));
        m_session->setCancelToken(m_lifetime);
        const Status opened = m_session->open(auth);
        if (opened) {
            setState(State::Connected);
            Q_EMIT connected(m_session->authMethodUsed());
        } else {
            m_session.reset();
            setState(State::Disconnected);
            Q_EMIT connectFailed(opened.diagnostics());
        }
    });
}

quint64 SshConnection::exec(const QString& command, int timeoutMs, const QByteArray& stdinData)
{
    CancelToken token;
    quint64 id;
    {
        QMutexLocker lock(&m_mutex);
        id = m_nextId++;
        m_jobs.insert(id, token);
    }
    post([this, id, token, command, timeoutMs, stdinData] {
        ExecResult r;
        if (token.isCancelled() || m_lifetime.isCancelled()) {
            r.status = ExecResult::Status::Cancelled;
            r.error = Diagnostic::codedError(codes::Cancelled, tr("cancelled"));
        } else if (!m_session || !m_session->isConnected()) {
            r.status = ExecResult::Status::Failed;
            r.error = Diagnostic::codedError(codes::Protocol, tr("%1: not connected").arg(m_target.displayName()));
        } else {
            Q_EMIT started(id);
            ExecOptions o;
            o.timeoutMs = timeoutMs;
            o.stdinData = stdinData;
            o.cancel = token;
            o.onStdoutLine = [this, id](const QByteArray& line) { Q_EMIT stdoutLine(id, QString::fromUtf8(line)); };
            o.onStderrLine = [this, id](const QByteArray& line) { Q_EMIT stderrLine(id, QString::fromUtf8(line)); };
            r = m_session->exec(command, o);
            if (r.error.code == codes::LinkLost) {
                m_session.reset();
                setState(State::Disconnected);
                Q_EMIT disconnected();
            }
        }
        {
            QMutexLocker lock(&m_mutex);
            m_jobs.remove(id);
        }
        Q_EMIT finished(id, r);
    });
    return id;
}

void SshConnection::cancel(quint64 id)
{
    QMutexLocker lock(&m_mutex);
    if (auto it = m_jobs.find(id); it != m_jobs.end())
        it->cancel();
}

void SshConnection::cancelAll()
{
    QMutexLocker lock(&m_mutex);
    for (const CancelToken& t : std::as_const(m_jobs))
        t.cancel();
}

void SshConnection::disconnectFromHost()
{
    cancelAll();
    post([this] {
        const bool was = m_session != nullptr;
        m_session.reset();
        setState(State::Disconnected);
        if (was)
            Q_EMIT disconnected();
    });
}

} // namespace traindeck::ssh
