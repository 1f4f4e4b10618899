// The Monitor's CSV export, a row per step: step, epoch, loss (raw and as smoothed on screen), learning rate,
// gradient norm, tokens/s, MFU and each rank's step time. Empty fields for values the run did not report.
#pragma once

#include "metrics/metricstore.h"

#include <QString>

namespace traindeck::gui {

QString monitorCsvHeader(const metrics::MetricStore& store);
QString monitorCsvRow(const metrics::MetricStore& store, qint64 row, double smoothedLoss);

} // namespace traindeck::gui
