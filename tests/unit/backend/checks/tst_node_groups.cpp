// agreeingNodeGroups(): which nodes of a check report read as one row ("62 nodes: same") and which
// stand out, from synthetic reports (the real checks run in tst_checks and tests/testbed).
#include "checks/nodecheck.h"

#include <QJsonArray>
#include <QTest>

using namespace traindeck;
using namespace traindeck::checks;

namespace {

CheckResult result(const QString& id, CheckStatus status, const QString& value = QString())
{
    CheckResult r;
    r.id = id;
    r.status = status;
    r.value = value;
    r.summary = id + QStringLiteral(" summary");
    return r;
}

// n nodes, node 0 the head (it alone runs head-ssh); every node has the same versions unless `trainer`
// names another for a node.
CheckReport report(int n, const QHash<int, QString>& trainer = {}, const QHash<int, CheckStatus>& disk = {})
{
    CheckReport rep;
    rep.profile = QStringLiteral("big");
    for (int i = 0; i < n; ++i) {
        NodeReport node;
        node.node = node.host = QStringLiteral("n%1").arg(i + 1);
        node.isHead = i == 0;
        node.results << result(QStringLiteral("connect"), CheckStatus::Pass)
                     << result(QStringLiteral("trainer"), CheckStatus::Pass, trainer.value(i, QStringLiteral("0.1.0")))
                     << result(QStringLiteral("mpi"), CheckStatus::Pass, QStringLiteral("4.1.4"))
                     << result(QStringLiteral("disk"), disk.value(i, CheckStatus::Pass),
                               QStringLiteral("%1 GB").arg(100 + i)); // differs everywhere: not compared
        if (i == 0)
            node.results << result(QStringLiteral("head-ssh"), CheckStatus::Pass);
        rep.nodes << node;
    }
    buildMatrix(rep);
    return rep;
}

} // namespace

class TestNodeGroups : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void allAgree()
    {
        // Workers agree; the head ran one check more: two rows, the workers first.
        const auto groups = agreeingNodeGroups(report(6));
        QCOMPARE(groups, (QList<QList<int>>{{1, 2, 3, 4, 5}, {0}}));
        QVERIFY(agreeingNodeGroups(CheckReport{}).isEmpty());
        QCOMPARE(agreeingNodeGroups(report(1)), (QList<QList<int>>{{0}}));
    }

    void aVersionThatDiffersStandsOut()
    {
        CheckReport rep = report(64, {{40, QStringLiteral("0.0.9")}});
        const auto groups = agreeingNodeGroups(rep);
        QCOMPARE(groups.size(), 3);
        QCOMPARE(groups.at(0).size(), 62); // "62 nodes: same"
        QVERIFY(!groups.at(0).contains(40) && !groups.at(0).contains(0));
        QCOMPARE(groups.at(1), QList<int>{0});
        QCOMPARE(groups.at(2), QList<int>{40});
        // The node that differs failed its trainer check (buildMatrix), so it would stand out by status
        // alone; the matrix value separates it even where the status does not.
        QCOMPARE(rep.nodes.at(40).find(QStringLiteral("trainer"))->status, CheckStatus::Fail);
    }

    void aStatusThatDiffersStandsOut()
    {
        // Two nodes with a warning on disk, not in the matrix: a row of their own, in node order.
        const auto groups = agreeingNodeGroups(report(10, {}, {{7, CheckStatus::Warn}, {3, CheckStatus::Warn}}));
        QCOMPARE(groups, (QList<QList<int>>{{1, 2, 4, 5, 6, 8, 9}, {0}, {3, 7}}));
    }

    void largestFirstThenNodeOrder()
    {
        // Half and half: the earlier group of the largest size leads.
        QHash<int, QString> other;
        for (int i = 1; i < 9; i += 2)
            other.insert(i, QStringLiteral("0.2.0"));
        const auto groups = agreeingNodeGroups(report(9, other));
        QCOMPARE(groups.size(), 3);
        QCOMPARE(groups.at(0), (QList<int>{1, 3, 5, 7}));
        QCOMPARE(groups.at(1), QList<int>{0});
        QCOMPARE(groups.at(2), (QList<int>{2, 4, 6, 8}));
    }

    void inTheJson()
    {
        const QJsonArray groups =
            report(4, {{2, QStringLiteral("0.0.9")}}).toJson().value(QStringLiteral("groups")).toArray();
        QCOMPARE(groups.size(), 3);
        QCOMPARE(groups.at(0).toArray(), (QJsonArray{QStringLiteral("n2"), QStringLiteral("n4")}));
        QCOMPARE(groups.at(2).toArray(), QJsonArray{QStringLiteral("n3")});
    }
};

QTEST_GUILESS_MAIN(TestNodeGroups)
#include "tst_node_groups.moc"
