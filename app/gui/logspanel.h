// The Monitor's Logs tab: every rank's stderr of the followed run in one table, each line labelled
// host:rank (mpirun's own lines "mpirun"), identical lines of several ranks collapsed ("ranks 1–7"),
// filtered by rank, host or errors only, and once the run failed, the failed rank's first error shown
// first (a banner above the table that jumps to it). The model is launch::RankLogModel: this panel
// only presents what the backend parsed and chose. Lines come from RunSession::logLines (the run
// monitor's stderr tail, local or over SSH), hosts from the hello record, the failure from the end.
#pragma once

#include <QStringList>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;
class QPushButton;
class QTableView;

namespace traindeck::launch {
class RankLogModel;
}

namespace traindeck::gui {

class RunSession;

class LogsPanel : public QWidget {
    Q_OBJECT

  public:
    explicit LogsPanel(RunSession* session, QWidget* parent = nullptr);

    // --- for tests
    launch::RankLogModel* model() const { return m_model; }
    QTableView* view() const { return m_view; }
    QLabel* firstErrorLabel() const { return m_firstError; }
    QComboBox* rankFilter() const { return m_rank; }
    QComboBox* hostFilter() const { return m_host; }
    QCheckBox* errorsOnly() const { return m_errors; }
    // Selects the failed rank's first error in the table (clears the filters when they hide it).
    void showFirstError();

  private:
    void reset();
    void updateHosts();
    void updateFirstError();
    void applyFilter();

    RunSession* m_session;
    launch::RankLogModel* m_model;
    QTableView* m_view;
    QLabel* m_firstError;
    QPushButton* m_showFirst;
    QComboBox* m_rank;
    QComboBox* m_host;
    QCheckBox* m_errors;
    QStringList m_hosts; // rank -> host, as the combo boxes show them
};

} // namespace traindeck::gui
