// Activation recomputation (--recompute layers): a decoder layer's forward runs without keeping its
// activations, and backward runs it again, from its saved input, to get them. LibTorch's C++ API has no
// torch.utils.checkpoint, so this is the same idea as an autograd function around the layer: only the
// layer's input [B, T, H] stays alive between forward and backward, at the cost of one more forward.
#pragma once

#include "model/qwen2.h"

#include <torch/torch.h>

namespace traindeck::model {

// layer->forward(hidden, rope), its activations dropped and recomputed in backward. The layer's parameters
// are inputs of the autograd node, so their gradients reach them (and their accumulators' hooks, which the
// overlapped allreduce listens to) through the outer backward, as without recomputation. Autocast's state
// at the forward is restored for the recomputation. Without gradients to compute it is the plain forward.
torch::Tensor recomputedLayer(Qwen2DecoderLayerImpl& layer, const torch::Tensor& hidden, const RopeTables& rope);

} // namespace traindeck::model
