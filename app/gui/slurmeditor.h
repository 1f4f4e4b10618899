// The launcher of a cluster profile: mpirun over SSH (the nodes and their hostfile) or Slurm (sbatch on
// the login node, with the partition, account and job defaults of the profile's "slurm" section).
// Only edits the values; ClusterProfile::validate() judges them (shown by the Cluster page).
#pragma once

#include "cluster/clusterprofile.h"

#include <QGroupBox>

#include <optional>

class QComboBox;
class QLineEdit;
class QSpinBox;
class QWidget;

namespace traindeck::gui {

class SlurmSettingsEditor : public QGroupBox {
    Q_OBJECT

  public:
    explicit SlurmSettingsEditor(QWidget* parent = nullptr);

    // nullopt: mpirun over SSH.
    std::optional<cluster::SlurmSettings> settings() const;
    void setSettings(const std::optional<cluster::SlurmSettings>& settings);
    // The built-in local profile cannot use Slurm: the choice is then disabled.
    void setSlurmAllowed(bool allowed);

    QComboBox* launcherBox() const { return m_launcher; }

  Q_SIGNALS:
    void changed();

  private:
    void updateEnabled();

    QComboBox* m_launcher = nullptr;
    QWidget* m_form = nullptr;
    QLineEdit* m_partition = nullptr;
    QLineEdit* m_account = nullptr;
    QLineEdit* m_time = nullptr;
    QSpinBox* m_nodes = nullptr;
    QSpinBox* m_tasks = nullptr;
    QSpinBox* m_gpus = nullptr;
    QSpinBox* m_cpus = nullptr;
    QComboBox* m_ranksVia = nullptr;
    QSpinBox* m_signal = nullptr;
};

} // namespace traindeck::gui
