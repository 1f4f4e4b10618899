// The local record of a remote run, synced through a transport that a test can bend (no SSH: the
// "head" is a local directory): a failed liveness check does not make the record final.
#include "faketransport.h"
#include "launch/remoterun.h"
#include "launch/rundir.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

using namespace traindeck::launch;

class TestRemoteRecord : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void unknownLivenessIsNotFinal();

private:
    void put(const QString &dir, const char *name, const QByteArray &data);
    QByteArray get(const QString &dir, const char *name);
    void writeRunInfo(const QString &dir, int attempts);
    std::unique_ptr<QTemporaryDir> m_tmp;
    QString m_head;    // the run directory "on the head"
    QString m_record;  // the local record
    QByteArray m_metrics;
    FakeTransport m_t;
};

void TestRemoteRecord::put(const QString &dir, const char *name, const QByteArray &data)
{
    QVERIFY(LocalTransport().writeFile(runFile(dir, name), data).ok());
}

QByteArray TestRemoteRecord::get(const QString &dir, const char *name)
{
    QFile f(runFile(dir, name));
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

void TestRemoteRecord::writeRunInfo(const QString &dir, int attempts)
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
    QFile in(QStringLiteral(TRAINDECK_SOURCE_DIR "/tests/fixtures/metrics/example-4ranks.jsonl"));
    QVERIFY(in.open(QIODevice::ReadOnly));
    m_metrics = in.readAll();
    writeRunInfo(m_head, 1);
    put(m_head, runfile::kPid, "999999999\n");  // a group that is gone
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

QTEST_GUILESS_MAIN(TestRemoteRecord)
#include "tst_remote_record.moc"
