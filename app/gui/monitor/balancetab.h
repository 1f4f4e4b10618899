// The Monitor's Load balance tab: each rank's share of the batch and when the shares changed
// (--balance), stacked bars of the mean time per phase and rank over the last steps, and a rank x step
// heatmap of one metric; the selected ranks are highlighted in both. A job of more than 32 ranks on
// several hosts (analysis::groupByHost) is shown by host: a bar per host, slowest first, with the spread
// of its ranks, a click opening the host's ranks; the slowest ranks in a table; the heatmap hosts x steps
// unless its ranks are asked for.
#pragma once

#include "analysis/balance.h"
#include "analysis/hostbalance.h"
#include "series.h"

#include <QList>
#include <QWidget>

#include <vector>

class QCheckBox;
class QCPBars;
class QCPColorMap;
class QCPErrorBars;
class QCPGraph;
class QTableWidget;
class QToolButton;
class QCPColorScale;
class QCustomPlot;
class QLabel;

namespace traindeck::gui::monitor {

class BalanceTab : public QWidget {
    Q_OBJECT

  public:
    explicit BalanceTab(QWidget* parent = nullptr);

    void setBarSteps(int steps); // the bars show the mean over these last steps
    // The heatmap's metric; label names it in the plot's title.
    void setHeatmapMetric(HeatmapMetric metric, const QString& label);
    // Updates the bars and the heatmap; following: the heatmap covers the whole run, otherwise the
    // heatmap plot's x range (the caller sets it). generation: the store's run (a new one forgets the
    // heatmap's kept rows). rangeOnly: only the x range changed (panning, zooming), so only the heatmap,
    // the one view that follows it, is computed again.
    void refresh(const metrics::MetricStore& store, quint64 generation, bool following, bool rangeOnly = false);
    void setSelectedRanks(const QList<int>& ranks); // sorted; the caller replots
    QList<QCustomPlot*> plots() const { return {m_barsPlot, m_heatPlot}; }
    // False while the heatmap by host is drawn in pieces: the next refresh (rangeOnly will do) adds a piece.
    bool heatmapComplete() const { return m_heatComplete; }

    QCustomPlot* barsPlot() const { return m_barsPlot; }
    QCustomPlot* heatmapPlot() const { return m_heatPlot; }
    QCPBars* phaseBars(Phase phase) const { return m_bars.value(int(phase)); }
    QCPColorMap* heatmap() const { return m_heat; }
    // "Samples per rank: 19 / 13 since step 7 — changed at steps 6, 7 ..."; hidden without `samples`.
    QLabel* sharesLabel() const { return m_sharesLabel; }
    // Grouped by host (set by refresh()); the host whose ranks the bars show ("": every host).
    bool groupedByHost() const { return m_byHost; }
    QString openHost() const { return m_openHost; }
    void setOpenHost(const QString& host); // "": back to the hosts; takes effect at the next refresh
    // What each bar of the bars plot stands for, by key: a host (grouped, none open) or a rank.
    const QStringList& barHosts() const { return m_barHosts; }
    const QList<int>& barRanks() const { return m_barRanks; }
    QTableWidget* slowestRanksTable() const { return m_slowest; }
    QCheckBox* heatmapRanksBox() const { return m_heatRanks; }
    QCPErrorBars* spreadBars() const { return m_spread; }
    // The heatmap's rows when grouped: the hosts ("" per row otherwise).
    const QStringList& heatmapRowHosts() const { return m_heatHosts; }
    // What the bars plot shows as its tooltip over a rank's bar: the rank, its host, its phases' total
    // and its share ("" for a rank not shown).
    QString barToolTip(int rank) const { return m_barTips.value(rank); }

  Q_SIGNALS:
    // A bar was clicked (its rank) or the bars double-clicked (none).
    void ranksPicked(const QList<int>& ranks);
    // What the tab shows changed (a host opened or closed): it needs a refresh.
    void viewChanged();
    // The heatmap's rows changed (by host or every rank): the heatmap needs a refresh, the bars do not.
    void heatmapRowsChanged();

  private:
    void buildBars();
    void buildHeatmap();
    void refreshShares();
    void refreshBars(const metrics::MetricStore& store, quint64 generation);
    void refreshHeatmap(const metrics::MetricStore& store, quint64 generation, bool following);
    void refreshSlowest(const metrics::MetricStore& store, quint64 generation, const analysis::PhaseMeans& means);
    void markHeatmapRows();

    QLabel* m_sharesLabel = nullptr;
    QCustomPlot *m_barsPlot = nullptr, *m_heatPlot = nullptr;
    analysis::PhaseMeansTracker m_meansTracker; // the bars' phase means, a step's rows in and out
    analysis::RowOwnMedians m_rowMedians;       // the slowest ranks' reference, a row at a time
    analysis::BalanceTracker m_sharesTracker;   // the shares' summary, of the rows added since the last refresh
    QStringList m_barTips;
    QList<QCPBars*> m_bars;
    QCPColorMap* m_heat = nullptr;
    QCPColorScale* m_heatScale = nullptr;
    QList<QObject*> m_heatMarks;
    QList<int> m_selected;
    bool m_byHost = false;
    QString m_openHost;
    QStringList m_barHosts;
    QList<QList<int>> m_barHostRanks; // the ranks of each host bar
    QList<int> m_barRanks;
    std::vector<std::vector<int>> m_heatGroups; // the ranks of each heatmap row when grouped by host
    HeatmapRowCache m_heatCache;                // their medians by row, for the next refresh
    QStringList m_heatHosts;
    int m_heatRows = 0;
    std::vector<float> m_heatShown; // the grid's cells as last set on the heatmap (HeatmapGrid::cells)
    bool m_heatComplete = true;
    QToolButton* m_back = nullptr;
    QTableWidget* m_slowest = nullptr;
    QCheckBox* m_heatRanks = nullptr;
    QCPGraph* m_spreadAnchor = nullptr;
    QCPErrorBars* m_spread = nullptr;
    int m_barSteps = 50;
    HeatmapMetric m_metric = HeatmapMetric::Step;
    QString m_metricLabel = tr("Step time");
};

} // namespace traindeck::gui::monitor
