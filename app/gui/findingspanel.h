// The diagnosis findings of the shown run: a list (severity as colour AND text) and the selected
// finding's evidence and recommendation. Selecting a finding announces the ranks it names, so the
// other views can highlight them.
#pragma once

#include "analysis/finding.h"

#include <QWidget>

class QListWidget;
class QTextBrowser;
class QLabel;

namespace traindeck::gui {

class FindingsPanel : public QWidget {
    Q_OBJECT

  public:
    explicit FindingsPanel(QWidget* parent = nullptr);

    // Replaces the findings; keeps the selected one selected when it is still there.
    void setFindings(const QList<analysis::Finding>& findings);
    const QList<analysis::Finding>& findings() const { return m_findings; }
    int currentIndex() const;
    void selectFinding(int index);
    QListWidget* list() const { return m_list; }

    static QString severityText(analysis::Severity s);
    static QString kindText(analysis::FindingKind k);
    static QColor severityColor(analysis::Severity s);
    static QString stateText(analysis::FindingState s);

  Q_SIGNALS:
    // The ranks named by the selected finding (empty: none selected or a whole-job finding).
    void ranksSelected(const QList<int>& ranks);

  private:
    void showDetails(int index);
    QLabel* m_header = nullptr;
    QListWidget* m_list = nullptr;
    QTextBrowser* m_details = nullptr;
    QList<analysis::Finding> m_findings;
};

} // namespace traindeck::gui
