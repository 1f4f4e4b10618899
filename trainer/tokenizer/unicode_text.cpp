#include "tokenizer/unicode_text.h"

#include <utf8proc.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <stdexcept>

namespace traindeck::tok::unicode {

namespace {

// Length of the well-formed sequence starting at s[i] (Unicode Table 3-7), or, when ill-formed, the
// negated length of its maximal subpart (at least 1).
inline int sequenceAt(const unsigned char* s, size_t i, size_t n)
{
    const unsigned c = s[i];
    if (c < 0x80)
        return 1;
    int need;
    unsigned lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
        need = 1;
    } else if (c >= 0xE0 && c <= 0xEF) {
        need = 2;
        if (c == 0xE0)
            lo = 0xA0;
        if (c == 0xED)
            hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        need = 3;
        if (c == 0xF0)
            lo = 0x90;
        if (c == 0xF4)
            hi = 0x8F;
    } else {
        return -1;
    }
    size_t j = i + 1;
    for (int k = 0; k < need; ++k, ++j) {
        if (j >= n)
            return -static_cast<int>(j - i);
        const unsigned b = s[j];
        const unsigned l = k == 0 ? lo : 0x80, h = k == 0 ? hi : 0xBF;
        if (b < l || b > h)
            return -static_cast<int>(j - i);
    }
    return need + 1;
}

bool isCategoryWhite(utf8proc_category_t c)
{
    return c == UTF8PROC_CATEGORY_ZS || c == UTF8PROC_CATEGORY_ZL || c == UTF8PROC_CATEGORY_ZP;
}

void setUnsafe(Tables& t, uint32_t cp)
{
    t.nfcUnsafe[cp >> 6] |= uint64_t{1} << (cp & 63);
}

std::unique_ptr<Tables> buildTables()
{
    auto t = std::make_unique<Tables>();
    std::memset(t.get(), 0, sizeof(Tables));
    for (uint32_t cp = 0; cp < 0x10000; ++cp)
        t->bmp[cp] = static_cast<uint8_t>(classFromUtf8proc(cp));

    utf8proc_int32_t buf[32];
    utf8proc_int32_t tmp[32];
    for (uint32_t cp = 0; cp < 0x110000; ++cp) {
        if (cp >= 0xD800 && cp <= 0xDFFF)
            continue;
        const utf8proc_property_t* p = utf8proc_get_property(static_cast<utf8proc_int32_t>(cp));
        if (p->combining_class != 0)
            setUnsafe(*t, cp);
        // Canonical decompositions (utf8proc computes Hangul syllables algorithmically, so every BMP
        // code point is asked).
        const bool maybeDecomposable = cp < 0x10000 || p->decomp_seqindex != UINT16_MAX;
        if (!maybeDecomposable || cp < 0x80)
            continue;
        int boundclass = 0;
        const utf8proc_ssize_t n =
            utf8proc_decompose_char(static_cast<utf8proc_int32_t>(cp), buf, 32, UTF8PROC_DECOMPOSE, &boundclass);
        if (n <= 0 || n > 32 || (n == 1 && static_cast<uint32_t>(buf[0]) == cp))
            continue;
        // The last code point of a canonical decomposition can be the second half of a composition:
        // text containing it may compose with what precedes.
        if (n >= 2)
            setUnsafe(*t, static_cast<uint32_t>(buf[n - 1]));
        // Singletons and composition exclusions do not come back under NFC.
        std::memcpy(tmp, buf, sizeof(utf8proc_int32_t) * static_cast<size_t>(n));
        const utf8proc_ssize_t m =
            utf8proc_normalize_utf32(tmp, n, static_cast<utf8proc_option_t>(UTF8PROC_COMPOSE | UTF8PROC_STABLE));
        if (m != 1 || static_cast<uint32_t>(tmp[0]) != cp)
            setUnsafe(*t, cp);
    }
    for (uint32_t cp = 0; cp < 0x10000; ++cp)
        if (nfcUnsafe(cp, *t))
            t->bmp[cp] |= 8u;
    return t;
}

} // namespace

size_t findInvalidUtf8(std::string_view sv)
{
    const auto* s = reinterpret_cast<const unsigned char*>(sv.data());
    const size_t n = sv.size();
    size_t i = 0;
    while (i < n) {
        // Fast path over ASCII, eight bytes at a time.
        while (i + 8 <= n) {
            uint64_t w;
            std::memcpy(&w, s + i, 8);
            if (w & 0x8080808080808080ull)
                break;
            i += 8;
        }
        if (i >= n)
            break;
        if (s[i] < 0x80) {
            ++i;
            continue;
        }
        const int len = sequenceAt(s, i, n);
        if (len < 0)
            return i;
        i += static_cast<size_t>(len);
    }
    return npos;
}

void appendReplacingInvalidUtf8(std::string_view sv, std::string& out)
{
    const auto* s = reinterpret_cast<const unsigned char*>(sv.data());
    const size_t n = sv.size();
    size_t i = 0, copied = 0;
    while (i < n) {
        if (s[i] < 0x80) {
            ++i;
            continue;
        }
        const int len = sequenceAt(s, i, n);
        if (len > 0) {
            i += static_cast<size_t>(len);
            continue;
        }
        out.append(sv.data() + copied, i - copied);
        out.append("\xEF\xBF\xBD");
        i += static_cast<size_t>(-len);
        copied = i;
    }
    out.append(sv.data() + copied, n - copied);
}

std::string replaceInvalidUtf8(std::string_view s)
{
    std::string out;
    out.reserve(s.size());
    appendReplacingInvalidUtf8(s, out);
    return out;
}

void appendUtf8(uint32_t cp, std::string& out)
{
    if (cp < 0x80) {
        out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
        out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
        out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
        out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
}

bool isWhiteSpace(uint32_t cp)
{
    // White_Space = the controls TAB..CR and NEL, plus the separators (Zs, Zl, Zp).
    if ((cp >= 0x09 && cp <= 0x0D) || cp == 0x85)
        return true;
    if (cp < 0x20)
        return false;
    return isCategoryWhite(utf8proc_category(static_cast<utf8proc_int32_t>(cp)));
}

CharClass classFromUtf8proc(uint32_t cp)
{
    if (cp == '\n' || cp == '\r')
        return CharClass::Newline;
    if (isWhiteSpace(cp))
        return CharClass::Space;
    switch (utf8proc_category(static_cast<utf8proc_int32_t>(cp))) {
    case UTF8PROC_CATEGORY_LU:
    case UTF8PROC_CATEGORY_LL:
    case UTF8PROC_CATEGORY_LT:
    case UTF8PROC_CATEGORY_LM:
    case UTF8PROC_CATEGORY_LO: return CharClass::Letter;
    case UTF8PROC_CATEGORY_ND:
    case UTF8PROC_CATEGORY_NL:
    case UTF8PROC_CATEGORY_NO: return CharClass::Number;
    default: return CharClass::Other;
    }
}

bool isWordChar(uint32_t cp)
{
    if (cp == '_')
        return true;
    const auto c = classFromUtf8proc(cp);
    return c == CharClass::Letter || c == CharClass::Number;
}

const Tables& tables()
{
    static std::once_flag once;
    static std::unique_ptr<Tables> t;
    std::call_once(once, [] { t = buildTables(); });
    return *t;
}

bool mayNeedNfc(std::string_view sv)
{
    const auto* s = reinterpret_cast<const unsigned char*>(sv.data());
    const size_t n = sv.size();
    const Tables& t = tables();
    size_t i = 0;
    while (i < n) {
        const unsigned c = s[i];
        if (c < 0xCC) { // ASCII, a continuation byte, or a code point below U+0300: always stable
            ++i;
            continue;
        }
        int len;
        const uint32_t cp = decodeUtf8(s + i, len);
        if (nfcUnsafe(cp, t))
            return true;
        i += static_cast<size_t>(len);
    }
    return false;
}

std::string toNfc(std::string_view s)
{
    if (s.empty())
        return {};
    utf8proc_uint8_t* dst = nullptr;
    const utf8proc_ssize_t n =
        utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(s.data()), static_cast<utf8proc_ssize_t>(s.size()), &dst,
                     static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_COMPOSE));
    if (n < 0) {
        std::free(dst);
        throw std::runtime_error(std::string("NFC normalisation failed: ") + utf8proc_errmsg(n));
    }
    std::string out(reinterpret_cast<const char*>(dst), static_cast<size_t>(n));
    std::free(dst);
    return out;
}

} // namespace traindeck::tok::unicode
