// The local record of a remote run, synced through a transport that a test can bend (no SSH: the
// "head" is a local directory): a failed liveness check does not make the record final, a mirror that
// grows meanwhile is kept, a resume during a sync wins.
#include "faketransport.h"
#include "launch/remoterun.h"
#include "launch/rundir.h"
#include "test_paths.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

using namespace traindeck::launch;

class TestRemoteRecord : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void init();
    void mirrorPrefixDecision();
    void unknownLivenessIsNotFinal();
    void mirrorGrowingDuringSyncIsKept();
    void resumeDuringSyncWins();

  private:
    void put(const QString& dir, const char* name, const QByteArray& data);
    QByteArray get(const QString& dir, const char* name);
    void writeRunInfo(const QString& dir, int attempts);
    std::unique_ptr<QTemporaryDir> m_tmp;
    QString m_head;   // the run directory "on the head"
    QString m_record; // the local record
    QByteArray m_metrics;
    FakeTransport m_t;
};

void TestRemoteRecord::put(const QString& dir, const char* name, const QByteArray& data)
{
    QVERIFY(LocalTransport().writeFile(runFile(dir, name), data).ok());
}

QByteArray TestRemoteRecord::get(const QString& dir, const char* name)
{
    QFile f(runFile(dir, name));
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

void TestRemoteRecord::writeRunInfo(const QString& dir, int attempts)
{
    RunInfo i;
    i.runId = QStringLiteral("r-1");
    i.created = i.started = QDateTime::currentDateTimeUtc().addSecs(-3600);
    i.attempts = attempts;
    put(dir, runfile::kRunInfo, QJsonDocument(i.toJson()).toJson());
}

void TestRemoteRecord::init()
{
    m_tmp = std::make_unique<QTemporaryDir>();
    m_head = m_tmp->filePath(QStringLiteral("head/r-1"));
    m_record = m_tmp->filePath(QStringLiteral("local/r-1"));
    m_t.signalResult.reset();
    m_t.failingReads.clear();
    m_t.reads.clear();
    m_t.afterRead = nullptr;
    QFile in(QString::fromUtf8(TRAINDECK_SOURCE_DIR) + QStringLiteral("/tests/fixtures/metrics/example-4ranks.jsonl"));
    QVERIFY(in.open(QIODevice::ReadOnly));
    m_metrics = in.readAll();
    writeRunInfo(m_head, 1);
    put(m_head, runfile::kPid, "999999999\n"); // a group that is gone
    put(m_head, runfile::kStderr, "some stderr\n");
    writeRunInfo(m_record, 1);
    RemoteRecord r;
    r.profile = QStringLiteral("gpu");
    r.head = m_t.displayName();
    r.remoteRunDir = m_head;
    r.created = QDateTime::currentDateTimeUtc().addSecs(-3600);
    r.lastState = JobState::Running;
    r.lastSeen = r.created;
    QVERIFY(writeRemoteRecord(m_record, r).ok());
}

void TestRemoteRecord::mirrorPrefixDecision()
{
    QVERIFY(mirrorIsPrefixOf(0, 0));
    QVERIFY(mirrorIsPrefixOf(100, 100));
    QVERIFY(mirrorIsPrefixOf(50, 100));
    QVERIFY(!mirrorIsPrefixOf(101, 100)); // the head's file was replaced by a shorter one
}

// "Could not ask" (exec failure, timeout) leaves the record live: only lastSeen moves. The real answer
// (the group is gone, no exit code) makes it final: lost, without a placeholder exit code.
void TestRemoteRecord::unknownLivenessIsNotFinal()
{
    put(m_head, runfile::kMetrics, m_metrics.left(m_metrics.indexOf("\"step\":6")));
    m_t.signalResult = SignalResult::Failed;
    const QDateTime before = readRemoteRecord(m_record)->lastSeen;
    const auto s = RemoteRuns::sync(m_t, m_head, m_record);
    QVERIFY2(s.ok(), qPrintable(s.errorString()));
    QVERIFY(!isFinal(s.value()));
    std::optional<RemoteRecord> rec = readRemoteRecord(m_record);
    QVERIFY(!rec->synced);
    QCOMPARE(rec->lastState, JobState::Running);
    QVERIFY(rec->lastSeen > before);
    QVERIFY(!QFile::exists(runFile(m_record, runfile::kExitCode)));
    QVERIFY(!QFile::exists(runFile(m_record, runfile::kStderr)));

    // The exit-code file is there but its read fails: not final either.
    m_t.signalResult.reset();
    put(m_head, runfile::kExitCode, "0\n");
    m_t.failingReads.insert(runFile(m_head, runfile::kExitCode));
    QVERIFY(!isFinal(RemoteRuns::sync(m_t, m_head, m_record).value()));
    QVERIFY(!readRemoteRecord(m_record)->synced);
    m_t.failingReads.clear();
    QFile::remove(runFile(m_head, runfile::kExitCode));

    const auto lost = RemoteRuns::sync(m_t, m_head, m_record);
    QCOMPARE(lost.value(), JobState::Lost);
    rec = readRemoteRecord(m_record);
    QVERIFY(rec->synced);
    QCOMPARE(rec->lastState, JobState::Lost);
    QVERIFY(!QFile::exists(runFile(m_record, runfile::kExitCode)));
    QCOMPARE(get(m_record, runfile::kStderr), QByteArray("some stderr\n"));
    QCOMPARE(get(m_record, runfile::kMetrics), get(m_head, runfile::kMetrics));
    const QList<RunSummary> list = listRuns(QFileInfo(m_record).absolutePath());
    QCOMPARE(list.size(), 1);
    QCOMPARE(list[0].state, JobState::Lost);
    QVERIFY(!list[0].exitCode);
}

// Another writer (a live RunMonitor) extends the mirror right after the sync asked the head for its
// size: the mirror is still a prefix, it is kept and completed, not wiped and downloaded again.
void TestRemoteRecord::mirrorGrowingDuringSyncIsKept()
{
    const qsizetype half = m_metrics.indexOf("\"step\":4");
    const qsizetype more = m_metrics.indexOf("\"step\":7");
    put(m_head, runfile::kMetrics, m_metrics.left(more));
    put(m_head, runfile::kExitCode, "0\n");
    put(m_record, runfile::kMetrics, m_metrics.left(half));
    const QString metrics = runFile(m_head, runfile::kMetrics);
    int sizeReads = 0;
    m_t.afterRead = [&](const QString& path, qint64 offset, qint64 maxBytes) {
        if (path != metrics || offset != 0 || maxBytes != 0)
            return;
        // Every size read of the head's file is followed by the head growing and the mirror following it.
        ++sizeReads;
        if (sizeReads > 2)
            return;
        // The head grows, and the other writer mirrors it right away.
        const qsizetype grown = sizeReads == 1 ? (more + m_metrics.size()) / 2 : m_metrics.size();
        put(m_head, runfile::kMetrics, m_metrics.left(grown));
        QFile f(runFile(m_record, runfile::kMetrics));
        QVERIFY(f.open(QIODevice::ReadWrite));
        f.seek(half);
        f.write(m_metrics.mid(half, grown - half));
    };
    const auto s = RemoteRuns::sync(m_t, m_head, m_record);
    QVERIFY2(s.ok(), qPrintable(s.errorString()));
    QCOMPARE(s.value(), JobState::Finished);
    QVERIFY(sizeReads >= 2);
    for (const FakeTransport::Read& r : m_t.reads)
        QVERIFY2(!(r.path == metrics && r.offset == 0 && r.maxBytes > 0), "the mirror was downloaded again");
    QCOMPARE(get(m_record, runfile::kMetrics), m_metrics);
}

// A resume that reopens the record while a sync of the old attempt is reading: the sync writes
// nothing, the record stays the new attempt's (live, no old exit code).
void TestRemoteRecord::resumeDuringSyncWins()
{
    put(m_head, runfile::kMetrics, m_metrics);
    put(m_head, runfile::kExitCode, "1\n");
    bool resumed = false;
    const QString stderrPath = runFile(m_head, runfile::kStderr);
    m_t.afterRead = [&](const QString& path, qint64, qint64) {
        if (resumed || path != stderrPath)
            return;
        resumed = true;
        // What `resume` does: the head's files move to attempt-1/, run.json counts 2, the record reopens.
        QDir().mkpath(m_head + QStringLiteral("/attempt-1"));
        QFile::rename(runFile(m_head, runfile::kExitCode), m_head + QStringLiteral("/attempt-1/exit-code"));
        writeRunInfo(m_head, 2);
        RemoteRuns::reopen(m_t, m_head, m_record, 1);
    };
    const auto s = RemoteRuns::sync(m_t, m_head, m_record);
    QVERIFY(resumed);
    QVERIFY2(s.ok(), qPrintable(s.errorString()));
    const std::optional<RemoteRecord> rec = readRemoteRecord(m_record);
    QVERIFY(!rec->synced);
    QCOMPARE(rec->lastState, JobState::Starting);
    QVERIFY(!QFile::exists(runFile(m_record, runfile::kExitCode)));
    QVERIFY(!QFile::exists(runFile(m_record, runfile::kStderr)));
    QCOMPARE(readRunInfo(m_t, m_record)->attempts, 2);
    QVERIFY(!QFile::exists(runFile(m_record, runfile::kRecordLock)));
}

QTEST_GUILESS_MAIN(TestRemoteRecord)
#include "tst_remote_record.moc"
