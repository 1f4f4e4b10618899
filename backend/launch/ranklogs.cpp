#include "launch/ranklogs.h"

#include "launch/rundir.h"
#include "launch/transport.h"

#include <QJsonArray>
#include <QRegularExpression>

#include <algorithm>

namespace traindeck::launch {

namespace {

// mpirun --tag-output: "[jobid,rank]<stdout|stderr|stddiag>:"
const QRegularExpression& tagRe()
{
    static const QRegularExpression re(QStringLiteral("\\[(\\d+),(\\d+)\\]<(?:stdout|stderr|stddiag)>:"));
    return re;
}

// The trainer names its rank and host in its own messages.
const QRegularExpression& trainerRe()
{
    static const QRegularExpression re(QStringLiteral("^traindeck-trainer: rank (\\d+) on ([^:\\s]+): "));
    return re;
}

// srun --label: the task number, right-aligned, then ": ".
const QRegularExpression& srunLabelRe()
{
    static const QRegularExpression re(QStringLiteral("^\\s*(\\d+): "));
    return re;
}

QString decode(QByteArray line)
{
    if (line.endsWith('\r'))
        line.chop(1);
    return QString::fromUtf8(line);
}

} // namespace

QString logStreamName(LogStream s)
{
    return s == LogStream::Stdout ? QStringLiteral("stdout") : QStringLiteral("stderr");
}

// ---- LogLineSplitter --------------------------------------------------------------------------

QList<LogLine> LogLineSplitter::feed(const QByteArray& data)
{
    QList<LogLine> out;
    // Only the new bytes are searched: the partial line before them holds no newline.
    qsizetype start = 0;
    // A line longer than kMaxLogLineBytes (\r progress bars, binary output) is cut into lines of that size.
    auto line = [&](const QByteArray& bytes) {
        for (qsizetype at = 0; at == 0 || at < bytes.size(); at += kMaxLogLineBytes)
            physicalLine(bytes.mid(at, kMaxLogLineBytes), out);
    };
    for (qsizetype nl = data.indexOf('\n'); nl >= 0; nl = data.indexOf('\n', start)) {
        m_partial += data.mid(start, nl - start);
        line(m_partial);
        m_partial.clear();
        start = nl + 1;
    }
    m_partial += data.mid(start);
    while (m_partial.size() >= kMaxLogLineBytes) {
        physicalLine(m_partial.left(kMaxLogLineBytes), out);
        m_partial.remove(0, kMaxLogLineBytes);
    }
    return out;
}

QList<LogLine> LogLineSplitter::finish()
{
    QList<LogLine> out;
    if (!m_partial.isEmpty()) {
        physicalLine(m_partial, out);
        m_partial.clear();
    }
    QList<int> ranks = m_pending.keys();
    std::sort(ranks.begin(), ranks.end());
    for (int r : ranks)
        out.append(LogLine{r, true, m_stream, m_pending.value(r)});
    m_pending.clear();
    return out;
}

void LogLineSplitter::physicalLine(const QByteArray& bytes, QList<LogLine>& out)
{
    const QString line = decode(bytes);
    if (m_srunLabels) {
        const QRegularExpressionMatch m = srunLabelRe().match(line);
        if (const int rank = m.hasMatch() ? rankFromText(m.capturedView(1)) : -1; rank >= 0)
            out.append(LogLine{rank, true, m_stream, line.mid(m.capturedEnd())});
        else
            out.append(LogLine{-1, false, m_stream, line}); // srun's own ("srun: error: ...")
        return;
    }
    if (line == QLatin1String(kSrunLabelMarker)) {
        m_srunLabels = true;
        out.append(LogLine{-1, false, m_stream, line});
        return;
    }
    QRegularExpressionMatchIterator it = tagRe().globalMatch(line);
    if (!it.hasNext()) {
        out.append(LogLine{-1, false, m_stream, line});
        return;
    }
    QRegularExpressionMatch m = it.next();
    // A tag whose rank is beyond any run's is not mpirun's: the whole line is plain text.
    for (QRegularExpressionMatchIterator check = tagRe().globalMatch(line); check.hasNext();) {
        if (rankFromText(check.next().capturedView(2)) < 0) {
            out.append(LogLine{-1, false, m_stream, line});
            return;
        }
    }
    if (m.capturedStart() > 0) // mpirun's text, then a rank's (rare: mpirun writes whole lines)
        out.append(LogLine{-1, false, m_stream, line.left(m.capturedStart())});
    while (true) {
        const int rank = rankFromText(m.capturedView(2));
        const bool last = !it.hasNext();
        const QRegularExpressionMatch next = last ? QRegularExpressionMatch() : it.next();
        const qsizetype end = last ? line.size() : next.capturedStart();
        const QString text = line.mid(m.capturedEnd(), end - m.capturedEnd());
        if (last) { // the end of the physical line ends this rank's line
            out.append(LogLine{rank, true, m_stream, m_pending.take(rank) + text});
            return;
        }
        m_pending[rank] += text; // another rank's output follows: this rank's line goes on later
        m = next;
    }
}

// ---- classification and labels ------------------------------------------------------------------

bool isErrorText(const QString& text)
{
    static const QRegularExpression re(
        QStringLiteral(
            "error|fatal|exception|abort|traceback|terminate called|segmentation fault|core dumped|"
            "\\bkilled\\b|exited on signal|lost communication|non-zero (?:exit|status)|\\bexit code\\b|what\\(\\)|"
            "^traindeck-trainer: rank \\d+ on "),
        QRegularExpression::CaseInsensitiveOption);
    return re.match(text).hasMatch();
}

QString rankRanges(const QList<int>& ranks)
{
    QStringList parts;
    for (qsizetype i = 0; i < ranks.size();) {
        qsizetype j = i;
        while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1)
            ++j;
        if (j == i)
            parts.append(QString::number(ranks[i]));
        else if (j == i + 1)
            parts << QString::number(ranks[i]) << QString::number(ranks[j]);
        else
            parts.append(QStringLiteral("%1\u2013%2").arg(ranks[i]).arg(ranks[j]));
        i = j + 1;
    }
    return parts.join(QLatin1Char(','));
}

// ---- RankLog ------------------------------------------------------------------------------------

void RankLog::setHostsByRank(const QStringList& hosts)
{
    for (qsizetype r = 0; r < hosts.size(); ++r) {
        if (hosts[r].isEmpty())
            continue;
        while (m_hosts.size() <= r)
            m_hosts.append(QString());
        m_hosts[r] = hosts[r];
    }
}

QStringList RankLog::hostsByRank() const
{
    return m_hosts;
}

QString RankLog::hostOf(int rank) const
{
    return rank >= 0 ? m_hosts.value(rank) : QString();
}

void RankLog::setFailure(const FailureInfo& failure)
{
    m_failure = failure;
    if (failure.known && failure.rank >= 0 && failure.rank <= kMaxRankInText && !failure.host.isEmpty() &&
        hostOf(failure.rank).isEmpty()) {
        QStringList h(failure.rank + 1);
        h[failure.rank] = failure.host;
        setHostsByRank(h);
    }
}

void RankLog::clear()
{
    *this = RankLog();
}

RankLog::Change RankLog::add(const QList<LogLine>& lines)
{
    Change c;
    c.firstNewGroup = m_groups.size();
    for (LogLine l : lines) {
        const qint64 index = m_lines++;
        if (!l.tagged && l.text == QLatin1String(kSrunLabelMarker))
            m_srun = true;
        if (l.tagged && !m_tagged) {
            m_tagged = true;
            c.taggedChanged = true;
        }
        const QRegularExpressionMatch t = trainerRe().match(l.text);
        if (t.hasMatch()) {
            // The trainer names rank and host: an old log's line gets its rank, the host fills a gap.
            // A rank beyond any run's leaves the line as it is: plain text, no host learnt.
            const int named = rankFromText(t.capturedView(1));
            if (!l.tagged && named >= 0)
                l.rank = named;
            if (named >= 0 && named == l.rank && hostOf(named).isEmpty()) {
                QStringList h(named + 1);
                h[named] = t.captured(2);
                setHostsByRank(h);
            }
        }
        if (l.rank >= 0) {
            const QString key = logStreamName(l.stream) + QLatin1Char(':') + l.text;
            const auto found = m_lastByText.constFind(key);
            if (found != m_lastByText.cend()) {
                LogGroup& g = m_groups[*found];
                if (!g.ranks.contains(l.rank) && index - g.firstLine < joinWindow()) {
                    g.ranks.insert(std::lower_bound(g.ranks.begin(), g.ranks.end(), l.rank), l.rank);
                    if (*found < c.firstNewGroup && !c.changedGroups.contains(*found))
                        c.changedGroups.append(*found);
                    continue;
                }
            }
            m_lastByText.insert(key, m_groups.size());
        }
        LogGroup g;
        if (l.rank >= 0)
            g.ranks = {l.rank};
        g.stream = l.stream;
        g.text = l.text;
        g.error = isErrorText(l.text);
        g.tagged = l.tagged;
        g.firstLine = index;
        m_groups.append(g);
    }
    return c;
}

RankLog::Change RankLog::addText(const QByteArray& data, LogStream stream)
{
    return add((stream == LogStream::Stdout ? m_out : m_err).feed(data));
}

RankLog::Change RankLog::finish()
{
    QList<LogLine> rest = m_err.finish();
    rest += m_out.finish();
    return add(rest);
}

Status RankLog::readFile(Transport& transport, const QString& runDir, const char* name, qint64 maxBytes,
                         bool* truncated)
{
    const QString path = runFile(runDir, name);
    const LogStream stream = QByteArray(name) == runfile::kStdout ? LogStream::Stdout : LogStream::Stderr;
    if (truncated)
        *truncated = false;
    if (!transport.exists(path))
        return Done{};
    const Result<FileChunk> head = transport.readFile(path, 0, 0);
    if (!head)
        return Status::failure(head.diagnostics());
    // One byte before the tail too: whether the tail starts with a whole line.
    const qint64 from = std::max<qint64>(0, head->fileSize - maxBytes - 1);
    const Result<FileChunk> c = transport.readFile(path, from, maxBytes + 1);
    if (!c)
        return Status::failure(c.diagnostics());
    QByteArray data = c->data;
    if (from > 0) {
        if (truncated)
            *truncated = true;
        data.remove(0, data.indexOf('\n') + 1); // up to the first whole line
    }
    addText(data, stream);
    return Done{};
}

Status RankLog::readRunLogs(Transport& transport, const QString& runDir, qint64 maxBytes, bool* truncated)
{
    clear();
    if (const Status s = readFile(transport, runDir, runfile::kStderr, maxBytes, truncated); !s)
        return s;
    (void)readFile(transport, runDir, runfile::kStdout, maxBytes); // mpirun writes little there, if anything
    finish();
    return Done{};
}

QString RankLog::launcherName() const
{
    return m_srun ? QStringLiteral("srun") : QStringLiteral("mpirun");
}

QString RankLog::label(const LogGroup& g) const
{
    if (g.ranks.isEmpty())
        return m_tagged ? launcherName() : QStringLiteral("?");
    if (g.ranks.size() == 1) {
        const QString host = hostOf(g.ranks.first());
        return host.isEmpty() ? tr("rank %1").arg(g.ranks.first())
                              : QStringLiteral("%1:%2").arg(host, QString::number(g.ranks.first()));
    }
    // Most of a large job with gaps inside: "ranks 0–1023 except 517" reads better than the ranges
    // around the gaps ("0–516,518–1023"); "ranks 1–7" stays as it is.
    const QString ranges = rankRanges(g.ranks);
    const int world = int(m_hosts.size());
    if (world >= 8 && ranges.contains(QLatin1Char(',')) && g.ranks.size() >= world - kMaxExceptions &&
        g.ranks.last() < world) {
        QList<int> missing;
        for (int r = 0, i = 0; r < world; ++r) {
            if (i < g.ranks.size() && g.ranks[i] == r)
                ++i;
            else
                missing.append(r);
        }
        return tr("ranks %1 except %2").arg(QStringLiteral("0\u2013%1").arg(world - 1), rankRanges(missing));
    }
    return tr("ranks %1").arg(ranges);
}

qint64 RankLog::joinWindow() const
{
    return std::max<qint64>(kJoinWindow, 2 * qint64(m_hosts.size()));
}

QStringList RankLog::hostsOf(const LogGroup& g) const
{
    QStringList hosts;
    for (int r : g.ranks) {
        const QString h = hostOf(r);
        if (!h.isEmpty() && !hosts.contains(h))
            hosts.append(h);
    }
    return hosts;
}

bool RankLog::matches(const LogGroup& g, const LogFilter& f) const
{
    if (f.errorsOnly && !g.error)
        return false;
    if (f.rank >= 0 && !g.ranks.contains(f.rank))
        return false;
    if (!f.host.isEmpty() && !hostsOf(g).contains(f.host))
        return false;
    return true;
}

qsizetype RankLog::firstErrorGroup() const
{
    if (!m_failure)
        return -1;
    const int rank = m_failure->known ? m_failure->rank : -1;
    if (rank >= 0 && m_failure->lostNode.isEmpty()) {
        for (qsizetype i = 0; i < m_groups.size(); ++i) {
            if (m_groups[i].error && m_groups[i].ranks.contains(rank))
                return i;
        }
    }
    // mpirun's message about that rank ("process rank 2 ... exited on signal 9"), else its first error.
    if (rank >= 0) {
        const QRegularExpression namesRank(QStringLiteral("\\brank %1\\b").arg(rank));
        for (qsizetype i = 0; i < m_groups.size(); ++i) {
            if (m_groups[i].error && m_groups[i].ranks.isEmpty() && namesRank.match(m_groups[i].text).hasMatch())
                return i;
        }
    }
    for (qsizetype i = 0; i < m_groups.size(); ++i) {
        if (m_groups[i].error && m_groups[i].ranks.isEmpty())
            return i;
    }
    return -1;
}

QJsonObject RankLog::toJson(const LogGroup& g) const
{
    QJsonArray ranks;
    for (int r : g.ranks)
        ranks.append(r);
    return QJsonObject{{QStringLiteral("type"), QStringLiteral("log")},
                       {QStringLiteral("label"), label(g)},
                       {QStringLiteral("ranks"), ranks},
                       {QStringLiteral("hosts"), QJsonArray::fromStringList(hostsOf(g))},
                       {QStringLiteral("origin"), g.ranks.isEmpty()
                                                      ? (m_tagged ? launcherName() : QStringLiteral("unknown"))
                                                      : QStringLiteral("rank")},
                       {QStringLiteral("stream"), logStreamName(g.stream)},
                       {QStringLiteral("text"), g.text},
                       {QStringLiteral("error"), g.error},
                       {QStringLiteral("line"), g.firstLine + 1}};
}

} // namespace traindeck::launch
