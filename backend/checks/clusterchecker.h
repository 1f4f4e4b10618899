// Runs the node checks of a profile in parallel, at most CheckOptions::maxParallelNodes at once (a
// worker thread and an SSH session each; a 1000-node profile does not open 1000), with progress and
// cancellation. Signals are emitted from the worker threads and reach receivers in
// other threads queued; nothing blocks the GUI thread. The "local" profile uses LocalRunner.
#pragma once

#include "checks/nodecheck.h"
#include "ssh/promptbroker.h"

#include <QMutex>
#include <QObject>

#include <atomic>
#include <memory>
#include <vector>

class QThread;

namespace traindeck::checks {

class ClusterChecker : public QObject {
    Q_OBJECT

  public:
    ClusterChecker(const cluster::ClusterProfile& profile, const CheckOptions& options = {}, QObject* parent = nullptr);
    ~ClusterChecker() override; // cancels and waits for the workers

    // Unknown host keys and key passphrases are asked through this broker.
    ssh::PromptBroker* prompts() const { return m_prompts; }
    const cluster::ClusterProfile& profile() const { return m_profile; }
    // Check ids of a node, "connect" first (for building a table before results arrive).
    QStringList checkIds(int node) const;
    int totalSteps() const;

    void start();
    void cancel();
    bool isRunning() const { return m_running; }
    CheckReport report() const;

    // start() and an event loop until finished (CLI, tests).
    CheckReport runAndWait();

  Q_SIGNALS:
    void nodeStarted(int node);
    void checkFinished(int node, const traindeck::checks::CheckResult& result);
    void nodeFinished(int node, const traindeck::checks::NodeReport& report);
    void progress(int done, int total);
    void finished(const traindeck::checks::CheckReport& report);

  private:
    void runNode(int node);
    void nodeDone(int node, const NodeReport& report);
    void stepDone(int node, const CheckResult& result);

    cluster::ClusterProfile m_profile;
    CheckOptions m_options;
    ssh::PromptBroker* m_prompts;
    ssh::CancelToken m_cancel;
    std::vector<QThread*> m_threads;
    std::atomic<int> m_nextNode{0}; // the next node a free worker takes
    mutable QMutex m_mutex;
    CheckReport m_report;
    int m_done = 0;
    int m_nodesDone = 0;
    bool m_running = false;
    qint64 m_startMs = 0;
};

} // namespace traindeck::checks
