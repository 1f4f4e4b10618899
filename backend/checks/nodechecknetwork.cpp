// The node checks between machines: network interfaces (NCCL_SOCKET_IFNAME), clock skew, the head's
// passwordless SSH to the others, the interconnect benchmark and the Slurm partition.
#include "checks/nodecheck.h"

#include "checks/nodecheckprivate.h"
#include "checks/slurmcheck.h"
#include "ssh/commandrunner.h"
#include "ssh/sshsession.h"

#include <QDateTime>
#include <QHostAddress>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

namespace traindeck::checks {

using ssh::CancelToken;
using ssh::CommandRunner;
using ssh::ExecResult;
using ssh::shellPath;
using namespace nodecheck_detail;

QString NodeChecker::suggestSocketIfname(const QString& ipOutput, const QString& preferAddress)
{
    QString first;
    for (const QString& raw : ipOutput.split(QLatin1Char('\n'))) {
        const QStringList f = raw.simplified().split(QLatin1Char(' '));
        const int inet = f.indexOf(QStringLiteral("inet"));
        if (f.size() < 4 || inet < 1)
            continue;
        QString ifname = f.at(1);
        if (ifname.endsWith(QLatin1Char(':')))
            ifname.chop(1);
        ifname = ifname.section(QLatin1Char('@'), 0, 0);
        const QString addr = f.value(inet + 1).section(QLatin1Char('/'), 0, 0);
        if (ifname == QLatin1String("lo") || addr.startsWith(QLatin1String("127.")))
            continue;
        if (!preferAddress.isEmpty() && addr == preferAddress)
            return ifname;
        static const QStringList virtualPrefixes{
            QStringLiteral("docker"), QStringLiteral("virbr"),   QStringLiteral("veth"), QStringLiteral("br-"),
            QStringLiteral("cni"),    QStringLiteral("flannel"), QStringLiteral("tun"),  QStringLiteral("tap")};
        bool isVirtual = false;
        for (const QString& p : virtualPrefixes)
            isVirtual = isVirtual || ifname.startsWith(p);
        if (!isVirtual && first.isEmpty())
            first = ifname;
    }
    return first;
}

CheckResult NodeChecker::checkNetwork(CheckResult r, CommandRunner& runner, const CancelToken& cancel)
{
    const bool literal = !QHostAddress(m_node.host).isNull();
    const QString resolve =
        literal || runner.isLocal()
            ? QStringLiteral("echo TRAINDECK_ADDR %1").arg(shellQuote(m_node.host))
            : QStringLiteral("echo TRAINDECK_ADDR $(getent ahostsv4 %1 2>/dev/null | awk 'NR==1{print $1}')")
                  .arg(shellQuote(m_node.host));
    // The kernel's hard cap on neighbour (ARP) entries: all-to-all traffic needs one per peer.
    const ExecResult e = exec(runner,
                              QStringLiteral("ip -o -4 addr show 2>&1; ") + resolve +
                                  QStringLiteral("; echo TRAINDECK_NEIGH $(cat "
                                                 "/proc/sys/net/ipv4/neigh/default/gc_thresh3 2>/dev/null)"),
                              cancel);
    if (auto bad = ranBadly(r, e))
        return *bad;
    const QString out = QString::fromUtf8(e.stdOut);
    QString addr;
    QStringList ifLines;
    int neighbourCap = 0; // 0: not known
    for (const QString& l : out.split(QLatin1Char('\n'))) {
        if (l.startsWith(QLatin1String("TRAINDECK_ADDR")))
            addr = l.mid(14).trimmed();
        else if (l.startsWith(QLatin1String("TRAINDECK_NEIGH")))
            neighbourCap = l.mid(15).trimmed().toInt();
        else if (!l.trimmed().isEmpty())
            ifLines << l.simplified().section(QLatin1Char(' '), 0, 3);
    }
    r.evidence = excerpt(ifLines.join(QLatin1Char('\n')));
    if (out.contains(QLatin1String("not found")) && ifLines.size() <= 1) {
        r.status = CheckStatus::Warn;
        r.summary = tr("`ip` not found");
        r.remedy = tr("Install iproute2 to list the interfaces, then set NCCL_SOCKET_IFNAME in the profile's env.");
        return r;
    }
    const QString suggestion = suggestSocketIfname(out, addr);
    r.value = suggestion;
    const QString configured = m_profile.env.value(QStringLiteral("NCCL_SOCKET_IFNAME"));
    if (!configured.isEmpty()) {
        // NCCL: "=eth0" exact, "^eth" excluded, otherwise a prefix.
        bool found = false;
        const bool exact = configured.startsWith(QLatin1Char('='));
        const bool exclude = configured.startsWith(QLatin1Char('^'));
        for (QString want : configured.mid(exact || exclude ? 1 : 0).split(QLatin1Char(','))) {
            for (const QString& l : ifLines) {
                QString ifname = l.section(QLatin1Char(' '), 1, 1);
                ifname = ifname.section(QLatin1Char('@'), 0, 0).remove(QLatin1Char(':'));
                if (exclude ? !ifname.startsWith(want) : (exact ? ifname == want : ifname.startsWith(want)))
                    found = true;
            }
        }
        r.summary = tr("NCCL_SOCKET_IFNAME=%1 is set").arg(configured);
        if (!found) {
            r.status = CheckStatus::Fail;
            r.summary += tr("; no matching interface");
            r.remedy =
                tr("No interface on %1 matches NCCL_SOCKET_IFNAME=%2; NCCL would fail to start. Use %3.")
                    .arg(m_node.name, configured, suggestion.isEmpty() ? tr("an existing interface") : suggestion);
        } else {
            r.status = CheckStatus::Pass;
        }
        return warnOnSmallNeighbourTable(r, neighbourCap);
    }
    if (suggestion.isEmpty()) {
        r.status = m_profile.nodes.size() > 1 ? CheckStatus::Warn : CheckStatus::Pass;
        r.summary = tr("only loopback");
        if (r.status == CheckStatus::Warn)
            r.remedy = tr("No network interface besides loopback: other nodes cannot reach this one.");
        return r;
    }
    r.status = CheckStatus::Pass;
    r.summary =
        tr("suggested NCCL_SOCKET_IFNAME=%1").arg(suggestion) + (addr.isEmpty() ? QString() : tr(" (%1)").arg(addr));
    return warnOnSmallNeighbourTable(r, neighbourCap);
}

CheckResult NodeChecker::warnOnSmallNeighbourTable(CheckResult r, int neighbourCap) const
{
    const int needed = neighbourEntriesNeeded(int(m_profile.nodes.size()));
    if (neighbourCap <= 0 || neighbourCap >= needed || r.status == CheckStatus::Fail)
        return r;
    r.status = CheckStatus::Warn;
    r.summary += tr("; neighbour table capped at %1 entries").arg(neighbourCap);
    r.evidence += QStringLiteral("\nnet.ipv4.neigh.default.gc_thresh3 = %1").arg(neighbourCap);
    r.remedy = tr("The kernel of %1 keeps at most %2 neighbour (ARP) entries, and traffic among the profile's %3 "
                  "nodes needs about %4: once the table is full, connections to new peers fail (\"neighbor table "
                  "overflow!\" in dmesg) and MPI or NCCL hangs. Raise net.ipv4.neigh.default.gc_thresh1, "
                  "gc_thresh2 and gc_thresh3 (e.g. to %5, %6 and %4 with sysctl -w).")
                   .arg(m_node.name)
                   .arg(neighbourCap)
                   .arg(m_profile.nodes.size())
                   .arg(needed)
                   .arg(needed / 8)
                   .arg(needed * 3 / 4);
    return r;
}

CheckResult NodeChecker::checkClock(CheckResult r, CommandRunner& runner, const CancelToken& cancel)
{
    const qint64 t0 = QDateTime::currentMSecsSinceEpoch();
    const ExecResult e = exec(runner, QStringLiteral("date +%s.%N"), cancel);
    const qint64 t1 = QDateTime::currentMSecsSinceEpoch();
    if (auto bad = ranBadly(r, e))
        return *bad;
    bool ok = false;
    const double remote = text(e.stdOut).toDouble(&ok);
    r.evidence = excerpt(outputOf(e));
    if (!ok) {
        r.status = CheckStatus::Warn;
        r.summary = tr("unknown");
        r.remedy = tr("`date +%s.%N` gave no time.");
        return r;
    }
    const double local = (t0 + t1) / 2000.0;
    const double uncertainty = (t1 - t0) / 2000.0;
    const double skew = remote - local;
    r.value.clear();
    r.summary = tr("offset %1 s (± %2 s) from this machine").arg(skew, 0, 'f', 3).arg(uncertainty, 0, 'f', 3);
    if (qAbs(skew) > m_options.maxClockSkewS + uncertainty) {
        r.status = CheckStatus::Warn;
        r.remedy = tr("The clock differs by %1 s: timestamps in metrics and logs will not line up. Enable time "
                      "synchronisation (systemd-timesyncd, chrony or ntpd) on every node.")
                       .arg(skew, 0, 'f', 1);
    } else {
        r.status = CheckStatus::Pass;
    }
    return r;
}

CheckResult NodeChecker::checkHeadSsh(CheckResult r, CommandRunner& runner, const CancelToken& cancel)
{
    QString script;
    int workers = 0;
    for (int i = 0; i < m_profile.nodes.size(); ++i) {
        if (i == m_index)
            continue;
        const cluster::ClusterNode& w = m_profile.nodes.at(i);
        ++workers;
        QString ssh = QStringLiteral("ssh -o BatchMode=yes -o ConnectTimeout=5 -o StrictHostKeyChecking=yes");
        if (w.port != 22)
            ssh += QStringLiteral(" -p %1").arg(w.port);
        if (!w.user.isEmpty())
            ssh += QStringLiteral(" -l ") + shellQuote(w.user);
        ssh += QLatin1Char(' ') + shellQuote(w.host) + QStringLiteral(" true");
        script += QStringLiteral("if getent hosts %1 >/dev/null 2>&1; then r=ok; else r=noresolve; fi; "
                                 "out=$(%2 2>&1 </dev/null); rc=$?; echo \"TDW %3 $r $rc\"; "
                                 "printf '%s\\n' \"$out\" | head -n 3 | sed 's/^/TDO %3 /'; ")
                      .arg(shellQuote(w.host), ssh)
                      .arg(i);
    }
    ssh::ExecOptions o;
    o.timeoutMs = m_options.stepTimeoutMs + workers * 7000;
    o.cancel = cancel;
    const ExecResult e = runner.run(wrapCommand(m_profile, script), o);
    if (auto bad = ranBadly(r, e))
        return *bad;
    QStringList failed, evidence, remedies;
    int okCount = 0;
    const QStringList lines = QString::fromUtf8(e.stdOut).split(QLatin1Char('\n'));
    for (const QString& l : lines) {
        if (!l.startsWith(QLatin1String("TDW ")))
            continue;
        const QStringList f = l.split(QLatin1Char(' '));
        const int i = f.value(1).toInt();
        const cluster::ClusterNode& w = m_profile.nodes.value(i);
        const bool resolves = f.value(2) == QLatin1String("ok");
        const int rc = f.value(3).toInt();
        QStringList said;
        for (const QString& o2 : lines) {
            if (o2.startsWith(QStringLiteral("TDO %1 ").arg(i)))
                said << o2.mid(QStringLiteral("TDO %1 ").arg(i).size());
        }
        const QString msg = said.join(QLatin1Char(' ')).trimmed();
        if (rc == 0) {
            ++okCount;
            evidence << tr("%1: ok%2")
                            .arg(w.name,
                                 resolves ? QString() : tr(" (getent cannot resolve %1, ssh could)").arg(w.host));
            continue;
        }
        failed << w.name;
        evidence << tr("%1: exit %2: %3").arg(w.name, QString::number(rc), msg);
        const QString target = (w.user.isEmpty() ? QString() : w.user + QLatin1Char('@')) + w.host;
        if (!resolves || msg.contains(QLatin1String("resolve")))
            remedies
                << tr("%1 cannot resolve %2: add it to /etc/hosts on the head or to DNS, or use its IP address in the "
                      "profile.")
                       .arg(m_node.name, w.host);
        else if (msg.contains(QLatin1String("Host key verification failed")) ||
                 msg.contains(QLatin1String("REMOTE HOST IDENTIFICATION")))
            remedies << tr("The head does not know the host key of %1 (or it changed). Let TrainDeck set up head → "
                           "worker SSH (it copies the key this machine verified), or on the head run "
                           "`ssh%2 %3` once and compare the fingerprint.")
                            .arg(w.host, w.port != 22 ? QStringLiteral(" -p %1").arg(w.port) : QString(), target);
        else if (msg.contains(QLatin1String("Permission denied")))
            remedies
                << tr("The head has no key authorized on %1. Let TrainDeck set up head → worker SSH, or on the head "
                      "run: ssh-keygen -t ed25519 (if it has no key) and ssh-copy-id%2 %3")
                       .arg(w.name, w.port != 22 ? QStringLiteral(" -p %1").arg(w.port) : QString(), target);
        else if (msg.contains(QLatin1String("not found")) && rc == 127)
            remedies << tr("ssh is not installed on the head: apt install openssh-client.");
        else
            remedies << tr("Check that %1 is reachable from the head on port %2 (firewall, routing).")
                            .arg(w.host, QString::number(w.port));
    }
    r.evidence = excerpt(evidence.join(QLatin1Char('\n')), 40);
    if (okCount + failed.size() < workers) {
        r.status = CheckStatus::Fail;
        r.summary = tr("the test did not complete");
        r.evidence = excerpt(outputOf(e));
        r.remedy = tr("Run `ssh -o BatchMode=yes WORKER true` on the head by hand to see what fails.");
        return r;
    }
    if (failed.isEmpty()) {
        r.status = CheckStatus::Pass;
        r.summary = tr("passwordless SSH to all %n worker(s)", nullptr, workers);
    } else {
        r.status = CheckStatus::Fail;
        r.summary = tr("no passwordless SSH to %1").arg(failed.join(QStringLiteral(", ")));
        remedies.removeDuplicates();
        r.remedy = remedies.join(QLatin1Char('\n'));
    }
    return r;
}

CheckResult NodeChecker::checkInterconnect(CheckResult r, CommandRunner& runner, const CancelToken& cancel)
{
    if (m_profile.nodes.size() < 2)
        return skipped(r, tr("single node"));
    QStringList hosts;
    for (const cluster::ClusterNode& n : m_profile.nodes)
        hosts << n.host + QStringLiteral(":1");
    const QString launcher = m_profile.launcher.isEmpty() ? QStringLiteral("mpirun") : m_profile.launcher;
    // Older trainers have no bench-comm: their usage does not list it (and the command exits 2).
    const QString cmd =
        QStringLiteral("traindeck-trainer --help 2>&1 | grep -q bench-comm || "
                       "{ echo TRAINDECK_NO_BENCH; exit 0; }; "
                       "if [ \"$(id -u)\" = 0 ]; then OMPI_ALLOW_RUN_AS_ROOT=1; OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; "
                       "export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM; fi; "
                       "%1 -np %2 --host %3 --map-by node traindeck-trainer bench-comm --json --iters 3 "
                       "--max-bytes 67108864")
            .arg(shellPath(launcher), QString::number(hosts.size()), shellQuote(hosts.join(QLatin1Char(','))));
    ssh::ExecOptions o;
    o.timeoutMs = qMax(m_options.stepTimeoutMs, 180000);
    o.cancel = cancel;
    const ExecResult e = runner.run(wrapCommand(m_profile, cmd), o);
    if (auto bad = ranBadlyElseEvidence(r, e))
        return *bad;
    const bool unknown =
        e.stdOut.contains("TRAINDECK_NO_BENCH") || (e.exitCode == 2 && e.stdErr.contains("unknown command"));
    if (unknown)
        return skipped(r, tr("traindeck-trainer has no bench-comm (older version)"));
    QJsonObject j;
    for (const QByteArray& line : e.stdOut.split('\n')) {
        const QJsonDocument d = QJsonDocument::fromJson(line.trimmed());
        if (d.isObject() && d.object().contains(QStringLiteral("results")))
            j = d.object();
    }
    const QJsonArray rows = j.value(QStringLiteral("results")).toArray();
    if (e.exitCode != 0 || rows.isEmpty()) {
        r.status = CheckStatus::Fail;
        r.summary = tr("allreduce test failed (%1)").arg(e.describe());
        r.remedy = tr("mpirun could not run across the nodes: check head → worker SSH, that Open MPI and the trainer "
                      "are the same on every node, and NCCL_SOCKET_IFNAME / btl_tcp_if_include.");
        return r;
    }
    const QJsonObject last = rows.last().toObject();
    const double busbw = last.value(QStringLiteral("busbw_gbps")).toDouble();
    const double bytes = last.value(QStringLiteral("bytes")).toDouble();
    r.value = QString::number(busbw, 'f', 2);
    r.summary = tr("allreduce bus bandwidth %1 GB/s at %2 MiB over %3 ranks")
                    .arg(busbw, 0, 'f', 2)
                    .arg(bytes / 1048576.0, 0, 'f', 0)
                    .arg(j.value(QStringLiteral("ranks")).toInt());
    if (busbw < 1.0) {
        r.status = CheckStatus::Warn;
        r.remedy = tr("Below 1 GB/s: gradient allreduce will dominate each step. Use a faster link (25 GbE or "
                      "InfiniBand) and make sure NCCL/MPI use it (NCCL_SOCKET_IFNAME, NCCL_IB_HCA).");
    } else {
        r.status = CheckStatus::Pass;
    }
    return r;
}

CheckResult NodeChecker::checkSlurm(CheckResult r, CommandRunner& runner, const CancelToken& cancel)
{
    const ExecResult e =
        exec(runner,
             QStringLiteral("command -v sinfo >/dev/null 2>&1 || { echo TRAINDECK_NO_SINFO; exit 0; }; "
                            "sinfo --version && echo TRAINDECK_SINFO_NODES && ") +
                 launch::slurm::sinfoNodesCommand(),
             cancel);
    if (auto bad = ranBadly(r, e))
        return *bad;
    if (e.stdOut.contains("TRAINDECK_NO_SINFO")) {
        r.status = CheckStatus::Fail;
        r.summary = tr("sinfo not found on the login node");
        r.evidence = tr("command -v sinfo: not found");
        r.remedy = tr("Install Slurm's client commands on the login node (Debian: slurm-client) or add their "
                      "directory to the profile's \"path_prefix\".");
        return r;
    }
    const int split = e.stdOut.indexOf("TRAINDECK_SINFO_NODES");
    if (e.exitCode != 0 || split < 0) {
        r.status = CheckStatus::Fail;
        r.summary = tr("sinfo failed (%1)").arg(e.describe());
        r.evidence = excerpt(outputOf(e));
        r.remedy = tr("Slurm's controller did not answer: check that slurmctld runs and is reachable from the login "
                      "node (scontrol ping).");
        return r;
    }
    return evaluateSlurmPartition(r, *m_profile.slurm, text(e.stdOut.left(split)),
                                  launch::slurm::parseSinfoNodes(e.stdOut.mid(split)));
}

} // namespace traindeck::checks
