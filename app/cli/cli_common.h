// Helpers shared by the run subcommands (launch, watch, report, runs, cancel, resume): the --runs-dir
// option, resolving a RUN argument, and following a run until it ends (terminal view or JSON lines).
#pragma once

#include "cluster/clusterprofile.h"
#include "launch/remoterun.h"
#include "launch/rundir.h"

#include <QCommandLineOption>
#include <QCommandLineParser>
#include <QString>
#include <QTextStream>

#include <memory>

namespace traindeck::launch {
class Transport;
}

namespace traindeck::cli {

QCommandLineOption runsDirOption();
// --runs-dir if given (made absolute), else paths::defaultRunsDir().
QString runsDirFrom(const QCommandLineParser &parser, const QCommandLineOption &option);

// "local" (or empty): the built-in local profile; a path (has '/' or ends in .json; relative to baseDir):
// that file; otherwise a saved profile's name.
cluster::Result<cluster::ClusterProfile> resolveProfile(const QString &nameOrFile, const QString &baseDir);

// Parses args for `traindeck-cli NAME`; on error or --help prints and returns the exit code to use.
// Returns -1 when the caller should go on.
int parseOrExit(QCommandLineParser &parser, const QString &name, const QStringList &args, const QString &usage);

struct FollowOptions {
    bool json = false;          // JSON lines instead of the terminal view
    qint64 fromOffset = 0;      // emit only metrics lines that start at or after this byte offset
    bool printSteps = true;     // terminal view when stdout is not a terminal: one line per step
    int pollMs = 250;
    // A remote run: the local record, whose metrics.jsonl mirrors the head's and which is synced when
    // the run ends (remoterun.h). Empty for local runs.
    QString recordDir;
    // A synced remote record read offline: the state its remote.json says the run ended in (a lost
    // run stays lost; the copied files alone cannot tell).
    std::optional<launch::JobState> knownFinalState;
};

// RUN (id or directory) to where the run is: a local run directory, or a remote run's record with a
// transport to its head (connecting over SSH). offlineWhenSynced: a remote run that has ended and
// whose record is complete is read from the record without connecting. On failure prints why and
// sets *exitCode (2 no such run, 1 the head cannot be reached).
std::optional<launch::RunLocation> locateRunArgument(const QString &runsDir, const QString &run, bool offlineWhenSynced,
                                                     QTextStream &err, int *exitCode);

// Follows the run until it ends; returns exitCodeFor(final state).
int followRun(std::shared_ptr<launch::Transport> transport, const QString &runDir, const FollowOptions &options);

}  // namespace traindeck::cli
