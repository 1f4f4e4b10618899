// The output layer and the cross-entropy fused and computed in chunks of tokens (the technique of
// Liger-Kernel's fused linear cross-entropy and Apple's Cut Cross-Entropy): the [tokens, vocab] logits
// never exist at once. The forward pass computes each chunk's logits, its loss and its gradients with
// respect to the hidden states and the weight; backward only scales those stored gradients.
#pragma once

#include <torch/torch.h>

#include <cstdint>

namespace traindeck::model {

// Labels with this value take no part in the loss (transformers' and F::cross_entropy's convention).
constexpr int64_t kIgnoreIndex = -100;

// Tokens per chunk when none is asked for: as many as the hidden size, so that a chunk's fp32 logits
// [chunk, vocab] are as large as the fp32 weight gradient [vocab, hidden] the fused loss holds anyway.
// Every chunk reads the weight twice and the weight gradient once more: smaller chunks cost more passes
// over them (on qwen2-small, 110-token chunks, 64 MiB of logits, took 12 % more CPU time per step than
// the unfused loss; docs/reference/trainer.md).
int64_t automaticLossChunk(int64_t hidden);

// Mean over the targets != kIgnoreIndex of the cross-entropy of logits = hidden @ weight^T (taken to
// fp32, as the unfused loss takes its logits), computed chunkTokens tokens at a time (0: automatic).
// hidden [N, H] (fp32, or bf16/fp16 under autocast), weight [V, H], targets [N] int64.
// Every target ignored: the loss is 0 and the gradients are zero (the unfused mean is 0/0 = NaN there).
// Gradients flow to hidden and to the weight passed, so a tied head's embedding gets its share.
torch::Tensor fusedLinearCrossEntropy(const torch::Tensor& hidden, const torch::Tensor& weight,
                                      const torch::Tensor& targets, int64_t chunkTokens = 0);

} // namespace traindeck::model
