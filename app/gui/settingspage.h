// Settings: runs directory, language (system or a choice; applied at once), plot palette, refresh
// interval of the Monitor, and the model directory of the 1.5B preset.
#pragma once

#include <QWidget>

class QComboBox;
class QLineEdit;
class QSpinBox;

namespace traindeck::gui {

class SettingsPage : public QWidget {
    Q_OBJECT

  public:
    explicit SettingsPage(QWidget* parent = nullptr);
    QComboBox* languageBox() const { return m_language; }

  Q_SIGNALS:
    void languageChanged(const QString& language);
    void runsDirChanged(const QString& dir);

  private:
    QLineEdit* m_runsDir = nullptr;
    QLineEdit* m_modelDir = nullptr;
    QComboBox* m_language = nullptr;
    QComboBox* m_palette = nullptr;
    QSpinBox* m_refresh = nullptr;
};

} // namespace traindeck::gui
