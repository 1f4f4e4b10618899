// traindeck-cli hostfile check|convert: validate hostfiles and convert between Open MPI, DeepSpeed
// and MPICH syntax. Errors go to stderr as file:line:column: message.
#include "command.h"

#include "cluster/hostfile.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QFile>
#include <QSaveFile>
#include <QTextStream>

using namespace traindeck::cluster;
using traindeck::formatDiagnostics;
using traindeck::Result;
using namespace traindeck::cli;

namespace {

struct HostfileCommand {
    Q_DECLARE_TR_FUNCTIONS(HostfileCommand)
};

QString usage()
{
    return HostfileCommand::tr(
        "usage: traindeck-cli hostfile check [--format openmpi|deepspeed|mpich] FILE\n"
        "       traindeck-cli hostfile convert --from openmpi|deepspeed|mpich --to openmpi|deepspeed|mpich\n"
        "                                      [--out OUTFILE] FILE\n"
        "FILE may be - for standard input; put -- before a file name that starts with '-'.\n"
        "check: exit 0 when valid (warnings on stderr), 2 when invalid (file:line:column: message on stderr).\n"
        "convert: writes the converted hostfile to stdout or OUTFILE; exit 2 on invalid input, 1 when\n"
        "OUTFILE cannot be written.\n");
}

// Reads FILE or stdin ("-"); on failure prints to err and returns nullopt.
std::optional<Result<Hostfile>> readHostfile(const QString& path, HostfileFormat format, QTextStream& err)
{
    if (path == QLatin1String("-")) {
        QFile in;
        if (!in.open(stdin, QIODevice::ReadOnly)) {
            err << HostfileCommand::tr("<stdin>: cannot read") << '\n';
            return std::nullopt;
        }
        return Hostfile::parse(QString::fromUtf8(in.readAll()), format, QStringLiteral("<stdin>"));
    }
    return Hostfile::load(path, format);
}

int run(const QStringList& args)
{
    QTextStream out(stdout), err(stderr);
    if (args.isEmpty() || args.first() == QLatin1String("--help") || args.first() == QLatin1String("-h")) {
        (args.isEmpty() ? err : out) << usage();
        return args.isEmpty() ? ExitBadInput : ExitOk;
    }
    const QString sub = args.first();
    if (sub != QLatin1String("check") && sub != QLatin1String("convert")) {
        err << HostfileCommand::tr("traindeck-cli hostfile: unknown subcommand '%1'").arg(sub) << '\n' << usage();
        return ExitBadInput;
    }
    QCommandLineParser parser;
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    const QCommandLineOption formatOption(QStringLiteral("format"), HostfileCommand::tr("Syntax of FILE."),
                                          QStringLiteral("format"), QStringLiteral("openmpi"));
    const QCommandLineOption fromOption(QStringLiteral("from"), HostfileCommand::tr("Syntax of FILE."),
                                        QStringLiteral("format"));
    const QCommandLineOption toOption(QStringLiteral("to"), HostfileCommand::tr("Syntax to write."),
                                      QStringLiteral("format"));
    const QCommandLineOption outOption(QStringLiteral("out"), HostfileCommand::tr("Write here instead of stdout."),
                                       QStringLiteral("file"));
    if (sub == QLatin1String("check"))
        parser.addOptions({formatOption});
    else
        parser.addOptions({fromOption, toOption, outOption});
    if (const int rc = parseOrExit(parser, QStringLiteral("hostfile ") + sub, args.mid(1), usage()); rc >= 0)
        return rc;
    const QStringList files = parser.positionalArguments();
    if (files.size() != 1) {
        err << HostfileCommand::tr("traindeck-cli hostfile %1: expected exactly one FILE").arg(sub) << '\n' << usage();
        return ExitBadInput;
    }
    auto formatOf = [&](const QCommandLineOption& option, bool required) -> std::optional<HostfileFormat> {
        if (!parser.isSet(option) && required) {
            err << HostfileCommand::tr("traindeck-cli hostfile %1: --%2 is required").arg(sub, option.names().first())
                << '\n';
            return std::nullopt;
        }
        const std::optional<HostfileFormat> f = hostfileFormatFromName(parser.value(option));
        if (!f)
            err << HostfileCommand::tr(
                       "traindeck-cli hostfile %1: unknown format '%2' (expected openmpi, deepspeed or mpich)")
                       .arg(sub, parser.value(option))
                << '\n';
        return f;
    };

    if (sub == QLatin1String("check")) {
        const std::optional<HostfileFormat> format = formatOf(formatOption, false);
        if (!format)
            return ExitBadInput;
        const auto parsed = readHostfile(files.first(), *format, err);
        if (!parsed)
            return ExitBadInput;
        err << formatDiagnostics(parsed->diagnostics());
        if (!parsed->ok())
            return ExitBadInput;
        const Hostfile& h = parsed->value();
        out << HostfileCommand::tr("%1: valid %2 hostfile, %n host(s)", nullptr, h.mergedHosts().size())
                   .arg(files.first() == QLatin1String("-") ? QStringLiteral("<stdin>") : files.first(),
                        hostfileFormatName(*format))
            << HostfileCommand::tr(", %n slot(s)", nullptr, h.totalSlots()) << '\n';
        return ExitOk;
    }

    const std::optional<HostfileFormat> from = formatOf(fromOption, true);
    if (!from)
        return ExitBadInput;
    const std::optional<HostfileFormat> to = formatOf(toOption, true);
    if (!to)
        return ExitBadInput;
    const auto parsed = readHostfile(files.first(), *from, err);
    if (!parsed)
        return ExitBadInput;
    if (!parsed->ok()) {
        err << formatDiagnostics(parsed->diagnostics());
        return ExitBadInput;
    }
    const QString inputName = files.first() == QLatin1String("-") ? QStringLiteral("<stdin>") : files.first();
    const Result<QString> converted = parsed->value().convert(*to, inputName);
    err << formatDiagnostics(converted.diagnostics());
    if (!converted)
        return ExitBadInput;
    if (!parser.isSet(outOption)) {
        out << converted.value();
        out.flush();
        return ExitOk;
    }
    QSaveFile file(parser.value(outOption));
    if (!file.open(QIODevice::WriteOnly) || file.write(converted.value().toUtf8()) < 0 || !file.commit()) {
        err << HostfileCommand::tr("%1: cannot write: %2").arg(parser.value(outOption), file.errorString()) << '\n';
        return ExitFailed;
    }
    return ExitOk;
}

Registration reg{
    {QStringLiteral("hostfile"), QStringLiteral("check or convert hostfiles (Open MPI, DeepSpeed, MPICH)"), run}};

} // namespace
