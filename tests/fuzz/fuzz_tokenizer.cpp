// The Qwen2 tokenizer (the real tokenizer.json named by $TRAINDECK_FUZZ_TOKENIZER; scripts/fuzz.sh
// passes the one from the setup's cache):
// encode never crashes on any bytes (ill-formed UTF-8 ends in TokenizerError), and for well-formed UTF-8
// decode(encode(x)) == NFC(x).
#include "tokenizer/bpe_tokenizer.h"
#include "tokenizer/unicode_text.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>

namespace {
std::unique_ptr<traindeck::tok::BpeTokenizer> tokenizer;
}

extern "C" int LLVMFuzzerInitialize(int*, char***)
{
    const char* path = std::getenv("TRAINDECK_FUZZ_TOKENIZER");
    if (!path) {
        std::fprintf(stderr, "fuzz_tokenizer: set TRAINDECK_FUZZ_TOKENIZER to a Qwen2 tokenizer.json\n");
        std::exit(2);
    }
    tokenizer = traindeck::tok::BpeTokenizer::load(path);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    if (traindeck::tok::unicode::findInvalidUtf8(text) != traindeck::tok::unicode::npos) {
        try { // ill-formed UTF-8 is refused with TokenizerError (exit 2 in the trainer), nothing else
            (void)tokenizer->encode(text);
        } catch (const traindeck::tok::TokenizerError&) {
        }
        return 0;
    }
    const std::vector<int32_t> ids = tokenizer->encode(text);
    const std::string back = tokenizer->decode(ids);
    if (back != traindeck::tok::unicode::toNfc(text)) {
        std::fprintf(stderr, "decode(encode(x)) != NFC(x) for %zu bytes\n", size);
        std::abort();
    }
    return 0;
}
