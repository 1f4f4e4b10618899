// The Runs page's table: one row per run of the history (state, start, last step and loss, profile, head
// node), updated in place as a refresh brings new states.
#pragma once

#include "launch/rundir.h"

#include <QAbstractTableModel>
#include <QColor>

namespace traindeck::gui {

class RunsModel : public QAbstractTableModel {
    Q_OBJECT

  public:
    enum Column {
        RunColumn,
        StateColumn,
        CreatedColumn,
        StepColumn,
        LossColumn,
        ProfileColumn,
        HostColumn,
        ColumnCount
    };
    enum Roles { RunDirRole = Qt::UserRole + 1, StateRole, RemoteRole };

    explicit RunsModel(QObject* parent = nullptr);
    // Replaces the rows; rows of runs already shown are updated in place.
    void setRuns(const QList<launch::RunSummary>& runs);
    const QList<launch::RunSummary>& runs() const { return m_runs; }
    int rowOfRunDir(const QString& runDir) const;

    static QString stateText(launch::JobState s);
    static QColor stateColor(launch::JobState s);

    int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    int columnCount(const QModelIndex& parent = QModelIndex()) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

  private:
    QList<launch::RunSummary> m_runs;
};

} // namespace traindeck::gui
