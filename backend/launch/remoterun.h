// Runs on a remote head node (a cluster profile reached over SSH) and their local records.
//
// The run directory of a remote run lives on the head node, <profile workdir>/runs/<run id> (a leading
// "~" resolved to the remote $HOME); it stays the source of truth. On this machine the run gets a
// record directory <local runs dir>/<run id>/ with
//   remote.json    profile name, head node (ssh target and host), the run directory on the head,
//                  created, and the state last seen ("final" once the run has ended)
//   run.json, spec.json, profile.json   copies, so the record means something offline (profile.json
//                  is also what the transport is built from later, even if the profile file changed)
//   metrics.jsonl  the mirror: exactly the bytes read from the head's metrics.jsonl (RunMonitor)
//   exit-code, cancel-requested, stderr.log, stdout.log (their last MiB)   copied when the run ends
// so listing, opening and reporting a finished remote run needs no network. A record never holds a
// pid file: a remote pid means nothing on this machine.
//
// Local profiles keep their run directories under the local runs directory, as before.
// Every call that takes a Transport may block on the network: GUI code calls them on worker threads.
#pragma once

#include "cluster/clusterprofile.h"
#include "common/result.h"
#include "launch/launcher.h"
#include "launch/rundir.h"
#include "launch/transport.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QJsonObject>
#include <QString>

#include <memory>
#include <optional>

class QLockFile;

namespace traindeck::launch {

class Transport;

namespace runfile {
inline constexpr char kRemote[] = "remote.json";
inline constexpr char kProfile[] = "profile.json";
inline constexpr char kRecordLock[] = "remote.json.lock"; // QLockFile: one record update at a time
} // namespace runfile

// remote.json
struct RemoteRecord {
    QString profile;      // profile name as launched
    QString head;         // the transport's display name (ssh target, "user@host:port")
    QString headHost;     // the head node's host as written in the profile
    QString remoteRunDir; // absolute path of the run directory on the head node
    QDateTime created;
    JobState lastState = JobState::Starting; // as last seen through the transport
    QDateTime lastSeen;                      // when lastState was seen
    bool synced = false;                     // the run ended and its final files were copied here
    QString detail;                          // Slurm runs: the scheduler's state and reason (RunFiles::detail)
    QJsonObject toJson() const;
    static std::optional<RemoteRecord> fromJson(const QJsonObject& o);
};

// Whether a local directory is the record of a remote run (holds remote.json).
bool isRemoteRecord(const QString& localDir);
std::optional<RemoteRecord> readRemoteRecord(const QString& localDir);
Status writeRemoteRecord(const QString& localDir, const RemoteRecord& record);

// Serializes updates of a record (remote.json and the copied files) across threads and processes
// (GUI, CLI watch): a QLockFile in the record directory, held while it lives. Never held across
// network calls.
class RecordLock {
  public:
    explicit RecordLock(const QString& localDir, int timeoutMs = 15000);
    ~RecordLock();
    RecordLock(const RecordLock&) = delete;
    RecordLock& operator=(const RecordLock&) = delete;
    explicit operator bool() const { return m_locked; }

  private:
    std::unique_ptr<QLockFile> m_lock;
    bool m_locked = false;
};

// Whether a metrics mirror can be a prefix of the head's file. mirrorSizeBefore must be taken BEFORE
// the head's size is asked: writers (a RunMonitor, a sync in another thread or process) only extend
// the mirror with bytes the head had, so only a mirror that was already longer than the head's file
// says the file was replaced (then the mirror is started again).
bool mirrorIsPrefixOf(qint64 mirrorSizeBefore, qint64 headSize);

class RemoteRuns {
    Q_DECLARE_TR_FUNCTIONS(traindeck::launch::RemoteRuns)

  public:
    // <workdir>/runs on the transport's machine, absolute: "~" and "~/x" are resolved with the remote
    // $HOME, a relative workdir is taken relative to $HOME (as ssh does).
    static Result<QString> remoteRunsDir(Transport& transport, const cluster::ClusterProfile& profile);

    // Launches a run. Local transports: Launcher::launch into localRunsDir, as before. Remote ones:
    // into remoteRunsDir() on the head, then the local record <localRunsDir>/<run id>/ is written.
    // LaunchOutcome::runDir is the directory on the transport's machine; localDir is the record.
    struct Launched {
        LaunchOutcome outcome;
        QString localDir;   // run dir (local) or record dir (remote)
        QString mirrorPath; // empty for local runs
        bool remote = false;
    };
    static Result<Launched> launch(Transport& transport, const JobSpec& spec, const cluster::ClusterProfile& profile,
                                   const QString& localRunsDir);

    // Writes the local record of a run launched on a remote head (remote.json, copies of run.json and
    // spec.json read through the transport, profile.json). Returns the record directory.
    static Result<QString> writeRecord(Transport& transport, const LaunchOutcome& outcome,
                                       const cluster::ClusterProfile& profile, const QString& localRunsDir);

    // Sets the state last seen in the record (no network). Final states are only set by sync().
    static void noteState(const QString& localDir, JobState state, const QString& detail = QString());

    // Reads the run's files through the transport; when the run has ended, copies exit-code,
    // cancel-requested, run.json, the logs' last MiB and what the metrics mirror lacks into the record
    // and marks it synced. Returns the state seen. Blocking (network). "Ended" means an exit code was
    // read or the process group is known to be gone: when the head could not tell (RunFiles::
    // livenessUnknown) only lastSeen is updated. The record is written under RecordLock, and not at
    // all when a resume reopened it (run.json's attempt count changed) while the sync was reading.
    static Result<JobState> sync(Transport& transport, const QString& remoteRunDir, const QString& localDir);

    // After a resume: the record is live again (the copied final files go to attempt-N/).
    static void reopen(Transport& transport, const QString& remoteRunDir, const QString& localDir, int previousAttempt);
};

// Where a run is, for the front ends: the transport to its head node, the run directory there and
// the local mirror. For local runs transport is a LocalTransport and runDir == localDir.
struct RunLocation {
    std::shared_ptr<Transport> transport;
    QString runDir;     // on the transport's machine
    QString localDir;   // the run dir (local run) or the record (remote run)
    QString mirrorPath; // the local metrics.jsonl mirror; empty for local runs
    bool remote = false;
    std::optional<RemoteRecord> record;
    cluster::ClusterProfile profile; // remote runs: the record's profile.json (else the saved profile)
};

// The record's profile without connecting: profile.json in the record, else the saved profile of
// that name (ClusterProfile::loadNamed, as the CLI resolves profile names).
Result<cluster::ClusterProfile> recordProfile(const QString& localDir, const RemoteRecord& record);

// localDir: a run directory or a remote run's record (resolveRunDir() gives one). For a remote record
// this builds the transport with transportFor(…, remote) — over SSH it connects, so it blocks and may
// fail (host unreachable, unknown host key).
Result<RunLocation> locateRun(const QString& localDir, const RemoteTransportFactory& remote);

} // namespace traindeck::launch
