// A deterministic, mixed test corpus for the tokenizer tests and benchmark, generated at run time from a
// seeded generator plus text files the system already has (/usr/share/common-licenses,
// /usr/share/doc/*/copyright, /usr/include headers): English prose, Chinese, source code, runs of
// spaces/tabs/newlines, digits, contractions in upper and lower case, emoji and other non-BMP
// characters, decomposed (NFD) text, and other scripts.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace traindeck::tok::testing {

// Documents totalling at least targetBytes of UTF-8. The same seed gives the same documents on the same
// machine. The documents contain no U+FEFF and no U+0085 (the JavaScript reference's \s disagrees
// with Unicode White_Space on those two) and no "<|" (so no Qwen added token occurs by accident).
std::vector<std::string> makeCorpus(size_t targetBytes, uint64_t seed = 20240229);

// Edge cases: strings chosen to exercise each alternative of the split pattern and its corners.
std::vector<std::string> edgeCases();

// Writes docs as a JSON array of strings.
std::string toJsonArray(const std::vector<std::string>& docs);

// NFD of s (utf8proc), to build decomposed input.
std::string nfd(std::string_view s);

} // namespace traindeck::tok::testing
