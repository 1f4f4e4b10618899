// checks::LinkTest without a network: bench-links' JSON parsed into a report, the slow-node and
// high-latency rules (including the cases that must not name a node), the mpirun command it runs on
// the head, and the JSON the CLI prints.
#include "checks/linktest.h"
#include "ssh/commandrunner.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>
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

// One bench-links line: pairs given as {a, b, latency_us, bandwidth_mbps}.
QByteArray benchOutput(int ranks, const QList<std::array<double, 4>>& pairs)
{
    QJsonArray rows;
    QJsonArray hosts;
    for (int r = 0; r < ranks; ++r)
        hosts.append(QStringLiteral("host-%1").arg(r + 1));
    for (const auto& p : pairs)
        rows.append(QJsonObject{{QStringLiteral("a"), int(p[0])},
                                {QStringLiteral("b"), int(p[1])},
                                {QStringLiteral("host_a"), hosts.at(int(p[0]))},
                                {QStringLiteral("host_b"), hosts.at(int(p[1]))},
                                {QStringLiteral("latency_us"), p[2]},
                                {QStringLiteral("bandwidth_mbps"), p[3]}});
    const QJsonObject o{{QStringLiteral("ranks"), ranks},
                        {QStringLiteral("bytes"), 1048576},
                        {QStringLiteral("hosts"), hosts},
                        {QStringLiteral("pairs"), rows}};
    return "mpirun noise on stdout\n" + QJsonDocument(o).toJson(QJsonDocument::Compact) + "\n";
}
} // namespace

// The head node's answer to the link test's command, without a network.
class CannedRunner : public ssh::CommandRunner {
  public:
    explicit CannedRunner(QByteArray out) : m_out(std::move(out)) {}
    ssh::ExecResult run(const QString&, const ssh::ExecOptions& = {}) override
    {
        ssh::ExecResult r;
        r.status = ssh::ExecResult::Status::Exited;
        r.exitCode = 0;
        r.stdOut = m_out;
        return r;
    }
    QString name() const override { return QStringLiteral("root@host-1:22"); }

  private:
    QByteArray m_out;
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
            LinkTest::parse(profile(3), benchOutput(3, {{0, 1, 14, 103.4}, {0, 2, 12, 15000}, {1, 2, 13, 101}}));
        QVERIFY2(parsed.ok(), qPrintable(parsed.errorString()));
        const LinkReport& r = parsed.value();
        QCOMPARE(r.pairs.size(), 3);
        QVERIFY(r.bandwidthOutlier);
        QCOMPARE(r.bandwidthOutlier->node, 1);
        QVERIFY2(r.bandwidthOutlier->reason.contains(QStringLiteral("n2")), qPrintable(r.bandwidthOutlier->reason));
        QVERIFY(!r.latencyOutlier);
        QCOMPARE(r.find(2, 1)->bandwidthMbps, 101.0); // either order
        const QJsonObject j = r.toJson();
        QCOMPARE(j.value(QStringLiteral("slow_bandwidth")).toObject().value(QStringLiteral("node")).toString(),
                 QStringLiteral("n2"));
        QVERIFY(j.value(QStringLiteral("slow_latency")).isNull());
        QCOMPARE(j.value(QStringLiteral("pairs")).toArray().at(0).toObject().value(QStringLiteral("a")).toString(),
                 QStringLiteral("n1"));
    }

    void highLatencyNodeNamed()
    {
        const LinkReport r =
            LinkTest::parse(profile(3), benchOutput(3, {{0, 1, 15, 9000}, {0, 2, 2500, 8000}, {1, 2, 2600, 8500}}))
                .value();
        QVERIFY(r.latencyOutlier);
        QCOMPARE(r.latencyOutlier->node, 2);
        QVERIFY(!r.bandwidthOutlier);
    }

    void noOutlierWhenOnlyOneLinkIsSlow()
    {
        // One slow pair is not a slow node: both of its ends have a fast link too.
        Result<LinkReport> r =
            LinkTest::parse(profile(3), benchOutput(3, {{0, 1, 14, 15000}, {0, 2, 12, 14000}, {1, 2, 4000, 400}}));
        QVERIFY(r.ok());
        QVERIFY(!r->bandwidthOutlier);
        QVERIFY(!r->latencyOutlier);
        // Two nodes: one link, nothing to compare it with.
        r = LinkTest::parse(profile(2), benchOutput(2, {{0, 1, 2000, 50}}));
        QVERIFY(r.ok());
        QVERIFY(!r->bandwidthOutlier);
        QVERIFY(!r->latencyOutlier);
        // Slower but not by half: no verdict.
        r = LinkTest::parse(profile(3), benchOutput(3, {{0, 1, 14, 7000}, {0, 2, 12, 12000}, {1, 2, 13, 6500}}));
        QVERIFY(!r->bandwidthOutlier);
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
              "/opt/td/bin", "OMPI_MCA_btl_tcp_if_include", "OMPI_ALLOW_RUN_AS_ROOT"})
            QVERIFY2(cmd.contains(QLatin1String(part)), qPrintable(cmd));
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
