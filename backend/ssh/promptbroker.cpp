#include "ssh/promptbroker.h"

#include <QMetaMethod>

namespace traindeck::ssh {

PromptBroker::PromptBroker(QObject* parent) : QObject(parent)
{
    qRegisterMetaType<HostKeyInfo>();
    qRegisterMetaType<SecretRequest>();
    qRegisterMetaType<HostKeyDecision>();
}

PromptBroker::~PromptBroker()
{
    shutdown();
}

bool PromptBroker::waitFor(quint64 id, const CancelToken& cancel, Pending* out)
{
    QMutexLocker lock(&m_mutex);
    while (!m_down && !cancel.isCancelled()) {
        auto it = m_pending.find(id);
        if (it == m_pending.end())
            break;
        if (it->answered) {
            *out = std::move(*it);
            m_pending.erase(it);
            return true;
        }
        m_cond.wait(&m_mutex, 100);
    }
    if (auto it = m_pending.find(id); it != m_pending.end()) {
        if (it->secret)
            it->secret->fill('\0');
        m_pending.erase(it);
    }
    return false;
}

std::optional<quint64> PromptBroker::openQuestion(const QMetaMethod& signal)
{
    if (!isSignalConnected(signal))
        return std::nullopt;
    QMutexLocker lock(&m_mutex);
    if (m_down)
        return std::nullopt;
    const quint64 id = m_nextId++;
    m_pending.insert(id, Pending{});
    return id;
}

HostKeyDecision PromptBroker::askHostKey(const HostKeyInfo& info, const CancelToken& cancel)
{
    if (info.state != HostKeyInfo::State::Unknown)
        return HostKeyDecision::Reject;
    if (m_acceptNew.load())
        return HostKeyDecision::AcceptAndSave;
    const std::optional<quint64> id = openQuestion(QMetaMethod::fromSignal(&PromptBroker::hostKeyQuestion));
    if (!id)
        return HostKeyDecision::Reject;
    Q_EMIT hostKeyQuestion(*id, info);
    Pending answer;
    return waitFor(*id, cancel, &answer) ? answer.decision : HostKeyDecision::Reject;
}

std::optional<QByteArray> PromptBroker::askSecret(const SecretRequest& request, const CancelToken& cancel)
{
    const std::optional<quint64> id = openQuestion(QMetaMethod::fromSignal(&PromptBroker::secretQuestion));
    if (!id)
        return std::nullopt;
    Q_EMIT secretQuestion(*id, request);
    Pending answer;
    if (!waitFor(*id, cancel, &answer))
        return std::nullopt;
    return answer.secret;
}

SshPrompts PromptBroker::prompts(const CancelToken& cancel)
{
    SshPrompts p;
    p.hostKey = [this, cancel](const HostKeyInfo& info) { return askHostKey(info, cancel); };
    p.secret = [this, cancel](const SecretRequest& req) { return askSecret(req, cancel); };
    return p;
}

template <typename Fill> void PromptBroker::answer(quint64 id, Fill&& fill)
{
    QMutexLocker lock(&m_mutex);
    auto it = m_pending.find(id);
    if (it == m_pending.end())
        return;
    it->answered = true;
    fill(*it);
    m_cond.wakeAll();
}

void PromptBroker::answerHostKey(quint64 id, HostKeyDecision decision)
{
    answer(id, [decision](Pending& p) { p.decision = decision; });
}

void PromptBroker::answerSecret(quint64 id, const QByteArray& secret)
{
    answer(id, [&secret](Pending& p) { p.secret = secret; });
}

void PromptBroker::declineSecret(quint64 id)
{
    answer(id, [](Pending& p) { p.secret.reset(); });
}

void PromptBroker::shutdown()
{
    QMutexLocker lock(&m_mutex);
    m_down = true;
    m_cond.wakeAll();
}

} // namespace traindeck::ssh
