// traindeck-cli end to end with the real trainer and mpirun (2 ranks, tiny model, seq 32, batch 2):
// launch and follow to the end; an injected exit of rank 1 named within 30 s, and first in `logs`
// (mpirun --tag-output lines labelled host:rank); resume completing that
// run from its checkpoint; a watcher killed mid-run and restarted at its last offset (no gaps, no
// duplicates), whose balanced run has no straggler finding; and a planted straggler (rank 1 delayed by
// ~25% of a step in forward) named with its host after 30 steps; the front end killed (SIGKILL) while
// its run is active: the run goes on, `runs` lists it and `watch` follows it to the end, every step once.
#include "cli_run.h"
#include "test_paths.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

class TestE2eLaunch : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void initTestCase();
    void launchFollowsToEnd();
    void injectedExitNamesRank();
    void logsShowFailedRankFirst();
    void resumeCompletesFailedRun();
    void reattachWithoutGapsOrDuplicates();
    void frontEndKilledKeepsTheRun();
    void appKilledKeepsItsRun();
    void plantedStraggler();
    void stalledRankNamedLiveAndInReport();

  private:
    using Outcome = traindeck::testing::CliOutcome;
    Outcome cli(const QStringList& args, int timeoutMs = 180000);
    QProcess* startCli(const QStringList& args);
    QString writeSpec(const QString& name, const QJsonObject& trainerExtra);
    QJsonObject report(const QString& run);

    QTemporaryDir m_tmp;
    QString m_runs, m_corpus, m_tokenizer;
    double m_stepMs = 0;
    QString m_failedRun;
    QString m_host;
};

void TestE2eLaunch::initTestCase()
{
    QVERIFY(m_tmp.isValid());
    m_runs = m_tmp.filePath(QStringLiteral("runs"));
    m_corpus = traindeck::testing::demoCorpus();
    m_tokenizer = traindeck::testing::qwenTokenizer();
    if (!QFile::exists(m_corpus) || !QFile::exists(m_tokenizer))
        QSKIP("demo corpus or Qwen tokenizer missing: run scripts/setup-deps.sh");
    if (QStandardPaths::findExecutable(QStringLiteral("mpirun")).isEmpty())
        QSKIP("mpirun not installed");
    QVERIFY(QFile::exists(QString::fromUtf8(TRAINDECK_CLI)));
    QVERIFY(QFile::exists(QString::fromUtf8(TRAINDECK_TRAINER)));
}

static QProcessEnvironment cliEnv()
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("TRAINDECK_TRAINER"), QString::fromUtf8(TRAINDECK_TRAINER));
    return env;
}

TestE2eLaunch::Outcome TestE2eLaunch::cli(const QStringList& args, int timeoutMs)
{
    QProcess p;
    p.setProcessEnvironment(cliEnv());
    p.start(QString::fromUtf8(TRAINDECK_CLI), args + QStringList{QStringLiteral("--runs-dir"), m_runs});
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished(5000);
        return Outcome{-1, p.readAllStandardOutput(), p.readAllStandardError()};
    }
    return Outcome{p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(),
                   p.readAllStandardError()};
}

QProcess* TestE2eLaunch::startCli(const QStringList& args)
{
    auto* p = new QProcess(this);
    p->setProcessEnvironment(cliEnv());
    p->start(QString::fromUtf8(TRAINDECK_CLI), args + QStringList{QStringLiteral("--runs-dir"), m_runs});
    return p;
}

QString TestE2eLaunch::writeSpec(const QString& name, const QJsonObject& trainerExtra)
{
    return traindeck::testing::writeTinySpec(
        m_tmp.filePath(name + QStringLiteral(".json")), name, trainerExtra,
        {{QStringLiteral("profile"), QStringLiteral("local")}, {QStringLiteral("ranks"), 2}});
}

QJsonObject TestE2eLaunch::report(const QString& run)
{
    const Outcome r = cli({QStringLiteral("report"), run, QStringLiteral("--json")}, 60000);
    if (r.exitCode != 0)
        qWarning("report failed: %s", r.err.constData());
    return QJsonDocument::fromJson(r.out).object();
}

static QList<qint64> stepsOf(const QList<QJsonObject>& lines)
{
    QList<qint64> s;
    for (const QJsonObject& o : lines) {
        if (o.value(QStringLiteral("type")).toString() == QLatin1String("step"))
            s.append(qint64(o.value(QStringLiteral("step")).toDouble()));
    }
    return s;
}

using traindeck::testing::lastOfType;

void TestE2eLaunch::launchFollowsToEnd()
{
    QElapsedTimer t;
    t.start();
    const Outcome r =
        cli({QStringLiteral("launch"), QStringLiteral("--spec"),
             writeSpec(QStringLiteral("basic"), {{QStringLiteral("max-steps"), 4}}), QStringLiteral("--json")});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const QString runId = QString::fromUtf8(r.out.left(r.out.indexOf('\n')));
    QVERIFY(runId.startsWith(QStringLiteral("basic-")));
    const QList<QJsonObject> lines = r.lines();
    QCOMPARE(stepsOf(lines), (QList<qint64>{1, 2, 3, 4}));
    QCOMPARE(lastOfType(lines, QStringLiteral("end")).value(QStringLiteral("state")).toString(),
             QStringLiteral("finished"));
    const QJsonObject hello = lastOfType(lines, QStringLiteral("hello"));
    QCOMPARE(hello.value(QStringLiteral("world_size")).toInt(), 2);
    m_host = hello.value(QStringLiteral("hosts")).toArray().at(1).toString();
    QVERIFY(!m_host.isEmpty());
    // Step time (slowest rank, median of steps 2-4) sizes the planted delay below.
    std::vector<double> ms;
    for (const QJsonObject& o : lines) {
        if (o.value(QStringLiteral("type")).toString() != QLatin1String("step") ||
            o.value(QStringLiteral("step")).toInt() < 2)
            continue;
        double m = 0;
        for (const QJsonValue v : o.value(QStringLiteral("step_ms")).toArray())
            m = std::max(m, v.toDouble());
        ms.push_back(m);
    }
    std::sort(ms.begin(), ms.end());
    m_stepMs = ms[ms.size() / 2];
    qInfo("4-step run: %.1f s wall, step %.0f ms", t.elapsed() / 1000.0, m_stepMs);

    // The run directory holds everything for offline review.
    const QString dir = m_runs + QLatin1Char('/') + runId;
    for (const char* f : {"spec.json", "run.json", "profile.json", "hostfile", "run.sh", "pid", "exit-code",
                          "stdout.log", "stderr.log", "metrics.jsonl", "out/checkpoints/latest"})
        QVERIFY2(QFile::exists(dir + QLatin1Char('/') + QString::fromLatin1(f)), f);
    const Outcome runs = cli({QStringLiteral("runs"), QStringLiteral("--json")});
    QCOMPARE(runs.exitCode, 0);
    const QJsonArray list = QJsonDocument::fromJson(runs.out).array();
    QCOMPARE(list.size(), 1);
    QCOMPARE(list[0].toObject().value(QStringLiteral("state")).toString(), QStringLiteral("finished"));
    QCOMPARE(list[0].toObject().value(QStringLiteral("last_step")).toInt(), 4);
    // HTML report with PNG plots.
    const QString html = m_tmp.filePath(QStringLiteral("html"));
    QCOMPARE(cli({QStringLiteral("report"), runId, QStringLiteral("--html"), html}).exitCode, 0);
    QVERIFY(QFile::exists(html + QStringLiteral("/index.html")));
    for (const char* png : {"loss.png", "throughput.png", "step_ms.png", "phases.png"}) {
        QFile f(html + QLatin1Char('/') + QString::fromLatin1(png));
        QVERIFY2(f.open(QIODevice::ReadOnly), png);
        QCOMPARE(f.read(8), QByteArray("\x89PNG\r\n\x1a\n", 8));
    }
}

void TestE2eLaunch::injectedExitNamesRank()
{
    QElapsedTimer t;
    t.start();
    const Outcome launched =
        cli({QStringLiteral("launch"), QStringLiteral("--detach"), QStringLiteral("--spec"),
             writeSpec(QStringLiteral("fail"), {{QStringLiteral("max-steps"), 5},
                                                {QStringLiteral("checkpoint-every"), 2},
                                                {QStringLiteral("inject-exit"), QStringLiteral("1:3")}})});
    QVERIFY2(launched.exitCode == 0, launched.err.constData());
    m_failedRun = QString::fromUtf8(launched.out.trimmed());
    const Outcome w = cli({QStringLiteral("watch"), m_failedRun, QStringLiteral("--json")}, 60000);
    const double seconds = t.elapsed() / 1000.0;
    QCOMPARE(w.exitCode, 1);
    const QList<QJsonObject> lines = w.lines();
    QCOMPARE(lastOfType(lines, QStringLiteral("end")).value(QStringLiteral("state")).toString(),
             QStringLiteral("failed"));
    const QJsonObject failure = lastOfType(lines, QStringLiteral("failure"));
    QCOMPARE(failure.value(QStringLiteral("rank")).toInt(), 1);
    QCOMPARE(failure.value(QStringLiteral("host")).toString(), m_host);
    QCOMPARE(failure.value(QStringLiteral("exit_code")).toInt(), 3);
    QVERIFY2(failure.value(QStringLiteral("summary")).toString().contains(QStringLiteral("rank 1 on ")),
             qPrintable(failure.value(QStringLiteral("summary")).toString()));
    qInfo("launch -> state failed naming rank 1: %.1f s", seconds);
    QVERIFY2(seconds < 30, qPrintable(QStringLiteral("took %1 s").arg(seconds)));
    // report agrees, offline.
    const QJsonObject rep = report(m_failedRun);
    QCOMPARE(rep.value(QStringLiteral("state")).toString(), QStringLiteral("failed"));
    QCOMPARE(rep.value(QStringLiteral("failure")).toObject().value(QStringLiteral("rank")).toInt(), 1);
}

void TestE2eLaunch::logsShowFailedRankFirst()
{
    // The failed run's stderr by rank: rank 1's own error first, every rank's line labelled.
    QVERIFY(!m_failedRun.isEmpty());
    const Outcome r = cli({QStringLiteral("logs"), m_failedRun, QStringLiteral("--json")}, 60000);
    QVERIFY2(r.exitCode == 0, r.all().constData());
    const QList<QJsonObject> lines = r.lines();
    QVERIFY2(lines.size() > 3, r.all().constData());
    QCOMPARE(lines[0].value(QStringLiteral("type")).toString(), QStringLiteral("run"));
    QCOMPARE(lines[0].value(QStringLiteral("state")).toString(), QStringLiteral("failed"));
    QVERIFY2(lines[0].value(QStringLiteral("tagged")).toBool(), r.all().constData());
    const QJsonObject first = lines[1];
    QCOMPARE(first.value(QStringLiteral("type")).toString(), QStringLiteral("first_error"));
    QCOMPARE(first.value(QStringLiteral("ranks")).toArray(), QJsonArray{1});
    QCOMPARE(first.value(QStringLiteral("label")).toString(), m_host + QStringLiteral(":1"));
    QVERIFY2(
        first.value(QStringLiteral("text")).toString().contains(QStringLiteral("injected exit (test aid) at step 3")),
        r.all().constData());
    bool rank0 = false, mpirun = false;
    for (const QJsonObject& o : lines) {
        if (o.value(QStringLiteral("type")).toString() != QLatin1String("log"))
            continue;
        rank0 = rank0 || o.value(QStringLiteral("ranks")).toArray().contains(0);
        mpirun = mpirun || o.value(QStringLiteral("origin")).toString() == QLatin1String("mpirun");
        QVERIFY2(!o.value(QStringLiteral("text")).toString().contains(QStringLiteral("]<std")), r.all().constData());
    }
    QVERIFY2(rank0 && mpirun, r.all().constData());
    // The text view of rank 1 starts with it too.
    const Outcome text = cli({QStringLiteral("logs"), m_failedRun, QStringLiteral("--rank"), QStringLiteral("1")});
    QCOMPARE(text.exitCode, 0);
    QVERIFY2(text.out.startsWith("first error (rank 1 on " + m_host.toUtf8()), text.all().constData());
}

void TestE2eLaunch::resumeCompletesFailedRun()
{
    if (m_failedRun.isEmpty())
        QSKIP("needs the failed run");
    const Outcome r = cli({QStringLiteral("resume"), m_failedRun, QStringLiteral("--json")});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const QList<QJsonObject> lines = r.lines();
    QCOMPARE(lastOfType(lines, QStringLiteral("end")).value(QStringLiteral("state")).toString(),
             QStringLiteral("finished"));
    QCOMPARE(lastOfType(lines, QStringLiteral("end")).value(QStringLiteral("last_step")).toInt(), 5);
    QCOMPARE(lastOfType(lines, QStringLiteral("hello")).value(QStringLiteral("resumed_from")).toInt(), 2);
    const QString dir = m_runs + QLatin1Char('/') + m_failedRun;
    QVERIFY(QFile::exists(dir + QStringLiteral("/attempt-1/stderr.log")));
    const QJsonObject rep = report(m_failedRun);
    QCOMPARE(rep.value(QStringLiteral("state")).toString(), QStringLiteral("finished"));
    QCOMPARE(rep.value(QStringLiteral("last_step")).toInt(), 5);
    // Resuming a finished run is refused.
    QCOMPARE(cli({QStringLiteral("resume"), m_failedRun}).exitCode, 1);
}

void TestE2eLaunch::reattachWithoutGapsOrDuplicates()
{
    const int steps = 30;
    const Outcome launched = cli({QStringLiteral("launch"), QStringLiteral("--detach"), QStringLiteral("--spec"),
                                  writeSpec(QStringLiteral("balanced"), {{QStringLiteral("max-steps"), steps}})});
    QVERIFY2(launched.exitCode == 0, launched.err.constData());
    const QString run = QString::fromUtf8(launched.out.trimmed());

    // First watcher: killed (SIGKILL) after it printed step 3.
    QProcess* first = startCli({QStringLiteral("watch"), run, QStringLiteral("--json")});
    QByteArray firstOut;
    QElapsedTimer t;
    t.start();
    while (!stepsOf(Outcome{0, firstOut, {}}.lines()).contains(3) && t.elapsed() < 90000) {
        first->waitForReadyRead(500);
        firstOut += first->readAllStandardOutput();
    }
    first->kill();
    first->waitForFinished(5000);
    firstOut += first->readAllStandardOutput();
    // Only complete lines count (a line cut by the kill is not seen by the user either).
    firstOut.truncate(firstOut.lastIndexOf('\n') + 1);
    const QList<QJsonObject> firstLines = Outcome{0, firstOut, {}}.lines();
    QList<qint64> seen = stepsOf(firstLines);
    QVERIFY(seen.contains(3));
    qint64 nextOffset = 0;
    for (const QJsonObject& o : firstLines) {
        if (o.contains(QStringLiteral("next_offset")))
            nextOffset = qint64(o.value(QStringLiteral("next_offset")).toDouble());
    }
    QVERIFY(nextOffset > 0);
    QTest::qWait(3000); // steps go on with nobody watching

    const Outcome second = cli({QStringLiteral("watch"), run, QStringLiteral("--json"), QStringLiteral("--from-offset"),
                                QString::number(nextOffset)});
    QCOMPARE(second.exitCode, 0);
    const QList<qint64> more = stepsOf(second.lines());
    QVERIFY(!more.isEmpty());
    QVERIFY2(more.first() > seen.last(), "the second watcher starts after the first one's last step");
    seen += more;
    QList<qint64> expected;
    for (int i = 1; i <= steps; ++i)
        expected.append(i);
    QCOMPARE(seen, expected); // no gap, no duplicate

    // Balanced: no straggler of the size planted below (+80 % or more; +120 % in CI). A rank can still
    // really compute slower here: the two ranks share this 2-core machine with the watchers and mpirun,
    // and one core of this virtual machine runs up to 2x slower for minutes at a time (docs/users/diagnosis.md,
    // the core probe). CI runs saw +22 % over 17 of 20 steps, and +32 % over 30 of 30 steps, which the
    // detector rightly rated critical (it slowed the job by 31 %). So only the size is bounded here; the
    // detector's false alarms are measured on balanced runs whose ranks rotate over the cores
    // (tests/bench/analysis/bench_diagnosis).
    const QJsonObject rep = report(run);
    for (const QJsonValue f : rep.value(QStringLiteral("findings")).toArray()) {
        const QJsonObject o = f.toObject();
        // A tentative finding is no claim yet ("may be slower ... not enough evidence"): it has no excess.
        if (o.value(QStringLiteral("kind")).toString() != QLatin1String("straggler") ||
            o.value(QStringLiteral("state")).toString() == QLatin1String("tentative"))
            continue;
        const double excess =
            o.value(QStringLiteral("evidence")).toObject().value(QStringLiteral("excess_pct")).toDouble(100);
        QVERIFY2(excess < 70, QJsonDocument(o).toJson().constData());
        qWarning("balanced run: the detector reported rank %d at +%.0f %% (CPU contention on this machine)",
                 o.value(QStringLiteral("ranks")).toArray().at(0).toInt(), excess);
    }
}

void TestE2eLaunch::frontEndKilledKeepsTheRun()
{
    // `launch` that follows its run (what the GUI does too) is killed mid-run, as a crash or `kill -9`
    // of the app would end it. Nothing of the run may be lost: it keeps training, its record and
    // metrics stay intact, and the next front end finds and follows it.
    const int steps = 12;
    QProcess* launch = startCli({QStringLiteral("launch"), QStringLiteral("--spec"),
                                 writeSpec(QStringLiteral("orphaned"), {{QStringLiteral("max-steps"), steps}}),
                                 QStringLiteral("--json")});
    QByteArray out;
    QElapsedTimer t;
    t.start();
    while (!stepsOf(Outcome{0, out, {}}.lines()).contains(2) && t.elapsed() < 120000 &&
           launch->state() != QProcess::NotRunning) {
        launch->waitForReadyRead(500);
        out += launch->readAllStandardOutput();
    }
    QVERIFY2(stepsOf(Outcome{0, out, {}}.lines()).contains(2), out.constData());
    launch->kill(); // SIGKILL: no handler runs
    QVERIFY(launch->waitForFinished(5000));
    const QString run = QString::fromUtf8(out.left(out.indexOf('\n')));
    QVERIFY(run.startsWith(QStringLiteral("orphaned-")));

    const Outcome listed = cli({QStringLiteral("runs"), QStringLiteral("--json")});
    QCOMPARE(listed.exitCode, 0);
    QJsonObject summary;
    for (const QJsonValue v : QJsonDocument::fromJson(listed.out).array())
        if (v.toObject().value(QStringLiteral("run_id")).toString() == run)
            summary = v.toObject();
    QVERIFY2(!summary.isEmpty(), listed.out.constData());
    const QString state = summary.value(QStringLiteral("state")).toString();
    QVERIFY2(state == QLatin1String("running") || state == QLatin1String("finished"), listed.out.constData());

    const Outcome watched = cli({QStringLiteral("watch"), run, QStringLiteral("--json")});
    QCOMPARE(watched.exitCode, 0);
    QCOMPARE(lastOfType(watched.lines(), QStringLiteral("end")).value(QStringLiteral("state")).toString(),
             QStringLiteral("finished"));
    QList<qint64> expected;
    for (int i = 1; i <= steps; ++i)
        expected.append(i);
    QCOMPARE(stepsOf(watched.lines()), expected); // from the start of the metrics: every step, once
    const QJsonObject rep = report(run);
    QCOMPARE(rep.value(QStringLiteral("state")).toString(), QStringLiteral("finished"));
    QCOMPARE(rep.value(QStringLiteral("last_step")).toInt(), steps);
    QCOMPARE(rep.value(QStringLiteral("malformed_lines")).toInt(), 0);
    // --overlap on (the default): the allreduce time on the critical path and the hidden part, apart.
    QVERIFY2(rep.value(QStringLiteral("comm_exposed_ms")).toDouble(-1) >= 0, QJsonDocument(rep).toJson().constData());
    QVERIFY2(rep.value(QStringLiteral("comm_hidden_ms")).toDouble(-1) >= 0, QJsonDocument(rep).toJson().constData());
    const Outcome text = cli({QStringLiteral("report"), run});
    QVERIFY2(text.out.contains("allreduce per step: ") && text.out.contains("ms hidden behind backward"),
             text.out.constData());
}

void TestE2eLaunch::appKilledKeepsItsRun()
{
    if (!*TRAINDECK_APP)
        QSKIP("the desktop app is not built (TRAINDECK_WITH_GUI=OFF)");
    // The desktop app itself launches its demo run (2 ranks, qwen2-tiny, 200 steps) and is killed with
    // SIGKILL mid-run. The run goes on, its record and metrics stay whole, and the CLI lists, follows and
    // cancels it.
    const QString runs = m_tmp.filePath(QStringLiteral("app-runs"));
    QProcessEnvironment env = cliEnv();
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), m_tmp.filePath(QStringLiteral("app-config")));
    QProcess app;
    app.setProcessEnvironment(env);
    app.start(QString::fromUtf8(TRAINDECK_APP), {QStringLiteral("--demo"), QStringLiteral("--runs-dir"), runs});
    QVERIFY(app.waitForStarted(10000));
    auto listed = [&] {
        QProcess p;
        p.setProcessEnvironment(cliEnv());
        p.start(QString::fromUtf8(TRAINDECK_CLI),
                {QStringLiteral("runs"), QStringLiteral("--json"), QStringLiteral("--runs-dir"), runs});
        p.waitForFinished(30000);
        const QJsonArray a = QJsonDocument::fromJson(p.readAllStandardOutput()).array();
        return a.isEmpty() ? QJsonObject() : a.first().toObject();
    };
    auto stepsSoFar = [&](const QString& run) {
        QList<qint64> steps;
        QFile f(runs + u'/' + run + QStringLiteral("/metrics.jsonl"));
        if (f.open(QIODevice::ReadOnly))
            for (const QByteArray& line : f.readAll().split('\n')) {
                const QJsonObject o = QJsonDocument::fromJson(line).object();
                if (o.value(QStringLiteral("type")).toString() == QLatin1String("step"))
                    steps.append(o.value(QStringLiteral("step")).toInteger());
            }
        return steps;
    };
    QString run;
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < 120000 && app.state() == QProcess::Running) {
        run = listed().value(QStringLiteral("run_id")).toString();
        if (!run.isEmpty() && stepsSoFar(run).size() >= 2)
            break;
        QTest::qWait(250);
    }
    QVERIFY2(app.state() == QProcess::Running, app.readAllStandardError().constData());
    QVERIFY2(!run.isEmpty() && stepsSoFar(run).size() >= 2, "the app's demo run did not reach step 2");
    app.kill(); // SIGKILL: no handler runs
    QVERIFY(app.waitForFinished(5000));

    // Still running, and still training after the app is gone.
    const qint64 atKill = stepsSoFar(run).size();
    QCOMPARE(listed().value(QStringLiteral("state")).toString(), QStringLiteral("running"));
    t.restart();
    while (stepsSoFar(run).size() < atKill + 3 && t.elapsed() < 60000)
        QTest::qWait(200);
    QVERIFY2(stepsSoFar(run).size() >= atKill + 3, "the run stopped training when the app was killed");

    // Cancelled from the CLI, it ends cancelled with every step recorded once and no damaged line.
    QProcess cancel;
    cancel.setProcessEnvironment(cliEnv());
    cancel.start(QString::fromUtf8(TRAINDECK_CLI), {QStringLiteral("cancel"), run, QStringLiteral("--runs-dir"), runs});
    QVERIFY(cancel.waitForFinished(60000));
    QVERIFY2(cancel.exitCode() == 0, cancel.readAllStandardError().constData());
    t.restart();
    while (listed().value(QStringLiteral("state")).toString() != QLatin1String("cancelled") && t.elapsed() < 30000)
        QTest::qWait(200);
    QCOMPARE(listed().value(QStringLiteral("state")).toString(), QStringLiteral("cancelled"));
    const QList<qint64> steps = stepsSoFar(run);
    for (int i = 0; i < steps.size(); ++i)
        QCOMPARE(steps[i], qint64(i + 1));
    QProcess rep;
    rep.setProcessEnvironment(cliEnv());
    rep.start(QString::fromUtf8(TRAINDECK_CLI),
              {QStringLiteral("report"), run, QStringLiteral("--json"), QStringLiteral("--runs-dir"), runs});
    QVERIFY(rep.waitForFinished(60000));
    const QJsonObject report = QJsonDocument::fromJson(rep.readAllStandardOutput()).object();
    QCOMPARE(report.value(QStringLiteral("malformed_lines")).toInt(-1), 0);
    QCOMPARE(report.value(QStringLiteral("last_step")).toInt(), int(steps.size()));
}

void TestE2eLaunch::plantedStraggler()
{
    // ~25% of a step (measured above), at least 150 ms: well above the noise of a shared machine.
    const int delay = std::max(150, int(0.25 * (m_stepMs > 0 ? m_stepMs : 1500)));
    const int steps = 30;
    const Outcome r = cli({QStringLiteral("launch"), QStringLiteral("--spec"),
                           writeSpec(QStringLiteral("straggler"),
                                     {{QStringLiteral("max-steps"), steps},
                                      {QStringLiteral("inject-delay"), QStringLiteral("1:%1:forward").arg(delay)}}),
                           QStringLiteral("--json")});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const QString run = QString::fromUtf8(r.out.left(r.out.indexOf('\n')));
    // Found live by watch ...
    bool liveFinding = false;
    for (const QJsonObject& o : r.lines()) {
        if (o.value(QStringLiteral("type")).toString() == QLatin1String("finding") &&
            o.value(QStringLiteral("kind")).toString() == QLatin1String("straggler"))
            liveFinding = true;
    }
    QVERIFY(liveFinding);
    // ... and by report.
    const QJsonObject rep = report(run);
    const QJsonObject straggler = traindeck::testing::findingOfKind(rep, QStringLiteral("straggler"));
    QVERIFY2(!straggler.isEmpty(), QJsonDocument(rep).toJson().constData());
    QCOMPARE(straggler.value(QStringLiteral("ranks")).toArray(), QJsonArray{1});
    QCOMPARE(straggler.value(QStringLiteral("hosts")).toArray(), QJsonArray{m_host});
    QVERIFY(straggler.value(QStringLiteral("last_step")).toInt() <= steps);
    const QJsonObject ev = straggler.value(QStringLiteral("evidence")).toObject();
    qInfo("straggler: delay %d ms (step %.0f ms): %s", delay, m_stepMs,
          QJsonDocument(ev).toJson(QJsonDocument::Compact).constData());
    QVERIFY(!straggler.value(QStringLiteral("recommendation")).toString().isEmpty());
}

void TestE2eLaunch::stalledRankNamedLiveAndInReport()
{
    // Rank 1 stops in data loading of step 3 for 12 s; the stall inspector's warning (after 4 s) becomes a
    // finding in launch's live output and in the report, resolved once the job moved on. (With a 2 s
    // warning, beside CI's ASan build, rank 0's own backward once took that long too, and the warning
    // named both ranks as stuck.)
    const Outcome r =
        cli({QStringLiteral("launch"), QStringLiteral("--spec"),
             writeSpec(QStringLiteral("stall"), {{QStringLiteral("max-steps"), 6},
                                                 {QStringLiteral("stall-warning"), 4},
                                                 {QStringLiteral("inject-stall"), QStringLiteral("1:3:12")}}),
             QStringLiteral("--json")});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const QString run = QString::fromUtf8(r.out.left(r.out.indexOf('\n')));
    bool live = false;
    for (const QJsonObject& o : r.lines())
        live = live || (o.value(QStringLiteral("type")).toString() == QLatin1String("finding") &&
                        o.value(QStringLiteral("kind")).toString() == QLatin1String("stall"));
    QVERIFY2(live, r.out.constData());
    const QJsonObject rep = report(run);
    const QJsonObject stall = traindeck::testing::findingOfKind(rep, QStringLiteral("stall"));
    QVERIFY2(!stall.isEmpty(), QJsonDocument(rep).toJson().constData());
    QCOMPARE(stall.value(QStringLiteral("ranks")).toArray(), QJsonArray{1});
    QCOMPARE(stall.value(QStringLiteral("hosts")).toArray(), QJsonArray{m_host});
    QCOMPARE(stall.value(QStringLiteral("state")).toString(), QStringLiteral("resolved"));
    QCOMPARE(stall.value(QStringLiteral("raised_step")).toInt(), 3);
    const QString summary = stall.value(QStringLiteral("summary")).toString();
    QVERIFY2(summary.contains(QStringLiteral("in data loading of step 3")) &&
                 summary.contains(QStringLiteral("stuck before the collective")),
             qPrintable(summary));
}

QTEST_GUILESS_MAIN(TestE2eLaunch)
#include "tst_e2e_launch.moc"
