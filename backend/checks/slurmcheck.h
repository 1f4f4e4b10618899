// Checks on a Slurm cluster (docs/users/slurm.md, "Checks"). The login node is checked over SSH ("connect")
// and asked about the profile's partition ("slurm": sinfo). The environment checks of the compute
// nodes cannot go over SSH (compute nodes are often not reachable from outside, and the nodes a job
// gets are Slurm's choice), so they run inside a short job (CheckJob) as job steps (SrunRunner):
// the same nodes, resources and environment the training job will get.
#pragma once

#include "checks/nodecheck.h"
#include "launch/slurm.h"
#include "ssh/commandrunner.h"

#include <QCoreApplication>

namespace traindeck::checks {

// The "slurm" check from what the login node said: sinfo --version and the nodes of every partition
// (launch::slurm::parseSinfoNodes). Pass: the partition has at least settings.nodes usable nodes
// (with settings.gpusPerNode GPUs each, when asked); warn: some of its nodes are down or drained (named
// with Slurm's reason); fail: no such partition, or too few usable nodes or GPUs.
CheckResult evaluateSlurmPartition(CheckResult r, const cluster::SlurmSettings& settings, const QString& version,
                                   const QList<launch::slurm::SinfoNode>& nodes);

// Runs each command as a job step on one node of a running job, through the login node's runner:
// srun --jobid=ID --overlap -N1 -n1 -w NODE (overlapping the job's own step, so it needs no free
// resources), with the CPUs of the node's allocation.
class SrunRunner final : public ssh::CommandRunner {
  public:
    SrunRunner(ssh::CommandRunner& login, const cluster::ClusterProfile& profile, const QString& jobId,
               const QString& node);
    ssh::ExecResult run(const QString& command, const ssh::ExecOptions& options = {}) override;
    QString name() const override { return m_node; }
    // The srun command line that runs `command` (for tests).
    QString stepCommand(const QString& command) const;

  private:
    ssh::CommandRunner& m_login;
    QStringList m_pathPrefix;
    QString m_jobId;
    QString m_node;
    int m_cpus = 1;
};

// The check job: `sleep` in an allocation of the profile's resources (launch::slurm::resourceOptions),
// submitted by start() and cancelled by cancel() or the destructor, whatever happened in between.
class CheckJob {
    Q_DECLARE_TR_FUNCTIONS(traindeck::checks::CheckJob)

  public:
    static constexpr int TimeLimitMinutes = 15; // --time: the checks end long before; scancel ends it
    static constexpr char JobName[] = "traindeck-check";

    CheckJob(ssh::CommandRunner& login, const cluster::ClusterProfile& profile, int waitMs);
    ~CheckJob();
    CheckJob(const CheckJob&) = delete;
    CheckJob& operator=(const CheckJob&) = delete;

    // Submits the job and waits until it runs, at most waitMs: the "slurm-job" result (pass: running,
    // with its nodes; fail: refused, ended, or still pending with Slurm's reason at the deadline).
    CheckResult start(CheckResult r, const ssh::CancelToken& cancel);
    bool isRunning() const { return !m_nodes.isEmpty(); }
    QString jobId() const { return m_jobId; }
    QStringList nodes() const { return m_nodes; } // Slurm's node names, in Slurm's order
    // scancel (once; also when the checks were cancelled, and for a job whose sbatch answer never came,
    // found by its marker). Empty when done or nothing to cancel, else why it failed.
    QString cancel();
    // The sbatch command line start() runs (for tests).
    QString submitCommand() const;

  private:
    ssh::ExecResult onLogin(const QString& command, int timeoutMs, const ssh::CancelToken& cancel) const;
    // When sbatch's answer is lost (a dropped link, a time-out, a cancel while it ran): this check's job,
    // found among the user's own jobs (squeue --me) by its name and marker. Empty when there is none.
    QString findOwnJob() const;

    ssh::CommandRunner& m_login;
    const cluster::ClusterProfile& m_profile;
    int m_waitMs;
    QString m_marker; // "traindeck-check:<random hex>", unique to this job
    QString m_jobId;
    QStringList m_nodes;
    bool m_submitAttempted = false;
    bool m_cancelled = false;
};

} // namespace traindeck::checks
