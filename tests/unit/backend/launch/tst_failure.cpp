// Failure attribution: rank, host, exit code or signal from error records, trainer stderr lines and
// mpirun's messages (fixtures in tests/fixtures/launch/, one captured from a real injected exit).
#include "launch/failure.h"
#include "test_paths.h"

#include <QFile>
#include <QTest>

using namespace traindeck::launch;
using traindeck::metrics::ErrorRecord;

class TestFailure : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void fixtures_data();
    void fixtures();
    void errorRecordWins();
    void nothingKnown();
    void srunNamesTaskAndNode();
    void ranksBeyondAnyRunAreNotNamed();
    void lastLines();
    void lostDaemonNamesNode();
    void signalledRankOverPeersFailedCalls();
};

static QByteArray fixture(const QString& name)
{
    QFile f(QString::fromUtf8(TRAINDECK_SOURCE_DIR) + QStringLiteral("/tests/fixtures/launch/") + name);
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
    QTest::addRow("abort")
        << "mpirun-abort.stderr.log" << 1 << 1 << "gpu-07" << 1 << 0
        << "rank 1 on gpu-07 exited with code 1: CUDA error: an illegal memory access was encountered";
    // mpirun --tag-output: the trainer's line carries its rank's tag.
    QTest::addRow("tagged") << "mpirun-tagged-4ranks.stderr.log" << 3 << 2 << "node2" << 3 << 0
                            << "rank 2 on node2 exited with code 3: injected exit (test aid) at step 3";
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
    const FailureInfo f =
        attributeFailure({}, text, mpirunExit, {QStringLiteral("h0"), QStringLiteral("h1"), QStringLiteral("h2")});
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

// Ranks started by srun --label: the trainer's own line (after srun's "RANK: " label) and srun's
// "task R" lines name the rank, the node and the exit code.
void TestFailure::srunNamesTaskAndNode()
{
    const QByteArray log = "traindeck: ranks start with srun --label (lines read \"RANK: text\")\n"
                           "1: traindeck-trainer: rank 1 on tb-node2: injected exit at step 5\n"
                           "srun: error: tb-node2: task 1: Exited with exit code 3\n"
                           "srun: error: tb-node1: task 0: Killed\n";
    const FailureInfo f = attributeFailure({}, log, 3);
    QVERIFY(f.known);
    QCOMPARE(f.rank, 1);
    QCOMPARE(f.host, QStringLiteral("tb-node2"));
    QCOMPARE(f.exitCode, 3);
    QCOMPARE(f.message, QStringLiteral("injected exit at step 5"));
    QVERIFY(f.sources.contains(QStringLiteral("srun")));
    // srun alone (a rank killed before it could speak).
    const FailureInfo g =
        attributeFailure({}, QByteArray("srun: error: nodeB: tasks 4-7: Exited with exit code 9\n"), 9);
    QCOMPARE(g.rank, 4);
    QCOMPARE(g.host, QStringLiteral("nodeB"));
    QCOMPARE(g.exitCode, 9);
}

void TestFailure::lastLines()
{
    QCOMPARE(traindeck::launch::lastLines("a\nb\nc\n\n", 2), (QStringList{QStringLiteral("b"), QStringLiteral("c")}));
    QCOMPARE(traindeck::launch::lastLines("", 2), QStringList());
}

void TestFailure::lostDaemonNamesNode()
{
    // Real mpirun output from the testbed: every process of tb-node2 killed mid-run. The surviving
    // ranks' complaints do not matter; the lost node and its rank are the cause.
    const QByteArray text = fixture(QStringLiteral("mpirun-lost-daemon.stderr.log")) +
                            "traindeck-trainer: rank 0 on tb-node1: MPI_Allreduce failed: connection reset\n";
    const FailureInfo f = attributeFailure({}, text, 205, {QStringLiteral("tb-node1"), QStringLiteral("tb-node2")});
    QVERIFY(f.known);
    QCOMPARE(f.rank, 1);
    QCOMPARE(f.host, QStringLiteral("tb-node2"));
    QCOMPARE(f.lostNode, QStringLiteral("tb-node2"));
    QVERIFY2(f.summary().startsWith(
                 QStringLiteral("rank 1 on tb-node2 failed (mpirun exit code 205): mpirun lost contact with tb-node2")),
             qPrintable(f.summary()));
    QCOMPARE(f.toJson().value(QStringLiteral("lost_node")).toString(), QStringLiteral("tb-node2"));
    // Before the hello (no rank -> host map) the node is still named.
    const FailureInfo early = attributeFailure({}, text, 205);
    QVERIFY(!early.known);
    QVERIFY2(early.summary().startsWith(QStringLiteral("the job on tb-node2 failed")), qPrintable(early.summary()));

    // The ssh carrying the daemon died first: mpirun names no node, ssh does.
    const QByteArray viaSsh = "Connection to tb-node2 closed by remote host.\n"
                              "--------------------------------------------------------------------------\n"
                              "ORTE was unable to reliably start one or more daemons.\n"
                              "This usually is caused by:\n\n"
                              "* not finding the required libraries and/or binaries on\n"
                              "  one or more nodes.\n";
    const FailureInfo s = attributeFailure({}, viaSsh, 255, {QStringLiteral("tb-node1"), QStringLiteral("tb-node2")});
    QCOMPARE(s.rank, 1);
    QCOMPARE(s.lostNode, QStringLiteral("tb-node2"));
    // ssh's words alone (a rank's own ssh use, say) blame no node.
    const FailureInfo plain = attributeFailure({}, QByteArray("Connection to tb-node2 closed by remote host.\n"), 1,
                                               {QStringLiteral("tb-node1"), QStringLiteral("tb-node2")});
    QVERIFY(plain.lostNode.isEmpty());
    QVERIFY(!plain.known);
}

// A rank number beyond any run's (kMaxRankInText) names no rank, and srun's line counts only at a line's
// start (a rank's own output may quote one).
void TestFailure::ranksBeyondAnyRunAreNotNamed()
{
    for (const char* text :
         {"srun: error: n1: task 2000000000: Exited with exit code 3\n", "srun: error: n1: task 2147483647: Killed\n",
          "traindeck-trainer: rank 99999999999 on n1: out of memory\n",
          "process rank 2000000000 with PID 7 on node n1 exited on signal 9 (Killed).\n",
          "step 3: the log said srun: error: n1: task 1: Exited with exit code 3\n"}) {
        const FailureInfo f = attributeFailure({}, QByteArray(text), 1);
        QVERIFY2(!f.known && f.rank == -1, text);
    }
}

// A rank killed by the OOM killer: a peer's failed MPI call came first in the output (as at 64 testbed ranks on
// one machine), and mpirun's line names the rank that died. Its own report of anything else still wins.
void TestFailure::signalledRankOverPeersFailedCalls()
{
    QStringList hosts;
    for (int r = 0; r < 64; ++r)
        hosts.append(QStringLiteral("tb-node%1").arg(r + 1));
    const QByteArray peerLine =
        "[1,60]<stderr>:traindeck-trainer: rank 60 on tb-node61: the stall inspector stopped reporting: rank 60 on "
        "tb-node61: MPI_Send failed (trainer/dist/communicator.cpp:314): MPI_ERR_INTERN: internal error\n";
    const QByteArray mpirunLine =
        "--------------------------------------------------------------------------\n"
        "mpirun noticed that process rank 18 with PID 18902 on node tb-node19 exited on signal 9 (Killed).\n"
        "--------------------------------------------------------------------------\n";
    const FailureInfo f = attributeFailure({}, peerLine + mpirunLine, 137, hosts);
    QCOMPARE(f.rank, 18);
    QCOMPARE(f.host, QStringLiteral("tb-node19"));
    QCOMPARE(f.signal, 9);
    QCOMPARE(f.summary(), QStringLiteral("rank 18 on tb-node19 was killed by signal 9 (Killed)"));

    // The same peer report as an error record: not the cause either.
    ErrorRecord e;
    e.rank = 60;
    e.host = QStringLiteral("tb-node61");
    e.message = QStringLiteral("MPI_Allreduce failed: MPI_ERR_OTHER");
    QCOMPARE(attributeFailure({e}, peerLine + mpirunLine, 137, hosts).rank, 18);

    // Without mpirun's word on a signal the peer's line is all there is.
    QCOMPARE(attributeFailure({}, peerLine, 137, hosts).rank, 60);
    // A line that is not a failed MPI call (the rank's own error) still names its rank.
    const QByteArray ownLine = "[1,60]<stderr>:traindeck-trainer: rank 60 on tb-node61: CUDA error: out of memory\n";
    QCOMPARE(attributeFailure({}, ownLine + mpirunLine, 137, hosts).rank, 60);
    // The signalled rank's own line is kept.
    const QByteArray killedOwn =
        "[1,18]<stderr>:traindeck-trainer: rank 18 on tb-node19: MPI_Recv failed: MPI_ERR_TRUNCATE\n";
    const FailureInfo g = attributeFailure({}, peerLine + killedOwn + mpirunLine, 137, hosts);
    QCOMPARE(g.rank, 18);
    QCOMPARE(g.message, QStringLiteral("MPI_Recv failed: MPI_ERR_TRUNCATE"));
}

QTEST_GUILESS_MAIN(TestFailure)
#include "tst_failure.moc"
