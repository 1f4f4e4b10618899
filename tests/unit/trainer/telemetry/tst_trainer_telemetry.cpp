// The trainer's telemetry, written by a real 2-rank run under mpirun, read by the backend's protocol
// parser: no malformed line, every record type in order, per-rank arrays of the world's size, and a
// planted delay visible on the delayed rank; with the allreduce overlapped with backward, a rank slowed
// inside its backward pass is still the one the diagnosis names; and ranks that wait for a peer yield
// their core (Open MPI's mpi_yield_when_idle, unless the user chose otherwise).
#include "analysis/diagnosis.h"
#include "metrics/metricstore.h"
#include "metrics/parser.h"
#include "metrics/records.h"
#include "test_paths.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QProcess>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <vector>

using namespace traindeck::metrics;

namespace {

// The real trainer under `mpirun -np <ranks>` on qwen2-tiny (seq 16, micro-batch 1, one thread) with `args`
// after those and `extraEnv` in its environment; its metrics file, or "" after a failed QVERIFY.
QString trainTiny(const QTemporaryDir& dir, const QStringList& args, const QProcessEnvironment& extraEnv = {},
                  int ranks = 2)
{
    QFile corpus(dir.filePath(QStringLiteral("c.jsonl")));
    if (!corpus.open(QIODevice::WriteOnly))
        return {};
    for (int i = 0; i < 300; ++i)
        corpus.write("{\"text\":\"telemetry line " + QByteArray::number(i) + " for a protocol check\"}\n");
    corpus.close();
    const QString metrics = dir.filePath(QStringLiteral("metrics.jsonl"));
    auto env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("XDG_CACHE_HOME"), dir.filePath(QStringLiteral("xdg")));
    env.insert(extraEnv);
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(QStringLiteral("mpirun"), QStringList{QStringLiteral("-np"),
                                                  QString::number(ranks),
                                                  QStringLiteral("--bind-to"),
                                                  QStringLiteral("none"),
                                                  QStringLiteral("--oversubscribe"),
                                                  QString::fromUtf8(TRAINDECK_TRAINER),
                                                  QStringLiteral("train"),
                                                  QStringLiteral("--preset"),
                                                  QStringLiteral("qwen2-tiny"),
                                                  QStringLiteral("--data"),
                                                  corpus.fileName(),
                                                  QStringLiteral("--seq-len"),
                                                  QStringLiteral("16"),
                                                  QStringLiteral("--micro-batch"),
                                                  QStringLiteral("1"),
                                                  QStringLiteral("--threads"),
                                                  QStringLiteral("1"),
                                                  QStringLiteral("--out"),
                                                  dir.filePath(QStringLiteral("out")),
                                                  QStringLiteral("--metrics-out"),
                                                  metrics} +
                                          args);
    if (!p.waitForFinished(300000) || p.exitCode() != 0) {
        qWarning("trainer failed: %s", p.readAllStandardError().constData());
        return {};
    }
    return metrics;
}

// The shape of a metrics file: per record type, the keys that carry a value (a top-level null counts as
// absent, as the protocol reads it), with the hello's nested objects and rank entries; and the order of record types
// with repeats collapsed (hello, step, checkpoint, step, ...). Per-rank arrays must have world_size elements.
struct Shape {
    QMap<QString, QSet<QString>> keys;
    QStringList types;
};

// Nested objects keep their null-valued keys: a GPU run's `versions.blas_core` is null where a CPU run's
// `nccl` is, and both name the key.
void addKeys(QSet<QString>& into, const QString& prefix, const QJsonObject& o)
{
    for (auto it = o.begin(); it != o.end(); ++it)
        if (!it.value().isNull() || !prefix.isEmpty())
            into.insert(prefix + it.key());
}

Shape shapeOf(const QString& path, int worldSize)
{
    Shape shape;
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return shape;
    const QList<QByteArray> lines = f.readAll().split('\n');
    for (const QByteArray& line : lines) {
        if (line.isEmpty())
            continue;
        const QJsonObject o = QJsonDocument::fromJson(line).object();
        const QString type = o.value(QStringLiteral("type")).toString();
        QSet<QString>& keys = shape.keys[type];
        addKeys(keys, {}, o);
        if (type == QStringLiteral("hello")) {
            for (const char* nested : {"versions", "model", "hparams"})
                addKeys(keys, QLatin1String(nested) + QLatin1Char('.'), o.value(QLatin1String(nested)).toObject());
            for (const QJsonValue& r : o.value(QStringLiteral("ranks")).toArray())
                addKeys(keys, QStringLiteral("ranks[]."), r.toObject());
        }
        for (auto it = o.begin(); it != o.end(); ++it)
            if (type == QStringLiteral("step") && it.value().isArray() && it.value().toArray().size() != worldSize)
                keys.insert(it.key() + QStringLiteral(" has the wrong length"));
        if (shape.types.isEmpty() || shape.types.last() != type)
            shape.types.append(type);
    }
    return shape;
}

} // namespace

class TestTrainerTelemetry : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void recordsFollowTheProtocol();
    void backwardStragglerNamedWithOverlap();
    void waitingRanksYieldUnlessTheUserSaysOtherwise();
    void generatedRunHasTheTrainersShape();
};

void TestTrainerTelemetry::recordsFollowTheProtocol()
{
    QTemporaryDir dir;
    const QString metrics =
        trainTiny(dir, {QStringLiteral("--max-steps"), QStringLiteral("6"), QStringLiteral("--checkpoint-every"),
                        QStringLiteral("3"), QStringLiteral("--inject-delay"), QStringLiteral("1:150:forward")});
    QVERIFY(!metrics.isEmpty());

    MetricStore store;
    const auto loaded = store.loadFile(metrics);
    QVERIFY2(loaded, qPrintable(loaded.errorString()));
    const LoadReport& report = loaded.value();
    QCOMPARE(report.malformed, qint64(0));
    QCOMPARE(store.worldSize(), 2);
    QCOMPARE(store.rowCount(), qint64(6));
    QCOMPARE(store.firstStep(), qint64(1));
    QCOMPARE(store.lastStep(), qint64(6));
    QVERIFY(store.hello().has_value());
    QCOMPARE(store.hello()->worldSize, 2);
    // The trainer asks for it when the environment does not say otherwise.
    QCOMPARE(store.hello()->hparams.value(QStringLiteral("comm_wait")).toString(), QStringLiteral("yield"));
    QCOMPARE(store.checkpoints().size(), qsizetype(2)); // steps 3 and 6
    QVERIFY(store.done().has_value());

    // Parse again record by record to check types and order.
    RecordCollector collector;
    MetricsParser parser(&collector);
    QFile f(metrics);
    QVERIFY(f.open(QIODevice::ReadOnly));
    parser.feed(&f);
    parser.finish();
    QCOMPARE(parser.stats().malformed, qint64(0));
    QCOMPARE(parser.stats().unknownTypes, qint64(0));
    QVERIFY(std::holds_alternative<HelloRecord>(collector.records.first()));
    QVERIFY(std::holds_alternative<DoneRecord>(collector.records.last()));
    std::vector<double> forwardExcess; // rank 1's forward over rank 0's, per step
    for (const Record& r : collector.records) {
        if (const auto* s = std::get_if<StepRecord>(&r)) {
            QCOMPARE(s->worldSize(), 2);
            forwardExcess.push_back(s->value(RankMetric::Fwd, 1) - s->value(RankMetric::Fwd, 0));
            QVERIFY(s->value(RankMetric::Step, 0) >= s->value(RankMetric::Fwd, 0));
            QVERIFY(s->value(RankMetric::CommBytes, 0) > 0);
        }
    }
    // The planted 150 ms forward delay shows on rank 1 only: in the median step, since one step's forwards
    // can differ by more than 30 ms on their own (the fused loss computes the output layer's gradients in
    // forward; under ASan on two busy cores one step of six came out 120 ms or less).
    QCOMPARE(forwardExcess.size(), size_t(6));
    std::sort(forwardExcess.begin(), forwardExcess.end());
    const double median = (forwardExcess[2] + forwardExcess[3]) / 2;
    QVERIFY2(median > 120, qPrintable(QString::number(median)));
}

void TestTrainerTelemetry::backwardStragglerNamedWithOverlap()
{
    // DDP's trap: once collectives run inside backward, the rank that waits for a slow peer shows a
    // longer backward too, and the straggler hides among the waiting ranks. Here rank 1 sleeps
    // inside its backward (once its first gradient bucket is ready, while rank 0's communication
    // thread already waits in that bucket's allreduce); the diagnosis must name rank 1 and only it.
    // The sleep is half of the balanced step measured first, and 60 ms at least (about one step of the
    // optimised build here): a fixed 60 ms falls under the detector's minimum effect where steps are
    // slower, as in the ASan build (about 800 ms a step).
    const QStringList overlapped{QStringLiteral("--bucket-mb"), QStringLiteral("1"), QStringLiteral("--overlap"),
                                 QStringLiteral("on")};
    QTemporaryDir calibration;
    const QString balancedMetrics =
        trainTiny(calibration, QStringList{QStringLiteral("--max-steps"), QStringLiteral("5")} + overlapped);
    QVERIFY(!balancedMetrics.isEmpty());
    MetricStore balanced;
    QVERIFY(balanced.loadFile(balancedMetrics).ok());
    std::vector<double> stepMs;
    for (qint64 row = 1; row < balanced.rowCount(); ++row) // step 1 warms up
        stepMs.push_back(balanced.valueAt(SeriesId::of(RankMetric::Step, 0), row));
    QVERIFY(!stepMs.empty());
    const auto middle = stepMs.begin() + qsizetype(stepMs.size() / 2);
    std::nth_element(stepMs.begin(), middle, stepMs.end());
    const int delayMs = std::max(60, int(*middle / 2));
    qInfo("balanced step %.0f ms: rank 1 sleeps %d ms in its backward", *middle, delayMs);

    QTemporaryDir dir;
    const QString metrics =
        trainTiny(dir, QStringList{QStringLiteral("--max-steps"), QStringLiteral("40"),
                                   QStringLiteral("--inject-delay"), QStringLiteral("1:%1:backward").arg(delayMs)} +
                           overlapped);
    QVERIFY(!metrics.isEmpty());

    MetricStore store;
    const auto loaded = store.loadFile(metrics);
    QVERIFY2(loaded, qPrintable(loaded.errorString()));
    QCOMPARE(store.rowCount(), qint64(40));
    QVERIFY(store.hasRankMetric(RankMetric::CommHidden));
    const QList<traindeck::analysis::Finding> findings = traindeck::analysis::Diagnosis::analyze(store);
    int stragglers = 0;
    for (const auto& f : findings) {
        if (f.kind != traindeck::analysis::FindingKind::Straggler ||
            f.state == traindeck::analysis::FindingState::Tentative)
            continue;
        ++stragglers;
        QCOMPARE(f.ranks, QList<int>{1});
        QCOMPARE(f.hosts.size(), qsizetype(1));
        QVERIFY(!f.hosts.first().isEmpty());
    }
    QCOMPARE(stragglers, 1);
}

void TestTrainerTelemetry::waitingRanksYieldUnlessTheUserSaysOtherwise()
{
    // A user who wants Open MPI's spinning wait back (e.g. one rank per otherwise idle core) sets the
    // MCA parameter, which mpirun hands to the ranks; the trainer keeps it and the hello says so.
    QTemporaryDir dir;
    QProcessEnvironment env;
    env.insert(QStringLiteral("OMPI_MCA_mpi_yield_when_idle"), QStringLiteral("0"));
    const QString metrics = trainTiny(dir, {QStringLiteral("--max-steps"), QStringLiteral("2")}, env);
    QVERIFY(!metrics.isEmpty());
    MetricStore store;
    QVERIFY(store.loadFile(metrics).ok());
    QVERIFY(store.hello().has_value());
    QCOMPARE(store.hello()->hparams.value(QStringLiteral("comm_wait")).toString(), QStringLiteral("spin"));
}

// The generator that stands in for a 1,024-rank job (tests/tools/telemetry) writes what the real trainer writes:
// a 4-rank real run and a 4-rank generated run have the same records with the same fields.
void TestTrainerTelemetry::generatedRunHasTheTrainersShape()
{
    QTemporaryDir dir;
    const QString real = trainTiny(
        dir,
        {QStringLiteral("--max-steps"), QStringLiteral("4"), QStringLiteral("--checkpoint-every"), QStringLiteral("2")},
        {}, 4);
    QVERIFY(!real.isEmpty());
    const QString generated = dir.filePath(QStringLiteral("generated.jsonl"));
    QProcess gen;
    gen.start(QString::fromUtf8(TRAINDECK_TELEMETRY_GEN),
              {QStringLiteral("--out"), generated, QStringLiteral("--ranks"), QStringLiteral("4"),
               QStringLiteral("--hosts"), QStringLiteral("2"), QStringLiteral("--steps"), QStringLiteral("4"),
               QStringLiteral("--checkpoint-every"), QStringLiteral("2")});
    QVERIFY(gen.waitForFinished(60000));
    QCOMPARE(gen.exitCode(), 0);
    const Shape a = shapeOf(real, 4), b = shapeOf(generated, 4);
    QCOMPARE(b.types, a.types);
    QCOMPARE(a.types, (QStringList{QStringLiteral("hello"), QStringLiteral("step"), QStringLiteral("checkpoint"),
                                   QStringLiteral("step"), QStringLiteral("checkpoint"), QStringLiteral("done")}));
    for (auto it = a.keys.begin(); it != a.keys.end(); ++it) {
        QStringList missing = (it.value() - b.keys.value(it.key())).values(),
                    extra = (b.keys.value(it.key()) - it.value()).values();
        missing.sort();
        extra.sort();
        QVERIFY2(missing.isEmpty() && extra.isEmpty(),
                 qPrintable(QStringLiteral("%1: the generator lacks [%2] and adds [%3]")
                                .arg(it.key(), missing.join(QLatin1Char(' ')), extra.join(QLatin1Char(' ')))));
    }
}

QTEST_GUILESS_MAIN(TestTrainerTelemetry)
#include "tst_trainer_telemetry.moc"
