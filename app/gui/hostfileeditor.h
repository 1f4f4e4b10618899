// A hostfile editor: syntax highlighting for Open MPI / DeepSpeed / MPICH hostfiles, validation as
// you type (debounced) with the backend's file:line:column diagnostics underlined in the text, listed
// below it (activate one to jump there) and shown as tooltips; import and export in any format.
#pragma once

#include "cluster/hostfile.h"

#include <QSyntaxHighlighter>
#include <QWidget>

#include <optional>

class QComboBox;
class QLabel;
class QListWidget;
class QPlainTextEdit;
class QTimer;

namespace traindeck::gui {

class HostfileHighlighter : public QSyntaxHighlighter {
    Q_OBJECT

  public:
    explicit HostfileHighlighter(QTextDocument* document);
    void setFormat(cluster::HostfileFormat format);
    void setDiagnostics(const Diagnostics& diagnostics);

  protected:
    void highlightBlock(const QString& text) override;

  private:
    cluster::HostfileFormat m_format = cluster::HostfileFormat::OpenMpi;
    Diagnostics m_diagnostics;
};

class HostfileEditor : public QWidget {
    Q_OBJECT

  public:
    explicit HostfileEditor(QWidget* parent = nullptr);

    void setText(const QString& text);
    QString text() const;
    cluster::HostfileFormat format() const { return m_format; }
    // Changes the syntax. When the text is valid in the old one it is converted (warnings listed).
    void setFormat(cluster::HostfileFormat format);
    // Validates now (normally done 250 ms after the last keystroke).
    void validateNow();
    const Diagnostics& diagnostics() const { return m_diagnostics; }
    // The parsed hostfile when the text is valid.
    std::optional<cluster::Hostfile> hostfile() const { return m_hostfile; }
    QPlainTextEdit* textEdit() const { return m_edit; }
    QListWidget* diagnosticsList() const { return m_list; }
    QLabel* summaryLabel() const { return m_summary; }
    // Moves the cursor to a diagnostic's line and column.
    void jumpTo(int diagnosticIndex);

    Status importFile(const QString& path, cluster::HostfileFormat format);
    // Succeeds with warnings when the conversion lost something (e.g. a field the format cannot hold).
    Status exportFile(const QString& path, cluster::HostfileFormat format);

    static QString formatDisplayName(cluster::HostfileFormat format);

  public Q_SLOTS:
    void importDialog();
    void exportDialog();

  Q_SIGNALS:
    void validated(bool ok);

  protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

  private:
    void showDiagnostics(const Diagnostics& extra = {});

    QComboBox* m_formatBox = nullptr;
    QPlainTextEdit* m_edit = nullptr;
    HostfileHighlighter* m_highlighter = nullptr;
    QListWidget* m_list = nullptr;
    QLabel* m_summary = nullptr;
    QTimer* m_debounce = nullptr;
    cluster::HostfileFormat m_format = cluster::HostfileFormat::OpenMpi;
    Diagnostics m_diagnostics;
    std::optional<cluster::Hostfile> m_hostfile;
};

} // namespace traindeck::gui
