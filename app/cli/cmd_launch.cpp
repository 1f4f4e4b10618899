// traindeck-cli launch --spec FILE|--demo [--profile FILE|NAME|local] [--detach] [--json] [--runs-dir DIR]
// [--dry-run]: starts a run detached (it survives this program), prints its run id, then follows it to the end
// unless --detach. --dry-run starts nothing: it prints the memory plan per rank against the nodes' memory
// as the last checks measured it (runs/memoryfit.h). On a remote profile the run directory is <workdir>/runs/<id> on
// the head node and the runs directory gets the run's local record (remote.json, the metrics mirror; remoterun.h).
// Exit: 0 finished (or started, with --detach), 1 failed/cancelled/lost or could not start, 2 bad input.
#include "cli_common.h"
#include "command.h"

#include "runs/memoryfit.h"
#include "runs/operations.h"

#include <QDir>
#include <QFileInfo>
#include <QTextStream>

using namespace traindeck::cli;
using namespace traindeck::launch;
namespace cluster = traindeck::cluster;

namespace {

struct LaunchCommand {
    Q_DECLARE_TR_FUNCTIONS(LaunchCommand)
};

QString usage()
{
    return LaunchCommand::tr(
        "usage: traindeck-cli launch --spec FILE|--demo [--profile FILE|NAME|local] [--detach] [--json] [--runs-dir "
        "DIR] [--dry-run]\n"
        "Starts the job of a spec (docs/reference/cli.md) detached under mpirun and prints its run id.\n"
        "--dry-run: starts nothing; prints the memory one rank needs (traindeck-trainer plan) against the\n"
        "nodes' memory as the last checks measured it, and the flags that would make it fit\n"
        "(exit 0 fits or nothing to compare with, 1 does not fit or cannot be planned, 2 bad input).\n"
        "--demo: the built-in demo spec (qwen2-tiny on the demo corpus, 2 ranks), as the app's Tiny demo preset.\n"
        "Without --detach it then follows the run like `watch` until it ends.\n"
        "A remote profile runs it in <workdir>/runs/<run id> on the head node; --runs-dir keeps its local\n"
        "record and metrics mirror.\n"
        "exit: 0 finished (--detach: started), 1 failed, cancelled or lost, 2 bad input.\n");
}

int dryRun(JobSpec spec, const cluster::ClusterProfile& profile, const QString& baseDir, const QString& specFile)
{
    QTextStream out(stdout), err(stderr);
    const traindeck::Diagnostics problems = spec.validate(specFile);
    for (const auto& d : problems)
        err << d.toString() << '\n';
    if (traindeck::hasErrors(problems))
        return ExitBadInput;
    if (isLocalProfile(profile))
        spec.resolvePaths(baseDir);
    const auto trainer = traindeck::runs::Operations::localTrainer();
    if (!trainer) {
        err << trainer.errorString() << '\n';
        return ExitFailed;
    }
    const auto fit = traindeck::runs::planMemoryFit(spec, profile, trainer.value());
    if (!fit) {
        err << fit.errorString() << '\n';
        return ExitFailed;
    }
    out << fit->planText << '\n' << fit->verdict() << '\n';
    return fit->fits ? ExitOk : ExitFailed;
}

int run(const QStringList& args)
{
    QTextStream out(stdout), err(stderr);
    QCommandLineParser parser;
    const QCommandLineOption specOpt(QStringLiteral("spec"), LaunchCommand::tr("Job spec (JSON)."),
                                     QStringLiteral("file"));
    const QCommandLineOption profileOpt(QStringLiteral("profile"),
                                        LaunchCommand::tr("Cluster profile: file, name or local."),
                                        QStringLiteral("profile"));
    const QCommandLineOption demoOpt(QStringLiteral("demo"), LaunchCommand::tr("The built-in demo spec."));
    const QCommandLineOption detachOpt(QStringLiteral("detach"), LaunchCommand::tr("Print the run id and return."));
    const QCommandLineOption jsonOpt(QStringLiteral("json"), LaunchCommand::tr("Follow as JSON lines."));
    const QCommandLineOption dryRunOpt(QStringLiteral("dry-run"),
                                       LaunchCommand::tr("Start nothing: the memory plan against the nodes."));
    const QCommandLineOption runsDir = runsDirOption();
    parser.addOptions({specOpt, demoOpt, profileOpt, detachOpt, jsonOpt, runsDir, dryRunOpt});
    if (const int rc = parseOrExit(parser, QStringLiteral("launch"), args, usage()); rc >= 0)
        return rc;
    if (parser.isSet(specOpt) == parser.isSet(demoOpt) || !parser.positionalArguments().isEmpty()) {
        err << LaunchCommand::tr("traindeck-cli launch: either --spec FILE or --demo is required (and nothing else)")
            << '\n'
            << usage();
        return ExitBadInput;
    }
    const QString specPath = parser.value(specOpt);
    const traindeck::Result<JobSpec> loaded =
        parser.isSet(demoOpt) ? JobSpec::builtin(QStringLiteral("demo")) : JobSpec::load(specPath);
    if (!loaded) {
        err << loaded.errorString() << '\n';
        return ExitBadInput;
    }
    JobSpec spec = loaded.value();
    // The demo's paths are absolute already (the cache directory).
    const QString baseDir = parser.isSet(demoOpt) ? QDir::currentPath() : QFileInfo(specPath).absolutePath();
    const QString profileName = parser.isSet(profileOpt) ? parser.value(profileOpt) : spec.profile;
    const auto profile = resolveProfile(profileName, parser.isSet(profileOpt) ? QDir::currentPath() : baseDir);
    if (!profile) {
        err << profile.errorString() << '\n';
        return ExitBadInput;
    }
    spec.profile = profileName;
    if (parser.isSet(dryRunOpt))
        return dryRun(spec, profile.value(), baseDir, parser.isSet(demoOpt) ? QStringLiteral("demo") : specPath);
    const auto launched = operations().launch({spec, profile.value(), baseDir, runsDirFrom(parser, runsDir),
                                               parser.isSet(demoOpt) ? QStringLiteral("demo") : specPath});
    if (!launched) {
        err << launched.errorString() << '\n';
        // A spec that breaks a rule, or a missing trainer/mpirun, is something the user fixes (2); a lost
        // link, a full disk on the head, a start whose outcome is unknown are not (1).
        return traindeck::runs::Operations::isInputProblem(launched.diagnostics()) ? ExitBadInput : ExitFailed;
    }
    for (const auto& w : launched.warnings())
        err << w.toString() << '\n';
    if (launched->remote) {
        err << LaunchCommand::tr("run %1 on %2: %3").arg(launched->runId, launched->head, launched->runDir) << '\n';
        if (!launched->localDir.isEmpty())
            err << LaunchCommand::tr("local record and metrics mirror: %1").arg(launched->localDir) << '\n';
        err.flush();
    }
    out << launched->runId << '\n';
    out.flush();
    if (parser.isSet(detachOpt))
        return ExitOk;
    return followStarted(launched.value(), parser.isSet(jsonOpt));
}

Registration reg{{QStringLiteral("launch"), QStringLiteral("start a training run from a job spec (detached)"), run}};

} // namespace
