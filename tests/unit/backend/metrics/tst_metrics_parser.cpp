// MetricsParser: protocol records, malformed lines, split feeds, resume at an offset.
#include "metrics/parser.h"
#include "metrics/writer.h"
#include "test_paths.h"
#include "testdata.h"

#include <QBuffer>
#include <QFile>
#include <QTest>

#include <cmath>

using namespace traindeck::metrics;
namespace td = traindeck::metrics::testdata;

namespace {

// Everything the sink saw, serialised canonically, so runs can be compared byte for byte.
QByteArray canonical(const RecordCollector& c)
{
    QByteArray out;
    for (const Record& r : c.records)
        out += toJsonLine(r);
    return out;
}

QByteArray parseAll(const QByteArray& stream, RecordCollector& c, qint64* offset = nullptr)
{
    MetricsParser p(&c);
    p.feed(stream);
    if (offset)
        *offset = p.offset();
    return canonical(c);
}

} // namespace

class tst_MetricsParser : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void fixture();
    void recordsRoundTrip();
    void malformed_data();
    void malformed();
    void blankAndCrlf();
    void nonFiniteValues();
    void unknownFieldsAndOrder();
    void optionalArrays();
    void samplesPerRank();
    void splitAtEveryByte_data();
    void splitAtEveryByte();
    void byteByByte();
    void resumeAtOffset();
    void worldSizeFromResume();
    void lineTooLong();
    void finishIncompleteLine_data();
    void finishIncompleteLine();
    void feedFromDevice();
    void byteOrderMark();
    void issueToString();
};

void tst_MetricsParser::fixture()
{
    QFile f(QString::fromUtf8(TRAINDECK_SOURCE_DIR) + QStringLiteral("/tests/fixtures/metrics/example-4ranks.jsonl"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    RecordCollector c;
    MetricsParser p(&c);
    p.feed(&f);
    QCOMPARE(p.stats().malformed, 0);
    QCOMPARE(p.offset(), f.size());
    QCOMPARE(p.pendingBytes(), 0);
    QCOMPARE(c.records.size(), 15);
    const auto& h = std::get<HelloRecord>(c.records.first());
    QCOMPARE(h.worldSize, 4);
    QCOMPARE(h.ranks[3].host, QStringLiteral("node2"));
    QCOMPARE(h.ranks[3].device, QStringLiteral("cuda:1"));
    QCOMPARE(h.ranks[3].memTotalMb, 81559.0);
    QCOMPARE(h.ncclVersion, QStringLiteral("2.21.5"));
    QVERIFY(h.blasCore.isEmpty());
    QCOMPARE(h.parameters, 1777088000);
    QCOMPARE(h.modelConfig.value(QStringLiteral("hidden_size")).toInt(), 1536);
    QCOMPARE(h.hparams.value(QStringLiteral("max_steps")).toInt(), 10);
    const auto& s = std::get<StepRecord>(c.records.at(1));
    QCOMPARE(s.step, 1);
    QCOMPARE(s.worldSize(), 4);
    QVERIFY(!(s.present & StepRecord::HasLossScale)); // "loss_scale": null
    QVERIFY(s.present & StepRecord::HasCommBytes);
    QCOMPARE(s.value(RankMetric::CommBytes, 2), 3554176000.f);
    QCOMPARE(std::get<DoneRecord>(c.records.last()).status, DoneRecord::Status::Finished);
}

void tst_MetricsParser::recordsRoundTrip()
{
    const QByteArray stream = td::smallStream(4, 5);
    RecordCollector c;
    qint64 off = 0;
    const QByteArray again = parseAll(stream, c, &off);
    QVERIFY(c.issues.isEmpty());
    QCOMPARE(off, stream.size());
    QCOMPARE(c.records.size(), 1 + 5 + 3 + 2);
    // The canonical writer's output parses back to the same lines.
    QCOMPARE(again, stream);
    const auto& w = std::get<WarningRecord>(c.records.at(5));
    QCOMPARE(w.message, QStringLiteral("slow \"disk\" on node1 \u00e9"));
    QCOMPARE(w.code, QStringLiteral("slow_disk"));
    QCOMPARE(w.origin.line, 6);
    const auto& e = std::get<ErrorRecord>(c.records.at(9));
    QVERIFY(e.hasExitCode);
    QCOMPARE(e.exitCode, 3);
    // Origins: line numbers and byte offsets of each record.
    qint64 expectOffset = 0;
    for (qsizetype i = 0; i < c.records.size(); ++i) {
        const RecordOrigin o = std::visit([](const auto& r) { return r.origin; }, c.records[i]);
        QCOMPARE(o.line, i + 1);
        QCOMPARE(o.offset, expectOffset);
        expectOffset = stream.indexOf('\n', expectOffset) + 1;
    }
}

void tst_MetricsParser::malformed_data()
{
    QTest::addColumn<QByteArray>("line");
    QTest::addColumn<QString>("reason"); // substring of the reported reason

    const QByteArray good = td::stepLine(4, 7).chopped(1);
    auto replaced = [&](const char* from, const char* to) {
        QByteArray l = good;
        const qsizetype i = l.indexOf(from);
        if (i < 0)
            qFatal("test data: '%s' not in line", from);
        return l.replace(i, qsizetype(strlen(from)), to);
    };
    QTest::addRow("truncated") << good.left(good.size() / 2) << QStringLiteral("not JSON");
    QTest::addRow("truncated after key") << QByteArray(R"({"v":1,"type":"step","t":1.0,"step":)") << QStringLiteral("");
    QTest::addRow("not json") << QByteArray("hello world") << QStringLiteral("not JSON");
    QTest::addRow("array") << QByteArray("[1,2,3]") << QStringLiteral("not a JSON object");
    QTest::addRow("number") << QByteArray("42") << QStringLiteral("not a JSON object");
    QTest::addRow("string") << QByteArray("\"step\"") << QStringLiteral("not a JSON object");
    QTest::addRow("lone brace") << QByteArray("{") << QStringLiteral("");
    QTest::addRow("no type") << QByteArray(R"({"v":1,"t":2.0})") << QStringLiteral("missing field 'type'");
    QTest::addRow("type not string") << QByteArray(R"({"v":1,"type":3,"t":2.0})") << QStringLiteral("'type'");
    QTest::addRow("loss wrong type") << replaced("\"loss\":9.93", "\"loss\":\"abc\"") << QStringLiteral("'loss'");
    QTest::addRow("loss bool") << replaced("\"loss\":9.93", "\"loss\":true") << QStringLiteral("'loss'");
    QTest::addRow("step string") << replaced("\"step\":7", "\"step\":\"7\"") << QStringLiteral("'step'");
    QTest::addRow("step fraction") << replaced("\"step\":7", "\"step\":7.5") << QStringLiteral("'step'");
    QTest::addRow("step negative") << replaced("\"step\":7", "\"step\":-7") << QStringLiteral("'step'");
    QTest::addRow("step huge int") << replaced("\"step\":7", "\"step\":99999999999999999999999")
                                   << QStringLiteral("'step'");
    QTest::addRow("t huge") << replaced("\"t\":", "\"t\":1e400,\"x\":") << QStringLiteral("'t'");
    QTest::addRow("lr huge") << replaced("\"lr\":", "\"lr\":1e99999,\"y\":") << QStringLiteral("'lr'");
    QTest::addRow("rank value beyond float")
        << replaced("\"fwd_ms\":[400.25", "\"fwd_ms\":[1e300") << QStringLiteral("'fwd_ms'");
    QTest::addRow("rank array short") << replaced("\"fwd_ms\":[400.25,", "\"fwd_ms\":[") << QStringLiteral("'fwd_ms'");
    QTest::addRow("rank array long") << replaced("\"fwd_ms\":[400.25,", "\"fwd_ms\":[1,400.25,")
                                     << QStringLiteral("'fwd_ms'");
    QTest::addRow("rank array string elem")
        << replaced("\"fwd_ms\":[400.25", "\"fwd_ms\":[\"x\"") << QStringLiteral("'fwd_ms'");
    QTest::addRow("rank array nested") << replaced("\"fwd_ms\":[400.25", "\"fwd_ms\":[[1]")
                                       << QStringLiteral("'fwd_ms'");
    QTest::addRow("rank array object") << replaced("\"fwd_ms\":[400.25,401.25,402.25,403.25]", "\"fwd_ms\":{}")
                                       << QStringLiteral("'fwd_ms'");
    QTest::addRow("comm_bytes fraction") << replaced("\"comm_bytes\":[3554176000", "\"comm_bytes\":[1.5")
                                         << QStringLiteral("'comm_bytes'");
    QTest::addRow("samples string") << replaced("\"samples\":[4,4,4,4]", "\"samples\":\"4,4,4,4\"")
                                    << QStringLiteral("'samples'");
    QTest::addRow("samples fraction") << replaced("\"samples\":[4", "\"samples\":[4.5") << QStringLiteral("'samples'");
    QTest::addRow("samples string elem") << replaced("\"samples\":[4", "\"samples\":[\"4\"")
                                         << QStringLiteral("'samples'");
    QTest::addRow("samples short") << replaced("\"samples\":[4,4,4,4]", "\"samples\":[4,4,4]")
                                   << QStringLiteral("'samples'");
    QTest::addRow("missing loss") << replaced("\"loss\":9.93,", "") << QStringLiteral("missing field 'loss'");
    QTest::addRow("missing step_ms") << replaced("\"step_ms\":", "\"xstep_ms\":")
                                     << QStringLiteral("missing field 'step_ms'");
    QTest::addRow("missing v") << replaced("\"v\":1,", "") << QStringLiteral("missing field 'v'");
    QTest::addRow("version 2") << replaced("\"v\":1,", "\"v\":2,") << QStringLiteral("unsupported schema version");
    QTest::addRow("trailing garbage") << good + " xyz" << QStringLiteral("");
    QTest::addRow("two objects") << good + good << QStringLiteral("after the JSON object");
    QTest::addRow("utf8 garbage") << QByteArray("{\"v\":1,\"type\":\"warning\",\"t\":1,\"rank\":0,\"host\":\"h\","
                                                "\"message\":\"\xff\xfe\xc3\x28\"}")
                                  << QStringLiteral("not JSON");
    QTest::addRow("binary") << QByteArray("\x00\x01\x02\x03{}", 6) << QStringLiteral("not JSON");
    QTest::addRow("bad status") << QByteArray(
                                       R"({"v":1,"type":"done","t":1,"status":"exploded","steps":1,"seconds":1})")
                                << QStringLiteral("'status'");
    QTest::addRow("warning no message") << QByteArray(R"({"v":1,"type":"warning","t":1,"rank":0,"host":"h"})")
                                        << QStringLiteral("missing field 'message'");
    QTest::addRow("hello ranks mismatch")
        << QByteArray(
               R"({"v":1,"type":"hello","t":1,"run_id":"r","world_size":2,"ranks":[{"rank":0,"host":"a","device":"cpu"}],)"
               R"("versions":{},"model":{"config":{},"parameters":1},"hparams":{}})")
        << QStringLiteral("ranks");
    QTest::addRow("hello duplicate rank")
        << QByteArray(
               R"({"v":1,"type":"hello","t":1,"run_id":"r","world_size":2,"ranks":[{"rank":0,"host":"a","device":"cpu"},)"
               R"({"rank":0,"host":"a","device":"cpu"}],"versions":{},"model":{"config":{},"parameters":1},"hparams":{}})")
        << QStringLiteral("ranks");
    QTest::addRow("hello world_size 0") << QByteArray(
                                               R"({"v":1,"type":"hello","t":1,"run_id":"r","world_size":0,"ranks":[],)"
                                               R"("versions":{},"model":{"config":{},"parameters":1},"hparams":{}})")
                                        << QStringLiteral("'world_size'");
    QTest::addRow("deep nesting") << QByteArray(R"({"v":1,"type":"eval","t":1,"x":)") + QByteArray(5000, '[') +
                                         QByteArray(5000, ']') + QByteArray(R"(,"step":1,"loss":1,"perplexity":2.7})")
                                  << QStringLiteral("");
}

void tst_MetricsParser::malformed()
{
    QFETCH(QByteArray, line);
    QFETCH(QString, reason);
    // A good line before and after: both survive, the bad one is reported with line and offset.
    const QByteArray before = td::helloLine(4);
    const QByteArray after = td::stepLine(4, 8);
    const QByteArray stream = before + line + '\n' + after;
    RecordCollector c;
    MetricsParser p(&c);
    p.feed(stream);
    if (QByteArray(QTest::currentDataTag()) == "deep nesting" && c.issues.isEmpty()) {
        // simdjson accepts depth 5000 only with a larger max depth; either outcome is fine, no crash.
        QCOMPARE(c.records.size(), 3);
        return;
    }
    QCOMPARE(p.stats().malformed, 1);
    QCOMPARE(c.issues.size(), 1);
    QCOMPARE(p.issues().size(), 1);
    const ParseIssue& issue = c.issues.first();
    QCOMPARE(issue.line, 2);
    QCOMPARE(issue.offset, before.size());
    QVERIFY2(issue.reason.contains(reason), qPrintable(issue.reason));
    QVERIFY(!issue.reason.isEmpty());
    QCOMPARE(c.records.size(), 2);
    QVERIFY(std::holds_alternative<HelloRecord>(c.records[0]));
    QCOMPARE(std::get<StepRecord>(c.records[1]).step, 8);
    QCOMPARE(std::get<StepRecord>(c.records[1]).origin.line, 3);
    QCOMPARE(p.offset(), stream.size());
    QCOMPARE(p.lineNumber(), 3);
}

void tst_MetricsParser::blankAndCrlf()
{
    QByteArray crlf = td::stepLine(2, 1);
    crlf.insert(crlf.size() - 1, '\r');
    const QByteArray stream = "\n" + td::helloLine(2) + "   \t \r\n" + crlf + "\r\n" + "  " + td::stepLine(2, 2);
    RecordCollector c;
    MetricsParser p(&c);
    p.feed(stream);
    QCOMPARE(p.stats().malformed, 0);
    QCOMPARE(p.stats().blank, 3);
    QCOMPARE(c.records.size(), 3);
    QCOMPARE(std::get<StepRecord>(c.records[1]).step, 1);
    QCOMPARE(std::get<StepRecord>(c.records[2]).origin.line, 6);
    QCOMPARE(p.offset(), stream.size());
}

void tst_MetricsParser::nonFiniteValues()
{
    QByteArray l = td::stepLine(2, 3);
    l.replace("\"loss\":9.97", "\"loss\":\"NaN\"");
    l.replace("\"grad_norm\":1.25", "\"grad_norm\":\"-Infinity\"");
    l.replace("\"fwd_ms\":[400.25", "\"fwd_ms\":[null");
    QByteArray ev = R"({"v":1,"type":"eval","t":5,"step":3,"loss":"Infinity","perplexity":"Infinity"})"
                    "\n";
    RecordCollector c;
    MetricsParser p(&c);
    p.feed(l + ev);
    QCOMPARE(p.stats().malformed, 0);
    const auto& s = std::get<StepRecord>(c.records[0]);
    QVERIFY(std::isnan(s.loss));
    QVERIFY(std::isinf(s.gradNorm) && s.gradNorm < 0);
    QVERIFY(std::isnan(s.value(RankMetric::Fwd, 0)));
    QCOMPARE(s.value(RankMetric::Fwd, 1), 401.25f);
    QVERIFY(std::isinf(std::get<EvalRecord>(c.records[1]).perplexity));
    // A bare NaN token is not JSON.
    RecordCollector c2;
    MetricsParser p2(&c2);
    p2.feed(QByteArray(R"({"v":1,"type":"eval","t":5,"step":3,"loss":NaN,"perplexity":1})"
                       "\n"));
    QCOMPARE(p2.stats().malformed, 1);
}

void tst_MetricsParser::unknownFieldsAndOrder()
{
    // Type last, unknown fields of every JSON kind, escaped key, unknown record type.
    const QByteArray lines =
        R"({"future":{"a":[1,{"b":null}],"c":"x"},"t":3.5,"step":4,"loss":2.0,"perplexity":7.39,"v":1,"type":"eval"})"
        "\n"
        R"({"v":1,"type":"gpu_temperature","t":1,"rank":0,"celsius":71})"
        "\n"
        R"({"v":1,"type":"checkpoint","t":2,"step":4,"path":"ck\/step-4 \u00e9","bytes":10,"ms":1.5,"sha":"abc"})"
        "\n";
    RecordCollector c;
    MetricsParser p(&c);
    p.feed(lines);
    QCOMPARE(p.stats().malformed, 0);
    QCOMPARE(p.stats().unknownTypes, 1);
    QCOMPARE(c.records.size(), 2);
    const auto& e = std::get<EvalRecord>(c.records[0]);
    QCOMPARE(e.step, 4);
    QCOMPARE(e.t, 3.5);
    QCOMPARE(std::get<CheckpointRecord>(c.records[1]).path, QStringLiteral("ck/step-4 \u00e9"));
}

void tst_MetricsParser::optionalArrays()
{
    StepRecord s = td::step(3, 1);
    s.present = 0; // no grad_norm, mem, util, comm_bytes
    QByteArray l = toJsonLine(s);
    QVERIFY(!l.contains("mem_mb"));
    QByteArray withNull = l;
    withNull.replace("\"step_ms\"", "\"util\":null,\"step_ms\"");
    RecordCollector c;
    MetricsParser p(&c);
    p.feed(l + withNull);
    QCOMPARE(p.stats().malformed, 0);
    for (const Record& r : c.records) {
        const auto& st = std::get<StepRecord>(r);
        QCOMPARE(st.present, 0u);
        QCOMPARE(st.series(RankMetric::Mem).size(), size_t(3));
        QVERIFY(std::isnan(st.value(RankMetric::Util, 2)));
        QVERIFY(std::isnan(st.gradNorm));
    }
}

// `samples` (--balance): each rank's share when given; absent or null leaves it NaN and its bit clear.
void tst_MetricsParser::samplesPerRank()
{
    StepRecord s = td::step(2, 1);
    s.perRank[size_t(RankMetric::Samples)] = {19, 13};
    const QByteArray given = toJsonLine(s);
    QVERIFY(given.contains("\"samples\":[19,13]"));
    s.present &= ~StepRecord::HasSamples;
    const QByteArray absent = toJsonLine(s);
    QVERIFY(!absent.contains("\"samples\""));
    QByteArray null = absent;
    null.replace("\"step_ms\"", "\"samples\":null,\"step_ms\"");
    RecordCollector c;
    MetricsParser p(&c);
    p.feed(given + absent + null);
    QCOMPARE(p.stats().malformed, 0);
    QCOMPARE(c.records.size(), 3);
    const auto& withShares = std::get<StepRecord>(c.records[0]);
    QVERIFY(withShares.present & StepRecord::HasSamples);
    QCOMPARE(withShares.value(RankMetric::Samples, 0), 19.f);
    QCOMPARE(withShares.value(RankMetric::Samples, 1), 13.f);
    for (int i : {1, 2}) {
        const auto& without = std::get<StepRecord>(c.records[i]);
        QVERIFY(!(without.present & StepRecord::HasSamples));
        QCOMPARE(without.series(RankMetric::Samples).size(), size_t(2));
        QVERIFY(std::isnan(without.value(RankMetric::Samples, 1)));
    }
}

void tst_MetricsParser::splitAtEveryByte_data()
{
    QTest::addColumn<QByteArray>("stream");
    QTest::addRow("4 ranks") << td::smallStream(4, 3);
    QByteArray withBad = td::helloLine(2) + "garbage\r\n\n" + td::stepLine(2, 1);
    withBad += QByteArray(R"({"v":1,"type":"step","t":1,"step":)") + "\n" + td::stepLine(2, 2);
    QTest::addRow("with malformed and blank lines") << withBad;
}

void tst_MetricsParser::splitAtEveryByte()
{
    QFETCH(QByteArray, stream);
    RecordCollector whole;
    qint64 wholeOffset = 0;
    const QByteArray expected = parseAll(stream, whole, &wholeOffset);
    for (qsizetype k = 0; k <= stream.size(); ++k) {
        RecordCollector c;
        MetricsParser p(&c);
        p.feed(QByteArrayView(stream).first(k));
        // Offset is always a line boundary at or before k, and covers every complete line.
        const qint64 lastNl = stream.lastIndexOf('\n', k - 1);
        QCOMPARE(p.offset(), k == 0 ? 0 : lastNl + 1);
        QCOMPARE(p.pendingBytes(), k - p.offset());
        p.feed(QByteArrayView(stream).sliced(k));
        QCOMPARE(canonical(c), expected);
        QCOMPARE(c.issues.size(), whole.issues.size());
        for (qsizetype i = 0; i < c.issues.size(); ++i) {
            QCOMPARE(c.issues[i].line, whole.issues[i].line);
            QCOMPARE(c.issues[i].offset, whole.issues[i].offset);
        }
        QCOMPARE(p.offset(), wholeOffset);
    }
}

void tst_MetricsParser::byteByByte()
{
    const QByteArray stream = td::smallStream(8, 4);
    RecordCollector whole;
    const QByteArray expected = parseAll(stream, whole);
    RecordCollector c;
    MetricsParser p(&c);
    for (char ch : stream)
        p.feed(QByteArrayView(&ch, 1));
    QCOMPARE(canonical(c), expected);
    QCOMPARE(p.offset(), stream.size());
    QCOMPARE(p.stats().lines, qint64(stream.count('\n')));
}

void tst_MetricsParser::resumeAtOffset()
{
    // Stop anywhere, resume a fresh parser at the saved offset/line: no duplicate, no gap.
    const QByteArray stream = td::smallStream(4, 4);
    RecordCollector whole;
    const QByteArray expected = parseAll(stream, whole);
    for (qsizetype k = 0; k <= stream.size(); ++k) {
        RecordCollector c;
        MetricsParser a(&c);
        a.feed(QByteArrayView(stream).first(k));
        const qint64 off = a.offset();
        const qint64 line = a.lineNumber();
        MetricsParser b(&c);
        b.reset(off, line);
        b.setWorldSize(a.worldSize());
        b.feed(QByteArrayView(stream).sliced(off));
        QCOMPARE(canonical(c), expected);
        QCOMPARE(b.offset(), stream.size());
        QCOMPARE(b.lineNumber(), whole.records.size());
        // Origins after resuming are stream-absolute.
        const auto& last = std::get<DoneRecord>(c.records.last());
        QCOMPARE(last.origin.offset, stream.size() - toJsonLine(last).size());
    }
}

void tst_MetricsParser::worldSizeFromResume()
{
    // Resumed mid-file without the hello: world size from setWorldSize() (or the first step).
    RecordCollector c;
    MetricsParser p(&c);
    p.setWorldSize(4);
    p.feed(td::stepLine(3, 1));
    QCOMPARE(c.issues.size(), 1);
    QVERIFY(c.issues.first().reason.contains(QStringLiteral("world_size")));
    MetricsParser q(&c);
    q.feed(td::stepLine(3, 1) + td::stepLine(3, 2) + td::stepLine(5, 3));
    QCOMPARE(q.worldSize(), 3);
    QCOMPARE(q.stats().records, 2);
    QCOMPARE(q.stats().malformed, 1);
}

void tst_MetricsParser::lineTooLong()
{
    RecordCollector c;
    MetricsParser p(&c);
    p.setMaxLineBytes(2000);
    const QByteArray big = "{\"v\":1,\"type\":\"eval\",\"junk\":\"" + QByteArray(10000, 'x') + "\"}\n";
    const QByteArray stream = td::helloLine(2) + big + td::stepLine(2, 1);
    for (qsizetype i = 0; i < stream.size(); i += 700)
        p.feed(QByteArrayView(stream).sliced(i, std::min<qsizetype>(700, stream.size() - i)));
    QCOMPARE(c.issues.size(), 1);
    QCOMPARE(c.issues.first().line, 2);
    QCOMPARE(c.issues.first().offset, td::helloLine(2).size());
    QVERIFY(c.issues.first().reason.contains(QStringLiteral("too long")));
    QCOMPARE(c.records.size(), 2);
    QCOMPARE(p.offset(), stream.size());
    QCOMPARE(p.pendingBytes(), 0);
    // Mid-way through the long line the resume offset stays at its start.
    MetricsParser q;
    q.setMaxLineBytes(2000);
    q.feed(QByteArrayView(stream).first(td::helloLine(2).size() + 5000));
    QCOMPARE(q.offset(), td::helloLine(2).size());
    QCOMPARE(q.pendingBytes(), 5000);
}

void tst_MetricsParser::finishIncompleteLine_data()
{
    QTest::addColumn<QByteArray>("tail");
    QTest::addColumn<int>("records");
    QTest::addColumn<int>("issues");
    QTest::addRow("complete record without newline") << td::stepLine(2, 2).chopped(1) << 2 << 0;
    QTest::addRow("truncated") << td::stepLine(2, 2).left(40) << 1 << 1;
    QTest::addRow("whitespace") << QByteArray("  \r") << 1 << 0;
    QTest::addRow("nothing") << QByteArray() << 1 << 0;
}

void tst_MetricsParser::finishIncompleteLine()
{
    QFETCH(QByteArray, tail);
    QFETCH(int, records);
    QFETCH(int, issues);
    const QByteArray stream = td::stepLine(2, 1) + tail;
    RecordCollector c;
    MetricsParser p(&c);
    p.feed(stream);
    QCOMPARE(p.offset(), td::stepLine(2, 1).size());
    p.finish();
    QCOMPARE(c.records.size(), records);
    QCOMPARE(c.issues.size(), issues);
    QCOMPARE(p.offset(), stream.size());
    QCOMPARE(p.pendingBytes(), 0);
}

void tst_MetricsParser::feedFromDevice()
{
    QByteArray stream = td::smallStream(4, 6);
    stream += td::stepLine(4, 99).left(50); // being written
    QBuffer buf(&stream);
    QVERIFY(buf.open(QIODevice::ReadOnly));
    RecordCollector c;
    MetricsParser p(&c);
    QCOMPARE(p.feed(&buf), stream.size());
    QCOMPARE(c.records.size(), 1 + 6 + 5);
    QCOMPARE(p.pendingBytes(), 50);
    QCOMPARE(p.offset(), stream.size() - 50);
}

void tst_MetricsParser::byteOrderMark()
{
    const QByteArray stream = "\xEF\xBB\xBF" + td::helloLine(2) + td::stepLine(2, 1);
    RecordCollector c;
    MetricsParser p(&c);
    p.feed(stream);
    QCOMPARE(c.issues.size(), 0);
    QCOMPARE(c.records.size(), 2);
}

void tst_MetricsParser::issueToString()
{
    ParseIssue i;
    i.line = 12;
    i.offset = 3456;
    i.reason = QStringLiteral("not JSON");
    QCOMPARE(i.toString(), QStringLiteral("line 12 (byte offset 3456): not JSON"));
}

QTEST_GUILESS_MAIN(tst_MetricsParser)
#include "tst_metrics_parser.moc"
