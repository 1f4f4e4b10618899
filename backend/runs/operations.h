// The operations on runs, once for every front end: launch, resume, cancel, locate (for following),
// list and refresh. The GUI and traindeck-cli call these and only present the outcome; they never
// put Launcher, RemoteRuns and transports together themselves.
//
// Every call may block (SSH connect, commands on a head node): GUI code calls them on worker threads.
// Runs are named by their local directory: a local run's directory, or a remote run's record
// (launch/remoterun.h); launch::resolveRunDir() turns a run id into one.
#pragma once

#include "analysis/diagnosis.h"
#include "cluster/clusterprofile.h"
#include "common/result.h"
#include "launch/jobspec.h"
#include "launch/launchplan.h"
#include "launch/remoterun.h"
#include "launch/rundir.h"
#include "launch/transport.h"

#include <QCoreApplication>
#include <QString>
#include <QStringList>

#include <functional>
#include <memory>

namespace traindeck::launch {
class RunMonitor;
} // namespace traindeck::launch

namespace traindeck::runs {

// What launch() and resume() started.
struct StartedRun {
    QString runId;
    QString runDir; // on the head node (the transport's machine)
    // What listings and followers know the run by: the run directory (local run) or the record
    // (remote run). Empty only for a remote run whose record could not be written (see warnings).
    QString localDir;
    bool remote = false;
    QString head; // the transport's display name
    std::shared_ptr<launch::Transport> transport;
    launch::LaunchPlan plan;
};

struct LaunchRequest {
    launch::JobSpec spec;
    cluster::ClusterProfile profile;
    // Relative paths in the spec are taken relative to this directory (the spec file's) when the run
    // is local; empty: they are used as they are.
    QString specDir;
    QString runsDir;  // the local runs directory (absolute)
    QString specFile; // names the spec in diagnostics ("job.json: trainer.lr: ...")
};

// Made once by each front end with the transport to remote head nodes (ssh::sshTransportFactory());
// tests make one with a fake. Without a factory, remote profiles fail with "no SSH transport".
// The object is immutable: worker threads may share it.
class Operations {
    Q_DECLARE_TR_FUNCTIONS(traindeck::runs::Operations)

  public:
    explicit Operations(launch::RemoteTransportFactory remoteTransports = {});

    // Every rule a spec must pass before anything starts, the same for every front end: the spec's own
    // rules (JobSpec::validate), a learning rate in (0, 10), a dataset, and for a run on this machine
    // that the dataset, tokenizer and model's config.json exist and traindeck-trainer is found.
    // fileName names the spec in the diagnostics.
    static Diagnostics validate(const launch::JobSpec& spec, const cluster::ClusterProfile& profile,
                                const QString& fileName);

    // Validates, makes the transport to the head node (SSH for a remote profile), and starts the run
    // detached: a local run in runsDir, a remote one in <workdir>/runs on the head with its record in
    // runsDir.
    Result<StartedRun> launch(LaunchRequest request) const;

    // Whether a failed launch or resume failed on its input (the spec, the profile, a trainer or mpirun
    // that is not there: the user fixes it; the CLI exits 2) rather than on the way (the SSH link, the
    // head's disk, Slurm refusing or not answering, a wrapper that did not start: exit 1). Errors with an
    // ssh.* code or launch::kStartFailedCode are the way's.
    static bool isInputProblem(const Diagnostics& failure);

    // Relaunches a failed, cancelled or lost run from its latest checkpoint; a remote run's record
    // goes live again.
    Result<StartedRun> resume(const QString& localDir) const;

    // Stops a run (SIGTERM, SIGKILL after graceMs); a remote run's record is synced afterwards (a
    // failed sync is a warning). Returns the state afterwards.
    Result<launch::JobState> cancel(const QString& localDir, int graceMs = 10000) const;

    // Where a run is, for following it. offlineWhenSynced: a remote run that ended and whose record
    // is complete is read from the record without connecting.
    Result<launch::RunLocation> locate(const QString& localDir, bool offlineWhenSynced) const;

    // A monitor for a located run: a remote run's record is kept by it (mirror, state, sync at the
    // end; syncAtEnd as in RunMonitor::setRecordDir), a synced record ends in its known state.
    static std::unique_ptr<launch::RunMonitor> monitor(const launch::RunLocation& location,
                                                       std::function<bool()> syncAtEnd = {});

    // Asks the head nodes of remote runs that have not ended about them and syncs their records.
    // Returns one message per run that could not be asked. stop, when given, is asked between runs.
    QStringList refreshRemote(const QList<launch::RunSummary>& runs, std::function<bool()> stop = {}) const;

    // The diagnosis options for a run (a local run directory or a remote run's record): the measured
    // links of its profile's last link test (cluster::SavedLinkTest), so that the comm-bound verdict
    // compares the allreduce with them. Defaults when there is none. Reads local files only.
    static analysis::DiagnosisOptions diagnosisOptions(const QString& localDir);

    // The run history, newest first; refresh: refreshRemote() first (a run whose head could not be asked
    // is a warning; the list still holds it, as last known).
    Result<QList<launch::RunSummary>> list(const QString& runsDir, bool refresh = false) const;

    // The traindeck-trainer of this machine ($TRAINDECK_TRAINER, beside this program or in its build tree,
    // else PATH), for the Launch page's preview and `deploy`: a quick local look-up.
    static Result<QString> localTrainer();

  private:
    launch::RemoteTransportFactory m_remoteTransports;
};

} // namespace traindeck::runs
