// MetricsParser's record readers: the fields of each record type (hello, step, eval, checkpoint,
// warning/error, done) and the checks that a record is complete once its line ends.
#include "metrics/parserprivate.h"

#include <QCoreApplication>

#include <climits>
#include <cstdint>
#include <vector>

namespace traindeck::metrics {

using namespace parser_detail;

namespace {

constexpr std::uint32_t fnv(std::string_view s)
{
    std::uint32_t h = 2166136261u;
    for (char c : s) {
        h ^= std::uint8_t(c);
        h *= 16777619u;
    }
    return h;
}

// Bits of `seen`.
enum : quint32 {
    SeenV = 1u << 0,
    SeenT = 1u << 1,
    S1 = 1u << 2,
    S2 = 1u << 3,
    S3 = 1u << 4,
    S4 = 1u << 5,
    S5 = 1u << 6,
    S6 = 1u << 7,
};

// The scalar fields of a step line, in protocol order (the per-rank arrays follow, see
// rankMetricKey()). A required field sets its bit of `seen`, checked in this order when the line
// ends; an optional one (float*, null = absent) sets its StepRecord::present bit.
enum class StepValue { Int, Count, Float, FloatStar, OptionalFloatStar };
struct StepScalar {
    std::string_view key;
    StepValue value;
    qint64 StepRecord::*integer; // Int, Count (an int >= 0)
    double StepRecord::*real;    // the others
    quint32 presentBit;          // OptionalFloatStar
    std::uint32_t hash = fnv(key);
    constexpr bool required() const { return value != StepValue::OptionalFloatStar; }
};
constexpr StepScalar kStepScalars[] = {
    {"step", StepValue::Count, &StepRecord::step, nullptr, 0},
    {"epoch", StepValue::Int, &StepRecord::epoch, nullptr, 0},
    {"loss", StepValue::FloatStar, nullptr, &StepRecord::loss, 0},
    {"lr", StepValue::Float, nullptr, &StepRecord::lr, 0},
    {"grad_norm", StepValue::OptionalFloatStar, nullptr, &StepRecord::gradNorm, StepRecord::HasGradNorm},
    {"tokens", StepValue::Int, &StepRecord::tokens, nullptr, 0},
    {"tokens_per_s", StepValue::Float, nullptr, &StepRecord::tokensPerS, 0},
    {"samples_per_s", StepValue::Float, nullptr, &StepRecord::samplesPerS, 0},
    {"mfu", StepValue::OptionalFloatStar, nullptr, &StepRecord::mfu, StepRecord::HasMfu},
    {"loss_scale", StepValue::OptionalFloatStar, nullptr, &StepRecord::lossScale, StepRecord::HasLossScale},
};
constexpr int kStepScalarCount = int(std::size(kStepScalars));

// Bits of `seen` in a step line: one per scalar, then one per required per-rank array.
constexpr quint32 stepScalarBit(int i)
{
    return 1u << (2 + i);
}
constexpr quint32 stepRankBit(RankMetric m)
{
    return 1u << (2 + kStepScalarCount + int(m));
}
static_assert(2 + kStepScalarCount + kRankMetricCount <= 32);

// The optional per-rank arrays (mem_mb, util, comm_bytes, samples) have presence bits from HasMem on.
constexpr quint32 stepPresentBit(RankMetric m)
{
    return StepRecord::HasMem << (int(m) - int(RankMetric::Mem));
}

} // namespace

bool MetricsParser::Private::parseRecord(od::object& obj, Type type, qint64 lineNo, qint64 offset)
{
    seen = 0;
    clearRecord(type);
    double t = 0;
    const bool fieldsOk = forEachField(obj, {}, [&](std::string_view key, od::value v) {
        if (key == "v")
            return versionField(key, v);
        if (key == "t") {
            seen |= SeenT;
            return getFloat(v, key, t);
        }
        if (key == "type")
            return true;
        return recordField(type, key, v);
    });
    if (!fieldsOk)
        return false;
    if (!require({{SeenV, "v"}, {SeenT, "t"}}))
        return false;
    return finishRecord(type, RecordOrigin{lineNo, offset}, t);
}

// The scratch record of this type back to its defaults (a step keeps its per-rank capacity).
void MetricsParser::Private::clearRecord(Type type)
{
    switch (type) {
    case Type::Hello: hello = {}; break;
    case Type::Eval: eval = {}; break;
    case Type::Checkpoint: ckpt = {}; break;
    case Type::Warning: warning = {}; break;
    case Type::Error: error = {}; break;
    case Type::Done: done = {}; break;
    default: break;
    }
    if (type == Type::Step) {
        StepRecord& s = step;
        s.present = 0;
        s.gradNorm = s.mfu = s.lossScale = kNaN;
        for (auto& v : s.perRank)
            v.clear();
    }
}

bool MetricsParser::Private::versionField(std::string_view key, od::value v)
{
    seen |= SeenV;
    qint64 version = 0;
    if (!getInt(v, key, version))
        return false;
    if (version != kSchemaVersion) {
        fail = {};
        fail.what = QT_TRANSLATE_NOOP("traindeck::metrics::MetricsParser", "unsupported schema version");
        return false;
    }
    return true;
}

// A field other than v, t and type: read by the record type's own reader.
bool MetricsParser::Private::recordField(Type type, std::string_view key, od::value v)
{
    switch (type) {
    case Type::Step: return stepField(key, v);
    case Type::Hello: return helloField(key, v, hello);
    case Type::Eval: return evalField(key, v);
    case Type::Checkpoint: return checkpointField(key, v);
    case Type::Warning: return noticeField(true, key, v);
    case Type::Error: return noticeField(false, key, v);
    case Type::Done: return doneField(key, v);
    case Type::Unknown: break;
    }
    return true;
}

bool MetricsParser::Private::stepField(std::string_view key, od::value v)
{
    StepRecord& s = step;
    const std::uint32_t hash = fnv(key);
    for (int i = 0; i < kStepScalarCount; ++i) {
        const StepScalar& f = kStepScalars[i];
        if (f.hash != hash || f.key != key)
            continue;
        if (f.required())
            seen |= stepScalarBit(i);
        switch (f.value) {
        case StepValue::Int: return getInt(v, key, s.*f.integer);
        case StepValue::Count:
            if (!getInt(v, key, s.*f.integer))
                return false;
            if (s.*f.integer < 0)
                return failed(kOutOfRange, key);
            return true;
        case StepValue::Float: return getFloat(v, key, s.*f.real);
        case StepValue::FloatStar: return getFloatStar(v, key, s.*f.real, true);
        case StepValue::OptionalFloatStar: {
            bool has = false;
            if (!getFloatStar(v, key, s.*f.real, true, &has))
                return false;
            if (has)
                s.present |= f.presentBit;
            return true;
        }
        }
    }
    for (int i = 0; i < kRankMetricCount; ++i) {
        const RankMetric m = RankMetric(i);
        if (key != rankMetricKey(m))
            continue;
        std::vector<float>& values = s.perRank[size_t(i)];
        const bool integral = m == RankMetric::CommBytes || m == RankMetric::Samples;
        if (m < RankMetric::Mem) {
            if (!getRankArray(v, key, values, integral))
                return false;
            seen |= stepRankBit(m);
            return true;
        }
        // Optional per-rank arrays: null means absent.
        bool isNull = false;
        if (!v.is_null().get(isNull) && isNull) {
            values.clear();
            s.present &= ~stepPresentBit(m);
            return true;
        }
        if (!getRankArray(v, key, values, integral))
            return false;
        s.present |= stepPresentBit(m);
        return true;
    }
    return true; // unknown key: ignored
}

bool MetricsParser::Private::helloField(std::string_view key, od::value v, HelloRecord& h)
{
    switch (fnv(key)) {
    case fnv("run_id"):
        if (key != "run_id")
            break;
        seen |= S1;
        return getString(v, key, h.runId);
    case fnv("world_size"): {
        if (key != "world_size")
            break;
        seen |= S2;
        qint64 n = 0;
        if (!getInt(v, key, n))
            return false;
        if (n < 1 || n > 1000000)
            return failed(kOutOfRange, key);
        h.worldSize = int(n);
        return true;
    }
    case fnv("ranks"):
        if (key != "ranks")
            break;
        seen |= S3;
        return helloRanks(key, v, h);
    case fnv("versions"): {
        if (key != "versions")
            break;
        seen |= S4;
        return forEachField(v, key, [&](std::string_view k, od::value fv) {
            QString* dst = k == "trainer"     ? &h.trainerVersion
                           : k == "libtorch"  ? &h.libtorchVersion
                           : k == "mpi"       ? &h.mpiVersion
                           : k == "nccl"      ? &h.ncclVersion
                           : k == "blas_core" ? &h.blasCore
                                              : nullptr;
            return !dst || getStringOrNull(fv, k, *dst);
        });
    }
    case fnv("model"): {
        if (key != "model")
            break;
        seen |= S5;
        return forEachField(v, key, [&](std::string_view k, od::value fv) {
            if (k == "config")
                return getJsonObject(fv, "model.config", h.modelConfig);
            if (k == "parameters")
                return getInt(fv, "model.parameters", h.parameters);
            return true;
        });
    }
    case fnv("hparams"):
        if (key != "hparams")
            break;
        seen |= S6;
        return getJsonObject(v, key, h.hparams);
    case fnv("resumed_from"): {
        if (key != "resumed_from")
            break;
        return forEachField(v, key, [&](std::string_view k, od::value fv) {
            if (k == "step")
                return getInt(fv, "resumed_from.step", h.resumedFromStep);
            if (k == "path")
                return getString(fv, "resumed_from.path", h.resumedFromPath);
            return true;
        });
    }
    default: break;
    }
    return true;
}

// The `ranks` array of a hello line: each entry an object with rank, host and device at least.
bool MetricsParser::Private::helloRanks(std::string_view key, od::value v, HelloRecord& h)
{
    od::array arr;
    if (auto e = v.get_array().get(arr))
        return failed(kExpArray, key, e);
    h.ranks.clear();
    for (auto elr : arr) {
        od::object o;
        if (auto e = elr.get_object().get(o))
            return failed(kExpObject, key, e);
        RankInfo ri;
        ri.rank = -1;
        quint32 got = 0;
        const bool ok = forEachField(o, key, [&](std::string_view k, od::value fv) {
            qint64 i = 0;
            if (k == "rank") {
                if (!getInt(fv, "ranks[].rank", i))
                    return false;
                if (i < 0 || i > 1000000)
                    return failed(kOutOfRange, "ranks[].rank");
                ri.rank = int(i);
                got |= 1;
            } else if (k == "host") {
                if (!getString(fv, "ranks[].host", ri.host))
                    return false;
                got |= 2;
            } else if (k == "device") {
                if (!getString(fv, "ranks[].device", ri.device))
                    return false;
                got |= 4;
            } else if (k == "local_rank") {
                if (!getInt(fv, "ranks[].local_rank", i))
                    return false;
                ri.localRank = int(i);
            } else if (k == "pid") {
                return getInt(fv, "ranks[].pid", ri.pid);
            } else if (k == "mem_total_mb") {
                return getFloatStar(fv, "ranks[].mem_total_mb", ri.memTotalMb, true);
            }
            return true;
        });
        if (!ok)
            return false;
        if (got != 7)
            return failed(kBadRanks, key);
        h.ranks.append(ri);
    }
    return true;
}

bool MetricsParser::Private::evalField(std::string_view key, od::value v)
{
    if (key == "step") {
        seen |= S1;
        return getInt(v, key, eval.step);
    }
    if (key == "loss") {
        seen |= S2;
        return getFloatStar(v, key, eval.loss, true);
    }
    if (key == "perplexity") {
        seen |= S3;
        return getFloatStar(v, key, eval.perplexity, true);
    }
    return true;
}

bool MetricsParser::Private::checkpointField(std::string_view key, od::value v)
{
    if (key == "step") {
        seen |= S1;
        return getInt(v, key, ckpt.step);
    }
    if (key == "path") {
        seen |= S2;
        return getString(v, key, ckpt.path);
    }
    if (key == "bytes") {
        seen |= S3;
        return getInt(v, key, ckpt.bytes);
    }
    if (key == "ms") {
        seen |= S4;
        return getFloat(v, key, ckpt.ms);
    }
    return true;
}

// Warning and error lines share rank, host and message; a warning adds code and stall, an error
// exit_code.
bool MetricsParser::Private::noticeField(bool isWarning, std::string_view key, od::value v)
{
    bool ok = true;
    qint64 i = 0;
    if (key == "rank") {
        seen |= S1;
        ok = getInt(v, key, i);
        if (ok && (i < -1 || i > 1000000))
            ok = failed(kOutOfRange, key);
        (isWarning ? warning.rank : error.rank) = int(i);
    } else if (key == "host") {
        seen |= S2;
        ok = getString(v, key, isWarning ? warning.host : error.host);
    } else if (key == "message") {
        seen |= S3;
        ok = getString(v, key, isWarning ? warning.message : error.message);
    } else if (isWarning && key == "code") {
        ok = getStringOrNull(v, key, warning.code);
    } else if (isWarning && key == "stall") {
        ok = getJsonObject(v, key, warning.stall);
    } else if (!isWarning && key == "exit_code") {
        bool isNull = false;
        if (!v.is_null().get(isNull) && isNull)
            return true;
        ok = getInt(v, key, i);
        if (ok && (i < INT_MIN || i > INT_MAX))
            ok = failed(kOutOfRange, key);
        error.exitCode = int(i);
        error.hasExitCode = ok;
    }
    return ok;
}

bool MetricsParser::Private::doneField(std::string_view key, od::value v)
{
    if (key == "status") {
        seen |= S1;
        QString st;
        if (!getString(v, key, st))
            return false;
        if (st == QLatin1String("finished"))
            done.status = DoneRecord::Status::Finished;
        else if (st == QLatin1String("failed"))
            done.status = DoneRecord::Status::Failed;
        else if (st == QLatin1String("cancelled"))
            done.status = DoneRecord::Status::Cancelled;
        else
            return failed(kBadStatus, key);
        return true;
    }
    if (key == "steps") {
        seen |= S2;
        return getInt(v, key, done.steps);
    }
    if (key == "seconds") {
        seen |= S3;
        return getFloat(v, key, done.seconds);
    }
    return true;
}

// Fails on the first field of `fields` (in order) the record has not shown.
bool MetricsParser::Private::require(std::initializer_list<Required> fields)
{
    for (const Required& r : fields)
        if (!(seen & r.bit))
            return failed(kMissing, r.key);
    return true;
}

// Once all fields are read: the record type's required fields and consistency checks, then where the
// record came from and its time.
bool MetricsParser::Private::finishRecord(Type type, const RecordOrigin& origin, double t)
{
    auto stamp = [&](auto& record) {
        record.origin = origin;
        record.t = t;
        return true;
    };
    switch (type) {
    case Type::Step: return finishStep() && stamp(step);
    case Type::Hello: return finishHello() && stamp(hello);
    case Type::Eval: return require({{S1, "step"}, {S2, "loss"}, {S3, "perplexity"}}) && stamp(eval);
    case Type::Checkpoint: return require({{S1, "step"}, {S2, "path"}, {S3, "bytes"}, {S4, "ms"}}) && stamp(ckpt);
    case Type::Warning: return require({{S1, "rank"}, {S2, "host"}, {S3, "message"}}) && stamp(warning);
    case Type::Error: return require({{S1, "rank"}, {S2, "host"}, {S3, "message"}}) && stamp(error);
    case Type::Done: return require({{S1, "status"}, {S2, "steps"}, {S3, "seconds"}}) && stamp(done);
    case Type::Unknown: break;
    }
    return true;
}

// A step line: every required scalar and per-rank array present, every array world_size long (absent
// optional arrays become NaN); the first step fixes the world size when no hello has.
bool MetricsParser::Private::finishStep()
{
    for (int i = 0; i < kStepScalarCount; ++i)
        if (kStepScalars[i].required() && !(seen & stepScalarBit(i)))
            return failed(kMissing, kStepScalars[i].key);
    for (int m = 0; m < int(RankMetric::Mem); ++m)
        if (!(seen & stepRankBit(RankMetric(m))))
            return failed(kMissing, rankMetricKey(RankMetric(m)));
    StepRecord& s = step;
    const size_t n = worldSize > 0 ? size_t(worldSize) : s.perRank[0].size();
    for (int m = 0; m < kRankMetricCount; ++m) {
        auto& vec = s.perRank[size_t(m)];
        const bool optional = m >= int(RankMetric::Mem);
        if (optional && !(s.present & stepPresentBit(RankMetric(m)))) {
            vec.assign(n, float(kNaN));
            continue;
        }
        if (vec.size() != n || n == 0)
            return failed(kBadLength, rankMetricKey(RankMetric(m)));
    }
    if (worldSize == 0)
        worldSize = int(n);
    return true;
}

// A hello line: all its fields, and ranks unique, in range, exactly world_size of them; stored sorted
// by rank. It fixes the world size.
bool MetricsParser::Private::finishHello()
{
    if (!require({{S1, "run_id"}, {S2, "world_size"}, {S3, "ranks"}, {S4, "versions"}, {S5, "model"}, {S6, "hparams"}}))
        return false;
    if (hello.ranks.size() != hello.worldSize)
        return failed(kBadRanks, "ranks");
    QList<RankInfo> sorted(hello.worldSize);
    std::vector<bool> got(size_t(hello.worldSize), false);
    for (const RankInfo& ri : std::as_const(hello.ranks)) {
        if (ri.rank < 0 || ri.rank >= hello.worldSize || got[size_t(ri.rank)])
            return failed(kBadRanks, "ranks");
        got[size_t(ri.rank)] = true;
        sorted[ri.rank] = ri;
    }
    hello.ranks = sorted;
    worldSize = hello.worldSize;
    return true;
}

} // namespace traindeck::metrics
