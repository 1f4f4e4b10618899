// Logs by node and rank (launch/ranklogs.h, ranklogmodel.h): mpirun --tag-output lines split back
// into each rank's lines (also when ranks' partial writes share a physical line, and fed byte by
// byte), labels host:rank / mpirun / "?" for old untagged logs, identical lines of several ranks
// collapsed, filters, and the failed rank's first error picked out of fixture logs (tests/fixtures/
// launch/) with the failure that failure.h attributes. The table model is checked with
// QAbstractItemModelTester while lines arrive and filters change.
#include "launch/failure.h"
#include "launch/ranklogmodel.h"
#include "launch/ranklogs.h"
#include "launch/rundir.h"
#include "launch/transport.h"
#include "test_paths.h"

#include <QAbstractItemModelTester>
#include <QFile>
#include <QJsonArray>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace traindeck::launch;

class TestRankLogs : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void split_data();
    void split();
    void rankRanges_data();
    void rankRanges();
    void errorText_data();
    void errorText();
    void collapse();
    void collapseAt1024Ranks();
    void srunLabels();
    void ranksBeyondAnyRunStayText();
    void lineWithoutNewlineIsCut();
    void fixtures_data();
    void fixtures();
    void filters_data();
    void filters();
    void readFileTail();
    void model();
};

static QStringList sl(std::initializer_list<const char*> list)
{
    QStringList out;
    for (const char* s : list)
        out.append(QString::fromUtf8(s));
    return out;
}

static QByteArray fixture(const QString& name)
{
    QFile f(QString::fromUtf8(TRAINDECK_SOURCE_DIR) + QStringLiteral("/tests/fixtures/launch/") + name);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// "rank:text" per line (-1 for an untagged line).
static QStringList describe(const QList<LogLine>& lines)
{
    QStringList out;
    for (const LogLine& l : lines)
        out.append(QStringLiteral("%1:%2").arg(l.rank).arg(l.text));
    return out;
}

void TestRankLogs::split_data()
{
    QTest::addColumn<QByteArray>("input");
    QTest::addColumn<QStringList>("lines");
    QTest::addRow("untagged") << QByteArray("hello\nworld\n") << sl({"-1:hello", "-1:world"});
    QTest::addRow("tagged") << QByteArray("[1,0]<stderr>:a\n[1,12]<stderr>:b c\n--------\n")
                            << sl({"0:a", "12:b c", "-1:--------"});
    QTest::addRow("stdout and stddiag") << QByteArray("[3,1]<stdout>:x\n[3,2]<stddiag>:y\n") << sl({"1:x", "2:y"});
    // Seen from Open MPI 4.1: partial writes tagged one by one, sharing a physical line.
    QTest::addRow("interleaved partial writes")
        << QByteArray("[1,0]<stdout>:partial[1,1]<stdout>:partial[1,0]<stdout>: rest\n[1,1]<stdout>: rest\n")
        << sl({"0:partial rest", "1:partial rest"});
    QTest::addRow("a rank's line in two writes")
        << QByteArray("[1,0]<stderr>:traindeck-trainer: [1,0]<stderr>:boom\n") << sl({"0:traindeck-trainer: boom"});
    QTest::addRow("crlf and empty lines") << QByteArray("a\r\n\n[1,0]<stderr>:\n") << sl({"-1:a", "-1:", "0:"});
    QTest::addRow("unterminated") << QByteArray("[1,1]<stderr>:done") << sl({"1:done"});
    QTest::addRow("cut off at the end") << QByteArray("[1,1]<stderr>:half[1,0]<stderr>:whole\n")
                                        << sl({"0:whole", "1:half"});
    QTest::addRow("utf-8") << QByteArray("[1,0]<stderr>:\xe6\x97\xa5\xe5\xbf\x97\n") << sl({"0:日志"});
    QTest::addRow("brackets that are no tag")
        << QByteArray("[1,x]<stderr>:a\n[warn] b\n") << sl({"-1:[1,x]<stderr>:a", "-1:[warn] b"});
}

void TestRankLogs::split()
{
    QFETCH(QByteArray, input);
    QFETCH(QStringList, lines);
    LogLineSplitter whole;
    QList<LogLine> got = whole.feed(input);
    got += whole.finish();
    QCOMPARE(describe(got), lines);
    // Byte by byte (a live log read in arbitrary chunks) gives the same lines.
    LogLineSplitter bytes;
    QList<LogLine> got2;
    for (char c : input)
        got2 += bytes.feed(QByteArray(1, c));
    got2 += bytes.finish();
    QCOMPARE(describe(got2), lines);
}

void TestRankLogs::rankRanges_data()
{
    QTest::addColumn<QList<int>>("ranks");
    QTest::addColumn<QString>("text");
    QTest::addRow("none") << QList<int>{} << "";
    QTest::addRow("one") << QList<int>{3} << "3";
    QTest::addRow("two") << QList<int>{1, 2} << "1,2";
    QTest::addRow("run") << QList<int>{1, 2, 3, 4, 5, 6, 7} << "1\u20137";
    QTest::addRow("mixed") << QList<int>{0, 1, 2, 3, 5, 7, 8, 9} << "0\u20133,5,7\u20139";
}

void TestRankLogs::rankRanges()
{
    QFETCH(QList<int>, ranks);
    QFETCH(QString, text);
    QCOMPARE(traindeck::launch::rankRanges(ranks), text);
}

void TestRankLogs::errorText_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<bool>("error");
    QTest::addRow("progress") << "step 1/5  loss 11.9419  lr 3.00e-05" << false;
    QTest::addRow("checkpoint") << "checkpoint checkpoints/step-00000002 (129.2 MB, 1596 ms)" << false;
    QTest::addRow("trainer line") << "traindeck-trainer: rank 1 on vm: injected exit (test aid) at step 3" << true;
    QTest::addRow("RuntimeError") << "RuntimeError: boom" << true;
    QTest::addRow("MPI_ABORT") << "MPI_ABORT was invoked on rank 1 in communicator MPI_COMM_WORLD" << true;
    QTest::addRow("signal") << "mpirun noticed that process rank 2 with PID 0 on node gpu-02 exited on signal 9"
                            << true;
    QTest::addRow("non-zero") << "a non-zero exit code. Per user-direction, the job has been aborted." << true;
    QTest::addRow("lost daemon") << "ORTE has lost communication with a remote daemon." << true;
    QTest::addRow("what()") << "  what():  std::bad_alloc" << true;
    QTest::addRow("exit code") << "  Exit code:    3" << true;
}

void TestRankLogs::errorText()
{
    QFETCH(QString, text);
    QFETCH(bool, error);
    QCOMPARE(isErrorText(text), error);
}

// Rank numbers read from log text are bounded (kMaxRankInText): a larger one leaves its line plain text
// and sizes nothing. "rank 2000000000" once made the host table allocate ~48 GB, and 2147483647
// overflowed its "+ 1" into an out-of-bounds write; digits beyond int read as rank 0.
void TestRankLogs::ranksBeyondAnyRunStayText()
{
    const QByteArray text = "traindeck-trainer: rank 2000000000 on x: y\n"
                            "traindeck-trainer: rank 2147483647 on x: y\n"
                            "traindeck-trainer: rank 99999999999 on x: y\n"
                            "[1,2147483647]<stderr>:hello\n"
                            "[1,0]<stderr>:a[1,99999999999]<stderr>:b\n"
                            "traindeck-trainer: rank 1000000 on edge: z\n";
    RankLog log;
    log.addText(text, LogStream::Stderr);
    log.finish();
    QCOMPARE(log.groups().size(), 6);
    for (int i = 0; i < 5; ++i) {
        QVERIFY2(log.groups()[i].ranks.isEmpty(), qPrintable(log.groups()[i].text));
        QVERIFY(!log.groups()[i].tagged);
    }
    QCOMPARE(log.groups()[3].text, QStringLiteral("[1,2147483647]<stderr>:hello"));
    QCOMPARE(log.groups()[4].text, QStringLiteral("[1,0]<stderr>:a[1,99999999999]<stderr>:b"));
    // The bound itself is still a rank, and the host table grows to it (and no further).
    QCOMPARE(log.groups()[5].ranks, QList<int>{kMaxRankInText});
    QCOMPARE(log.hostsByRank().size(), kMaxRankInText + 1);
    QCOMPARE(log.hostOf(kMaxRankInText), QStringLiteral("edge"));

    // srun --label lines and a failure from text, with the same numbers.
    RankLog srun;
    srun.addText(QByteArray(kSrunLabelMarker) + "\n99999999999: x\n2000000000: y\n3: z\n", LogStream::Stderr);
    srun.finish();
    QCOMPARE(srun.groups().size(), 4);
    QCOMPARE(srun.groups()[1].ranks, QList<int>{});
    QCOMPARE(srun.groups()[2].ranks, QList<int>{});
    QCOMPARE(srun.groups()[3].ranks, QList<int>{3});
    FailureInfo f;
    f.known = true;
    f.rank = 2000000000;
    f.host = QStringLiteral("x");
    srun.setFailure(f);
    QVERIFY(srun.hostsByRank().isEmpty());
    QCOMPARE(rankFromText(u"2147483648"), -1);
    QCOMPARE(rankFromText(u"-1"), -1);
    QCOMPARE(rankFromText(u""), -1);
    QCOMPARE(rankFromText(u"0000007"), 7);
}

// Output without a newline (a progress bar redrawn with \r) is cut into lines of kMaxLogLineBytes instead
// of growing one line without bound; what follows a newline is a line as before.
void TestRankLogs::lineWithoutNewlineIsCut()
{
    LogLineSplitter split(LogStream::Stderr);
    QList<LogLine> lines;
    const QByteArray chunk(4096, 'x');
    for (int i = 0; i < 256; ++i) // 1 MiB in 4 KiB reads
        lines += split.feed(chunk);
    lines += split.feed("\rdone\nnext\n");
    QCOMPARE(lines.size(), 1024 * 1024 / kMaxLogLineBytes + 2);
    for (int i = 0; i + 2 < lines.size(); ++i)
        QCOMPARE(lines[i].text.size(), kMaxLogLineBytes);
    QCOMPARE(lines[lines.size() - 2].text, QStringLiteral("\rdone"));
    QCOMPARE(lines.last().text, QStringLiteral("next"));
}

// Ranks started with srun --label: after the batch script's marker, "RANK: text" lines are ranks'
// lines (fed in odd chunks), srun's own lines stay untagged and are labelled srun. Before the marker
// (and without one) a line that merely starts with a number is no rank's.
// 1,024 ranks on 128 hosts print the same line, each between lines of its own; rank 517 does not: one group,
// "ranks 0–1023 except 517", on every host; the host filter keeps it and the lines of that host.
void TestRankLogs::collapseAt1024Ranks()
{
    RankLog log;
    QStringList hosts;
    for (int r = 0; r < 1024; ++r)
        hosts << QStringLiteral("node%1").arg(r / 8 + 1, 3, 10, QLatin1Char('0'));
    log.setHostsByRank(hosts);
    QByteArray text;
    for (int r = 0; r < 1024; ++r) {
        text += "[1," + QByteArray::number(r) + "]<stderr>:rank " + QByteArray::number(r) + " loaded its shard\n";
        if (r != 517)
            text += "[1," + QByteArray::number(r) + "]<stderr>:NCCL INFO Connected all rings\n";
    }
    log.addText(text, LogStream::Stderr);
    log.finish();
    QCOMPARE(log.lineCount(), qint64(2047));
    QCOMPARE(log.groups().size(), 1024 + 1);
    const LogGroup& ready = log.groups()[1];
    QCOMPARE(ready.text, QStringLiteral("NCCL INFO Connected all rings"));
    QCOMPARE(ready.ranks.size(), 1023);
    QCOMPARE(log.label(ready), QStringLiteral("ranks 0\u20131023 except 517"));
    QCOMPARE(log.hostsOf(ready).size(), 128);
    // Two ranks missing, and a group that is not most of the job, keep their ranges.
    LogGroup two = ready;
    two.ranks.removeOne(3);
    QCOMPARE(log.label(two), QStringLiteral("ranks 0\u20131023 except 3,517"));
    LogGroup half = ready;
    half.ranks = half.ranks.mid(0, 600);
    QCOMPARE(log.label(half), QStringLiteral("ranks 0\u2013516,518\u2013600"));

    LogFilter onHost;
    onHost.host = QStringLiteral("node065"); // ranks 512-519
    int shown = 0;
    for (const LogGroup& g : log.groups())
        shown += log.matches(g, onHost);
    QCOMPARE(shown, 1 + 8); // the collapsed line and each of that host's own lines
}

void TestRankLogs::srunLabels()
{
    const QByteArray text = QByteArray("12: not a rank, no marker yet\n") + kSrunLabelMarker +
                            "\n0: NCCL WARN retrying\n 1: NCCL WARN retrying\n"
                            "1: step 1/9\nsrun: error: tb-node2: task 1: Exited with exit code 3\n10: x: y\n";
    RankLog log;
    log.setHostsByRank(sl({"n1", "n2"}));
    for (qsizetype i = 0; i < text.size(); i += 5)
        log.addText(text.mid(i, 5), LogStream::Stderr);
    log.finish();
    QCOMPARE(log.groups().size(), 6);
    QCOMPARE(log.groups()[0].ranks, QList<int>{});
    QCOMPARE(log.groups()[0].text, QStringLiteral("12: not a rank, no marker yet"));
    QCOMPARE(log.groups()[2].ranks, (QList<int>{0, 1}));
    QCOMPARE(log.groups()[2].text, QStringLiteral("NCCL WARN retrying"));
    QCOMPARE(log.label(log.groups()[3]), QStringLiteral("n2:1"));
    QCOMPARE(log.groups()[3].text, QStringLiteral("step 1/9"));
    QCOMPARE(log.label(log.groups()[4]), QStringLiteral("srun"));
    QVERIFY(log.groups()[4].error);
    QCOMPARE(log.groups()[5].ranks, QList<int>{10});
    QCOMPARE(log.groups()[5].text, QStringLiteral("x: y"));
    QCOMPARE(log.toJson(log.groups()[4]).value(QStringLiteral("origin")).toString(), QStringLiteral("srun"));

    // An mpirun log is not read as srun's: "0: ..." there is mpirun's own line.
    RankLog mpi;
    mpi.addText("[1,0]<stderr>:hello\n0: odd mpirun line\n", LogStream::Stderr);
    mpi.finish();
    QCOMPARE(mpi.groups().size(), 2);
    QCOMPARE(mpi.label(mpi.groups()[1]), QStringLiteral("mpirun"));
}

void TestRankLogs::collapse()
{
    RankLog log;
    log.setHostsByRank(sl({"n1", "n1", "n1", "n1", "n2", "n2", "n2", "n2"}));
    QByteArray text;
    for (int r = 1; r < 8; ++r) // every rank but 0, interleaved with rank 0's progress
        text += QStringLiteral("[1,%1]<stderr>:NCCL WARN retrying\n[1,0]<stderr>:step %1/9\n").arg(r).toUtf8();
    text += "[1,3]<stderr>:NCCL WARN retrying\n"; // the same rank again: a new event
    log.addText(text, LogStream::Stderr);
    log.finish();
    QCOMPARE(log.lineCount(), qint64(15));
    QCOMPARE(log.groups().size(), 9); // the collapsed group, 7 steps, rank 3's repeat
    const LogGroup& g = log.groups().first();
    QCOMPARE(g.ranks, (QList<int>{1, 2, 3, 4, 5, 6, 7}));
    QCOMPARE(log.label(g), QStringLiteral("ranks 1\u20137"));
    QCOMPARE(log.hostsOf(g), (sl({"n1", "n2"})));
    QCOMPARE(log.label(log.groups()[1]), QStringLiteral("n1:0"));
    QCOMPARE(log.groups().last().ranks, QList<int>{3});
    QCOMPARE(log.groups().last().firstLine, qint64(14));

    const QJsonObject j = log.toJson(g);
    QCOMPARE(j.value(QStringLiteral("label")).toString(), QStringLiteral("ranks 1\u20137"));
    QCOMPARE(j.value(QStringLiteral("ranks")).toArray().size(), 7);
    QCOMPARE(j.value(QStringLiteral("origin")).toString(), QStringLiteral("rank"));
    QCOMPARE(j.value(QStringLiteral("line")).toInteger(), 1);

    // Far apart, the same line is two events.
    RankLog far;
    QByteArray t = "[1,0]<stderr>:same\n";
    for (int i = 0; i < RankLog::kJoinWindow; ++i)
        t += "[1,0]<stderr>:filler " + QByteArray::number(i) + '\n';
    t += "[1,1]<stderr>:same\n";
    far.addText(t, LogStream::Stderr);
    QCOMPARE(far.groups().first().ranks, QList<int>{0});
    QCOMPARE(far.groups().last().ranks, QList<int>{1});
    // stderr and stdout lines never join.
    RankLog streams;
    streams.addText("[1,0]<stderr>:x\n", LogStream::Stderr);
    streams.addText("[1,1]<stdout>:x\n", LogStream::Stdout);
    QCOMPARE(streams.groups().size(), 2);
}

void TestRankLogs::fixtures_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("mpirunExit");
    QTest::addColumn<QStringList>("hosts"); // from the hello record
    QTest::addColumn<bool>("tagged");
    QTest::addColumn<QString>("firstLabel");
    QTest::addColumn<QString>("firstText");
    QTest::addColumn<QString>("sameText"); // a line several ranks wrote
    QTest::addColumn<QString>("sameLabel");
    QTest::addRow("tagged 4 ranks") << "mpirun-tagged-4ranks.stderr.log" << 3
                                    << sl({"node1", "node1", "node2", "node2"}) << true << "node2:2"
                                    << "traindeck-trainer: rank 2 on node2: injected exit (test aid) at step 3"
                                    << "token cache: 668 documents"
                                    << "ranks 0\u20133";
    // No hello (the run died before it): the trainer's line names rank and host.
    QTest::addRow("tagged, no hello") << "mpirun-tagged-4ranks.stderr.log" << 3 << QStringList{} << true << "node2:2"
                                      << "traindeck-trainer: rank 2 on node2: injected exit"
                                      << "NCCL WARN"
                                      << "rank 3";
    // Logs from before --tag-output: the trainer's line still names its rank.
    QTest::addRow("old: injected exit") << "mpirun-inject-exit.stderr.log" << 3 << sl({"vm", "vm"}) << false << "vm:1"
                                        << "traindeck-trainer: rank 1 on vm: injected exit"
                                        << "step 1/5"
                                        << "?";
    QTest::addRow("old: abort") << "mpirun-abort.stderr.log" << 1 << QStringList{} << false << "gpu-07:1"
                                << "CUDA error: an illegal memory access"
                                << "MPI_ABORT was invoked"
                                << "?";
    // A rank killed before it could say anything: mpirun's message comes first.
    QTest::addRow("old: signal") << "mpirun-signal.stderr.log" << 137 << QStringList{} << false << "?"
                                 << "mpirun noticed that process rank 2 with PID 0"
                                 << "step 1/200"
                                 << "?";
    QTest::addRow("old: lost node") << "mpirun-lost-daemon.stderr.log" << 1 << sl({"tb-node1", "tb-node2"}) << false
                                    << "?"
                                    << "ORTE has lost communication with a remote daemon."
                                    << "step 43/100"
                                    << "?";
}

void TestRankLogs::fixtures()
{
    QFETCH(QString, file);
    QFETCH(int, mpirunExit);
    QFETCH(QStringList, hosts);
    QFETCH(bool, tagged);
    QFETCH(QString, firstLabel);
    QFETCH(QString, firstText);
    QFETCH(QString, sameText);
    QFETCH(QString, sameLabel);
    const QByteArray text = fixture(file);
    QVERIFY(!text.isEmpty());

    RankLog log;
    log.setHostsByRank(hosts);
    log.addText(text, LogStream::Stderr);
    log.finish();
    QCOMPARE(log.tagged(), tagged);
    QCOMPARE(log.lineCount(), qint64(text.count('\n')));
    QCOMPARE(log.firstErrorGroup(), -1); // no failure known yet
    // The failure as failure.h attributes it (reused, not re-derived).
    log.setFailure(attributeFailure({}, text, mpirunExit, hosts));
    const qsizetype first = log.firstErrorGroup();
    QVERIFY(first >= 0);
    const LogGroup& g = log.groups()[first];
    QCOMPARE(log.label(g), firstLabel);
    QVERIFY2(g.text.contains(firstText), qPrintable(g.text));
    QVERIFY(g.error);

    bool found = false;
    for (const LogGroup& s : log.groups()) {
        if (s.text.contains(sameText)) {
            QCOMPARE(log.label(s), sameLabel);
            found = true;
            break;
        }
    }
    QVERIFY(found);
    // mpirun's own lines: "mpirun" in a tagged log, "?" in an old one.
    const LogGroup& last = log.groups().last();
    QVERIFY(last.ranks.isEmpty());
    QCOMPARE(log.label(last), tagged ? QStringLiteral("mpirun") : QStringLiteral("?"));
    QCOMPARE(log.toJson(last).value(QStringLiteral("origin")).toString(),
             tagged ? QStringLiteral("mpirun") : QStringLiteral("unknown"));
}

void TestRankLogs::filters_data()
{
    QTest::addColumn<int>("rank");
    QTest::addColumn<QString>("host");
    QTest::addColumn<bool>("errors");
    QTest::addColumn<QStringList>("texts"); // the start of every group shown
    QTest::addRow("rank 2") << 2 << "" << false << sl({"token cache", "traindeck-trainer: rank 2"});
    QTest::addRow("rank 1: a line split by rank 3's") << 1 << "" << false << sl({"token cache", "slow input file"});
    QTest::addRow("node2 errors") << -1 << "node2" << true << sl({"NCCL WARN Error", "traindeck-trainer: rank 2"});
    QTest::addRow("errors") << -1 << "" << true
                            << sl({"NCCL WARN Error", "traindeck-trainer: rank 2", "traindeck-trainer: rank 0",
                                   "a non-zero exit code", "mpirun detected", "  Exit code:"});
    QTest::addRow("unknown host") << -1 << "node9" << false << QStringList{};
}

void TestRankLogs::filters()
{
    QFETCH(int, rank);
    QFETCH(QString, host);
    QFETCH(bool, errors);
    QFETCH(QStringList, texts);
    RankLog log;
    log.setHostsByRank(sl({"node1", "node1", "node2", "node2"}));
    log.addText(fixture(QStringLiteral("mpirun-tagged-4ranks.stderr.log")), LogStream::Stderr);
    log.finish();
    const LogFilter f{rank, host, errors};
    QStringList shown;
    for (const LogGroup& g : log.groups()) {
        if (log.matches(g, f))
            shown.append(g.text);
    }
    QCOMPARE(shown.size(), texts.size());
    for (qsizetype i = 0; i < texts.size(); ++i)
        QVERIFY2(shown[i].startsWith(texts[i]), qPrintable(shown[i]));
}

void TestRankLogs::readFileTail()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    LocalTransport t;
    RankLog none;
    QVERIFY(none.readFile(t, dir.path(), runfile::kStderr).ok()); // no file: nothing, no error
    QCOMPARE(none.lineCount(), qint64(0));
    QFile f(runFile(dir.path(), runfile::kStderr));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("[1,0]<stderr>:first line is long\n[1,1]<stderr>:second\n[1,0]<stderr>:third\n");
    f.close();
    RankLog all;
    bool truncated = true;
    QVERIFY(all.readFile(t, dir.path(), runfile::kStderr, 1 << 20, &truncated).ok());
    QVERIFY(!truncated);
    QCOMPARE(all.lineCount(), qint64(3));
    RankLog cut; // the last 40 bytes start inside "second": only "third" is whole
    QVERIFY(cut.readFile(t, dir.path(), runfile::kStderr, 40, &truncated).ok());
    QVERIFY(truncated);
    QCOMPARE(cut.lineCount(), qint64(1));
    RankLog tail; // the last 41 bytes start exactly at "second": kept
    QVERIFY(tail.readFile(t, dir.path(), runfile::kStderr, 41, &truncated).ok());
    QVERIFY(truncated);
    tail.finish();
    QCOMPARE(tail.lineCount(), qint64(2));
    QCOMPARE(tail.groups().first().text, QStringLiteral("second"));
}

void TestRankLogs::model()
{
    RankLogModel m;
    QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy firstError(&m, &RankLogModel::firstErrorChanged);
    const QByteArray text = fixture(QStringLiteral("mpirun-tagged-4ranks.stderr.log"));
    // A live log arriving in pieces: untagged until the first tag, collapsing as ranks repeat a line.
    m.appendText("--- mpirun banner\n");
    QCOMPARE(m.rowCount(), 1);
    QCOMPARE(m.data(m.index(0, RankLogModel::SourceColumn)).toString(), QStringLiteral("?"));
    for (qsizetype at = 0; at < text.size(); at += 37)
        m.appendText(text.mid(at, 37));
    m.finish();
    QCOMPARE(m.data(m.index(0, RankLogModel::SourceColumn)).toString(), QStringLiteral("mpirun"));
    QCOMPARE(m.data(m.index(2, RankLogModel::SourceColumn)).toString(), QStringLiteral("ranks 0\u20133"));
    QCOMPARE(m.data(m.index(2, 0), RankLogModel::RanksRole).value<QList<int>>(), (QList<int>{0, 1, 2, 3}));
    QCOMPARE(m.firstErrorRow(), -1);

    m.setHostsByRank(sl({"node1", "node1", "node2", "node2"}));
    m.setFailure(attributeFailure({}, text, 3, m.log().hostsByRank()));
    QVERIFY(!firstError.isEmpty());
    const int row = m.firstErrorRow();
    QVERIFY(row > 0);
    QCOMPARE(m.data(m.index(row, RankLogModel::SourceColumn)).toString(), QStringLiteral("node2:2"));
    QVERIFY(m.data(m.index(row, RankLogModel::TextColumn)).toString().contains(QStringLiteral("injected exit")));
    QVERIFY(m.data(m.index(row, 0), RankLogModel::FirstErrorRole).toBool());
    QVERIFY(m.data(m.index(row, 0), RankLogModel::ErrorRole).toBool());
    QVERIFY(!m.data(m.index(row - 1, 0), RankLogModel::FirstErrorRole).toBool());

    // Filters: only rank 2, then errors only; the first error stays findable.
    m.setFilter(LogFilter{2, QString(), false});
    QCOMPARE(m.rowCount(), 2);
    QCOMPARE(m.firstErrorRow(), 1);
    m.setFilter(LogFilter{-1, QStringLiteral("node1"), true});
    QCOMPARE(m.firstErrorRow(), -1);
    for (int r = 0; r < m.rowCount(); ++r)
        QVERIFY(m.data(m.index(r, 0), RankLogModel::ErrorRole).toBool());
    // A line that joins a group not shown yet under a rank filter appears in order.
    m.clear();
    QCOMPARE(m.rowCount(), 0);
    m.setFilter(LogFilter{1, QString(), false});
    m.appendLines(sl({"[1,0]<stderr>:same", "[1,0]<stderr>:other"}));
    QCOMPARE(m.rowCount(), 0);
    m.appendLines(sl({"[1,1]<stderr>:own", "[1,1]<stderr>:same"}));
    QCOMPARE(m.rowCount(), 2);
    QCOMPARE(m.data(m.index(0, RankLogModel::TextColumn)).toString(), QStringLiteral("same"));
    QCOMPARE(m.data(m.index(0, RankLogModel::SourceColumn)).toString(), QStringLiteral("ranks 0,1"));
    QCOMPARE(m.headerData(RankLogModel::TextColumn, Qt::Horizontal).toString(), QStringLiteral("Message"));
}

QTEST_GUILESS_MAIN(TestRankLogs)
#include "tst_ranklogs.moc"
