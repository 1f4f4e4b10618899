// UTF-8 and Unicode helpers for the tokenizer. Unicode data (categories, canonical decompositions,
// combining classes, NFC) comes from utf8proc; this file only caches it in lookup tables.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace traindeck::tok::unicode {

// What the Qwen2 split pattern distinguishes about a code point.
enum class CharClass : uint8_t {
    Letter,  // \p{L}: Lu Ll Lt Lm Lo
    Number,  // \p{N}: Nd Nl No
    Space,   // \s (Unicode White_Space) other than CR and LF
    Newline, // [\r\n]
    Other,   // everything else (punctuation, symbols, marks, controls, unassigned…)
};

inline constexpr size_t npos = std::string_view::npos;

// Offset of the first byte that does not start a well-formed UTF-8 sequence (overlong forms,
// surrogates, code points above U+10FFFF, truncated or stray continuation bytes), or npos.
size_t findInvalidUtf8(std::string_view s);

// Replaces every maximal ill-formed subsequence by U+FFFD (the WHATWG / Unicode "substitution of
// maximal subparts" practice, as Rust's String::from_utf8_lossy and JavaScript's TextDecoder do).
std::string replaceInvalidUtf8(std::string_view s);
// Same, appending to out.
void appendReplacingInvalidUtf8(std::string_view s, std::string& out);

// Decodes the code point at p from well-formed UTF-8; len receives its length in bytes.
inline uint32_t decodeUtf8(const unsigned char* p, int& len)
{
    const unsigned c = p[0];
    if (c < 0x80) {
        len = 1;
        return c;
    }
    if (c < 0xE0) {
        len = 2;
        return ((c & 0x1Fu) << 6) | (p[1] & 0x3Fu);
    }
    if (c < 0xF0) {
        len = 3;
        return ((c & 0x0Fu) << 12) | ((p[1] & 0x3Fu) << 6) | (p[2] & 0x3Fu);
    }
    len = 4;
    return ((c & 0x07u) << 18) | ((p[1] & 0x3Fu) << 12) | ((p[2] & 0x3Fu) << 6) | (p[3] & 0x3Fu);
}

void appendUtf8(uint32_t cp, std::string& out);

// Lookup tables built once from utf8proc (thread-safe lazy initialisation).
struct Tables {
    // Low 3 bits: CharClass; bit 3: the code point may change under NFC or change its neighbours
    // (non-zero combining class, can be the second part of a canonical composition, or its NFC
    // differs from itself).
    uint8_t bmp[0x10000];
    // Same flag for every code point, one bit each.
    uint64_t nfcUnsafe[0x110000 / 64];
};
const Tables& tables();

// The class straight from utf8proc (no table).
CharClass classFromUtf8proc(uint32_t cp);

inline CharClass classOf(uint32_t cp, const Tables& t)
{
    if (cp < 0x10000)
        return static_cast<CharClass>(t.bmp[cp] & 7u);
    return classFromUtf8proc(cp);
}

inline bool nfcUnsafe(uint32_t cp, const Tables& t)
{
    return (t.nfcUnsafe[cp >> 6] >> (cp & 63)) & 1u;
}

// True when s (well-formed UTF-8) might not be in NFC; false guarantees it is.
bool mayNeedNfc(std::string_view s);

// NFC of well-formed UTF-8 (utf8proc). Throws std::bad_alloc / std::runtime_error on failure.
std::string toNfc(std::string_view s);

// Unicode White_Space (what \s matches in Rust's regex and in Oniguruma).
bool isWhiteSpace(uint32_t cp);

// Rust's char::is_alphanumeric approximated by categories L* and N*, plus '_' : the notion of a word
// character used by added tokens with single_word.
bool isWordChar(uint32_t cp);

} // namespace traindeck::tok::unicode
