#include "findingspanel.h"

#include "analysis/findinghistory.h"

#include "common/format.h"
#include "plotstyle.h"

#include <QLabel>
#include <QListWidget>
#include <QPainter>
#include <QPixmap>
#include <QSplitter>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace traindeck::gui {

using analysis::Finding;
using analysis::FindingHistory;
using analysis::FindingKind;
using analysis::FindingState;
using analysis::Severity;

FindingsPanel::FindingsPanel(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_header = new QLabel(tr("Findings"), this);
    QFont f = m_header->font();
    f.setBold(true);
    m_header->setFont(f);
    m_list = new QListWidget(this);
    m_list->setAccessibleName(tr("Diagnosis findings"));
    m_list->setWordWrap(true);
    m_list->setUniformItemSizes(false);
    m_list->setTextElideMode(Qt::ElideNone);
    m_details = new QTextBrowser(this);
    m_details->setAccessibleName(tr("Finding details"));
    m_details->setPlaceholderText(tr("Select a finding to see its evidence and what to do."));
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_list);
    split->addWidget(m_details);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);
    layout->addWidget(m_header);
    layout->addWidget(split, 1);
    connect(m_list, &QListWidget::currentRowChanged, this, [this](int row) {
        showDetails(row);
        Q_EMIT ranksSelected(row >= 0 && row < m_findings.size() ? m_findings.at(row).ranks : QList<int>{});
    });
    setFindings({});
}

QString FindingsPanel::severityText(Severity s)
{
    switch (s) {
    case Severity::Critical: return tr("Critical");
    case Severity::Warning: return tr("Warning");
    case Severity::Info: break;
    }
    return tr("Info");
}

QColor FindingsPanel::severityColor(Severity s)
{
    switch (s) {
    case Severity::Critical: return failColor();
    case Severity::Warning: return warnColor();
    case Severity::Info: break;
    }
    return infoColor();
}

QString FindingsPanel::kindText(FindingKind k)
{
    switch (k) {
    case FindingKind::Straggler: return tr("Straggler");
    case FindingKind::DataLoading: return tr("Data loading");
    case FindingKind::CommBound: return tr("Communication-bound");
    case FindingKind::MemoryPressure: return tr("Memory pressure");
    case FindingKind::LossNaN: return tr("Loss is NaN");
    case FindingKind::LossSpike: return tr("Loss spikes");
    case FindingKind::LossDivergence: return tr("Loss divergence");
    case FindingKind::ThroughputDrift: return tr("Throughput drift");
    case FindingKind::ScalingEfficiency: return tr("Scaling efficiency");
    case FindingKind::Stall: return tr("Stall");
    }
    return QString();
}

static QIcon severityIcon(Severity s)
{
    QPixmap pm(14, 14);
    pm.fill(Qt::transparent);
    QPainter p(&pm);
    p.setRenderHint(QPainter::Antialiasing);
    p.setPen(Qt::NoPen);
    p.setBrush(FindingsPanel::severityColor(s));
    p.drawEllipse(QRectF(1, 1, 12, 12));
    return QIcon(pm);
}

static bool sameFinding(const Finding& a, const Finding& b)
{
    return FindingHistory::keyOf(a) == FindingHistory::keyOf(b) && a.raisedStep == b.raisedStep;
}

QString FindingsPanel::stateText(FindingState s)
{
    switch (s) {
    case FindingState::Active: return tr("active");
    case FindingState::Resolved: return tr("resolved");
    case FindingState::Tentative: return tr("not enough evidence yet");
    }
    return QString();
}

void FindingsPanel::setFindings(const QList<Finding>& findings)
{
    const int old = currentIndex();
    const std::optional<Finding> selected =
        old >= 0 && old < m_findings.size() ? std::optional<Finding>(m_findings.at(old)) : std::nullopt;
    m_findings = findings;
    const QSignalBlocker block(m_list);
    m_list->clear();
    int reselect = -1;
    for (int i = 0; i < findings.size(); ++i) {
        const Finding& f = findings.at(i);
        QString ranks;
        if (f.isHostWide()) {
            ranks =
                QStringLiteral(" — ") + tr("host %1 (%n rank(s))", nullptr, int(f.ranks.size())).arg(f.hosts.value(0));
        } else if (!f.ranks.isEmpty()) {
            constexpr int kNamed = 4; // then "and N more"
            QStringList parts;
            for (int k = 0; k < f.ranks.size() && k < kNamed; ++k) {
                const QString host = k < f.hosts.size() ? f.hosts.at(k) : QString();
                parts << (host.isEmpty() ? tr("rank %1").arg(f.ranks.at(k))
                                         : tr("rank %1 (%2)").arg(f.ranks.at(k)).arg(host));
            }
            if (f.ranks.size() > kNamed)
                parts << tr("and %n more", nullptr, int(f.ranks.size()) - kNamed);
            ranks = QStringLiteral(" — ") + parts.join(QStringLiteral(", "));
        }
        const QString state =
            f.state == FindingState::Active ? QString() : QStringLiteral(" (%1)").arg(stateText(f.state));
        auto* item = new QListWidgetItem(
            severityIcon(f.severity),
            QStringLiteral("%1: %2%3%4\n%5").arg(severityText(f.severity), kindText(f.kind), ranks, state, f.summary));
        item->setToolTip(f.recommendation);
        if (f.state != FindingState::Active)
            item->setForeground(m_list->palette().color(QPalette::Disabled, QPalette::Text));
        m_list->addItem(item);
        if (selected && sameFinding(*selected, f))
            reselect = i;
    }
    m_header->setText(findings.isEmpty() ? tr("Findings: none") : tr("Findings (%n)", nullptr, int(findings.size())));
    if (reselect >= 0) {
        m_list->setCurrentRow(reselect);
        showDetails(reselect);
    } else {
        showDetails(-1);
        if (selected)
            Q_EMIT ranksSelected({});
    }
}

int FindingsPanel::currentIndex() const
{
    return m_list->currentRow();
}

void FindingsPanel::selectFinding(int index)
{
    m_list->setCurrentRow(index);
}

void FindingsPanel::showDetails(int index)
{
    if (index < 0 || index >= m_findings.size()) {
        m_details->clear();
        return;
    }
    const Finding& f = m_findings.at(index);
    QString html =
        QStringLiteral("<p><b>%1 — %2</b></p><p>%3</p>")
            .arg(severityText(f.severity).toHtmlEscaped(), kindText(f.kind).toHtmlEscaped(), f.summary.toHtmlEscaped());
    if (f.firstStep >= 0)
        html += QStringLiteral("<p>%1</p>").arg(tr("Steps %1 to %2").arg(f.firstStep).arg(f.lastStep).toHtmlEscaped());
    if (const QString when = f.timeline(); !when.isEmpty())
        html += QStringLiteral("<p>%1</p>").arg(when.toHtmlEscaped());
    if (!f.evidence.isEmpty()) {
        html += QStringLiteral("<p><b>%1</b></p><table cellspacing=\"0\" cellpadding=\"2\">")
                    .arg(tr("Evidence").toHtmlEscaped());
        for (const auto& [name, value] : f.evidence) {
            const QString v = formatNumber(value, 6, 'g', QLocale());
            html += QStringLiteral("<tr><td><code>%1</code></td><td align=\"right\">%2</td></tr>")
                        .arg(name.toHtmlEscaped(), v.toHtmlEscaped());
        }
        html += QStringLiteral("</table>");
    }
    if (!f.recommendation.isEmpty())
        html += QStringLiteral("<p><b>%1</b> %2</p>")
                    .arg(tr("What to do:").toHtmlEscaped(), f.recommendation.toHtmlEscaped());
    m_details->setHtml(html);
}

} // namespace traindeck::gui
