#include "model/config.h"

#include "model/presets.h"
#include "util/errors.h"

#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <type_traits>

namespace traindeck::model {

namespace {

template <typename T>
void readField(const nlohmann::ordered_json& j, const char* key, T& out, bool required, const std::string& origin)
{
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) {
        if (required)
            throw InputError(origin + ": missing required key \"" + key + "\"");
        return;
    }
    // A float where an integer belongs is not truncated (8.5 is not 8), and one beyond the type's range
    // is not converted at all (undefined behaviour; found by tests/fuzz/fuzz_model_config).
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
        const double limit = std::ldexp(1.0, std::numeric_limits<T>::digits);
        const bool badFloat =
            it->is_number_float() && !(std::floor(it->template get<double>()) == it->template get<double>() &&
                                       std::fabs(it->template get<double>()) < limit);
        const bool badUnsigned = it->is_number_unsigned() && it->template get<uint64_t>() >= uint64_t(limit);
        if (badFloat || badUnsigned)
            throw InputError(origin + ": key \"" + key + "\" must be an integer within range, got " + it->dump());
    }
    try {
        out = it->get<T>();
    } catch (const nlohmann::json::exception&) {
        throw InputError(origin + ": key \"" + key + "\" has the wrong type (" + it->type_name() + ")");
    }
}

void requirePositive(int64_t value, const char* key, const std::string& origin)
{
    if (value <= 0)
        throw InputError(origin + ": \"" + key + "\" must be a positive integer, got " + std::to_string(value));
}

} // namespace

Qwen2Config Qwen2Config::fromJson(const nlohmann::ordered_json& j, const std::string& origin)
{
    if (!j.is_object())
        throw InputError(origin + ": expected a JSON object");
    Qwen2Config c;
    std::string modelType;
    readField(j, "model_type", modelType, false, origin);
    if (!modelType.empty() && modelType != "qwen2")
        throw InputError(origin + ": model_type is \"" + modelType + "\"; only \"qwen2\" is supported");
    std::string act = "silu";
    readField(j, "hidden_act", act, false, origin);
    if (act != "silu")
        throw InputError(origin + ": hidden_act \"" + act + "\" is not supported (Qwen2 uses \"silu\")");
    readField(j, "vocab_size", c.vocab_size, true, origin);
    readField(j, "hidden_size", c.hidden_size, true, origin);
    readField(j, "intermediate_size", c.intermediate_size, true, origin);
    readField(j, "num_hidden_layers", c.num_hidden_layers, true, origin);
    readField(j, "num_attention_heads", c.num_attention_heads, true, origin);
    c.num_key_value_heads = c.num_attention_heads;
    readField(j, "num_key_value_heads", c.num_key_value_heads, false, origin);
    readField(j, "max_position_embeddings", c.max_position_embeddings, false, origin);
    readField(j, "rope_theta", c.rope_theta, false, origin);
    readField(j, "rms_norm_eps", c.rms_norm_eps, false, origin);
    readField(j, "initializer_range", c.initializer_range, false, origin);
    readField(j, "tie_word_embeddings", c.tie_word_embeddings, false, origin);
    readField(j, "torch_dtype", c.torch_dtype, false, origin);
    readField(j, "bos_token_id", c.bos_token_id, false, origin);
    readField(j, "eos_token_id", c.eos_token_id, false, origin);

    requirePositive(c.vocab_size, "vocab_size", origin);
    requirePositive(c.hidden_size, "hidden_size", origin);
    requirePositive(c.intermediate_size, "intermediate_size", origin);
    requirePositive(c.num_hidden_layers, "num_hidden_layers", origin);
    requirePositive(c.num_attention_heads, "num_attention_heads", origin);
    requirePositive(c.num_key_value_heads, "num_key_value_heads", origin);
    requirePositive(c.max_position_embeddings, "max_position_embeddings", origin);
    if (c.hidden_size % c.num_attention_heads != 0)
        throw InputError(origin + ": hidden_size (" + std::to_string(c.hidden_size) +
                         ") is not divisible by num_attention_heads (" + std::to_string(c.num_attention_heads) + ")");
    if (c.num_attention_heads % c.num_key_value_heads != 0)
        throw InputError(origin + ": num_attention_heads is not a multiple of num_key_value_heads");
    if (c.headDim() % 2 != 0)
        throw InputError(origin + ": the head dimension must be even for RoPE");
    if (!(c.rope_theta > 0) || !(c.rms_norm_eps > 0) || !(c.initializer_range > 0))
        throw InputError(origin + ": rope_theta, rms_norm_eps and initializer_range must be positive");
    c.raw = j;
    return c;
}

Qwen2Config Qwen2Config::fromFile(const std::string& path)
{
    std::ifstream in(path);
    if (!in)
        throw InputError(path + ": cannot open (does the model directory contain config.json?)");
    nlohmann::ordered_json j;
    try {
        j = nlohmann::ordered_json::parse(in);
    } catch (const nlohmann::json::exception& e) { // parse_error, or out_of_range: a number that overflows
        throw InputError(path + ": invalid JSON: " + e.what());
    }
    return fromJson(j, path);
}

Qwen2Config Qwen2Config::preset(const std::string& name)
{
    for (const auto& p : builtinPresets()) {
        if (name == p.name)
            return fromJson(nlohmann::ordered_json::parse(p.json), "preset " + name);
    }
    std::string known;
    for (const auto& n : presetNames())
        known += (known.empty() ? "" : ", ") + n;
    throw InputError("unknown preset \"" + name + "\" (known: " + known + ")");
}

std::vector<std::string> Qwen2Config::presetNames()
{
    std::vector<std::string> names;
    for (const auto& p : builtinPresets())
        names.emplace_back(p.name);
    return names;
}

nlohmann::ordered_json Qwen2Config::toJson() const
{
    nlohmann::ordered_json j = raw.is_object() ? raw : nlohmann::ordered_json::object();
    j["architectures"] = {"Qwen2ForCausalLM"};
    j["model_type"] = "qwen2";
    j["hidden_act"] = "silu";
    j["vocab_size"] = vocab_size;
    j["hidden_size"] = hidden_size;
    j["intermediate_size"] = intermediate_size;
    j["num_hidden_layers"] = num_hidden_layers;
    j["num_attention_heads"] = num_attention_heads;
    j["num_key_value_heads"] = num_key_value_heads;
    j["max_position_embeddings"] = max_position_embeddings;
    j["rope_theta"] = rope_theta;
    j["rms_norm_eps"] = rms_norm_eps;
    j["initializer_range"] = initializer_range;
    j["tie_word_embeddings"] = tie_word_embeddings;
    j["torch_dtype"] = torch_dtype;
    if (bos_token_id >= 0)
        j["bos_token_id"] = bos_token_id;
    if (eos_token_id >= 0)
        j["eos_token_id"] = eos_token_id;
    return j;
}

int64_t Qwen2Config::parameterCount() const
{
    const int64_t h = hidden_size, kv = num_key_value_heads * headDim();
    const int64_t attention = (h * h + h) + 2 * (h * kv + kv) + h * h;
    const int64_t mlp = 3 * h * intermediate_size;
    const int64_t perLayer = attention + mlp + 2 * h;
    const int64_t embeddings = vocab_size * h * (tie_word_embeddings ? 1 : 2);
    return embeddings + num_hidden_layers * perLayer + h;
}

} // namespace traindeck::model
