#include "tokenizer/tokenize_command.h"

#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "tokenizer/bpe_tokenizer.h"
#include "tokenizer/unicode_text.h"

namespace traindeck::tok {

namespace {

constexpr const char* kUsage =
    "usage: traindeck-trainer tokenize --tokenizer PATH/tokenizer.json [--input FILE] [--special]\n"
    "                                  [--threads N] [--stats] [--replace-invalid]\n"
    "       traindeck-trainer tokenize --tokenizer PATH/tokenizer.json --decode [--skip-special]\n"
    "                                  [--input FILE] [--stats]\n"
    "\n"
    "Encodes the whole input (stdin without --input) and writes its token ids as decimal numbers\n"
    "separated by single spaces, then a newline. With --decode, reads ids separated by white space\n"
    "and writes the text.\n"
    "  --tokenizer PATH   Hugging Face tokenizer.json (tokenizer_config.json beside it is read too)\n"
    "  --input FILE       read FILE instead of stdin\n"
    "  --special          apply the post-processor template (e.g. the distill's BOS token)\n"
    "  --threads N        encode on N threads (default 1; 0 = all cores)\n"
    "  --stats            print {\"bytes\":B,\"tokens\":T,\"seconds\":S,\"threads\":N} to stderr\n"
    "  --replace-invalid  replace invalid UTF-8 by U+FFFD instead of failing\n"
    "  --decode           ids in, text out\n"
    "  --skip-special     with --decode: drop special tokens\n"
    "Exit status: 0 success, 2 bad usage or input, 1 other failure.\n";

struct UsageError {
    std::string message;
};

int fail(const std::string& message, int code = 2)
{
    std::fprintf(stderr, "traindeck-trainer tokenize: %s\n", message.c_str());
    return code;
}

bool readAll(std::FILE* f, std::string& out)
{
    char buf[1 << 16];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0)
        out.append(buf, n);
    return !std::ferror(f);
}

bool isSpace(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

bool writeAll(std::string_view s)
{
    return std::fwrite(s.data(), 1, s.size(), stdout) == s.size();
}

struct TokenizeArgs {
    std::string tokenizerPath, inputPath;
    bool haveInput = false, special = false, stats = false, decode = false, skipSpecial = false, replaceInvalid = false;
    int threads = 1;
};

// Parses the options into args; throws UsageError. Returns false after --help (printed).
bool parseArgs(int argc, char** argv, TokenizeArgs& args)
{
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        std::string value;
        bool hasValue = false;
        if (arg.rfind("--", 0) == 0) {
            const size_t eq = arg.find('=');
            if (eq != std::string::npos) {
                value = arg.substr(eq + 1);
                arg.resize(eq);
                hasValue = true;
            }
        }
        const auto takeValue = [&]() -> std::string {
            if (hasValue)
                return value;
            if (i + 1 >= argc)
                throw UsageError{"option " + arg + " needs a value"};
            return argv[++i];
        };
        const auto noValue = [&] {
            if (hasValue)
                throw UsageError{"option " + arg + " takes no value"};
        };
        if (arg == "-h" || arg == "--help") {
            std::fputs(kUsage, stdout);
            return false;
        } else if (arg == "--tokenizer") {
            args.tokenizerPath = takeValue();
        } else if (arg == "--input") {
            args.inputPath = takeValue();
            args.haveInput = true;
        } else if (arg == "--threads") {
            const std::string v = takeValue();
            int n = -1;
            const auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
            if (ec != std::errc() || p != v.data() + v.size() || n < 0 || n > 4096)
                throw UsageError{"--threads needs a whole number from 0 to 4096, not '" + v + "'"};
            args.threads = n;
        } else if (arg == "--special") {
            noValue();
            args.special = true;
        } else if (arg == "--stats") {
            noValue();
            args.stats = true;
        } else if (arg == "--decode") {
            noValue();
            args.decode = true;
        } else if (arg == "--skip-special") {
            noValue();
            args.skipSpecial = true;
        } else if (arg == "--replace-invalid") {
            noValue();
            args.replaceInvalid = true;
        } else {
            throw UsageError{"unknown option '" + arg + "' (see --help)"};
        }
    }
    if (args.tokenizerPath.empty())
        throw UsageError{"--tokenizer PATH/tokenizer.json is required (see --help)"};
    return true;
}

// Reads the input file (or stdin) into input. Returns 0, or the exit status after the message.
int readInput(const TokenizeArgs& args, const std::string& inputName, std::string& input)
{
    std::FILE* f = args.haveInput ? std::fopen(args.inputPath.c_str(), "rb") : stdin;
    if (!f)
        return fail("cannot open " + inputName + ": " + std::strerror(errno));
    const bool ok = readAll(f, input);
    const int err = errno;
    if (args.haveInput)
        std::fclose(f);
    if (!ok)
        return fail("cannot read " + inputName + ": " + std::strerror(err));
    return 0;
}

// Token ids separated by white space. Returns 0, or the exit status after the message.
int parseIds(const std::string& input, const std::string& inputName, std::vector<int32_t>& ids)
{
    size_t i = 0;
    while (i < input.size()) {
        while (i < input.size() && isSpace(input[i]))
            ++i;
        if (i >= input.size())
            break;
        size_t j = i;
        while (j < input.size() && !isSpace(input[j]))
            ++j;
        int32_t id = 0;
        const auto [p, ec] = std::from_chars(input.data() + i, input.data() + j, id);
        if (ec != std::errc() || p != input.data() + j)
            return fail(inputName + ": '" + input.substr(i, std::min<size_t>(j - i, 40)) + "' at byte offset " +
                        std::to_string(i) + " is not a token id");
        ids.push_back(id);
        i = j;
    }
    return 0;
}

// --decode: ids in, text out.
int runDecode(const BpeTokenizer& tok, const TokenizeArgs& args, const std::string& inputName, const std::string& input)
{
    std::vector<int32_t> ids;
    if (const int rc = parseIds(input, inputName, ids))
        return rc;
    const auto t0 = std::chrono::steady_clock::now();
    std::string text;
    try {
        text = tok.decode(ids, args.skipSpecial);
    } catch (const TokenizerError& e) {
        return fail(inputName + ": " + e.what());
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!writeAll(text) || std::fflush(stdout) != 0)
        return fail(std::string("cannot write the output: ") + std::strerror(errno), 1);
    if (args.stats)
        std::fprintf(stderr, "{\"bytes\":%zu,\"tokens\":%zu,\"seconds\":%.6f,\"threads\":1}\n", text.size(), ids.size(),
                     seconds);
    return 0;
}

// The ids as decimal numbers separated by single spaces, then a newline.
std::string formatIds(const std::vector<int32_t>& v)
{
    std::string out;
    out.reserve(v.size() * 7 + 1);
    char num[16];
    for (size_t k = 0; k < v.size(); ++k) {
        if (k)
            out.push_back(' ');
        const auto [p, ec] = std::to_chars(num, num + sizeof num, v[k]);
        (void)ec;
        out.append(num, p);
    }
    out.push_back('\n');
    return out;
}

// Text in, ids out.
int runEncode(const BpeTokenizer& tok, const TokenizeArgs& args, const std::string& inputName, std::string& input)
{
    const size_t bad = unicode::findInvalidUtf8(input);
    if (bad != unicode::npos) {
        if (!args.replaceInvalid)
            return fail(inputName + " is not valid UTF-8 at byte offset " + std::to_string(bad) +
                        " (--replace-invalid substitutes U+FFFD)");
        input = unicode::replaceInvalidUtf8(input);
    }

    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::vector<int32_t>> ids;
    try {
        ids = tok.encodeBatch({std::string_view(input)}, args.threads, args.special);
    } catch (const TokenizerError& e) {
        return fail(inputName + ": " + e.what());
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    const std::vector<int32_t>& v = ids.front();
    const std::string out = formatIds(v);
    if (!writeAll(out) || std::fflush(stdout) != 0)
        return fail(std::string("cannot write the output: ") + std::strerror(errno), 1);
    if (args.stats)
        std::fprintf(stderr, "{\"bytes\":%zu,\"tokens\":%zu,\"seconds\":%.6f,\"threads\":%d}\n", input.size(), v.size(),
                     seconds, args.threads);
    return 0;
}

} // namespace

int runTokenizeCommand(int argc, char** argv)
{
    TokenizeArgs args;
    try {
        if (!parseArgs(argc, argv, args))
            return 0;
    } catch (const UsageError& e) {
        return fail(e.message);
    }
    if (args.threads == 0)
        args.threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));

    try {
        std::unique_ptr<BpeTokenizer> tok;
        try {
            tok = BpeTokenizer::load(args.tokenizerPath);
        } catch (const TokenizerError& e) {
            return fail(std::string("cannot load tokenizer: ") + e.what());
        }

        std::string input;
        const std::string inputName =
            args.haveInput ? "input file '" + args.inputPath + "'" : std::string("standard input");
        if (const int rc = readInput(args, inputName, input))
            return rc;
        return args.decode ? runDecode(*tok, args, inputName, input) : runEncode(*tok, args, inputName, input);
    } catch (const std::exception& e) {
        return fail(std::string("internal error: ") + e.what(), 1);
    }
}

} // namespace traindeck::tok
