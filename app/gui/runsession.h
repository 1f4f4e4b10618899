// The run the Monitor shows: a MetricStore fed by a MetricsTailer following a live metrics.jsonl, or
// loaded from a finished run's file on a worker thread. Views listen to changed() and redraw on
// their own timer (coalesced), never per record.
#pragma once

#include "launch/failure.h"
#include "launch/ranklogs.h"
#include "launch/rundir.h"
#include "metrics/metricstore.h"
#include "metrics/tailer.h"

#include <QObject>
#include <QPointer>
#include <QString>

class QThread;

#include <memory>

namespace traindeck::launch {
class RunMonitor;
class Transport;
} // namespace traindeck::launch

namespace traindeck::runs {
class Operations;
} // namespace traindeck::runs

namespace traindeck::gui {

class RunSession : public QObject {
    Q_OBJECT

  public:
    enum class Mode { None, Live, Offline, Loading };
    Q_ENUM(Mode)

    // operations: how runs are located and followed (main() gives the SSH one; it is shared with the pages).
    explicit RunSession(std::shared_ptr<const runs::Operations> operations, QObject* parent = nullptr);
    ~RunSession() override;

    const std::shared_ptr<const runs::Operations>& operations() const { return m_operations; }
    metrics::MetricStore& store() { return *m_store; }
    // Shared ownership for background readers of a store that no longer changes (offline runs): a new run,
    // a reset or close() replaces the store, never changes the one handed out.
    std::shared_ptr<const metrics::MetricStore> storePointer() const { return m_store; }
    const metrics::MetricStore& store() const { return *m_store; }
    Mode mode() const { return m_mode; }
    QString path() const { return m_path; }
    QString title() const; // run id (from hello) or the file name
    // Increments whenever the store is replaced or truncated (views rebuild instead of appending).
    quint64 generation() const { return m_generation; }
    // Records and malformed lines received so far (live).
    qint64 recordCount() const { return m_records; }
    qint64 malformedCount() const { return m_store->issueCount(); }
    metrics::MetricsTailer* tailer() { return m_tailer; }

    // Follows a growing file from the start (or from offset/line when reattaching with a store that
    // already holds what came before).
    void follow(const QString& metricsPath, qint64 offset = 0, qint64 line = 0);
    // Loads a finished run's metrics.jsonl on a worker thread; loaded() or loadFailed() follow.
    void openOffline(const QString& metricsPath);
    // Loads a file on a worker thread and then follows it from the end of what was read.
    void openAndFollow(const QString& metricsPath);
    // Follows a run directory through a transport (local or SSH) with a launch::RunMonitor on a
    // worker thread: metrics, job state and, when it fails, which rank failed. recordDir: the local
    // record of a remote run (launch/remoterun.h): its metrics.jsonl is the mirror (read first when
    // reattaching, then extended), its state is noted, and it is synced when the run ends.
    void followRun(const QString& runDir, std::shared_ptr<launch::Transport> transport,
                   const QString& recordDir = QString());
    // A run directory or a remote run's record: local runs are followed at once; for a remote one the
    // transport is made (SSH connect) on a worker thread first, then followRun(); followFailed()
    // says why not when the head cannot be reached.
    void followRecord(const QString& localDir);
    QString runDir() const { return m_runDir; }
    QString recordDir() const { return m_recordDir; } // remote runs: the local record
    bool hasJob() const { return m_hasJob; }
    launch::JobState jobState() const { return m_jobState; }
    QString failureSummary() const { return m_failure; }
    // Which rank failed and how (failure.h), once the followed run ended failed, cancelled or lost.
    const launch::FailureInfo& failureInfo() const { return m_failureInfo; }
    // Appends records coming from elsewhere (tests, the benchmark); emits changed() later.
    void feed(const QList<metrics::Record>& records);
    void close();

    // Monitor threads of this process (RunSession::followRun) that have not been deleted yet: the
    // followed one and those left behind to finish a blocking transport call. GUI thread only. They are
    // registered with backgroundwork.h, which stops them and waits for them (bounded) at exit.
    static int monitorThreadCount();

  Q_SIGNALS:
    void changed(); // new records (coalesce!)
    void reset();   // the store was replaced or cleared
    void loaded(const QString& path);
    void loadFailed(const QString& path, const QString& message);
    void modeChanged(traindeck::gui::RunSession::Mode mode);
    void errorOccurred(const QString& message);
    void followFailed(const QString& localDir, const QString& message);
    void jobStateChanged(traindeck::launch::JobState state);
    void jobEnded(traindeck::launch::JobState state, const QString& failureSummary);
    // New lines of the followed run's stderr.log (from its start; the Monitor's Logs tab).
    void logLines(const QStringList& lines);
    // A file opened offline: the logs of its folder (stderr.log, stdout.log; their last 16 MiB each), read
    // and grouped on a worker thread. Emitted after reset(), and only where the folder has a log.
    void logRead(std::shared_ptr<const traindeck::launch::RankLog> log);

  private:
    std::shared_ptr<const runs::Operations> m_operations;
    void setMode(Mode m);
    void startLoad(const QString& path, bool followAfter);
    void stopMonitor();
    void newStore();

    std::shared_ptr<metrics::MetricStore> m_store;
    metrics::MetricsTailer* m_tailer = nullptr;
    Mode m_mode = Mode::None;
    QString m_path;
    quint64 m_generation = 0;
    quint64 m_loadTicket = 0;
    qint64 m_records = 0;
    // The followed run's monitor thread; a QPointer as background::stopAll() may delete it at exit.
    QPointer<QThread> m_monitorThread;
    launch::RunMonitor* m_monitor = nullptr; // lives on m_monitorThread; deleted when it finishes
    // Which monitor results apply: bumped by stopMonitor(); everything a monitor posts carries the
    // ticket of its followRun() and is dropped when it no longer matches (an old run's late end).
    quint64 m_monitorTicket = 0;
    QString m_runDir;
    QString m_recordDir;
    bool m_hasJob = false;
    launch::JobState m_jobState = launch::JobState::Starting;
    QString m_failure;
    launch::FailureInfo m_failureInfo;
};

} // namespace traindeck::gui
