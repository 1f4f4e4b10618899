// Launch: a preset (the tiny demo, or DeepSeek-R1-Distill-Qwen-1.5B from a model directory), the
// dataset, hyper-parameters with validation and defaults, the world layout from the cluster profile
// (nodes x slots), environment variables, and the exact mpirun command (backend/launch) as a preview.
#pragma once

#include "cluster/clusterprofile.h"
#include "common/result.h"
#include "launch/jobspec.h"

#include <QWidget>

#include <memory>

class QComboBox;
class QGroupBox;
class QVBoxLayout;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QCheckBox;
class QTableWidget;
class QTimer;

namespace traindeck::runs {
class Operations;
} // namespace traindeck::runs

namespace traindeck::gui {

class LaunchPage : public QWidget {
    Q_OBJECT

  public:
    enum class Preset { TinyDemo, DeepSeekDistill1_5B };

    explicit LaunchPage(std::shared_ptr<const runs::Operations> operations, QWidget* parent = nullptr);

    // Fills the form from the preset's built-in job spec (launch::JobSpec::builtin).
    void applyPreset(Preset preset);
    Preset preset() const;
    void setProfileName(const QString& name);
    QString profileName() const;
    void setRanks(int ranks);
    void setDataPath(const QString& path);
    void setModelDir(const QString& dir);
    void setEnv(const QString& name, const QString& value);

    // The job spec the form describes, and the profile it runs on.
    launch::JobSpec spec() const;
    Result<cluster::ClusterProfile> profile() const;
    // The profile's problems plus runs::Operations::validate (the rules every front end applies).
    Diagnostics validate() const;
    // The mpirun command line that Launch would run (empty when the spec is invalid).
    QString commandPreview() const;
    QString layoutText() const;
    QPlainTextEdit* previewWidget() const { return m_preview; }
    QPushButton* launchButton() const { return m_launch; }

  public Q_SLOTS:
    void reloadProfiles();
    void updatePreview();
    // Starts the run in the background; launched() or launchFailed() follow.
    void launchNow();

  Q_SIGNALS:
    void launched(const QString& runDir); // the run directory, or the local record of a remote run
    void launchFailed(const QString& message);

  private:
    std::shared_ptr<const runs::Operations> m_operations;
    QGroupBox* buildModelBox(QWidget* parent);
    QGroupBox* buildWorldBox(QWidget* parent);
    QGroupBox* buildHyperparameterBox(QWidget* parent);
    QVBoxLayout* buildSidePanel();
    void connectPreview();
    void schedulePreview();
    void updateMemoryPlan();
    void applySpec(const launch::JobSpec& spec);

    QComboBox* m_preset = nullptr;
    QLineEdit* m_name = nullptr;
    QLineEdit* m_modelDir = nullptr;
    QLineEdit* m_data = nullptr;
    QLineEdit* m_tokenizer = nullptr;
    QComboBox* m_profile = nullptr;
    QSpinBox* m_ranks = nullptr;
    QLabel* m_layout = nullptr;
    QSpinBox *m_maxSteps = nullptr, *m_seqLen = nullptr, *m_microBatch = nullptr, *m_gradAccum = nullptr;
    QSpinBox *m_warmup = nullptr, *m_checkpointEvery = nullptr, *m_seed = nullptr, *m_threads = nullptr;
    QLineEdit* m_lr = nullptr;
    QDoubleSpinBox *m_weightDecay = nullptr, *m_clip = nullptr;
    QComboBox* m_precision = nullptr;
    QCheckBox* m_balance = nullptr;                              // --balance auto
    QCheckBox* m_zero = nullptr;                                 // --zero 1
    QCheckBox* m_recompute = nullptr;                            // --recompute layers
    QComboBox* m_comm = nullptr;                                 // --comm auto | mpi | nccl
    QCheckBox* m_overlap = nullptr;                              // --overlap on (default) | off
    QSpinBox *m_stallWarning = nullptr, *m_stallAbort = nullptr; // the stall inspector, seconds
    QTableWidget* m_env = nullptr;
    QLabel* m_previewLabel = nullptr;
    QPlainTextEdit* m_preview = nullptr;
    QListWidget* m_problems = nullptr;
    QLabel* m_memory = nullptr;      // the memory plan against the nodes (runs/memoryfit.h)
    QTimer* m_memoryTimer = nullptr; // the plan runs the trainer: after the fields rest a while
    int m_memoryRequest = 0;         // the latest request; older answers are dropped
    QPushButton* m_launch = nullptr;
    QTimer* m_previewTimer = nullptr;
    QString m_trainerPath;
    bool m_launching = false;
};

} // namespace traindeck::gui
