#include "command.h"
#include "common/processguard.h"

#include <QCoreApplication>
#include <QTextStream>

#include <algorithm>

namespace traindeck::cli {
QList<Command>& commands()
{
    static QList<Command> all;
    return all;
}
} // namespace traindeck::cli

using namespace traindeck::cli;

static void printUsage(QTextStream& out)
{
    out << "usage: traindeck-cli <command> [options]\n\ncommands:\n";
    auto list = commands();
    std::sort(list.begin(), list.end(), [](const Command& a, const Command& b) { return a.name < b.name; });
    for (const Command& c : list)
        out << "  " << c.name.leftJustified(12) << ' ' << c.summary << '\n';
    out << "\nexit codes: 0 success, 1 failure (a check or run failed), 2 bad input\n";
}

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    QTextStream out(stdout), err(stderr);
    // Passwords and passphrases typed at its prompts stay out of core dumps.
    if (const traindeck::Status guarded = traindeck::protectProcessSecrets(); !guarded)
        err << "traindeck-cli: warning: " << guarded.errorString() << '\n';
    QCoreApplication::setApplicationName(QStringLiteral("traindeck"));
    QCoreApplication::setApplicationVersion(QStringLiteral(TRAINDECK_VERSION));
    QStringList args = app.arguments().mid(1);
    if (args.isEmpty() || args.first() == QLatin1String("--help") || args.first() == QLatin1String("-h")) {
        printUsage(args.isEmpty() ? err : out);
        return args.isEmpty() ? ExitBadInput : ExitOk;
    }
    if (args.first() == QLatin1String("--version")) {
        out << "traindeck-cli " << QCoreApplication::applicationVersion() << '\n';
        return ExitOk;
    }
    const QString name = args.takeFirst();
    for (const Command& c : commands()) {
        if (c.name == name)
            return c.run(args);
    }
    err << "traindeck-cli: unknown command '" << name << "'\n";
    printUsage(err);
    return ExitBadInput;
}
