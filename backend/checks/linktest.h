// The link test: latency and bandwidth between every pair of a profile's nodes, measured the way the
// training job's traffic travels — MPI point-to-point over the same mpirun, hostfile and interfaces
// (`traindeck-trainer bench-links`, one rank per node, started on the head over SSH). One pair is
// measured at a time, so pairs do not share a link. A node whose every link is much slower than the
// links between the other nodes is named as the outlier.
#pragma once

#include "cluster/clusterprofile.h"
#include "cluster/savedlinktest.h"
#include "common/result.h"
#include "ssh/sshtypes.h"

#include <QCoreApplication>
#include <QJsonObject>
#include <QList>
#include <QString>

#include <optional>

namespace traindeck::ssh {
class CommandRunner;
}

namespace traindeck::checks {

struct LinkMeasurement {
    int a = 0, b = 0;         // node indexes in the profile (a < b)
    QString hostA, hostB;     // host names the ranks reported
    double latencyUs = 0;     // one way: half of an 8-byte round trip
    double bandwidthMbps = 0; // one way, megabit/s
};

struct LinkOutlier {
    int node = -1;
    QString reason; // translated: "every link of tb-node3 is ≤ 47 Mbit/s, the others ≥ 9800 Mbit/s"
};

struct LinkReport {
    QString profile;
    QStringList nodes; // profile node names, in profile order
    QList<LinkMeasurement> pairs;
    qint64 bytes = 0; // message size of the bandwidth round trips
    std::optional<LinkOutlier> bandwidthOutlier, latencyOutlier;
    qint64 elapsedMs = 0;

    const LinkMeasurement* find(int a, int b) const; // either order
    QJsonObject toJson() const;                      // "ok": true
};

struct LinkTestOptions {
    qint64 bytes = 1 << 20; // per bandwidth round trip
    int iterations = 5;     // bandwidth round trips; the fastest counts
    int timeoutMs = 180000;
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
    // the profile's nodes in order: --map-by node places rank i on node i). Fails (naming the profile)
    // when the line is absent or malformed.
    static Result<LinkReport> parse(const cluster::ClusterProfile& profile, const QByteArray& stdOut);
    // Names the node whose links are all far slower (bandwidth below half of the slowest link between
    // the other nodes) or far longer (latency above twice the largest among the others and 100 us more).
    static void findOutliers(LinkReport& report);
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
