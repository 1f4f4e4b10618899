// traindeck-trainer: the LibTorch data-parallel trainer for Qwen2 models.
// Exit codes: 0 success, 1 runtime failure, 2 bad input (file, flag or configuration), 3 injected exit.
#include "dist/communicator.h"
#include "dist/link_search.h"
#include "dist/nccl_communicator.h"
#include "export/gguf_export.h"
#include "model/hf_checkpoint.h"
#include "model/qwen2.h"
#include "model/safetensors.h"
#include "tokenizer/tokenize_command.h"
#include "tokenizer/tokenizer.h"
#include "train/device.h"
#include "train/options.h"
#include "train/plan_command.h"
#include "train/trainer.h"
#include "util/blas.h"
#include "util/errors.h"
#include "util/fileio.h"
#include "util/gpu.h"

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <chrono>
#include <cstdio>
#include <dlfcn.h>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <sstream>
#include <thread>

#ifdef TRAINDECK_WITH_JEMALLOC
#include <jemalloc/jemalloc.h>

// Every training step allocates and frees the same large buffers (logits, activations, gradients).
// glibc hands blocks that large back to the kernel at once, and the next step page-faults them in again:
// about 40% of a CPU step on qwen2-small. jemalloc, told never to purge dirty pages, reuses them (the
// process keeps its peak footprint, as the CUDA caching allocator does on GPUs).
extern "C" {
const char* malloc_conf = "dirty_decay_ms:-1,muzzy_decay_ms:-1";
}
#endif

namespace fs = std::filesystem;
using namespace traindeck;

namespace {

const char* kUsage =
    "usage: traindeck-trainer <command> [options]\n"
    "\n"
    "commands:\n"
    "  train        data-parallel training (run under mpirun for several ranks); see train --help\n"
    "  info         --preset NAME | --model DIR: parameter count and config as JSON; validates weights\n"
    "  plan         [train flags] [--world-size N] [--available-mb MIB] [--json]: memory per rank, per part\n"
    "  init         --preset NAME --seed S [--init-std X] [--tokenizer FILE] --out DIR: random model\n"
    "  eval-logits  --model DIR --ids \"i1 i2 ...\" --out FILE [--device cpu|cuda|cuda:N]: log-probabilities, float32 "
    "T x V\n"
    "  export-gguf  --model DIR --out FILE.gguf [--dtype f32|f16|bf16]: llama.cpp export\n"
    "  tokenize     --tokenizer FILE [--input FILE] [--special] [--decode] [--stats] [--threads N]\n"
    "  bench-comm   [--json] [--iters N] [--max-bytes B]: allreduce sweep 1 KiB..256 MiB (under mpirun)\n"
    "  bench-links  [--bytes B] [--iters N] [--all-pairs] [--seed S] [--max-rounds R]: latency and bandwidth\n"
    "               (fastest round trip) in rounds of disjoint rank pairs measured together, a search for slow\n"
    "               nodes (default; every pair below 6 ranks) or --all-pairs, as JSON\n"
    "               (under mpirun, one rank per node: the link test of `traindeck-cli check --links`)\n"
    "  self-check   versions, devices and threads as JSON\n"
    "  --version    print the version\n"
    "\n"
    "exit codes: 0 success, 1 runtime failure, 2 bad input, 3 injected exit (test aid)\n";

// Minimal --flag value parsing for the small subcommands.
std::map<std::string, std::string> parseFlags(const std::vector<std::string>& args,
                                              const std::vector<std::string>& known,
                                              const std::vector<std::string>& booleans = {})
{
    std::map<std::string, std::string> out;
    for (size_t i = 0; i < args.size(); ++i) {
        std::string a = args[i];
        if (a.rfind("--", 0) != 0)
            throw InputError("unexpected argument \"" + a + "\"");
        a = a.substr(2);
        if (std::find(booleans.begin(), booleans.end(), a) != booleans.end()) {
            out[a] = "1";
            continue;
        }
        if (std::find(known.begin(), known.end(), a) == known.end())
            throw InputError("unknown flag --" + a);
        if (i + 1 >= args.size())
            throw InputError("--" + a + " needs a value");
        out[a] = args[++i];
    }
    return out;
}

int cmdInfo(const std::vector<std::string>& args)
{
    auto f = parseFlags(args, {"preset", "model"});
    if (f.count("preset") == f.count("model"))
        throw InputError("info needs exactly one of --preset NAME or --model DIR");
    nlohmann::ordered_json out;
    model::Qwen2Config config;
    if (f.count("preset")) {
        config = model::Qwen2Config::preset(f["preset"]);
        out["preset"] = f["preset"];
    } else {
        const std::string dir = f["model"];
        if (!fs::is_directory(dir))
            throw InputError(dir + ": model directory does not exist");
        config = model::Qwen2Config::fromFile((fs::path(dir) / "config.json").string());
        auto summary = model::validateWeights(dir, config);
        out["model"] = dir;
        out["weights"] = {{"files", summary.files}, {"tensors", summary.tensors}, {"parameters", summary.parameters}};
    }
    out["parameters"] = config.parameterCount();
    out["config"] = config.toJson();
    std::cout << out.dump(2) << "\n";
    return 0;
}

int cmdSelfCheck()
{
    const auto blas = util::blasInfo();
    nlohmann::ordered_json j;
    j["trainer"] = TRAINDECK_VERSION;
    j["libtorch"] = std::to_string(TORCH_VERSION_MAJOR) + "." + std::to_string(TORCH_VERSION_MINOR) + "." +
                    std::to_string(TORCH_VERSION_PATCH);
    j["cuda"] = {{"available", torch::cuda::is_available()}, {"devices", torch::cuda::device_count()}};
    // NCCL: the library the trainer was linked with (its NCCL communicator, --comm), else the one a node
    // has, if any.
    j["nccl"] = nullptr;
    j["nccl_communicator"] = dist::ncclBuilt();
    if (dist::ncclBuilt())
        j["nccl"] = dist::ncclLibraryVersion();
    else if (void* nccl = ::dlopen("libnccl.so.2", RTLD_LAZY | RTLD_LOCAL)) {
        using GetVersion = int (*)(int*);
        int version = 0;
        if (auto fn = reinterpret_cast<GetVersion>(::dlsym(nccl, "ncclGetVersion")); fn && fn(&version) == 0)
            j["nccl"] = dist::ncclVersionString(version);
    }
    j["mpi"] = dist::mpiLibraryVersion();
    j["allocator"] = {{"name", "glibc"}};
#ifdef TRAINDECK_WITH_JEMALLOC
    {
        const char* version = nullptr;
        ssize_t decay = 0;
        size_t len = sizeof(version), decayLen = sizeof(decay);
        if (mallctl("version", &version, &len, nullptr, 0) == 0 &&
            mallctl("opt.dirty_decay_ms", &decay, &decayLen, nullptr, 0) == 0)
            j["allocator"] = {{"name", "jemalloc"}, {"version", version}, {"dirty_decay_ms", decay}};
    }
#endif
    j["blas"] = {{"library", blas.library},
                 {"core", blas.coreName},
                 {"cpu_best_core", blas.cpuBestCore},
                 {"coretype_env", blas.coretypeEnv},
                 {"corrected", blas.correction == util::BlasCorrection::InPlace      ? "in_place"
                               : blas.correction == util::BlasCorrection::Reexecuted ? "reexecuted"
                                                                                     : "no"},
                 {"threads", blas.numThreads},
                 // After a re-execution for the BLAS core: still the program's name (ps, pkill).
                 {"process_name", util::readProcessName()}};
    j["threads"] = {{"torch_intra_op", torch::get_num_threads()}, {"hardware", std::thread::hardware_concurrency()}};
    nlohmann::ordered_json devices = nlohmann::ordered_json::array();
    devices.push_back({{"type", "cpu"}, {"cores", std::thread::hardware_concurrency()}});
    j["devices"] = devices;
    // GPUs as the CUDA driver and NVML report them, both loaded with dlopen: null/empty without a driver.
    auto orNull = [](const std::string& s) { return s.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(s); };
    std::string gpusError;
    const auto gpus = util::cudaDevices(&gpusError);
    j["cuda_driver"] = orNull(util::cudaDriverVersion());
    nlohmann::ordered_json gpuList = nlohmann::ordered_json::array();
    for (const auto& g : gpus) {
        const auto peak = util::gpuPeakFlops(g.name, "bf16");
        gpuList.push_back(
            {{"index", g.index},
             {"name", g.name},
             {"pci_bus_id", g.pciBusId},
             {"memory_total_mb", g.memoryTotalBytes / (1024 * 1024)},
             {"compute_capability", std::to_string(g.computeMajor) + "." + std::to_string(g.computeMinor)},
             {"peak_bf16_tflops",
              peak ? nlohmann::ordered_json(std::round(*peak / 1e10) / 100) : nlohmann::ordered_json()}});
    }
    j["gpus"] = gpuList;
    j["gpus_error"] = orNull(gpusError); // why "gpus" is empty (or a device was skipped)
    const auto& nvml = util::Nvml::instance();
    j["nvml"] = {
        {"available", nvml.available()}, {"driver", orNull(nvml.driverVersion())}, {"error", orNull(nvml.error())}};
    std::cout << j.dump(2) << "\n";
    return 0;
}

int cmdInit(const std::vector<std::string>& args)
{
    auto f = parseFlags(args, {"preset", "seed", "init-std", "out", "tokenizer", "dtype"});
    if (!f.count("preset") || !f.count("out"))
        throw InputError("init needs --preset NAME and --out DIR");
    auto config = model::Qwen2Config::preset(f["preset"]);
    uint64_t seed = 0;
    double std = config.initializer_range;
    try {
        if (f.count("seed"))
            seed = std::stoull(f["seed"]);
        if (f.count("init-std"))
            std = std::stod(f["init-std"]);
    } catch (const std::exception&) {
        throw InputError("init: --seed must be an integer and --init-std a number");
    }
    if (!(std > 0))
        throw InputError("init: --init-std must be positive");
    const auto dtype = model::parseDtypeName(f.count("dtype") ? f["dtype"] : "fp32");
    std::vector<std::string> tokFiles;
    if (f.count("tokenizer")) {
        if (!fs::exists(f["tokenizer"]))
            throw InputError(f["tokenizer"] + ": tokenizer file does not exist");
        tokFiles.push_back(f["tokenizer"]);
        const auto cfg = fs::path(f["tokenizer"]).parent_path() / "tokenizer_config.json";
        if (fs::exists(cfg))
            tokFiles.push_back(cfg.string());
    }
    torch::manual_seed(seed);
    model::Qwen2ForCausalLM net(config);
    torch::manual_seed(seed);
    net->initWeights(std);
    model::savePretrained(net, f["out"], dtype, tokFiles);
    std::cerr << "wrote " << f["out"] << " (" << config.parameterCount() << " parameters)\n";
    return 0;
}

// Allreduce sweep with nccl-tests' definitions: algbw = bytes / t, busbw = algbw * 2(n-1)/n.
int cmdBenchComm(std::vector<std::string> args, int* argc, char*** argv)
{
#ifdef TRAINDECK_NO_MPI
    (void)args;
    (void)argc;
    (void)argv;
    throw InputError("bench-comm needs MPI: this traindeck-trainer was built without MPI (TRAINDECK_WITH_MPI=OFF)");
#else
    bool json = false, verify = false;
    int iterations = 5;
    int64_t maxBytes = 256ll << 20;
    for (size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--json")
            json = true;
        else if (args[i] == "--verify")
            verify = true;
        else if (args[i] == "--iters" && i + 1 < args.size())
            iterations = std::max(1, std::atoi(args[++i].c_str()));
        else if (args[i] == "--max-bytes" && i + 1 < args.size())
            maxBytes = std::max<int64_t>(1024, std::atoll(args[++i].c_str()));
        else
            throw InputError("bench-comm: unknown argument \"" + args[i] +
                             "\" (use --json, --verify, --iters N, --max-bytes B)");
    }
    auto comm = dist::makeCommunicator(argc, argv);
    const int n = comm->size();
    if (verify) {
        // Error of each wire type against the exact float32 sum, relative to the largest magnitude, on
        // gradients-like data spanning six orders of magnitude.
        torch::manual_seed(100 + comm->rank());
        auto base = torch::randn({1 << 16}) * torch::pow(10.0, -6.0 * torch::rand({1 << 16}));
        auto exact = base.clone();
        comm->allreduceSum(exact);
        nlohmann::ordered_json out = nlohmann::ordered_json::object();
        for (auto [name, wire] : {std::pair{"none", dist::WireType::None}, std::pair{"fp16", dist::WireType::Fp16},
                                  std::pair{"bf16", dist::WireType::Bf16}}) {
            auto t = base.clone();
            comm->allreduceSum(t, wire);
            out[name] = ((t - exact).abs().max() / exact.abs().max()).item<double>();
        }
        if (comm->rank() == 0)
            std::cout << nlohmann::ordered_json{{"ranks", n}, {"max_relative_error", out}}.dump() << "\n";
        return 0;
    }
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    if (comm->rank() == 0 && !json)
        std::printf("# allreduce (sum, float32) over %d rank(s), %s\n%12s %12s %12s %12s\n", n,
                    comm->libraryVersion().c_str(), "bytes", "time_us", "algbw_GB/s", "busbw_GB/s");
    for (int64_t bytes = 1024; bytes <= maxBytes; bytes *= 4) {
        auto t = torch::ones({bytes / 4}, torch::kFloat32);
        comm->allreduceSum(t); // warm-up
        comm->barrier();
        const auto start = std::chrono::steady_clock::now();
        for (int i = 0; i < iterations; ++i)
            comm->allreduceSum(t);
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / iterations;
        // Every rank's time is bounded by the slowest; report rank 0's.
        const double algbw = bytes / seconds / 1e9;
        const double busbw = algbw * (n > 1 ? 2.0 * (n - 1) / n : 1.0);
        if (comm->rank() == 0) {
            if (json)
                rows.push_back(
                    {{"bytes", bytes}, {"time_us", seconds * 1e6}, {"algbw_gbps", algbw}, {"busbw_gbps", busbw}});
            else
                std::printf("%12lld %12.1f %12.3f %12.3f\n", static_cast<long long>(bytes), seconds * 1e6, algbw,
                            busbw);
        }
    }
    if (comm->rank() == 0 && json)
        std::cout << nlohmann::ordered_json{{"ranks", n}, {"mpi", comm->libraryVersion()}, {"results", rows}}.dump()
                  << "\n";
    return 0;
#endif
}

// Point-to-point ping-pong in rounds of disjoint pairs (dist::LinkSearch): rank 0 plans each round and
// broadcasts it, every pair of the round measures at the same time (latency from 8-byte round trips,
// bandwidth from round trips of --bytes), rank 0 gathers the results and plans the next. Rank 0 prints a
// JSON line per round ({"round", "round_pairs", "seconds"}) and one with everything at the end.
int cmdBenchLinks(std::vector<std::string> args, int* argc, char*** argv)
{
#ifdef TRAINDECK_NO_MPI
    (void)args;
    (void)argc;
    (void)argv;
    throw InputError("bench-links needs MPI: this traindeck-trainer was built without MPI (TRAINDECK_WITH_MPI=OFF)");
#else
    auto f = parseFlags(args, {"bytes", "iters", "seed", "max-rounds"}, {"all-pairs"});
    auto number = [&](const char* name, long long fallback, long long lo, long long hi) {
        if (!f.count(name))
            return fallback;
        try {
            size_t used = 0;
            const long long v = std::stoll(f[name], &used);
            if (used == f[name].size() && v >= lo && v <= hi)
                return v;
        } catch (const std::exception&) {
        }
        throw InputError(std::string("bench-links: --") + name + " expects an integer " + std::to_string(lo) + ".." +
                         std::to_string(hi) + ", got \"" + f[name] + "\"");
    };
    const int64_t bytes = number("bytes", 1 << 20, 1024, 1ll << 30);
    const int iterations = static_cast<int>(number("iters", 5, 1, 1000));
    const int maxRounds = static_cast<int>(number("max-rounds", 4, 1, 100));
    const auto seed = static_cast<uint64_t>(
        number("seed", std::chrono::system_clock::now().time_since_epoch().count() & 0x7fffffff, 0, 0x7fffffff));
    auto comm = dist::makeCommunicator(argc, argv);
    const int n = comm->size();
    const int me = comm->rank();
    if (n < 2)
        throw InputError("bench-links needs at least two ranks (one per node), got " + std::to_string(n));
    const std::vector<std::string> hosts = comm->allgatherStrings(comm->host());
    const auto mode = dist::LinkSearch::modeFor(n, f.count("all-pairs") > 0);
    dist::LinkSearch search(n, mode, seed, maxRounds); // planned on rank 0 only
    auto small = torch::zeros({8}, torch::kUInt8);
    auto large = torch::ones({bytes}, torch::kUInt8);
    // The fastest of `count` round trips: what the link can do. Slower ones measure whatever else the
    // hosts were busy with (a run in progress, a page fault), not the link.
    auto fastestRoundTrip = [&](torch::Tensor& t, int peer, bool initiator, int count) {
        double best = std::numeric_limits<double>::max();
        for (int i = 0; i < count; ++i) {
            const auto start = std::chrono::steady_clock::now();
            comm->pingPong(t, peer, initiator);
            best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        }
        return best;
    };
    nlohmann::ordered_json rounds = nlohmann::ordered_json::array();
    // Per rank: its partner this round, +(peer+1) when it initiates, -(peer+1) when it answers, 0 idle.
    auto plan = torch::zeros({n}, torch::kInt64);
    for (;;) {
        const auto started = std::chrono::steady_clock::now();
        std::vector<std::pair<int, int>> pairs;
        if (me == 0) {
            pairs = search.nextRound();
            plan.zero_();
            for (const auto& [a, b] : pairs) {
                plan[a] = b + 1;
                plan[b] = -(a + 1);
            }
        }
        comm->broadcast(plan, 0);
        const int64_t mine = plan[me].item<int64_t>();
        if (plan.abs().sum().item<int64_t>() == 0)
            break;
        comm->barrier(); // the round's pairs start together
        std::vector<double> result{-1.0, -1.0};
        if (mine != 0) {
            const int peer = static_cast<int>(std::abs(mine) - 1);
            const bool initiator = mine > 0;
            fastestRoundTrip(small, peer, initiator, 3); // connection set-up
            const double tSmall = fastestRoundTrip(small, peer, initiator, 20);
            fastestRoundTrip(large, peer, initiator, 1); // TCP window growth
            const double tLarge = fastestRoundTrip(large, peer, initiator, iterations);
            result = {tSmall / 2 * 1e6, static_cast<double>(bytes) * 8.0 / (tLarge / 2) / 1e6};
        }
        const std::vector<double> all = comm->gather(result, 0);
        if (me == 0) {
            std::vector<dist::PairMeasurement> measured;
            for (const auto& [a, b] : pairs)
                measured.push_back({a, b, search.roundsRun() + 1, all[static_cast<size_t>(2 * a)],
                                    all[static_cast<size_t>(2 * a + 1)]});
            search.record(measured);
            const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
            rounds.push_back({{"round", search.roundsRun()}, {"pairs", pairs.size()}, {"seconds", seconds}});
            std::cout << nlohmann::ordered_json{{"round", search.roundsRun()},
                                                {"round_pairs", pairs.size()},
                                                {"seconds", seconds}}
                             .dump()
                      << std::endl;
        }
    }
    if (me == 0) {
        nlohmann::ordered_json pairList = nlohmann::ordered_json::array();
        for (const dist::PairMeasurement& m : search.measurements())
            pairList.push_back({{"a", m.a},
                                {"b", m.b},
                                {"round", m.round},
                                {"host_a", hosts[static_cast<size_t>(m.a)]},
                                {"host_b", hosts[static_cast<size_t>(m.b)]},
                                {"latency_us", m.latencyUs},
                                {"bandwidth_mbps", m.bandwidthMbps},
                                {"slow", search.isSlow(m)}});
        nlohmann::ordered_json verdicts = nlohmann::ordered_json::array();
        for (const dist::LinkVerdict& v : search.verdicts()) {
            nlohmann::ordered_json j{{"kind", dist::verdictKindName(v.kind)}, {"node", v.node}};
            if (v.peer >= 0)
                j["peer"] = v.peer;
            j["by"] = v.byLatency ? "latency" : "bandwidth";
            j["slow_with"] = v.slowWith;
            j["fast_with"] = v.fastWith;
            verdicts.push_back(j);
        }
        std::cout << nlohmann::ordered_json{{"ranks", n},
                                            {"mpi", comm->libraryVersion()},
                                            {"bytes", bytes},
                                            {"iters", iterations},
                                            {"mode", mode == dist::LinkSearch::Mode::AllPairs ? "all-pairs" : "nodes"},
                                            {"seed", seed},
                                            {"rounds", rounds},
                                            {"median_bandwidth_mbps", search.medianBandwidthMbps()},
                                            {"median_latency_us", search.medianLatencyUs()},
                                            {"slow_below_fraction", dist::LinkSearch::kSlowBandwidthFraction},
                                            {"hosts", hosts},
                                            {"pairs", pairList},
                                            {"verdicts", verdicts}}
                         .dump()
                  << "\n";
    }
    return 0;
#endif
}

int cmdEvalLogits(const std::vector<std::string>& args)
{
    auto f = parseFlags(args, {"model", "ids", "out", "device"});
    if (!f.count("model") || !f.count("ids") || !f.count("out"))
        throw InputError("eval-logits needs --model DIR --ids \"i1 i2 ...\" --out FILE [--device cpu|cuda|cuda:N]");
    const std::string deviceSpec = f.count("device") ? f["device"] : "cpu";
    if (!train::isDeviceSpec(deviceSpec, /*allowAuto=*/false))
        throw InputError("--device must be cpu, cuda or cuda:N, got \"" + deviceSpec + "\"");
    const torch::Device device = train::resolveDevice(deviceSpec, 0);
    auto net = model::loadPretrained(f["model"]);
    net->to(device);
    net->eval();
    std::vector<int64_t> ids;
    std::istringstream in(f["ids"]);
    std::string word;
    while (in >> word) {
        try {
            size_t used = 0;
            const long long v = std::stoll(word, &used);
            if (used != word.size() || v < 0 || v >= net->config().vocab_size)
                throw std::out_of_range("id");
            ids.push_back(v);
        } catch (const std::exception&) {
            throw InputError("--ids: \"" + word + "\" is not a token id in [0, " +
                             std::to_string(net->config().vocab_size) + ")");
        }
    }
    if (ids.empty())
        throw InputError("--ids is empty");
    torch::NoGradGuard noGrad;
    auto input = torch::tensor(ids, torch::kInt64).unsqueeze(0).to(device);
    auto logProbs =
        torch::log_softmax(net->forward(input).to(torch::kFloat32), -1).squeeze(0).to(torch::kCPU).contiguous();
    util::AtomicFileWriter out(f["out"]);
    out.write(logProbs.data_ptr<float>(), static_cast<size_t>(logProbs.numel()) * sizeof(float));
    out.commit();
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    // Before anything else (and before MPI starts): make OpenBLAS use the core this CPU supports.
    util::fixBlasCoreTypeOrReexec(argc, argv);
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty()) {
        std::cerr << kUsage;
        return 2;
    }
    const std::string command = args.front();
    args.erase(args.begin());
    try {
        if (command == "--help" || command == "-h" || command == "help") {
            std::cout << kUsage;
            return 0;
        }
        if (command == "--version" || command == "version") {
            std::cout << "traindeck-trainer " << TRAINDECK_VERSION << "\n";
            return 0;
        }
        if (command == "info")
            return cmdInfo(args);
        if (command == "plan")
            return train::runPlanCommand(args);
        if (command == "self-check")
            return cmdSelfCheck();
        if (command == "init")
            return cmdInit(args);
        if (command == "eval-logits")
            return cmdEvalLogits(args);
        if (command == "bench-comm")
            return cmdBenchComm(args, &argc, &argv);
        if (command == "bench-links")
            return cmdBenchLinks(args, &argc, &argv);
        if (command == "export-gguf")
            return exporter::runExportGguf(args);
        if (command == "tokenize")
            return tok::runTokenizeCommand(argc - 1, argv + 1);
        if (command == "train") {
            if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
                std::cout << train::trainUsage();
                return 0;
            }
            // Validate every flag before MPI starts or any rank does work.
            const auto options = train::parseTrainOptions(args);
            auto comm = dist::makeCommunicator(&argc, &argv);
            try {
                return train::runTraining(options, *comm);
            } catch (const std::exception& e) {
                const bool input = dynamic_cast<const InputError*>(&e) != nullptr;
                std::fprintf(stderr, "traindeck-trainer: rank %d on %s: %s\n", comm->rank(), comm->host().c_str(),
                             e.what());
                std::fflush(stderr);
                if (comm->size() > 1)
                    comm->abort(input ? 2 : 1);
                return input ? 2 : 1;
            }
        }
        std::cerr << "traindeck-trainer: unknown command \"" << command << "\"\n" << kUsage;
        return 2;
    } catch (const InputError& e) {
        std::cerr << "traindeck-trainer: " << e.what() << "\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "traindeck-trainer: " << e.what() << "\n";
        return 1;
    }
}
