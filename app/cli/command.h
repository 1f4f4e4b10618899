// Subcommands of traindeck-cli register themselves here; each lives in its own cmd_<name>.cpp.
#pragma once

#include <QCommandLineParser>
#include <QList>
#include <QString>
#include <QStringList>

#include <functional>

namespace traindeck::cli {

// Exit codes shared by every subcommand (documented in README.md).
enum ExitCode { ExitOk = 0, ExitFailed = 1, ExitBadInput = 2 };

struct Command {
    QString name;    // e.g. "hostfile"
    QString summary; // one line for --help
    // args excludes the program name and the command name itself.
    std::function<int(const QStringList& args)> run;
};

QList<Command>& commands();

// The one way subcommands parse: adds -h/--help, parses args for `traindeck-cli NAME` (long options
// also with one dash); on an error or --help prints and returns the exit code to use. Returns -1 when
// the caller should go on.
int parseOrExit(QCommandLineParser& parser, const QString& name, const QStringList& args, const QString& usage);

struct Registration {
    explicit Registration(Command command) { commands().append(std::move(command)); }
};

} // namespace traindeck::cli
