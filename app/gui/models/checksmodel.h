// Models for the Checks page: the nodes × checks result matrix (pass/warn/fail as text and colour)
// and the cross-node version matrix (check rows × nodes, cells that differ from the head highlighted).
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
};

class VersionMatrixModel : public QAbstractTableModel {
    Q_OBJECT

  public:
    enum Roles { DiffersFromHeadRole = Qt::UserRole + 1 };

    explicit VersionMatrixModel(QObject* parent = nullptr);

    // Uses report.matrix; for a report without one (a single node) the comparable values of the nodes.
    void setReport(const checks::CheckReport& report);
    void clear();
    int headColumn() const { return m_head; }
    bool differsFromHead(int row, int column) const;

    int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    int columnCount(const QModelIndex& parent = QModelIndex()) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

  private:
    QStringList m_nodes;
    QList<checks::MatrixRow> m_rows;
    int m_head = 0;
};

} // namespace traindeck::gui
