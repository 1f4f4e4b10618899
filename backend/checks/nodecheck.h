// Node environment checks: small independent steps run on every node of a profile (over SSH, or
// through a local process for the "local" profile), each with a timeout, continuing after errors
// (Qt Creator's linuxdevicetester style). Every result is pass/warn/fail/skip with the evidence seen
// and a remedy a person can act on. A cross-node matrix flags versions that differ.
#pragma once

#include "cluster/clusterprofile.h"
#include "ssh/sshtypes.h"

#include <QCoreApplication>
#include <QJsonObject>
#include <QList>
#include <QMetaType>
#include <QString>

#include <functional>

namespace traindeck::ssh {
class CommandRunner;
}

namespace traindeck::checks {

enum class CheckStatus { Pass, Warn, Fail, Skip };
QString checkStatusName(CheckStatus s); // "pass", "warn", "fail", "skip"

struct CheckResult {
    QString id;    // stable: "connect", "os", "cpu", "memory", "disk", "gpu", "cuda", "nccl", "mpi",
                   // "trainer", "head-ssh", "clock", "network", "interconnect", "slurm", "slurm-job"
    QString title; // translated
    CheckStatus status = CheckStatus::Skip;
    QString summary;  // one line, translated ("4 × NVIDIA H100 80GB, driver 550.54")
    QString evidence; // what was seen (command output excerpts), may be several lines
    QString remedy;   // what to do (empty for pass)
    QString value;    // the comparable value for the cross-node matrix (a version, a model), may be empty
    // What a launch compares its memory plan with: "memory" the node's RAM, "gpu" the smallest GPU's
    // memory (MiB) and the GPUs listed. 0 when not measured.
    double memoryMiB = 0;
    int gpus = 0;
    qint64 elapsedMs = 0;
    QJsonObject toJson() const;
};

struct NodeReport {
    QString node; // display name
    QString host;
    bool isHead = false;
    QList<CheckResult> results;
    const CheckResult* find(const QString& id) const;
    CheckStatus worst() const;
    QJsonObject toJson() const;
};

struct MatrixRow {
    QString id; // check id
    QString title;
    QStringList values;                       // per node, in node order ("" when unknown)
    bool differs = false;                     // non-empty values differ
    CheckStatus severity = CheckStatus::Pass; // of the difference (fail for trainer/MPI versions, else warn)
    QString remedy;
};

struct CheckReport {
    QString profile;
    QList<NodeReport> nodes;
    QList<MatrixRow> matrix;
    bool cancelled = false;
    qint64 elapsedMs = 0;
    bool hasFailures() const;
    int count(CheckStatus s) const;
    QJsonObject toJson() const;
};

struct CheckOptions {
    int stepTimeoutMs = 20000; // per command
    // The trainer's self-check gets this many step time-outs: it loads LibTorch (over 1 GB of libraries),
    // which a cold page cache, a shared file system or many nodes on few cores (the testbed) make slow.
    static constexpr int kTrainerTimeoutSteps = 3;
    int connectTimeoutMs = 10000;
    bool interconnect = false;  // run `traindeck-trainer bench-comm` (optional)
    double minMemoryGb = 64;    // warn below
    double minGpuMemoryGb = 24; // warn below (1.5B model)
    double minDiskGb = 100;     // warn below; fail below failDiskGb
    double failDiskGb = 10;
    double maxClockSkewS = 2;      // warn above
    int maxParallelNodes = 32;     // nodes checked at once (threads and SSH sessions), for large profiles
    int slurmJobWaitMs = 120000;   // Slurm: how long the check job may wait in the queue
    ssh::SshTarget targetTemplate; // knownHosts/configFile/agent/identities defaults for every node
};

// Keeps evidence readable: at most `lines` lines and 2000 characters.
QString excerpt(const QString& text, int lines = 12);
// A command's stdout, then its stderr, trimmed.
QString outputOf(const ssh::ExecResult& result);

// The SSH target for a node (ssh::SshSession::targetFor with `tpl`), with the checks' connect timeout.
ssh::SshTarget nodeTarget(const cluster::ClusterProfile& profile, const cluster::ClusterNode& node,
                          const ssh::SshTarget& tpl, int connectTimeoutMs);

// Runs the checks of one node on an already connected runner. headContext gives the other nodes
// (for the head's passwordless-SSH check). Continues after failures. progress(result) after each.
class NodeChecker {
    Q_DECLARE_TR_FUNCTIONS(traindeck::checks::NodeChecker)

  public:
    NodeChecker(const cluster::ClusterProfile& profile, int nodeIndex, const CheckOptions& options);

    // The id of the first check, "connect": the caller runs it (it opens the runner).
    static QString connectId();
    // The checks run() runs on this node, in order (ids); "connect" and "slurm-job" (the caller runs
    // them) are not among them.
    QStringList checkIds() const;
    // Translated title of a check id ("gpu" → "GPUs"); the id itself when unknown.
    static QString titleFor(const QString& id);
    // An empty result (status skip) of a check: its id and translated title.
    static CheckResult resultFor(const QString& id);
    // connect result comes from the caller (it opened the runner); this runs the rest.
    QList<CheckResult> run(ssh::CommandRunner& runner, const ssh::CancelToken& cancel,
                           const std::function<void(const CheckResult&)>& progress);

    // Wraps a command with the profile's path_prefix and env: "export PATH=...; export K=V; cmd".
    static QString wrapCommand(const cluster::ClusterProfile& profile, const QString& command);

    // Parsers, public for tests.
    struct Gpu {
        QString name;
        double memoryMiB = 0;
        QString driver;
    };
    static QList<Gpu> parseNvidiaSmi(const QString& csv);
    // Suggested NCCL_SOCKET_IFNAME from `ip -o -4 addr` output: the interface holding preferAddress,
    // else the first that is not loopback/docker/virtual bridge. Empty when none.
    static QString suggestSocketIfname(const QString& ipOutput, const QString& preferAddress = QString());
    // The neighbour (ARP) entries a node of an N-node cluster needs: one per peer, plus room for the rest of
    // its network (storage, gateways). Below it the network check warns.
    static constexpr int neighbourEntriesNeeded(int nodes) { return nodes - 1 + 256; }

  private:
    // One check: id, title, the function that runs it and the nodes it applies to, declared once in
    // kChecks (nodecheck.cpp), from which the id list, the titles and run() are derived.
    // Each function gets resultFor(id) and fills it in.
    using CheckFn = CheckResult (NodeChecker::*)(CheckResult, ssh::CommandRunner&, const ssh::CancelToken&);
    enum class AppliesTo { EveryNode, HeadOfSeveral, HeadWithInterconnect, SlurmLogin };
    struct Check {
        const char* id;
        const char* title; // untranslated, QT_TRANSLATE_NOOP'd in NodeChecker's context
        CheckFn fn;        // nullptr for "connect", which the caller runs
        AppliesTo appliesTo;
    };
    static const Check kChecks[];
    static const Check* findCheck(const QString& id);
    bool appliesHere(const Check& check) const;

    ssh::ExecResult exec(ssh::CommandRunner& runner, const QString& command, const ssh::CancelToken& cancel,
                         int timeoutSteps = 1) const;

    CheckResult checkOs(CheckResult r, ssh::CommandRunner&, const ssh::CancelToken&);
    CheckResult checkCpu(CheckResult r, ssh::CommandRunner&, const ssh::CancelToken&);
    CheckResult checkMemory(CheckResult r, ssh::CommandRunner&, const ssh::CancelToken&);
    CheckResult checkDisk(CheckResult r, ssh::CommandRunner&, const ssh::CancelToken&);
    CheckResult checkGpu(CheckResult r, ssh::CommandRunner&, const ssh::CancelToken&);
    CheckResult checkCuda(CheckResult r, ssh::CommandRunner&, const ssh::CancelToken&);
    CheckResult checkNccl(CheckResult r, ssh::CommandRunner&, const ssh::CancelToken&);
    CheckResult checkMpi(CheckResult r, ssh::CommandRunner&, const ssh::CancelToken&);
    CheckResult checkTrainer(CheckResult r, ssh::CommandRunner&, const ssh::CancelToken&);
    CheckResult checkHeadSsh(CheckResult r, ssh::CommandRunner&, const ssh::CancelToken&);
    CheckResult checkClock(CheckResult r, ssh::CommandRunner&, const ssh::CancelToken&);
    CheckResult checkNetwork(CheckResult r, ssh::CommandRunner&, const ssh::CancelToken&);
    CheckResult warnOnSmallNeighbourTable(CheckResult r, int neighbourCap) const;
    CheckResult checkInterconnect(CheckResult r, ssh::CommandRunner&, const ssh::CancelToken&);
    CheckResult checkSlurm(CheckResult r, ssh::CommandRunner&, const ssh::CancelToken&);

    const cluster::ClusterProfile& m_profile;
    int m_index;
    cluster::ClusterNode m_node;
    CheckOptions m_options;
    bool m_hasGpu = false;
    QString m_selfCheckNccl;
    QString m_selfCheckCuda;
};

// The cross-node matrix and the failures it implies (added to the report).
void buildMatrix(CheckReport& report);

// Nodes that agree: the same checks with the same status each and the same value in every row of the
// matrix (versions, drivers, interface names). Each group lists node indices in node order; the largest
// group comes first (the nodes that are "the same"), then the others in the order of their first node.
// What a person reads at many nodes: one row per group, the nodes that differ standing out.
QList<QList<int>> agreeingNodeGroups(const CheckReport& report);

} // namespace traindeck::checks

Q_DECLARE_METATYPE(traindeck::checks::CheckResult)
Q_DECLARE_METATYPE(traindeck::checks::NodeReport)
Q_DECLARE_METATYPE(traindeck::checks::CheckReport)
