// A generated data-parallel job of N ranks on H hosts that speaks the trainer's protocol
// (docs/reference/metrics-protocol.md): the telemetry source for the 1,024-rank benchmarks and tests,
// where no cluster that size can run here. Each step every rank loads data and computes, then all meet
// in the allreduce, which ends for everybody when the last one arrived and the transfer is done.
//
// Noise (the defaults) is the noise the real trainer shows on this project's machine, as
// tests/bench/analysis/bench_diagnosis measures it (docs/measurements/bench_diagnosis.md): per-step
// jitter, a short per-rank drift (lag-1 autocorrelation near 0.2), a factor common to all ranks, and
// 1.5-3x spikes on 2 % of rank-steps. Faults can be planted: a slow rank, a slow host (all its ranks), a
// slow link (one host's transfer slower, which holds up every rank's allreduce, as a ring does), a data
// stall, and a stalled rank (it stops; the trainer's stall inspector reports it, then the run fails).
#pragma once

#include "metrics/records.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QString>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace traindeck::testing {

struct ScaleFault {
    enum class Kind { SlowRank, SlowHost, SlowLink, DataStall, StalledRank };
    Kind kind = Kind::SlowRank;
    int target = 0;      // the rank (slow/stalled rank) or host index (slow host/link); data stall: every N steps
    double amount = 0.1; // the slowdown (0.1 = +10 %), or the data stall's milliseconds
    qint64 fromStep = 1; // from this step on (stalled rank: the step it never finishes)
    bool active(qint64 step) const { return step >= fromStep; }
};

struct ScaleRun {
    int ranks = 1024;
    int hosts = 128;
    quint32 seed = 1;
    // Phase times of a balanced rank (ms): a 1.5B-parameter model's step on one GPU, roughly.
    double fwd = 120, bwd = 250, opt = 30, data = 3, transfer = 60;
    // The calibrated noise (see above).
    double noise = 0.02, logSigma = 0.035, driftSigma = 0.025, driftRho = 0.6, commonSigma = 0.05;
    double spikeProb = 0.02, spikeMin = 1.5, spikeMax = 3.0;
    std::vector<ScaleFault> faults;

    int ranksPerHost() const { return std::max(1, (ranks + hosts - 1) / hosts); }
    // Ranks are placed on hosts in blocks, as mpirun --map-by slot does with a hostfile of equal slots.
    int hostOf(int rank) const { return std::min(hosts - 1, rank / ranksPerHost()); }
    static QString hostName(int host) { return QStringLiteral("node%1").arg(host + 1, 3, 10, QLatin1Char('0')); }

    // The stalled rank's fault, or nullptr.
    const ScaleFault* stall() const
    {
        for (const auto& f : faults)
            if (f.kind == ScaleFault::Kind::StalledRank)
                return &f;
        return nullptr;
    }

    // The hello record, with the fields and hyper-parameters traindeck-trainer writes.
    QJsonObject hello(double t, qint64 maxSteps) const
    {
        QJsonArray rankList;
        for (int r = 0; r < ranks; ++r) {
            const int local = r - hostOf(r) * ranksPerHost();
            rankList.append(QJsonObject{{QStringLiteral("rank"), r},
                                        {QStringLiteral("host"), hostName(hostOf(r))},
                                        {QStringLiteral("device"), QStringLiteral("cuda:%1").arg(local)},
                                        {QStringLiteral("device_name"), QStringLiteral("NVIDIA H100 80GB HBM3")},
                                        {QStringLiteral("local_rank"), local},
                                        {QStringLiteral("pid"), 100000 + r},
                                        {QStringLiteral("mem_total_mb"), 81559.0},
                                        {QStringLiteral("optimizer_mb"), 13557.5}});
        }
        const QJsonObject config{{QStringLiteral("architectures"), QJsonArray{QStringLiteral("Qwen2ForCausalLM")}},
                                 {QStringLiteral("hidden_size"), 1536},
                                 {QStringLiteral("intermediate_size"), 8960},
                                 {QStringLiteral("model_type"), QStringLiteral("qwen2")},
                                 {QStringLiteral("num_attention_heads"), 12},
                                 {QStringLiteral("num_hidden_layers"), 28},
                                 {QStringLiteral("num_key_value_heads"), 2},
                                 {QStringLiteral("vocab_size"), 151936}};
        const QJsonObject hparams{{QStringLiteral("balance"), QStringLiteral("off")},
                                  {QStringLiteral("batch_mode"), QStringLiteral("pack")},
                                  {QStringLiteral("bucket_mb"), 25.0},
                                  {QStringLiteral("clip"), 1.0},
                                  {QStringLiteral("comm"), QStringLiteral("nccl")},
                                  {QStringLiteral("compression"), QStringLiteral("none")},
                                  {QStringLiteral("data"), QStringLiteral("generated")},
                                  {QStringLiteral("device"), QStringLiteral("cuda")},
                                  {QStringLiteral("epochs"), 0},
                                  {QStringLiteral("fused_loss"), QStringLiteral("on")},
                                  {QStringLiteral("grad_accum"), 1},
                                  {QStringLiteral("loss_chunk"), 0},
                                  {QStringLiteral("recompute"), QStringLiteral("off")},
                                  {QStringLiteral("lr"), 2e-5},
                                  {QStringLiteral("max_steps"), maxSteps},
                                  {QStringLiteral("micro_batch"), 4},
                                  {QStringLiteral("min_lr"), 2e-6},
                                  {QStringLiteral("model"), QStringLiteral("")},
                                  {QStringLiteral("overlap"), QStringLiteral("on")},
                                  {QStringLiteral("precision"), QStringLiteral("bf16")},
                                  {QStringLiteral("preset"), QStringLiteral("")},
                                  {QStringLiteral("scale_lr"), false},
                                  {QStringLiteral("seed"), int(seed)},
                                  {QStringLiteral("seq_len"), 2048},
                                  {QStringLiteral("text_field"), QStringLiteral("text")},
                                  {QStringLiteral("tokenizer"), QStringLiteral("")},
                                  {QStringLiteral("warmup"), 100},
                                  {QStringLiteral("weight_decay"), 0.1},
                                  {QStringLiteral("zero"), 0},
                                  {QStringLiteral("world_size"), ranks},
                                  {QStringLiteral("comm_wait"), QStringLiteral("none")},
                                  {QStringLiteral("batch_size"), 4 * ranks},
                                  {QStringLiteral("threads"), 1},
                                  {QStringLiteral("peak_flops_per_rank"), 989e12},
                                  {QStringLiteral("peak_flops_source"), QStringLiteral("datasheet bf16 dense")}};
        return QJsonObject{
            {QStringLiteral("v"), metrics::kSchemaVersion},
            {QStringLiteral("type"), QStringLiteral("hello")},
            {QStringLiteral("t"), t},
            {QStringLiteral("run_id"), QStringLiteral("generated")},
            {QStringLiteral("world_size"), ranks},
            {QStringLiteral("ranks"), rankList},
            {QStringLiteral("versions"), QJsonObject{{QStringLiteral("trainer"), QStringLiteral("0.1.0")},
                                                     {QStringLiteral("libtorch"), QStringLiteral("2.5.1")},
                                                     {QStringLiteral("mpi"), QStringLiteral("Open MPI v4.1.4")},
                                                     {QStringLiteral("nccl"), QStringLiteral("2.21.5")},
                                                     {QStringLiteral("blas_core"), QJsonValue::Null}}},
            {QStringLiteral("model"),
             QJsonObject{{QStringLiteral("config"), config}, {QStringLiteral("parameters"), 1777088000.0}}},
            {QStringLiteral("hparams"), hparams}};
    }

    // Step n (1-based) at time t; the loss falls smoothly with 1 % noise.
    metrics::StepRecord step(qint64 n, double t)
    {
        using metrics::RankMetric;
        using metrics::StepRecord;
        if (drift.size() != size_t(ranks)) {
            rng.seed(seed);
            drift.assign(size_t(ranks), 0.0);
        }
        StepRecord s;
        s.step = n;
        s.t = t;
        s.loss = (2.0 + 6.0 * std::exp(-double(n) / 2000.0)) * (1.0 + 0.01 * (2 * u(rng) - 1));
        s.lr = 2e-5;
        s.gradNorm = 0.8 + 0.2 * u(rng);
        s.tokens = qint64(4) * 2048 * ranks;
        s.mfu = 0.4;
        s.present = StepRecord::HasGradNorm | StepRecord::HasMfu | StepRecord::HasMem | StepRecord::HasUtil |
                    StepRecord::HasCommBytes | StepRecord::HasSamples | StepRecord::HasCommHidden;
        for (auto& v : s.perRank)
            v.assign(size_t(ranks), 0.f);
        double slowLink = 0;
        std::vector<double> computeFactor(size_t(ranks), 1.0), extraData(size_t(ranks), 0.0);
        for (const auto& f : faults) {
            if (!f.active(n))
                continue;
            switch (f.kind) {
            case ScaleFault::Kind::SlowRank: computeFactor[size_t(f.target)] *= 1 + f.amount; break;
            case ScaleFault::Kind::SlowHost:
                for (int r = 0; r < ranks; ++r)
                    if (hostOf(r) == f.target)
                        computeFactor[size_t(r)] *= 1 + f.amount;
                break;
            case ScaleFault::Kind::SlowLink: slowLink = std::max(slowLink, f.amount); break;
            case ScaleFault::Kind::DataStall:
                if (f.target > 0 && (n - f.fromStep) % f.target == 0)
                    for (auto& d : extraData)
                        d += f.amount;
                break;
            case ScaleFault::Kind::StalledRank: break;
            }
        }
        const double common = lognormal(commonSigma);
        std::vector<double> arrive(static_cast<size_t>(ranks));
        for (int r = 0; r < ranks; ++r) {
            double own = lognormal(logSigma);
            double& x = drift[size_t(r)];
            x = driftRho * x + driftSigma * gauss(rng);
            own *= std::exp(x) * computeFactor[size_t(r)];
            double f = fwd * jitter() * common * own, b = bwd * jitter() * common * own, o = opt * jitter() * own;
            if (u(rng) < spikeProb) {
                const double k = spikeMin + (spikeMax - spikeMin) * u(rng);
                f *= k, b *= k, o *= k;
            }
            const double d = data * jitter() + extraData[size_t(r)];
            s.perRank[size_t(RankMetric::Data)][size_t(r)] = float(d);
            s.perRank[size_t(RankMetric::Fwd)][size_t(r)] = float(f);
            s.perRank[size_t(RankMetric::Bwd)][size_t(r)] = float(b);
            s.perRank[size_t(RankMetric::Opt)][size_t(r)] = float(o);
            s.perRank[size_t(RankMetric::Mem)][size_t(r)] = float(61000.0 + 50 * u(rng));
            s.perRank[size_t(RankMetric::Util)][size_t(r)] = float(std::min(100.0, 95.0 * (1 + 0.02 * gauss(rng))));
            s.perRank[size_t(RankMetric::CommBytes)][size_t(r)] = 3554176000.f;
            s.perRank[size_t(RankMetric::Samples)][size_t(r)] = 4.f;
            s.perRank[size_t(RankMetric::CommHidden)][size_t(r)] = float(0.6 * transfer * jitter());
            arrive[size_t(r)] = d + f + b;
        }
        // The ring's transfer runs at its slowest link: one slow host holds up everybody's allreduce.
        const double xfer = transfer * jitter() * (1 + slowLink);
        const double last = *std::max_element(arrive.begin(), arrive.end());
        for (int r = 0; r < ranks; ++r) {
            const double comm = xfer + (last - arrive[size_t(r)]);
            s.perRank[size_t(RankMetric::Comm)][size_t(r)] = float(comm);
            s.perRank[size_t(RankMetric::Step)][size_t(r)] =
                float(last + xfer + double(s.perRank[size_t(RankMetric::Opt)][size_t(r)]) + 0.5);
        }
        const double stepMs = double(s.perRank[size_t(RankMetric::Step)][0]);
        s.tokensPerS = double(s.tokens) / (stepMs / 1000.0);
        s.samplesPerS = 4.0 * ranks / (stepMs / 1000.0);
        return s;
    }

    // The hello a store needs (ranks and hosts), and `steps` steps fed to a sink such as a MetricStore, a step
    // every `period` seconds.
    metrics::HelloRecord helloRecord() const
    {
        metrics::HelloRecord h;
        h.runId = QStringLiteral("generated");
        h.worldSize = ranks;
        for (int r = 0; r < ranks; ++r) {
            metrics::RankInfo info;
            info.rank = r;
            info.host = hostName(hostOf(r));
            info.device = QStringLiteral("cuda:%1").arg(r - hostOf(r) * ranksPerHost());
            h.ranks.append(info);
        }
        return h;
    }
    void feed(metrics::MetricsSink& sink, qint64 steps, double period = 1.0)
    {
        sink.onHello(helloRecord());
        for (qint64 n = 1; n <= steps; ++n)
            sink.onStep(step(n, 1.8e9 + double(n) * period));
    }

    // The stall inspector's warning for a rank that never reached step n's allreduce, `waited` seconds on.
    metrics::WarningRecord stallWarning(const ScaleFault& f, double t, double waited) const
    {
        metrics::WarningRecord w;
        w.t = t;
        w.rank = f.target;
        w.host = hostName(hostOf(f.target));
        w.code = QStringLiteral("stall");
        w.message = QStringLiteral("stall: rank %1 (%2) has not reached the gradient allreduce of step %3; %4 "
                                   "ranks wait for it")
                        .arg(f.target)
                        .arg(w.host)
                        .arg(f.fromStep)
                        .arg(ranks - 1);
        QJsonArray waiting;
        for (int r = 0; r < ranks; ++r)
            if (r != f.target)
                waiting.append(r);
        w.stall = QJsonObject{
            {QStringLiteral("case"), QStringLiteral("before_collective")},
            {QStringLiteral("step"), f.fromStep},
            {QStringLiteral("phase"), QStringLiteral("allreduce")},
            {QStringLiteral("waited_s"), waited},
            {QStringLiteral("ranks"), QJsonArray{QJsonObject{{QStringLiteral("rank"), f.target},
                                                             {QStringLiteral("host"), w.host},
                                                             {QStringLiteral("step"), f.fromStep},
                                                             {QStringLiteral("phase"), QStringLiteral("forward")},
                                                             {QStringLiteral("in_phase_s"), waited},
                                                             {QStringLiteral("silent_s"), 0.5}}}},
            {QStringLiteral("waiting"), waiting}};
        return w;
    }

    std::mt19937 rng{1};
    std::uniform_real_distribution<double> u{0.0, 1.0};
    std::normal_distribution<double> gauss{0.0, 1.0};
    std::vector<double> drift;

  private:
    double jitter() { return 1.0 + noise * (2 * u(rng) - 1); }
    double lognormal(double sigma) { return sigma > 0 ? std::exp(sigma * gauss(rng) - sigma * sigma / 2) : 1.0; }
};

} // namespace traindeck::testing
