// The GUI stays responsive while 10,000 metric lines per second arrive: a timer appends step lines to
// a file that the session's tailer follows, the Monitor page is shown and redraws; a 5 ms probe timer
// measures how late the event loop serves it.
#include "gui_testdata.h"
#include "monitorpage.h"
#include "qcp.h"
#include "runs/operations.h"
#include "runsession.h"

#include "metrics/writer.h"

#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

using namespace traindeck;
using namespace traindeck::gui;

class TestLatency : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void tenThousandLinesPerSecond()
    {
        constexpr int kRanks = 8, kLinesPerTick = 100, kTickMs = 10, kSeconds = 4;
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("metrics.jsonl"));
        QFile out(path);
        QVERIFY(out.open(QIODevice::WriteOnly | QIODevice::Append | QIODevice::Unbuffered));
        out.write(metrics::toJsonLine(guitest::hello(kRanks)));

        RunSession session(std::make_shared<runs::Operations>());
        MonitorPage page(&session);
        page.resize(1200, 700);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        session.follow(path);

        // The page's first draw with data (plot layout, first decimation: about 70 ms, as bench_gui_monitor
        // reports for a tab's first frame) happens once, before the measurement of the steady stream.
        qint64 step = 0;
        out.write(metrics::toJsonLine(guitest::step(++step, kRanks, 3)));
        QTRY_COMPARE_WITH_TIMEOUT(session.store().rowCount(), step, 5000);
        page.refreshNow();
        QCoreApplication::processEvents();

        QElapsedTimer writeClock;
        QTimer writer;
        writer.setTimerType(Qt::PreciseTimer);
        QObject::connect(&writer, &QTimer::timeout, [&] {
            // Rate-based: however late this tick is, the file holds 10 lines per elapsed millisecond.
            const qint64 due = 1 + writeClock.elapsed() * (kLinesPerTick / kTickMs);
            QByteArray chunk;
            while (step < due)
                chunk += metrics::toJsonLine(guitest::step(++step, kRanks, 3));
            out.write(chunk);
        });
        QElapsedTimer clock;
        qint64 last = -1, worst = 0;
        QTimer probe;
        probe.setTimerType(Qt::PreciseTimer);
        QObject::connect(&probe, &QTimer::timeout, [&] {
            const qint64 now = clock.elapsed();
            if (last >= 0)
                worst = std::max(worst, now - last - 5);
            last = now;
        });
        clock.start();
        writeClock.start();
        writer.start(kTickMs);
        probe.start(5);
        QTest::qWait(kSeconds * 1000);
        writer.stop();
        const qint64 written = step; // including the warm-up line
        QTRY_COMPARE_WITH_TIMEOUT(session.store().rowCount(), written, 5000);
        probe.stop();
        const double rate = double(written) * 1000.0 / double(writeClock.elapsed());
        qInfo("lines written: %lld (%.0f/s), worst event-loop delay: %lld ms, redraws: %d", written, rate, worst,
              page.redrawCount());
        QVERIFY2(rate >= 9000, "10k lines/s were written");
        QVERIFY2(worst < 50, qPrintable(QStringLiteral("event loop blocked for %1 ms").arg(worst)));
        QVERIFY(page.redrawCount() >= 5);
        page.refreshNow();
        QCOMPARE(page.lossGraph()->dataCount(), int(written));
    }
};

QTEST_MAIN(TestLatency)
#include "tst_latency.moc"
