// A table of a hostfile's host lines for views: user, host, slots, max_slots, comment. Comment and
// blank lines are kept in the hostfile but are not rows. Edits are checked: setData() refuses an
// invalid host or user name or a count out of range.
#pragma once

#include "cluster/editabletablemodel.h"
#include "cluster/hostfile.h"

namespace traindeck::cluster {

class HostfileModel : public EditableTableModel {
    Q_OBJECT

  public:
    enum Column { UserColumn, HostColumn, SlotsColumn, MaxSlotsColumn, CommentColumn, ColumnCount };

    explicit HostfileModel(QObject* parent = nullptr);

    void setHostfile(const Hostfile& hostfile);
    const Hostfile& hostfile() const { return m_hostfile; }

    int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    // New rows are "localhost" with no slots; edit them afterwards.
    bool insertRows(int row, int count, const QModelIndex& parent = QModelIndex()) override;
    bool removeRows(int row, int count, const QModelIndex& parent = QModelIndex()) override;

  protected:
    QVariant cell(const QModelIndex& index, int role) const override;
    // Slots/max_slots: an int 1..Hostfile::MaxSlots, or an empty/invalid QVariant for "unset".
    bool setCell(const QModelIndex& index, const QVariant& value) override;

  private:
    Hostfile m_hostfile;
};

} // namespace traindeck::cluster
