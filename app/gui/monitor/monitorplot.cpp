#include "monitor/monitorplot.h"

#include "plotstyle.h"
#include "qcp.h"

#include <QCoreApplication>

#include <algorithm>

namespace traindeck::gui::monitor {

QCustomPlot* makePlot(QWidget* parent, const QString& title)
{
    auto* plot = new QCustomPlot(parent);
    plot->setMinimumSize(260, 160);
    plot->plotLayout()->insertRow(0);
    auto* text = new QCPTextElement(plot, title);
    QFont f = parent->font();
    f.setBold(true);
    text->setFont(f);
    text->setTextColor(parent->palette().color(QPalette::Text));
    plot->plotLayout()->addElement(0, 0, text);
    plot->xAxis->setLabel(QCoreApplication::translate("traindeck::gui::MonitorPage", "step"));
    plot->setAccessibleName(title);
    stylePlot(plot);
    plot->axisRect()->setRangeDrag(Qt::Horizontal);
    plot->axisRect()->setRangeZoom(Qt::Horizontal);
    return plot;
}

void setGraphData(QCPGraph* graph, const XYSeries& series)
{
    graph->setData(series.keys, series.values, true);
}

int plotPoints(QCustomPlot* plot)
{
    return std::max(400, plot->width() * 2);
}

XYSeries EnvelopeCache::visibleSeries(const metrics::MetricStore& store, quint64 generation, const QString& key,
                                      const Compute& compute, qint64 lo, qint64 hi, int points)
{
    constexpr int kEnvelopePoints = 16384;
    const qint64 visibleRows = store.lowerBoundRow(hi + 1) - store.lowerBoundRow(lo);
    if (visibleRows <= kRawLimit)
        return compute(lo, hi, points);
    if (m_generation != generation ||
        (m_rows != store.rowCount() && (!m_clock.isValid() || m_clock.elapsed() >= 1000))) {
        m_envelopes.clear();
        m_generation = generation;
        m_rows = store.rowCount();
        m_clock.start();
    }
    auto it = m_envelopes.find(key);
    if (it == m_envelopes.end())
        it = m_envelopes.insert(key, compute(-1, -1, kEnvelopePoints));
    const XYSeries& env = it.value();
    const auto first = std::lower_bound(env.keys.cbegin(), env.keys.cend(), double(lo));
    const auto last = std::upper_bound(first, env.keys.cend(), double(hi));
    XYSeries out;
    out.decimated = true;
    const qsizetype a = first - env.keys.cbegin(), n = last - first;
    out.keys = env.keys.mid(a, n);
    out.values = env.values.mid(a, n);
    return out;
}

} // namespace traindeck::gui::monitor
