#include "runsession.h"

#include "backgroundwork.h"
#include "launch/remoterun.h"
#include "launch/runmonitor.h"
#include "launch/transport.h"
#include "runs/operations.h"

#include <QFileInfo>
#include <QPointer>
#include <QThread>
#include <QTimer>

namespace traindeck::gui {

using metrics::MetricStore;

// Stopping to follow a run never waits for its monitor thread: that thread is often inside a blocking
// transport call (SSH: a read with a 60 s timeout, the process-group check, the end-of-run sync), and
// destroying a QThread that still runs is fatal in Qt 6. stopMonitor() tells the monitor to stop, quits
// the thread's event loop and leaves the thread: once the call returns it finishes and deletes itself
// and its monitor (QThread::finished -> deleteLater), whatever happened to the session meanwhile.
// Monitor threads (and this file's other worker threads) are registered with backgroundwork.h: at
// application exit they are stopped and waited for a bounded time, one still stuck is left running,
// never destroyed (a remote run's record that was not synced yet keeps its last non-final state, and
// the Runs page syncs it at the next start).
static const QString kMonitorThreadName = QStringLiteral("RunMonitor");

RunSession::RunSession(std::shared_ptr<const runs::Operations> operations, QObject* parent)
    : QObject(parent), m_operations(std::move(operations)), m_store(std::make_shared<MetricStore>()),
      m_tailer(new metrics::MetricsTailer(this))
{
    m_tailer->setSink(m_store.get());
    connect(m_tailer, &metrics::MetricsTailer::recordsReady, this, [this](const QList<metrics::Record>& records) {
        m_records += records.size();
        Q_EMIT changed();
    });
    connect(m_tailer, &metrics::MetricsTailer::fileReset, this, [this] {
        newStore();
        ++m_generation;
        Q_EMIT reset();
    });
    connect(m_tailer, &metrics::MetricsTailer::errorOccurred, this, &RunSession::errorOccurred);
}

RunSession::~RunSession()
{
    m_tailer->stop();
    stopMonitor();
}

int RunSession::monitorThreadCount()
{
    return background::threadCount(kMonitorThreadName);
}

// Returns at once (see above): the GUI thread never waits for a transport call.
void RunSession::stopMonitor()
{
    ++m_monitorTicket; // whatever the old monitor still posts (records, state, its end) is dropped
    if (m_monitorThread) {
        // The monitor is alive until its thread was told to stop (it is deleted when the thread ends).
        if (!background::isStopping(m_monitorThread)) {
            QObject::disconnect(m_monitor, nullptr, this, nullptr);
            background::stop(m_monitorThread);
        }
        m_monitorThread->setParent(nullptr); // detached: deletes itself when it finishes
    }
    m_monitorThread = nullptr;
    m_monitor = nullptr;
}

void RunSession::followRecord(const QString& localDir)
{
    if (!launch::isRemoteRecord(localDir)) {
        followRun(localDir, std::make_shared<launch::LocalTransport>());
        return;
    }
    ++m_loadTicket;
    m_tailer->stop();
    stopMonitor();
    m_hasJob = false;
    m_path = launch::runFile(localDir, launch::runfile::kMetrics);
    const quint64 ticket = m_loadTicket;
    setMode(Mode::Loading);
    QPointer<RunSession> self(this);
    background::start(
        [self, operations = m_operations, localDir, ticket] {
            // SSH connect: never on the GUI thread.
            auto loc = std::make_shared<Result<launch::RunLocation>>(operations->locate(localDir, false));
            // The monitor's thread opens its own session; this thread's one would idle until the run is closed.
            if (loc->ok())
                loc->value().transport->releaseCallingThread();
            background::post([self, loc, localDir, ticket] {
                if (!self || self->m_loadTicket != ticket)
                    return;
                if (!loc->ok()) {
                    self->setMode(Mode::None);
                    Q_EMIT self->followFailed(localDir, loc->errorString());
                    return;
                }
                self->followRun(loc->value().runDir, loc->value().transport, localDir);
            });
        },
        QStringLiteral("RunLocate"));
}

void RunSession::followRun(const QString& runDir, std::shared_ptr<launch::Transport> transport,
                           const QString& recordDir)
{
    ++m_loadTicket;
    m_tailer->stop();
    stopMonitor();
    newStore();
    m_records = 0;
    ++m_generation;
    m_runDir = runDir;
    m_recordDir = recordDir;
    m_path = launch::runFile(recordDir.isEmpty() ? runDir : recordDir, launch::runfile::kMetrics);
    m_hasJob = true;
    m_jobState = launch::JobState::Starting;
    m_failure.clear();
    m_failureInfo = launch::FailureInfo();
    m_monitorThread = new QThread(this);
    m_monitorThread->setObjectName(kMonitorThreadName);
    launch::RunLocation location;
    location.transport = std::move(transport);
    location.runDir = runDir;
    location.localDir = recordDir.isEmpty() ? runDir : recordDir;
    location.remote = !recordDir.isEmpty();
    // The monitor keeps a remote run's record; not its end-of-run sync when quitting: that may not
    // finish before the process exits (the next start syncs it).
    m_monitor = runs::Operations::monitor(location, [] { return !background::quitting(); }).release();
    m_monitor->moveToThread(m_monitorThread);
    launch::RunMonitor* mon = m_monitor;
    // Told to stop by stopMonitor() or at exit; the monitor is alive until then.
    background::adopt(m_monitorThread, [mon] {
        QMetaObject::invokeMethod(
            mon, [mon] { mon->stop(); }, Qt::QueuedConnection);
    });
    connect(m_monitorThread, &QThread::started, mon, [mon] { mon->start(0); });
    connect(m_monitorThread, &QThread::finished, mon, &QObject::deleteLater);
    connect(m_monitorThread, &QThread::finished, m_monitorThread, &QObject::deleteLater);
    // Results are queued to this thread; each carries this follow's ticket, as a result posted just
    // before stopMonitor() is still delivered after it (to the next run otherwise).
    const quint64 ticket = m_monitorTicket;
    connect(
        mon, &launch::RunMonitor::recordsReady, this,
        [this, ticket](const QList<metrics::Record>& records, qint64) {
            if (ticket != m_monitorTicket)
                return;
            for (const auto& r : records)
                metrics::dispatch(r, *m_store);
            m_records += records.size();
            Q_EMIT changed();
        },
        Qt::QueuedConnection);
    connect(
        mon, &launch::RunMonitor::stateChanged, this,
        [this, ticket](launch::JobState s) {
            if (ticket != m_monitorTicket)
                return;
            m_jobState = s;
            Q_EMIT jobStateChanged(s);
        },
        Qt::QueuedConnection);
    connect(
        mon, &launch::RunMonitor::errorOccurred, this,
        [this, ticket](const QString& message) {
            if (ticket == m_monitorTicket)
                Q_EMIT errorOccurred(message);
        },
        Qt::QueuedConnection);
    connect(
        mon, &launch::RunMonitor::stderrLines, this,
        [this, ticket](const QStringList& lines) {
            if (ticket == m_monitorTicket)
                Q_EMIT logLines(lines);
        },
        Qt::QueuedConnection);
    // The failure is read on the monitor's thread, then handed over. This connection's context is the
    // monitor (it runs there), so stopMonitor() does not cut it: the ticket check drops an old run's end.
    QPointer<RunSession> self(this);
    connect(
        mon, &launch::RunMonitor::ended, mon,
        [mon, self, ticket](launch::JobState s) {
            const launch::FailureInfo failure = mon->failure();
            const QString summary = failure.known || !failure.message.isEmpty() ? failure.summary() : QString();
            background::post([self, s, summary, failure, ticket] {
                if (!self || self->m_monitorTicket != ticket)
                    return;
                self->m_jobState = s;
                self->m_failure = summary;
                self->m_failureInfo = failure;
                Q_EMIT self->jobStateChanged(s);
                Q_EMIT self->jobEnded(s, summary);
            });
        },
        Qt::DirectConnection);
    m_monitorThread->start();
    setMode(Mode::Live);
    Q_EMIT reset();
}

QString RunSession::title() const
{
    if (const auto hello = m_store->hello(); hello && !hello->runId.isEmpty())
        return hello->runId;
    return m_path.isEmpty() ? QString() : QFileInfo(QFileInfo(m_path).path()).fileName();
}

void RunSession::setMode(Mode m)
{
    if (m_mode == m)
        return;
    m_mode = m;
    Q_EMIT modeChanged(m);
}

void RunSession::follow(const QString& metricsPath, qint64 offset, qint64 line)
{
    m_recordDir.clear();
    ++m_loadTicket; // a pending load no longer applies
    m_tailer->stop();
    stopMonitor();
    m_hasJob = false;
    if (offset == 0) {
        newStore();
        m_records = 0;
    }
    ++m_generation;
    m_path = metricsPath;
    m_tailer->setPath(metricsPath);
    if (offset > 0 && m_store->worldSize() > 0)
        m_tailer->setWorldSize(m_store->worldSize());
    m_tailer->start(offset, line);
    setMode(Mode::Live);
    Q_EMIT reset();
}

void RunSession::openOffline(const QString& metricsPath)
{
    startLoad(metricsPath, false);
}
void RunSession::openAndFollow(const QString& metricsPath)
{
    startLoad(metricsPath, true);
}

void RunSession::startLoad(const QString& path, bool followAfter)
{
    m_tailer->stop();
    stopMonitor();
    m_hasJob = false;
    m_path = path;
    const quint64 ticket = ++m_loadTicket;
    setMode(Mode::Loading);
    QPointer<RunSession> self(this);
    background::start(
        [self, path, followAfter, ticket] {
            auto store = std::make_shared<MetricStore>();
            const Result<metrics::LoadReport> loaded = store->loadFile(path);
            const metrics::LoadReport report = loaded ? loaded.value() : metrics::LoadReport{};
            const QString error = loaded ? QString() : loaded.firstError().toString();
            // A finished run's logs beside it (a followed run's come from its monitor as they grow).
            std::shared_ptr<launch::RankLog> log;
            if (!followAfter && loaded) {
                launch::LocalTransport local;
                const QString dir = QFileInfo(path).absolutePath();
                auto read = std::make_shared<launch::RankLog>();
                if (read->readRunLogs(local, dir) && read->lineCount() > 0) {
                    QStringList hosts;
                    for (int k = 0; k < store->worldSize(); ++k)
                        hosts.append(store->hostOf(k));
                    read->setHostsByRank(hosts);
                    log = std::move(read);
                }
            }
            // Back to the GUI thread with the result; dropped when the session moved on meanwhile.
            background::post([self, store, report, error, path, followAfter, ticket, log]() mutable {
                if (!self || self->m_loadTicket != ticket)
                    return;
                if (!error.isEmpty() && !followAfter) {
                    self->setMode(Mode::None);
                    Q_EMIT self->loadFailed(path, error);
                    return;
                }
                self->m_store = std::move(store);
                self->m_tailer->setSink(self->m_store.get());
                self->m_records = report.records;
                ++self->m_generation;
                if (followAfter) {
                    self->m_tailer->setPath(path);
                    if (self->m_store->worldSize() > 0)
                        self->m_tailer->setWorldSize(self->m_store->worldSize());
                    self->m_tailer->start(report.offset, report.lines); // 0, 0 when the file could not be read
                    self->setMode(Mode::Live);
                } else {
                    self->setMode(Mode::Offline);
                }
                Q_EMIT self->reset();
                if (log)
                    Q_EMIT self->logRead(log);
                Q_EMIT self->loaded(path);
            });
        },
        QStringLiteral("RunLoad"), QThread::LowPriority);
}

void RunSession::feed(const QList<metrics::Record>& records)
{
    for (const auto& r : records)
        metrics::dispatch(r, *m_store);
    m_records += records.size();
    if (m_mode == Mode::None)
        setMode(Mode::Live);
    Q_EMIT changed();
}

// A new store rather than clearing this one: a worker thread may still read it (an offline run's analysis holds
// it through storePointer()), and clearing frees what that reader reads.
void RunSession::newStore()
{
    m_store = std::make_shared<MetricStore>();
    m_tailer->setSink(m_store.get());
}

void RunSession::close()
{
    ++m_loadTicket;
    m_tailer->stop();
    stopMonitor();
    m_hasJob = false;
    newStore();
    m_path.clear();
    m_records = 0;
    ++m_generation;
    setMode(Mode::None);
    Q_EMIT reset();
}

} // namespace traindeck::gui
