#include "settingspage.h"

#include "language.h"
#include "settings.h"

#include <QComboBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

namespace traindeck::gui {

static QWidget* withBrowse(QLineEdit* edit, QWidget* parent, const QString& caption)
{
    auto* w = new QWidget(parent);
    auto* l = new QHBoxLayout(w);
    l->setContentsMargins(0, 0, 0, 0);
    auto* b = new QPushButton(SettingsPage::tr("Browse…"), w);
    l->addWidget(edit, 1);
    l->addWidget(b);
    QObject::connect(b, &QPushButton::clicked, w, [edit, w, caption] {
        const QString dir = QFileDialog::getExistingDirectory(w, caption, edit->text());
        if (!dir.isEmpty()) {
            edit->setText(dir);
            Q_EMIT edit->editingFinished();
        }
    });
    return w;
}

SettingsPage::SettingsPage(QWidget* parent) : QWidget(parent)
{
    auto* outer = new QVBoxLayout(this);
    auto* form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::ExpandingFieldsGrow);

    m_runsDir = new QLineEdit(Settings::runsDir(), this);
    m_runsDir->setToolTip(tr("Every run gets a directory here with its spec, logs, metrics and checkpoints"));
    form->addRow(tr("&Runs directory:"), withBrowse(m_runsDir, this, tr("Runs directory")));

    m_modelDir = new QLineEdit(Settings::modelDir(), this);
    m_modelDir->setPlaceholderText(tr("directory with config.json and *.safetensors"));
    m_modelDir->setToolTip(tr("Hugging Face model directory used by the DeepSeek-R1-Distill-Qwen-1.5B preset"));
    form->addRow(tr("&Model directory (1.5B preset):"), withBrowse(m_modelDir, this, tr("Model directory")));

    m_language = new QComboBox(this);
    m_language->addItem(tr("System default"), QString());
    m_language->addItem(QStringLiteral("English"), QStringLiteral("en"));
    for (const QString& name : Language::available())
        m_language->addItem(QLocale(name).nativeLanguageName() + QStringLiteral(" (") + name + QLatin1Char(')'), name);
    m_language->setCurrentIndex(std::max(0, m_language->findData(Settings::language())));
    form->addRow(tr("&Language:"), m_language);

    m_palette = new QComboBox(this);
    m_palette->addItem(tr("Okabe–Ito (colour-blind safe)"), int(PaletteKind::OkabeIto));
    m_palette->addItem(tr("Tableau 10"), int(PaletteKind::Tableau));
    m_palette->setCurrentIndex(m_palette->findData(int(Settings::paletteKind())));
    m_palette->setToolTip(tr("Plot colours; axes and backgrounds follow the system theme"));
    form->addRow(tr("Plot &colours:"), m_palette);

    m_refresh = new QSpinBox(this);
    m_refresh->setRange(50, 2000);
    m_refresh->setSingleStep(50);
    m_refresh->setSuffix(tr(" ms"));
    m_refresh->setValue(Settings::refreshMs());
    m_refresh->setToolTip(tr("How often the Monitor redraws while metrics arrive"));
    form->addRow(tr("Monitor &refresh:"), m_refresh);

    outer->addLayout(form);
    auto* note =
        new QLabel(tr("Changes apply at once. Plot colours apply to plots created afterwards (reopen the run)."), this);
    note->setWordWrap(true);
    outer->addWidget(note);
    outer->addStretch(1);

    connect(m_runsDir, &QLineEdit::editingFinished, this, [this] {
        if (m_runsDir->text() != Settings::runsDir()) {
            Settings::setRunsDir(m_runsDir->text());
            Q_EMIT runsDirChanged(m_runsDir->text());
        }
    });
    connect(m_modelDir, &QLineEdit::editingFinished, this, [this] { Settings::setModelDir(m_modelDir->text()); });
    connect(m_language, &QComboBox::activated, this, [this] {
        const QString lang = m_language->currentData().toString();
        Settings::setLanguage(lang);
        Q_EMIT languageChanged(lang);
    });
    connect(m_palette, &QComboBox::activated, this,
            [this] { Settings::setPaletteKind(PaletteKind(m_palette->currentData().toInt())); });
    connect(m_refresh, &QSpinBox::valueChanged, this, [](int v) { Settings::setRefreshMs(v); });
}

} // namespace traindeck::gui
