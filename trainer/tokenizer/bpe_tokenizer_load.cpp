// BpeTokenizer::load: reads tokenizer.json section by section (model, vocabulary, added tokens,
// merges, normalizer, pre-tokenizer, post-processor, decoder), then tokenizer_config.json beside it
// for the special token ids. Every fault throws TokenizerError naming the file.
#include "tokenizer/bpe_tokenizer.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tokenizer/bpe_tokenizer_internal.h"
#include "tokenizer/qwen2_split.h"
#include "tokenizer/unicode_text.h"

namespace traindeck::tok {

using json = nlohmann::json;
using detail::hashBytes;
using detail::mix64;

namespace {

// Bumped whenever the ids this implementation produces for the same files could change; mixed into
// fingerprint() so that token caches built by an older build are not reused.
constexpr uint64_t kAlgorithmVersion = 1;

// The GPT-2 byte-level alphabet: printable bytes stand for themselves, the others for U+0100 + n.
struct ByteAlphabet {
    std::array<uint32_t, 256> byteToCp{};
    std::array<int16_t, 324> cpToByte{};
    ByteAlphabet()
    {
        cpToByte.fill(-1);
        uint32_t n = 0;
        for (uint32_t b = 0; b < 256; ++b) {
            const bool printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
            byteToCp[b] = printable ? b : 256 + n++;
            cpToByte[byteToCp[b]] = static_cast<int16_t>(b);
        }
    }
};

const ByteAlphabet& byteAlphabet()
{
    static const ByteAlphabet a;
    return a;
}

// The bytes a byte-level token string stands for; false when a character is outside the alphabet.
bool tokenStringToBytes(std::string_view s, std::string& out)
{
    out.clear();
    const auto& a = byteAlphabet();
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    const auto* e = p + s.size();
    while (p < e) {
        int len;
        const uint32_t cp = unicode::decodeUtf8(p, len);
        if (cp >= a.cpToByte.size() || a.cpToByte[cp] < 0)
            return false;
        out.push_back(static_cast<char>(a.cpToByte[cp]));
        p += len;
    }
    return true;
}

[[noreturn]] void fail(const std::string& path, const std::string& what)
{
    throw TokenizerError(path + ": " + what);
}

std::string readWholeFile(const std::string& path)
{
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        fail(path, "is a directory, not a tokenizer.json file");
    std::ifstream in(path, std::ios::binary);
    if (!in)
        fail(path, std::string("cannot open: ") + std::strerror(errno));
    std::ostringstream ss;
    ss << in.rdbuf();
    if (in.bad())
        fail(path, std::string("cannot read: ") + std::strerror(errno));
    return std::move(ss).str();
}

std::string typeOf(const json& j)
{
    if (j.is_null())
        return "null";
    if (j.is_object() && j.contains("type") && j["type"].is_string())
        return j["type"].get<std::string>();
    return j.type_name();
}

// Deepest nesting of objects and arrays a tokenizer.json may have. Real ones nest about 6 deep; the
// limit keeps the recursive walks below (a Sequence of Sequences of ...) and the JSON library's
// recursive destruction and printing far from the end of the stack.
constexpr int kMaxJsonDepth = 64;

// Rejects JSON nested deeper than kMaxJsonDepth before it is parsed, naming the line.
void checkJsonDepth(const std::string& path, const std::string& text)
{
    int depth = 0;
    size_t line = 1;
    bool inString = false;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '\n')
            ++line;
        if (inString) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                inString = false;
            continue;
        }
        if (c == '"') {
            inString = true;
        } else if (c == '{' || c == '[') {
            if (++depth > kMaxJsonDepth)
                fail(path, "line " + std::to_string(line) + ": nested more than " + std::to_string(kMaxJsonDepth) +
                               " levels deep (a tokenizer.json nests a few levels)");
        } else if (c == '}' || c == ']') {
            --depth;
        }
    }
}

// Reads the text of tokenizer.json as JSON, after the nesting check.
json parseTokenizerJson(const std::string& path, const std::string& text)
{
    checkJsonDepth(path, text);
    json j;
    try {
        j = json::parse(text);
    } catch (const json::parse_error& e) {
        fail(path, std::string("not valid JSON: ") + e.what());
    }
    return j;
}

// The bound on token ids. Tables are sized by the largest id: ids far beyond the number of entries
// (a damaged or hostile file) would allocate gigabytes, so they are bounded by it.
struct IdBound {
    size_t entries = 0;
    int64_t limit = 0;

    std::string text() const
    {
        return "ids must be below " + std::to_string(limit) + " for the " + std::to_string(entries) +
               " tokens of this file";
    }
};

IdBound idBoundOf(const json& j, const json& model)
{
    IdBound b;
    b.entries = model["vocab"].size() +
                (j.contains("added_tokens") && j["added_tokens"].is_array() ? j["added_tokens"].size() : 0);
    b.limit = static_cast<int64_t>(std::min<size_t>(2 * b.entries + 65536, INT32_MAX));
    return b;
}

using Vocab = std::unordered_map<std::string, int32_t>;

// A special token's name in tokenizer_config.json: a string or an object with a "content" string.
std::optional<std::string> configTokenName(const std::string& cfgFile, const json& cfg, const char* key)
{
    if (!cfg.contains(key) || cfg[key].is_null())
        return std::nullopt;
    const json& v = cfg[key];
    if (v.is_string())
        return v.get<std::string>();
    if (v.is_object() && v.contains("content") && v["content"].is_string())
        return v["content"].get<std::string>();
    fail(cfgFile, std::string(key) + " is neither a string nor an object with a \"content\" string");
}

} // namespace

// The steps of BpeTokenizer::load, in the order they run; each fills its part of the tokenizer.
class BpeTokenizerLoader {
  public:
    BpeTokenizerLoader(const std::string& path, BpeTokenizer& t) : path_(path), t_(t) {}

    // Everything tokenizer.json describes. A value of an unexpected JSON type anywhere is reported
    // as an unexpected structure.
    void readSections(const json& j)
    {
        try {
            const json& model = checkModel(j);
            t_.ignoreMerges_ = model.value("ignore_merges", false);
            const IdBound bound = idBoundOf(j, model);
            Vocab vocab;
            int64_t maxId = readVocab(model, bound, vocab);
            maxId = std::max(maxId, readAddedTokens(j, bound));
            if (maxId < 0)
                fail(path_, "the vocabulary is empty");
            t_.vocabSize_ = static_cast<int32_t>(maxId + 1);
            buildDecodeTable(vocab);
            buildByteIds(vocab);
            readMerges(model["merges"], vocab);
            t_.tokenToId_ = std::move(vocab);
            for (const AddedToken& at : t_.added_)
                t_.tokenToId_[at.content] = at.id;
            if (j.contains("normalizer"))
                readNormalizer(j["normalizer"]);
            checkPreTokenizer(j);
            if (j.contains("post_processor"))
                readPostProcessor(j["post_processor"]);
            checkDecoder(j);
        } catch (const json::exception& e) {
            fail(path_, std::string("unexpected structure: ") + e.what());
        }
    }

    // Added-token matching, and what the added tokens mean for cutting inputs into chunks.
    void buildAddedMatchers()
    {
        t_.rawMatcher_ = std::make_unique<BpeTokenizer::AddedMatcher>();
        t_.normMatcher_ = std::make_unique<BpeTokenizer::AddedMatcher>();
        t_.rawMatcher_->build(t_.added_, false);
        t_.normMatcher_->build(t_.added_, true);
        for (const AddedToken& a : t_.added_) {
            if (a.lstrip)
                t_.lstripFirstByte_[static_cast<unsigned char>(a.content[0])] = true;
            if (a.content.find_first_of("\r\n") != std::string::npos)
                t_.chunkable_ = false;
            if (unicode::findInvalidUtf8(a.content) != unicode::npos)
                fail(path_, "added token " + std::to_string(a.id) + " is not valid UTF-8");
        }
    }

    // Special token ids: tokenizer_config.json when present, else the fallbacks; and the
    // fingerprint of both files.
    void readSpecialTokens(const std::string& text)
    {
        uint64_t fp = hashBytes(reinterpret_cast<const unsigned char*>(text.data()), text.size(), kAlgorithmVersion);
        const std::filesystem::path cfgPath = std::filesystem::path(path_).parent_path() / "tokenizer_config.json";
        std::optional<std::string> bosName, eosName, padName;
        std::error_code ec;
        if (std::filesystem::is_regular_file(cfgPath, ec)) {
            const std::string cfgFile = cfgPath.string();
            const std::string cfgText = readWholeFile(cfgFile);
            fp = mix64(fp ^ hashBytes(reinterpret_cast<const unsigned char*>(cfgText.data()), cfgText.size(), 1));
            json cfg;
            try {
                cfg = json::parse(cfgText);
            } catch (const json::parse_error& e) {
                fail(cfgFile, std::string("not valid JSON: ") + e.what());
            }
            if (!cfg.is_object())
                fail(cfgFile, "the top level is not an object");
            bosName = configTokenName(cfgFile, cfg, "bos_token");
            eosName = configTokenName(cfgFile, cfg, "eos_token");
            padName = configTokenName(cfgFile, cfg, "pad_token");
            t_.bos_ = resolveConfigToken(cfgFile, bosName, "bos_token");
            t_.eos_ = resolveConfigToken(cfgFile, eosName, "eos_token");
            t_.pad_ = resolveConfigToken(cfgFile, padName, "pad_token");
        }
        if (!bosName)
            t_.bos_ = templateToken_;
        if (!eosName)
            t_.eos_ = t_.tokenToId("<|endoftext|>");
        t_.fingerprint_ = fp;
    }

  private:
    // The top level and the "model" object: a byte-level BPE without dropout or affixes.
    const json& checkModel(const json& j) const
    {
        if (!j.is_object())
            fail(path_, "not a tokenizer.json (the top level is not an object)");
        if (!j.contains("model") || !j["model"].is_object())
            fail(path_, "not a tokenizer.json (no \"model\" object)");
        const json& model = j["model"];
        if (model.contains("type") && model["type"] != "BPE")
            fail(path_, "model type '" + typeOf(model) + "' is not supported (only byte-level BPE is)");
        if (!model.contains("vocab") || !model["vocab"].is_object())
            fail(path_, "model.vocab is missing or not an object");
        if (!model.contains("merges") || !model["merges"].is_array())
            fail(path_, "model.merges is missing or not an array");
        if (model.contains("dropout") && !model["dropout"].is_null() && model["dropout"].get<double>() != 0.0)
            fail(path_, "BPE dropout is not supported");
        for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"}) {
            if (model.contains(key) && !model[key].is_null() && !model[key].get<std::string>().empty())
                fail(path_, std::string("model.") + key + " is not supported by a byte-level BPE");
        }
        return model;
    }

    // model.vocab into vocab; returns the largest id (-1 when empty).
    int64_t readVocab(const json& model, const IdBound& bound, Vocab& vocab) const
    {
        vocab.reserve(model["vocab"].size() * 2);
        int64_t maxId = -1;
        for (auto it = model["vocab"].begin(); it != model["vocab"].end(); ++it) {
            if (!it.value().is_number_integer())
                fail(path_, "model.vocab[\"" + it.key() + "\"] is not an integer id");
            const int64_t id = it.value().get<int64_t>();
            if (id < 0 || id >= INT32_MAX)
                fail(path_, "model.vocab[\"" + it.key() + "\"] has an id out of range");
            if (id >= bound.limit)
                fail(path_, "model.vocab[\"" + it.key() + "\"] has id " + std::to_string(id) +
                                ", far beyond the others (" + bound.text() + ")");
            vocab.emplace(it.key(), static_cast<int32_t>(id));
            maxId = std::max(maxId, id);
        }
        return maxId;
    }

    // added_tokens into the tokenizer's list; returns the largest id (-1 when none).
    int64_t readAddedTokens(const json& j, const IdBound& bound)
    {
        int64_t maxId = -1;
        if (!j.contains("added_tokens") || j["added_tokens"].is_null())
            return maxId;
        if (!j["added_tokens"].is_array())
            fail(path_, "added_tokens is not an array");
        for (const json& a : j["added_tokens"]) {
            AddedToken at;
            if (!a.is_object() || !a.contains("id") || !a["id"].is_number_integer() || !a.contains("content") ||
                !a["content"].is_string())
                fail(path_, "an entry of added_tokens lacks an integer \"id\" or a string \"content\"");
            const int64_t id = a["id"].get<int64_t>();
            if (id < 0 || id >= INT32_MAX)
                fail(path_, "added token id out of range");
            if (id >= bound.limit)
                fail(path_, "added token \"" + a["content"].get<std::string>() + "\" has id " + std::to_string(id) +
                                ", far beyond the others (" + bound.text() + ")");
            at.id = static_cast<int32_t>(id);
            at.content = a["content"].get<std::string>();
            if (at.content.empty())
                fail(path_, "added token " + std::to_string(id) + " has empty content");
            at.special = a.value("special", false);
            at.lstrip = a.value("lstrip", false);
            at.rstrip = a.value("rstrip", false);
            at.singleWord = a.value("single_word", false);
            at.normalized =
                a.contains("normalized") && !a["normalized"].is_null() ? a["normalized"].get<bool>() : !at.special;
            maxId = std::max(maxId, id);
            t_.added_.push_back(std::move(at));
        }
        return maxId;
    }

    // Bytes of every id, for decode (and, with ignore_merges, the bytes → id table).
    void buildDecodeTable(const Vocab& vocab)
    {
        std::vector<std::string> bytesOf(static_cast<size_t>(t_.vocabSize_));
        t_.idFlags_.assign(static_cast<size_t>(t_.vocabSize_), 0);
        std::string buf;
        for (const auto& [tok, id] : vocab) {
            bytesOf[static_cast<size_t>(id)] = tokenStringToBytes(tok, buf) ? buf : tok;
            t_.idFlags_[static_cast<size_t>(id)] |= 1;
            if (t_.ignoreMerges_ && tokenStringToBytes(tok, buf))
                t_.bytesToId_.emplace(buf, id);
        }
        for (const AddedToken& a : t_.added_) {
            // Hugging Face's ByteLevel decoder maps a token through the alphabet when every character
            // is in it, and keeps its UTF-8 otherwise.
            bytesOf[static_cast<size_t>(a.id)] = tokenStringToBytes(a.content, buf) ? buf : a.content;
            t_.idFlags_[static_cast<size_t>(a.id)] |= a.special ? 3 : 1;
        }
        t_.decodeOffset_.resize(bytesOf.size() + 1);
        size_t totalBytes = 0;
        for (const auto& b : bytesOf)
            totalBytes += b.size();
        t_.decodeArena_.reserve(totalBytes);
        for (size_t i = 0; i < bytesOf.size(); ++i) {
            t_.decodeOffset_[i] = static_cast<uint32_t>(t_.decodeArena_.size());
            t_.decodeArena_ += bytesOf[i];
        }
        t_.decodeOffset_.back() = static_cast<uint32_t>(t_.decodeArena_.size());
    }

    // The id of every single byte; a byte-level vocabulary has one for each.
    void buildByteIds(const Vocab& vocab)
    {
        const ByteAlphabet& alphabet = byteAlphabet();
        for (int b = 0; b < 256; ++b) {
            std::string s;
            unicode::appendUtf8(alphabet.byteToCp[static_cast<size_t>(b)], s);
            const auto it = vocab.find(s);
            if (it == vocab.end()) {
                char hex[8];
                std::snprintf(hex, sizeof hex, "0x%02X", b);
                fail(path_, std::string("the vocabulary has no token for byte ") + hex +
                                " (only byte-level BPE vocabularies are supported)");
            }
            t_.byteId_[static_cast<size_t>(b)] = it->second;
        }
    }

    // Merges, as "a b" strings or ["a", "b"] pairs; the rank is the position.
    void readMerges(const json& merges, const Vocab& vocab)
    {
        t_.pairs_ = std::make_unique<BpeTokenizer::PairMap>(merges.size());
        std::string a, b;
        uint32_t rank = 0;
        for (const json& m : merges) {
            if (m.is_string()) {
                const std::string& s = m.get_ref<const std::string&>();
                const size_t sp = s.find(' ');
                if (sp == std::string::npos || s.find(' ', sp + 1) != std::string::npos)
                    fail(path_, "merge #" + std::to_string(rank + 1) + " \"" + s +
                                    "\" is not two tokens separated by one space");
                a.assign(s, 0, sp);
                b.assign(s, sp + 1);
            } else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {
                a = m[0].get<std::string>();
                b = m[1].get<std::string>();
            } else {
                fail(path_, "merge #" + std::to_string(rank + 1) + " is neither \"a b\" nor [\"a\", \"b\"]");
            }
            const auto ia = vocab.find(a), ib = vocab.find(b);
            if (ia == vocab.end() || ib == vocab.end())
                fail(path_, "merge #" + std::to_string(rank + 1) + " uses a token that is not in the vocabulary: \"" +
                                (ia == vocab.end() ? a : b) + "\"");
            const auto im = vocab.find(a + b);
            if (im == vocab.end())
                fail(path_,
                     "merge #" + std::to_string(rank + 1) + " makes \"" + a + b + "\", which is not in the vocabulary");
            t_.pairs_->insert(static_cast<uint32_t>(ia->second), static_cast<uint32_t>(ib->second), rank,
                              static_cast<uint32_t>(im->second));
            ++rank;
        }
    }

    // Normalizer: none or NFC (also inside a Sequence).
    void readNormalizer(const json& n)
    {
        const std::string type = typeOf(n);
        if (n.is_null())
            return;
        if (type == "NFC") {
            t_.nfc_ = true;
        } else if (type == "Sequence" && n.contains("normalizers") && n["normalizers"].is_array()) {
            for (const json& x : n["normalizers"])
                readNormalizer(x);
        } else {
            fail(path_, "normalizer '" + type + "' is not supported (only NFC is)");
        }
    }

    // Pre-tokenizer: the Qwen2 split followed by the byte-level mapping.
    void checkPreTokenizer(const json& j) const
    {
        const json pre = j.value("pre_tokenizer", json());
        bool ok = typeOf(pre) == "Sequence" && pre.contains("pretokenizers") && pre["pretokenizers"].is_array() &&
                  pre["pretokenizers"].size() == 2;
        if (ok) {
            const json& split = pre["pretokenizers"][0];
            const json& bl = pre["pretokenizers"][1];
            ok = typeOf(split) == "Split" && split.contains("pattern") && split["pattern"].is_object() &&
                 split["pattern"].value("Regex", "") == kQwen2SplitPattern &&
                 split.value("behavior", "") == "Isolated" && !split.value("invert", false) &&
                 typeOf(bl) == "ByteLevel" && !bl.value("add_prefix_space", false) && !bl.value("use_regex", true);
        }
        if (!ok)
            fail(path_, "pre_tokenizer '" + typeOf(pre) +
                            "' is not supported (only the Qwen2 Split regex followed by ByteLevel without "
                            "add_prefix_space/use_regex is)");
    }

    // Post-processor: ByteLevel (nothing to do for ids), TemplateProcessing, or a Sequence of them.
    void readPostProcessor(const json& p)
    {
        const std::string type = typeOf(p);
        if (p.is_null() || type == "ByteLevel")
            return;
        if (type == "Sequence" && p.contains("processors") && p["processors"].is_array()) {
            for (const json& x : p["processors"])
                readPostProcessor(x);
            return;
        }
        if (type != "TemplateProcessing")
            fail(path_, "post_processor '" + type + "' is not supported (ByteLevel and TemplateProcessing are)");
        readTemplate(p);
    }

    // TemplateProcessing's "single" template: the ids before and after $A.
    void readTemplate(const json& p)
    {
        if (!p.contains("single") || !p["single"].is_array())
            fail(path_, "post_processor TemplateProcessing has no \"single\" template");
        const json specials = p.value("special_tokens", json::object());
        bool seenA = false;
        t_.prefix_.clear();
        t_.suffix_.clear();
        for (const json& item : p["single"]) {
            if (item.contains("SpecialToken")) {
                const std::string name = item["SpecialToken"].at("id").get<std::string>();
                if (!specials.contains(name) || !specials[name].contains("ids") || !specials[name]["ids"].is_array())
                    fail(path_, "post_processor template token '" + name + "' is not listed in special_tokens");
                for (const json& id : specials[name]["ids"]) {
                    const int64_t v = id.get<int64_t>();
                    if (v < 0 || v >= t_.vocabSize_)
                        fail(path_, "post_processor template token '" + name + "' has an id out of the vocabulary");
                    (seenA ? t_.suffix_ : t_.prefix_).push_back(static_cast<int32_t>(v));
                    if (!templateToken_)
                        templateToken_ = static_cast<int32_t>(v);
                }
            } else if (item.contains("Sequence")) {
                if (item["Sequence"].value("id", "A") == "A")
                    seenA = true;
            } else {
                fail(path_, "post_processor template item " + item.dump() + " is not understood");
            }
        }
        if (!seenA)
            fail(path_, "post_processor template \"single\" has no $A sequence");
    }

    void checkDecoder(const json& j) const
    {
        if (j.contains("decoder")) {
            const json& d = j["decoder"];
            if (!d.is_null() && typeOf(d) != "ByteLevel")
                fail(path_, "decoder '" + typeOf(d) + "' is not supported (only ByteLevel is)");
        }
    }

    std::optional<int32_t> resolveConfigToken(const std::string& cfgFile, const std::optional<std::string>& name,
                                              const char* key) const
    {
        if (!name)
            return std::nullopt;
        auto id = t_.tokenToId(*name);
        if (!id)
            fail(cfgFile, std::string(key) + " '" + *name + "' is not a token of " + path_);
        return id;
    }

    const std::string& path_;
    BpeTokenizer& t_;
    std::optional<int32_t> templateToken_; // the first id of the post-processor template
};

std::unique_ptr<BpeTokenizer> BpeTokenizer::load(const std::string& path)
{
    unicode::tables(); // build the Unicode lookup tables now rather than inside the first encode
    const std::string text = readWholeFile(path);
    const json j = parseTokenizerJson(path, text);
    std::unique_ptr<BpeTokenizer> t(new BpeTokenizer);
    BpeTokenizerLoader loader(path, *t);
    loader.readSections(j);
    loader.buildAddedMatchers();
    loader.readSpecialTokens(text);
    return t;
}

} // namespace traindeck::tok
