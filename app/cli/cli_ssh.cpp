#include "cli_ssh.h"

#include "ssh/terminalprompt.h"

#include <QCoreApplication>

namespace traindeck::cli {

using namespace traindeck::cluster;
using namespace traindeck::ssh;

namespace {
struct NodesCommand {
    Q_DECLARE_TR_FUNCTIONS(NodesCommand)
};
} // namespace

std::optional<ClusterProfile> loadNodesProfile(const QString& file, const QStringList& onlyNodes,
                                               const QString& command, const QString& localMessage, QTextStream& err)
{
    const Result<ClusterProfile> loaded = ClusterProfile::load(file);
    if (!loaded) {
        err << loaded.errorString();
        return std::nullopt;
    }
    if (loaded.value().isLocal) {
        err << QStringLiteral("traindeck-cli %1: ").arg(command) << localMessage << '\n';
        return std::nullopt;
    }
    for (const QString& n : onlyNodes) {
        bool found = false;
        for (const ClusterNode& node : loaded.value().nodes)
            found = found || node.name == n;
        if (!found) {
            err << NodesCommand::tr("traindeck-cli %1: no node '%2' in the profile").arg(command, n) << '\n';
            return std::nullopt;
        }
    }
    return loaded.value();
}

SshPrompts terminalPrompts(bool acceptNewHostKeys, QTextStream& err)
{
    SshPrompts prompts;
    prompts.hostKey = [acceptNewHostKeys, &err](const HostKeyInfo& info) {
        err << info.explanation() << '\n';
        err.flush();
        if (acceptNewHostKeys)
            return HostKeyDecision::AcceptAndSave;
        if (stdinIsTerminal() &&
            askYesNoOnTerminal(NodesCommand::tr("Accept the host key of %1?").arg(info.knownHostsName())))
            return HostKeyDecision::AcceptAndSave;
        return HostKeyDecision::Reject;
    };
    prompts.secret = [](const SecretRequest& req) -> std::optional<QByteArray> {
        return stdinIsTerminal() ? readSecretFromTerminal(req.prompt) : std::nullopt;
    };
    return prompts;
}

SshPrompts promptsOnThreadOf(QObject* context, const SshPrompts& prompts)
{
    SshPrompts moved;
    if (prompts.hostKey)
        moved.hostKey = [context, ask = prompts.hostKey](const HostKeyInfo& info) {
            HostKeyDecision d = HostKeyDecision::Reject;
            QMetaObject::invokeMethod(
                context, [&] { d = ask(info); }, Qt::BlockingQueuedConnection);
            return d;
        };
    if (prompts.secret)
        moved.secret = [context, ask = prompts.secret](const SecretRequest& request) {
            std::optional<QByteArray> secret;
            QMetaObject::invokeMethod(
                context, [&] { secret = ask(request); }, Qt::BlockingQueuedConnection);
            return secret;
        };
    return moved;
}

QCommandLineOption profileFileOption()
{
    return QCommandLineOption(QStringLiteral("profile"), NodesCommand::tr("Profile file."), QStringLiteral("file"));
}

QCommandLineOption onlyNodeOption()
{
    return QCommandLineOption(QStringLiteral("node"), NodesCommand::tr("Only this node."), QStringLiteral("name"));
}

QCommandLineOption acceptNewHostKeysOption()
{
    return QCommandLineOption(QStringLiteral("accept-new-host-keys"), NodesCommand::tr("Accept unknown host keys."));
}

} // namespace traindeck::cli
