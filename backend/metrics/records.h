// Record types of the TrainDeck metrics protocol v1 (docs/reference/metrics-protocol.md).
#pragma once

#include <QJsonObject>
#include <QList>
#include <QMetaType>
#include <QString>

#include <array>
#include <cstdint>
#include <limits>
#include <variant>
#include <vector>

namespace traindeck::metrics {

inline constexpr int kSchemaVersion = 1;
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Per-rank arrays of a `step` record, in protocol order.
// Mem and after are optional in a step record; Samples: each rank's share of the batch (--balance).
// Comm is the allreduce time on the critical path; CommHidden the part that ran during backward
// (--overlap on).
enum class RankMetric : int { Data, Fwd, Bwd, Comm, Opt, Step, Mem, Util, CommBytes, Samples, CommHidden };
inline constexpr int kRankMetricCount = 11;
// Protocol key of a per-rank metric: "data_ms", "fwd_ms", ..., "comm_bytes".
const char* rankMetricKey(RankMetric m);

// Where a record came from in the stream (1-based line, byte offset of the line's first byte).
struct RecordOrigin {
    qint64 line = 0;
    qint64 offset = 0;
};

struct RankInfo {
    int rank = 0;
    QString host;
    QString device;
    int localRank = -1;       // -1: not given
    qint64 pid = -1;          // -1: not given
    double memTotalMb = kNaN; // NaN: not given
};

struct HelloRecord {
    RecordOrigin origin;
    double t = 0;
    QString runId;
    int worldSize = 0;
    QList<RankInfo> ranks;
    QString trainerVersion, libtorchVersion, mpiVersion, ncclVersion, blasCore; // empty: null
    QJsonObject modelConfig;
    qint64 parameters = 0;
    QJsonObject hparams;
    qint64 resumedFromStep = -1; // -1: not a resume
    QString resumedFromPath;
};

struct StepRecord {
    // Presence bits of the optional fields.
    enum Optional : quint32 {
        HasGradNorm = 1u << 0,
        HasMfu = 1u << 1,
        HasLossScale = 1u << 2,
        HasMem = 1u << 3,
        HasUtil = 1u << 4,
        HasCommBytes = 1u << 5,
        HasSamples = 1u << 6,
        HasCommHidden = 1u << 7,
    };
    RecordOrigin origin;
    double t = 0;
    qint64 step = 0;
    qint64 epoch = 0;
    double loss = kNaN;
    double lr = kNaN;
    double gradNorm = kNaN;
    qint64 tokens = 0;
    double tokensPerS = kNaN;
    double samplesPerS = kNaN;
    double mfu = kNaN;
    double lossScale = kNaN;
    quint32 present = 0;
    // perRank[m][rank]; all arrays have worldSize() elements (absent optional ones are NaN-filled).
    std::array<std::vector<float>, kRankMetricCount> perRank;

    int worldSize() const { return int(perRank[0].size()); }
    float value(RankMetric m, int rank) const { return perRank[size_t(m)][size_t(rank)]; }
    const std::vector<float>& series(RankMetric m) const { return perRank[size_t(m)]; }
};

struct EvalRecord {
    RecordOrigin origin;
    double t = 0;
    qint64 step = 0;
    double loss = kNaN;
    double perplexity = kNaN;
};

struct CheckpointRecord {
    RecordOrigin origin;
    double t = 0;
    qint64 step = 0;
    QString path;
    qint64 bytes = 0;
    double ms = 0;
};

struct WarningRecord {
    RecordOrigin origin;
    double t = 0;
    int rank = -1;
    QString host;
    QString message;
    QString code;      // empty: not given
    QJsonObject stall; // code "stall": where the ranks are (see docs/reference/metrics-protocol.md); else empty
};

struct ErrorRecord {
    RecordOrigin origin;
    double t = 0;
    int rank = -1;
    QString host;
    QString message;
    int exitCode = -1;
    bool hasExitCode = false;
};

struct DoneRecord {
    enum class Status { Finished, Failed, Cancelled };
    RecordOrigin origin;
    double t = 0;
    Status status = Status::Finished;
    qint64 steps = 0;
    double seconds = 0;
    static const char* statusName(Status s);
};

using Record =
    std::variant<HelloRecord, StepRecord, EvalRecord, CheckpointRecord, WarningRecord, ErrorRecord, DoneRecord>;

// A malformed line: where, and why. toString(): "line 12 (byte offset 3456): reason".
struct ParseIssue {
    qint64 line = 0;
    qint64 offset = 0;
    QString reason;
    QByteArray excerpt; // the first bytes of the line, for display
    QString toString() const;
};

// Receives what a MetricsParser reads. Every method has an empty default.
class MetricsSink {
  public:
    virtual ~MetricsSink();
    virtual void onHello(const HelloRecord&) {}
    virtual void onStep(const StepRecord&) {}
    virtual void onEval(const EvalRecord&) {}
    virtual void onCheckpoint(const CheckpointRecord&) {}
    virtual void onWarning(const WarningRecord&) {}
    virtual void onError(const ErrorRecord&) {}
    virtual void onDone(const DoneRecord&) {}
    virtual void onIssue(const ParseIssue&) {}
};

// A sink that keeps everything as Record values (tests, the tailer's signal payload) and, when
// `next` is set, hands each call on to it right after keeping it (the tailer's user sink).
class RecordCollector : public MetricsSink {
  public:
    QList<Record> records;
    QList<ParseIssue> issues;
    MetricsSink* next = nullptr;
    void onHello(const HelloRecord& r) override { keep(r, &MetricsSink::onHello); }
    void onStep(const StepRecord& r) override { keep(r, &MetricsSink::onStep); }
    void onEval(const EvalRecord& r) override { keep(r, &MetricsSink::onEval); }
    void onCheckpoint(const CheckpointRecord& r) override { keep(r, &MetricsSink::onCheckpoint); }
    void onWarning(const WarningRecord& r) override { keep(r, &MetricsSink::onWarning); }
    void onError(const ErrorRecord& r) override { keep(r, &MetricsSink::onError); }
    void onDone(const DoneRecord& r) override { keep(r, &MetricsSink::onDone); }
    void onIssue(const ParseIssue& i) override
    {
        issues.append(i);
        if (next)
            next->onIssue(i);
    }
    void clear()
    {
        records.clear();
        issues.clear();
    }

  private:
    template <typename R> void keep(const R& r, void (MetricsSink::*forward)(const R&))
    {
        records.append(r);
        if (next)
            (next->*forward)(r);
    }
};

// Forwards every call to the given sink (used to chain sinks).
void dispatch(const Record& record, MetricsSink& sink);

} // namespace traindeck::metrics

Q_DECLARE_METATYPE(traindeck::metrics::Record)
Q_DECLARE_METATYPE(traindeck::metrics::ParseIssue)
