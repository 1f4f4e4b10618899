// traindeck-cli check: the node environment checks of a profile, as a table or JSON.
#include "command.h"

#include "checks/clusterchecker.h"
#include "checks/linktest.h"
#include "cli_ssh.h"
#include "cluster/clusterprofile.h"
#include "interrupts.h"
#include "ssh/terminalprompt.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QEventLoop>
#include <QFileInfo>
#include <QJsonDocument>
#include <QTextStream>

#include <algorithm>
#include <optional>
#include <thread>
#include <utility>

#include <unistd.h>

using namespace traindeck::checks;
using namespace traindeck::cli;
using namespace traindeck::cluster;
using traindeck::Diagnostic;
using traindeck::formatDiagnostics;
using traindeck::Result;
using namespace traindeck::ssh;

namespace {

struct CheckCommand {
    Q_DECLARE_TR_FUNCTIONS(CheckCommand)
};

QString usage()
{
    return CheckCommand::tr(
        "usage: traindeck-cli check --profile FILE|NAME|local [--json] [--accept-new-host-keys] [--interconnect]\n"
        "                           [--timeout SECONDS] [--slots N] [--links|--links-only [--all-pairs] [--seed N]]\n"
        "                           [--job-wait SECONDS] [--all-nodes]\n"
        "Checks every node in parallel: reachability and login, OS, CPU cores, memory, free disk in the work\n"
        "directory, GPUs, CUDA, NCCL, Open MPI, traindeck-trainer (same version everywhere), network interfaces\n"
        "(suggested NCCL_SOCKET_IFNAME), clock offset, passwordless SSH from the head to every worker, and with\n"
        "--interconnect an allreduce test (traindeck-trainer bench-comm). Each result is pass, warn, fail or skip\n"
        "with evidence and a remedy; versions that differ between nodes are flagged. Nodes that agree (the same\n"
        "status on every check, the same versions) are printed once, as \"N nodes: same as NODE\", so that the\n"
        "nodes that differ stand out; --all-nodes prints every node.\n"
        "On a Slurm profile the login node is checked over SSH and with sinfo (the partition's nodes, their\n"
        "states and GPUs), and the environment checks run on the nodes of a short job (sbatch with the\n"
        "profile's resources, job steps with srun, scancel at the end); --job-wait: how long that job may wait\n"
        "in the queue (default 120 s).\n"
        "--links then runs the link test over MPI point-to-point (mpirun on the head, traindeck-trainer\n"
        "bench-links, one rank per node) in rounds of disjoint node pairs measured side by side: round 1 pairs\n"
        "every node at random (--seed N repeats a matching); a pair below half the round's median bandwidth\n"
        "(or above twice its median latency + 1 ms) is slow, and its nodes are paired again with the fastest\n"
        "nodes, at most 4 rounds: slow with two healthy partners is a slow node, a slow pair whose ends are fast\n"
        "elsewhere a slow link, undecided a suspect. The slowest nodes are listed first. --all-pairs measures\n"
        "every pair (a round-robin tournament, N-1 rounds of N/2 pairs; also below 6 nodes) and shows the matrix\n"
        "up to 16 nodes: it finds a slow link between two healthy nodes, which the search only finds when round\n"
        "1 happens to pair them. --links-only runs the link test without the node checks.\n"
        "Unknown host keys are asked about on the terminal (their SHA256 fingerprint is shown); without a\n"
        "terminal they are refused unless --accept-new-host-keys. Changed host keys are always refused.\n"
        "--json: {profile, ok, counts, nodes: [{node, host, role, status, checks: [{id, title, status, summary,\n"
        "evidence, remedy, value, ms}]}], matrix: [{id, title, values, differs, status, remedy}], groups: [[node,\n"
        "...], ...] (the nodes that agree, the largest group first)}, with --links\n"
        "also links: {ok, mode, seed, nodes, bytes, rounds: [{round, pairs, seconds}], median_bandwidth_mbps,\n"
        "median_latency_us, pairs: [{a, b, round, host_a, host_b, latency_us, bandwidth_mbps, slow}], verdicts:\n"
        "[{kind: slow_node|slow_link|suspect, node, peer, by: bandwidth|latency, slow_with, fast_with, reason}],\n"
        "ranked: [{node, pairs, best_mbps, worst_mbps, latency_us, verdict}] (the slowest first), slow_bandwidth:\n"
        "{node, reason} | null, slow_latency, ms, error} (with --links-only {profile, links} alone).\n"
        "Exit codes: 0 nothing failed (warnings and slow links allowed), 1 a check or the link test failed,\n"
        "2 bad usage or profile.\n");
}

// PASS, WARN, FAIL stand out; skip does not.
QString tag(CheckStatus s)
{
    const QString name = checkStatusName(s);
    return s == CheckStatus::Skip ? name : name.toUpper();
}

QString indent(const QString& text, const QString& prefix)
{
    QStringList lines = text.split(QLatin1Char('\n'));
    for (QString& l : lines)
        l.prepend(prefix);
    return lines.join(QLatin1Char('\n'));
}

QString linkCell(const LinkMeasurement& m)
{
    return CheckCommand::tr("%1, %2 µs").arg(LinkTest::formatBandwidth(m.bandwidthMbps)).arg(m.latencyUs, 0, 'f', 0);
}

void printLinks(const Result<LinkReport>& result, QTextStream& out)
{
    if (!result) {
        out << CheckCommand::tr("Links (MPI point-to-point):") << '\n';
        for (const Diagnostic& d : result.diagnostics()) {
            Diagnostic line = d;
            const QString evidence = std::exchange(line.detail, QString());
            out << QStringLiteral("  [FAIL] ") << line.toString() << '\n';
            if (!evidence.isEmpty())
                out << indent(evidence, QStringLiteral("         | ")) << '\n';
        }
        return;
    }
    const LinkReport& links = result.value();
    out << CheckCommand::tr("Links (MPI point-to-point, %1 KiB messages, %2 pair(s) in %n round(s) measured side by "
                            "side, %3 s; median %4):",
                            nullptr, int(links.rounds.size()))
               .arg(links.bytes / 1024)
               .arg(links.pairs.size())
               .arg(links.elapsedMs / 1000.0, 0, 'f', 1)
               .arg(LinkTest::formatBandwidth(links.medianBandwidthMbps))
        << '\n';
    int width = 6;
    for (const QString& n : links.nodes)
        width = qMax(width, int(n.size()));
    if (links.allPairs && links.nodes.size() <= 16) {
        QStringList cells;
        for (const LinkMeasurement& m : links.pairs)
            cells << linkCell(m);
        int cellWidth = 3;
        for (const QString& c : cells)
            cellWidth = qMax(cellWidth, int(c.size()));
        out << QStringLiteral("  ") << QString().leftJustified(width);
        for (const QString& n : links.nodes)
            out << QStringLiteral("  ") << n.leftJustified(cellWidth);
        out << '\n';
        for (int i = 0; i < links.nodes.size(); ++i) {
            out << QStringLiteral("  ") << links.nodes.at(i).leftJustified(width);
            for (int k = 0; k < links.nodes.size(); ++k) {
                const LinkMeasurement* m = links.find(i, k);
                out << QStringLiteral("  ") << (m ? linkCell(*m) : QStringLiteral("-")).leftJustified(cellWidth);
            }
            out << '\n';
        }
    } else {
        // The slowest nodes first; the rest in one line.
        const QList<NodeLinkSummary> ranked = links.rankedNodes();
        constexpr int kShown = 8;
        out << QStringLiteral("  ") << CheckCommand::tr("node").leftJustified(width) << QStringLiteral("  ")
            << CheckCommand::tr("fastest pair").leftJustified(14) << QStringLiteral("  ")
            << CheckCommand::tr("slowest pair").leftJustified(14) << QStringLiteral("  ")
            << CheckCommand::tr("latency").leftJustified(9) << QStringLiteral("  ") << CheckCommand::tr("verdict")
            << '\n';
        for (const NodeLinkSummary& s : ranked.mid(0, kShown)) {
            const bool measured = s.pairs > 0;
            out << QStringLiteral("  ") << links.nodes.at(s.node).leftJustified(width) << QStringLiteral("  ")
                << (measured ? LinkTest::formatBandwidth(s.bestMbps) : QStringLiteral("-")).leftJustified(14)
                << QStringLiteral("  ")
                << (measured ? LinkTest::formatBandwidth(s.worstMbps) : QStringLiteral("-")).leftJustified(14)
                << QStringLiteral("  ")
                << (measured ? CheckCommand::tr("%1 µs").arg(s.latencyUs, 0, 'f', 0) : QStringLiteral("-"))
                       .leftJustified(9)
                << QStringLiteral("  ") << (s.verdict ? links.verdictLabel(*s.verdict) : QString()) << '\n';
        }
        if (ranked.size() > kShown) {
            double least = -1;
            for (const NodeLinkSummary& s : ranked.mid(kShown))
                if (s.pairs > 0)
                    least = least < 0 ? s.bestMbps : qMin(least, s.bestMbps);
            out << QStringLiteral("  ")
                << CheckCommand::tr("… %n more node(s), each with a pair at %1 or faster", nullptr,
                                    int(ranked.size() - kShown))
                       .arg(LinkTest::formatBandwidth(qMax(least, 0.0)))
                << '\n';
        }
    }
    for (const LinkVerdict& v : links.verdicts)
        out << QStringLiteral("  [WARN] ")
            << (v.kind == LinkVerdict::Kind::SlowLink
                    ? CheckCommand::tr("%1: %2").arg(links.verdictLabel(v), v.reason)
                    : CheckCommand::tr("%1 %2: %3").arg(links.verdictLabel(v), links.nodes.value(v.node), v.reason))
            << '\n';
    for (const Diagnostic& w : result.diagnostics())
        out << QStringLiteral("  [WARN] ") << w.message << '\n'; // not kept for the diagnosis
    if (links.verdicts.isEmpty())
        out << QStringLiteral("  [PASS] ") << CheckCommand::tr("no node or link stands out") << '\n';
}

// "tb-node2, tb-node3, tb-node4, … tb-node64": at most `shown` names, then the last.
QString nodeList(const CheckReport& report, const QList<int>& nodes, int shown = 3)
{
    QStringList names;
    for (int k = 0; k < nodes.size() && k < shown; ++k)
        names << report.nodes.at(nodes.at(k)).node;
    QString list = names.join(QStringLiteral(", "));
    if (nodes.size() > shown)
        list += (nodes.size() > shown + 1 ? QStringLiteral(", … ") : QStringLiteral(", ")) +
                report.nodes.at(nodes.last()).node;
    return list;
}

// Each node's checks (nodes that agree once, unless allNodes), the differences between nodes (nodes
// grouped by value) and the totals, as text.
void printChecks(const CheckReport& report, bool allNodes, QTextStream& out)
{
    QList<QList<int>> groups;
    if (allNodes) {
        for (int i = 0; i < report.nodes.size(); ++i)
            groups.append(QList<int>{i});
    } else {
        groups = agreeingNodeGroups(report);
    }
    for (const QList<int>& group : groups) {
        const NodeReport& n = report.nodes.at(group.first());
        if (group.size() == 1)
            out << n.node << QStringLiteral(" (") << n.host << (n.isHead ? CheckCommand::tr(", head") : QString())
                << QStringLiteral(")\n");
        else
            out << CheckCommand::tr("%1 nodes: same as %2 (%3)").arg(group.size()).arg(n.node, nodeList(report, group))
                << '\n';
        for (const CheckResult& r : n.results) {
            out << QStringLiteral("  [") << tag(r.status) << QStringLiteral("] ") << r.title.leftJustified(32)
                << QLatin1Char(' ') << r.summary << '\n';
            if (!r.remedy.isEmpty() && (r.status == CheckStatus::Fail || r.status == CheckStatus::Warn))
                out << indent(r.remedy, QStringLiteral("         → ")) << '\n';
        }
    }
    bool header = false;
    for (const MatrixRow& m : report.matrix) {
        if (!m.differs)
            continue;
        if (!header) {
            out << CheckCommand::tr("Differences between nodes:") << '\n';
            header = true;
        }
        out << QStringLiteral("  [") << tag(m.severity) << QStringLiteral("] ") << m.title << '\n';
        // One line per value, its nodes listed (most first, unless allNodes: then one line per node).
        QList<QPair<QString, QList<int>>> byValue;
        for (int i = 0; i < m.values.size() && i < report.nodes.size(); ++i) {
            const QString v = m.values.at(i).isEmpty() ? QStringLiteral("-") : m.values.at(i);
            auto it = std::find_if(byValue.begin(), byValue.end(), [&](const auto& e) { return e.first == v; });
            if (allNodes || it == byValue.end())
                byValue.append({v, {i}});
            else
                it->second.append(i);
        }
        std::stable_sort(byValue.begin(), byValue.end(),
                         [](const auto& a, const auto& b) { return a.second.size() > b.second.size(); });
        for (const auto& [value, nodes] : byValue)
            out << QStringLiteral("         ")
                << (nodes.size() == 1
                        ? report.nodes.at(nodes.first()).node
                        : CheckCommand::tr("%1 nodes (%2)").arg(nodes.size()).arg(nodeList(report, nodes)))
                << QStringLiteral(": ") << value << '\n';
        out << indent(m.remedy, QStringLiteral("         → ")) << '\n';
    }
    out << CheckCommand::tr("%1 passed, %2 warnings, %3 failed, %4 skipped in %5 s")
               .arg(report.count(CheckStatus::Pass))
               .arg(report.count(CheckStatus::Warn))
               .arg(report.count(CheckStatus::Fail))
               .arg(report.count(CheckStatus::Skip))
               .arg(report.elapsedMs / 1000.0, 0, 'f', 1)
        << '\n';
}

int run(const QStringList& args)
{
    QTextStream out(stdout), err(stderr);
    QCommandLineParser parser;
    const QCommandLineOption profileOption(
        QStringLiteral("profile"), CheckCommand::tr("Profile file, saved name or local."), QStringLiteral("profile"));
    const QCommandLineOption jsonOption(QStringLiteral("json"), CheckCommand::tr("JSON output."));
    const QCommandLineOption allNodesOption(QStringLiteral("all-nodes"),
                                            CheckCommand::tr("Print every node, also those that agree."));
    const QCommandLineOption acceptOption = acceptNewHostKeysOption();
    const QCommandLineOption interconnectOption(QStringLiteral("interconnect"),
                                                CheckCommand::tr("Run the allreduce test."));
    const QCommandLineOption timeoutOption(QStringLiteral("timeout"), CheckCommand::tr("Seconds per step."),
                                           QStringLiteral("s"));
    const QCommandLineOption slotsOption(QStringLiteral("slots"), CheckCommand::tr("Ranks of the local profile."),
                                         QStringLiteral("n"));
    const QCommandLineOption linksOption(QStringLiteral("links"), CheckCommand::tr("Run the link test."));
    const QCommandLineOption allPairsOption(QStringLiteral("all-pairs"),
                                            CheckCommand::tr("Link test: measure every pair of nodes."));
    const QCommandLineOption seedOption(QStringLiteral("seed"), CheckCommand::tr("Link test: round 1's matching."),
                                        QStringLiteral("n"));
    const QCommandLineOption linksOnlyOption(QStringLiteral("links-only"),
                                             CheckCommand::tr("Run the link test without the node checks."));
    const QCommandLineOption jobWaitOption(QStringLiteral("job-wait"),
                                           CheckCommand::tr("Slurm: seconds the check job may wait in the queue."),
                                           QStringLiteral("s"));
    parser.addOptions({profileOption, jsonOption, allNodesOption, acceptOption, interconnectOption, timeoutOption,
                       slotsOption, linksOption, allPairsOption, seedOption, linksOnlyOption, jobWaitOption});
    if (const int rc = parseOrExit(parser, QStringLiteral("check"), args, usage()); rc >= 0)
        return rc;
    if (!parser.isSet(profileOption) || !parser.positionalArguments().isEmpty()) {
        err << CheckCommand::tr("traindeck-cli check: --profile is required") << '\n' << usage();
        return ExitBadInput;
    }
    const bool linksOnly = parser.isSet(linksOnlyOption);
    if ((parser.isSet(allPairsOption) || parser.isSet(seedOption)) && !parser.isSet(linksOption) && !linksOnly) {
        err << CheckCommand::tr("traindeck-cli check: --all-pairs and --seed belong to the link test (--links)")
            << '\n';
        return ExitBadInput;
    }
    if (parser.isSet(seedOption)) {
        bool ok = false;
        const qlonglong seed = parser.value(seedOption).toLongLong(&ok);
        if (!ok || seed < 0 || seed > 0x7fffffff) {
            err << CheckCommand::tr("traindeck-cli check: --seed: expected an integer 0..2147483647, got \"%1\"")
                       .arg(parser.value(seedOption))
                << '\n';
            return ExitBadInput;
        }
    }
    CheckOptions options;
    if (parser.isSet(timeoutOption)) {
        bool ok = false;
        const double s = parser.value(timeoutOption).toDouble(&ok);
        if (!ok || s <= 0 || s > 3600) {
            err << CheckCommand::tr("traindeck-cli check: --timeout: expected seconds 0..3600") << '\n';
            return ExitBadInput;
        }
        options.stepTimeoutMs = int(s * 1000);
    }
    if (parser.isSet(jobWaitOption)) {
        bool ok = false;
        const double s = parser.value(jobWaitOption).toDouble(&ok);
        if (!ok || s < 0 || s > 86400) {
            err << CheckCommand::tr("traindeck-cli check: --job-wait: expected seconds 0..86400") << '\n';
            return ExitBadInput;
        }
        options.slurmJobWaitMs = int(s * 1000);
    }
    int slots = 0;
    if (parser.isSet(slotsOption)) {
        bool ok = false;
        slots = parser.value(slotsOption).toInt(&ok);
        if (!ok || slots < 1) {
            err << CheckCommand::tr("traindeck-cli check: --slots: expected a positive integer") << '\n';
            return ExitBadInput;
        }
    }
    options.interconnect = parser.isSet(interconnectOption);
    const QString which = parser.value(profileOption);
    const bool isFile =
        which.contains(QLatin1Char('/')) || which.endsWith(QLatin1String(".json")) || QFileInfo(which).isFile();
    const Result<ClusterProfile> loaded =
        isFile ? ClusterProfile::load(which) : ClusterProfile::loadNamed(which, slots);
    if (!loaded) {
        err << loaded.errorString();
        return ExitBadInput;
    }
    err << formatDiagnostics(loaded.warnings());

    int linksInterrupt = 0; // the signal that cancelled the link test, or 0
    const auto interruptedLinks = [&] {
        err << CheckCommand::tr("traindeck-cli check: interrupted (signal %1); the link test was cancelled and what "
                                "it started was ended")
                   .arg(linksInterrupt)
            << '\n';
        return 128 + linksInterrupt;
    };
    const auto runLinks = [&] {
        LinkTestOptions linkOptions;
        linkOptions.timeoutMs = qMax(options.stepTimeoutMs, linkOptions.timeoutMs);
        linkOptions.allPairs = parser.isSet(allPairsOption);
        if (parser.isSet(seedOption))
            linkOptions.seed = parser.value(seedOption).toLongLong();
        if (::isatty(STDERR_FILENO))
            linkOptions.onRound = [&err](int round, int pairs) {
                err << '\r' << CheckCommand::tr("link test: round %1 done (%n pair(s))", nullptr, pairs).arg(round);
                err.flush();
            };
        // On a thread of its own, so that Ctrl-C or SIGTERM (InterruptWatcher, on this thread's event loop)
        // cancels it: the cancel ends mpirun on the head, which ends the ranks. A killed command left them
        // running.
        CancelToken cancel;
        InterruptWatcher interrupts([&cancel] { cancel.cancel(); });
        std::optional<Result<LinkReport>> r;
        QEventLoop loop;
        // The questions (a new host key, a passphrase) are asked on this thread, the one Ctrl-C interrupts:
        // a read of the terminal on the worker would wait for Enter whatever the user pressed.
        const SshPrompts prompts = promptsOnThreadOf(&loop, terminalPrompts(parser.isSet(acceptOption), err));
        // A std::thread, joined: QThread::wait() returns before the thread's thread-local destructors have
        // run (Qt's threads are detached), and OpenSSL frees its per-thread random generators in one. A
        // command that exits right after a cancel then raced them, and LeakSanitizer reported them.
        std::thread worker([&] {
            r = LinkTest::run(loaded.value(), linkOptions, prompts, cancel);
            QMetaObject::invokeMethod(&loop, &QEventLoop::quit, Qt::QueuedConnection);
        });
        loop.exec();
        worker.join();
        if (::isatty(STDERR_FILENO))
            err << '\n';
        // A signal after the test ended but before the loop quit still counts: the command was asked to stop.
        linksInterrupt = interrupts.signal();
        return std::move(*r);
    };
    if (linksOnly) {
        const Result<LinkReport> only = runLinks();
        if (linksInterrupt != 0)
            return interruptedLinks();
        if (parser.isSet(jsonOption))
            out << QJsonDocument(QJsonObject{{QStringLiteral("profile"), loaded->name},
                                             {QStringLiteral("links"), LinkTest::toJson(only, loaded->name)}})
                       .toJson(QJsonDocument::Indented);
        else
            printLinks(only, out);
        out.flush();
        return only.ok() ? ExitOk : ExitFailed;
    }

    ClusterChecker checker(loaded.value(), options);
    checker.prompts()->setAcceptNewHostKeys(parser.isSet(acceptOption));
    const bool interactive = stdinIsTerminal();
    QObject::connect(
        checker.prompts(), &PromptBroker::hostKeyQuestion, &checker, [&](quint64 id, const HostKeyInfo& info) {
            err << info.explanation() << '\n';
            err.flush();
            const bool yes =
                interactive &&
                askYesNoOnTerminal(CheckCommand::tr("Accept the host key of %1?").arg(info.knownHostsName()));
            checker.prompts()->answerHostKey(id, yes ? HostKeyDecision::AcceptAndSave : HostKeyDecision::Reject);
        });
    if (interactive) {
        QObject::connect(checker.prompts(), &PromptBroker::secretQuestion, &checker,
                         [&](quint64 id, const SecretRequest& req) {
                             std::optional<QByteArray> s = readSecretFromTerminal(req.prompt);
                             if (s)
                                 checker.prompts()->answerSecret(id, *s);
                             else
                                 checker.prompts()->declineSecret(id);
                         });
    }
    // Ctrl-C or SIGTERM cancels the checks, which end what they started (the Slurm check job is
    // scancelled), and then the command exits 130 or 143.
    std::optional<InterruptWatcher> interrupts;
    interrupts.emplace([&checker] { checker.cancel(); });
    // Nodes done of N, on a terminal only (one line, rewritten).
    if (::isatty(STDERR_FILENO)) {
        QObject::connect(&checker, &ClusterChecker::nodeFinished, &checker,
                         [&err, &checker, done = 0](int, const NodeReport&) mutable {
                             err << '\r'
                                 << CheckCommand::tr("checked %1 of %2 nodes").arg(++done).arg(checker.nodeCount());
                             err.flush();
                         });
    }
    const CheckReport report = checker.runAndWait();
    if (::isatty(STDERR_FILENO))
        err << '\n';
    if (interrupts->signal() != 0) {
        err << CheckCommand::tr("traindeck-cli check: interrupted (signal %1); the checks were cancelled and what they "
                                "started was ended")
                   .arg(interrupts->signal())
            << '\n';
        return interrupts->exitCode();
    }
    // The link test installs a watcher of its own; two at once would share the signal handler's pipe.
    interrupts.reset();
    std::optional<Result<LinkReport>> links;
    if (parser.isSet(linksOption)) {
        links = runLinks();
        if (linksInterrupt != 0)
            return interruptedLinks();
    }
    if (parser.isSet(jsonOption)) {
        QJsonObject j = report.toJson();
        if (links)
            j.insert(QStringLiteral("links"), LinkTest::toJson(*links, loaded->name));
        out << QJsonDocument(j).toJson(QJsonDocument::Indented);
    } else {
        printChecks(report, parser.isSet(allNodesOption), out);
        if (links)
            printLinks(*links, out);
    }
    out.flush();
    return report.hasFailures() || (links && !links->ok()) ? ExitFailed : ExitOk;
}

Registration reg{
    {QStringLiteral("check"), QStringLiteral("check the nodes of a profile (SSH, GPUs, versions, ...)"), run}};

} // namespace
