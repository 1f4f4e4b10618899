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

void setPlotTitle(QCustomPlot* plot, const QString& title)
{
    if (auto* text = qobject_cast<QCPTextElement*>(plot->plotLayout()->element(0, 0)))
        text->setText(title);
    plot->setAccessibleName(title);
}

void fitValueAxis(QCPAxis* axis, const QList<QCPGraph*>& graphs)
{
    QCPRange all;
    bool any = false;
    for (QCPGraph* g : graphs) {
        bool found = false;
        const QCPRange r = g->getValueRange(found);
        if (!found)
            continue;
        all = any ? QCPRange(std::min(all.lower, r.lower), std::max(all.upper, r.upper)) : r;
        any = true;
    }
    if (!any)
        return;
    // Headroom so flat lines do not sit on the frame; a flat series gets 5 % of its own size around it (a
    // learning rate of 2e-5 held flat on 1.9e-5 to 2.1e-5, not on QCustomPlot's +-3 default for a zero range).
    const double size = all.upper - all.lower;
    const double pad = size > 0 ? size * 0.05 : std::max(std::abs(all.upper) * 0.05, 1e-12);
    axis->setRange(all.lower - pad, all.upper + pad);
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
