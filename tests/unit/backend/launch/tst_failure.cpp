// Failure attribution: rank, host, exit code or signal from error records, trainer stderr lines and
// mpirun's messages (fixtures in tests/fixtures/launch/, one captured from a real injected exit).
#include "launch/failure.h"

#include <QFile>
#include <QTest>

using namespace traindeck::launch;
using traindeck::metrics::ErrorRecord;

class TestFailure : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void fixtures_data();
    void fixtures();
    void errorRecordWins();
    void nothingKnown();
    void lastLines();
};

static QByteArray fixture(const QString &name)
{
    QFile f(QStringLiteral(TRAINDECK_SOURCE_DIR "/tests/fixtures/launch/") + name);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

void TestFailure::fixtures_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("mpirunExit");
    QTest::addColumn<int>("rank");
    QTest::addColumn<QString>("host");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<int>("signal");
    QTest::addColumn<QString>("summary");
    QTest::addRow("injected exit") << "mpirun-inject-exit.stderr.log" << 3 << 1 << "vm" << 3 << 0
                                   << "rank 1 on vm exited with code 3: injected exit (test aid) at step 3";
    QTest::addRow("signal") << "mpirun-signal.stderr.log" << 137 << 2 << "gpu-02" << -1 << 9
                            << "rank 2 on gpu-02 was killed by signal 9 (Killed)";
    QTest::addRow("abort") << "mpirun-abort.stderr.log" << 1 << 1 << "gpu-07" << 1 << 0
                           << "rank 1 on gpu-07 exited with code 1: CUDA error: an illegal memory access was encountered";
}

void TestFailure::fixtures()
{
    QFETCH(QString, file);
    QFETCH(int, mpirunExit);
    QFETCH(int, rank);
    QFETCH(QString, host);
    QFETCH(int, exitCode);
    QFETCH(int, signal);
    QFETCH(QString, summary);
    const QByteArray text = fixture(file);
    QVERIFY(!text.isEmpty());
    const FailureInfo f = attributeFailure({}, text, mpirunExit, {QStringLiteral("h0"), QStringLiteral("h1"), QStringLiteral("h2")});
    QVERIFY(f.known);
    QCOMPARE(f.rank, rank);
    QCOMPARE(f.host, host);
    QCOMPARE(f.exitCode, exitCode);
    QCOMPARE(f.signal, signal);
    QCOMPARE(f.summary(), summary);
    QCOMPARE(f.toJson().value(QStringLiteral("rank")).toInt(), rank);
}

void TestFailure::errorRecordWins()
{
    ErrorRecord e;
    e.rank = 3;
    e.host = QStringLiteral("node4");
    e.message = QStringLiteral("out of memory");
    e.exitCode = 1;
    e.hasExitCode = true;
    const FailureInfo f = attributeFailure({e}, fixture(QStringLiteral("mpirun-signal.stderr.log")), 1);
    QCOMPARE(f.rank, 3);
    QCOMPARE(f.host, QStringLiteral("node4"));
    QCOMPARE(f.exitCode, 1);
    QCOMPARE(f.message, QStringLiteral("out of memory"));
    QVERIFY(f.sources.contains(QStringLiteral("metrics")));
}

void TestFailure::nothingKnown()
{
    const FailureInfo f = attributeFailure({}, QByteArray("segmentation fault\n"), 139);
    QVERIFY(!f.known);
    QCOMPARE(f.summary(), QStringLiteral("the job failed (mpirun exit code 139)"));
    // Host filled from hello when mpirun names only the rank.
    const FailureInfo g = attributeFailure({}, QByteArray("Process name: [[1,1],1]\n  Exit code:    5\n"), 5,
                                           {QStringLiteral("a"), QStringLiteral("b")});
    QCOMPARE(g.rank, 1);
    QCOMPARE(g.host, QStringLiteral("b"));
    QCOMPARE(g.exitCode, 5);
}

void TestFailure::lastLines()
{
    QCOMPARE(traindeck::launch::lastLines("a\nb\nc\n\n", 2), (QStringList{QStringLiteral("b"), QStringLiteral("c")}));
    QCOMPARE(traindeck::launch::lastLines("", 2), QStringList());
}

QTEST_GUILESS_MAIN(TestFailure)
#include "tst_failure.moc"
