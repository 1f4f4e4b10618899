#include "monitorcsv.h"

#include <QStringList>

#include <cmath>

namespace traindeck::gui {

using metrics::MetricStore;
using metrics::RankMetric;
using metrics::Scalar;

QString monitorCsvHeader(const MetricStore& store)
{
    QStringList cols = {QStringLiteral("step"),          QStringLiteral("epoch"), QStringLiteral("loss"),
                        QStringLiteral("loss_smoothed"), QStringLiteral("lr"),    QStringLiteral("grad_norm"),
                        QStringLiteral("tokens_per_s"),  QStringLiteral("mfu")};
    for (int r = 0; r < store.worldSize(); ++r)
        cols << QStringLiteral("step_ms_rank%1").arg(r);
    return cols.join(QLatin1Char(',')) + QLatin1Char('\n');
}

QString monitorCsvRow(const MetricStore& store, qint64 row, double smoothedLoss)
{
    auto num = [](double v) { return std::isfinite(v) ? QString::number(v, 'g', 9) : QString(); };
    QStringList cols = {QString::number(store.stepAt(row)),           num(store.scalarAt(Scalar::Epoch, row)),
                        num(store.scalarAt(Scalar::Loss, row)),       num(smoothedLoss),
                        num(store.scalarAt(Scalar::Lr, row)),         num(store.scalarAt(Scalar::GradNorm, row)),
                        num(store.scalarAt(Scalar::TokensPerS, row)), num(store.scalarAt(Scalar::Mfu, row))};
    for (int r = 0; r < store.worldSize(); ++r)
        cols << num(store.rankAt(RankMetric::Step, r, row));
    return cols.join(QLatin1Char(',')) + QLatin1Char('\n');
}

} // namespace traindeck::gui
