#include "test_corpus.h"

#include <nlohmann/json.hpp>
#include <utf8proc.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tokenizer/unicode_text.h"

namespace traindeck::tok::testing {

namespace {

// splitmix64: portable and deterministic (std distributions are not).
struct Rng {
    uint64_t s;
    explicit Rng(uint64_t seed) : s(seed) {}
    uint64_t next()
    {
        uint64_t z = (s += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    size_t below(size_t n) { return n ? static_cast<size_t>(next() % n) : 0; }
    size_t between(size_t lo, size_t hi) { return lo + below(hi - lo + 1); }
    bool chance(unsigned percent) { return below(100) < percent; }
    template <class T> const T& pick(const std::vector<T>& v) { return v[below(v.size())]; }
};

std::string readFile(const std::filesystem::path& p, size_t maxBytes)
{
    std::ifstream in(p, std::ios::binary);
    if (!in)
        return {};
    std::string s(maxBytes, '\0');
    in.read(s.data(), static_cast<std::streamsize>(maxBytes));
    s.resize(static_cast<size_t>(in.gcount()));
    return s;
}

std::vector<std::filesystem::path> listFiles(const std::filesystem::path& dir, bool recursive,
                                             const std::string& suffix)
{
    std::vector<std::filesystem::path> out;
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec))
        return out;
    if (recursive) {
        for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
             !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
            if (it->is_regular_file(ec) && it->path().filename().string().ends_with(suffix))
                out.push_back(it->path());
        }
    } else {
        for (const auto& e : std::filesystem::directory_iterator(dir, ec))
            if (e.is_regular_file(ec) && e.path().filename().string().ends_with(suffix))
                out.push_back(e.path());
    }
    std::sort(out.begin(), out.end());
    return out;
}

// Removes what the references disagree on or would treat as special, and repairs UTF-8.
std::string sanitize(std::string s)
{
    s = unicode::replaceInvalidUtf8(s);
    std::string out;
    out.reserve(s.size());
    for (size_t i = 0; i < s.size(); ++i) {
        if (s.compare(i, 3, "\xEF\xBB\xBF") == 0) { // U+FEFF
            out.push_back(' ');
            i += 2;
        } else if (s.compare(i, 2, "\xC2\x85") == 0) { // U+0085
            out.push_back(' ');
            i += 1;
        } else if (s.compare(i, 2, "<|") == 0) {
            out += "< |";
            i += 1;
        } else {
            out.push_back(s[i]);
        }
    }
    return out;
}

// A slice of text starting and ending at line boundaries.
std::string slice(Rng& rng, const std::string& text, size_t len)
{
    if (text.size() <= len)
        return text;
    size_t start = rng.below(text.size() - len);
    const size_t nl = text.find('\n', start);
    if (nl != std::string::npos && nl < text.size() - 1)
        start = nl + 1;
    size_t end = std::min(text.size(), start + len);
    const size_t nl2 = text.find('\n', end);
    end = nl2 == std::string::npos ? text.size() : nl2 + 1;
    return text.substr(start, end - start);
}

struct Sources {
    std::vector<std::string> prose; // licenses and copyright files
    std::vector<std::string> code;  // C and C++ headers
};

const Sources& sources()
{
    static const Sources s = [] {
        Sources src;
        for (const auto& p : listFiles("/usr/share/common-licenses", false, ""))
            if (auto t = readFile(p, 1 << 20); !t.empty())
                src.prose.push_back(sanitize(t));
        auto docs = listFiles("/usr/share/doc", true, "copyright");
        for (size_t i = 0; i < docs.size() && src.prose.size() < 60; i += std::max<size_t>(1, docs.size() / 40))
            if (auto t = readFile(docs[i], 256 << 10); !t.empty())
                src.prose.push_back(sanitize(t));
        for (const char* h : {"/usr/include/stdio.h", "/usr/include/stdlib.h", "/usr/include/string.h",
                              "/usr/include/utf8proc.h", "/usr/include/nlohmann/json.hpp", "/usr/include/unistd.h",
                              "/usr/include/math.h", "/usr/include/c++/12/bits/stl_algo.h",
                              "/usr/include/c++/12/bits/basic_string.h", "/usr/include/c++/12/bits/hashtable.h"})
            if (auto t = readFile(h, 1 << 20); !t.empty())
                src.code.push_back(sanitize(t));
        // Never empty, so generation works on a bare system too.
        if (src.prose.empty())
            src.prose.push_back(
                "Permission is hereby granted, free of charge, to any person obtaining a copy of this software.\n"
                "THE SOFTWARE IS PROVIDED \"AS IS\", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED.\n");
        if (src.code.empty())
            src.code.push_back("int main(int argc, char** argv) {\n\treturn argc > 1 ? 0 : 1;  // done\n}\n");
        return src;
    }();
    return s;
}

// Sentences written for this corpus.
const std::vector<std::string>& chineseSentences()
{
    static const std::vector<std::string> v = {
        "今天天气很好，我们一起去公园散步吧。",
        "这个程序用于分词，速度必须足够快。",
        "机器学习模型需要大量的数据进行训练。",
        "请在运行测试之前安装所有依赖项。",
        "数据并行训练把同一个模型复制到每一张显卡上。",
        "他说：“明天见！”然后就走了。",
        "《红楼梦》是中国古典小说的代表作之一。",
        "北京、上海、广州和深圳都是大城市。",
        "我们在二〇二四年三月发布了第一个版本，共有12个模块。",
        "错误信息应该告诉用户哪个文件出了问题？",
        "梯度在所有进程之间求平均，然后每个进程更新自己的参数。",
        "训练损失从3.2下降到1.8，学习率为0.0003。",
    };
    return v;
}

const std::vector<std::string>& otherScripts()
{
    static const std::vector<std::string> v = {
        "東京は日本の首都です。ひらがなとカタカナ、そして漢字。",
        "안녕하세요. 오늘은 날씨가 좋네요. 한국어 문장입니다.",
        "Съешь же ещё этих мягких французских булок, да выпей чаю.",
        "Ξεσκεπάζω την ψυχοφθόρα βδελυγμία. Άλφα, Ώμέγα!",
        "مرحبا بالعالم، هذا اختبار للنص العربي ١٢٣.",
        "שלום עולם, זה מבחן.",
        "नमस्ते दुनिया, यह एक परीक्षण है। १२३४",
        "สวัสดีชาวโลก นี่คือการทดสอบ",
        "Tiếng Việt có dấu: Người ta thường nói rằng học, học nữa, học mãi.",
        "Ça va? Größe, Straße, naïve café, façade, smørrebrød, Ærøskøbing.",
        "Türkçe: İstanbul, ığdır, ŞEKER; Polski: zażółć gęślą jaźń.",
        "ǅemal ǈubljana ǋunja — titlecase digraphs.",
        "Ελληνικά, Кириллица, ქართული, Հայերեն, አማርኛ, ᚠᛇᚻ᛫ᛒᛦᚦ.",
    };
    return v;
}

const std::vector<std::string>& words()
{
    static const std::vector<std::string> v = {
        "the",       "quick",        "brown",   "fox",      "jumps",       "over",  "lazy",   "dog",    "tokenizer",
        "gradient",  "allreduce",    "Qwen",    "DeepSeek", "model",       "GPU",   "rank",   "node",   "cluster",
        "loss",      "epoch",        "batch",   "HTTP",     "JSON",        "don't", "DON'T",  "it's",   "IT'S",
        "we're",     "WE'RE",        "they've", "THEY'VE",  "I'm",         "I'M",   "you'll", "YOU'LL", "he'd",
        "HE'D",      "Don'T",        "wE'Re",   "o'clock",  "rock'n'roll", "'tis",  "'Twas",  "y'all",  "can't",
        "CAN'T",     "shouldn't've", "'s",      "'S",       "'ll",         "'LL",   "'d",     "'D",     "'m",
        "'M",        "'re",          "'ve",     "'t",       "'T",          "'x",    "''",     "'",      "naïve",
        "coöperate", "résumé",       "Ünïcödé", "ſtrange",  "it'ſ",
    };
    return v;
}

void appendCp(std::string& out, uint32_t cp)
{
    unicode::appendUtf8(cp, out);
}

void emoji(Rng& rng, std::string& out)
{
    switch (rng.below(7)) {
    case 0: appendCp(out, static_cast<uint32_t>(0x1F600 + rng.below(0x50))); break;  // faces
    case 1: appendCp(out, static_cast<uint32_t>(0x1F300 + rng.below(0x300))); break; // symbols
    case 2:                                                                          // person + skin tone
        appendCp(out, static_cast<uint32_t>(0x1F466 + rng.below(4)));
        appendCp(out, static_cast<uint32_t>(0x1F3FB + rng.below(5)));
        break;
    case 3: // family ZWJ sequence
        out += "\U0001F468\u200D\U0001F469\u200D\U0001F467\u200D\U0001F466";
        break;
    case 4: // flag (regional indicators)
        appendCp(out, static_cast<uint32_t>(0x1F1E6 + rng.below(26)));
        appendCp(out, static_cast<uint32_t>(0x1F1E6 + rng.below(26)));
        break;
    case 5: out += "\u2764\uFE0F"; break; // heart + variation selector
    default: appendCp(out, static_cast<uint32_t>(0x1F680 + rng.below(0x40))); break;
    }
}

void nonBmpLetters(Rng& rng, std::string& out)
{
    const size_t n = rng.between(1, 6);
    const int kind = static_cast<int>(rng.below(4));
    for (size_t i = 0; i < n; ++i) {
        switch (kind) {
        case 0: appendCp(out, static_cast<uint32_t>(0x20000 + rng.below(0xA6D0))); break; // CJK Ext B
        case 1: appendCp(out, static_cast<uint32_t>(0x1D400 + rng.below(0x34))); break;   // math bold
        case 2: appendCp(out, static_cast<uint32_t>(0x10330 + rng.below(0x1B))); break;   // Gothic
        default: appendCp(out, static_cast<uint32_t>(0x1D7CE + rng.below(0x32))); break;  // math digits
        }
    }
}

void whitespaceRun(Rng& rng, std::string& out)
{
    static const std::vector<std::string> ws = {" ",      " ",      " ",      "\t",   "\n",   "\r\n", "\n\n",
                                                "\u00A0", "\u3000", "\u2028", "\x0B", "\x0C", "\r"};
    const size_t n = rng.chance(3) ? rng.between(100, 2500) : rng.between(1, 12);
    const bool uniform = rng.chance(50);
    const std::string& one = rng.pick(ws);
    for (size_t i = 0; i < n; ++i)
        out += uniform ? one : rng.pick(ws);
}

void number(Rng& rng, std::string& out)
{
    switch (rng.below(5)) {
    case 0: out += std::to_string(rng.below(1000000000)); break;
    case 1: out += std::to_string(rng.below(100)) + "." + std::to_string(rng.below(100000)); break;
    case 2:
        out += std::to_string(rng.below(1000)) + "," + std::to_string(100 + rng.below(900)) + "," +
               std::to_string(100 + rng.below(900));
        break;
    case 3:
        out += "20" + std::to_string(10 + rng.below(20)) + "-0" + std::to_string(1 + rng.below(9)) + "-1" +
               std::to_string(rng.below(10));
        break;
    default: out += "0x" + std::to_string(rng.below(0xFFFFF)) + "ULL"; break;
    }
}

void randomCjk(Rng& rng, std::string& out)
{
    const size_t n = rng.between(2, 30);
    static const std::vector<std::string> punct = {"，", "。", "！", "？", "、", "：", "；", "“", "”", "《", "》"};
    for (size_t i = 0; i < n; ++i) {
        if (rng.chance(12))
            out += rng.pick(punct);
        else
            appendCp(out, static_cast<uint32_t>(0x4E00 + rng.below(0x51A5)));
    }
}

void mixedLine(Rng& rng, std::string& out)
{
    const size_t n = rng.between(3, 25);
    for (size_t i = 0; i < n; ++i) {
        switch (rng.below(16)) {
        case 0: emoji(rng, out); break;
        case 1: nonBmpLetters(rng, out); break;
        case 2: number(rng, out); break;
        case 3: randomCjk(rng, out); break;
        case 4: out += rng.pick(chineseSentences()); break;
        case 5: out += rng.chance(50) ? rng.pick(otherScripts()) : nfd(rng.pick(otherScripts())); break;
        case 6: whitespaceRun(rng, out); break;
        case 7:
            out += rng.pick(std::vector<std::string>{"...", "!?", "--", "->", "::", "{}", "();", "#",  "@@",
                                                     "$$",  "%",  "&&", "||", "**", "\"", "`",   "~/", "\\n",
                                                     "=>",  "[]", "<>", "</", "/>", "'",  "''"});
            break;
        default: {
            std::string w = rng.pick(words());
            if (rng.chance(20))
                std::transform(w.begin(), w.end(), w.begin(),
                               [](char c) { return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 32) : c; });
            out += w;
        }
        }
        if (!rng.chance(15))
            out += rng.chance(90) ? " " : (rng.chance(50) ? "\n" : "\t");
    }
    out += "\n";
}

std::string makeDoc(Rng& rng)
{
    const Sources& src = sources();
    std::string doc;
    const size_t target = rng.between(1000, 9000);
    const int flavour = static_cast<int>(rng.below(6));
    while (doc.size() < target) {
        const size_t r = rng.below(100);
        if (flavour == 0 || (flavour < 3 && r < 40)) {
            doc += slice(rng, rng.pick(src.prose), rng.between(200, 1500));
        } else if (flavour == 3 || r < 55) {
            doc += slice(rng, rng.pick(src.code), rng.between(200, 1500));
        } else if (flavour == 4 || r < 70) {
            for (size_t i = rng.between(1, 6); i > 0; --i) {
                if (rng.chance(50))
                    doc += rng.pick(chineseSentences());
                else
                    randomCjk(rng, doc);
            }
            doc += rng.chance(50) ? "\n" : "";
        } else {
            mixedLine(rng, doc);
        }
    }
    return sanitize(std::move(doc));
}

} // namespace

std::string nfd(std::string_view s)
{
    utf8proc_uint8_t* dst = nullptr;
    const utf8proc_ssize_t n =
        utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(s.data()), static_cast<utf8proc_ssize_t>(s.size()), &dst,
                     static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_DECOMPOSE));
    std::string out = n >= 0 ? std::string(reinterpret_cast<const char*>(dst), static_cast<size_t>(n)) : std::string(s);
    std::free(dst);
    return out;
}

std::vector<std::string> makeCorpus(size_t targetBytes, uint64_t seed)
{
    Rng rng(seed);
    std::vector<std::string> docs;
    size_t total = 0;
    while (total < targetBytes) {
        docs.push_back(makeDoc(rng));
        total += docs.back().size();
    }
    return docs;
}

std::vector<std::string> edgeCases()
{
    std::vector<std::string> v = {
        "",
        " ",
        "a",
        "'",
        "'s",
        "'S",
        "'re'RE'Re'rE",
        "'ll'LL'lL",
        "don't DON'T Don'T I'M i'm WE'VE we've HE'D he'd",
        "'sss 'tt 'ree 'vee 'mm 'lll 'dd",
        "x'sy 1's $'s ''s",
        "it'ſ ſ 'K",
        "hello world",
        "  hello",
        "   hello  world   ",
        "hello\n\nworld",
        "hello \n \n world",
        "a\r\nb\r\n\r\nc",
        " \n",
        "\n ",
        "\n\n\n",
        "   ",
        "\t\t\tfoo",
        "\t \t \n\t x",
        "x   \t  ",
        "...\n\n\nfoo",
        " ...\r\n",
        " !!!x",
        " !x",
        "! x",
        "$hello #world @you",
        "12345678901234567890",
        "3.14159 1,000,000 2024-02-29",
        "٣٤٥ ① Ⅻ ½",
        "\u00A0\u00A0x \u3000y\u3000\u3000z",
        "a\u2028b\u2029c",
        "a\x0B\x0C"
        "b",
        "你好，世界！Hello, 世界。",
        "😀😀 😀x 😀 x",
        "\U0001F468\u200D\U0001F469\u200D\U0001F467",
        "\U00020000\U00020001 \U0001D400\U0001D401",
        "e\u0301 e\u0301\u0327 \u1100\u1161\u11A8 A\u030A \u212B \u2126",
        "\u0301start with a mark",
        "नमस्ते",
        "ǅemal",
        std::string("nul\0byte", 8),
        "\x01\x02\x7F control",
        "<| not a token |>",
        "<|im_start",
        "im_end|>",
    };
    v.push_back(std::string(3000, ' ') + "x");
    v.push_back(std::string(2000, 'a'));
    v.push_back(std::string(500, '\n') + std::string(500, ' '));
    std::string mixedWs;
    for (int i = 0; i < 300; ++i)
        mixedWs += (i % 7 == 0) ? "\t" : (i % 11 == 0 ? "\n" : " ");
    v.push_back(mixedWs + "end");
    std::string longCjk;
    for (int i = 0; i < 400; ++i)
        longCjk += "训练";
    v.push_back(longCjk);
    return v;
}

std::string toJsonArray(const std::vector<std::string>& docs)
{
    nlohmann::json j = nlohmann::json::array();
    for (const auto& d : docs)
        j.push_back(d);
    return j.dump();
}

} // namespace traindeck::tok::testing
