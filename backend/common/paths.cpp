#include "common/paths.h"

#include <QDir>
#include <QStandardPaths>

namespace traindeck::paths {

static QString xdgBase(const char* variable, const QString& fallbackUnderHome)
{
    const QString value = qEnvironmentVariable(variable);
    if (!value.isEmpty() && QDir::isAbsolutePath(value))
        return value;
    return QDir::homePath() + fallbackUnderHome;
}

QString configDir()
{
    return xdgBase("XDG_CONFIG_HOME", QStringLiteral("/.config")) + QStringLiteral("/traindeck");
}

QString dataDir()
{
    return xdgBase("XDG_DATA_HOME", QStringLiteral("/.local/share")) + QStringLiteral("/traindeck");
}

QString defaultRunsDir()
{
    return dataDir() + QStringLiteral("/runs");
}

QString cacheDir()
{
    const QString own = qEnvironmentVariable("TRAINDECK_CACHE");
    if (!own.isEmpty())
        return own;
    return xdgBase("XDG_CACHE_HOME", QStringLiteral("/.cache")) + QStringLiteral("/traindeck");
}

} // namespace traindeck::paths
