// Internals shared by the two units of BpeTokenizer (bpe_tokenizer.cpp encodes and decodes,
// bpe_tokenizer_load.cpp reads tokenizer.json): hashing, the merge table and the added-token matcher.
// Not part of the tokenizer's interface.
#pragma once

#include <algorithm>
#include <cstring>

#include "tokenizer/bpe_tokenizer.h"
#include "tokenizer/unicode_text.h"

namespace traindeck::tok {

namespace detail {

inline uint64_t mix64(uint64_t h)
{
    h ^= h >> 31;
    h *= 0xd6e8feb86659fd93ull;
    h ^= h >> 32;
    return h;
}

inline uint64_t hashBytes(const unsigned char* p, size_t n, uint64_t seed = 0)
{
    uint64_t h = seed ^ 0x9E3779B97F4A7C15ull ^ (n * 0xff51afd7ed558ccdull);
    while (n >= 8) {
        uint64_t w;
        std::memcpy(&w, p, 8);
        h = (h ^ w) * 0xbf58476d1ce4e5b9ull;
        h ^= h >> 29;
        p += 8;
        n -= 8;
    }
    if (n) {
        uint64_t w = 0;
        std::memcpy(&w, p, n);
        h = (h ^ w) * 0x94d049bb133111ebull;
        h ^= h >> 32;
    }
    return mix64(h);
}

// Tokens with lstrip/rstrip absorb white space (Rust's char::is_whitespace = White_Space).
inline size_t whitespaceBefore(std::string_view s, size_t pos, size_t floor)
{
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    while (pos > floor) {
        size_t q = pos - 1;
        while (q > floor && (p[q] & 0xC0) == 0x80)
            --q;
        int len;
        if (!unicode::isWhiteSpace(unicode::decodeUtf8(p + q, len)))
            break;
        pos = q;
    }
    return pos;
}

inline size_t whitespaceAfter(std::string_view s, size_t pos)
{
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    while (pos < s.size()) {
        int len;
        if (!unicode::isWhiteSpace(unicode::decodeUtf8(p + pos, len)))
            break;
        pos += static_cast<size_t>(len);
    }
    return pos;
}

inline bool wordCharBefore(std::string_view s, size_t pos)
{
    if (pos == 0)
        return false;
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    size_t q = pos - 1;
    while (q > 0 && (p[q] & 0xC0) == 0x80)
        --q;
    int len;
    return unicode::isWordChar(unicode::decodeUtf8(p + q, len));
}

inline bool wordCharAt(std::string_view s, size_t pos)
{
    if (pos >= s.size())
        return false;
    int len;
    return unicode::isWordChar(unicode::decodeUtf8(reinterpret_cast<const unsigned char*>(s.data()) + pos, len));
}

} // namespace detail

// pair (left id, right id) → (rank << 32) | merged id. Open addressing, linear probing.
class BpeTokenizer::PairMap {
  public:
    static constexpr uint64_t kNone = ~uint64_t{0};

    explicit PairMap(size_t n)
    {
        size_t cap = 16;
        int bits = 4;
        while (cap < n * 2 + 16) {
            cap <<= 1;
            ++bits;
        }
        slots_.assign(cap, Slot{kEmpty, 0});
        mask_ = cap - 1;
        shift_ = 64 - bits;
    }

    // A later duplicate replaces an earlier one, as in Hugging Face's merge map.
    void insert(uint32_t a, uint32_t b, uint32_t rank, uint32_t merged)
    {
        const uint64_t key = (uint64_t{a} << 32) | b;
        size_t i = index(key);
        while (slots_[i].key != kEmpty && slots_[i].key != key)
            i = (i + 1) & mask_;
        slots_[i] = Slot{key, (uint64_t{rank} << 32) | merged};
    }

    uint64_t find(uint32_t a, uint32_t b) const
    {
        const uint64_t key = (uint64_t{a} << 32) | b;
        size_t i = index(key);
        for (;;) {
            const Slot& s = slots_[i];
            if (s.key == key)
                return s.val;
            if (s.key == kEmpty)
                return kNone;
            i = (i + 1) & mask_;
        }
    }

  private:
    static constexpr uint64_t kEmpty = ~uint64_t{0}; // ids are < 2^31, so no key is all ones
    size_t index(uint64_t key) const { return static_cast<size_t>((key * 0x9E3779B97F4A7C15ull) >> shift_); }
    struct Slot {
        uint64_t key;
        uint64_t val;
    };
    std::vector<Slot> slots_;
    size_t mask_ = 0;
    int shift_ = 60;
};

struct BpeTokenizer::AddedMatcher {
    bool any = false;
    std::array<std::vector<uint32_t>, 256> byFirst; // indexes into added_, longest content first
    int distinctFirst = 0;
    unsigned char onlyFirst = 0;

    void build(const std::vector<AddedToken>& added, bool normalized)
    {
        for (uint32_t i = 0; i < added.size(); ++i) {
            if (added[i].normalized != normalized)
                continue;
            byFirst[static_cast<unsigned char>(added[i].content[0])].push_back(i);
            any = true;
        }
        for (int b = 0; b < 256; ++b) {
            auto& v = byFirst[b];
            if (v.empty())
                continue;
            ++distinctFirst;
            onlyFirst = static_cast<unsigned char>(b);
            std::stable_sort(v.begin(), v.end(),
                             [&](uint32_t x, uint32_t y) { return added[x].content.size() > added[y].content.size(); });
        }
    }

    // Leftmost-longest matching (as Hugging Face's Aho-Corasick with MatchKind::LeftmostLongest):
    // calls segment(text between tokens) and token(id) in order.
    template <class Segment, class Token>
    void split(const std::vector<AddedToken>& added, std::string_view text, Segment&& segment, Token&& token) const
    {
        if (!any) {
            if (!text.empty())
                segment(text);
            return;
        }
        const auto* s = reinterpret_cast<const unsigned char*>(text.data());
        const size_t n = text.size();
        size_t segStart = 0, pos = 0;
        while (pos < n) {
            size_t q;
            if (distinctFirst == 1) {
                const void* hit = std::memchr(s + pos, onlyFirst, n - pos);
                if (!hit)
                    break;
                q = static_cast<size_t>(static_cast<const unsigned char*>(hit) - s);
            } else {
                q = pos;
                while (q < n && byFirst[s[q]].empty())
                    ++q;
                if (q >= n)
                    break;
            }
            const AddedToken* tok = nullptr;
            for (uint32_t idx : byFirst[s[q]]) {
                const std::string& c = added[idx].content;
                if (c.size() <= n - q && std::memcmp(s + q, c.data(), c.size()) == 0) {
                    tok = &added[idx];
                    break;
                }
            }
            if (!tok) {
                pos = q + 1;
                continue;
            }
            size_t start = q, stop = q + tok->content.size();
            if (tok->singleWord && (detail::wordCharBefore(text, start) || detail::wordCharAt(text, stop))) {
                pos = stop;
                continue;
            }
            if (tok->lstrip)
                start = detail::whitespaceBefore(text, start, segStart);
            if (tok->rstrip)
                stop = detail::whitespaceAfter(text, stop);
            if (start > segStart)
                segment(text.substr(segStart, start - segStart));
            token(tok->id);
            segStart = pos = stop;
        }
        if (segStart < n)
            segment(text.substr(segStart));
    }
};

} // namespace traindeck::tok
