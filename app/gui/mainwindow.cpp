#include "mainwindow.h"

#include "checkspage.h"
#include "clusterpage.h"
#include "icons.h"
#include "launch/transport.h"
#include "launchpage.h"
#include "monitorpage.h"
#include "plotstyle.h"
#include "runsession.h"
#include "runspage.h"
#include "settings.h"
#include "settingspage.h"
#include "sshwizard.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QIcon>
#include <QLabel>
#include <QListWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QShortcut>
#include <QStackedWidget>
#include <QStatusBar>

namespace traindeck::gui {

QString MainWindow::pageKey(Page page)
{
    switch (page) {
    case MonitorPageIndex: return QStringLiteral("monitor");
    case RunsPageIndex: return QStringLiteral("runs");
    case LaunchPageIndex: return QStringLiteral("launch");
    case ChecksPageIndex: return QStringLiteral("checks");
    case ClusterPageIndex: return QStringLiteral("cluster");
    case SettingsPageIndex: return QStringLiteral("settings");
    case PageCount: break;
    }
    return QString();
}

MainWindow::MainWindow(RunSession* session, QWidget* parent) : QMainWindow(parent), m_session(session)
{
    setWindowTitle(tr("TrainDeck"));
    setWindowIcon(appIcon(QStringLiteral("traindeck")));
    resize(1280, 800);

    buildPages();
    buildMenu();
    buildStatusBar();
    connectPages();
    connectSession();
}

// The sidebar and the stacked pages, with their Ctrl+1..N shortcuts.
void MainWindow::buildPages()
{
    auto* central = new QWidget(this);
    auto* layout = new QHBoxLayout(central);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    m_sidebar = new QListWidget(central);
    m_sidebar->setAccessibleName(tr("Pages"));
    m_sidebar->setIconSize(QSize(22, 22));
    m_sidebar->setSpacing(2);
    m_sidebar->setFrameShape(QFrame::NoFrame);
    m_sidebar->setFixedWidth(150);
    QPalette sp = m_sidebar->palette();
    sp.setColor(QPalette::Base, palette().color(QPalette::Window).darker(106));
    m_sidebar->setPalette(sp);
    m_stack = new QStackedWidget(central);

    m_monitor = new MonitorPage(m_session, m_stack);
    m_runs = new RunsPage(m_session->operations(), m_stack);
    m_launch = new LaunchPage(m_session->operations(), m_stack);
    m_checks = new ChecksPage(m_stack);
    m_cluster = new ClusterPage(m_stack);
    m_settings = new SettingsPage(m_stack);
    const struct {
        QWidget* w;
        QString name, icon, tip;
    } pages[] = {
        {m_monitor, tr("Monitor"), QStringLiteral("monitor"),
         tr("Live curves, devices, load balance and diagnosis (Ctrl+1)")},
        {m_runs, tr("Runs"), QStringLiteral("runs"), tr("Run history: open, compare, resume, cancel (Ctrl+2)")},
        {m_launch, tr("Launch"), QStringLiteral("launch"), tr("Start a training run (Ctrl+3)")},
        {m_checks, tr("Checks"), QStringLiteral("checks"), tr("Check the nodes: GPUs, versions, SSH, disk (Ctrl+4)")},
        {m_cluster, tr("Cluster"), QStringLiteral("cluster"), tr("Nodes, hostfile and SSH setup (Ctrl+5)")},
        {m_settings, tr("Settings"), QStringLiteral("settings"), tr("Runs directory, language, colours (Ctrl+6)")},
    };
    for (int i = 0; i < PageCount; ++i) {
        auto* item = new QListWidgetItem(appIcon(pages[i].icon), pages[i].name);
        item->setToolTip(pages[i].tip);
        item->setSizeHint(QSize(140, 40));
        m_sidebar->addItem(item);
        m_stack->addWidget(pages[i].w);
        auto* sc = new QShortcut(QKeySequence(Qt::CTRL | Qt::Key(Qt::Key_1 + i)), this);
        connect(sc, &QShortcut::activated, this, [this, i] { showPage(Page(i)); });
    }
    layout->addWidget(m_sidebar);
    layout->addWidget(m_stack, 1);
    setCentralWidget(central);
    connect(m_sidebar, &QListWidget::currentRowChanged, m_stack, &QStackedWidget::setCurrentIndex);
    m_sidebar->setCurrentRow(0);
}

// File and Help menus.
void MainWindow::buildMenu()
{
    auto* fileMenu = menuBar()->addMenu(tr("&File"));
    QAction* demo = fileMenu->addAction(tr("Run the &demo"));
    demo->setToolTip(tr("Launch the tiny demo on this machine (2 CPU ranks)"));
    connect(demo, &QAction::triggered, this, &MainWindow::launchDemo);
    QAction* openMetrics = fileMenu->addAction(tr("&Open metrics file…"));
    openMetrics->setShortcut(QKeySequence::Open);
    connect(openMetrics, &QAction::triggered, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open metrics file"), Settings::runsDir(),
                                                          tr("Metrics (metrics.jsonl *.jsonl)"));
        if (!path.isEmpty()) {
            m_session->openOffline(path);
            showPage(MonitorPageIndex);
        }
    });
    fileMenu->addSeparator();
    QAction* quit = fileMenu->addAction(tr("&Quit"));
    quit->setShortcut(QKeySequence::Quit);
    connect(quit, &QAction::triggered, this, &QWidget::close);
    auto* helpMenu = menuBar()->addMenu(tr("&Help"));
    QAction* about = helpMenu->addAction(tr("&About TrainDeck"));
    connect(about, &QAction::triggered, this, [this] {
        QMessageBox::about(
            this, tr("About TrainDeck"),
            tr("TrainDeck %1\nData-parallel LLM training on a small cluster: launch, monitor, diagnose, resume.")
                .arg(QStringLiteral(TRAINDECK_VERSION)));
    });
}

// The connection, job and monitor status in the status bar.
void MainWindow::buildStatusBar()
{
    m_connection = new QLabel(this);
    m_job = new QLabel(this);
    m_monitorStatus = new QLabel(this);
    statusBar()->addWidget(m_connection);
    statusBar()->addWidget(m_job);
    statusBar()->addPermanentWidget(m_monitorStatus);
    updateConnection();
    setJobState(tr("No job"), palette().color(QPalette::WindowText));
}

// What the pages ask of each other: open a run, follow a launched one, reattach at start, profiles.
void MainWindow::connectPages()
{
    connect(m_monitor, &MonitorPage::statusTextChanged, m_monitorStatus, &QLabel::setText);
    connect(m_runs, &RunsPage::openRequested, this, [this](const QString& runDir, bool live) {
        // runDir: a run directory or a remote run's record (offline: its metrics mirror).
        if (live)
            m_session->followRecord(runDir);
        else
            m_session->openOffline(launch::runFile(runDir, launch::runfile::kMetrics));
        showPage(MonitorPageIndex);
    });
    connect(m_runs, &RunsPage::runLaunched, this, [this](const QString& runDir) {
        m_session->followRecord(runDir);
        showPage(MonitorPageIndex);
    });
    // Reattach: the first listing after start follows the newest live run, if any (a remote one over
    // SSH, connected on a worker thread; the Runs page also asks the heads of the others).
    connect(m_runs, &RunsPage::refreshed, this, [this] {
        static bool first = true;
        if (!first)
            return;
        first = false;
        if (m_session->mode() != RunSession::Mode::None)
            return;
        for (const auto& r : m_runs->model()->runs()) {
            if (!launch::isFinal(r.state)) {
                m_session->followRecord(r.runDir);
                statusBar()->showMessage(tr("Reattached to running job %1").arg(r.runId), 8000);
                break;
            }
        }
    });
    connect(m_launch, &LaunchPage::launched, this, [this](const QString& runDir) {
        // A run directory, or the local record of a run on a remote head (mirrored while followed).
        m_session->followRecord(runDir);
        statusBar()->showMessage(tr("Launched %1").arg(runDir), 8000);
        m_runs->refresh();
        showPage(MonitorPageIndex);
    });
    connect(m_launch, &LaunchPage::launchFailed, this,
            [this](const QString& message) { QMessageBox::warning(this, tr("Launch failed"), message); });
    connect(m_cluster, &ClusterPage::profilesChanged, m_launch, &LaunchPage::reloadProfiles);
    connect(m_cluster, &ClusterPage::profilesChanged, this, &MainWindow::updateConnection);
    connect(m_cluster, &ClusterPage::currentProfileChanged, this, [this] {
        updateConnection();
        if (!m_checks->isRunning() && !m_checks->isTestingLinks())
            m_checks->setProfile(m_cluster->profile());
    });
    connect(m_cluster, &ClusterPage::sshSetupRequested, this, [this](const cluster::ClusterProfile& profile) {
        if (profile.isLocal) {
            QMessageBox::information(this, tr("SSH setup"),
                                     tr("The local profile runs on this machine and needs no SSH."));
            return;
        }
        auto* wizard = new SshWizard(profile, this);
        wizard->setAttribute(Qt::WA_DeleteOnClose);
        wizard->open();
    });
}

// The checks' profile, settings, and the session's job state and failures.
void MainWindow::connectSession()
{
    // The Checks page checks the Cluster page's current profile.
    m_checks->setProfile(m_cluster->profile());
    connect(m_sidebar, &QListWidget::currentRowChanged, this, [this](int row) {
        if (row == ChecksPageIndex && !m_checks->isRunning())
            m_checks->setProfile(m_cluster->profile());
    });
    connect(m_settings, &SettingsPage::languageChanged, this, &MainWindow::languageChangeRequested);
    connect(m_settings, &SettingsPage::runsDirChanged, m_runs, &RunsPage::refresh);
    connect(m_session, &RunSession::jobStateChanged, this, [this](launch::JobState s) {
        setJobState(tr("Job %1: %2").arg(m_session->title(), RunsModel::stateText(s)), RunsModel::stateColor(s));
    });
    connect(m_session, &RunSession::jobEnded, this, [this](launch::JobState s, const QString& failure) {
        m_runs->refresh();
        if (s == launch::JobState::Failed || s == launch::JobState::Lost) {
            const QString text = failure.isEmpty() ? RunsModel::stateText(s) : failure;
            setJobState(tr("Job %1: %2").arg(m_session->title(), text), RunsModel::stateColor(s));
            statusBar()->showMessage(tr("The run failed: %1 — resume it on the Runs page").arg(text), 15000);
        }
    });
    connect(m_session, &RunSession::modeChanged, this, [this](RunSession::Mode m) {
        if (m == RunSession::Mode::Offline)
            setJobState(tr("Viewing a finished run offline"), palette().color(QPalette::WindowText));
        else if (m == RunSession::Mode::Loading)
            setJobState(tr("Loading…"), palette().color(QPalette::WindowText));
        else if (m == RunSession::Mode::None)
            setJobState(tr("No job"), palette().color(QPalette::WindowText));
    });
    // A remote run's head could not be reached (reattach at start, Open in Monitor, after a resume).
    connect(m_session, &RunSession::followFailed, this, [this](const QString& runDir, const QString& message) {
        statusBar()->showMessage(tr("Cannot follow %1: %2").arg(QDir(runDir).dirName(), message), 30000);
    });
    connect(m_session, &RunSession::loadFailed, this, [this](const QString& path, const QString& message) {
        QMessageBox::warning(this, tr("Cannot open run"), tr("%1: %2").arg(path, message));
    });
}

MainWindow::~MainWindow() = default;

void MainWindow::showPage(Page page)
{
    m_sidebar->setCurrentRow(int(page));
    m_stack->currentWidget()->setFocus();
}

MainWindow::Page MainWindow::currentPage() const
{
    return Page(m_stack->currentIndex());
}
QWidget* MainWindow::page(Page page) const
{
    return m_stack->widget(int(page));
}

void MainWindow::updateConnection()
{
    const QString profile = m_cluster->profileName();
    const auto p = m_cluster->profile();
    if (p.isLocal || profile == QLatin1String("local"))
        m_connection->setText(tr("Connection: this machine (local profile)"));
    else
        m_connection->setText(tr("Connection: profile %1, head node %2").arg(profile, p.head().sshTarget()));
}

void MainWindow::setJobState(const QString& text, const QColor& color)
{
    m_job->setText(QStringLiteral("  ●  ") + text);
    QPalette pal = m_job->palette();
    pal.setColor(QPalette::WindowText, color);
    m_job->setPalette(pal);
}

void MainWindow::launchDemo()
{
    m_launch->applyPreset(LaunchPage::Preset::TinyDemo);
    m_launch->setProfileName(QStringLiteral("local"));
    m_launch->setRanks(2);
    m_launch->launchNow();
}

} // namespace traindeck::gui
