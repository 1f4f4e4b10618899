// Monitor: live (or offline) view of one run. Loss raw + smoothed, learning rate, gradient norm,
// throughput and MFU, per-rank utilisation and memory, per-rank load balance (stacked phase bars),
// a rank x step heatmap and the diagnosis findings, whose selection highlights ranks everywhere.
//
// Redraws are coalesced (Wireshark's I/O graph): records only set dirty flags, a single-shot timer
// (Settings::refreshMs) updates the visible tab's plot data and asks for a queued replot. Series
// above kRawLimit rows are drawn from MetricStore::decimate over the visible step range.
#pragma once

#include "analysis/finding.h"
#include "analysis/findinghistory.h"
#include "series.h"

#include <QElapsedTimer>
#include <QHash>

#include <QList>
#include <QSet>
#include <QWidget>
#include <functional>

#include <vector>

class QCheckBox;
class QComboBox;
class QCustomPlot;
class QCPAxis;
class QCPBars;
class QCPColorMap;
class QCPColorScale;
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
    static constexpr int kRawLimit = 50000; // rows drawn point by point; above: decimated

    enum Tab { TrainingTab, DevicesTab, BalanceTab, LogsTab };

    explicit MonitorPage(RunSession* session, QWidget* parent = nullptr);
    ~MonitorPage() override;

    // --- for tests, the benchmark and screenshots
    void refreshNow(); // apply pending updates immediately (no timer)
    void setCurrentTab(Tab tab);
    QWidget* currentTabWidget() const;
    QCustomPlot* lossPlot() const { return m_lossPlot; }
    QCustomPlot* lrPlot() const { return m_lrPlot; }
    QCustomPlot* gradPlot() const { return m_gradPlot; }
    QCustomPlot* throughputPlot() const { return m_tputPlot; }
    QCustomPlot* utilPlot() const { return m_utilPlot; }
    QCustomPlot* memPlot() const { return m_memPlot; }
    QCustomPlot* barsPlot() const { return m_barsPlot; }
    QCustomPlot* heatmapPlot() const { return m_heatPlot; }
    QCPGraph* lossGraph() const { return m_lossRaw; }
    QCPGraph* smoothedLossGraph() const { return m_lossSmooth; }
    QCPGraph* lrGraph() const { return m_lr; }
    QCPGraph* gradNormGraph() const { return m_grad; }
    QCPGraph* tokensGraph() const { return m_tokens; }
    QCPGraph* mfuGraph() const { return m_mfu; }
    QCPGraph* utilGraph(int rank) const;
    QCPGraph* memGraph(int rank) const;
    QCPBars* phaseBars(Phase phase) const { return m_bars.value(int(phase)); }
    QCPColorMap* heatmap() const { return m_heat; }
    FindingsPanel* findingsPanel() const { return m_findings; }
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
    void refreshTraining(bool rebuild);
    void refreshDevices(bool rebuild);
    void refreshBalance();
    void refreshHeatmap();
    void refreshFindings(bool force, bool dirty);
    void updateSmoothed(bool rebuild);
    void applySelectionStyle();
    void ensureRankGraphs();
    void onXRangeChanged(QCustomPlot* source, const QCPRange& range);
    void updateStatus();
    QList<QCustomPlot*> timePlots() const;
    QHBoxLayout* buildControls();
    QWidget* buildTrainingTab();
    QWidget* buildDevicesTab();
    QWidget* buildBalanceTab();
    void connectBehaviour();
    QCustomPlot* makePlot(const QString& title);
    void replotVisible();
    QString sessionRunDir() const;

    RunSession* m_session;
    QTabWidget* m_tabs = nullptr;
    FindingsPanel* m_findings = nullptr;
    LogsPanel* m_logs = nullptr;             // every rank's stderr (the Logs tab)
    analysis::LiveDiagnosis m_liveDiagnosis; // live runs: what the panel has shown so far
    quint64 m_liveGeneration = 0;
    QLabel* m_title = nullptr;
    QLabel* m_status = nullptr;
    QSlider* m_smoothSlider = nullptr;
    QLabel* m_smoothLabel = nullptr;
    QSpinBox* m_balanceSteps = nullptr;
    QComboBox* m_heatMetric = nullptr;
    QCheckBox* m_followBox = nullptr;
    QTimer* m_timer = nullptr;

    QCustomPlot *m_lossPlot = nullptr, *m_lrPlot = nullptr, *m_gradPlot = nullptr, *m_tputPlot = nullptr;
    QCustomPlot *m_utilPlot = nullptr, *m_memPlot = nullptr;
    QCustomPlot *m_barsPlot = nullptr, *m_heatPlot = nullptr;
    QCPGraph *m_lossRaw = nullptr, *m_lossSmooth = nullptr, *m_lr = nullptr, *m_grad = nullptr;
    QCPGraph *m_tokens = nullptr, *m_mfu = nullptr;
    QList<QCPGraph*> m_util, m_mem;
    QList<QCPBars*> m_bars;
    QCPColorMap* m_heat = nullptr;
    QCPColorScale* m_heatScale = nullptr;
    QList<QObject*> m_heatMarks;

    unsigned m_dirty = 0;
    unsigned m_tabDirty[4] = {0, 0, 0, 0};
    bool m_follow = true;
    bool m_updating = false;
    quint64 m_generation = ~quint64(0);
    qint64 m_plottedRows = 0; // rows appended point by point (raw mode)
    qint64 m_plottedLastStep = -1;
    bool m_decimatedMode = false;
    qint64 m_deviceRows = 0;
    qint64 m_deviceLastStep = -1;
    bool m_deviceDecimated = false;
    std::vector<float> m_smoothed; // debiased EMA of the loss, per store row
    DebiasedEma m_ema;
    QSet<int> m_selected;
    QSet<QCustomPlot*> m_replotPending;
    // Long runs: a min/max envelope of each whole series (kEnvelopePoints), recomputed when the data
    // changed (at most once a second while live); a zoomed-out view slices it, a zoomed-in view
    // (<= kRawLimit rows visible) reads the store for the visible range only. Bounds a frame's work.
    XYSeries visibleSeries(const QString& key, const std::function<XYSeries(qint64, qint64, int)>& compute, qint64 lo,
                           qint64 hi, int points);
    QHash<QString, XYSeries> m_envelopes;
    qint64 m_envelopeRows = -1;
    quint64 m_envelopeGeneration = ~quint64(0);
    QElapsedTimer m_envelopeClock;
    analysis::DiagnosisCadence m_findingsCadence; // how often the findings are analysed again
    int m_redraws = 0;
    HeatmapMetric m_metric = HeatmapMetric::Step;
};

} // namespace traindeck::gui
