#include "common/shell.h"

namespace traindeck {

QString shellQuote(const QString& word)
{
    if (word.isEmpty())
        return QStringLiteral("''");
    bool plain = true;
    for (const QChar c : word) {
        const ushort u = c.unicode();
        const bool ok = (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') ||
                        QStringLiteral("_./:=@%+,-").contains(c);
        if (!ok) {
            plain = false;
            break;
        }
    }
    if (plain)
        return word;
    QString q = word;
    q.replace(QLatin1Char('\''), QStringLiteral("'\\''"));
    return QLatin1Char('\'') + q + QLatin1Char('\'');
}

QString shellJoin(const QStringList& words)
{
    QStringList q;
    q.reserve(words.size());
    for (const QString& w : words)
        q.append(shellQuote(w));
    return q.join(QLatin1Char(' '));
}

} // namespace traindeck
