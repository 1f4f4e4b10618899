// Models for the Checks page: the nodes × checks result matrix (pass/warn/fail as text and colour)
// and the cross-node version matrix (check rows × nodes, cells that differ from the head highlighted;
// at many nodes the nodes that agree share one column, checks::agreeingNodeGroups()).
#pragma once

#include "checks/nodecheck.h"

#include <QAbstractTableModel>
#include <QColor>

namespace traindeck::gui {

class CheckResultsModel : public QAbstractTableModel {
    Q_OBJECT

  public:
    enum Roles { StatusRole = Qt::UserRole + 1, CheckIdRole, HasResultRole };

    explicit CheckResultsModel(QObject* parent = nullptr);

    // Rows = nodes, columns = check ids (results cleared).
    void setLayout(const QStringList& nodes, const QStringList& checkIds);
    // Renames the rows, keeping their results (a Slurm check job's nodes become known while it runs).
    void setNodeNames(const QStringList& nodes);
    void setResult(int node, const checks::CheckResult& result);
    // Forgets the results of `checkIds` on one node (cells read "not checked yet" until set again).
    void clearResults(int node, const QStringList& checkIds);
    // A node whose checks ended: its cells without a result read "not run on this node" (a check for
    // the head only, or one a cancel skipped) instead of "not checked yet".
    void setNodeDone(int node);
    // Rebuilds the table from a finished report.
    void setReport(const checks::CheckReport& report);
    void clear();
    // The result of a cell, nullptr when none yet.
    const checks::CheckResult* result(const QModelIndex& index) const;
    QStringList checkIds() const { return m_ids; }
    QString nodeName(int row) const { return m_nodes.value(row); }

    static QString statusText(checks::CheckStatus s); // "✓ pass", "! warn", "✗ fail", "– skip"
    static QColor statusColor(checks::CheckStatus s);
    static QColor statusBackground(checks::CheckStatus s);

    int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    int columnCount(const QModelIndex& parent = QModelIndex()) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

  private:
    QStringList m_nodes;
    QStringList m_ids;
    QList<QList<checks::CheckResult>> m_results; // [node][column]
    QList<QList<bool>> m_has;
    QList<bool> m_done; // [node]
};

class VersionMatrixModel : public QAbstractTableModel {
    Q_OBJECT

  public:
    enum Roles { DiffersFromHeadRole = Qt::UserRole + 1 };

    explicit VersionMatrixModel(QObject* parent = nullptr);

    // Above this many nodes the nodes that agree share a column ("62 nodes: same"), unless
    // setShowEveryNode(true).
    static constexpr int kCollapseAbove = 8;

    // Uses report.matrix; for a report without one (a single node) the comparable values of the nodes.
    void setReport(const checks::CheckReport& report);
    void clear();
    void setShowEveryNode(bool every);
    bool showsEveryNode() const { return m_every; }
    bool collapsed() const { return m_columns.size() < m_nodes.size(); }
    int headColumn() const;
    // The nodes (indices in the report) a column stands for: one, or a group that agrees.
    QList<int> nodesOfColumn(int column) const { return m_columns.value(column); }
    bool differsFromHead(int row, int column) const;

    int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    int columnCount(const QModelIndex& parent = QModelIndex()) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

  private:
    void layOutColumns();
    int nodeOf(int column) const { return m_columns.value(column).value(0, -1); }

    QStringList m_nodes;
    QList<checks::MatrixRow> m_rows;
    QList<QList<int>> m_groups;  // agreeingNodeGroups() of the report
    QList<QList<int>> m_columns; // node indices per column, in node order
    bool m_every = false;
    int m_head = 0;
};

} // namespace traindeck::gui
