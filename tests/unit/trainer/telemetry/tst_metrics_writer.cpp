// The trainer's telemetry writer when the file is damaged or the disk is full: a cut last line left
// by a killed run is ended before the resumed run's first record; failed writes never throw, are
// reported once on stderr and by one `warning` record once the file takes writes again.
#include "telemetry/metrics_writer.h"

#include <QTest>

#include <nlohmann/json.hpp>

#include <csignal>
#include <sys/resource.h>
#include <unistd.h>

using traindeck::telemetry::MetricsWriter;

namespace {

QByteArray readAll(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return f.readAll();
}

void writeAll(const QString& path, const QByteArray& data)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    QCOMPARE(f.write(data), data.size());
}

// The types of the lines that are valid JSON records; "?" for a malformed line.
QStringList recordTypes(const QByteArray& text)
{
    QStringList out;
    for (const QByteArray& l : text.split('\n')) {
        if (l.isEmpty())
            continue;
        const auto j = nlohmann::json::parse(l.toStdString(), nullptr, false);
        out << (j.is_discarded() || !j.is_object() ? QStringLiteral("?")
                                                   : QString::fromStdString(j.value("type", std::string("?"))));
    }
    return out;
}

// Sends stderr to a file while it lives; text() is what was written meanwhile.
class StderrCapture {
  public:
    explicit StderrCapture(const QString& path) : path_(path)
    {
        std::fflush(stderr);
        saved_ = ::dup(2);
        FILE* f = std::fopen(path.toLocal8Bit().constData(), "w");
        ::dup2(::fileno(f), 2);
        std::fclose(f);
    }
    ~StderrCapture() { restore(); }
    QByteArray text()
    {
        restore();
        return readAll(path_);
    }

  private:
    void restore()
    {
        if (saved_ < 0)
            return;
        std::fflush(stderr);
        ::dup2(saved_, 2);
        ::close(saved_);
        saved_ = -1;
    }
    QString path_;
    int saved_ = -1;
};

} // namespace

class TestMetricsWriter : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void repairsCutLastLine_data();
    void repairsCutLastLine();
    void fullDeviceNeverThrows();
    void lostRecordsWarnOnceAndRecover();
};

void TestMetricsWriter::repairsCutLastLine_data()
{
    QTest::addColumn<QByteArray>("before");
    QTest::addColumn<QStringList>("types"); // of the lines after the resumed run wrote hello and step

    const QByteArray hello = R"({"v":1,"type":"hello","t":1,"run_id":"r"})"
                             "\n";
    QTest::addRow("new file") << QByteArray() << QStringList{"hello", "step"};
    QTest::addRow("complete lines") << hello << QStringList{"hello", "hello", "step"};
    QTest::addRow("cut step line (kill -9)")
        << hello + R"({"v":1,"type":"step","t":2,"st)" << QStringList{"hello", "?", "hello", "step"};
    QTest::addRow("cut after a comma") << hello + R"({"v":1,)" << QStringList{"hello", "?", "hello", "step"};
    QTest::addRow("one byte, no newline") << QByteArray("{") << QStringList{"?", "hello", "step"};
}

void TestMetricsWriter::repairsCutLastLine()
{
    QFETCH(QByteArray, before);
    QFETCH(QStringList, types);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("metrics.jsonl"));
    if (!before.isEmpty())
        writeAll(path, before);
    {
        MetricsWriter w(path.toStdString(), false);
        w.write("hello", {{"run_id", "r"}});
        w.write("step", {{"step", 1}});
        QCOMPARE(w.lostRecords(), uint64_t(0));
    }
    const QByteArray after = readAll(path);
    QVERIFY(after.startsWith(before));
    QVERIFY(after.endsWith('\n'));
    QCOMPARE(recordTypes(after), types);
}

// /dev/full: every write fails with ENOSPC. The writer neither throws nor stops; stderr says so once.
void TestMetricsWriter::fullDeviceNeverThrows()
{
    if (!QFileInfo::exists(QStringLiteral("/dev/full")))
        QSKIP("no /dev/full");
    QTemporaryDir dir;
    StderrCapture capture(dir.filePath(QStringLiteral("stderr.txt")));
    {
        MetricsWriter w("/dev/full", false);
        for (int i = 0; i < 5; ++i)
            w.write("step", {{"step", i}});
        QCOMPARE(w.lostRecords(), uint64_t(5));
    }
    const QByteArray err = capture.text();
    QCOMPARE(err.count("/dev/full: cannot write telemetry"), qsizetype(1));
    QVERIFY2(err.contains("No space left on device"), err.constData());
}

// A file size limit stands in for a full disk: a record is cut in the middle, later ones are lost, and
// when the limit is lifted the writer ends the cut line, writes one warning record and goes on.
void TestMetricsWriter::lostRecordsWarnOnceAndRecover()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("metrics.jsonl"));
    StderrCapture capture(dir.filePath(QStringLiteral("stderr.txt")));
    const auto oldHandler = std::signal(SIGXFSZ, SIG_IGN);
    rlimit old{};
    QCOMPARE(::getrlimit(RLIMIT_FSIZE, &old), 0);
    // An earlier attempt's long line: the limit below then leaves room for the stderr capture file too.
    writeAll(path, R"({"v":1,"type":"hello","t":1,"run_id":")" + QByteArray(4096, 'x') + "\"}\n");
    {
        MetricsWriter w(path.toStdString(), false);
        w.write("hello", {{"run_id", "r"}});
        const qint64 size = QFileInfo(path).size();
        rlimit limited = old;
        limited.rlim_cur = static_cast<rlim_t>(size + 10); // the next record is cut after 10 bytes
        QCOMPARE(::setrlimit(RLIMIT_FSIZE, &limited), 0);
        for (int i = 1; i <= 3; ++i)
            w.write("step", {{"step", i}, {"loss", 1.5}});
        QCOMPARE(::setrlimit(RLIMIT_FSIZE, &old), 0);
        QCOMPARE(w.lostRecords(), uint64_t(3));
        QCOMPARE(QFileInfo(path).size(), size + 10);
        w.write("step", {{"step", 4}, {"loss", 1.25}});
        w.write("step", {{"step", 5}, {"loss", 1.0}});
        QCOMPARE(w.lostRecords(), uint64_t(3));
    }
    ::setrlimit(RLIMIT_FSIZE, &old);
    std::signal(SIGXFSZ, oldHandler);

    const QByteArray text = readAll(path);
    QCOMPARE(recordTypes(text), (QStringList{"hello", "hello", "?", "warning", "step", "step"}));
    const QList<QByteArray> lines = text.split('\n');
    const auto warning = nlohmann::json::parse(lines.at(3).toStdString());
    QCOMPARE(warning.value("code", std::string()), std::string("telemetry_lost"));
    QCOMPARE(warning.value("rank", 0), -1);
    const QString message = QString::fromStdString(warning.value("message", std::string()));
    QVERIFY2(message.startsWith(QStringLiteral("3 telemetry record(s) could not be written to ") + path),
             qPrintable(message));
    QCOMPARE(nlohmann::json::parse(lines.at(4).toStdString()).value("step", 0), 4);

    const QByteArray err = capture.text();
    QCOMPARE(err.count("cannot write telemetry"), qsizetype(1));
    QVERIFY2(err.contains(path.toLocal8Bit()), err.constData());
}

QTEST_GUILESS_MAIN(TestMetricsWriter)
#include "tst_metrics_writer.moc"
