// Job spec parsing and validation: every error names the key; trainer flags become --flag=value.
#include "launch/jobspec.h"
#include "test_paths.h"

#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTest>

using namespace traindeck::launch;

class TestJobSpec : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void valid();
    void invalid_data();
    void invalid();
    void trainerArgs();
    void resolvePaths();
    void roundTrip();
    void knownFlagsMatchTrainer();
};

static const QByteArray kGood = R"({"version":1,"name":"demo","profile":"local","ranks":2,"env":{"A_B":"x y"},
  "mpi":{"btl_tcp_if_include":"eth0","oob_tcp_if_include":"10.0.0.0/24","args":["--report-bindings"]},
  "trainer":{"preset":"qwen2-tiny","data":"corpus.jsonl","max-steps":200,"lr":0.0003,"scale-lr":true,"verify-sync":false}})";

void TestJobSpec::valid()
{
    const auto r = JobSpec::fromJson(kGood, QStringLiteral("job.json"));
    QVERIFY2(r.ok(), qPrintable(r.errorString()));
    QCOMPARE(r->name, QStringLiteral("demo"));
    QCOMPARE(r->ranks, 2);
    QCOMPARE(r->env.value(QStringLiteral("A_B")), QStringLiteral("x y"));
    QCOMPARE(r->btlTcpIfInclude, QStringLiteral("eth0"));
    QCOMPARE(r->oobTcpIfInclude, QStringLiteral("10.0.0.0/24"));
    QCOMPARE(r->mpiArgs, QStringList{QStringLiteral("--report-bindings")});
    QCOMPARE(r->trainer.value(QStringLiteral("max-steps")).toInt(), 200);
}

void TestJobSpec::invalid_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("message");
    QTest::addRow("not json") << QByteArray("{\"version\":1,\n \"name\": }") << "job.json:2:";
    QTest::addRow("array") << QByteArray("[]") << "job.json:1:1: expected a JSON object";
    QTest::addRow("no version") << QByteArray(R"({"name":"a","trainer":{}})") << "job.json: version: missing";
    QTest::addRow("version 2") << QByteArray(R"({"version":2,"name":"a","trainer":{}})")
                               << "job.json: version: expected an integer 1..1";
    QTest::addRow("no name") << QByteArray(R"({"version":1,"trainer":{}})")
                             << "job.json: name: expected a non-empty string";
    QTest::addRow("unknown key") << QByteArray(R"({"version":1,"name":"a","trainer":{},"rank":2})")
                                 << "job.json: rank: unknown key";
    QTest::addRow("ranks 0") << QByteArray(R"({"version":1,"name":"a","ranks":0,"trainer":{}})")
                             << "job.json: ranks: expected an integer 1..100000";
    QTest::addRow("ranks frac") << QByteArray(R"({"version":1,"name":"a","ranks":1.5,"trainer":{}})")
                                << "job.json: ranks: expected an integer";
    QTest::addRow("env name") << QByteArray(R"({"version":1,"name":"a","env":{"A;B":"x"},"trainer":{}})")
                              << "job.json: env.A;B: not a valid environment variable name";
    QTest::addRow("env digit") << QByteArray(R"({"version":1,"name":"a","env":{"1A":"x"},"trainer":{}})")
                               << "job.json: env.1A: not a valid";
    QTest::addRow("env number") << QByteArray(R"({"version":1,"name":"a","env":{"A":1},"trainer":{}})")
                                << "job.json: env.A: expected a string";
    QTest::addRow("mpi key") << QByteArray(R"({"version":1,"name":"a","mpi":{"btl":"x"},"trainer":{}})")
                             << "job.json: mpi.btl: unknown key";
    QTest::addRow("mpi args") << QByteArray(R"({"version":1,"name":"a","mpi":{"args":[1]},"trainer":{}})")
                              << "job.json: mpi.args[0]: expected a string";
    QTest::addRow("no trainer") << QByteArray(R"({"version":1,"name":"a"})") << "job.json: trainer: expected an object";
    QTest::addRow("dashes") << QByteArray(R"({"version":1,"name":"a","trainer":{"--max-steps":3}})")
                            << "job.json: trainer.--max-steps: not a trainer flag name";
    QTest::addRow("unknown flag") << QByteArray(R"({"version":1,"name":"a","trainer":{"max-step":3}})")
                                  << "job.json: trainer.max-step: unknown trainer flag";
    QTest::addRow("reserved out") << QByteArray(R"({"version":1,"name":"a","trainer":{"out":"x"}})")
                                  << "job.json: trainer.out: set by the launcher";
    QTest::addRow("reserved metrics") << QByteArray(R"({"version":1,"name":"a","trainer":{"metrics-out":"x"}})")
                                      << "job.json: trainer.metrics-out: set by the launcher";
    QTest::addRow("object value") << QByteArray(R"({"version":1,"name":"a","trainer":{"lr":{}}})")
                                  << "job.json: trainer.lr: expected a string, number or boolean";
    QTest::addRow("null value") << QByteArray(R"({"version":1,"name":"a","trainer":{"lr":null}})")
                                << "job.json: trainer.lr: expected a string, number or boolean";
}

void TestJobSpec::invalid()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, message);
    const auto r = JobSpec::fromJson(json, QStringLiteral("job.json"));
    QVERIFY(!r.ok());
    QVERIFY2(r.errorString().contains(message), qPrintable(r.errorString()));
}

void TestJobSpec::trainerArgs()
{
    const auto r = JobSpec::fromJson(kGood, QStringLiteral("job.json"));
    QVERIFY(r.ok());
    QCOMPARE(r->trainerArgs(), (QStringList{QStringLiteral("--preset=qwen2-tiny"),
                                            QStringLiteral("--data=corpus.jsonl"), QStringLiteral("--lr=3e-04"),
                                            QStringLiteral("--max-steps=200"), QStringLiteral("--scale-lr")}));
}

void TestJobSpec::resolvePaths()
{
    auto r = JobSpec::fromJson(
        R"({"version":1,"name":"a","trainer":{"data":"d/c.jsonl","tokenizer":"/abs/t.json","resume":"latest","model":"../m","preset":"x/y"}})",
        QStringLiteral("job.json"));
    QVERIFY2(r.ok(), qPrintable(r.errorString()));
    r->resolvePaths(QStringLiteral("/specs/here"));
    QCOMPARE(r->trainer.value(QStringLiteral("data")).toString(), QStringLiteral("/specs/here/d/c.jsonl"));
    QCOMPARE(r->trainer.value(QStringLiteral("tokenizer")).toString(), QStringLiteral("/abs/t.json"));
    QCOMPARE(r->trainer.value(QStringLiteral("resume")).toString(), QStringLiteral("latest"));
    QCOMPARE(r->trainer.value(QStringLiteral("model")).toString(), QStringLiteral("/specs/m"));
    QCOMPARE(r->trainer.value(QStringLiteral("preset")).toString(), QStringLiteral("x/y")); // not a path flag
}

void TestJobSpec::roundTrip()
{
    const auto r = JobSpec::fromJson(kGood, QStringLiteral("job.json"));
    QVERIFY(r.ok());
    const auto again = JobSpec::fromJson(r->toJson(), QStringLiteral("again.json"));
    QVERIFY2(again.ok(), qPrintable(again.errorString()));
    QCOMPARE(again->toJsonObject(), r->toJsonObject());
}

void TestJobSpec::knownFlagsMatchTrainer()
{
    if (!*TRAINDECK_TRAINER)
        QSKIP("the sanitizer build has no traindeck-trainer (scripts/test.sh runs this against it)");
    if (!QFile::exists(QString::fromUtf8(TRAINDECK_TRAINER)))
        QSKIP("traindeck-trainer not built");
    QProcess p;
    p.start(QString::fromUtf8(TRAINDECK_TRAINER), {QStringLiteral("train"), QStringLiteral("--help")});
    QVERIFY(p.waitForFinished(30000));
    const QString help = QString::fromUtf8(p.readAllStandardOutput());
    QStringList fromTrainer;
    static const QRegularExpression re(QStringLiteral("^  --([a-z0-9-]+)"), QRegularExpression::MultilineOption);
    for (auto it = re.globalMatch(help); it.hasNext();)
        fromTrainer.append(it.next().captured(1));
    QVERIFY(!fromTrainer.isEmpty());
    QStringList known = JobSpec::knownTrainerFlags();
    known.removeOne(QStringLiteral("config")); // handled before the flag table
    fromTrainer.sort();
    known.sort();
    QCOMPARE(known, fromTrainer);
}

QTEST_GUILESS_MAIN(TestJobSpec)
#include "tst_jobspec.moc"
