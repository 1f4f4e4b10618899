// traindeck-cli deploy: copy this machine's traindeck-trainer to the nodes of a profile (the remedy the
// node checks offer when a node lacks the trainer or runs another version), verified by checksum and by
// running its self-check there; a GPU node whose copy cannot use its GPUs is told how to build one that
// can (cluster::GpuTrainer).
#include "cli_ssh.h"
#include "command.h"

#include "cluster/clusterprofile.h"
#include "cluster/gputrainer.h"
#include "runs/operations.h"
#include "ssh/sshkeys.h"
#include "ssh/sshsession.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTextStream>

using namespace traindeck::cli;
using namespace traindeck::cluster;
using namespace traindeck::ssh;
using traindeck::Result;
using traindeck::Status;

namespace {

struct DeployCommand {
    Q_DECLARE_TR_FUNCTIONS(DeployCommand)
};

QString usage()
{
    const QString text = DeployCommand::tr(
        "usage: traindeck-cli deploy --profile FILE [--trainer PATH] [--dest PATH] [--node NAME]...\n"
        "                            [--accept-new-host-keys]\n"
        "Copies traindeck-trainer (default: the one traindeck-cli would launch) to every node of the profile\n"
        "(or the named ones) at --dest (default ~/.local/bin/traindeck-trainer; put its directory in the\n"
        "profile's path_prefix), checks the copy by SHA-256 and runs its self-check there.\n"
        "Exit codes: 0 deployed and verified on every node, 1 a node failed, 2 bad usage or profile.\n");
    return text + GpuTrainer::advice() + QLatin1Char('\n');
}

int run(const QStringList& args)
{
    QTextStream out(stdout), err(stderr);
    QCommandLineParser parser;
    const QCommandLineOption profileOption = profileFileOption();
    const QCommandLineOption trainerOption(QStringLiteral("trainer"), DeployCommand::tr("Trainer binary to copy."),
                                           QStringLiteral("path"));
    const QCommandLineOption destOption(QStringLiteral("dest"), DeployCommand::tr("Path on the nodes."),
                                        QStringLiteral("path"));
    const QCommandLineOption nodeOption = onlyNodeOption();
    const QCommandLineOption acceptOption = acceptNewHostKeysOption();
    parser.addOptions({profileOption, trainerOption, destOption, nodeOption, acceptOption});
    if (const int rc = parseOrExit(parser, QStringLiteral("deploy"), args, usage()); rc >= 0)
        return rc;
    if (!parser.isSet(profileOption) || !parser.positionalArguments().isEmpty()) {
        err << DeployCommand::tr("traindeck-cli deploy: --profile FILE is required") << '\n' << usage();
        return ExitBadInput;
    }
    const QStringList only = parser.values(nodeOption);
    const auto loaded = loadNodesProfile(parser.value(profileOption), only, QStringLiteral("deploy"),
                                         DeployCommand::tr("the profile is local; the trainer is already here"), err);
    if (!loaded)
        return ExitBadInput;
    const ClusterProfile& profile = *loaded;
    QString trainer = parser.value(trainerOption);
    if (trainer.isEmpty()) {
        const auto found = traindeck::runs::Operations::localTrainer();
        if (!found) {
            err << found.errorString();
            return ExitBadInput;
        }
        trainer = found.value();
    }
    if (!QFileInfo(trainer).isFile() || !QFileInfo(trainer).isExecutable()) {
        err << DeployCommand::tr("traindeck-cli deploy: %1 is not an executable file").arg(trainer) << '\n';
        return ExitBadInput;
    }
    const QString dest =
        parser.isSet(destOption) ? parser.value(destOption) : QStringLiteral("~/.local/bin/traindeck-trainer");
    if (dest.isEmpty() || dest.contains(QLatin1Char('\n'))) {
        err << DeployCommand::tr("traindeck-cli deploy: --dest must be a path") << '\n';
        return ExitBadInput;
    }
    const SshPrompts prompts = terminalPrompts(parser.isSet(acceptOption), err);

    int failures = 0;
    for (const ClusterNode& node : profile.nodes) {
        if (!only.isEmpty() && !only.contains(node.name))
            continue;
        SshSession session(SshSession::targetFor(profile, node));
        session.setPrompts(prompts);
        const Status opened = session.open(AuthOptions{true, true, false});
        if (!opened) {
            err << node.name << QStringLiteral(": ") << opened.errorString();
            ++failures;
            continue;
        }
        const Status deployed = SshKeys::deployFile(session, trainer, dest, 0755);
        if (!deployed) {
            err << node.name << QStringLiteral(": ") << deployed.errorString();
            ++failures;
            continue;
        }
        ExecOptions opts;
        opts.timeoutMs = 60000;
        const ExecResult check = session.exec(shellPath(dest) + QStringLiteral(" self-check"), opts);
        if (!check.ok()) {
            err << DeployCommand::tr("%1: copied to %2, but it does not run there (%3): %4")
                       .arg(node.name, dest, check.describe(), QString::fromUtf8(check.stdErr).trimmed())
                << '\n';
            ++failures;
            continue;
        }
        const QJsonObject selfCheck = QJsonDocument::fromJson(check.stdOut).object();
        const QString version = selfCheck.value(QStringLiteral("trainer")).toString();
        out << DeployCommand::tr("%1: deployed %2 (traindeck-trainer %3, self-check passed)")
                   .arg(node.name, dest, version)
            << '\n';
        // A GPU node that got a trainer without CUDA (this machine's, e.g. against Debian's LibTorch): say
        // how to build one there. Deployed all the same: it still trains on the CPU.
        if (const int gpus = GpuTrainer::unusableGpus(selfCheck, node.gpus); gpus > 0)
            out << node.name << QStringLiteral(": ") << GpuTrainer::unusableGpusWarning(gpus) << '\n';
    }
    return failures == 0 ? ExitOk : ExitFailed;
}

Registration reg{
    {QStringLiteral("deploy"), QStringLiteral("copy this machine's traindeck-trainer to the nodes of a profile"), run}};

} // namespace
