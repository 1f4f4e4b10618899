// Dynamic load balancing on this machine: 2 ranks of qwen2-tiny, rank 1 slowed by --inject-delay (a
// share of the measured balanced step), --balance off against --balance auto. Prints tokens/s over the
// steps after the first rebalancing window, the median step time, and the share each rank ended with.
//   bench_balance [--steps N] [--data FILE] [--delays 0.25,0.5,1.0]
#include "test_paths.h"
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

struct Result {
    double tokensPerS = 0, stepMs = 0;
    std::vector<int64_t> samples;
};

std::string quote(const std::string& s)
{
    return "'" + s + "'";
}

// Runs the trainer; averages over the steps after `skip`.
Result run(const std::string& work, const std::string& label, const std::string& data, int steps, int skip,
           const std::string& extra)
{
    const std::string out = work + "/" + label, metrics = out + ".jsonl";
    fs::remove_all(out);
    fs::remove(metrics);
    const std::string cmd = "mpirun -np 2 --bind-to none --oversubscribe " + quote(TRAINDECK_TRAINER) +
                            " train --preset qwen2-tiny --data " + quote(data) + " --max-steps " +
                            std::to_string(steps) + " --seq-len 128 --micro-batch 4 --threads 1 --out " + quote(out) +
                            " --metrics-out " + quote(metrics) + " --log-every 1000 " + extra + " 2>/dev/null";
    if (std::system(cmd.c_str()) != 0) {
        std::fprintf(stderr, "bench_balance: trainer failed: %s\n", cmd.c_str());
        std::exit(1);
    }
    Result r;
    std::vector<double> stepMs;
    double tokens = 0, seconds = 0;
    std::ifstream in(metrics);
    std::string line;
    while (std::getline(in, line)) {
        const auto j = nlohmann::json::parse(line);
        if (j["type"] != "step" || j["step"].get<int>() <= skip)
            continue;
        const double ms = j["step_ms"][0].get<double>();
        stepMs.push_back(ms);
        tokens += j["tokens"].get<double>();
        seconds += ms / 1000.0;
        r.samples = j["samples"].get<std::vector<int64_t>>();
    }
    std::sort(stepMs.begin(), stepMs.end());
    r.stepMs = stepMs.empty() ? 0 : stepMs[stepMs.size() / 2];
    r.tokensPerS = seconds > 0 ? tokens / seconds : 0;
    return r;
}

} // namespace

int main(int argc, char** argv)
{
    int steps = 40;
    std::string data = std::string(TRAINDECK_CACHE_DIR) + "/demo/corpus.jsonl";
    std::vector<double> delays = {0.25, 0.5, 1.0};
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string a = argv[i];
        if (a == "--steps")
            steps = std::atoi(argv[i + 1]);
        else if (a == "--data")
            data = argv[i + 1];
        else if (a == "--delays") {
            delays.clear();
            std::stringstream ss(argv[i + 1]);
            for (std::string part; std::getline(ss, part, ',');)
                delays.push_back(std::stod(part));
        }
    }
    const std::string work = (fs::temp_directory_path() / "traindeck-bench-balance").string();
    fs::create_directories(work);
    const int every = 5, skip = 2 * every; // measured after two rebalancing windows
    const Result base = run(work, "balanced", data, 20, 5, "");
    std::printf("2 ranks x 1 thread, qwen2-tiny, micro-batch 4 per rank (8 per step), --balance-every %d, %d steps, "
                "averaged over steps %d-%d\n",
                every, steps, skip + 1, steps);
    std::printf("balanced step (no delay): %.0f ms\n\n", base.stepMs);
    std::printf("| delay on rank 1 | balance | tokens/s | median step ms | samples per rank (last step) |\n");
    std::printf("| --- | --- | --- | --- | --- |\n");
    for (double d : delays) {
        const int ms = static_cast<int>(d * base.stepMs);
        for (const char* mode : {"off", "auto"}) {
            const Result r = run(work, std::string(mode) + std::to_string(ms), data, steps, skip,
                                 "--inject-delay 1:" + std::to_string(ms) + ":forward --balance " + mode +
                                     " --balance-every " + std::to_string(every));
            std::string shares;
            for (size_t k = 0; k < r.samples.size(); ++k)
                shares += (k ? " / " : "") + std::to_string(r.samples[k]);
            std::printf("| %d ms (%.0f %% of the step) | %s | %.0f | %.0f | %s |\n", ms, d * 100, mode, r.tokensPerS,
                        r.stepMs, shares.c_str());
            std::fflush(stdout);
        }
    }
    fs::remove_all(work);
    return 0;
}
