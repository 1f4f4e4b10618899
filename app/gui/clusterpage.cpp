#include "clusterpage.h"

#include "cluster/clusternodesmodel.h"
#include "hostfileeditor.h"
#include "slurmeditor.h"

#include <QComboBox>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace traindeck::gui {

using cluster::ClusterProfile;

ClusterPage::ClusterPage(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    auto* top = new QHBoxLayout;
    auto* profileLabel = new QLabel(tr("&Profile:"), this);
    m_profiles = new QComboBox(this);
    m_profiles->setMinimumWidth(180);
    profileLabel->setBuddy(m_profiles);
    auto* saveBtn = new QPushButton(tr("&Save"), this);
    saveBtn->setToolTip(tr("Save the nodes to the profile file"));
    auto* saveAsBtn = new QPushButton(tr("Save &as…"), this);
    top->addWidget(profileLabel);
    top->addWidget(m_profiles);
    top->addWidget(saveBtn);
    top->addWidget(saveAsBtn);
    m_profileInfo = new QLabel(this);
    top->addWidget(m_profileInfo, 1);
    auto* sshBtn = new QPushButton(tr("SS&H setup…"), this);
    sshBtn->setToolTip(tr("Create a key, install it on every node and verify password-less login"));
    top->addWidget(sshBtn);
    connect(sshBtn, &QPushButton::clicked, this, [this] { Q_EMIT sshSetupRequested(profile()); });
    layout->addLayout(top);

    auto* nodesBox = new QGroupBox(tr("Nodes"), this);
    auto* nl = new QVBoxLayout(nodesBox);
    m_nodes = new cluster::ClusterNodesModel(this);
    m_table = new QTableView(nodesBox);
    m_table->setModel(m_nodes);
    m_table->setAccessibleName(tr("Cluster nodes"));
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->verticalHeader()->setVisible(false);
    m_table->setAlternatingRowColors(true);
    nl->addWidget(m_table);
    auto* nodeButtons = new QHBoxLayout;
    auto* addBtn = new QPushButton(tr("A&dd node"), nodesBox);
    auto* removeBtn = new QPushButton(tr("&Remove node"), nodesBox);
    m_layout = new QLabel(nodesBox);
    nodeButtons->addWidget(addBtn);
    nodeButtons->addWidget(removeBtn);
    nodeButtons->addStretch(1);
    nodeButtons->addWidget(m_layout);
    nl->addLayout(nodeButtons);

    auto* hostBox = new QGroupBox(tr("Hostfile"), this);
    auto* hl = new QVBoxLayout(hostBox);
    m_editor = new HostfileEditor(hostBox);
    hl->addWidget(m_editor);
    auto* applyBtn = new QPushButton(tr("Use hostfile as &nodes"), hostBox);
    applyBtn->setToolTip(tr("Replace the node table with the hosts of the hostfile (repeated hosts merged)"));
    auto* hb = new QHBoxLayout;
    hb->addStretch(1);
    hb->addWidget(applyBtn);
    hl->addLayout(hb);

    m_launcher = new SlurmSettingsEditor(this);
    m_problems = new QLabel(this);
    m_problems->setWordWrap(true);
    m_problems->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_hostBox = hostBox;

    auto* upper = new QWidget(this);
    auto* ul = new QVBoxLayout(upper);
    ul->setContentsMargins(0, 0, 0, 0);
    ul->addWidget(nodesBox, 1);
    ul->addWidget(m_launcher);
    ul->addWidget(m_problems);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(upper);
    split->addWidget(hostBox);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    layout->addWidget(split, 1);

    connect(m_profiles, &QComboBox::currentTextChanged, this, &ClusterPage::loadProfile);
    connect(saveBtn, &QPushButton::clicked, this, &ClusterPage::saveProfile);
    connect(saveAsBtn, &QPushButton::clicked, this, &ClusterPage::saveProfileAs);
    connect(addBtn, &QPushButton::clicked, this, [this] {
        m_nodes->insertRows(m_nodes->rowCount(), 1);
        m_table->edit(m_nodes->index(m_nodes->rowCount() - 1, cluster::ClusterNodesModel::HostColumn));
    });
    connect(removeBtn, &QPushButton::clicked, this, [this] {
        const QModelIndex i = m_table->currentIndex();
        if (i.isValid())
            m_nodes->removeRows(i.row(), 1);
    });
    connect(applyBtn, &QPushButton::clicked, this, &ClusterPage::applyHostfileToNodes);
    connect(m_nodes, &QAbstractItemModel::dataChanged, this, &ClusterPage::updateLayoutLabel);
    connect(m_nodes, &QAbstractItemModel::rowsInserted, this, &ClusterPage::updateLayoutLabel);
    connect(m_nodes, &QAbstractItemModel::rowsRemoved, this, &ClusterPage::updateLayoutLabel);
    connect(m_nodes, &QAbstractItemModel::modelReset, this, &ClusterPage::updateLayoutLabel);
    connect(m_launcher, &SlurmSettingsEditor::changed, this, &ClusterPage::updateLayoutLabel);
    reloadProfiles();
}

void ClusterPage::reloadProfiles()
{
    const QString current = m_profiles->currentText();
    {
        const QSignalBlocker b(m_profiles);
        m_profiles->clear();
        m_profiles->addItems(ClusterProfile::availableNames());
    }
    const int i = m_profiles->findText(current);
    m_profiles->setCurrentIndex(i >= 0 ? i : 0);
    loadProfile(m_profiles->currentText());
}

void ClusterPage::selectProfile(const QString& name)
{
    const int i = m_profiles->findText(name);
    if (i >= 0)
        m_profiles->setCurrentIndex(i);
}

QString ClusterPage::profileName() const
{
    return m_profiles->currentText();
}

ClusterProfile ClusterPage::profile() const
{
    ClusterProfile p = m_profile;
    p.nodes = m_nodes->nodes();
    p.slurm = m_launcher->settings();
    return p;
}

void ClusterPage::loadProfile(const QString& name)
{
    if (name.isEmpty())
        return;
    const auto loaded = ClusterProfile::loadNamed(name);
    if (!loaded.ok()) {
        m_profileInfo->setText(tr("Cannot load profile: %1").arg(loaded.errorString()));
        return;
    }
    m_profile = loaded.value();
    m_nodes->setNodes(m_profile.nodes);
    m_launcher->setSettings(m_profile.slurm);
    m_launcher->setSlurmAllowed(!m_profile.isLocal);
    m_profileInfo->setText(m_profile.isLocal ? tr("This machine, ranks started as local processes (no SSH).")
                                             : tr("Work directory on the nodes: %1").arg(m_profile.workdir));
    const auto hostfile = m_profile.toHostfile();
    if (hostfile.ok())
        m_editor->setText(hostfile->toText());
    updateLayoutLabel();
    Q_EMIT currentProfileChanged();
}

void ClusterPage::updateLayoutLabel()
{
    const ClusterProfile p = profile();
    if (p.slurm)
        m_layout->setText(tr("Slurm places the ranks: %n rank(s) per job", nullptr, p.totalSlots()));
    else
        m_layout->setText(tr("%n node(s)", nullptr, int(p.nodes.size())) + QStringLiteral(", ") +
                          tr("%n rank(s) in all", nullptr, p.totalSlots()));
    // Under Slurm the head node is only the login node: Slurm chooses the compute nodes, no hostfile.
    m_hostBox->setEnabled(!p.slurm);
    m_hostBox->setToolTip(p.slurm ? tr("Not used with Slurm: the scheduler places the ranks") : QString());
    QStringList problems;
    for (const Diagnostic& d : p.validate())
        problems << (d.isError() ? tr("Error: %1") : tr("Warning: %1"))
                        .arg((d.key.isEmpty() ? QString() : d.key + QStringLiteral(": ")) + d.message);
    m_problems->setText(problems.join(QLatin1Char('\n')));
    m_problems->setVisible(!problems.isEmpty());
}

void ClusterPage::applyHostfileToNodes()
{
    m_editor->validateNow();
    const auto hostfile = m_editor->hostfile();
    if (!hostfile) {
        QMessageBox::warning(this, tr("Hostfile has errors"), tr("Fix the errors listed below the hostfile first."));
        return;
    }
    const ClusterProfile fromHosts = ClusterProfile::fromHostfile(*hostfile, m_profile.name);
    m_nodes->setNodes(fromHosts.nodes);
    m_profile.isLocal = false;
}

void ClusterPage::saveProfile()
{
    ClusterProfile p = profile();
    if (p.name == QLatin1String("local") || p.name.isEmpty()) {
        saveProfileAs();
        return;
    }
    const auto status = p.saveNamed();
    if (!status.ok()) {
        QMessageBox::warning(this, tr("Cannot save profile"), status.errorString());
        return;
    }
    m_profile = p;
    Q_EMIT profilesChanged();
}

void ClusterPage::saveProfileAs()
{
    bool ok = false;
    const QString name =
        QInputDialog::getText(this, tr("Save profile as"), tr("Profile name (letters, digits, '.', '_', '-'):"),
                              QLineEdit::Normal, QStringLiteral("cluster"), &ok);
    if (!ok || name.isEmpty())
        return;
    ClusterProfile p = profile();
    p.name = name;
    p.isLocal = false;
    const auto status = p.saveNamed();
    if (!status.ok()) {
        QMessageBox::warning(this, tr("Cannot save profile"), status.errorString());
        return;
    }
    m_profile = p;
    reloadProfiles();
    selectProfile(name);
    Q_EMIT profilesChanged();
}

} // namespace traindeck::gui
