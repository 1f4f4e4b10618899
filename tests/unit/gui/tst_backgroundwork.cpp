// The GUI's worker threads (backgroundwork.h) at application exit: a job blocked in a call (a gate, or
// the Runs page's listing blocked on opening a FIFO, like a stalled SSH read) makes exit wait a bounded
// time, is left running and never destroyed, and its late result is dropped without touching the
// destroyed receiver, even after the QApplication itself is gone; a job that finishes within the wait is
// cleaned up at exit and its result dropped too. While the program runs, results reach live receivers
// on the GUI thread.
#include "backgroundwork.h"
#include "runs/operations.h"
#include "runspage.h"
#include "settings.h"
#include "test_gate.h"

#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QPointer>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <QTimer>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <fcntl.h>
#include <mutex>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace traindeck;
using namespace traindeck::gui;

namespace {

using guitest::Gate;

// A run directory whose run.json is a FIFO: the Runs page's listing (launch::listRuns on its worker
// thread) blocks in open() until release() opens it for writing.
struct FifoRun {
    QString path;

    bool make(const QString& runsDir)
    {
        const QString dir = QDir(runsDir).filePath(QStringLiteral("blocked-20250101-100000"));
        path = dir + QStringLiteral("/run.json");
        return QDir().mkpath(dir) && ::mkfifo(QFile::encodeName(path).constData(), 0600) == 0;
    }
    // O_RDWR never blocks on a FIFO and counts as a writer: the reader's open() returns (then EOF).
    void release() const
    {
        const int fd = ::open(QFile::encodeName(path).constData(), O_RDWR | O_NONBLOCK);
        if (fd >= 0)
            ::close(fd);
    }
};

// What the last test leaves for main(): a job still blocked when the QApplication is destroyed.
struct Late {
    std::shared_ptr<Gate> gate;
    QThread* thread = nullptr; // never destroyed while it runs
    std::shared_ptr<std::atomic<int>> delivered;
} g_late;

QPointer<QThread> onlyThread(const QString& name)
{
    const QList<QPointer<QThread>> threads = background::threads(name);
    return threads.size() == 1 ? threads.first() : QPointer<QThread>();
}

} // namespace

class TestBackgroundWork : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void resultOnTheGuiThread()
    {
        QObject receiver;
        QThread* worker = nullptr;
        int result = 0;
        QPointer<QThread> thread = background::run(
            &receiver,
            [&worker] {
                worker = QThread::currentThread();
                return 42;
            },
            [&result](int r) {
                QCOMPARE(QThread::currentThread(), qApp->thread());
                result = r;
            },
            QStringLiteral("Answer"));
        QVERIFY(thread);
        QTRY_COMPARE(result, 42);
        QVERIFY(worker && worker != qApp->thread());
        QTRY_VERIFY(!thread); // deleted itself
        QCOMPARE(background::threadCount(), 0);
    }

    void resultDroppedWhenTheReceiverIsGone()
    {
        auto gate = std::make_shared<Gate>();
        auto* receiver = new QObject;
        int delivered = 0;
        QPointer<QThread> thread = background::run(
            receiver,
            [gate] {
                gate->pass();
                return 1;
            },
            [receiver, &delivered](int) {
                receiver->setObjectName(QStringLiteral("touched")); // would be a use after free
                ++delivered;
            });
        QVERIFY(gate->waitEntered(10000));
        QCOMPARE(background::threadCount(), 1);
        delete receiver;
        gate->release();
        QTRY_VERIFY(!thread);
        QCoreApplication::processEvents();
        QCOMPARE(delivered, 0);
    }

    void runsPageWorkersAreRegistered()
    {
        // The listing blocks on the FIFO: the page is not blocked, the thread is registered, and its
        // result arrives once the call returns.
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        FifoRun fifo;
        QVERIFY(fifo.make(tmp.path()));
        Settings::setRunsDirOverride(tmp.path());
        {
            RunsPage page(std::make_shared<runs::Operations>());
            QSignalSpy refreshed(&page, &RunsPage::refreshed);
            QTRY_COMPARE(background::threadCount(QStringLiteral("RunsPage")), 1);
            QTest::qWait(200);
            QCOMPARE(refreshed.size(), 0);
            fifo.release();
            QTRY_COMPARE(refreshed.size(), 1);
            QTRY_COMPARE(background::threadCount(), 0);
        }
        Settings::setRunsDirOverride(QString());
    }

    // Last: application exit sets quitting() for good.
    void applicationExitWithBlockedJobs()
    {
        {
            // Released 300 ms into the exit wait: finished and deleted when exit returns, results dropped.
            QTemporaryDir tmp;
            QVERIFY(tmp.isValid());
            FifoRun fifo;
            QVERIFY(fifo.make(tmp.path()));
            Settings::setRunsDirOverride(tmp.path());
            auto* page = new RunsPage(std::make_shared<runs::Operations>());
            QSignalSpy refreshed(page, &RunsPage::refreshed);
            auto gate = std::make_shared<Gate>();
            QObject receiver;
            int delivered = 0;
            QPointer<QThread> job = background::run(
                &receiver,
                [gate] {
                    gate->pass();
                    return 1;
                },
                [&delivered](int) { ++delivered; });
            QVERIFY(gate->waitEntered(10000));
            QTest::qWait(200);
            QCOMPARE(refreshed.size(), 0); // the listing is blocked on the FIFO
            QPointer<QThread> listing = onlyThread(QStringLiteral("RunsPage"));
            const bool listingRegistered = !listing.isNull();
            std::thread releaser([gate, fifo] {
                std::this_thread::sleep_for(std::chrono::milliseconds(300));
                gate->release();
                fifo.release();
            });
            QElapsedTimer t;
            t.start();
            QTimer::singleShot(0, qApp, &QCoreApplication::quit);
            qApp->exec(); // aboutToQuit: stops and waits for the worker threads
            const qint64 took = t.elapsed();
            releaser.join();
            QVERIFY(background::quitting());
            QVERIFY2(took >= 250 && took < 2500, qPrintable(QStringLiteral("exit took %1 ms").arg(took)));
            QTest::qWait(200);
            QCOMPARE(delivered, 0);        // results after quitting are dropped,
            QCOMPARE(refreshed.size(), 0); // even for receivers still alive
            QVERIFY(!job);                 // finished within the wait and deleted there
            QVERIFY(listingRegistered);
            QVERIFY(!listing);
            QCOMPARE(background::threadCount(), 0);
            delete page;
            Settings::setRunsDirOverride(QString());
        }
        {
            // Still blocked: exit returns after the bounded wait and leaves them running.
            QTemporaryDir tmp;
            QVERIFY(tmp.isValid());
            FifoRun fifo;
            QVERIFY(fifo.make(tmp.path()));
            Settings::setRunsDirOverride(tmp.path());
            auto* page = new RunsPage(std::make_shared<runs::Operations>());
            QTRY_COMPARE(background::threadCount(QStringLiteral("RunsPage")), 1);
            QPointer<QThread> listing = onlyThread(QStringLiteral("RunsPage"));
            QVERIFY(listing);
            g_late.gate = std::make_shared<Gate>();
            g_late.delivered = std::make_shared<std::atomic<int>>(0);
            auto* receiver = new QObject;
            g_late.thread = background::run(
                receiver,
                [gate = g_late.gate] {
                    gate->pass();
                    return 1;
                },
                [receiver, delivered = g_late.delivered](int) {
                    receiver->setObjectName(QStringLiteral("touched")); // would be a use after free
                    ++*delivered;
                },
                QStringLiteral("Late"));
            QVERIFY(g_late.gate->waitEntered(10000));
            QPointer<QThread> late = g_late.thread;
            QElapsedTimer t;
            t.start();
            QTimer::singleShot(0, qApp, &QCoreApplication::quit);
            qApp->exec();
            const qint64 took = t.elapsed();
            QVERIFY2(took >= background::kShutdownWaitMs - 100 && took < 6000,
                     qPrintable(QStringLiteral("exit took %1 ms").arg(took)));
            QVERIFY(listing && listing->isRunning()); // left, not destroyed
            QVERIFY(late && late->isRunning());
            QCOMPARE(background::threadCount(), 2);
            // The objects the results were for are destroyed (as at the end of main()).
            delete page;
            delete receiver;
            QVERIFY(listing && listing->isRunning());
            fifo.release(); // the listing returns late; its result goes nowhere
            QTRY_VERIFY_WITH_TIMEOUT(!listing, 10000);
            QCOMPARE(background::threadCount(), 1);
            Settings::setRunsDirOverride(QString());
            // g_late stays blocked: main() releases it after destroying the QApplication.
        }
    }
};

int main(int argc, char** argv)
{
    auto* app = new QApplication(argc, argv);
    app->setAttribute(Qt::AA_Use96Dpi, true);
    QTEST_SET_MAIN_SOURCE_PATH
    int rc = 0;
    {
        TestBackgroundWork tc;
        rc = QTest::qExec(&tc, argc, argv);
    }
    if (!g_late.thread)
        return rc ? rc : 1;
    // The QApplication is gone while a worker is still blocked; then its call returns: its result is
    // dropped (nothing may touch the deleted receiver or the application), the thread ends normally.
    delete app;
    g_late.gate->release();
    if (!g_late.thread->wait(10000)) {
        fprintf(stderr, "FAIL: the late worker did not end\n");
        return 1;
    }
    if (g_late.delivered->load() != 0) {
        fprintf(stderr, "FAIL: a result was delivered after the application was destroyed\n");
        return 1;
    }
    fprintf(stderr, "PASS: the late worker ended after the application was destroyed; its result was dropped\n");
    return rc;
}

#include "tst_backgroundwork.moc"
