// The straggler diagnosis at 1,024 ranks on 128 hosts, on generated runs (tests/tools/telemetry/scale_run.h,
// the noise the real trainer shows): a slow host is named once, as the host, not as 8 stragglers; a slow
// rank stays a rank; hosts with fewer than 3 ranks are not tested as hosts (one slow rank would move them).
#include "analysis/diagnosis.h"
#include "analysis/findinghistory.h"
#include "metrics/metricstore.h"
#include "scale_run.h"

#include <QTest>

using namespace traindeck::analysis;
using namespace traindeck::metrics;
using traindeck::testing::ScaleFault;
using traindeck::testing::ScaleRun;

namespace {

// Straggler findings a person is told about (warning or above, not tentative).
QList<Finding> stragglers(const MetricStore& store)
{
    DiagnosisOptions o;
    o.stragglerSteps = LiveDiagnosis::kStragglerSteps;
    QList<Finding> out;
    for (const Finding& f : Diagnosis::analyze(store, o))
        if (f.kind == FindingKind::Straggler && f.severity >= Severity::Warning && f.state != FindingState::Tentative)
            out.append(f);
    return out;
}

QString describe(const QList<Finding>& findings)
{
    QStringList lines;
    for (const Finding& f : findings)
        lines << f.summary;
    return lines.join(QLatin1Char('\n'));
}

} // namespace

class tst_DiagnosisScale : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void slowHostNamedAsTheHost_data();
    void slowHostNamedAsTheHost();
    void slowRankAmongHostsStaysARank();
    void hostsOfTwoRanksAreNotTestedAsHosts();
};

void tst_DiagnosisScale::slowHostNamedAsTheHost_data()
{
    QTest::addColumn<int>("host");
    QTest::addColumn<quint32>("seed");
    QTest::addRow("host 37, seed 1") << 37 << 1u;
    QTest::addRow("host 0, seed 2") << 0 << 2u;
    QTest::addRow("host 127, seed 3") << 127 << 3u;
}

void tst_DiagnosisScale::slowHostNamedAsTheHost()
{
    QFETCH(int, host);
    QFETCH(quint32, seed);
    ScaleRun run; // 1,024 ranks on 128 hosts
    run.seed = seed;
    run.faults.push_back({ScaleFault::Kind::SlowHost, host, 0.15, 1});
    MetricStore store;
    run.feed(store, 20);
    const QList<Finding> found = stragglers(store);
    // One finding for the host, and none of its ranks named on its own (the false findings of other ranks
    // that this noise gives at 1,024 ranks are measured by tests/bench/analysis/bench_scale, not here).
    const QString name = ScaleRun::hostName(host);
    QList<Finding> onHost;
    for (const Finding& f : found)
        if (f.hosts.contains(name))
            onHost.append(f);
    QVERIFY2(onHost.size() == 1, qPrintable(describe(found)));
    const Finding& f = onHost.first();
    QCOMPARE(f.ranks.size(), 8);
    QCOMPARE(f.ranks.first(), host * 8);
    QCOMPARE(f.hosts.count(name), 8);
    QVERIFY2(f.summary.contains(QStringLiteral("Host %1 is slow").arg(name)), qPrintable(f.summary));
    QCOMPARE(f.evidenceValue(QStringLiteral("host_ranks")), 8.0);
    QVERIFY(f.raisedStep <= 20);
}

void tst_DiagnosisScale::slowRankAmongHostsStaysARank()
{
    ScaleRun run;
    run.seed = 5;
    run.faults.push_back({ScaleFault::Kind::SlowRank, 517, 0.25, 1});
    MetricStore store;
    run.feed(store, 20);
    const QList<Finding> found = stragglers(store);
    bool named = false;
    for (const Finding& f : found) {
        QVERIFY2(f.ranks.size() == 1, qPrintable(describe(found))); // no host named
        named = named || (f.ranks == QList<int>{517} && f.hosts == QStringList{ScaleRun::hostName(517 / 8)});
    }
    QVERIFY2(named, qPrintable(describe(found)));
}

void tst_DiagnosisScale::hostsOfTwoRanksAreNotTestedAsHosts()
{
    ScaleRun run;
    run.ranks = 64;
    run.hosts = 32;
    run.seed = 7;
    run.faults.push_back({ScaleFault::Kind::SlowHost, 9, 0.30, 1});
    MetricStore store;
    run.feed(store, 30);
    const QList<Finding> found = stragglers(store);
    QList<int> ranks;
    for (const Finding& f : found) {
        QVERIFY2(f.ranks.size() == 1, qPrintable(describe(found)));
        ranks << f.ranks;
    }
    std::sort(ranks.begin(), ranks.end());
    QCOMPARE(ranks, (QList<int>{18, 19}));
}

QTEST_GUILESS_MAIN(tst_DiagnosisScale)
#include "tst_diagnosis_scale.moc"
