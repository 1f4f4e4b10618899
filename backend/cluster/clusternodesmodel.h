// A table of a cluster profile's nodes for views: name, host, port, user, identity, slots, GPUs,
// role. setData() refuses invalid values; making a node the head makes the previous head a worker.
#pragma once

#include "cluster/clusterprofile.h"

#include <QAbstractTableModel>

namespace traindeck::cluster {

class ClusterNodesModel : public QAbstractTableModel {
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
    int columnCount(const QModelIndex& parent = QModelIndex()) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    // Role column: "head" or "worker" (EditRole); display text is translated.
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
    // New rows are workers named "nodeN" on host "nodeN" with 1 slot; edit them afterwards.
    bool insertRows(int row, int count, const QModelIndex& parent = QModelIndex()) override;
    bool removeRows(int row, int count, const QModelIndex& parent = QModelIndex()) override;

private:
    QList<ClusterNode> m_nodes;
};

}  // namespace traindeck::cluster
