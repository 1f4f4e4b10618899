// traindeck-cli watch RUN [--json] [--from-offset N] [--runs-dir DIR]: follows a run (live or ended)
// until it ends. The terminal view shows loss, throughput, per-rank phase bars and findings; --json
// streams state, records, findings and the failure as JSON lines, each metrics record with the byte
// offset of its line and next_offset (pass it to --from-offset to reattach without gaps or duplicates).
// A remote run is followed over SSH; its local record's metrics mirror is read first, then extended.
#include "cli_common.h"
#include "command.h"

#include "launch/transport.h"

#include <QTextStream>

using namespace traindeck::cli;
using namespace traindeck::launch;

namespace {

struct WatchCommand {
    Q_DECLARE_TR_FUNCTIONS(WatchCommand)
};

QString usage()
{
    return WatchCommand::tr(
        "usage: traindeck-cli watch RUN [--json] [--from-offset N] [--runs-dir DIR]\n"
        "Follows a run until it ends: loss, throughput, per-rank phase bars, findings.\n"
        "RUN is a run id (see `runs`) or a run directory. A run on a remote head node is followed over SSH\n"
        "and mirrored into its local record (once it has ended, the record is read without SSH).\n"
        "--json: one JSON object per line\n"
        "(types state, hello, step, checkpoint, warning, error, done, finding, malformed, failure, end).\n"
        "--from-offset N: only metrics lines starting at byte N or later (a previous next_offset).\n"
        "Stopping watch never stops the run. exit: 0 finished, 1 failed, cancelled or lost, 2 bad input.\n");
}

int run(const QStringList& args)
{
    QTextStream err(stderr);
    QCommandLineParser parser;
    const QCommandLineOption jsonOpt(QStringLiteral("json"), WatchCommand::tr("JSON lines."));
    const QCommandLineOption offsetOpt(QStringLiteral("from-offset"),
                                       WatchCommand::tr("Resume at this metrics byte offset."), QStringLiteral("n"));
    const QCommandLineOption runsDir = runsDirOption();
    parser.addOptions({jsonOpt, offsetOpt, runsDir});
    if (const int rc = parseOrExit(parser, QStringLiteral("watch"), args, usage()); rc >= 0)
        return rc;
    if (parser.positionalArguments().size() != 1) {
        err << WatchCommand::tr("traindeck-cli watch: expected exactly one RUN") << '\n' << usage();
        return ExitBadInput;
    }
    FollowOptions fo;
    fo.json = parser.isSet(jsonOpt);
    if (parser.isSet(offsetOpt)) {
        bool ok = false;
        fo.fromOffset = parser.value(offsetOpt).toLongLong(&ok);
        if (!ok || fo.fromOffset < 0) {
            err << WatchCommand::tr("traindeck-cli watch: --from-offset: expected a byte offset >= 0") << '\n';
            return ExitBadInput;
        }
    }
    const auto loc = locateRunArgument(runsDirFrom(parser, runsDir), parser.positionalArguments().first(), true);
    if (!loc) {
        err << loc.errorString();
        return exitCodeOf(loc);
    }
    return followRun(loc.value(), fo);
}

Registration reg{{QStringLiteral("watch"), QStringLiteral("follow a run live (terminal view or --json lines)"), run}};

} // namespace
