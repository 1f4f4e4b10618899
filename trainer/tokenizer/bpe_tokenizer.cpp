#include "tokenizer/bpe_tokenizer.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "tokenizer/qwen2_split.h"
#include "tokenizer/unicode_text.h"

namespace traindeck::tok {

using json = nlohmann::json;

namespace {

// Bumped whenever the ids this implementation produces for the same files could change; mixed into
// fingerprint() so that token caches built by an older build are not reused.
constexpr uint64_t kAlgorithmVersion = 1;

// Pieces up to this many bytes go through the array BPE and the per-word cache; longer ones through
// the heap BPE (O(n log n)).
constexpr size_t kSmallPiece = 128;

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

// Tokens with lstrip/rstrip absorb white space (Rust's char::is_whitespace = White_Space).
size_t whitespaceBefore(std::string_view s, size_t pos, size_t floor)
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

size_t whitespaceAfter(std::string_view s, size_t pos)
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

bool wordCharBefore(std::string_view s, size_t pos)
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

bool wordCharAt(std::string_view s, size_t pos)
{
    if (pos >= s.size())
        return false;
    int len;
    return unicode::isWordChar(unicode::decodeUtf8(reinterpret_cast<const unsigned char*>(s.data()) + pos, len));
}

// Per-thread cache of piece → ids. Open addressing; emptied when half full.
class WordCache {
  public:
    WordCache() : slots_(kSlots) {}

    const int32_t* find(const unsigned char* p, size_t n, uint64_t h, size_t& count) const
    {
        size_t i = h & (kSlots - 1);
        for (;;) {
            const Slot& s = slots_[i];
            if (s.keyLen == 0)
                return nullptr;
            if (s.hash == h && s.keyLen == n && std::memcmp(keys_.data() + s.keyOff, p, n) == 0) {
                count = s.nIds;
                return ids_.data() + s.idsOff;
            }
            i = (i + 1) & (kSlots - 1);
        }
    }

    void insert(const unsigned char* p, size_t n, uint64_t h, const int32_t* ids, size_t count)
    {
        if (n == 0 || n > 0xFFFF || count > 0xFFFF)
            return;
        if (used_ >= kSlots / 2)
            clear();
        size_t i = h & (kSlots - 1);
        while (slots_[i].keyLen != 0)
            i = (i + 1) & (kSlots - 1);
        slots_[i] = Slot{h, static_cast<uint32_t>(keys_.size()), static_cast<uint32_t>(ids_.size()),
                         static_cast<uint16_t>(n), static_cast<uint16_t>(count)};
        keys_.append(reinterpret_cast<const char*>(p), n);
        ids_.insert(ids_.end(), ids, ids + count);
        ++used_;
    }

    void clear()
    {
        std::fill(slots_.begin(), slots_.end(), Slot{});
        keys_.clear();
        ids_.clear();
        used_ = 0;
    }

  private:
    static constexpr size_t kSlots = size_t{1} << 17;
    struct Slot {
        uint64_t hash = 0;
        uint32_t keyOff = 0;
        uint32_t idsOff = 0;
        uint16_t keyLen = 0;
        uint16_t nIds = 0;
    };
    std::vector<Slot> slots_;
    std::string keys_;
    std::vector<int32_t> ids_;
    size_t used_ = 0;
};

} // namespace

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

struct BpeTokenizer::EncoderState {
    WordCache cache;
    struct Sym {
        int32_t id;
        int32_t prev;
        int32_t next;
    };
    struct Cand {
        uint64_t val; // (rank << 32) | merged
        int32_t left;
        int32_t leftId;
        int32_t rightId;
    };
    std::vector<Sym> syms;
    std::vector<Cand> heap;
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
            if (tok->singleWord && (wordCharBefore(text, start) || wordCharAt(text, stop))) {
                pos = stop;
                continue;
            }
            if (tok->lstrip)
                start = whitespaceBefore(text, start, segStart);
            if (tok->rstrip)
                stop = whitespaceAfter(text, stop);
            if (start > segStart)
                segment(text.substr(segStart, start - segStart));
            token(tok->id);
            segStart = pos = stop;
        }
        if (segStart < n)
            segment(text.substr(segStart));
    }
};

BpeTokenizer::BpeTokenizer() = default;
BpeTokenizer::~BpeTokenizer() = default;

std::unique_ptr<Tokenizer> Tokenizer::fromFile(const std::string& path)
{
    return BpeTokenizer::load(path);
}

// Deepest nesting of objects and arrays a tokenizer.json may have. Real ones nest about 6 deep; the
// limit keeps the recursive walks below (a Sequence of Sequences of ...) and the JSON library's
// recursive destruction and printing far from the end of the stack.
constexpr int kMaxJsonDepth = 64;

// Rejects JSON nested deeper than kMaxJsonDepth before it is parsed, naming the line.
static void checkJsonDepth(const std::string& path, const std::string& text)
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

std::unique_ptr<BpeTokenizer> BpeTokenizer::load(const std::string& path)
{
    unicode::tables(); // build the Unicode lookup tables now rather than inside the first encode
    const std::string text = readWholeFile(path);
    checkJsonDepth(path, text);
    json j;
    try {
        j = json::parse(text);
    } catch (const json::parse_error& e) {
        fail(path, std::string("not valid JSON: ") + e.what());
    }
    std::unique_ptr<BpeTokenizer> t(new BpeTokenizer);
    std::optional<int32_t> templateToken;
    try {
        if (!j.is_object())
            fail(path, "not a tokenizer.json (the top level is not an object)");
        if (!j.contains("model") || !j["model"].is_object())
            fail(path, "not a tokenizer.json (no \"model\" object)");
        const json& model = j["model"];
        if (model.contains("type") && model["type"] != "BPE")
            fail(path, "model type '" + typeOf(model) + "' is not supported (only byte-level BPE is)");
        if (!model.contains("vocab") || !model["vocab"].is_object())
            fail(path, "model.vocab is missing or not an object");
        if (!model.contains("merges") || !model["merges"].is_array())
            fail(path, "model.merges is missing or not an array");
        if (model.contains("dropout") && !model["dropout"].is_null() && model["dropout"].get<double>() != 0.0)
            fail(path, "BPE dropout is not supported");
        for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"}) {
            if (model.contains(key) && !model[key].is_null() && !model[key].get<std::string>().empty())
                fail(path, std::string("model.") + key + " is not supported by a byte-level BPE");
        }
        t->ignoreMerges_ = model.value("ignore_merges", false);

        // Vocabulary. Tables are sized by the largest id: ids far beyond the number of entries (a
        // damaged or hostile file) would allocate gigabytes, so they are bounded by it.
        std::unordered_map<std::string, int32_t> vocab;
        vocab.reserve(model["vocab"].size() * 2);
        const size_t entries =
            model["vocab"].size() +
            (j.contains("added_tokens") && j["added_tokens"].is_array() ? j["added_tokens"].size() : 0);
        const int64_t idLimit = static_cast<int64_t>(std::min<size_t>(2 * entries + 65536, INT32_MAX));
        const auto idBoundText = [&] {
            return "ids must be below " + std::to_string(idLimit) + " for the " + std::to_string(entries) +
                   " tokens of this file";
        };
        int64_t maxId = -1;
        for (auto it = model["vocab"].begin(); it != model["vocab"].end(); ++it) {
            if (!it.value().is_number_integer())
                fail(path, "model.vocab[\"" + it.key() + "\"] is not an integer id");
            const int64_t id = it.value().get<int64_t>();
            if (id < 0 || id >= INT32_MAX)
                fail(path, "model.vocab[\"" + it.key() + "\"] has an id out of range");
            if (id >= idLimit)
                fail(path, "model.vocab[\"" + it.key() + "\"] has id " + std::to_string(id) +
                               ", far beyond the others (" + idBoundText() + ")");
            vocab.emplace(it.key(), static_cast<int32_t>(id));
            maxId = std::max(maxId, id);
        }

        // Added tokens.
        if (j.contains("added_tokens") && !j["added_tokens"].is_null()) {
            if (!j["added_tokens"].is_array())
                fail(path, "added_tokens is not an array");
            for (const json& a : j["added_tokens"]) {
                AddedToken at;
                if (!a.is_object() || !a.contains("id") || !a["id"].is_number_integer() || !a.contains("content") ||
                    !a["content"].is_string())
                    fail(path, "an entry of added_tokens lacks an integer \"id\" or a string \"content\"");
                const int64_t id = a["id"].get<int64_t>();
                if (id < 0 || id >= INT32_MAX)
                    fail(path, "added token id out of range");
                if (id >= idLimit)
                    fail(path, "added token \"" + a["content"].get<std::string>() + "\" has id " + std::to_string(id) +
                                   ", far beyond the others (" + idBoundText() + ")");
                at.id = static_cast<int32_t>(id);
                at.content = a["content"].get<std::string>();
                if (at.content.empty())
                    fail(path, "added token " + std::to_string(id) + " has empty content");
                at.special = a.value("special", false);
                at.lstrip = a.value("lstrip", false);
                at.rstrip = a.value("rstrip", false);
                at.singleWord = a.value("single_word", false);
                at.normalized =
                    a.contains("normalized") && !a["normalized"].is_null() ? a["normalized"].get<bool>() : !at.special;
                maxId = std::max(maxId, id);
                t->added_.push_back(std::move(at));
            }
        }
        if (maxId < 0)
            fail(path, "the vocabulary is empty");
        t->vocabSize_ = static_cast<int32_t>(maxId + 1);

        // Bytes of every id, for decode and for the byte → id table.
        const ByteAlphabet& alphabet = byteAlphabet();
        std::vector<std::string> bytesOf(static_cast<size_t>(t->vocabSize_));
        t->idFlags_.assign(static_cast<size_t>(t->vocabSize_), 0);
        std::string buf;
        for (const auto& [tok, id] : vocab) {
            bytesOf[static_cast<size_t>(id)] = tokenStringToBytes(tok, buf) ? buf : tok;
            t->idFlags_[static_cast<size_t>(id)] |= 1;
            if (t->ignoreMerges_ && tokenStringToBytes(tok, buf))
                t->bytesToId_.emplace(buf, id);
        }
        for (const AddedToken& a : t->added_) {
            // Hugging Face's ByteLevel decoder maps a token through the alphabet when every character
            // is in it, and keeps its UTF-8 otherwise.
            bytesOf[static_cast<size_t>(a.id)] = tokenStringToBytes(a.content, buf) ? buf : a.content;
            t->idFlags_[static_cast<size_t>(a.id)] |= a.special ? 3 : 1;
        }
        t->decodeOffset_.resize(bytesOf.size() + 1);
        size_t totalBytes = 0;
        for (const auto& b : bytesOf)
            totalBytes += b.size();
        t->decodeArena_.reserve(totalBytes);
        for (size_t i = 0; i < bytesOf.size(); ++i) {
            t->decodeOffset_[i] = static_cast<uint32_t>(t->decodeArena_.size());
            t->decodeArena_ += bytesOf[i];
        }
        t->decodeOffset_.back() = static_cast<uint32_t>(t->decodeArena_.size());

        for (int b = 0; b < 256; ++b) {
            std::string s;
            unicode::appendUtf8(alphabet.byteToCp[static_cast<size_t>(b)], s);
            const auto it = vocab.find(s);
            if (it == vocab.end()) {
                char hex[8];
                std::snprintf(hex, sizeof hex, "0x%02X", b);
                fail(path, std::string("the vocabulary has no token for byte ") + hex +
                               " (only byte-level BPE vocabularies are supported)");
            }
            t->byteId_[static_cast<size_t>(b)] = it->second;
        }

        // Merges, as "a b" strings or ["a", "b"] pairs; the rank is the position.
        const json& merges = model["merges"];
        t->pairs_ = std::make_unique<PairMap>(merges.size());
        std::string a, b;
        uint32_t rank = 0;
        for (const json& m : merges) {
            if (m.is_string()) {
                const std::string& s = m.get_ref<const std::string&>();
                const size_t sp = s.find(' ');
                if (sp == std::string::npos || s.find(' ', sp + 1) != std::string::npos)
                    fail(path, "merge #" + std::to_string(rank + 1) + " \"" + s +
                                   "\" is not two tokens separated by one space");
                a.assign(s, 0, sp);
                b.assign(s, sp + 1);
            } else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {
                a = m[0].get<std::string>();
                b = m[1].get<std::string>();
            } else {
                fail(path, "merge #" + std::to_string(rank + 1) + " is neither \"a b\" nor [\"a\", \"b\"]");
            }
            const auto ia = vocab.find(a), ib = vocab.find(b);
            if (ia == vocab.end() || ib == vocab.end())
                fail(path, "merge #" + std::to_string(rank + 1) + " uses a token that is not in the vocabulary: \"" +
                               (ia == vocab.end() ? a : b) + "\"");
            const auto im = vocab.find(a + b);
            if (im == vocab.end())
                fail(path,
                     "merge #" + std::to_string(rank + 1) + " makes \"" + a + b + "\", which is not in the vocabulary");
            t->pairs_->insert(static_cast<uint32_t>(ia->second), static_cast<uint32_t>(ib->second), rank,
                              static_cast<uint32_t>(im->second));
            ++rank;
        }

        t->tokenToId_ = std::move(vocab);
        for (const AddedToken& at : t->added_)
            t->tokenToId_[at.content] = at.id;

        // Normalizer: none or NFC.
        std::function<void(const json&)> normalizer = [&](const json& n) {
            const std::string type = typeOf(n);
            if (n.is_null())
                return;
            if (type == "NFC") {
                t->nfc_ = true;
            } else if (type == "Sequence" && n.contains("normalizers") && n["normalizers"].is_array()) {
                for (const json& x : n["normalizers"])
                    normalizer(x);
            } else {
                fail(path, "normalizer '" + type + "' is not supported (only NFC is)");
            }
        };
        if (j.contains("normalizer"))
            normalizer(j["normalizer"]);

        // Pre-tokenizer: the Qwen2 split followed by the byte-level mapping.
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
                fail(path, "pre_tokenizer '" + typeOf(pre) +
                               "' is not supported (only the Qwen2 Split regex followed by ByteLevel without "
                               "add_prefix_space/use_regex is)");
        }

        // Post-processor: ByteLevel (nothing to do for ids), TemplateProcessing, or a Sequence of them.
        std::function<void(const json&)> post = [&](const json& p) {
            const std::string type = typeOf(p);
            if (p.is_null() || type == "ByteLevel")
                return;
            if (type == "Sequence" && p.contains("processors") && p["processors"].is_array()) {
                for (const json& x : p["processors"])
                    post(x);
                return;
            }
            if (type != "TemplateProcessing")
                fail(path, "post_processor '" + type + "' is not supported (ByteLevel and TemplateProcessing are)");
            if (!p.contains("single") || !p["single"].is_array())
                fail(path, "post_processor TemplateProcessing has no \"single\" template");
            const json specials = p.value("special_tokens", json::object());
            bool seenA = false;
            t->prefix_.clear();
            t->suffix_.clear();
            for (const json& item : p["single"]) {
                if (item.contains("SpecialToken")) {
                    const std::string name = item["SpecialToken"].at("id").get<std::string>();
                    if (!specials.contains(name) || !specials[name].contains("ids") ||
                        !specials[name]["ids"].is_array())
                        fail(path, "post_processor template token '" + name + "' is not listed in special_tokens");
                    for (const json& id : specials[name]["ids"]) {
                        const int64_t v = id.get<int64_t>();
                        if (v < 0 || v >= t->vocabSize_)
                            fail(path, "post_processor template token '" + name + "' has an id out of the vocabulary");
                        (seenA ? t->suffix_ : t->prefix_).push_back(static_cast<int32_t>(v));
                        if (!templateToken)
                            templateToken = static_cast<int32_t>(v);
                    }
                } else if (item.contains("Sequence")) {
                    if (item["Sequence"].value("id", "A") == "A")
                        seenA = true;
                } else {
                    fail(path, "post_processor template item " + item.dump() + " is not understood");
                }
            }
            if (!seenA)
                fail(path, "post_processor template \"single\" has no $A sequence");
        };
        if (j.contains("post_processor"))
            post(j["post_processor"]);

        if (j.contains("decoder")) {
            const json& d = j["decoder"];
            if (!d.is_null() && typeOf(d) != "ByteLevel")
                fail(path, "decoder '" + typeOf(d) + "' is not supported (only ByteLevel is)");
        }
    } catch (const json::exception& e) {
        fail(path, std::string("unexpected structure: ") + e.what());
    }

    // Added-token matching.
    t->rawMatcher_ = std::make_unique<AddedMatcher>();
    t->normMatcher_ = std::make_unique<AddedMatcher>();
    t->rawMatcher_->build(t->added_, false);
    t->normMatcher_->build(t->added_, true);
    for (const AddedToken& a : t->added_) {
        if (a.lstrip)
            t->lstripFirstByte_[static_cast<unsigned char>(a.content[0])] = true;
        if (a.content.find_first_of("\r\n") != std::string::npos)
            t->chunkable_ = false;
        if (unicode::findInvalidUtf8(a.content) != unicode::npos)
            fail(path, "added token " + std::to_string(a.id) + " is not valid UTF-8");
    }

    // Special token ids: tokenizer_config.json when present, else the fallbacks.
    uint64_t fp = hashBytes(reinterpret_cast<const unsigned char*>(text.data()), text.size(), kAlgorithmVersion);
    const std::filesystem::path cfgPath = std::filesystem::path(path).parent_path() / "tokenizer_config.json";
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
        auto name = [&](const char* key) -> std::optional<std::string> {
            if (!cfg.contains(key) || cfg[key].is_null())
                return std::nullopt;
            const json& v = cfg[key];
            if (v.is_string())
                return v.get<std::string>();
            if (v.is_object() && v.contains("content") && v["content"].is_string())
                return v["content"].get<std::string>();
            fail(cfgFile, std::string(key) + " is neither a string nor an object with a \"content\" string");
        };
        bosName = name("bos_token");
        eosName = name("eos_token");
        padName = name("pad_token");
        auto resolve = [&](const std::optional<std::string>& n, const char* key) -> std::optional<int32_t> {
            if (!n)
                return std::nullopt;
            auto id = t->tokenToId(*n);
            if (!id)
                fail(cfgFile, std::string(key) + " '" + *n + "' is not a token of " + path);
            return id;
        };
        t->bos_ = resolve(bosName, "bos_token");
        t->eos_ = resolve(eosName, "eos_token");
        t->pad_ = resolve(padName, "pad_token");
    }
    if (!bosName)
        t->bos_ = templateToken;
    if (!eosName)
        t->eos_ = t->tokenToId("<|endoftext|>");
    t->fingerprint_ = fp;
    return t;
}

std::optional<int32_t> BpeTokenizer::tokenToId(std::string_view token) const
{
    const auto it = tokenToId_.find(std::string(token));
    if (it == tokenToId_.end())
        return std::nullopt;
    return it->second;
}

std::string_view BpeTokenizer::tokenBytes(int32_t id) const
{
    if (id < 0 || id >= vocabSize_)
        return {};
    const size_t i = static_cast<size_t>(id);
    return std::string_view(decodeArena_).substr(decodeOffset_[i], decodeOffset_[i + 1] - decodeOffset_[i]);
}

std::vector<std::string_view> BpeTokenizer::splitPieces(std::string_view text)
{
    std::vector<std::string_view> pieces;
    splitQwen2(text, [&](const unsigned char* b, const unsigned char* e) {
        pieces.emplace_back(reinterpret_cast<const char*>(b), static_cast<size_t>(e - b));
    });
    return pieces;
}

// ---- encoding -------------------------------------------------------------------------------------

std::unique_ptr<BpeTokenizer::EncoderState> BpeTokenizer::acquireState() const
{
    {
        std::lock_guard<std::mutex> lock(poolMutex_);
        if (!pool_.empty()) {
            auto st = std::move(pool_.back());
            pool_.pop_back();
            return st;
        }
    }
    return std::make_unique<EncoderState>();
}

void BpeTokenizer::releaseState(std::unique_ptr<EncoderState> st) const
{
    std::lock_guard<std::mutex> lock(poolMutex_);
    pool_.push_back(std::move(st));
}

void BpeTokenizer::bpeSmall(const unsigned char* p, size_t n, std::vector<int32_t>& out) const
{
    uint32_t ids[kSmallPiece];
    uint64_t rank[kSmallPiece];
    size_t m = n;
    for (size_t i = 0; i < m; ++i)
        ids[i] = static_cast<uint32_t>(byteId_[p[i]]);
    for (size_t i = 0; i + 1 < m; ++i)
        rank[i] = pairs_->find(ids[i], ids[i + 1]);
    while (m > 1) {
        size_t k = 0;
        uint64_t best = rank[0];
        for (size_t i = 1; i + 1 < m; ++i) {
            if (rank[i] < best) {
                best = rank[i];
                k = i;
            }
        }
        if (best == PairMap::kNone)
            break;
        ids[k] = static_cast<uint32_t>(best);
        std::memmove(ids + k + 1, ids + k + 2, (m - k - 2) * sizeof(uint32_t));
        std::memmove(rank + k, rank + k + 1, (m - k - 2) * sizeof(uint64_t));
        --m;
        if (k > 0)
            rank[k - 1] = pairs_->find(ids[k - 1], ids[k]);
        if (k + 1 < m)
            rank[k] = pairs_->find(ids[k], ids[k + 1]);
    }
    for (size_t i = 0; i < m; ++i)
        out.push_back(static_cast<int32_t>(ids[i]));
}

void BpeTokenizer::bpeLarge(const unsigned char* p, size_t n, EncoderState& st, std::vector<int32_t>& out) const
{
    using Cand = EncoderState::Cand;
    auto& syms = st.syms;
    auto& heap = st.heap;
    syms.resize(n);
    for (size_t i = 0; i < n; ++i)
        syms[i] = {byteId_[p[i]], static_cast<int32_t>(i) - 1, i + 1 < n ? static_cast<int32_t>(i + 1) : -1};
    heap.clear();
    // Lowest rank first, then leftmost.
    const auto after = [](const Cand& x, const Cand& y) {
        return x.val > y.val || (x.val == y.val && x.left > y.left);
    };
    const auto push = [&](int32_t left) {
        const int32_t right = syms[static_cast<size_t>(left)].next;
        if (right < 0)
            return;
        const int32_t li = syms[static_cast<size_t>(left)].id, ri = syms[static_cast<size_t>(right)].id;
        const uint64_t v = pairs_->find(static_cast<uint32_t>(li), static_cast<uint32_t>(ri));
        if (v == PairMap::kNone)
            return;
        heap.push_back(Cand{v, left, li, ri});
        std::push_heap(heap.begin(), heap.end(), after);
    };
    for (size_t i = 0; i + 1 < n; ++i)
        push(static_cast<int32_t>(i));
    while (!heap.empty()) {
        std::pop_heap(heap.begin(), heap.end(), after);
        const Cand c = heap.back();
        heap.pop_back();
        auto& l = syms[static_cast<size_t>(c.left)];
        if (l.id != c.leftId || l.next < 0)
            continue;
        auto& r = syms[static_cast<size_t>(l.next)];
        if (r.id != c.rightId)
            continue;
        // Ids only ever grow longer, so a stale candidate can never look valid again.
        l.id = static_cast<int32_t>(static_cast<uint32_t>(c.val));
        l.next = r.next;
        if (r.next >= 0)
            syms[static_cast<size_t>(r.next)].prev = c.left;
        r.id = -1;
        if (l.prev >= 0)
            push(l.prev);
        push(c.left);
    }
    for (int32_t i = 0; i >= 0; i = syms[static_cast<size_t>(i)].next)
        out.push_back(syms[static_cast<size_t>(i)].id);
}

inline void BpeTokenizer::encodePiece(const unsigned char* p, size_t n, EncoderState& st,
                                      std::vector<int32_t>& out) const
{
    if (n == 1) {
        out.push_back(byteId_[*p]);
        return;
    }
    if (ignoreMerges_) {
        const auto it = bytesToId_.find(std::string(reinterpret_cast<const char*>(p), n));
        if (it != bytesToId_.end()) {
            out.push_back(it->second);
            return;
        }
    }
    if (n > kSmallPiece) {
        bpeLarge(p, n, st, out);
        return;
    }
    const uint64_t h = hashBytes(p, n);
    size_t count = 0;
    if (const int32_t* ids = st.cache.find(p, n, h, count)) {
        out.insert(out.end(), ids, ids + count);
        return;
    }
    const size_t before = out.size();
    bpeSmall(p, n, out);
    st.cache.insert(p, n, h, out.data() + before, out.size() - before);
}

void BpeTokenizer::encodePlain(std::string_view text, EncoderState& st, std::vector<int32_t>& out) const
{
    splitQwen2(text, [&](const unsigned char* b, const unsigned char* e) {
        encodePiece(b, static_cast<size_t>(e - b), st, out);
    });
}

void BpeTokenizer::encodeSegment(std::string_view segment, EncoderState& st, std::vector<int32_t>& out) const
{
    std::string normalized;
    if (nfc_ && unicode::mayNeedNfc(segment)) {
        normalized = unicode::toNfc(segment);
        segment = normalized;
    }
    normMatcher_->split(
        added_, segment, [&](std::string_view s) { encodePlain(s, st, out); }, [&](int32_t id) { out.push_back(id); });
}

void BpeTokenizer::encodeChunk(std::string_view text, size_t baseOffset, EncoderState& st,
                               std::vector<int32_t>& out) const
{
    const size_t bad = unicode::findInvalidUtf8(text);
    if (bad != unicode::npos)
        throw TokenizerError("invalid UTF-8 at byte offset " + std::to_string(baseOffset + bad));
    rawMatcher_->split(
        added_, text, [&](std::string_view s) { encodeSegment(s, st, out); }, [&](int32_t id) { out.push_back(id); });
}

std::vector<int32_t> BpeTokenizer::encode(std::string_view utf8, bool addSpecialTokens) const
{
    std::vector<int32_t> out;
    out.reserve(utf8.size() / 3 + 8);
    if (addSpecialTokens)
        out.insert(out.end(), prefix_.begin(), prefix_.end());
    auto st = acquireState();
    encodeChunk(utf8, 0, *st, out);
    releaseState(std::move(st));
    if (addSpecialTokens)
        out.insert(out.end(), suffix_.begin(), suffix_.end());
    return out;
}

std::vector<std::vector<int32_t>> BpeTokenizer::encodeBatch(const std::vector<std::string_view>& docs, int threads,
                                                            bool addSpecialTokens,
                                                            const std::function<void(size_t, size_t)>& progress) const
{
    using Clock = std::chrono::steady_clock;
    size_t total = 0;
    for (const auto& d : docs)
        total += d.size();
    size_t nThreads =
        threads > 0 ? static_cast<size_t>(threads) : std::max<size_t>(1, std::thread::hardware_concurrency());

    // Work items: documents, long ones cut after a newline that is followed by a printable ASCII
    // character. Such a cut is a piece boundary of the split pattern, NFC never composes across it,
    // and no added token spans it (chunkable_ is false when one contains CR/LF; lstrip tokens, which
    // would absorb the newline, are excluded by their first byte).
    struct Item {
        size_t doc, begin, end;
    };
    std::vector<Item> items;
    const size_t chunk = nThreads == 1 ? (size_t{1} << 20)
                                       : std::clamp<size_t>(total / (nThreads * 8), size_t{64} << 10, size_t{1} << 20);
    for (size_t d = 0; d < docs.size(); ++d) {
        const std::string_view doc = docs[d];
        size_t pos = 0;
        while (chunkable_ && doc.size() - pos > chunk) {
            size_t q = pos + chunk, cut = 0;
            while (q + 1 < doc.size()) {
                const void* nl = std::memchr(doc.data() + q, '\n', doc.size() - q - 1);
                if (!nl)
                    break;
                const size_t k = static_cast<size_t>(static_cast<const char*>(nl) - doc.data());
                const auto next = static_cast<unsigned char>(doc[k + 1]);
                if (next > 0x20 && next < 0x7F && !lstripFirstByte_[next]) {
                    cut = k + 1;
                    break;
                }
                q = k + 1;
            }
            if (cut == 0)
                break;
            items.push_back({d, pos, cut});
            pos = cut;
        }
        items.push_back({d, pos, doc.size()});
    }
    nThreads = std::max<size_t>(1, std::min(nThreads, items.size()));

    std::vector<std::vector<int32_t>> parts(items.size());
    const auto runItem = [&](size_t k, EncoderState& st) {
        const Item& it = items[k];
        parts[k].reserve((it.end - it.begin) / 3 + 4);
        try {
            encodeChunk(docs[it.doc].substr(it.begin, it.end - it.begin), it.begin, st, parts[k]);
        } catch (const TokenizerError& e) {
            throw TokenizerError("document " + std::to_string(it.doc) + ": " + e.what());
        }
    };

    if (progress)
        progress(0, total);
    if (nThreads == 1) {
        auto st = acquireState();
        size_t done = 0;
        auto last = Clock::now();
        for (size_t k = 0; k < items.size(); ++k) {
            runItem(k, *st);
            done += items[k].end - items[k].begin;
            if (progress && k + 1 < items.size() && Clock::now() - last > std::chrono::milliseconds(100)) {
                progress(done, total);
                last = Clock::now();
            }
        }
        releaseState(std::move(st));
    } else {
        std::atomic<size_t> next{0}, doneBytes{0}, doneItems{0};
        std::atomic<bool> abort{false};
        std::mutex m;
        std::condition_variable cv;
        std::exception_ptr error;
        const auto worker = [&] {
            std::unique_ptr<EncoderState> st;
            try {
                st = acquireState();
                for (;;) {
                    if (abort.load())
                        break;
                    const size_t k = next.fetch_add(1);
                    if (k >= items.size())
                        break;
                    runItem(k, *st);
                    doneBytes.fetch_add(items[k].end - items[k].begin);
                    if (doneItems.fetch_add(1) + 1 == items.size()) {
                        std::lock_guard<std::mutex> lock(m);
                        cv.notify_all();
                    }
                }
                releaseState(std::move(st));
            } catch (...) {
                std::lock_guard<std::mutex> lock(m);
                if (!error)
                    error = std::current_exception();
                abort.store(true);
                cv.notify_all();
            }
        };
        std::vector<std::thread> pool;
        const auto joinAll = [&] {
            for (auto& th : pool)
                if (th.joinable())
                    th.join();
        };
        try {
            for (size_t i = 0; i < nThreads; ++i)
                pool.emplace_back(worker);
            std::unique_lock<std::mutex> lock(m);
            while (doneItems.load() < items.size() && !abort.load()) {
                cv.wait_for(lock, std::chrono::milliseconds(100));
                if (progress && doneItems.load() < items.size() && !abort.load()) {
                    lock.unlock();
                    progress(doneBytes.load(), total);
                    lock.lock();
                }
            }
        } catch (...) {
            abort.store(true);
            joinAll();
            throw;
        }
        joinAll();
        if (error)
            std::rethrow_exception(error);
    }

    std::vector<std::vector<int32_t>> result(docs.size());
    for (size_t k = 0; k < items.size();) {
        const size_t d = items[k].doc;
        size_t e = k;
        size_t count = 0;
        while (e < items.size() && items[e].doc == d)
            count += parts[e++].size();
        auto& out = result[d];
        if (e == k + 1 && (!addSpecialTokens || (prefix_.empty() && suffix_.empty()))) {
            out = std::move(parts[k]);
        } else {
            out.reserve(count + prefix_.size() + suffix_.size());
            if (addSpecialTokens)
                out.insert(out.end(), prefix_.begin(), prefix_.end());
            for (size_t i = k; i < e; ++i)
                out.insert(out.end(), parts[i].begin(), parts[i].end());
            if (addSpecialTokens)
                out.insert(out.end(), suffix_.begin(), suffix_.end());
        }
        k = e;
    }
    if (progress)
        progress(total, total);
    return result;
}

std::string BpeTokenizer::decode(std::span<const int32_t> ids, bool skipSpecialTokens) const
{
    std::string bytes;
    bytes.reserve(ids.size() * 4);
    for (const int32_t id : ids) {
        if (id < 0 || id >= vocabSize_ || !(idFlags_[static_cast<size_t>(id)] & 1))
            throw TokenizerError("cannot decode token id " + std::to_string(id) + ": not in the vocabulary (size " +
                                 std::to_string(vocabSize_) + ")");
        if (skipSpecialTokens && (idFlags_[static_cast<size_t>(id)] & 2))
            continue;
        const size_t i = static_cast<size_t>(id);
        bytes.append(decodeArena_, decodeOffset_[i], decodeOffset_[i + 1] - decodeOffset_[i]);
    }
    // Like Hugging Face's ByteLevel decoder (String::from_utf8_lossy): a sequence of ids that splits
    // a character yields U+FFFD.
    if (unicode::findInvalidUtf8(bytes) == unicode::npos)
        return bytes;
    return unicode::replaceInvalidUtf8(bytes);
}

} // namespace traindeck::tok
