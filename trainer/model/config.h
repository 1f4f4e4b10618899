// Qwen2 model configuration, read from a Hugging Face config.json or a built-in preset.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace traindeck::model {

struct Qwen2Config {
    int64_t vocab_size = 151936;
    int64_t hidden_size = 0;
    int64_t intermediate_size = 0;
    int64_t num_hidden_layers = 0;
    int64_t num_attention_heads = 0;
    int64_t num_key_value_heads = 0;
    int64_t max_position_embeddings = 32768;
    double rope_theta = 10000.0;
    double rms_norm_eps = 1e-6;
    double initializer_range = 0.02;
    bool tie_word_embeddings = false;
    std::string torch_dtype = "float32";
    int64_t bos_token_id = -1;
    int64_t eos_token_id = -1;
    // The whole document, so unknown keys survive a load/save round trip.
    nlohmann::ordered_json raw;

    int64_t headDim() const { return hidden_size / num_attention_heads; }

    // Parses and validates; `origin` names the file in error messages. Throws InputError.
    static Qwen2Config fromJson(const nlohmann::ordered_json& json, const std::string& origin);
    static Qwen2Config fromFile(const std::string& path);
    // Built-in presets from resources/models (compiled in).
    static Qwen2Config preset(const std::string& name);
    static std::vector<std::string> presetNames();

    nlohmann::ordered_json toJson() const;

    // Closed-form parameter count (lm_head counted once when tied).
    int64_t parameterCount() const;
};

} // namespace traindeck::model
