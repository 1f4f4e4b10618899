// Monitor: live (or offline) view of one run. Loss raw + smoothed, learning rate, gradient norm,
// throughput and MFU, per-rank utilisation and memory, per-rank load balance (stacked phase bars),
// a rank x step heatmap and the diagnosis findings, whose selection highlights ranks everywhere.
//
// Redraws are coalesced (Wireshark's I/O graph): records only set dirty flags, a single-shot timer
// (Settings::refreshMs) updates the visible tab's plot data and asks for a queued replot. Series
// above kRawLimit rows are drawn from MetricStore::decimate over the visible step range.
//
// MonitorPage coordinates: it follows the session, holds the controls, the tabs and the findings
// panel, keeps the x ranges of the step plots in step, the rank selection and the exports. Each tab
// (monitor/trainingtab.h, devicestab.h, balancetab.h; the Logs tab is LogsPanel) owns its plots and
// what they have drawn so far, and is told what to refresh.
#pragma once

#include "analysis/finding.h"
#include "analysis/findinghistory.h"
#include "monitor/balancetab.h"
#include "monitor/devicestab.h"
#include "monitor/monitorplot.h"
#include "monitor/trainingtab.h"
#include "series.h"

#include <QList>
#include <QSet>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QCustomPlot;
class QCPBars;
class QCPColorMap;
class QCPGraph;
class QCPRange;
class QHBoxLayout;
class QLabel;
class QSlider;
class QSpinBox;
class QTabWidget;
class QTimer;

namespace traindeck::gui {

class FindingsPanel;
class LogsPanel;
class RunSession;

class MonitorPage : public QWidget {
    Q_OBJECT

  public:
    static constexpr int kRawLimit = monitor::kRawLimit; // rows drawn point by point; above: decimated

    enum Tab { TrainingTab, DevicesTab, BalanceTab, LogsTab };

    explicit MonitorPage(RunSession* session, QWidget* parent = nullptr);
    ~MonitorPage() override;

    // --- for tests, the benchmark and screenshots
    void refreshNow(); // apply pending updates immediately (no timer)
    void setCurrentTab(Tab tab);
    QWidget* currentTabWidget() const;
    QCustomPlot* lossPlot() const { return m_training->lossPlot(); }
    QCustomPlot* lrPlot() const { return m_training->lrPlot(); }
    QCustomPlot* gradPlot() const { return m_training->gradPlot(); }
    QCustomPlot* throughputPlot() const { return m_training->throughputPlot(); }
    QCustomPlot* utilPlot() const { return m_devices->utilPlot(); }
    QCustomPlot* memPlot() const { return m_devices->memPlot(); }
    QCustomPlot* barsPlot() const { return m_balance->barsPlot(); }
    QCustomPlot* heatmapPlot() const { return m_balance->heatmapPlot(); }
    QCPGraph* lossGraph() const { return m_training->lossGraph(); }
    QCPGraph* smoothedLossGraph() const { return m_training->smoothedLossGraph(); }
    QCPGraph* lrGraph() const { return m_training->lrGraph(); }
    QCPGraph* gradNormGraph() const { return m_training->gradNormGraph(); }
    QCPGraph* tokensGraph() const { return m_training->tokensGraph(); }
    QCPGraph* mfuGraph() const { return m_training->mfuGraph(); }
    QCPGraph* utilGraph(int rank) const { return m_devices->utilGraph(rank); }
    QCPGraph* memGraph(int rank) const { return m_devices->memGraph(rank); }
    QCPBars* phaseBars(Phase phase) const { return m_balance->phaseBars(phase); }
    QCPColorMap* heatmap() const { return m_balance->heatmap(); }
    monitor::BalanceTab* balanceTab() const { return m_balance; }
    FindingsPanel* findingsPanel() const { return m_findings; }
    // A large live job's analysed steps, as copied for the worker thread so far (null before the first).
    const metrics::MetricStore* liveAnalysisCopy() const { return m_liveCopy.get(); }
    LogsPanel* logsPanel() const { return m_logs; }
    QList<int> selectedRanks() const;
    int redrawCount() const { return m_redraws; }
    double smoothing() const;
    void setSmoothing(double beta); // 0 .. 0.999
    void setBalanceSteps(int steps);
    void setHeatmapMetric(HeatmapMetric metric);
    // Whether the x range follows the newest step (turned off by zooming or panning).
    bool followLatest() const { return m_follow; }
    void setFollowLatest(bool follow);

  public Q_SLOTS:
    void setSelectedRanks(const QList<int>& ranks);
    void exportPng();
    void exportCsv();
    bool exportPngTo(const QString& path);
    void resetZoom();

  Q_SIGNALS:
    void selectedRanksChanged(const QList<int>& ranks);
    void statusTextChanged(const QString& text);

  private:
    enum Dirty : unsigned { DirtyData = 1, DirtyRange = 2, DirtyRebuild = 4, DirtySelection = 8, DirtyFindings = 16 };

    void schedule(unsigned flags);
    void refresh();
    void refreshCurrentTab();
    void refreshFindings(bool force, bool dirty);
    void applySelectionStyle();
    void onXRangeChanged(QCustomPlot* source, const QCPRange& range);
    void updateStatus();
    QList<QCustomPlot*> timePlots() const;
    QHBoxLayout* buildControls();
    void connectBehaviour();
    void replotVisible();
    QString sessionRunDir() const;

    RunSession* m_session;
    QTabWidget* m_tabs = nullptr;
    monitor::TrainingTab* m_training = nullptr; // each tab owns its plots and what they have drawn so far
    monitor::DevicesTab* m_devices = nullptr;
    monitor::BalanceTab* m_balance = nullptr;
    FindingsPanel* m_findings = nullptr;
    LogsPanel* m_logs = nullptr;             // every rank's stderr (the Logs tab)
    analysis::LiveDiagnosis m_liveDiagnosis; // live runs: what the panel has shown so far
    quint64 m_liveGeneration = 0;
    bool m_liveAnalysing = false; // a large job's live analysis runs on a worker thread
    // What it reads: a copy of the analysed steps, brought up to date by the rows added since the last analysis
    // (copying 2,000 steps of 1,024 ranks again took 56 ms of the GUI thread at every analysis).
    std::shared_ptr<metrics::MetricStore> m_liveCopy;
    quint64 m_liveCopyGeneration = 0;
    QLabel* m_title = nullptr;
    QLabel* m_status = nullptr;
    QSlider* m_smoothSlider = nullptr;
    QLabel* m_smoothLabel = nullptr;
    QSpinBox* m_balanceSteps = nullptr;
    QComboBox* m_heatMetric = nullptr;
    QCheckBox* m_followBox = nullptr;
    QTimer* m_timer = nullptr;

    unsigned m_dirty = 0;
    unsigned m_tabDirty[4] = {0, 0, 0, 0};
    bool m_follow = true;
    bool m_updating = false;
    quint64 m_generation = ~quint64(0);
    QSet<int> m_selected;
    QSet<QCustomPlot*> m_replotPending;
    analysis::DiagnosisCadence m_findingsCadence; // how often the findings are analysed again
    int m_redraws = 0;
};

} // namespace traindeck::gui
