// The node checks on 16 testbed nodes (scripts/testbed.sh up --nodes 16), one of which differs
// (Open MPI hidden on tb-node11): the report names it, the nodes that agree read as one group
// ("14 nodes: same as tb-node2" in the text output, `groups` in the JSON), --all-nodes prints every
// node, and the whole check takes at most twice the slowest node's own time (stated in the log).
#include "cli_run.h"
#include "test_paths.h"
#include "testbed_fixture.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QTest>

using traindeck::testing::Testbed;
using Outcome = traindeck::testing::CliOutcome;

class TestTestbedChecks : public QObject {
    Q_OBJECT

    static constexpr int kNodes = 16;
    static constexpr int kOdd = 11; // the node without Open MPI

    Outcome cli(const QStringList& args)
    {
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), m_tmp.filePath(QStringLiteral("config")));
        p.setProcessEnvironment(env);
        p.start(QString::fromUtf8(TRAINDECK_CLI), args);
        p.closeWriteChannel();
        if (!p.waitForFinished(240000)) {
            p.kill();
            p.waitForFinished(5000);
            return Outcome{-1, p.readAllStandardOutput(), p.readAllStandardError() + "\n<timed out>"};
        }
        return Outcome{p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(),
                       p.readAllStandardError()};
    }

    Testbed m_tb;
    QTemporaryDir m_tmp;
    QString m_profile;

  private Q_SLOTS:
    void initTestCase()
    {
        const QString why = Testbed::unavailableReason();
        if (!why.isEmpty())
            QSKIP(qPrintable(QStringLiteral("testbed checks skipped: ") + why));
        QVERIFY(m_tmp.isValid());
        QElapsedTimer t;
        t.start();
        QString error;
        QVERIFY2(m_tb.up(kNodes, &error), qPrintable(error));
        qInfo("%d testbed nodes up in %.1f s", kNodes, t.elapsed() / 1000.0);
        m_profile = m_tb.profilePath();
    }

    void cleanupTestCase()
    {
        m_tb.down();
        QVERIFY2(m_tb.processesOn(1).isEmpty(), "the testbed left processes behind");
    }

    void nodeThatDiffersAmongSixteen()
    {
        QByteArray out;
        const QString odd = QString::number(kOdd);
        for (const char* path : {"/usr/bin/orted", "/usr/bin/mpirun"})
            QVERIFY2(m_tb.script({QStringLiteral("mask"), odd, QString::fromLatin1(path)}, &out) == 0, out.constData());
        auto restore = qScopeGuard([&] {
            for (const char* path : {"/usr/bin/orted", "/usr/bin/mpirun"})
                m_tb.script({QStringLiteral("unmask"), odd, QString::fromLatin1(path)});
        });

        QElapsedTimer t;
        t.start();
        const Outcome r =
            cli({QStringLiteral("check"), QStringLiteral("--profile"), m_profile, QStringLiteral("--json")});
        const qint64 wallMs = t.elapsed();
        QCOMPARE(r.exitCode, 1); // no trainer deployed anywhere, and tb-node11 has no Open MPI
        const QJsonObject rep = QJsonDocument::fromJson(r.out).object();
        const QJsonArray nodes = rep.value(QStringLiteral("nodes")).toArray();
        QCOMPARE(nodes.size(), kNodes);
        qint64 slowestMs = 0;
        for (const QJsonValue n : nodes) {
            const QJsonObject node = n.toObject();
            qint64 ms = 0;
            for (const QJsonValue c : node.value(QStringLiteral("checks")).toArray()) {
                const QJsonObject o = c.toObject();
                ms += o.value(QStringLiteral("ms")).toInteger();
                if (o.value(QStringLiteral("id")).toString() == QLatin1String("mpi"))
                    QCOMPARE(o.value(QStringLiteral("status")).toString(),
                             node.value(QStringLiteral("node")).toString() == Testbed::nodeName(kOdd)
                                 ? QStringLiteral("fail")
                                 : QStringLiteral("pass"));
            }
            slowestMs = std::max(slowestMs, ms);
        }
        qInfo("check of %d nodes: %.1f s; the slowest node's own checks %.1f s", kNodes, wallMs / 1000.0,
              slowestMs / 1000.0);

        // The workers that agree are one group; the head and tb-node11 stand alone.
        const QJsonArray groups = rep.value(QStringLiteral("groups")).toArray();
        QCOMPARE(groups.size(), 3);
        const QJsonArray same = groups.at(0).toArray();
        QCOMPARE(same.size(), kNodes - 2);
        QVERIFY(!same.contains(Testbed::nodeName(1)) && !same.contains(Testbed::nodeName(kOdd)));
        QCOMPARE(groups.at(1).toArray(), QJsonArray{Testbed::nodeName(1)});
        QCOMPARE(groups.at(2).toArray(), QJsonArray{Testbed::nodeName(kOdd)});

        // The text a person reads: the 14 once, the node that differs by name, Open MPI's versions grouped.
        const Outcome text = cli({QStringLiteral("check"), QStringLiteral("--profile"), m_profile});
        QCOMPARE(text.exitCode, 1);
        QVERIFY2(text.out.contains("14 nodes: same as tb-node2 (tb-node2, tb-node3, tb-node4, … tb-node16)"),
                 text.all().constData());
        QVERIFY2(text.out.contains("\ntb-node11 (tb-node11)\n"), text.all().constData());
        QVERIFY2(!text.out.contains("\ntb-node12 (tb-node12)\n"), text.all().constData());
        // Every node with --all-nodes.
        const Outcome all =
            cli({QStringLiteral("check"), QStringLiteral("--profile"), m_profile, QStringLiteral("--all-nodes")});
        for (int k = 1; k <= kNodes; ++k) // "tb-node1 (tb-node1, head)", "tb-node2 (tb-node2)"
            QVERIFY2(all.out.contains(QStringLiteral("%1 (%1").arg(Testbed::nodeName(k)).toUtf8()),
                     all.all().constData());
        QVERIFY(!all.out.contains("nodes: same as"));
        QVERIFY(all.out.size() > text.out.size());
    }

    void linkSearchAmongSixteen();      // after the check above: it deploys the trainer
    void stalledRankNamedWithItsHost(); // after the link test: it uses the deployed trainer
};

void TestTestbedChecks::linkSearchAmongSixteen()
{
    // mpirun on the head reaches the workers over SSH with the head's key, and runs the deployed trainer.
    Outcome r = cli({QStringLiteral("install-key"), QStringLiteral("--profile"), m_profile, QStringLiteral("--key"),
                     m_tb.dir() + QStringLiteral("/client/id_ed25519.pub"), QStringLiteral("--head-to-workers")});
    QVERIFY2(r.exitCode == 0, r.all().constData());
    r = cli({QStringLiteral("deploy"), QStringLiteral("--profile"), m_profile, QStringLiteral("--trainer"),
             QString::fromUtf8(TRAINDECK_TRAINER), QStringLiteral("--dest"),
             m_tb.workDirOnNodes() + QStringLiteral("/bin/traindeck-trainer")});
    QVERIFY2(r.exitCode == 0, r.all().constData());

    // (a) one node at 100 mbit, drawn at random: the search names it, and nothing else.
    const int slow = 1 + int(QRandomGenerator::global()->bounded(kNodes));
    const QString slowName = Testbed::nodeName(slow);
    QByteArray out;
    QVERIFY2(m_tb.script(
                 {QStringLiteral("shape"), QString::number(slow), QStringLiteral("--rate"), QStringLiteral("100mbit")},
                 &out) == 0,
             out.constData());
    {
        auto unshape = qScopeGuard([&] { m_tb.script({QStringLiteral("unshape"), QString::number(slow)}); });
        r = cli({QStringLiteral("check"), QStringLiteral("--profile"), m_profile, QStringLiteral("--links-only"),
                 QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, r.all().constData());
        const QJsonObject links = QJsonDocument::fromJson(r.out).object().value(QStringLiteral("links")).toObject();
        QVERIFY2(links.value(QStringLiteral("ok")).toBool(), r.all().constData());
        const QJsonArray verdicts = links.value(QStringLiteral("verdicts")).toArray();
        const QJsonArray rounds = links.value(QStringLiteral("rounds")).toArray();
        qInfo("link search, %s at 100 mbit among %d: %lld round(s), %.1f s, verdicts %s", qPrintable(slowName), kNodes,
              qlonglong(rounds.size()), links.value(QStringLiteral("ms")).toDouble() / 1000,
              QJsonDocument(verdicts).toJson(QJsonDocument::Compact).constData());
        QCOMPARE(links.value(QStringLiteral("mode")).toString(), QStringLiteral("nodes"));
        QCOMPARE(verdicts.size(), 1);
        QCOMPARE(verdicts.at(0).toObject().value(QStringLiteral("kind")).toString(), QStringLiteral("slow_node"));
        QCOMPARE(verdicts.at(0).toObject().value(QStringLiteral("node")).toString(), slowName);
        QVERIFY(rounds.size() >= 2 && rounds.size() <= 3);
        QCOMPARE(
            links.value(QStringLiteral("ranked")).toArray().at(0).toObject().value(QStringLiteral("node")).toString(),
            slowName);
        // Round 1 measured every node once: 8 pairs side by side.
        QCOMPARE(rounds.at(0).toObject().value(QStringLiteral("pairs")).toInt(), kNodes / 2);
    }

    // (b) a slow link between two healthy nodes (each fast with everyone else): --all-pairs names the link.
    const int a = 4, b = 13;
    QVERIFY2(m_tb.script({QStringLiteral("shape-pair"), QString::number(a), QString::number(b),
                          QStringLiteral("--rate"), QStringLiteral("100mbit")},
                         &out) == 0,
             out.constData());
    auto unshapePair = qScopeGuard([&] {
        m_tb.script({QStringLiteral("unshape"), QString::number(a)});
        m_tb.script({QStringLiteral("unshape"), QString::number(b)});
    });
    r = cli({QStringLiteral("check"), QStringLiteral("--profile"), m_profile, QStringLiteral("--links-only"),
             QStringLiteral("--all-pairs")});
    QVERIFY2(r.exitCode == 0, r.all().constData());
    qInfo("link test, all pairs, tb-node4 <-> tb-node13 at 100 mbit:\n%s", r.out.constData());
    // Every one of the 120 pairs in 15 rounds, then each slow pair measured once more (at most 2 rounds of
    // 8): beside CI's builds a few healthy pairs measured slow once and were measured again.
    const QRegularExpressionMatch counted =
        QRegularExpression(QStringLiteral("(\\d+) pair\\(s\\) in (\\d+) round")).match(QString::fromUtf8(r.out));
    QVERIFY2(counted.hasMatch(), r.all().constData());
    QVERIFY2(counted.captured(1).toInt() >= 120 && counted.captured(1).toInt() <= 136, r.all().constData());
    QVERIFY2(counted.captured(2).toInt() >= 15 && counted.captured(2).toInt() <= 17, r.all().constData());
    QVERIFY2(r.out.contains("[WARN] slow link tb-node4 – tb-node13: the link between tb-node4 and tb-node13 measured"),
             r.all().constData());
    QVERIFY2(!r.out.contains("slow node"), r.all().constData());
    // The matrix: a row per node.
    for (int k = 1; k <= kNodes; ++k)
        QVERIFY2(r.out.contains(QStringLiteral("\n  %1 ").arg(Testbed::nodeName(k)).toUtf8()), r.all().constData());
}

void TestTestbedChecks::stalledRankNamedWithItsHost()
{
    // 16 ranks on 16 nodes (one each); rank 9 (tb-node10) stops before step 3's allreduce. The warning names
    // that rank and its host within --stall-warning + 5 s, and --stall-abort ends every rank.
    constexpr double kWarning = 8, kAbort = 20;
    const QString spec =
        traindeck::testing::writeTinySpec(m_tmp.filePath(QStringLiteral("stall16.json")), QStringLiteral("stall16"),
                                          {{QStringLiteral("max-steps"), 6},
                                           {QStringLiteral("micro-batch"), 1},
                                           {QStringLiteral("inject-stall"), QStringLiteral("9:3:600")},
                                           {QStringLiteral("stall-warning"), kWarning},
                                           {QStringLiteral("stall-abort"), kAbort}});
    const QString runs = m_tmp.filePath(QStringLiteral("runs"));
    QElapsedTimer t;
    t.start();
    const Outcome r = cli({QStringLiteral("launch"), QStringLiteral("--spec"), spec, QStringLiteral("--profile"),
                           m_profile, QStringLiteral("--runs-dir"), runs});
    QCOMPARE(r.exitCode, 1); // aborted: failed
    const QString run = QString::fromUtf8(r.out.left(r.out.indexOf('\n')));
    QFile metrics(runs + QLatin1Char('/') + run + QStringLiteral("/metrics.jsonl"));
    QVERIFY2(metrics.open(QIODevice::ReadOnly), qPrintable(r.all()));
    QJsonObject warning, hello;
    for (const QByteArray& line : metrics.readAll().split('\n')) {
        const QJsonObject o = QJsonDocument::fromJson(line).object();
        if (o.value(QStringLiteral("type")).toString() == QLatin1String("hello"))
            hello = o;
        if (o.value(QStringLiteral("code")).toString() == QLatin1String("stall") && warning.isEmpty())
            warning = o;
    }
    QCOMPARE(hello.value(QStringLiteral("world_size")).toInt(), kNodes);
    QVERIFY2(!warning.isEmpty(), r.all().constData());
    const QString message = warning.value(QStringLiteral("message")).toString();
    const QJsonObject stall = warning.value(QStringLiteral("stall")).toObject();
    qInfo("stall among %d ranks on %d nodes, %.1f s after launch: %s", kNodes, kNodes, t.elapsed() / 1000.0,
          qPrintable(message));
    QCOMPARE(warning.value(QStringLiteral("rank")).toInt(), 9);
    QCOMPARE(warning.value(QStringLiteral("host")).toString(), Testbed::nodeName(10));
    QVERIFY2(message.contains(QStringLiteral("rank 9 (tb-node10) has not reached")), qPrintable(message));
    // The 15 waiting ranks, one per host, counted by host rather than listed.
    QVERIFY2(message.contains(QStringLiteral("15 ranks on 15 hosts")), qPrintable(message));
    QVERIFY2(stall.value(QStringLiteral("waited_s")).toDouble() <= kWarning + 5, qPrintable(message));
    // The abort ended every rank on every node.
    for (int k = 1; k <= kNodes; ++k) {
        // /proc/PID/comm keeps 15 characters: "traindeck-train".
        const QStringList left = m_tb.processesOn(k).filter(QStringLiteral("traindeck-tr"));
        QVERIFY2(left.isEmpty(), qPrintable(Testbed::nodeName(k) + QStringLiteral(": ") + left.join(QLatin1Char(' '))));
    }
    QVERIFY2(r.all().contains("stall"), r.all().constData());
}

QTEST_GUILESS_MAIN(TestTestbedChecks)
#include "tst_testbed_checks.moc"
