// Benchmarks of the metrics path (prints a table):
//   1. parser throughput on a generated 64-rank step stream (~80 MB, generated in-process),
//      every field extracted (the parser fills a full StepRecord per line);
//   2. the same stream into the MetricStore;
//   3. store memory for 1M steps x 8 ranks (bytes per step per rank);
//   4. min/max decimation of a 1M-point series into 1000 buckets.
// Usage: bench_metrics [megabytes=80]
#include "metrics/metricstore.h"
#include "metrics/parser.h"
#include "metrics/writer.h"

#include <QCoreApplication>
#include <QElapsedTimer>

#include <cstdio>
#include <random>

using namespace traindeck::metrics;

namespace {

StepRecord makeStep(int ranks, qint64 step, std::mt19937& rng)
{
    std::uniform_real_distribution<float> noise(0.95f, 1.05f);
    StepRecord s;
    s.t = 1718000000.0 + double(step) * 1.52;
    s.step = step;
    s.epoch = step / 1000;
    s.loss = 11.0 * std::exp(-double(step) / 5000.0) + 1.8 + 0.01 * noise(rng);
    s.lr = 3e-4 * std::min(1.0, double(step) / 100.0);
    s.gradNorm = 1.1 * noise(rng);
    s.tokens = 8 * 1024 * ranks;
    s.tokensPerS = 21577.3 * noise(rng);
    s.samplesPerS = 21.07 * noise(rng);
    s.mfu = 0.41 * noise(rng);
    s.present = StepRecord::HasGradNorm | StepRecord::HasMfu | StepRecord::HasMem | StepRecord::HasUtil |
                StepRecord::HasCommBytes;
    const float base[kRankMetricCount] = {2.1f, 402.5f, 810.2f, 230.4f, 40.3f, 1518.6f, 60211.5f, 97.0f, 0.f, 0.f, 0.f};
    for (int m = 0; m < kRankMetricCount; ++m) {
        auto& v = s.perRank[size_t(m)];
        v.resize(size_t(ranks));
        for (int r = 0; r < ranks; ++r)
            v[size_t(r)] =
                m == int(RankMetric::CommBytes) ? 3554176000.f : std::round(base[m] * noise(rng) * 100.f) / 100.f;
    }
    return s;
}

struct CountingSink : MetricsSink {
    qint64 steps = 0;
    double checksum = 0;
    void onStep(const StepRecord& r) override
    {
        ++steps;
        checksum += r.loss + double(r.perRank[size_t(RankMetric::Step)].back());
    }
};

void row(const char* what, const QString& value, const char* target)
{
    std::printf("| %-52s | %-26s | %-14s |\n", what, qPrintable(value), target);
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    const qint64 targetMb = argc > 1 ? QByteArray(argv[1]).toLongLong() : 80;

    // 1. Generate the stream.
    std::mt19937 rng(42);
    QByteArray stream;
    stream.reserve(targetMb * 1024 * 1024 + (1 << 20));
    qint64 lines = 0;
    while (stream.size() < targetMb * 1024 * 1024)
        appendStepLine(stream, makeStep(64, ++lines, rng));
    const double mb = double(stream.size()) / 1e6;

    auto timeParse = [&](MetricsSink* sink, int chunk) {
        MetricsParser parser(sink);
        QElapsedTimer t;
        t.start();
        for (qsizetype off = 0; off < stream.size(); off += chunk)
            parser.feed(QByteArrayView(stream).sliced(off, std::min<qsizetype>(chunk, stream.size() - off)));
        const double s = double(t.nsecsElapsed()) / 1e9;
        if (parser.stats().records != lines || parser.stats().malformed != 0)
            std::fprintf(stderr, "bench: parsed %lld of %lld lines, %lld malformed\n", parser.stats().records, lines,
                         parser.stats().malformed);
        return s;
    };
    CountingSink counting;
    double best = 1e9;
    for (int i = 0; i < 3; ++i)
        best = std::min(best, timeParse(&counting, 1 << 20));
    MetricStore store;
    const double storeSecs = timeParse(&store, 1 << 20);

    std::printf("| %-52s | %-26s | %-14s |\n", "benchmark", "result", "target");
    std::printf("|%s|%s|%s|\n", QByteArray(54, '-').constData(), QByteArray(28, '-').constData(),
                QByteArray(16, '-').constData());
    row("stream: 64-rank step lines (generated)",
        QStringLiteral("%1 lines, %2 MB, %3 B/line").arg(lines).arg(mb, 0, 'f', 1).arg(stream.size() / lines), "");
    row("parser, all fields (1 MiB feeds, best of 3)",
        QStringLiteral("%1 MB/s, %2 lines/s").arg(mb / best, 0, 'f', 0).arg(double(lines) / best, 0, 'f', 0),
        ">= 500 MB/s");
    row("parser + MetricStore", QStringLiteral("%1 MB/s").arg(mb / storeSecs, 0, 'f', 0), "");
    {
        const double s = timeParse(&counting, 4096);
        row("parser, 4 KiB feeds (tail-like)", QStringLiteral("%1 MB/s").arg(mb / s, 0, 'f', 0), "");
    }

    // 3. Store memory: 1M steps x 8 ranks.
    {
        MetricStore big;
        const qint64 steps = 1000000;
        const int ranks = 8;
        StepRecord s = makeStep(ranks, 1, rng);
        QElapsedTimer t;
        t.start();
        for (qint64 i = 1; i <= steps; ++i) {
            s.step = i;
            s.loss = 2.0 + std::sin(double(i) / 1000.0);
            s.perRank[size_t(RankMetric::Fwd)][0] = float(400.0 + double(i % 97));
            big.onStep(s);
        }
        const double fillSecs = double(t.nsecsElapsed()) / 1e9;
        const double perStepRank = double(big.memoryBytes()) / double(steps) / ranks;
        row("store: 1M steps x 8 ranks, memory",
            QStringLiteral("%1 MB, %2 B/step/rank")
                .arg(double(big.memoryBytes()) / 1e6, 0, 'f', 1)
                .arg(perStepRank, 0, 'f', 1),
            "<= 100 B");
        row("store: append 1M steps x 8 ranks", QStringLiteral("%1 ms").arg(fillSecs * 1e3, 0, 'f', 0), "");

        // 4. Decimation of a 1M-point series.
        for (int buckets : {1000, 4000}) {
            double bestD = 1e9;
            size_t n = 0;
            for (int i = 0; i < 5; ++i) {
                t.restart();
                auto out = big.decimate(SeriesId::of(Scalar::Loss), 1, steps, buckets);
                bestD = std::min(bestD, double(t.nsecsElapsed()) / 1e6);
                n = out.size();
            }
            row(qPrintable(QStringLiteral("decimate 1M-point loss series -> %1 buckets").arg(buckets)),
                QStringLiteral("%1 ms (%2 buckets)").arg(bestD, 0, 'f', 2).arg(n), "");
        }
        double bestD = 1e9;
        for (int i = 0; i < 5; ++i) {
            t.restart();
            auto out = big.decimate(SeriesId::of(RankMetric::Fwd, 0), 1, steps, 1000);
            bestD = std::min(bestD, double(t.nsecsElapsed()) / 1e6);
        }
        row("decimate 1M-point per-rank series -> 1000 buckets", QStringLiteral("%1 ms").arg(bestD, 0, 'f', 2), "");
    }
    std::printf("(checksum %g)\n", counting.checksum);
    return 0;
}
