#include "findingspanel.h"
#include "gui_testdata.h"
#include "monitor/trainingtab.h"
#include "monitorpage.h"
#include "qcp.h"
#include "runs/operations.h"
#include "runsession.h"
#include "scale_run.h"
#include "test_paths.h"

#include "analysis/diagnosis.h"

#include <QCheckBox>
#include <QJsonDocument>
#include <QLabel>
#include <QListWidget>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTranslator>

using namespace traindeck;
using namespace traindeck::gui;
using metrics::RankMetric;
using metrics::Scalar;

static const QString kFixture =
    QString::fromUtf8(TRAINDECK_SOURCE_DIR) + QStringLiteral("/tests/fixtures/metrics/example-4ranks.jsonl");

// A generated job's hello and its first `steps` steps, a second apart.
static QList<metrics::Record> recordsOf(testing::ScaleRun& run, int steps)
{
    QList<metrics::Record> records{run.helloRecord()};
    for (int n = 1; n <= steps; ++n)
        records.append(run.step(n, 1.8e9 + n));
    return records;
}

// A generated 1,024-rank job whose host node078 is 20 % slower: its first `steps` steps, fed to `session`.
static void feedSlowHostJob(RunSession& session, int steps)
{
    testing::ScaleRun run;
    run.spikeProb = 0;
    run.faults.push_back({testing::ScaleFault::Kind::SlowHost, 77, 0.20, 1});
    session.feed(recordsOf(run, steps));
}

class TestMonitorPage : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void recordedStream()
    {
        RunSession session(std::make_shared<runs::Operations>());
        MonitorPage page(&session);
        page.resize(1200, 700);
        page.show();
        session.follow(kFixture);
        session.tailer()->poll();
        QTRY_COMPARE(session.store().rowCount(), 10);
        const metrics::MetricStore& store = session.store();
        const int redrawsBefore = page.redrawCount();
        page.refreshNow();
        QCOMPARE(page.redrawCount(), redrawsBefore + 1);

        // Loss: every step, values as recorded; smoothed starts at the first value (debiased).
        QCPGraph* loss = page.lossGraph();
        QCOMPARE(loss->dataCount(), 10);
        QCOMPARE(loss->data()->at(0)->key, 1.0);
        QCOMPARE(loss->data()->at(0)->value, 11.5);
        QCOMPARE(loss->data()->at(3)->value, 10.0);
        QCOMPARE(page.smoothedLossGraph()->dataCount(), 10);
        QCOMPARE(page.smoothedLossGraph()->data()->at(0)->value, 11.5);
        QVERIFY(page.smoothedLossGraph()->data()->at(9)->value >
                loss->data()->at(9)->value);                                     // lags behind a falling loss
        QVERIFY(std::abs(page.lrGraph()->data()->at(0)->value - 3e-05) < 1e-10); // the store keeps float32
        QVERIFY(std::abs(page.gradNormGraph()->data()->at(1)->value - 3.6) < 1e-6);
        QVERIFY(std::abs(page.mfuGraph()->data()->at(0)->value - 41.0) < 1e-4); // shown in percent
        QCOMPARE(page.tokensGraph()->dataCount(), 10);

        // Smoothing 0 shows the raw loss.
        page.setSmoothing(0);
        page.refreshNow();
        QCOMPARE(page.smoothedLossGraph()->data()->at(9)->value, loss->data()->at(9)->value);

        // Devices: one graph per rank.
        page.setCurrentTab(MonitorPage::DevicesTab);
        page.refreshNow();
        QCOMPARE(page.utilPlot()->graphCount(), 4);
        QCOMPARE(page.utilGraph(2)->dataCount(), 10);
        QCOMPARE(page.utilGraph(2)->data()->at(0)->value, 97.0);
        QCOMPARE(page.memGraph(3)->data()->at(0)->value, 60003.0);

        // Load balance over the last 5 steps: bar heights are the means per rank and phase.
        page.setCurrentTab(MonitorPage::BalanceTab);
        page.setBalanceSteps(5);
        page.refreshNow();
        for (int r = 0; r < 4; ++r) {
            double fwd = 0, wait = 0, transfer = 0;
            for (qint64 row = 5; row < 10; ++row) {
                fwd += store.rankAt(RankMetric::Fwd, r, row);
                wait += analysis::Diagnosis::waitMs(store, row, r);
                transfer += analysis::Diagnosis::transferMs(store, row);
            }
            QCPBars* bars = page.phaseBars(Phase::Forward);
            QCOMPARE(bars->dataCount(), 4);
            QCOMPARE(bars->data()->at(r)->key, double(r));
            QVERIFY(std::abs(bars->data()->at(r)->value - fwd / 5) < 1e-3);
            QVERIFY(std::abs(page.phaseBars(Phase::CommWait)->data()->at(r)->value - wait / 5) < 1e-3);
            QVERIFY(std::abs(page.phaseBars(Phase::CommTransfer)->data()->at(r)->value - transfer / 5) < 1e-3);
        }
        // Each rank is labelled with its host (from the hello record).
        QVERIFY(!store.hostOf(2).isEmpty());
        const auto barTicks = page.barsPlot()->xAxis->ticker().dynamicCast<QCPAxisTickerText>();
        QVERIFY(barTicks);
        QCOMPARE(barTicks->ticks().value(2.0), QStringLiteral("2\n") + store.hostOf(2));
        // Bars are stacked data < forward < backward < transfer < wait < optimizer.
        QCOMPARE(page.phaseBars(Phase::Forward)->barBelow(), page.phaseBars(Phase::Data));
        QCOMPARE(page.phaseBars(Phase::Optimizer)->barBelow(), page.phaseBars(Phase::CommWait));

        // Heatmap: one cell per (step, rank) holding step_ms, then the chosen phase.
        QCPColorMapData* cells = page.heatmap()->data();
        QCOMPARE(cells->keySize(), 10);
        QCOMPARE(cells->valueSize(), 4);
        QCOMPARE(cells->cell(0, 0), 1500.0);
        const auto heatTicks = page.heatmapPlot()->yAxis->ticker().dynamicCast<QCPAxisTickerText>();
        QVERIFY(heatTicks);
        QCOMPARE(heatTicks->ticks().value(3.0), QStringLiteral("3 ") + store.hostOf(3));
        page.setHeatmapMetric(HeatmapMetric::Forward);
        page.refreshNow();
        for (int c : {0, 4, 9})
            for (int r = 0; r < 4; ++r)
                QCOMPARE(cells->cell(c, r), double(store.rankAt(RankMetric::Fwd, r, c)));
    }

    // 1,024 ranks on 128 hosts (generated): the load balance by host, slowest first, with the spread of each;
    // the slowest ranks; a host opened to its ranks; the heatmap hosts x steps, ranks on demand; the Devices
    // tab a line per host.
    void groupedByHostAt1024Ranks()
    {
        RunSession session(std::make_shared<runs::Operations>());
        MonitorPage page(&session);
        page.resize(1400, 900);
        page.show();
        testing::ScaleRun run;
        run.spikeProb = 0;
        run.faults.push_back({testing::ScaleFault::Kind::SlowHost, 77, 0.20, 1});
        run.faults.push_back({testing::ScaleFault::Kind::SlowRank, 300, 0.40, 1});
        session.feed(recordsOf(run, 30));
        page.setCurrentTab(MonitorPage::BalanceTab);
        page.refreshNow();
        monitor::BalanceTab* tab = page.balanceTab();
        QVERIFY(tab->groupedByHost());
        QCOMPARE(tab->barHosts().size(), 128);
        QCOMPARE(tab->barHosts().first(), QStringLiteral("node078"));
        QCOMPARE(page.phaseBars(Phase::Forward)->dataCount(), 128);
        QVERIFY(tab->spreadBars()->visible());
        QCOMPARE(tab->spreadBars()->dataCount(), 128);
        // The slowest ranks: rank 300 first, then the slow host's eight.
        QTableWidget* slow = tab->slowestRanksTable();
        QVERIFY(slow->isVisible());
        QCOMPARE(slow->rowCount(), 10);
        QCOMPARE(slow->item(0, 0)->text(), QStringLiteral("300"));
        QCOMPARE(slow->item(0, 1)->text(), QStringLiteral("node038"));
        // The heatmap: a row per host.
        QCOMPARE(page.heatmap()->data()->valueSize(), 128);
        QCOMPARE(tab->heatmapRowHosts().first(), QStringLiteral("node001"));
        // Selecting rank 300 in the table opens its host: its eight ranks' bars.
        slow->selectRow(0);
        QCOMPARE(tab->openHost(), QStringLiteral("node038"));
        page.refreshNow();
        QCOMPARE(tab->barRanks(), (QList<int>{296, 297, 298, 299, 300, 301, 302, 303}));
        QCOMPARE(page.phaseBars(Phase::Forward)->dataCount(), 8);
        QVERIFY(!tab->spreadBars()->visible());
        QCOMPARE(page.phaseBars(Phase::Forward)->selection().dataRange().begin(), 4); // rank 300 selected
        // Every rank in the heatmap on demand.
        tab->heatmapRanksBox()->setChecked(true);
        page.refreshNow();
        QCOMPARE(page.heatmap()->data()->valueSize(), 1024);
        // Back to the hosts.
        tab->setOpenHost({});
        page.refreshNow();
        QCOMPARE(page.phaseBars(Phase::Forward)->dataCount(), 128);
        // The Devices tab: a line per host.
        page.setCurrentTab(MonitorPage::DevicesTab);
        page.refreshNow();
        QCOMPARE(page.utilPlot()->graphCount(), 128);
        QCOMPARE(page.utilPlot()->graph(0)->name(), QStringLiteral("node001"));
        QCOMPARE(page.utilGraph(0)->dataCount(), 30);
        // A host's point: the median utilisation of its eight ranks at that step (node006: ranks 40-47).
        auto hostMedian = [&](qint64 row) {
            std::vector<float> u;
            for (int r = 40; r < 48; ++r)
                u.push_back(session.store().rankAt(RankMetric::Util, r, row));
            std::sort(u.begin(), u.end());
            return double(u[4]);
        };
        QCOMPARE(page.utilGraph(5)->data()->at(10)->value, hostMedian(10));
        // Followed live: the next step's point is added to the kept ones.
        page.setFollowLatest(true);
        session.feed({metrics::Record(run.step(31, 1.8e9 + 31))});
        page.refreshNow();
        QCOMPARE(page.utilGraph(5)->dataCount(), 31);
        QCOMPARE(page.utilGraph(5)->data()->at(30)->value, hostMedian(30));
        QCOMPARE(page.utilGraph(5)->data()->at(10)->value, hostMedian(10));
        // Resumed from step 10: steps 11 on replaced, node006's ranks at 10 % now; the kept points are not shown.
        metrics::StepRecord again = run.step(11, 1.8e9 + 40);
        for (int r = 40; r < 48; ++r)
            again.perRank[size_t(RankMetric::Util)][size_t(r)] = 10.f;
        session.feed({metrics::Record(again)});
        page.refreshNow();
        QCOMPARE(page.utilGraph(5)->dataCount(), 11);
        QCOMPARE(page.utilGraph(5)->data()->at(10)->value, 10.0);
    }

    // A flat learning rate of 2e-5 is drawn on an axis of its own scale, not QCustomPlot's -3..3.
    void flatSeriesKeepsItsScale()
    {
        RunSession session(std::make_shared<runs::Operations>());
        MonitorPage page(&session);
        page.resize(1200, 700);
        page.show();
        QList<metrics::Record> records{guitest::hello(2)};
        for (int s = 1; s <= 20; ++s) {
            metrics::StepRecord r = guitest::step(s, 2);
            r.lr = 2e-5;
            records.append(r);
        }
        session.feed(records);
        page.refreshNow();
        const QCPRange y = page.lrPlot()->yAxis->range();
        QVERIFY2(y.lower > 1.8e-5 && y.upper < 2.2e-5 && y.lower < 2e-5 && y.upper > 2e-5,
                 qPrintable(QStringLiteral("%1 %2").arg(y.lower).arg(y.upper)));
    }

    void heatmapShowsEachRanksShare()
    {
        // --balance moves samples between ranks; the heatmap shows each rank's share per step.
        RunSession session(std::make_shared<runs::Operations>());
        MonitorPage page(&session);
        page.resize(1200, 700);
        page.show();
        QList<metrics::Record> records{guitest::hello(2)};
        for (int s = 1; s <= 10; ++s) {
            metrics::StepRecord r = guitest::step(s, 2);
            r.perRank[size_t(RankMetric::Samples)] = s <= 5 ? std::vector<float>{4, 4} : std::vector<float>{6, 2};
            r.present |= metrics::StepRecord::HasSamples;
            records.append(r);
        }
        session.feed(records);
        page.setCurrentTab(MonitorPage::BalanceTab);
        page.setHeatmapMetric(HeatmapMetric::Samples);
        page.refreshNow();
        QCPColorMapData* cells = page.heatmap()->data();
        QCOMPARE(cells->cell(0, 1), 4.0);
        QCOMPARE(cells->cell(9, 0), 6.0);
        QCOMPARE(cells->cell(9, 1), 2.0);
    }

    void balanceTabShowsSharesAndChanges()
    {
        // --balance moved samples at steps 6 and 7: the tab says the current shares, when they changed
        // and what the last change did to the step time (in English with its plural forms), and each
        // rank's bar carries its share.
        QTranslator english;
        QVERIFY(english.load(QStringLiteral("traindeck_en"), QStringLiteral(":/i18n")));
        QCoreApplication::installTranslator(&english);
        RunSession session(std::make_shared<runs::Operations>());
        MonitorPage page(&session);
        page.resize(1200, 700);
        page.show();
        page.setCurrentTab(MonitorPage::BalanceTab);
        const monitor::BalanceTab* tab = page.balanceTab();
        QList<metrics::Record> records{guitest::hello(2)};
        auto sharedStep = [](int s, std::vector<float> shares, float ms) {
            metrics::StepRecord r = guitest::step(s, 2);
            r.perRank[size_t(RankMetric::Samples)] = std::move(shares);
            r.perRank[size_t(RankMetric::Step)] = {ms, ms - 5};
            r.present |= metrics::StepRecord::HasSamples;
            return r;
        };
        for (int s = 1; s <= 6; ++s)
            records.append(sharedStep(s, {16, 16}, 1630));
        session.feed(records);
        page.refreshNow();
        QVERIFY(tab->sharesLabel()->isVisibleTo(&page));
        QCOMPARE(tab->sharesLabel()->text(), QStringLiteral("Samples per rank: 16 / 16 since step 1 (unchanged)"));

        records.clear();
        records.append(sharedStep(7, {18, 14}, 1630));
        records.append(sharedStep(8, {19, 13}, 1310));
        session.feed(records);
        page.refreshNow();
        // One step after the last change: the changes, no comparison yet.
        QCOMPARE(tab->sharesLabel()->text(),
                 QStringLiteral("Samples per rank: 19 / 13 since step 8 — changed at steps 7, 8"));
        records.clear();
        for (int s = 9; s <= 20; ++s)
            records.append(sharedStep(s, {19, 13}, 1310));
        session.feed(records);
        page.refreshNow();
        QCOMPARE(tab->sharesLabel()->text(),
                 QStringLiteral("Samples per rank: 19 / 13 since step 8 — changed at steps 7, 8\n"
                                "Median step 1630 ms before the last change, 1310 ms after (-19.6 %)"));
        const QString host0 = session.store().hostOf(0);
        QCOMPARE(tab->barToolTip(0), QStringLiteral("Rank 0 on %1\n362.0 ms per step (mean of the phases)\n"
                                                    "19 samples per step since step 8")
                                         .arg(host0));
        QVERIFY(tab->barToolTip(1).endsWith(QStringLiteral("13 samples per step since step 8")));
        QVERIFY(tab->barToolTip(2).isEmpty());
        // The mouse over rank 1's bar makes its text the plot's tooltip.
        QCustomPlot* bars = page.barsPlot();
        bars->replot();
        const QPoint overRank1(int(bars->xAxis->coordToPixel(1.0)), bars->axisRect()->center().y());
        QTest::mouseMove(bars, overRank1);
        QTRY_COMPARE(bars->toolTip(), tab->barToolTip(1));
        const auto ticks = page.barsPlot()->xAxis->ticker().dynamicCast<QCPAxisTickerText>();
        QVERIFY(ticks);
        QVERIFY2(ticks->ticks().value(1.0).endsWith(QStringLiteral("\n13 samples")),
                 qPrintable(ticks->ticks().value(1.0)));
        QCoreApplication::removeTranslator(&english);
    }

    void balanceTabHidesSharesWithoutSamples()
    {
        RunSession session(std::make_shared<runs::Operations>());
        MonitorPage page(&session);
        page.show();
        page.setCurrentTab(MonitorPage::BalanceTab);
        QList<metrics::Record> records{guitest::hello(2)};
        for (int s = 1; s <= 5; ++s)
            records.append(guitest::step(s, 2));
        session.feed(records);
        page.refreshNow();
        QVERIFY(!page.balanceTab()->sharesLabel()->isVisibleTo(&page));
        QVERIFY(!page.balanceTab()->barToolTip(0).contains(QStringLiteral("sample")));
    }

    // A large live job's analysis reads a copy of its steps: taken a piece per refresh, so that no refresh
    // holds the GUI thread for the whole copy, and analysed once whole.
    void liveLargeJobCopiedInPieces()
    {
        RunSession session(std::make_shared<runs::Operations>());
        MonitorPage page(&session);
        page.resize(1200, 700);
        page.show();
        feedSlowHostJob(session, 600);
        page.refreshNow();
        QVERIFY(page.liveAnalysisCopy());
        QCOMPARE(page.liveAnalysisCopy()->rowCount(), qint64(256));
        QCOMPARE(page.liveAnalysisCopy()->firstStep(), qint64(1));
        auto hostNamed = [&] {
            page.refreshNow();
            for (const analysis::Finding& f : page.findingsPanel()->findings())
                if (f.kind == analysis::FindingKind::Straggler && !f.hosts.isEmpty() &&
                    f.hosts.first() == QStringLiteral("node078"))
                    return true;
            return false;
        };
        QTRY_VERIFY_WITH_TIMEOUT(hostNamed(), 60000);
        QCOMPARE(page.liveAnalysisCopy()->rowCount(), qint64(600));
    }

    // The heatmap by host of a large job is drawn in pieces, a bounded number of rows a refresh, and the page
    // refreshes again (its timer, no call from here) until it is whole; the slow host's row then shows it.
    void largeHeatmapDrawnInPieces()
    {
        RunSession session(std::make_shared<runs::Operations>());
        MonitorPage page(&session);
        page.resize(1200, 700);
        page.show();
        feedSlowHostJob(session, 600);
        page.setCurrentTab(MonitorPage::BalanceTab);
        page.refreshNow();
        const monitor::BalanceTab* tab = page.balanceTab();
        QCPColorMapData* cells = page.heatmap()->data(); // cell() is not const
        QCOMPARE(cells->valueSize(), 128);
        auto unknownColumns = [&] {
            int unknown = 0;
            for (int c = 0; c < cells->keySize(); ++c)
                unknown += std::isnan(cells->cell(c, 0));
            return unknown;
        };
        QVERIFY(!tab->heatmapComplete());
        const int firstUnknown = unknownColumns();
        QVERIFY2(firstUnknown > 0 && firstUnknown < cells->keySize(), qPrintable(QString::number(firstUnknown)));
        QTRY_VERIFY_WITH_TIMEOUT(tab->heatmapComplete(), 10000);
        QCOMPARE(unknownColumns(), 0);
        const int slow = int(tab->heatmapRowHosts().indexOf(QStringLiteral("node078")));
        const int other = int(tab->heatmapRowHosts().indexOf(QStringLiteral("node001")));
        double slowSum = 0, otherSum = 0; // step times: the slow host's optimizer steps are 20 % longer
        for (int c = 0; c < cells->keySize(); ++c) {
            slowSum += cells->cell(c, slow);
            otherSum += cells->cell(c, other);
        }
        QVERIFY(slowSum > otherSum);

        // Every rank's row: in pieces too, filled by the page's own refreshes.
        tab->heatmapRanksBox()->setChecked(true);
        page.refreshNow();
        QCOMPARE(cells->valueSize(), 1024);
        QVERIFY(!tab->heatmapComplete());
        const int firstUnknownByRank = unknownColumns();
        QVERIFY2(firstUnknownByRank > 0 && firstUnknownByRank < cells->keySize(),
                 qPrintable(QString::number(firstUnknownByRank)));
        QTRY_VERIFY_WITH_TIMEOUT(tab->heatmapComplete(), 10000);
        QCOMPARE(unknownColumns(), 0);
        const int slowRank = 77 * 8, otherRank = 0; // node078's first rank, node001's
        slowSum = otherSum = 0;
        for (int c = 0; c < cells->keySize(); ++c) {
            slowSum += cells->cell(c, slowRank);
            otherSum += cells->cell(c, otherRank);
        }
        QVERIFY(slowSum > otherSum);
    }

    void stallWarningListedAsFinding()
    {
        // The trainer's stall warning (code stall) shows in the findings list, named and selectable.
        RunSession session(std::make_shared<runs::Operations>());
        MonitorPage page(&session);
        page.show();
        QList<metrics::Record> records{guitest::hello(2)};
        for (int s = 1; s <= 4; ++s)
            records.append(guitest::step(s, 2));
        metrics::WarningRecord w;
        w.rank = 1;
        w.host = QStringLiteral("node1");
        w.code = QStringLiteral("stall");
        w.message = QStringLiteral("stall: rank 1 has not reached the gradient allreduce of step 5");
        w.stall = QJsonDocument::fromJson(
                      R"({"case":"before_collective","step":5,"phase":"allreduce","waited_s":61,
                          "ranks":[{"rank":1,"host":"node1","step":5,"phase":"data","in_phase_s":62,"silent_s":0}],
                          "waiting":[0]})")
                      .object();
        records.append(w);
        session.feed(records);
        page.refreshNow();
        FindingsPanel* panel = page.findingsPanel();
        int row = -1;
        for (int i = 0; i < panel->findings().size(); ++i)
            if (panel->findings().at(i).kind == analysis::FindingKind::Stall)
                row = i;
        QVERIFY2(row >= 0, "the stall is listed");
        QVERIFY2(panel->list()->item(row)->text().contains(QStringLiteral("Stall")),
                 qPrintable(panel->list()->item(row)->text()));
        panel->list()->setCurrentRow(row);
        QCOMPARE(page.selectedRanks(), QList<int>{1});
        QVERIFY(panel->findChild<QTextBrowser*>()->toPlainText().contains(QStringLiteral("data loading of step 5")));
    }

    void findingsSelectRanks()
    {
        RunSession session(std::make_shared<runs::Operations>());
        MonitorPage page(&session);
        page.resize(1200, 700);
        page.show();
        QList<metrics::Record> records;
        records.append(guitest::hello(4));
        for (int s = 1; s <= 120; ++s)
            records.append(guitest::step(s, 4, 2));
        session.feed(records);
        page.setCurrentTab(MonitorPage::BalanceTab);
        page.refreshNow();
        FindingsPanel* panel = page.findingsPanel();
        int straggler = -1;
        for (int i = 0; i < panel->findings().size(); ++i)
            if (panel->findings().at(i).kind == analysis::FindingKind::Straggler)
                straggler = i;
        QVERIFY2(straggler >= 0, "the diagnosis names the straggler");
        QCOMPARE(panel->findings().at(straggler).ranks, QList<int>{2});
        QSignalSpy spy(&page, &MonitorPage::selectedRanksChanged);
        panel->list()->setCurrentRow(straggler);
        QCOMPARE(spy.size(), 1);
        QCOMPARE(page.selectedRanks(), QList<int>{2});
        // Bars: rank 2's segments are selected, nobody else's.
        for (int p = 0; p < int(Phase::Count); ++p) {
            const QCPDataSelection sel = page.phaseBars(Phase(p))->selection();
            QCOMPARE(sel.dataRangeCount(), 1);
            QCOMPARE(sel.dataRange(0), QCPDataRange(2, 3));
        }
        // Lines: rank 2 drawn thicker, the others faded.
        QVERIFY(page.utilGraph(2)->pen().widthF() > page.utilGraph(0)->pen().widthF());
        QVERIFY(page.utilGraph(0)->pen().color().alphaF() < 0.5);
        QCOMPARE(page.utilGraph(2)->pen().color().alphaF(), 1.0);
        // Heatmap: an outline around rank 2's row.
        QCOMPARE(page.heatmapPlot()->itemCount(), 1);
        // The finding's detail text shows evidence and what to do.
        QVERIFY(panel->findChild<QTextBrowser*>()->toPlainText().contains(QStringLiteral("What to do")));
        // Clearing the selection clears the highlight.
        panel->list()->setCurrentRow(-1);
        QVERIFY(page.selectedRanks().isEmpty());
        QCOMPARE(page.phaseBars(Phase::Forward)->selection().dataRangeCount(), 0);
        QCOMPARE(page.heatmapPlot()->itemCount(), 0);
    }

    void updatesAreCoalesced()
    {
        RunSession session(std::make_shared<runs::Operations>());
        MonitorPage page(&session);
        page.show();
        session.feed({guitest::hello(2)});
        QTest::qWait(300);
        const int before = page.redrawCount();
        for (int s = 1; s <= 500; ++s)
            session.feed({guitest::step(s, 2)}); // 500 change notifications
        QTest::qWait(350);
        const int redraws = page.redrawCount() - before;
        QVERIFY2(redraws >= 1 && redraws <= 5, qPrintable(QString::number(redraws)));
        QCOMPARE(page.lossGraph()->dataCount(), 500);
    }

    void resumedRunReplacesSteps()
    {
        RunSession session(std::make_shared<runs::Operations>());
        MonitorPage page(&session);
        QList<metrics::Record> records{guitest::hello(2)};
        for (int s = 1; s <= 20; ++s)
            records.append(guitest::step(s, 2));
        session.feed(records);
        page.refreshNow();
        QCOMPARE(page.lossGraph()->dataCount(), 20);
        // A resume from step 10 rewrites steps 11.. (the later record wins).
        QList<metrics::Record> resumed;
        for (int s = 11; s <= 15; ++s) {
            auto st = guitest::step(s, 2);
            st.loss = 1.0;
            resumed.append(st);
        }
        session.feed(resumed);
        page.refreshNow();
        QCOMPARE(page.lossGraph()->dataCount(), 15);
        QCOMPARE(page.lossGraph()->data()->at(14)->value, 1.0);
    }

    // The smoothed loss follows a live run step by step whichever tab shows, and starts over only when asked or when
    // the run was resumed (steps replaced). It compared with the plots' last step, which stays behind while another
    // tab shows, and so started over, rebuilding every tab, at every other step of a live run.
    void smoothedLossStartsOverOnlyOnResume()
    {
        metrics::MetricStore store;
        store.onHello(guitest::hello(2));
        for (int s = 1; s <= 10; ++s)
            store.onStep(guitest::step(s, 2));
        monitor::TrainingTab tab;
        QVERIFY(tab.updateSmoothed(store, true));
        for (int s = 11; s <= 14; ++s) {
            store.onStep(guitest::step(s, 2));
            QVERIFY2(!tab.updateSmoothed(store, false), qPrintable(QString::number(s))); // its plots stay at 10
            QCOMPARE(tab.smoothedLoss().size(), size_t(s));
        }
        store.onStep(guitest::step(12, 2)); // resumed from step 11: steps 12 on replaced
        QVERIFY(tab.updateSmoothed(store, false));
        QCOMPARE(tab.smoothedLoss().size(), size_t(12));
        QVERIFY(!tab.updateSmoothed(store, false));
    }

    void exportPng()
    {
        QTemporaryDir dir;
        RunSession session(std::make_shared<runs::Operations>());
        MonitorPage page(&session);
        page.resize(1000, 600);
        page.show();
        QList<metrics::Record> records{guitest::hello(2)};
        for (int s = 1; s <= 50; ++s)
            records.append(guitest::step(s, 2));
        session.feed(records);
        const QString path = dir.filePath(QStringLiteral("plots.png"));
        QVERIFY(page.exportPngTo(path));
        QImage img(path);
        QVERIFY(!img.isNull());
        QVERIFY(img.width() > 100);
    }
};

QTEST_MAIN(TestMonitorPage)
#include "tst_monitorpage.moc"
