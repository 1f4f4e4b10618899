// The byte-level BPE tokenizer behind Tokenizer::fromFile (Qwen2 family tokenizer.json).
#pragma once

#include <array>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tokenizer/tokenizer.h"

namespace traindeck::tok {

struct AddedToken {
    int32_t id = -1;
    std::string content;
    bool special = false;
    bool lstrip = false;
    bool rstrip = false;
    bool singleWord = false;
    bool normalized = false;
};

class BpeTokenizer final : public Tokenizer {
  public:
    // Loads tokenizer.json (and tokenizer_config.json beside it). Throws TokenizerError naming the
    // file and the fault.
    static std::unique_ptr<BpeTokenizer> load(const std::string& path);
    ~BpeTokenizer() override;

    std::vector<int32_t> encode(std::string_view utf8, bool addSpecialTokens = false) const override;
    std::vector<std::vector<int32_t>>
    encodeBatch(const std::vector<std::string_view>& docs, int threads, bool addSpecialTokens = false,
                const std::function<void(size_t, size_t)>& progress = {}) const override;
    std::string decode(std::span<const int32_t> ids, bool skipSpecialTokens = false) const override;

    int32_t vocabSize() const override { return vocabSize_; }
    std::optional<int32_t> tokenToId(std::string_view token) const override;
    std::optional<int32_t> bosId() const override { return bos_; }
    std::optional<int32_t> eosId() const override { return eos_; }
    std::optional<int32_t> padId() const override { return pad_; }
    uint64_t fingerprint() const override { return fingerprint_; }

    const std::vector<AddedToken>& addedTokens() const { return added_; }
    // Ids the post-processor template puts before / after the text (addSpecialTokens).
    const std::vector<int32_t>& templatePrefix() const { return prefix_; }
    const std::vector<int32_t>& templateSuffix() const { return suffix_; }
    // The token's bytes as decode() produces them (before the final UTF-8 repair).
    std::string_view tokenBytes(int32_t id) const;

    // Pieces the Qwen2 pre-tokenizer cuts (normalised, well-formed) text into.
    static std::vector<std::string_view> splitPieces(std::string_view text);

    struct EncoderState;
    struct AddedMatcher;
    class PairMap;

  private:
    friend class BpeTokenizerLoader; // the steps of load(), in bpe_tokenizer_load.cpp

    BpeTokenizer();
    void encodeChunk(std::string_view text, size_t baseOffset, EncoderState& st, std::vector<int32_t>& out) const;
    void encodeSegment(std::string_view segment, EncoderState& st, std::vector<int32_t>& out) const;
    void encodePlain(std::string_view text, EncoderState& st, std::vector<int32_t>& out) const;
    void encodePiece(const unsigned char* p, size_t n, EncoderState& st, std::vector<int32_t>& out) const;
    void bpeSmall(const unsigned char* p, size_t n, std::vector<int32_t>& out) const;
    void bpeLarge(const unsigned char* p, size_t n, EncoderState& st, std::vector<int32_t>& out) const;
    std::unique_ptr<EncoderState> acquireState() const;
    void releaseState(std::unique_ptr<EncoderState> st) const;

    int32_t vocabSize_ = 0;
    std::array<int32_t, 256> byteId_{};
    std::unique_ptr<PairMap> pairs_;
    std::unordered_map<std::string, int32_t> tokenToId_; // vocabulary strings and added contents
    std::unordered_map<std::string, int32_t> bytesToId_; // only with ignore_merges
    std::string decodeArena_;                            // bytes of every id, concatenated
    std::vector<uint32_t> decodeOffset_;                 // vocabSize_+1 offsets into decodeArena_
    std::vector<uint8_t> idFlags_;                       // bit0 present, bit1 special added token
    std::vector<AddedToken> added_;
    std::unique_ptr<AddedMatcher> rawMatcher_;  // added tokens with normalized=false
    std::unique_ptr<AddedMatcher> normMatcher_; // added tokens with normalized=true
    std::array<bool, 256> lstripFirstByte_{};   // first bytes of lstrip added tokens
    bool chunkable_ = true;                     // safe to cut inputs at newlines
    bool nfc_ = false;
    bool ignoreMerges_ = false;
    std::vector<int32_t> prefix_, suffix_;
    std::optional<int32_t> bos_, eos_, pad_;
    uint64_t fingerprint_ = 0;

    mutable std::mutex poolMutex_;
    mutable std::vector<std::unique_ptr<EncoderState>> pool_;
};

} // namespace traindeck::tok
