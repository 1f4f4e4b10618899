// Checks: runs the node checks (checks::ClusterChecker) of the current cluster profile without
// blocking the GUI, with progress and Cancel. Shows a nodes × checks matrix (pass/warn/fail as text
// and colour), the evidence and remedy of the selected cell, and the cross-node version matrix with
// the cells that differ from the head highlighted. Host-key and passphrase questions of the checker
// are asked in dialogs.
#pragma once

#include "checks/linktest.h"
#include "checks/nodecheck.h"
#include "cluster/clusterprofile.h"
#include "ssh/sshtypes.h"

#include <QWidget>

#include <memory>

class QCheckBox;
class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QTableView;
class QTableWidget;

namespace traindeck::checks {
class ClusterChecker;
}
namespace traindeck::ssh {
class PromptBroker;
}

namespace traindeck::gui {

class CheckResultsModel;
class VersionMatrixModel;

// Asks a person about a host key (modal): shows the SHA256 fingerprint for an unknown key; a changed
// key (or one of another type) is refused with HostKeyInfo::explanation() and returns Reject.
ssh::HostKeyDecision askHostKeyDecision(QWidget* parent, const ssh::HostKeyInfo& info);
// Connects a broker's questions to dialogs parented to `parent` (host keys, key passphrases, passwords).
void connectPromptDialogs(ssh::PromptBroker* broker, QWidget* parent);

class ChecksPage : public QWidget {
    Q_OBJECT

  public:
    explicit ChecksPage(QWidget* parent = nullptr);
    ~ChecksPage() override;

    void setProfile(const cluster::ClusterProfile& profile);
    cluster::ClusterProfile profile() const { return m_profile; }
    bool isRunning() const;
    checks::CheckReport report() const { return m_report; }

    // Shows a report without running (a finished report, or one built by a test).
    void showReport(const checks::CheckReport& report);

    CheckResultsModel* resultsModel() const { return m_results; }
    VersionMatrixModel* versionModel() const { return m_versions; }
    QTableView* resultsView() const { return m_resultsView; }
    QTableView* versionView() const { return m_versionView; }
    QCheckBox* everyNodeBox() const { return m_everyNode; }
    QPlainTextEdit* detailsView() const { return m_details; }
    QProgressBar* progressBar() const { return m_progress; }
    QPushButton* runButton() const { return m_run; }
    QPushButton* rerunSelectedButton() const { return m_rerunSelected; }
    // Rows (node indices) with a selected cell, ascending.
    QList<int> selectedNodes() const;
    QPushButton* cancelButton() const { return m_cancel; }
    QPushButton* linksButton() const { return m_links; }
    QCheckBox* allPairsBox() const { return m_allPairs; }
    QTableWidget* linksView() const { return m_linksView; }
    QLabel* linksSummary() const { return m_linksSummary; }
    bool isTestingLinks() const { return m_linksRunning; }
    // Shows a link test result (a finished one, or one built by a test).
    void showLinks(const Result<checks::LinkReport>& result);

  public Q_SLOTS:
    void run();
    // Runs the checks again on the nodes with a selected row/cell only (after a first run): a checker
    // on a copy of the profile with just those nodes (plus the head, whose results are then not taken
    // over unless it is selected); only those rows are replaced and the version matrix is rebuilt
    // from the merged report.
    void runSelected();
    void cancel();
    // The link test (checks::LinkTest) on a worker thread: rounds of node pairs over MPI, shown as the
    // nodes ranked slowest first with the verdicts (every pair and the matrix with All pairs).
    void testLinks();

  Q_SIGNALS:
    void finished(const traindeck::checks::CheckReport& report);
    void linksFinished(const traindeck::Result<traindeck::checks::LinkReport>& result);

  private:
    void onCurrentChanged();
    void onFinished(const checks::CheckReport& report);
    void updateSummary();
    void updateRerunSelected();
    // Starts m_checker on `profile`; rowOf maps the checker's node index to a results row (-1: not shown).
    // rowOf: checker node -> results row for a partial run; a full run takes every row of the checker.
    void startChecker(const cluster::ClusterProfile& profile, const QList<int>& rowOf, bool partial);
    // The last run's rows can be re-run one by one (not a Slurm profile's, nor a stale run's).
    bool canRerunSelected() const;

    cluster::ClusterProfile m_profile;
    checks::CheckReport m_report;
    QList<checks::NodeReport> m_raw;     // per row, as the node's worker reported it (before buildMatrix)
    QList<checks::NodeReport> m_pending; // per checker node, of the run in progress
    QList<int> m_rowOf;                  // checker node -> results row (-1: run for the head only)
    bool m_partial = false;
    std::unique_ptr<checks::ClusterChecker> m_checker;
    CheckResultsModel* m_results = nullptr;
    VersionMatrixModel* m_versions = nullptr;
    QLabel* m_profileLabel = nullptr;
    QLabel* m_summary = nullptr;
    QPushButton* m_run = nullptr;
    QPushButton* m_rerunSelected = nullptr;
    QPushButton* m_cancel = nullptr;
    QProgressBar* m_progress = nullptr;
    QTableView* m_resultsView = nullptr;
    QTableView* m_versionView = nullptr;
    QCheckBox* m_everyNode = nullptr; // the version matrix with a column per node at many nodes
    QPlainTextEdit* m_details = nullptr;
    QPushButton* m_links = nullptr;
    QCheckBox* m_allPairs = nullptr;
    QTableWidget* m_linksView = nullptr;
    QLabel* m_linksSummary = nullptr;
    ssh::PromptBroker* m_linkPrompts = nullptr;
    ssh::CancelToken m_linkCancel;
    bool m_linksRunning = false;
};

} // namespace traindeck::gui
