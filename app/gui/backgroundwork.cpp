#include "backgroundwork.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QList>

#include <atomic>

namespace traindeck::gui::background {

namespace {

struct Worker {
    QPointer<QThread> thread;
    std::function<void()> stop; // called once, on the GUI thread, before the thread may finish
    bool stopping = false;
};

// GUI thread only. The deleted threads (finished and deleteLater'ed, or deleted by stopAll) drop out.
QList<Worker>& workers()
{
    static QList<Worker> list;
    list.removeIf([](const Worker& w) { return !w.thread; });
    return list;
}

std::atomic<bool> g_quitting{false};

void stopWorker(Worker& w)
{
    if (w.stopping || !w.thread)
        return;
    w.stopping = true;
    if (w.stop)
        w.stop();
    w.thread->quit();
}

void hookApplication()
{
    static QPointer<QCoreApplication> hooked;
    QCoreApplication* app = QCoreApplication::instance();
    if (!app || hooked == app)
        return;
    hooked = app;
    QObject::connect(app, &QCoreApplication::aboutToQuit, app, [] {
        g_quitting = true;
        stopAll(kShutdownWaitMs);
    });
}

Worker* find(QThread* thread)
{
    for (Worker& w : workers()) {
        if (w.thread == thread)
            return &w;
    }
    return nullptr;
}

} // namespace

bool quitting()
{
    return g_quitting.load();
}

QObject* resultContext()
{
    static QObject* const context = new QObject; // intentionally never deleted (see the header)
    return context;
}

QThread* start(std::function<void()> job, const QString& name, QThread::Priority priority)
{
    QThread* thread = QThread::create(std::move(job));
    if (!name.isEmpty())
        thread->setObjectName(name);
    QObject::connect(thread, &QThread::finished, thread, &QObject::deleteLater);
    adopt(thread);
    thread->start(priority);
    return thread;
}

void adopt(QThread* thread, std::function<void()> stop)
{
    resultContext(); // made on the GUI thread (its thread affinity is where results are delivered)
    hookApplication();
    workers().append(Worker{thread, std::move(stop), false});
}

void stop(QThread* thread)
{
    if (Worker* w = find(thread))
        stopWorker(*w);
}

bool isStopping(QThread* thread)
{
    const Worker* w = find(thread);
    return w && w->stopping;
}

QList<QPointer<QThread>> threads(const QString& name)
{
    QList<QPointer<QThread>> out;
    for (const Worker& w : workers()) {
        if (name.isEmpty() || w.thread->objectName() == name)
            out.append(w.thread);
    }
    return out;
}

int threadCount(const QString& name)
{
    return int(threads(name).size());
}

bool stopAll(int waitMs)
{
    QList<Worker>& list = workers();
    for (Worker& w : list)
        stopWorker(w);
    const QDeadlineTimer deadline(waitMs);
    bool allDone = true;
    for (Worker& w : list) {
        if (!w.thread)
            continue;
        if (w.thread->wait(deadline))
            delete w.thread.data(); // finished: safe, and the event loop may not run again to deleteLater it
        else
            allDone = false; // still in a blocking call: left running, never destroyed
    }
    workers(); // drops the deleted ones
    return allDone;
}

} // namespace traindeck::gui::background
