// The whole product across hosts, on a real three-node cluster on this machine (scripts/testbed.sh):
// each node a network namespace with its own address, host name, sshd, ~/.ssh and work directory.
// Everything goes through traindeck-cli as a user would type it:
//   1. fresh cluster: a new key installed on every node with the testbed's bootstrap key, head → worker
//      trust, the trainer deployed to every node, `check` green (cross-node matrix included), a
//      3-node × 1-slot run whose hello names the three hosts;
//   2. a node that differs (no Open MPI on tb-node3): check fails that node with a remedy, launch
//      refuses before anything starts;
//   3. a straggler planted on the rank of tb-node3: report names that rank and tb-node3;
//   3b. a node slower per sample (tb-node3 held to 10 % of one CPU by scripts/testbed.sh throttle):
//      --balance auto moves samples away from its rank;
//   4. a slow link (tb-node2 at 100 mbit): the link test names tb-node2, the run is communication-bound;
//   5. node loss (every process of tb-node3 killed mid-run): failed within 60 s naming the node and
//      rank, nothing left on the other nodes, resume completes once the node is back;
//   6. desktop disconnect (the desktop's link down mid-run): the run goes on, watch reattaches and the
//      local mirror equals the head's metrics.jsonl byte for byte.
#include "cli_run.h"
#include "test_paths.h"
#include "testbed_fixture.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

using traindeck::testing::Testbed;

namespace {
using Outcome = traindeck::testing::CliOutcome;
using traindeck::testing::lastOfType;

QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

bool writeAll(const QString& path, const QByteArray& data)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(data) == data.size();
}
} // namespace

class TestTestbed : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void freshCluster();
    void nodeThatDiffers();
    void straggler();
    void throttledNodeGetsFewerSamples();
    void slowLink();
    void nodeLoss();
    void desktopDisconnect();

  private:
    Outcome cli(const QStringList& args, int timeoutMs = 240000, const QByteArray& input = {});
    QProcess* startCli(const QStringList& args);
    QString writeSpec(const QString& name, const QJsonObject& trainerExtra);
    QJsonObject report(const QString& run);
    QString headRunDir(const QString& run) const { return m_tb.nodeWorkDir(1) + QStringLiteral("/runs/") + run; }
    QStringList trainingProcessesOn(int node) const;

    Testbed m_tb;
    QTemporaryDir m_tmp;
    QString m_runs, m_corpus, m_tokenizer, m_profile, m_key;
    bool m_ready = false; // freshCluster set the cluster up
};

void TestTestbed::initTestCase()
{
    const QString why = Testbed::unavailableReason();
    if (!why.isEmpty())
        QSKIP(qPrintable(QStringLiteral("testbed scenarios skipped: ") + why));
    QVERIFY(m_tmp.isValid());
    m_runs = m_tmp.filePath(QStringLiteral("runs"));
    m_corpus = traindeck::testing::demoCorpus();
    m_tokenizer = traindeck::testing::qwenTokenizer();
    if (!QFile::exists(m_corpus) || !QFile::exists(m_tokenizer))
        QSKIP("demo corpus or Qwen tokenizer missing: run scripts/setup-deps.sh");
    QString error;
    QVERIFY2(m_tb.up(3, &error), qPrintable(error));
    m_profile = m_tmp.filePath(QStringLiteral("testbed.json"));
    QVERIFY(QFile::copy(m_tb.profilePath(), m_profile));
}

void TestTestbed::cleanupTestCase()
{
    m_tb.down();
    QVERIFY2(m_tb.processesOn(1).isEmpty(), "the testbed left processes behind");
}

Outcome TestTestbed::cli(const QStringList& args, int timeoutMs, const QByteArray& input)
{
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), m_tmp.filePath(QStringLiteral("config")));
    p.setProcessEnvironment(env);
    QStringList full = args;
    const QString cmd = args.value(0);
    if (cmd == QLatin1String("launch") || cmd == QLatin1String("watch") || cmd == QLatin1String("report") ||
        cmd == QLatin1String("runs") || cmd == QLatin1String("resume") || cmd == QLatin1String("cancel"))
        full << QStringLiteral("--runs-dir") << m_runs;
    p.start(QString::fromUtf8(TRAINDECK_CLI), full);
    if (!input.isEmpty())
        p.write(input);
    p.closeWriteChannel();
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished(5000);
        return Outcome{-1, p.readAllStandardOutput(), p.readAllStandardError() + "\n<timed out>"};
    }
    return Outcome{p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(),
                   p.readAllStandardError()};
}

QProcess* TestTestbed::startCli(const QStringList& args)
{
    auto* p = new QProcess(this);
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), m_tmp.filePath(QStringLiteral("config")));
    p->setProcessEnvironment(env);
    p->start(QString::fromUtf8(TRAINDECK_CLI), args + QStringList{QStringLiteral("--runs-dir"), m_runs});
    return p;
}

QString TestTestbed::writeSpec(const QString& name, const QJsonObject& trainerExtra)
{
    return traindeck::testing::writeTinySpec(m_tmp.filePath(name + QStringLiteral(".json")), name, trainerExtra);
}

QJsonObject TestTestbed::report(const QString& run)
{
    const Outcome r = cli({QStringLiteral("report"), run, QStringLiteral("--json")}, 60000);
    if (r.exitCode != 0)
        qWarning("report failed: %s", r.err.constData());
    return QJsonDocument::fromJson(r.out).object();
}

// A macro: QSKIP returns from the function it is written in.
#define REQUIRE_CLUSTER()                                                                                              \
    do {                                                                                                               \
        if (!m_ready)                                                                                                  \
            QSKIP("needs the cluster set up by freshCluster");                                                         \
    } while (false)

QStringList TestTestbed::trainingProcessesOn(int node) const
{
    QStringList found;
    for (const QString& name : m_tb.processesOn(node)) {
        if (name.startsWith(QLatin1String("traindeck")) || name == QLatin1String("orted") ||
            name == QLatin1String("mpirun") || name == QLatin1String("prted") || name == QLatin1String("run.sh"))
            found << name;
    }
    return found;
}

void TestTestbed::freshCluster()
{
    QElapsedTimer t;
    t.start();
    // A new key of the user's own, installed on every node by logging in with the testbed's bootstrap
    // key (the nodes take keys only: no passwords), then head → worker trust for mpirun.
    const QString keyDir = m_tmp.filePath(QStringLiteral("keys"));
    Outcome r = cli({QStringLiteral("keygen"), QStringLiteral("--out"), keyDir, QStringLiteral("--name"),
                     QStringLiteral("id_testbed")});
    QVERIFY2(r.exitCode == 0, r.all().constData());
    m_key = keyDir + QStringLiteral("/id_testbed");
    r = cli({QStringLiteral("install-key"), QStringLiteral("--profile"), m_profile, QStringLiteral("--key"),
             m_key + QStringLiteral(".pub"), QStringLiteral("--head-to-workers")});
    QVERIFY2(r.exitCode == 0, r.all().constData());
    for (int k = 1; k <= 3; ++k)
        QVERIFY2(r.out.contains(Testbed::nodeName(k).toUtf8() + ": key added, key login verified"),
                 r.all().constData());
    QVERIFY2(r.out.contains("passwordless SSH to root@tb-node2 works"), r.all().constData());
    QVERIFY2(r.out.contains("passwordless SSH to root@tb-node3 works"), r.all().constData());
    // The key is really on each node's own ~/.ssh, and the head's key on the workers only.
    const QByteArray pub = readAll(m_key + QStringLiteral(".pub")).trimmed();
    for (int k = 1; k <= 3; ++k)
        QVERIFY(
            readAll(QStringLiteral("%1/tb-node%2/ssh/authorized_keys").arg(m_tb.dir()).arg(k)).contains(pub.left(80)));
    const QByteArray headKey = readAll(m_tb.dir() + QStringLiteral("/tb-node1/ssh/id_ed25519.pub")).trimmed();
    QVERIFY(!headKey.isEmpty());
    QVERIFY(readAll(m_tb.dir() + QStringLiteral("/tb-node2/ssh/authorized_keys")).contains(headKey.left(80)));
    QVERIFY(!readAll(m_tb.dir() + QStringLiteral("/tb-node1/ssh/authorized_keys")).contains(headKey.left(80)));

    // From now on the profile uses the new key.
    QJsonObject profile = QJsonDocument::fromJson(readAll(m_profile)).object();
    QJsonArray nodes = profile.value(QStringLiteral("nodes")).toArray();
    for (int i = 0; i < nodes.size(); ++i) {
        QJsonObject n = nodes[i].toObject();
        n.insert(QStringLiteral("identity"), m_key);
        nodes[i] = n;
    }
    profile.insert(QStringLiteral("nodes"), nodes);
    QVERIFY(writeAll(m_profile, QJsonDocument(profile).toJson()));

    // No trainer on the nodes yet: check says so, with the remedy.
    r = cli({QStringLiteral("check"), QStringLiteral("--profile"), m_profile, QStringLiteral("--json")});
    QCOMPARE(r.exitCode, 1);
    QJsonObject rep = QJsonDocument::fromJson(r.out).object();
    for (const QJsonValue n : rep.value(QStringLiteral("nodes")).toArray()) {
        for (const QJsonValue c : n.toObject().value(QStringLiteral("checks")).toArray()) {
            if (c.toObject().value(QStringLiteral("id")).toString() == QLatin1String("trainer")) {
                QCOMPARE(c.toObject().value(QStringLiteral("status")).toString(), QStringLiteral("fail"));
                QVERIFY(c.toObject().value(QStringLiteral("remedy")).toString().contains(QStringLiteral("deploy")));
            }
        }
    }

    // Deploy the trainer to every node's own work directory, as a user would.
    r = cli({QStringLiteral("deploy"), QStringLiteral("--profile"), m_profile, QStringLiteral("--trainer"),
             QString::fromUtf8(TRAINDECK_TRAINER), QStringLiteral("--dest"),
             m_tb.workDirOnNodes() + QStringLiteral("/bin/traindeck-trainer")});
    QVERIFY2(r.exitCode == 0, r.all().constData());
    for (int k = 1; k <= 3; ++k)
        QVERIFY(QFile::exists(m_tb.nodeWorkDir(k) + QStringLiteral("/bin/traindeck-trainer")));
    QVERIFY(!QFile::exists(m_tb.workDirOnNodes() + QStringLiteral("/bin/traindeck-trainer"))); // not on the desktop

    r = cli({QStringLiteral("check"), QStringLiteral("--profile"), m_profile, QStringLiteral("--json")});
    rep = QJsonDocument::fromJson(r.out).object();
    QVERIFY2(r.exitCode == 0, r.all().constData());
    QCOMPARE(rep.value(QStringLiteral("nodes")).toArray().size(), 3);
    for (const QJsonValue n : rep.value(QStringLiteral("nodes")).toArray()) {
        for (const QJsonValue c : n.toObject().value(QStringLiteral("checks")).toArray()) {
            const QJsonObject o = c.toObject();
            QVERIFY2(o.value(QStringLiteral("status")).toString() != QLatin1String("fail"),
                     QJsonDocument(o).toJson().constData());
            if (o.value(QStringLiteral("id")).toString() == QLatin1String("head-ssh"))
                QCOMPARE(o.value(QStringLiteral("status")).toString(), QStringLiteral("pass"));
        }
    }
    // The cross-node version matrix: the same trainer and MPI everywhere.
    bool sawTrainerRow = false;
    for (const QJsonValue m : rep.value(QStringLiteral("matrix")).toArray()) {
        const QJsonObject o = m.toObject();
        if (o.value(QStringLiteral("id")).toString() == QLatin1String("trainer") ||
            o.value(QStringLiteral("id")).toString() == QLatin1String("mpi")) {
            sawTrainerRow = sawTrainerRow || o.value(QStringLiteral("id")).toString() == QLatin1String("trainer");
            QVERIFY2(!o.value(QStringLiteral("differs")).toBool(), QJsonDocument(o).toJson().constData());
            QCOMPARE(o.value(QStringLiteral("values")).toArray().size(), 3);
        }
    }
    QVERIFY(sawTrainerRow);

    // A run on 3 nodes × 1 slot, followed from the desktop to the end.
    r = cli({QStringLiteral("launch"), QStringLiteral("--spec"),
             writeSpec(QStringLiteral("fresh"), {{QStringLiteral("max-steps"), 4}}), QStringLiteral("--profile"),
             m_profile, QStringLiteral("--json")});
    QVERIFY2(r.exitCode == 0, r.all().constData());
    const QString run = QString::fromUtf8(r.out.left(r.out.indexOf('\n')));
    const QList<QJsonObject> lines = r.lines();
    QCOMPARE(lastOfType(lines, QStringLiteral("end")).value(QStringLiteral("state")).toString(),
             QStringLiteral("finished"));
    const QJsonObject hello = lastOfType(lines, QStringLiteral("hello"));
    QCOMPARE(hello.value(QStringLiteral("world_size")).toInt(), 3);
    QCOMPARE(hello.value(QStringLiteral("hosts")).toArray(),
             (QJsonArray{QStringLiteral("tb-node1"), QStringLiteral("tb-node2"), QStringLiteral("tb-node3")}));
    // The run lives on the head; the desktop holds its record and an exact mirror.
    QVERIFY(QFile::exists(headRunDir(run) + QStringLiteral("/exit-code")));
    QCOMPARE(readAll(m_runs + QLatin1Char('/') + run + QStringLiteral("/metrics.jsonl")),
             readAll(headRunDir(run) + QStringLiteral("/metrics.jsonl")));
    m_ready = true;
    qInfo("fresh cluster: keys, trust, deploy, checks and a 3-node run in %.1f s", t.elapsed() / 1000.0);
}

void TestTestbed::nodeThatDiffers()
{
    REQUIRE_CLUSTER();
    // tb-node3 loses Open MPI (its orted and mpirun are hidden on that node only).
    QByteArray out;
    QVERIFY2(m_tb.script({QStringLiteral("mask"), QStringLiteral("3"), QStringLiteral("/usr/bin/orted")}, &out) == 0,
             out.constData());
    QVERIFY2(m_tb.script({QStringLiteral("mask"), QStringLiteral("3"), QStringLiteral("/usr/bin/mpirun")}, &out) == 0,
             out.constData());
    auto restore = qScopeGuard([&] {
        m_tb.script({QStringLiteral("unmask"), QStringLiteral("3"), QStringLiteral("/usr/bin/orted")});
        m_tb.script({QStringLiteral("unmask"), QStringLiteral("3"), QStringLiteral("/usr/bin/mpirun")});
    });
    Outcome r = cli({QStringLiteral("check"), QStringLiteral("--profile"), m_profile, QStringLiteral("--json")});
    QCOMPARE(r.exitCode, 1);
    const QJsonObject rep = QJsonDocument::fromJson(r.out).object();
    for (const QJsonValue n : rep.value(QStringLiteral("nodes")).toArray()) {
        const QJsonObject node = n.toObject();
        for (const QJsonValue c : node.value(QStringLiteral("checks")).toArray()) {
            const QJsonObject o = c.toObject();
            if (o.value(QStringLiteral("id")).toString() != QLatin1String("mpi"))
                continue;
            if (node.value(QStringLiteral("node")).toString() == QLatin1String("tb-node3")) {
                QCOMPARE(o.value(QStringLiteral("status")).toString(), QStringLiteral("fail"));
                QVERIFY2(!o.value(QStringLiteral("remedy")).toString().isEmpty(),
                         QJsonDocument(o).toJson().constData());
            } else {
                QCOMPARE(o.value(QStringLiteral("status")).toString(), QStringLiteral("pass"));
            }
        }
    }
    // launch refuses before anything starts: no run directory on the head, no local record.
    const QStringList before =
        QDir(m_tb.nodeWorkDir(1) + QStringLiteral("/runs")).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    r = cli({QStringLiteral("launch"), QStringLiteral("--spec"),
             writeSpec(QStringLiteral("differs"), {{QStringLiteral("max-steps"), 2}}), QStringLiteral("--profile"),
             m_profile});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("tb-node3") && r.err.contains("orted"), r.all().constData());
    QCOMPARE(QDir(m_tb.nodeWorkDir(1) + QStringLiteral("/runs")).entryList(QDir::Dirs | QDir::NoDotAndDotDot), before);
    QVERIFY(trainingProcessesOn(1).isEmpty());
}

void TestTestbed::straggler()
{
    REQUIRE_CLUSTER();
    // Rank 2 runs on tb-node3 (the hostfile lists the head first, then the workers in order).
    const int steps = 30;
    const Outcome r = cli(
        {QStringLiteral("launch"), QStringLiteral("--spec"),
         writeSpec(QStringLiteral("straggler"), {{QStringLiteral("max-steps"), steps},
                                                 {QStringLiteral("inject-delay"), QStringLiteral("2:250:forward")}}),
         QStringLiteral("--profile"), m_profile, QStringLiteral("--json")});
    QVERIFY2(r.exitCode == 0, r.all().constData());
    const QString run = QString::fromUtf8(r.out.left(r.out.indexOf('\n')));
    const QJsonObject rep = report(run);
    const QJsonObject found = traindeck::testing::findingOfKind(rep, QStringLiteral("straggler"));
    QVERIFY2(!found.isEmpty(), QJsonDocument(rep).toJson().constData());
    QCOMPARE(found.value(QStringLiteral("ranks")).toArray(), QJsonArray{2});
    QCOMPARE(found.value(QStringLiteral("hosts")).toArray(), QJsonArray{QStringLiteral("tb-node3")});
    // The text report names them too.
    const Outcome text = cli({QStringLiteral("report"), run}, 60000);
    QVERIFY2(text.out.contains("tb-node3"), text.all().constData());
}

void TestTestbed::throttledNodeGetsFewerSamples()
{
    REQUIRE_CLUSTER();
    QByteArray out;
    QVERIFY2(
        m_tb.script({QStringLiteral("throttle"), QStringLiteral("3"), QStringLiteral("--cpu"), QStringLiteral("10%")},
                    &out) == 0,
        out.constData());
    auto unthrottle = qScopeGuard([&] { m_tb.script({QStringLiteral("unthrottle"), QStringLiteral("3")}); });
    QVERIFY(m_tb.script({QStringLiteral("status")}, &out) == 0);
    QVERIFY2(out.contains("10%"), out.constData());

    // 3 ranks x 4 samples; rank 2 (tb-node3) gets at most 10 % of a core. In CI this scenario runs beside
    // the sanitizer builds, which leave the other ranks well under a core each: at 30 % the throttled
    // rank's forward was only 1.3x theirs there, within the noise, and the split rightly stayed.
    const Outcome r = cli({QStringLiteral("launch"), QStringLiteral("--spec"),
                           writeSpec(QStringLiteral("throttled"), {{QStringLiteral("max-steps"), 10},
                                                                   {QStringLiteral("micro-batch"), 4},
                                                                   {QStringLiteral("balance"), QStringLiteral("auto")},
                                                                   {QStringLiteral("balance-every"), 3}}),
                           QStringLiteral("--profile"), m_profile, QStringLiteral("--json")});
    QVERIFY2(r.exitCode == 0, r.all().constData());
    // The desktop's mirror of the head's metrics.jsonl, as the trainer wrote it.
    const QString run = QString::fromUtf8(r.out.left(r.out.indexOf('\n')));
    QList<QJsonObject> records;
    for (const QByteArray& line :
         readAll(m_runs + QLatin1Char('/') + run + QStringLiteral("/metrics.jsonl")).split('\n'))
        if (!line.trimmed().isEmpty())
            records << QJsonDocument::fromJson(line).object();
    const QJsonObject last = lastOfType(records, QStringLiteral("step"));
    const QJsonArray samples = last.value(QStringLiteral("samples")).toArray();
    QCOMPARE(samples.size(), 3);
    QCOMPARE(samples[0].toInt() + samples[1].toInt() + samples[2].toInt(), 12);
    QVERIFY2(samples[2].toInt() < 4 && samples[2].toInt() < samples[0].toInt() &&
                 samples[2].toInt() < samples[1].toInt(),
             QJsonDocument(last).toJson().constData());
    qInfo("tb-node3 at 10 %% of a CPU: samples per rank %d/%d/%d at step %d", samples[0].toInt(), samples[1].toInt(),
          samples[2].toInt(), last.value(QStringLiteral("step")).toInt());
}

void TestTestbed::slowLink()
{
    REQUIRE_CLUSTER();
    QByteArray out;
    QVERIFY2(
        m_tb.script({QStringLiteral("shape"), QStringLiteral("2"), QStringLiteral("--rate"), QStringLiteral("100mbit")},
                    &out) == 0,
        out.constData());
    auto unshape = qScopeGuard([&] { m_tb.script({QStringLiteral("unshape"), QStringLiteral("2")}); });
    QVERIFY(m_tb.script({QStringLiteral("status")}, &out) == 0);
    QVERIFY2(out.contains("tbf"), out.constData());

    // (b) the link test: the matrix, and tb-node2 named as the slow node.
    Outcome r = cli({QStringLiteral("check"), QStringLiteral("--profile"), m_profile, QStringLiteral("--links"),
                     QStringLiteral("--json")});
    QVERIFY2(r.exitCode == 0, r.all().constData());
    const QJsonObject links = QJsonDocument::fromJson(r.out).object().value(QStringLiteral("links")).toObject();
    QVERIFY2(links.value(QStringLiteral("ok")).toBool(), QJsonDocument(links).toJson().constData());
    QCOMPARE(links.value(QStringLiteral("pairs")).toArray().size(), 3);
    QCOMPARE(links.value(QStringLiteral("slow_bandwidth")).toObject().value(QStringLiteral("node")).toString(),
             QStringLiteral("tb-node2"));
    for (const QJsonValue p : links.value(QStringLiteral("pairs")).toArray()) {
        const QJsonObject o = p.toObject();
        const bool viaNode2 = o.value(QStringLiteral("a")).toString() == QLatin1String("tb-node2") ||
                              o.value(QStringLiteral("b")).toString() == QLatin1String("tb-node2");
        const double mbps = o.value(QStringLiteral("bandwidth_mbps")).toDouble();
        if (viaNode2)
            QVERIFY2(mbps > 40 && mbps < 120, QJsonDocument(o).toJson().constData());
        else
            QVERIFY2(mbps > 200, QJsonDocument(o).toJson().constData());
    }
    const Outcome text =
        cli({QStringLiteral("check"), QStringLiteral("--profile"), m_profile, QStringLiteral("--links")});
    QVERIFY2(text.out.contains("slow node tb-node2"), text.all().constData());
    qInfo("link test at 100 mbit on tb-node2:\n%s", text.out.mid(text.out.indexOf("Links")).constData());

    // (a) a run over the slow link is communication-bound (qwen2-tiny sends ~40 MB of gradients a step:
    // several seconds at 100 mbit, so a few steps are enough).
    r = cli({QStringLiteral("launch"), QStringLiteral("--spec"),
             writeSpec(QStringLiteral("slowlink"), {{QStringLiteral("max-steps"), 4}}), QStringLiteral("--profile"),
             m_profile, QStringLiteral("--json")});
    QVERIFY2(r.exitCode == 0, r.all().constData());
    const QString run = QString::fromUtf8(r.out.left(r.out.indexOf('\n')));
    const QJsonObject rep = report(run);
    const QJsonObject comm = traindeck::testing::findingOfKind(rep, QStringLiteral("comm_bound"));
    QVERIFY2(!comm.isEmpty(), QJsonDocument(rep).toJson().constData());
    const QJsonObject ev = comm.value(QStringLiteral("evidence")).toObject();
    QVERIFY(ev.value(QStringLiteral("transfer_share_pct")).toDouble() > 30);
    QVERIFY(ev.value(QStringLiteral("busbw_gb_per_s")).toDouble() < 0.02); // 100 mbit = 0.0125 GB/s
    // The link test above was kept for the diagnosis: the verdict compares the allreduce with the
    // slowest measured link between the run's hosts, tb-node2's.
    const double link = ev.value(QStringLiteral("link_gb_per_s")).toDouble();
    QVERIFY2(link > 0.005 && link < 0.016, QJsonDocument(ev).toJson().constData());
    QVERIFY(ev.value(QStringLiteral("link_utilisation_pct")).toDouble() > 0);
    QVERIFY2(comm.value(QStringLiteral("recommendation")).toString().contains(QStringLiteral("tb-node2")),
             QJsonDocument(comm).toJson().constData());
    qInfo("comm-bound at 100 mbit: %s", QJsonDocument(ev).toJson(QJsonDocument::Compact).constData());
}

void TestTestbed::nodeLoss()
{
    REQUIRE_CLUSTER();
    const Outcome launched = cli({QStringLiteral("launch"), QStringLiteral("--detach"), QStringLiteral("--spec"),
                                  writeSpec(QStringLiteral("nodeloss"), {{QStringLiteral("max-steps"), 40},
                                                                         {QStringLiteral("checkpoint-every"), 3}}),
                                  QStringLiteral("--profile"), m_profile});
    QVERIFY2(launched.exitCode == 0, launched.all().constData());
    const QString run = QString::fromUtf8(launched.out.trimmed().split('\n').first());
    // Wait for a checkpoint on the head, then lose tb-node3 (every process in it, sshd included).
    QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(headRunDir(run) + QStringLiteral("/out/checkpoints/latest")), 120000);
    QVERIFY(!trainingProcessesOn(3).isEmpty());
    QElapsedTimer t;
    t.start();
    QVERIFY(m_tb.script({QStringLiteral("kill"), QStringLiteral("3")}) == 0);
    auto revive = qScopeGuard([&] { m_tb.script({QStringLiteral("revive"), QStringLiteral("3")}); });
    const Outcome w = cli({QStringLiteral("watch"), run, QStringLiteral("--json")}, 90000);
    const double seconds = t.elapsed() / 1000.0;
    QCOMPARE(w.exitCode, 1);
    const QList<QJsonObject> lines = w.lines();
    QCOMPARE(lastOfType(lines, QStringLiteral("end")).value(QStringLiteral("state")).toString(),
             QStringLiteral("failed"));
    const QJsonObject failure = lastOfType(lines, QStringLiteral("failure"));
    const QString summary = failure.value(QStringLiteral("summary")).toString();
    QByteArray mpirunSaid; // the head's stderr.log without progress lines, for the message
    for (const QByteArray& l : readAll(headRunDir(run) + QStringLiteral("/stderr.log")).split('\n')) {
        if (!l.startsWith("step "))
            mpirunSaid += l + '\n';
    }
    QVERIFY2(summary.contains(QStringLiteral("rank 2 on tb-node3")),
             (QJsonDocument(failure).toJson() + mpirunSaid).constData());
    QCOMPARE(failure.value(QStringLiteral("lost_node")).toString(), QStringLiteral("tb-node3"));
    QCOMPARE(failure.value(QStringLiteral("rank")).toInt(-1), 2);
    qInfo("node loss -> failed in %.1f s: %s", seconds, qPrintable(summary));
    QVERIFY2(seconds < 60, qPrintable(QStringLiteral("took %1 s").arg(seconds)));
    // Nothing left behind on the nodes that stayed.
    QTRY_VERIFY_WITH_TIMEOUT(trainingProcessesOn(1).isEmpty() && trainingProcessesOn(2).isEmpty(), 20000);

    // While tb-node3 is down, resume says which node is missing and starts nothing.
    Outcome r = cli({QStringLiteral("resume"), run});
    QVERIFY(r.exitCode != 0);
    QVERIFY2(r.err.contains("tb-node3"), r.all().constData());
    // Back up: resume continues from the latest checkpoint on all three nodes and completes.
    QVERIFY(m_tb.script({QStringLiteral("revive"), QStringLiteral("3")}) == 0);
    r = cli({QStringLiteral("resume"), run, QStringLiteral("--json")});
    QVERIFY2(r.exitCode == 0, r.all().constData());
    const QList<QJsonObject> resumed = r.lines();
    QCOMPARE(lastOfType(resumed, QStringLiteral("end")).value(QStringLiteral("state")).toString(),
             QStringLiteral("finished"));
    QCOMPARE(lastOfType(resumed, QStringLiteral("end")).value(QStringLiteral("last_step")).toInt(), 40);
    QVERIFY(lastOfType(resumed, QStringLiteral("hello")).value(QStringLiteral("resumed_from")).toInt() >= 3);
}

void TestTestbed::desktopDisconnect()
{
    REQUIRE_CLUSTER();
    const Outcome launched = cli({QStringLiteral("launch"), QStringLiteral("--detach"), QStringLiteral("--spec"),
                                  writeSpec(QStringLiteral("disconnect"), {{QStringLiteral("max-steps"), 40}}),
                                  QStringLiteral("--profile"), m_profile});
    QVERIFY2(launched.exitCode == 0, launched.all().constData());
    const QString run = QString::fromUtf8(launched.out.trimmed().split('\n').first());
    QProcess* watcher = startCli({QStringLiteral("watch"), run, QStringLiteral("--json")});
    QByteArray seen;
    QElapsedTimer t;
    t.start();
    while (!seen.contains("\"type\":\"step\"") && t.elapsed() < 120000) {
        watcher->waitForReadyRead(500);
        seen += watcher->readAllStandardOutput();
    }
    QVERIFY2(seen.contains("\"type\":\"step\""), seen.constData());
    // The desktop loses the cluster; the watcher is left hanging, then killed, as a closed laptop would.
    QVERIFY(m_tb.script({QStringLiteral("disconnect")}) == 0);
    auto reconnect = qScopeGuard([&] { m_tb.script({QStringLiteral("reconnect")}); });
    const QString headMetrics = headRunDir(run) + QStringLiteral("/metrics.jsonl");
    const qint64 sizeAtCut = QFileInfo(headMetrics).size();
    QTRY_VERIFY_WITH_TIMEOUT(QFileInfo(headMetrics).size() > sizeAtCut + 200, 60000); // the job keeps running
    watcher->kill();
    watcher->waitForFinished(5000);
    QVERIFY(m_tb.script({QStringLiteral("reconnect")}) == 0);

    // watch reattaches and follows to the end; the mirror equals the head's file byte for byte.
    const Outcome w = cli({QStringLiteral("watch"), run, QStringLiteral("--json")}, 240000);
    QVERIFY2(w.exitCode == 0, w.all().constData());
    QCOMPARE(lastOfType(w.lines(), QStringLiteral("end")).value(QStringLiteral("state")).toString(),
             QStringLiteral("finished"));
    const QByteArray head = readAll(headMetrics);
    QVERIFY(!head.isEmpty());
    QCOMPARE(readAll(m_runs + QLatin1Char('/') + run + QStringLiteral("/metrics.jsonl")), head);
}

QTEST_GUILESS_MAIN(TestTestbed)
#include "tst_testbed.moc"
