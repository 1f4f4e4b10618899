// Canonical serialisation of protocol records as JSON Lines (docs/reference/metrics-protocol.md), used to save
// a store, to generate test and benchmark streams, and as the reference for the trainer's writer.
#pragma once

#include "metrics/records.h"

#include <QByteArray>

namespace traindeck::metrics {

// Each returns one complete line, '\n' included. Keys in the spec's order; floats shortest
// round-trip; non-finite float* values as "NaN" / "Infinity" / "-Infinity".
QByteArray toJsonLine(const HelloRecord& r);
QByteArray toJsonLine(const StepRecord& r);
QByteArray toJsonLine(const EvalRecord& r);
QByteArray toJsonLine(const CheckpointRecord& r);
QByteArray toJsonLine(const WarningRecord& r);
QByteArray toJsonLine(const ErrorRecord& r);
QByteArray toJsonLine(const DoneRecord& r);
QByteArray toJsonLine(const Record& r);

// Appends a step line to `out` without allocating a temporary (benchmarks, generators).
void appendStepLine(QByteArray& out, const StepRecord& r);

} // namespace traindeck::metrics
