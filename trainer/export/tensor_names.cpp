#include "export/tensor_names.h"

#include <array>
#include <utility>

namespace traindeck::exporter {

std::optional<std::string> ggufTensorName(const std::string& hf)
{
    if (hf == "model.embed_tokens.weight")
        return "token_embd.weight";
    if (hf == "model.norm.weight")
        return "output_norm.weight";
    if (hf == "lm_head.weight")
        return "output.weight";
    static const std::string layers = "model.layers.";
    if (hf.rfind(layers, 0) != 0)
        return std::nullopt;
    size_t pos = layers.size(), end = pos;
    while (end < hf.size() && hf[end] >= '0' && hf[end] <= '9')
        ++end;
    if (end == pos || end >= hf.size() || hf[end] != '.' || (hf[pos] == '0' && end - pos > 1))
        return std::nullopt;
    const std::string block = hf.substr(pos, end - pos);
    const std::string rest = hf.substr(end + 1);
    static const std::array<std::pair<const char*, const char*>, 12> map{{
        {"self_attn.q_proj.weight", "attn_q.weight"},
        {"self_attn.q_proj.bias", "attn_q.bias"},
        {"self_attn.k_proj.weight", "attn_k.weight"},
        {"self_attn.k_proj.bias", "attn_k.bias"},
        {"self_attn.v_proj.weight", "attn_v.weight"},
        {"self_attn.v_proj.bias", "attn_v.bias"},
        {"self_attn.o_proj.weight", "attn_output.weight"},
        {"mlp.gate_proj.weight", "ffn_gate.weight"},
        {"mlp.up_proj.weight", "ffn_up.weight"},
        {"mlp.down_proj.weight", "ffn_down.weight"},
        {"input_layernorm.weight", "attn_norm.weight"},
        {"post_attention_layernorm.weight", "ffn_norm.weight"},
    }};
    for (const auto& [from, to] : map)
        if (rest == from)
            return "blk." + block + "." + to;
    return std::nullopt;
}

} // namespace traindeck::exporter
