// traindeck-cli launch/watch/report/runs/cancel/resume without the trainer: bad input (exit 2, the
// message naming the key or file), a missing trainer reported before anything starts, and watch/report/
// runs/resume on a run directory built from fixtures (a failed 4-rank run).
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

class TestCliRunCommands : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void badInput_data();
    void badInput();
    void missingTrainerStartsNothing();
    void failedRunFromFixtures();

private:
    struct Outcome {
        int exitCode = -1;
        QByteArray out, err;
    };
    Outcome cli(const QStringList &args, const QByteArray &trainer = "/bin/true");
    QTemporaryDir m_tmp;
    QString m_runs;
};

void TestCliRunCommands::initTestCase()
{
    QVERIFY(m_tmp.isValid());
    m_runs = m_tmp.filePath(QStringLiteral("runs"));
    QDir().mkpath(m_runs);
    auto write = [&](const char *name, const QByteArray &data) {
        QFile f(m_tmp.filePath(QString::fromLatin1(name)));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(data);
    };
    write("bad-key.json", R"({"version":1,"name":"x","ranks":2,"trainer":{"max-step":3}})");
    write("bad-json.json", "{\"version\":1,");
    write("good.json", R"({"version":1,"name":"x","ranks":2,"trainer":{"preset":"qwen2-tiny","max-steps":3}})");
}

TestCliRunCommands::Outcome TestCliRunCommands::cli(const QStringList &args, const QByteArray &trainer)
{
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("TRAINDECK_TRAINER"), QString::fromUtf8(trainer));
    env.insert(QStringLiteral("XDG_DATA_HOME"), m_tmp.filePath(QStringLiteral("xdg")));
    p.setProcessEnvironment(env);
    p.setWorkingDirectory(m_tmp.path());
    p.start(QStringLiteral(TRAINDECK_CLI), args);
    if (!p.waitForFinished(30000) || p.exitStatus() != QProcess::NormalExit)
        return {};
    return Outcome{p.exitCode(), p.readAllStandardOutput(), p.readAllStandardError()};
}

void TestCliRunCommands::badInput_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("errContains");
    auto a = [](std::initializer_list<const char *> l) {
        QStringList r;
        for (const char *s : l)
            r.append(QString::fromUtf8(s));
        return r;
    };
    QTest::addRow("launch no spec") << a({"launch"}) << "--spec FILE is required";
    QTest::addRow("launch missing spec") << a({"launch", "--spec", "nope.json"}) << "nope.json: cannot read";
    QTest::addRow("launch bad key") << a({"launch", "--spec", "bad-key.json"}) << "bad-key.json: trainer.max-step: unknown trainer flag";
    QTest::addRow("launch bad json") << a({"launch", "--spec", "bad-json.json"}) << "bad-json.json:1:";
    QTest::addRow("launch bad profile") << a({"launch", "--spec", "good.json", "--profile", "nosuch"}) << "nosuch";
    QTest::addRow("launch unknown option") << a({"launch", "--spce", "good.json"}) << "Unknown option 'spce'";
    QTest::addRow("watch no run") << a({"watch"}) << "expected exactly one RUN";
    QTest::addRow("watch missing run") << a({"watch", "nope"}) << "nope: no such run";
    QTest::addRow("watch bad offset") << a({"watch", "nope", "--from-offset", "-3"}) << "--from-offset";
    QTest::addRow("report both") << a({"report", "x", "--json", "--html", "d"}) << "at most one of --json, --html";
    QTest::addRow("cancel bad grace") << a({"cancel", "x", "--grace", "abc"}) << "--grace";
    QTest::addRow("resume missing") << a({"resume", "nope"}) << "no such run";
    QTest::addRow("runs extra") << a({"runs", "extra"}) << "unexpected argument";
}

void TestCliRunCommands::badInput()
{
    QFETCH(QStringList, args);
    QFETCH(QString, errContains);
    const Outcome r = cli(args + QStringList{QStringLiteral("--runs-dir"), m_runs});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(QString::fromUtf8(r.err).contains(errContains), r.err.constData());
    QCOMPARE(QDir(m_runs).entryList(QDir::NoDotAndDotDot | QDir::AllEntries), QStringList());
}

void TestCliRunCommands::missingTrainerStartsNothing()
{
    const Outcome r = cli({QStringLiteral("launch"), QStringLiteral("--spec"), QStringLiteral("good.json"), QStringLiteral("--runs-dir"), m_runs},
                          "/nonexistent/traindeck-trainer");
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("/nonexistent/traindeck-trainer"), r.err.constData());
    QCOMPARE(QDir(m_runs).entryList(QDir::NoDotAndDotDot | QDir::AllEntries), QStringList());
}

void TestCliRunCommands::failedRunFromFixtures()
{
    // A run that failed at step 10 of 4 ranks: metrics from the protocol example without its `done`,
    // stderr from a real injected exit, mpirun's exit status 3, and a malformed line.
    const QString dir = m_runs + QStringLiteral("/example-20240610-091300");
    QDir().mkpath(dir);
    QFile in(QStringLiteral(TRAINDECK_SOURCE_DIR "/tests/fixtures/metrics/example-4ranks.jsonl"));
    QVERIFY(in.open(QIODevice::ReadOnly));
    QList<QByteArray> lines = in.readAll().split('\n');
    lines.removeAll(QByteArray());
    lines.removeLast();  // done
    lines.insert(3, "{\"v\":1,\"type\":\"step\",oops}");
    QVERIFY(QFile::copy(QStringLiteral(TRAINDECK_SOURCE_DIR "/tests/fixtures/launch/mpirun-inject-exit.stderr.log"), dir + QStringLiteral("/stderr.log")));
    auto write = [&](const char *name, const QByteArray &data) {
        QFile f(dir + QLatin1Char('/') + QString::fromLatin1(name));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(data);
    };
    write("metrics.jsonl", lines.join('\n') + '\n');
    write("exit-code", "3\n");
    write("pid", "999999999\n");
    write("run.json", R"({"run_id":"example-20240610-091300","name":"example","created":"2024-06-10T09:13:00Z","attempts":1})");

    const Outcome runs = cli({QStringLiteral("runs"), QStringLiteral("--runs-dir"), m_runs});
    QCOMPARE(runs.exitCode, 0);
    QVERIFY2(runs.out.contains("example-20240610-091300  failed"), runs.out.constData());

    const Outcome w = cli({QStringLiteral("watch"), QStringLiteral("example-20240610-091300"), QStringLiteral("--json"),
                           QStringLiteral("--runs-dir"), m_runs});
    QCOMPARE(w.exitCode, 1);
    QList<QJsonObject> events;
    for (const QByteArray &l : w.out.split('\n')) {
        if (!l.isEmpty())
            events.append(QJsonDocument::fromJson(l).object());
    }
    QVERIFY(events.size() > 10);
    QCOMPARE(events.first().value(QStringLiteral("type")).toString(), QStringLiteral("state"));
    QCOMPARE(events.last().value(QStringLiteral("type")).toString(), QStringLiteral("end"));
    QCOMPARE(events.last().value(QStringLiteral("state")).toString(), QStringLiteral("failed"));
    QCOMPARE(events.last().value(QStringLiteral("malformed_lines")).toInt(), 1);
    int steps = 0, malformed = 0;
    for (const QJsonObject &e : events) {
        steps += e.value(QStringLiteral("type")).toString() == QLatin1String("step");
        malformed += e.value(QStringLiteral("type")).toString() == QLatin1String("malformed");
    }
    QCOMPARE(steps, 10);
    QCOMPARE(malformed, 1);

    const Outcome rep = cli({QStringLiteral("report"), dir, QStringLiteral("--json"), QStringLiteral("--runs-dir"), m_runs});
    QCOMPARE(rep.exitCode, 0);
    const QJsonObject o = QJsonDocument::fromJson(rep.out).object();
    QCOMPARE(o.value(QStringLiteral("state")).toString(), QStringLiteral("failed"));
    QCOMPARE(o.value(QStringLiteral("world_size")).toInt(), 4);
    QCOMPARE(o.value(QStringLiteral("failure")).toObject().value(QStringLiteral("rank")).toInt(), 1);
    QVERIFY(o.value(QStringLiteral("findings")).isArray());
    for (const QJsonValue f : o.value(QStringLiteral("findings")).toArray()) {
        for (const char *key : {"kind", "severity", "ranks", "hosts", "evidence", "recommendation"})
            QVERIFY2(f.toObject().contains(QString::fromLatin1(key)), key);
    }
    const Outcome text = cli({QStringLiteral("report"), dir, QStringLiteral("--runs-dir"), m_runs});
    QCOMPARE(text.exitCode, 0);
    QVERIFY2(text.out.contains("failure: rank 1 on vm exited with code 3"), text.out.constData());

    // No checkpoint: resume refuses (exit 1); cancel of an ended run is a no-op (exit 0).
    const Outcome res = cli({QStringLiteral("resume"), QStringLiteral("example-20240610-091300"), QStringLiteral("--runs-dir"), m_runs});
    QCOMPARE(res.exitCode, 1);
    QVERIFY2(res.err.contains("no checkpoint"), res.err.constData());
    const Outcome can = cli({QStringLiteral("cancel"), QStringLiteral("example-20240610-091300"), QStringLiteral("--runs-dir"), m_runs});
    QCOMPARE(can.exitCode, 0);
    QCOMPARE(can.out, QByteArray("failed\n"));
}

QTEST_GUILESS_MAIN(TestCliRunCommands)
#include "tst_cli_run_commands.moc"
