#include "sshwizard.h"

#include "checkspage.h"
#include "cluster/gputrainer.h"
#include "ssh/promptbroker.h"
#include "ssh/sshkeys.h"
#include "ssh/sshsession.h"

#include <QCheckBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QRadioButton>
#include <QTableWidget>
#include <QThread>
#include <QVBoxLayout>

namespace traindeck::gui {

using namespace traindeck::ssh;

// --- pages ------------------------------------------------------------------------------------------

class SshWizardKeyPage : public QWizardPage {
  public:
    explicit SshWizardKeyPage(SshWizard* w) : m_w(w)
    {
        setTitle(SshWizard::tr("SSH key"));
        setSubTitle(SshWizard::tr(
            "TrainDeck logs in to the nodes with an ED25519 key. Generate a new one or use a key you already have."));
        auto* l = new QVBoxLayout(this);
        w->m_generate = new QRadioButton(this);
        w->m_generate->setChecked(true);
        l->addWidget(w->m_generate);
        auto* gen = new QFormLayout;
        gen->setContentsMargins(24, 0, 0, 0);
        w->m_passphrase = new QLineEdit(this);
        w->m_passphrase->setEchoMode(QLineEdit::Password);
        w->m_passphrase->setPlaceholderText(SshWizard::tr("optional"));
        w->m_passphrase2 = new QLineEdit(this);
        w->m_passphrase2->setEchoMode(QLineEdit::Password);
        gen->addRow(SshWizard::tr("&Passphrase:"), w->m_passphrase);
        gen->addRow(SshWizard::tr("Re&peat passphrase:"), w->m_passphrase2);
        l->addLayout(gen);
        w->m_existing = new QRadioButton(SshWizard::tr("Use an &existing private key:"), this);
        l->addWidget(w->m_existing);
        auto* ex = new QHBoxLayout;
        ex->setContentsMargins(24, 0, 0, 0);
        w->m_existingPath = new QLineEdit(this);
        w->m_existingPath->setAccessibleName(SshWizard::tr("Private key file"));
        auto* browse = new QPushButton(SshWizard::tr("&Browse…"), this);
        ex->addWidget(w->m_existingPath, 1);
        ex->addWidget(browse);
        l->addLayout(ex);
        w->m_keyInfo = new QLabel(this);
        w->m_keyInfo->setWordWrap(true);
        w->m_keyInfo->setTextInteractionFlags(Qt::TextSelectableByMouse);
        l->addWidget(w->m_keyInfo);
        l->addStretch(1);
        const QString existing = QDir::homePath() + QStringLiteral("/.ssh/id_ed25519");
        if (QFileInfo::exists(existing))
            w->m_existingPath->setText(existing);
        auto sync = [w] {
            const bool generate = w->m_generate->isChecked();
            w->m_passphrase->setEnabled(generate);
            w->m_passphrase2->setEnabled(generate);
            w->m_existingPath->setEnabled(!generate);
        };
        connect(w->m_generate, &QRadioButton::toggled, this, sync);
        connect(w->m_existingPath, &QLineEdit::textEdited, this, [w] { w->m_existing->setChecked(true); });
        connect(browse, &QPushButton::clicked, this, [this, w] {
            const QString path = QFileDialog::getOpenFileName(this, SshWizard::tr("Choose a private key"),
                                                              QDir::homePath() + QStringLiteral("/.ssh"));
            if (!path.isEmpty()) {
                w->m_existingPath->setText(path);
                w->m_existing->setChecked(true);
            }
        });
        sync();
    }

    bool validatePage() override
    {
        const Status prepared = m_w->prepareKey();
        if (!prepared) {
            m_w->m_keyInfo->setText(prepared.errorString().trimmed());
            return false;
        }
        return true;
    }

  private:
    SshWizard* m_w;
};

class SshWizardNodesPage : public QWizardPage {
  public:
    explicit SshWizardNodesPage(SshWizard* w)
    {
        setTitle(SshWizard::tr("Passwords"));
        setSubTitle(SshWizard::tr("The password of each node is used once to install the key and is never stored. "
                                  "Leave it empty for nodes where the key already works."));
        auto* form = new QFormLayout(this);
        for (int i = 0; i < w->m_profile.nodes.size(); ++i) {
            auto* edit = new QLineEdit(this);
            edit->setEchoMode(QLineEdit::Password);
            edit->setAccessibleName(SshWizard::tr("Password for %1").arg(w->nodeLabel(i)));
            form->addRow(SshWizard::tr("%1:").arg(w->nodeLabel(i)), edit);
            w->m_passwords.append(edit);
        }
        w->m_headToWorkers =
            new QCheckBox(SshWizard::tr("Let the &head node log in to the workers (needed by mpirun)"), this);
        w->m_headToWorkers->setChecked(w->m_profile.nodes.size() > 1);
        w->m_headToWorkers->setEnabled(w->m_profile.nodes.size() > 1);
        form->addRow(w->m_headToWorkers);
    }
};

class SshWizardInstallPage : public QWizardPage {
  public:
    explicit SshWizardInstallPage(SshWizard* w) : m_w(w)
    {
        setTitle(SshWizard::tr("Install and verify"));
        setSubTitle(SshWizard::tr("The key is added to ~/.ssh/authorized_keys on every node, then a fresh login with "
                                  "the key alone is tried."));
        auto* l = new QVBoxLayout(this);
        w->m_progress = new QProgressBar(this);
        w->m_progress->setAccessibleName(SshWizard::tr("Installation progress"));
        l->addWidget(w->m_progress);
        w->m_status = new QTableWidget(0, 2, this);
        w->m_status->setHorizontalHeaderLabels({SshWizard::tr("Node"), SshWizard::tr("Status")});
        w->m_status->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Stretch);
        w->m_status->verticalHeader()->hide();
        w->m_status->setEditTriggers(QAbstractItemView::NoEditTriggers);
        w->m_status->setAccessibleName(SshWizard::tr("Status per node"));
        l->addWidget(w->m_status, 1);
        connect(w, &SshWizard::installDone, this, &QWizardPage::completeChanged);
    }
    void initializePage() override { m_w->startInstall(); }
    bool isComplete() const override { return m_w->m_finished; }

  private:
    SshWizard* m_w;
};

class SshWizardSummaryPage : public QWizardPage {
  public:
    explicit SshWizardSummaryPage(SshWizard* w) : m_w(w)
    {
        setTitle(SshWizard::tr("Summary"));
        auto* l = new QVBoxLayout(this);
        w->m_summary = new QLabel(this);
        w->m_summary->setWordWrap(true);
        w->m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
        l->addWidget(w->m_summary);
        l->addStretch(1);
    }
    void initializePage() override { m_w->m_summary->setText(m_w->summaryText()); }

  private:
    SshWizard* m_w;
};

// --- wizard -----------------------------------------------------------------------------------------

SshWizard::SshWizard(const cluster::ClusterProfile& profile, QWidget* parent)
    : QWizard(parent), m_profile(profile), m_keyDir(SshKeys::defaultKeyDir()),
      m_keyName(QStringLiteral("traindeck_ed25519"))
{
    setWindowTitle(tr("SSH setup: %1").arg(profile.name));
    setWizardStyle(QWizard::ClassicStyle);
    m_broker = new PromptBroker(this);
    connectPromptDialogs(m_broker, this);
    for (int i = 0; i < m_profile.nodes.size(); ++i) {
        m_states.append(NodeState::Pending);
        m_messages.append(QString());
    }
    setPage(KeyPageId, new SshWizardKeyPage(this));
    setPage(NodesPageId, new SshWizardNodesPage(this));
    setPage(InstallPageId, new SshWizardInstallPage(this));
    setPage(SummaryPageId, new SshWizardSummaryPage(this));
    setKeyLocation(m_keyDir, m_keyName);
    resize(640, 480);
}

SshWizard::~SshWizard()
{
    m_cancel.cancel();
    m_broker->shutdown();
    if (m_thread) {
        m_thread->wait();
        delete m_thread;
    }
}

void SshWizard::setKeyLocation(const QString& dir, const QString& name)
{
    m_keyDir = dir;
    m_keyName = name;
    const QString path = QDir(dir).filePath(name);
    m_generate->setText(QFileInfo::exists(path) ? tr("&Use the TrainDeck key %1 (it exists)").arg(path)
                                                : tr("&Generate a new ED25519 key as %1").arg(path));
}

QString SshWizard::nodeLabel(int node) const
{
    const cluster::ClusterNode& n = m_profile.nodes.at(node);
    const QString target = n.sshTarget() + (n.port != 22 ? QStringLiteral(":%1").arg(n.port) : QString());
    return n.name.isEmpty() || n.name == n.host ? target : QStringLiteral("%1 (%2)").arg(n.name, target);
}

Status SshWizard::prepareKey()
{
    QString privateKey;
    if (m_generate->isChecked()) {
        privateKey = QDir(m_keyDir).filePath(m_keyName);
        m_keyPassphrase.reset();
        if (!QFileInfo::exists(privateKey)) {
            if (m_passphrase->text() != m_passphrase2->text())
                return Status::failure(Diagnostic::error(QString(), tr("The passphrases do not match.")));
            std::optional<QByteArray> pass;
            if (!m_passphrase->text().isEmpty())
                pass = m_passphrase->text().toUtf8();
            const Result<GeneratedKey> key =
                SshKeys::generateEd25519(m_keyDir, m_keyName, pass, SshKeys::defaultComment());
            if (!key)
                return Status::failure(key.diagnostics());
            m_keyPassphrase = pass;
            m_passphrase->clear();
            m_passphrase2->clear();
        }
    } else {
        privateKey = expandTilde(m_existingPath->text().trimmed());
        if (privateKey.isEmpty() || !QFileInfo::exists(privateKey))
            return Status::failure(Diagnostic::error(QString(), tr("Choose an existing private key file.")));
        m_keyPassphrase.reset();
    }
    const Result<QString> line = SshKeys::readPublicKeyLine(privateKey + QStringLiteral(".pub"));
    if (!line)
        return Status::failure(line.diagnostics());
    m_privateKey = privateKey;
    m_publicLine = line.value();
    m_keyInfo->setText(tr("Key %1\nFingerprint %2").arg(privateKey, SshKeys::fingerprintOfLine(line.value())));
    setKeyLocation(m_keyDir, m_keyName);
    return Done{};
}

SshTarget SshWizard::targetFor(int node) const
{
    return SshSession::targetFor(m_profile, m_profile.nodes.at(node), m_template);
}

void SshWizard::setNodeState(int node, NodeState state, const QString& message)
{
    QString text;
    switch (state) {
    case NodeState::Pending: text = tr("waiting"); break;
    case NodeState::Working: text = tr("working…"); break;
    case NodeState::Done: text = tr("✓ %1").arg(message); break;
    case NodeState::Failed: text = tr("✗ %1").arg(message); break;
    }
    if (node < 0) {
        m_headState = state;
        m_headMessage = message;
    } else {
        m_states[node] = state;
        m_messages[node] = message;
    }
    const int row = node < 0 ? int(m_profile.nodes.size()) : node;
    if (row < m_status->rowCount()) {
        m_status->item(row, 1)->setText(text);
        m_status->item(row, 1)->setForeground(state == NodeState::Failed ? QColor(0xb7, 0x1c, 0x1c)
                                              : state == NodeState::Done ? QColor(0x1b, 0x5e, 0x20)
                                                                         : palette().color(QPalette::Text));
    }
    if (state == NodeState::Done || state == NodeState::Failed)
        m_progress->setValue(m_progress->value() + 1);
}

void SshWizard::startInstall()
{
    if (m_thread)
        return; // once per wizard (Back then Next shows the result again)
    const bool headToWorkers = m_headToWorkers->isChecked() && m_profile.nodes.size() > 1;
    const int rows = int(m_profile.nodes.size()) + (headToWorkers ? 1 : 0);
    m_status->setRowCount(rows);
    for (int i = 0; i < rows; ++i) {
        const QString name = i < m_profile.nodes.size() ? nodeLabel(i) : tr("Head → workers");
        m_status->setItem(i, 0, new QTableWidgetItem(name));
        m_status->setItem(i, 1, new QTableWidgetItem(tr("waiting")));
    }
    m_progress->setRange(0, qMax(1, rows));
    m_progress->setValue(0);
    QList<std::optional<QByteArray>> passwords;
    for (QLineEdit* e : std::as_const(m_passwords)) {
        passwords.append(e->text().isEmpty() ? std::nullopt : std::optional<QByteArray>(e->text().toUtf8()));
        e->clear();
    }
    button(QWizard::BackButton)->setEnabled(false);
    m_thread = QThread::create([this, passwords, headToWorkers] { installWorker(passwords, headToWorkers); });
    m_thread->start();
}

// Worker thread: everything shown goes through queued calls to the wizard.
void SshWizard::installWorker(QList<std::optional<QByteArray>> passwords, bool headToWorkers)
{
    auto report = [this](int node, NodeState s, const QString& msg) {
        QMetaObject::invokeMethod(
            this, [this, node, s, msg] { setNodeState(node, s, msg); }, Qt::QueuedConnection);
    };
    const std::optional<QByteArray> keyPass = m_keyPassphrase;
    NodesKeyInstall plan;
    for (int i = 0; i < m_profile.nodes.size(); ++i)
        plan.targets.append(targetFor(i));
    plan.head = m_profile.headIndex();
    plan.publicKeyLine = m_publicLine;
    plan.privateKeyPath = m_privateKey;
    plan.headToWorkers = headToWorkers;
    NodesKeyInstallEvents events;
    events.prompts = [this, passwords, keyPass](int node) {
        SshPrompts prompts;
        prompts.hostKey = [this](const HostKeyInfo& info) { return m_broker->askHostKey(info, m_cancel); };
        // Each node's own login password; the head -> workers step logs in with the key alone.
        const std::optional<QByteArray> password =
            node == NodesKeyInstallEvents::kHeadToWorkers ? std::nullopt : passwords.value(node);
        prompts.secret = [this, password, keyPass, node](const SecretRequest& req) -> std::optional<QByteArray> {
            if (req.kind == SecretKind::KeyPassphrase || node == NodesKeyInstallEvents::kHeadToWorkers)
                return keyPass ? keyPass : m_broker->askSecret(req, m_cancel);
            return password;
        };
        return prompts;
    };
    events.started = [&report](int node) { report(node, NodeState::Working, QString()); };
    events.finished = [&report](int node, const Result<QString>& outcome) {
        if (outcome)
            report(node, NodeState::Done, outcome.value());
        else
            report(node, NodeState::Failed, outcome.firstError().toString());
    };
    SshKeys::installOnNodes(plan, events, m_cancel); // every outcome is reported through events
    QMetaObject::invokeMethod(
        this,
        [this] {
            m_finished = true;
            button(QWizard::BackButton)->setEnabled(true);
            Q_EMIT installDone();
        },
        Qt::QueuedConnection);
}

QString SshWizard::summaryText() const
{
    QStringList lines;
    lines << tr("Key: %1 (%2)").arg(m_privateKey, SshKeys::fingerprintOfLine(m_publicLine));
    int ok = 0;
    for (int i = 0; i < m_profile.nodes.size(); ++i) {
        const bool done = m_states.at(i) == NodeState::Done;
        ok += done ? 1 : 0;
        lines << (done ? tr("✓ %1: %2") : tr("✗ %1: %2"))
                     .arg(nodeLabel(i), m_messages.at(i).isEmpty() ? tr("not done") : m_messages.at(i));
    }
    if (m_headState != NodeState::Pending)
        lines << (m_headState == NodeState::Done ? tr("✓ Head → workers: %1") : tr("✗ Head → workers: %1"))
                     .arg(m_headMessage);
    lines << QString();
    lines << (ok == m_profile.nodes.size()
                  ? tr("Every node accepts the key. Set it as the nodes' identity in the profile if it is not one of "
                       "the SSH defaults.")
                  : tr("%1 of %2 nodes accept the key. Fix the failures above and run the wizard again.")
                        .arg(ok)
                        .arg(m_profile.nodes.size()));
    // Next on GPU nodes: a trainer that can use their GPUs (the profile's "gpus").
    if (const QString gpu = cluster::GpuTrainer::profileAdvice(m_profile); !gpu.isEmpty())
        lines << QString() << gpu;
    return lines.join(QLatin1Char('\n'));
}

} // namespace traindeck::gui
