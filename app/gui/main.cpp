// traindeck: the desktop application.
//   traindeck [--demo] [--screenshots DIR [--screenshot-delay S]] [--runs-dir DIR] [--lang L] [--open FILE]
//             [--profile FILE|NAME [--check]]
// Exit codes: 0 success, 1 screenshots could not be written, 2 bad command line.
#include "checkspage.h"
#include "cluster/clusterprofile.h"
#include "clusterpage.h"
#include "common/processguard.h"
#include "language.h"
#include "mainwindow.h"
#include "monitorpage.h"
#include "runs/operations.h"
#include "runsession.h"
#include "screenshots.h"
#include "settings.h"
#include "ssh/sshtransport.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>
#include <QPointer>
#include <QTextStream>
#include <QTimer>

using namespace traindeck::gui;

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    // Passwords and passphrases typed into the wizard and prompts stay out of core dumps.
    if (const traindeck::Status guarded = traindeck::protectProcessSecrets(); !guarded)
        qWarning("traindeck: %s", qPrintable(guarded.errorString()));
    QCoreApplication::setOrganizationName(QStringLiteral("TrainDeck"));
    QCoreApplication::setApplicationName(QStringLiteral("traindeck"));
    QCoreApplication::setApplicationVersion(QStringLiteral(TRAINDECK_VERSION));
    QGuiApplication::setDesktopFileName(QStringLiteral("traindeck"));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("TrainDeck: data-parallel LLM training manager"));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption demo(
        QStringLiteral("demo"),
        QStringLiteral("Launch the embedded default run (local profile, 2 CPU ranks, qwen2-tiny, demo corpus)."));
    const QCommandLineOption shots(QStringLiteral("screenshots"),
                                   QStringLiteral("Write a PNG of every page to DIR and exit (test aid)."),
                                   QStringLiteral("DIR"));
    const QCommandLineOption delay(
        QStringLiteral("screenshot-delay"),
        QStringLiteral("Seconds to wait before the screenshots (default 30 with --demo, else 1)."),
        QStringLiteral("S"));
    const QCommandLineOption runsDir(QStringLiteral("runs-dir"), QStringLiteral("Runs directory for this session."),
                                     QStringLiteral("DIR"));
    const QCommandLineOption lang(
        QStringLiteral("lang"),
        QStringLiteral("Language, e.g. zh_CN or en (default: settings, then the system locale)."), QStringLiteral("L"));
    const QCommandLineOption open(QStringLiteral("open"), QStringLiteral("Open a metrics.jsonl file offline."),
                                  QStringLiteral("FILE"));
    const QCommandLineOption profileOption(QStringLiteral("profile"),
                                           QStringLiteral("Cluster profile to show: a saved name, or a file (imported "
                                                          "as a saved profile, replacing one of its name)."),
                                           QStringLiteral("FILE|NAME"));
    const QCommandLineOption check(
        QStringLiteral("check"), QStringLiteral("With --profile: run the node checks, then the link test, at start."));
    parser.addOptions({demo, shots, delay, runsDir, lang, open, profileOption, check});
    parser.process(app);
    QString profileName;
    if (parser.isSet(profileOption)) {
        const QString which = parser.value(profileOption);
        if (QFileInfo(which).isFile()) {
            const auto imported = traindeck::cluster::ClusterProfile::importFile(which, QString(), /*overwrite=*/true);
            if (!imported) {
                QTextStream(stderr) << "traindeck: --profile: " << imported.errorString();
                return 2;
            }
            profileName = imported->name;
        } else {
            const auto named = traindeck::cluster::ClusterProfile::loadNamed(which);
            if (!named) {
                QTextStream(stderr) << "traindeck: --profile: " << named.errorString();
                return 2;
            }
            profileName = which;
        }
    }

    if (parser.isSet(runsDir))
        Settings::setRunsDirOverride(parser.value(runsDir));
    Language::instance()->apply(parser.isSet(lang) ? parser.value(lang) : Settings::language());

    // Remote profiles launch, follow and cancel runs over SSH. Unknown host keys are not accepted here:
    // the Checks page or the SSH setup wizard asks about them first.
    RunSession session(std::make_shared<traindeck::runs::Operations>(traindeck::ssh::sshTransportFactory()));
    QPointer<MainWindow> window;
    std::function<void()> createWindow = [&] {
        const MainWindow::Page page = window ? window->currentPage() : MainWindow::MonitorPageIndex;
        const QByteArray geometry = window ? window->saveGeometry() : QByteArray();
        if (window)
            window->deleteLater();
        window = new MainWindow(&session);
        window->setAttribute(Qt::WA_DeleteOnClose);
        if (!geometry.isEmpty())
            window->restoreGeometry(geometry);
        window->showPage(page);
        // A new language rebuilds the window in it (the run session stays).
        QObject::connect(window, &MainWindow::languageChangeRequested, &app, [&](const QString& l) {
            Language::instance()->apply(l);
            QTimer::singleShot(0, &app, createWindow);
        });
        window->show();
    };
    createWindow();
    if (!profileName.isEmpty()) {
        window->clusterPage()->reloadProfiles();
        window->clusterPage()->selectProfile(profileName);
        window->checksPage()->setProfile(window->clusterPage()->profile());
        if (parser.isSet(check)) {
            // The link test after the node checks, as `traindeck-cli check --links` runs them: side by side
            // they would measure each other's load.
            QTimer::singleShot(0, &app, [&] {
                ChecksPage* page = window->checksPage();
                page->run();
                if (!page->isRunning())
                    return; // nothing was started (no nodes): no link test either
                QObject::connect(
                    page, &ChecksPage::finished, &app,
                    [page](const traindeck::checks::CheckReport& report) {
                        if (!report.cancelled) // a cancel stops what --check started, the link test too
                            page->testLinks();
                    },
                    Qt::SingleShotConnection);
            });
        }
    }

    if (parser.isSet(open))
        session.openOffline(parser.value(open));
    if (parser.isSet(demo))
        QTimer::singleShot(0, &app, [&] { window->launchDemo(); });

    if (parser.isSet(shots)) {
        bool ok = false;
        double seconds = parser.value(delay).toDouble(&ok);
        if (!ok)
            seconds = parser.isSet(demo) ? 30 : 1;
        const QString dir = parser.value(shots);
        QTimer::singleShot(int(seconds * 1000), &app, [&, dir] {
            const traindeck::Result<QStringList> files = writeScreenshots(window, dir);
            if (!files) {
                QTextStream(stderr) << "traindeck: " << files.errorString();
                app.exit(1);
                return;
            }
            QTextStream out(stdout);
            for (const QString& f : files.value())
                out << f << '\n';
            app.exit(files->isEmpty() ? 1 : 0);
        });
    }
    return app.exec();
}
