// Loads the application's translation (embedded .qm files under :/i18n) and Qt's own.
#pragma once

#include <QObject>
#include <QStringList>

class QTranslator;

namespace traindeck::gui {

class Language : public QObject {
    Q_OBJECT

  public:
    static Language* instance();

    // Locale names with an embedded translation ("zh_CN"); English is the source language (its
    // embedded plural forms, traindeck_en, are not listed).
    static QStringList available();
    // The language to use for a setting: "" follows the system locale.
    static QString resolve(const QString& setting);

    // Installs the translation for `language` ("" = system, "en" = only the English plural forms,
    // "1 node" rather than "1 node(s)"). Returns true when a translation of another language was
    // loaded (false for English or when nothing matches).
    bool apply(const QString& language);
    QString current() const { return m_current; }

  Q_SIGNALS:
    void changed(const QString& language);

  private:
    explicit Language(QObject* parent = nullptr);
    QTranslator* m_app = nullptr;
    QTranslator* m_qt = nullptr;
    QString m_current;
};

} // namespace traindeck::gui
