// checks::LinkTest without a network: bench-links' JSON parsed into a report, its verdicts put into words
// and the nodes ranked, the progress of its rounds, the mpirun command it runs on the head, and the JSON
// the CLI prints. (The rounds and verdicts themselves: tests/unit/trainer/dist/tst_link_search.cpp.)
#include "checks/linktest.h"
#include "ssh/commandrunner.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <array>

using namespace traindeck;
using namespace traindeck::checks;

namespace {
cluster::ClusterProfile profile(int nodes)
{
    cluster::ClusterProfile p;
    p.name = QStringLiteral("lab");
    for (int i = 0; i < nodes; ++i) {
        cluster::ClusterNode n;
        n.name = QStringLiteral("n%1").arg(i + 1);
        n.host = QStringLiteral("host-%1").arg(i + 1);
        n.slots = 1;
        n.role = i == 0 ? cluster::NodeRole::Head : cluster::NodeRole::Worker;
        p.nodes.append(n);
    }
    return p;
}

// bench-links' output: a progress line per round, then the result; pairs given as {a, b, latency_us,
// bandwidth_mbps} (round 1 unless `rounds` says otherwise), verdicts as bench-links prints them.
QByteArray benchOutput(int ranks, const QList<std::array<double, 4>>& pairs, const QJsonArray& verdicts = {},
                       const QString& mode = QStringLiteral("all-pairs"), const QList<int>& roundOf = {})
{
    QJsonArray rows;
    QJsonArray hosts;
    for (int r = 0; r < ranks; ++r)
        hosts.append(QStringLiteral("host-%1").arg(r + 1));
    int lastRound = 1;
    for (int i = 0; i < pairs.size(); ++i) {
        const auto& p = pairs[i];
        const int round = roundOf.value(i, 1);
        lastRound = qMax(lastRound, round);
        rows.append(QJsonObject{{QStringLiteral("a"), int(p[0])},
                                {QStringLiteral("b"), int(p[1])},
                                {QStringLiteral("round"), round},
                                {QStringLiteral("host_a"), hosts.at(int(p[0]))},
                                {QStringLiteral("host_b"), hosts.at(int(p[1]))},
                                {QStringLiteral("latency_us"), p[2]},
                                {QStringLiteral("bandwidth_mbps"), p[3]},
                                {QStringLiteral("slow"), p[3] < 1000 || p[2] > 1000}});
    }
    QByteArray progress;
    QJsonArray rounds;
    for (int r = 1; r <= lastRound; ++r) {
        const int n = int(std::count(roundOf.begin(), roundOf.end(), r)) + (roundOf.isEmpty() ? int(pairs.size()) : 0);
        rounds.append(
            QJsonObject{{QStringLiteral("round"), r}, {QStringLiteral("pairs"), n}, {QStringLiteral("seconds"), 0.5}});
        progress += QStringLiteral("{\"round\":%1,\"round_pairs\":%2,\"seconds\":0.5}\n").arg(r).arg(n).toUtf8();
    }
    const QJsonObject o{{QStringLiteral("ranks"), ranks},
                        {QStringLiteral("bytes"), 1048576},
                        {QStringLiteral("mode"), mode},
                        {QStringLiteral("seed"), 42},
                        {QStringLiteral("rounds"), rounds},
                        {QStringLiteral("median_bandwidth_mbps"), 14000},
                        {QStringLiteral("median_latency_us"), 13},
                        {QStringLiteral("hosts"), hosts},
                        {QStringLiteral("pairs"), rows},
                        {QStringLiteral("verdicts"), verdicts}};
    return "mpirun noise on stdout\n" + progress + QJsonDocument(o).toJson(QJsonDocument::Compact) + "\n";
}

QJsonObject verdict(const char* kind, int node, QList<int> slowWith, QList<int> fastWith = {}, int peer = -1,
                    const char* by = "bandwidth")
{
    QJsonObject v{{QStringLiteral("kind"), QLatin1String(kind)},
                  {QStringLiteral("node"), node},
                  {QStringLiteral("by"), QLatin1String(by)}};
    QJsonArray s, f;
    for (int k : slowWith)
        s.append(k);
    for (int k : fastWith)
        f.append(k);
    v.insert(QStringLiteral("slow_with"), s);
    v.insert(QStringLiteral("fast_with"), f);
    if (peer >= 0)
        v.insert(QStringLiteral("peer"), peer);
    return v;
}
} // namespace

// The head node's answer to the link test's command, without a network.
class CannedRunner : public ssh::CommandRunner {
  public:
    explicit CannedRunner(QByteArray out, QByteArray err = {},
                          ssh::ExecResult::Status status = ssh::ExecResult::Status::Exited)
        : m_out(std::move(out)), m_err(std::move(err)), m_status(status)
    {
    }
    ssh::ExecResult run(const QString&, const ssh::ExecOptions& options = {}) override
    {
        if (options.onStdoutLine)
            for (const QByteArray& line : m_out.split('\n'))
                options.onStdoutLine(line);
        ssh::ExecResult r;
        r.status = m_status;
        r.exitCode = m_status == ssh::ExecResult::Status::Exited ? 0 : -1;
        r.stdOut = m_out;
        r.stdErr = m_err;
        return r;
    }
    QString name() const override { return QStringLiteral("root@host-1:22"); }

  private:
    QByteArray m_out, m_err;
    ssh::ExecResult::Status m_status;
};

class TestLinkTest : public QObject {
    Q_OBJECT
    QTemporaryDir m_tmp;

  private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_tmp.isValid());
        qputenv("XDG_CONFIG_HOME", m_tmp.path().toUtf8());
    }

    // A successful test is kept (0600, whole) for the diagnosis of the profile's runs; a failed one is not.
    void keptForTheDiagnosis()
    {
        CannedRunner head(benchOutput(3, {{0, 1, 14, 103.4}, {0, 2, 12, 15000}, {1, 2, 13, 101}}));
        const Result<LinkReport> r = LinkTest::run(profile(3), head, LinkTestOptions{}, ssh::CancelToken{});
        QVERIFY2(r.ok(), qPrintable(r.errorString()));
        QVERIFY2(r.diagnostics().isEmpty(), qPrintable(formatDiagnostics(r.diagnostics()))); // kept: no warning
        const QString path = cluster::SavedLinkTest::pathFor(QStringLiteral("lab"));
        QVERIFY(path.startsWith(m_tmp.path()));
        QCOMPARE(QFileInfo(path).permissions(),
                 QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ReadUser | QFileDevice::WriteUser);
        const auto saved = cluster::SavedLinkTest::load(QStringLiteral("lab"));
        QVERIFY2(saved.ok(), qPrintable(saved.errorString()));
        QCOMPARE(saved->links.size(), 3);
        QCOMPARE(saved->links[1].hostA, QStringLiteral("host-1"));
        QCOMPARE(saved->links[1].hostB, QStringLiteral("host-3"));
        QCOMPARE(saved->links[1].bandwidthMbps, 15000.0);
        QCOMPARE(saved->links[1].latencyUs, 12.0);
        QVERIFY(saved->measuredAt.secsTo(QDateTime::currentDateTimeUtc()) < 60);

        // A test that did not run leaves the kept one alone.
        CannedRunner broken(QByteArray("ORTE was unable to reliably start one or more daemons.\n"));
        const Result<LinkReport> failed = LinkTest::run(profile(3), broken, LinkTestOptions{}, ssh::CancelToken{});
        QVERIFY(!failed.ok());
        // The command's output is the evidence, in the failure's detail and in `check --json`.
        QVERIFY2(failed.diagnostics().first().detail.contains(QStringLiteral("ORTE was unable")),
                 qPrintable(formatDiagnostics(failed.diagnostics())));
        const QJsonObject j = LinkTest::toJson(failed, QStringLiteral("lab"));
        QCOMPARE(j.value(QStringLiteral("ok")).toBool(true), false);
        QVERIFY(j.value(QStringLiteral("error")).toString().contains(QStringLiteral("printed no result")));
        QVERIFY(j.value(QStringLiteral("evidence")).toString().contains(QStringLiteral("ORTE was unable")));
        QCOMPARE(cluster::SavedLinkTest::load(QStringLiteral("lab"))->links.size(), 3);
    }

    // A job that hung on Open MPI's failed TCP connect (its warning on stderr, then the time-out): the error
    // names the likely causes, since Open MPI 4.1's own message prints an errno that is not the cause.
    void tcpConnectFailureExplained()
    {
        CannedRunner head(QByteArray("{\"round\":1,\"round_pairs\":1,\"seconds\":0.5}\n"),
                          QByteArray("WARNING: Open MPI failed to TCP connect to a peer MPI process.  This\n"
                                     "should not happen.\n\n  Local host: host-2\n"
                                     "  Message:    connect() to 10.0.0.3:1024 failed\n"
                                     "  Error:      Operation now in progress (115)\n"),
                          ssh::ExecResult::Status::TimedOut);
        const Result<LinkReport> r = LinkTest::run(profile(3), head, LinkTestOptions{}, ssh::CancelToken{});
        QVERIFY(!r.ok());
        const Diagnostic& why = r.diagnostics().first();
        QVERIFY2(why.message.contains(QStringLiteral("neighbour (ARP) table")), qPrintable(why.message));
        QVERIFY2(why.detail.contains(QStringLiteral("connect() to 10.0.0.3:1024 failed")), qPrintable(why.detail));

        // Another failure gets no such hint.
        CannedRunner other(QByteArray(), QByteArray("ORTE was unable to reliably start one or more daemons.\n"),
                           ssh::ExecResult::Status::TimedOut);
        const Result<LinkReport> r2 = LinkTest::run(profile(3), other, LinkTestOptions{}, ssh::CancelToken{});
        QVERIFY(!r2.ok());
        QVERIFY(!r2.diagnostics().first().message.contains(QStringLiteral("neighbour")));
    }

    void damagedKeptTestNamesTheFile()
    {
        const QString path = cluster::SavedLinkTest::pathFor(QStringLiteral("damaged"));
        QVERIFY(QDir().mkpath(QFileInfo(path).absolutePath()));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"profile": "damaged", "measured_at": "2026-12-01T09:30:00Z", "links": [{"host_a": "a"}]})");
        f.close();
        const auto loaded = cluster::SavedLinkTest::load(QStringLiteral("damaged"));
        QVERIFY(!loaded.ok());
        QVERIFY2(loaded.errorString().contains(path) && loaded.errorString().contains(QStringLiteral("links[0]")),
                 qPrintable(loaded.errorString()));
        QVERIFY(!cluster::SavedLinkTest::load(QStringLiteral("absent")).ok());
        QVERIFY(!cluster::SavedLinkTest::load(QStringLiteral("../escape")).ok());
        cluster::SavedLinkTest bad;
        bad.profile = QStringLiteral("../escape");
        QVERIFY(!bad.save().ok());
    }

    void slowNodeNamed()
    {
        // n2's links at 100 Mbit/s, the n1-n3 link at 15 Gbit/s (the testbed with tb-node2 shaped).
        const Result<LinkReport> parsed =
            LinkTest::parse(profile(3), benchOutput(3, {{0, 1, 14, 103.4}, {0, 2, 12, 15000}, {1, 2, 13, 101}},
                                                    {verdict("slow_node", 1, {0, 2})}));
        QVERIFY2(parsed.ok(), qPrintable(parsed.errorString()));
        const LinkReport& r = parsed.value();
        QCOMPARE(r.pairs.size(), 3);
        QVERIFY(r.allPairs);
        QCOMPARE(r.seed, 42);
        QCOMPARE(r.rounds.size(), 1);
        QCOMPARE(r.verdicts.size(), 1);
        QCOMPARE(r.verdicts[0].kind, LinkVerdict::Kind::SlowNode);
        const QString reason = r.verdicts[0].reason;
        for (const char* part :
             {"n2 was slow with every partner", "n1 (103.4 Mbit/s)", "n3 (101.0 Mbit/s)", "the median is 14.00 Gbit/s"})
            QVERIFY2(reason.contains(QLatin1String(part)), qPrintable(reason));
        QCOMPARE(r.verdictLabel(r.verdicts[0]), QStringLiteral("slow node"));
        QCOMPARE(r.find(2, 1)->bandwidthMbps, 101.0); // either order
        // Ranked: the named node first, then by the fastest pair.
        const QList<NodeLinkSummary> ranked = r.rankedNodes();
        QCOMPARE(ranked.size(), 3);
        QCOMPARE(ranked[0].node, 1);
        QCOMPARE(ranked[0].bestMbps, 103.4);
        QCOMPARE(ranked[0].worstMbps, 101.0);
        QCOMPARE(ranked[0].pairs, 2);
        QVERIFY(ranked[0].verdict);
        QVERIFY(!ranked[1].verdict);
        const QJsonObject j = r.toJson();
        QCOMPARE(j.value(QStringLiteral("slow_bandwidth")).toObject().value(QStringLiteral("node")).toString(),
                 QStringLiteral("n2"));
        QVERIFY(j.value(QStringLiteral("slow_latency")).isNull());
        QCOMPARE(j.value(QStringLiteral("mode")).toString(), QStringLiteral("all-pairs"));
        QCOMPARE(j.value(QStringLiteral("pairs")).toArray().at(0).toObject().value(QStringLiteral("a")).toString(),
                 QStringLiteral("n1"));
        const QJsonObject v = j.value(QStringLiteral("verdicts")).toArray().at(0).toObject();
        QCOMPARE(v.value(QStringLiteral("kind")).toString(), QStringLiteral("slow_node"));
        QCOMPARE(v.value(QStringLiteral("slow_with")).toArray().at(1).toString(), QStringLiteral("n3"));
        QCOMPARE(j.value(QStringLiteral("ranked")).toArray().at(0).toObject().value(QStringLiteral("node")).toString(),
                 QStringLiteral("n2"));
    }

    void highLatencyNodeNamed()
    {
        const LinkReport r =
            LinkTest::parse(profile(3), benchOutput(3, {{0, 1, 15, 9000}, {0, 2, 2500, 8000}, {1, 2, 2600, 8500}},
                                                    {verdict("slow_node", 2, {0, 1}, {}, -1, "latency")}))
                .value();
        QCOMPARE(r.verdicts.size(), 1);
        QVERIFY(r.verdicts[0].byLatency);
        QCOMPARE(r.verdictLabel(r.verdicts[0]), QStringLiteral("high-latency node"));
        QVERIFY2(r.verdicts[0].reason.contains(QStringLiteral("n1 (2500 µs)")), qPrintable(r.verdicts[0].reason));
        const QJsonObject j = r.toJson();
        QVERIFY(j.value(QStringLiteral("slow_bandwidth")).isNull());
        QCOMPARE(j.value(QStringLiteral("slow_latency")).toObject().value(QStringLiteral("node")).toString(),
                 QStringLiteral("n3"));
    }

    void searchVerdictsWorded()
    {
        // Eight nodes, the search: round 1 four pairs, round 2 re-pairs n3, n6 (a slow link between them:
        // both fast elsewhere) and n8 (slow with n4 in round 1; no second partner within the rounds).
        const QByteArray out = benchOutput(
            8, {{0, 1, 14, 9000}, {2, 5, 14, 90}, {3, 7, 14, 95}, {4, 6, 14, 9100}, {0, 2, 14, 9050}, {1, 5, 14, 8900}},
            {verdict("slow_link", 2, {}, {0, 1}, 5), verdict("suspect", 7, {3})}, QStringLiteral("nodes"),
            {1, 1, 1, 1, 2, 2});
        const Result<LinkReport> r = LinkTest::parse(profile(8), out);
        QVERIFY2(r.ok(), qPrintable(r.errorString()));
        QVERIFY(!r->allPairs);
        QCOMPARE(r->rounds.size(), 2);
        QCOMPARE(r->rounds[1].pairs, 2);
        QCOMPARE(r->verdicts.size(), 2);
        QCOMPARE(r->verdictLabel(r->verdicts[0]), QStringLiteral("slow link n3 – n6"));
        QVERIFY2(r->verdicts[0].reason.contains(QStringLiteral("the link between n3 and n6 measured 90.0 Mbit/s")),
                 qPrintable(r->verdicts[0].reason));
        QVERIFY2(r->verdicts[1].reason.contains(QStringLiteral("n8 was slow with n4 (95.0 Mbit/s) only")),
                 qPrintable(r->verdicts[1].reason));
        QCOMPARE(r->verdictFor(7), &r->verdicts[1]);
        QCOMPARE(r->verdictFor(2), nullptr); // a slow link names no node
        // The suspect first; then n3 and n6 (their fastest pairs are slow), unmeasured nodes never first.
        const QList<NodeLinkSummary> ranked = r->rankedNodes();
        QCOMPARE(ranked[0].node, 7);
        QCOMPARE(ranked[1].node, 3);
        QCOMPARE(ranked[1].bestMbps, 95.0);

        // The rounds as they finish, from the command's streamed output.
        CannedRunner head(out);
        LinkTestOptions options;
        QList<std::pair<int, int>> seen;
        options.onRound = [&](int round, int pairs) { seen.append({round, pairs}); };
        cluster::ClusterProfile p = profile(8);
        p.isLocal = true; // not kept
        QVERIFY(LinkTest::run(p, head, options, ssh::CancelToken{}).ok());
        QCOMPARE(seen, (QList<std::pair<int, int>>{{1, 4}, {2, 2}}));
    }

    void noVerdictNoWarning()
    {
        const Result<LinkReport> r =
            LinkTest::parse(profile(3), benchOutput(3, {{0, 1, 14, 15000}, {0, 2, 12, 14000}, {1, 2, 13, 14500}}));
        QVERIFY(r.ok());
        QVERIFY(r->verdicts.isEmpty());
        QVERIFY(r->toJson().value(QStringLiteral("slow_bandwidth")).isNull());
    }

    void badOutputIsAnError()
    {
        QVERIFY(
            !LinkTest::parse(profile(3), QByteArray("ORTE was unable to reliably start one or more daemons.\n")).ok());
        // Ranks that are not the profile's nodes (a hostfile that placed two ranks on one node).
        const Result<LinkReport> wrong = LinkTest::parse(profile(3), benchOutput(2, {{0, 1, 10, 100}}));
        QVERIFY(!wrong.ok());
        QVERIFY2(wrong.errorString().contains(QStringLiteral("2 rank(s) for 3 node(s)")),
                 qPrintable(wrong.errorString()));
        const Result<LinkReport> malformed = LinkTest::parse(profile(3), benchOutput(3, {{0, 3, 10, 100}}));
        QVERIFY(!malformed.ok());
        QVERIFY2(malformed.errorString().contains(QStringLiteral("malformed")), qPrintable(malformed.errorString()));
        // A message size that is no whole number of bytes (a double past qint64 was undefined to convert).
        QByteArray huge = benchOutput(3, {{0, 1, 10, 100}});
        huge.replace("1048576", "1e300");
        const Result<LinkReport> noSize = LinkTest::parse(profile(3), huge);
        QVERIFY(!noSize.ok());
        QVERIFY2(noSize.errorString().contains(QStringLiteral("no message size")), qPrintable(noSize.errorString()));
        // A verdict naming a node the profile does not have.
        const Result<LinkReport> badVerdict =
            LinkTest::parse(profile(3), benchOutput(3, {{0, 1, 10, 100}}, {verdict("slow_node", 5, {0})}));
        QVERIFY(!badVerdict.ok());
        QVERIFY2(badVerdict.errorString().contains(QStringLiteral("verdict is malformed")),
                 qPrintable(badVerdict.errorString()));
        QVERIFY(!LinkTest::parse(profile(3), benchOutput(3, {{0, 1, 10, 100}}, {verdict("slow_wire", 1, {0})})).ok());
        QVERIFY(!LinkTest::parse(profile(3), benchOutput(3, {{0, 1, 10, 100}}, {verdict("slow_link", 1, {})})).ok());
    }

    void commandRunsOneRankPerNode()
    {
        cluster::ClusterProfile p = profile(3);
        p.pathPrefix = {QStringLiteral("/opt/td/bin")};
        p.env.insert(QStringLiteral("OMPI_MCA_btl_tcp_if_include"), QStringLiteral("eth0"));
        p.extra.insert(QStringLiteral("trainer"), QStringLiteral("/opt/td/bin/traindeck-trainer"));
        const QString cmd = LinkTest::command(p, LinkTestOptions{});
        for (const char* part :
             {"-np 3", "host-1:1,host-2:1,host-3:1", "--map-by node", "bench-links --bytes 1048576 --iters 5",
              "--max-rounds 4 <", "/opt/td/bin", "OMPI_MCA_btl_tcp_if_include", "OMPI_ALLOW_RUN_AS_ROOT"})
            QVERIFY2(cmd.contains(QLatin1String(part)), qPrintable(cmd));
        LinkTestOptions all;
        all.allPairs = true;
        all.seed = 7;
        const QString allCmd = LinkTest::command(p, all);
        QVERIFY2(allCmd.contains(QLatin1String("--max-rounds 4 --all-pairs --seed 7 <")), qPrintable(allCmd));
        // A "%2" in a path stays in the path, and the numbers still land where they belong.
        p.launcher = QStringLiteral("/opt/mpi%2/bin/mpirun");
        const QString odd = LinkTest::command(p, LinkTestOptions{});
        QVERIFY2(odd.contains(QLatin1String("/opt/mpi%2/bin/mpirun -np 3 ")), qPrintable(odd));
    }

    void formatsBandwidth()
    {
        QCOMPARE(LinkTest::formatBandwidth(47.26), QStringLiteral("47.3 Mbit/s"));
        QCOMPARE(LinkTest::formatBandwidth(9840), QStringLiteral("9.84 Gbit/s"));
    }
};

QTEST_GUILESS_MAIN(TestLinkTest)
#include "tst_linktest.moc"
