// Follows a growing local metrics.jsonl from a byte offset (QFileSystemWatcher + a polling timer as
// fallback for file systems without change notification) and emits the new records.
//
// Reattaching: save offset() and lineNumber() (and the world size, if resuming past the hello), call
// start(offset, line) later: every record is seen exactly once, none is skipped.
#pragma once

#include "metrics/parser.h"

#include <QObject>
#include <QString>

class QFileSystemWatcher;
class QTimer;

namespace traindeck::metrics {

class MetricsTailer : public QObject {
    Q_OBJECT

  public:
    explicit MetricsTailer(QObject* parent = nullptr);
    ~MetricsTailer() override;

    void setPath(const QString& path);
    QString path() const;
    // Fallback polling period (default 500 ms); change notifications trigger reads sooner.
    void setPollInterval(int ms);
    // Most bytes read per poll before yielding to the event loop (default 16 MiB).
    void setMaxBytesPerPoll(qint64 bytes);
    // Also deliver records directly to this sink (e.g. a MetricStore), before recordsReady.
    void setSink(MetricsSink* sink);
    // Ranks per step line when starting past the hello line (0: from hello / first step).
    void setWorldSize(int n);

    // Start following at a byte offset (the start of a line) with the number of lines before it.
    // A missing file is waited for. Returns false only if the path is empty.
    bool start(qint64 offset = 0, qint64 lineNumber = 0);
    void stop();
    bool isRunning() const;

    qint64 offset() const;     // resume offset (after the last complete line read)
    qint64 lineNumber() const; // lines before offset()
    const MetricsParser& parser() const;

  public Q_SLOTS:
    // Read whatever is new now. Called by the watcher and timer; tests may call it directly.
    void poll();

  Q_SIGNALS:
    void recordsReady(const QList<traindeck::metrics::Record>& records);
    void malformedLine(const traindeck::metrics::ParseIssue& issue);
    void offsetChanged(qint64 offset, qint64 lineNumber);
    // The file became shorter than what was read (replaced or truncated): reading restarts at 0.
    void fileReset();
    void errorOccurred(const QString& message);

  private:
    void rewatch();

    QString m_path;
    MetricsParser m_parser;
    // Collects a poll's records for the signal and forwards them to the user's sink.
    RecordCollector m_collector;
    QFileSystemWatcher* m_watcher = nullptr;
    QTimer* m_timer = nullptr;
    QTimer* m_more = nullptr;
    qint64 m_maxBytesPerPoll = 16 << 20;
    int m_worldSize = 0;
    bool m_running = false;
    bool m_inPoll = false;
    QString m_lastError;
};

} // namespace traindeck::metrics
