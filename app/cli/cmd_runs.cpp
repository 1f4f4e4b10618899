// traindeck-cli runs [--json] [--refresh] [--runs-dir DIR]: the run history, newest first. Runs on a
// remote head node are listed from their local records (HEAD column; state as last seen until the run
// has ended); --refresh first asks their head nodes over SSH about the ones not known to have ended.
#include "cli_common.h"
#include "command.h"

#include "runs/operations.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTextStream>

using namespace traindeck::cli;
using namespace traindeck::launch;

namespace {

struct RunsCommand {
    Q_DECLARE_TR_FUNCTIONS(RunsCommand)
};

QString usage()
{
    return RunsCommand::tr(
        "usage: traindeck-cli runs [--json] [--refresh] [--runs-dir DIR]\n"
        "Lists the runs under the runs directory, newest first: id, state, last step, loss, created,\n"
        "and the head node of runs on a remote one (their state as last seen, marked *, until they end).\n"
        "--refresh: ask the head nodes of remote runs that have not ended (SSH) first.\n");
}

int run(const QStringList& args)
{
    QTextStream out(stdout), err(stderr);
    QCommandLineParser parser;
    const QCommandLineOption jsonOpt(QStringLiteral("json"), RunsCommand::tr("A JSON array."));
    const QCommandLineOption refreshOpt(QStringLiteral("refresh"),
                                        RunsCommand::tr("Ask the head nodes of remote runs about their state first."));
    const QCommandLineOption runsDir = runsDirOption();
    parser.addOptions({jsonOpt, refreshOpt, runsDir});
    if (const int rc = parseOrExit(parser, QStringLiteral("runs"), args, usage()); rc >= 0)
        return rc;
    if (!parser.positionalArguments().isEmpty()) {
        err << RunsCommand::tr("traindeck-cli runs: unexpected argument '%1'").arg(parser.positionalArguments().first())
            << '\n';
        return ExitBadInput;
    }
    const auto listed = operations().list(runsDirFrom(parser, runsDir), parser.isSet(refreshOpt));
    for (const traindeck::Diagnostic& unreachable : listed.warnings())
        err << unreachable.toString() << '\n';
    const QList<RunSummary>& runs = listed.value();
    if (parser.isSet(jsonOpt)) {
        QJsonArray a;
        for (const RunSummary& r : runs)
            a.append(r.toJson());
        out << QJsonDocument(a).toJson(QJsonDocument::Indented);
        return ExitOk;
    }
    if (runs.isEmpty()) {
        err << RunsCommand::tr("no runs in %1").arg(runsDirFrom(parser, runsDir)) << '\n';
        return ExitOk;
    }
    int w = 6;
    for (const RunSummary& r : runs)
        w = qMax(w, int(r.runId.size()));
    out << RunsCommand::tr("RUN").leftJustified(w) << "  " << RunsCommand::tr("STATE").leftJustified(9) << "  "
        << RunsCommand::tr("STEP").rightJustified(7) << "  " << RunsCommand::tr("LOSS").rightJustified(8) << "  "
        << RunsCommand::tr("CREATED").leftJustified(19) << "  " << RunsCommand::tr("HEAD") << "  "
        << RunsCommand::tr("DETAIL") << '\n';
    for (const RunSummary& r : runs) {
        // A remote run's state as last seen (not asked now) is marked with *.
        const QString state = jobStateName(r.state) + (r.remote && !r.synced ? QStringLiteral("*") : QString());
        out << r.runId.leftJustified(w) << "  " << state.leftJustified(9) << "  "
            << (r.lastStep >= 0 ? QString::number(r.lastStep) : QStringLiteral("-")).rightJustified(7) << "  "
            << (r.hasLoss ? QString::number(r.lastLoss, 'f', 4) : QStringLiteral("-")).rightJustified(8) << "  "
            << r.info.created.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")).leftJustified(19) << "  "
            << (r.remote ? r.head : RunsCommand::tr("local")) << "  " << r.detail << '\n';
    }
    return ExitOk;
}

Registration reg{{QStringLiteral("runs"), QStringLiteral("list the run history"), run}};

} // namespace
