// The GUI tests' own home: settings, profiles and data under a temporary directory, never the user's.
#pragma once

#include <QTemporaryDir>

namespace traindeck::guitest {

inline void useTemporaryHome(const QTemporaryDir& home)
{
    qputenv("XDG_CONFIG_HOME", home.filePath(QStringLiteral("config")).toUtf8());
    qputenv("XDG_DATA_HOME", home.filePath(QStringLiteral("data")).toUtf8());
}

} // namespace traindeck::guitest
