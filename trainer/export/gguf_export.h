// traindeck-trainer export-gguf: a Hugging Face Qwen2 model directory (from init, training checkpoints or
// the hub) -> one GGUF v3 file that llama.cpp loads as architecture "qwen2".
#pragma once

#include "export/gguf_writer.h"

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace traindeck::exporter {

struct ExportOptions {
    std::string modelDir;
    std::string outPath;
    std::string tokenizerPath;      // empty: modelDir/tokenizer.json
    GgmlType dtype = GgmlType::F16; // of the matrices; norms and biases are always F32
};

struct ExportResult {
    uint64_t bytes = 0;
    size_t tensors = 0;
    double seconds = 0;
    int64_t overflowed = 0; // values that became +-inf in F16
    int64_t nonFinite = 0;  // NaN/inf already in the source weights
};

// Validates everything first (config, every weight's name/shape/dtype/bounds, tokenizer against the
// vocabulary, the output's directory) and throws InputError before writing anything. Then streams one
// tensor at a time into a temporary file renamed over outPath. Progress and warnings go to `log`.
ExportResult exportGguf(const ExportOptions& options, std::ostream& log);

// The subcommand: args exclude "export-gguf". Returns the exit code (0; InputError/RuntimeFailure
// propagate to main, which maps them to 2/1).
int runExportGguf(const std::vector<std::string>& args);

} // namespace traindeck::exporter
