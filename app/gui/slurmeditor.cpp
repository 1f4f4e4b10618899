#include "slurmeditor.h"

#include <QComboBox>
#include <QFormLayout>
#include <QLineEdit>
#include <QSpinBox>
#include <QVBoxLayout>

namespace traindeck::gui {

using cluster::SlurmSettings;

SlurmSettingsEditor::SlurmSettingsEditor(QWidget* parent) : QGroupBox(tr("Launcher"), parent)
{
    auto* layout = new QVBoxLayout(this);
    auto* top = new QFormLayout;
    m_launcher = new QComboBox(this);
    m_launcher->addItem(tr("mpirun over SSH (the nodes above, as a hostfile)"));
    m_launcher->addItem(tr("Slurm (sbatch on the login node: the head node above)"));
    m_launcher->setAccessibleName(tr("Launcher"));
    top->addRow(tr("&Launch with:"), m_launcher);
    layout->addLayout(top);

    m_form = new QWidget(this);
    auto* form = new QFormLayout(m_form);
    form->setContentsMargins(0, 0, 0, 0);
    const SlurmSettings defaults;
    m_partition = new QLineEdit(m_form);
    m_partition->setPlaceholderText(tr("required, e.g. gpu"));
    form->addRow(tr("&Partition:"), m_partition);
    m_account = new QLineEdit(m_form);
    m_account->setPlaceholderText(tr("empty: your default account"));
    form->addRow(tr("A&ccount:"), m_account);
    m_time = new QLineEdit(defaults.timeLimit, m_form);
    m_time->setPlaceholderText(tr("MM, HH:MM:SS or D-HH:MM:SS"));
    m_time->setToolTip(tr("The job's time limit (sbatch --time). The trainer checkpoints and stops when Slurm "
                          "signals it shortly before the limit; resume continues in a new job."));
    form->addRow(tr("&Time limit:"), m_time);
    auto spin = [this](int min, int max, int value, const QString& suffix = QString()) {
        auto* s = new QSpinBox(m_form);
        s->setRange(min, max);
        s->setValue(value);
        s->setSuffix(suffix);
        connect(s, &QSpinBox::valueChanged, this, &SlurmSettingsEditor::changed);
        return s;
    };
    m_nodes = spin(1, 100000, defaults.nodes);
    form->addRow(tr("&Nodes:"), m_nodes);
    m_tasks = spin(1, cluster::ClusterProfile::MaxSlots, defaults.tasksPerNode);
    m_tasks->setToolTip(tr("Ranks per node (--ntasks-per-node); one per GPU on GPU nodes"));
    form->addRow(tr("Ranks per &node:"), m_tasks);
    m_gpus = spin(0, 1024, defaults.gpusPerNode);
    m_gpus->setSpecialValueText(tr("none asked"));
    form->addRow(tr("&GPUs per node:"), m_gpus);
    m_cpus = spin(1, 4096, defaults.cpusPerTask);
    form->addRow(tr("CP&Us per rank:"), m_cpus);
    m_ranksVia = new QComboBox(m_form);
    m_ranksVia->addItem(tr("auto (srun when it offers pmix, else mpirun)"), QStringLiteral("auto"));
    m_ranksVia->addItem(tr("mpirun (hosts and ranks from Slurm)"), QStringLiteral("mpirun"));
    m_ranksVia->addItem(tr("srun --mpi=pmix"), QStringLiteral("srun"));
    form->addRow(tr("Ranks &start via:"), m_ranksVia);
    m_signal = spin(0, 65535, defaults.signalSeconds, tr(" s"));
    m_signal->setSpecialValueText(tr("no warning signal"));
    m_signal->setToolTip(tr("Seconds before the time limit at which Slurm sends SIGUSR1 (the trainer then "
                            "checkpoints and stops)"));
    form->addRow(tr("Checkpoint &before limit:"), m_signal);
    layout->addWidget(m_form);

    for (QLineEdit* e : {m_partition, m_account, m_time})
        connect(e, &QLineEdit::textChanged, this, &SlurmSettingsEditor::changed);
    connect(m_ranksVia, &QComboBox::currentIndexChanged, this, &SlurmSettingsEditor::changed);
    connect(m_launcher, &QComboBox::currentIndexChanged, this, [this] {
        updateEnabled();
        Q_EMIT changed();
    });
    updateEnabled();
}

std::optional<SlurmSettings> SlurmSettingsEditor::settings() const
{
    if (m_launcher->currentIndex() != 1)
        return std::nullopt;
    SlurmSettings s;
    s.partition = m_partition->text().trimmed();
    s.account = m_account->text().trimmed();
    s.timeLimit = m_time->text().trimmed();
    s.nodes = m_nodes->value();
    s.tasksPerNode = m_tasks->value();
    s.gpusPerNode = m_gpus->value();
    s.cpusPerTask = m_cpus->value();
    s.ranksVia = m_ranksVia->currentData().toString();
    s.signalSeconds = m_signal->value();
    return s;
}

void SlurmSettingsEditor::setSettings(const std::optional<SlurmSettings>& settings)
{
    const QSignalBlocker block(this);
    const SlurmSettings s = settings.value_or(SlurmSettings{});
    m_launcher->setCurrentIndex(settings ? 1 : 0);
    m_partition->setText(s.partition);
    m_account->setText(s.account);
    m_time->setText(s.timeLimit);
    m_nodes->setValue(s.nodes);
    m_tasks->setValue(s.tasksPerNode);
    m_gpus->setValue(s.gpusPerNode);
    m_cpus->setValue(s.cpusPerTask);
    const int via = m_ranksVia->findData(s.ranksVia);
    m_ranksVia->setCurrentIndex(via >= 0 ? via : 0);
    m_signal->setValue(s.signalSeconds);
    updateEnabled();
}

void SlurmSettingsEditor::setSlurmAllowed(bool allowed)
{
    m_launcher->setEnabled(allowed);
    updateEnabled();
}

void SlurmSettingsEditor::updateEnabled()
{
    m_form->setVisible(m_launcher->currentIndex() == 1);
}

} // namespace traindeck::gui
