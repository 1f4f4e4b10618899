// Runs the node checks of a profile in parallel, at most CheckOptions::maxParallelNodes at once (a
// worker thread and an SSH session each; a 1000-node profile does not open 1000), with progress and
// cancellation. Signals are emitted from the worker threads and reach receivers in
// other threads queued; nothing blocks the GUI thread. The "local" profile uses LocalRunner.
// A Slurm profile's report has the login node first (SSH and the Slurm checks) and then the nodes of a
// short check job, whose environment checks run as job steps (slurmcheck.h); their names are known
// once the job runs (nodeNamesKnown), until then the rows are "compute 1", "compute 2", ...
#pragma once

#include "checks/nodecheck.h"
#include "ssh/promptbroker.h"

#include <QMutex>
#include <QObject>

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

namespace traindeck::checks {

class ClusterChecker : public QObject {
    Q_OBJECT

  public:
    ClusterChecker(const cluster::ClusterProfile& profile, const CheckOptions& options = {}, QObject* parent = nullptr);
    ~ClusterChecker() override; // cancels and waits for the workers

    // Unknown host keys and key passphrases are asked through this broker.
    ssh::PromptBroker* prompts() const { return m_prompts; }
    const cluster::ClusterProfile& profile() const { return m_profile; }
    // The report's nodes (rows), for building a table before results arrive: the profile's nodes, or
    // for a Slurm profile the login node and slurm.nodes compute nodes.
    int nodeCount() const;
    QString nodeName(int node) const;
    // Check ids of a node, "connect" first.
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
    // Slurm: the check job runs; the names of every node (row), login node first.
    void nodeNamesKnown(const QStringList& names);
    void checkFinished(int node, const traindeck::checks::CheckResult& result);
    void nodeFinished(int node, const traindeck::checks::NodeReport& report);
    void progress(int done, int total);
    void finished(const traindeck::checks::CheckReport& report);

  private:
    struct Opened;
    bool isSlurm() const;
    // The report's nodes as a profile (for NodeChecker): the profile, or for Slurm its login node and
    // the compute nodes with the job's resources.
    cluster::ClusterProfile rows() const;
    // Opens the runner of a node: "connect" and the runner (none when it failed).
    Opened open(const cluster::ClusterNode& node);
    void runNode(int node);
    void runSlurm();
    void runJobNode(int node, const cluster::ClusterProfile& rows, ssh::CommandRunner* login, const QString& jobId,
                    const QString& whyNot);
    // Every check of a node skipped with the reason (it could not be reached).
    void skipRest(int node, NodeReport& report, const QStringList& ids, const QString& why);
    // The node's report as start() set it up (name, host, head), to fill in on its worker thread.
    NodeReport reportOf(int node) const;
    // Hands a finished node's report to nodeDone() (queued to the checker's thread).
    void finishNode(int node, const NodeReport& report);
    void nodeDone(int node, const NodeReport& report);
    void stepDone(int node, const CheckResult& result);
    void saveNodeMemory(const CheckReport& report) const;

    cluster::ClusterProfile m_profile;
    cluster::ClusterProfile m_rows; // guarded by m_mutex: the Slurm job's node names arrive while running
    CheckOptions m_options;
    ssh::PromptBroker* m_prompts;
    ssh::CancelToken m_cancel;
    // Joined std::threads, not QThreads: QThread::wait() returns before a thread's thread-local destructors
    // run, and OpenSSL frees per-thread state (libssh's random generator) in one; a command that exits
    // right after a cancel would race it (LeakSanitizer reported it for the link test's worker).
    std::vector<std::thread> m_threads;
    std::atomic<int> m_nextNode{0}; // the next node a free worker takes
    mutable QMutex m_mutex;
    CheckReport m_report;
    int m_done = 0;
    int m_totalSteps = 0;
    int m_nodesDone = 0;
    bool m_running = false;
    qint64 m_startMs = 0;
};

} // namespace traindeck::checks
