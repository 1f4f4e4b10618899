// RunMonitor over a run directory that a test writes piece by piece: every record exactly once (also
// when a second monitor reattaches at the first one's offset), malformed lines reported and skipped,
// state changes from the pid / exit-code files, failure attribution at the end.
#include "faketransport.h"
#include "launch/ranklogs.h"
#include "launch/runmonitor.h"
#include "launch/transport.h"
#include "test_paths.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <sys/resource.h>
#include <unistd.h>

using namespace traindeck::launch;
using namespace traindeck::metrics;

class TestRunMonitor : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void init();
    void followsAndReattaches();
    void malformedLines();
    void failureAtEnd();
    void stderrWithoutNewlinesStaysBounded();
    void lostWithoutExitCode();
    void livenessUnknownKeepsPolling();
    void knownFinalState();
    void mirrorWriteFailureStopsMirroring();
    void mirrorGrowingDuringPrefillIsKept();
    void reattachWithMirrorPublishesTheStateFirst();

  private:
    void append(const QByteArray& bytes);
    void write(const char* name, const QByteArray& bytes);
    std::unique_ptr<QTemporaryDir> m_dir;
    std::shared_ptr<Transport> m_t = std::make_shared<LocalTransport>();
};

static QList<QByteArray> fixtureLines()
{
    QFile f(QString::fromUtf8(TRAINDECK_SOURCE_DIR) + QStringLiteral("/tests/fixtures/metrics/example-4ranks.jsonl"));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    QList<QByteArray> lines = f.readAll().split('\n');
    lines.removeAll(QByteArray());
    return lines;
}

void TestRunMonitor::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    RunInfo i;
    i.runId = QStringLiteral("r");
    i.created = i.started = QDateTime::currentDateTimeUtc();
    write(runfile::kRunInfo, QJsonDocument(i.toJson()).toJson());
}

void TestRunMonitor::append(const QByteArray& bytes)
{
    QFile f(runFile(m_dir->path(), runfile::kMetrics));
    QVERIFY(f.open(QIODevice::Append));
    f.write(bytes);
}

void TestRunMonitor::write(const char* name, const QByteArray& bytes)
{
    QVERIFY(m_t->writeFile(runFile(m_dir->path(), name), bytes).ok());
}

static qint64 offsetOf(const Record& r)
{
    return std::visit([](const auto& x) { return x.origin.offset; }, r);
}

void TestRunMonitor::followsAndReattaches()
{
    const QList<QByteArray> lines = fixtureLines();
    QCOMPARE(lines.size(), 15);
    // Our own process group stands in for mpirun's: alive.
    write(runfile::kPid, QByteArray::number(qint64(::getpgrp())) + '\n');

    QList<qint64> seen;
    qint64 cut = 0;
    {
        RunMonitor m(m_t, m_dir->path());
        QSignalSpy states(&m, &RunMonitor::stateChanged);
        connect(&m, &RunMonitor::recordsReady, this, [&](const QList<Record>& rs, qint64) {
            for (const Record& r : rs)
                seen.append(offsetOf(r));
        });
        m.poll();
        QCOMPARE(m.state(), JobState::Starting);
        // Half of the lines, the last one cut in the middle.
        QByteArray first;
        for (int i = 0; i < 7; ++i)
            first += lines[i] + '\n';
        first += lines[7].left(20);
        append(first);
        m.poll();
        QCOMPARE(m.state(), JobState::Running);
        QCOMPARE(seen.size(), 7);
        QCOMPARE(m.store().rowCount(), qint64(5)); // lines 2-6 are steps 1-5
        cut = m.metricsOffset();
        QCOMPARE(states.size(), 2);
    } // the watcher goes away mid-run
    QByteArray rest = lines[7].mid(20) + '\n';
    for (int i = 8; i < lines.size(); ++i)
        rest += lines[i] + '\n';
    append(rest);
    write(runfile::kExitCode, "0\n");

    RunMonitor again(m_t, m_dir->path());
    QSignalSpy ended(&again, &RunMonitor::ended);
    connect(&again, &RunMonitor::recordsReady, this, [&](const QList<Record>& rs, qint64) {
        for (const Record& r : rs)
            seen.append(offsetOf(r));
    });
    again.start(cut);
    QVERIFY(ended.wait(5000));
    QCOMPARE(again.state(), JobState::Finished);
    // Every line exactly once, in order.
    QCOMPARE(seen.size(), lines.size());
    for (qsizetype i = 1; i < seen.size(); ++i)
        QVERIFY(seen[i] > seen[i - 1]);
    // The reattached store still holds the whole run (loaded silently before the offset).
    QCOMPARE(again.store().rowCount(), qint64(10));
    QVERIFY(again.store().done().has_value());
}

void TestRunMonitor::malformedLines()
{
    const QList<QByteArray> lines = fixtureLines();
    write(runfile::kPid, QByteArray::number(qint64(::getpgrp())) + '\n');
    append(lines[0] + '\n' + lines[1] + '\n' + "{not json\n" + "{\"v\":1,\"type\":\"step\",\"t\":1}\n" + "\n" +
           lines[2] + '\n');
    RunMonitor m(m_t, m_dir->path());
    QList<ParseIssue> issues;
    connect(&m, &RunMonitor::malformedLine, this, [&](const ParseIssue& i) { issues.append(i); });
    m.poll();
    QCOMPARE(issues.size(), 2);
    QCOMPARE(issues[0].line, qint64(3));
    QCOMPARE(issues[1].line, qint64(4));
    QCOMPARE(m.malformedLines(), qint64(2));
    QCOMPARE(m.store().rowCount(), qint64(2));
    QCOMPARE(m.state(), JobState::Running);
}

void TestRunMonitor::failureAtEnd()
{
    const QList<QByteArray> lines = fixtureLines();
    write(runfile::kPid, "999999999\n"); // no such process group
    append(lines[0] + '\n' + lines[1] + '\n');
    write(runfile::kStderr, "step 1\ntraindeck-trainer: rank 3 on node2: injected exit (test aid) at step 2\n"
                            "  Process name: [[7278,1],3]\n  Exit code:    3\n");
    write(runfile::kExitCode, "3\n");
    RunMonitor m(m_t, m_dir->path());
    QSignalSpy ended(&m, &RunMonitor::ended);
    m.poll();
    QCOMPARE(ended.size(), 1);
    QCOMPARE(m.state(), JobState::Failed);
    const FailureInfo f = m.failure();
    QCOMPARE(f.rank, 3);
    QCOMPARE(f.host, QStringLiteral("node2"));
    QCOMPARE(f.exitCode, 3);
    QCOMPARE(f.mpirunExitCode, 3);
    QVERIFY(!f.stderrTail.isEmpty());
}

// 100 MB of stderr without a newline (\r progress bars, binary output): it comes out as lines of at most
// kMaxLogLineBytes, so what is held back between polls stays under that size. (It used to be held whole,
// growing by 4 MiB a poll and rescanned at each, and no line came out at all.)
void TestRunMonitor::stderrWithoutNewlinesStaysBounded()
{
    // No pid yet, launched just now: the run is starting, and the monitor keeps polling.
    const qint64 total = 100 * 1000 * 1000;
    {
        QFile f(runFile(m_dir->path(), runfile::kStderr));
        QVERIFY(f.open(QIODevice::WriteOnly));
        const QByteArray block(1 << 20, '\r');
        for (qint64 left = total; left > 0; left -= block.size())
            QVERIFY(f.write(block.constData(), qMin<qint64>(left, block.size())) > 0);
    }
    RunMonitor m(m_t, m_dir->path());
    qint64 emitted = 0;
    qsizetype longest = 0;
    connect(&m, &RunMonitor::stderrLines, this, [&](const QStringList& lines) {
        for (const QString& l : lines) {
            emitted += l.size();
            longest = qMax(longest, l.size());
        }
    });
    for (int i = 0; i < 40; ++i)
        m.poll();
    QVERIFY2(longest <= kMaxLogLineBytes, qPrintable(QString::number(longest)));
    QVERIFY2(total - emitted <= kMaxLogLineBytes,
             qPrintable(QStringLiteral("%1 of %2 bytes still held back").arg(total - emitted).arg(total)));
    QCOMPARE(m.failure().stderrTail.size() <= 50, true);
}

void TestRunMonitor::lostWithoutExitCode()
{
    write(runfile::kPid, "999999999\n");
    RunMonitor m(m_t, m_dir->path());
    m.poll();
    QCOMPARE(m.state(), JobState::Lost);
}

// A liveness check that could not be made (SSH exec failure, timeout on a loaded head) neither ends
// the run nor stops the monitor; the real answer does.
void TestRunMonitor::livenessUnknownKeepsPolling()
{
    write(runfile::kPid, "999999999\n"); // a group that is gone ...
    QByteArray all;
    for (const QByteArray& l : fixtureLines())
        all += l + '\n';
    append(all.left(all.indexOf("\"step\":6")));
    auto t = std::make_shared<FakeTransport>();
    t->signalResult = SignalResult::Failed; // ... but the head cannot be asked
    RunMonitor m(t, m_dir->path());
    m.setPollInterval(10);
    QSignalSpy ended(&m, &RunMonitor::ended);
    m.start();
    QVERIFY(!ended.wait(300));
    QCOMPARE(m.state(), JobState::Running);
    QVERIFY(m.files().livenessUnknown);
    const qsizetype readsSoFar = t->reads.size();
    QTRY_VERIFY(t->reads.size() > readsSoFar); // still polling
    t->signalResult.reset();
    QVERIFY(ended.wait(5000));
    QCOMPARE(m.state(), JobState::Lost);
}

// A synced record read offline ends in the state its remote.json says, whatever the copied files say.
void TestRunMonitor::knownFinalState()
{
    QByteArray all;
    for (const QByteArray& l : fixtureLines())
        all += l + '\n';
    append(all); // no pid, no exit-code, launched just now: the files alone say "starting"
    RunMonitor m(m_t, m_dir->path());
    m.setKnownFinalState(JobState::Lost);
    QSignalSpy ended(&m, &RunMonitor::ended);
    m.poll();
    QCOMPARE(ended.size(), 1);
    QCOMPARE(m.state(), JobState::Lost);
    QCOMPARE(m.store().rowCount(), qint64(10));
}

// A mirror that cannot be written (a full disk) is reported once, naming it; mirroring stops, the
// monitoring goes on (before: a gap that never filled was re-read from the head forever).
void TestRunMonitor::mirrorWriteFailureStopsMirroring()
{
    if (!QFileInfo::exists(QStringLiteral("/dev/full")))
        QSKIP("no /dev/full here");
    QByteArray all;
    for (const QByteArray& l : fixtureLines())
        all += l + '\n';
    QVERIFY(all.size() > 4096);
    append(all);
    write(runfile::kExitCode, "0\n");
    RunMonitor m(m_t, m_dir->path());
    m.setMaxBytesPerPoll(4096); // several writes, the later ones past the mirror's end
    m.setMirrorPath(QStringLiteral("/dev/full"));
    QSignalSpy errors(&m, &RunMonitor::errorOccurred);
    QSignalSpy ended(&m, &RunMonitor::ended);
    m.poll();
    QCOMPARE(ended.size(), 1);
    QCOMPARE(m.state(), JobState::Finished);
    QCOMPARE(m.store().rowCount(), qint64(10));
    QCOMPARE(errors.size(), 1);
    QVERIFY2(errors.first().first().toString().contains(QStringLiteral("/dev/full")),
             qPrintable(errors.first().first().toString()));

    // A regular file that stops growing part way (RLIMIT_FSIZE: writes past 5000 bytes fail, as on a
    // full disk): the first chunk lands, the second fails; reported once, the run still followed.
    const QString mirror = m_dir->filePath(QStringLiteral("mirror.jsonl"));
    ::signal(SIGXFSZ, SIG_IGN);
    struct rlimit old {};
    QCOMPARE(::getrlimit(RLIMIT_FSIZE, &old), 0);
    struct rlimit small = old;
    small.rlim_cur = 5000;
    QCOMPARE(::setrlimit(RLIMIT_FSIZE, &small), 0);
    RunMonitor m2(m_t, m_dir->path());
    m2.setMaxBytesPerPoll(4096);
    m2.setMirrorPath(mirror);
    QSignalSpy errors2(&m2, &RunMonitor::errorOccurred);
    QSignalSpy ended2(&m2, &RunMonitor::ended);
    m2.poll();
    ::setrlimit(RLIMIT_FSIZE, &old);
    QCOMPARE(ended2.size(), 1);
    QCOMPARE(m2.store().rowCount(), qint64(10));
    QCOMPARE(errors2.size(), 1);
    QVERIFY2(errors2.first().first().toString().contains(mirror), qPrintable(errors2.first().first().toString()));
    QFile f(mirror);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QVERIFY(all.startsWith(f.readAll()));
}

// Reattaching with a mirror that another writer (a sync, a second watcher) extends between the
// monitor's two size reads: the mirror is still a prefix and is used, not wiped and downloaded again.
void TestRunMonitor::mirrorGrowingDuringPrefillIsKept()
{
    QByteArray all;
    for (const QByteArray& l : fixtureLines())
        all += l + '\n';
    const qsizetype half = all.indexOf("\"step\":4");
    const qsizetype more = all.indexOf("\"step\":7");
    append(all.left(more));
    const QString mirror = m_dir->filePath(QStringLiteral("mirror.jsonl"));
    QVERIFY(m_t->writeFile(mirror, all.left(half)).ok());
    auto t = std::make_shared<FakeTransport>();
    const QString metrics = runFile(m_dir->path(), runfile::kMetrics);
    bool grown = false;
    t->afterRead = [&](const QString& path, qint64 offset, qint64 maxBytes) {
        if (grown || path != metrics || offset != 0 || maxBytes != 0)
            return;
        // Right after the head's size was read: the head's file grows, and another writer mirrors it.
        grown = true;
        append(all.mid(more));
        QFile f(mirror);
        QVERIFY(f.open(QIODevice::ReadWrite));
        f.seek(half);
        f.write(all.mid(half));
    };
    write(runfile::kExitCode, "0\n");
    RunMonitor m(t, m_dir->path());
    m.setMirrorPath(mirror);
    QSignalSpy ended(&m, &RunMonitor::ended);
    m.poll();
    QVERIFY(grown);
    QCOMPARE(ended.size(), 1);
    QCOMPARE(m.store().rowCount(), qint64(10));
    for (const FakeTransport::Read& r : t->reads)
        QVERIFY2(!(r.path == metrics && r.offset == 0 && r.maxBytes > 0), "the mirror was downloaded again");
    QFile f(mirror);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(f.readAll(), all);
}

// A reattach with a mirror: observers hear the state before the records the mirror and the head give,
// and every record once.
void TestRunMonitor::reattachWithMirrorPublishesTheStateFirst()
{
    QByteArray all;
    for (const QByteArray& l : fixtureLines())
        all += l + '\n';
    append(all);
    const QString mirror = m_dir->filePath(QStringLiteral("mirror.jsonl"));
    QVERIFY(m_t->writeFile(mirror, all.left(all.indexOf("\"step\":4"))).ok());
    write(runfile::kExitCode, "0\n");
    RunMonitor m(std::make_shared<FakeTransport>(), m_dir->path());
    m.setMirrorPath(mirror);
    QStringList events;
    qsizetype records = 0;
    connect(&m, &RunMonitor::stateChanged, this, [&](JobState s) { events << jobStateName(s); });
    connect(&m, &RunMonitor::recordsReady, this, [&](const QList<traindeck::metrics::Record>& r, qint64) {
        events << QStringLiteral("records");
        records += r.size();
    });
    m.poll();
    QVERIFY2(!events.isEmpty() && events.first() != QLatin1String("records"),
             qPrintable(events.join(QLatin1Char(' '))));
    QCOMPARE(m.store().rowCount(), qint64(10));
    QCOMPARE(records, qsizetype(fixtureLines().size()));
}

QTEST_GUILESS_MAIN(TestRunMonitor)
#include "tst_runmonitor.moc"
