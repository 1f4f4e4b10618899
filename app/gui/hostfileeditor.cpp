#include "hostfileeditor.h"

#include "plotstyle.h"

#include <QComboBox>
#include <QFile>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHelpEvent>
#include <QLabel>
#include <QListWidget>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSplitter>
#include <QTextBlock>
#include <QTimer>
#include <QToolTip>
#include <QVBoxLayout>

namespace traindeck::gui {

using cluster::Hostfile;
using cluster::HostfileFormat;

static const QString kEditorFile = QStringLiteral("hostfile");

// ---------------------------------------------------------------- highlighter

HostfileHighlighter::HostfileHighlighter(QTextDocument* document) : QSyntaxHighlighter(document) {}

void HostfileHighlighter::setFormat(HostfileFormat format)
{
    m_format = format;
    rehighlight();
}

void HostfileHighlighter::setDiagnostics(const Diagnostics& diagnostics)
{
    m_diagnostics = diagnostics;
    rehighlight();
}

void HostfileHighlighter::highlightBlock(const QString& text)
{
    QTextCharFormat comment;
    comment.setForeground(QColor(0x6a737d));
    comment.setFontItalic(true);
    QTextCharFormat host;
    host.setFontWeight(QFont::Bold);
    QTextCharFormat user;
    user.setForeground(seriesColor(4));
    QTextCharFormat key;
    key.setForeground(seriesColor(0));
    QTextCharFormat number;
    number.setForeground(seriesColor(3));

    const int hash = text.indexOf(QLatin1Char('#'));
    const QString code = hash >= 0 ? text.left(hash) : text;
    if (hash >= 0)
        QSyntaxHighlighter::setFormat(hash, int(text.size()) - hash, comment);

    static const QRegularExpression token(QStringLiteral("\\S+"));
    bool first = true;
    for (auto it = token.globalMatch(code); it.hasNext();) {
        const auto m = it.next();
        const int start = int(m.capturedStart());
        const QString t = m.captured();
        if (first) {
            first = false;
            int hostStart = start;
            const int at = int(t.indexOf(QLatin1Char('@')));
            if (at >= 0) {
                QSyntaxHighlighter::setFormat(start, at + 1, user);
                hostStart = start + at + 1;
            }
            int hostEnd = start + int(t.size());
            if (m_format == HostfileFormat::Mpich) {
                const int colon = int(t.lastIndexOf(QLatin1Char(':')));
                if (colon > at && t.count(QLatin1Char(':')) == 1) {
                    hostEnd = start + colon;
                    QSyntaxHighlighter::setFormat(start + colon + 1, int(t.size()) - colon - 1, number);
                }
            }
            QSyntaxHighlighter::setFormat(hostStart, hostEnd - hostStart, host);
            continue;
        }
        const int eq = int(t.indexOf(QLatin1Char('=')));
        if (eq > 0) {
            QSyntaxHighlighter::setFormat(start, eq + 1, key);
            QSyntaxHighlighter::setFormat(start + eq + 1, int(t.size()) - eq - 1, number);
        }
    }

    // Diagnostics of this line: a wavy underline from the column to the end of the token.
    const int line = currentBlock().blockNumber() + 1;
    for (const Diagnostic& d : std::as_const(m_diagnostics)) {
        if (d.line != line)
            continue;
        int from = std::max(0, d.column - 1);
        if (from >= text.size())
            from = std::max(0, int(text.size()) - 1);
        int to = from;
        while (to < text.size() && !text.at(to).isSpace())
            ++to;
        if (to == from)
            to = std::max(from + 1, int(text.size()));
        for (int i = from; i < to; ++i) {
            QTextCharFormat f = QSyntaxHighlighter::format(i);
            f.setUnderlineStyle(QTextCharFormat::WaveUnderline);
            f.setUnderlineColor(d.isError() ? failColor() : warnColor());
            f.setToolTip(d.message);
            QSyntaxHighlighter::setFormat(i, 1, f);
        }
    }
}

// ---------------------------------------------------------------- editor

QString HostfileEditor::formatDisplayName(HostfileFormat format)
{
    switch (format) {
    case HostfileFormat::OpenMpi: return tr("Open MPI hostfile");
    case HostfileFormat::DeepSpeed: return tr("DeepSpeed hostfile");
    case HostfileFormat::Mpich: return tr("MPICH machine file");
    }
    return QString();
}

HostfileEditor::HostfileEditor(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* top = new QHBoxLayout;
    auto* formatLabel = new QLabel(tr("F&ormat:"), this);
    m_formatBox = new QComboBox(this);
    for (HostfileFormat f : {HostfileFormat::OpenMpi, HostfileFormat::DeepSpeed, HostfileFormat::Mpich})
        m_formatBox->addItem(formatDisplayName(f), int(f));
    m_formatBox->setToolTip(tr("Changing the format converts a valid hostfile to the new syntax"));
    formatLabel->setBuddy(m_formatBox);
    auto* importBtn = new QPushButton(tr("&Import…"), this);
    auto* exportBtn = new QPushButton(tr("E&xport…"), this);
    top->addWidget(formatLabel);
    top->addWidget(m_formatBox);
    top->addStretch(1);
    top->addWidget(importBtn);
    top->addWidget(exportBtn);
    layout->addLayout(top);

    m_edit = new QPlainTextEdit(this);
    m_edit->setAccessibleName(tr("Hostfile text"));
    QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    m_edit->setFont(mono);
    m_edit->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_edit->setTabChangesFocus(true);
    m_edit->setPlaceholderText(tr("# one host per line, e.g.\nnode1 slots=8\nnode2 slots=8"));
    m_edit->viewport()->installEventFilter(this);
    m_highlighter = new HostfileHighlighter(m_edit->document());

    m_list = new QListWidget(this);
    m_list->setAccessibleName(tr("Hostfile problems"));
    m_summary = new QLabel(this);
    m_summary->setWordWrap(true);

    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_edit);
    split->addWidget(m_list);
    split->setStretchFactor(0, 4);
    split->setStretchFactor(1, 1);
    split->setSizes({300, 70});
    layout->addWidget(split, 1);
    layout->addWidget(m_summary);

    m_debounce = new QTimer(this);
    m_debounce->setSingleShot(true);
    m_debounce->setInterval(250);
    connect(m_debounce, &QTimer::timeout, this, &HostfileEditor::validateNow);
    connect(m_edit, &QPlainTextEdit::textChanged, m_debounce, qOverload<>(&QTimer::start));
    connect(m_list, &QListWidget::itemActivated, this,
            [this](QListWidgetItem* item) { jumpTo(item->data(Qt::UserRole).toInt()); });
    connect(m_formatBox, &QComboBox::currentIndexChanged, this,
            [this] { setFormat(HostfileFormat(m_formatBox->currentData().toInt())); });
    connect(importBtn, &QPushButton::clicked, this, &HostfileEditor::importDialog);
    connect(exportBtn, &QPushButton::clicked, this, &HostfileEditor::exportDialog);
    validateNow();
}

void HostfileEditor::setText(const QString& text)
{
    m_edit->setPlainText(text);
    validateNow();
}

QString HostfileEditor::text() const
{
    return m_edit->toPlainText();
}

void HostfileEditor::setFormat(HostfileFormat format)
{
    if (format == m_format)
        return;
    Diagnostics extra;
    const auto parsed = Hostfile::parse(text(), m_format, kEditorFile);
    const HostfileFormat old = m_format;
    m_format = format;
    {
        const QSignalBlocker b(m_formatBox);
        m_formatBox->setCurrentIndex(m_formatBox->findData(int(format)));
    }
    m_highlighter->setFormat(format);
    if (parsed.ok() && !text().trimmed().isEmpty()) {
        const auto converted = parsed->convert(format, kEditorFile);
        if (converted.ok()) {
            m_edit->setPlainText(converted.value());
            extra = converted.warnings();
        } else {
            m_format = old; // cannot express it: keep the old syntax, show why
            const QSignalBlocker b(m_formatBox);
            m_formatBox->setCurrentIndex(m_formatBox->findData(int(old)));
            m_highlighter->setFormat(old);
            validateNow();
            showDiagnostics(converted.diagnostics());
            return;
        }
    }
    validateNow();
    if (!extra.isEmpty())
        showDiagnostics(extra);
}

void HostfileEditor::validateNow()
{
    m_debounce->stop();
    const auto parsed = Hostfile::parse(text(), m_format, kEditorFile);
    m_diagnostics = parsed.diagnostics();
    m_hostfile = parsed.ok() ? std::optional<Hostfile>(parsed.value()) : std::nullopt;
    m_highlighter->setDiagnostics(m_diagnostics);
    showDiagnostics();
    Q_EMIT validated(parsed.ok());
}

void HostfileEditor::showDiagnostics(const Diagnostics& extra)
{
    m_list->clear();
    const Diagnostics all = m_diagnostics + extra;
    int errors = 0, warnings = 0;
    for (int i = 0; i < all.size(); ++i) {
        const Diagnostic& d = all.at(i);
        (d.isError() ? errors : warnings)++;
        const QString where = d.line > 0 ? tr("line %1, column %2").arg(d.line).arg(d.column) : QString();
        const QString kind = d.isError() ? tr("Error") : tr("Warning");
        auto* item = new QListWidgetItem(where.isEmpty() ? QStringLiteral("%1: %2").arg(kind, d.message)
                                                         : QStringLiteral("%1 (%2): %3").arg(kind, where, d.message));
        item->setForeground(d.isError() ? failColor() : warnColor().darker(130));
        item->setData(Qt::UserRole, i < m_diagnostics.size() ? i : -1);
        m_list->addItem(item);
    }
    if (m_hostfile) {
        const int hosts = int(m_hostfile->mergedHosts().size());
        QString s = tr("Valid: %n host(s)", nullptr, hosts) + QStringLiteral(", ") +
                    tr("%n slot(s) in all", nullptr, m_hostfile->totalSlots());
        if (warnings)
            s += QStringLiteral(", ") + tr("%n warning(s)", nullptr, warnings);
        m_summary->setText(s);
    } else if (text().trimmed().isEmpty()) {
        m_summary->setText(tr("Empty: add one host per line."));
    } else {
        m_summary->setText(tr("%n error(s)", nullptr, errors) +
                           (warnings ? QStringLiteral(", ") + tr("%n warning(s)", nullptr, warnings) : QString()) +
                           QStringLiteral(" — ") + tr("double-click a problem to go to it"));
    }
    QPalette pal = m_summary->palette();
    pal.setColor(QPalette::WindowText, m_hostfile ? passColor().darker(120) : failColor());
    m_summary->setPalette(pal);
}

void HostfileEditor::jumpTo(int index)
{
    if (index < 0 || index >= m_diagnostics.size())
        return;
    const Diagnostic& d = m_diagnostics.at(index);
    const QTextBlock block = m_edit->document()->findBlockByNumber(std::max(0, d.line - 1));
    if (!block.isValid())
        return;
    QTextCursor c(block);
    c.movePosition(QTextCursor::Right, QTextCursor::MoveAnchor,
                   std::min(std::max(0, d.column - 1), block.length() - 1));
    m_edit->setTextCursor(c);
    m_edit->setFocus();
}

bool HostfileEditor::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_edit->viewport() && event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QTextCursor c = m_edit->cursorForPosition(help->pos());
        const int line = c.blockNumber() + 1;
        QStringList messages;
        for (const Diagnostic& d : std::as_const(m_diagnostics))
            if (d.line == line)
                messages << d.message;
        if (messages.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), messages.join(QLatin1Char('\n')), m_edit);
        return true;
    }
    return QWidget::eventFilter(watched, event);
}

Status HostfileEditor::importFile(const QString& path, HostfileFormat format)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return Status::failure(Diagnostic::error(path, tr("cannot read: %1").arg(f.errorString())));
    const QString text = QString::fromUtf8(f.read(16 << 20));
    m_format = format;
    {
        const QSignalBlocker b(m_formatBox);
        m_formatBox->setCurrentIndex(m_formatBox->findData(int(format)));
    }
    m_highlighter->setFormat(format);
    setText(text);
    return Done{};
}

Status HostfileEditor::exportFile(const QString& path, HostfileFormat format)
{
    validateNow();
    if (!m_hostfile)
        return Status::failure(Diagnostic::error(QString(), tr("Fix the errors in the hostfile first.")));
    QString out;
    Diagnostics warnings;
    if (format == m_format) {
        out = m_hostfile->toText();
    } else {
        const auto converted = m_hostfile->convert(format, kEditorFile);
        if (!converted.ok())
            return Status::failure(converted.diagnostics());
        out = converted.value();
        warnings = converted.warnings();
    }
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) || f.write(out.toUtf8()) < 0)
        return Status::failure(Diagnostic::error(path, tr("cannot write: %1").arg(f.errorString())));
    return Status(Done{}, warnings);
}

static QStringList formatFilters()
{
    return {HostfileEditor::formatDisplayName(HostfileFormat::OpenMpi) + QStringLiteral(" (*)"),
            HostfileEditor::formatDisplayName(HostfileFormat::DeepSpeed) + QStringLiteral(" (*)"),
            HostfileEditor::formatDisplayName(HostfileFormat::Mpich) + QStringLiteral(" (*)")};
}

void HostfileEditor::importDialog()
{
    const QStringList filters = formatFilters();
    QString selected = filters.at(int(m_format));
    const QString path = QFileDialog::getOpenFileName(this, tr("Import hostfile"), QString(),
                                                      filters.join(QStringLiteral(";;")), &selected);
    if (path.isEmpty())
        return;
    const Status imported = importFile(path, HostfileFormat(std::max<qsizetype>(0, filters.indexOf(selected))));
    if (!imported)
        QMessageBox::warning(this, tr("Import failed"), imported.errorString().trimmed());
}

void HostfileEditor::exportDialog()
{
    const QStringList filters = formatFilters();
    QString selected = filters.at(int(m_format));
    const QString path = QFileDialog::getSaveFileName(this, tr("Export hostfile"), QStringLiteral("hostfile"),
                                                      filters.join(QStringLiteral(";;")), &selected);
    if (path.isEmpty())
        return;
    const Status exported = exportFile(path, HostfileFormat(std::max<qsizetype>(0, filters.indexOf(selected))));
    if (!exported)
        QMessageBox::warning(this, tr("Export failed"), exported.errorString().trimmed());
    else if (!exported.warnings().isEmpty())
        QMessageBox::information(this, tr("Exported with warnings"), exported.errorString().trimmed());
}

} // namespace traindeck::gui
