// Which rank failed, where, and how: from the trainer's `error` records, the trainer's stderr lines
// ("traindeck-trainer: rank R on HOST: message") and mpirun's messages ("ORTE has lost communication
// with a remote daemon ... Remote daemon: [[x,y],D] on node H" first: a lost node is the cause, "Process name:
// [[x,y],R] Exit code: C", "MPI_ABORT was invoked on rank R ... errorcode C", "process rank R with PID P on node H
// exited on signal S (Name)").
#pragma once

#include "metrics/records.h"

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>
#include <QStringView>

#include <optional>

namespace traindeck::launch {

struct FailureInfo {
    bool known = false; // a rank could be named
    int rank = -1;
    QString host;
    int exitCode = -1;   // the failing rank's exit code (-1: unknown)
    int signal = 0;      // the signal that killed it (0: none / unknown)
    QString signalName;  // "Killed", ...
    QString message;     // what the rank said, if anything
    QString lostNode;    // the node mpirun lost contact with (node down, daemon killed, link cut)
    QStringList sources; // where the facts came from: "metrics", "trainer", "mpirun", "wrapper"
    int mpirunExitCode = -1;
    QStringList stderrTail; // the last lines of stderr.log

    // "rank 1 on node2 exited with code 3: injected exit (test aid) at step 5"
    QString summary() const;
    QJsonObject toJson() const;
};

// text: stderr.log and stdout.log (mpirun writes its messages to either). hosts: rank -> host from the
// hello record (fills a host mpirun did not name).
FailureInfo attributeFailure(const QList<metrics::ErrorRecord>& errors, const QByteArray& text,
                             std::optional<int> mpirunExitCode, const QStringList& hostsByRank = {},
                             const QStringList& stderrTail = {});

// The last n lines of text (without empty trailing lines).
QStringList lastLines(const QByteArray& text, int n);

// The largest rank a line of log text may name (the metrics parser's bound): a larger number is text, not
// a rank, and never sizes anything (a line "rank 2000000000" once allocated ~48 GB).
constexpr int kMaxRankInText = 1000000;
// The rank that the digits name, or -1 when they are not a whole number of at most kMaxRankInText.
int rankFromText(QStringView digits);

} // namespace traindeck::launch
