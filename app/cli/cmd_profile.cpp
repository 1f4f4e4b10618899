// traindeck-cli profile list|show|check|import|export|hostfile: cluster profiles in
// $XDG_CONFIG_HOME/traindeck/profiles. Errors go to stderr as "file: key: message".
#include "command.h"

#include "cluster/clusterprofile.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QFile>
#include <QSaveFile>
#include <QTextStream>

using namespace traindeck::cluster;
using traindeck::Result;
using traindeck::Status;
using namespace traindeck::cli;

namespace {

struct ProfileCommand {
    Q_DECLARE_TR_FUNCTIONS(ProfileCommand)
};

QString usage()
{
    return ProfileCommand::tr(
        "usage: traindeck-cli profile list\n"
        "       traindeck-cli profile show NAME [--slots N]\n"
        "       traindeck-cli profile check FILE\n"
        "       traindeck-cli profile import FILE [--name NAME] [--force]\n"
        "       traindeck-cli profile export NAME [--out FILE]\n"
        "       traindeck-cli profile hostfile NAME [--format openmpi|deepspeed|mpich] [--slots N]\n"
        "Profiles live in $XDG_CONFIG_HOME/traindeck/profiles/NAME.json; \"local\" is built in (this machine,\n"
        "--slots ranks, default: the number of cores). Secrets are refused by check and removed by import.\n"
        "Exit codes: 0 success, 1 a file could not be written, 2 bad input or an invalid profile.\n");
}

int run(const QStringList& args)
{
    QTextStream out(stdout), err(stderr);
    if (args.isEmpty() || args.first() == QLatin1String("--help") || args.first() == QLatin1String("-h")) {
        (args.isEmpty() ? err : out) << usage();
        return args.isEmpty() ? ExitBadInput : ExitOk;
    }
    const QString sub = args.first();
    static const QStringList subs = {QStringLiteral("list"),   QStringLiteral("show"),   QStringLiteral("check"),
                                     QStringLiteral("import"), QStringLiteral("export"), QStringLiteral("hostfile")};
    if (!subs.contains(sub)) {
        err << ProfileCommand::tr("traindeck-cli profile: unknown subcommand '%1'").arg(sub) << '\n' << usage();
        return ExitBadInput;
    }
    QCommandLineParser parser;
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    const QCommandLineOption slotsOption(QStringLiteral("slots"), ProfileCommand::tr("Ranks of the local profile."),
                                         QStringLiteral("n"));
    const QCommandLineOption nameOption(QStringLiteral("name"), ProfileCommand::tr("Import under this name."),
                                        QStringLiteral("name"));
    const QCommandLineOption forceOption(QStringLiteral("force"), ProfileCommand::tr("Replace an existing profile."));
    const QCommandLineOption outOption(QStringLiteral("out"), ProfileCommand::tr("Write here instead of stdout."),
                                       QStringLiteral("file"));
    const QCommandLineOption formatOption(QStringLiteral("format"), ProfileCommand::tr("Hostfile syntax."),
                                          QStringLiteral("format"), QStringLiteral("openmpi"));
    if (sub == QLatin1String("show") || sub == QLatin1String("hostfile"))
        parser.addOption(slotsOption);
    if (sub == QLatin1String("import"))
        parser.addOptions({nameOption, forceOption});
    if (sub == QLatin1String("export"))
        parser.addOption(outOption);
    if (sub == QLatin1String("hostfile"))
        parser.addOption(formatOption);
    if (const int rc = parseOrExit(parser, QStringLiteral("profile ") + sub, args.mid(1), usage()); rc >= 0)
        return rc;
    const QStringList positional = parser.positionalArguments();
    const int wanted = sub == QLatin1String("list") ? 0 : 1;
    if (positional.size() != wanted) {
        err << (wanted == 0 ? ProfileCommand::tr("traindeck-cli profile %1: takes no arguments").arg(sub)
                            : ProfileCommand::tr("traindeck-cli profile %1: expected exactly one argument").arg(sub))
            << '\n'
            << usage();
        return ExitBadInput;
    }
    int slots = 0;
    if (parser.isSet(slotsOption)) {
        bool ok = false;
        slots = parser.value(slotsOption).toInt(&ok);
        if (!ok || slots < 1 || slots > ClusterProfile::MaxSlots) {
            err << ProfileCommand::tr("traindeck-cli profile %1: --slots: expected an integer 1..%2")
                       .arg(sub, QString::number(ClusterProfile::MaxSlots))
                << '\n';
            return ExitBadInput;
        }
    }

    if (sub == QLatin1String("list")) {
        for (const QString& name : ClusterProfile::availableNames())
            out << name << '\n';
        return ExitOk;
    }
    const QString arg = positional.first();
    if (sub == QLatin1String("check")) {
        const Result<ClusterProfile> r = ClusterProfile::load(arg);
        err << r.errorString();
        if (!r)
            return ExitBadInput;
        out << ProfileCommand::tr("%1: valid profile '%2', %n node(s)", nullptr, r->nodes.size()).arg(arg, r->name)
            << ProfileCommand::tr(", %n slot(s), head %1", nullptr, r->totalSlots()).arg(r->head().name) << '\n';
        return ExitOk;
    }
    if (sub == QLatin1String("import")) {
        const Result<ClusterProfile> r =
            ClusterProfile::importFile(arg, parser.value(nameOption), parser.isSet(forceOption));
        err << r.errorString();
        if (!r)
            return ExitBadInput;
        out << ProfileCommand::tr("imported profile '%1' to %2").arg(r->name, ClusterProfile::pathForName(r->name))
            << '\n';
        return ExitOk;
    }
    const Result<ClusterProfile> r = ClusterProfile::loadNamed(arg, slots);
    err << r.errorString();
    if (!r)
        return ExitBadInput;
    QByteArray data;
    if (sub == QLatin1String("hostfile")) {
        const std::optional<HostfileFormat> format = hostfileFormatFromName(parser.value(formatOption));
        if (!format) {
            err << ProfileCommand::tr(
                       "traindeck-cli profile hostfile: unknown format '%1' (expected openmpi, deepspeed or mpich)")
                       .arg(parser.value(formatOption))
                << '\n';
            return ExitBadInput;
        }
        const Result<Hostfile> h = r->toHostfile();
        err << h.errorString();
        if (!h)
            return ExitBadInput;
        const Result<QString> text = h->convert(*format, ClusterProfile::pathForName(r->name));
        err << text.errorString();
        if (!text)
            return ExitBadInput;
        data = text.value().toUtf8();
    } else {
        data = r->toJson();
    }
    if (sub == QLatin1String("export") && parser.isSet(outOption)) {
        const Status saved = r->save(parser.value(outOption));
        err << saved.errorString();
        return saved ? ExitOk : ExitFailed;
    }
    out.flush();
    QFile stdoutFile;
    if (!stdoutFile.open(stdout, QIODevice::WriteOnly) || stdoutFile.write(data) != data.size())
        return ExitFailed;
    return ExitOk;
}

Registration reg{
    {QStringLiteral("profile"), QStringLiteral("list, show, check, import and export cluster profiles"), run}};

} // namespace
