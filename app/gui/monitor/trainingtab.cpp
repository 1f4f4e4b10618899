#include "monitor/trainingtab.h"

#include "plotstyle.h"
#include "qcp.h"

#include <QGridLayout>

#include <algorithm>
#include <cmath>

namespace traindeck::gui::monitor {

using metrics::MetricStore;
using metrics::Scalar;
using metrics::SeriesId;

TrainingTab::TrainingTab(QWidget* parent) : QWidget(parent)
{
    auto* tg = new QGridLayout(this);
    tg->setContentsMargins(2, 2, 2, 2);
    m_lossPlot = makePlot(this, tr("Loss"));
    m_lrPlot = makePlot(this, tr("Learning rate"));
    m_gradPlot = makePlot(this, tr("Gradient norm"));
    m_tputPlot = makePlot(this, tr("Throughput"));
    tg->addWidget(m_lossPlot, 0, 0);
    tg->addWidget(m_tputPlot, 0, 1);
    tg->addWidget(m_lrPlot, 1, 0);
    tg->addWidget(m_gradPlot, 1, 1);
    tg->setRowStretch(0, 3);
    tg->setRowStretch(1, 2);

    m_lossRaw = m_lossPlot->addGraph();
    m_lossRaw->setName(tr("loss (raw)"));
    QColor rawColor = seriesColor(0);
    rawColor.setAlphaF(0.35f);
    m_lossRaw->setPen(QPen(rawColor, 1));
    m_lossSmooth = m_lossPlot->addGraph();
    m_lossSmooth->setName(tr("loss (smoothed)"));
    m_lossSmooth->setPen(QPen(seriesColor(0), 2));
    m_lossPlot->legend->setVisible(true);
    m_lossPlot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
    m_lossPlot->yAxis->setLabel(tr("loss"));

    m_lr = m_lrPlot->addGraph();
    m_lr->setName(tr("learning rate"));
    m_lr->setPen(QPen(seriesColor(2), 1.5));
    m_lrPlot->yAxis->setLabel(tr("learning rate"));
    m_lrPlot->yAxis->setNumberFormat(QStringLiteral("gb"));

    m_grad = m_gradPlot->addGraph();
    m_grad->setName(tr("gradient norm"));
    m_grad->setPen(QPen(seriesColor(3), 1.2));
    m_gradPlot->yAxis->setLabel(tr("L2 norm before clipping"));

    m_tokens = m_tputPlot->addGraph();
    m_tokens->setName(tr("tokens/s"));
    m_tokens->setPen(QPen(seriesColor(1), 1.5));
    m_tputPlot->yAxis->setLabel(tr("tokens/s"));
    m_tputPlot->yAxis2->setVisible(true);
    m_tputPlot->yAxis2->setLabel(tr("MFU (%)"));
    m_mfu = m_tputPlot->addGraph(m_tputPlot->xAxis, m_tputPlot->yAxis2);
    m_mfu->setName(tr("MFU (%)"));
    m_mfu->setPen(QPen(seriesColor(4), 1.5, Qt::DashLine));
    m_tputPlot->legend->setVisible(true);
    m_tputPlot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignBottom | Qt::AlignRight);
    stylePlot(m_tputPlot);
}

void TrainingTab::setSmoothing(double beta)
{
    m_ema = DebiasedEma(beta);
}

bool TrainingTab::updateSmoothed(const MetricStore& store, bool rebuild)
{
    const qint64 rows = store.rowCount();
    // A resumed run replaces steps: when the store rewound or the row we smoothed last changed step, start over.
    // Its own last step, not the plots': those stay behind while another tab shows, and comparing with them
    // started over (and rebuilt every tab) at every other step of a live run.
    if (!rebuild && !m_smoothed.empty()) {
        const qint64 last = qint64(m_smoothed.size()) - 1;
        if (last >= rows || store.stepAt(last) != m_smoothedLastStep || store.rewinds() != m_smoothedRewinds)
            rebuild = true;
    }
    if (rebuild) {
        m_smoothed.clear();
        m_ema.reset();
        m_plottedRows = 0; // raw series must be rebuilt too
        m_plottedLastStep = -1;
    }
    m_smoothed.reserve(size_t(rows));
    for (qint64 r = qint64(m_smoothed.size()); r < rows; ++r)
        m_smoothed.push_back(float(m_ema.add(store.scalarAt(Scalar::Loss, r))));
    if (rows > 0 && rebuild)
        m_plottedLastStep = store.stepAt(rows - 1);
    m_smoothedLastStep = rows > 0 ? store.stepAt(rows - 1) : -1;
    m_smoothedRewinds = store.rewinds();
    return rebuild;
}

std::array<std::pair<QCPGraph*, Scalar>, 5> TrainingTab::scalarGraphs() const
{
    return {{{m_lossRaw, Scalar::Loss},
             {m_lr, Scalar::Lr},
             {m_grad, Scalar::GradNorm},
             {m_tokens, Scalar::TokensPerS},
             {m_mfu, Scalar::Mfu}}};
}

void TrainingTab::refresh(const MetricStore& store, quint64 generation, bool rebuild)
{
    if (store.rowCount() > kRawLimit)
        refreshDecimated(store, generation);
    else
        appendRows(store, rebuild);
    rescaleAxes();
}

// Decimated from the store over the visible range, rebuilt on every refresh.
void TrainingTab::refreshDecimated(const MetricStore& store, quint64 generation)
{
    const qint64 rows = store.rowCount();
    const auto scalars = scalarGraphs();
    m_decimatedMode = true;
    const QCPRange range = m_lossPlot->xAxis->range();
    const qint64 lo = std::max<qint64>(store.firstStep(), qint64(std::floor(range.lower)));
    const qint64 hi = std::min<qint64>(store.lastStep(), qint64(std::ceil(range.upper)));
    for (const auto& [graph, scalar] : scalars) {
        const SeriesId id = SeriesId::of(scalar);
        XYSeries s = m_envelopes.visibleSeries(
            store, generation, QString::fromLatin1(metrics::scalarKey(scalar)),
            [&](qint64 a, qint64 b, int n) { return seriesForPlot(store, id, a, b, n); }, lo, hi,
            plotPoints(graph->parentPlot()));
        if (scalar == Scalar::Mfu)
            for (double& v : s.values)
                v *= 100;
        setGraphData(graph, s);
    }
    setGraphData(m_lossSmooth, m_envelopes.visibleSeries(
                                   store, generation, QStringLiteral("smoothed"),
                                   [&](qint64 a, qint64 b, int n) { return vectorForPlot(store, m_smoothed, a, b, n); },
                                   lo, hi, plotPoints(m_lossPlot)));
    m_plottedRows = rows;
    m_plottedLastStep = store.lastStep();
}

// Raw: only the rows added since the last refresh are appended (everything after a rebuild).
void TrainingTab::appendRows(const MetricStore& store, bool rebuild)
{
    const qint64 rows = store.rowCount();
    const auto scalars = scalarGraphs();
    if (rebuild || m_decimatedMode || m_plottedRows > rows ||
        (m_plottedRows > 0 && store.stepAt(m_plottedRows - 1) != m_plottedLastStep)) {
        for (const auto& [graph, scalar] : scalars)
            graph->data()->clear();
        m_lossSmooth->data()->clear();
        m_plottedRows = 0;
        m_decimatedMode = false;
    }
    const qint64 from = m_plottedRows;
    if (rows <= from)
        return;
    QVector<double> keys, values;
    keys.reserve(rows - from);
    values.reserve(rows - from);
    for (const auto& [graph, scalar] : scalars) {
        keys.clear();
        values.clear();
        for (qint64 r = from; r < rows; ++r) {
            double v = store.scalarAt(scalar, r);
            if (!std::isfinite(v))
                continue;
            if (scalar == Scalar::Mfu)
                v *= 100;
            keys.append(double(store.stepAt(r)));
            values.append(v);
        }
        graph->addData(keys, values, true);
    }
    keys.clear();
    values.clear();
    for (qint64 r = from; r < rows && r < qint64(m_smoothed.size()); ++r) {
        if (!std::isfinite(m_smoothed[size_t(r)]))
            continue;
        keys.append(double(store.stepAt(r)));
        values.append(m_smoothed[size_t(r)]);
    }
    m_lossSmooth->addData(keys, values, true);
    m_plottedRows = rows;
    m_plottedLastStep = store.stepAt(rows - 1);
}

void TrainingTab::rescaleAxes()
{
    for (QCustomPlot* p : {m_lossPlot, m_lrPlot, m_gradPlot}) {
        QList<QCPGraph*> graphs;
        for (int i = 0; i < p->graphCount(); ++i)
            graphs.append(p->graph(i));
        fitValueAxis(p->yAxis, graphs);
    }
    fitValueAxis(m_tputPlot->yAxis, {m_tokens});
    fitValueAxis(m_tputPlot->yAxis2, {m_mfu});
    if (m_tokens->dataCount() > 0 && m_tputPlot->yAxis->range().lower > 0)
        m_tputPlot->yAxis->setRangeLower(0);
    if (m_mfu->dataCount() > 0)
        m_tputPlot->yAxis2->setRangeLower(0);
}

} // namespace traindeck::gui::monitor
