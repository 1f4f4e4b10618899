#include "metrics/records.h"

#include <QCoreApplication>

namespace traindeck::metrics {

const char* rankMetricKey(RankMetric m)
{
    static constexpr const char* keys[kRankMetricCount] = {"data_ms",    "fwd_ms",  "bwd_ms",        "comm_ms",
                                                           "opt_ms",     "step_ms", "mem_mb",        "util",
                                                           "comm_bytes", "samples", "comm_hidden_ms"};
    const int i = int(m);
    return i >= 0 && i < kRankMetricCount ? keys[i] : "";
}

const char* DoneRecord::statusName(Status s)
{
    switch (s) {
    case Status::Finished: return "finished";
    case Status::Failed: return "failed";
    case Status::Cancelled: return "cancelled";
    }
    return "";
}

QString ParseIssue::toString() const
{
    return QCoreApplication::translate("traindeck::metrics::ParseIssue", "line %1 (byte offset %2): %3")
        .arg(line)
        .arg(offset)
        .arg(reason);
}

MetricsSink::~MetricsSink() = default;

void dispatch(const Record& record, MetricsSink& sink)
{
    std::visit(
        [&sink](const auto& r) {
            using T = std::decay_t<decltype(r)>;
            if constexpr (std::is_same_v<T, HelloRecord>)
                sink.onHello(r);
            else if constexpr (std::is_same_v<T, StepRecord>)
                sink.onStep(r);
            else if constexpr (std::is_same_v<T, EvalRecord>)
                sink.onEval(r);
            else if constexpr (std::is_same_v<T, CheckpointRecord>)
                sink.onCheckpoint(r);
            else if constexpr (std::is_same_v<T, WarningRecord>)
                sink.onWarning(r);
            else if constexpr (std::is_same_v<T, ErrorRecord>)
                sink.onError(r);
            else
                sink.onDone(r);
        },
        record);
}

} // namespace traindeck::metrics
