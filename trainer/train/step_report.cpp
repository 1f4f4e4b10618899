#include "train/run.h"

#include "dist/nccl_communicator.h"
#include "train/device.h"
#include "train/trainer.h"
#include "util/blas.h"
#include "util/fileio.h"
#include "util/gpu.h"

#include <cstdio>
#include <filesystem>
#include <optional>
#include <unistd.h>

namespace fs = std::filesystem;

namespace traindeck::train {

namespace {

// "cuda:0|NVIDIA H200" -> "cuda:0" or "NVIDIA H200" (the CPU has no separate name).
std::string deviceField(const std::string& label, bool name)
{
    const auto bar = label.find('|');
    if (bar == std::string::npos)
        return name ? std::string() : label;
    return name ? label.substr(bar + 1) : label.substr(0, bar);
}

std::string torchVersion()
{
    return std::to_string(TORCH_VERSION_MAJOR) + "." + std::to_string(TORCH_VERSION_MINOR) + "." +
           std::to_string(TORCH_VERSION_PATCH);
}

} // namespace

DeviceTelemetry describeDevice(const torch::Device& device, const std::string& precision)
{
    DeviceTelemetry d;
    if (!device.is_cuda()) {
        d.label = "cpu";
        d.memoryTotalMb = static_cast<double>(::sysconf(_SC_PHYS_PAGES)) *
                          static_cast<double>(::sysconf(_SC_PAGESIZE)) / (1024.0 * 1024.0);
        // bf16 autocast runs the matmuls in bf16 (oneDNN's AVX512-BF16 kernels are about 4x the fp32 rate
        // on CPUs that have them): the peak is measured in the dtype the matmuls run in.
        const bool bf16 = precision == "bf16";
        d.peakFlops = measureMatmulPeak(torch::kCPU, bf16 ? torch::kBFloat16 : torch::kFloat32);
        d.peakSource = bf16 ? "measured bf16 matmul" : "measured fp32 matmul";
        return d;
    }
    std::string name = "CUDA device";
    std::string error;
    for (const auto& gpu : util::cudaDevices(&error))
        if (gpu.index == device.index()) {
            name = gpu.name;
            d.pciBusId = gpu.pciBusId;
            d.memoryTotalMb = static_cast<double>(gpu.memoryTotalBytes) / (1024.0 * 1024.0);
        }
    d.label = device.str() + "|" + name;
    if (auto peak = util::gpuPeakFlops(name, precision); peak && *peak > 0) {
        d.peakFlops = *peak;
        d.peakSource = "datasheet " + name + " " + precision;
    } else {
        const auto dtype = precision == "bf16"   ? torch::kBFloat16
                           : precision == "fp16" ? torch::kHalf
                                                 : torch::kFloat32;
        d.peakFlops = measureMatmulPeak(device, dtype, 4096, 5);
        d.peakSource = "measured " + precision + " matmul (device not in the datasheet table)";
    }
    return d;
}

// NVML averages utilisation over 1/6 s to 1 s, so it is asked at most once a second (a sample lists the
// GPU's processes: several driver calls) and steps in between repeat it.
void sampleGpu(const DeviceTelemetry& d, double& utilPercent, double& memMb)
{
    if (d.pciBusId.empty())
        return;
    static std::optional<util::GpuSample> last;
    static Clock::time_point lastAt;
    if (!last || Clock::now() - lastAt >= std::chrono::seconds(1)) {
        last = util::Nvml::instance().sample(d.pciBusId, ::getpid());
        lastAt = Clock::now();
    }
    const auto& sample = last;
    if (!sample)
        return;
    if (sample->utilisationPercent >= 0)
        utilPercent = sample->utilisationPercent;
    if (sample->memoryUsedMiB >= 0)
        memMb = sample->memoryUsedMiB;
    else if (sample->deviceMemoryUsedMiB >= 0)
        memMb = sample->deviceMemoryUsedMiB;
}

namespace {

nlohmann::ordered_json helloRecord(const TrainingRun& run, const std::string& runId, const util::BlasInfo& blas,
                                   const std::vector<std::string>& hosts, const std::vector<std::string>& devices,
                                   const std::vector<RankInfo>& rankInfo)
{
    const auto& o = run.o;
    const auto& config = run.net->config();
    nlohmann::ordered_json ranks = nlohmann::ordered_json::array();
    for (int r = 0; r < run.world; ++r) {
        const auto& label = devices[static_cast<size_t>(r)];
        const RankInfo& info = rankInfo[static_cast<size_t>(r)];
        ranks.push_back({{"rank", r},
                         {"host", hosts[static_cast<size_t>(r)]},
                         {"device", deviceField(label, false)},
                         {"device_name", deviceField(label, true)},
                         {"local_rank", static_cast<int>(info.localRank)},
                         {"pid", static_cast<int64_t>(info.pid)},
                         {"mem_total_mb", info.memoryTotalMb},
                         {"optimizer_mb", info.optimizerMb}});
    }
    nlohmann::ordered_json hparams = o.toJson();
    hparams["world_size"] = run.world;
    hparams["comm"] = run.comm.acceptsDeviceTensors() ? "nccl" : "mpi"; // what --comm chose
    hparams["comm_wait"] = run.comm.waitPolicy();
    hparams["max_steps"] = run.maxSteps;
    hparams["batch_size"] = o.microBatch * o.gradAccum * run.world;
    hparams["threads"] = torch::get_num_threads();
    hparams["peak_flops_per_rank"] = run.deviceInfo.peakFlops;
    hparams["peak_flops_source"] = run.deviceInfo.peakSource;
    nlohmann::ordered_json hello = {
        {"run_id", runId},
        {"world_size", run.world},
        {"ranks", ranks},
        {"versions",
         {{"trainer", TRAINDECK_VERSION},
          {"libtorch", torchVersion()},
          {"mpi", run.comm.libraryVersion()},
          {"nccl", run.comm.acceptsDeviceTensors() ? nlohmann::ordered_json(dist::ncclLibraryVersion())
                                                   : nlohmann::ordered_json()},
          {"blas_core", blas.coreName.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(blas.coreName)}}},
        {"model", {{"config", config.toJson()}, {"parameters", config.parameterCount()}}},
        {"hparams", hparams}};
    if (!run.resume.dir.empty())
        hello["resumed_from"] = {{"step", run.step}, {"path", run.resume.dir}};
    return hello;
}

} // namespace

// Rank 0's metrics writer, every rank's host and device, and the hello record.
void writeHello(TrainingRun& run)
{
    const auto& o = run.o;
    auto& comm = run.comm;
    const std::string runId = o.runId.empty() ? fs::absolute(o.out).filename().string() : o.runId;
    if (run.lead) {
        util::makeDirs(o.out);
        run.metrics = std::make_unique<telemetry::MetricsWriter>(o.metricsOut, o.metricsStdout);
    }
    const auto hosts = comm.allgatherStrings(comm.host());
    run.deviceInfo = describeDevice(run.device, o.precision);
    const auto devices = comm.allgatherStrings(run.deviceInfo.label);
    RankInfo local;
    local.localRank = static_cast<double>(comm.localRank());
    local.pid = static_cast<double>(::getpid());
    local.memoryTotalMb = run.deviceInfo.memoryTotalMb;
    local.peakFlops = run.deviceInfo.peakFlops;
    for (const auto& ap : run.optimizer->params())
        local.optimizerMb += static_cast<double>((ap.expAvg.numel() + ap.expAvgSq.numel()) * ap.expAvg.element_size()) /
                             (1024.0 * 1024.0);
    const auto rankInfo = RankInfo::gatherAtRankZero(comm, local);
    for (const RankInfo& info : rankInfo)
        run.peakFlopsAllRanks += info.peakFlops;
    const auto& config = run.net->config();
    run.tokenFlops = flopsPerToken(config.parameterCount(), config.num_hidden_layers, config.hidden_size, o.seqLen);
    const auto blas = util::blasInfo();
    if (!run.lead)
        return;
    run.metrics->write("hello", helloRecord(run, runId, blas, hosts, devices, rankInfo));
    std::fprintf(stderr, "training %s (%lld parameters) on %d rank(s) x %d thread(s), %s, BLAS core %s, %lld steps\n",
                 o.modelDir.empty() ? o.preset.c_str() : o.modelDir.c_str(),
                 static_cast<long long>(config.parameterCount()), run.world, torch::get_num_threads(),
                 run.deviceInfo.label.c_str(), blas.coreName.empty() ? "unknown" : blas.coreName.c_str(),
                 static_cast<long long>(run.maxSteps));
}

namespace {

// The step record's per-rank arrays: one for each StepStats field that is not combined over the ranks.
void addPerRankColumns(nlohmann::ordered_json& rec, const std::vector<StepStats>& ranks)
{
    for (const auto& field : StepStats::fields) {
        if (field.shown == StepStats::Combined)
            continue;
        nlohmann::ordered_json column = nlohmann::ordered_json::array();
        for (const StepStats& r : ranks) {
            const double value = r.*field.member;
            if (field.shown == StepStats::PerRankInteger)
                column.push_back(static_cast<int64_t>(value));
            else
                column.push_back(value);
        }
        rec[field.name] = column;
    }
}

} // namespace

// Gathers every rank's figures; rank 0 writes the step record and, every --log-every steps, a line on
// stderr. Throughput and MFU use rank 0's step time.
std::vector<StepStats> reportStep(TrainingRun& run, const StepResult& result)
{
    const auto& o = run.o;
    run.hooks.mark(run.step, dist::Phase::Report);
    const auto ranks = StepStats::gatherAtRankZero(run.comm, result.stats);
    if (!run.lead)
        return ranks;
    double loss = 0, totalTokens = 0, totalSamples = 0;
    for (const StepStats& r : ranks) {
        // Balanced: the mean over all samples (each rank's mean weighted by its share).
        loss += !run.balancer.active() ? r.loss : r.loss * r.samples;
        totalTokens += r.tokens;
        totalSamples += r.samples;
    }
    loss /= !run.balancer.active() ? run.world : totalSamples;
    const double stepMs = result.stats.stepMs;
    const double tokensPerS = totalTokens / (stepMs / 1000.0);
    const double samplesPerS = static_cast<double>(o.microBatch * o.gradAccum * run.world) / (stepMs / 1000.0);
    const double mfu = run.peakFlopsAllRanks > 0 ? tokensPerS * run.tokenFlops / run.peakFlopsAllRanks : 0;
    nlohmann::ordered_json rec = {
        {"step", run.step},
        {"epoch", run.epoch},
        {"loss", telemetry::MetricsWriter::number(loss)},
        {"lr", result.lr},
        {"grad_norm", telemetry::MetricsWriter::number(result.gradNorm)},
        {"tokens", static_cast<int64_t>(totalTokens)},
        {"tokens_per_s", tokensPerS},
        {"samples_per_s", samplesPerS},
        {"mfu", run.peakFlopsAllRanks > 0 ? nlohmann::ordered_json(mfu) : nlohmann::ordered_json()},
        {"loss_scale", run.scaler.enabled() ? nlohmann::ordered_json(result.lossScale) : nlohmann::ordered_json()}};
    addPerRankColumns(rec, ranks);
    run.metrics->write("step", rec);
    if (run.step % o.logEvery == 0 || run.step == run.maxSteps)
        std::fprintf(stderr,
                     "step %lld/%lld  loss %.4f  lr %.2e  grad-norm %.3f  %.0f tok/s  %.0f ms/step  mfu %.1f%%\n",
                     static_cast<long long>(run.step), static_cast<long long>(run.maxSteps), loss, result.lr,
                     result.gradNorm, tokensPerS, stepMs, 100 * mfu);
    return ranks;
}

} // namespace traindeck::train
