// Worker threads of the GUI for blocking work: SSH connects, remote run syncs, cancels, resumes and
// launches, a run's monitor (RunSession), loading or analysing a finished run. One process-wide
// mechanism, so that quitting never tears the process down under a thread that still posts results:
//
//  - every worker thread is registered here until it is deleted; it deletes itself when it finishes
//    (QThread::finished -> deleteLater). The GUI thread never waits for one while the program runs.
//  - results go back to the GUI thread through post(): queued to a GUI-thread object that is never
//    destroyed, so a thread that returns from a blocking call late (even after the QApplication is gone)
//    still posts to a valid object. The receivers are checked there (run() holds a QPointer), and
//    everything posted once quitting() is set is dropped.
//  - at QCoreApplication::aboutToQuit quitting() is set, every registered thread is told to stop (its
//    stop callback, QThread::quit()) and they are waited for kShutdownWaitMs at most, together. Those
//    that finished are deleted; one still inside a blocking call (an SSH read with a 60 s timeout) is
//    left running and never destroyed (destroying a running QThread is fatal): the process exits with it,
//    its call cut off as if the program were killed, and its late result is dropped.
//
// Registration, stop(), stopAll() and the counts: GUI thread only. quitting() and post(): any thread.
#pragma once

#include <QList>
#include <QMetaObject>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QThread>

#include <functional>
#include <memory>

namespace traindeck::gui::background {

// How long application exit waits for the worker threads, all together.
constexpr int kShutdownWaitMs = 3000;

// True from QCoreApplication::aboutToQuit on: results are dropped, long jobs may stop early (a remote
// run's record left unsynced is synced at the next start).
bool quitting();

// The never-destroyed GUI-thread object results are queued to.
QObject* resultContext();

// Starts job on a new registered thread (named name, for threadCount()); it deletes itself when done.
// The returned pointer is for tests and QPointers only: the thread may be gone at any event.
QThread* start(std::function<void()> job, const QString& name = QString(),
               QThread::Priority priority = QThread::InheritPriority);

// Registers a thread the caller made (one with its own event loop, like a run's monitor) until it is
// deleted; the caller starts it and makes it delete itself when it finishes. stop is called on the GUI
// thread at most once, by stop() or at exit, before QThread::quit(), to tell its work to end.
void adopt(QThread* thread, std::function<void()> stop = {});
// Tells a registered thread to stop (once; later calls do nothing). Does not wait.
void stop(QThread* thread);
// True once a registered thread was told to stop.
bool isStopping(QThread* thread);

// Registered threads not deleted yet (those named name when not empty).
int threadCount(const QString& name = QString());
QList<QPointer<QThread>> threads(const QString& name = QString());
// Tells every registered thread to stop and waits for them, waitMs at most for all together; those that
// finished are deleted, those still running are left (never destroyed). True when none is left running.
// Called at QCoreApplication::aboutToQuit (after setting quitting()).
bool stopAll(int waitMs);

// Runs f on the GUI thread later, unless quitting() is set by then (it is dropped then). Any thread.
template <typename F> void post(F f)
{
    if (quitting())
        return;
    QMetaObject::invokeMethod(
        resultContext(),
        [f = std::move(f)]() mutable {
            if (!quitting())
                f();
        },
        Qt::QueuedConnection);
}

// Runs fn() on a new registered thread, then done(result) on the GUI thread; dropped when the receiver
// is gone by then, or the application is quitting.
template <typename Fn, typename Done>
QThread* run(QObject* receiver, Fn fn, Done done, const QString& name = QString(),
             QThread::Priority priority = QThread::InheritPriority)
{
    QPointer<QObject> guard(receiver);
    return start(
        [guard, fn = std::move(fn), done = std::move(done)]() mutable {
            auto result = std::make_shared<decltype(fn())>(fn());
            post([guard, result, done]() mutable {
                if (guard)
                    done(std::move(*result));
            });
        },
        name, priority);
}

} // namespace traindeck::gui::background
