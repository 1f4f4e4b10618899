// Internals of MetricsParser shared by its two units: parser.cpp (line framing, issue reporting,
// delivery) and parserrecords.cpp (the fields of each record type and their required-field checks).
// Not part of the area's interface: only those two files include it.
#pragma once

#include "metrics/parser.h"

#include <QJsonDocument>

#include <simdjson.h>

#include <cfloat>
#include <cmath>
#include <initializer_list>
#include <string>
#include <string_view>

namespace traindeck::metrics {

namespace od = simdjson::ondemand;

namespace parser_detail {

enum class Type { Hello, Step, Eval, Checkpoint, Warning, Error, Done, Unknown };

// A failed field: which key, what was expected, and simdjson's code if any.
struct Failure {
    const char* what = nullptr; // untranslated, QT_TRANSLATE_NOOP'd below
    std::string key;
    simdjson::error_code code = simdjson::SUCCESS;
};

// Arrays, not pointers to literals: each is one object in every unit, so parser.cpp can tell kMissing
// (set in parserrecords.cpp) by its address; identical literals of two units need not share one.
#define NOOP(s) QT_TRANSLATE_NOOP("traindeck::metrics::MetricsParser", s)
inline constexpr char kExpInt[] = NOOP("expected an integer");
inline constexpr char kExpNumber[] = NOOP("expected a number");
inline constexpr char kExpNumberStar[] = NOOP("expected a number or \"NaN\", \"Infinity\", \"-Infinity\"");
inline constexpr char kExpString[] = NOOP("expected a string");
inline constexpr char kExpStringOrNull[] = NOOP("expected a string or null");
inline constexpr char kExpObject[] = NOOP("expected an object");
inline constexpr char kExpArray[] = NOOP("expected an array");
inline constexpr char kExpRankArray[] = NOOP("expected an array of numbers (or null) per rank");
inline constexpr char kOutOfRange[] = NOOP("value out of range");
inline constexpr char kMissing[] = NOOP("missing required field");
inline constexpr char kBadJson[] = NOOP("invalid JSON");
inline constexpr char kBadStatus[] = NOOP("expected \"finished\", \"failed\" or \"cancelled\"");
inline constexpr char kBadLength[] = NOOP("per-rank array length differs from world_size");
inline constexpr char kBadRanks[] = NOOP("ranks: each entry needs a unique rank in [0, world_size), host and device");
#undef NOOP

inline QString qs(std::string_view s)
{
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

// A required field: the bit of `seen` it sets and its key.
struct Required {
    quint32 bit;
    const char* key;
};

// Typed readers of one JSON value: each returns false after recording what failed in `fail`.
// `seen` collects the bits of the required fields a record has shown so far.
struct FieldReader {
    Failure fail;
    quint32 seen = 0; // bits of required fields seen

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

} // namespace parser_detail

struct MetricsParser::Private : parser_detail::FieldReader {
    using Type = parser_detail::Type;

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

    void reserve(size_t extra);
    void process();
    void handleLine(const char* p, size_t len, qint64 offset);
    void report(qint64 lineNo, qint64 offset, QString reason, const char* p, size_t len);

    void deliver(Type type);

    // parserrecords.cpp: one record's fields, then its required-field checks.
    bool parseRecord(od::object& obj, Type type, qint64 lineNo, qint64 offset);
    void clearRecord(Type type);
    bool versionField(std::string_view key, od::value v);
    bool recordField(Type type, std::string_view key, od::value v);
    bool stepField(std::string_view key, od::value v);
    bool helloField(std::string_view key, od::value v, HelloRecord& h);
    bool helloRanks(std::string_view key, od::value v, HelloRecord& h);
    bool evalField(std::string_view key, od::value v);
    bool checkpointField(std::string_view key, od::value v);
    bool noticeField(bool isWarning, std::string_view key, od::value v); // warning and error
    bool doneField(std::string_view key, od::value v);
    bool require(std::initializer_list<parser_detail::Required> fields);
    bool finishRecord(Type type, const RecordOrigin& origin, double t);
    bool finishStep();
    bool finishHello();
};

} // namespace traindeck::metrics
