#include "cluster/editabletablemodel.h"

namespace traindeck::cluster {

EditableTableModel::EditableTableModel(std::span<const Column> columns, QObject* parent)
    : QAbstractTableModel(parent), m_columns(columns)
{
}

int EditableTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_columns.size());
}

QVariant EditableTableModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    if (role != Qt::TextAlignmentRole)
        return cell(index, role);
    if (m_columns[size_t(index.column())].numeric)
        return QVariant::fromValue(Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter));
    return {};
}

QVariant EditableTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (role != Qt::DisplayRole)
        return {};
    if (orientation == Qt::Vertical)
        return section + 1;
    if (section < 0 || size_t(section) >= m_columns.size())
        return {};
    // metaObject() is the subclass's: its context, as its own tr() would translate.
    return metaObject()->tr(m_columns[size_t(section)].title, nullptr);
}

Qt::ItemFlags EditableTableModel::flags(const QModelIndex& index) const
{
    if (!index.isValid())
        return Qt::NoItemFlags;
    return Qt::ItemIsSelectable | Qt::ItemIsEnabled | Qt::ItemIsEditable | Qt::ItemNeverHasChildren;
}

bool EditableTableModel::setData(const QModelIndex& index, const QVariant& value, int role)
{
    if (role != Qt::EditRole || !checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return false;
    return setCell(index, value);
}

bool EditableTableModel::beginInsert(int row, int count, const QModelIndex& parent)
{
    if (parent.isValid() || row < 0 || row > rowCount() || count < 1)
        return false;
    beginInsertRows(QModelIndex(), row, row + count - 1);
    return true;
}

bool EditableTableModel::beginRemove(int row, int count, const QModelIndex& parent)
{
    if (parent.isValid() || row < 0 || count < 1 || row + count > rowCount())
        return false;
    beginRemoveRows(QModelIndex(), row, row + count - 1);
    return true;
}

void EditableTableModel::cellChanged(const QModelIndex& index)
{
    Q_EMIT dataChanged(index, index, {Qt::DisplayRole, Qt::EditRole});
}

} // namespace traindeck::cluster
