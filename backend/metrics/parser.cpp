#include "metrics/parser.h"

#include "metrics/parserprivate.h"

#include <QCoreApplication>
#include <QIODevice>

#include <cstring>

namespace traindeck::metrics {

using namespace parser_detail;

namespace {

constexpr const char* kCtx = "traindeck::metrics::MetricsParser";

QString tr(const char* s)
{
    return QCoreApplication::translate(kCtx, s);
}

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

} // namespace

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
