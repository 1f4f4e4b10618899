#include "launch/ranklogmodel.h"

#include <algorithm>

namespace traindeck::launch {

RankLogModel::RankLogModel(QObject* parent) : QAbstractTableModel(parent) {}

void RankLogModel::appendText(const QByteArray& data, LogStream stream)
{
    apply(m_log.addText(data, stream));
}

void RankLogModel::appendLines(const QStringList& lines, LogStream stream)
{
    QByteArray data;
    for (const QString& l : lines)
        data += l.toUtf8() + '\n';
    appendText(data, stream);
}

void RankLogModel::finish()
{
    apply(m_log.finish());
}

void RankLogModel::setLog(RankLog log)
{
    m_log = std::move(log);
    rebuild();
}

void RankLogModel::setHostsByRank(const QStringList& hosts)
{
    if (hosts == m_log.hostsByRank().mid(0, hosts.size()))
        return;
    m_log.setHostsByRank(hosts);
    rebuild(); // labels change, and which rows a host filter shows
}

void RankLogModel::setFailure(const FailureInfo& failure)
{
    m_log.setFailure(failure);
    rebuild();
}

void RankLogModel::clear()
{
    beginResetModel();
    m_log.clear();
    m_rows.clear();
    m_firstError = -1;
    endResetModel();
    Q_EMIT firstErrorChanged();
}

void RankLogModel::setFilter(const LogFilter& filter)
{
    m_filter = filter;
    rebuild();
}

void RankLogModel::rebuild()
{
    beginResetModel();
    m_rows.clear();
    const QList<LogGroup>& groups = m_log.groups();
    for (qsizetype i = 0; i < groups.size(); ++i) {
        if (m_log.matches(groups[i], m_filter))
            m_rows.append(i);
    }
    m_firstError = m_log.firstErrorGroup();
    endResetModel();
    Q_EMIT firstErrorChanged();
}

void RankLogModel::apply(const RankLog::Change& change)
{
    const QList<LogGroup>& groups = m_log.groups();
    // Older groups that gained a rank: shown already (their label changed) or shown from now on.
    for (qsizetype g : change.changedGroups) {
        const auto it = std::lower_bound(m_rows.begin(), m_rows.end(), g);
        const int row = int(it - m_rows.begin());
        if (it != m_rows.end() && *it == g) {
            Q_EMIT dataChanged(index(row, 0), index(row, ColumnCount - 1));
        } else if (m_log.matches(groups[g], m_filter)) {
            beginInsertRows(QModelIndex(), row, row);
            m_rows.insert(row, g);
            endInsertRows();
        }
    }
    QList<qsizetype> added;
    for (qsizetype g = change.firstNewGroup; g < groups.size(); ++g) {
        if (m_log.matches(groups[g], m_filter))
            added.append(g);
    }
    if (!added.isEmpty()) {
        beginInsertRows(QModelIndex(), int(m_rows.size()), int(m_rows.size() + added.size() - 1));
        m_rows += added;
        endInsertRows();
    }
    if (change.taggedChanged && !m_rows.isEmpty()) // untagged lines are mpirun's from now on
        Q_EMIT dataChanged(index(0, SourceColumn), index(int(m_rows.size()) - 1, SourceColumn));
    const qsizetype first = m_log.firstErrorGroup();
    if (first != m_firstError) {
        m_firstError = first;
        Q_EMIT firstErrorChanged();
    }
}

int RankLogModel::firstErrorRow() const
{
    if (m_firstError < 0)
        return -1;
    const auto it = std::lower_bound(m_rows.begin(), m_rows.end(), m_firstError);
    return it != m_rows.end() && *it == m_firstError ? int(it - m_rows.begin()) : -1;
}

const LogGroup& RankLogModel::groupAt(int row) const
{
    return m_log.groups()[m_rows[row]];
}

int RankLogModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int RankLogModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RankLogModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const LogGroup& g = groupAt(index.row());
    switch (role) {
    case Qt::DisplayRole: return index.column() == SourceColumn ? m_log.label(g) : g.text;
    case Qt::ToolTipRole: {
        QString tip = tr("%1, line %2").arg(logStreamName(g.stream)).arg(g.firstLine + 1);
        if (g.ranks.size() > 1)
            tip += QLatin1Char('\n') +
                   tr("ranks %1 on %2").arg(rankRanges(g.ranks), m_log.hostsOf(g).join(QStringLiteral(", ")));
        return tip;
    }
    case ErrorRole: return g.error;
    case FirstErrorRole: return m_rows[index.row()] == m_firstError;
    case RanksRole: return QVariant::fromValue(g.ranks);
    case LineRole: return g.firstLine + 1;
    default: return {};
    }
}

QVariant RankLogModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case SourceColumn: return tr("Source");
    case TextColumn: return tr("Message");
    default: return {};
    }
}

} // namespace traindeck::launch
