#include "metrics/metricstore.h"

#include "common/paths.h"
#include "metrics/parser.h"
#include "metrics/writer.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QSaveFile>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstring>
#include <limits>

namespace traindeck::metrics {

const char* scalarKey(Scalar s)
{
    static constexpr const char* keys[kScalarCount] = {"t",      "epoch",        "loss",          "lr",  "grad_norm",
                                                       "tokens", "tokens_per_s", "samples_per_s", "mfu", "loss_scale"};
    const int i = int(s);
    return i >= 0 && i < kScalarCount ? keys[i] : "";
}

namespace {
constexpr float kNaNf = std::numeric_limits<float>::quiet_NaN();
// Float scalars stored as float32, in Scalar order from Loss.
constexpr int kFloatScalarFirst = int(Scalar::Loss);
int floatIndex(Scalar s)
{
    switch (s) {
    case Scalar::Loss: return 0;
    case Scalar::Lr: return 1;
    case Scalar::GradNorm: return 2;
    case Scalar::TokensPerS: return 3;
    case Scalar::SamplesPerS: return 4;
    case Scalar::Mfu: return 5;
    case Scalar::LossScale: return 6;
    default: return -1;
    }
}
constexpr int kFloatScalars = 7;

// A per-rank column's chunk: 256 steps, 1 KiB. Every column of a row starts a new chunk at the same step, so
// a 1,024-rank job's 11,264 columns all allocate then; 1 KiB chunks lie four to a page, so that costs about 2,800
// page faults, against 11,264 with 4 KiB chunks (a page each). The largest of 4,096 onStep calls took 23 ms with
// 4 KiB chunks and 10 ms with these (docs/measurements/bench_scale.md).
using RankColumn = ChunkedColumn<float, 8>;
static_assert(RankColumn::kChunk == MetricStore::kRankColumnRows);

// An unlinked file that chunks of per-rank columns are written to and mapped back from (read-only): it
// disappears with the process, also after a crash.
class SpillFile {
  public:
    ~SpillFile()
    {
        for (const auto& [at, bytes] : m_maps)
            ::munmap(at, bytes);
        if (m_fd >= 0)
            ::close(m_fd);
    }
    static std::unique_ptr<SpillFile> create(const QString& directory, QString* error)
    {
        if (!QDir().mkpath(directory)) {
            *error = QCoreApplication::translate("traindeck::metrics::MetricStore", "cannot create %1").arg(directory);
            return {};
        }
        QByteArray name = QFile::encodeName(directory + QStringLiteral("/metrics-spill-XXXXXX"));
        const int fd = ::mkstemp(name.data());
        if (fd < 0) {
            *error = QStringLiteral("%1: %2").arg(QFile::decodeName(name), QString::fromLocal8Bit(strerror(errno)));
            return {};
        }
        ::unlink(name.constData());
        auto f = std::make_unique<SpillFile>();
        f->m_fd = fd;
        return f;
    }
    // Writes the blocks one after the other and maps them; the mapping's start, or nullptr (error set).
    const char* append(const std::vector<std::pair<const void*, size_t>>& blocks, QString* error)
    {
        // Up to IOV_MAX blocks a call: a 1,024-rank job spills 11,264 blocks of 1 KiB at a time.
        std::vector<iovec> iov;
        iov.reserve(blocks.size());
        size_t total = 0;
        for (const auto& [data, bytes] : blocks) {
            iov.push_back({const_cast<void*>(data), bytes});
            total += bytes;
        }
        const off_t start = m_size;
        off_t at = start;
        size_t first = 0;
        while (first < iov.size()) {
            const int count = int(std::min<size_t>(iov.size() - first, IOV_MAX));
            const ssize_t n = ::pwritev(m_fd, iov.data() + first, count, at);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                *error = QString::fromLocal8Bit(strerror(n < 0 ? errno : ENOSPC));
                return nullptr;
            }
            at += off_t(n);
            // Past the blocks written whole; a block written in part goes on from where the write stopped.
            size_t left = size_t(n);
            while (first < iov.size() && iov[first].iov_len <= left)
                left -= iov[first++].iov_len;
            if (left > 0) {
                iov[first].iov_base = static_cast<char*>(iov[first].iov_base) + left;
                iov[first].iov_len -= left;
            }
        }
        void* map = ::mmap(nullptr, total, PROT_READ, MAP_SHARED, m_fd, start);
        if (map == MAP_FAILED) {
            *error = QString::fromLocal8Bit(strerror(errno));
            return nullptr;
        }
        m_maps.emplace_back(map, total);
        // The next block starts on a page (mmap offsets must).
        const off_t page = off_t(::sysconf(_SC_PAGESIZE));
        m_size = (at + page - 1) / page * page;
        return static_cast<const char*>(map);
    }
    qint64 size() const { return qint64(m_size); }

  private:
    int m_fd = -1;
    off_t m_size = 0;
    std::vector<std::pair<void*, size_t>> m_maps;
};
} // namespace

struct MetricStore::Private {
    // Rows [from, to) of every column of `s`, appended to these; then every other record of `s` (hellos,
    // evals, checkpoints, warnings, errors, done, issues) in place of these: what copyTail and
    // appendNewRowsOf share.
    void appendRowsAndRecords(const Private& s, qint64 from, qint64 to);

    ChunkedColumn<qint64> steps;
    ChunkedColumn<double> time;
    ChunkedColumn<qint32> epoch;
    ChunkedColumn<qint64> tokens;
    std::array<ChunkedColumn<float>, kFloatScalars> scalars;
    // rank[m][r]
    std::array<std::vector<RankColumn>, kRankMetricCount> rank;
    // The spill of a large job's older per-rank chunks (MetricStore::setSpillPolicy).
    qint64 residentRows = MetricStore::kResidentRows;
    qint64 spillAboveBytes = MetricStore::kSpillAboveBytes;
    QString spillDirectory;
    std::unique_ptr<SpillFile> spill;
    size_t spilledChunks = 0; // chunks [0, spilledChunks) of every rank column are in the file
    QString spillError;

    void maybeSpill()
    {
        const qint64 rows = steps.size();
        const qint64 columns = qint64(rank[0].size()) * kRankMetricCount;
        if (!spillError.isEmpty() || columns == 0 || columns * rows * qint64(sizeof(float)) < spillAboveBytes)
            return;
        while (qint64(spilledChunks + 1) * RankColumn::kChunk + residentRows <= rows) {
            if (!spill) {
                spill = SpillFile::create(spillDirectory.isEmpty() ? paths::cacheDir() : spillDirectory, &spillError);
                if (!spill)
                    return;
            }
            std::vector<std::pair<const void*, size_t>> blocks;
            for (const auto& cols : rank)
                for (const auto& c : cols)
                    blocks.emplace_back(c.chunkData(spilledChunks), sizeof(float) * size_t(RankColumn::kChunk));
            const char* at = spill->append(blocks, &spillError);
            if (!at) {
                qWarning("traindeck: metrics stay in memory: the spill file cannot be written: %s",
                         qPrintable(spillError));
                return;
            }
            for (auto& cols : rank)
                for (auto& c : cols) {
                    c.spillNextChunk(reinterpret_cast<const float*>(at));
                    at += sizeof(float) * size_t(RankColumn::kChunk);
                }
            ++spilledChunks;
        }
    }
    quint32 presentUnion = 0;

    QList<HelloRecord> hellos;
    QList<EvalRecord> evals;
    QList<CheckpointRecord> checkpoints;
    QList<WarningRecord> warnings;
    QList<ErrorRecord> errors;
    std::optional<DoneRecord> done;
    qint64 issueCount = 0;
    qint64 rewinds = 0; // step records that replaced held steps (MetricStore::rewinds)
    QList<ParseIssue> issues;

    void ensureRanks(int n)
    {
        const qint64 rows = steps.size();
        for (auto& cols : rank) {
            while (int(cols.size()) < n) {
                cols.emplace_back();
                for (qint64 i = 0; i < rows; ++i)
                    cols.back().append(kNaNf);
            }
        }
    }
    void truncate(qint64 rows)
    {
        steps.truncate(rows);
        time.truncate(rows);
        epoch.truncate(rows);
        tokens.truncate(rows);
        for (auto& c : scalars)
            c.truncate(rows);
        for (auto& cols : rank)
            for (auto& c : cols)
                c.truncate(rows);
        // The chunk the rows now end in is back in memory (RankColumn::truncate); those before stay spilled.
        const size_t keep = size_t((rows + RankColumn::kChunk - 1) / RankColumn::kChunk);
        spilledChunks = std::min(spilledChunks, keep > 0 ? keep - 1 : 0);
    }
};

MetricStore::MetricStore() : d(std::make_unique<Private>()) {}

MetricStore::~MetricStore() = default;

void MetricStore::clear()
{
    auto fresh = std::make_unique<Private>();
    fresh->residentRows = d->residentRows;
    fresh->spillAboveBytes = d->spillAboveBytes;
    fresh->spillDirectory = d->spillDirectory;
    fresh->rewinds = d->rewinds + 1; // every row read before is gone
    d = std::move(fresh);
}

void MetricStore::Private::appendRowsAndRecords(const Private& s, qint64 from, qint64 to)
{
    steps.appendFrom(s.steps, from, to);
    time.appendFrom(s.time, from, to);
    epoch.appendFrom(s.epoch, from, to);
    tokens.appendFrom(s.tokens, from, to);
    for (size_t i = 0; i < s.scalars.size(); ++i)
        scalars[i].appendFrom(s.scalars[i], from, to);
    for (size_t m = 0; m < s.rank.size(); ++m) {
        rank[m].resize(s.rank[m].size());
        for (size_t r = 0; r < s.rank[m].size(); ++r)
            rank[m][r].appendFrom(s.rank[m][r], from, to);
    }
    presentUnion = s.presentUnion;
    hellos = s.hellos;
    evals = s.evals;
    checkpoints = s.checkpoints;
    warnings = s.warnings;
    errors = s.errors;
    done = s.done;
    issueCount = s.issueCount;
    issues = s.issues;
}

std::unique_ptr<MetricStore> MetricStore::copyTail(qint64 rows, qint64 limit) const
{
    auto out = std::make_unique<MetricStore>();
    const qint64 end = d->steps.size(), from = std::max<qint64>(0, end - std::max<qint64>(0, rows));
    const qint64 to = from + std::min(end - from, std::max<qint64>(1, limit));
    out->d->appendRowsAndRecords(*d, from, to);
    out->d->rewinds = d->rewinds; // appendNewRowsOf: a copy taken before a rewind of its source is stale
    return out;
}

qint64 MetricStore::newRowsOf(const MetricStore& source, qint64 maxRows) const
{
    const Private& s = *source.d;
    const qint64 mine = d->steps.size(), theirs = s.steps.size();
    if (mine == 0 || worldSize() != source.worldSize() || d->rewinds != s.rewinds)
        return -1;
    // This store's last row must be a row of source, with the same step before it.
    const qint64 last = d->steps[mine - 1];
    const qint64 at = source.lowerBoundRow(last);
    if (at >= theirs || s.steps[at] != last || at + 1 < mine || s.steps[at + 1 - mine] != d->steps[0])
        return -1;
    const qint64 rows = theirs - at - 1;
    return mine + rows > maxRows ? -1 : rows;
}

bool MetricStore::appendNewRowsOf(const MetricStore& source, qint64 maxRows, qint64 limit)
{
    const qint64 rows = newRowsOf(source, maxRows);
    if (rows < 0)
        return false;
    const qint64 from = source.d->steps.size() - rows;
    d->appendRowsAndRecords(*source.d, from, from + std::min(rows, std::max<qint64>(1, limit)));
    return true;
}

qint64 MetricStore::rowCount() const
{
    return d->steps.size();
}

int MetricStore::worldSize() const
{
    return int(d->rank[0].size());
}

qint64 MetricStore::firstStep() const
{
    return d->steps.size() ? d->steps[0] : -1;
}

qint64 MetricStore::lastStep() const
{
    return d->steps.size() ? d->steps[d->steps.size() - 1] : -1;
}

qint64 MetricStore::stepAt(qint64 row) const
{
    return d->steps[row];
}

qint64 MetricStore::lowerBoundRow(qint64 step) const
{
    // Steps are strictly increasing (the resume rule truncates), so binary search.
    qint64 lo = 0, hi = d->steps.size();
    while (lo < hi) {
        const qint64 mid = lo + (hi - lo) / 2;
        if (d->steps[mid] < step)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

qint64 MetricStore::rowOfStep(qint64 step) const
{
    const qint64 r = lowerBoundRow(step);
    return r < d->steps.size() && d->steps[r] == step ? r : -1;
}

double MetricStore::scalarAt(Scalar s, qint64 row) const
{
    switch (s) {
    case Scalar::Time: return d->time[row];
    case Scalar::Epoch: return d->epoch[row];
    case Scalar::Tokens: return double(d->tokens[row]);
    default: return d->scalars[size_t(floatIndex(s))][row];
    }
}

float MetricStore::rankAt(RankMetric m, int rank, qint64 row) const
{
    return d->rank[size_t(m)][size_t(rank)][row];
}

void MetricStore::rankRow(RankMetric m, qint64 row, float* out) const
{
    for (const RankColumn& column : d->rank[size_t(m)])
        *out++ = column[row];
}

void MetricStore::rankSamples(RankMetric m, int rank, qint64 from, qint64 to, qint64 stride, float* out) const
{
    Q_ASSERT(stride > 0);
    const RankColumn& column = d->rank[size_t(m)][size_t(rank)];
    to = std::min(to, column.size());
    for (qint64 row = from; row < to; row += std::max<qint64>(1, stride))
        *out++ = column[row];
}

bool MetricStore::startNextRankChunks(qint64 maxColumns)
{
    qint64 started = 0;
    for (auto& columns : d->rank)
        for (RankColumn& column : columns)
            if (started < maxColumns && column.startNextChunk())
                ++started;
    return started > 0;
}

double MetricStore::valueAt(const SeriesId& id, qint64 row) const
{
    return id.perRank ? double(rankAt(id.metric, id.rank, row)) : scalarAt(id.scalar, row);
}

bool MetricStore::hasRankMetric(RankMetric m) const
{
    if (int(m) < int(RankMetric::Mem))
        return rowCount() > 0;
    return d->presentUnion & (StepRecord::HasMem << (int(m) - int(RankMetric::Mem)));
}

std::vector<float> MetricStore::series(const SeriesId& id, qint64 fromRow, qint64 toRow) const
{
    if (toRow < 0 || toRow > rowCount())
        toRow = rowCount();
    std::vector<float> out;
    if (fromRow >= toRow)
        return out;
    out.reserve(size_t(toRow - fromRow));
    if (id.perRank) {
        if (id.rank < 0 || id.rank >= worldSize())
            return out;
        d->rank[size_t(id.metric)][size_t(id.rank)].forEachSpan(
            fromRow, toRow, [&](const float* p, qint64 n, qint64) { out.insert(out.end(), p, p + n); });
    } else if (floatIndex(id.scalar) >= 0) {
        d->scalars[size_t(floatIndex(id.scalar))].forEachSpan(
            fromRow, toRow, [&](const float* p, qint64 n, qint64) { out.insert(out.end(), p, p + n); });
    } else {
        for (qint64 r = fromRow; r < toRow; ++r)
            out.push_back(float(scalarAt(id.scalar, r)));
    }
    return out;
}

StepRecord MetricStore::stepRecord(qint64 row) const
{
    StepRecord s;
    s.step = d->steps[row];
    s.t = d->time[row];
    s.epoch = d->epoch[row];
    s.tokens = d->tokens[row];
    s.loss = scalarAt(Scalar::Loss, row);
    s.lr = scalarAt(Scalar::Lr, row);
    s.gradNorm = scalarAt(Scalar::GradNorm, row);
    s.tokensPerS = scalarAt(Scalar::TokensPerS, row);
    s.samplesPerS = scalarAt(Scalar::SamplesPerS, row);
    s.mfu = scalarAt(Scalar::Mfu, row);
    s.lossScale = scalarAt(Scalar::LossScale, row);
    if (!std::isnan(s.gradNorm))
        s.present |= StepRecord::HasGradNorm;
    if (!std::isnan(s.mfu))
        s.present |= StepRecord::HasMfu;
    if (!std::isnan(s.lossScale))
        s.present |= StepRecord::HasLossScale;
    const int n = worldSize();
    for (int m = 0; m < kRankMetricCount; ++m) {
        auto& vec = s.perRank[size_t(m)];
        vec.resize(size_t(n));
        bool any = false;
        for (int r = 0; r < n; ++r) {
            vec[size_t(r)] = d->rank[size_t(m)][size_t(r)][row];
            any = any || !std::isnan(vec[size_t(r)]);
        }
        if (m >= int(RankMetric::Mem) && any)
            s.present |= StepRecord::HasMem << (m - int(RankMetric::Mem));
    }
    return s;
}

namespace {

template <typename T> void minMaxSpan(const T* p, qint64 n, float& mn, float& mx, int& count)
{
    float lo = mn, hi = mx;
    int c = 0;
    for (qint64 i = 0; i < n; ++i) {
        const float v = float(p[i]);
        lo = v < lo ? v : lo; // NaN compares false: skipped
        hi = v > hi ? v : hi;
        c += (v == v);
    }
    mn = lo;
    mx = hi;
    count += c;
}

} // namespace

std::vector<MinMaxBucket> MetricStore::decimate(const SeriesId& id, qint64 fromStep, qint64 toStep, int buckets) const
{
    std::vector<MinMaxBucket> out;
    if (buckets <= 0 || fromStep > toStep || rowCount() == 0)
        return out;
    if (id.perRank && (id.rank < 0 || id.rank >= worldSize()))
        return out;
    const qint64 rowEnd = lowerBoundRow(toStep + 1);
    qint64 row = lowerBoundRow(fromStep);
    if (row >= rowEnd)
        return out;
    out.reserve(size_t(buckets));
    const double span = double(toStep - fromStep + 1);
    for (int b = 0; b < buckets && row < rowEnd; ++b) {
        const qint64 bucketEndStep = fromStep + qint64(std::floor(span * double(b + 1) / double(buckets)));
        // Rows whose step < bucketEndStep belong to bucket b.
        qint64 end = (b == buckets - 1) ? rowEnd : std::min(rowEnd, lowerBoundRow(bucketEndStep));
        if (end <= row)
            continue;
        MinMaxBucket mb;
        mb.firstStep = d->steps[row];
        mb.lastStep = d->steps[end - 1];
        float mn = std::numeric_limits<float>::infinity();
        float mx = -std::numeric_limits<float>::infinity();
        auto f = [&](const auto* p, qint64 n, qint64) { minMaxSpan(p, n, mn, mx, mb.count); };
        if (id.perRank)
            d->rank[size_t(id.metric)][size_t(id.rank)].forEachSpan(row, end, f);
        else if (floatIndex(id.scalar) >= 0)
            d->scalars[size_t(floatIndex(id.scalar))].forEachSpan(row, end, f);
        else if (id.scalar == Scalar::Time)
            d->time.forEachSpan(row, end, f);
        else if (id.scalar == Scalar::Epoch)
            d->epoch.forEachSpan(row, end, f);
        else
            d->tokens.forEachSpan(row, end, f);
        if (mb.count == 0) {
            mn = mx = kNaNf;
        } else if (mn > mx) { // only infinities of one sign... cannot happen, keep sane
            std::swap(mn, mx);
        }
        mb.min = mn;
        mb.max = mx;
        out.push_back(mb);
        row = end;
    }
    return out;
}

const QList<HelloRecord>& MetricStore::hellos() const
{
    return d->hellos;
}

std::optional<HelloRecord> MetricStore::hello() const
{
    if (d->hellos.isEmpty())
        return std::nullopt;
    return d->hellos.last();
}

QString MetricStore::hostOf(int rank) const
{
    if (d->hellos.isEmpty())
        return {};
    const auto& ranks = d->hellos.last().ranks;
    return rank >= 0 && rank < ranks.size() ? ranks[rank].host : QString();
}

double MetricStore::memTotalMbOf(int rank) const
{
    if (d->hellos.isEmpty())
        return kNaN;
    const auto& ranks = d->hellos.last().ranks;
    return rank >= 0 && rank < ranks.size() ? ranks[rank].memTotalMb : kNaN;
}

const QList<EvalRecord>& MetricStore::evals() const
{
    return d->evals;
}

const QList<CheckpointRecord>& MetricStore::checkpoints() const
{
    return d->checkpoints;
}

const QList<WarningRecord>& MetricStore::warnings() const
{
    return d->warnings;
}

const QList<ErrorRecord>& MetricStore::errors() const
{
    return d->errors;
}

std::optional<DoneRecord> MetricStore::done() const
{
    return d->done;
}

qint64 MetricStore::rewinds() const
{
    return d->rewinds;
}

qint64 MetricStore::issueCount() const
{
    return d->issueCount;
}

const QList<ParseIssue>& MetricStore::issues() const
{
    return d->issues;
}

qint64 MetricStore::memoryBytes() const
{
    qint64 b = d->steps.memoryBytes() + d->time.memoryBytes() + d->epoch.memoryBytes() + d->tokens.memoryBytes();
    for (const auto& c : d->scalars)
        b += c.memoryBytes();
    for (const auto& cols : d->rank)
        for (const auto& c : cols)
            b += c.memoryBytes();
    return b;
}

void MetricStore::onHello(const HelloRecord& r)
{
    d->hellos.append(r);
    d->ensureRanks(r.worldSize);
    d->done.reset(); // a resumed run is running again
}

void MetricStore::onStep(const StepRecord& r)
{
    // Resume rule: a step <= the last one held replaces it and everything after it.
    if (d->steps.size() && r.step <= d->steps[d->steps.size() - 1]) {
        d->truncate(lowerBoundRow(r.step));
        ++d->rewinds;
    }
    const int n = r.worldSize();
    d->ensureRanks(n);
    d->steps.append(r.step);
    d->time.append(r.t);
    d->epoch.append(qint32(r.epoch));
    d->tokens.append(r.tokens);
    d->scalars[0].append(float(r.loss));
    d->scalars[1].append(float(r.lr));
    d->scalars[2].append(float(r.gradNorm));
    d->scalars[3].append(float(r.tokensPerS));
    d->scalars[4].append(float(r.samplesPerS));
    d->scalars[5].append(float(r.mfu));
    d->scalars[6].append(float(r.lossScale));
    d->presentUnion |= r.present;
    for (int m = 0; m < kRankMetricCount; ++m) {
        auto& cols = d->rank[size_t(m)];
        const auto& vec = r.perRank[size_t(m)];
        for (size_t k = 0; k < cols.size(); ++k)
            cols[k].append(k < vec.size() ? vec[k] : kNaNf);
    }
    Q_UNUSED(kFloatScalarFirst);
    d->maybeSpill();
}

void MetricStore::setSpillPolicy(qint64 residentRows, qint64 spillAboveBytes, const QString& directory)
{
    d->residentRows = std::max<qint64>(0, residentRows);
    d->spillAboveBytes = spillAboveBytes;
    d->spillDirectory = directory;
}

qint64 MetricStore::spilledBytes() const
{
    return qint64(d->spilledChunks) * RankColumn::kChunk * qint64(sizeof(float)) * kRankMetricCount *
           qint64(d->rank[0].size());
}

QString MetricStore::spillError() const
{
    return d->spillError;
}

void MetricStore::onEval(const EvalRecord& r)
{
    while (!d->evals.isEmpty() && d->evals.last().step >= r.step)
        d->evals.removeLast();
    d->evals.append(r);
}

void MetricStore::onCheckpoint(const CheckpointRecord& r)
{
    d->checkpoints.append(r);
}

void MetricStore::onWarning(const WarningRecord& r)
{
    d->warnings.append(r);
}

void MetricStore::onError(const ErrorRecord& r)
{
    d->errors.append(r);
}

void MetricStore::onDone(const DoneRecord& r)
{
    d->done = r;
}

void MetricStore::onIssue(const ParseIssue& i)
{
    ++d->issueCount;
    if (d->issues.size() < MetricsParser::kMaxKeptIssues)
        d->issues.append(i);
}

Result<LoadReport> MetricStore::loadFile(const QString& path)
{
    LoadReport rep;
    clear();
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return Result<LoadReport>::failure(Diagnostic::error(
            path,
            QCoreApplication::translate("traindeck::metrics::MetricStore", "cannot open: %1").arg(f.errorString())));
    MetricsParser parser(this);
    parser.feed(&f);
    // A final line without newline may still be being written: leave it for the tailer.
    rep.offset = parser.offset();
    rep.lines = parser.lineNumber();
    rep.records = parser.stats().records;
    rep.malformed = parser.stats().malformed;
    rep.issues = parser.issues();
    return rep;
}

Status MetricStore::saveJsonl(const QString& path) const
{
    QSaveFile f(path);
    const auto cannotWrite = [&path, &f] {
        return Status::failure(Diagnostic::error(
            path,
            QCoreApplication::translate("traindeck::metrics::MetricStore", "cannot write: %1").arg(f.errorString())));
    };
    if (!f.open(QIODevice::WriteOnly))
        return cannotWrite();
    // Events in time order, merged with steps. Each hello goes before the first step after it.
    struct Event {
        double t;
        int order;
        QByteArray line;
    };
    std::vector<Event> events;
    int order = 0;
    for (const auto& r : d->hellos)
        events.push_back({r.t, order++, toJsonLine(r)});
    for (const auto& r : d->evals)
        events.push_back({r.t, order++, toJsonLine(r)});
    for (const auto& r : d->checkpoints)
        events.push_back({r.t, order++, toJsonLine(r)});
    for (const auto& r : d->warnings)
        events.push_back({r.t, order++, toJsonLine(r)});
    for (const auto& r : d->errors)
        events.push_back({r.t, order++, toJsonLine(r)});
    if (d->done)
        events.push_back({d->done->t, order++, toJsonLine(*d->done)});
    std::stable_sort(events.begin(), events.end(), [](const Event& a, const Event& b) { return a.t < b.t; });
    size_t e = 0;
    QByteArray buf;
    bool ok = true;
    for (qint64 row = 0; row < rowCount(); ++row) {
        const double t = d->time[row];
        while (e < events.size() && events[e].t <= t)
            buf.append(events[e++].line);
        appendStepLine(buf, stepRecord(row));
        if (buf.size() > (1 << 20)) {
            ok = ok && f.write(buf) == buf.size();
            buf.clear();
        }
    }
    while (e < events.size())
        buf.append(events[e++].line);
    ok = ok && f.write(buf) == buf.size();
    if (!ok || !f.commit())
        return cannotWrite();
    return Done{};
}

} // namespace traindeck::metrics
