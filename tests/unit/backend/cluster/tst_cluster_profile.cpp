// Cluster profiles: JSON format, defaults, key-path errors, secrets, head rule, local profile,
// hostfile generation, storage under $XDG_CONFIG_HOME, import and export; the advice for GPU nodes
// (cluster::GpuTrainer).
#include "cluster/clusterprofile.h"
#include "cluster/gputrainer.h"
#include "common/paths.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

using namespace traindeck::cluster;
using traindeck::Diagnostic;
using traindeck::Result;
using traindeck::Status;

class TestClusterProfile : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void initTestCase();
    void specExample();
    void defaults();
    void unknownKeysRoundTrip();
    void errors_data();
    void errors();
    void secretsRejectedOrStripped_data();
    void secretsRejectedOrStripped();
    void headRule();
    void localProfile();
    void toHostfile();
    void fromHostfile();
    void storage();
    void importExport();
    void gpuTrainerAdvice();

  private:
    QTemporaryDir m_config;
};

static const QByteArray kSpecExample =
    R"({"version":1,"name":"lab","known_hosts":"~/.ssh/known_hosts","workdir":"~/traindeck","launcher":"mpirun",)"
    R"("env":{"NCCL_SOCKET_IFNAME":"eth0"},"nodes":[{"name":"n1","host":"10.0.0.1","port":22,"user":"alice",)"
    R"("identity":"~/.ssh/id_ed25519","slots":4,"role":"head"}]})";

void TestClusterProfile::initTestCase()
{
    QVERIFY(m_config.isValid());
    qputenv("XDG_CONFIG_HOME", m_config.path().toUtf8());
    QCOMPARE(ClusterProfile::profilesDir(), m_config.path() + QStringLiteral("/traindeck/profiles"));
}

void TestClusterProfile::specExample()
{
    const Result<ClusterProfile> r = ClusterProfile::fromJson(kSpecExample, QStringLiteral("lab.json"));
    QVERIFY2(r.ok(), qPrintable(r.errorString()));
    QVERIFY(r.diagnostics().isEmpty());
    const ClusterProfile& p = r.value();
    QCOMPARE(p.name, QStringLiteral("lab"));
    QCOMPARE(p.knownHosts, QStringLiteral("~/.ssh/known_hosts"));
    QCOMPARE(p.workdir, QStringLiteral("~/traindeck"));
    QCOMPARE(p.launcher, QStringLiteral("mpirun"));
    QCOMPARE(p.env.value(QStringLiteral("NCCL_SOCKET_IFNAME")), QStringLiteral("eth0"));
    QCOMPARE(p.nodes.size(), 1);
    const ClusterNode& n = p.nodes.first();
    QCOMPARE(n.name, QStringLiteral("n1"));
    QCOMPARE(n.host, QStringLiteral("10.0.0.1"));
    QCOMPARE(n.port, 22);
    QCOMPARE(n.user, QStringLiteral("alice"));
    QCOMPARE(n.identity, QStringLiteral("~/.ssh/id_ed25519"));
    QCOMPARE(n.slots, 4);
    QCOMPARE(n.role, NodeRole::Head);
    QCOMPARE(n.sshTarget(), QStringLiteral("alice@10.0.0.1"));
    QVERIFY(!p.isLocal);

    // Written and read again: the same profile.
    const Result<ClusterProfile> again = ClusterProfile::fromJson(p.toJson(), QStringLiteral("lab.json"));
    QVERIFY(again.ok());
    QCOMPARE(again->toJsonObject(), p.toJsonObject());
    QCOMPARE(again->nodes, p.nodes);
}

void TestClusterProfile::defaults()
{
    const Result<ClusterProfile> r = ClusterProfile::fromJson(
        R"({"version":1,"nodes":[{"host":"gpu-01"},{"host":"gpu-02","gpus":8}]})", QStringLiteral("/x/mini.json"));
    QVERIFY2(r.ok(), qPrintable(r.errorString()));
    const ClusterProfile& p = r.value();
    QCOMPARE(p.name, QStringLiteral("mini")); // from the file name
    QCOMPARE(p.knownHosts, QStringLiteral("~/.ssh/known_hosts"));
    QCOMPARE(p.workdir, QStringLiteral("~/traindeck"));
    QCOMPARE(p.launcher, QStringLiteral("mpirun"));
    QVERIFY(p.env.isEmpty());
    QCOMPARE(p.nodes.at(0).name, QStringLiteral("gpu-01"));
    QCOMPARE(p.nodes.at(0).port, 22);
    QCOMPARE(p.nodes.at(0).slots, 1);
    QCOMPARE(p.nodes.at(0).role, NodeRole::Worker);
    QCOMPARE(p.nodes.at(1).slots, 8); // slots follow gpus when not given
    QCOMPARE(p.headIndex(), 0);       // no head: the first node
    QCOMPARE(p.head().host, QStringLiteral("gpu-01"));
    QCOMPARE(p.totalSlots(), 9);

    // A missing version is read as 1 with a warning.
    const Result<ClusterProfile> noVersion =
        ClusterProfile::fromJson(R"({"nodes":[{"host":"a"}]})", QStringLiteral("v.json"));
    QVERIFY(noVersion.ok());
    QCOMPARE(noVersion.warnings().size(), 1);
    QCOMPARE(noVersion.warnings().first().toString(),
             QStringLiteral("v.json: version: warning: missing; read as version 1"));
}

void TestClusterProfile::unknownKeysRoundTrip()
{
    const QByteArray json = R"({"version":1,"name":"lab","x_gui":{"color":"#f00","order":[3,1]},"future":true,)"
                            R"("nodes":[{"host":"a","rack":"r1","numa":{"nodes":2}}]})";
    const Result<ClusterProfile> r = ClusterProfile::fromJson(json, QStringLiteral("lab.json"));
    QVERIFY2(r.ok(), qPrintable(r.errorString()));
    QCOMPARE(r->extra.value(QStringLiteral("future")).toBool(), true);
    QCOMPARE(r->nodes.first().extra.value(QStringLiteral("rack")).toString(), QStringLiteral("r1"));
    const QJsonObject written = r->toJsonObject();
    QCOMPARE(written.value(QStringLiteral("x_gui")).toObject().value(QStringLiteral("order")).toArray().size(), 2);
    QCOMPARE(written.value(QStringLiteral("future")).toBool(), true);
    const QJsonObject node = written.value(QStringLiteral("nodes")).toArray().first().toObject();
    QCOMPARE(node.value(QStringLiteral("rack")).toString(), QStringLiteral("r1"));
    QCOMPARE(node.value(QStringLiteral("numa")).toObject().value(QStringLiteral("nodes")).toInt(), 2);
    QCOMPARE(written.value(QStringLiteral("version")).toInt(), 1);
}

void TestClusterProfile::errors_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("expected"); // one of the errors, exactly

    const QByteArray node0 = R"({"name":"n0","host":"a"})";
    auto withNode = [&](const QByteArray& node) {
        return QByteArray(R"({"version":1,"name":"lab","nodes":[)") + node0 + ',' + node + "]}";
    };
    QTest::addRow("port string") << withNode(R"({"host":"b","port":"22"})")
                                 << "lab.json: nodes[1].port: expected an integer 1..65535";
    QTest::addRow("port zero") << withNode(R"({"host":"b","port":0})")
                               << "lab.json: nodes[1].port: expected an integer 1..65535";
    QTest::addRow("port too big") << withNode(R"({"host":"b","port":70000})")
                                  << "lab.json: nodes[1].port: expected an integer 1..65535";
    QTest::addRow("port fraction") << withNode(R"({"host":"b","port":22.5})")
                                   << "lab.json: nodes[1].port: expected an integer 1..65535";
    QTest::addRow("slots zero") << withNode(R"({"host":"b","slots":0})")
                                << "lab.json: nodes[1].slots: expected an integer 1..100000";
    QTest::addRow("gpus negative") << withNode(R"({"host":"b","gpus":-1})")
                                   << "lab.json: nodes[1].gpus: expected an integer 0..1024";
    QTest::addRow("missing host") << withNode(R"({"name":"b"})")
                                  << "lab.json: nodes[1].host: missing; every node needs a host name or address";
    QTest::addRow("host dash")
        << withNode(R"({"host":"-oProxyCommand=x"})")
        << "lab.json: nodes[1].host: host name '-oProxyCommand=x' starts with '-'; it would be read as an option";
    QTest::addRow("host injection") << withNode(R"({"host":"b;reboot"})")
                                    << "lab.json: nodes[1].host: invalid character ';' in host name 'b;reboot'";
    QTest::addRow("user invalid") << withNode(R"x({"host":"b","user":"$(id)"})x")
                                  << "lab.json: nodes[1].user: invalid character '$' in user name '$(id)'";
    QTest::addRow("role unknown") << withNode(R"({"host":"b","role":"master"})")
                                  << "lab.json: nodes[1].role: expected \"head\" or \"worker\"";
    QTest::addRow("two heads")
        << QByteArray(R"({"version":1,"name":"lab","nodes":[{"host":"a","role":"head"},{"host":"b","role":"head"}]})")
        << "lab.json: nodes[1].role: nodes[0] is already the head; exactly one node may be \"head\"";
    QTest::addRow("duplicate name") << withNode(R"({"name":"n0","host":"b"})")
                                    << "lab.json: nodes[1].name: 'n0' is already the name of nodes[0]";
    // A name with "%2" in it stays as it is (no chained QString::arg substituting inside it).
    QTest::addRow("duplicate name with percent sign")
        << QByteArray(R"({"version":1,"name":"lab","nodes":[{"name":"gpu%2","host":"a"},{"name":"gpu%2","host":"b"}]})")
        << "lab.json: nodes[1].name: 'gpu%2' is already the name of nodes[0]";
    QTest::addRow("duplicate endpoint") << withNode(R"({"name":"x","host":"A"})")
                                        << "lab.json: nodes[1].host: A port 22 is already nodes[0]";
    QTest::addRow("node not object") << withNode("42")
                                     << "lab.json: nodes[1]: expected an object with at least \"host\"";
    QTest::addRow("no nodes") << QByteArray(R"({"version":1,"name":"lab","nodes":[]})")
                              << "lab.json: nodes: a profile needs at least one node";
    QTest::addRow("nodes missing") << QByteArray(R"({"version":1,"name":"lab"})")
                                   << "lab.json: nodes: missing; a profile needs at least one node";
    QTest::addRow("newer version")
        << QByteArray(R"({"version":2,"name":"lab","nodes":[{"host":"a"}]})")
        << "lab.json: version: format version 2 is newer than this TrainDeck reads (1); update TrainDeck";
    QTest::addRow("version beyond any integer") // found by tests/fuzz/fuzz_cluster_profile (UBSan)
        << QByteArray(R"({"version":1e300,"name":"lab","nodes":[{"host":"a"}]})")
        << "lab.json: version: format version 1e+300 is newer than this TrainDeck reads (1); update TrainDeck";
    QTest::addRow("version string") << QByteArray(R"({"version":"1","name":"lab","nodes":[{"host":"a"}]})")
                                    << "lab.json: version: expected an integer format version (1)";
    QTest::addRow("env not string") << QByteArray(
                                           R"({"version":1,"name":"lab","env":{"A":[1]},"nodes":[{"host":"a"}]})")
                                    << "lab.json: env.A: expected a string";
    // Found by fuzz_cluster_profile: a whole number past qint64 was converted (undefined behaviour).
    QTest::addRow("env number too large")
        << QByteArray(R"({"version":1,"name":"lab","env":{"A":1e300},"nodes":[{"host":"a"}]})")
        << "lab.json: env.A: expected a string";
    QTest::addRow("env bad name") << QByteArray(
                                         R"({"version":1,"name":"lab","env":{"A-B":"1"},"nodes":[{"host":"a"}]})")
                                  << "lab.json: env.A-B: invalid character '-' in environment variable name 'A-B'";
    QTest::addRow("workdir newline")
        << QByteArray(R"({"version":1,"name":"lab","workdir":"~/x\nrm -rf ~","nodes":[{"host":"a"}]})")
        << "lab.json: workdir: control characters (such as a newline) are not allowed";
    QTest::addRow("launcher with args")
        << QByteArray(R"({"version":1,"name":"lab","launcher":"mpirun --foo","nodes":[{"host":"a"}]})")
        << "lab.json: launcher: expected a program name or path without spaces (\"mpirun\")";
    QTest::addRow("name with slash")
        << QByteArray(R"({"version":1,"name":"../etc","nodes":[{"host":"a"}]})")
        << "lab.json: name: invalid character '.' in profile name '../etc' (use letters, digits, '.', '-', '_')";
    QTest::addRow("name local reserved") << QByteArray(R"({"version":1,"name":"local","nodes":[{"host":"a"}]})")
                                         << "lab.json: name: \"local\" is the built-in profile; choose another name";
    QTest::addRow("not an object") << QByteArray("[1,2]")
                                   << "lab.json:1:1: expected a JSON object with \"version\", \"name\" and \"nodes\"";
    QTest::addRow("syntax error line 3") << QByteArray("{\n  \"version\": 1,\n  \"name\": lab\n}")
                                         << "lab.json:3:11: invalid JSON: illegal number";
}

void TestClusterProfile::errors()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, expected);
    const Result<ClusterProfile> r = ClusterProfile::fromJson(json, QStringLiteral("lab.json"));
    QVERIFY(!r.ok());
    QStringList all;
    for (const Diagnostic& d : r.errors())
        all.append(d.toString());
    QVERIFY2(all.contains(expected), qPrintable(all.join(QLatin1Char('\n'))));
}

void TestClusterProfile::secretsRejectedOrStripped_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("key");

    QTest::addRow("top password") << QByteArray(R"({"version":1,"name":"lab","password":"x","nodes":[{"host":"a"}]})")
                                  << "password";
    QTest::addRow("node password") << QByteArray(
                                          R"({"version":1,"name":"lab","nodes":[{"host":"a","sshPassword":"x"}]})")
                                   << "nodes[0].sshPassword";
    QTest::addRow("env token") << QByteArray(
                                      R"({"version":1,"name":"lab","env":{"HF_TOKEN":"hf_x"},"nodes":[{"host":"a"}]})")
                               << "env.HF_TOKEN";
    QTest::addRow("env api key")
        << QByteArray(R"({"version":1,"name":"lab","env":{"WANDB_API_KEY":"k"},"nodes":[{"host":"a"}]})")
        << "env.WANDB_API_KEY";
    QTest::addRow("nested passphrase")
        << QByteArray(R"({"version":1,"name":"lab","ssh":{"key_passphrase":"p"},"nodes":[{"host":"a"}]})")
        << "ssh.key_passphrase";
    QTest::addRow("inline private key")
        << QByteArray(
               R"({"version":1,"name":"lab","nodes":[{"host":"a","identity":"-----BEGIN OPENSSH PRIVATE KEY-----\nabc"}]})")
        << "nodes[0].identity";
}

void TestClusterProfile::secretsRejectedOrStripped()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, key);
    const Result<ClusterProfile> rejected = ClusterProfile::fromJson(json, QStringLiteral("lab.json"));
    QVERIFY(!rejected.ok());
    QCOMPARE(rejected.errors().first().key, key);
    QVERIFY(rejected.errors().first().message.contains(QStringLiteral("secret")));

    const Result<ClusterProfile> stripped =
        ClusterProfile::fromJson(json, QStringLiteral("lab.json"), ClusterProfile::Secrets::Strip);
    QVERIFY2(stripped.ok(), qPrintable(stripped.errorString()));
    QCOMPARE(stripped.warnings().size(), 1);
    QCOMPARE(stripped.warnings().first().key, key);
    const QByteArray written = stripped->toJson();
    QVERIFY(!written.contains("hf_x") && !written.contains("PRIVATE KEY") && !written.contains("assword") &&
            !written.contains("passphrase") && !written.contains("API_KEY"));
}

void TestClusterProfile::headRule()
{
    ClusterProfile p;
    p.name = QStringLiteral("x");
    QCOMPARE(p.headIndex(), -1);
    p.nodes = {ClusterNode{}, ClusterNode{}, ClusterNode{}};
    p.nodes[0].host = QStringLiteral("a");
    p.nodes[1].host = QStringLiteral("b");
    p.nodes[2].host = QStringLiteral("c");
    for (int i = 0; i < 3; ++i)
        p.nodes[i].name = p.nodes[i].host;
    QCOMPARE(p.headIndex(), 0);
    p.nodes[2].role = NodeRole::Head;
    QCOMPARE(p.headIndex(), 2);
    QVERIFY(p.validate().isEmpty());
    // Tolerated harmless names: TOKENIZERS_PARALLELISM is not a token.
    p.env.insert(QStringLiteral("TOKENIZERS_PARALLELISM"), QStringLiteral("false"));
    p.env.insert(QStringLiteral("PWD"), QStringLiteral("/tmp"));
    QVERIFY(p.validate().isEmpty());
}

void TestClusterProfile::localProfile()
{
    const ClusterProfile p = ClusterProfile::local(3);
    QCOMPARE(p.name, QStringLiteral("local"));
    QVERIFY(p.isLocal);
    QCOMPARE(p.nodes.size(), 1);
    QCOMPARE(p.nodes.first().name, QStringLiteral("localhost"));
    QCOMPARE(p.nodes.first().host, QStringLiteral("localhost"));
    QCOMPARE(p.nodes.first().slots, 3);
    QCOMPARE(p.nodes.first().role, NodeRole::Head);
    QVERIFY2(p.validate().isEmpty(), qPrintable(formatDiagnostics(p.validate())));
    QCOMPARE(ClusterProfile::local().nodes.first().slots, QThread::idealThreadCount());
    QCOMPARE(ClusterProfile::local(0).nodes.first().slots, QThread::idealThreadCount());
    const Result<ClusterProfile> named = ClusterProfile::loadNamed(QStringLiteral("local"), 2);
    QVERIFY(named.ok());
    QCOMPARE(named->nodes.first().slots, 2);
    const Result<Hostfile> h = p.toHostfile();
    QVERIFY(h.ok());
    QCOMPARE(h->hosts().first().userAtHost(), QStringLiteral("localhost"));
    QCOMPARE(h->totalSlots(), 3);
}

void TestClusterProfile::toHostfile()
{
    const Result<ClusterProfile> r = ClusterProfile::fromJson(
        R"({"version":1,"name":"lab","nodes":[{"host":"w1","slots":2,"user":"bob"},{"host":"h","slots":4,"role":"head"},)"
        R"({"host":"w2","port":2222}]})",
        QStringLiteral("lab.json"));
    QVERIFY2(r.ok(), qPrintable(r.errorString()));
    const Result<Hostfile> h = r->toHostfile();
    QVERIFY(h.ok());
    QCOMPARE(h.warnings().size(), 1); // port 2222
    QCOMPARE(h.warnings().first().key, QStringLiteral("nodes[2].port"));
    QCOMPARE(h->toText(), QStringLiteral("# Open MPI hostfile from TrainDeck cluster profile 'lab'\n"
                                         "h slots=4 # head\nbob@w1 slots=2\nw2 slots=1\n"));
    QVERIFY(Hostfile::parse(h->toText(), HostfileFormat::OpenMpi).ok());
}

void TestClusterProfile::fromHostfile()
{
    const Result<Hostfile> h =
        Hostfile::parse(QStringLiteral("alice@a slots=2\nb\nalice@a slots=2\n"), HostfileFormat::OpenMpi);
    QVERIFY(h.ok());
    const ClusterProfile p = ClusterProfile::fromHostfile(h.value(), QStringLiteral("imported"));
    QCOMPARE(p.nodes.size(), 2);
    QCOMPARE(p.nodes.at(0).slots, 4);
    QCOMPARE(p.nodes.at(0).user, QStringLiteral("alice"));
    QCOMPARE(p.nodes.at(0).role, NodeRole::Head);
    QCOMPARE(p.nodes.at(1).slots, 1);
    QVERIFY(p.validate().isEmpty());
}

void TestClusterProfile::storage()
{
    QCOMPARE(ClusterProfile::availableNames(), QStringList{QStringLiteral("local")});
    Result<ClusterProfile> r = ClusterProfile::fromJson(kSpecExample, QStringLiteral("lab.json"));
    QVERIFY(r.ok());
    QVERIFY(r->saveNamed().ok());
    QVERIFY(QFile::exists(m_config.path() + QStringLiteral("/traindeck/profiles/lab.json")));
    QCOMPARE(ClusterProfile::savedNames(), QStringList{QStringLiteral("lab")});
    QCOMPARE(ClusterProfile::availableNames(), (QStringList{QStringLiteral("local"), QStringLiteral("lab")}));
    const Result<ClusterProfile> loaded = ClusterProfile::loadNamed(QStringLiteral("lab"));
    QVERIFY2(loaded.ok(), qPrintable(loaded.errorString()));
    QCOMPARE(loaded->nodes, r->nodes);

    ClusterProfile local = ClusterProfile::local(2);
    QVERIFY(!local.saveNamed().ok()); // reserved
    ClusterProfile invalid = r.value();
    invalid.nodes[0].port = 0;
    invalid.name = QStringLiteral("broken");
    const Status s = invalid.saveNamed();
    QVERIFY(!s.ok());
    QVERIFY(!QFile::exists(ClusterProfile::pathForName(QStringLiteral("broken"))));

    const Result<ClusterProfile> missing = ClusterProfile::loadNamed(QStringLiteral("nope"));
    QVERIFY(!missing.ok());
    QVERIFY(missing.errorString().contains(QStringLiteral("no profile 'nope' (known: local, lab)")));
    QVERIFY(!ClusterProfile::loadNamed(QStringLiteral("../../etc/passwd")).ok());

    QVERIFY(ClusterProfile::removeNamed(QStringLiteral("lab")).ok());
    QVERIFY(ClusterProfile::savedNames().isEmpty());
}

void TestClusterProfile::importExport()
{
    QTemporaryDir tmp;
    const QString source = tmp.filePath(QStringLiteral("from-colleague.json"));
    {
        QFile f(source);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(
            R"({"version":1,"name":"shared","env":{"HF_TOKEN":"hf_secret"},"nodes":[{"host":"a","password":"hunter2"}]})");
    }
    const Result<ClusterProfile> imported = ClusterProfile::importFile(source);
    QVERIFY2(imported.ok(), qPrintable(imported.errorString()));
    QCOMPARE(imported.warnings().size(), 2);
    QCOMPARE(imported->name, QStringLiteral("shared"));
    QFile saved(ClusterProfile::pathForName(QStringLiteral("shared")));
    QVERIFY(saved.open(QIODevice::ReadOnly));
    const QByteArray text = saved.readAll();
    QVERIFY(!text.contains("hunter2") && !text.contains("hf_secret"));

    // A second import of the same name needs overwrite, or another name.
    QVERIFY(!ClusterProfile::importFile(source).ok());
    QVERIFY(ClusterProfile::importFile(source, QString(), true).ok());
    QVERIFY(ClusterProfile::importFile(source, QStringLiteral("copy")).ok());
    QVERIFY(!ClusterProfile::importFile(source, QStringLiteral("local")).ok());
    QVERIFY(!ClusterProfile::importFile(source, QStringLiteral("bad name")).ok());

    const QString exported = tmp.filePath(QStringLiteral("out.json"));
    QVERIFY(ClusterProfile::exportNamed(QStringLiteral("copy"), exported).ok());
    const Result<ClusterProfile> back = ClusterProfile::load(exported);
    QVERIFY(back.ok());
    QCOMPARE(back->name, QStringLiteral("copy"));
    QVERIFY(ClusterProfile::exportNamed(QStringLiteral("local"), tmp.filePath(QStringLiteral("local.json"))).ok());
    const Result<ClusterProfile> localBack = ClusterProfile::load(tmp.filePath(QStringLiteral("local.json")));
    QVERIFY2(localBack.ok(), qPrintable(localBack.errorString()));
    QVERIFY(localBack->isLocal);
    QVERIFY(!ClusterProfile::exportNamed(QStringLiteral("missing"), tmp.filePath(QStringLiteral("m.json"))).ok());
}

// Which self-checks mean a GPU node's trainer cannot use its GPUs, and the one text every front end shows.
void TestClusterProfile::gpuTrainerAdvice()
{
    auto selfCheck = [](const char* json) { return QJsonDocument::fromJson(json).object(); };
    // Debian's CPU-only LibTorch on a node whose driver lists two GPUs.
    QCOMPARE(GpuTrainer::unusableGpus(
                 selfCheck(R"({"cuda": {"available": false, "devices": 0}, "gpus": [{"name": "A"}, {"name": "B"}]})")),
             2);
    // A CUDA LibTorch that sees them.
    QCOMPARE(GpuTrainer::unusableGpus(selfCheck(R"({"cuda": {"available": true, "devices": 2}, "gpus": [{}, {}]})"), 8),
             0);
    // No GPU listed (no driver here), but the profile trains on 4 of this node's.
    QCOMPARE(GpuTrainer::unusableGpus(selfCheck(R"({"cuda": {"available": false, "devices": 0}, "gpus": []})"), 4), 4);
    // A CPU node.
    QCOMPARE(GpuTrainer::unusableGpus(selfCheck(R"({"cuda": {"available": false, "devices": 0}, "gpus": []})")), 0);
    QCOMPARE(GpuTrainer::unusableGpus(QJsonObject()), 0);

    const QString advice = GpuTrainer::advice();
    QVERIFY(advice.contains(QLatin1String("scripts/build-trainer.sh")));
    QVERIFY(advice.contains(QLatin1String("docs/reference/trainer.md#gpu-nodes")));
    QVERIFY(advice.contains(QLatin1String("traindeck-cli deploy --trainer")));
    const QString warning = GpuTrainer::unusableGpusWarning(2);
    QVERIFY2(warning.startsWith(QLatin1String("This traindeck-trainer cannot use the node's 2 GPU(s)")),
             qPrintable(warning));
    QVERIFY(warning.endsWith(advice));

    ClusterProfile p = ClusterProfile::local(2);
    QVERIFY(GpuTrainer::profileAdvice(p).isEmpty());
    p.nodes[0].gpus = 8;
    QCOMPARE(GpuTrainer::profileAdvice(p), QStringLiteral("1 node(s) of this profile train on GPUs. ") + advice);
}

QTEST_GUILESS_MAIN(TestClusterProfile)
#include "tst_cluster_profile.moc"
