// MetricsTailer: follows a growing file, reattaches from a saved offset without duplicates or gaps.
#include "metrics/metricstore.h"
#include "metrics/tailer.h"
#include "testdata.h"

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

using namespace traindeck::metrics;
namespace td = traindeck::metrics::testdata;

namespace {

void append(const QString& path, const QByteArray& bytes)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Append));
    QCOMPARE(f.write(bytes), bytes.size());
}

QList<qint64> stepsOf(const QList<Record>& records)
{
    QList<qint64> out;
    for (const Record& r : records)
        if (const auto* s = std::get_if<StepRecord>(&r))
            out.append(s->step);
    return out;
}

QList<qint64> range(qint64 from, qint64 to)
{
    QList<qint64> out;
    for (qint64 i = from; i <= to; ++i)
        out.append(i);
    return out;
}

} // namespace

class tst_MetricsTailer : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void init();
    void followsGrowingFile();
    void reattach_data();
    void reattach();
    void eventDriven();
    void waitsForFile();
    void truncatedFileRestarts();
    void feedsStoreAndReportsMalformed();
    void yieldsOnLargeBacklog();

  private:
    std::unique_ptr<QTemporaryDir> m_dir;
    QString m_path;
};

void tst_MetricsTailer::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_path = m_dir->filePath(QStringLiteral("metrics.jsonl"));
}

void tst_MetricsTailer::followsGrowingFile()
{
    append(m_path, td::helloLine(4) + td::stepLine(4, 1) + td::stepLine(4, 2));
    MetricsTailer t;
    t.setPath(m_path);
    QList<Record> got;
    connect(&t, &MetricsTailer::recordsReady, this, [&](const QList<Record>& r) { got += r; });
    QSignalSpy offsets(&t, &MetricsTailer::offsetChanged);
    QVERIFY(t.start());
    QCOMPARE(got.size(), 3);
    QCOMPARE(offsets.size(), 1);
    QCOMPARE(offsets.last().at(0).toLongLong(), QFileInfo(m_path).size());
    QCOMPARE(offsets.last().at(1).toLongLong(), 3);

    // A line being written is held back until its newline arrives.
    const QByteArray l3 = td::stepLine(4, 3);
    append(m_path, l3.left(100));
    t.poll();
    QCOMPARE(got.size(), 3);
    QCOMPARE(t.offset(), QFileInfo(m_path).size() - 100);
    append(m_path, l3.mid(100) + td::stepLine(4, 4));
    t.poll();
    QCOMPARE(stepsOf(got), range(1, 4));
    QCOMPARE(t.offset(), QFileInfo(m_path).size());
    t.stop();
    QVERIFY(!t.isRunning());
}

void tst_MetricsTailer::reattach_data()
{
    QTest::addColumn<int>("cut"); // bytes of the file present when the first tailer stops
    const QByteArray stream = td::smallStream(4, 6);
    for (int cut : {0, 1, 200, int(td::helloLine(4).size()), int(td::helloLine(4).size()) + 1, 2000, 3333,
                    int(stream.size()) - 1, int(stream.size())})
        QTest::addRow("cut at %d", cut) << cut;
}

void tst_MetricsTailer::reattach()
{
    QFETCH(int, cut);
    const QByteArray stream = td::smallStream(4, 6);
    append(m_path, stream.left(cut));
    QList<Record> got;
    qint64 offset = 0, line = 0;
    int worldSize = 0;
    {
        MetricsTailer a;
        a.setPath(m_path);
        connect(&a, &MetricsTailer::recordsReady, this, [&](const QList<Record>& r) { got += r; });
        a.start();
        offset = a.offset();
        line = a.lineNumber();
        worldSize = a.parser().worldSize();
        a.stop();
    }
    append(m_path, stream.mid(cut));
    MetricsTailer b;
    b.setPath(m_path);
    b.setWorldSize(worldSize);
    connect(&b, &MetricsTailer::recordsReady, this, [&](const QList<Record>& r) { got += r; });
    b.start(offset, line);
    QCOMPARE(b.parser().stats().malformed, 0);
    QCOMPARE(stepsOf(got), range(1, 6));
    QCOMPARE(got.size(), 1 + 6 + 5);
    QByteArray again;
    for (const Record& r : got)
        again += toJsonLine(r);
    QCOMPARE(again, stream);
    QCOMPARE(b.lineNumber(), 12);
}

void tst_MetricsTailer::eventDriven()
{
    append(m_path, td::helloLine(2));
    MetricsTailer t;
    t.setPath(m_path);
    t.setPollInterval(50);
    QList<Record> got;
    connect(&t, &MetricsTailer::recordsReady, this, [&](const QList<Record>& r) { got += r; });
    t.start();
    int next = 1;
    QTimer writer;
    connect(&writer, &QTimer::timeout, this, [&] {
        if (next <= 20)
            append(m_path, td::stepLine(2, next++));
    });
    writer.start(5);
    QTRY_COMPARE_WITH_TIMEOUT(stepsOf(got).size(), 20, 5000);
    QCOMPARE(stepsOf(got), range(1, 20));
}

void tst_MetricsTailer::waitsForFile()
{
    MetricsTailer t;
    t.setPath(m_path);
    t.setPollInterval(50);
    QSignalSpy errors(&t, &MetricsTailer::errorOccurred);
    QList<Record> got;
    connect(&t, &MetricsTailer::recordsReady, this, [&](const QList<Record>& r) { got += r; });
    QVERIFY(t.start());
    QVERIFY(got.isEmpty());
    append(m_path, td::helloLine(2) + td::stepLine(2, 1));
    QTRY_COMPARE_WITH_TIMEOUT(got.size(), 2, 5000);
    QCOMPARE(errors.size(), 0);
}

void tst_MetricsTailer::truncatedFileRestarts()
{
    append(m_path, td::helloLine(2) + td::stepLine(2, 1) + td::stepLine(2, 2));
    MetricsTailer t;
    t.setPath(m_path);
    QList<Record> got;
    connect(&t, &MetricsTailer::recordsReady, this, [&](const QList<Record>& r) { got += r; });
    QSignalSpy resets(&t, &MetricsTailer::fileReset);
    t.start();
    QCOMPARE(got.size(), 3);
    QVERIFY(QFile::remove(m_path));
    append(m_path, td::helloLine(2));
    t.poll();
    QCOMPARE(resets.size(), 1);
    QCOMPARE(got.size(), 4);
    QVERIFY(std::holds_alternative<HelloRecord>(got.last()));
    QCOMPARE(t.offset(), td::helloLine(2).size());
}

void tst_MetricsTailer::feedsStoreAndReportsMalformed()
{
    append(m_path, td::helloLine(3) + "not json\n" + td::stepLine(3, 1));
    MetricStore store;
    MetricsTailer t;
    t.setPath(m_path);
    t.setSink(&store);
    QSignalSpy bad(&t, &MetricsTailer::malformedLine);
    t.start();
    QCOMPARE(bad.size(), 1);
    QCOMPARE(bad.first().first().value<ParseIssue>().line, 2);
    QCOMPARE(store.rowCount(), 1);
    QCOMPARE(store.hostOf(2), QStringLiteral("node2"));
    QCOMPARE(store.issueCount(), 1);
}

void tst_MetricsTailer::yieldsOnLargeBacklog()
{
    QByteArray big = td::helloLine(8);
    for (int i = 1; i <= 200; ++i)
        big += td::stepLine(8, i);
    append(m_path, big);
    MetricsTailer t;
    t.setPath(m_path);
    t.setMaxBytesPerPoll(10000);
    QList<Record> got;
    int batches = 0;
    connect(&t, &MetricsTailer::recordsReady, this, [&](const QList<Record>& r) {
        got += r;
        ++batches;
    });
    t.start();
    QVERIFY(stepsOf(got).size() < 200); // first slice only, the rest comes from the event loop
    QTRY_COMPARE_WITH_TIMEOUT(stepsOf(got).size(), 200, 5000);
    QCOMPARE(stepsOf(got), range(1, 200));
    QVERIFY(batches > 5);
}

QTEST_GUILESS_MAIN(tst_MetricsTailer)
#include "tst_metrics_tailer.moc"
