#include "runsmodel.h"

#include "statecolors.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QLocale>

#include <cmath>

namespace traindeck::gui {

using launch::JobState;
using launch::RunSummary;

RunsModel::RunsModel(QObject* parent) : QAbstractTableModel(parent) {}

QString RunsModel::stateText(JobState s)
{
    switch (s) {
    case JobState::Starting: return tr("starting");
    case JobState::Pending: return tr("pending");
    case JobState::Running: return tr("running");
    case JobState::Finished: return tr("finished");
    case JobState::Failed: return tr("failed");
    case JobState::Cancelled: return tr("cancelled");
    case JobState::Lost: return tr("lost");
    }
    return QString();
}

QColor RunsModel::stateColor(JobState s)
{
    switch (s) {
    case JobState::Starting:
    case JobState::Pending:
    case JobState::Running: return infoColor();
    case JobState::Finished: return passColor();
    case JobState::Failed:
    case JobState::Lost: return failColor();
    case JobState::Cancelled: return warnColor();
    }
    return QColor();
}

void RunsModel::setRuns(const QList<RunSummary>& runs)
{
    // Same runs in the same order: update in place (keeps the selection); otherwise reset.
    bool same = runs.size() == m_runs.size();
    for (int i = 0; same && i < runs.size(); ++i)
        same = runs.at(i).runDir == m_runs.at(i).runDir;
    if (same) {
        m_runs = runs;
        if (!runs.isEmpty())
            Q_EMIT dataChanged(index(0, 0), index(int(runs.size()) - 1, ColumnCount - 1));
        return;
    }
    beginResetModel();
    m_runs = runs;
    endResetModel();
}

int RunsModel::rowOfRunDir(const QString& runDir) const
{
    for (int i = 0; i < m_runs.size(); ++i)
        if (m_runs.at(i).runDir == runDir)
            return i;
    return -1;
}

int RunsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_runs.size());
}
int RunsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RunsModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const RunSummary& r = m_runs.at(index.row());
    if (role == RunDirRole)
        return r.runDir;
    if (role == StateRole)
        return int(r.state);
    if (role == RemoteRole)
        return r.remote;
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case RunColumn:
            return r.info.name.isEmpty() || r.info.name == r.runId
                       ? r.runId
                       : r.runId + QStringLiteral(" (") + r.info.name + QLatin1Char(')');
        case StateColumn:
            // Slurm's word (why a job waits, which node failed) says more than the state alone.
            if (!r.detail.isEmpty())
                return tr("%1 (%2)").arg(stateText(r.state), r.detail);
            if (r.exitCode && r.state == JobState::Failed)
                return tr("%1 (exit %2)").arg(stateText(r.state)).arg(*r.exitCode);
            // A remote run's state as last seen, not asked now.
            if (r.remote && !r.synced && r.lastSeen.isValid())
                return tr("%1 (seen %2)")
                    .arg(stateText(r.state), QLocale().toString(r.lastSeen.toLocalTime().time(), QLocale::ShortFormat));
            return stateText(r.state);
        case CreatedColumn: return QLocale().toString(r.info.created.toLocalTime(), QLocale::ShortFormat);
        case StepColumn: return r.lastStep >= 0 ? QVariant(r.lastStep) : QVariant(QString());
        case LossColumn: return r.hasLoss ? QLocale().toString(r.lastLoss, 'f', 4) : QString();
        case ProfileColumn: return r.info.profile;
        case HostColumn: return r.remote ? tr("%1 (remote)").arg(r.head.isEmpty() ? r.info.host : r.head) : r.info.host;
        }
    }
    if (role == Qt::ForegroundRole && index.column() == StateColumn)
        return stateColor(r.state);
    if (role == Qt::ToolTipRole) {
        if (r.remote)
            return tr("On %1: %2\nLocal record and metrics mirror: %3").arg(r.head, r.remoteRunDir, r.runDir);
        return r.runDir;
    }
    if (role == Qt::TextAlignmentRole && (index.column() == StepColumn || index.column() == LossColumn))
        return int(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant RunsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case RunColumn: return tr("Run");
    case StateColumn: return tr("State");
    case CreatedColumn: return tr("Started");
    case StepColumn: return tr("Last step");
    case LossColumn: return tr("Loss");
    case ProfileColumn: return tr("Profile");
    case HostColumn: return tr("Head node");
    }
    return {};
}

} // namespace traindeck::gui
