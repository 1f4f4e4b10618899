// Slurm as a launcher (docs/users/slurm.md). A profile with a "slurm" section (cluster::SlurmSettings) is
// launched by writing job.sbatch into the run directory on the login node and submitting it with
// `sbatch --parsable`; inside the job mpirun (or srun --mpi=pmix) starts the ranks. The run directory
// stays the source of truth, with one more file, slurm-job, that names the job. State comes from
// squeue while Slurm has the job in its queue, then from sacct (or, on a cluster without accounting,
// `scontrol show job`), and is mapped onto TrainDeck's run states in deriveState() (rundir.h).
//
// Every call that takes a Transport runs commands on the login node and may block (network): GUI code
// calls them on worker threads. The parsers are pure functions, tested against Slurm's own output.
#pragma once

#include "cluster/clusterprofile.h"
#include "common/result.h"

#include <QByteArray>
#include <QCoreApplication>
#include <QString>
#include <QStringList>

#include <optional>

namespace traindeck::launch {

class Transport;

namespace runfile {
inline constexpr char kSlurmJob[] = "slurm-job";     // "JOBID RANKS_VIA", written once sbatch answered
inline constexpr char kBatchScript[] = "job.sbatch"; // the batch script (instead of run.sh)
} // namespace runfile

// The slurm-job file of a run directory.
struct SlurmJob {
    QString jobId;
    QString ranksVia; // "mpirun" or "srun": how the ranks were started inside the job
    // Not in the file: the run's profile's path_prefix (profile.json), which the Slurm commands on the
    // login node need; readRunFiles() fills it in.
    QStringList pathPrefix;
    static std::optional<SlurmJob> parse(const QByteArray& text);
    QByteArray toText() const;
};

// What Slurm says about one job.
struct SlurmJobStatus {
    QString jobId; // set by queryJob()
    // Slurm's base state, upper case (PENDING, RUNNING, COMPLETING, COMPLETED, FAILED, CANCELLED,
    // TIMEOUT, NODE_FAIL, OUT_OF_MEMORY, ...). Empty: Slurm no longer knows the job.
    QString state;
    QString reason;      // Slurm's reason ("Resources", "Priority", "NodeDown"); "None" is left empty
    QString exitCode;    // "STATUS:SIGNAL" when Slurm gave one
    QString nodes;       // the job's nodes ("tb-node[1-2]")
    QString failedNodes; // NODE_FAIL: the job's nodes that are down now, with Slurm's reason
    QString source;      // which command answered: squeue, sacct or scontrol
    bool known() const { return !state.isEmpty(); }
    // The job, its state and reason for people: "job 12 pending: Resources", "job 12 node_fail:
    // tb-node2 (down: test)", "job 12 timeout", "job 12 running on tb-node[1-2]".
    QString describe() const;
    QString describeState() const; // the same without the job
};

namespace slurm {

// The sbatch options that ask for the profile's resources: --partition, --account (when set),
// --nodes, --ntasks-per-node, --cpus-per-task, --gpus-per-node (when > 0). The launcher's job and the
// checks' job ask for the same, so a check job that starts says the training job can start too.
QStringList resourceOptions(const cluster::SlurmSettings& settings);

// A command line for the login node: `sh -c '...'` with the profile's path_prefix first (where the
// Slurm commands may be installed).
QString loginCommand(const QStringList& pathPrefix, const QString& command);

// The lines of out that are not blank, trimmed.
QList<QByteArray> nonEmptyLines(const QByteArray& out);

// The query parseSqueue() reads.
QString squeueCommand(const QString& jobId);
// scancel JOBID.
QString scancelCommand(const QString& jobId);
// The job id in `sbatch --parsable`'s answer ("JOBID" or "JOBID;CLUSTER"); nullopt when it holds none.
std::optional<QString> parseSbatchJobId(const QByteArray& out);

// One line of `sinfo -N` (sinfoNodesCommand()): a node in one partition.
struct SinfoNode {
    QString name;
    QString partition; // without the "*" that marks the default partition
    QString state;     // lower case without the suffix flags: "idle", "mixed", "down", "drained", ...
    QString stateText; // as sinfo printed it ("idle*": not responding)
    QString gres;      // "gpu:a100:4(S:0-1)", empty for "(null)"
    int gpus = 0;      // GPUs in gres
    int cpus = 0;
    qint64 memoryMb = 0;
    QString reason; // why it is down or drained (empty for "none")
    // Whether a job can get this node now or after the jobs on it: idle, mixed, allocated, completing
    // or planned, and responding.
    bool usable() const;
};
// sinfo -h -N -o '%N|%P|%T|%G|%c|%m|%E': every node of every partition, with state, GPUs and reason.
QString sinfoNodesCommand();
QList<SinfoNode> parseSinfoNodes(const QByteArray& out);
// The GPUs in a gres string: "gpu:4" → 4, "gpu:a100:2(S:0),gpu:v100:1" → 3, "mps:100" → 0.
int gresGpuCount(const QString& gres);

// Slurm states that end a job (the rest are queued or running).
bool isFinalState(const QString& state);
bool isPendingState(const QString& state);

// Parsers for the commands queryJob() runs. Each returns nullopt when the output holds no line for
// the job (a job Slurm no longer lists).
// squeue -h -t all -j ID -o '%T|%r|%N'
std::optional<SlurmJobStatus> parseSqueue(const QByteArray& out);
// sacct -X -P -n -j ID --format=JobID,State,ExitCode,Reason,NodeList ("CANCELLED by 0" → CANCELLED)
std::optional<SlurmJobStatus> parseSacct(const QByteArray& out, const QString& jobId);
// scontrol -o show job ID
std::optional<SlurmJobStatus> parseScontrolJob(const QByteArray& out);

// Asks the login node: squeue while the job is queued or running, then sacct for the final record,
// else scontrol (clusters without accounting), and for NODE_FAIL which of its nodes are down (sinfo).
// A status with an empty state: Slurm does not know the job (any more). Failure: the commands could
// not be run or all failed for another reason (SSH error, slurmctld unreachable): nothing is known.
Result<SlurmJobStatus> queryJob(Transport& t, const QString& jobId, const QStringList& pathPrefix);

// The checks on the login node before anything is submitted: sbatch, squeue and scancel exist, the
// partition exists, the account is known, and how the ranks start ("mpirun" or "srun": srun when
// ranks_via is auto and `srun --mpi=list` offers pmix). Returns the choice.
Result<QString> preflight(Transport& t, const cluster::ClusterProfile& profile);

// Submits runDir/job.sbatch (already written) with `sbatch --parsable` from runDir. Whenever sbatch's
// answer is not a job id (the connection dropped, sbatch timed out or was killed after submitting, it
// exited non-zero), asks Slurm for this user's own job named runId (findOwnJobByName) before calling it
// refused; a job found so is returned with a warning that says how it was found.
Result<QString> submit(Transport& t, const QString& runDir, const QString& runId, const QStringList& pathPrefix);

// This user's job (`squeue --me`, never another user's) named `name`, in any state Slurm still keeps:
// its id when exactly one such job exists and the answer is a job id; nullopt when there is none;
// failure when Slurm could not be asked or more than one job carries the name.
Result<std::optional<QString>> findOwnJobByName(Transport& t, const QString& name, const QStringList& pathPrefix);
// squeue for this user's own jobs named `name`, in every state Slurm keeps, one line each in `format`.
QString ownJobsByNameCommand(const QString& name, const QString& format = QStringLiteral("%i"));

// scancel JOBID.
Status cancel(Transport& t, const QString& jobId, const QStringList& pathPrefix);

} // namespace slurm

} // namespace traindeck::launch
