// The desktop side of a 1,024-rank job, measured (issue "Scale 2"): prints one table of the targets.
// The job is generated (tests/tools/telemetry: N ranks on H hosts with the noise the real trainer shows),
// since no 1,024-rank cluster runs here; everything that reads it is the product's code.
//   ingest     traindeck-telemetry-gen writes a run in real time (--rate steps/s); a RunMonitor tails it
//              into its MetricStore and the live diagnosis runs on the cadence `follow` and the Monitor use;
//              this process's CPU time over the wall time (the generator is another process)
//   memory     --memory-steps steps (1 step/s for 24 h = 86,400) into a MetricStore: its bytes and the RSS
//   detection  --trials runs with one rank +10 % (random), and as many with one host's ranks +10 %; each is
//              analysed after --horizon steps as the live view does: named (with its host) or not
//   false      --balanced-steps job steps without a fault, in runs of --balanced-run steps: straggler
//              findings (warning or above)
//   live       one live analysis (LiveDiagnosis, as the Monitor and `follow` run it) after 1,200 steps
//   wire       bytes of one step line at that size, as the trainer writes it (its own writer) and as the
//              generator does; the bytes rank 0 gathers per step; rank 0's time to write the line
//   bench_scale [--ranks 1024] [--hosts 128] [--ingest-seconds 600] [--rate 2] [--memory-steps 86400]
//               [--trials 40] [--horizon 20] [--balanced-steps 10000] [--balanced-run 500] [--seed 1]
//               [--straggler-alpha p] [--straggler-min-effect x] [--skip ingest,memory,detection,false,wire,live]
#include "analysis/diagnosis.h"
#include "analysis/findinghistory.h"
#include "launch/runmonitor.h"
#include "launch/transport.h"
#include "metrics/metricstore.h"
#include "metrics/writer.h"
#include "scale_run.h"
#include "telemetry/metrics_writer.h"
#include "test_paths.h"

#include <sys/resource.h>

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTimer>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <random>
#include <vector>

using namespace traindeck;
using analysis::Diagnosis;
using analysis::Finding;
using analysis::FindingKind;
using analysis::Severity;
using metrics::MetricStore;
using metrics::RankMetric;
using testing::ScaleFault;
using testing::ScaleRun;

namespace {

double cpuSeconds()
{
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

double rssMb()
{
    QFile f(QStringLiteral("/proc/self/status"));
    if (!f.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray& line : f.readAll().split('\n'))
        if (line.startsWith("VmRSS:"))
            return line.mid(6).trimmed().split(' ').value(0).toDouble() / 1024.0;
    return -1;
}

double percentile(std::vector<double> v, double p)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    return v[size_t(std::min<double>(double(v.size() - 1), p * double(v.size() - 1) + 0.5))];
}

struct Row {
    QString what, target, measured;
};
std::vector<Row> table;
bool verbose = false;
double stragglerAlpha = analysis::DiagnosisOptions{}.stragglerAlpha;
double stragglerMinEffect = analysis::DiagnosisOptions{}.stragglerMinEffect;

void add(const QString& what, const QString& target, const QString& measured)
{
    table.push_back({what, target, measured});
    std::printf("  %s: %s\n", qPrintable(what), qPrintable(measured));
    std::fflush(stdout);
}

// ---- ingest -------------------------------------------------------------------------------------------
void ingest(int ranks, int hosts, double seconds, double rate, quint32 seed)
{
    QTemporaryDir dir;
    const QString metricsPath = dir.filePath(QStringLiteral("metrics.jsonl"));
    QProcess gen;
    gen.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    gen.start(QString::fromUtf8(TRAINDECK_TELEMETRY_GEN),
              {QStringLiteral("--out"), metricsPath, QStringLiteral("--ranks"), QString::number(ranks),
               QStringLiteral("--hosts"), QString::number(hosts), QStringLiteral("--rate"), QString::number(rate),
               QStringLiteral("--steps"), QString::number(qint64(seconds * rate)), QStringLiteral("--seed"),
               QString::number(seed)});
    if (!gen.waitForStarted()) {
        add(QStringLiteral("ingest"), {}, QStringLiteral("the generator did not start"));
        return;
    }
    launch::RunMonitor monitor(std::make_shared<launch::LocalTransport>(), dir.path());
    analysis::LiveDiagnosis live;
    analysis::DiagnosisCadence cadence;
    std::vector<double> analysisMs;
    qint64 findings = 0;
    QEventLoop loop;
    QTimer diagnose;
    diagnose.setInterval(250);
    QObject::connect(&diagnose, &QTimer::timeout, [&] {
        if (!cadence.due(monitor.store()))
            return;
        cadence.ran(monitor.store());
        QElapsedTimer t;
        t.start();
        findings += live.update(monitor.store()).size();
        cadence.took(t.elapsed());
        analysisMs.push_back(double(t.nsecsElapsed()) / 1e6);
    });
    QObject::connect(&gen, &QProcess::finished, &loop, [&] { QTimer::singleShot(1000, &loop, &QEventLoop::quit); });
    const double cpu0 = cpuSeconds();
    QElapsedTimer wall;
    wall.start();
    monitor.start();
    diagnose.start();
    loop.exec();
    const double cpu = cpuSeconds() - cpu0, elapsed = double(wall.nsecsElapsed()) / 1e9;
    monitor.stop();
    add(QStringLiteral("ingest (tail + parse + store + live diagnosis) at %1 steps/s").arg(rate),
        QStringLiteral("<= 10 % of one core, mean over 10 minutes"),
        QStringLiteral("%1 % of one core over %2 s (%3 steps; %4 analyses: median %5 ms, max %6 ms; "
                       "store %7 MiB)")
            .arg(100.0 * cpu / elapsed, 0, 'f', 1)
            .arg(elapsed, 0, 'f', 0)
            .arg(monitor.store().rowCount())
            .arg(analysisMs.size())
            .arg(percentile(analysisMs, 0.5), 0, 'f', 0)
            .arg(percentile(analysisMs, 1.0), 0, 'f', 0)
            .arg(double(monitor.store().memoryBytes()) / (1 << 20), 0, 'f', 0));
    (void)findings;
}

// ---- memory -------------------------------------------------------------------------------------------
void memory(int ranks, int hosts, qint64 steps, quint32 seed)
{
    ScaleRun run;
    run.ranks = ranks, run.hosts = hosts, run.seed = seed;
    const double rss0 = rssMb();
    MetricStore store;
    run.feed(store, steps);
    add(QStringLiteral("desktop memory, %1 steps at %2 ranks").arg(steps).arg(ranks),
        QStringLiteral("<= 1 GiB for 86,400 steps (24 h at 1 step/s)"),
        QStringLiteral("store %1 MiB in memory (%2 bytes per rank-step), %3 MiB spilled to disk%4; process RSS grew "
                       "%5 MiB")
            .arg(double(store.memoryBytes()) / (1 << 20), 0, 'f', 0)
            .arg(double(store.memoryBytes()) / double(steps) / ranks, 0, 'f', 1)
            .arg(double(store.spilledBytes()) / (1 << 20), 0, 'f', 0)
            .arg(store.spillError().isEmpty() ? QString()
                                              : QStringLiteral(" (") + store.spillError() + QLatin1Char(')'))
            .arg(rssMb() - rss0, 0, 'f', 0));
    // Every rank's own series at full resolution for the last 10,000 steps, and all of it readable.
    QElapsedTimer t;
    t.start();
    double sum = 0;
    for (qint64 row = 0; row < store.rowCount(); row += 97)
        sum += store.rankAt(RankMetric::Fwd, int(row % ranks), row);
    add(QStringLiteral("reading back the spilled history"), QStringLiteral("(every value stays readable)"),
        QStringLiteral("%1 values from across %2 steps in %3 ms (checksum %4)")
            .arg(store.rowCount() / 97 + 1)
            .arg(store.rowCount())
            .arg(double(t.nsecsElapsed()) / 1e6, 0, 'f', 1)
            .arg(sum, 0, 'g', 6));
}

// ---- detection ----------------------------------------------------------------------------------------
// The detector's options with the ones given on the command line: every step, as a finished run's report.
analysis::DiagnosisOptions detectorOptions()
{
    analysis::DiagnosisOptions o;
    o.stragglerAlpha = stragglerAlpha;
    o.stragglerMinEffect = stragglerMinEffect;
    return o;
}

// ... and the last steps only, as the live analysis.
analysis::DiagnosisOptions liveOptions()
{
    analysis::DiagnosisOptions o = detectorOptions();
    o.stragglerSteps = analysis::LiveDiagnosis::kStragglerSteps;
    return o;
}

std::unique_ptr<MetricStore> generate(ScaleRun run, qint64 steps)
{
    auto store = std::make_unique<MetricStore>();
    run.feed(*store, steps, 0.5);
    return store;
}

bool isStraggler(const Finding& f)
{
    return f.kind == FindingKind::Straggler && f.severity >= Severity::Warning &&
           f.state != analysis::FindingState::Tentative;
}

void detection(int ranks, int hosts, int trials, int horizon, quint32 seed)
{
    std::mt19937 rng(seed);
    int rankNamed = 0, hostNamed = 0, hostSplit = 0, wrong = 0;
    std::vector<double> rankSteps, hostSteps, ms;
    for (int i = 0; i < trials; ++i) {
        for (const bool host : {false, true}) {
            ScaleRun run;
            run.ranks = ranks, run.hosts = hosts, run.seed = rng();
            const int target = int(rng() % quint32(host ? hosts : ranks));
            run.faults.push_back({host ? ScaleFault::Kind::SlowHost : ScaleFault::Kind::SlowRank, target, 0.10, 1});
            const auto store = generate(run, horizon);
            QElapsedTimer t;
            t.start();
            const QList<Finding> findings = Diagnosis::analyze(*store, liveOptions());
            ms.push_back(double(t.nsecsElapsed()) / 1e6);
            bool named = false, split = false;
            const QString targetHost = ScaleRun::hostName(host ? target : run.hostOf(target));
            for (const Finding& f : findings) {
                if (!isStraggler(f))
                    continue;
                const bool onHost = !f.hosts.isEmpty() && f.hosts.first() == targetHost;
                if (host) {
                    // Named as the host: one finding covering that host's ranks, none for a rank alone.
                    const bool whole =
                        onHost && f.ranks.size() == run.ranksPerHost() && f.hosts.count(targetHost) == f.hosts.size();
                    named = named || whole;
                    split = split || (onHost && !whole);
                    if (whole)
                        hostSteps.push_back(double(f.raisedStep));
                } else if (f.ranks == QList<int>{target} && onHost) {
                    named = true;
                    rankSteps.push_back(double(f.raisedStep));
                }
                wrong += !onHost;
                if (!onHost && verbose) {
                    std::printf("    elsewhere (%s %d planted): %s\n", host ? "host" : "rank", target,
                                qPrintable(f.summary));
                }
            }
            (host ? hostNamed : rankNamed) += named && !split;
            hostSplit += host && split;
        }
    }
    add(QStringLiteral("a slow rank (+10 %) among %1").arg(ranks),
        QStringLiteral("named with its host within %1 steps in >= 95 %").arg(horizon),
        QStringLiteral("%1 of %2 (%3 %), median raised at step %4")
            .arg(rankNamed)
            .arg(trials)
            .arg(100.0 * rankNamed / std::max(1, trials), 0, 'f', 1)
            .arg(percentile(rankSteps, 0.5), 0, 'f', 0));
    add(QStringLiteral("a slow host (its %1 ranks +10 %) among %2").arg(ranks / hosts).arg(hosts),
        QStringLiteral("named as that host within %1 steps in >= 95 %").arg(horizon),
        QStringLiteral("%1 of %2 (%3 %), median raised at step %4; %5 split into ranks; %6 findings on other "
                       "hosts (both kinds); analysis %7 ms median")
            .arg(hostNamed)
            .arg(trials)
            .arg(100.0 * hostNamed / std::max(1, trials), 0, 'f', 1)
            .arg(percentile(hostSteps, 0.5), 0, 'f', 0)
            .arg(hostSplit)
            .arg(wrong)
            .arg(percentile(ms, 0.5), 0, 'f', 0));
}

void falseFindings(int ranks, int hosts, qint64 steps, qint64 perRun, quint32 seed)
{
    std::mt19937 rng(seed + 7);
    qint64 done = 0;
    int found = 0;
    while (done < steps) {
        ScaleRun run;
        run.ranks = ranks, run.hosts = hosts, run.seed = rng();
        const qint64 n = std::min(perRun, steps - done);
        const auto store = generate(run, n);
        for (const Finding& f : Diagnosis::analyze(*store, detectorOptions())) {
            found += isStraggler(f);
            if (isStraggler(f) && verbose) {
                std::printf("    false: %s\n     ", qPrintable(f.summary));
                for (const auto& [name, value] : f.evidence)
                    std::printf(" %s=%.3g", qPrintable(name), value);
                std::printf(" steps %lld-%lld\n", (long long)f.firstStep, (long long)f.lastStep);
            }
        }
        done += n;
    }
    add(QStringLiteral("false straggler findings on balanced runs, %1 ranks").arg(ranks),
        QStringLiteral("<= 1 per 10,000 job steps"),
        QStringLiteral("%1 in %2 job steps (%3 per 10,000)")
            .arg(found)
            .arg(done)
            .arg(1e4 * found / double(done), 0, 'f', 2));
}

// ---- one live analysis ---------------------------------------------------------------------------------
void liveAnalysis(int ranks, int hosts, qint64 steps, quint32 seed)
{
    ScaleRun run;
    run.ranks = ranks, run.hosts = hosts, run.seed = seed;
    const auto store = generate(run, steps);
    std::vector<double> ms;
    for (int i = 0; i < 5; ++i) {
        analysis::LiveDiagnosis live;
        QElapsedTimer t;
        t.start();
        live.update(*store);
        ms.push_back(double(t.nsecsElapsed()) / 1e6);
    }
    add(QStringLiteral("one live analysis after %1 steps").arg(steps), QStringLiteral("(what the ingest pays)"),
        QStringLiteral("median %1 ms of 5").arg(percentile(ms, 0.5), 0, 'f', 0));
}

// ---- wire ---------------------------------------------------------------------------------------------
void wire(int ranks, int hosts, quint32 seed)
{
    ScaleRun run;
    run.ranks = ranks, run.hosts = hosts, run.seed = seed;
    const metrics::StepRecord s = run.step(1, 1.8e9);
    const qint64 generated = metrics::toJsonLine(s).size();
    // The trainer's record: its own writer over doubles as its timers give them (nanoseconds / 1e6).
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> jitter(0.9, 1.1);
    nlohmann::ordered_json rec = {
        {"step", 1},         {"epoch", 0},           {"loss", 7.912345678901234}, {"lr", 2e-5},
        {"grad_norm", 0.93}, {"tokens", 8388608},    {"tokens_per_s", 1.7e7},     {"samples_per_s", 8300.5},
        {"mfu", 0.41},       {"loss_scale", nullptr}};
    const char* fields[] = {"data_ms", "fwd_ms", "bwd_ms", "comm_ms",    "comm_hidden_ms", "opt_ms",
                            "step_ms", "mem_mb", "util",   "comm_bytes", "samples"};
    const double base[] = {3, 120, 250, 60, 36, 30, 485, 61000, 95, 3554176000, 4};
    for (int f = 0; f < 11; ++f) {
        nlohmann::ordered_json a = nlohmann::ordered_json::array();
        for (int r = 0; r < ranks; ++r) {
            if (f >= 9)
                a.push_back(qint64(base[f]));
            else
                a.push_back(std::round(base[f] * jitter(rng) * 1e6) / 1e6 + (f >= 7 ? 1e-9 : 0));
        }
        rec[fields[f]] = a;
    }
    QElapsedTimer t;
    t.start();
    qint64 trainerBytes = 0;
    const int reps = 50;
    for (int i = 0; i < reps; ++i)
        trainerBytes = qint64(telemetry::MetricsWriter::line("step", rec).size());
    const double writeMs = double(t.nsecsElapsed()) / 1e6 / reps;
    const qint64 gathered = qint64(13) * 8 * ranks; // StepStats: 13 doubles per rank (trainer/train/step_report.h)
    add(QStringLiteral("the trainer's telemetry at %1 ranks").arg(ranks),
        QStringLiteral("bytes per step and the gather's cost on rank 0, stated; one line"),
        QStringLiteral("step line %1 KiB as the trainer writes it (%2 KiB as the generator writes float32); rank 0 "
                       "gathers %3 KiB per step (13 doubles per rank) and builds the line in %4 ms")
            .arg(double(trainerBytes) / 1024, 0, 'f', 0)
            .arg(double(generated) / 1024, 0, 'f', 0)
            .arg(double(gathered) / 1024, 0, 'f', 0)
            .arg(writeMs, 0, 'f', 1));
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser cli;
    cli.addHelpOption();
    const QList<QCommandLineOption> options{
        {QStringLiteral("ranks"), QStringLiteral("ranks"), QStringLiteral("n"), QStringLiteral("1024")},
        {QStringLiteral("hosts"), QStringLiteral("hosts"), QStringLiteral("n"), QStringLiteral("128")},
        {QStringLiteral("ingest-seconds"), QStringLiteral("ingest run length"), QStringLiteral("s"),
         QStringLiteral("600")},
        {QStringLiteral("rate"), QStringLiteral("steps per second while ingesting"), QStringLiteral("r"),
         QStringLiteral("2")},
        {QStringLiteral("memory-steps"), QStringLiteral("steps into the store"), QStringLiteral("n"),
         QStringLiteral("86400")},
        {QStringLiteral("trials"), QStringLiteral("trials per fault"), QStringLiteral("n"), QStringLiteral("40")},
        {QStringLiteral("horizon"), QStringLiteral("steps until the verdict"), QStringLiteral("n"),
         QStringLiteral("20")},
        {QStringLiteral("balanced-steps"), QStringLiteral("job steps without a fault"), QStringLiteral("n"),
         QStringLiteral("10000")},
        {QStringLiteral("balanced-run"), QStringLiteral("steps per balanced run"), QStringLiteral("n"),
         QStringLiteral("500")},
        {QStringLiteral("seed"), QStringLiteral("seed"), QStringLiteral("s"), QStringLiteral("1")},
        {QStringLiteral("straggler-alpha"), QStringLiteral("the detector's alpha (to try another)"),
         QStringLiteral("p")},
        {QStringLiteral("straggler-min-effect"),
         QStringLiteral("the detector's minimum effect, a share of the step (to try another)"), QStringLiteral("x")},
        {QStringLiteral("verbose"), QStringLiteral("print each false finding")},
        {QStringLiteral("skip"), QStringLiteral("parts to skip, comma-separated"), QStringLiteral("list")}};
    cli.addOptions(options);
    cli.process(app);
    verbose = cli.isSet(QStringLiteral("verbose"));
    if (cli.isSet(QStringLiteral("straggler-alpha")))
        stragglerAlpha = cli.value(QStringLiteral("straggler-alpha")).toDouble();
    if (cli.isSet(QStringLiteral("straggler-min-effect")))
        stragglerMinEffect = cli.value(QStringLiteral("straggler-min-effect")).toDouble();
    const int ranks = cli.value(QStringLiteral("ranks")).toInt(), hosts = cli.value(QStringLiteral("hosts")).toInt();
    const quint32 seed = cli.value(QStringLiteral("seed")).toUInt();
    const QStringList skip = cli.value(QStringLiteral("skip")).split(QLatin1Char(','), Qt::SkipEmptyParts);
    if (ranks < 2 || hosts < 1 || hosts > ranks) {
        std::fprintf(stderr, "bench_scale: --ranks must be >= 2 and --hosts from 1 to --ranks\n");
        return 2;
    }
    std::printf("bench_scale: %d ranks on %d hosts (generated: tests/tools/telemetry)\n", ranks, hosts);
    if (!skip.contains(QStringLiteral("wire")))
        wire(ranks, hosts, seed);
    if (!skip.contains(QStringLiteral("detection")))
        detection(ranks, hosts, cli.value(QStringLiteral("trials")).toInt(),
                  cli.value(QStringLiteral("horizon")).toInt(), seed);
    if (!skip.contains(QStringLiteral("false")))
        falseFindings(ranks, hosts, cli.value(QStringLiteral("balanced-steps")).toLongLong(),
                      cli.value(QStringLiteral("balanced-run")).toLongLong(), seed);
    if (!skip.contains(QStringLiteral("live")))
        liveAnalysis(ranks, hosts, 1200, seed);
    if (!skip.contains(QStringLiteral("memory")))
        memory(ranks, hosts, cli.value(QStringLiteral("memory-steps")).toLongLong(), seed);
    if (!skip.contains(QStringLiteral("ingest")))
        ingest(ranks, hosts, cli.value(QStringLiteral("ingest-seconds")).toDouble(),
               cli.value(QStringLiteral("rate")).toDouble(), seed);
    std::printf("\n| what | target | measured |\n|---|---|---|\n");
    for (const Row& r : table)
        std::printf("| %s | %s | %s |\n", qPrintable(r.what), qPrintable(r.target), qPrintable(r.measured));
    return 0;
}
