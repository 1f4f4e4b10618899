#include "screenshots.h"

#include "checksmodel.h"
#include "checkspage.h"
#include "mainwindow.h"
#include "monitorpage.h"
#include "qcp.h"
#include "sshwizard.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QPixmap>
#include <QTableView>
#include <QTimer>

namespace traindeck::gui {

static void settle(int ms = 150)
{
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < ms)
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
}

Result<QStringList> writeScreenshots(MainWindow* window, const QString& dir)
{
    QStringList written;
    Diagnostics failed;
    if (!QDir().mkpath(dir))
        return Result<QStringList>::failure(Diagnostic::error(
            dir, QCoreApplication::translate("traindeck::gui::MainWindow", "cannot create the directory")));
    const MainWindow::Page previous = window->currentPage();
    auto shoot = [&](const QString& name) {
        settle();
        const QString path = QDir(dir).filePath(name + QStringLiteral(".png"));
        if (window->grab().save(path, "PNG"))
            written << path;
        else
            failed.append(
                Diagnostic::error(path, QCoreApplication::translate("traindeck::gui::MainWindow", "cannot write")));
    };
    int n = 1;
    for (int p = 0; p < MainWindow::PageCount; ++p) {
        window->showPage(MainWindow::Page(p));
        if (p == MainWindow::MonitorPageIndex) {
            MonitorPage* monitor = window->monitorPage();
            const char* tabs[] = {"training", "devices", "balance", "logs"};
            for (int t = 0; t < 4; ++t) {
                monitor->setCurrentTab(MonitorPage::Tab(t));
                monitor->refreshNow();
                shoot(QStringLiteral("%1-monitor-%2").arg(n++, 2, 10, QLatin1Char('0')).arg(QLatin1String(tabs[t])));
            }
            monitor->setCurrentTab(MonitorPage::TrainingTab);
            continue;
        }
        if (p == MainWindow::ChecksPageIndex) {
            // The checks of the current profile (quick for the local profile), first cell selected.
            ChecksPage* checks = window->checksPage();
            QEventLoop loop;
            QObject::connect(checks, &ChecksPage::finished, &loop, &QEventLoop::quit);
            QTimer::singleShot(60000, &loop, &QEventLoop::quit);
            checks->run();
            if (checks->isRunning())
                loop.exec();
            checks->resultsView()->setCurrentIndex(checks->resultsModel()->index(0, 0));
        }
        shoot(QStringLiteral("%1-%2").arg(n++, 2, 10, QLatin1Char('0')).arg(MainWindow::pageKey(MainWindow::Page(p))));
    }
    window->showPage(previous);

    // The SSH setup wizard's first page for an example two-node profile (nothing is written).
    cluster::ClusterProfile example;
    example.name = QStringLiteral("lab");
    for (const char* host : {"gpu-a", "gpu-b"}) {
        cluster::ClusterNode node;
        node.name = node.host = QLatin1String(host);
        example.nodes.append(node);
    }
    SshWizard wizard(example, window);
    wizard.show();
    settle();
    const QString path = QDir(dir).filePath(QStringLiteral("%1-ssh-wizard.png").arg(n++, 2, 10, QLatin1Char('0')));
    if (wizard.grab().save(path, "PNG"))
        written << path;
    else
        failed.append(
            Diagnostic::error(path, QCoreApplication::translate("traindeck::gui::MainWindow", "cannot write")));
    if (!failed.isEmpty())
        return Result<QStringList>::failure(failed);
    return written;
}

} // namespace traindeck::gui
