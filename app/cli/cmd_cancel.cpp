// traindeck-cli cancel RUN [--grace SECONDS] [--runs-dir DIR]: SIGTERM to the run's mpirun process
// group, SIGKILL after the grace period (default 10 s). Exit 0 when the run is no longer running
// (cancelled, or it had ended already), 1 when it could not be stopped, 2 bad input. A remote run is
// cancelled over SSH on its head node and its local record synced.
#include "cli_common.h"
#include "command.h"

#include "runs/operations.h"

#include <QTextStream>

using namespace traindeck::cli;
using namespace traindeck::launch;

namespace {

struct CancelCommand {
    Q_DECLARE_TR_FUNCTIONS(CancelCommand)
};

QString usage()
{
    return CancelCommand::tr(
        "usage: traindeck-cli cancel RUN [--grace SECONDS] [--runs-dir DIR]\n"
        "Stops a run: SIGTERM to mpirun's process group, SIGKILL after SECONDS (default 10).\n"
        "Prints the state afterwards. exit: 0 no longer running, 1 could not stop it, 2 bad input.\n");
}

int run(const QStringList& args)
{
    QTextStream out(stdout), err(stderr);
    QCommandLineParser parser;
    const QCommandLineOption graceOpt(QStringLiteral("grace"), CancelCommand::tr("Seconds before SIGKILL."),
                                      QStringLiteral("seconds"), QStringLiteral("10"));
    const QCommandLineOption runsDir = runsDirOption();
    parser.addOptions({graceOpt, runsDir});
    if (const int rc = parseOrExit(parser, QStringLiteral("cancel"), args, usage()); rc >= 0)
        return rc;
    if (parser.positionalArguments().size() != 1) {
        err << CancelCommand::tr("traindeck-cli cancel: expected exactly one RUN") << '\n' << usage();
        return ExitBadInput;
    }
    bool ok = false;
    const double grace = parser.value(graceOpt).toDouble(&ok);
    if (!ok || grace < 0 || grace > 3600) {
        err << CancelCommand::tr("traindeck-cli cancel: --grace: expected seconds 0..3600") << '\n';
        return ExitBadInput;
    }
    const auto dir = resolveRunDir(runsDirFrom(parser, runsDir), parser.positionalArguments().first());
    if (!dir) {
        err << dir.errorString() << '\n';
        return ExitBadInput;
    }
    const auto state = operations().cancel(dir.value(), int(grace * 1000));
    if (!state) {
        err << state.errorString() << '\n';
        return ExitFailed;
    }
    for (const auto& w : state.warnings())
        err << w.toString() << '\n';
    out << jobStateName(state.value()) << '\n';
    return isFinal(state.value()) ? ExitOk : ExitFailed;
}

Registration reg{{QStringLiteral("cancel"), QStringLiteral("stop a run (SIGTERM, then SIGKILL)"), run}};

} // namespace
