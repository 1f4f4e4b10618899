// Training checkpoints: <out>/checkpoints/step-NNNNNNNN/ holding a Hugging Face model directory
// (config.json, model.safetensors, tokenizer files), optimizer.safetensors and trainer_state.json.
// Written into a temporary directory, fsynced, renamed, then <out>/checkpoints/latest is updated;
// the last `keep` are kept.
#pragma once

#include "model/qwen2.h"
#include "train/adamw.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace traindeck::train {

struct CheckpointResult {
    std::string path; // relative to the out directory
    uint64_t bytes = 0;
    double ms = 0;
};

CheckpointResult saveCheckpoint(const std::string& outDir, int64_t step, model::Qwen2ForCausalLM& model,
                                const AdamW& optimizer, const nlohmann::json& trainerState,
                                const std::vector<std::string>& tokenizerFiles, int64_t keep);
// The same with the optimizer's state given as named tensors (--zero 1: assembled from every rank's shard).
CheckpointResult saveCheckpoint(const std::string& outDir, int64_t step, model::Qwen2ForCausalLM& model,
                                const std::vector<std::pair<std::string, torch::Tensor>>& optimizerState,
                                int64_t optimizerSteps, const nlohmann::json& trainerState,
                                const std::vector<std::string>& tokenizerFiles, int64_t keep);

// "latest" -> <out>/checkpoints/<latest>, a directory -> itself. Throws InputError when missing/incomplete.
std::string resolveCheckpoint(const std::string& outDir, const std::string& spec);

nlohmann::json readTrainerState(const std::string& checkpointDir);
void loadOptimizerState(const std::string& checkpointDir, AdamW& optimizer);

} // namespace traindeck::train
