// Questions from SSH worker threads to a person: an unknown host key, a key passphrase, a password.
// A worker calls askHostKey()/askSecret(), which emit hostKeyQuestion/secretQuestion (queued to the
// receiver's thread, e.g. the GUI that shows a dialog) and block the worker until answerHostKey()/
// answerSecret()/declineSecret() is called, the token is cancelled or shutdown() runs. Nothing blocks
// the GUI thread. Without any receiver the answer is "reject"/"no secret" at once.
#pragma once

#include "ssh/sshtypes.h"

#include <QHash>
#include <QMutex>
#include <QObject>
#include <QWaitCondition>

namespace traindeck::ssh {

class PromptBroker : public QObject {
    Q_OBJECT

  public:
    explicit PromptBroker(QObject* parent = nullptr);
    ~PromptBroker() override;

    // Unknown host keys are accepted and saved without asking (the CLI's --accept-new-host-keys).
    // Changed keys are refused by SshSession whatever this says.
    void setAcceptNewHostKeys(bool accept) { m_acceptNew.store(accept); }
    bool acceptNewHostKeys() const { return m_acceptNew.load(); }

    // Worker side (any thread but the receiver's).
    HostKeyDecision askHostKey(const HostKeyInfo& info, const CancelToken& cancel = {});
    std::optional<QByteArray> askSecret(const SecretRequest& request, const CancelToken& cancel = {});
    // SshPrompts that ask through this broker (the broker must outlive the session using them).
    SshPrompts prompts(const CancelToken& cancel = {});

  public Q_SLOTS:
    void answerHostKey(quint64 id, traindeck::ssh::HostKeyDecision decision);
    void answerSecret(quint64 id, const QByteArray& secret);
    void declineSecret(quint64 id);
    // Declines every pending and future question (call before destroying the receiver).
    void shutdown();

  Q_SIGNALS:
    void hostKeyQuestion(quint64 id, const traindeck::ssh::HostKeyInfo& info);
    void secretQuestion(quint64 id, const traindeck::ssh::SecretRequest& request);

  private:
    struct Pending {
        bool answered = false;
        HostKeyDecision decision = HostKeyDecision::Reject;
        std::optional<QByteArray> secret;
    };
    // A new pending question's id; none when nobody receives `signal` or after shutdown().
    std::optional<quint64> openQuestion(const QMetaMethod& signal);
    bool waitFor(quint64 id, const CancelToken& cancel, Pending* out);
    // Marks a pending question answered, fill(Pending&) storing the answer, and wakes its worker.
    template <typename Fill> void answer(quint64 id, Fill&& fill);

    QMutex m_mutex;
    QWaitCondition m_cond;
    QHash<quint64, Pending> m_pending;
    quint64 m_nextId = 1;
    bool m_down = false;
    std::atomic_bool m_acceptNew{false};
};

} // namespace traindeck::ssh
