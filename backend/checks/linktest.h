// The link test: latency and bandwidth between the profile's nodes, measured the way the training job's
// traffic travels — MPI point-to-point over the same mpirun, hostfile and interfaces (`traindeck-trainer
// bench-links`, one rank per node, started on the head over SSH). The trainer measures rounds of disjoint
// pairs side by side and plans them itself (its dist::LinkSearch: a search for slow nodes, or every pair
// with --all-pairs or below 6 nodes); this side runs it, reads its measurements and verdicts, words them
// and keeps the measured pairs for the diagnosis.
#pragma once

#include "cluster/clusterprofile.h"
#include "cluster/savedlinktest.h"
#include "common/result.h"
#include "ssh/sshtypes.h"

#include <QCoreApplication>
#include <QJsonObject>
#include <QList>
#include <QString>

#include <functional>
#include <optional>

namespace traindeck::ssh {
class CommandRunner;
}

namespace traindeck::checks {

struct LinkMeasurement {
    int a = 0, b = 0;         // node indexes in the profile (a != b; a initiated)
    int round = 1;            // the round it was measured in
    QString hostA, hostB;     // host names the ranks reported
    double latencyUs = 0;     // one way: half of an 8-byte round trip
    double bandwidthMbps = 0; // one way, megabit/s
    bool slow = false;        // below the search's threshold
};

struct LinkVerdict {
    enum class Kind { SlowNode, SlowLink, Suspect };
    Kind kind = Kind::Suspect;
    int node = -1;          // the node, or the slow link's first end
    int peer = -1;          // SlowLink: the other end
    bool byLatency = false; // slow in latency, not in bandwidth
    QList<int> slowWith, fastWith;
    QString reason; // translated: "tb-node7 was slow with tb-node3 (94.1 Mbit/s) and tb-node12 (…); …"
};

struct LinkRound {
    int round = 0;
    int pairs = 0; // measured side by side
    double seconds = 0;
};

// One node's line in the ranked list.
struct NodeLinkSummary {
    int node = -1;
    int pairs = 0;                        // measurements it took part in
    double bestMbps = 0;                  // its fastest pair
    double worstMbps = 0;                 // its slowest pair
    double latencyUs = 0;                 // its shortest latency
    const LinkVerdict* verdict = nullptr; // the verdict that names it, if any
};

struct LinkReport {
    Q_DECLARE_TR_FUNCTIONS(traindeck::checks::LinkReport)

  public:
    QString profile;
    QStringList nodes; // profile node names, in profile order
    QList<LinkMeasurement> pairs;
    qint64 bytes = 0;      // message size of the bandwidth round trips
    bool allPairs = false; // every pair measured (the tournament), else the search for slow nodes
    qint64 seed = 0;       // round 1's matching
    QList<LinkRound> rounds;
    double medianBandwidthMbps = 0, medianLatencyUs = 0; // the reference of the slow threshold
    double slowBelowFraction = 0.5;                      // of medianBandwidthMbps
    QList<LinkVerdict> verdicts;
    qint64 elapsedMs = 0;

    const LinkMeasurement* find(int a, int b) const; // either order
    const LinkVerdict* verdictFor(int node) const;   // a slow node or suspect verdict naming it
    // Every node, the slowest first (by its fastest pair: a slow node is slow with every partner).
    QList<NodeLinkSummary> rankedNodes() const;
    QString verdictLabel(const LinkVerdict& v) const; // "slow node", "slow link to tb-node3", "suspect"
    QJsonObject toJson() const;                       // "ok": true
};

struct LinkTestOptions {
    qint64 bytes = 1 << 20;     // per bandwidth round trip
    int iterations = 5;         // bandwidth round trips; the fastest counts
    int timeoutMs = 180000;     // with allPairs, 4 s more per node (its N-1 rounds)
    bool allPairs = false;      // every pair (N-1 rounds), not the search for slow nodes
    std::optional<qint64> seed; // round 1's matching; by default the trainer draws one (reported)
    int maxRounds = 4;          // of the search
    // Called on the thread that runs the test after each round, with the rounds done and the pairs measured.
    std::function<void(int round, int pairs)> onRound;
    ssh::SshTarget targetTemplate; // knownHosts/configFile/agent defaults (as CheckOptions)
};

class LinkTest {
    Q_DECLARE_TR_FUNCTIONS(traindeck::checks::LinkTest)

  public:
    // "9.84 Gbit/s", "47.3 Mbit/s".
    static QString formatBandwidth(double mbps);
    // The shell command run on the head (profile path_prefix and env applied; as root, mpirun is
    // allowed to run as root).
    static QString command(const cluster::ClusterProfile& profile, const LinkTestOptions& options);
    // Parses bench-links' JSON line from the command's stdout into a report for `profile` (ranks are
    // the profile's nodes in order: --map-by node places rank i on node i), wording its verdicts. Fails
    // (naming the profile) when the line is absent or malformed.
    static Result<LinkReport> parse(const cluster::ClusterProfile& profile, const QByteArray& stdOut);
    // A verdict in words, with the measurements behind it.
    static QString reason(const LinkReport& report, const LinkVerdict& verdict);
    // The measured pairs, as the diagnosis of the profile's runs reads them.
    static cluster::SavedLinkTest toSaved(const LinkReport& report);
    // Runs it on an open runner for the head node; a successful test of a saved profile is kept
    // (cluster::SavedLinkTest) for the diagnosis of that profile's runs (a warning when it could not
    // be). A test that could not run fails with the command's last output lines as the detail.
    static Result<LinkReport> run(const cluster::ClusterProfile& profile, ssh::CommandRunner& head,
                                  const LinkTestOptions& options, const ssh::CancelToken& cancel);
    // Opens the head's SSH session (prompts for unknown host keys through `prompts`) and runs it.
    static Result<LinkReport> run(const cluster::ClusterProfile& profile, const LinkTestOptions& options,
                                  const ssh::SshPrompts& prompts, const ssh::CancelToken& cancel);
    // A finished test as `check --json` prints it: the report, or for one that could not run
    // {"profile", "ok": false, "error", "evidence"}.
    static QJsonObject toJson(const Result<LinkReport>& result, const QString& profile);
};

} // namespace traindeck::checks
