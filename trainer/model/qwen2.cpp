#include "model/qwen2.h"

#include "model/fused_loss.h"
#include "model/recompute.h"

#include <cmath>

namespace traindeck::model {

namespace F = torch::nn::functional;

RMSNormImpl::RMSNormImpl(int64_t hidden, double eps) : eps_(eps)
{
    weight = register_parameter("weight", torch::ones({hidden}));
}

torch::Tensor RMSNormImpl::forward(const torch::Tensor& x)
{
    const auto inputType = x.scalar_type();
    auto h = x.to(torch::kFloat32);
    auto variance = h.pow(2).mean(-1, /*keepdim=*/true);
    h = h * torch::rsqrt(variance + eps_);
    return weight * h.to(inputType);
}

RopeTables ropeTables(int64_t seqLen, int64_t headDim, double theta, const torch::Device& device)
{
    auto opts = torch::TensorOptions().dtype(torch::kFloat32).device(device);
    auto exponents =
        torch::arange(0, headDim, 2, torch::TensorOptions().dtype(torch::kInt64).device(device)).to(torch::kFloat32) /
        static_cast<double>(headDim);
    auto invFreq = 1.0 / torch::pow(torch::tensor(theta, opts), exponents);
    auto positions = torch::arange(seqLen, opts);
    auto freqs = torch::outer(positions, invFreq);
    auto emb = torch::cat({freqs, freqs}, -1);
    return {emb.cos(), emb.sin()};
}

torch::Tensor rotateHalf(const torch::Tensor& x)
{
    const int64_t half = x.size(-1) / 2;
    auto x1 = x.narrow(-1, 0, half);
    auto x2 = x.narrow(-1, half, half);
    return torch::cat({-x2, x1}, -1);
}

torch::Tensor applyRope(const torch::Tensor& x, const RopeTables& rope)
{
    auto cos = rope.cos.to(x.scalar_type());
    auto sin = rope.sin.to(x.scalar_type());
    return x * cos + rotateHalf(x) * sin;
}

Qwen2AttentionImpl::Qwen2AttentionImpl(const Qwen2Config& c)
    : heads_(c.num_attention_heads), kvHeads_(c.num_key_value_heads), headDim_(c.headDim())
{
    const int64_t h = c.hidden_size;
    q_proj = register_module("q_proj", torch::nn::Linear(torch::nn::LinearOptions(h, heads_ * headDim_).bias(true)));
    k_proj = register_module("k_proj", torch::nn::Linear(torch::nn::LinearOptions(h, kvHeads_ * headDim_).bias(true)));
    v_proj = register_module("v_proj", torch::nn::Linear(torch::nn::LinearOptions(h, kvHeads_ * headDim_).bias(true)));
    o_proj = register_module("o_proj", torch::nn::Linear(torch::nn::LinearOptions(heads_ * headDim_, h).bias(false)));
}

torch::Tensor Qwen2AttentionImpl::forward(const torch::Tensor& hidden, const RopeTables& rope)
{
    const int64_t B = hidden.size(0), T = hidden.size(1);
    auto q = q_proj->forward(hidden).view({B, T, heads_, headDim_}).transpose(1, 2);
    auto k = k_proj->forward(hidden).view({B, T, kvHeads_, headDim_}).transpose(1, 2);
    auto v = v_proj->forward(hidden).view({B, T, kvHeads_, headDim_}).transpose(1, 2);
    q = applyRope(q, rope);
    k = applyRope(k, rope);
    const int64_t groups = heads_ / kvHeads_;
    if (groups > 1) { // repeat_kv: [B, kv, T, D] -> [B, kv*groups, T, D]
        k = k.unsqueeze(2).expand({B, kvHeads_, groups, T, headDim_}).reshape({B, heads_, T, headDim_});
        v = v.unsqueeze(2).expand({B, kvHeads_, groups, T, headDim_}).reshape({B, heads_, T, headDim_});
    }
    torch::Tensor out;
#if TORCH_VERSION_MAJOR >= 2
    out = at::scaled_dot_product_attention(q, k, v, /*attn_mask=*/{}, /*dropout_p=*/0.0, /*is_causal=*/true);
#else
    auto scores = torch::matmul(q, k.transpose(-2, -1)) / std::sqrt(static_cast<double>(headDim_));
    auto mask = torch::ones({T, T}, torch::TensorOptions().dtype(torch::kBool).device(q.device())).triu(1);
    scores = scores.masked_fill(mask, -std::numeric_limits<float>::infinity());
    auto probs = torch::softmax(scores, -1, torch::kFloat32).to(q.scalar_type());
    out = torch::matmul(probs, v);
#endif
    out = out.transpose(1, 2).reshape({B, T, heads_ * headDim_});
    return o_proj->forward(out);
}

Qwen2MLPImpl::Qwen2MLPImpl(const Qwen2Config& c)
{
    const int64_t h = c.hidden_size, i = c.intermediate_size;
    gate_proj = register_module("gate_proj", torch::nn::Linear(torch::nn::LinearOptions(h, i).bias(false)));
    up_proj = register_module("up_proj", torch::nn::Linear(torch::nn::LinearOptions(h, i).bias(false)));
    down_proj = register_module("down_proj", torch::nn::Linear(torch::nn::LinearOptions(i, h).bias(false)));
}

torch::Tensor Qwen2MLPImpl::forward(const torch::Tensor& x)
{
    return down_proj->forward(F::silu(gate_proj->forward(x)) * up_proj->forward(x));
}

Qwen2DecoderLayerImpl::Qwen2DecoderLayerImpl(const Qwen2Config& c)
{
    self_attn = register_module("self_attn", Qwen2Attention(c));
    mlp = register_module("mlp", Qwen2MLP(c));
    input_layernorm = register_module("input_layernorm", RMSNorm(c.hidden_size, c.rms_norm_eps));
    post_attention_layernorm = register_module("post_attention_layernorm", RMSNorm(c.hidden_size, c.rms_norm_eps));
}

torch::Tensor Qwen2DecoderLayerImpl::forward(const torch::Tensor& hidden, const RopeTables& rope)
{
    auto h = hidden + self_attn->forward(input_layernorm->forward(hidden), rope);
    return h + mlp->forward(post_attention_layernorm->forward(h));
}

Qwen2ModelImpl::Qwen2ModelImpl(const Qwen2Config& c) : config_(c)
{
    embed_tokens = register_module("embed_tokens", torch::nn::Embedding(c.vocab_size, c.hidden_size));
    layers = register_module("layers", torch::nn::ModuleList());
    for (int64_t i = 0; i < c.num_hidden_layers; ++i)
        layers->push_back(Qwen2DecoderLayer(c));
    norm = register_module("norm", RMSNorm(c.hidden_size, c.rms_norm_eps));
}

torch::Tensor Qwen2ModelImpl::forward(const torch::Tensor& inputIds)
{
    auto h = embed_tokens->forward(inputIds);
    auto rope = ropeTables(inputIds.size(1), config_.headDim(), config_.rope_theta, h.device());
    for (const auto& layer : *layers) {
        auto* decoderLayer = layer->as<Qwen2DecoderLayer>();
        h = recomputeLayers_ ? recomputedLayer(*decoderLayer, h, rope) : decoderLayer->forward(h, rope);
    }
    return norm->forward(h);
}

Qwen2ForCausalLMImpl::Qwen2ForCausalLMImpl(const Qwen2Config& c) : config_(c)
{
    model = register_module("model", Qwen2Model(c));
    if (!c.tie_word_embeddings)
        lm_head = register_module("lm_head",
                                  torch::nn::Linear(torch::nn::LinearOptions(c.hidden_size, c.vocab_size).bias(false)));
    initWeights(c.initializer_range);
}

torch::Tensor Qwen2ForCausalLMImpl::lmHeadWeight()
{
    return lm_head ? lm_head->weight : model->embed_tokens->weight;
}

torch::Tensor Qwen2ForCausalLMImpl::forward(const torch::Tensor& inputIds)
{
    auto h = model->forward(inputIds);
    return torch::matmul(h, lmHeadWeight().t());
}

torch::Tensor Qwen2ForCausalLMImpl::loss(const torch::Tensor& inputIds, const torch::Tensor& labels,
                                         const LossOptions& options)
{
    auto h = model->forward(inputIds);
    const int64_t T = h.size(1);
    auto hidden = h.narrow(1, 0, T - 1).reshape({-1, h.size(2)});
    if (options.fused)
        return fusedLinearCrossEntropy(hidden, lmHeadWeight(), labels.narrow(1, 1, T - 1).reshape({-1}),
                                       options.chunkTokens);
    auto logits = torch::matmul(hidden, lmHeadWeight().t()).to(torch::kFloat32);
    auto target = labels.narrow(1, 1, T - 1).reshape({-1});
    return F::cross_entropy(logits, target, F::CrossEntropyFuncOptions().ignore_index(kIgnoreIndex));
}

void Qwen2ForCausalLMImpl::initWeights(double std)
{
    torch::NoGradGuard noGrad;
    for (auto& item : named_parameters()) {
        const std::string& name = item.key();
        auto& p = item.value();
        if (name.ends_with("norm.weight"))
            p.fill_(1.0);
        else if (name.ends_with(".bias"))
            p.zero_();
        else
            p.normal_(0.0, std);
    }
}

torch::Tensor causalLmLoss(const torch::Tensor& logits, const torch::Tensor& labels)
{
    const int64_t V = logits.size(-1);
    auto shiftLogits = logits.narrow(1, 0, logits.size(1) - 1).reshape({-1, V}).to(torch::kFloat32);
    auto shiftLabels = labels.narrow(1, 1, labels.size(1) - 1).reshape({-1});
    return F::cross_entropy(shiftLogits, shiftLabels, F::CrossEntropyFuncOptions().ignore_index(-100));
}

std::vector<std::pair<std::string, std::vector<int64_t>>> expectedParameters(const Qwen2Config& c)
{
    const int64_t h = c.hidden_size, kv = c.num_key_value_heads * c.headDim(), qd = c.num_attention_heads * c.headDim();
    std::vector<std::pair<std::string, std::vector<int64_t>>> out;
    out.push_back({"model.embed_tokens.weight", {c.vocab_size, h}});
    for (int64_t i = 0; i < c.num_hidden_layers; ++i) {
        const std::string p = "model.layers." + std::to_string(i) + ".";
        out.push_back({p + "self_attn.q_proj.weight", {qd, h}});
        out.push_back({p + "self_attn.q_proj.bias", {qd}});
        out.push_back({p + "self_attn.k_proj.weight", {kv, h}});
        out.push_back({p + "self_attn.k_proj.bias", {kv}});
        out.push_back({p + "self_attn.v_proj.weight", {kv, h}});
        out.push_back({p + "self_attn.v_proj.bias", {kv}});
        out.push_back({p + "self_attn.o_proj.weight", {h, qd}});
        out.push_back({p + "mlp.gate_proj.weight", {c.intermediate_size, h}});
        out.push_back({p + "mlp.up_proj.weight", {c.intermediate_size, h}});
        out.push_back({p + "mlp.down_proj.weight", {h, c.intermediate_size}});
        out.push_back({p + "input_layernorm.weight", {h}});
        out.push_back({p + "post_attention_layernorm.weight", {h}});
    }
    out.push_back({"model.norm.weight", {h}});
    if (!c.tie_word_embeddings)
        out.push_back({"lm_head.weight", {c.vocab_size, h}});
    return out;
}

} // namespace traindeck::model
