#include "metrics/writer.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <charconv>
#include <cmath>

namespace traindeck::metrics {

namespace {

// Shortest round-trip text of an integer or floating-point number.
template <typename T> void appendNumber(QByteArray& out, T v)
{
    char buf[32];
    auto res = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, res.ptr - buf);
}

// float*: number or the spec's non-finite strings.
void appendFloatStar(QByteArray& out, double v)
{
    if (std::isnan(v))
        out.append("\"NaN\"");
    else if (std::isinf(v))
        out.append(v > 0 ? "\"Infinity\"" : "\"-Infinity\"");
    else
        appendNumber(out, v);
}

void appendString(QByteArray& out, const QString& s)
{
    // QJsonDocument does the escaping; strip the surrounding [ ].
    const QByteArray arr = QJsonDocument(QJsonArray{s}).toJson(QJsonDocument::Compact);
    out.append(arr.constData() + 1, arr.size() - 2);
}

// Writes one JSON object straight into `out`, field by field in the order they are added: every
// record, and the objects nested in a hello, are written through it.
class Fields {
  public:
    explicit Fields(QByteArray& out) : m_out(out) { m_out.append('{'); }

    Fields& integer(const char* k, qint64 v)
    {
        key(k);
        appendNumber(m_out, v);
        return *this;
    }
    Fields& number(const char* k, double v)
    {
        key(k);
        appendNumber(m_out, v);
        return *this;
    }
    Fields& floatStar(const char* k, double v)
    {
        key(k);
        appendFloatStar(m_out, v);
        return *this;
    }
    Fields& string(const char* k, const QString& v)
    {
        key(k);
        appendString(m_out, v);
        return *this;
    }
    // An empty string is written as null.
    Fields& stringOrNull(const char* k, const QString& v)
    {
        key(k);
        if (v.isEmpty())
            m_out.append("null");
        else
            appendString(m_out, v);
        return *this;
    }
    // A string that needs no escaping (protocol names).
    Fields& name(const char* k, const char* v)
    {
        key(k);
        m_out.append('"');
        m_out.append(v);
        m_out.append('"');
        return *this;
    }
    Fields& json(const char* k, const QJsonObject& o)
    {
        key(k);
        m_out.append(QJsonDocument(o).toJson(QJsonDocument::Compact));
        return *this;
    }
    // A nested object: fill(Fields &) adds its fields.
    template <typename Fill> Fields& object(const char* k, Fill&& fill)
    {
        key(k);
        Fields inner(m_out);
        fill(inner);
        inner.close();
        return *this;
    }
    // An array of n elements: element(out, i) appends the i-th.
    template <typename Element> Fields& array(const char* k, size_t n, Element&& element)
    {
        key(k);
        m_out.append('[');
        for (size_t i = 0; i < n; ++i) {
            if (i)
                m_out.append(',');
            element(m_out, i);
        }
        m_out.append(']');
        return *this;
    }
    void close() { m_out.append('}'); }
    // Closes a record: it is a whole line.
    void closeLine() { m_out.append("}\n"); }

  private:
    void key(const char* k)
    {
        if (!m_first)
            m_out.append(',');
        m_first = false;
        m_out.append('"');
        m_out.append(k);
        m_out.append("\":");
    }

    QByteArray& m_out;
    bool m_first = true;
};

// The fields every record starts with.
Fields record(QByteArray& out, const char* type, double t)
{
    Fields f(out);
    f.integer("v", kSchemaVersion).name("type", type).number("t", t);
    return f;
}

} // namespace

QByteArray toJsonLine(const HelloRecord& r)
{
    QByteArray out;
    Fields line = record(out, "hello", r.t);
    line.string("run_id", r.runId).integer("world_size", r.worldSize);
    line.array("ranks", size_t(r.ranks.size()), [&r](QByteArray& o, size_t i) {
        const RankInfo& ri = r.ranks[qsizetype(i)];
        Fields rank(o);
        rank.integer("rank", ri.rank).string("host", ri.host).string("device", ri.device);
        if (ri.localRank >= 0)
            rank.integer("local_rank", ri.localRank);
        if (ri.pid >= 0)
            rank.integer("pid", ri.pid);
        if (!std::isnan(ri.memTotalMb))
            rank.number("mem_total_mb", ri.memTotalMb);
        rank.close();
    });
    line.object("versions", [&r](Fields& v) {
        v.string("trainer", r.trainerVersion)
            .string("libtorch", r.libtorchVersion)
            .string("mpi", r.mpiVersion)
            .stringOrNull("nccl", r.ncclVersion)
            .stringOrNull("blas_core", r.blasCore);
    });
    line.object("model", [&r](Fields& m) { m.json("config", r.modelConfig).integer("parameters", r.parameters); });
    line.json("hparams", r.hparams);
    if (r.resumedFromStep >= 0) {
        line.object("resumed_from",
                    [&r](Fields& f) { f.integer("step", r.resumedFromStep).string("path", r.resumedFromPath); });
    }
    line.closeLine();
    return out;
}

void appendStepLine(QByteArray& out, const StepRecord& r)
{
    Fields line = record(out, "step", r.t);
    line.integer("step", r.step).integer("epoch", r.epoch).floatStar("loss", r.loss).number("lr", r.lr);
    if (r.present & StepRecord::HasGradNorm)
        line.floatStar("grad_norm", r.gradNorm);
    line.integer("tokens", r.tokens).number("tokens_per_s", r.tokensPerS).number("samples_per_s", r.samplesPerS);
    if (r.present & StepRecord::HasMfu)
        line.floatStar("mfu", r.mfu);
    if (r.present & StepRecord::HasLossScale)
        line.floatStar("loss_scale", r.lossScale);
    for (int m = 0; m < kRankMetricCount; ++m) {
        if (m >= int(RankMetric::Mem) && !(r.present & (StepRecord::HasMem << (m - int(RankMetric::Mem)))))
            continue;
        const auto& vec = r.perRank[size_t(m)];
        line.array(rankMetricKey(RankMetric(m)), vec.size(), [&vec, m](QByteArray& o, size_t i) {
            const float v = vec[i];
            if (std::isnan(v))
                o.append("null");
            else if (m == int(RankMetric::CommBytes) || m == int(RankMetric::Samples))
                appendNumber(o, qint64(v));
            else
                appendNumber(o, v);
        });
    }
    line.closeLine();
}

QByteArray toJsonLine(const StepRecord& r)
{
    QByteArray out;
    out.reserve(256 + r.worldSize() * kRankMetricCount * 10);
    appendStepLine(out, r);
    return out;
}

QByteArray toJsonLine(const EvalRecord& r)
{
    QByteArray out;
    record(out, "eval", r.t)
        .integer("step", r.step)
        .floatStar("loss", r.loss)
        .floatStar("perplexity", r.perplexity)
        .closeLine();
    return out;
}

QByteArray toJsonLine(const CheckpointRecord& r)
{
    QByteArray out;
    record(out, "checkpoint", r.t)
        .integer("step", r.step)
        .string("path", r.path)
        .integer("bytes", r.bytes)
        .number("ms", r.ms)
        .closeLine();
    return out;
}

QByteArray toJsonLine(const WarningRecord& r)
{
    QByteArray out;
    Fields line = record(out, "warning", r.t);
    line.integer("rank", r.rank).string("host", r.host).string("message", r.message);
    if (!r.code.isEmpty())
        line.string("code", r.code);
    if (!r.stall.isEmpty())
        line.json("stall", r.stall);
    line.closeLine();
    return out;
}

QByteArray toJsonLine(const ErrorRecord& r)
{
    QByteArray out;
    Fields line = record(out, "error", r.t);
    line.integer("rank", r.rank).string("host", r.host).string("message", r.message);
    if (r.hasExitCode)
        line.integer("exit_code", r.exitCode);
    line.closeLine();
    return out;
}

QByteArray toJsonLine(const DoneRecord& r)
{
    QByteArray out;
    record(out, "done", r.t)
        .name("status", DoneRecord::statusName(r.status))
        .integer("steps", r.steps)
        .number("seconds", r.seconds)
        .closeLine();
    return out;
}

QByteArray toJsonLine(const Record& r)
{
    return std::visit([](const auto& x) { return toJsonLine(x); }, r);
}

} // namespace traindeck::metrics
