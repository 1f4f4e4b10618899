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

} // namespace traindeck
