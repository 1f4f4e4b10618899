#include "common/shell.h"

#include <QDir>

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

QString verifiedReplaceScript(const QString& pathWord, int mode, qint64 size, const QByteArray& sha256Hex)
{
    const QString hash = QString::fromLatin1(sha256Hex).toLower();
    return QStringLiteral("p=%1; mkdir -p \"$(dirname -- \"$p\")\" || exit 1; umask 077; t=\"$p.traindeck-tmp.$$\"; "
                          "fail() { rm -f \"$t\"; exit \"$1\"; }; "
                          "cat > \"$t\" || fail 1; "
                          "n=$(wc -c < \"$t\" | tr -d ' \\t') || fail 1; "
                          "[ \"$n\" = %2 ] || { echo \"upload cut short: $n of %2 bytes arrived\" >&2; fail %5; }; "
                          "h=$(sha256sum < \"$t\" | cut -d' ' -f1) || fail 1; "
                          "[ \"$h\" = %3 ] || { echo \"upload damaged: sha256 $h, expected %3\" >&2; fail %5; }; "
                          "chmod %4 \"$t\" || fail 1; "
                          // mv would move the file into a directory of the target's name and succeed.
                          "if [ -d \"$p\" ]; then echo \"$p: is a directory\" >&2; fail 1; fi; "
                          "mv -f \"$t\" \"$p\" || fail 1; echo \"sha256 $h\"")
        .arg(pathWord, QString::number(size), hash, QString::number(mode & 07777, 8), QString::number(kUploadDamaged));
}

QString shellPath(const QString& path)
{
    if (path == QLatin1String("~"))
        return QStringLiteral("\"$HOME\"");
    if (path.startsWith(QLatin1String("~/")))
        return QStringLiteral("\"$HOME\"/") + shellQuote(path.mid(2));
    return shellQuote(path);
}

QString shellPathPrefix(const QStringList& dirs)
{
    if (dirs.isEmpty())
        return {};
    QStringList words;
    for (const QString& d : dirs)
        words << shellPath(d);
    return QStringLiteral("PATH=") + words.join(QLatin1Char(':')) + QStringLiteral(":\"$PATH\"; export PATH");
}

QString expandTilde(const QString& path)
{
    if (path == QLatin1String("~"))
        return QDir::homePath();
    if (path.startsWith(QLatin1String("~/")))
        return QDir::homePath() + path.mid(1);
    return path;
}

} // namespace traindeck
