// The main window: a sidebar of pages (Monitor, Runs, Launch, Checks, Cluster, Settings), a status bar with
// the connection (cluster profile / head node) and the shown job's state. Ctrl+1..Ctrl+6 switch pages.
#pragma once

#include <QMainWindow>

class QLabel;
class QListWidget;
class QStackedWidget;

namespace traindeck::gui {

class ChecksPage;
class ClusterPage;
class LaunchPage;
class MonitorPage;
class RunSession;
class RunsPage;
class SettingsPage;

class MainWindow : public QMainWindow {
    Q_OBJECT

  public:
    enum Page {
        MonitorPageIndex,
        RunsPageIndex,
        LaunchPageIndex,
        ChecksPageIndex,
        ClusterPageIndex,
        SettingsPageIndex,
        PageCount
    };

    explicit MainWindow(RunSession* session, QWidget* parent = nullptr);
    ~MainWindow() override;

    void showPage(Page page);
    Page currentPage() const;
    QWidget* page(Page page) const;
    static QString pageKey(Page page); // "monitor", "runs", ... (screenshot file names)
    QListWidget* sidebar() const { return m_sidebar; }
    MonitorPage* monitorPage() const { return m_monitor; }
    ClusterPage* clusterPage() const { return m_cluster; }
    ChecksPage* checksPage() const { return m_checks; }
    RunsPage* runsPage() const { return m_runs; }
    LaunchPage* launchPage() const { return m_launch; }
    SettingsPage* settingsPage() const { return m_settings; }

    // Starts the embedded default run (local profile, 2 CPU ranks, qwen2-tiny, demo corpus).
    void launchDemo();

  Q_SIGNALS:
    void languageChangeRequested(const QString& language);

  private:
    void buildPages();
    void buildMenu();
    void buildStatusBar();
    void connectPages();
    void connectSession();
    void updateConnection();
    void setJobState(const QString& text, const QColor& color);

    RunSession* m_session;
    QListWidget* m_sidebar = nullptr;
    QStackedWidget* m_stack = nullptr;
    MonitorPage* m_monitor = nullptr;
    RunsPage* m_runs = nullptr;
    LaunchPage* m_launch = nullptr;
    ChecksPage* m_checks = nullptr;
    ClusterPage* m_cluster = nullptr;
    SettingsPage* m_settings = nullptr;
    QLabel* m_connection = nullptr;
    QLabel* m_job = nullptr;
    QLabel* m_monitorStatus = nullptr;
};

} // namespace traindeck::gui
