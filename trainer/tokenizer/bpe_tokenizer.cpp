// BpeTokenizer: encoding (added-token matching, the Qwen2 split, BPE with a per-thread word cache,
// the worker pool of encodeBatch) and decoding. Loading tokenizer.json is in bpe_tokenizer_load.cpp.
#include "tokenizer/bpe_tokenizer.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <thread>

#include "tokenizer/bpe_tokenizer_internal.h"
#include "tokenizer/qwen2_split.h"
#include "tokenizer/unicode_text.h"

namespace traindeck::tok {

using detail::hashBytes;

namespace {

// Pieces up to this many bytes go through the array BPE and the per-word cache; longer ones through
// the heap BPE (O(n log n)).
constexpr size_t kSmallPiece = 128;

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

BpeTokenizer::BpeTokenizer() = default;
BpeTokenizer::~BpeTokenizer() = default;

std::unique_ptr<Tokenizer> Tokenizer::fromFile(const std::string& path)
{
    return BpeTokenizer::load(path);
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

namespace {

// A work item of encodeBatch: bytes [begin, end) of document doc.
struct BatchItem {
    size_t doc, begin, end;
};

// Work items: documents, long ones cut after a newline that is followed by a printable ASCII
// character. Such a cut is a piece boundary of the split pattern, NFC never composes across it,
// and no added token spans it (chunkable is false when one contains CR/LF; lstrip tokens, which
// would absorb the newline, are excluded by their first byte).
std::vector<BatchItem> cutIntoItems(const std::vector<std::string_view>& docs, size_t chunk, bool chunkable,
                                    const std::array<bool, 256>& lstripFirstByte)
{
    std::vector<BatchItem> items;
    for (size_t d = 0; d < docs.size(); ++d) {
        const std::string_view doc = docs[d];
        size_t pos = 0;
        while (chunkable && doc.size() - pos > chunk) {
            size_t q = pos + chunk, cut = 0;
            while (q + 1 < doc.size()) {
                const void* nl = std::memchr(doc.data() + q, '\n', doc.size() - q - 1);
                if (!nl)
                    break;
                const size_t k = static_cast<size_t>(static_cast<const char*>(nl) - doc.data());
                const auto next = static_cast<unsigned char>(doc[k + 1]);
                if (next > 0x20 && next < 0x7F && !lstripFirstByte[next]) {
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
    return items;
}

// The ids of each document: its items' parts in order, between prefix and suffix with
// addSpecialTokens. A document of one item and nothing to add takes its part as it is.
std::vector<std::vector<int32_t>> joinParts(const std::vector<BatchItem>& items,
                                            std::vector<std::vector<int32_t>>& parts, size_t nDocs,
                                            bool addSpecialTokens, const std::vector<int32_t>& prefix,
                                            const std::vector<int32_t>& suffix)
{
    std::vector<std::vector<int32_t>> result(nDocs);
    for (size_t k = 0; k < items.size();) {
        const size_t d = items[k].doc;
        size_t e = k;
        size_t count = 0;
        while (e < items.size() && items[e].doc == d)
            count += parts[e++].size();
        auto& out = result[d];
        if (e == k + 1 && (!addSpecialTokens || (prefix.empty() && suffix.empty()))) {
            out = std::move(parts[k]);
        } else {
            out.reserve(count + prefix.size() + suffix.size());
            if (addSpecialTokens)
                out.insert(out.end(), prefix.begin(), prefix.end());
            for (size_t i = k; i < e; ++i)
                out.insert(out.end(), parts[i].begin(), parts[i].end());
            if (addSpecialTokens)
                out.insert(out.end(), suffix.begin(), suffix.end());
        }
        k = e;
    }
    return result;
}

} // namespace

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

    const size_t chunk = nThreads == 1 ? (size_t{1} << 20)
                                       : std::clamp<size_t>(total / (nThreads * 8), size_t{64} << 10, size_t{1} << 20);
    const std::vector<BatchItem> items = cutIntoItems(docs, chunk, chunkable_, lstripFirstByte_);
    nThreads = std::max<size_t>(1, std::min(nThreads, items.size()));

    std::vector<std::vector<int32_t>> parts(items.size());
    const auto runItem = [&](size_t k, EncoderState& st) {
        const BatchItem& it = items[k];
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

    std::vector<std::vector<int32_t>> result = joinParts(items, parts, docs.size(), addSpecialTokens, prefix_, suffix_);
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
