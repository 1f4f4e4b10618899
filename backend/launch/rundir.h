// The run directory: the source of truth for one run (docs/contributors/architecture.md, "The data path"). Layout:
//   spec.json         the job spec as launched (paths made absolute)
//   run.json          launch record: run id, name, created, profile, host, trainer, command, attempts
//   hostfile          the Open MPI hostfile mpirun got
//   run.sh            the wrapper that runs mpirun detached (setsid) and records the files below
//   pid               the wrapper's pid = process group (and session) of mpirun and local ranks, its
//                     start time and the boot id: "PID START_TIME BOOT_ID" (older runs: "PID")
//   exit-code         mpirun's exit status, written by the wrapper when mpirun ends
//   cancel-requested  written by `cancel` before it signals the group
//   stdout.log        mpirun's standard output (ranks' stdout included)
//   stderr.log        mpirun's and the ranks' standard error (progress lines, errors)
//   metrics.jsonl     the trainer's telemetry (docs/reference/metrics-protocol.md)
//   out/              the trainer's output: out/checkpoints/step-NNNNNNNN/, out/checkpoints/latest
//   attempt-N/        pid, exit-code, cancel-requested and logs of earlier attempts (moved by resume)
#pragma once

#include "common/result.h"
#include "launch/slurm.h"
#include "launch/transport.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QJsonObject>
#include <QList>
#include <QString>

#include <functional>
#include <optional>

namespace traindeck::launch {

namespace runfile {
inline constexpr char kSpec[] = "spec.json";
inline constexpr char kRunInfo[] = "run.json";
inline constexpr char kHostfile[] = "hostfile";
inline constexpr char kWrapper[] = "run.sh";
inline constexpr char kPid[] = "pid";
inline constexpr char kExitCode[] = "exit-code";
inline constexpr char kCancel[] = "cancel-requested";
inline constexpr char kStdout[] = "stdout.log";
inline constexpr char kStderr[] = "stderr.log";
inline constexpr char kMetrics[] = "metrics.jsonl";
inline constexpr char kOut[] = "out";
} // namespace runfile

QString runFile(const QString& runDir, const char* name);

// starting: launched, mpirun not yet up or no telemetry yet; pending: a Slurm job waiting in the queue
// (RunFiles::slurm says why); running: telemetry flows; then one of finished (exit 0), failed
// (non-zero exit; for Slurm also timeout, node_fail, out_of_memory), cancelled (cancel requested, or
// the trainer stopped on SIGUSR1), lost (the process group is gone without an exit-code file: killed
// with the wrapper, machine rebooted; a Slurm job Slurm no longer knows).
enum class JobState { Starting, Pending, Running, Finished, Failed, Cancelled, Lost };
QString jobStateName(JobState s); // "starting", "running", ...
bool isFinal(JobState s);
// Exit status of `launch`/`watch` for a final state: 0 finished, 1 otherwise.
int exitCodeFor(JobState s);

// The pid file: the wrapper's pid with what identifies that process (transport.h, ProcessIdentity).
// Written by run.sh as "PID START_TIME BOOT_ID"; runs launched before that hold "PID" only.
struct PidRecord {
    qint64 pid = -1;
    std::optional<qint64> startTime; // field 22 of /proc/PID/stat when the wrapper wrote the file
    QString bootId;                  // /proc/sys/kernel/random/boot_id then
    static std::optional<PidRecord> parse(const QByteArray& text); // nullopt: no pid > 1 in it
};
// The run.sh line that writes pidPath for the shell running it ($$), atomically (tmp + mv).
QString pidRecordShellLine(const QString& pidPath);

// Whether a recorded pid still names the run's wrapper (and so its process group). NotOurs: the head
// rebooted since (another boot id), or the process with that pid started at another time (the pid was
// reused); for an old record without them: the process with that pid started more than two minutes
// after the attempt (`started`). A pid with no process is
// not taken for someone else's: the group may outlive the wrapper, and a pid is not reused while its
// process group exists. Unknown: the transport could not ask.
enum class PidOwner { Ours, NotOurs, Unknown };
PidOwner pidOwner(Transport& transport, const PidRecord& record, const QDateTime& started);
// The same from an identity already asked for (unset: it could not be asked).
PidOwner pidOwner(const std::optional<ProcessIdentity>& now, const PidRecord& record, const QDateTime& started);

// What the run directory's files say right now.
struct RunFiles {
    qint64 pid = -1;         // from pid; -1 when missing
    bool groupAlive = false; // some process of the group exists
    // The pid names another process now (pidOwner() said NotOurs): groupAlive is false and the pid is
    // never signalled.
    bool pidReused = false;
    // The transport could not tell whether the group lives (the liveness check failed: an SSH exec
    // error or timeout), or a read the decision needs failed (pid or exit-code there but unreadable,
    // the run directory unreachable). deriveState() then never concludes a final state without an
    // exit code: "could not ask" is not "gone".
    bool livenessUnknown = false;
    std::optional<int> exitCode; // from exit-code
    bool cancelRequested = false;
    qint64 launchedSecsAgo = 0; // from run.json "created"
    // A Slurm run (slurm-job exists): what Slurm said. pid and groupAlive are not used then; a failed
    // query sets livenessUnknown.
    std::optional<SlurmJob> slurmJob;
    std::optional<SlurmJobStatus> slurm;
    // slurm-job is there (or the run directory could not be seen) but could not be read: whether this is
    // a Slurm run, and which job, is unknown. livenessUnknown is set too, and the pid rules (a Slurm run
    // has no pid file) are not applied: one failed read must never make a running Slurm job "lost".
    bool slurmRecordUnreadable = false;
    // Slurm's state and reason for people ("pending: Resources", "node_fail: tb-node2 (down)"); empty
    // for runs not launched through Slurm.
    QString detail() const { return slurm ? slurm->describe() : QString(); }
};

// traindeck-trainer's exit status after a stop on SIGUSR1 (EX_TEMPFAIL): it wrote a checkpoint at the
// step boundary, so the run is cancelled and resumable, not failed.
constexpr int kTrainerStoppedExitCode = 75;

// The state machine, as a pure function (tested on its own). sawTelemetry: a hello or step was read.
// With files.livenessUnknown and no exit code the answer is non-final (starting, or running with
// telemetry): the caller keeps asking.
JobState deriveState(const RunFiles& files, bool sawTelemetry);

// Reads pid, exit-code, cancel-requested and run.json through the transport. Liveness is checked
// before the exit-code file is read, so a wrapper that ends between the two reads is never "lost".
// A failed liveness check or a failed read of pid / exit-code (the file exists, or the run directory
// cannot be seen) sets livenessUnknown rather than looking like a dead group or a missing file.
RunFiles readRunFiles(Transport& transport, const QString& runDir);

// readRunFiles() and, in the same request (Transport::probe: one SSH command), new bytes of the files a
// monitor follows. Slurm runs ask Slurm besides (slurm::queryJob) and read profile.json.
struct RunDirPoll {
    RunFiles files;
    QList<std::optional<FileChunk>> tails; // one per requested tail; unset: not there, or not read
};
RunDirPoll pollRunDir(Transport& transport, const QString& runDir, const QList<FileRead>& tails);

// run.json
struct RunInfo {
    QString runId;
    QString name;
    QDateTime created;
    QDateTime started; // start of the latest attempt (created, or the last resume)
    QString profile;
    QString host;     // transport display name of the head node
    QString trainer;  // trainer executable
    QString command;  // the mpirun command line, shell-quoted
    int attempts = 1; // 1 + number of resumes
    QJsonObject toJson() const;
    static RunInfo fromJson(const QJsonObject& o);
};
std::optional<RunInfo> readRunInfo(Transport& transport, const QString& runDir);

// A new run id from the spec name: the name reduced to [A-Za-z0-9._-] (at most 48 characters,
// "run" when nothing is left), "-YYYYMMDD-HHMMSS" and, when taken, "-2", "-3", ...
QString makeRunId(const QString& name, const QDateTime& now, const std::function<bool(const QString&)>& taken);
// A run argument: a run id under runsDir, or a path to a run directory (one that holds run.json or spec.json).
Result<QString> resolveRunDir(const QString& runsDir, const QString& run);

// Summary of a local run directory for `runs` and the GUI's history.
struct RunSummary {
    QString runId;
    QString runDir;
    RunInfo info;
    JobState state = JobState::Starting;
    qint64 lastStep = -1;
    double lastLoss = 0;
    bool hasLoss = false;
    std::optional<int> exitCode;
    // A run on a remote head node (remoterun.h): runDir is its local record, the state is the one last
    // seen (lastSeen) until the run has ended and its record was synced (then it is final offline).
    bool remote = false;
    QString head;         // ssh target of the head node
    QString remoteRunDir; // the run directory on the head node
    QDateTime lastSeen;
    bool synced = false;
    QString detail; // Slurm runs: the scheduler's state and reason (RunFiles::detail), as last seen
    QJsonObject toJson() const;
};
// Every run under runsDir (directories with run.json), newest first. Reads the metrics files' tails only
// and opens no SSH connection (remote runs: see RunSummary::remote; a synced record's state is the final
// state in its remote.json, e.g. lost, not one derived from the copied files). A run that this machine
// submitted to Slurm (its directory holds slurm-job) is the exception: only Slurm knows its state, so
// this machine's squeue, then sacct or scontrol, are asked (each at most 30 s; slurmctld answers them,
// over the network when it runs elsewhere). Call it off the GUI thread.
QList<RunSummary> listRuns(const QString& runsDir);

} // namespace traindeck::launch
