#include "metrics/parser.h"

#include <QCoreApplication>
#include <QIODevice>
#include <QJsonDocument>

#include <simdjson.h>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <string_view>

namespace od = simdjson::ondemand;

namespace traindeck::metrics {

namespace {

constexpr const char* kCtx = "traindeck::metrics::MetricsParser";

QString tr(const char* s)
{
    return QCoreApplication::translate(kCtx, s);
}

constexpr std::uint32_t fnv(std::string_view s)
{
    std::uint32_t h = 2166136261u;
    for (char c : s) {
        h ^= std::uint8_t(c);
        h *= 16777619u;
    }
    return h;
}

enum class Type { Hello, Step, Eval, Checkpoint, Warning, Error, Done, Unknown };

Type typeOf(std::string_view s)
{
    if (s == "step")
        return Type::Step;
    if (s == "hello")
        return Type::Hello;
    if (s == "eval")
        return Type::Eval;
    if (s == "checkpoint")
        return Type::Checkpoint;
    if (s == "warning")
        return Type::Warning;
    if (s == "error")
        return Type::Error;
    if (s == "done")
        return Type::Done;
    return Type::Unknown;
}

// A failed field: which key, what was expected, and simdjson's code if any.
struct Failure {
    const char* what = nullptr; // untranslated, QT_TRANSLATE_NOOP'd below
    std::string key;
    simdjson::error_code code = simdjson::SUCCESS;
};

#define NOOP(s) QT_TRANSLATE_NOOP("traindeck::metrics::MetricsParser", s)
const char* const kExpInt = NOOP("expected an integer");
const char* const kExpNumber = NOOP("expected a number");
const char* const kExpNumberStar = NOOP("expected a number or \"NaN\", \"Infinity\", \"-Infinity\"");
const char* const kExpString = NOOP("expected a string");
const char* const kExpStringOrNull = NOOP("expected a string or null");
const char* const kExpObject = NOOP("expected an object");
const char* const kExpArray = NOOP("expected an array");
const char* const kExpRankArray = NOOP("expected an array of numbers (or null) per rank");
const char* const kOutOfRange = NOOP("value out of range");
const char* const kMissing = NOOP("missing required field");
const char* const kBadJson = NOOP("invalid JSON");
const char* const kBadStatus = NOOP("expected \"finished\", \"failed\" or \"cancelled\"");
const char* const kBadLength = NOOP("per-rank array length differs from world_size");
const char* const kBadRanks = NOOP("ranks: each entry needs a unique rank in [0, world_size), host and device");
#undef NOOP

QString qs(std::string_view s)
{
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

} // namespace

struct MetricsParser::Private {
    MetricsSink* sink = nullptr;
    od::parser json;

    // Input buffer [begin, end) holds the incomplete tail; cap - end >= SIMDJSON_PADDING always.
    std::unique_ptr<char[]> buf;
    size_t cap = 0, begin = 0, end = 0;
    qint64 consumed = 0;  // stream offset just after the last complete line
    qint64 discarded = 0; // bytes of the current (too long) line already dropped
    qint64 line = 0;
    qint64 maxLine = kDefaultMaxLineBytes;
    int worldSize = 0;
    ParserStats stats;
    QList<ParseIssue> issues;

    // Scratch records, reused line after line so steady state does not allocate.
    StepRecord step;
    HelloRecord hello;
    EvalRecord eval;
    CheckpointRecord ckpt;
    WarningRecord warning;
    ErrorRecord error;
    DoneRecord done;
    Failure fail;
    quint32 seen = 0; // bits of required fields seen

    void reserve(size_t extra);
    void process();
    void handleLine(const char* p, size_t len, qint64 offset);
    void report(qint64 lineNo, qint64 offset, QString reason, const char* p, size_t len);

    bool parseRecord(od::object& obj, Type type, qint64 lineNo, qint64 offset);
    void deliver(Type type);
    bool stepField(std::string_view key, od::value v);
    bool helloField(std::string_view key, od::value v, HelloRecord& h);

    bool failed(const char* what, std::string_view key, simdjson::error_code code = simdjson::SUCCESS)
    {
        fail.what = what;
        fail.key.assign(key.data(), key.size());
        fail.code = code;
        return false;
    }
    bool getInt(od::value v, std::string_view key, qint64& out)
    {
        int64_t i = 0;
        if (auto e = v.get_int64().get(i))
            return failed(kExpInt, key, e);
        out = i;
        return true;
    }
    bool getFloat(od::value v, std::string_view key, double& out)
    {
        if (auto e = v.get_double().get(out))
            return failed(kExpNumber, key, e);
        return true;
    }
    // float* (number or the non-finite strings); nullable: null allowed -> present = false.
    bool getFloatStar(od::value v, std::string_view key, double& out, bool nullable, bool* present = nullptr)
    {
        double d = 0;
        auto e = v.get_double().get(d);
        if (!e) {
            out = d;
            if (present)
                *present = true;
            return true;
        }
        if (e != simdjson::INCORRECT_TYPE)
            return failed(kExpNumberStar, key, e);
        std::string_view s;
        if (!v.get_string().get(s)) {
            if (s == "NaN")
                out = std::nan("");
            else if (s == "Infinity")
                out = INFINITY;
            else if (s == "-Infinity")
                out = -INFINITY;
            else
                return failed(kExpNumberStar, key);
            if (present)
                *present = true;
            return true;
        }
        bool isNull = false;
        if (nullable && !v.is_null().get(isNull) && isNull) {
            out = kNaN;
            if (present)
                *present = false;
            return true;
        }
        return failed(kExpNumberStar, key);
    }
    bool getString(od::value v, std::string_view key, QString& out)
    {
        std::string_view s;
        if (auto e = v.get_string().get(s))
            return failed(kExpString, key, e);
        out = qs(s);
        return true;
    }
    bool getStringOrNull(od::value v, std::string_view key, QString& out)
    {
        std::string_view s;
        auto e = v.get_string().get(s);
        if (!e) {
            out = qs(s);
            return true;
        }
        bool isNull = false;
        if (!v.is_null().get(isNull) && isNull) {
            out.clear();
            return true;
        }
        return failed(kExpStringOrNull, key, e);
    }
    bool getRankArray(od::value v, std::string_view key, std::vector<float>& out, bool integral)
    {
        od::array arr;
        if (auto e = v.get_array().get(arr))
            return failed(kExpArray, key, e);
        out.clear();
        for (auto elr : arr) {
            od::value el;
            if (auto e = std::move(elr).get(el))
                return failed(kExpRankArray, key, e);
            double d = 0;
            auto e = el.get_double().get(d);
            if (e) {
                bool isNull = false;
                if (e == simdjson::INCORRECT_TYPE && !el.is_null().get(isNull) && isNull)
                    d = kNaN;
                else
                    return failed(kExpRankArray, key, e);
            } else if (!(std::fabs(d) <= double(FLT_MAX))) {
                return failed(kOutOfRange, key);
            } else if (integral && d != std::floor(d)) {
                return failed(kExpInt, key);
            }
            out.push_back(float(d));
        }
        return true;
    }
    // Calls field(name, value) for each field of an object until one returns false; errors in the
    // object itself are reported against `key` ({} at the top level).
    template <typename Field> bool forEachField(od::object& o, std::string_view key, Field&& field)
    {
        for (auto fr : o) {
            od::field f;
            if (auto e = std::move(fr).get(f))
                return failed(kBadJson, key, e);
            std::string_view k;
            if (auto e = f.unescaped_key().get(k))
                return failed(kBadJson, key, e);
            if (!field(k, f.value()))
                return false;
        }
        return true;
    }
    // The same for a value that must be an object.
    template <typename Field> bool forEachField(od::value v, std::string_view key, Field&& field)
    {
        od::object o;
        if (auto e = v.get_object().get(o))
            return failed(kExpObject, key, e);
        return forEachField(o, key, field);
    }
    bool getJsonObject(od::value v, std::string_view key, QJsonObject& out)
    {
        od::object o;
        if (auto e = v.get_object().get(o))
            return failed(kExpObject, key, e);
        std::string_view raw;
        if (auto e = simdjson::to_json_string(o).get(raw))
            return failed(kBadJson, key, e);
        const QJsonDocument doc = QJsonDocument::fromJson(QByteArray(raw.data(), qsizetype(raw.size())));
        if (!doc.isObject())
            return failed(kExpObject, key);
        out = doc.object();
        return true;
    }
};

MetricsParser::MetricsParser(MetricsSink* sink) : d(std::make_unique<Private>())
{
    d->sink = sink;
}

MetricsParser::~MetricsParser() = default;

void MetricsParser::setSink(MetricsSink* sink)
{
    d->sink = sink;
}

MetricsSink* MetricsParser::sink() const
{
    return d->sink;
}

void MetricsParser::reset(qint64 startOffset, qint64 startLine)
{
    d->begin = d->end = 0;
    d->consumed = startOffset;
    d->discarded = 0;
    d->line = startLine;
    d->worldSize = 0;
    d->stats = {};
    d->issues.clear();
}

void MetricsParser::setWorldSize(int n)
{
    d->worldSize = n > 0 ? n : 0;
}

int MetricsParser::worldSize() const
{
    return d->worldSize;
}

void MetricsParser::setMaxLineBytes(qint64 n)
{
    d->maxLine = n > 0 ? n : kDefaultMaxLineBytes;
}

qint64 MetricsParser::offset() const
{
    return d->consumed;
}

qint64 MetricsParser::lineNumber() const
{
    return d->line;
}

qint64 MetricsParser::pendingBytes() const
{
    return d->discarded + qint64(d->end - d->begin);
}

const ParserStats& MetricsParser::stats() const
{
    return d->stats;
}

const QList<ParseIssue>& MetricsParser::issues() const
{
    return d->issues;
}

void MetricsParser::Private::reserve(size_t extra)
{
    const size_t need = (end - begin) + extra + simdjson::SIMDJSON_PADDING;
    if (end + extra + simdjson::SIMDJSON_PADDING <= cap)
        return;
    if (need <= cap && begin > 0) {
        std::memmove(buf.get(), buf.get() + begin, end - begin);
    } else {
        size_t ncap = std::max<size_t>(cap * 2, 64 * 1024);
        while (ncap < need)
            ncap *= 2;
        std::unique_ptr<char[]> nb(new char[ncap]);
        if (end > begin)
            std::memcpy(nb.get(), buf.get() + begin, end - begin);
        buf = std::move(nb);
        cap = ncap;
    }
    end -= begin;
    begin = 0;
}

qint64 MetricsParser::feed(QByteArrayView bytes)
{
    const qint64 before = d->line;
    if (bytes.isEmpty())
        return 0;
    d->reserve(size_t(bytes.size()));
    std::memcpy(d->buf.get() + d->end, bytes.data(), size_t(bytes.size()));
    d->end += size_t(bytes.size());
    d->process();
    return d->line - before;
}

qint64 MetricsParser::feed(QIODevice* device)
{
    if (!device)
        return 0;
    constexpr size_t kChunk = 1 << 20;
    qint64 total = 0;
    for (;;) {
        d->reserve(kChunk);
        const qint64 n = device->read(d->buf.get() + d->end, qint64(kChunk));
        if (n <= 0)
            break;
        d->end += size_t(n);
        total += n;
        d->process();
    }
    return total;
}

void MetricsParser::finish()
{
    if (d->discarded == 0 && d->end == d->begin)
        return;
    // Terminate the tail so it goes through the same path as a complete line, then take the
    // phantom newline back out of the offsets.
    d->reserve(1);
    d->buf[d->end++] = '\n';
    d->process();
    d->consumed -= 1;
    d->stats.bytes -= 1;
}

void MetricsParser::Private::report(qint64 lineNo, qint64 offset, QString reason, const char* p, size_t len)
{
    ParseIssue issue;
    issue.line = lineNo;
    issue.offset = offset;
    issue.reason = std::move(reason);
    issue.excerpt = QByteArray(p, qsizetype(std::min<size_t>(len, 120)));
    stats.malformed++;
    if (issues.size() < kMaxKeptIssues)
        issues.append(issue);
    if (sink)
        sink->onIssue(issue);
}

void MetricsParser::Private::process()
{
    while (begin < end) {
        char* p = buf.get() + begin;
        const size_t avail = end - begin;
        const char* nl = static_cast<const char*>(std::memchr(p, '\n', avail));
        if (!nl) {
            if (discarded > 0 || qint64(avail) > maxLine) {
                // Too long: drop what we have and keep dropping until its newline arrives.
                discarded += qint64(avail);
                begin = end = 0;
            }
            return;
        }
        const size_t len = size_t(nl - p);
        const qint64 lineOffset = consumed;
        const qint64 lineNo = ++line;
        const qint64 total = discarded + qint64(len) + 1;
        stats.lines++;
        if (discarded > 0 || total > maxLine) {
            report(lineNo, lineOffset, tr("line too long (%1 bytes, at most %2 allowed)").arg(total).arg(maxLine), p,
                   discarded > 0 ? 0 : len);
        } else {
            handleLine(p, len, lineOffset);
        }
        discarded = 0;
        consumed += total;
        stats.bytes += total;
        begin += len + 1;
    }
    begin = end = 0;
}

void MetricsParser::Private::handleLine(const char* p, size_t len, qint64 offset)
{
    const char* const raw = p;
    const size_t rawLen = len;
    // Byte order mark at the very start of the stream.
    if (offset == 0 && len >= 3 && std::memcmp(p, "\xEF\xBB\xBF", 3) == 0) {
        p += 3;
        len -= 3;
    }
    while (len > 0 && (p[len - 1] == '\r' || p[len - 1] == ' ' || p[len - 1] == '\t'))
        --len;
    size_t lead = 0;
    while (lead < len && (p[lead] == ' ' || p[lead] == '\t'))
        ++lead;
    if (lead == len) {
        stats.blank++;
        return;
    }
    const qint64 lineNo = line;
    // The buffer always has SIMDJSON_PADDING bytes after its end, so the line is padded.
    const size_t capacity = size_t((buf.get() + cap) - p);
    od::document doc;
    if (auto e = json.iterate(p, len, capacity).get(doc)) {
        report(lineNo, offset, tr("not JSON: %1").arg(QString::fromLatin1(simdjson::error_message(e))), raw, rawLen);
        return;
    }
    od::object obj;
    if (auto e = doc.get_object().get(obj)) {
        // Other JSON values (array, string, number, literal) are "not an object"; the rest is not JSON.
        const bool jsonValue = p[lead] != 0 && std::strchr("[\"-0123456789tfn", p[lead]) != nullptr;
        report(lineNo, offset,
               e == simdjson::INCORRECT_TYPE && jsonValue
                   ? tr("not a JSON object")
                   : tr("not JSON: %1").arg(QString::fromLatin1(simdjson::error_message(e))),
               raw, rawLen);
        return;
    }
    std::string_view typeName;
    if (auto e = obj.find_field_unordered("type").get_string().get(typeName)) {
        report(lineNo, offset,
               e == simdjson::NO_SUCH_FIELD ? tr("missing field 'type'")
               : e == simdjson::INCORRECT_TYPE
                   ? tr("field 'type': %1").arg(tr(kExpString))
                   : tr("not JSON: %1").arg(QString::fromLatin1(simdjson::error_message(e))),
               raw, rawLen);
        return;
    }
    const Type type = typeOf(typeName);
    if (type == Type::Unknown) {
        stats.unknownTypes++;
        return;
    }
    bool reset = false;
    if (obj.reset().get(reset)) {
        report(lineNo, offset, tr("not JSON"), raw, rawLen);
        return;
    }
    fail = {};
    bool ok = parseRecord(obj, type, lineNo, offset);
    if (ok && doc.current_location().error() != simdjson::OUT_OF_BOUNDS) {
        fail = {};
        fail.what =
            QT_TRANSLATE_NOOP("traindeck::metrics::MetricsParser", "unexpected characters after the JSON object");
        ok = false;
    }
    if (ok) {
        deliver(type);
    } else {
        QString reason;
        if (fail.what == kMissing)
            reason = tr("missing field '%1'").arg(qs(fail.key));
        else if (fail.key.empty())
            reason = tr(fail.what ? fail.what : kBadJson);
        else
            reason = tr("field '%1': %2").arg(qs(fail.key), tr(fail.what ? fail.what : kBadJson));
        if (fail.code != simdjson::SUCCESS && fail.code != simdjson::INCORRECT_TYPE)
            reason += QStringLiteral(" (%1)").arg(QString::fromLatin1(simdjson::error_message(fail.code)));
        report(lineNo, offset, reason, raw, rawLen);
    }
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
    case fnv("ranks"): {
        if (key != "ranks")
            break;
        seen |= S3;
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

bool MetricsParser::Private::parseRecord(od::object& obj, Type type, qint64 lineNo, qint64 offset)
{
    seen = 0;
    double t = 0;
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
    qint64 version = 0;

    const bool fieldsOk = forEachField(obj, {}, [&](std::string_view key, od::value v) {
        if (key == "v") {
            seen |= SeenV;
            if (!getInt(v, key, version))
                return false;
            if (version != kSchemaVersion) {
                fail = {};
                fail.what = QT_TRANSLATE_NOOP("traindeck::metrics::MetricsParser", "unsupported schema version");
                return false;
            }
            return true;
        }
        if (key == "t") {
            seen |= SeenT;
            return getFloat(v, key, t);
        }
        if (key == "type")
            return true;
        bool ok = true;
        qint64 i = 0;
        switch (type) {
        case Type::Step: ok = stepField(key, v); break;
        case Type::Hello: ok = helloField(key, v, hello); break;
        case Type::Eval:
            if (key == "step") {
                seen |= S1;
                ok = getInt(v, key, eval.step);
            } else if (key == "loss") {
                seen |= S2;
                ok = getFloatStar(v, key, eval.loss, true);
            } else if (key == "perplexity") {
                seen |= S3;
                ok = getFloatStar(v, key, eval.perplexity, true);
            }
            break;
        case Type::Checkpoint:
            if (key == "step") {
                seen |= S1;
                ok = getInt(v, key, ckpt.step);
            } else if (key == "path") {
                seen |= S2;
                ok = getString(v, key, ckpt.path);
            } else if (key == "bytes") {
                seen |= S3;
                ok = getInt(v, key, ckpt.bytes);
            } else if (key == "ms") {
                seen |= S4;
                ok = getFloat(v, key, ckpt.ms);
            }
            break;
        case Type::Warning:
        case Type::Error: {
            const bool isWarning = type == Type::Warning;
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
                    break;
                ok = getInt(v, key, i);
                if (ok && (i < INT_MIN || i > INT_MAX))
                    ok = failed(kOutOfRange, key);
                error.exitCode = int(i);
                error.hasExitCode = ok;
            }
            break;
        }
        case Type::Done:
            if (key == "status") {
                seen |= S1;
                QString st;
                ok = getString(v, key, st);
                if (!ok)
                    break;
                if (st == QLatin1String("finished"))
                    done.status = DoneRecord::Status::Finished;
                else if (st == QLatin1String("failed"))
                    done.status = DoneRecord::Status::Failed;
                else if (st == QLatin1String("cancelled"))
                    done.status = DoneRecord::Status::Cancelled;
                else
                    ok = failed(kBadStatus, key);
            } else if (key == "steps") {
                seen |= S2;
                ok = getInt(v, key, done.steps);
            } else if (key == "seconds") {
                seen |= S3;
                ok = getFloat(v, key, done.seconds);
            }
            break;
        case Type::Unknown: break;
        }
        return ok;
    });
    if (!fieldsOk)
        return false;
    // Required fields.
    struct Req {
        quint32 bit;
        const char* key;
    };
    auto require = [&](std::initializer_list<Req> reqs) {
        for (const Req& r : reqs)
            if (!(seen & r.bit))
                return failed(kMissing, r.key);
        return true;
    };
    if (!require({{SeenV, "v"}, {SeenT, "t"}}))
        return false;
    const RecordOrigin origin{lineNo, offset};
    // Where the record came from and its time, once its fields are known to be complete.
    auto stamp = [&](auto& record) {
        record.origin = origin;
        record.t = t;
        return true;
    };
    switch (type) {
    case Type::Step: {
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
        return stamp(s);
    }
    case Type::Hello: {
        if (!require(
                {{S1, "run_id"}, {S2, "world_size"}, {S3, "ranks"}, {S4, "versions"}, {S5, "model"}, {S6, "hparams"}}))
            return false;
        // Ranks: unique, in range, exactly world_size of them; store sorted by rank.
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
        return stamp(hello);
    }
    case Type::Eval: return require({{S1, "step"}, {S2, "loss"}, {S3, "perplexity"}}) && stamp(eval);
    case Type::Checkpoint: return require({{S1, "step"}, {S2, "path"}, {S3, "bytes"}, {S4, "ms"}}) && stamp(ckpt);
    case Type::Warning: return require({{S1, "rank"}, {S2, "host"}, {S3, "message"}}) && stamp(warning);
    case Type::Error: return require({{S1, "rank"}, {S2, "host"}, {S3, "message"}}) && stamp(error);
    case Type::Done: return require({{S1, "status"}, {S2, "steps"}, {S3, "seconds"}}) && stamp(done);
    case Type::Unknown: break;
    }
    return true;
}

void MetricsParser::Private::deliver(Type type)
{
    stats.records++;
    if (!sink)
        return;
    switch (type) {
    case Type::Step: sink->onStep(step); break;
    case Type::Hello: sink->onHello(hello); break;
    case Type::Eval: sink->onEval(eval); break;
    case Type::Checkpoint: sink->onCheckpoint(ckpt); break;
    case Type::Warning: sink->onWarning(warning); break;
    case Type::Error: sink->onError(error); break;
    case Type::Done: sink->onDone(done); break;
    case Type::Unknown: break;
    }
}

} // namespace traindeck::metrics
