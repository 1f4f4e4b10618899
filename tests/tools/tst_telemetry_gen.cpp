// traindeck-telemetry-gen (tests/tools/telemetry): what it writes is the trainer's protocol, read by the
// backend's parser without a malformed line, for 1,024 ranks on 128 hosts; each planted fault shows where it
// was planted; it writes in real time when asked; bad arguments are named, with exit code 2.
#include "launch/ranklogs.h"
#include "metrics/metricstore.h"
#include "metrics/parser.h"
#include "test_paths.h"

#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QProcess>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <vector>

using namespace traindeck::metrics;

namespace {

struct Run {
    int exitCode = -1;
    QString stderrText;
};

Run generate(const QStringList& args)
{
    QProcess p;
    p.start(QString::fromUtf8(TRAINDECK_TELEMETRY_GEN), args);
    Run r;
    if (!p.waitForFinished(120000))
        return r;
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.stderrText = QString::fromUtf8(p.readAllStandardError());
    return r;
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

// Median over the steps of `rows` of the median over `ranks` of one metric (compute: fwd + bwd + opt).
double medianOf(const MetricStore& s, const std::vector<int>& ranks, RankMetric m, bool compute = false)
{
    std::vector<double> perStep;
    for (qint64 row = 0; row < s.rowCount(); ++row) {
        std::vector<double> v;
        for (int k : ranks)
            v.push_back(compute ? double(s.rankAt(RankMetric::Fwd, k, row)) + s.rankAt(RankMetric::Bwd, k, row) +
                                      s.rankAt(RankMetric::Opt, k, row)
                                : double(s.rankAt(m, k, row)));
        perStep.push_back(median(v));
    }
    return median(perStep);
}

std::vector<int> range(int from, int to)
{
    std::vector<int> v;
    for (int k = from; k < to; ++k)
        v.push_back(k);
    return v;
}

} // namespace

class tst_TelemetryGen : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void protocolAt1024Ranks();
    void logCollapsesAt1024Ranks();
    void faultsShowWherePlanted();
    void stalledRankEndsLikeTheTrainer();
    void realTime();
    void badArgumentsAreNamed_data();
    void badArgumentsAreNamed();
};

void tst_TelemetryGen::protocolAt1024Ranks()
{
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("metrics.jsonl"));
    const Run r = generate({QStringLiteral("--out"), out, QStringLiteral("--steps"), QStringLiteral("30"),
                            QStringLiteral("--checkpoint-every"), QStringLiteral("10")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.stderrText));
    RecordCollector records;
    MetricsParser parser(&records);
    QFile f(out);
    QVERIFY(f.open(QIODevice::ReadOnly));
    parser.feed(&f);
    parser.finish();
    QCOMPARE(parser.stats().malformed, qint64(0));
    QCOMPARE(parser.stats().unknownTypes, qint64(0));
    QCOMPARE(records.records.size(), qsizetype(1 + 30 + 3 + 1));
    const auto* hello = std::get_if<HelloRecord>(&records.records.first());
    QVERIFY(hello);
    QCOMPARE(hello->worldSize, 1024);
    QSet<QString> hosts;
    for (const RankInfo& info : hello->ranks) {
        hosts.insert(info.host);
        QCOMPARE(info.device, QStringLiteral("cuda:%1").arg(info.rank % 8));
    }
    QCOMPARE(hosts.size(), 128);
    QCOMPARE(hello->ranks[517].host, QStringLiteral("node065"));
    qint64 expected = 1;
    for (const Record& rec : records.records) {
        if (const auto* s = std::get_if<StepRecord>(&rec)) {
            QCOMPARE(s->step, expected++);
            QCOMPARE(s->worldSize(), 1024);
            for (int k = 0; k < 1024; k += 97) {
                const double own = s->value(RankMetric::Data, k) + s->value(RankMetric::Fwd, k) +
                                   s->value(RankMetric::Bwd, k) + s->value(RankMetric::Comm, k) +
                                   s->value(RankMetric::Opt, k);
                QVERIFY(std::abs(own - s->value(RankMetric::Step, k)) < 1.0); // the phases make up the step
            }
        }
    }
    QVERIFY(std::holds_alternative<DoneRecord>(records.records.last()));
    // One line per step, as the trainer's; the first bytes are the keys the protocol puts first.
    f.seek(0);
    QVERIFY(f.readLine().startsWith("{\"v\":1,\"type\":\"hello\",\"t\":"));
}

// --log: the job's stderr.log as mpirun tags it; read as the Logs tab and `traindeck-cli logs` read a run's,
// the 1,024 copies of one warning are one line of "ranks 0–1023", rank 0's lines are node001:0's.
void tst_TelemetryGen::logCollapsesAt1024Ranks()
{
    QTemporaryDir dir;
    const QString log = dir.filePath(QStringLiteral("stderr.log"));
    const Run r = generate({QStringLiteral("--out"), dir.filePath(QStringLiteral("metrics.jsonl")),
                            QStringLiteral("--log"), log, QStringLiteral("--steps"), QStringLiteral("20")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.stderrText));
    QFile f(log);
    QVERIFY(f.open(QIODevice::ReadOnly));
    traindeck::launch::RankLog rankLog;
    QStringList hosts;
    for (int k = 0; k < 1024; ++k)
        hosts.append(QStringLiteral("node%1").arg(k / 8 + 1, 3, 10, QLatin1Char('0'))); // as the hello names them
    rankLog.setHostsByRank(hosts);
    rankLog.addText(f.readAll(), traindeck::launch::LogStream::Stderr);
    rankLog.finish();
    QCOMPARE(rankLog.lineCount(), qint64(1024 + 1 + 2)); // the warning, the start line, steps 10 and 20
    QCOMPARE(rankLog.groups().size(), qsizetype(4));
    QCOMPARE(rankLog.label(rankLog.groups()[0]), QStringLiteral("ranks 0\u20131023"));
    QVERIFY(rankLog.groups()[0].text.contains(QStringLiteral("expandable_segments")));
    QCOMPARE(rankLog.label(rankLog.groups()[1]), QStringLiteral("node001:0"));
    QVERIFY(rankLog.groups()[1].text.startsWith(QStringLiteral("training ")));
    QVERIFY(rankLog.groups()[3].text.startsWith(QStringLiteral("step 20/20  loss ")));
}

void tst_TelemetryGen::faultsShowWherePlanted()
{
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("metrics.jsonl"));
    // Host 5 (ranks 40-47) +30 %, rank 900 +30 % from step 11, every 10th step a 500 ms data stall from step 5.
    const Run r = generate({QStringLiteral("--out"), out, QStringLiteral("--steps"), QStringLiteral("40"),
                            QStringLiteral("--fault"), QStringLiteral("slow-host:5:30"), QStringLiteral("--fault"),
                            QStringLiteral("slow-rank:900:30:11"), QStringLiteral("--fault"),
                            QStringLiteral("data-stall:10:500:5")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.stderrText));
    MetricStore s;
    QVERIFY(s.loadFile(out));
    QCOMPARE(s.rowCount(), qint64(40));
    const double others = medianOf(s, range(100, 400), RankMetric::Fwd, true);
    const double host = medianOf(s, range(40, 48), RankMetric::Fwd, true);
    QVERIFY2(host > others * 1.2 && host < others * 1.4, qPrintable(QStringLiteral("%1 vs %2").arg(host).arg(others)));
    std::vector<double> before, after; // rank 900's forward over rank 901's, per step
    for (qint64 row = 0; row < 40; ++row) {
        (row < 10 ? before : after)
            .push_back(std::log(double(s.rankAt(RankMetric::Fwd, 900, row)) / s.rankAt(RankMetric::Fwd, 901, row)));
        // The data stall: every rank waits on steps 5, 15, 25 and 35 only.
        const bool stalled = (s.stepAt(row) - 5) % 10 == 0;
        QCOMPARE(s.rankAt(RankMetric::Data, 300, row) > 400, stalled);
    }
    QVERIFY2(std::abs(median(before)) < 0.12 && median(after) > 0.18,
             qPrintable(QStringLiteral("%1 %2").arg(median(before)).arg(median(after))));

    // A slow link: the ring's transfer runs at its speed, so every rank's allreduce takes longer.
    const QString base = dir.filePath(QStringLiteral("base.jsonl")), slow = dir.filePath(QStringLiteral("slow.jsonl"));
    QCOMPARE(generate({QStringLiteral("--out"), base, QStringLiteral("--ranks"), QStringLiteral("64"),
                       QStringLiteral("--hosts"), QStringLiteral("8"), QStringLiteral("--steps"), QStringLiteral("20")})
                 .exitCode,
             0);
    QCOMPARE(generate({QStringLiteral("--out"), slow, QStringLiteral("--ranks"), QStringLiteral("64"),
                       QStringLiteral("--hosts"), QStringLiteral("8"), QStringLiteral("--steps"), QStringLiteral("20"),
                       QStringLiteral("--fault"), QStringLiteral("slow-link:3:100")})
                 .exitCode,
             0);
    MetricStore a, b;
    QVERIFY(a.loadFile(base));
    QVERIFY(b.loadFile(slow));
    std::vector<double> minA, minB;
    for (qint64 row = 0; row < 20; ++row) {
        double ma = 1e9, mb = 1e9;
        for (int k = 0; k < 64; ++k)
            ma = std::min<double>(ma, a.rankAt(RankMetric::Comm, k, row)),
            mb = std::min<double>(mb, b.rankAt(RankMetric::Comm, k, row));
        minA.push_back(ma);
        minB.push_back(mb);
    }
    QVERIFY2(median(minB) > 1.7 * median(minA),
             qPrintable(QStringLiteral("%1 %2").arg(median(minB)).arg(median(minA))));
}

void tst_TelemetryGen::stalledRankEndsLikeTheTrainer()
{
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("metrics.jsonl"));
    const Run r =
        generate({QStringLiteral("--out"), out, QStringLiteral("--ranks"), QStringLiteral("16"),
                  QStringLiteral("--hosts"), QStringLiteral("2"), QStringLiteral("--steps"), QStringLiteral("50"),
                  QStringLiteral("--fault"), QStringLiteral("stalled-rank:11:7:60:300")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.stderrText));
    MetricStore s;
    QVERIFY(s.loadFile(out));
    QCOMPARE(s.lastStep(), qint64(6)); // step 7 never finished
    QCOMPARE(s.warnings().size(), qsizetype(1));
    const WarningRecord& w = s.warnings().first();
    QCOMPARE(w.code, QStringLiteral("stall"));
    QCOMPARE(w.rank, 11);
    QCOMPARE(w.host, QStringLiteral("node002"));
    QCOMPARE(w.stall.value(QStringLiteral("case")).toString(), QStringLiteral("before_collective"));
    QCOMPARE(w.stall.value(QStringLiteral("waiting")).toArray().size(), qsizetype(15));
    QCOMPARE(s.errors().size(), qsizetype(1));
    QVERIFY(s.done().has_value());
    QCOMPARE(s.done()->status, DoneRecord::Status::Failed);
    QCOMPARE(s.done()->steps, qint64(6));
}

void tst_TelemetryGen::realTime()
{
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("metrics.jsonl"));
    QProcess p;
    p.start(QString::fromUtf8(TRAINDECK_TELEMETRY_GEN),
            {QStringLiteral("--out"), out, QStringLiteral("--ranks"), QStringLiteral("8"), QStringLiteral("--hosts"),
             QStringLiteral("2"), QStringLiteral("--steps"), QStringLiteral("10"), QStringLiteral("--rate"),
             QStringLiteral("10")});
    QElapsedTimer t;
    t.start();
    QVERIFY(p.waitForStarted());
    // While it runs the file holds whole lines only, and grows.
    QTRY_VERIFY_WITH_TIMEOUT(QFile(out).size() > 0, 5000);
    QVERIFY(p.state() == QProcess::Running);
    QFile f(out);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QVERIFY(f.readAll().endsWith('\n'));
    QVERIFY(p.waitForFinished(10000));
    QCOMPARE(p.exitCode(), 0);
    QVERIFY2(t.elapsed() >= 900, qPrintable(QString::number(t.elapsed()))); // 10 steps at 10 per second
    MetricStore s;
    QVERIFY(s.loadFile(out));
    QCOMPARE(s.rowCount(), qint64(10));
}

void tst_TelemetryGen::badArgumentsAreNamed_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::addRow("no --out") << QStringList{} << QStringLiteral("--out is required");
    QTest::addRow("host out of range") << QStringList{QStringLiteral("--fault"), QStringLiteral("slow-host:128:10")}
                                       << QStringLiteral("host 128 does not exist (128 of them)");
    QTest::addRow("rank out of range") << QStringList{QStringLiteral("--ranks"), QStringLiteral("8"),
                                                      QStringLiteral("--hosts"), QStringLiteral("2"),
                                                      QStringLiteral("--fault"), QStringLiteral("slow-rank:8:10")}
                                       << QStringLiteral("rank 8 does not exist (8 of them)");
    QTest::addRow("unknown fault") << QStringList{QStringLiteral("--fault"), QStringLiteral("slow-disk:1:1")}
                                   << QStringLiteral("--fault slow-disk:1:1: expected");
    QTest::addRow("not a number") << QStringList{QStringLiteral("--fault"), QStringLiteral("slow-rank:1:fast")}
                                  << QStringLiteral("'fast' is not a number");
    QTest::addRow("more hosts than ranks")
        << QStringList{QStringLiteral("--ranks"), QStringLiteral("4"), QStringLiteral("--hosts"), QStringLiteral("8")}
        << QStringLiteral("--hosts 8: expected an integer from 1 to 4");
    QTest::addRow("abort before warning")
        << QStringList{QStringLiteral("--fault"), QStringLiteral("stalled-rank:1:5:60:30")}
        << QStringLiteral("ABORT_S must be above WARN_S");
}

void tst_TelemetryGen::badArgumentsAreNamed()
{
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    QTemporaryDir dir;
    if (!args.isEmpty() || message != QStringLiteral("--out is required"))
        args << QStringLiteral("--out") << dir.filePath(QStringLiteral("m.jsonl"));
    const Run r = generate(args);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.stderrText.contains(message), qPrintable(r.stderrText));
}

QTEST_GUILESS_MAIN(tst_TelemetryGen)
#include "tst_telemetry_gen.moc"
