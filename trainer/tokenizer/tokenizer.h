// Byte-level BPE tokenizer read from a Hugging Face tokenizer.json (Qwen2 family).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace traindeck::tok {

// Thrown for unreadable/invalid tokenizer files and for invalid input; the message names the file
// (or the byte offset in the input) and the fault.
class TokenizerError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

class Tokenizer {
  public:
    virtual ~Tokenizer() = default;

    // Loads tokenizer.json; tokenizer_config.json beside it, when present, supplies bos/eos/pad names.
    static std::unique_ptr<Tokenizer> fromFile(const std::string& path);

    // Encodes UTF-8 text. addSpecialTokens applies the post-processor template (e.g. the distill's BOS).
    virtual std::vector<int32_t> encode(std::string_view utf8, bool addSpecialTokens = false) const = 0;

    // Encodes many documents on `threads` threads; progress(doneBytes, totalBytes) is called from the
    // calling thread now and then.
    virtual std::vector<std::vector<int32_t>>
    encodeBatch(const std::vector<std::string_view>& docs, int threads, bool addSpecialTokens = false,
                const std::function<void(size_t, size_t)>& progress = {}) const = 0;

    virtual std::string decode(std::span<const int32_t> ids, bool skipSpecialTokens = false) const = 0;

    virtual int32_t vocabSize() const = 0; // largest id + 1, added tokens included
    virtual std::optional<int32_t> tokenToId(std::string_view token) const = 0;
    virtual std::optional<int32_t> bosId() const = 0;
    virtual std::optional<int32_t> eosId() const = 0;
    virtual std::optional<int32_t> padId() const = 0;
    virtual uint64_t fingerprint() const = 0; // content hash of the files loaded, for caches
};

} // namespace traindeck::tok
