// Quoting for POSIX sh, the one rule every command TrainDeck builds (local, over SSH, run.sh) uses.
#pragma once

#include <QString>
#include <QStringList>

namespace traindeck {

// Quotes one word for POSIX sh: 'it'\''s' style; the result is one word whatever the input
// (spaces, quotes, ;, $(), newlines). Plain words of [A-Za-z0-9_./:=@%+,-] are left as they are.
QString shellQuote(const QString& word);
// The words quoted and joined with single spaces.
QString shellJoin(const QStringList& words);

// A path as a shell word: "~" and "~/x" become "$HOME" and "$HOME"/'x' (expanded by the shell that
// runs it, on whichever machine), other paths are quoted as they are.
QString shellPath(const QString& path);
// The statement that puts dirs (each as shellPath) before PATH: PATH="$HOME"/'bin':/opt/mpi/bin:"$PATH"; export PATH
// (no separator after it); "" when dirs is empty. The profile's path_prefix, wherever commands run.
QString shellPathPrefix(const QStringList& dirs);
// On this machine: "~" and "~/x" → QDir::homePath() (+ "/x"); other paths unchanged.
QString expandTilde(const QString& path);

// A sh script that replaces the file pathWord names (a shell word: shellQuote(path), or "$HOME/..."
// for a path under the remote home) with the bytes on its standard input, which must be `size` bytes
// with the SHA-256 sha256Hex (lower-case hex). They go to a private temporary file beside the target
// (umask 077; missing parents are created first), whose length and hash are checked BEFORE it gets
// mode and is renamed over the target: an upload cut short (a dropped connection ends the input early)
// or damaged never replaces a working file, and its temporary file is removed. Exit status: 0 replaced
// (stdout "sha256 HASH"); 4 the bytes that arrived are not the ones sent (stderr says how); other: the
// error of the failing command.
QString verifiedReplaceScript(const QString& pathWord, int mode, qint64 size, const QByteArray& sha256Hex);
inline constexpr int kUploadDamaged = 4;

} // namespace traindeck
