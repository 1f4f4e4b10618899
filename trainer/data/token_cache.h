// One-time tokenization of a corpus into a memory-mapped cache (tokens.bin: uint32 ids, every document
// followed by EOS; docs.bin: uint64 start offsets, one more than documents), reused across runs and
// ranks, keyed by the inputs (paths, sizes, mtimes, text field) and the tokenizer's content hash.
#pragma once

#include "data/corpus.h"

#include <cstdint>
#include <memory>
#include <span>
#include <string>

namespace traindeck::tok {
class Tokenizer;
}

namespace traindeck::data {

struct TokenCacheOptions {
    std::string dataPath;
    std::string textField = "text";
    std::string cacheRoot; // default: $XDG_CACHE_HOME/traindeck/tokens
    int threads = 1;
    bool verbose = true; // progress on stderr
};

class TokenCache {
  public:
    // tokenizer may be null: then bytes are the ids (0..255) and EOS is 256.
    static std::shared_ptr<TokenCache> buildOrLoad(const TokenCacheOptions& options, const tok::Tokenizer* tokenizer);
    ~TokenCache();

    std::span<const uint32_t> tokens() const { return {tokens_, numTokens_}; }
    std::span<const uint64_t> docStarts() const { return {docs_, numDocs_ + 1}; }
    size_t numDocs() const { return numDocs_; }
    uint32_t eosId() const { return eos_; }
    uint32_t padId() const { return pad_; }
    const std::string& directory() const { return dir_; }
    bool builtNow() const { return builtNow_; }

    static std::string defaultRoot();

  private:
    TokenCache() = default;
    // Checks the mapped files (sizes, offsets from 0 rising strictly to the token count); sets numDocs_.
    // Throws InputError naming the damaged file.
    static void validate(TokenCache& cache, const std::string& dir);
    std::string dir_;
    void* tokensMap_ = nullptr;
    size_t tokensBytes_ = 0;
    void* docsMap_ = nullptr;
    size_t docsBytes_ = 0;
    const uint32_t* tokens_ = nullptr;
    const uint64_t* docs_ = nullptr;
    size_t numTokens_ = 0, numDocs_ = 0;
    uint32_t eos_ = 0, pad_ = 0;
    bool builtNow_ = false;
};

} // namespace traindeck::data
