// traindeck-cli resume RUN [--detach] [--json] [--runs-dir DIR]: relaunches a failed, cancelled or lost
// run from its latest checkpoint (--resume latest, same out directory, metrics appended to the same
// metrics.jsonl), prints the run id and follows it like launch. A remote run is resumed over SSH on its
// head node; its local record goes live again.
#include "cli_common.h"
#include "command.h"

#include "runs/operations.h"

#include <QTextStream>

using namespace traindeck::cli;
using namespace traindeck::launch;

namespace {

struct ResumeCommand {
    Q_DECLARE_TR_FUNCTIONS(ResumeCommand)
};

QString usage()
{
    return ResumeCommand::tr(
        "usage: traindeck-cli resume RUN [--detach] [--json] [--runs-dir DIR]\n"
        "Relaunches a failed, cancelled or lost run from its latest checkpoint in the same run directory.\n"
        "exit: 0 finished (--detach: started), 1 failed again or cannot resume (no checkpoint, still running), 2 bad "
        "input.\n");
}

int run(const QStringList& args)
{
    QTextStream out(stdout), err(stderr);
    QCommandLineParser parser;
    const QCommandLineOption detachOpt(QStringLiteral("detach"), ResumeCommand::tr("Print the run id and return."));
    const QCommandLineOption jsonOpt(QStringLiteral("json"), ResumeCommand::tr("Follow as JSON lines."));
    const QCommandLineOption runsDir = runsDirOption();
    parser.addOptions({detachOpt, jsonOpt, runsDir});
    if (const int rc = parseOrExit(parser, QStringLiteral("resume"), args, usage()); rc >= 0)
        return rc;
    if (parser.positionalArguments().size() != 1) {
        err << ResumeCommand::tr("traindeck-cli resume: expected exactly one RUN") << '\n' << usage();
        return ExitBadInput;
    }
    const auto dir = resolveRunDir(runsDirFrom(parser, runsDir), parser.positionalArguments().first());
    if (!dir) {
        err << dir.errorString() << '\n';
        return ExitBadInput;
    }
    const auto resumed = operations().resume(dir.value());
    if (!resumed) {
        err << resumed.errorString() << '\n';
        return ExitFailed;
    }
    out << resumed->runId << '\n';
    out.flush();
    if (parser.isSet(detachOpt))
        return ExitOk;
    return followStarted(resumed.value(), parser.isSet(jsonOpt));
}

Registration reg{{QStringLiteral("resume"), QStringLiteral("relaunch a failed run from its latest checkpoint"), run}};

} // namespace
