#include "checksmodel.h"

#include <QFont>

#include <algorithm>

namespace traindeck::gui {

using checks::CheckReport;
using checks::CheckResult;
using checks::CheckStatus;

CheckResultsModel::CheckResultsModel(QObject* parent) : QAbstractTableModel(parent) {}

QString CheckResultsModel::statusText(CheckStatus s)
{
    switch (s) {
    case CheckStatus::Pass: return tr("✓ pass");
    case CheckStatus::Warn: return tr("! warn");
    case CheckStatus::Fail: return tr("✗ fail");
    case CheckStatus::Skip: break;
    }
    return tr("– skip");
}

QColor CheckResultsModel::statusColor(CheckStatus s)
{
    switch (s) {
    case CheckStatus::Pass: return QColor(0x1b, 0x5e, 0x20);
    case CheckStatus::Warn: return QColor(0x8a, 0x4b, 0x00);
    case CheckStatus::Fail: return QColor(0xb7, 0x1c, 0x1c);
    case CheckStatus::Skip: break;
    }
    return QColor(0x61, 0x61, 0x61);
}

QColor CheckResultsModel::statusBackground(CheckStatus s)
{
    switch (s) {
    case CheckStatus::Pass: return QColor(0xe8, 0xf5, 0xe9);
    case CheckStatus::Warn: return QColor(0xff, 0xf3, 0xe0);
    case CheckStatus::Fail: return QColor(0xff, 0xeb, 0xee);
    case CheckStatus::Skip: break;
    }
    return QColor(0xf2, 0xf2, 0xf2);
}

void CheckResultsModel::setLayout(const QStringList& nodes, const QStringList& checkIds)
{
    beginResetModel();
    m_nodes = nodes;
    m_ids = checkIds;
    m_results.clear();
    m_has.clear();
    m_done = QList<bool>(m_nodes.size(), false);
    for (int i = 0; i < m_nodes.size(); ++i) {
        m_results.append(QList<CheckResult>(m_ids.size()));
        m_has.append(QList<bool>(m_ids.size(), false));
    }
    endResetModel();
}

void CheckResultsModel::setNodeNames(const QStringList& nodes)
{
    if (nodes.size() != m_nodes.size() || nodes == m_nodes)
        return;
    m_nodes = nodes;
    Q_EMIT headerDataChanged(Qt::Vertical, 0, int(m_nodes.size()) - 1);
}

void CheckResultsModel::setResult(int node, const CheckResult& result)
{
    if (node < 0 || node >= m_nodes.size())
        return;
    int col = int(m_ids.indexOf(result.id));
    if (col < 0) {
        col = int(m_ids.size());
        beginInsertColumns(QModelIndex(), col, col);
        m_ids.append(result.id);
        for (int i = 0; i < m_nodes.size(); ++i) {
            m_results[i].append(CheckResult());
            m_has[i].append(false);
        }
        endInsertColumns();
    }
    m_results[node][col] = result;
    m_has[node][col] = true;
    const QModelIndex idx = index(node, col);
    Q_EMIT dataChanged(idx, idx);
}

void CheckResultsModel::setNodeDone(int node)
{
    if (node < 0 || node >= m_nodes.size() || m_done.at(node))
        return;
    m_done[node] = true;
    if (!m_ids.isEmpty())
        Q_EMIT dataChanged(index(node, 0), index(node, int(m_ids.size()) - 1));
}

void CheckResultsModel::clearResults(int node, const QStringList& checkIds)
{
    if (node < 0 || node >= m_nodes.size())
        return;
    if (m_done.at(node)) {
        m_done[node] = false;
        if (!m_ids.isEmpty())
            Q_EMIT dataChanged(index(node, 0), index(node, int(m_ids.size()) - 1));
    }
    for (const QString& id : checkIds) {
        const int col = int(m_ids.indexOf(id));
        if (col < 0 || !m_has.at(node).at(col))
            continue;
        m_results[node][col] = CheckResult();
        m_has[node][col] = false;
        const QModelIndex idx = index(node, col);
        Q_EMIT dataChanged(idx, idx);
    }
}

void CheckResultsModel::setReport(const CheckReport& report)
{
    QStringList nodes;
    QStringList ids;
    for (const auto& n : report.nodes) {
        nodes.append(n.node);
        for (const auto& r : n.results) {
            if (!ids.contains(r.id))
                ids.append(r.id);
        }
    }
    setLayout(nodes, ids);
    for (int i = 0; i < report.nodes.size(); ++i) {
        for (const auto& r : report.nodes.at(i).results)
            setResult(i, r);
        setNodeDone(i);
    }
}

void CheckResultsModel::clear()
{
    setLayout({}, {});
}

const CheckResult* CheckResultsModel::result(const QModelIndex& index) const
{
    if (!index.isValid() || index.model() != this || !m_has.at(index.row()).at(index.column()))
        return nullptr;
    return &m_results.at(index.row()).at(index.column());
}

int CheckResultsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_nodes.size());
}
int CheckResultsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_ids.size());
}

QVariant CheckResultsModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const CheckResult* r = result(index);
    const bool done = m_done.at(index.row());
    switch (role) {
    case Qt::DisplayRole:
    case Qt::AccessibleTextRole: return r ? statusText(r->status) : done ? tr("—") : tr("…");
    case Qt::ToolTipRole:
        return r      ? (r->summary.isEmpty() ? r->title : r->summary)
               : done ? tr("Not run on this node")
                      : tr("Not checked yet");
    case Qt::ForegroundRole: return r ? statusColor(r->status) : done ? statusColor(CheckStatus::Skip) : QVariant();
    case Qt::BackgroundRole: return r ? statusBackground(r->status) : QVariant();
    case Qt::TextAlignmentRole: return int(Qt::AlignCenter);
    case StatusRole: return r ? int(r->status) : QVariant();
    case CheckIdRole: return m_ids.at(index.column());
    case HasResultRole: return r != nullptr;
    default: break;
    }
    return {};
}

QVariant CheckResultsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    if (orientation == Qt::Horizontal) {
        if (section < 0 || section >= m_ids.size())
            return {};
        return role == Qt::ToolTipRole ? m_ids.at(section) : checks::NodeChecker::titleFor(m_ids.at(section));
    }
    if (section < 0 || section >= m_nodes.size())
        return {};
    return m_nodes.at(section);
}

// ---------------------------------------------------------------------------------------------------

VersionMatrixModel::VersionMatrixModel(QObject* parent) : QAbstractTableModel(parent) {}

void VersionMatrixModel::setReport(const CheckReport& report)
{
    beginResetModel();
    m_nodes.clear();
    m_head = 0;
    for (int i = 0; i < report.nodes.size(); ++i) {
        m_nodes.append(report.nodes.at(i).node);
        if (report.nodes.at(i).isHead)
            m_head = i;
    }
    m_rows = report.matrix;
    // What differs first: at many nodes it is what a person looks for, and it would sit below the fold.
    std::stable_partition(m_rows.begin(), m_rows.end(), [](const checks::MatrixRow& r) { return r.differs; });
    m_groups = checks::agreeingNodeGroups(report);
    if (m_rows.isEmpty()) {
        static const char* const ids[] = {"trainer", "mpi", "cuda", "nccl", "gpu", "os", "network"};
        for (const char* id : ids) {
            checks::MatrixRow row;
            row.id = QLatin1String(id);
            row.title = checks::NodeChecker::titleFor(row.id);
            bool any = false;
            for (const auto& n : report.nodes) {
                const CheckResult* r = n.find(row.id);
                row.values.append(r ? r->value : QString());
                any = any || (r && !r->value.isEmpty());
            }
            if (any)
                m_rows.append(row);
        }
    }
    layOutColumns();
    endResetModel();
}

void VersionMatrixModel::layOutColumns()
{
    m_columns.clear();
    if (m_every || m_nodes.size() <= kCollapseAbove) {
        for (int i = 0; i < m_nodes.size(); ++i)
            m_columns.append(QList<int>{i});
        return;
    }
    // The groups in node order: the head (usually a group of its own) first, as without collapsing.
    m_columns = m_groups;
    std::sort(m_columns.begin(), m_columns.end(),
              [](const QList<int>& a, const QList<int>& b) { return a.first() < b.first(); });
}

void VersionMatrixModel::setShowEveryNode(bool every)
{
    if (every == m_every)
        return;
    beginResetModel();
    m_every = every;
    layOutColumns();
    endResetModel();
}

int VersionMatrixModel::headColumn() const
{
    for (int c = 0; c < m_columns.size(); ++c) {
        if (m_columns.at(c).contains(m_head))
            return c;
    }
    return 0;
}

void VersionMatrixModel::clear()
{
    setReport(CheckReport());
}

bool VersionMatrixModel::differsFromHead(int row, int column) const
{
    if (row < 0 || row >= m_rows.size() || column < 0 || column >= m_columns.size() || column == headColumn())
        return false;
    const QStringList& v = m_rows.at(row).values;
    return v.value(nodeOf(column)) != v.value(m_head);
}

int VersionMatrixModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}
int VersionMatrixModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_columns.size());
}

QVariant VersionMatrixModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const checks::MatrixRow& row = m_rows.at(index.row());
    const QString value = row.values.value(nodeOf(index.column()));
    const bool differs = differsFromHead(index.row(), index.column());
    switch (role) {
    case Qt::DisplayRole: return value.isEmpty() ? tr("—") : value;
    case Qt::AccessibleTextRole:
        return differs ? tr("%1 (differs from the head)").arg(value.isEmpty() ? tr("unknown") : value) : value;
    case Qt::ToolTipRole:
        if (differs)
            return row.remedy.isEmpty() ? tr("Differs from the head node")
                                        : tr("Differs from the head node. %1").arg(row.remedy);
        return {};
    case Qt::BackgroundRole:
        return differs ? CheckResultsModel::statusBackground(row.severity == CheckStatus::Fail ? CheckStatus::Fail
                                                                                               : CheckStatus::Warn)
                       : QVariant();
    case Qt::ForegroundRole:
        return differs ? CheckResultsModel::statusColor(row.severity == CheckStatus::Fail ? CheckStatus::Fail
                                                                                          : CheckStatus::Warn)
                       : QVariant();
    case Qt::FontRole:
        if (differs) {
            QFont f;
            f.setBold(true);
            return f;
        }
        return {};
    case DiffersFromHeadRole: return differs;
    default: break;
    }
    return {};
}

QVariant VersionMatrixModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation == Qt::Horizontal && (role == Qt::DisplayRole || role == Qt::ToolTipRole)) {
        if (section < 0 || section >= m_columns.size())
            return {};
        const QList<int>& nodes = m_columns.at(section);
        if (role == Qt::ToolTipRole) { // a group's nodes by name
            QStringList names;
            for (int i : nodes)
                names << m_nodes.at(i);
            return nodes.size() > 1 ? names.join(QStringLiteral(", ")) : QVariant();
        }
        // A group has two nodes or more.
        const QString name = nodes.size() > 1 ? tr("%1 nodes: same").arg(nodes.size()) : m_nodes.at(nodes.first());
        return nodes.contains(m_head) ? tr("%1 (head)").arg(name) : name;
    }
    if (role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    if (section < 0 || section >= m_rows.size())
        return {};
    return m_rows.at(section).title;
}

} // namespace traindeck::gui
