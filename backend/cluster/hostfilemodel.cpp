#include "cluster/hostfilemodel.h"

#include "cluster/names.h"

namespace traindeck::cluster {

HostfileModel::HostfileModel(QObject* parent) : QAbstractTableModel(parent) {}

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

int HostfileModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

static QVariant optionalInt(const std::optional<int>& value, int role)
{
    if (!value)
        return role == Qt::DisplayRole ? QVariant(QString()) : QVariant();
    return *value;
}

QVariant HostfileModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const HostEntry e = m_hostfile.host(index.row());
    if (role == Qt::DisplayRole || role == Qt::EditRole) {
        switch (index.column()) {
        case UserColumn:
            return e.user;
        case HostColumn:
            return e.host;
        case SlotsColumn:
            return optionalInt(e.slots, role);
        case MaxSlotsColumn:
            return optionalInt(e.maxSlots, role);
        case CommentColumn:
            return m_hostfile.hostComment(index.row());
        }
    }
    if (role == Qt::TextAlignmentRole && (index.column() == SlotsColumn || index.column() == MaxSlotsColumn))
        return QVariant::fromValue(Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter));
    if (role == Qt::ToolTipRole && index.column() == SlotsColumn && !e.slots)
        return tr("Not set: Open MPI uses the number of cores, MPICH 1");
    return {};
}

QVariant HostfileModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (role != Qt::DisplayRole)
        return {};
    if (orientation == Qt::Vertical)
        return section + 1;
    switch (section) {
    case UserColumn:
        return tr("User");
    case HostColumn:
        return tr("Host");
    case SlotsColumn:
        return tr("Slots");
    case MaxSlotsColumn:
        return tr("Max slots");
    case CommentColumn:
        return tr("Comment");
    }
    return {};
}

Qt::ItemFlags HostfileModel::flags(const QModelIndex& index) const
{
    if (!index.isValid())
        return Qt::NoItemFlags;
    return Qt::ItemIsSelectable | Qt::ItemIsEnabled | Qt::ItemIsEditable | Qt::ItemNeverHasChildren;
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

bool HostfileModel::setData(const QModelIndex& index, const QVariant& value, int role)
{
    if (role != Qt::EditRole || !checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return false;
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
        Q_EMIT dataChanged(index, index, {Qt::DisplayRole, Qt::EditRole});
        return true;
    default:
        return false;
    }
    if (e == m_hostfile.host(index.row()))
        return true;
    m_hostfile.setHost(index.row(), e);
    Q_EMIT dataChanged(index, index, {Qt::DisplayRole, Qt::EditRole});
    return true;
}

bool HostfileModel::insertRows(int row, int count, const QModelIndex& parent)
{
    if (parent.isValid() || row < 0 || row > rowCount() || count < 1)
        return false;
    beginInsertRows(QModelIndex(), row, row + count - 1);
    for (int i = 0; i < count; ++i)
        m_hostfile.insertHost(row + i, HostEntry{QString(), QStringLiteral("localhost"), std::nullopt, std::nullopt});
    endInsertRows();
    return true;
}

bool HostfileModel::removeRows(int row, int count, const QModelIndex& parent)
{
    if (parent.isValid() || row < 0 || count < 1 || row + count > rowCount())
        return false;
    beginRemoveRows(QModelIndex(), row, row + count - 1);
    for (int i = 0; i < count; ++i)
        m_hostfile.removeHost(row);
    endRemoveRows();
    return true;
}

}  // namespace traindeck::cluster
