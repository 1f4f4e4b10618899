// traindeck-cli logs RUN [--rank R] [--host H] [--errors] [--json] [--follow] [--runs-dir DIR]: every
// rank's stderr in one view, each line labelled host:rank (mpirun's own lines "mpirun"), identical
// lines of several ranks collapsed ("ranks 1–7"), and when the run failed, the first error of the rank
// that failed first. The parsing, grouping and the choice of the first error are launch::RankLog's
// (launch/ranklogs.h); the failure is the run monitor's attribution. A remote run is read over SSH
// while it runs and from its record once it has ended, like watch and report.
#include "cli_common.h"
#include "command.h"

#include "launch/ranklogs.h"
#include "launch/runmonitor.h"
#include "launch/transport.h"
#include "runs/operations.h"

#include <QCoreApplication>
#include <QEventLoop>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTextStream>
#include <QTimer>

#include <functional>

#include <optional>

using namespace traindeck::cli;
using namespace traindeck::launch;

namespace {

struct LogsCommand {
    Q_DECLARE_TR_FUNCTIONS(LogsCommand)
};

QString usage()
{
    return LogsCommand::tr(
        "usage: traindeck-cli logs RUN [--rank R] [--host H] [--errors] [--json] [--follow] [--runs-dir DIR]\n"
        "Every rank's stderr in one view: each line labelled host:rank (mpirun's own lines: mpirun),\n"
        "identical lines of several ranks collapsed (\"ranks 1-7\"), and when the run failed, the first error\n"
        "of the rank that failed is shown first. RUN is a run id (see `runs`) or a run directory; a run on\n"
        "a remote head node is read over SSH while it runs, from its local record once it has ended.\n"
        "--rank R, --host H: only lines of that rank / of ranks on that host. --errors: only error lines.\n"
        "--json: one JSON object per line (types run, first_error, log, end).\n"
        "--follow: keep printing new lines until the run ends (the first error comes at the end).\n"
        "exit: 0 shown, 1 the logs cannot be read, 2 bad input (no such run, bad flag).\n");
}

constexpr qint64 kMaxLogBytes = 16 << 20; // the last 16 MiB of each log

QString jsonLine(const QJsonObject& o)
{
    return QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Compact));
}

class Printer {
  public:
    Printer(const RankLog& log, const LogFilter& filter, bool json) : m_log(log), m_filter(filter), m_json(json) {}

    // Groups [m_printed, upTo) that pass the filter.
    void printUpTo(qsizetype upTo)
    {
        const QList<LogGroup>& groups = m_log.groups();
        for (; m_printed < std::min(upTo, groups.size()); ++m_printed) {
            const LogGroup& g = groups[m_printed];
            if (!m_log.matches(g, m_filter))
                continue;
            ++m_shown;
            if (m_json)
                m_out << jsonLine(m_log.toJson(g)) << '\n';
            else
                m_out << m_log.label(g).leftJustified(labelWidth()) << "  " << g.text << '\n';
        }
        m_out.flush();
    }

    // The failed rank's first error (when it passes the filter).
    void printFirstError()
    {
        const qsizetype i = m_log.firstErrorGroup();
        if (i < 0 || !m_log.failure() || !m_log.matches(m_log.groups()[i], m_filter))
            return;
        const LogGroup& g = m_log.groups()[i];
        if (m_json) {
            QJsonObject o = m_log.toJson(g);
            o.insert(QStringLiteral("type"), QStringLiteral("first_error"));
            o.insert(QStringLiteral("failure"), m_log.failure()->toJson());
            m_out << jsonLine(o) << '\n';
        } else {
            m_out << LogsCommand::tr("first error (%1):").arg(m_log.failure()->summary()) << '\n'
                  << "  " << m_log.label(g) << "  " << g.text << "  "
                  << LogsCommand::tr("(%1.log line %2)").arg(logStreamName(g.stream)).arg(g.firstLine + 1) << "\n\n";
        }
        m_out.flush();
    }

    qsizetype shown() const { return m_shown; }

  private:
    int labelWidth()
    {
        if (m_width < 0) {
            m_width = 6; // "mpirun"
            for (const LogGroup& g : m_log.groups())
                m_width = std::max(m_width, int(m_log.label(g).size()));
            m_width = std::min(m_width, 24);
        }
        return m_width;
    }

    const RankLog& m_log;
    LogFilter m_filter;
    bool m_json;
    QTextStream m_out{stdout};
    qsizetype m_printed = 0, m_shown = 0;
    int m_width = -1;
};

QStringList hostsOf(const RunMonitor& m)
{
    QStringList hosts;
    if (const auto hello = m.store().hello()) {
        for (const traindeck::metrics::RankInfo& r : hello->ranks) {
            while (hosts.size() <= r.rank)
                hosts.append(QString());
            if (r.rank >= 0)
                hosts[r.rank] = r.host;
        }
    }
    return hosts;
}

// --rank and --host into `filter`; returns the exit code when they are not valid.
std::optional<int> readFilter(const QCommandLineParser& parser, const QCommandLineOption& rankOpt,
                              const QCommandLineOption& hostOpt, LogFilter& filter, QTextStream& err)
{
    if (parser.isSet(rankOpt)) {
        bool ok = false;
        filter.rank = parser.value(rankOpt).toInt(&ok);
        if (!ok || filter.rank < 0) {
            err << LogsCommand::tr("traindeck-cli logs: --rank: expected a rank number >= 0, got '%1'")
                       .arg(parser.value(rankOpt))
                << '\n';
            return ExitBadInput;
        }
    }
    filter.host = parser.value(hostOpt);
    if (parser.isSet(hostOpt) && filter.host.isEmpty()) {
        err << LogsCommand::tr("traindeck-cli logs: --host: expected a host name") << '\n';
        return ExitBadInput;
    }
    return std::nullopt;
}

// A rank or host the run never had is a typo, not an empty log: returns the exit code then.
std::optional<int> checkFilterAgainstRun(const LogFilter& filter, const QStringList& hosts, QTextStream& err)
{
    if (filter.rank >= 0 && !hosts.isEmpty() && filter.rank >= hosts.size()) {
        err << LogsCommand::tr("traindeck-cli logs: --rank %1: the run has ranks 0-%2")
                   .arg(filter.rank)
                   .arg(hosts.size() - 1)
            << '\n';
        return ExitBadInput;
    }
    if (!filter.host.isEmpty() && !hosts.isEmpty() && !hosts.contains(filter.host)) {
        QStringList known = hosts;
        known.removeAll(QString());
        known.removeDuplicates();
        err << LogsCommand::tr("traindeck-cli logs: --host %1: no rank ran there (hosts: %2)")
                   .arg(filter.host, known.join(QStringLiteral(", ")))
            << '\n';
        return ExitBadInput;
    }
    return std::nullopt;
}

// The logs as they are now, read whole (their last 16 MiB); false when stderr.log cannot be read.
bool readWholeLogs(RankLog& log, const RunLocation& loc, bool& truncated, QTextStream& err)
{
    if (const traindeck::Status s = log.readRunLogs(*loc.transport, loc.runDir, kMaxLogBytes, &truncated); !s) {
        err << LogsCommand::tr("traindeck-cli logs: %1").arg(s.errorString()) << '\n';
        return false;
    }
    if (truncated)
        err << LogsCommand::tr("traindeck-cli logs: stderr.log is long: showing its last %1 MiB")
                   .arg(kMaxLogBytes >> 20)
            << '\n';
    return true;
}

// --follow until the run ends: a group is printed once it is a tick old, so that the same line of the
// other ranks joined it; at the end stdout, the failure and the first error.
void followLogs(RunMonitor& m, RankLog& log, Printer& printer, const RunLocation& loc, bool json, QTextStream& out,
                const std::function<void(JobState)>& printEnd)
{
    printer.printUpTo(log.groups().size());
    QEventLoop loop;
    qsizetype settled = log.groups().size();
    QTimer tick;
    tick.setInterval(1000);
    QObject::connect(&tick, &QTimer::timeout, &loop, [&] {
        log.setHostsByRank(hostsOf(m));
        printer.printUpTo(settled);
        settled = log.groups().size();
    });
    QObject::connect(&m, &RunMonitor::ended, &loop, [&](JobState s) {
        log.setHostsByRank(hostsOf(m));
        (void)log.readFile(*loc.transport, loc.runDir, runfile::kStdout, kMaxLogBytes);
        log.finish();
        if (s != JobState::Finished)
            log.setFailure(m.failure());
        printer.printUpTo(log.groups().size());
        if (!json)
            out << '\n';
        printer.printFirstError();
        printEnd(s);
        loop.quit();
    });
    tick.start();
    m.start(0);
    loop.exec();
}

int run(const QStringList& args)
{
    QTextStream out(stdout), err(stderr);
    QCommandLineParser parser;
    const QCommandLineOption rankOpt(QStringLiteral("rank"), LogsCommand::tr("Only this rank's lines."),
                                     QStringLiteral("r"));
    const QCommandLineOption hostOpt(QStringLiteral("host"), LogsCommand::tr("Only lines of ranks on this host."),
                                     QStringLiteral("host"));
    const QCommandLineOption errorsOpt(QStringLiteral("errors"), LogsCommand::tr("Only error lines."));
    const QCommandLineOption jsonOpt(QStringLiteral("json"), LogsCommand::tr("JSON lines."));
    const QCommandLineOption followOpt(QStringLiteral("follow"), LogsCommand::tr("Follow until the run ends."));
    const QCommandLineOption runsDir = runsDirOption();
    parser.addOptions({rankOpt, hostOpt, errorsOpt, jsonOpt, followOpt, runsDir});
    if (const int rc = parseOrExit(parser, QStringLiteral("logs"), args, usage()); rc >= 0)
        return rc;
    if (parser.positionalArguments().size() != 1) {
        err << LogsCommand::tr("traindeck-cli logs: expected exactly one RUN") << '\n' << usage();
        return ExitBadInput;
    }
    LogFilter filter;
    if (const auto bad = readFilter(parser, rankOpt, hostOpt, filter, err))
        return *bad;
    filter.errorsOnly = parser.isSet(errorsOpt);
    const bool json = parser.isSet(jsonOpt);

    const auto loc = locateRunArgument(runsDirFrom(parser, runsDir), parser.positionalArguments().first(), true);
    if (!loc) {
        err << loc.errorString();
        return exitCodeOf(loc);
    }
    // The monitor says the state, the hosts (hello) and, for a failed run, who failed (failure.h).
    const std::unique_ptr<RunMonitor> monitor = readingMonitor(loc.value(), err);
    RunMonitor& m = *monitor;
    // --follow: the monitor tails stderr.log (from its start) and hands over every line.
    RankLog log;
    QMetaObject::Connection tail;
    if (parser.isSet(followOpt)) {
        tail = QObject::connect(&m, &RunMonitor::stderrLines, &m, [&log](const QStringList& lines) {
            QByteArray data;
            for (const QString& l : lines)
                data += l.toUtf8() + '\n';
            log.addText(data, LogStream::Stderr);
        });
    }
    m.poll();
    const bool follow = parser.isSet(followOpt) && !isFinal(m.state());
    bool truncated = false;
    if (!follow) {
        QObject::disconnect(tail);
        if (!readWholeLogs(log, loc.value(), truncated, err))
            return ExitFailed;
    }
    log.setHostsByRank(hostsOf(m));
    const JobState state = m.state();
    if (isFinal(state) && state != JobState::Finished)
        log.setFailure(m.failure());

    const QStringList hosts = log.hostsByRank();
    if (const auto bad = checkFilterAgainstRun(filter, hosts, err))
        return *bad;
    if (!log.tagged() && log.lineCount() > 0 && !json)
        err << LogsCommand::tr("note: this run's logs carry no rank tags (started before mpirun --tag-output): only "
                               "the trainer's own lines name their rank, the others are labelled ?")
            << '\n';

    const QString runId = QFileInfo(loc->localDir).fileName();
    if (json) {
        QJsonObject o{{QStringLiteral("type"), QStringLiteral("run")},
                      {QStringLiteral("run_id"), runId},
                      {QStringLiteral("run_dir"), loc->localDir},
                      {QStringLiteral("state"), jobStateName(state)},
                      {QStringLiteral("tagged"), log.tagged()},
                      {QStringLiteral("hosts"), QJsonArray::fromStringList(hosts)},
                      {QStringLiteral("truncated"), truncated}};
        if (log.failure())
            o.insert(QStringLiteral("failure"), log.failure()->toJson());
        out << jsonLine(o) << '\n';
        out.flush();
    }
    Printer printer(log, filter, json);
    auto printEnd = [&](JobState s) {
        if (json)
            out << jsonLine({{QStringLiteral("type"), QStringLiteral("end")},
                             {QStringLiteral("state"), jobStateName(s)},
                             {QStringLiteral("lines"), log.lineCount()},
                             {QStringLiteral("groups"), log.groups().size()},
                             {QStringLiteral("shown"), printer.shown()}})
                << '\n';
        else if (log.lineCount() == 0)
            err << LogsCommand::tr("traindeck-cli logs: %1: no log lines yet").arg(runId) << '\n';
        out.flush();
    };
    if (!follow) {
        printer.printFirstError();
        printer.printUpTo(log.groups().size());
        printEnd(state);
        return ExitOk;
    }

    followLogs(m, log, printer, loc.value(), json, out, printEnd);
    return ExitOk;
}

Registration reg{{QStringLiteral("logs"),
                  QStringLiteral("every rank's stderr labelled host:rank, the failed rank's first error first"), run}};

} // namespace
