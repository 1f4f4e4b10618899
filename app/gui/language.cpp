#include "language.h"

#include <QCoreApplication>
#include <QDir>
#include <QLibraryInfo>
#include <QLocale>
#include <QTranslator>

namespace traindeck::gui {

Language* Language::instance()
{
    static Language* lang = new Language(QCoreApplication::instance());
    return lang;
}

Language::Language(QObject* parent) : QObject(parent) {}

QStringList Language::available()
{
    QStringList out;
    const QStringList files = QDir(QStringLiteral(":/i18n")).entryList({QStringLiteral("traindeck_*.qm")});
    for (const QString& f : files) {
        const QString name = f.mid(10, f.size() - 13);
        if (name != QLatin1String("en"))
            out << name;
    }
    return out;
}

QString Language::resolve(const QString& setting)
{
    if (!setting.isEmpty())
        return setting;
    const QLocale system;
    for (const QString& name : available()) {
        const QLocale l(name);
        if (l.language() == system.language())
            return name;
    }
    return QStringLiteral("en");
}

bool Language::apply(const QString& language)
{
    const QString lang = resolve(language);
    if (m_app) {
        QCoreApplication::removeTranslator(m_app);
        delete m_app;
        m_app = nullptr;
    }
    if (m_qt) {
        QCoreApplication::removeTranslator(m_qt);
        delete m_qt;
        m_qt = nullptr;
    }
    bool loaded = false;
    if (lang == QLatin1String("en")) {
        // The source texts are English; only the plural forms ("%n node(s)") need a translation.
        auto* app = new QTranslator(this);
        if (app->load(QStringLiteral("traindeck_en"), QStringLiteral(":/i18n"))) {
            QCoreApplication::installTranslator(app);
            m_app = app;
        } else {
            delete app;
        }
    } else {
        auto* app = new QTranslator(this);
        if (app->load(QStringLiteral("traindeck_") + lang, QStringLiteral(":/i18n"))) {
            QCoreApplication::installTranslator(app);
            m_app = app;
            loaded = true;
        } else {
            delete app;
        }
        auto* qt = new QTranslator(this);
        if (qt->load(QLocale(lang), QStringLiteral("qtbase"), QStringLiteral("_"),
                     QLibraryInfo::path(QLibraryInfo::TranslationsPath))) {
            QCoreApplication::installTranslator(qt);
            m_qt = qt;
        } else {
            delete qt;
        }
    }
    m_current = lang;
    QLocale::setDefault(QLocale(lang));
    Q_EMIT changed(lang);
    return loaded;
}

} // namespace traindeck::gui
