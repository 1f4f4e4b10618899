// Columnar in-memory store of a run's metrics: one float32 column per (per-rank metric, rank) and one
// column per scalar, in chunks (no reallocation spikes, ~45 bytes per step per rank at 8 ranks).
#pragma once

#include "common/result.h"
#include "metrics/records.h"

#include <QList>
#include <QString>

#include <algorithm>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

namespace traindeck::metrics {

// A growable column in fixed chunks of kChunk elements; only the last chunk grows like a vector, so
// the memory overhead is bounded by one chunk and appends never copy the whole series. A full chunk can be
// handed to a spill file (spillChunk): its elements are then read from that file's read-only mapping.
template <typename T, int Shift = 14> class ChunkedColumn {
  public:
    static constexpr int kShift = Shift;
    static constexpr qint64 kChunk = qint64(1) << kShift;

    qint64 size() const { return size_; }
    // A span at a time, not a value at a time: the live diagnosis of a 1,024-rank job copies 2,000 steps of
    // 11,264 columns on the GUI thread (MetricStore::copyTail).
    void appendFrom(const ChunkedColumn& other, qint64 from, qint64 to)
    {
        other.forEachSpan(from, to, [this](const T* data, qint64 n, qint64) { appendSpan(data, n); });
    }
    void appendSpan(const T* data, qint64 n)
    {
        while (n > 0) {
            startChunkIfFull();
            std::vector<T>& chunk = chunks_.back();
            const qint64 k = std::min(n, kChunk - qint64(chunk.size()));
            chunk.insert(chunk.end(), data, data + k);
            data += k;
            n -= k;
            size_ += k;
        }
    }
    // Allocates the next chunk now when the last is full (or there is none), so the next append does not.
    bool startNextChunk() { return startChunkIfFull(true); }
    void append(T v)
    {
        startChunkIfFull();
        chunks_.back().push_back(v);
        ++size_;
    }
    T operator[](qint64 i) const { return chunkData(size_t(i >> kShift))[size_t(i & (kChunk - 1))]; }
    void truncate(qint64 n)
    {
        if (n >= size_)
            return;
        if (n < 0)
            n = 0;
        const size_t keepChunks = size_t((n + kChunk - 1) >> kShift);
        if (keepChunks <= spilled_.size()) {
            // The last chunk kept grows again: back into memory; those before it stay spilled.
            chunks_.clear();
            if (keepChunks > 0) {
                const T* p = spilled_[keepChunks - 1];
                chunks_.emplace_back(p, p + kChunk);
            }
            spilled_.resize(keepChunks > 0 ? keepChunks - 1 : 0);
        } else {
            chunks_.resize(keepChunks - spilled_.size());
        }
        if (keepChunks > 0)
            chunks_.back().resize(size_t(n - qint64(keepChunks - 1) * kChunk));
        size_ = n;
    }
    void clear()
    {
        chunks_.clear();
        spilled_.clear();
        size_ = 0;
    }
    // Bytes in memory (spilled chunks not counted).
    qint64 memoryBytes() const
    {
        qint64 b = qint64(chunks_.capacity() * sizeof(std::vector<T>) + spilled_.capacity() * sizeof(const T*));
        for (const auto& c : chunks_)
            b += qint64(c.capacity() * sizeof(T));
        return b;
    }
    const T* chunkData(size_t c) const
    {
        return c < spilled_.size() ? spilled_[c] : chunks_[c - spilled_.size()].data();
    }
    // The first chunk still in memory (chunks are spilled in order), which is full, is now read from `at`
    // (kChunk elements that stay valid as long as the column): its memory is freed.
    void spillNextChunk(const T* at)
    {
        Q_ASSERT(!chunks_.empty());
        spilled_.push_back(at);
        chunks_.erase(chunks_.begin());
    }
    // Calls f(const T *data, qint64 count, qint64 firstIndex) for contiguous spans covering [from, to).
    template <typename F> void forEachSpan(qint64 from, qint64 to, F&& f) const
    {
        to = std::min(to, size_);
        while (from < to) {
            const size_t c = size_t(from >> kShift);
            const qint64 within = from & (kChunk - 1);
            const qint64 n = std::min(to - from, kChunk - within);
            f(chunkData(c) + within, n, from);
            from += n;
        }
    }

  private:
    // A column's first chunk grows as needed (a small store stays small), unless asked to be whole at once.
    bool startChunkIfFull(bool whole = false)
    {
        if (!chunks_.empty() && qint64(chunks_.back().size()) < kChunk)
            return false;
        chunks_.emplace_back();
        if (whole || spilled_.size() + chunks_.size() > 1)
            chunks_.back().reserve(size_t(kChunk));
        return true;
    }
    // Chunks [0, spilled_.size()) are in the spill file's mapping, the rest in memory, in chunks_: a spilled
    // chunk costs a pointer, not an empty vector too (a day of 1,024 ranks spills 300 chunks per column).
    std::vector<const T*> spilled_;
    std::vector<std::vector<T>> chunks_;
    qint64 size_ = 0;
};

// Per-step (whole job) series.
enum class Scalar : int { Time, Epoch, Loss, Lr, GradNorm, Tokens, TokensPerS, SamplesPerS, Mfu, LossScale };
inline constexpr int kScalarCount = 10;
const char* scalarKey(Scalar s); // protocol key: "t", "epoch", "loss", ...

// Names one series of the store.
struct SeriesId {
    bool perRank = false;
    Scalar scalar = Scalar::Loss;
    RankMetric metric = RankMetric::Step;
    int rank = 0;
    static SeriesId of(Scalar s) { return {false, s, RankMetric::Step, 0}; }
    static SeriesId of(RankMetric m, int rank) { return {true, Scalar::Loss, m, rank}; }
};

// One bucket of a min/max decimation: the rows whose step lies in [firstStep, lastStep].
struct MinMaxBucket {
    qint64 firstStep = 0; // first and last step actually present in the bucket
    qint64 lastStep = 0;
    float min = 0; // NaN when the bucket holds no finite value
    float max = 0;
    int count = 0; // finite values in the bucket
};

// What loadFile() read (a file that cannot be read is an error of the Result instead).
struct LoadReport {
    qint64 offset = 0; // resume offset for a MetricsTailer (end of the last complete line)
    qint64 lines = 0;  // resume line number
    qint64 records = 0;
    qint64 malformed = 0;
    QList<ParseIssue> issues; // the first issues (at most MetricsParser::kMaxKeptIssues)
};

class MetricStore : public MetricsSink {
  public:
    MetricStore();
    ~MetricStore() override;

    void clear();

    // --- shape
    qint64 rowCount() const;  // number of steps held
    int worldSize() const;    // ranks (columns per per-rank metric)
    qint64 firstStep() const; // -1 when empty
    qint64 lastStep() const;  // -1 when empty
    qint64 stepAt(qint64 row) const;
    // Row of the first step >= step (rowCount() if none).
    qint64 lowerBoundRow(qint64 step) const;
    // Row holding exactly this step, or -1.
    qint64 rowOfStep(qint64 step) const;
    // How many times a step record replaced steps already held (a resumed run's, a rewritten file's): rows
    // read before then may hold other values now. What keeps values of rows (a copy, a view's cache) checks it.
    qint64 rewinds() const;

    // --- values
    double scalarAt(Scalar s, qint64 row) const;
    float rankAt(RankMetric m, int rank, qint64 row) const;
    // Every rank's value of `m` at a row, into out[0, worldSize()): one call a row, not one a value (the views
    // of 1,024 ranks read hundreds of thousands of values a frame).
    void rankRow(RankMetric m, qint64 row, float* out) const;
    // Rank `rank`'s values of `m` at rows from, from + stride, ... below `to`, into `out` (as many as those are):
    // a column read in its order, where reading rows across ranks touches every rank's column at each row.
    void rankSamples(RankMetric m, int rank, qint64 from, qint64 to, qint64 stride, float* out) const;
    // Starts the next chunk of (at most maxColumns) per-rank columns whose chunks are full, so the rows appended
    // next allocate nothing: at 1,024 ranks that is 11,264 chunks every kRankColumnRows rows (6-9 ms, mostly page
    // faults), which the Monitor's live copy spreads over refreshes of their own. Returns whether it started any.
    bool startNextRankChunks(qint64 maxColumns = std::numeric_limits<qint64>::max());
    double valueAt(const SeriesId& id, qint64 row) const;
    bool hasRankMetric(RankMetric m) const; // any step carried this (optional) array
    // Copy of a whole series over rows [fromRow, toRow).
    std::vector<float> series(const SeriesId& id, qint64 fromRow = 0, qint64 toRow = -1) const;
    // The step record at a row, rebuilt from the columns.
    StepRecord stepRecord(qint64 row) const;

    // Min/max decimation of the steps in [fromStep, toStep] into `buckets` equal step ranges.
    // Returns only buckets that contain at least one step, in step order. O(rows in range).
    std::vector<MinMaxBucket> decimate(const SeriesId& id, qint64 fromStep, qint64 toStep, int buckets) const;

    // --- run information and events
    const QList<HelloRecord>& hellos() const; // one per start/resume, in order
    std::optional<HelloRecord> hello() const; // the latest
    QString hostOf(int rank) const;           // from the latest hello ("" if unknown)
    double memTotalMbOf(int rank) const;      // NaN if unknown
    const QList<EvalRecord>& evals() const;
    const QList<CheckpointRecord>& checkpoints() const;
    const QList<WarningRecord>& warnings() const;
    const QList<ErrorRecord>& errors() const;
    std::optional<DoneRecord> done() const;
    qint64 issueCount() const;               // malformed lines seen through onIssue
    const QList<ParseIssue>& issues() const; // the first 1000

    // A copy holding the last `rows` steps and every other record (hellos, evals, checkpoints, warnings,
    // errors, done): what a live analysis on another thread reads while this store grows. Column copies:
    // 56-80 ms for 2,000 steps of 1,024 ranks (bench_gui_monitor, 2026-12-07), mostly the new memory's page faults.
    // With `limit`, only the first `limit` of those rows: the rest can follow a piece at a time
    // (appendNewRowsOf with a limit), so that no single call holds the GUI thread for long.
    std::unique_ptr<MetricStore> copyTail(qint64 rows, qint64 limit = kAllRows) const;
    // Brings a copyTail() of `source` up to date with the rows source gained since (and its other records),
    // copying those rows only, or the first `limit` of them. False, changing nothing, when this store is not
    // a tail of source (a new run, a rewritten file) or would then (with every new row) hold more than
    // maxRows rows: the caller takes a new copyTail.
    bool appendNewRowsOf(const MetricStore& source, qint64 maxRows, qint64 limit = kAllRows);
    // The rows appendNewRowsOf(source, maxRows) would copy (all of them, without a limit), or -1 where it would
    // return false.
    qint64 newRowsOf(const MetricStore& source, qint64 maxRows) const;
    static constexpr qint64 kAllRows = std::numeric_limits<qint64>::max();

    // A large job's per-rank history: once its per-rank columns would hold more than spillAboveBytes, the
    // steps before the last residentRows (whole chunks of RankColumnRows) move to an unlinked file in the
    // cache directory and are read back through a read-only mapping (the page cache, not this process'
    // memory): 1,024 ranks for 24 h at 1 step/s held 4.2 GB in memory. Every value stays readable. When the
    // file cannot be written, everything stays in memory (spillError() says why).
    static constexpr qint64 kResidentRows = 10000;
    static constexpr qint64 kSpillAboveBytes = qint64(256) << 20;
    static constexpr qint64 kRankColumnRows = 256;
    void setSpillPolicy(qint64 residentRows, qint64 spillAboveBytes, const QString& directory = {});
    qint64 spilledBytes() const; // per-rank values in the spill file
    QString spillError() const;

    // Bytes held by the store's columns (capacity, not just size; spilled chunks not counted).
    qint64 memoryBytes() const;

    // --- files. The run's metrics.jsonl is the saved form: load it (fast, ~0.5 GB/s) ...
    Result<LoadReport> loadFile(const QString& path);
    // ... and write the store back as canonical protocol lines (hello, then every record in time order).
    Status saveJsonl(const QString& path) const;

    // --- MetricsSink
    void onHello(const HelloRecord& r) override;
    void onStep(const StepRecord& r) override;
    void onEval(const EvalRecord& r) override;
    void onCheckpoint(const CheckpointRecord& r) override;
    void onWarning(const WarningRecord& r) override;
    void onError(const ErrorRecord& r) override;
    void onDone(const DoneRecord& r) override;
    void onIssue(const ParseIssue& i) override;

  private:
    struct Private;
    std::unique_ptr<Private> d;
};

// Which store, and which history of it (MetricStore::rewinds: a resumed run replaces rows), a cache of values
// derived from its rows was built from. Rows never change otherwise, so while the version stays, the cache only
// gains rows; when it moves, the cache starts over.
struct StoreVersion {
    quint64 storeId = 0; // e.g. the session's generation
    qint64 rewinds = -1;
    // Records this version; returns whether it differs from the one recorded before.
    bool moveTo(quint64 id, qint64 storeRewinds)
    {
        const bool moved = id != storeId || storeRewinds != rewinds;
        storeId = id;
        rewinds = storeRewinds;
        return moved;
    }
};

} // namespace traindeck::metrics
