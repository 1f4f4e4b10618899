// Starts, resumes and cancels runs through a Transport. Blocking calls (GUI: call from a worker thread).
//
// launch(): validates, finds the trainer and mpirun (a missing one is an error before anything
// starts), creates <runs dir>/<run id>/ with spec.json, profile.json, run.json, hostfile and run.sh,
// and starts run.sh detached (setsid): closing the CLI or GUI never stops training.
#pragma once

#include "cluster/clusterprofile.h"
#include "common/result.h"
#include "launch/jobspec.h"
#include "launch/launchplan.h"
#include "launch/rundir.h"

#include <QCoreApplication>
#include <QString>

#include <functional>

namespace traindeck::launch {

// The code of a launch's or resume's error that came from starting it (writing the run directory,
// submitting to Slurm, starting the wrapper), not from its input: the front ends tell the two apart
// (runs::Operations::isInputProblem).
inline constexpr char kStartFailedCode[] = "launch.start";

class Transport;

struct LaunchOutcome {
    QString runId;
    QString runDir;
    LaunchPlan plan;
};

class Launcher {
    Q_DECLARE_TR_FUNCTIONS(traindeck::launch::Launcher)

  public:
    // traindeck-trainer: the profile's "trainer" key, else $TRAINDECK_TRAINER, else beside this
    // program (or this build tree's trainer/), else PATH (with the profile's path_prefix). Local
    // transports check the file is executable; remote ones ask the head node.
    static Result<QString> findTrainer(Transport& transport, const cluster::ClusterProfile& profile);
    // The profile's launcher (mpirun), resolved the same way (PATH with path_prefix).
    static Result<QString> findMpirun(Transport& transport, const cluster::ClusterProfile& profile);

    // Before anything starts on a profile with workers: from the head, as mpirun will, logs in to every
    // worker (ssh -o BatchMode=yes, in parallel) and checks that Open MPI's daemon (orted) is on the
    // PATH of a non-interactive login and that the trainer exists there and reports the head's
    // version, and that every file the ranks read (the spec's data, tokenizer, model, config) exists
    // there too. A failure names the node and the remedy.
    static Status preflightWorkers(Transport& transport, const cluster::ClusterProfile& profile,
                                   const QString& trainerPath, const QStringList& requiredFiles = {});
    // The files every rank reads: the spec's data, tokenizer, model and config paths.
    static QStringList filesReadByRanks(const JobSpec& spec);
    // Called once the run directory is written and before the run starts (RemoteRuns writes the local
    // record there, so that a run never runs without one); a failure starts nothing.
    using BeforeStart = std::function<Status(const LaunchOutcome&)>;
    // spec paths must be resolved already (JobSpec::resolvePaths). runsDir: where run directories go
    // (on the transport's machine). The run directory is claimed exclusively (mode 0700; a taken id
    // gets the next suffix) and its files are the owner's only. When the start command fails, the
    // run directory is checked for the wrapper's pid before the launch is called failed.
    static Result<LaunchOutcome> launch(Transport& transport, const JobSpec& spec,
                                        const cluster::ClusterProfile& profile, const QString& runsDir,
                                        const BeforeStart& beforeStart = {});

    // Relaunches a failed, cancelled or lost run from its latest checkpoint (--resume=latest, same out
    // directory; the trainer appends to metrics.jsonl). The previous attempt's pid, exit-code, logs go
    // to attempt-N/, created exclusively: of two resumes at once, the second fails with an error
    // saying another resume is under way. The test aid inject-exit is not repeated.
    static Result<LaunchOutcome> resume(Transport& transport, const QString& runDir);

    // Writes cancel-requested, sends SIGTERM to the run's process group, SIGKILL after graceMs.
    // Returns the state afterwards (cancelled, or finished/failed when it had already ended).
    static Result<JobState> cancel(Transport& transport, const QString& runDir, int graceMs = 10000);
};

} // namespace traindeck::launch
