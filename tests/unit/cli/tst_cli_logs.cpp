// traindeck-cli logs on run directories built from fixtures (no trainer): a failed 4-rank run whose
// stderr.log has mpirun --tag-output tags (rank 2 failed on node2 after rank 3 warned), and an old run
// without tags. The failed rank's first error comes first, lines are labelled host:rank, identical
// lines of all ranks collapse, --rank/--host/--errors filter, --json gives typed lines; bad input
// exits 2 with a message.
#include "test_paths.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

class TestCliLogs : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void initTestCase();
    void badInput_data();
    void badInput();
    void text();
    void json();
    void filters_data();
    void filters();
    void oldUntaggedRun();

  private:
    struct Outcome {
        int exitCode = -1;
        QByteArray out, err;
        QList<QJsonObject> lines() const
        {
            QList<QJsonObject> l;
            for (const QByteArray& line : out.split('\n')) {
                if (!line.isEmpty())
                    l.append(QJsonDocument::fromJson(line).object());
            }
            return l;
        }
    };
    Outcome cli(const QStringList& args);
    void makeRun(const QString& id, const char* stderrFixture);
    QTemporaryDir m_tmp;
    QString m_runs;
};

static QStringList sl(std::initializer_list<const char*> list)
{
    QStringList out;
    for (const char* s : list)
        out.append(QString::fromUtf8(s));
    return out;
}

void TestCliLogs::makeRun(const QString& id, const char* stderrFixture)
{
    // The protocol example's 4 ranks on node1 (0, 1) and node2 (2, 3), without its `done`: failed.
    const QString dir = m_runs + QLatin1Char('/') + id;
    QVERIFY(QDir().mkpath(dir));
    QFile in(QString::fromUtf8(TRAINDECK_SOURCE_DIR) + QStringLiteral("/tests/fixtures/metrics/example-4ranks.jsonl"));
    QVERIFY(in.open(QIODevice::ReadOnly));
    QList<QByteArray> lines = in.readAll().split('\n');
    lines.removeAll(QByteArray());
    lines.removeLast(); // done
    QVERIFY(QFile::copy(QString::fromUtf8(TRAINDECK_SOURCE_DIR) + QStringLiteral("/tests/fixtures/launch/") +
                            QString::fromUtf8(stderrFixture),
                        dir + QStringLiteral("/stderr.log")));
    auto write = [&](const char* name, const QByteArray& data) {
        QFile f(dir + QLatin1Char('/') + QString::fromLatin1(name));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(data);
    };
    write("metrics.jsonl", lines.join('\n') + '\n');
    write("exit-code", "3\n");
    write("pid", "999999999\n");
    write(
        "run.json",
        QStringLiteral(R"({"run_id":"%1","name":"x","created":"2024-06-10T09:13:00Z","attempts":1})").arg(id).toUtf8());
}

void TestCliLogs::initTestCase()
{
    QVERIFY(m_tmp.isValid());
    m_runs = m_tmp.filePath(QStringLiteral("runs"));
    makeRun(QStringLiteral("tagged-20240610-091300"), "mpirun-tagged-4ranks.stderr.log");
    makeRun(QStringLiteral("old-20240610-091300"), "mpirun-inject-exit.stderr.log");
}

TestCliLogs::Outcome TestCliLogs::cli(const QStringList& args)
{
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("XDG_DATA_HOME"), m_tmp.filePath(QStringLiteral("xdg")));
    p.setProcessEnvironment(env);
    p.setWorkingDirectory(m_tmp.path());
    p.start(QString::fromUtf8(TRAINDECK_CLI),
            QStringList{QStringLiteral("logs")} + args + QStringList{QStringLiteral("--runs-dir"), m_runs});
    if (!p.waitForFinished(30000) || p.exitStatus() != QProcess::NormalExit)
        return {};
    return Outcome{p.exitCode(), p.readAllStandardOutput(), p.readAllStandardError()};
}

void TestCliLogs::badInput_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("errContains");
    QTest::addRow("no run") << QStringList{} << "expected exactly one RUN";
    QTest::addRow("two runs") << sl({"a", "b"}) << "expected exactly one RUN";
    QTest::addRow("unknown run") << sl({"nope"}) << "nope: no such run";
    QTest::addRow("unknown option") << sl({"tagged-20240610-091300", "--rnak", "1"}) << "Unknown option 'rnak'";
    QTest::addRow("rank not a number") << sl({"tagged-20240610-091300", "--rank", "x"}) << "--rank: expected a rank";
    QTest::addRow("negative rank") << sl({"tagged-20240610-091300", "--rank", "-1"}) << "--rank: expected a rank";
    QTest::addRow("rank out of range") << sl({"tagged-20240610-091300", "--rank", "4"}) << "the run has ranks 0-3";
    QTest::addRow("unknown host") << sl({"tagged-20240610-091300", "--host", "node9"})
                                  << "no rank ran there (hosts: node1, node2)";
}

void TestCliLogs::badInput()
{
    QFETCH(QStringList, args);
    QFETCH(QString, errContains);
    const Outcome r = cli(args);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(QString::fromUtf8(r.err).contains(errContains), r.err.constData());
    QVERIFY(r.out.isEmpty());
}

void TestCliLogs::text()
{
    const Outcome r = cli({QStringLiteral("tagged-20240610-091300")});
    QCOMPARE(r.exitCode, 0);
    const QStringList lines = QString::fromUtf8(r.out).split(QLatin1Char('\n'));
    // The failed rank's first error first, although rank 3 complained earlier in the log.
    QVERIFY2(lines.value(0).startsWith(QStringLiteral("first error (rank 2 on node2 exited with code 3")), r.out);
    QVERIFY2(lines.value(1).contains(
                 QStringLiteral("node2:2  traindeck-trainer: rank 2 on node2: injected exit (test aid) at step 3")),
             r.out);
    QVERIFY2(lines.value(1).contains(QStringLiteral("(stderr.log line 11)")), r.out);
    QVERIFY2(r.out.contains("ranks 0\u20133  token cache: 668 documents"), r.out);
    QVERIFY2(r.out.contains("node1:0    training qwen2-tiny"), r.out);
    QVERIFY2(r.out.contains("node2:3    NCCL WARN Error"), r.out);
    QVERIFY2(r.out.contains("node1:1    slow input file"), r.out); // put back together
    QVERIFY2(r.out.contains("mpirun     mpirun detected that one or more processes exited"), r.out);
    QVERIFY(!r.out.contains("<stderr>"));
    QVERIFY(!r.err.contains("no rank tags"));
}

void TestCliLogs::json()
{
    const Outcome r = cli({QStringLiteral("tagged-20240610-091300"), QStringLiteral("--json")});
    QCOMPARE(r.exitCode, 0);
    const QList<QJsonObject> l = r.lines();
    QVERIFY(l.size() > 5);
    QCOMPARE(l[0].value(QStringLiteral("type")).toString(), QStringLiteral("run"));
    QCOMPARE(l[0].value(QStringLiteral("state")).toString(), QStringLiteral("failed"));
    QCOMPARE(l[0].value(QStringLiteral("tagged")).toBool(), true);
    QCOMPARE(l[0].value(QStringLiteral("hosts")).toArray().size(), 4);
    QCOMPARE(l[0].value(QStringLiteral("failure")).toObject().value(QStringLiteral("rank")).toInt(), 2);
    QCOMPARE(l[1].value(QStringLiteral("type")).toString(), QStringLiteral("first_error"));
    QCOMPARE(l[1].value(QStringLiteral("label")).toString(), QStringLiteral("node2:2"));
    QCOMPARE(l[1].value(QStringLiteral("ranks")).toArray(), QJsonArray{2});
    QCOMPARE(l[1].value(QStringLiteral("hosts")).toArray(), QJsonArray{QStringLiteral("node2")});
    QCOMPARE(l[1].value(QStringLiteral("line")).toInt(), 11);
    QVERIFY(l[1].value(QStringLiteral("failure"))
                .toObject()
                .value(QStringLiteral("summary"))
                .toString()
                .contains(QStringLiteral("rank 2 on node2")));
    QCOMPARE(l.last().value(QStringLiteral("type")).toString(), QStringLiteral("end"));
    QCOMPARE(l.last().value(QStringLiteral("lines")).toInt(), 23);
    const QJsonObject collapsed = l[3]; // run, first_error, training, token cache
    QCOMPARE(collapsed.value(QStringLiteral("type")).toString(), QStringLiteral("log"));
    QCOMPARE(collapsed.value(QStringLiteral("ranks")).toArray(), (QJsonArray{0, 1, 2, 3}));
    QCOMPARE(collapsed.value(QStringLiteral("hosts")).toArray(),
             (QJsonArray{QStringLiteral("node1"), QStringLiteral("node2")}));
    int mpirun = 0;
    for (const QJsonObject& o : l)
        mpirun += o.value(QStringLiteral("origin")).toString() == QLatin1String("mpirun");
    QCOMPARE(mpirun, 11);
}

void TestCliLogs::filters_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QStringList>("texts"); // the start of every log line shown
    QTest::addRow("rank 1") << sl({"--rank", "1"}) << sl({"token cache", "slow input file"});
    QTest::addRow("node1 errors") << sl({"--host", "node1", "--errors"}) << sl({"traindeck-trainer: rank 0"});
    QTest::addRow("rank 2 errors") << sl({"--rank", "2", "--errors"}) << sl({"traindeck-trainer: rank 2"});
}

void TestCliLogs::filters()
{
    QFETCH(QStringList, args);
    QFETCH(QStringList, texts);
    const Outcome r = cli(QStringList{QStringLiteral("tagged-20240610-091300"), QStringLiteral("--json")} + args);
    QCOMPARE(r.exitCode, 0);
    QStringList shown;
    for (const QJsonObject& o : r.lines()) {
        if (o.value(QStringLiteral("type")).toString() == QLatin1String("log"))
            shown.append(o.value(QStringLiteral("text")).toString());
    }
    QCOMPARE(shown.size(), texts.size());
    for (qsizetype i = 0; i < texts.size(); ++i)
        QVERIFY2(shown[i].startsWith(texts[i]), qPrintable(shown[i]));
}

void TestCliLogs::oldUntaggedRun()
{
    const Outcome r = cli({QStringLiteral("old-20240610-091300")});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.err.contains("carry no rank tags"), r.err.constData());
    const QStringList lines = QString::fromUtf8(r.out).split(QLatin1Char('\n'));
    QVERIFY2(lines.value(0).startsWith(QStringLiteral("first error (rank 1 on")), r.out);
    QVERIFY2(lines.value(1).contains(QStringLiteral("node1:1  traindeck-trainer: rank 1 on vm: injected exit")), r.out);
    QVERIFY2(r.out.contains("?        step 1/5"), r.out);
}

QTEST_GUILESS_MAIN(TestCliLogs)
#include "tst_cli_logs.moc"
