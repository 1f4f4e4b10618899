// What one rank of a training run holds at its fullest moment, before it is launched: parameters,
// gradients, optimizer state, the layers' activations, the output layer and loss, and the runtime's
// workspace (`traindeck-trainer plan`; docs/reference/trainer.md "Memory plan" validates it against
// measured peaks). No LibTorch here: counts of the tensors this trainer's model keeps, from the config.
#pragma once

#include "model/config.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace traindeck::train {

struct MemoryPlanInputs {
    model::Qwen2Config config;
    bool cuda = false;              // a CUDA device; else the CPU
    std::string precision = "fp32"; // fp32 | bf16 | fp16 (autocast: the weights stay fp32)
    int64_t seqLen = 512;
    int64_t microBatch = 1;
    int worldSize = 1;
    int zero = 0; // 1: the optimizer state is sharded over worldSize ranks
    bool fusedLoss = true;
    int64_t lossChunk = 0; // 0: automatic (the hidden size)
    bool recomputeLayers = false;
    // The trainer's LibTorch has no fused attention (before 2.0): each layer keeps heads x T x T scores.
    bool attentionKeepsScores = true;
};

// Bytes per rank. The parts do not add up to the total: activations and the loss's memory peak at
// different moments of the step, and the total is the largest moment (MemoryPlan::moments says which).
struct MemoryPlan {
    double parameters = 0, gradients = 0, optimizer = 0;
    double activations = 0; // the layers', at their peak (backward's temporaries included)
    double logits = 0;      // the output layer and the loss at their peak (the fused loss: its chunks)
    double workspace = 0;   // the runtime: LibTorch, BLAS or the CUDA context, the tokenizer, the data loader
    double total = 0;
    std::string peakMoment; // when the total happens: "loss forward", "loss backward", "layers backward", ...
    std::vector<std::string> assumptions;

    nlohmann::ordered_json toJson() const;
};

MemoryPlan planMemory(const MemoryPlanInputs& in);

// The flags that would make a plan fit into `availableBytes`, cheapest first, each with the total it
// gives ("--recompute layers", "--zero 1", "--fused-loss on", "--micro-batch N"); empty when nothing does.
struct MemorySuggestion {
    std::string flags;
    double total = 0;
};
std::vector<MemorySuggestion> suggestToFit(const MemoryPlanInputs& in, double availableBytes);

} // namespace traindeck::train
