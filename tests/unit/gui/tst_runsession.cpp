// RunSession following runs through a transport whose calls block (a stalled SSH link, an end-of-run
// sync copying logs): the GUI thread never waits for the monitor's thread, the thread left behind
// cleans up after itself once its call returns, an old run's late end is not taken for the new run's,
// and the application exits without destroying a thread that still runs.
#include "gui_testdata.h"
#include "runs/operations.h"
#include "runsession.h"
#include "test_gate.h"

#include "launch/rundir.h"
#include "launch/transport.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QPointer>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <QTimer>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

using namespace traindeck;
using namespace traindeck::gui;

namespace {

using guitest::Gate;

// LocalTransport whose process-group check blocks on a gate (like `ssh ... ps` over a stalled link).
class GatedTransport : public launch::LocalTransport {
  public:
    GatedTransport(std::shared_ptr<Gate> gate, launch::SignalResult answer) : m_gate(std::move(gate)), m_answer(answer)
    {
    }
    launch::SignalResult signalProcessGroup(qint64, int) override
    {
        if (m_gate)
            m_gate->pass();
        return m_answer;
    }

  private:
    std::shared_ptr<Gate> m_gate;
    launch::SignalResult m_answer;
};

// A run whose group lives (pid 424242 is never signalled: the transport answers).
std::shared_ptr<launch::Transport> aliveTransport()
{
    return std::make_shared<GatedTransport>(nullptr, launch::SignalResult::Delivered);
}

bool writeFile(const QString& path, const QByteArray& data)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(data) == data.size();
}

} // namespace

class TestGuiRunSession : public QObject {
    Q_OBJECT

    QTemporaryDir m_tmp;

    QString makeRun(const QString& name)
    {
        const QString dir = m_tmp.filePath(name);
        QDir().mkpath(dir);
        writeFile(launch::runFile(dir, launch::runfile::kPid), "424242\n");
        return dir;
    }

    static QPointer<QThread> monitorThread(RunSession& session)
    {
        return session.findChild<QThread*>(QStringLiteral("RunMonitor"));
    }

  private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_tmp.isValid());
        qRegisterMetaType<launch::JobState>();
    }

    void cleanup()
    {
        // Every test leaves no monitor thread behind.
        QTRY_COMPARE_WITH_TIMEOUT(RunSession::monitorThreadCount(), 0, 10000);
    }

    // Opening another run while the followed one's monitor is inside a blocking call: returns at once;
    // the old thread finishes and is deleted (with its monitor and transport) once the call returns.
    void switchingRunsDoesNotWaitForABlockedMonitor()
    {
        auto gate = std::make_shared<Gate>();
        auto gated = std::make_shared<GatedTransport>(gate, launch::SignalResult::Delivered);
        std::weak_ptr<launch::Transport> weak = gated;
        QPointer<QThread> old;
        QElapsedTimer t;
        {
            RunSession session(std::make_shared<runs::Operations>());
            session.followRun(makeRun(QStringLiteral("switch-a")), std::move(gated));
            QVERIFY(gate->waitEntered(10000));
            old = monitorThread(session);
            QVERIFY(old);
            QVERIFY(old->isRunning());

            t.start();
            session.followRun(makeRun(QStringLiteral("switch-b")), aliveTransport());
            QVERIFY2(t.elapsed() < 500, qPrintable(QStringLiteral("followRun took %1 ms").arg(t.elapsed())));
            QCOMPARE(session.runDir(), m_tmp.filePath(QStringLiteral("switch-b")));
            QVERIFY(old);
            QVERIFY(old->isRunning());         // still in the blocked call, left behind
            QVERIFY(old->parent() == nullptr); // detached from the session
            QVERIFY(monitorThread(session) != old);
            QCOMPARE(RunSession::monitorThreadCount(), 2);

            t.restart();
        } // ~RunSession with the old thread still blocked
        QVERIFY2(t.elapsed() < 500, qPrintable(QStringLiteral("~RunSession took %1 ms").arg(t.elapsed())));
        QVERIFY(old && old->isRunning());
        QVERIFY(!weak.expired());

        gate->release();
        QTRY_VERIFY_WITH_TIMEOUT(!old, 10000);          // finished and deleted itself
        QTRY_VERIFY_WITH_TIMEOUT(weak.expired(), 5000); // the monitor (owner of the transport) is gone too
        QTRY_COMPARE(RunSession::monitorThreadCount(), 0);
    }

    // Destroying the session (closing the window) while its monitor is blocked.
    void destroyingTheSessionDoesNotWaitForABlockedMonitor()
    {
        auto gate = std::make_shared<Gate>();
        auto gated = std::make_shared<GatedTransport>(gate, launch::SignalResult::Delivered);
        std::weak_ptr<launch::Transport> weak = gated;
        auto* session = new RunSession(std::make_shared<runs::Operations>());
        session->followRun(makeRun(QStringLiteral("destroy")), std::move(gated));
        QVERIFY(gate->waitEntered(10000));
        QPointer<QThread> thread = monitorThread(*session);
        QVERIFY(thread);

        QElapsedTimer t;
        t.start();
        delete session;
        QVERIFY2(t.elapsed() < 500, qPrintable(QStringLiteral("~RunSession took %1 ms").arg(t.elapsed())));
        QVERIFY(thread && thread->isRunning());
        QCOMPARE(RunSession::monitorThreadCount(), 1);

        gate->release();
        QTRY_VERIFY_WITH_TIMEOUT(!thread, 10000);
        QTRY_VERIFY_WITH_TIMEOUT(weak.expired(), 5000);
    }

    // The followed run ends while its monitor is blocked, and the user opens another run meanwhile: the
    // old monitor then reports the end (failed, exit 3) after the switch. It must not become the state
    // or the end of the new run; the new run's own end still is reported.
    void anOldRunsLateEndIsNotTheNewRunsEnd()
    {
        auto gate = std::make_shared<Gate>();
        const QString oldRun = makeRun(QStringLiteral("late-old"));
        const QString newRun = makeRun(QStringLiteral("late-new"));
        RunSession session(std::make_shared<runs::Operations>());
        QSignalSpy ended(&session, &RunSession::jobEnded);
        QSignalSpy states(&session, &RunSession::jobStateChanged);
        session.followRun(oldRun, std::make_shared<GatedTransport>(gate, launch::SignalResult::NoSuchProcess));
        QVERIFY(gate->waitEntered(10000));
        QPointer<QThread> old = monitorThread(session);
        QVERIFY(old);
        // The old run ends meanwhile; its monitor reads the exit code once the blocked call returns.
        QVERIFY(writeFile(launch::runFile(oldRun, launch::runfile::kStderr), "rank 1: RuntimeError: boom\n"));
        QVERIFY(writeFile(launch::runFile(oldRun, launch::runfile::kExitCode), "3\n"));

        // The call returns shortly after the switch (from another thread: the GUI thread is in followRun).
        std::thread releaser([gate] {
            std::this_thread::sleep_for(std::chrono::milliseconds(300));
            gate->release();
        });
        session.followRun(newRun, aliveTransport());
        releaser.join();
        QTRY_VERIFY_WITH_TIMEOUT(!old, 10000); // the old monitor polled to its end and is gone
        QTest::qWait(300);                     // whatever it posted has been delivered (or dropped)

        QCOMPARE(session.runDir(), newRun);
        QVERIFY2(ended.isEmpty(), "the old run's end was reported as the new run's");
        QVERIFY(session.failureSummary().isEmpty());
        QTRY_COMPARE(session.jobState(), launch::JobState::Starting);
        for (const QList<QVariant>& s : std::as_const(states))
            QVERIFY(!launch::isFinal(s.at(0).value<launch::JobState>()));

        // The new run's own end is reported, once.
        QVERIFY(writeFile(launch::runFile(newRun, launch::runfile::kExitCode), "0\n"));
        QTRY_COMPARE_WITH_TIMEOUT(ended.size(), 1, 10000);
        QCOMPARE(ended.at(0).at(0).value<launch::JobState>(), launch::JobState::Finished);
        QCOMPARE(session.jobState(), launch::JobState::Finished);
        session.close();
    }

    // A store handed to a reader on another thread (an offline run's analysis, through storePointer()) is never
    // changed under it: close(), following another run or file give the session a new store instead.
    void aStoreHandedOutIsNeverClearedUnderItsReader()
    {
        RunSession session(std::make_shared<runs::Operations>());
        auto fill = [&session] {
            session.store().onHello(guitest::hello(2));
            for (qint64 s = 1; s <= 5; ++s)
                session.store().onStep(guitest::step(s, 2));
        };
        fill();
        std::shared_ptr<const metrics::MetricStore> held = session.storePointer();
        session.close();
        QCOMPARE(held->rowCount(), qint64(5));
        QCOMPARE(held->worldSize(), 2);
        QVERIFY(session.storePointer() != held);
        QCOMPARE(session.store().rowCount(), qint64(0));

        fill();
        held = session.storePointer();
        session.followRun(makeRun(QStringLiteral("new-store")), aliveTransport());
        QCOMPARE(held->rowCount(), qint64(5));
        QCOMPARE(session.store().rowCount(), qint64(0));

        fill();
        held = session.storePointer();
        session.follow(m_tmp.filePath(QStringLiteral("not-yet.jsonl")), 0, 0);
        QCOMPARE(held->rowCount(), qint64(5));
        QCOMPARE(session.store().rowCount(), qint64(0));
        session.close();
    }

    // Application exit (aboutToQuit, then ~RunSession from main()) with the followed run's monitor
    // blocked: a call that returns within the shutdown wait ends it there; one that does not is left
    // running (not destroyed) and the exit goes on. Runs last: it flags the process as quitting.
    void applicationExitWithABlockedMonitor()
    {
        {
            auto gate = std::make_shared<Gate>();
            auto* session = new RunSession(std::make_shared<runs::Operations>());
            session->followRun(makeRun(QStringLiteral("exit-a")),
                               std::make_shared<GatedTransport>(gate, launch::SignalResult::Delivered));
            QVERIFY(gate->waitEntered(10000));
            QPointer<QThread> thread = monitorThread(*session);
            std::thread releaser([gate] {
                std::this_thread::sleep_for(std::chrono::milliseconds(300));
                gate->release();
            });
            QElapsedTimer t;
            t.start();
            QTimer::singleShot(0, qApp, &QCoreApplication::quit);
            qApp->exec(); // aboutToQuit: stops and waits for the monitor threads
            releaser.join();
            QVERIFY2(t.elapsed() < 2500, qPrintable(QStringLiteral("exit took %1 ms").arg(t.elapsed())));
            QVERIFY(!thread); // it finished within the wait and was deleted there
            delete session;
        }
        {
            auto gate = std::make_shared<Gate>();
            auto* session = new RunSession(std::make_shared<runs::Operations>());
            session->followRun(makeRun(QStringLiteral("exit-b")),
                               std::make_shared<GatedTransport>(gate, launch::SignalResult::Delivered));
            QVERIFY(gate->waitEntered(10000));
            QPointer<QThread> thread = monitorThread(*session);
            QElapsedTimer t;
            t.start();
            QTimer::singleShot(0, qApp, &QCoreApplication::quit);
            qApp->exec();
            QVERIFY2(t.elapsed() < 6000, qPrintable(QStringLiteral("exit took %1 ms").arg(t.elapsed())));
            QVERIFY(thread && thread->isRunning()); // still blocked: left, not destroyed
            t.restart();
            delete session;
            QVERIFY2(t.elapsed() < 500, qPrintable(QStringLiteral("~RunSession took %1 ms").arg(t.elapsed())));
            QVERIFY(thread && thread->isRunning());
            gate->release();
            QTRY_VERIFY_WITH_TIMEOUT(!thread, 10000);
        }
    }
};

QTEST_MAIN(TestGuiRunSession)
#include "tst_runsession.moc"
