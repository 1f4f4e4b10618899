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

// bench-links' names of LinkVerdict::Kind, in its order (trainer/dist/link_search.cpp, verdictKindName).
const QStringList kVerdictKinds{QStringLiteral("slow_node"), QStringLiteral("slow_link"), QStringLiteral("suspect")};

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

const LinkVerdict* LinkReport::verdictFor(int node) const
{
    for (const LinkVerdict& v : verdicts) {
        if (v.node == node && v.kind != LinkVerdict::Kind::SlowLink)
            return &v;
    }
    return nullptr;
}

QList<NodeLinkSummary> LinkReport::rankedNodes() const
{
    QList<NodeLinkSummary> out;
    for (int k = 0; k < nodes.size(); ++k) {
        NodeLinkSummary s;
        s.node = k;
        s.verdict = verdictFor(k);
        for (const LinkMeasurement& m : pairs) {
            if (m.a != k && m.b != k)
                continue;
            s.bestMbps = s.pairs == 0 ? m.bandwidthMbps : std::max(s.bestMbps, m.bandwidthMbps);
            s.worstMbps = s.pairs == 0 ? m.bandwidthMbps : std::min(s.worstMbps, m.bandwidthMbps);
            s.latencyUs = s.pairs == 0 ? m.latencyUs : std::min(s.latencyUs, m.latencyUs);
            ++s.pairs;
        }
        out.append(s);
    }
    // Named nodes first, then by the fastest pair (unmeasured nodes last), then by the slowest pair.
    std::stable_sort(out.begin(), out.end(), [](const NodeLinkSummary& x, const NodeLinkSummary& y) {
        if ((x.verdict != nullptr) != (y.verdict != nullptr))
            return x.verdict != nullptr;
        if ((x.pairs > 0) != (y.pairs > 0))
            return x.pairs > 0;
        if (x.bestMbps != y.bestMbps)
            return x.bestMbps < y.bestMbps;
        return x.worstMbps < y.worstMbps;
    });
    return out;
}

QString LinkReport::verdictLabel(const LinkVerdict& v) const
{
    switch (v.kind) {
    case LinkVerdict::Kind::SlowNode: return v.byLatency ? tr("high-latency node") : tr("slow node");
    case LinkVerdict::Kind::SlowLink: return tr("slow link %1 – %2").arg(nodes.value(v.node), nodes.value(v.peer));
    case LinkVerdict::Kind::Suspect: break;
    }
    return tr("suspect");
}

QJsonObject LinkReport::toJson() const
{
    QJsonArray p;
    for (const LinkMeasurement& m : pairs) {
        p.append(QJsonObject{{QStringLiteral("a"), nodes.value(m.a)},
                             {QStringLiteral("b"), nodes.value(m.b)},
                             {QStringLiteral("round"), m.round},
                             {QStringLiteral("host_a"), m.hostA},
                             {QStringLiteral("host_b"), m.hostB},
                             {QStringLiteral("latency_us"), m.latencyUs},
                             {QStringLiteral("bandwidth_mbps"), m.bandwidthMbps},
                             {QStringLiteral("slow"), m.slow}});
    }
    QJsonArray r;
    for (const LinkRound& round : rounds)
        r.append(QJsonObject{{QStringLiteral("round"), round.round},
                             {QStringLiteral("pairs"), round.pairs},
                             {QStringLiteral("seconds"), round.seconds}});
    QJsonArray v;
    QJsonValue slowBandwidth = QJsonValue::Null, slowLatency = QJsonValue::Null;
    auto names = [&](const QList<int>& list) {
        QJsonArray a;
        for (int k : list)
            a.append(nodes.value(k));
        return a;
    };
    for (const LinkVerdict& verdict : verdicts) {
        QJsonObject o{
            {QStringLiteral("kind"), kVerdictKinds[int(verdict.kind)]},
            {QStringLiteral("node"), nodes.value(verdict.node)},
            {QStringLiteral("by"), verdict.byLatency ? QStringLiteral("latency") : QStringLiteral("bandwidth")},
            {QStringLiteral("slow_with"), names(verdict.slowWith)},
            {QStringLiteral("fast_with"), names(verdict.fastWith)},
            {QStringLiteral("reason"), verdict.reason}};
        if (verdict.peer >= 0)
            o.insert(QStringLiteral("peer"), nodes.value(verdict.peer));
        v.append(o);
        // The first slow node by each measure, as the earlier one-pair-at-a-time test reported it.
        const QJsonObject named{{QStringLiteral("node"), nodes.value(verdict.node)},
                                {QStringLiteral("reason"), verdict.reason}};
        if (verdict.kind == LinkVerdict::Kind::SlowNode && !verdict.byLatency && slowBandwidth.isNull())
            slowBandwidth = named;
        if (verdict.kind == LinkVerdict::Kind::SlowNode && verdict.byLatency && slowLatency.isNull())
            slowLatency = named;
    }
    QJsonArray ranked;
    for (const NodeLinkSummary& s : rankedNodes())
        ranked.append(QJsonObject{{QStringLiteral("node"), nodes.value(s.node)},
                                  {QStringLiteral("pairs"), s.pairs},
                                  {QStringLiteral("best_mbps"), s.bestMbps},
                                  {QStringLiteral("worst_mbps"), s.worstMbps},
                                  {QStringLiteral("latency_us"), s.latencyUs},
                                  {QStringLiteral("verdict"), s.verdict ? verdictLabel(*s.verdict) : QString()}});
    return QJsonObject{{QStringLiteral("profile"), profile},
                       {QStringLiteral("ok"), true},
                       {QStringLiteral("mode"), allPairs ? QStringLiteral("all-pairs") : QStringLiteral("nodes")},
                       {QStringLiteral("seed"), seed},
                       {QStringLiteral("nodes"), QJsonArray::fromStringList(nodes)},
                       {QStringLiteral("bytes"), bytes},
                       {QStringLiteral("rounds"), r},
                       {QStringLiteral("median_bandwidth_mbps"), medianBandwidthMbps},
                       {QStringLiteral("median_latency_us"), medianLatencyUs},
                       {QStringLiteral("pairs"), p},
                       {QStringLiteral("verdicts"), v},
                       {QStringLiteral("ranked"), ranked},
                       {QStringLiteral("slow_bandwidth"), slowBandwidth},
                       {QStringLiteral("slow_latency"), slowLatency},
                       {QStringLiteral("ms"), elapsedMs}};
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
        QStringLiteral("if [ \"$(id -u)\" = 0 ]; then OMPI_ALLOW_RUN_AS_ROOT=1; OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; "
                       "export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM; fi; "
                       "exec %1 -np %2 --host %3 --map-by node --bind-to none %4 bench-links --bytes %5 --iters %6 "
                       "--max-rounds %7%8 </dev/null")
            .arg(ssh::shellPath(launcher), QString::number(hosts.size()), shellQuote(hosts.join(QLatin1Char(','))),
                 ssh::shellPath(
                     profile.extra.value(QStringLiteral("trainer")).toString(QStringLiteral("traindeck-trainer"))),
                 QString::number(options.bytes), QString::number(options.iterations),
                 QString::number(options.maxRounds),
                 (options.allPairs ? QStringLiteral(" --all-pairs") : QString()) +
                     (options.seed ? QStringLiteral(" --seed %1").arg(*options.seed) : QString()));
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
    const int n = int(profile.nodes.size());
    for (const QJsonValue& v : j.value(QStringLiteral("pairs")).toArray()) {
        const QJsonObject o = v.toObject();
        LinkMeasurement m;
        m.a = o.value(QStringLiteral("a")).toInt(-1);
        m.b = o.value(QStringLiteral("b")).toInt(-1);
        m.round = o.value(QStringLiteral("round")).toInt(1);
        m.hostA = o.value(QStringLiteral("host_a")).toString();
        m.hostB = o.value(QStringLiteral("host_b")).toString();
        m.latencyUs = o.value(QStringLiteral("latency_us")).toDouble(-1);
        m.bandwidthMbps = o.value(QStringLiteral("bandwidth_mbps")).toDouble(-1);
        m.slow = o.value(QStringLiteral("slow")).toBool();
        if (m.a < 0 || m.b < 0 || m.a == m.b || m.a >= n || m.b >= n || m.latencyUs < 0 || m.bandwidthMbps <= 0)
            return failed(tr("the link test's result is malformed: %1")
                              .arg(QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Compact))));
        r.pairs.append(m);
    }
    r.allPairs = j.value(QStringLiteral("mode")).toString() == QStringLiteral("all-pairs");
    r.seed = j.value(QStringLiteral("seed")).toInteger();
    r.medianBandwidthMbps = j.value(QStringLiteral("median_bandwidth_mbps")).toDouble();
    r.medianLatencyUs = j.value(QStringLiteral("median_latency_us")).toDouble();
    r.slowBelowFraction = j.value(QStringLiteral("slow_below_fraction")).toDouble(0.25);
    for (const QJsonValue& v : j.value(QStringLiteral("rounds")).toArray()) {
        const QJsonObject o = v.toObject();
        r.rounds.append({o.value(QStringLiteral("round")).toInt(), o.value(QStringLiteral("pairs")).toInt(),
                         o.value(QStringLiteral("seconds")).toDouble()});
    }
    for (const QJsonValue& v : j.value(QStringLiteral("verdicts")).toArray()) {
        const QJsonObject o = v.toObject();
        const int kind = int(kVerdictKinds.indexOf(o.value(QStringLiteral("kind")).toString()));
        LinkVerdict verdict;
        verdict.node = o.value(QStringLiteral("node")).toInt(-1);
        verdict.peer = o.value(QStringLiteral("peer")).toInt(-1);
        verdict.byLatency = o.value(QStringLiteral("by")).toString() == QStringLiteral("latency");
        auto indexes = [&](const QString& key, bool& ok) {
            QList<int> out;
            for (const QJsonValue& x : o.value(key).toArray()) {
                const int k = x.toInt(-1);
                ok = ok && k >= 0 && k < n;
                out.append(k);
            }
            return out;
        };
        bool ok = kind >= 0 && verdict.node >= 0 && verdict.node < n && verdict.peer < n &&
                  (kind != int(LinkVerdict::Kind::SlowLink) || verdict.peer >= 0);
        verdict.slowWith = indexes(QStringLiteral("slow_with"), ok);
        verdict.fastWith = indexes(QStringLiteral("fast_with"), ok);
        if (!ok)
            return failed(tr("the link test's verdict is malformed: %1")
                              .arg(QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Compact))));
        verdict.kind = LinkVerdict::Kind(kind);
        r.verdicts.append(verdict);
    }
    for (LinkVerdict& verdict : r.verdicts)
        verdict.reason = reason(r, verdict);
    return r;
}

QString LinkTest::reason(const LinkReport& r, const LinkVerdict& v)
{
    const QString node = r.nodes.value(v.node);
    // "tb-node3 (94.1 Mbit/s), tb-node12 (95.0 Mbit/s) and 13 more"
    auto partners = [&](int self, const QList<int>& list) {
        QStringList shown;
        for (int p : list.mid(0, 3)) {
            const LinkMeasurement* m = r.find(self, p);
            const QString value = !m            ? QString()
                                  : v.byLatency ? tr("%1 µs").arg(m->latencyUs, 0, 'f', 0)
                                                : formatBandwidth(m->bandwidthMbps);
            shown << tr("%1 (%2)").arg(r.nodes.value(p), value);
        }
        QString text = shown.join(QStringLiteral(", "));
        if (list.size() > 3)
            text = tr("%1 and %n more", nullptr, int(list.size() - 3)).arg(text);
        return text;
    };
    const QString reference = v.byLatency ? tr("the median latency is %1 µs").arg(r.medianLatencyUs, 0, 'f', 0)
                                          : tr("the median is %1").arg(formatBandwidth(r.medianBandwidthMbps));
    switch (v.kind) {
    case LinkVerdict::Kind::SlowNode:
        return tr("%1 was slow with every partner: %2; %3").arg(node, partners(v.node, v.slowWith), reference);
    case LinkVerdict::Kind::SlowLink: {
        const LinkMeasurement* m = r.find(v.node, v.peer);
        const QString measured = !m            ? QString()
                                 : v.byLatency ? tr("%1 µs").arg(m->latencyUs, 0, 'f', 0)
                                               : formatBandwidth(m->bandwidthMbps);
        QStringList fast;
        for (int p : v.fastWith.mid(0, 4))
            fast << r.nodes.value(p);
        return tr("the link between %1 and %2 measured %3 (%4), while both were fast with other nodes (%5)")
            .arg(node, r.nodes.value(v.peer), measured, reference, fast.join(QStringLiteral(", ")));
    }
    case LinkVerdict::Kind::Suspect: break;
    }
    if (v.slowWith.isEmpty())
        return tr("%1 could not be measured: no healthy partner was left for it within the rounds").arg(node);
    return tr("%1 was slow with %2 only: the rounds ended before a second healthy partner could tell a slow node "
              "from a slow link (%3)")
        .arg(node, partners(v.node, v.slowWith), reference);
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
    // The tournament's N-1 rounds: at 64 testbed nodes a round of 32 pairs side by side took about 2 s,
    // and the fixed 180 s ran out.
    o.timeoutMs = options.timeoutMs + (options.allPairs ? int(profile.nodes.size()) * 4000 : 0);
    o.cancel = cancel;
    if (options.onRound) {
        // bench-links prints {"round", "round_pairs", "seconds"} after each round.
        o.onStdoutLine = [onRound = options.onRound](const QByteArray& line) {
            if (!line.startsWith("{\"round\""))
                return;
            const QJsonObject j = QJsonDocument::fromJson(line).object();
            if (j.contains(QStringLiteral("round_pairs")))
                onRound(j.value(QStringLiteral("round")).toInt(), j.value(QStringLiteral("round_pairs")).toInt());
        };
    }
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
        // Open MPI 4.1 prints the errno of its connect() call here, not the connection's error, so its own
        // message does not say why; a job then usually hangs until the time-out (open-mpi/ompi#85).
        if (e.stdErr.contains("failed to TCP connect to a peer MPI process"))
            why.message += tr(" — Open MPI could not open a TCP connection between two ranks (its warning below). "
                              "Common causes: a full neighbour (ARP) table on a node (\"neighbor table overflow!\" "
                              "in dmesg; the network check warns when the table is too small for the cluster), a "
                              "firewall between the nodes, or btl_tcp_if_include naming an interface the nodes "
                              "cannot reach each other on");
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
