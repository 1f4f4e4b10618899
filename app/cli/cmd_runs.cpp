// traindeck-cli runs [--json] [--runs-dir DIR]: the run history, newest first.
#include "cli_common.h"
#include "command.h"

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
    return RunsCommand::tr("usage: traindeck-cli runs [--json] [--runs-dir DIR]\n"
                           "Lists the runs under the runs directory, newest first: id, state, last step, loss, created.\n");
}

int run(const QStringList &args)
{
    QTextStream out(stdout), err(stderr);
    QCommandLineParser parser;
    const QCommandLineOption jsonOpt(QStringLiteral("json"), RunsCommand::tr("A JSON array."));
    const QCommandLineOption runsDir = runsDirOption();
    parser.addOptions({jsonOpt, runsDir});
    if (const int rc = parseOrExit(parser, QStringLiteral("runs"), args, usage()); rc >= 0)
        return rc;
    if (!parser.positionalArguments().isEmpty()) {
        err << RunsCommand::tr("traindeck-cli runs: unexpected argument '%1'").arg(parser.positionalArguments().first()) << '\n';
        return ExitBadInput;
    }
    const QList<RunSummary> runs = listRuns(runsDirFrom(parser, runsDir));
    if (parser.isSet(jsonOpt)) {
        QJsonArray a;
        for (const RunSummary &r : runs)
            a.append(r.toJson());
        out << QJsonDocument(a).toJson(QJsonDocument::Indented);
        return ExitOk;
    }
    if (runs.isEmpty()) {
        err << RunsCommand::tr("no runs in %1").arg(runsDirFrom(parser, runsDir)) << '\n';
        return ExitOk;
    }
    int w = 6;
    for (const RunSummary &r : runs)
        w = qMax(w, int(r.runId.size()));
    out << RunsCommand::tr("RUN").leftJustified(w) << "  " << RunsCommand::tr("STATE").leftJustified(9) << "  "
        << RunsCommand::tr("STEP").rightJustified(7) << "  " << RunsCommand::tr("LOSS").rightJustified(8) << "  "
        << RunsCommand::tr("CREATED") << '\n';
    for (const RunSummary &r : runs) {
        out << r.runId.leftJustified(w) << "  " << jobStateName(r.state).leftJustified(9) << "  "
            << (r.lastStep >= 0 ? QString::number(r.lastStep) : QStringLiteral("-")).rightJustified(7) << "  "
            << (r.hasLoss ? QString::number(r.lastLoss, 'f', 4) : QStringLiteral("-")).rightJustified(8) << "  "
            << r.info.created.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")) << '\n';
    }
    return ExitOk;
}

Registration reg{{QStringLiteral("runs"), QStringLiteral("list the run history"), run}};

}  // namespace
