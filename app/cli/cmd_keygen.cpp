// traindeck-cli keygen: a new ED25519 key pair for TrainDeck (private key 0600 in a 0700 directory).
#include "command.h"

#include "ssh/sshkeys.h"
#include "ssh/terminalprompt.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QTextStream>

using namespace traindeck::cli;
using namespace traindeck::ssh;

namespace {

struct KeygenCommand {
    Q_DECLARE_TR_FUNCTIONS(KeygenCommand)
};

QString usage()
{
    return KeygenCommand::tr(
        "usage: traindeck-cli keygen [--out DIR] [--name NAME] [--comment TEXT] [--passphrase-stdin] [--force]\n"
        "Writes DIR/NAME (private, mode 0600) and DIR/NAME.pub. DIR defaults to ~/.ssh (created with mode 0700),\n"
        "NAME to id_ed25519_traindeck, the comment to traindeck@<this host>. Without --passphrase-stdin the key\n"
        "is not encrypted (needed for unattended logins); with it, the first line of stdin is the passphrase\n"
        "(an empty one is refused). Never pass a passphrase as an argument.\n"
        "Exit codes: 0 written, 1 the files exist (use --force) or cannot be written, 2 bad usage.\n");
}

int run(const QStringList& args)
{
    QTextStream out(stdout), err(stderr);
    QCommandLineParser parser;
    const QCommandLineOption outOption(QStringLiteral("out"), KeygenCommand::tr("Directory."), QStringLiteral("dir"));
    const QCommandLineOption nameOption(QStringLiteral("name"), KeygenCommand::tr("File name."),
                                        QStringLiteral("name"));
    const QCommandLineOption commentOption(QStringLiteral("comment"), KeygenCommand::tr("Key comment."),
                                           QStringLiteral("text"));
    const QCommandLineOption passOption(QStringLiteral("passphrase-stdin"),
                                        KeygenCommand::tr("Read a passphrase from stdin."));
    const QCommandLineOption forceOption(QStringLiteral("force"), KeygenCommand::tr("Overwrite existing files."));
    parser.addOptions({outOption, nameOption, commentOption, passOption, forceOption});
    if (const int rc = parseOrExit(parser, QStringLiteral("keygen"), args, usage()); rc >= 0)
        return rc;
    if (!parser.positionalArguments().isEmpty()) {
        err << KeygenCommand::tr("traindeck-cli keygen: unexpected argument '%1'")
                   .arg(parser.positionalArguments().first())
            << '\n'
            << usage();
        return ExitBadInput;
    }
    std::optional<QByteArray> passphrase;
    if (parser.isSet(passOption)) {
        passphrase = readLineFromStdin();
        if (!passphrase) {
            err << KeygenCommand::tr("traindeck-cli keygen: --passphrase-stdin: no line on stdin") << '\n';
            return ExitBadInput;
        }
    }
    const QString dir = parser.isSet(outOption) ? parser.value(outOption) : SshKeys::defaultKeyDir();
    const QString name = parser.isSet(nameOption) ? parser.value(nameOption) : SshKeys::defaultKeyName();
    const QString comment = parser.isSet(commentOption) ? parser.value(commentOption) : SshKeys::defaultComment();
    const auto key = SshKeys::generateEd25519(dir, name, passphrase, comment, parser.isSet(forceOption));
    if (passphrase)
        passphrase->fill('\0');
    if (!key) {
        err << QStringLiteral("traindeck-cli keygen: ") << key.errorString();
        return ExitFailed;
    }
    out << KeygenCommand::tr("private key: %1 (%2)")
               .arg(key->privateKeyPath,
                    passphrase ? KeygenCommand::tr("encrypted") : KeygenCommand::tr("not encrypted"))
        << '\n'
        << KeygenCommand::tr("public key:  %1").arg(key->publicKeyPath) << '\n'
        << KeygenCommand::tr("fingerprint: %1").arg(key->fingerprint) << '\n'
        << key->publicKeyLine << '\n';
    return ExitOk;
}

Registration reg{{QStringLiteral("keygen"), QStringLiteral("generate an ED25519 key pair for cluster logins"), run}};

} // namespace
