#include "cluster/clusternodesmodel.h"

#include "cluster/names.h"

namespace traindeck::cluster {

namespace {
// Titles spelled out with QT_TRANSLATE_NOOP: lupdate does not expand macros.
// In Column order.
constexpr EditableTableModel::Column kColumns[] = {
    {QT_TRANSLATE_NOOP("traindeck::cluster::ClusterNodesModel", "Name"), false},
    {QT_TRANSLATE_NOOP("traindeck::cluster::ClusterNodesModel", "Host"), false},
    {QT_TRANSLATE_NOOP("traindeck::cluster::ClusterNodesModel", "Port"), true},
    {QT_TRANSLATE_NOOP("traindeck::cluster::ClusterNodesModel", "User"), false},
    {QT_TRANSLATE_NOOP("traindeck::cluster::ClusterNodesModel", "Identity file"), false},
    {QT_TRANSLATE_NOOP("traindeck::cluster::ClusterNodesModel", "Slots"), true},
    {QT_TRANSLATE_NOOP("traindeck::cluster::ClusterNodesModel", "GPUs"), true},
    {QT_TRANSLATE_NOOP("traindeck::cluster::ClusterNodesModel", "Role"), false}};
static_assert(std::size(kColumns) == ClusterNodesModel::ColumnCount);
} // namespace

ClusterNodesModel::ClusterNodesModel(QObject* parent) : EditableTableModel(kColumns, parent) {}

void ClusterNodesModel::setNodes(const QList<ClusterNode>& nodes)
{
    beginResetModel();
    m_nodes = nodes;
    endResetModel();
}

int ClusterNodesModel::headRow() const
{
    for (int i = 0; i < m_nodes.size(); ++i) {
        if (m_nodes.at(i).role == NodeRole::Head)
            return i;
    }
    return m_nodes.isEmpty() ? -1 : 0;
}

int ClusterNodesModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_nodes.size());
}

QVariant ClusterNodesModel::cell(const QModelIndex& index, int role) const
{
    const ClusterNode& n = m_nodes.at(index.row());
    if (role == Qt::DisplayRole || role == Qt::EditRole) {
        switch (index.column()) {
        case NameColumn: return n.name;
        case HostColumn: return n.host;
        case PortColumn: return n.port;
        case UserColumn: return n.user;
        case IdentityColumn: return n.identity;
        case SlotsColumn: return n.slots;
        case GpusColumn: return n.gpus;
        case RoleColumn:
            if (role == Qt::EditRole)
                return nodeRoleName(n.role);
            return index.row() == headRow() ? tr("head") : tr("worker");
        }
    }
    if (role == Qt::ToolTipRole && index.column() == RoleColumn)
        return tr("Rank 0 and the run directory live on the head node");
    return {};
}

static bool toInt(const QVariant& value, int min, int max, int& out)
{
    bool ok = false;
    const int n = value.toString().trimmed().toInt(&ok);
    if (!ok || n < min || n > max)
        return false;
    out = n;
    return true;
}

bool ClusterNodesModel::setCell(const QModelIndex& index, const QVariant& value)
{
    ClusterNode n = m_nodes.at(index.row());
    const QString text = value.toString().trimmed();
    switch (index.column()) {
    case NameColumn:
        if (text.isEmpty())
            return false;
        for (QChar c : text) {
            if (c.unicode() < 0x20)
                return false;
        }
        n.name = text;
        break;
    case HostColumn:
        if (!Names::checkHost(text).ok)
            return false;
        n.host = text;
        break;
    case PortColumn:
        if (!toInt(value, 1, 65535, n.port))
            return false;
        break;
    case UserColumn:
        if (!text.isEmpty() && !Names::checkUser(text).ok)
            return false;
        n.user = text;
        break;
    case IdentityColumn:
        for (QChar c : text) {
            if (c.unicode() < 0x20)
                return false;
        }
        if (text.startsWith(QLatin1Char('-')) || Names::looksLikeSecretValue(text))
            return false;
        n.identity = text;
        break;
    case SlotsColumn:
        if (!toInt(value, 1, ClusterProfile::MaxSlots, n.slots))
            return false;
        break;
    case GpusColumn:
        if (!toInt(value, 0, 1024, n.gpus))
            return false;
        break;
    case RoleColumn: {
        if (text == QLatin1String("head"))
            n.role = NodeRole::Head;
        else if (text == QLatin1String("worker"))
            n.role = NodeRole::Worker;
        else
            return false;
        if (n == m_nodes.at(index.row()))
            return true;
        const int oldHead = headRow();
        m_nodes[index.row()] = n;
        if (n.role == NodeRole::Head) {
            for (int i = 0; i < m_nodes.size(); ++i) {
                if (i != index.row())
                    m_nodes[i].role = NodeRole::Worker;
            }
        }
        // The head shown may have moved anywhere between the old and the new head row.
        const int newHead = headRow();
        const int first = qMin(qMin(oldHead, newHead), index.row());
        const int last = qMax(qMax(oldHead, newHead), index.row());
        Q_EMIT dataChanged(this->index(first, RoleColumn), this->index(last, RoleColumn),
                           {Qt::DisplayRole, Qt::EditRole});
        return true;
    }
    default: return false;
    }
    if (n == m_nodes.at(index.row()))
        return true;
    m_nodes[index.row()] = n;
    cellChanged(index);
    return true;
}

bool ClusterNodesModel::insertRows(int row, int count, const QModelIndex& parent)
{
    const int oldHead = headRow();
    if (!beginInsert(row, count, parent))
        return false;
    for (int i = 0; i < count; ++i) {
        ClusterNode n;
        int number = int(m_nodes.size()) + 1;
        auto taken = [&](const QString& name) {
            for (const ClusterNode& other : m_nodes) {
                if (other.name == name || other.host == name)
                    return true;
            }
            return false;
        };
        while (taken(QStringLiteral("node%1").arg(number)))
            ++number;
        n.name = QStringLiteral("node%1").arg(number);
        n.host = n.name;
        m_nodes.insert(row + i, n);
    }
    endInsertRows();
    const int newHead = headRow();
    if (oldHead != -1 && newHead != oldHead + (oldHead >= row ? count : 0)) {
        // The implicit head (first row) changed: refresh both role cells.
        Q_EMIT dataChanged(index(newHead, RoleColumn), index(newHead, RoleColumn));
        Q_EMIT dataChanged(index(oldHead + (oldHead >= row ? count : 0), RoleColumn),
                           index(oldHead + (oldHead >= row ? count : 0), RoleColumn));
    }
    return true;
}

bool ClusterNodesModel::removeRows(int row, int count, const QModelIndex& parent)
{
    const int oldHead = headRow();
    if (!beginRemove(row, count, parent))
        return false;
    m_nodes.remove(row, count);
    endRemoveRows();
    const int newHead = headRow();
    if (newHead >= 0 && (oldHead < row || oldHead >= row + count) == false)
        Q_EMIT dataChanged(index(newHead, RoleColumn), index(newHead, RoleColumn));
    return true;
}

} // namespace traindeck::cluster
