// The logs of a run by node and rank (ranklogs.h) as a table for views: one row per group of
// identical lines (source label, text), in log order, filtered by rank, host or errors only. It grows
// as lines arrive (a live run's stderr, RunMonitor::stderrLines) and never blocks: lines are handed
// to it, it reads nothing itself. Qt Core only; the GUI colours rows by ErrorRole.
#pragma once

#include "launch/ranklogs.h"

#include <QAbstractTableModel>

namespace traindeck::launch {

class RankLogModel : public QAbstractTableModel {
    Q_OBJECT

  public:
    enum Column { SourceColumn, TextColumn, ColumnCount };
    enum Role {
        ErrorRole = Qt::UserRole + 1, // bool: the line reads like an error
        FirstErrorRole,               // bool: the failed rank's first error (RankLog::firstErrorGroup)
        RanksRole,                    // QList<int>: the ranks that wrote it (empty: mpirun's line)
        LineRole,                     // qint64: its first line number in the log (1-based)
    };

    explicit RankLogModel(QObject* parent = nullptr);

    const RankLog& log() const { return m_log; }

    // Bytes of a log file (partial lines kept), or complete lines without their '\n'.
    void appendText(const QByteArray& data, LogStream stream = LogStream::Stderr);
    void appendLines(const QStringList& lines, LogStream stream = LogStream::Stderr);
    // The end of the log: lines still cut off by other ranks' output are added.
    void finish();
    // Shows `log` instead (a finished run's logs, read and grouped off the GUI thread).
    void setLog(RankLog log);
    void setHostsByRank(const QStringList& hosts);
    void setFailure(const FailureInfo& failure);
    void clear();

    void setFilter(const LogFilter& filter);
    LogFilter filter() const { return m_filter; }

    // The row of the failed rank's first error in this view; -1 when none (or filtered out).
    int firstErrorRow() const;
    const LogGroup& groupAt(int row) const;

    int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    int columnCount(const QModelIndex& parent = QModelIndex()) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

  Q_SIGNALS:
    // A failure was set, or the first error's row appeared or moved.
    void firstErrorChanged();

  private:
    void apply(const RankLog::Change& change);
    void rebuild();

    RankLog m_log;
    LogFilter m_filter;
    QList<qsizetype> m_rows; // group index of every row, ascending
    qsizetype m_firstError = -1;
};

} // namespace traindeck::launch
