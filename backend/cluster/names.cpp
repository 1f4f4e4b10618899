#include "cluster/names.h"

#include <QHostAddress>
#include <QStringList>

namespace traindeck::cluster {

static NameCheck fail(int offset, const QString& message)
{
    return NameCheck{false, offset, message};
}

static bool isAsciiAlnum(QChar c)
{
    const char16_t u = c.unicode();
    return (u >= u'a' && u <= u'z') || (u >= u'A' && u <= u'Z') || (u >= u'0' && u <= u'9');
}

static QString describeChar(QChar c)
{
    if (c.unicode() < 0x20 || c.unicode() == 0x7f)
        return QStringLiteral("U+%1").arg(c.unicode(), 4, 16, QLatin1Char('0')).toUpper();
    if (c.isSpace())
        return Names::tr("a space");
    return QLatin1Char('\'') + c + QLatin1Char('\'');
}

NameCheck Names::checkHost(const QString& host, bool allowIpv6)
{
    if (host.isEmpty())
        return fail(0, tr("empty host name"));
    if (host.startsWith(QLatin1Char('-')))
        return fail(0, tr("host name '%1' starts with '-'; it would be read as an option").arg(host));
    if (host.contains(QLatin1Char(':'))) {
        if (!allowIpv6)
            return fail(int(host.indexOf(QLatin1Char(':'))),
                        tr("IPv6 address '%1' is not allowed in this format").arg(host));
        QHostAddress address;
        if (!address.setAddress(host) || address.protocol() != QAbstractSocket::IPv6Protocol ||
            host.contains(QLatin1Char('%')))
            return fail(0, tr("'%1' is not a valid IPv6 address").arg(host));
        return {};
    }
    bool numeric = true;
    for (QChar c : host) {
        if (!(c.isDigit() && c.unicode() < 0x80) && c != QLatin1Char('.'))
            numeric = false;
    }
    if (numeric) {
        const QStringList parts = host.split(QLatin1Char('.'));
        bool valid = parts.size() == 4;
        for (const QString& p : parts) {
            bool okNumber = false;
            const int v = p.toInt(&okNumber);
            if (!okNumber || p.isEmpty() || p.size() > 3 || v > 255)
                valid = false;
        }
        if (!valid)
            return fail(0, tr("'%1' is not a valid IPv4 address").arg(host));
        return {};
    }
    if (host.size() > 253)
        return fail(253, tr("host name is longer than 253 characters"));
    int labelStart = 0;
    for (int i = 0; i <= host.size(); ++i) {
        if (i == host.size() || host.at(i) == QLatin1Char('.')) {
            const int length = i - labelStart;
            if (length == 0)
                return fail(i, tr("empty label in host name '%1'").arg(host));
            if (length > 63)
                return fail(labelStart, tr("label longer than 63 characters in host name '%1'").arg(host));
            if (host.at(labelStart) == QLatin1Char('-'))
                return fail(labelStart, tr("a label of host name '%1' starts with '-'").arg(host));
            if (host.at(i - 1) == QLatin1Char('-'))
                return fail(i - 1, tr("a label of host name '%1' ends with '-'").arg(host));
            labelStart = i + 1;
            continue;
        }
        const QChar c = host.at(i);
        if (!isAsciiAlnum(c) && c != QLatin1Char('-'))
            return fail(i, tr("invalid character %1 in host name '%2'").arg(describeChar(c), host));
    }
    return {};
}

NameCheck Names::checkUser(const QString& user)
{
    if (user.isEmpty())
        return fail(0, tr("empty user name"));
    if (user.startsWith(QLatin1Char('-')))
        return fail(0, tr("user name '%1' starts with '-'; it would be read as an option").arg(user));
    if (user.size() > 32)
        return fail(32, tr("user name '%1' is longer than 32 characters").arg(user));
    for (int i = 0; i < user.size(); ++i) {
        const QChar c = user.at(i);
        const bool valid = isAsciiAlnum(c) || c == QLatin1Char('_') ||
                           (i > 0 && (c == QLatin1Char('.') || c == QLatin1Char('-'))) ||
                           (i > 0 && i == user.size() - 1 && c == QLatin1Char('$'));
        if (!valid || (i == 0 && c.isDigit()))
            return fail(i, tr("invalid character %1 in user name '%2'").arg(describeChar(c), user));
    }
    return {};
}

NameCheck Names::checkProfileName(const QString& name)
{
    if (name.isEmpty())
        return fail(0, tr("empty profile name"));
    if (name.size() > 64)
        return fail(64, tr("profile name is longer than 64 characters"));
    for (int i = 0; i < name.size(); ++i) {
        const QChar c = name.at(i);
        const bool valid =
            isAsciiAlnum(c) || (i > 0 && (c == QLatin1Char('.') || c == QLatin1Char('-') || c == QLatin1Char('_')));
        if (!valid)
            return fail(i, tr("invalid character %1 in profile name '%2' (use letters, digits, '.', '-', '_')")
                               .arg(describeChar(c), name));
    }
    return {};
}

NameCheck Names::checkEnvName(const QString& name)
{
    if (name.isEmpty())
        return fail(0, tr("empty environment variable name"));
    for (int i = 0; i < name.size(); ++i) {
        const QChar c = name.at(i);
        if (!(isAsciiAlnum(c) || c == QLatin1Char('_')) || (i == 0 && c.isDigit()))
            return fail(i, tr("invalid character %1 in environment variable name '%2'").arg(describeChar(c), name));
    }
    return {};
}

// Splits "AWS_SECRET_ACCESS_KEY", "sshPassword", "api-key" into lower-case words.
static QStringList keyWords(const QString& key)
{
    QStringList words;
    QString current;
    for (int i = 0; i < key.size(); ++i) {
        const QChar c = key.at(i);
        if (!c.isLetterOrNumber()) {
            if (!current.isEmpty())
                words.append(current);
            current.clear();
            continue;
        }
        if (c.isUpper() && !current.isEmpty() && i > 0 && key.at(i - 1).isLower()) {
            words.append(current);
            current.clear();
        }
        current.append(c.toLower());
    }
    if (!current.isEmpty())
        words.append(current);
    return words;
}

bool Names::looksLikeSecretKey(const QString& key)
{
    static const QStringList harmlessPrefixes = {
        QStringLiteral("NCCL_"), QStringLiteral("OMPI_"),  QStringLiteral("OPAL_"),  QStringLiteral("PMIX_"),
        QStringLiteral("PRTE_"), QStringLiteral("UCX_"),   QStringLiteral("CUDA_"),  QStringLiteral("OMP_"),
        QStringLiteral("MKL_"),  QStringLiteral("HWLOC_"), QStringLiteral("SLURM_"),
    };
    // The shell's working directories: "PWD" is a word of MYSQL_PWD, but PWD itself is no password.
    if (key == QLatin1String("PWD") || key == QLatin1String("OLDPWD"))
        return false;
    for (const QString& prefix : harmlessPrefixes) {
        if (key.startsWith(prefix, Qt::CaseInsensitive))
            return false;
    }
    static const QStringList words = {
        QStringLiteral("password"),   QStringLiteral("passwd"),     QStringLiteral("pwd"),
        QStringLiteral("passphrase"), QStringLiteral("secret"),     QStringLiteral("secrets"),
        QStringLiteral("token"),      QStringLiteral("key"),        QStringLiteral("pat"),
        QStringLiteral("apikey"),     QStringLiteral("credential"), QStringLiteral("credentials"),
        QStringLiteral("privatekey"), QStringLiteral("accesskey"),  QStringLiteral("secretkey"),
    };
    static const QStringList parts = {QStringLiteral("password"), QStringLiteral("passwd"),
                                      QStringLiteral("passphrase"), QStringLiteral("secret"),
                                      QStringLiteral("credential")};
    for (const QString& w : keyWords(key)) {
        if (words.contains(w))
            return true;
        for (const QString& part : parts) {
            if (w.contains(part))
                return true;
        }
    }
    return false;
}

bool Names::looksLikeSecretValue(const QString& value)
{
    return value.contains(QLatin1String("PRIVATE KEY-----"));
}

} // namespace traindeck::cluster
