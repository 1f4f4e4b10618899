// Tokenizer throughput on one generated corpus (≈2.8 MB of mixed text by default):
//   ours on 1 thread and on all threads, tiktoken (WASM) with Qwen's ranks, @lenml/tokenizers (JS),
// with token counts and whether each engine's ids are identical to ours. Times cover encoding only
// (tokenizers loaded beforehand; the node engines are timed inside node). MB = 10^6 bytes.
//
// usage: bench_tokenizer [--tokenizer PATH/tokenizer.json] [--mb 2.8] [--threads N] [--no-js]
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "reference_runner.h"
#include "test_corpus.h"
#include "tokenizer/bpe_tokenizer.h"

using namespace traindeck::tok;
namespace T = traindeck::tok::testing;

namespace {

std::string packageVersion(const std::string& pkg)
{
    try {
        return nlohmann::json::parse(T::readFile(T::nodeModulesDir() + "/" + pkg + "/package.json"))
            .value("version", "?");
    } catch (...) {
        return "?";
    }
}

struct Row {
    std::string engine;
    int threads;
    double seconds;
    size_t tokens;
    std::string identical;
};

} // namespace

int main(int argc, char** argv)
{
    std::string tokenizerPath = T::qwenTokenizerPath();
    double mb = 2.8;
    int allThreads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    bool js = true;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--tokenizer" && i + 1 < argc) {
            tokenizerPath = argv[++i];
        } else if (a == "--mb" && i + 1 < argc) {
            mb = std::stod(argv[++i]);
        } else if (a == "--threads" && i + 1 < argc) {
            allThreads = std::stoi(argv[++i]);
        } else if (a == "--no-js") {
            js = false;
        } else {
            std::fprintf(stderr, "usage: bench_tokenizer [--tokenizer PATH] [--mb 2.8] [--threads N] [--no-js]\n");
            return 2;
        }
    }

    const auto docs = T::makeCorpus(static_cast<size_t>(mb * 1e6));
    const std::vector<std::string_view> views(docs.begin(), docs.end());
    size_t bytes = 0;
    for (const auto& d : docs)
        bytes += d.size();

    std::vector<Row> rows;
    std::vector<int32_t> ours;
    double loadSeconds = 0;
    try {
        for (int threads : {1, allThreads}) {
            if (threads == 1 && !rows.empty())
                continue;
            // A freshly loaded tokenizer each time, so no run profits from another's word cache.
            const auto t0 = std::chrono::steady_clock::now();
            const auto tok = BpeTokenizer::load(tokenizerPath);
            const auto t1 = std::chrono::steady_clock::now();
            const auto ids = tok->encodeBatch(views, threads);
            const auto t2 = std::chrono::steady_clock::now();
            loadSeconds = std::chrono::duration<double>(t1 - t0).count();
            std::vector<int32_t> flat;
            for (const auto& v : ids)
                flat.insert(flat.end(), v.begin(), v.end());
            std::string same = "(reference)";
            if (ours.empty())
                ours = flat;
            else
                same = flat == ours ? "yes" : "NO";
            rows.push_back(
                {"traindeck C++", threads, std::chrono::duration<double>(t2 - t1).count(), flat.size(), same});
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_tokenizer: %s\n", e.what());
        return 2;
    }

    std::string jsNote;
    if (js) {
        const std::string problem = T::referencesProblem();
        if (!problem.empty()) {
            jsNote = problem;
        } else {
            T::RefJob job;
            job.tokenizer = tokenizerPath;
            job.docs = docs;
            job.engines = {"tiktoken", "lenml"};
            job.flat = true;
            const std::string work = (std::filesystem::temp_directory_path() / "traindeck-bench-tokenizer").string();
            std::filesystem::create_directories(work);
            try {
                const auto r = T::runReference({job}, work).at(0);
                rows.push_back({"tiktoken " + packageVersion("tiktoken") + " WASM, Qwen ranks", 1, r.tiktokenSeconds,
                                r.tiktokenFlat.size(), r.tiktokenFlat == ours ? "yes" : "NO"});
                rows.push_back({"@lenml/tokenizers " + packageVersion("@lenml/tokenizers") + " JS", 1, r.lenmlSeconds,
                                r.lenmlFlat.size(), r.lenmlFlat == ours ? "yes" : "NO"});
            } catch (const std::exception& e) {
                jsNote = e.what();
            }
            std::filesystem::remove_all(work);
        }
    }

    std::printf("corpus: %zu documents, %zu bytes (%.2f MB) of mixed text; tokenizer %s (our load %.2f s)\n",
                docs.size(), bytes, bytes / 1e6, tokenizerPath.c_str(), loadSeconds);
    std::printf("%-36s %7s %9s %9s %10s  %s\n", "engine", "threads", "seconds", "MB/s", "tokens",
                "ids identical to ours");
    for (const Row& r : rows)
        std::printf("%-36s %7d %9.3f %9.2f %10zu  %s\n", r.engine.c_str(), r.threads, r.seconds,
                    bytes / 1e6 / r.seconds, r.tokens, r.identical.c_str());
    for (const Row& r : rows)
        if (r.engine.rfind("tiktoken", 0) == 0)
            std::printf("ours on 1 thread is %.1fx tiktoken-WASM\n", r.seconds / rows[0].seconds);
    if (!jsNote.empty())
        std::printf("JS references not run: %s\n", jsNote.c_str());
    for (const Row& r : rows)
        if (r.identical == "NO")
            return 1;
    return 0;
}
