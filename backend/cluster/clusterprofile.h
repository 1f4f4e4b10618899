// Cluster profiles: the nodes of a cluster and how to reach and use them, stored as versioned JSON in
// $XDG_CONFIG_HOME/traindeck/profiles/NAME.json. No secrets: password-like keys are rejected on load
// and stripped (with warnings) on import. docs/reference/cluster-profiles.md describes the format.
#pragma once

#include "cluster/hostfile.h"
#include "common/result.h"

#include <QCoreApplication>
#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>

#include <optional>

namespace traindeck::cluster {

enum class NodeRole { Head, Worker };

QString nodeRoleName(NodeRole role); // "head", "worker"

struct ClusterNode {
    QString name;     // display name, unique in the profile; defaults to host
    QString host;     // host name or address used for SSH and in the hostfile
    int port = 22;    // SSH port
    QString user;     // empty: the SSH default (~/.ssh/config, then the local user)
    QString identity; // private key file (path only, never the key), "~" allowed; empty: SSH defaults
    int slots = 1;    // ranks on this node; defaults to gpus when gpus > 0
    int gpus = 0;     // GPUs to use on this node (0: CPU only)
    NodeRole role = NodeRole::Worker;
    QJsonObject extra; // keys this version does not know, kept on round trip

    // "user@host" or "host" (for ssh and the Open MPI hostfile).
    QString sshTarget() const { return user.isEmpty() ? host : user + QLatin1Char('@') + host; }
    friend bool operator==(const ClusterNode&, const ClusterNode&) = default;
};

// "slurm": the profile launches through Slurm (docs/reference/cluster-profiles.md, "Slurm"). The head node is
// the login node, reached over SSH like any head; jobs are submitted there with sbatch and the run
// directory (under workdir) must be on a file system the compute nodes share.
struct SlurmSettings {
    QString partition;                              // required
    QString account;                                // empty: the user's default
    QString timeLimit = QStringLiteral("01:00:00"); // sbatch --time
    int nodes = 1;                                  // --nodes
    int tasksPerNode = 1;                           // --ntasks-per-node: ranks per node
    int gpusPerNode = 0;                            // --gpus-per-node (0: not asked)
    int cpusPerTask = 1;                            // --cpus-per-task
    int signalSeconds = 120; // --signal=B:USR1@N: the trainer checkpoints and stops before the limit
    // How ranks start inside the job: "mpirun" (takes hosts and ranks from Slurm), "srun" (srun
    // --mpi=pmix) or "auto" (srun when `srun --mpi=list` offers pmix, else mpirun; chosen at submit).
    QString ranksVia = QStringLiteral("auto");
    int ranks() const { return nodes * tasksPerNode; }
    friend bool operator==(const SlurmSettings&, const SlurmSettings&) = default;
};

// Whether text is a time limit sbatch --time accepts: MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS.
bool isSlurmTimeLimit(const QString& text);

class ClusterProfile {
    Q_DECLARE_TR_FUNCTIONS(traindeck::cluster::ClusterProfile)

  public:
    static constexpr int FormatVersion = 1;
    static constexpr int MaxSlots = Hostfile::MaxSlots;

    enum class Secrets {
        Reject, // a password-like key or inline private key is an error (load)
        Strip,  // it is removed with a warning (import)
    };

    QString name;
    QString knownHosts = QStringLiteral("~/.ssh/known_hosts");
    QString workdir = QStringLiteral("~/traindeck"); // remote work directory (run dirs go below it)
    QString launcher = QStringLiteral("mpirun");     // program name or absolute path on the head node
    QStringList pathPrefix;                          // "path_prefix": directories put before PATH
    QMap<QString, QString> env;                      // extra environment for every rank
    QList<ClusterNode> nodes;
    bool isLocal = false;               // "local": true: this machine, started as a process, no SSH
    std::optional<SlurmSettings> slurm; // set: launches through Slurm (nodes[head] is the login node)
    QJsonObject extra;                  // unknown top-level keys, kept on round trip

    // The built-in profile "local": this machine as one head node "localhost" with `slots` ranks
    // (<= 0: the number of CPU cores), no SSH, work directory traindeck::paths::dataDir().
    static ClusterProfile local(int slots = 0);
    // A profile whose nodes are a hostfile's hosts (repeated lines merged, the first host the head).
    static ClusterProfile fromHostfile(const Hostfile& hostfile, const QString& name);

    // Parses and validates. fileName appears in diagnostics ("lab.json: nodes[1].port: ...") and gives
    // the name when the file has none.
    static Result<ClusterProfile> fromJson(const QByteArray& json, const QString& fileName,
                                           Secrets secrets = Secrets::Reject);
    QJsonObject toJsonObject() const;
    QByteArray toJson() const; // indented, UTF-8
    // Checks a profile built or edited in code; same messages as fromJson.
    Diagnostics validate(const QString& fileName = QString()) const;

    // The node with role head; without one the first node (documented rule); -1 without nodes.
    int headIndex() const;
    ClusterNode head() const;
    // Ranks of a launch: the Slurm job's nodes × tasks per node, else the nodes' slots.
    int totalSlots() const;
    // The Open MPI hostfile for these nodes: head first (so rank 0 runs there), then the others in
    // order. Warns about SSH ports other than 22 (a hostfile carries none).
    Result<Hostfile> toHostfile() const;

    // Storage under traindeck::paths::configDir().
    static QString profilesDir();
    static QString pathForName(const QString& name);
    static QStringList savedNames();     // sorted; files profiles/*.json
    static QStringList availableNames(); // "local" first, then savedNames()
    static Result<ClusterProfile> load(const QString& path, Secrets secrets = Secrets::Reject);
    // "local" gives local(localSlots); other names read profiles/NAME.json.
    static Result<ClusterProfile> loadNamed(const QString& name, int localSlots = 0);
    Status save(const QString& path) const; // validates first, writes atomically; the directory must exist
    Status saveNamed() const;               // profiles/<name>.json (directory created); "local" is reserved
    static Status removeNamed(const QString& name);

    // Reads a profile from any file, strips secrets (warnings), renames it when asName is given and
    // saves it as profiles/NAME.json (an existing one only with overwrite). Returns the saved profile.
    static Result<ClusterProfile> importFile(const QString& path, const QString& asName = QString(),
                                             bool overwrite = false);
    // Writes the named profile (including "local") to path.
    static Status exportNamed(const QString& name, const QString& path);
};

} // namespace traindeck::cluster
