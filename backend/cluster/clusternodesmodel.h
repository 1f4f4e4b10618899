// A table of a cluster profile's nodes for views: name, host, port, user, identity, slots, GPUs,
// role. setData() refuses invalid values; making a node the head makes the previous head a worker.
#pragma once

#include "cluster/clusterprofile.h"
#include "cluster/editabletablemodel.h"

namespace traindeck::cluster {

class ClusterNodesModel : public EditableTableModel {
    Q_OBJECT

  public:
    enum Column {
        NameColumn,
        HostColumn,
        PortColumn,
        UserColumn,
        IdentityColumn,
        SlotsColumn,
        GpusColumn,
        RoleColumn,
        ColumnCount
    };

    explicit ClusterNodesModel(QObject* parent = nullptr);

    void setNodes(const QList<ClusterNode>& nodes);
    const QList<ClusterNode>& nodes() const { return m_nodes; }
    // The row of the head node (the first node when none is marked), -1 when empty.
    int headRow() const;

    int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    // New rows are workers named "nodeN" on host "nodeN" with 1 slot; edit them afterwards.
    bool insertRows(int row, int count, const QModelIndex& parent = QModelIndex()) override;
    bool removeRows(int row, int count, const QModelIndex& parent = QModelIndex()) override;

  protected:
    QVariant cell(const QModelIndex& index, int role) const override;
    // Role column: "head" or "worker" (EditRole); display text is translated.
    bool setCell(const QModelIndex& index, const QVariant& value) override;

  private:
    QList<ClusterNode> m_nodes;
};

} // namespace traindeck::cluster
