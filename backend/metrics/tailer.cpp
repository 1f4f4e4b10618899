#include "metrics/tailer.h"

#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>
#include <QFileSystemWatcher>
#include <QTimer>

namespace traindeck::metrics {

MetricsTailer::MetricsTailer(QObject* parent)
    : QObject(parent), m_watcher(new QFileSystemWatcher(this)), m_timer(new QTimer(this)), m_more(new QTimer(this))
{
    qRegisterMetaType<traindeck::metrics::Record>();
    qRegisterMetaType<traindeck::metrics::ParseIssue>();
    m_parser.setSink(&m_collector);
    m_timer->setInterval(500);
    m_more->setSingleShot(true);
    m_more->setInterval(0);
    connect(m_timer, &QTimer::timeout, this, &MetricsTailer::poll);
    connect(m_more, &QTimer::timeout, this, &MetricsTailer::poll);
    connect(m_watcher, &QFileSystemWatcher::fileChanged, this, [this] {
        rewatch();
        poll();
    });
    connect(m_watcher, &QFileSystemWatcher::directoryChanged, this, [this] {
        rewatch();
        poll();
    });
}

MetricsTailer::~MetricsTailer() = default;

void MetricsTailer::setPath(const QString& path)
{
    m_path = path;
}

QString MetricsTailer::path() const
{
    return m_path;
}

void MetricsTailer::setPollInterval(int ms)
{
    m_timer->setInterval(ms);
}

void MetricsTailer::setMaxBytesPerPoll(qint64 bytes)
{
    m_maxBytesPerPoll = bytes > 0 ? bytes : (16 << 20);
}

void MetricsTailer::setSink(MetricsSink* sink)
{
    m_collector.next = sink;
}

void MetricsTailer::setWorldSize(int n)
{
    m_worldSize = n;
}

bool MetricsTailer::start(qint64 offset, qint64 lineNumber)
{
    if (m_path.isEmpty())
        return false;
    m_parser.reset(offset, lineNumber);
    m_parser.setWorldSize(m_worldSize);
    m_lastError.clear();
    m_running = true;
    rewatch();
    m_timer->start();
    poll();
    return true;
}

void MetricsTailer::stop()
{
    m_running = false;
    m_timer->stop();
    m_more->stop();
    if (!m_watcher->files().isEmpty())
        m_watcher->removePaths(m_watcher->files());
    if (!m_watcher->directories().isEmpty())
        m_watcher->removePaths(m_watcher->directories());
}

bool MetricsTailer::isRunning() const
{
    return m_running;
}

qint64 MetricsTailer::offset() const
{
    return m_parser.offset();
}

qint64 MetricsTailer::lineNumber() const
{
    return m_parser.lineNumber();
}

const MetricsParser& MetricsTailer::parser() const
{
    return m_parser;
}

void MetricsTailer::rewatch()
{
    if (!m_running)
        return;
    // Watch the file once it exists, and its directory (creation, replacement).
    if (QFileInfo::exists(m_path) && !m_watcher->files().contains(m_path))
        m_watcher->addPath(m_path);
    const QString dir = QFileInfo(m_path).absolutePath();
    if (QFileInfo::exists(dir) && !m_watcher->directories().contains(dir))
        m_watcher->addPath(dir);
}

void MetricsTailer::poll()
{
    if (!m_running || m_inPoll)
        return;
    m_inPoll = true;
    QFile f(m_path);
    if (!f.open(QIODevice::ReadOnly)) {
        // Not there yet (the run is starting) or unreadable: report a change of state once.
        const QString msg = QCoreApplication::translate("traindeck::metrics::MetricsTailer", "cannot read %1: %2")
                                .arg(m_path, f.errorString());
        if (QFileInfo::exists(m_path) && msg != m_lastError) {
            m_lastError = msg;
            Q_EMIT errorOccurred(msg);
        }
        m_inPoll = false;
        return;
    }
    m_lastError.clear();
    qint64 readPos = m_parser.offset() + m_parser.pendingBytes();
    if (f.size() < readPos) {
        // Replaced or truncated: the offset means nothing any more.
        m_parser.reset(0, 0);
        m_parser.setWorldSize(m_worldSize);
        readPos = 0;
        Q_EMIT fileReset();
    }
    const qint64 before = m_parser.offset();
    bool more = false;
    if (f.size() > readPos && f.seek(readPos)) {
        constexpr qint64 kChunk = 1 << 20;
        QByteArray chunk;
        qint64 done = 0;
        while (done < m_maxBytesPerPoll) {
            chunk = f.read(std::min(kChunk, m_maxBytesPerPoll - done));
            if (chunk.isEmpty())
                break;
            done += chunk.size();
            m_parser.feed(chunk);
        }
        more = done >= m_maxBytesPerPoll && f.size() > f.pos();
    }
    f.close();
    m_inPoll = false;

    if (!m_collector.issues.isEmpty()) {
        const QList<ParseIssue> issues = std::exchange(m_collector.issues, {});
        for (const ParseIssue& i : issues)
            Q_EMIT malformedLine(i);
    }
    if (!m_collector.records.isEmpty()) {
        const QList<Record> records = std::exchange(m_collector.records, {});
        Q_EMIT recordsReady(records);
    }
    if (m_parser.offset() != before)
        Q_EMIT offsetChanged(m_parser.offset(), m_parser.lineNumber());
    if (more && m_running)
        m_more->start();
}

} // namespace traindeck::metrics
