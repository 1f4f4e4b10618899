// FindingHistory: what the Monitor and `watch` keep between analyses — new findings are raised once,
// a finding that stops holding is kept and marked resolved (never deleted), a straggler that comes
// back is raised again, tentative findings never count as raised; and end to end with the detector on
// a synthetic run whose straggler recovers.
#include "analysis/diagnosis.h"
#include "analysis/findinghistory.h"
#include "synthetic_run.h"

#include <QTest>

using namespace traindeck::analysis;
using traindeck::metrics::MetricStore;

namespace {

Finding straggler(int rank, FindingState state, qint64 raised, qint64 resolved = -1, bool data = false)
{
    Finding f;
    f.kind = FindingKind::Straggler;
    f.severity = state == FindingState::Tentative ? Severity::Info : Severity::Warning;
    f.state = state;
    f.ranks = {rank};
    f.hosts = {QStringLiteral("node-%1").arg(rank)};
    f.raisedStep = raised;
    f.resolvedStep = resolved;
    f.firstStep = raised >= 0 ? raised - 10 : 1;
    f.addEvidence(QStringLiteral("data_cause"), data ? 1 : 0);
    f.summary = QStringLiteral("rank %1 is a straggler").arg(rank);
    return f;
}

using Type = FindingHistory::Change::Type;

} // namespace

class tst_FindingHistory : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void raisedOnceThenResolved();
    void resolvedByTheAnalysis();
    void raisedAgainAfterResolving();
    void tentativeIsNeverRaised();
    void causesAreSeparateFindings();
    void raisedAndResolvedBetweenUpdates();
    void detectorRecoveredStraggler();
    void cadenceWaitsForRecordsAndTheInterval();
};

void tst_FindingHistory::raisedOnceThenResolved()
{
    FindingHistory h;
    auto c = h.update({straggler(2, FindingState::Active, 12)}, 12);
    QCOMPARE(c.size(), 1);
    QCOMPARE(c.first().type, Type::Raised);
    // Still holding: nothing new, the first raised step is kept even when a windowed analysis moves it.
    c = h.update({straggler(2, FindingState::Active, 40)}, 50);
    QVERIFY(c.isEmpty());
    QCOMPARE(h.findings().size(), 1);
    QCOMPARE(h.findings().first().raisedStep, 12);
    // Gone from the analysis: kept, resolved at the step reached.
    c = h.update({}, 60);
    QCOMPARE(c.size(), 1);
    QCOMPARE(c.first().type, Type::Resolved);
    const QList<Finding> all = h.findings();
    QCOMPARE(all.size(), 1);
    QCOMPARE(all.first().state, FindingState::Resolved);
    QCOMPARE(all.first().resolvedStep, 60);
    QCOMPARE(all.first().raisedStep, 12);
    QVERIFY(all.first().summary.startsWith(QStringLiteral("Resolved at step 60")));
    // Stays resolved, reported once.
    QVERIFY(h.update({}, 70).isEmpty());
    QCOMPARE(h.findings().size(), 1);
}

void tst_FindingHistory::resolvedByTheAnalysis()
{
    FindingHistory h;
    h.update({straggler(1, FindingState::Active, 15)}, 20);
    const auto c = h.update({straggler(1, FindingState::Resolved, 15, 44)}, 50);
    QCOMPARE(c.size(), 1);
    QCOMPARE(c.first().type, Type::Resolved);
    QCOMPARE(h.findings().first().resolvedStep, 44); // the detector's step, not the update's
}

void tst_FindingHistory::raisedAgainAfterResolving()
{
    FindingHistory h;
    h.update({straggler(3, FindingState::Active, 15)}, 20);
    h.update({straggler(3, FindingState::Resolved, 15, 30)}, 35);
    const auto c = h.update({straggler(3, FindingState::Resolved, 15, 30), straggler(3, FindingState::Active, 80)}, 85);
    QCOMPARE(c.size(), 1);
    QCOMPARE(c.first().type, Type::Raised);
    QCOMPARE(c.first().finding.raisedStep, 80);
    const QList<Finding> all = h.findings();
    QCOMPARE(all.size(), 2);
    QCOMPARE(all.at(0).state, FindingState::Active); // active first
    QCOMPARE(all.at(1).state, FindingState::Resolved);
}

void tst_FindingHistory::tentativeIsNeverRaised()
{
    FindingHistory h;
    QVERIFY(h.update({straggler(0, FindingState::Tentative, -1)}, 8).isEmpty());
    QCOMPARE(h.findings().size(), 1);
    QVERIFY(h.update({}, 9).isEmpty()); // it goes without a "resolved"
    QVERIFY(h.findings().isEmpty());
    const auto c = h.update({straggler(0, FindingState::Active, 12)}, 12);
    QCOMPARE(c.size(), 1);
    QCOMPARE(c.first().type, Type::Raised);
}

void tst_FindingHistory::causesAreSeparateFindings()
{
    FindingHistory h;
    const auto c =
        h.update({straggler(1, FindingState::Active, 12), straggler(1, FindingState::Active, 14, -1, true)}, 14);
    QCOMPARE(c.size(), 2);
    QVERIFY(FindingHistory::keyOf(c.at(0).finding) != FindingHistory::keyOf(c.at(1).finding));
    QCOMPARE(FindingHistory::keyOf(c.at(1).finding), QStringLiteral("straggler:1:data"));
}

void tst_FindingHistory::raisedAndResolvedBetweenUpdates()
{
    FindingHistory h;
    const auto c = h.update({straggler(2, FindingState::Resolved, 15, 30)}, 40);
    QCOMPARE(c.size(), 2);
    QCOMPARE(c.at(0).type, Type::Raised);
    QCOMPARE(c.at(1).type, Type::Resolved);
    QVERIFY(h.update({straggler(2, FindingState::Resolved, 15, 30)}, 45).isEmpty()); // known
}

void tst_FindingHistory::detectorRecoveredStraggler()
{
    // Rank 1 of 4 is 20 % slower from step 1 to 60, then recovers; analysed every 5 steps, as live.
    traindeck::testing::SyntheticRun syn;
    syn.ranks = 4;
    syn.slowRank = 1;
    syn.slowFactor = 1.2;
    syn.rng.seed(3);
    MetricStore store;
    store.onHello(syn.hello());
    FindingHistory h;
    qint64 raisedAt = -1, resolvedAt = -1;
    for (int n = 1; n <= 150; ++n) {
        syn.slowRank = n <= 60 ? 1 : -1;
        store.onStep(syn.step(n, 3.0));
        if (n % 5)
            continue;
        for (const auto& change : h.update(Diagnosis::analyze(store), n)) {
            if (change.finding.kind != FindingKind::Straggler)
                continue;
            QCOMPARE(change.finding.ranks, QList<int>{1});
            if (change.type == Type::Raised) {
                QCOMPARE(raisedAt, -1); // raised once
                raisedAt = n;
            } else {
                QCOMPARE(resolvedAt, -1);
                resolvedAt = n;
            }
        }
    }
    QVERIFY2(raisedAt > 0 && raisedAt <= 30, qPrintable(QString::number(raisedAt)));
    QVERIFY2(resolvedAt > 60 && resolvedAt <= 80, qPrintable(QString::number(resolvedAt)));
    int stragglers = 0;
    for (const Finding& f : h.findings()) {
        if (f.kind != FindingKind::Straggler)
            continue;
        ++stragglers;
        QCOMPARE(f.state, FindingState::Resolved);
        QVERIFY(f.raisedStep > 0 && f.raisedStep <= 30);
        QVERIFY(f.resolvedStep > 60 && f.resolvedStep <= 80);
    }
    QCOMPARE(stragglers, 1);
}

void tst_FindingHistory::cadenceWaitsForRecordsAndTheInterval()
{
    // One rule for `follow` and the Monitor: records arrived since the last analysis, and at most every
    // kIntervalMs.
    qint64 now = 1000;
    DiagnosisCadence cadence([&now] { return now; });
    traindeck::testing::SyntheticRun syn;
    syn.ranks = 2;
    MetricStore store;
    store.onHello(syn.hello());
    QVERIFY(cadence.due(store)); // the first analysis is due at once
    cadence.ran(store);
    now += DiagnosisCadence::kIntervalMs + 1;
    QVERIFY(!cadence.hasNewRecords(store)); // nothing new: not due, however long ago
    QVERIFY(!cadence.due(store));
    store.onStep(syn.step(1, 3.0));
    QVERIFY(cadence.due(store));
    cadence.ran(store);
    store.onStep(syn.step(2, 3.0));
    now += DiagnosisCadence::kIntervalMs / 2;
    QVERIFY(cadence.hasNewRecords(store));
    QCOMPARE(cadence.msUntilAllowed(), DiagnosisCadence::kIntervalMs / 2); // too soon: says how long to wait
    QVERIFY(!cadence.due(store));
    now += DiagnosisCadence::kIntervalMs / 2;
    QVERIFY(cadence.due(store));
    cadence.ran(store);
    // A warning without a step (a stall: the job stopped moving) is a record too.
    traindeck::metrics::WarningRecord stall;
    stall.code = QStringLiteral("stall");
    store.onWarning(stall);
    now += DiagnosisCadence::kIntervalMs;
    QVERIFY(cadence.due(store));
    cadence.reset();
    QVERIFY(cadence.due(store));
}

QTEST_GUILESS_MAIN(tst_FindingHistory)
#include "tst_findinghistory.moc"
