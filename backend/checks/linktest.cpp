#include "checks/linktest.h"

#include "checks/nodecheck.h"
#include "ssh/commandrunner.h"
#include "ssh/sshsession.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>

#include <utility>

#include <algorithm>
#include <limits>

using traindeck::ssh::ExecResult;

namespace traindeck::checks {

namespace {
QString lastLines(const QByteArray& out, int lines = 12)
{
    QStringList l = QString::fromUtf8(out).trimmed().split(QLatin1Char('\n'));
    if (l.size() > lines)
        l = l.mid(l.size() - lines);
    return l.join(QLatin1Char('\n'));
}

} // namespace

QString LinkTest::formatBandwidth(double mbps)
{
    return mbps >= 1000 ? tr("%1 Gbit/s").arg(mbps / 1000, 0, 'f', 2) : tr("%1 Mbit/s").arg(mbps, 0, 'f', 1);
}

const LinkMeasurement* LinkReport::find(int a, int b) const
{
    for (const LinkMeasurement& m : pairs) {
        if ((m.a == a && m.b == b) || (m.a == b && m.b == a))
            return &m;
    }
    return nullptr;
}

QJsonObject LinkReport::toJson() const
{
    QJsonArray p;
    for (const LinkMeasurement& m : pairs) {
        p.append(QJsonObject{{QStringLiteral("a"), nodes.value(m.a)},
                             {QStringLiteral("b"), nodes.value(m.b)},
                             {QStringLiteral("host_a"), m.hostA},
                             {QStringLiteral("host_b"), m.hostB},
                             {QStringLiteral("latency_us"), m.latencyUs},
                             {QStringLiteral("bandwidth_mbps"), m.bandwidthMbps}});
    }
    auto outlier = [&](const std::optional<LinkOutlier>& o) -> QJsonValue {
        if (!o)
            return QJsonValue::Null;
        return QJsonObject{{QStringLiteral("node"), nodes.value(o->node)}, {QStringLiteral("reason"), o->reason}};
    };
    QJsonObject o{{QStringLiteral("profile"), profile},
                  {QStringLiteral("ok"), true},
                  {QStringLiteral("nodes"), QJsonArray::fromStringList(nodes)},
                  {QStringLiteral("bytes"), bytes},
                  {QStringLiteral("pairs"), p},
                  {QStringLiteral("slow_bandwidth"), outlier(bandwidthOutlier)},
                  {QStringLiteral("slow_latency"), outlier(latencyOutlier)},
                  {QStringLiteral("ms"), elapsedMs}};
    return o;
}

QJsonObject LinkTest::toJson(const Result<LinkReport>& result, const QString& profile)
{
    if (result)
        return result->toJson();
    Diagnostic why = result.diagnostics().isEmpty() ? Diagnostic() : result.diagnostics().first();
    const QString evidence = std::exchange(why.detail, QString());
    return QJsonObject{{QStringLiteral("profile"), profile},
                       {QStringLiteral("ok"), false},
                       {QStringLiteral("error"), why.toString()},
                       {QStringLiteral("evidence"), evidence}};
}

QString LinkTest::command(const cluster::ClusterProfile& profile, const LinkTestOptions& options)
{
    QStringList hosts;
    for (const cluster::ClusterNode& n : profile.nodes)
        hosts << n.host + QStringLiteral(":1");
    const QString launcher = profile.launcher.isEmpty() ? QStringLiteral("mpirun") : profile.launcher;
    const QString cmd =
        QStringLiteral(
            "if [ \"$(id -u)\" = 0 ]; then OMPI_ALLOW_RUN_AS_ROOT=1; OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; "
            "export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM; fi; "
            "exec %1 -np %2 --host %3 --map-by node --bind-to none %4 bench-links --bytes %5 --iters %6 </dev/null")
            .arg(ssh::shellPath(launcher), QString::number(hosts.size()), shellQuote(hosts.join(QLatin1Char(','))),
                 ssh::shellPath(
                     profile.extra.value(QStringLiteral("trainer")).toString(QStringLiteral("traindeck-trainer"))),
                 QString::number(options.bytes), QString::number(options.iterations));
    return NodeChecker::wrapCommand(profile, cmd);
}

Result<LinkReport> LinkTest::parse(const cluster::ClusterProfile& profile, const QByteArray& stdOut)
{
    const auto failed = [&](const QString& message) {
        return Result<LinkReport>::failure(Diagnostic::error(profile.name, message));
    };
    LinkReport r;
    r.profile = profile.name;
    for (const cluster::ClusterNode& n : profile.nodes)
        r.nodes << n.name;
    QJsonObject j;
    for (const QByteArray& line : stdOut.split('\n')) {
        const QJsonDocument d = QJsonDocument::fromJson(line.trimmed());
        if (d.isObject() && d.object().contains(QStringLiteral("pairs")))
            j = d.object();
    }
    if (j.isEmpty())
        return failed(tr("the link test printed no result"));
    if (j.value(QStringLiteral("ranks")).toInt() != profile.nodes.size())
        return failed(tr("the link test ran %1 rank(s) for %2 node(s)")
                          .arg(j.value(QStringLiteral("ranks")).toInt())
                          .arg(profile.nodes.size()));
    r.bytes = j.value(QStringLiteral("bytes")).toInteger(-1);
    if (r.bytes <= 0)
        return failed(tr("the link test's result has no message size: %1")
                          .arg(QString::fromUtf8(QJsonDocument(j).toJson(QJsonDocument::Compact))));
    for (const QJsonValue& v : j.value(QStringLiteral("pairs")).toArray()) {
        const QJsonObject o = v.toObject();
        LinkMeasurement m;
        m.a = o.value(QStringLiteral("a")).toInt(-1);
        m.b = o.value(QStringLiteral("b")).toInt(-1);
        m.hostA = o.value(QStringLiteral("host_a")).toString();
        m.hostB = o.value(QStringLiteral("host_b")).toString();
        m.latencyUs = o.value(QStringLiteral("latency_us")).toDouble(-1);
        m.bandwidthMbps = o.value(QStringLiteral("bandwidth_mbps")).toDouble(-1);
        if (m.a < 0 || m.b <= m.a || m.b >= profile.nodes.size() || m.latencyUs < 0 || m.bandwidthMbps <= 0)
            return failed(tr("the link test's result is malformed: %1")
                              .arg(QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Compact))));
        r.pairs.append(m);
    }
    findOutliers(r);
    return r;
}

void LinkTest::findOutliers(LinkReport& r)
{
    r.bandwidthOutlier.reset();
    r.latencyOutlier.reset();
    const int n = int(r.nodes.size());
    // With two nodes there is one link: nothing to compare it with.
    if (n < 3 || r.pairs.isEmpty())
        return;
    for (int k = 0; k < n; ++k) {
        double ownMaxBw = 0, ownMinLat = std::numeric_limits<double>::max();
        double otherMinBw = std::numeric_limits<double>::max(), otherMaxLat = 0;
        int own = 0, other = 0;
        for (const LinkMeasurement& m : r.pairs) {
            if (m.a == k || m.b == k) {
                ownMaxBw = std::max(ownMaxBw, m.bandwidthMbps);
                ownMinLat = std::min(ownMinLat, m.latencyUs);
                ++own;
            } else {
                otherMinBw = std::min(otherMinBw, m.bandwidthMbps);
                otherMaxLat = std::max(otherMaxLat, m.latencyUs);
                ++other;
            }
        }
        if (own == 0 || other == 0)
            continue;
        if (!r.bandwidthOutlier && ownMaxBw < 0.5 * otherMinBw)
            r.bandwidthOutlier =
                LinkOutlier{k, tr("every link of %1 is at most %2; the links between the other nodes reach at least %3")
                                   .arg(r.nodes.at(k), formatBandwidth(ownMaxBw), formatBandwidth(otherMinBw))};
        if (!r.latencyOutlier && ownMinLat > 2 * otherMaxLat && ownMinLat > otherMaxLat + 100)
            r.latencyOutlier = LinkOutlier{
                k, tr("every link of %1 has at least %2 µs latency; the others at most %3 µs")
                       .arg(r.nodes.at(k), QString::number(ownMinLat, 'f', 0), QString::number(otherMaxLat, 'f', 0))};
    }
}

Result<LinkReport> LinkTest::run(const cluster::ClusterProfile& profile, ssh::CommandRunner& head,
                                 const LinkTestOptions& options, const ssh::CancelToken& cancel)
{
    QElapsedTimer timer;
    timer.start();
    if (profile.nodes.size() < 2)
        return Result<LinkReport>::failure(
            Diagnostic::error(profile.name, tr("the link test needs at least two nodes")));
    ssh::ExecOptions o;
    o.timeoutMs = options.timeoutMs;
    o.cancel = cancel;
    const ExecResult e = head.run(command(profile, options), o);
    Result<LinkReport> r = parse(profile, e.stdOut);
    if (!e.ok() || !r) {
        Diagnostic why =
            e.ok() ? r.diagnostics().first()
                   : Diagnostic::error(profile.name,
                                       tr("mpirun on %1 could not run the link test (%2): check head → worker SSH "
                                          "(traindeck-cli install-key --head-to-workers), that Open MPI and "
                                          "traindeck-trainer are on every node, and btl_tcp_if_include")
                                           .arg(head.name(), e.describe()));
        why.detail = lastLines(e.stdErr.isEmpty() ? e.stdOut : e.stdErr);
        return Result<LinkReport>::failure(why);
    }
    LinkReport report = r.value();
    report.elapsedMs = timer.elapsed();
    if (report.pairs.isEmpty() || profile.isLocal)
        return report;
    const Status saved = toSaved(report).save();
    if (saved)
        return report;
    return Result<LinkReport>(
        report,
        {Diagnostic::warning(report.profile,
                             tr("not kept for the diagnosis of this profile's runs: %1").arg(saved.errorString()))});
}

cluster::SavedLinkTest LinkTest::toSaved(const LinkReport& report)
{
    cluster::SavedLinkTest t;
    t.profile = report.profile;
    t.measuredAt = QDateTime::currentDateTimeUtc();
    for (const LinkMeasurement& m : report.pairs)
        t.links.append({m.hostA, m.hostB, m.bandwidthMbps, m.latencyUs});
    return t;
}

Result<LinkReport> LinkTest::run(const cluster::ClusterProfile& profile, const LinkTestOptions& options,
                                 const ssh::SshPrompts& prompts, const ssh::CancelToken& cancel)
{
    const int head = profile.headIndex();
    if (profile.isLocal || head < 0 || profile.nodes.size() < 2)
        return Result<LinkReport>::failure(Diagnostic::error(
            profile.name, tr("the link test needs a cluster profile with a head and at least one more node")));
    ssh::SshSession session(nodeTarget(profile, profile.nodes.at(head), options.targetTemplate, 10000));
    session.setPrompts(prompts);
    session.setCancelToken(cancel);
    const Status opened = session.open();
    if (!opened)
        return Result<LinkReport>::failure(Diagnostic::error(
            QString(), tr("%1: %2").arg(profile.nodes.at(head).name, opened.firstError().toString())));
    ssh::SshRunner runner(session);
    return run(profile, runner, options, cancel);
}

} // namespace traindeck::checks
