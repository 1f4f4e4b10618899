#include "checks/clusterchecker.h"

#include "ssh/commandrunner.h"
#include "ssh/sshsession.h"

#include <QDateTime>
#include <QEventLoop>
#include <QThread>

namespace traindeck::checks {

ClusterChecker::ClusterChecker(const cluster::ClusterProfile& profile, const CheckOptions& options, QObject* parent)
    : QObject(parent), m_profile(profile), m_options(options), m_prompts(new ssh::PromptBroker(this))
{
    qRegisterMetaType<CheckResult>();
    qRegisterMetaType<NodeReport>();
    qRegisterMetaType<CheckReport>();
}

ClusterChecker::~ClusterChecker()
{
    cancel();
    m_prompts->shutdown();
    for (QThread* t : m_threads) {
        t->wait();
        delete t;
    }
}

QStringList ClusterChecker::checkIds(int node) const
{
    return QStringList{NodeChecker::connectId()} + NodeChecker(m_profile, node, m_options).checkIds();
}

int ClusterChecker::totalSteps() const
{
    int n = 0;
    for (int i = 0; i < m_profile.nodes.size(); ++i)
        n += int(checkIds(i).size());
    return n;
}

void ClusterChecker::start()
{
    if (m_running)
        return;
    for (QThread* t : m_threads) {
        t->wait();
        delete t;
    }
    m_threads.clear();
    m_cancel.reset();
    m_running = true;
    m_done = 0;
    m_nodesDone = 0;
    m_startMs = QDateTime::currentMSecsSinceEpoch();
    m_report = CheckReport{};
    m_report.profile = m_profile.name;
    const int head = m_profile.headIndex();
    for (int i = 0; i < m_profile.nodes.size(); ++i) {
        NodeReport n;
        n.node = m_profile.nodes.at(i).name;
        n.host = m_profile.nodes.at(i).host;
        n.isHead = i == head;
        m_report.nodes.append(n);
    }
    if (m_profile.nodes.isEmpty()) {
        m_running = false;
        Q_EMIT finished(m_report);
        return;
    }
    // Every node is taken by some worker, also after a cancel (it is then reported skipped at once),
    // so that finished() always comes.
    const int nodes = int(m_profile.nodes.size());
    const int workers = qBound(1, m_options.maxParallelNodes, nodes);
    m_nextNode = 0;
    for (int w = 0; w < workers; ++w) {
        QThread* t = QThread::create([this, nodes] {
            for (int i = m_nextNode++; i < nodes; i = m_nextNode++)
                runNode(i);
        });
        t->setObjectName(QStringLiteral("check-worker-%1").arg(w));
        m_threads.push_back(t);
        t->start();
    }
}

void ClusterChecker::cancel()
{
    m_cancel.cancel();
}

CheckReport ClusterChecker::report() const
{
    QMutexLocker lock(&m_mutex);
    return m_report;
}

CheckReport ClusterChecker::runAndWait()
{
    QEventLoop loop;
    connect(this, &ClusterChecker::finished, &loop, &QEventLoop::quit);
    start();
    if (m_running)
        loop.exec();
    return report();
}

void ClusterChecker::stepDone(int node, const CheckResult& result)
{
    int done;
    {
        QMutexLocker lock(&m_mutex);
        done = ++m_done;
    }
    Q_EMIT checkFinished(node, result);
    Q_EMIT progress(done, totalSteps());
}

// Runs in the node's worker thread.
void ClusterChecker::runNode(int node)
{
    Q_EMIT nodeStarted(node);
    const cluster::ClusterNode& n = m_profile.nodes.at(node);
    NodeReport report;
    {
        QMutexLocker lock(&m_mutex);
        report = m_report.nodes.at(node);
    }
    NodeChecker checker(m_profile, node, m_options);
    auto onStep = [&](const CheckResult& r) { stepDone(node, r); };

    CheckResult connect = NodeChecker::resultFor(NodeChecker::connectId());
    std::unique_ptr<ssh::CommandRunner> runner;
    std::unique_ptr<ssh::SshSession> session;
    QElapsedTimer timer;
    timer.start();
    if (m_profile.isLocal) {
        runner = std::make_unique<ssh::LocalRunner>();
        connect.status = CheckStatus::Pass;
        connect.summary = NodeChecker::tr("this machine (no SSH)");
    } else {
        const ssh::SshTarget t = nodeTarget(m_profile, n, m_options.targetTemplate, m_options.connectTimeoutMs);
        session = std::make_unique<ssh::SshSession>(t);
        session->setPrompts(m_prompts->prompts(m_cancel));
        session->setCancelToken(m_cancel);
        const Status opened = session->open();
        if (opened) {
            connect.status = CheckStatus::Pass;
            connect.summary = NodeChecker::tr("%1@%2:%3 (%4)")
                                  .arg(session->resolvedUser(), session->resolvedHost(),
                                       QString::number(session->resolvedPort()), session->authMethodUsed());
            connect.evidence =
                NodeChecker::tr("host key %1 %2").arg(session->hostKey().keyType, session->hostKey().fingerprint);
            runner = std::make_unique<ssh::SshRunner>(*session);
        } else {
            const Diagnostic e = opened.firstError();
            connect.status = e.code == ssh::codes::Cancelled ? CheckStatus::Skip : CheckStatus::Fail;
            connect.summary = e.message;
            connect.evidence = e.message;
            connect.remedy = e.detail;
            if (e.code == ssh::codes::HostKeyUnknown)
                connect.remedy +=
                    QLatin1Char('\n') +
                    NodeChecker::tr("To accept it: answer the question in TrainDeck, or run `traindeck-cli "
                                    "check --accept-new-host-keys` after verifying the fingerprint.");
        }
    }
    connect.elapsedMs = timer.elapsed();
    report.results.append(connect);
    onStep(connect);

    if (runner) {
        report.results += checker.run(*runner, m_cancel, onStep);
    } else {
        for (const QString& id : checker.checkIds()) {
            CheckResult r = NodeChecker::resultFor(id);
            r.status = CheckStatus::Skip;
            r.summary = NodeChecker::tr("not reachable");
            report.results.append(r);
            onStep(r);
        }
    }
    session.reset();
    QMetaObject::invokeMethod(
        this, [this, node, report] { nodeDone(node, report); }, Qt::QueuedConnection);
}

void ClusterChecker::nodeDone(int node, const NodeReport& report)
{
    bool all;
    {
        QMutexLocker lock(&m_mutex);
        m_report.nodes[node] = report;
        all = ++m_nodesDone == m_report.nodes.size();
    }
    Q_EMIT nodeFinished(node, report);
    if (!all)
        return;
    CheckReport final;
    {
        QMutexLocker lock(&m_mutex);
        buildMatrix(m_report);
        m_report.cancelled = m_cancel.isCancelled();
        m_report.elapsedMs = QDateTime::currentMSecsSinceEpoch() - m_startMs;
        final = m_report;
    }
    m_running = false;
    Q_EMIT finished(final);
}

} // namespace traindeck::checks
