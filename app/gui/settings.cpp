#include "settings.h"

#include "common/paths.h"

#include <QSettings>

#include <algorithm>

namespace traindeck::gui {

namespace {
QString& runsOverride()
{
    static QString dir;
    return dir;
}
QSettings store()
{
    return QSettings(QStringLiteral("TrainDeck"), QStringLiteral("traindeck"));
}
} // namespace

QString Settings::runsDir()
{
    if (!runsOverride().isEmpty())
        return runsOverride();
    const QString dir = store().value(QStringLiteral("runsDir")).toString();
    return dir.isEmpty() ? paths::defaultRunsDir() : dir;
}

void Settings::setRunsDir(const QString& dir)
{
    store().setValue(QStringLiteral("runsDir"), dir);
}
void Settings::setRunsDirOverride(const QString& dir)
{
    runsOverride() = dir;
}

QString Settings::language()
{
    return store().value(QStringLiteral("language")).toString();
}
void Settings::setLanguage(const QString& language)
{
    store().setValue(QStringLiteral("language"), language);
}

PaletteKind Settings::paletteKind()
{
    return store().value(QStringLiteral("palette")).toString() == QLatin1String("tableau") ? PaletteKind::Tableau
                                                                                           : PaletteKind::OkabeIto;
}

void Settings::setPaletteKind(PaletteKind kind)
{
    store().setValue(QStringLiteral("palette"),
                     kind == PaletteKind::Tableau ? QStringLiteral("tableau") : QStringLiteral("okabe-ito"));
}

int Settings::refreshMs()
{
    return std::clamp(store().value(QStringLiteral("refreshMs"), 100).toInt(), 50, 2000);
}
void Settings::setRefreshMs(int ms)
{
    store().setValue(QStringLiteral("refreshMs"), std::clamp(ms, 50, 2000));
}

QString Settings::modelDir()
{
    return store().value(QStringLiteral("modelDir")).toString();
}
void Settings::setModelDir(const QString& dir)
{
    store().setValue(QStringLiteral("modelDir"), dir);
}

} // namespace traindeck::gui
