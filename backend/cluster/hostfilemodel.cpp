#include "cluster/hostfilemodel.h"

#include "cluster/names.h"

namespace traindeck::cluster {

namespace {
// Titles spelled out with QT_TRANSLATE_NOOP: lupdate does not expand macros.
// In Column order.
constexpr EditableTableModel::Column kColumns[] = {
    {QT_TRANSLATE_NOOP("traindeck::cluster::HostfileModel", "User"), false},
    {QT_TRANSLATE_NOOP("traindeck::cluster::HostfileModel", "Host"), false},
    {QT_TRANSLATE_NOOP("traindeck::cluster::HostfileModel", "Slots"), true},
    {QT_TRANSLATE_NOOP("traindeck::cluster::HostfileModel", "Max slots"), true},
    {QT_TRANSLATE_NOOP("traindeck::cluster::HostfileModel", "Comment"), false}};
static_assert(std::size(kColumns) == HostfileModel::ColumnCount);
} // namespace

HostfileModel::HostfileModel(QObject* parent) : EditableTableModel(kColumns, parent) {}

void HostfileModel::setHostfile(const Hostfile& hostfile)
{
    beginResetModel();
    m_hostfile = hostfile;
    endResetModel();
}

int HostfileModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : m_hostfile.hostCount();
}

static QVariant optionalInt(const std::optional<int>& value, int role)
{
    if (!value)
        return role == Qt::DisplayRole ? QVariant(QString()) : QVariant();
    return *value;
}

QVariant HostfileModel::cell(const QModelIndex& index, int role) const
{
    const HostEntry e = m_hostfile.host(index.row());
    if (role == Qt::DisplayRole || role == Qt::EditRole) {
        switch (index.column()) {
        case UserColumn: return e.user;
        case HostColumn: return e.host;
        case SlotsColumn: return optionalInt(e.slots, role);
        case MaxSlotsColumn: return optionalInt(e.maxSlots, role);
        case CommentColumn: return m_hostfile.hostComment(index.row());
        }
    }
    if (role == Qt::ToolTipRole && index.column() == SlotsColumn && !e.slots)
        return tr("Not set: Open MPI uses the number of cores, MPICH 1");
    return {};
}

static bool toOptionalCount(const QVariant& value, std::optional<int>& out)
{
    if (!value.isValid() || value.isNull() || value.toString().trimmed().isEmpty()) {
        out.reset();
        return true;
    }
    bool ok = false;
    const int n = value.toString().trimmed().toInt(&ok);
    if (!ok || n < 1 || n > Hostfile::MaxSlots)
        return false;
    out = n;
    return true;
}

bool HostfileModel::setCell(const QModelIndex& index, const QVariant& value)
{
    HostEntry e = m_hostfile.host(index.row());
    switch (index.column()) {
    case UserColumn: {
        const QString user = value.toString().trimmed();
        if (!user.isEmpty() && !Names::checkUser(user).ok)
            return false;
        e.user = user;
        break;
    }
    case HostColumn: {
        const QString host = value.toString().trimmed();
        if (!Names::checkHost(host, m_hostfile.format() != HostfileFormat::Mpich).ok)
            return false;
        e.host = host;
        break;
    }
    case SlotsColumn:
        if (!toOptionalCount(value, e.slots))
            return false;
        break;
    case MaxSlotsColumn:
        if (!toOptionalCount(value, e.maxSlots))
            return false;
        break;
    case CommentColumn:
        m_hostfile.setHostComment(index.row(), value.toString());
        cellChanged(index);
        return true;
    default: return false;
    }
    if (e == m_hostfile.host(index.row()))
        return true;
    m_hostfile.setHost(index.row(), e);
    cellChanged(index);
    return true;
}

bool HostfileModel::insertRows(int row, int count, const QModelIndex& parent)
{
    if (!beginInsert(row, count, parent))
        return false;
    for (int i = 0; i < count; ++i)
        m_hostfile.insertHost(row + i, HostEntry{QString(), QStringLiteral("localhost"), std::nullopt, std::nullopt});
    endInsertRows();
    return true;
}

bool HostfileModel::removeRows(int row, int count, const QModelIndex& parent)
{
    if (!beginRemove(row, count, parent))
        return false;
    for (int i = 0; i < count; ++i)
        m_hostfile.removeHost(row);
    endRemoveRows();
    return true;
}

} // namespace traindeck::cluster
