// The tokenizer part of a GGUF file, built from a Hugging Face tokenizer.json (byte-level BPE, Qwen2
// pre-tokenizer) the way llama.cpp's "gpt2" tokenizer model expects it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace traindeck::exporter {

// llama.cpp's token types (enum llama_token_type / gguf TokenType).
enum class TokenType : int32_t { Normal = 1, Unknown = 2, Control = 3, UserDefined = 4, Unused = 5, Byte = 6 };

struct GgufVocab {
    std::vector<std::string> tokens; // one per id, exactly vocabSize entries (holes padded "[PADn]")
    std::vector<int32_t> types;      // TokenType per id
    std::vector<std::string> merges; // "left right", rank order
    std::optional<int32_t> bos, eos, pad;
    bool addBos = false, addEos = false;
    std::string chatTemplate;  // from tokenizer_config.json, may be empty
    int32_t tokenizerSize = 0; // ids the tokenizer defines (largest + 1)
    int32_t padded = 0;        // ids filled with [PADn] placeholders
    bool ignoreMerges = false; // tokenizer.json asks for ignore_merges (llama.cpp's qwen2 does not)
};

// Reads tokenizer.json (and tokenizer_config.json beside it) and lays the vocabulary out over vocabSize
// ids (the model's embedding rows). bos/eos ids missing from the tokenizer config fall back to
// configBos/configEos (config.json's bos_token_id/eos_token_id; < 0 means absent). Throws InputError when
// the file is not a Qwen2-style byte-level BPE tokenizer or has more ids than vocabSize.
GgufVocab loadGgufVocab(const std::string& tokenizerJson, int64_t vocabSize, int64_t configBos, int64_t configEos);

// Whether an added token that the tokenizer does not mark special still looks like a control token
// ("<|...|>", "<｜...｜>"): llama.cpp treats such tokens as control tokens (and warns when they are not typed so).
bool looksLikeControlToken(const std::string& content);

// Whether llama.cpp recognises a token by its text as end-of-generation (and so forces it to a control token
// when loading). The exporter marks such ordinary tokens as control tokens up front: same behaviour, no
// load-time warning.
bool llamaCppTreatsAsEndOfGeneration(const std::string& text);

} // namespace traindeck::exporter
