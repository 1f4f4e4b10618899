#include "logspanel.h"

#include "runsession.h"

#include "launch/ranklogmodel.h"

#include <QCheckBox>
#include <QColor>
#include <QComboBox>
#include <QFont>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QIdentityProxyModel>
#include <QLabel>
#include <QPushButton>
#include <QScrollBar>
#include <QTableView>
#include <QVBoxLayout>

namespace traindeck::gui {

namespace {

// Error lines red, the failed rank's first error bold: the model says which, the view shows it.
class LogStyleProxy : public QIdentityProxyModel {
  public:
    using QIdentityProxyModel::QIdentityProxyModel;
    QVariant data(const QModelIndex& index, int role) const override
    {
        if (role == Qt::ForegroundRole && index.data(launch::RankLogModel::ErrorRole).toBool())
            return QColor(0xc6, 0x28, 0x28);
        if (role == Qt::FontRole && index.data(launch::RankLogModel::FirstErrorRole).toBool()) {
            QFont f = QFontDatabase::systemFont(QFontDatabase::FixedFont);
            f.setBold(true);
            return f;
        }
        return QIdentityProxyModel::data(index, role);
    }
};

} // namespace

LogsPanel::LogsPanel(RunSession* session, QWidget* parent) : QWidget(parent), m_session(session)
{
    m_model = new launch::RankLogModel(this);
    auto* layout = new QVBoxLayout(this);

    auto* banner = new QHBoxLayout;
    m_firstError = new QLabel(this);
    m_firstError->setWordWrap(true);
    m_firstError->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_firstError->setVisible(false);
    m_showFirst = new QPushButton(tr("&Show in log"), this);
    m_showFirst->setToolTip(tr("Select the failed rank's first error in the log below"));
    m_showFirst->setVisible(false);
    banner->addWidget(m_firstError, 1);
    banner->addWidget(m_showFirst);
    layout->addLayout(banner);

    auto* filters = new QHBoxLayout;
    m_rank = new QComboBox(this);
    m_rank->setToolTip(tr("Only the lines of this rank"));
    m_host = new QComboBox(this);
    m_host->setToolTip(tr("Only the lines of ranks on this host"));
    m_errors = new QCheckBox(tr("&Errors only"), this);
    filters->addWidget(new QLabel(tr("Rank:"), this));
    filters->addWidget(m_rank);
    filters->addWidget(new QLabel(tr("Host:"), this));
    filters->addWidget(m_host);
    filters->addWidget(m_errors);
    filters->addStretch(1);
    layout->addLayout(filters);

    auto* proxy = new LogStyleProxy(this);
    proxy->setSourceModel(m_model);
    m_view = new QTableView(this);
    m_view->setModel(proxy);
    m_view->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setWordWrap(false);
    m_view->setShowGrid(false);
    m_view->verticalHeader()->setVisible(false);
    m_view->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_view->horizontalHeader()->setSectionResizeMode(launch::RankLogModel::SourceColumn, QHeaderView::ResizeToContents);
    m_view->horizontalHeader()->setStretchLastSection(true);
    layout->addWidget(m_view, 1);

    reset();
    connect(m_session, &RunSession::reset, this, &LogsPanel::reset);
    connect(m_session, &RunSession::changed, this, &LogsPanel::updateHosts);
    connect(m_session, &RunSession::logLines, this, [this](const QStringList& lines) {
        // Follow the end of the log while the view is at its end.
        QScrollBar* bar = m_view->verticalScrollBar();
        const bool atEnd = bar->value() >= bar->maximum();
        m_model->appendLines(lines);
        if (atEnd)
            m_view->scrollToBottom();
    });
    connect(m_session, &RunSession::logRead, this, [this](const std::shared_ptr<const launch::RankLog>& log) {
        m_model->setLog(*log);
        updateHosts();
    });
    connect(m_session, &RunSession::jobEnded, this, [this](launch::JobState state, const QString&) {
        updateHosts();
        m_model->finish();
        if (state != launch::JobState::Finished)
            m_model->setFailure(m_session->failureInfo());
        if (m_model->firstErrorRow() >= 0)
            showFirstError();
    });
    connect(m_model, &launch::RankLogModel::firstErrorChanged, this, &LogsPanel::updateFirstError);
    connect(m_showFirst, &QPushButton::clicked, this, &LogsPanel::showFirstError);
    connect(m_rank, &QComboBox::currentIndexChanged, this, &LogsPanel::applyFilter);
    connect(m_host, &QComboBox::currentIndexChanged, this, &LogsPanel::applyFilter);
    connect(m_errors, &QCheckBox::toggled, this, &LogsPanel::applyFilter);
}

void LogsPanel::reset()
{
    m_hosts.clear();
    m_model->clear();
    const QSignalBlocker b1(m_rank), b2(m_host), b3(m_errors);
    m_rank->clear();
    m_rank->addItem(tr("All ranks"), -1);
    m_host->clear();
    m_host->addItem(tr("All hosts"), QString());
    m_errors->setChecked(false);
    m_model->setFilter(launch::LogFilter());
    updateHosts();
}

void LogsPanel::updateHosts()
{
    const auto hello = m_session->store().hello();
    if (!hello)
        return;
    QStringList hosts;
    for (const metrics::RankInfo& r : hello->ranks) {
        while (r.rank >= 0 && hosts.size() <= r.rank)
            hosts.append(QString());
        if (r.rank >= 0)
            hosts[r.rank] = r.host;
    }
    if (hosts == m_hosts)
        return;
    m_hosts = hosts;
    m_model->setHostsByRank(hosts);
    const QSignalBlocker b1(m_rank), b2(m_host);
    const int rank = m_rank->currentData().toInt();
    const QString host = m_host->currentData().toString();
    while (m_rank->count() > 1)
        m_rank->removeItem(1);
    while (m_host->count() > 1)
        m_host->removeItem(1);
    QStringList distinct;
    for (int r = 0; r < hosts.size(); ++r) {
        m_rank->addItem(
            hosts[r].isEmpty() ? tr("rank %1").arg(r) : QStringLiteral("%1:%2").arg(hosts[r], QString::number(r)), r);
        if (!hosts[r].isEmpty() && !distinct.contains(hosts[r]))
            distinct.append(hosts[r]);
    }
    for (const QString& h : std::as_const(distinct))
        m_host->addItem(h, h);
    m_rank->setCurrentIndex(std::max(0, m_rank->findData(rank)));
    m_host->setCurrentIndex(std::max(0, m_host->findData(host)));
}

void LogsPanel::applyFilter()
{
    launch::LogFilter f;
    f.rank = m_rank->currentData().toInt();
    f.host = m_host->currentData().toString();
    f.errorsOnly = m_errors->isChecked();
    m_model->setFilter(f);
}

void LogsPanel::updateFirstError()
{
    const launch::RankLog& log = m_model->log();
    const qsizetype i = log.firstErrorGroup();
    if (i < 0 || !log.failure()) {
        m_firstError->setVisible(false);
        m_showFirst->setVisible(false);
        return;
    }
    const launch::LogGroup& g = log.groups()[i];
    m_firstError->setText(
        tr("<b>First error</b> (%1)<br><tt>%2: %3</tt>")
            .arg(log.failure()->summary().toHtmlEscaped(), log.label(g).toHtmlEscaped(), g.text.toHtmlEscaped()));
    m_firstError->setVisible(true);
    m_showFirst->setVisible(true);
}

void LogsPanel::showFirstError()
{
    if (m_model->log().firstErrorGroup() < 0)
        return;
    if (m_model->firstErrorRow() < 0) { // hidden by a filter
        m_rank->setCurrentIndex(0);
        m_host->setCurrentIndex(0);
        m_errors->setChecked(false);
    }
    const int row = m_model->firstErrorRow();
    if (row < 0)
        return;
    const QModelIndex index = m_view->model()->index(row, launch::RankLogModel::TextColumn);
    m_view->setCurrentIndex(index);
    m_view->scrollTo(index, QAbstractItemView::PositionAtCenter);
}

} // namespace traindeck::gui
