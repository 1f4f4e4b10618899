// Hugging Face model directories: config.json + model.safetensors (or sharded with
// model.safetensors.index.json) + tokenizer files.
#pragma once

#include "model/config.h"

// c10's ScalarType, not LibTorch's modules: suites that only read checkpoints compile without LibTorch's
// precompiled header. Callers of loadPretrained/savePretrained include model/qwen2.h.
#include <c10/core/ScalarType.h>

#include <string>
#include <vector>

namespace traindeck::model {

class Qwen2ForCausalLM; // model/qwen2.h

struct WeightSummary {
    std::vector<std::string> files; // weight files checked, in order
    int64_t tensors = 0;
    int64_t parameters = 0; // elements stored (a stored tied lm_head is not counted)
};

// The weight files of a model directory (index.json's shards, model.safetensors, or every *.safetensors).
std::vector<std::string> weightFiles(const std::string& dir);

// Validates every weight file against the config: names, shapes, dtypes and byte bounds. Throws
// InputError on the first fault, naming the file and tensor.
WeightSummary validateWeights(const std::string& dir, const Qwen2Config& config);

// Loads config.json and the weights into a new model of `dtype`.
Qwen2ForCausalLM loadPretrained(const std::string& dir, c10::ScalarType dtype = c10::kFloat);

// Writes config.json and model.safetensors (parameters in `dtype`) into dir, plus copies of the given
// tokenizer files. Files are written atomically; dir is created.
void savePretrained(Qwen2ForCausalLM& model, const std::string& dir, c10::ScalarType dtype,
                    const std::vector<std::string>& tokenizerFiles = {});

std::string dtypeName(c10::ScalarType type);             // "float32", "bfloat16", "float16"
c10::ScalarType parseDtypeName(const std::string& name); // throws InputError

} // namespace traindeck::model
