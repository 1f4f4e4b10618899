#include "train/trainer.h"

#include "data/dataset.h"
#include "model/hf_checkpoint.h"
#include "telemetry/metrics_writer.h"
#include "tokenizer/tokenizer.h"
#include "train/adamw.h"
#include "train/checkpoint.h"
#include "train/device.h"
#include "train/loss_scaler.h"
#include "util/blas.h"
#include "util/errors.h"
#include "util/fileio.h"
#include "util/gpu.h"

#include <chrono>
#include <cstring>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <thread>
#include <unistd.h>

namespace fs = std::filesystem;

namespace traindeck::train {

namespace {

using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

double learningRate(const TrainOptions& o, double peak, double minLr, int64_t step /*1-based*/, int64_t maxSteps)
{
    if (o.warmup > 0 && step <= o.warmup)
        return peak * static_cast<double>(step) / static_cast<double>(o.warmup);
    const double span = static_cast<double>(std::max<int64_t>(1, maxSteps - o.warmup));
    const double progress = std::min(1.0, static_cast<double>(step - o.warmup) / span);
    return minLr + 0.5 * (peak - minLr) * (1.0 + std::cos(M_PI * progress));
}

// Gradients travel in fused buckets of about --bucket-mb, filled in reverse parameter order (the order
// in which backward produces them). Every parameter's .grad is a view into its bucket, so backward
// accumulates straight into the buffer the allreduce sends: no copies in or out (PyTorch DDP's
// gradient_as_bucket_view). On CUDA the MPI backend needs host memory: `host` is a pinned staging copy.
struct Bucket {
    std::vector<torch::Tensor> params;
    std::vector<torch::Tensor> views;  // views[i]: params[i]'s gradient inside `flat`
    torch::Tensor flat;
    torch::Tensor host;
};

std::vector<Bucket> makeBuckets(const std::vector<torch::Tensor>& params, double bucketMb, const torch::Device& device)
{
    const int64_t limit = std::max<int64_t>(1, static_cast<int64_t>(bucketMb * 1024 * 1024 / sizeof(float)));
    std::vector<Bucket> buckets;
    std::vector<std::vector<torch::Tensor>> groups(1);
    int64_t elements = 0;
    for (auto it = params.rbegin(); it != params.rend(); ++it) {
        if (elements > 0 && elements + it->numel() > limit) {
            groups.emplace_back();
            elements = 0;
        }
        groups.back().push_back(*it);
        elements += it->numel();
    }
    for (auto& group : groups) {
        if (group.empty())
            continue;
        Bucket b;
        int64_t n = 0;
        for (const auto& p : group)
            n += p.numel();
        b.flat = torch::zeros({n}, torch::TensorOptions().dtype(torch::kFloat32).device(device));
        if (device.is_cuda())
            b.host = torch::empty({n}, torch::TensorOptions().dtype(torch::kFloat32).pinned_memory(true));
        int64_t offset = 0;
        for (auto& p : group) {
            auto view = b.flat.narrow(0, offset, p.numel()).view_as(p);
            p.mutable_grad() = view;
            b.views.push_back(view);
            offset += p.numel();
        }
        b.params = std::move(group);
        buckets.push_back(std::move(b));
    }
    return buckets;
}

// Backward adds into existing gradients in place; should anything have replaced a .grad tensor, its
// values go back into the bucket and the view is restored (cheap: a pointer comparison per parameter).
void reattachGradientViews(std::vector<Bucket>& buckets)
{
    torch::NoGradGuard noGrad;
    for (auto& b : buckets)
        for (size_t i = 0; i < b.params.size(); ++i) {
            auto& g = b.params[i].mutable_grad();
            if (g.defined() && g.data_ptr() == b.views[i].data_ptr())
                continue;
            if (g.defined())
                b.views[i].copy_(g);
            else
                b.views[i].zero_();
            g = b.views[i];
        }
}

// Rank 0's values of a tensor on every rank; device tensors go through host memory for MPI.
void broadcastFromRankZero(dist::Communicator& comm, torch::Tensor tensor)
{
    if (comm.size() == 1)
        return;
    if (tensor.device().is_cpu() && tensor.is_contiguous()) {
        comm.broadcast(tensor, 0);
        return;
    }
    auto host = tensor.to(torch::kCPU).contiguous();
    comm.broadcast(host, 0);
    tensor.copy_(host);
}

// Rank 0's string on every rank (its length first, then its bytes).
std::string broadcastString(dist::Communicator& comm, const std::string& value)
{
    if (comm.size() == 1)
        return value;
    auto length = torch::tensor({static_cast<int64_t>(value.size())}, torch::kInt64);
    comm.broadcast(length, 0);
    auto bytes = torch::zeros({std::max<int64_t>(1, length.item<int64_t>())}, torch::kUInt8);
    if (comm.rank() == 0 && !value.empty())
        std::memcpy(bytes.data_ptr(), value.data(), value.size());
    comm.broadcast(bytes, 0);
    return std::string(static_cast<const char*>(bytes.data_ptr()), static_cast<size_t>(length.item<int64_t>()));
}

void injectSleep(const TrainOptions& o, int rank, const char* phase)
{
    if (o.injectDelay && o.injectDelay->rank == rank && o.injectDelay->phase == phase)
        std::this_thread::sleep_for(std::chrono::microseconds(static_cast<int64_t>(o.injectDelay->ms * 1000)));
}

// What the telemetry says about a rank's device.
struct DeviceTelemetry {
    std::string label;  // "cpu" or "cuda:0|NVIDIA H200" (the name after '|')
    std::string pciBusId;
    double memoryTotalMb = 0;
    double peakFlops = 0;
    std::string peakSource;  // "measured fp32 matmul", "datasheet NVIDIA H200 bf16", ...
};

DeviceTelemetry describeDevice(const torch::Device& device, const std::string& precision)
{
    DeviceTelemetry d;
    if (!device.is_cuda()) {
        d.label = "cpu";
        d.memoryTotalMb = static_cast<double>(::sysconf(_SC_PHYS_PAGES)) * static_cast<double>(::sysconf(_SC_PAGESIZE)) /
                          (1024.0 * 1024.0);
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
        const auto dtype = precision == "bf16" ? torch::kBFloat16 : precision == "fp16" ? torch::kHalf : torch::kFloat32;
        d.peakFlops = measureMatmulPeak(device, dtype, 4096, 5);
        d.peakSource = "measured " + precision + " matmul (device not in the datasheet table)";
    }
    return d;
}

// "cuda:0|NVIDIA H200" -> "cuda:0" or "NVIDIA H200" (the CPU has no separate name).
std::string deviceField(const std::string& label, bool name)
{
    const auto bar = label.find('|');
    if (bar == std::string::npos)
        return name ? std::string() : label;
    return name ? label.substr(bar + 1) : label.substr(0, bar);
}

// GPU utilisation (NVML: share of time a kernel ran) and this process's GPU memory, where NVML answers;
// the CPU figures stay otherwise. NVML averages utilisation over 1/6 s to 1 s, so it is asked at most
// once a second (a sample lists the GPU's processes: several driver calls) and steps in between repeat it.
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

std::string torchVersion()
{
    return std::to_string(TORCH_VERSION_MAJOR) + "." + std::to_string(TORCH_VERSION_MINOR) + "." +
           std::to_string(TORCH_VERSION_PATCH);
}

}  // namespace

// The default CPU generator's state, for checkpoints (training itself draws no random numbers today,
// but dropout or sampling added later must resume exactly too).
std::string rngStateHex()
{
    auto state = at::detail::getDefaultCPUGenerator().get_state();
    static const char* digits = "0123456789abcdef";
    std::string hex;
    const auto* p = state.data_ptr<uint8_t>();
    for (int64_t i = 0; i < state.numel(); ++i) {
        hex += digits[p[i] >> 4];
        hex += digits[p[i] & 15];
    }
    return hex;
}

void restoreRngState(const std::string& hex)
{
    if (hex.empty() || hex.size() % 2)
        return;
    auto state = torch::empty({static_cast<int64_t>(hex.size() / 2)}, torch::kUInt8);
    auto* p = state.data_ptr<uint8_t>();
    auto nibble = [](char c) { return static_cast<uint8_t>(c <= '9' ? c - '0' : c - 'a' + 10); };
    for (size_t i = 0; i < hex.size() / 2; ++i)
        p[i] = static_cast<uint8_t>(nibble(hex[2 * i]) << 4 | nibble(hex[2 * i + 1]));
    auto generator = at::detail::getDefaultCPUGenerator();
    generator.set_state(state);
}

double measureMatmulPeak(int size, int repeats)
{
    return measureMatmulPeak(torch::kCPU, torch::kFloat32, size, repeats);
}

double flopsPerToken(int64_t parameters, int64_t layers, int64_t hidden, int64_t seqLen)
{
    return 6.0 * static_cast<double>(parameters) + 12.0 * layers * hidden * static_cast<double>(seqLen);
}

static int trainLoop(const TrainOptions& o, dist::Communicator& comm,
                     std::unique_ptr<telemetry::MetricsWriter>& metrics, int64_t& stepOut);

int runTraining(const TrainOptions& o, dist::Communicator& comm)
{
    std::unique_ptr<telemetry::MetricsWriter> metrics;
    int64_t step = 0;
    const auto started = std::chrono::steady_clock::now();
    try {
        return trainLoop(o, comm, metrics, step);
    } catch (const std::exception& e) {
        if (metrics) {
            const bool input = dynamic_cast<const InputError*>(&e) != nullptr;
            metrics->write("error", {{"rank", comm.rank()}, {"host", comm.host()}, {"message", e.what()},
                                     {"exit_code", input ? 2 : 1}});
            metrics->write("done", {{"status", "failed"}, {"steps", step},
                                    {"seconds", std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count()}});
        }
        throw;
    }
}

static int trainLoop(const TrainOptions& o, dist::Communicator& comm,
                     std::unique_ptr<telemetry::MetricsWriter>& metrics, int64_t& stepOut)
{
    const auto started = Clock::now();
    const int rank = comm.rank(), world = comm.size();
    const bool lead = rank == 0;
    if (o.threads > 0)
        torch::set_num_threads(o.threads);
    const torch::Device device = resolveDevice(o.device, comm.localRank());
    const bool onCuda = device.is_cuda();
    // The rank's GPU is the current device for the whole run, so nothing creates a context on GPU 0 from
    // every rank of a node.
    c10::OptionalDeviceGuard deviceGuard;
    if (onCuda)
        deviceGuard.reset_device(device);
    if (o.precision == "fp16" && !onCuda)
        throw InputError("--precision fp16 needs a CUDA device (fp16 with dynamic loss scaling); on the CPU use fp32 "
                         "or bf16");

    // Tokenizer: given, else the model directory's, else bytes.
    std::string tokenizerPath = o.tokenizer;
    if (tokenizerPath.empty() && !o.modelDir.empty() && fs::exists(fs::path(o.modelDir) / "tokenizer.json"))
        tokenizerPath = (fs::path(o.modelDir) / "tokenizer.json").string();
    std::unique_ptr<tok::Tokenizer> tokenizer;
    std::vector<std::string> tokenizerFiles;
    if (!tokenizerPath.empty()) {
        if (!fs::exists(tokenizerPath))
            throw InputError(tokenizerPath + ": tokenizer file does not exist");
        try {
            tokenizer = tok::Tokenizer::fromFile(tokenizerPath);
        } catch (const tok::TokenizerError& e) {
            throw InputError(e.what());
        }
        tokenizerFiles.push_back(tokenizerPath);
        const auto cfg = fs::path(tokenizerPath).parent_path() / "tokenizer_config.json";
        if (fs::exists(cfg))
            tokenizerFiles.push_back(cfg.string());
    }

    // Resume state. Only rank 0 reads the checkpoint (it wrote it, into the head's out directory, which
    // need not exist on the other nodes): the others get its trainer state and model config here, and
    // its parameters and optimizer state from the start-up broadcast below. Every rank takes part in
    // the broadcast, also when rank 0 could not read the checkpoint, so that none waits forever.
    std::string resumeDir;
    nlohmann::json resumeState;
    nlohmann::ordered_json resumeConfig;
    int64_t resumeOptimizerSteps = 0;
    if (!o.resume.empty()) {
        nlohmann::json envelope;
        if (rank == 0) {
            try {
                resumeDir = resolveCheckpoint(o.out, o.resume);
                resumeState = readTrainerState(resumeDir);
                envelope = {{"ok", true},
                            {"dir", resumeDir},
                            {"state", resumeState},
                            {"config", nlohmann::json::parse(util::readFile((fs::path(resumeDir) / "config.json").string()))}};
            } catch (const std::exception& e) {
                envelope = {{"ok", false}, {"error", e.what()}};
                broadcastString(comm, envelope.dump());
                throw;
            }
        }
        const std::string received = broadcastString(comm, rank == 0 ? envelope.dump() : std::string());
        if (rank != 0) {
            envelope = nlohmann::json::parse(received);
            if (!envelope.value("ok", false))
                throw InputError("rank 0 could not read the checkpoint to resume from: " + envelope.value("error", std::string()));
            resumeDir = envelope.at("dir").get<std::string>();
            resumeState = envelope.at("state");
            resumeConfig = nlohmann::ordered_json::parse(envelope.at("config").dump());
        }
    }

    // Model.
    model::Qwen2ForCausalLM net{nullptr};
    if (!resumeDir.empty() && rank == 0) {
        net = model::loadPretrained(resumeDir);
    } else if (!resumeDir.empty()) {
        // Same shapes as rank 0's; the values come with the start-up broadcast.
        net = model::Qwen2ForCausalLM(model::Qwen2Config::fromJson(resumeConfig, resumeDir + "/config.json (from rank 0)"));
    } else if (!o.modelDir.empty()) {
        net = model::loadPretrained(o.modelDir);
    } else {
        auto config = model::Qwen2Config::preset(o.preset);
        const uint64_t seed = o.seed + (o.initSeedPerRank ? static_cast<uint64_t>(rank) : 0);
        torch::manual_seed(seed);
        net = model::Qwen2ForCausalLM(config);
        if (o.initStd > 0) {
            torch::manual_seed(seed);
            net->initWeights(o.initStd);
        }
    }
    if (o.initSeedPerRank && !o.modelDir.empty()) {
        torch::NoGradGuard noGrad;
        torch::manual_seed(o.seed + static_cast<uint64_t>(rank));
        for (auto& p : net->parameters())
            p.add_(torch::randn_like(p), 0.01);
    }
    const auto& config = net->config();
    if (tokenizer && tokenizer->vocabSize() > config.vocab_size)
        throw InputError(tokenizerPath + ": tokenizer has " + std::to_string(tokenizer->vocabSize()) +
                         " ids but the model's vocab_size is " + std::to_string(config.vocab_size));
    net->to(device);
    net->train();

    std::vector<std::pair<std::string, torch::Tensor>> named;
    for (const auto& item : net->named_parameters())
        named.emplace_back(item.key(), item.value());
    std::vector<torch::Tensor> params;
    for (auto& [n, p] : named)
        params.push_back(p);
    AdamW optimizer(named);
    if (!resumeDir.empty()) {
        if (rank == 0)
            loadOptimizerState(resumeDir, optimizer);
        auto steps = torch::tensor({rank == 0 ? optimizer.steps() : int64_t(0)}, torch::kInt64);
        if (comm.size() > 1)
            comm.broadcast(steps, 0);
        optimizer.setSteps(steps.item<int64_t>());
    }

    // Sum of all parameters in double: equal on every rank iff they hold the same model (for tests).
    auto checksums = [&]() {
        torch::NoGradGuard noGrad;
        double sum = 0;
        for (auto& p : params)
            sum += p.to(torch::kFloat64).abs().sum().item<double>() + p.to(torch::kFloat64).sum().item<double>();
        auto all = comm.gather({sum}, 0);
        bool equal = true;
        for (double v : all)
            equal = equal && v == all.front();
        return std::make_pair(equal, all);
    };
    if (o.verifySync) {
        auto [equal, all] = checksums();
        if (rank == 0)
            std::fprintf(stderr, "sync check before broadcast: ranks %s\n", equal ? "equal" : "differ");
    }
    // Horovod semantics: every rank starts from rank 0's parameters and optimizer state.
    {
        torch::NoGradGuard noGrad;
        for (auto& p : params)
            broadcastFromRankZero(comm, p.data());
        for (auto& ap : optimizer.params()) {
            broadcastFromRankZero(comm, ap.expAvg);
            broadcastFromRankZero(comm, ap.expAvgSq);
        }
    }

    if (o.verifySync) {
        auto [equal, all] = checksums();
        if (rank == 0) {
            std::fprintf(stderr, "sync check after broadcast: ranks %s\n", equal ? "equal" : "differ");
            if (!equal)
                throw RuntimeFailure("parameters differ across ranks after the start-up broadcast");
        }
    }

    // Data.
    data::TokenCacheOptions cacheOptions;
    cacheOptions.dataPath = o.data;
    cacheOptions.textField = o.textField;
    cacheOptions.cacheRoot = o.cacheDir;
    cacheOptions.threads = std::max(1, static_cast<int>(std::thread::hardware_concurrency()) / std::max(1, world));
    cacheOptions.verbose = lead;
    auto cache = data::TokenCache::buildOrLoad(cacheOptions, tokenizer.get());
    for (uint32_t id : {cache->eosId(), cache->padId()})
        if (id >= config.vocab_size)
            throw InputError("token id " + std::to_string(id) + " exceeds the model's vocab_size");
    auto dataset = std::make_shared<data::TokenDataset>(cache, data::parseBatchMode(o.batchMode), o.seqLen);
    data::SamplerOptions samplerOptions{world, rank, true, o.seed, false};

    int64_t startStep = 0, startEpoch = 0, startPosition = 0;
    if (!resumeState.is_null()) {
        startStep = resumeState.at("step").get<int64_t>();
        startEpoch = resumeState.at("epoch").get<int64_t>();
        const int64_t savedWorld = resumeState.at("world_size").get<int64_t>();
        const int64_t consumed = resumeState.at("samples_consumed_in_epoch").get<int64_t>();
        // Another world size continues from the same global sample count within the epoch (rounded down
        // to whole samples per rank); the shuffle order of the epoch is the same, its split is not.
        startPosition = savedWorld == world ? resumeState.at("position").get<int64_t>() : consumed / world;
    }
    data::DataLoader loader(dataset, samplerOptions, o.microBatch, startEpoch, startPosition, o.prefetch);

    int64_t maxSteps = o.maxSteps;
    if (o.epochs > 0)
        maxSteps = std::max<int64_t>(1, o.epochs * loader.batchesPerEpoch() / o.gradAccum);
    const double peakLr = o.scaleLr ? o.lr * world : o.lr;
    const double minLr = o.scaleLr ? o.minLr * world : o.minLr;
    const auto wire = dist::parseWireType(o.compression);
    auto buckets = makeBuckets(params, o.bucketMb, device);
    LossScaler scaler(o.precision == "fp16");
    if (!resumeState.is_null() && resumeState.contains("scaler"))
        scaler.restore(resumeState["scaler"].value("scale", 1.0), resumeState["scaler"].value("good_steps", int64_t(0)),
                       resumeState["scaler"].value("skipped", int64_t(0)));

    const std::string runId = o.runId.empty() ? fs::absolute(o.out).filename().string() : o.runId;
    if (lead) {
        util::makeDirs(o.out);
        metrics = std::make_unique<telemetry::MetricsWriter>(o.metricsOut, o.metricsStdout);
    }
    const auto hosts = comm.allgatherStrings(comm.host());
    // This rank's device: a CUDA device is identified through the driver (name, PCI bus id for NVML);
    // its peak comes from the datasheet table, else from a matmul measured on it in the training dtype.
    // CPU ranks measure matmul throughput (fp32, or bf16 under bf16 autocast) with the BLAS core the
    // trainer uses.
    const DeviceTelemetry deviceInfo = describeDevice(device, o.precision);
    const auto devices = comm.allgatherStrings(deviceInfo.label);
    // Per rank: local rank, pid, the memory it can use (host RAM, or the GPU's memory: for the
    // memory-pressure diagnosis) and its peak FLOP/s.
    const auto rankInfo = comm.gather({static_cast<double>(comm.localRank()), static_cast<double>(::getpid()),
                                       deviceInfo.memoryTotalMb, deviceInfo.peakFlops}, 0);
    const double peakFlops = deviceInfo.peakFlops;
    double peakFlopsAllRanks = 0;
    for (int r = 0; r < world && lead; ++r)
        peakFlopsAllRanks += rankInfo[static_cast<size_t>(r) * 4 + 3];
    const double tokenFlops = flopsPerToken(config.parameterCount(), config.num_hidden_layers, config.hidden_size, o.seqLen);
    const auto blas = util::blasInfo();
    if (lead) {
        nlohmann::ordered_json ranks = nlohmann::ordered_json::array();
        for (int r = 0; r < world; ++r)
            ranks.push_back({{"rank", r},
                             {"host", hosts[static_cast<size_t>(r)]},
                             {"device", deviceField(devices[static_cast<size_t>(r)], false)},
                             {"device_name", deviceField(devices[static_cast<size_t>(r)], true)},
                             {"local_rank", static_cast<int>(rankInfo[static_cast<size_t>(r) * 4])},
                             {"pid", static_cast<int64_t>(rankInfo[static_cast<size_t>(r) * 4 + 1])},
                             {"mem_total_mb", rankInfo[static_cast<size_t>(r) * 4 + 2]}});
        nlohmann::ordered_json hparams = o.toJson();
        hparams["world_size"] = world;
        hparams["max_steps"] = maxSteps;
        hparams["batch_size"] = o.microBatch * o.gradAccum * world;
        hparams["threads"] = torch::get_num_threads();
        hparams["peak_flops_per_rank"] = peakFlops;
        hparams["peak_flops_source"] = deviceInfo.peakSource;
        nlohmann::ordered_json hello = {
            {"run_id", runId},
            {"world_size", world},
            {"ranks", ranks},
            {"versions",
             {{"trainer", TRAINDECK_VERSION}, {"libtorch", torchVersion()}, {"mpi", comm.libraryVersion()},
              {"nccl", nullptr}, {"blas_core", blas.coreName.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(blas.coreName)}}},
            {"model", {{"config", config.toJson()}, {"parameters", config.parameterCount()}}},
            {"hparams", hparams}};
        if (!resumeDir.empty())
            hello["resumed_from"] = {{"step", startStep}, {"path", resumeDir}};
        metrics->write("hello", hello);
        std::fprintf(stderr, "training %s (%lld parameters) on %d rank(s) x %d thread(s), %s, BLAS core %s, %lld steps\n",
                     o.modelDir.empty() ? o.preset.c_str() : o.modelDir.c_str(),
                     static_cast<long long>(config.parameterCount()), world, torch::get_num_threads(),
                     deviceInfo.label.c_str(), blas.coreName.empty() ? "unknown" : blas.coreName.c_str(),
                     static_cast<long long>(maxSteps));
    }

    if (!resumeState.is_null() && resumeState.contains("rng"))
        restoreRngState(resumeState["rng"].value("torch_cpu", std::string()));
    int64_t step = startStep, epoch = startEpoch, position = startPosition;
    auto stateJson = [&](int64_t atStep) {
        return nlohmann::json{{"step", atStep},
                              {"epoch", epoch},
                              {"position", position},
                              {"samples_consumed_in_epoch", position * world},
                              {"world_size", world},
                              {"optimizer_steps", optimizer.steps()},
                              {"loss_scale", scaler.enabled() ? nlohmann::json(scaler.scale()) : nlohmann::json()},
                              {"scaler", {{"scale", scaler.scale()}, {"good_steps", scaler.goodSteps()}, {"skipped", scaler.skippedSteps()}}},
                              {"lr_schedule", {{"peak", peakLr}, {"min", minLr}, {"warmup", o.warmup}, {"max_steps", maxSteps}}},
                              {"seed", o.seed},
                              {"rng", {{"torch_cpu", rngStateHex()}}},
                              {"config_hash", std::to_string(std::hash<std::string>{}(config.toJson().dump() +
                                                                                      std::to_string(o.seqLen)))}};
    };
    auto checkpoint = [&](int64_t atStep) {
        comm.barrier();
        if (lead) {
            auto r = saveCheckpoint(o.out, atStep, net, optimizer, stateJson(atStep), tokenizerFiles, o.keep);
            metrics->write("checkpoint", {{"step", atStep}, {"path", r.path}, {"bytes", r.bytes}, {"ms", r.ms}});
            std::fprintf(stderr, "checkpoint %s (%.1f MB, %.0f ms)\n", r.path.c_str(), r.bytes / 1e6, r.ms);
        }
        comm.barrier();
    };

    std::vector<double> local(9);
    while (step < maxSteps) {
        const auto stepStart = Clock::now();
        const double cpuStart = telemetry::processCpuSeconds();
        double dataMs = 0, fwdMs = 0, bwdMs = 0, commMs = 0, optMs = 0;
        double lossSum = 0;
        int64_t tokens = 0;
        const int64_t thisStep = step + 1;
        if (o.injectExit && o.injectExit->first == rank && o.injectExit->second == thisStep) {
            std::fprintf(stderr, "traindeck-trainer: rank %d on %s: injected exit (test aid) at step %lld\n", rank,
                         comm.host().c_str(), static_cast<long long>(thisStep));
            std::fflush(stderr);
            std::_Exit(3);
        }
        for (int64_t micro = 0; micro < o.gradAccum; ++micro) {
            auto t = Clock::now();
            injectSleep(o, rank, "data");
            data::Batch batch = loader.next();
            dataMs += msSince(t);
            epoch = batch.epoch;
            position = batch.positionAfter;
            tokens += batch.tokens;

            t = Clock::now();
            injectSleep(o, rank, "forward");
            torch::Tensor loss;
            {
                const auto inputIds = batch.inputIds.to(device, /*non_blocking=*/true);
                const auto labels = batch.labels.to(device, /*non_blocking=*/true);
                AutocastScope autocast(device, o.precision);
                loss = net->loss(inputIds, labels);
                if (o.injectNan && o.injectNan->first == rank && o.injectNan->second == thisStep)
                    loss = loss * std::numeric_limits<double>::quiet_NaN();
            }
            lossSum += loss.item<double>();  // waits for the forward pass on a device
            fwdMs += msSince(t);

            t = Clock::now();
            injectSleep(o, rank, "backward");
            (loss * (scaler.scale() / static_cast<double>(o.gradAccum))).backward();
            synchronize(device);
            bwdMs += msSince(t);
        }

        // Average gradients over ranks, bucket by bucket; only after the last micro-step. The gradients
        // already live in the buckets (see makeBuckets).
        auto t = Clock::now();
        reattachGradientViews(buckets);
        int64_t commBytes = 0;
        // A single process without compression has nothing to exchange.
        if (world > 1 || wire != dist::WireType::None) {
            torch::NoGradGuard noGrad;
            for (auto& b : buckets) {
                if (b.host.defined()) {
                    b.host.copy_(b.flat);
                    comm.allreduceSum(b.host, wire);
                    b.flat.copy_(b.host, /*non_blocking=*/true);
                } else {
                    comm.allreduceSum(b.flat, wire);
                }
                commBytes += b.flat.numel() * (wire == dist::WireType::None ? 4 : 2);
                if (world > 1)
                    b.flat.div_(static_cast<double>(world));
            }
            synchronize(device);
        }
        commMs = msSince(t);

        t = Clock::now();
        injectSleep(o, rank, "optimizer");
        double gradNorm = 0;
        {
            torch::NoGradGuard noGrad;
            std::vector<torch::Tensor> norms;
            for (auto& b : buckets) {
                if (scaler.scale() != 1.0)
                    b.flat.div_(scaler.scale());
                norms.push_back(torch::linalg_vector_norm(b.flat, 2).to(torch::kFloat64));
            }
            gradNorm = torch::stack(norms).norm().item<double>();  // one device sync for all buckets
            if (o.clip > 0 && std::isfinite(gradNorm) && gradNorm > o.clip) {
                const double scale = o.clip / (gradNorm + 1e-6);
                for (auto& b : buckets)
                    b.flat.mul_(scale);
            }
        }
        const double lr = learningRate(o, peakLr, minLr, thisStep, maxSteps);
        // Every rank holds the same averaged gradients, so every rank takes the same decision.
        const double scaleUsed = scaler.scale();
        const bool skip = scaler.update(std::isfinite(gradNorm));
        if (!skip)
            optimizer.step(lr, o.weightDecay);
        else if (lead)
            metrics->write("warning", {{"rank", -1}, {"host", ""}, {"code", "non_finite_gradients"},
                                       {"message", "step " + std::to_string(thisStep) + ": gradients are not finite (loss scale " +
                                                       std::to_string(scaleUsed) + "); the step was skipped"}});
        for (auto& b : buckets)
            b.flat.zero_();
        synchronize(device);
        optMs = msSince(t);
        step = thisStep;
        stepOut = step;

        const double stepMs = msSince(stepStart);
        const double cpu = telemetry::processCpuSeconds() - cpuStart;
        double util = std::min(100.0, 100.0 * cpu / (stepMs / 1000.0) / std::max(1, torch::get_num_threads()));
        double memMb = telemetry::residentMiB();
        if (onCuda)
            sampleGpu(deviceInfo, util, memMb);
        local = {dataMs, fwdMs, bwdMs, commMs, optMs, stepMs, memMb, util,
                 static_cast<double>(commBytes)};
        std::vector<double> extra = {lossSum / static_cast<double>(o.gradAccum), static_cast<double>(tokens)};
        local.insert(local.end(), extra.begin(), extra.end());
        const auto all = comm.gather(local, 0);
        if (lead) {
            const size_t n = local.size();
            auto column = [&](size_t k) {
                nlohmann::ordered_json a = nlohmann::ordered_json::array();
                for (int r = 0; r < world; ++r)
                    a.push_back(all[static_cast<size_t>(r) * n + k]);
                return a;
            };
            double loss = 0, totalTokens = 0;
            for (int r = 0; r < world; ++r) {
                loss += all[static_cast<size_t>(r) * n + 9];
                totalTokens += all[static_cast<size_t>(r) * n + 10];
            }
            loss /= world;
            const double tokensPerS = totalTokens / (stepMs / 1000.0);
            const double samplesPerS = static_cast<double>(o.microBatch * o.gradAccum * world) / (stepMs / 1000.0);
            const double mfu = peakFlopsAllRanks > 0 ? tokensPerS * tokenFlops / peakFlopsAllRanks : 0;
            nlohmann::ordered_json rec = {{"step", step},
                                          {"epoch", epoch},
                                          {"loss", telemetry::MetricsWriter::number(loss)},
                                          {"lr", lr},
                                          {"grad_norm", telemetry::MetricsWriter::number(gradNorm)},
                                          {"tokens", static_cast<int64_t>(totalTokens)},
                                          {"tokens_per_s", tokensPerS},
                                          {"samples_per_s", samplesPerS},
                                          {"mfu", peakFlopsAllRanks > 0 ? nlohmann::ordered_json(mfu) : nlohmann::ordered_json()},
                                          {"loss_scale", scaler.enabled() ? nlohmann::ordered_json(scaleUsed) : nlohmann::ordered_json()}};
            const char* names[] = {"data_ms", "fwd_ms", "bwd_ms", "comm_ms", "opt_ms", "step_ms", "mem_mb", "util"};
            for (size_t k = 0; k < 8; ++k)
                rec[names[k]] = column(k);
            nlohmann::ordered_json bytes = nlohmann::ordered_json::array();
            for (int r = 0; r < world; ++r)
                bytes.push_back(static_cast<int64_t>(all[static_cast<size_t>(r) * n + 8]));
            rec["comm_bytes"] = bytes;
            metrics->write("step", rec);
            if (step % o.logEvery == 0 || step == maxSteps)
                std::fprintf(stderr, "step %lld/%lld  loss %.4f  lr %.2e  grad-norm %.3f  %.0f tok/s  %.0f ms/step  mfu %.1f%%\n",
                             static_cast<long long>(step), static_cast<long long>(maxSteps), loss, lr, gradNorm,
                             tokensPerS, stepMs, 100 * mfu);
        }
        if (o.checkpointEvery > 0 && step % o.checkpointEvery == 0 && step < maxSteps)
            checkpoint(step);
    }
    if (o.verifySync) {
        auto [equal, all] = checksums();
        if (rank == 0) {
            std::fprintf(stderr, "sync check at the end: ranks %s\n", equal ? "equal" : "differ");
            if (!equal)
                throw RuntimeFailure("parameters diverged across ranks during training");
        }
    }
    checkpoint(step);
    if (lead) {
        metrics->write("done", {{"status", "finished"},
                                {"steps", step},
                                {"seconds", std::chrono::duration<double>(Clock::now() - started).count()}});
    }
    return 0;
}

}  // namespace traindeck::train
