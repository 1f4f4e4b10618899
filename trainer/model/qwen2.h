// Qwen2ForCausalLM in LibTorch, with the module structure and parameter names of Hugging Face
// transformers (model.embed_tokens.weight, model.layers.{i}.self_attn.q_proj.weight, ..., lm_head.weight).
#pragma once

#include "model/config.h"

#include <torch/torch.h>

namespace traindeck::model {

// RMSNorm computed in fp32, result cast back to the input dtype, then scaled (as transformers does).
class RMSNormImpl : public torch::nn::Module {
  public:
    RMSNormImpl(int64_t hidden, double eps);
    torch::Tensor forward(const torch::Tensor& x);
    torch::Tensor weight;

  private:
    double eps_;
};
TORCH_MODULE(RMSNorm);

// Rotary position embedding tables (rotate_half convention): cos/sin of shape [T, headDim], fp32.
struct RopeTables {
    torch::Tensor cos, sin;
};
RopeTables ropeTables(int64_t seqLen, int64_t headDim, double theta, const torch::Device& device);
torch::Tensor rotateHalf(const torch::Tensor& x);
// x: [B, H, T, D]; cos/sin: [T, D].
torch::Tensor applyRope(const torch::Tensor& x, const RopeTables& rope);

class Qwen2AttentionImpl : public torch::nn::Module {
  public:
    explicit Qwen2AttentionImpl(const Qwen2Config& config);
    torch::Tensor forward(const torch::Tensor& hidden, const RopeTables& rope);
    torch::nn::Linear q_proj{nullptr}, k_proj{nullptr}, v_proj{nullptr}, o_proj{nullptr};

  private:
    int64_t heads_, kvHeads_, headDim_;
};
TORCH_MODULE(Qwen2Attention);

class Qwen2MLPImpl : public torch::nn::Module {
  public:
    explicit Qwen2MLPImpl(const Qwen2Config& config);
    torch::Tensor forward(const torch::Tensor& x);
    torch::nn::Linear gate_proj{nullptr}, up_proj{nullptr}, down_proj{nullptr};
};
TORCH_MODULE(Qwen2MLP);

class Qwen2DecoderLayerImpl : public torch::nn::Module {
  public:
    explicit Qwen2DecoderLayerImpl(const Qwen2Config& config);
    torch::Tensor forward(const torch::Tensor& hidden, const RopeTables& rope);
    Qwen2Attention self_attn{nullptr};
    Qwen2MLP mlp{nullptr};
    RMSNorm input_layernorm{nullptr}, post_attention_layernorm{nullptr};
};
TORCH_MODULE(Qwen2DecoderLayer);

class Qwen2ModelImpl : public torch::nn::Module {
  public:
    explicit Qwen2ModelImpl(const Qwen2Config& config);
    torch::Tensor forward(const torch::Tensor& inputIds); // -> last hidden state [B, T, H]
    // --recompute layers: each decoder layer keeps only its input for backward (model/recompute.h).
    void setRecomputeLayers(bool on) { recomputeLayers_ = on; }
    bool recomputeLayers() const { return recomputeLayers_; }
    torch::nn::Embedding embed_tokens{nullptr};
    torch::nn::ModuleList layers{nullptr};
    RMSNorm norm{nullptr};

  private:
    Qwen2Config config_;
    bool recomputeLayers_ = false;
};
TORCH_MODULE(Qwen2Model);

// How Qwen2ForCausalLMImpl::loss computes the output layer and the loss: at once ([tokens, vocab] logits),
// or fused in chunks of chunkTokens tokens (model/fused_loss.h; 0: automaticLossChunk).
struct LossOptions {
    bool fused = false;
    int64_t chunkTokens = 0;
};

class Qwen2ForCausalLMImpl : public torch::nn::Module {
  public:
    explicit Qwen2ForCausalLMImpl(const Qwen2Config& config);
    // inputIds [B, T] (int64) -> logits [B, T, vocab].
    torch::Tensor forward(const torch::Tensor& inputIds);
    // Causal LM loss without materialising logits for the last position: the lm_head runs on
    // positions 0..T-2 only, so no [B, T, vocab] slice is copied (forward or backward). Fused
    // (options.fused), no [B, T, vocab] logits exist at all.
    torch::Tensor loss(const torch::Tensor& inputIds, const torch::Tensor& labels, const LossOptions& options = {});
    // Transformers' initialisation: normal(0, std) for Linear/Embedding weights, zero biases, unit norms.
    void initWeights(double std);
    const Qwen2Config& config() const { return config_; }
    torch::Tensor lmHeadWeight();

    Qwen2Model model{nullptr};
    torch::nn::Linear lm_head{nullptr}; // null when tie_word_embeddings

  private:
    Qwen2Config config_;
};
TORCH_MODULE(Qwen2ForCausalLM);

// Causal LM loss: logits[:, :-1] against labels[:, 1:], mean over labels != -100.
torch::Tensor causalLmLoss(const torch::Tensor& logits, const torch::Tensor& labels);

// Expected parameter names and shapes for a config (tied lm_head omitted), in module order.
std::vector<std::pair<std::string, std::vector<int64_t>>> expectedParameters(const Qwen2Config& config);

} // namespace traindeck::model
