// Monitor page redraw time (target: <= 16 ms per frame) with a 1M-point loss series and a
// 64-rank x 10k-step heatmap, offscreen at 1200x700, and the process memory after a 1M-step run is
// loaded; and a generated 1,024-rank job on 128 hosts (tests/tools/telemetry) of [big-steps=2000] steps: each
// tab's first frame after switching to it, then its frames, the heatmap by host and by rank.
// Run: build-gui/tests/bench/gui/bench_gui_monitor [steps=1000000] [ranks=8] [big-steps=2000]
#include "gui_testdata.h"
#include "monitorpage.h"
#include "qcp.h"
#include "runs/operations.h"
#include "runsession.h"
#include "scale_run.h"

#include <QApplication>
#include <QCheckBox>
#include <QElapsedTimer>
#include <QFile>
#include <QTextStream>

#include <algorithm>
#include <vector>

using namespace traindeck;
using namespace traindeck::gui;

static double rssMiB()
{
    QFile f(QStringLiteral("/proc/self/status"));
    if (!f.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray& line : f.readAll().split('\n'))
        if (line.startsWith("VmRSS:"))
            return line.mid(6).trimmed().split(' ').first().toDouble() / 1024;
    return -1;
}

struct Frames {
    double median = 0, p95 = 0, max = 0;
};

// Times `frames` redraws: refresh (plot data) + immediate replot of the visible tab. Each frame pans
// the x range a little (so decimation runs again) unless follow is on.
static Frames timeFrames(MonitorPage& page, RunSession& session, int frames, bool pan)
{
    std::vector<double> ms;
    const double lo = double(session.store().firstStep()), hi = double(session.store().lastStep());
    for (int i = 0; i < frames; ++i) {
        if (pan) {
            const double shift = (hi - lo) * 0.001 * i;
            page.lossPlot()->xAxis->setRange(lo + shift, hi + shift); // synced to the others
        }
        QElapsedTimer t;
        t.start();
        page.refreshNow();
        for (QCustomPlot* p : page.currentTabWidget()->findChildren<QCustomPlot*>())
            p->replot(QCustomPlot::rpImmediateRefresh);
        ms.push_back(t.nsecsElapsed() / 1e6);
        QCoreApplication::processEvents();
    }
    std::sort(ms.begin(), ms.end());
    return {ms[ms.size() / 2], ms[std::min(ms.size() - 1, size_t(ms.size() * 0.95))], ms.back()};
}

int main(int argc, char** argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    const qint64 steps = argc > 1 ? QByteArray(argv[1]).toLongLong() : 1000000;
    const int ranks = argc > 2 ? QByteArray(argv[2]).toInt() : 8;
    QTextStream out(stdout);
    const double rss0 = rssMiB();

    // --- 1M-step run: loss series and the training tab
    {
        RunSession session(std::make_shared<runs::Operations>());
        MonitorPage page(&session);
        page.resize(1200, 700);
        page.show();
        QCoreApplication::processEvents();
        QElapsedTimer load;
        load.start();
        metrics::MetricStore& store = session.store();
        store.onHello(guitest::hello(ranks));
        for (qint64 s = 1; s <= steps; ++s)
            store.onStep(guitest::step(s, ranks, int(s % 997 == 0 ? 1 : -1)));
        session.feed({});
        const double loadMs = load.elapsed();
        page.refreshNow();
        const double rss1 = rssMiB();
        out << "run: " << steps << " steps x " << ranks << " ranks, built in " << loadMs << " ms\n";
        out << "memory: store " << QString::number(store.memoryBytes() / 1048576.0, 'f', 1) << " MiB, process RSS "
            << QString::number(rss1, 'f', 1) << " MiB (" << QString::number(rss1 - rss0, 'f', 1)
            << " MiB above an empty app)\n";
        page.setCurrentTab(MonitorPage::TrainingTab);
        Frames f = timeFrames(page, session, 30, false);
        out << "training tab, whole run (" << page.lossGraph()->dataCount() << " loss points drawn): median "
            << f.median << " ms, p95 " << f.p95 << " ms, max " << f.max << " ms\n";
        f = timeFrames(page, session, 30, true);
        out << "training tab, panning (re-decimated every frame): median " << f.median << " ms, p95 " << f.p95
            << " ms, max " << f.max << " ms\n";
        page.setFollowLatest(true);
        page.setCurrentTab(MonitorPage::DevicesTab);
        // The first frame after switching lays the tab out and decimates every series once: reported apart.
        const Frames first = timeFrames(page, session, 1, false);
        f = timeFrames(page, session, 30, false);
        out << "devices tab (" << ranks << " ranks x 2 series): first frame after switching " << first.max
            << " ms; then median " << f.median << " ms, p95 " << f.p95 << " ms, max " << f.max << " ms\n";
    }
    // --- 64 ranks x 10k steps: heatmap and bars
    {
        RunSession session(std::make_shared<runs::Operations>());
        MonitorPage page(&session);
        page.resize(1200, 700);
        page.show();
        metrics::MetricStore& store = session.store();
        store.onHello(guitest::hello(64));
        for (qint64 s = 1; s <= 10000; ++s)
            store.onStep(guitest::step(s, 64, int(s / 100 % 64)));
        session.feed({});
        page.setCurrentTab(MonitorPage::BalanceTab);
        page.setBalanceSteps(100);
        page.refreshNow();
        Frames f = timeFrames(page, session, 30, false);
        out << "load-balance tab, 64 x 10000 heatmap (" << page.heatmap()->data()->keySize() << " x "
            << page.heatmap()->data()->valueSize() << " cells) + bars: median " << f.median << " ms, p95 " << f.p95
            << " ms, max " << f.max << " ms\n";
        QElapsedTimer t;
        t.start();
        page.heatmapPlot()->replot(QCustomPlot::rpImmediateRefresh);
        out << "heatmap replot alone: " << t.nsecsElapsed() / 1e6 << " ms\n";
    }
    // --- 1,024 ranks on 128 hosts (generated): every tab, grouped by host
    {
        const qint64 bigSteps = argc > 3 ? QByteArray(argv[3]).toLongLong() : 2000;
        RunSession session(std::make_shared<runs::Operations>());
        MonitorPage page(&session);
        page.resize(1200, 700);
        page.show();
        testing::ScaleRun run;
        run.faults.push_back({testing::ScaleFault::Kind::SlowHost, 77, 0.2, 1});
        run.feed(session.store(), bigSteps, 0.5);
        session.feed({});
        page.setFollowLatest(false);
        // The whole run in view (the plots start with the few steps of their first refresh).
        page.lossPlot()->xAxis->setRange(double(session.store().firstStep()) - 0.5,
                                         double(session.store().lastStep()) + 0.5);
        const MonitorPage::Tab tabs[] = {MonitorPage::TrainingTab, MonitorPage::DevicesTab, MonitorPage::BalanceTab};
        const char* names[] = {"training", "devices", "load-balance"};
        for (int round = 0; round < 2; ++round) {
            for (int i = 0; i < 3; ++i) {
                page.setCurrentTab(tabs[i]);
                const Frames first = timeFrames(page, session, 1, false);
                const Frames f = timeFrames(page, session, 20, false);
                out << "1024 ranks x " << bigSteps << " steps, " << names[i] << " tab"
                    << (round ? " (switched to again)" : "") << ": first frame " << first.max << " ms; then median "
                    << f.median << " ms, p95 " << f.p95 << " ms, max " << f.max << " ms\n";
            }
        }
        const Frames pan = timeFrames(page, session, 20, true);
        out << "1024 ranks, panning (load-balance tab): median " << pan.median << " ms, p95 " << pan.p95 << " ms, max "
            << pan.max << " ms\n";
        page.balanceTab()->heatmapRanksBox()->setChecked(true);
        // The first frame allocates the grid of 1,024 rows; the next ones fill it in (BalanceTab::refreshHeatmap).
        const Frames firstOfRanks = timeFrames(page, session, 1, false);
        const Frames ranks1024 = timeFrames(page, session, 10, false);
        out << "1024 ranks, heatmap of every rank: first frame " << firstOfRanks.max << " ms; then median "
            << ranks1024.median << " ms, max " << ranks1024.max << " ms\n";
        page.balanceTab()->heatmapRanksBox()->setChecked(false);
        // Live: a new step before every frame, the view following the run (what a running job's Monitor draws
        // at each step), each tab in turn.
        page.setFollowLatest(true);
        qint64 next = bigSteps + 1;
        auto liveFrames = [&](int frames) {
            std::vector<double> ms;
            for (int i = 0; i < frames; ++i, ++next) {
                session.feed({metrics::Record(run.step(next, 1.8e9 + 0.5 * double(next)))});
                ms.push_back(timeFrames(page, session, 1, false).max);
            }
            std::sort(ms.begin(), ms.end());
            return Frames{ms[ms.size() / 2], ms[std::min(ms.size() - 1, size_t(ms.size() * 0.95))], ms.back()};
        };
        for (int i = 0; i < 3; ++i) {
            page.setCurrentTab(tabs[i]);
            const Frames first = liveFrames(1);
            const Frames f = liveFrames(20);
            out << "1024 ranks, live (a new step each frame), " << names[i] << " tab: first frame " << first.max
                << " ms; then median " << f.median << " ms, max " << f.max << " ms\n";
        }
    }
    out << "target: <= 16 ms per frame\n";
    return 0;
}
