// Hugging Face Qwen2 parameter names -> llama.cpp GGUF tensor names (LLM_ARCH_QWEN2).
#pragma once

#include <optional>
#include <string>

namespace traindeck::exporter {

// "model.layers.3.self_attn.q_proj.bias" -> "blk.3.attn_q.bias", "model.embed_tokens.weight" ->
// "token_embd.weight", "lm_head.weight" -> "output.weight"; nullopt for names llama.cpp's qwen2 does not
// use (e.g. rotary inv_freq buffers).
std::optional<std::string> ggufTensorName(const std::string& hfName);

} // namespace traindeck::exporter
