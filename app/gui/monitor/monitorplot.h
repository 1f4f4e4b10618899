// What the Monitor's tabs share: the plot frame (title, step axis, style), the raw/decimated limit and
// a cache of whole-series envelopes for long runs.
#pragma once

#include "series.h"

#include <QElapsedTimer>
#include <QHash>
#include <QList>
#include <QString>

#include <functional>

class QCPAxis;
class QCPGraph;
class QCustomPlot;
class QWidget;

namespace traindeck::gui::monitor {

inline constexpr int kRawLimit = 50000; // rows drawn point by point; above: decimated

// A plot with a bold title row, "step" on the x axis, the shared style and horizontal drag and zoom.
QCustomPlot* makePlot(QWidget* parent, const QString& title);
void setPlotTitle(QCustomPlot* plot, const QString& title);
// The value axis over the data of `graphs` with 5 % headroom; a flat series on a range of its own scale.
void fitValueAxis(QCPAxis* axis, const QList<QCPGraph*>& graphs);
void setGraphData(QCPGraph* graph, const XYSeries& series);
int plotPoints(QCustomPlot* plot); // points worth drawing across the plot's width

// Long runs: a min/max envelope of each whole series (kEnvelopePoints), recomputed when the data
// changed (at most once a second while live); a zoomed-out view slices it, a zoomed-in view
// (<= kRawLimit rows visible) reads the store for the visible range only. Bounds a frame's work.
class EnvelopeCache {
  public:
    using Compute = std::function<XYSeries(qint64 fromStep, qint64 toStep, int points)>;
    XYSeries visibleSeries(const metrics::MetricStore& store, quint64 generation, const QString& key,
                           const Compute& compute, qint64 lo, qint64 hi, int points);

  private:
    QHash<QString, XYSeries> m_envelopes;
    qint64 m_rows = -1;
    quint64 m_generation = ~quint64(0);
    QElapsedTimer m_clock;
};

} // namespace traindeck::gui::monitor
