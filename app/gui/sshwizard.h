// SSH setup wizard (Cluster page, "SSH setup…"): choose or generate an ED25519 key, enter a password
// per node (used once, never stored), install the public key on every node and prove that key login
// works, let the head node log in to the workers (setupHeadToWorkers), then a summary per node (and, for
// a profile with GPU nodes, how to get a trainer that uses their GPUs: cluster::GpuTrainer).
// The SSH work runs in a worker thread; host keys seen for the first time are confirmed in a dialog
// showing the SHA256 fingerprint, changed keys are refused with HostKeyInfo::explanation().
#pragma once

#include "cluster/clusterprofile.h"
#include "ssh/sshtypes.h"

#include <QWizard>

#include <optional>

class QCheckBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QRadioButton;
class QTableWidget;
class QThread;

namespace traindeck::ssh {
class PromptBroker;
}

namespace traindeck::gui {

class SshWizard : public QWizard {
    Q_OBJECT

  public:
    enum PageId { KeyPageId, NodesPageId, InstallPageId, SummaryPageId };
    enum class NodeState { Pending, Working, Done, Failed };

    explicit SshWizard(const cluster::ClusterProfile& profile, QWidget* parent = nullptr);
    ~SshWizard() override;

    // Where a new key is written (default ~/.ssh) and its name (default traindeck_ed25519).
    void setKeyLocation(const QString& dir, const QString& name);
    // ssh config file, agent and default identities for every node (tests: a private config, no agent).
    void setTargetTemplate(const ssh::SshTarget& t) { m_template = t; }

    cluster::ClusterProfile profile() const { return m_profile; }
    QString privateKeyPath() const { return m_privateKey; }
    QString publicKeyLine() const { return m_publicLine; }
    NodeState nodeState(int node) const { return m_states.value(node, NodeState::Pending); }
    QString nodeMessage(int node) const { return m_messages.value(node); }
    bool installFinished() const { return m_finished; }
    // The head → workers step (Pending when not run).
    NodeState headToWorkersState() const { return m_headState; }
    QString headToWorkersMessage() const { return m_headMessage; }
    QString summaryText() const;

    // Page widgets (tests, keyboard navigation).
    QRadioButton* generateButton() const { return m_generate; }
    QRadioButton* existingButton() const { return m_existing; }
    QLineEdit* existingPathEdit() const { return m_existingPath; }
    QLineEdit* passphraseEdit() const { return m_passphrase; }
    QLineEdit* passphraseRepeatEdit() const { return m_passphrase2; }
    QLineEdit* passwordEdit(int node) const { return m_passwords.value(node); }
    QCheckBox* headToWorkersBox() const { return m_headToWorkers; }
    QTableWidget* statusTable() const { return m_status; }

  Q_SIGNALS:
    void installDone();

  private:
    friend class SshWizardKeyPage;
    friend class SshWizardNodesPage;
    friend class SshWizardInstallPage;
    friend class SshWizardSummaryPage;

    Status prepareKey(); // generates or reads the key; the failure says why, for the page
    void startInstall();
    void installWorker(QList<std::optional<QByteArray>> passwords, bool headToWorkers);
    void setNodeState(int node, NodeState state, const QString& message);
    ssh::SshTarget targetFor(int node) const;
    QString nodeLabel(int node) const;

    cluster::ClusterProfile m_profile;
    ssh::SshTarget m_template;
    QString m_keyDir;
    QString m_keyName;
    QString m_privateKey;
    QString m_publicLine;
    std::optional<QByteArray> m_keyPassphrase;
    ssh::PromptBroker* m_broker = nullptr;
    ssh::CancelToken m_cancel;
    QThread* m_thread = nullptr;
    bool m_finished = false;
    QList<NodeState> m_states;
    QStringList m_messages;
    QString m_headMessage;
    NodeState m_headState = NodeState::Pending;

    QRadioButton* m_generate = nullptr;
    QRadioButton* m_existing = nullptr;
    QLineEdit* m_existingPath = nullptr;
    QLineEdit* m_passphrase = nullptr;
    QLineEdit* m_passphrase2 = nullptr;
    QLabel* m_keyInfo = nullptr;
    QList<QLineEdit*> m_passwords;
    QCheckBox* m_headToWorkers = nullptr;
    QTableWidget* m_status = nullptr;
    QProgressBar* m_progress = nullptr;
    QLabel* m_summary = nullptr;
};

} // namespace traindeck::gui
