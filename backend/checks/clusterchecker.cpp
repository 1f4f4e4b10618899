#include "checks/clusterchecker.h"

#include "checks/slurmcheck.h"
#include "cluster/savednodememory.h"
#include "ssh/commandrunner.h"
#include "ssh/sshsession.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QEventLoop>

#include <algorithm>

namespace traindeck::checks {

namespace {
// The report's nodes of a Slurm profile: the login node (the head), then slurm.nodes compute nodes
// with the job's resources per node, named "compute 1", ... until the job runs.
cluster::ClusterProfile rowsFor(const cluster::ClusterProfile& profile)
{
    if (!profile.slurm || profile.isLocal || profile.nodes.isEmpty())
        return profile;
    cluster::ClusterProfile rows = profile;
    rows.nodes = {profile.head()};
    rows.nodes.first().role = cluster::NodeRole::Head;
    for (int i = 1; i <= profile.slurm->nodes; ++i) {
        cluster::ClusterNode n;
        n.name = NodeChecker::tr("compute %1").arg(i);
        n.slots = profile.slurm->tasksPerNode;
        n.gpus = profile.slurm->gpusPerNode;
        rows.nodes << n;
    }
    return rows;
}

const QString kSlurmJobId = QStringLiteral("slurm-job");
} // namespace

struct ClusterChecker::Opened {
    CheckResult connect = NodeChecker::resultFor(NodeChecker::connectId());
    std::unique_ptr<ssh::SshSession> session;
    std::unique_ptr<ssh::CommandRunner> runner;
};

ClusterChecker::ClusterChecker(const cluster::ClusterProfile& profile, const CheckOptions& options, QObject* parent)
    : QObject(parent), m_profile(profile), m_rows(rowsFor(profile)), m_options(options),
      m_prompts(new ssh::PromptBroker(this))
{
    qRegisterMetaType<CheckResult>();
    qRegisterMetaType<NodeReport>();
    qRegisterMetaType<CheckReport>();
}

ClusterChecker::~ClusterChecker()
{
    cancel();
    m_prompts->shutdown();
    for (std::thread& t : m_threads)
        t.join();
}

bool ClusterChecker::isSlurm() const
{
    return m_profile.slurm.has_value() && !m_profile.isLocal;
}

cluster::ClusterProfile ClusterChecker::rows() const
{
    QMutexLocker lock(&m_mutex);
    return m_rows;
}

int ClusterChecker::nodeCount() const
{
    QMutexLocker lock(&m_mutex);
    return int(m_rows.nodes.size());
}

QString ClusterChecker::nodeName(int node) const
{
    QMutexLocker lock(&m_mutex);
    const cluster::ClusterNode n = m_rows.nodes.value(node);
    return n.name.isEmpty() ? n.host : n.name;
}

QStringList ClusterChecker::checkIds(int node) const
{
    const cluster::ClusterProfile r = rows();
    QStringList ids = QStringList{NodeChecker::connectId()} + NodeChecker(r, node, m_options).checkIds();
    if (isSlurm() && node == r.headIndex())
        ids << kSlurmJobId;
    return ids;
}

int ClusterChecker::totalSteps() const
{
    int n = 0;
    for (int i = 0, count = nodeCount(); i < count; ++i)
        n += int(checkIds(i).size());
    return n;
}

void ClusterChecker::start()
{
    if (m_running)
        return;
    for (std::thread& t : m_threads)
        t.join();
    m_threads.clear();
    m_cancel.reset();
    m_running = true;
    m_done = 0;
    m_nodesDone = 0;
    m_startMs = QDateTime::currentMSecsSinceEpoch();
    const cluster::ClusterProfile rows = rowsFor(m_profile);
    {
        QMutexLocker lock(&m_mutex);
        m_rows = rows;
        m_report = CheckReport{};
        m_report.profile = m_profile.name;
        const int head = rows.headIndex();
        for (int i = 0; i < rows.nodes.size(); ++i) {
            NodeReport n;
            n.node = rows.nodes.at(i).name;
            n.host = rows.nodes.at(i).host;
            n.isHead = i == head;
            m_report.nodes.append(n);
        }
    }
    m_totalSteps = totalSteps();
    if (rows.nodes.isEmpty()) {
        m_running = false;
        Q_EMIT finished(m_report);
        return;
    }
    if (isSlurm()) {
        // One driver: the login node, the job, then the compute nodes (runSlurm starts helpers).
        m_threads.emplace_back([this] { runSlurm(); });
        return;
    }
    // Every node is taken by some worker, also after a cancel (it is then reported skipped at once),
    // so that finished() always comes.
    const int nodes = int(rows.nodes.size());
    const int workers = qBound(1, m_options.maxParallelNodes, nodes);
    m_nextNode = 0;
    for (int w = 0; w < workers; ++w) {
        m_threads.emplace_back([this, nodes] {
            for (int i = m_nextNode++; i < nodes; i = m_nextNode++)
                runNode(i);
        });
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
    Q_EMIT progress(done, m_totalSteps);
}

// Runs in a worker thread.
ClusterChecker::Opened ClusterChecker::open(const cluster::ClusterNode& n)
{
    Opened o;
    CheckResult& connect = o.connect;
    QElapsedTimer timer;
    timer.start();
    if (m_profile.isLocal) {
        o.runner = std::make_unique<ssh::LocalRunner>();
        connect.status = CheckStatus::Pass;
        connect.summary = NodeChecker::tr("this machine (no SSH)");
    } else {
        const ssh::SshTarget t = nodeTarget(m_profile, n, m_options.targetTemplate, m_options.connectTimeoutMs);
        o.session = std::make_unique<ssh::SshSession>(t);
        o.session->setPrompts(m_prompts->prompts(m_cancel));
        o.session->setCancelToken(m_cancel);
        const Status opened = o.session->open();
        if (opened) {
            connect.status = CheckStatus::Pass;
            connect.summary = NodeChecker::tr("%1@%2:%3 (%4)")
                                  .arg(o.session->resolvedUser(), o.session->resolvedHost(),
                                       QString::number(o.session->resolvedPort()), o.session->authMethodUsed());
            connect.evidence =
                NodeChecker::tr("host key %1 %2").arg(o.session->hostKey().keyType, o.session->hostKey().fingerprint);
            o.runner = std::make_unique<ssh::SshRunner>(*o.session);
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
    return o;
}

NodeReport ClusterChecker::reportOf(int node) const
{
    QMutexLocker lock(&m_mutex);
    return m_report.nodes.at(node);
}

void ClusterChecker::finishNode(int node, const NodeReport& report)
{
    // nodeDone runs in the checker's thread: the report and the final matrix are built there.
    QMetaObject::invokeMethod(
        this, [this, node, report] { nodeDone(node, report); }, Qt::QueuedConnection);
}

void ClusterChecker::skipRest(int node, NodeReport& report, const QStringList& ids, const QString& why)
{
    for (const QString& id : ids) {
        CheckResult r = NodeChecker::resultFor(id);
        r.status = CheckStatus::Skip;
        r.summary = why;
        report.results.append(r);
        stepDone(node, r);
    }
}

// Runs in the node's worker thread.
void ClusterChecker::runNode(int node)
{
    Q_EMIT nodeStarted(node);
    NodeReport report = reportOf(node);
    NodeChecker checker(m_profile, node, m_options);
    Opened o = open(m_profile.nodes.at(node));
    report.results.append(o.connect);
    stepDone(node, o.connect);
    if (o.runner)
        report.results += checker.run(*o.runner, m_cancel, [&](const CheckResult& r) { stepDone(node, r); });
    else
        skipRest(node, report, checker.checkIds(), NodeChecker::tr("not reachable"));
    o.runner.reset();
    o.session.reset();
    finishNode(node, report);
}

// Runs in the Slurm driver thread: the login node over SSH, the check job, the compute nodes inside
// it (on up to maxParallelNodes threads, each with its own SSH session to the login node), then
// scancel, also after a cancel or a failure (CheckJob).
void ClusterChecker::runSlurm()
{
    Q_EMIT nodeStarted(0);
    const cluster::ClusterProfile initial = rows();
    const int login = initial.headIndex();
    NodeReport report = reportOf(login);
    NodeChecker checker(initial, login, m_options);
    Opened o = open(initial.nodes.at(login));
    report.results.append(o.connect);
    stepDone(login, o.connect);

    CheckResult job = NodeChecker::resultFor(kSlurmJobId);
    job.status = CheckStatus::Skip;
    std::unique_ptr<CheckJob> checkJob;
    if (!o.runner) {
        skipRest(login, report, checker.checkIds(), NodeChecker::tr("not reachable"));
        job.summary = NodeChecker::tr("not reachable");
    } else {
        const QList<CheckResult> slurm =
            checker.run(*o.runner, m_cancel, [&](const CheckResult& r) { stepDone(login, r); });
        report.results += slurm;
        const bool usable = std::all_of(slurm.cbegin(), slurm.cend(), [](const CheckResult& r) {
            return r.status == CheckStatus::Pass || r.status == CheckStatus::Warn;
        });
        if (m_cancel.isCancelled()) {
            job.summary = NodeChecker::tr("cancelled");
        } else if (!usable) {
            job.summary = NodeChecker::tr("not submitted: the partition cannot run it (see Slurm)");
        } else {
            QElapsedTimer timer;
            timer.start();
            checkJob = std::make_unique<CheckJob>(*o.runner, m_profile, m_options.slurmJobWaitMs);
            job = checkJob->start(job, m_cancel);
            job.elapsedMs = timer.elapsed();
        }
    }
    stepDone(login, job);

    const bool running = checkJob && checkJob->isRunning();
    if (running) {
        QStringList names;
        {
            QMutexLocker lock(&m_mutex);
            const QStringList jobNodes = checkJob->nodes();
            for (int i = 0, k = 0; i < m_rows.nodes.size(); ++i) {
                if (i != login && k < jobNodes.size()) {
                    m_rows.nodes[i].name = m_rows.nodes[i].host = jobNodes.at(k++);
                    m_report.nodes[i].node = m_report.nodes[i].host = m_rows.nodes.at(i).host;
                }
                names << m_rows.nodes.at(i).name;
            }
        }
        Q_EMIT nodeNamesKnown(names);
    }
    const cluster::ClusterProfile rowsNow = rows();
    const QString jobId = running ? checkJob->jobId() : QString();
    const QString notRun = job.status == CheckStatus::Skip ? job.summary : NodeChecker::tr("the check job did not run");
    std::atomic<int> next{0};
    const int count = int(rowsNow.nodes.size());
    auto work = [&](ssh::CommandRunner* loginRunner) {
        for (int i = next++; i < count; i = next++) {
            if (i != login)
                runJobNode(i, rowsNow, running ? loginRunner : nullptr, jobId, notRun);
        }
    };
    std::vector<std::thread> helpers;
    const int workers = running ? qBound(1, m_options.maxParallelNodes, count - 1) : 1;
    for (int w = 1; w < workers; ++w) {
        helpers.emplace_back([&] {
            // A helper without a session (the login node limits sessions) leaves its share to the others.
            Opened own = open(rowsNow.nodes.at(login));
            if (own.runner)
                work(own.runner.get());
        });
    }
    work(o.runner.get());
    for (std::thread& t : helpers)
        t.join();
    if (checkJob) {
        // The login session answers the checks' cancel token by refusing every command; scancel must
        // still go through after a cancel (Ctrl-C, the GUI's Cancel), or the job holds its nodes until its
        // time limit.
        if (o.session)
            o.session->setCancelToken(ssh::CancelToken{});
        const QString left = checkJob->cancel();
        if (!left.isEmpty()) {
            if (job.status == CheckStatus::Pass)
                job.status = CheckStatus::Warn;
            job.evidence += QLatin1Char('\n') + left;
            job.remedy = NodeChecker::tr("The check job could not be cancelled; it ends at its time limit (%n "
                                         "minute(s)), or cancel it on the login node with scancel %1.",
                                         nullptr, CheckJob::TimeLimitMinutes)
                             .arg(checkJob->jobId());
        }
    }
    report.results.append(job);
    o.runner.reset();
    o.session.reset();
    finishNode(login, report);
}

// A compute node of the check job: "connect" is a first job step there; without loginRunner (the
// job did not run) every check is skipped with whyNot as the reason.
void ClusterChecker::runJobNode(int node, const cluster::ClusterProfile& rows, ssh::CommandRunner* loginRunner,
                                const QString& jobId, const QString& whyNot)
{
    Q_EMIT nodeStarted(node);
    NodeReport report = reportOf(node);
    NodeChecker checker(rows, node, m_options);
    if (!loginRunner) {
        skipRest(node, report, QStringList{NodeChecker::connectId()} + checker.checkIds(), whyNot);
    } else {
        const QString name = rows.nodes.at(node).host;
        SrunRunner srun(*loginRunner, m_profile, jobId, name);
        CheckResult connect = NodeChecker::resultFor(NodeChecker::connectId());
        ssh::ExecOptions options;
        options.timeoutMs = m_options.stepTimeoutMs;
        options.cancel = m_cancel;
        // Slurm's name of the node the step landed on, and the host's own name.
        const ssh::ExecResult e = srun.run(QStringLiteral("echo \"${SLURMD_NODENAME:-?} $(hostname)\""), options);
        connect.elapsedMs = e.elapsedMs;
        connect.evidence = excerpt(outputOf(e));
        if (e.ok()) {
            const QStringList words = QString::fromUtf8(e.stdOut).simplified().split(QLatin1Char(' '));
            connect.status = CheckStatus::Pass;
            connect.summary =
                NodeChecker::tr("job step of job %1 on %2 (host name %3)").arg(jobId, words.value(0), words.value(1));
        } else {
            connect.status = e.status == ssh::ExecResult::Status::Cancelled ? CheckStatus::Skip : CheckStatus::Fail;
            connect.summary = NodeChecker::tr("srun in job %1 on %2: %3").arg(jobId, name, e.describe());
            connect.remedy = NodeChecker::tr("Slurm did not start a job step on this node (its words are in the "
                                             "evidence); `srun --jobid=%1 --overlap -w %2 hostname` on the login node "
                                             "shows the same.")
                                 .arg(jobId, name);
        }
        report.results.append(connect);
        stepDone(node, connect);
        if (connect.status == CheckStatus::Pass)
            report.results += checker.run(srun, m_cancel, [&](const CheckResult& r) { stepDone(node, r); });
        else
            skipRest(node, report, checker.checkIds(), NodeChecker::tr("no job step"));
    }
    finishNode(node, report);
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
    saveNodeMemory(final);
    m_running = false;
    Q_EMIT finished(final);
}

// Kept for launches to compare their memory plan with (cluster/savednodememory.h). A cancelled run, or one
// that measured no node's memory, leaves the last record as it was.
void ClusterChecker::saveNodeMemory(const CheckReport& report) const
{
    if (report.cancelled)
        return;
    cluster::SavedNodeMemory saved;
    saved.profile = m_profile.name;
    saved.measuredAt = QDateTime::currentDateTimeUtc();
    for (const NodeReport& n : report.nodes) {
        const CheckResult* ram = n.find(QStringLiteral("memory"));
        if (!ram || ram->memoryMiB <= 0)
            continue;
        const CheckResult* gpu = n.find(QStringLiteral("gpu"));
        saved.nodes.append({n.host, ram->memoryMiB, gpu ? gpu->gpus : 0, gpu ? gpu->memoryMiB : 0});
    }
    if (saved.nodes.isEmpty())
        return;
    if (const Status written = saved.save(); !written)
        qWarning("%s", qPrintable(written.errorString()));
}

} // namespace traindeck::checks
