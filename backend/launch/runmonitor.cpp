#include "launch/runmonitor.h"

#include "launch/ranklogs.h"

#include "launch/remoterun.h"
#include "launch/transport.h"

#include <QFile>
#include <QTimer>

namespace traindeck::launch {

using namespace traindeck::metrics;

namespace {
constexpr qint64 kStderrChunk = 4 << 20;

std::optional<FileChunk> chunkOf(const Result<FileChunk>& r)
{
    return r ? std::optional<FileChunk>(r.value()) : std::nullopt;
}

// Feeds the store and keeps the records of this read for the signal.
class Tee : public MetricsSink {
  public:
    MetricStore* store = nullptr;
    QList<Record> records;
    QList<ParseIssue> issues;
    qint64 emitFrom = 0;
    bool sawTelemetry = false;
    void onHello(const HelloRecord& r) override { add(r); }
    void onStep(const StepRecord& r) override { add(r); }
    void onEval(const EvalRecord& r) override { add(r); }
    void onCheckpoint(const CheckpointRecord& r) override { add(r); }
    void onWarning(const WarningRecord& r) override { add(r); }
    void onError(const ErrorRecord& r) override { add(r); }
    void onDone(const DoneRecord& r) override { add(r); }
    void onIssue(const ParseIssue& i) override
    {
        store->onIssue(i);
        if (i.offset >= emitFrom)
            issues.append(i);
    }

  private:
    template <typename R> void add(const R& r)
    {
        dispatch(Record(r), *store);
        if constexpr (std::is_same_v<R, HelloRecord> || std::is_same_v<R, StepRecord>)
            sawTelemetry = true;
        if (r.origin.offset >= emitFrom)
            records.append(Record(r));
    }
};
} // namespace

struct RunMonitor::Private {
    std::shared_ptr<Transport> transport;
    QString runDir;
    QTimer* timer = nullptr;
    qint64 maxBytes = 16 << 20;
    QString mirrorPath;
    QString recordDir;
    std::function<bool()> syncAtEnd;
    bool mirrorChecked = false; // the mirror was compared with the head's file (prefill done)
    bool mirrorFailed = false;  // a mirror write failed (full disk, not a file): mirroring stopped
    std::optional<JobState> knownFinalState;
    MetricStore store;
    Tee tee;
    MetricsParser parser;
    qint64 stderrOffset = 0;
    QByteArray stderrPartial;
    QStringList stderrTail;
    JobState state = JobState::Starting;
    RunFiles files;
    FailureInfo failure;
    bool endedEmitted = false;
    bool statePublished = false;
    QString publishedDetail; // Slurm's state and reason when stateChanged was last emitted
    bool started = false;
    QString lastError;
};

RunMonitor::RunMonitor(std::shared_ptr<Transport> transport, const QString& runDir, QObject* parent)
    : QObject(parent), d(std::make_unique<Private>())
{
    qRegisterMetaType<traindeck::metrics::Record>();
    qRegisterMetaType<QList<traindeck::metrics::Record>>();
    qRegisterMetaType<traindeck::metrics::ParseIssue>();
    qRegisterMetaType<traindeck::launch::JobState>();
    d->transport = std::move(transport);
    d->runDir = runDir;
    d->tee.store = &d->store;
    d->parser.setSink(&d->tee);
    d->timer = new QTimer(this);
    d->timer->setInterval(250);
    connect(d->timer, &QTimer::timeout, this, &RunMonitor::poll);
}

RunMonitor::~RunMonitor() = default;

QString RunMonitor::runDir() const
{
    return d->runDir;
}
void RunMonitor::setPollInterval(int ms)
{
    d->timer->setInterval(ms);
}
void RunMonitor::setMaxBytesPerPoll(qint64 bytes)
{
    d->maxBytes = qMax<qint64>(4096, bytes);
}
void RunMonitor::setMirrorPath(const QString& path)
{
    d->mirrorPath = path;
    d->mirrorChecked = false;
}
QString RunMonitor::mirrorPath() const
{
    return d->mirrorPath;
}

void RunMonitor::setRecordDir(const QString& recordDir, std::function<bool()> syncAtEnd)
{
    d->recordDir = recordDir;
    d->syncAtEnd = std::move(syncAtEnd);
    if (!recordDir.isEmpty())
        setMirrorPath(runFile(recordDir, runfile::kMetrics));
}

QString RunMonitor::recordDir() const
{
    return d->recordDir;
}
void RunMonitor::setKnownFinalState(JobState state)
{
    if (isFinal(state))
        d->knownFinalState = state;
}
std::shared_ptr<Transport> RunMonitor::transport() const
{
    return d->transport;
}
const MetricStore& RunMonitor::store() const
{
    return d->store;
}
QString RunMonitor::stateDetail() const
{
    return d->publishedDetail;
}

JobState RunMonitor::state() const
{
    return d->state;
}
RunFiles RunMonitor::files() const
{
    return d->files;
}
FailureInfo RunMonitor::failure() const
{
    return d->failure;
}
qint64 RunMonitor::metricsOffset() const
{
    return d->parser.offset();
}
qint64 RunMonitor::metricsLineNumber() const
{
    return d->parser.lineNumber();
}
qint64 RunMonitor::malformedLines() const
{
    return d->parser.stats().malformed;
}
QStringList RunMonitor::stderrTail() const
{
    return d->stderrTail;
}

void RunMonitor::start(qint64 emitFromOffset)
{
    d->tee.emitFrom = emitFromOffset;
    d->started = true;
    d->timer->start();
    QTimer::singleShot(0, this, &RunMonitor::poll);
}

void RunMonitor::stop()
{
    d->timer->stop();
}

void RunMonitor::consumeMetrics(const QByteArray& data)
{
    d->tee.records.clear();
    d->tee.issues.clear();
    d->parser.feed(data);
    const QList<Record> recs = d->tee.records;
    const QList<ParseIssue> issues = d->tee.issues;
    d->tee.records.clear();
    d->tee.issues.clear();
    for (const ParseIssue& i : issues)
        Q_EMIT malformedLine(i);
    if (!recs.isEmpty())
        Q_EMIT recordsReady(recs, d->parser.offset());
}

// The mirror holds exactly the bytes [0, N) of the head's file. Bytes are written at their own offset
// (never appended), so a mirror that already holds them (a reattach, a second follower, a sync) gets
// the same bytes again at the same place: no duplicates. A gap (the mirror was removed meanwhile) is
// filled from the head first.
void RunMonitor::writeMirror(qint64 at, const QByteArray& data)
{
    if (d->mirrorFailed)
        return;
    QFile m(d->mirrorPath);
    // Unbuffered: a failed write (a full disk) shows in write()'s result, not later in close().
    auto fail = [&] {
        // Once: monitoring goes on without the mirror.
        d->mirrorFailed = true;
        Q_EMIT errorOccurred(tr("cannot write the metrics mirror %1: %2").arg(d->mirrorPath, m.errorString()));
    };
    if (!m.open(QIODevice::ReadWrite | QIODevice::Unbuffered)) {
        fail();
        return;
    }
    const QString path = runFile(d->runDir, runfile::kMetrics);
    for (;;) {
        // Checked right before each write: another writer may have cut the mirror (a sync that found it
        // was no prefix) since the last look; writing past its end would leave a hole of zeros.
        const qint64 size = m.size();
        if (size >= at) {
            if (!m.seek(at) || m.write(data) != data.size())
                fail();
            return;
        }
        const Result<FileChunk> gap = d->transport->readFile(path, size, qMin(at - size, d->maxBytes));
        if (!gap || gap->data.isEmpty())
            return; // the next write tries again
        if (!m.seek(size) || m.write(gap->data) != gap->data.size()) {
            fail();
            return;
        }
    }
}

// Reattaching with a mirror: what the mirror holds is read from this machine, the head only sends the
// rest. The mirror is used when it can be a prefix of the head's file (mirrorIsPrefixOf: its size is
// taken before the head's).
void RunMonitor::prefillFromMirror()
{
    const QString path = runFile(d->runDir, runfile::kMetrics);
    QFile m(d->mirrorPath);
    const bool exists = m.exists();
    const qint64 mirrorBefore = exists ? m.size() : 0;
    const Result<FileChunk> head = d->transport->readFile(path, 0, 0);
    if (!head)
        return; // not there yet: try again on the next poll
    d->mirrorChecked = true;
    if (!exists)
        return;
    if (!mirrorIsPrefixOf(mirrorBefore, head->fileSize)) {
        // Not a prefix of this file (the head's file was replaced): start the mirror again.
        if (m.open(QIODevice::WriteOnly | QIODevice::Truncate))
            m.close();
        return;
    }
    if (!m.open(QIODevice::ReadOnly))
        return;
    while (!m.atEnd()) {
        const QByteArray chunk = m.read(d->maxBytes);
        if (chunk.isEmpty())
            break;
        consumeMetrics(chunk);
    }
}

void RunMonitor::readMetrics(const std::optional<FileChunk>* first)
{
    const QString path = runFile(d->runDir, runfile::kMetrics);
    if (!d->mirrorPath.isEmpty() && !d->mirrorChecked) {
        prefillFromMirror();
        if (!d->mirrorChecked)
            return;
    }
    for (int round = 0; round < 64; ++round) {
        const qint64 at = d->parser.offset() + d->parser.pendingBytes();
        const std::optional<FileChunk> c =
            round == 0 && first ? *first : chunkOf(d->transport->readFile(path, at, d->maxBytes));
        if (!c)
            return; // not there yet
        if (c->fileSize < d->parser.offset()) {
            Q_EMIT errorOccurred(tr("%1 became shorter than what was read; it was replaced or truncated").arg(path));
            return;
        }
        if (c->data.isEmpty())
            return;
        if (!d->mirrorPath.isEmpty())
            writeMirror(at, c->data);
        consumeMetrics(c->data);
        if (c->data.size() < d->maxBytes)
            return;
        // A full chunk: more may follow right away, but yield after one more round when polling live.
        if (round >= 1 && !isFinal(d->state))
            return;
    }
}

void RunMonitor::readStderr(const std::optional<FileChunk>* first)
{
    const QString path = runFile(d->runDir, runfile::kStderr);
    const std::optional<FileChunk> c =
        first ? *first : chunkOf(d->transport->readFile(path, d->stderrOffset, kStderrChunk));
    if (!c)
        return;
    if (c->fileSize < d->stderrOffset) { // a new attempt's log (resume)
        d->stderrOffset = 0;
        d->stderrPartial.clear();
        return;
    }
    if (c->data.isEmpty())
        return;
    d->stderrOffset += c->data.size();
    // Only the new bytes are searched for the last newline (the partial line before them has none), and
    // a line is at most kMaxLogLineBytes: a rank writing \r progress bars or binary output without a
    // newline grew this buffer by up to 4 MiB a poll, rescanned whole every time.
    QByteArray complete;
    bool any = false;
    if (const qsizetype nl = c->data.lastIndexOf('\n'); nl >= 0) {
        complete = d->stderrPartial + c->data.left(nl);
        d->stderrPartial = c->data.mid(nl + 1);
        any = true;
    } else {
        d->stderrPartial += c->data;
    }
    QStringList lines;
    auto addLine = [&](QByteArrayView l) {
        for (qsizetype at = 0; at == 0 || at < l.size(); at += kMaxLogLineBytes)
            lines.append(QString::fromUtf8(l.sliced(at, qMin(kMaxLogLineBytes, l.size() - at))));
    };
    if (any) {
        for (const QByteArray& l : complete.split('\n'))
            addLine(l);
    }
    while (d->stderrPartial.size() >= kMaxLogLineBytes) {
        addLine(QByteArrayView(d->stderrPartial).first(kMaxLogLineBytes));
        d->stderrPartial.remove(0, kMaxLogLineBytes);
    }
    if (lines.isEmpty())
        return;
    d->stderrTail += lines;
    if (d->stderrTail.size() > 50)
        d->stderrTail = d->stderrTail.mid(d->stderrTail.size() - 50);
    Q_EMIT stderrLines(lines);
}

void RunMonitor::computeFailure()
{
    // Up to the last MiB of each log: mpirun's messages are at the end, the failing rank's line near it.
    QByteArray text;
    for (const char* name : {runfile::kStderr, runfile::kStdout}) {
        const QString path = runFile(d->runDir, name);
        const Result<FileChunk> head = d->transport->readFile(path, 0, 0);
        if (!head)
            continue;
        const qint64 from = qMax<qint64>(0, head->fileSize - (1 << 20));
        const Result<FileChunk> c = d->transport->readFile(path, from, 1 << 20);
        if (c)
            text += c->data + '\n';
    }
    QStringList hosts;
    if (const auto h = d->store.hello()) {
        for (const RankInfo& r : h->ranks)
            hosts.append(r.host);
    }
    QStringList tail = d->stderrTail;
    if (tail.size() > 20)
        tail = tail.mid(tail.size() - 20);
    d->failure = attributeFailure(d->store.errors(), text, d->files.exitCode, hosts, tail);
}

void RunMonitor::publishState(JobState s)
{
    d->publishedDetail = d->files.detail();
    if (!d->recordDir.isEmpty())
        RemoteRuns::noteState(d->recordDir, s, d->publishedDetail); // a small local write
    Q_EMIT stateChanged(s);
}

void RunMonitor::poll()
{
    if (d->endedEmitted)
        return;
    // State first: what is read after it (metrics, logs) is at least as new as the state says. One request
    // for the state files and both followed files (over SSH: one command per poll).
    // Until the mirror was checked against the head's file (a reattach, or a run whose metrics are not
    // there yet), readMetrics() below does that first, after the state is published, in calls of its own.
    const bool followMetrics = d->mirrorPath.isEmpty() || d->mirrorChecked;
    QList<FileRead> tails{{runFile(d->runDir, runfile::kStderr), d->stderrOffset, kStderrChunk}};
    if (followMetrics)
        tails.append(
            {runFile(d->runDir, runfile::kMetrics), d->parser.offset() + d->parser.pendingBytes(), d->maxBytes});
    const RunDirPoll polled = pollRunDir(*d->transport, d->runDir, tails);
    d->files = polled.files;
    if (!d->statePublished) {
        // Observers hear the state before the first records.
        d->state = d->knownFinalState ? *d->knownFinalState
                                      : deriveState(d->files, d->tee.sawTelemetry || (d->files.exitCode.has_value()));
        d->statePublished = true;
        publishState(d->state);
    }
    if (followMetrics)
        readMetrics(&polled.tails.at(1));
    else
        readMetrics(); // the mirror's bytes first, then the rest from the head
    readStderr(&polled.tails.at(0));
    JobState s = d->knownFinalState ? *d->knownFinalState
                                    : deriveState(d->files, d->tee.sawTelemetry || d->store.rowCount() > 0);
    if (isFinal(s)) {
        // Read everything that was written before the end.
        readMetrics();
        readStderr();
        if (s == JobState::Failed || s == JobState::Lost || s == JobState::Cancelled)
            computeFailure();
    }
    if (s != d->state || !d->statePublished || d->files.detail() != d->publishedDetail) {
        d->state = s;
        d->statePublished = true;
        publishState(s);
    }
    if (isFinal(s) && !d->endedEmitted) {
        d->endedEmitted = true;
        d->timer->stop();
        if (!d->recordDir.isEmpty() && (!d->syncAtEnd || d->syncAtEnd())) {
            // The record becomes complete (logs, exit code): listed, watched and reported offline.
            const Result<JobState> synced = RemoteRuns::sync(*d->transport, d->runDir, d->recordDir);
            if (!synced)
                Q_EMIT errorOccurred(synced.errorString());
        }
        Q_EMIT ended(s);
    }
}

} // namespace traindeck::launch
