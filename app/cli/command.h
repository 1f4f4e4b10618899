// Subcommands of traindeck-cli register themselves here; each lives in its own cmd_<name>.cpp.
#pragma once

#include <QList>
#include <QString>
#include <QStringList>

#include <functional>

namespace traindeck::cli {

// Exit codes shared by every subcommand (documented in README.md).
enum ExitCode { ExitOk = 0, ExitFailed = 1, ExitBadInput = 2 };

struct Command {
    QString name;      // e.g. "hostfile"
    QString summary;   // one line for --help
    // args excludes the program name and the command name itself.
    std::function<int(const QStringList& args)> run;
};

QList<Command>& commands();

struct Registration {
    explicit Registration(Command command) { commands().append(std::move(command)); }
};

}  // namespace traindeck::cli
