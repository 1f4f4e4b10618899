// Cluster: the cluster profile's nodes (editable table), its hostfile in an editor with inline
// validation, import/export in the Open MPI, DeepSpeed and MPICH syntaxes, and saving profiles.
#pragma once

#include "cluster/clusterprofile.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QTableView;

namespace traindeck::cluster {
class ClusterNodesModel;
}

namespace traindeck::gui {

class HostfileEditor;
class SlurmSettingsEditor;

class ClusterPage : public QWidget {
    Q_OBJECT

  public:
    explicit ClusterPage(QWidget* parent = nullptr);

    QString profileName() const;
    cluster::ClusterProfile profile() const;
    HostfileEditor* hostfileEditor() const { return m_editor; }
    SlurmSettingsEditor* launcherEditor() const { return m_launcher; }
    QLabel* problemsLabel() const { return m_problems; }
    cluster::ClusterNodesModel* nodesModel() const { return m_nodes; }
    void selectProfile(const QString& name);

  public Q_SLOTS:
    void reloadProfiles();

  Q_SIGNALS:
    // The profiles on disk or the current one changed (the Launch page lists them).
    void profilesChanged();
    // Another profile was loaded (chosen in the list, or selected by the program).
    void currentProfileChanged();
    void sshSetupRequested(const cluster::ClusterProfile& profile);

  private:
    void loadProfile(const QString& name);
    void applyHostfileToNodes();
    void saveProfile();
    void saveProfileAs();
    void updateLayoutLabel();

    QComboBox* m_profiles = nullptr;
    QTableView* m_table = nullptr;
    QLabel* m_layout = nullptr;
    QLabel* m_profileInfo = nullptr;
    cluster::ClusterNodesModel* m_nodes = nullptr;
    HostfileEditor* m_editor = nullptr;
    SlurmSettingsEditor* m_launcher = nullptr;
    QLabel* m_problems = nullptr;
    QWidget* m_hostBox = nullptr;
    cluster::ClusterProfile m_profile;
};

} // namespace traindeck::gui
