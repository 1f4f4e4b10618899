#include "train/trainer.h"

#include "data/dataset.h"
#include "dist/nccl_communicator.h"
#include "dist/stall.h"
#include "model/hf_checkpoint.h"
#include "model/qwen2.h"
#include "model/safetensors.h"
#include "telemetry/metrics_writer.h"
#include "tokenizer/tokenizer.h"
#include "train/adamw.h"
#include "train/balance.h"
#include "train/checkpoint.h"
#include "train/device.h"
#include "train/loss_scaler.h"
#include "train/overlap.h"
#include "train/zero.h"
#include "util/blas.h"
#include "util/errors.h"
#include "util/fileio.h"
#include "util/gpu.h"

#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <numeric>
#include <optional>
#include <thread>
#include <unistd.h>
#include <unordered_map>

namespace fs = std::filesystem;

namespace traindeck::train {

namespace {

using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point t)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

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
// gradient_as_bucket_view). On CUDA the MPI backend needs host memory: `host` is a pinned staging copy
// (NCCL reduces `flat` where it is).
struct Bucket {
    std::vector<torch::Tensor> params;
    std::vector<torch::Tensor> views; // views[i]: params[i]'s gradient inside `flat`
    torch::Tensor flat;
    torch::Tensor host;
    // --zero 1: each rank's element count, this rank's range [shardBegin, shardBegin + counts[rank]) of
    // `flat` (`shard`), and the receive buffer of the reduce-scatter.
    std::vector<int64_t> counts;
    int64_t shardBegin = 0;
    torch::Tensor shard, received;
};

std::vector<Bucket> makeBuckets(const std::vector<torch::Tensor>& params, double bucketMb, const torch::Device& device,
                                bool stageOnHost)
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
        if (stageOnHost)
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

// Rank 0's values of a tensor on every rank; device tensors go through host memory for MPI (NCCL takes
// them as they are).
void broadcastFromRankZero(dist::Communicator& comm, torch::Tensor tensor)
{
    if (comm.size() == 1)
        return;
    if ((tensor.device().is_cpu() || comm.acceptsDeviceTensors()) && tensor.is_contiguous()) {
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
    std::string label; // "cpu" or "cuda:0|NVIDIA H200" (the name after '|')
    std::string pciBusId;
    double memoryTotalMb = 0;
    double peakFlops = 0;
    std::string peakSource; // "measured fp32 matmul", "datasheet NVIDIA H200 bf16", ...
};

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

} // namespace

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

namespace {

// ---- Figures gathered at rank 0 ----------------------------------------------------------------------

// Figures every rank sends to rank 0 in one gather of doubles. A struct lists its fields once, in gather
// order (`fields`, each naming its member); toArray/fromArray follow that list, so no code indexes the
// flat array MPI carries.
template <class T> struct Gathered {
    std::vector<double> toArray() const
    {
        std::vector<double> values;
        values.reserve(std::size(T::fields));
        for (const auto& field : T::fields)
            values.push_back(static_cast<const T&>(*this).*field.member);
        return values;
    }

    static T fromArray(const double* values)
    {
        T result;
        for (const auto& field : T::fields)
            result.*field.member = *values++;
        return result;
    }

    // Every rank's figures at rank 0, index = rank; empty on the other ranks.
    static std::vector<T> gatherAtRankZero(dist::Communicator& comm, const T& local)
    {
        const auto all = comm.gather(local.toArray(), 0);
        const size_t n = std::size(T::fields);
        std::vector<T> ranks;
        for (size_t offset = 0; offset + n <= all.size(); offset += n)
            ranks.push_back(fromArray(all.data() + offset));
        return ranks;
    }
};

// A rank as rank 0 learns it at start-up: for the hello's rank list (the memory it can use, host RAM or
// the GPU's memory, is for the memory-pressure diagnosis) and the run's total peak FLOP/s (for MFU).
struct RankInfo : Gathered<RankInfo> {
    double localRank = 0, pid = 0, memoryTotalMb = 0, peakFlops = 0;
    double optimizerMb = 0; // the optimizer state this rank holds (1/world of it with --zero 1)

    struct Field {
        const char* name;
        double RankInfo::*member;
    };
    static constexpr Field fields[] = {{"local_rank", &RankInfo::localRank},
                                       {"pid", &RankInfo::pid},
                                       {"mem_total_mb", &RankInfo::memoryTotalMb},
                                       {"peak_flops", &RankInfo::peakFlops},
                                       {"optimizer_mb", &RankInfo::optimizerMb}};
};

// One rank's figures for one optimizer step. Counts are doubles too: they travel in the same gather.
struct StepStats : Gathered<StepStats> {
    // commMs: the allreduce time on the critical path (all of it without --overlap); commHiddenMs: the
    // part that ran during backward.
    double dataMs = 0, fwdMs = 0, bwdMs = 0, commMs = 0, commHiddenMs = 0, optMs = 0, stepMs = 0;
    double memMb = 0, util = 0;
    double commBytes = 0;
    double loss = 0; // mean over the micro-steps
    double tokens = 0;
    double samples = 0; // sequences this rank trained on (its share of the global batch)

    // How the step record shows a field: an array with one value per rank under the field's name, or
    // combined over the ranks (reportStep: the mean loss, the total tokens).
    enum Shown { PerRank, PerRankInteger, Combined };
    struct Field {
        const char* name;
        double StepStats::*member;
        Shown shown;
    };
    // The per-rank arrays appear in the step record in this order.
    static constexpr Field fields[] = {{"data_ms", &StepStats::dataMs, PerRank},
                                       {"fwd_ms", &StepStats::fwdMs, PerRank},
                                       {"bwd_ms", &StepStats::bwdMs, PerRank},
                                       {"comm_ms", &StepStats::commMs, PerRank},
                                       {"comm_hidden_ms", &StepStats::commHiddenMs, PerRank},
                                       {"opt_ms", &StepStats::optMs, PerRank},
                                       {"step_ms", &StepStats::stepMs, PerRank},
                                       {"mem_mb", &StepStats::memMb, PerRank},
                                       {"util", &StepStats::util, PerRank},
                                       {"comm_bytes", &StepStats::commBytes, PerRankInteger},
                                       {"samples", &StepStats::samples, PerRankInteger},
                                       {"loss", &StepStats::loss, Combined},
                                       {"tokens", &StepStats::tokens, Combined}};
};

// ---- The run -----------------------------------------------------------------------------------------

// Where a resumed run continues; an empty dir for a fresh run.
struct ResumePoint {
    std::string dir;               // rank 0's checkpoint directory
    nlohmann::json state;          // its trainer_state.json; null for a fresh run
    nlohmann::ordered_json config; // its config.json, on the other ranks only (the model's shapes)
};

// What setup builds and the steps use, declared in the order setup builds it (and destroyed in reverse).
struct TrainingRun {
    TrainingRun(const TrainOptions& options, dist::Communicator& communicator,
                std::unique_ptr<telemetry::MetricsWriter>& metricsWriter, int64_t& finishedStep)
        : o(options), comm(communicator), metrics(metricsWriter), stepOut(finishedStep), rank(comm.rank()),
          world(comm.size()), lead(rank == 0)
    {
    }

    const TrainOptions& o;
    dist::Communicator& comm;
    // Both belong to runTraining, whose error record names them: rank 0's metrics writer (from
    // writeHello on) and the last step this process finished.
    std::unique_ptr<telemetry::MetricsWriter>& metrics;
    int64_t& stepOut;
    const int rank, world;
    const bool lead;

    torch::Device device{torch::kCPU};
    // The rank's GPU is the current device for the whole run, so nothing creates a context on GPU 0 from
    // every rank of a node.
    c10::OptionalDeviceGuard deviceGuard;

    std::string tokenizerPath;
    std::unique_ptr<tok::Tokenizer> tokenizer; // null: bytes
    std::vector<std::string> tokenizerFiles;   // copied into every checkpoint
    ResumePoint resume;

    model::Qwen2ForCausalLM net{nullptr};
    std::vector<torch::Tensor> params;
    std::vector<std::string> paramNames; // same order as params
    std::optional<AdamW> optimizer;      // --zero 1: over this rank's shard of every bucket only
    std::optional<data::DataLoader> loader;

    int64_t maxSteps = 0;
    double peakLr = 0, minLr = 0;
    dist::WireType wire = dist::WireType::None;
    std::vector<Bucket> buckets;
    std::vector<std::vector<ShardPiece>> zeroPieces; // --zero 1: this rank's pieces, per bucket
    std::unique_ptr<OverlappedAllreduce> overlap;    // --overlap on with something to exchange; after `buckets`
    LossScaler scaler{false};

    DeviceTelemetry deviceInfo;
    double peakFlopsAllRanks = 0; // rank 0 only
    double tokenFlops = 0;

    // The last finished step, and the data position after it.
    int64_t step = 0, epoch = 0, position = 0;

    // --balance: samples per rank per micro-step (empty: every rank takes --micro-batch of its own
    // stream); rank 0's time per sample of each rank since the last decision.
    std::vector<int64_t> shares;
    std::vector<std::vector<double>> msPerSample;

    const Clock::time_point started = Clock::now();
    std::unique_ptr<dist::StallInspector> stall; // null: --stall-warning 0, or no channel for it
    std::atomic<bool> stallInjected{false};      // --inject-stall happens once (either thread)
};

// ---- Setup -------------------------------------------------------------------------------------------

void setupDevice(TrainingRun& run)
{
    const auto& o = run.o;
    if (o.threads > 0)
        torch::set_num_threads(o.threads);
    run.device = resolveDevice(o.device, run.comm.localRank());
    if (run.device.is_cuda())
        run.deviceGuard.reset_device(run.device);
    if (o.precision == "fp16" && !run.device.is_cuda())
        throw InputError("--precision fp16 needs a CUDA device (fp16 with dynamic loss scaling); on the CPU use fp32 "
                         "or bf16");
}

// Tokenizer: given, else the model directory's, else bytes.
void loadTokenizer(TrainingRun& run)
{
    const auto& o = run.o;
    run.tokenizerPath = o.tokenizer;
    if (run.tokenizerPath.empty() && !o.modelDir.empty() && fs::exists(fs::path(o.modelDir) / "tokenizer.json"))
        run.tokenizerPath = (fs::path(o.modelDir) / "tokenizer.json").string();
    if (run.tokenizerPath.empty())
        return;
    if (!fs::exists(run.tokenizerPath))
        throw InputError(run.tokenizerPath + ": tokenizer file does not exist");
    try {
        run.tokenizer = tok::Tokenizer::fromFile(run.tokenizerPath);
    } catch (const tok::TokenizerError& e) {
        throw InputError(e.what());
    }
    run.tokenizerFiles.push_back(run.tokenizerPath);
    const auto cfg = fs::path(run.tokenizerPath).parent_path() / "tokenizer_config.json";
    if (fs::exists(cfg))
        run.tokenizerFiles.push_back(cfg.string());
}

// Resume state. Only rank 0 reads the checkpoint (it wrote it, into the head's out directory, which
// need not exist on the other nodes): the others get its trainer state and model config here, and
// its parameters and optimizer state from the start-up broadcast (broadcastStartState). Every rank
// takes part in the broadcast, also when rank 0 could not read the checkpoint, so that none waits forever.
ResumePoint readResumePoint(const TrainOptions& o, dist::Communicator& comm)
{
    ResumePoint resume;
    if (o.resume.empty())
        return resume;
    const int rank = comm.rank();
    nlohmann::json envelope;
    if (rank == 0) {
        try {
            resume.dir = resolveCheckpoint(o.out, o.resume);
            resume.state = readTrainerState(resume.dir);
            envelope = {
                {"ok", true},
                {"dir", resume.dir},
                {"state", resume.state},
                {"config", nlohmann::json::parse(util::readFile((fs::path(resume.dir) / "config.json").string()))}};
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
            throw InputError("rank 0 could not read the checkpoint to resume from: " +
                             envelope.value("error", std::string()));
        resume.dir = envelope.at("dir").get<std::string>();
        resume.state = envelope.at("state");
        resume.config = nlohmann::ordered_json::parse(envelope.at("config").dump());
    }
    return resume;
}

// The model on this rank before the start-up broadcast: the checkpoint's, the model directory's, or a
// preset's initialised from --seed.
model::Qwen2ForCausalLM buildModel(const TrainOptions& o, int rank, const ResumePoint& resume)
{
    model::Qwen2ForCausalLM net{nullptr};
    if (!resume.dir.empty() && rank == 0) {
        net = model::loadPretrained(resume.dir);
    } else if (!resume.dir.empty()) {
        // Same shapes as rank 0's; the values come with the start-up broadcast.
        net = model::Qwen2ForCausalLM(
            model::Qwen2Config::fromJson(resume.config, resume.dir + "/config.json (from rank 0)"));
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
    return net;
}

// The model on the device and its optimizer (rank 0's state on resume; the others get it broadcast).
void setupModel(TrainingRun& run)
{
    run.net = buildModel(run.o, run.rank, run.resume);
    const auto& config = run.net->config();
    if (run.tokenizer && run.tokenizer->vocabSize() > config.vocab_size)
        throw InputError(run.tokenizerPath + ": tokenizer has " + std::to_string(run.tokenizer->vocabSize()) +
                         " ids but the model's vocab_size is " + std::to_string(config.vocab_size));
    run.net->to(run.device);
    run.net->train();

    std::vector<std::pair<std::string, torch::Tensor>> named;
    for (const auto& item : run.net->named_parameters())
        named.emplace_back(item.key(), item.value());
    run.paramNames.clear();
    for (const auto& [n, p] : named)
        run.paramNames.push_back(n);
    for (auto& [n, p] : named)
        run.params.push_back(p);
    // --zero 1: shardOptimizer builds this rank's part once the buckets exist; no rank ever holds all
    // of the state (jemalloc keeps freed memory resident, so a transient full copy would stay in RSS).
    if (run.o.zero == 1)
        return;
    auto& optimizer = run.optimizer.emplace(named);
    if (!run.resume.dir.empty()) {
        if (run.rank == 0)
            loadOptimizerState(run.resume.dir, optimizer);
        auto steps = torch::tensor({run.rank == 0 ? optimizer.steps() : int64_t(0)}, torch::kInt64);
        if (run.comm.size() > 1)
            run.comm.broadcast(steps, 0);
        optimizer.setSteps(steps.item<int64_t>());
    }
}

// Sum of all parameters in double: equal on every rank iff they hold the same model (for tests). The
// answer is rank 0's; every rank must call it.
bool ranksInSync(TrainingRun& run)
{
    torch::NoGradGuard noGrad;
    double sum = 0;
    for (auto& p : run.params)
        sum += p.to(torch::kFloat64).abs().sum().item<double>() + p.to(torch::kFloat64).sum().item<double>();
    const auto all = run.comm.gather({sum}, 0);
    bool equal = true;
    for (double v : all)
        equal = equal && v == all.front();
    return equal;
}

// Horovod semantics: every rank starts from rank 0's parameters and optimizer state.
void broadcastStartState(TrainingRun& run)
{
    if (run.o.verifySync) {
        const bool equal = ranksInSync(run);
        if (run.rank == 0)
            std::fprintf(stderr, "sync check before broadcast: ranks %s\n", equal ? "equal" : "differ");
    }
    {
        torch::NoGradGuard noGrad;
        for (auto& p : run.params)
            broadcastFromRankZero(run.comm, p.data());
        // With --zero 1 each rank takes its shard of rank 0's state when the optimizer is sharded.
        if (run.o.zero == 0)
            for (auto& ap : run.optimizer->params()) {
                broadcastFromRankZero(run.comm, ap.expAvg);
                broadcastFromRankZero(run.comm, ap.expAvgSq);
            }
    }
    if (run.o.verifySync) {
        const bool equal = ranksInSync(run);
        if (run.rank == 0) {
            std::fprintf(stderr, "sync check after broadcast: ranks %s\n", equal ? "equal" : "differ");
            if (!equal)
                throw RuntimeFailure("parameters differ across ranks after the start-up broadcast");
        }
    }
}

// Token cache, dataset and this rank's loader, positioned where a resumed run left off.
void setupData(TrainingRun& run)
{
    const auto& o = run.o;
    const int world = run.world;
    data::TokenCacheOptions cacheOptions;
    cacheOptions.dataPath = o.data;
    cacheOptions.textField = o.textField;
    cacheOptions.cacheRoot = o.cacheDir;
    cacheOptions.threads = std::max(1, static_cast<int>(std::thread::hardware_concurrency()) / std::max(1, world));
    cacheOptions.verbose = run.lead;
    auto cache = data::TokenCache::buildOrLoad(cacheOptions, run.tokenizer.get());
    for (uint32_t id : {cache->eosId(), cache->padId()})
        if (id >= run.net->config().vocab_size)
            throw InputError("token id " + std::to_string(id) + " exceeds the model's vocab_size");
    auto dataset = std::make_shared<data::TokenDataset>(cache, data::parseBatchMode(o.batchMode), o.seqLen);
    data::SamplerOptions samplerOptions{world, run.rank, true, o.seed, false};
    const bool balanced = o.balance == "auto" || !o.balanceShares.empty();
    const auto coversTheBatch = [&](const std::vector<int64_t>& shares) {
        return std::accumulate(shares.begin(), shares.end(), int64_t(0)) == o.microBatch * world;
    };
    if (balanced) {
        run.shares =
            o.balanceShares.empty() ? std::vector<int64_t>(static_cast<size_t>(world), o.microBatch) : o.balanceShares;
        if (run.shares.size() != static_cast<size_t>(world))
            throw InputError("--balance-shares names " + std::to_string(run.shares.size()) + " ranks, the job has " +
                             std::to_string(world));
        if (!coversTheBatch(run.shares))
            throw InputError("--balance-shares must add up to --micro-batch x ranks = " +
                             std::to_string(o.microBatch * world));
    }

    const auto& state = run.resume.state;
    if (!state.is_null()) {
        run.step = state.at("step").get<int64_t>();
        run.epoch = state.at("epoch").get<int64_t>();
        const int64_t savedWorld = state.at("world_size").get<int64_t>();
        const int64_t consumed = state.at("samples_consumed_in_epoch").get<int64_t>();
        const bool savedBalanced = state.contains("balance_shares");
        // Another world size or split continues from the same global sample count within the epoch
        // (rounded down to whole samples per rank); the shuffle order of the epoch is the same, its split
        // is not. A balanced run's positions are global already, and it keeps its last split.
        if (balanced) {
            run.position = consumed;
            const auto saved =
                savedBalanced ? state["balance_shares"].get<std::vector<int64_t>>() : std::vector<int64_t>{};
            if (o.balanceShares.empty() && saved.size() == run.shares.size() && coversTheBatch(saved) &&
                std::all_of(saved.begin(), saved.end(), [](int64_t x) { return x >= 1; }))
                run.shares = saved;
        } else {
            run.position =
                savedWorld == world && !savedBalanced ? state.at("position").get<int64_t>() : consumed / world;
        }
    }
    run.loader.emplace(dataset, samplerOptions, o.microBatch, run.epoch, run.position, o.prefetch,
                       balanced ? std::optional<data::BalancedSplit>(data::BalancedSplit{run.shares, run.rank})
                                : std::nullopt);
    if (balanced)
        run.msPerSample.assign(static_cast<size_t>(world), {});
}

// --inject-stall (test aid): the rank stops once, for the planned seconds, when it reaches the planned
// step and phase.
void injectStall(TrainingRun& run, int64_t step, dist::Phase phase)
{
    const auto& planned = run.o.injectStall;
    if (!planned || planned->rank != run.rank || planned->step != step || planned->phase != dist::phaseName(phase) ||
        run.stallInjected.exchange(true))
        return;
    std::fprintf(stderr, "traindeck-trainer: rank %d on %s: injected stall (test aid) of %.1f s in %s of step %lld\n",
                 run.rank, run.comm.host().c_str(), planned->seconds, planned->phase.c_str(),
                 static_cast<long long>(step));
    std::fflush(stderr);
    std::this_thread::sleep_for(std::chrono::duration<double>(planned->seconds));
}

bool hasGradientsToExchange(const TrainingRun& run)
{
    // A single process without compression has nothing to exchange.
    return run.world > 1 || run.wire != dist::WireType::None;
}

// One bucket's allreduce and average. The same call with or without --overlap, so both give the same
// bits.
void reduceBucket(TrainingRun& run, Bucket& b)
{
    torch::NoGradGuard noGrad;
    if (run.o.zero == 1) {
        // Only this rank's range is summed here; the rest of `flat` keeps local gradients nobody reads.
        if (b.host.defined())
            b.host.copy_(b.flat);
        run.comm.reduceScatterSum(b.host.defined() ? b.host : b.flat, b.received, b.counts);
        b.received.div_(static_cast<double>(run.world));
        b.shard.copy_(b.received, /*non_blocking=*/true);
        return;
    }
    if (b.host.defined()) {
        b.host.copy_(b.flat);
        run.comm.allreduceSum(b.host, run.wire);
        b.flat.copy_(b.host, /*non_blocking=*/true);
    } else {
        run.comm.allreduceSum(b.flat, run.wire);
    }
    if (run.world > 1)
        b.flat.div_(static_cast<double>(run.world));
}

int64_t bytesSent(const TrainingRun& run)
{
    if (!hasGradientsToExchange(run))
        return 0;
    int64_t bytes = 0;
    for (const auto& b : run.buckets)
        bytes += b.flat.numel() * (run.wire == dist::WireType::None ? 4 : 2);
    return bytes;
}

// Where each parameter (by its tensor) sits in run.params and run.paramNames.
std::unordered_map<const void*, size_t> parameterIndex(const TrainingRun& run)
{
    std::unordered_map<const void*, size_t> index;
    for (size_t i = 0; i < run.params.size(); ++i)
        index[run.params[i].unsafeGetTensorImpl()] = i;
    return index;
}

// --zero 1: this rank's range of every bucket and an optimizer over just those elements. On resume
// rank 0 reads the checkpoint's state (memory-mapped) bucket by bucket and broadcasts it; each rank
// keeps its range, so the state is re-sharded for any world size and no rank holds all of it.
void shardOptimizer(TrainingRun& run)
{
    torch::NoGradGuard noGrad;
    const bool resumed = !run.resume.dir.empty();
    std::shared_ptr<model::SafetensorsFile> saved; // rank 0, on resume
    if (resumed && run.rank == 0)
        saved = model::SafetensorsFile::open((fs::path(run.resume.dir) / "optimizer.safetensors").string());
    const auto indexOf = parameterIndex(run);
    std::vector<AdamWParam> pieces;
    run.zeroPieces.clear();
    for (auto& b : run.buckets) {
        b.counts = shardCounts(b.flat.numel(), run.world);
        b.shardBegin = std::accumulate(b.counts.begin(), b.counts.begin() + run.rank, int64_t(0));
        const int64_t n = b.counts[static_cast<size_t>(run.rank)];
        b.shard = b.flat.narrow(0, b.shardBegin, n);
        b.received = torch::empty({n}, (b.host.defined() ? b.host : b.flat).options());
        std::vector<int64_t> sizes;
        for (const auto& p : b.params)
            sizes.push_back(p.numel());
        torch::Tensor state[2]; // the bucket's exp_avg and exp_avg_sq in bucket layout (resume only)
        if (resumed) {
            for (int which = 0; which < 2; ++which) {
                state[which] = torch::zeros_like(b.flat);
                int64_t offset = 0;
                for (const auto& p : b.params) {
                    if (saved) {
                        const std::string name = run.paramNames[indexOf.at(p.unsafeGetTensorImpl())] +
                                                 (which == 0 ? ".exp_avg" : ".exp_avg_sq");
                        const auto* info = saved->find(name);
                        if (!info)
                            throw InputError(saved->path() + ": optimizer state \"" + name + "\" is missing");
                        const auto v = saved->view(*info);
                        if (v.sizes() != p.sizes())
                            throw InputError(saved->path() + ": optimizer state \"" + name + "\" has the wrong shape");
                        state[which].narrow(0, offset, p.numel()).copy_(v.reshape(-1));
                    }
                    offset += p.numel();
                }
                broadcastFromRankZero(run.comm, state[which]);
            }
        }
        auto bucketPieces = piecesIn(sizes, b.shardBegin, b.shardBegin + n);
        for (const auto& piece : bucketPieces) {
            const auto& p = b.params[piece.param];
            AdamWParam ap;
            ap.name = run.paramNames[indexOf.at(p.unsafeGetTensorImpl())];
            ap.param = p.detach().view(-1).narrow(0, piece.paramOffset, piece.length);
            ap.grad = b.flat.narrow(0, piece.bucketOffset, piece.length);
            ap.decay = p.dim() >= 2;
            if (resumed) {
                ap.expAvg = state[0].narrow(0, piece.bucketOffset, piece.length).clone();
                ap.expAvgSq = state[1].narrow(0, piece.bucketOffset, piece.length).clone();
            }
            pieces.push_back(std::move(ap));
        }
        run.zeroPieces.push_back(std::move(bucketPieces));
    }
    auto& sharded = run.optimizer.emplace(std::move(pieces));
    if (resumed) {
        int64_t steps = 0;
        if (saved)
            if (auto it = saved->metadata().find("steps"); it != saved->metadata().end())
                steps = std::stoll(it->second);
        auto t = torch::tensor({steps}, torch::kInt64);
        if (run.world > 1)
            run.comm.broadcast(t, 0);
        sharded.setSteps(t.item<int64_t>());
    }
}

// The optimizer state a checkpoint holds (every parameter whole, as without --zero; only rank 0's
// answer counts). Sharded, every rank's pieces are gathered at rank 0 bucket by bucket; every rank
// must call this.
std::vector<std::pair<std::string, torch::Tensor>> optimizerStateForCheckpoint(TrainingRun& run)
{
    if (run.o.zero == 0)
        return run.optimizer->stateTensors();
    torch::NoGradGuard noGrad;
    const auto indexOf = parameterIndex(run);
    std::vector<std::pair<std::string, torch::Tensor>> avg, avgSq;
    size_t next = 0; // the optimizer's pieces follow the buckets' order
    for (size_t k = 0; k < run.buckets.size(); ++k) {
        const auto& b = run.buckets[k];
        std::vector<torch::Tensor> mine[2];
        for (size_t i = 0; i < run.zeroPieces[k].size(); ++i, ++next) {
            const auto& ap = run.optimizer->params()[next];
            mine[0].push_back(ap.expAvg.to(torch::kCPU));
            mine[1].push_back(ap.expAvgSq.to(torch::kCPU));
        }
        for (int which = 0; which < 2; ++which) {
            const torch::Tensor piece =
                mine[which].empty() ? torch::empty({0}, torch::kFloat32) : torch::cat(mine[which]).contiguous();
            torch::Tensor all = run.rank == 0 ? torch::empty({b.flat.numel()}, torch::kFloat32) : torch::Tensor();
            run.comm.gatherToRoot(piece, all, b.counts, 0);
            if (run.rank != 0)
                continue;
            int64_t offset = 0;
            for (const auto& p : b.params) {
                const std::string& name = run.paramNames[indexOf.at(p.unsafeGetTensorImpl())];
                (which == 0 ? avg : avgSq)
                    .emplace_back(name + (which == 0 ? ".exp_avg" : ".exp_avg_sq"),
                                  all.narrow(0, offset, p.numel()).view(p.sizes()));
                offset += p.numel();
            }
        }
    }
    avg.insert(avg.end(), avgSq.begin(), avgSq.end());
    return avg;
}

// Run length, learning-rate schedule, gradient buckets and the loss scaler (restored on resume).
void setupSchedule(TrainingRun& run)
{
    const auto& o = run.o;
    run.maxSteps = o.maxSteps;
    if (o.epochs > 0)
        run.maxSteps = std::max<int64_t>(1, o.epochs * run.loader->batchesPerEpoch() / o.gradAccum);
    run.peakLr = o.scaleLr ? o.lr * run.world : o.lr;
    run.minLr = o.scaleLr ? o.minLr * run.world : o.minLr;
    run.wire = dist::parseWireType(o.compression);
    run.buckets =
        makeBuckets(run.params, o.bucketMb, run.device, run.device.is_cuda() && !run.comm.acceptsDeviceTensors());
    if (o.zero == 1)
        shardOptimizer(run);
    if (o.overlap && hasGradientsToExchange(run)) {
        std::vector<std::vector<torch::Tensor>> bucketParams;
        for (const auto& b : run.buckets)
            bucketParams.push_back(b.params);
        run.overlap = std::make_unique<OverlappedAllreduce>(
            bucketParams,
            [&run](size_t index) {
                // The step's number: run.step moves on only after the reductions (allreduceGradients).
                if (index == 0)
                    injectStall(run, run.step + 1, dist::Phase::Allreduce);
                reduceBucket(run, run.buckets[index]);
            },
            [&run](size_t index) {
                // --inject-delay R:MS:backward sleeps inside backward once the first bucket is ready,
                // while the peers' reductions already wait for this rank.
                if (index == 0)
                    injectSleep(run.o, run.rank, "backward");
            });
    }
    run.scaler = LossScaler(o.precision == "fp16");
    const auto& state = run.resume.state;
    if (!state.is_null() && state.contains("scaler"))
        run.scaler.restore(state["scaler"].value("scale", 1.0), state["scaler"].value("good_steps", int64_t(0)),
                           state["scaler"].value("skipped", int64_t(0)));
}

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
    // This rank's device: a CUDA device is identified through the driver (name, PCI bus id for NVML);
    // its peak comes from the datasheet table, else from a matmul measured on it in the training dtype.
    // CPU ranks measure matmul throughput (fp32, or bf16 under bf16 autocast) with the BLAS core the
    // trainer uses.
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

// Everything before the first step, in an order every rank follows (the collectives must match).
void setup(TrainingRun& run)
{
    setupDevice(run);
    loadTokenizer(run);
    run.resume = readResumePoint(run.o, run.comm);
    setupModel(run);
    broadcastStartState(run);
    setupData(run);
    setupSchedule(run);
    writeHello(run);
    if (!run.resume.state.is_null() && run.resume.state.contains("rng"))
        restoreRngState(run.resume.state["rng"].value("torch_cpu", std::string()));
}

// ---- One step ----------------------------------------------------------------------------------------

// What a step leaves for its report: this rank's figures, and what every rank shares.
struct StepResult {
    StepStats stats;
    double gradNorm = 0;
    double lr = 0;
    double lossScale = 1; // the scale this step's loss was multiplied by
};

// SIGUSR1 asks for a stop at the next step boundary with a checkpoint (Slurm sends it before a job's
// time limit with --signal=B:USR1@T; mpirun forwards it to every rank). A lock-free atomic is all a
// signal handler may touch.
std::atomic<bool> stopRequested{false};
static_assert(std::atomic<bool>::is_always_lock_free);

extern "C" void onStopSignal(int)
{
    stopRequested.store(true, std::memory_order_relaxed);
}

void installStopSignal()
{
    struct sigaction action = {};
    action.sa_handler = onStopSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART; // MPI's and the data loader's system calls go on
    sigaction(SIGUSR1, &action, nullptr);
}

// Every rank learns whether any was asked to stop (ranks get the signal at slightly different times).
bool stopAgreed(TrainingRun& run)
{
    const bool mine = stopRequested.load(std::memory_order_relaxed);
    return run.world > 1 ? run.comm.anyTrue(mine) : mine;
}

// --inject-exit (test aid): the rank ends at the start of the step as if it had crashed.
void exitIfInjected(const TrainingRun& run, int64_t thisStep)
{
    const auto& planned = run.o.injectExit;
    if (!planned || planned->first != run.rank || planned->second != thisStep)
        return;
    std::fprintf(stderr, "traindeck-trainer: rank %d on %s: injected exit (test aid) at step %lld\n", run.rank,
                 run.comm.host().c_str(), static_cast<long long>(thisStep));
    std::fflush(stderr);
    std::_Exit(3);
}

// Tells the stall inspector where this rank is; --inject-stall stops the rank there once. Overlapped,
// the allreduce happens on the communication thread, so an allreduce stall is injected there (the
// rank is then stuck inside the collective, as without overlap).
void enterPhase(TrainingRun& run, int64_t step, dist::Phase phase)
{
    if (run.stall)
        run.stall->enter(step, phase);
    if (!(run.overlap && phase == dist::Phase::Allreduce))
        injectStall(run, step, phase);
}

// Forward and backward over --grad-accum micro-batches; the gradients accumulate in the buckets.
void forwardBackward(TrainingRun& run, int64_t thisStep, StepStats& stats)
{
    const auto& o = run.o;
    double lossSum = 0;
    int64_t tokens = 0;
    for (int64_t micro = 0; micro < o.gradAccum; ++micro) {
        enterPhase(run, thisStep, dist::Phase::Data);
        auto t = Clock::now();
        injectSleep(o, run.rank, "data");
        data::Batch batch = run.loader->next();
        stats.dataMs += msSince(t);
        stats.samples += static_cast<double>(batch.inputIds.size(0));
        run.epoch = batch.epoch;
        run.position = batch.positionAfter;
        tokens += batch.tokens;

        enterPhase(run, thisStep, dist::Phase::Forward);
        t = Clock::now();
        injectSleep(o, run.rank, "forward");
        torch::Tensor loss;
        {
            const auto inputIds = batch.inputIds.to(run.device, /*non_blocking=*/true);
            const auto labels = batch.labels.to(run.device, /*non_blocking=*/true);
            AutocastScope autocast(run.device, o.precision);
            loss = run.net->loss(inputIds, labels);
            if (o.injectNan && o.injectNan->first == run.rank && o.injectNan->second == thisStep)
                loss = loss * std::numeric_limits<double>::quiet_NaN();
        }
        lossSum += loss.item<double>(); // waits for the forward pass on a device
        stats.fwdMs += msSince(t);

        enterPhase(run, thisStep, dist::Phase::Backward);
        t = Clock::now();
        // Overlapped, the last micro-step's backward hands each finished bucket to the communication
        // thread (and the backward delay happens inside it, see setupSchedule).
        const bool overlapped = run.overlap && micro == o.gradAccum - 1;
        if (overlapped) {
            reattachGradientViews(run.buckets);
            run.overlap->arm();
        } else {
            injectSleep(o, run.rank, "backward");
        }
        // A balanced rank's loss counts by its share of the global batch, so the averaged gradient is the
        // mean over all samples of the step, whatever the split.
        const double weight = run.shares.empty() ? 1.0
                                                 : static_cast<double>(run.shares[static_cast<size_t>(run.rank)]) /
                                                       static_cast<double>(o.microBatch);
        (loss * (run.scaler.scale() * weight / static_cast<double>(o.gradAccum))).backward();
        synchronize(run.device);
        stats.bwdMs += msSince(t);
    }
    stats.loss = lossSum / static_cast<double>(o.gradAccum);
    stats.tokens = static_cast<double>(tokens);
}

// Averages gradients over ranks, bucket by bucket; only after the last micro-step. The gradients
// already live in the buckets (see makeBuckets). Without --overlap every reduction happens here, all of
// it on the critical path; with it this waits for the reductions backward started.
void allreduceGradients(TrainingRun& run, StepStats& stats)
{
    const auto started = Clock::now();
    if (run.overlap) {
        const auto timing = run.overlap->finish();
        synchronize(run.device);
        stats.commMs = msSince(started);
        stats.commHiddenMs = timing.hiddenMs();
    } else {
        reattachGradientViews(run.buckets);
        if (hasGradientsToExchange(run))
            for (auto& b : run.buckets)
                reduceBucket(run, b);
        synchronize(run.device);
        stats.commMs = msSince(started);
    }
    stats.commBytes = static_cast<double>(bytesSent(run));
}

// Unscales the gradients (by the loss scale), clips them to --clip; returns their norm before clipping.
// --zero 1: only each rank's shards hold averaged gradients; the norm adds their squares over ranks.
double unscaleAndClip(TrainingRun& run)
{
    torch::NoGradGuard noGrad;
    const bool sharded = run.o.zero == 1;
    std::vector<torch::Tensor> norms;
    for (auto& b : run.buckets) {
        auto& g = sharded ? b.shard : b.flat;
        if (run.scaler.scale() != 1.0)
            g.div_(run.scaler.scale());
        norms.push_back(torch::linalg_vector_norm(g, 2).to(torch::kFloat64));
    }
    double gradNorm = torch::stack(norms).norm().item<double>(); // one device sync for all buckets
    if (sharded && run.world > 1) {
        auto squares = torch::tensor({static_cast<float>(gradNorm * gradNorm)}, torch::kFloat32);
        run.comm.allreduceSum(squares);
        gradNorm = std::sqrt(static_cast<double>(squares.item<float>()));
    }
    if (run.o.clip > 0 && std::isfinite(gradNorm) && gradNorm > run.o.clip) {
        const double scale = run.o.clip / (gradNorm + 1e-6);
        for (auto& b : run.buckets)
            (sharded ? b.shard : b.flat).mul_(scale);
    }
    return gradNorm;
}

// --zero 1 after the optimizer step: every rank's updated shard to every rank. The gradient bucket is
// the buffer (its gradients are used up): each rank puts its parameters' new values at its range, the
// all-gather fills in the others', and every parameter copies its values out.
void allgatherParameters(TrainingRun& run)
{
    torch::NoGradGuard noGrad;
    for (auto& b : run.buckets) {
        std::vector<torch::Tensor> mine;
        for (const auto& piece : run.zeroPieces[static_cast<size_t>(&b - run.buckets.data())])
            mine.push_back(b.params[piece.param].detach().view(-1).narrow(0, piece.paramOffset, piece.length));
        if (!mine.empty())
            b.shard.copy_(torch::cat(mine));
        if (run.world > 1) {
            if (b.host.defined()) {
                b.host.copy_(b.flat);
                run.comm.allgatherInPlace(b.host, b.counts);
                b.flat.copy_(b.host);
            } else {
                run.comm.allgatherInPlace(b.flat, b.counts);
            }
        }
        for (size_t i = 0; i < b.params.size(); ++i)
            b.params[i].detach().copy_(b.views[i]);
    }
}

// The optimizer step, skipped (with a warning) when the gradients are not finite; clears the gradients.
void applyGradients(TrainingRun& run, int64_t thisStep, StepResult& result)
{
    result.gradNorm = unscaleAndClip(run);
    result.lr = learningRate(run.o, run.peakLr, run.minLr, thisStep, run.maxSteps);
    // Every rank holds the same averaged gradients, so every rank takes the same decision.
    result.lossScale = run.scaler.scale();
    const bool skip = run.scaler.update(std::isfinite(result.gradNorm));
    if (!skip) {
        run.optimizer->step(result.lr, run.o.weightDecay);
        if (run.o.zero == 1)
            allgatherParameters(run);
    } else if (run.lead)
        run.metrics->write("warning",
                           {{"rank", -1},
                            {"host", ""},
                            {"code", "non_finite_gradients"},
                            {"message", "step " + std::to_string(thisStep) + ": gradients are not finite (loss scale " +
                                            std::to_string(result.lossScale) + "); the step was skipped"}});
    for (auto& b : run.buckets)
        b.flat.zero_();
    synchronize(run.device);
}

// One optimizer step: micro-steps, gradient allreduce, clipping, the optimizer; with its timings.
StepResult runStep(TrainingRun& run)
{
    const auto stepStart = Clock::now();
    const double cpuStart = telemetry::processCpuSeconds();
    const int64_t thisStep = run.step + 1;
    exitIfInjected(run, thisStep);
    StepResult result;
    StepStats& stats = result.stats;

    forwardBackward(run, thisStep, stats);

    enterPhase(run, thisStep, dist::Phase::Allreduce);
    allreduceGradients(run, stats);

    enterPhase(run, thisStep, dist::Phase::Optimizer);
    auto t = Clock::now();
    injectSleep(run.o, run.rank, "optimizer");
    applyGradients(run, thisStep, result);
    stats.optMs = msSince(t);
    run.step = thisStep;
    run.stepOut = run.step;

    stats.stepMs = msSince(stepStart);
    const double cpu = telemetry::processCpuSeconds() - cpuStart;
    stats.util = std::min(100.0, 100.0 * cpu / (stats.stepMs / 1000.0) / std::max(1, torch::get_num_threads()));
    stats.memMb = telemetry::residentMiB();
    if (run.device.is_cuda())
        sampleGpu(run.deviceInfo, stats.util, stats.memMb);
    return result;
}

// ---- Report ------------------------------------------------------------------------------------------

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

// Gathers every rank's figures; rank 0 writes the step record and, every --log-every steps, a line on
// stderr. Throughput and MFU use rank 0's step time.
std::vector<StepStats> reportStep(TrainingRun& run, const StepResult& result)
{
    const auto& o = run.o;
    enterPhase(run, run.step, dist::Phase::Report);
    const auto ranks = StepStats::gatherAtRankZero(run.comm, result.stats);
    if (!run.lead)
        return ranks;
    double loss = 0, totalTokens = 0, totalSamples = 0;
    for (const StepStats& r : ranks) {
        // Balanced: the mean over all samples (each rank's mean weighted by its share).
        loss += run.shares.empty() ? r.loss : r.loss * r.samples;
        totalTokens += r.tokens;
        totalSamples += r.samples;
    }
    loss /= run.shares.empty() ? run.world : totalSamples;
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

// --balance auto: every --balance-every steps rank 0 proposes a new split from each rank's median time per
// sample (data, forward and backward: the work that grows with the samples) and every rank takes it.
void rebalance(TrainingRun& run, const std::vector<StepStats>& ranks)
{
    if (run.shares.empty() || run.o.balance != "auto")
        return;
    if (run.lead)
        for (size_t r = 0; r < ranks.size() && r < run.msPerSample.size(); ++r)
            if (ranks[r].samples > 0)
                run.msPerSample[r].push_back((ranks[r].dataMs + ranks[r].fwdMs + ranks[r].bwdMs) / ranks[r].samples);
    if (run.step % run.o.balanceEvery != 0 || run.step >= run.maxSteps)
        return;
    auto proposal = torch::tensor(run.shares, torch::kInt64);
    if (run.lead) {
        std::vector<double> perSample;
        for (auto& window : run.msPerSample) { // the median, in place: the window starts over anyway
            std::nth_element(window.begin(), window.begin() + static_cast<std::ptrdiff_t>(window.size() / 2),
                             window.end());
            perSample.push_back(window.empty() ? 0.0 : window[window.size() / 2]);
            window.clear();
        }
        const auto next = proposeShares(run.shares, perSample);
        if (next != run.shares) {
            std::string text;
            for (size_t r = 0; r < next.size(); ++r)
                text += (r ? "," : "") + std::to_string(next[r]);
            std::fprintf(stderr, "balance: samples per rank %s from step %lld (predicted step %.0f ms, was %.0f ms)\n",
                         text.c_str(), static_cast<long long>(run.step + 1), predictedStepMs(next, perSample),
                         predictedStepMs(run.shares, perSample));
        }
        proposal = torch::tensor(next, torch::kInt64);
    }
    broadcastFromRankZero(run.comm, proposal);
    std::vector<int64_t> next(proposal.data_ptr<int64_t>(), proposal.data_ptr<int64_t>() + proposal.numel());
    if (next == run.shares)
        return;
    run.shares = next;
    run.loader->resplit(next, run.epoch, run.position);
}

// ---- Checkpoints -------------------------------------------------------------------------------------

// trainer_state.json: where a resumed run continues, and what it must match to continue exactly.
nlohmann::json trainerState(const TrainingRun& run, int64_t atStep)
{
    const auto& o = run.o;
    const auto& scaler = run.scaler;
    nlohmann::json state{
        {"step", atStep},
        {"epoch", run.epoch},
        {"position", run.position},
        {"samples_consumed_in_epoch", run.shares.empty() ? run.position * run.world : run.position},
        {"world_size", run.world},
        {"zero", run.o.zero},
        {"optimizer_steps", run.optimizer->steps()},
        {"loss_scale", scaler.enabled() ? nlohmann::json(scaler.scale()) : nlohmann::json()},
        {"scaler", {{"scale", scaler.scale()}, {"good_steps", scaler.goodSteps()}, {"skipped", scaler.skippedSteps()}}},
        {"lr_schedule", {{"peak", run.peakLr}, {"min", run.minLr}, {"warmup", o.warmup}, {"max_steps", run.maxSteps}}},
        {"seed", o.seed},
        {"rng", {{"torch_cpu", rngStateHex()}}},
        {"config_hash",
         std::to_string(std::hash<std::string>{}(run.net->config().toJson().dump() + std::to_string(o.seqLen)))}};
    if (!run.shares.empty())
        state["balance_shares"] = run.shares; // the split the next step uses; positions are global
    return state;
}

// Rank 0 writes; the barriers keep the other ranks from running ahead or ending meanwhile.
void writeCheckpoint(TrainingRun& run, int64_t atStep)
{
    enterPhase(run, atStep, dist::Phase::CheckpointWait);
    run.comm.barrier();
    const auto optimizerState = optimizerStateForCheckpoint(run); // gathered from every rank with --zero 1
    if (run.lead) {
        enterPhase(run, atStep, dist::Phase::CheckpointWrite);
        auto r = saveCheckpoint(run.o.out, atStep, run.net, optimizerState, run.optimizer->steps(),
                                trainerState(run, atStep), run.tokenizerFiles, run.o.keep);
        run.metrics->write("checkpoint", {{"step", atStep}, {"path", r.path}, {"bytes", r.bytes}, {"ms", r.ms}});
        std::fprintf(stderr, "checkpoint %s (%.1f MB, %.0f ms)\n", r.path.c_str(), r.bytes / 1e6, r.ms);
        enterPhase(run, atStep, dist::Phase::CheckpointWait);
    }
    run.comm.barrier();
}

// ---- The stall inspector -----------------------------------------------------------------------------

// On rank 0's inspector thread: a `warning` record (code stall) naming the ranks that hold the job up;
// at --stall-abort an `error` record and `done` (failed), then the job ends.
void reportStall(TrainingRun& run, const std::vector<std::string>& hosts, const dist::StallVerdict& v,
                 const std::vector<dist::RankProgress>& board, bool abort)
{
    const std::string text = dist::describeStall(v, board, hosts);
    const int rank = v.culprits.empty() ? -1 : v.culprits.front();
    const std::string host = rank >= 0 && static_cast<size_t>(rank) < hosts.size() ? hosts[size_t(rank)] : "";
    nlohmann::ordered_json ranks = nlohmann::ordered_json::array();
    for (int r : v.culprits) {
        const auto& p = board[size_t(r)];
        ranks.push_back({{"rank", r},
                         {"host", hosts[size_t(r)]},
                         {"step", p.step},
                         {"phase", dist::phaseName(p.phase)},
                         {"in_phase_s", p.inPhaseS},
                         {"silent_s", p.silentS}});
    }
    const nlohmann::ordered_json detail = {{"case", dist::stallCaseName(v.kind)},
                                           {"step", v.step},
                                           {"phase", dist::phaseName(v.phase)},
                                           {"waited_s", v.waitedS},
                                           {"ranks", ranks},
                                           {"waiting", v.waiting}};
    if (!abort) {
        run.metrics->write(
            "warning",
            {{"rank", rank}, {"host", host}, {"message", "stall: " + text}, {"code", "stall"}, {"stall", detail}});
        std::fprintf(stderr, "traindeck-trainer: stall: %s\n", text.c_str());
        std::fflush(stderr);
        return;
    }
    int64_t finished = std::numeric_limits<int64_t>::max(); // the steps every rank finished
    for (const auto& p : board)
        finished = std::min(finished, p.step - 1);
    char limit[64];
    std::snprintf(limit, sizeof limit, "%g s", run.o.stallAbort);
    const std::string message = "stall: " + text + "; the job was aborted after --stall-abort " + limit;
    run.metrics->write("error", {{"rank", rank}, {"host", host}, {"message", message}, {"exit_code", 1}});
    run.metrics->write("done", {{"status", "failed"},
                                {"steps", std::max<int64_t>(0, finished)},
                                {"seconds", std::chrono::duration<double>(Clock::now() - run.started).count()}});
    std::fprintf(stderr, "traindeck-trainer: rank 0 on %s: %s\n", run.comm.host().c_str(), message.c_str());
    std::fflush(stderr);
    run.comm.abort(1);
}

// Every rank: the inspector watches the training loop (setup, with its uneven data preparation, is not
// watched). All ranks agree whether it runs.
void startStallInspector(TrainingRun& run)
{
    if (!(run.o.stallWarning > 0))
        return;
    const auto hosts = run.comm.allgatherStrings(run.comm.host());
    if (run.comm.anyTrue(!run.comm.hasProgressChannel())) {
        if (run.lead)
            run.metrics->write("warning", {{"rank", -1},
                                           {"host", ""},
                                           {"code", "stall_inspector_off"},
                                           {"message", "the stall inspector is off: the MPI library cannot take calls "
                                                       "from two threads (MPI_THREAD_MULTIPLE)"}});
        return;
    }
    dist::StallOptions options{run.o.stallWarning, run.o.stallAbort};
    run.stall = std::make_unique<dist::StallInspector>(
        run.comm, options, hosts,
        [&run, hosts](const dist::StallVerdict& v, const std::vector<dist::RankProgress>& board, bool abort) {
            reportStall(run, hosts, v, board, abort);
        });
    run.stall->enter(run.step + 1, dist::Phase::Data);
}

// ---- The loop ----------------------------------------------------------------------------------------

int trainLoop(const TrainOptions& o, dist::Communicator& comm, std::unique_ptr<telemetry::MetricsWriter>& metrics,
              int64_t& stepOut)
{
    const auto started = Clock::now();
    TrainingRun run(o, comm, metrics, stepOut);
    setup(run);
    startStallInspector(run);
    while (run.step < run.maxSteps) {
        const StepResult result = runStep(run);
        rebalance(run, reportStep(run, result));
        if (run.step < run.maxSteps && stopAgreed(run)) {
            writeCheckpoint(run, run.step);
            const std::string message = "stopped on SIGUSR1 after step " + std::to_string(run.step) +
                                        " with a checkpoint; resume continues from it";
            if (run.lead) {
                metrics->write("warning", {{"rank", -1}, {"host", ""}, {"code", "stop_signal"}, {"message", message}});
                metrics->write("done", {{"status", "cancelled"},
                                        {"steps", run.step},
                                        {"seconds", std::chrono::duration<double>(Clock::now() - started).count()}});
                std::fprintf(stderr, "traindeck-trainer: %s\n", message.c_str());
            }
            if (run.stall)
                run.stall->finish();
            return kStoppedExitCode;
        }
        if (o.checkpointEvery > 0 && run.step % o.checkpointEvery == 0 && run.step < run.maxSteps)
            writeCheckpoint(run, run.step);
    }
    if (o.verifySync) {
        enterPhase(run, run.step, dist::Phase::Report);
        const bool equal = ranksInSync(run);
        if (run.lead) {
            std::fprintf(stderr, "sync check at the end: ranks %s\n", equal ? "equal" : "differ");
            if (!equal)
                throw RuntimeFailure("parameters diverged across ranks during training");
        }
    }
    writeCheckpoint(run, run.step);
    if (run.lead)
        metrics->write("done", {{"status", "finished"},
                                {"steps", run.step},
                                {"seconds", std::chrono::duration<double>(Clock::now() - started).count()}});
    if (run.stall)
        run.stall->finish();
    return 0;
}

} // namespace

namespace {

// --comm: NCCL over `control` when every rank trains on a CUDA device and NCCL was built in (auto) or
// asked for (nccl); otherwise the control communicator itself (MPI). Every rank takes the same choice.
std::unique_ptr<dist::Communicator> gradientCommunicator(const TrainOptions& o, dist::Communicator& control)
{
    const auto requested = dist::parseCommBackend(o.comm);
    if (requested == dist::CommBackend::Mpi)
        return nullptr;
    const torch::Device device = resolveDevice(o.device, control.localRank());
    const bool cudaHere = device.is_cuda();
    const bool cudaEverywhere = !control.anyTrue(!cudaHere);
    if (!cudaEverywhere && requested == dist::CommBackend::Nccl && cudaHere)
        throw InputError("--comm nccl needs a CUDA device on every rank, and some ranks train on the CPU (--device)");
    if (dist::chooseCommBackend(requested, cudaHere && cudaEverywhere) != dist::CommBackend::Nccl)
        return nullptr;
    const auto hosts = control.allgatherStrings(control.host());
    const int local = dist::localGpuIndex(hosts, control.rank(), static_cast<int>(torch::cuda::device_count()));
    const int index = o.device.starts_with("cuda:") ? device.index() : local;
    return dist::makeNcclCommunicator(control, index, o.collectiveTimeout);
}

} // namespace

int runTraining(const TrainOptions& o, dist::Communicator& control)
{
    installStopSignal();
    std::unique_ptr<telemetry::MetricsWriter> metrics;
    int64_t step = 0;
    const auto started = std::chrono::steady_clock::now();
    const auto nccl = gradientCommunicator(o, control);
    dist::Communicator& comm = nccl ? *nccl : control;
    try {
        return trainLoop(o, comm, metrics, step);
    } catch (const std::exception& e) {
        if (metrics) {
            const bool input = dynamic_cast<const InputError*>(&e) != nullptr;
            metrics->write(
                "error",
                {{"rank", comm.rank()}, {"host", comm.host()}, {"message", e.what()}, {"exit_code", input ? 2 : 1}});
            metrics->write(
                "done",
                {{"status", "failed"},
                 {"steps", step},
                 {"seconds", std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count()}});
        }
        throw;
    }
}

} // namespace traindeck::train
