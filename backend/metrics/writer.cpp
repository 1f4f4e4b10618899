#include "metrics/writer.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <charconv>
#include <cmath>

namespace traindeck::metrics {

namespace {

void appendRaw(QByteArray &out, const char *s)
{
    out.append(s);
}

void appendDouble(QByteArray &out, double v)
{
    char buf[32];
    auto res = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, res.ptr - buf);
}

void appendFloat(QByteArray &out, float v)
{
    char buf[32];
    auto res = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, res.ptr - buf);
}

void appendInt(QByteArray &out, qint64 v)
{
    char buf[24];
    auto res = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, res.ptr - buf);
}

// float*: number or the spec's non-finite strings.
void appendFloatStar(QByteArray &out, double v)
{
    if (std::isnan(v))
        out.append("\"NaN\"");
    else if (std::isinf(v))
        out.append(v > 0 ? "\"Infinity\"" : "\"-Infinity\"");
    else
        appendDouble(out, v);
}

void appendString(QByteArray &out, const QString &s)
{
    // QJsonDocument does the escaping; strip the surrounding [ ].
    const QByteArray arr = QJsonDocument(QJsonArray{s}).toJson(QJsonDocument::Compact);
    out.append(arr.constData() + 1, arr.size() - 2);
}

void appendStringOrNull(QByteArray &out, const QString &s)
{
    if (s.isEmpty())
        out.append("null");
    else
        appendString(out, s);
}

void appendObject(QByteArray &out, const QJsonObject &o)
{
    out.append(QJsonDocument(o).toJson(QJsonDocument::Compact));
}

void header(QByteArray &out, const char *type, double t)
{
    out.append("{\"v\":1,\"type\":\"");
    out.append(type);
    out.append("\",\"t\":");
    appendDouble(out, t);
}

void key(QByteArray &out, const char *k)
{
    out.append(",\"");
    out.append(k);
    out.append("\":");
}

}  // namespace

QByteArray toJsonLine(const HelloRecord &r)
{
    QByteArray out;
    header(out, "hello", r.t);
    key(out, "run_id");
    appendString(out, r.runId);
    key(out, "world_size");
    appendInt(out, r.worldSize);
    key(out, "ranks");
    out.append('[');
    for (qsizetype i = 0; i < r.ranks.size(); ++i) {
        const RankInfo &ri = r.ranks[i];
        if (i) out.append(',');
        out.append("{\"rank\":");
        appendInt(out, ri.rank);
        key(out, "host");
        appendString(out, ri.host);
        key(out, "device");
        appendString(out, ri.device);
        if (ri.localRank >= 0) {
            key(out, "local_rank");
            appendInt(out, ri.localRank);
        }
        if (ri.pid >= 0) {
            key(out, "pid");
            appendInt(out, ri.pid);
        }
        if (!std::isnan(ri.memTotalMb)) {
            key(out, "mem_total_mb");
            appendDouble(out, ri.memTotalMb);
        }
        out.append('}');
    }
    out.append(']');
    key(out, "versions");
    out.append("{\"trainer\":");
    appendString(out, r.trainerVersion);
    key(out, "libtorch");
    appendString(out, r.libtorchVersion);
    key(out, "mpi");
    appendString(out, r.mpiVersion);
    key(out, "nccl");
    appendStringOrNull(out, r.ncclVersion);
    key(out, "blas_core");
    appendStringOrNull(out, r.blasCore);
    out.append('}');
    key(out, "model");
    out.append("{\"config\":");
    appendObject(out, r.modelConfig);
    key(out, "parameters");
    appendInt(out, r.parameters);
    out.append('}');
    key(out, "hparams");
    appendObject(out, r.hparams);
    if (r.resumedFromStep >= 0) {
        key(out, "resumed_from");
        out.append("{\"step\":");
        appendInt(out, r.resumedFromStep);
        key(out, "path");
        appendString(out, r.resumedFromPath);
        out.append('}');
    }
    out.append("}\n");
    return out;
}

void appendStepLine(QByteArray &out, const StepRecord &r)
{
    header(out, "step", r.t);
    key(out, "step");
    appendInt(out, r.step);
    key(out, "epoch");
    appendInt(out, r.epoch);
    key(out, "loss");
    appendFloatStar(out, r.loss);
    key(out, "lr");
    appendDouble(out, r.lr);
    if (r.present & StepRecord::HasGradNorm) {
        key(out, "grad_norm");
        appendFloatStar(out, r.gradNorm);
    }
    key(out, "tokens");
    appendInt(out, r.tokens);
    key(out, "tokens_per_s");
    appendDouble(out, r.tokensPerS);
    key(out, "samples_per_s");
    appendDouble(out, r.samplesPerS);
    if (r.present & StepRecord::HasMfu) {
        key(out, "mfu");
        appendFloatStar(out, r.mfu);
    }
    if (r.present & StepRecord::HasLossScale) {
        key(out, "loss_scale");
        appendFloatStar(out, r.lossScale);
    }
    for (int m = 0; m < kRankMetricCount; ++m) {
        if (m >= int(RankMetric::Mem) && !(r.present & (StepRecord::HasMem << (m - int(RankMetric::Mem)))))
            continue;
        key(out, rankMetricKey(RankMetric(m)));
        out.append('[');
        const auto &vec = r.perRank[size_t(m)];
        for (size_t i = 0; i < vec.size(); ++i) {
            if (i) out.append(',');
            const float v = vec[i];
            if (std::isnan(v))
                out.append("null");
            else if (m == int(RankMetric::CommBytes))
                appendInt(out, qint64(v));
            else
                appendFloat(out, v);
        }
        out.append(']');
    }
    out.append("}\n");
}

QByteArray toJsonLine(const StepRecord &r)
{
    QByteArray out;
    out.reserve(256 + r.worldSize() * kRankMetricCount * 10);
    appendStepLine(out, r);
    return out;
}

QByteArray toJsonLine(const EvalRecord &r)
{
    QByteArray out;
    header(out, "eval", r.t);
    key(out, "step");
    appendInt(out, r.step);
    key(out, "loss");
    appendFloatStar(out, r.loss);
    key(out, "perplexity");
    appendFloatStar(out, r.perplexity);
    out.append("}\n");
    return out;
}

QByteArray toJsonLine(const CheckpointRecord &r)
{
    QByteArray out;
    header(out, "checkpoint", r.t);
    key(out, "step");
    appendInt(out, r.step);
    key(out, "path");
    appendString(out, r.path);
    key(out, "bytes");
    appendInt(out, r.bytes);
    key(out, "ms");
    appendDouble(out, r.ms);
    out.append("}\n");
    return out;
}

QByteArray toJsonLine(const WarningRecord &r)
{
    QByteArray out;
    header(out, "warning", r.t);
    key(out, "rank");
    appendInt(out, r.rank);
    key(out, "host");
    appendString(out, r.host);
    key(out, "message");
    appendString(out, r.message);
    if (!r.code.isEmpty()) {
        key(out, "code");
        appendString(out, r.code);
    }
    out.append("}\n");
    return out;
}

QByteArray toJsonLine(const ErrorRecord &r)
{
    QByteArray out;
    header(out, "error", r.t);
    key(out, "rank");
    appendInt(out, r.rank);
    key(out, "host");
    appendString(out, r.host);
    key(out, "message");
    appendString(out, r.message);
    if (r.hasExitCode) {
        key(out, "exit_code");
        appendInt(out, r.exitCode);
    }
    out.append("}\n");
    return out;
}

QByteArray toJsonLine(const DoneRecord &r)
{
    QByteArray out;
    header(out, "done", r.t);
    key(out, "status");
    out.append('"');
    appendRaw(out, DoneRecord::statusName(r.status));
    out.append('"');
    key(out, "steps");
    appendInt(out, r.steps);
    key(out, "seconds");
    appendDouble(out, r.seconds);
    out.append("}\n");
    return out;
}

QByteArray toJsonLine(const Record &r)
{
    return std::visit([](const auto &x) { return toJsonLine(x); }, r);
}

}  // namespace traindeck::metrics
