// The Monitor's Training tab: loss raw and smoothed (a debiased EMA of the loss, kept per store row
// for every tab and the CSV export), throughput and MFU, learning rate, gradient norm. New rows are
// appended point by point up to kRawLimit rows, above that the visible step range is decimated.
#pragma once

#include "monitor/monitorplot.h"
#include "series.h"

#include <QList>
#include <QWidget>

#include <array>
#include <utility>
#include <vector>

class QCPGraph;
class QCustomPlot;

namespace traindeck::gui::monitor {

class TrainingTab : public QWidget {
    Q_OBJECT

  public:
    explicit TrainingTab(QWidget* parent = nullptr);

    // The smoothed loss, one value per store row. updateSmoothed extends it to the store's rows and
    // returns true when it started over (rebuild asked, or a resumed run replaced steps).
    void setSmoothing(double beta); // a new EMA weight; call updateSmoothed(store, true) after
    bool updateSmoothed(const metrics::MetricStore& store, bool rebuild);
    const std::vector<float>& smoothedLoss() const { return m_smoothed; }

    // Updates the plots' data and value axes for the current x range (the caller sets it).
    void refresh(const metrics::MetricStore& store, quint64 generation, bool rebuild);
    QList<QCustomPlot*> plots() const { return {m_lossPlot, m_lrPlot, m_gradPlot, m_tputPlot}; }

    QCustomPlot* lossPlot() const { return m_lossPlot; }
    QCustomPlot* lrPlot() const { return m_lrPlot; }
    QCustomPlot* gradPlot() const { return m_gradPlot; }
    QCustomPlot* throughputPlot() const { return m_tputPlot; }
    QCPGraph* lossGraph() const { return m_lossRaw; }
    QCPGraph* smoothedLossGraph() const { return m_lossSmooth; }
    QCPGraph* lrGraph() const { return m_lr; }
    QCPGraph* gradNormGraph() const { return m_grad; }
    QCPGraph* tokensGraph() const { return m_tokens; }
    QCPGraph* mfuGraph() const { return m_mfu; }

  private:
    void refreshDecimated(const metrics::MetricStore& store, quint64 generation);
    void appendRows(const metrics::MetricStore& store, bool rebuild);
    void rescaleAxes();
    std::array<std::pair<QCPGraph*, metrics::Scalar>, 5> scalarGraphs() const; // raw graphs and their series

    QCustomPlot *m_lossPlot = nullptr, *m_lrPlot = nullptr, *m_gradPlot = nullptr, *m_tputPlot = nullptr;
    QCPGraph *m_lossRaw = nullptr, *m_lossSmooth = nullptr, *m_lr = nullptr, *m_grad = nullptr;
    QCPGraph *m_tokens = nullptr, *m_mfu = nullptr;
    qint64 m_plottedRows = 0; // rows appended point by point (raw mode)
    qint64 m_plottedLastStep = -1;
    bool m_decimatedMode = false;
    std::vector<float> m_smoothed;                         // debiased EMA of the loss, per store row
    qint64 m_smoothedLastStep = -1, m_smoothedRewinds = 0; // of the store's last row smoothed
    DebiasedEma m_ema{0.6};
    EnvelopeCache m_envelopes;
};

} // namespace traindeck::gui::monitor
