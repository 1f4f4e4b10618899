// What the cluster's table models (hosts of a hostfile, nodes of a profile) have in common: a flat
// table with fixed columns (title, alignment), cells edited in place and checked by the subclass,
// and the argument checks of inserting and removing rows.
#pragma once

#include <QAbstractTableModel>

#include <span>

namespace traindeck::cluster {

class EditableTableModel : public QAbstractTableModel {
    Q_OBJECT

  public:
    struct Column {
        // Untranslated: QT_TRANSLATE_NOOP'd in the subclass's context, translated with its tr().
        const char* title;
        bool numeric; // right-aligned
    };

    int columnCount(const QModelIndex& parent = QModelIndex()) const override;
    // Valid cells only: the text alignment from the column, any other role from cell().
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    // EditRole on a valid cell only, through setCell().
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;

  protected:
    // `columns` outlives the model (a static table of the subclass).
    EditableTableModel(std::span<const Column> columns, QObject* parent);

    // data() of a valid index, for every role but Qt::TextAlignmentRole.
    virtual QVariant cell(const QModelIndex& index, int role) const = 0;
    // setData() of a valid index in Qt::EditRole: false when the value is refused.
    virtual bool setCell(const QModelIndex& index, const QVariant& value) = 0;

    // The argument checks of insertRows()/removeRows(), then beginInsertRows()/beginRemoveRows();
    // false, with nothing begun, when the arguments are invalid.
    bool beginInsert(int row, int count, const QModelIndex& parent);
    bool beginRemove(int row, int count, const QModelIndex& parent);
    // Tells the views that the text of one cell changed.
    void cellChanged(const QModelIndex& index);

  private:
    std::span<const Column> m_columns;
};

} // namespace traindeck::cluster
