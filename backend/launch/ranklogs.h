// Logs by node and rank: a run's stderr.log (and stdout.log) as lines labelled host:rank, identical
// lines of many ranks collapsed into one ("ranks 1–7: ..."), and the first error of the rank that
// failed (as failure.h attributes it) picked out so it can be shown first.
//
// mpirun runs with --tag-output (launchplan.cpp): every line a rank writes arrives as
// "[jobid,rank]<stderr>:text"; mpirun's own messages are untagged. A rank's partial write is tagged
// on its own and may share a physical line with other ranks' output ("[1,0]<stdout>:par[1,1]<stdout>:
// x\n[1,0]<stdout>:tial\n"); LogLineSplitter puts each rank's line back together. The host of a rank
// comes from the run's `hello` record (hostsByRank) or from the trainer's own
// "traindeck-trainer: rank R on HOST: message" lines. Logs written before --tag-output (no tag at all)
// still show: their lines are labelled "?" except the trainer's lines, which name their rank.
//
// Ranks started with srun inside a Slurm job (docs/users/slurm.md) are labelled by `srun --label` instead:
// "  3: text", one whole line at a time. The batch script first writes kSrunLabelMarker into both logs,
// so the log itself says how to read the lines after it (also in a mirror or an old record).
//
// Everything here is incremental (a live run's log grows) and pure except RankLog::readFile.
#pragma once

#include "common/result.h"
#include "launch/failure.h"

#include <QByteArray>
#include <QCoreApplication>
#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace traindeck::launch {

class Transport;

enum class LogStream { Stderr, Stdout };

// The line job.sbatch writes before `srun --label` starts the ranks (launchplan.cpp).
// The longest line of a log that is kept whole: a rank printing \r progress bars or binary output writes
// no newline, and its "line" would grow without bound (and be rescanned at every poll). Past this many
// bytes without a newline the text so far becomes a line of its own.
inline constexpr qsizetype kMaxLogLineBytes = 64 * 1024;

inline constexpr char kSrunLabelMarker[] = "traindeck: ranks start with srun --label (lines read \"RANK: text\")";
QString logStreamName(LogStream s); // "stderr", "stdout"

struct LogLine {
    int rank = -1;       // -1: no rank (mpirun's own line, or an untagged line of an old log)
    bool tagged = false; // the line came with a rank's tag (mpirun --tag-output or srun --label)
    LogStream stream = LogStream::Stderr;
    QString text;
};

// mpirun output (one file's bytes, in chunks) to lines. Partial lines are kept until they end.
class LogLineSplitter {
  public:
    explicit LogLineSplitter(LogStream stream = LogStream::Stderr) : m_stream(stream) {}
    QList<LogLine> feed(const QByteArray& data);
    // What is left: an unterminated last line, and ranks' lines cut off by other ranks' output.
    QList<LogLine> finish();

  private:
    void physicalLine(const QByteArray& line, QList<LogLine>& out);
    LogStream m_stream;
    bool m_srunLabels = false; // kSrunLabelMarker was seen: "RANK: text" from here on
    QByteArray m_partial;
    QHash<int, QString> m_pending; // rank -> start of a line continued in a later tagged fragment
};

// Whether a line reads like an error: error, fatal, exception, abort, traceback, killed, signal,
// segmentation fault, lost communication, non-zero exit, exit code, "what():", and the trainer's
// "traindeck-trainer: rank R on HOST: ..." lines.
bool isErrorText(const QString& text);

// Identical lines of several ranks, collapsed; or one line of one rank; or one untagged line.
struct LogGroup {
    QList<int> ranks; // ascending; empty: mpirun's line (or an untagged line of an old log)
    LogStream stream = LogStream::Stderr;
    QString text;
    bool error = false;
    bool tagged = false;  // the line(s) came tagged
    qint64 firstLine = 0; // index of its first line among all lines added (0-based)
};

// Which groups a view shows. rank -1 and an empty host: every group.
struct LogFilter {
    int rank = -1;
    QString host;
    bool errorsOnly = false;
};

// "0–3,5,7": ascending ranks, runs of consecutive ranks joined with an en dash.
QString rankRanges(const QList<int>& ranks);

class RankLog {
    Q_DECLARE_TR_FUNCTIONS(traindeck::launch::RankLog)

  public:
    // Lines of other ranks that join a group of identical lines must come within this many lines of
    // its first one (a line repeated much later is a new event).
    // A job of more ranks widens it to twice its ranks (joinWindow()): 1,024 ranks printing the same line
    // write 1,024 lines, and with a fixed window the last ones began groups of their own.
    static constexpr qint64 kJoinWindow = 256;
    qint64 joinWindow() const;
    // A group missing at most this many of the job's ranks is labelled "ranks 0–1023 except 517".
    static constexpr int kMaxExceptions = 8;

    // rank -> host, from the run's hello record. Hosts named by the trainer's lines fill gaps.
    void setHostsByRank(const QStringList& hosts);
    QStringList hostsByRank() const;
    QString hostOf(int rank) const; // empty when unknown

    // The run's failure (failure.h); the first error is looked for only once a failure is set.
    void setFailure(const FailureInfo& failure);
    const std::optional<FailureInfo>& failure() const { return m_failure; }

    struct Change {
        qsizetype firstNewGroup = 0;    // groups from here on are new
        QList<qsizetype> changedGroups; // older groups that gained a rank
        bool taggedChanged = false;     // the first tag was seen: untagged lines are mpirun's now
    };
    Change add(const QList<LogLine>& lines);
    // Raw bytes of a log (split with one LogLineSplitter per stream).
    Change addText(const QByteArray& data, LogStream stream);
    // Flushes the splitters (the end of the files).
    Change finish();
    void clear();

    // Reads the run's log file `name` (runfile::kStderr or kStdout) through the transport, at most its
    // last maxBytes (then *truncated is set and the first, partial line dropped), and adds it. A
    // missing file adds nothing and is no error.
    Status readFile(Transport& transport, const QString& runDir, const char* name, qint64 maxBytes = 16 << 20,
                    bool* truncated = nullptr);
    // A run's logs as they are now, from the start: clear(), then stderr.log (its failure is returned;
    // *truncated says whether its start was cut), stdout.log (read where it can be), then finish(). What
    // `traindeck-cli logs` and the Monitor's Logs tab of a run opened offline show.
    Status readRunLogs(Transport& transport, const QString& runDir, qint64 maxBytes = 16 << 20,
                       bool* truncated = nullptr);

    const QList<LogGroup>& groups() const { return m_groups; }
    qint64 lineCount() const { return m_lines; }
    // Whether the log carries rank tags (then untagged lines are mpirun's own).
    bool tagged() const { return m_tagged; }
    // What wrote the untagged lines of a tagged log: "srun" (after kSrunLabelMarker) or "mpirun".
    QString launcherName() const;

    // "node2:1", "ranks 1–7", "ranks 0–1023 except 517" (most of the job's ranks, as the hello counts them),
    // "mpirun" or "srun" (untagged in a tagged log), "?" (untagged in an old log).
    QString label(const LogGroup& g) const;
    QStringList hostsOf(const LogGroup& g) const;
    bool matches(const LogGroup& g, const LogFilter& f) const;

    // The failed rank's first error line: the first error-like group of the failing rank; without
    // one (a lost node, a rank killed before it could speak, an old untagged log), mpirun's first
    // error-like line that names "rank R", else mpirun's first error-like line. -1: no failure set,
    // or nothing found.
    qsizetype firstErrorGroup() const;

    // {type: "log", label, ranks, hosts, stream, text, error, line}
    QJsonObject toJson(const LogGroup& g) const;

  private:
    QStringList m_hosts;
    std::optional<FailureInfo> m_failure;
    QList<LogGroup> m_groups;
    QHash<QString, qsizetype> m_lastByText; // stream + text -> its latest rank group
    qint64 m_lines = 0;
    bool m_tagged = false;
    bool m_srun = false; // the ranks started with srun (kSrunLabelMarker): untagged lines are srun's
    LogLineSplitter m_err{LogStream::Stderr}, m_out{LogStream::Stdout};
};

} // namespace traindeck::launch
