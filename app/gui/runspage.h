// Runs: the history of runs under the runs directory (state, steps, loss), refreshed in the
// background; open one in the Monitor (live runs are followed, finished ones loaded offline), compare
// the loss curves of several, resume a failed one, cancel a running one. Runs on a remote head node
// are listed from their local records (launch/remoterun.h) with their head node; the page asks those
// heads about runs not known to have ended on a worker thread (at start and every 30 s), and resume,
// cancel and live opening reach them over SSH, also on worker threads. Ended remote runs open offline
// from the record's metrics mirror.
#pragma once

#include "launch/rundir.h"
#include "runsmodel.h"

#include <QHash>
#include <QWidget>

#include <memory>

class QCustomPlot;
class QCPItemText;
class QLabel;
class QPushButton;
class QTableView;
class QTimer;

namespace traindeck::runs {
class Operations;
} // namespace traindeck::runs

namespace traindeck::gui {

class RunsPage : public QWidget {
    Q_OBJECT

  public:
    explicit RunsPage(std::shared_ptr<const runs::Operations> operations, QWidget* parent = nullptr);
    ~RunsPage() override;

    RunsModel* model() const { return m_model; }
    QTableView* view() const { return m_view; }
    QCustomPlot* comparePlot() const { return m_compare; }
    // Lists the runs directory again (in the background).
    void refresh();
    QStringList selectedRunDirs() const;
    void selectRunDir(const QString& runDir);
    // Adds the loss curve of a run to the comparison (loaded in the background).
    void compareRunDirs(const QStringList& runDirs);
    // Asks the head nodes of remote runs that are not known to have ended about their state (worker
    // thread, one at a time) and lists again; remoteSynced() follows.
    void syncRemoteRuns();

  Q_SIGNALS:
    void openRequested(const QString& runDir, bool live);
    void refreshed();
    void runLaunched(const QString& runDir); // resume relaunched it (a run dir or a remote run's record)
    void remoteSynced(const QStringList& errors);

  private:
    std::shared_ptr<const runs::Operations> m_operations;
    void updateButtons();
    void resumeSelected();
    void cancelSelected();

    RunsModel* m_model = nullptr;
    QTableView* m_view = nullptr;
    QCustomPlot* m_compare = nullptr;
    QCPItemText* m_compareHint = nullptr; // shown while no run is plotted
    QLabel* m_info = nullptr;
    QPushButton *m_open = nullptr, *m_compareBtn = nullptr, *m_resume = nullptr, *m_cancel = nullptr;
    QTimer* m_timer = nullptr;
    bool m_listing = false;
    bool m_syncing = false;
    QTimer* m_remoteTimer = nullptr;
    quint64 m_compareTicket = 0;
};

} // namespace traindeck::gui
