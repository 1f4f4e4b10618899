// From a job spec and a cluster profile to the exact mpirun command and the wrapper script that runs it
// detached. Pure functions: nothing is started or written here (tst_launchplan feeds hostile values).
#pragma once

#include "cluster/clusterprofile.h"
#include "common/result.h"
#include "launch/jobspec.h"

#include <QMap>
#include <QString>
#include <QStringList>

namespace traindeck::launch {

struct LaunchInputs {
    JobSpec spec;
    cluster::ClusterProfile profile;
    QString runDir; // absolute, on the head node
    QString runId;
    QString trainerPath; // absolute path of traindeck-trainer on the nodes
    QString mpirunPath;  // empty: profile.launcher
    bool asRoot = false; // mpirun runs as root: export OMPI_ALLOW_RUN_AS_ROOT(_CONFIRM)
    bool resume = false; // add --resume=latest
    // A Slurm profile: how the ranks start inside the job, "mpirun" or "srun" (slurm::preflight).
    QString slurmRanksVia;
};

struct LaunchPlan {
    QString runDir, runId;
    int np = 0;
    int ranksPerNode = 0; // 0: nodes differ (--map-by slot)
    QString hostfilePath; // runDir/hostfile
    QString hostfileText;
    QStringList mpirunArgv;     // program first; every element one argument
    QMap<QString, QString> env; // set by the wrapper before mpirun (spec env, profile env, as-root)
    QStringList pathPrefix;     // put before PATH by the wrapper (and exported)
    Diagnostics warnings;
    // Slurm: how the ranks start ("mpirun" or "srun"; empty for an mpirun launch over SSH) and the
    // sbatch options, written as #SBATCH lines into the batch script.
    QString slurmRanksVia;
    QStringList sbatchOptions;

    // The mpirun command line, every word shell-quoted.
    QString commandLine() const;
    // /bin/sh script that records pid, runs mpirun with its output in stdout.log / stderr.log and
    // records the exit status in exit-code (see rundir.h). SIGTERM does not stop the script itself, so
    // the exit code is still written when `cancel` signals the process group.
    QString wrapperScript() const;
    // Slurm: the batch script (job.sbatch). Like the wrapper, but started by Slurm on the job's first
    // node: no pid file (Slurm tracks the job); SIGUSR1 (--signal=B:USR1@N) and SIGTERM are passed on
    // to mpirun or srun, which forward them to the ranks.
    QString batchScript() const;
};

Result<LaunchPlan> buildLaunchPlan(const LaunchInputs& in);

// What a person sees before launching (the Launch page): for an mpirun launch the environment and the
// command line, for a Slurm profile the batch script. Nothing is asked of the head node: an empty
// in.runDir is shown as <workdir>/runs/<run id> as the profile writes it, and a Slurm profile's
// ranks_via "auto" (decided on the login node at submit) is shown as mpirun, with a comment saying so.
Result<QString> previewLaunch(LaunchInputs in);

} // namespace traindeck::launch
