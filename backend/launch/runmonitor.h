// Follows one run directory through a Transport: tails metrics.jsonl from a byte offset into a
// MetricStore (every record exactly once, also across reattaching), tails stderr.log, tracks the job
// state and, when the run fails, attributes the failure. Poll-driven (a timer, or poll() directly), so
// the same code works locally and over SSH; the transport's calls block, so a GUI moves the monitor to
// a worker thread and receives its signals queued.
#pragma once

#include "launch/failure.h"
#include "launch/rundir.h"
#include "metrics/metricstore.h"
#include "metrics/parser.h"

#include <QObject>
#include <QStringList>

#include <functional>

#include <memory>

class QTimer;

namespace traindeck::launch {

class Transport;

class RunMonitor : public QObject {
    Q_OBJECT

  public:
    RunMonitor(std::shared_ptr<Transport> transport, const QString& runDir, QObject* parent = nullptr);
    ~RunMonitor() override;

    QString runDir() const;
    void setPollInterval(int ms); // default 250
    // Bytes of metrics read per poll at most (default 16 MiB); the rest follows on the next poll.
    void setMaxBytesPerPoll(qint64 bytes);
    // Keep a copy of every metrics byte read in this file (the local mirror of a remote run): the
    // mirror is byte-identical to the head's metrics.jsonl up to metricsOffset() (plus a partial last
    // line). A mirror that already holds a prefix (reattaching) is read from this machine first and
    // only the rest comes from the head; records from it are emitted like any others (subject to
    // start()'s emitFromOffset). Set before start().
    void setMirrorPath(const QString& path);
    QString mirrorPath() const;
    // Follows a remote run for its local record (remoterun.h): the record's metrics.jsonl is the
    // mirror, every state seen is noted in remote.json, and when the run ends the record is synced
    // (RemoteRuns::sync) before ended() is emitted; a failed sync is reported with errorOccurred().
    // syncAtEnd, when given, is asked at the end: false skips the sync (an application that is
    // quitting; the next start syncs). Set before start().
    void setRecordDir(const QString& recordDir, std::function<bool()> syncAtEnd = {});
    QString recordDir() const;
    std::shared_ptr<Transport> transport() const;
    // The run has ended in this state and its directory is a record read offline (a synced remote
    // run: remote.json's state, e.g. lost, which the copied files cannot tell). poll() reads what is
    // there and ends with this state. Ignored for a non-final state. Set before start().
    void setKnownFinalState(JobState state);

    // Starts polling. Records whose line starts before emitFromOffset go into the store without being
    // emitted (a watcher that resumes at the offset it printed last sees no duplicate and no gap).
    void start(qint64 emitFromOffset = 0);
    void stop();

    const metrics::MetricStore& store() const;
    JobState state() const;
    // Slurm runs: the scheduler's state and reason ("pending: Priority"); stateChanged() is emitted
    // again when only this changes. Empty for other runs.
    QString stateDetail() const;
    RunFiles files() const;
    // Set once the state is failed or lost (and for cancelled runs, what was seen).
    FailureInfo failure() const;
    qint64 metricsOffset() const; // resume offset: after the last complete line read
    qint64 metricsLineNumber() const;
    qint64 malformedLines() const;
    QStringList stderrTail() const; // the last 50 stderr lines

  public Q_SLOTS:
    // Reads what is new: metrics, stderr, state files. Emits the signals below.
    void poll();

  Q_SIGNALS:
    // New records, in file order, already in store().
    void recordsReady(const QList<traindeck::metrics::Record>& records, qint64 offsetAfter);
    void malformedLine(const traindeck::metrics::ParseIssue& issue);
    void stderrLines(const QStringList& lines);
    void stateChanged(traindeck::launch::JobState state);
    // Once, when the state becomes final (all metrics read first).
    void ended(traindeck::launch::JobState state);
    void errorOccurred(const QString& message);

  private:
    void publishState(JobState state);
    // first: what the poll's own request read already (pollRunDir), at the offset these would read from.
    void readMetrics(const std::optional<FileChunk>* first = nullptr);
    void consumeMetrics(const QByteArray& data);
    void writeMirror(qint64 at, const QByteArray& data);
    void prefillFromMirror();
    void readStderr(const std::optional<FileChunk>* first = nullptr);
    void computeFailure();

    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace traindeck::launch

Q_DECLARE_METATYPE(traindeck::launch::JobState)
