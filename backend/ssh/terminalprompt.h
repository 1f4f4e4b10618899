// Terminal questions for the command-line front end: secrets are read from the controlling
// terminal with echo off (never from argv), or one line from stdin when a script pipes it in.
#pragma once

#include <QByteArray>
#include <QString>

#include <optional>

namespace traindeck::ssh {

bool stdinIsTerminal();
// Prints prompt to stderr and reads a line from /dev/tty without echo. nullopt without a terminal.
std::optional<QByteArray> readSecretFromTerminal(const QString& prompt);
// "question [y/N] " on stderr, answer from /dev/tty; false without a terminal.
bool askYesNoOnTerminal(const QString& question);
// One line from stdin without the newline; nullopt at EOF before any byte.
std::optional<QByteArray> readLineFromStdin();

} // namespace traindeck::ssh
