// traindeck-cli install-key: authorize a public key on the nodes of a profile (ssh-copy-id
// semantics), logging in with the password once, then prove that key login works.
#include "cli_ssh.h"
#include "command.h"

#include "cluster/clusterprofile.h"
#include "ssh/sshkeys.h"
#include "ssh/sshsession.h"
#include "ssh/terminalprompt.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QFileInfo>
#include <QTextStream>

using namespace traindeck::cli;
using namespace traindeck::cluster;
using namespace traindeck::ssh;
using traindeck::Result;
using traindeck::Status;

namespace {

struct InstallKeyCommand {
    Q_DECLARE_TR_FUNCTIONS(InstallKeyCommand)
};

QString usage()
{
    return InstallKeyCommand::tr(
        "usage: traindeck-cli install-key --profile FILE [--key FILE.pub] [--node NAME]... [--password-stdin]\n"
        "                                 [--accept-new-host-keys] [--head-to-workers]\n"
        "Adds the public key (default ~/.ssh/id_ed25519_traindeck.pub, else ~/.ssh/id_ed25519.pub) to\n"
        "~/.ssh/authorized_keys on every node (or the named ones) unless it is there already, then logs in\n"
        "with the matching private key alone to prove it works (a node counts only once that works). Logging in for "
        "the installation uses your agent\n"
        "or keys, else the password: asked on the terminal (no echo), or the first line of stdin with\n"
        "--password-stdin. The password is never stored and never taken from the command line.\n"
        "Unknown host keys are shown with their SHA256 fingerprint and asked about on the terminal;\n"
        "--accept-new-host-keys accepts them (verify the fingerprints!). Changed host keys are refused.\n"
        "--head-to-workers then sets up head -> worker trust for mpirun: a passphrase-less key on the head\n"
        "(created there when missing) authorized on every worker, each worker's host key as verified from\n"
        "here added to the head's ~/.ssh/known_hosts, and `ssh -o BatchMode=yes WORKER true` proved on\n"
        "the head.\n"
        "Exit codes: 0 installed and verified on every node, 1 a node failed, 2 bad usage or profile.\n");
}

int run(const QStringList& args)
{
    QTextStream out(stdout), err(stderr);
    QCommandLineParser parser;
    const QCommandLineOption profileOption = profileFileOption();
    const QCommandLineOption keyOption(QStringLiteral("key"), InstallKeyCommand::tr("Public key file."),
                                       QStringLiteral("file"));
    const QCommandLineOption nodeOption = onlyNodeOption();
    const QCommandLineOption passOption(QStringLiteral("password-stdin"),
                                        InstallKeyCommand::tr("Read the password from stdin."));
    const QCommandLineOption acceptOption = acceptNewHostKeysOption();
    const QCommandLineOption trustOption(QStringLiteral("head-to-workers"),
                                         InstallKeyCommand::tr("Set up head -> worker trust."));
    parser.addOptions({profileOption, keyOption, nodeOption, passOption, acceptOption, trustOption});
    if (const int rc = parseOrExit(parser, QStringLiteral("install-key"), args, usage()); rc >= 0)
        return rc;
    if (!parser.isSet(profileOption) || !parser.positionalArguments().isEmpty()) {
        err << InstallKeyCommand::tr("traindeck-cli install-key: --profile FILE is required") << '\n' << usage();
        return ExitBadInput;
    }
    const QStringList only = parser.values(nodeOption);
    const auto loaded =
        loadNodesProfile(parser.value(profileOption), only, QStringLiteral("install-key"),
                         InstallKeyCommand::tr("the profile is local; there is nothing to install"), err);
    if (!loaded)
        return ExitBadInput;
    const ClusterProfile& profile = *loaded;
    QString keyPath = parser.value(keyOption);
    if (keyPath.isEmpty()) {
        keyPath = SshKeys::defaultKeyDir() + QLatin1Char('/') + SshKeys::defaultKeyName() + QStringLiteral(".pub");
        if (!QFileInfo::exists(keyPath))
            keyPath = SshKeys::defaultKeyDir() + QStringLiteral("/id_ed25519.pub");
    }
    const Result<QString> line = SshKeys::readPublicKeyLine(keyPath);
    if (!line) {
        err << QStringLiteral("traindeck-cli install-key: ") << line.errorString()
            << InstallKeyCommand::tr("Create a key first: traindeck-cli keygen") << '\n';
        return ExitBadInput;
    }
    QString privateKey = expandTilde(keyPath);
    if (privateKey.endsWith(QLatin1String(".pub")))
        privateKey.chop(4);
    const bool passwordFromStdin = parser.isSet(passOption);
    std::optional<QByteArray> password; // asked once, reused for the nodes, wiped at the end
    bool passwordRead = false;
    SshPrompts prompts = terminalPrompts(parser.isSet(acceptOption), err);
    // The login password (for installing) is asked once and reused for every node.
    prompts.secret = [&](const SecretRequest& req) -> std::optional<QByteArray> {
        if (req.kind == SecretKind::KeyPassphrase)
            return stdinIsTerminal() ? readSecretFromTerminal(req.prompt) : std::nullopt;
        if (!passwordRead) {
            passwordRead = true;
            password = passwordFromStdin ? readLineFromStdin() : readSecretFromTerminal(req.prompt);
        }
        return password;
    };

    NodesKeyInstall plan;
    for (const ClusterNode& node : profile.nodes) {
        plan.targets.append(SshSession::targetFor(profile, node));
        plan.chosen.append(only.isEmpty() || only.contains(node.name));
    }
    plan.head = profile.headIndex();
    plan.publicKeyLine = line.value();
    plan.privateKeyPath = privateKey;
    plan.headToWorkers = parser.isSet(trustOption);
    if (const Status usable = SshKeys::checkNodesKeyInstall(plan); !usable) {
        err << InstallKeyCommand::tr("traindeck-cli install-key: %1").arg(usable.errorString());
        return ExitBadInput;
    }

    out << InstallKeyCommand::tr("key: %1 (%2)").arg(keyPath, SshKeys::fingerprintOfLine(line.value())) << '\n';
    NodesKeyInstallEvents events;
    events.prompts = [&prompts](int) { return prompts; };
    events.finished = [&](int node, const Result<QString>& outcome) {
        const QString name = node == NodesKeyInstallEvents::kHeadToWorkers ? InstallKeyCommand::tr("head -> workers")
                                                                           : profile.nodes.at(node).name;
        if (outcome)
            out << name << QStringLiteral(": ") << outcome.value() << '\n';
        else
            err << name << QStringLiteral(": ") << outcome.errorString();
        out.flush();
    };
    const Status installed = SshKeys::installOnNodes(plan, events, CancelToken{});
    if (password)
        password->fill('\0');
    return installed ? ExitOk : ExitFailed;
}

Registration reg{{QStringLiteral("install-key"),
                  QStringLiteral("authorize a public key on the nodes of a profile (password once)"), run}};

} // namespace
