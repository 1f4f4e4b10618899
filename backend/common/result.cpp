#include "common/result.h"

namespace traindeck {

QString Diagnostic::toString() const
{
    QString out;
    if (!file.isEmpty() || line > 0 || !key.isEmpty()) {
        out = file.isEmpty() ? QStringLiteral("<input>") : file;
        if (line > 0)
            out += QStringLiteral(":%1:%2").arg(line).arg(qMax(column, 1));
        out += QLatin1String(": ");
        if (!key.isEmpty())
            out += key + QLatin1String(": ");
    }
    if (isWarning())
        out += tr("warning: ");
    out += message;
    if (!detail.isEmpty())
        out += QLatin1Char('\n') + detail;
    return out;
}

Diagnostic Diagnostic::error(const QString& where, const QString& message)
{
    return error(where, 0, 0, message);
}

Diagnostic Diagnostic::warning(const QString& where, const QString& message)
{
    return warning(where, 0, 0, message);
}

Diagnostic Diagnostic::error(const QString& file, int line, int column, const QString& message)
{
    return Diagnostic{Severity::Error, file, line, column, QString(), message, QString(), QString()};
}

Diagnostic Diagnostic::warning(const QString& file, int line, int column, const QString& message)
{
    return Diagnostic{Severity::Warning, file, line, column, QString(), message, QString(), QString()};
}

Diagnostic Diagnostic::keyError(const QString& file, const QString& key, const QString& message)
{
    return Diagnostic{Severity::Error, file, 0, 0, key, message, QString(), QString()};
}

Diagnostic Diagnostic::keyWarning(const QString& file, const QString& key, const QString& message)
{
    return Diagnostic{Severity::Warning, file, 0, 0, key, message, QString(), QString()};
}

Diagnostic Diagnostic::codedError(const QString& code, const QString& message, const QString& detail)
{
    Diagnostic d;
    d.code = code;
    d.message = message;
    d.detail = detail;
    return d;
}

bool hasErrors(const Diagnostics& diagnostics)
{
    for (const Diagnostic& d : diagnostics) {
        if (d.isError())
            return true;
    }
    return false;
}

QString formatDiagnostics(const Diagnostics& diagnostics)
{
    QString out;
    for (const Diagnostic& d : diagnostics)
        out += d.toString() + QLatin1Char('\n');
    return out;
}

} // namespace traindeck
