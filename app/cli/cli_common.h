// Helpers shared by the run subcommands (launch, watch, report, runs, cancel, resume): the --runs-dir
// option, resolving a RUN argument, and following a run until it ends (terminal view or JSON lines).
#pragma once

#include "cluster/clusterprofile.h"
#include "common/result.h"
#include "launch/remoterun.h"
#include "launch/rundir.h"
#include "launch/runmonitor.h"

#include <QCommandLineOption>
#include <QCommandLineParser>
#include <QString>
#include <QTextStream>

#include <memory>

namespace traindeck::runs {
class Operations;
struct StartedRun;
} // namespace traindeck::runs

namespace traindeck::cli {

// The run operations of this program: remote profiles' head nodes over SSH (made on first use).
const runs::Operations& operations();

QCommandLineOption runsDirOption();
// --runs-dir if given (made absolute), else paths::defaultRunsDir().
QString runsDirFrom(const QCommandLineParser& parser, const QCommandLineOption& option);

// "local" (or empty): the built-in local profile; a path (has '/' or ends in .json; relative to baseDir):
// that file; otherwise a saved profile's name.
traindeck::Result<cluster::ClusterProfile> resolveProfile(const QString& nameOrFile, const QString& baseDir);

struct FollowOptions {
    bool json = false;      // JSON lines instead of the terminal view
    qint64 fromOffset = 0;  // emit only metrics lines that start at or after this byte offset
    bool printSteps = true; // terminal view when stdout is not a terminal: one line per step
    int pollMs = 250;
};

// RUN (id or directory) to where the run is (runs::Operations::locate): a local run directory, or a
// remote run's record with a transport to its head (connecting over SSH). offlineWhenSynced: a remote
// run that has ended and whose record is complete is read from the record without connecting. Fails
// when there is no such run (code kNoSuchRun) or the head cannot be reached; exitCodeOf() tells them apart.
inline constexpr QLatin1String kNoSuchRun("cli.no_such_run");
Result<launch::RunLocation> locateRunArgument(const QString& runsDir, const QString& run, bool offlineWhenSynced);
// The exit code for a failed locateRunArgument(): 2 (bad input) for no such run, else 1.
int exitCodeOf(const Result<launch::RunLocation>& failed);

// A monitor of the run at `location` that reads whole files per poll (report, logs), its errors
// printed to err.
std::unique_ptr<launch::RunMonitor> readingMonitor(const launch::RunLocation& location, QTextStream& err);

// Follows the run until it ends (a remote run's record is kept by the monitor, runs::Operations::
// monitor); returns exitCodeFor(final state).
int followRun(const launch::RunLocation& location, const FollowOptions& options);
// Follows a run that launch or resume just started.
int followStarted(const runs::StartedRun& run, bool json);

} // namespace traindeck::cli
