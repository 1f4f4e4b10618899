// The Qwen2 pre-tokenizer: a hand-written scanner with the exact semantics of the Split regex
//   (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
// used with behaviour "Isolated" (every match is a piece; the pattern matches at every position, so
// there are no gaps). Alternatives are tried in order at each position, as a backtracking engine does.
// \s is Unicode White_Space, \p{L} / \p{N} the general categories, all from utf8proc.
#pragma once

#include <string_view>

#include "tokenizer/unicode_text.h"

namespace traindeck::tok {

inline constexpr std::string_view kQwen2SplitPattern =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

namespace detail {

inline unicode::CharClass classAt(const unsigned char* p, int& len, const unicode::Tables& t)
{
    if (*p < 0x80) {
        len = 1;
        return static_cast<unicode::CharClass>(t.bmp[*p] & 7u);
    }
    const uint32_t cp = unicode::decodeUtf8(p, len);
    return unicode::classOf(cp, t);
}

inline const unsigned char* skipClass(const unsigned char* p, const unsigned char* e, unicode::CharClass cls,
                                      const unicode::Tables& t)
{
    while (p < e) {
        int len;
        if (classAt(p, len, t) != cls)
            break;
        p += len;
    }
    return p;
}

} // namespace detail

// Calls emit(begin, end) (pointers into text) for every piece of text, which must be well-formed UTF-8
// (normalised, when the tokenizer normalises).
template <class Emit> void splitQwen2(std::string_view text, Emit&& emit)
{
    using unicode::CharClass;
    const unicode::Tables& t = unicode::tables();
    const auto* p = reinterpret_cast<const unsigned char*>(text.data());
    const unsigned char* const e = p + text.size();
    while (p < e) {
        // 1. (?i:'s|'t|'re|'ve|'m|'ll|'d) — ASCII letters only, as both reference engines match.
        if (*p == '\'' && p + 1 < e) {
            const unsigned a = p[1] | 0x20u;
            if (a == 's' || a == 't' || a == 'm' || a == 'd') {
                emit(p, p + 2);
                p += 2;
                continue;
            }
            if (p + 2 < e) {
                const unsigned b = p[2] | 0x20u;
                if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l')) {
                    emit(p, p + 3);
                    p += 3;
                    continue;
                }
            }
        }
        int len0;
        const CharClass c0 = detail::classAt(p, len0, t);
        // 2. [^\r\n\p{L}\p{N}]?\p{L}+
        if (c0 == CharClass::Letter) {
            const unsigned char* q = detail::skipClass(p + len0, e, CharClass::Letter, t);
            emit(p, q);
            p = q;
            continue;
        }
        if (c0 != CharClass::Number && c0 != CharClass::Newline && p + len0 < e) {
            int len1;
            if (detail::classAt(p + len0, len1, t) == CharClass::Letter) {
                const unsigned char* q = detail::skipClass(p + len0 + len1, e, CharClass::Letter, t);
                emit(p, q);
                p = q;
                continue;
            }
        }
        // 3. \p{N}
        if (c0 == CharClass::Number) {
            emit(p, p + len0);
            p += len0;
            continue;
        }
        // 4.  ?[^\s\p{L}\p{N}]+[\r\n]*
        {
            const unsigned char* q = p;
            int lenq = len0;
            CharClass cq = c0;
            if (*p == ' ' && p + 1 < e) {
                q = p + 1;
                cq = detail::classAt(q, lenq, t);
            }
            if (cq == CharClass::Other) {
                const unsigned char* r = detail::skipClass(q + lenq, e, CharClass::Other, t);
                while (r < e && (*r == '\r' || *r == '\n'))
                    ++r;
                emit(p, r);
                p = r;
                continue;
            }
        }
        // Here c0 is Space or Newline. Scan the whole run of white space.
        const unsigned char* r = p;
        const unsigned char* lastNewline = nullptr;
        const unsigned char* lastStart = p;
        while (r < e) {
            int len;
            const CharClass c = detail::classAt(r, len, t);
            if (c == CharClass::Newline)
                lastNewline = r;
            else if (c != CharClass::Space)
                break;
            lastStart = r;
            r += len;
        }
        const unsigned char* end;
        if (lastNewline) // 5. \s*[\r\n]+ : up to the last CR/LF of the run
            end = lastNewline + 1;
        else if (r == e || lastStart == p) // 6. \s+(?!\S) at the end of text, or 7. \s+ for one char
            end = r;
        else // 6. \s+(?!\S) : the run but its last character
            end = lastStart;
        emit(p, end);
        p = end;
    }
}

} // namespace traindeck::tok
