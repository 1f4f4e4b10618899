// The Monitor's Load balance tab: each rank's share of the batch and when the shares changed
// (--balance), stacked bars of the mean time per phase and rank over the last steps, and a rank x step
// heatmap of one metric; the selected ranks are highlighted in both.
#pragma once

#include "analysis/balance.h"
#include "series.h"

#include <QList>
#include <QWidget>

class QCPBars;
class QCPColorMap;
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
    // heatmap plot's x range (the caller sets it).
    void refresh(const metrics::MetricStore& store, bool following);
    void setSelectedRanks(const QList<int>& ranks); // sorted
    QList<QCustomPlot*> plots() const { return {m_barsPlot, m_heatPlot}; }

    QCustomPlot* barsPlot() const { return m_barsPlot; }
    QCustomPlot* heatmapPlot() const { return m_heatPlot; }
    QCPBars* phaseBars(Phase phase) const { return m_bars.value(int(phase)); }
    QCPColorMap* heatmap() const { return m_heat; }
    // "Samples per rank: 19 / 13 since step 7 — changed at steps 6, 7 ..."; hidden without `samples`.
    QLabel* sharesLabel() const { return m_sharesLabel; }
    // What the bars plot shows as its tooltip over a rank's bar: the rank, its host, its phases' total
    // and its share ("" for a rank not shown).
    QString barToolTip(int rank) const { return m_barTips.value(rank); }

  Q_SIGNALS:
    // A bar was clicked (its rank) or the bars double-clicked (none).
    void ranksPicked(const QList<int>& ranks);

  private:
    void buildBars();
    void buildHeatmap();
    void refreshShares();
    void refreshBars(const metrics::MetricStore& store);
    void refreshHeatmap(const metrics::MetricStore& store, bool following);

    QLabel* m_sharesLabel = nullptr;
    QCustomPlot *m_barsPlot = nullptr, *m_heatPlot = nullptr;
    analysis::BalanceSummary m_shares;
    QStringList m_barTips;
    QList<QCPBars*> m_bars;
    QCPColorMap* m_heat = nullptr;
    QCPColorScale* m_heatScale = nullptr;
    QList<QObject*> m_heatMarks;
    int m_barSteps = 50;
    HeatmapMetric m_metric = HeatmapMetric::Step;
};

} // namespace traindeck::gui::monitor
