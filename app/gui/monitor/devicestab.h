// The Monitor's Devices tab: device utilisation and peak memory, one line per rank; the selected
// ranks are drawn wide and on top, the others faded. A job grouped by host (analysis::groupByHost) gets
// one line per host instead: the median utilisation of its ranks and the memory of its largest.
#pragma once

#include "monitor/monitorplot.h"

#include <QList>
#include <QWidget>

#include <unordered_map>
#include <vector>

class QCPGraph;
class QCustomPlot;

namespace traindeck::gui::monitor {

class DevicesTab : public QWidget {
    Q_OBJECT

  public:
    explicit DevicesTab(QWidget* parent = nullptr);

    // One graph per rank of the store (named after its host), or per host when grouped; returns true when
    // they were recreated.
    bool ensureRankGraphs(const metrics::MetricStore& store);
    bool groupedByHost() const { return m_byHost; }
    // Updates the plots' data and value axes for the current x range (the caller sets it).
    void refresh(const metrics::MetricStore& store, quint64 generation, bool rebuild);
    void setSelectedRanks(const QList<int>& ranks); // restyles the lines; the caller replots
    QList<QCustomPlot*> plots() const { return {m_utilPlot, m_memPlot}; }

    QCustomPlot* utilPlot() const { return m_utilPlot; }
    QCustomPlot* memPlot() const { return m_memPlot; }
    QCPGraph* utilGraph(int rank) const { return m_util.value(rank); }
    QCPGraph* memGraph(int rank) const { return m_mem.value(rank); }

  private:
    void applySelectionStyle();
    void refreshDecimated(const metrics::MetricStore& store, quint64 generation);
    void appendRows(const metrics::MetricStore& store, bool rebuild);
    void refreshByHost(const metrics::MetricStore& store, quint64 generation);

    QCustomPlot *m_utilPlot = nullptr, *m_memPlot = nullptr;
    QList<QCPGraph*> m_util, m_mem;
    QList<int> m_selected;
    bool m_byHost = false;
    std::vector<std::vector<int>> m_hostRanks; // grouped: the ranks of each graph
    // Grouped: the host values of each sampled row (the hosts' median utilisation, then their largest memory),
    // for one run (generation) and rewind count.
    std::unordered_map<qint64, std::vector<float>> m_hostRows;
    metrics::StoreVersion m_hostRowsVersion;
    qint64 m_deviceRows = 0;
    qint64 m_deviceLastStep = -1;
    bool m_deviceDecimated = false;
    EnvelopeCache m_envelopes;
};

} // namespace traindeck::gui::monitor
