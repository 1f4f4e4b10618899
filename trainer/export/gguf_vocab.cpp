#include "export/gguf_vocab.h"

#include "tokenizer/bpe_tokenizer.h"
#include "util/errors.h"
#include "util/fileio.h"

#include <nlohmann/json.hpp>

#include <filesystem>

namespace traindeck::exporter {

namespace {

using json = nlohmann::json;

bool startsEnds(const std::string& s, const std::string& a, const std::string& b)
{
    return s.size() >= a.size() + b.size() && s.compare(0, a.size(), a) == 0 &&
           s.compare(s.size() - b.size(), b.size(), b) == 0;
}

} // namespace

static GgufVocab buildVocab(const std::string& path, const nlohmann::json& j, const tok::BpeTokenizer& tokenizer,
                            int64_t vocabSize, int64_t configBos, int64_t configEos);

bool llamaCppTreatsAsEndOfGeneration(const std::string& text)
{
    // The texts llama.cpp's vocabulary loader (llama-vocab.cpp) recognises as end-of-generation tokens; it
    // forces them to control tokens, with a warning when the file says otherwise. Qwen's vocabulary has
    // "</s>" (id 128247) as an ordinary token.
    static const char* const texts[] = {"<|eot_id|>",
                                        "<|im_end|>",
                                        "<|end|>",
                                        "<|return|>",
                                        "<|call|>",
                                        "<|flush|>",
                                        "<|calls|>",
                                        "<end_of_turn>",
                                        "<|endoftext|>",
                                        "</s>",
                                        "<|eom_id|>",
                                        "<EOT>",
                                        "_<EOT>",
                                        "[EOT]",
                                        "[EOS]",
                                        "<|end_of_text|>",
                                        "<end_of_utterance>",
                                        "<eos>",
                                        "<turn|>",
                                        "<|tool_response>"};
    for (const char* t : texts)
        if (text == t)
            return true;
    return false;
}

bool looksLikeControlToken(const std::string& c)
{
    return startsEnds(c, "<|", "|>") || startsEnds(c, "<\xEF\xBD\x9C", "\xEF\xBD\x9C>"); // fullwidth ｜
}

GgufVocab loadGgufVocab(const std::string& path, int64_t vocabSize, int64_t configBos, int64_t configEos)
{
    // The trainer's own tokenizer validates the file (Qwen2 split, byte-level BPE, added tokens, template)
    // and resolves bos/eos/pad from tokenizer_config.json.
    std::unique_ptr<tok::BpeTokenizer> tokenizer;
    try {
        tokenizer = tok::BpeTokenizer::load(path);
    } catch (const tok::TokenizerError& e) {
        throw InputError(e.what());
    }
    if (tokenizer->vocabSize() > vocabSize)
        throw InputError(path + ": the tokenizer has " + std::to_string(tokenizer->vocabSize()) +
                         " ids but config.json's vocab_size is " + std::to_string(vocabSize) +
                         "; the model and the tokenizer do not belong together");

    json j;
    try {
        j = json::parse(util::readFile(path));
    } catch (const json::parse_error& e) {
        throw InputError(path + ": invalid JSON: " + e.what());
    }
    try {
        return buildVocab(path, j, *tokenizer, vocabSize, configBos, configEos);
    } catch (const json::exception& e) {
        throw InputError(path + ": unexpected structure: " + e.what());
    }
}

static GgufVocab buildVocab(const std::string& path, const nlohmann::json& j, const tok::BpeTokenizer& tokenizer,
                            int64_t vocabSize, int64_t configBos, int64_t configEos)
{
    const json& model = j.at("model");
    GgufVocab v;
    v.tokenizerSize = tokenizer.vocabSize();
    v.tokens.assign(static_cast<size_t>(vocabSize), std::string());
    v.types.assign(static_cast<size_t>(vocabSize), 0);
    v.ignoreMerges = model.value("ignore_merges", false);

    auto place = [&](int64_t id, const std::string& text, TokenType type, bool override) {
        if (id < 0 || id >= vocabSize)
            throw InputError(path + ": token id " + std::to_string(id) + " (\"" + text + "\") is outside [0, " +
                             std::to_string(vocabSize) + ")");
        auto& slot = v.tokens[static_cast<size_t>(id)];
        if (v.types[static_cast<size_t>(id)] != 0 && !override)
            throw InputError(path + ": token id " + std::to_string(id) + " is assigned twice");
        slot = text;
        v.types[static_cast<size_t>(id)] = static_cast<int32_t>(type);
    };
    for (auto it = model.at("vocab").begin(); it != model.at("vocab").end(); ++it)
        place(it->get<int64_t>(), it.key(),
              llamaCppTreatsAsEndOfGeneration(it.key()) ? TokenType::Control : TokenType::Normal, false);
    if (j.contains("added_tokens") && j["added_tokens"].is_array()) {
        for (const json& a : j["added_tokens"]) {
            const std::string content = a.at("content").get<std::string>();
            const bool special = a.value("special", false);
            // As llama.cpp's converter does: special tokens, and tokens that look like control tokens, are
            // control tokens (matched only when parsing specials); the rest are user-defined (always matched).
            const TokenType type =
                special || looksLikeControlToken(content) ? TokenType::Control : TokenType::UserDefined;
            place(a.at("id").get<int64_t>(), content, type, true);
        }
    }
    for (int64_t id = 0; id < vocabSize; ++id) {
        if (v.types[static_cast<size_t>(id)] == 0) {
            v.tokens[static_cast<size_t>(id)] = "[PAD" + std::to_string(id) + "]";
            v.types[static_cast<size_t>(id)] = static_cast<int32_t>(TokenType::Unused);
            ++v.padded;
        }
    }

    for (const json& m : model.at("merges")) {
        if (m.is_string()) {
            v.merges.push_back(m.get<std::string>());
        } else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {
            const std::string a = m[0].get<std::string>(), b = m[1].get<std::string>();
            if (a.find(' ') != std::string::npos || b.find(' ') != std::string::npos)
                throw InputError(path + ": merge [\"" + a + "\", \"" + b +
                                 "\"] contains a space, which GGUF's \"a b\" merge strings cannot express");
            v.merges.push_back(a + " " + b);
        } else {
            throw InputError(path + ": a merge is neither \"a b\" nor [\"a\", \"b\"]");
        }
    }

    v.bos = tokenizer.bosId();
    v.eos = tokenizer.eosId();
    v.pad = tokenizer.padId();
    if (!v.bos && configBos >= 0 && configBos < vocabSize)
        v.bos = static_cast<int32_t>(configBos);
    if (!v.eos && configEos >= 0 && configEos < vocabSize)
        v.eos = static_cast<int32_t>(configEos);
    v.addBos = !tokenizer.templatePrefix().empty();
    v.addEos = !tokenizer.templateSuffix().empty();

    const auto cfgPath = std::filesystem::path(path).parent_path() / "tokenizer_config.json";
    if (std::filesystem::is_regular_file(cfgPath)) {
        json cfg;
        try {
            cfg = json::parse(util::readFile(cfgPath.string()));
        } catch (const json::parse_error& e) {
            throw InputError(cfgPath.string() + ": invalid JSON: " + e.what());
        }
        if (cfg.contains("chat_template")) {
            const json& t = cfg["chat_template"];
            if (t.is_string()) {
                v.chatTemplate = t.get<std::string>();
            } else if (t.is_array()) { // [{"name": "default", "template": "..."}, ...]
                for (const json& e : t)
                    if (e.is_object() && e.value("name", "") == "default" && e.contains("template") &&
                        e["template"].is_string())
                        v.chatTemplate = e["template"].get<std::string>();
            }
        }
    }
    return v;
}

} // namespace traindeck::exporter
