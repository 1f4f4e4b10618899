// Helpers shared by the subcommands that log in to a profile's nodes (install-key, deploy).
#pragma once

#include "cluster/clusterprofile.h"
#include "ssh/sshtypes.h"

#include <QCommandLineOption>
#include <QObject>
#include <QStringList>
#include <QTextStream>

#include <optional>

namespace traindeck::cli {

// Loads the profile FILE of `traindeck-cli COMMAND`, refusing the local profile with localMessage and
// --node names the profile lacks. Prints the error and returns nullopt on bad input.
std::optional<cluster::ClusterProfile> loadNodesProfile(const QString& file, const QStringList& onlyNodes,
                                                        const QString& command, const QString& localMessage,
                                                        QTextStream& err);

// Unknown host keys: shown with their fingerprint, accepted with acceptNewHostKeys, else asked on the
// terminal (refused without one). Key passphrases are asked on the terminal.
ssh::SshPrompts terminalPrompts(bool acceptNewHostKeys, QTextStream& err);

// `prompts` for a core running on another thread: each question is asked on context's thread (blocking the
// asker until answered), the one where Ctrl-C interrupts a read of the terminal.
ssh::SshPrompts promptsOnThreadOf(QObject* context, const ssh::SshPrompts& prompts);

// The options these subcommands share: --profile FILE, --node NAME (repeatable), --accept-new-host-keys.
QCommandLineOption profileFileOption();
QCommandLineOption onlyNodeOption();
QCommandLineOption acceptNewHostKeysOption();

} // namespace traindeck::cli
