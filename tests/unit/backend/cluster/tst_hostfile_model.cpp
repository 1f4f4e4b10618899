// HostfileModel and ClusterNodesModel under QAbstractItemModelTester, with edits and validation.
#include "cluster/clusternodesmodel.h"
#include "cluster/hostfilemodel.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTest>

using namespace traindeck::cluster;
using traindeck::Result;

class TestHostfileModel : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void hostfileModelBasics();
    void hostfileModelEdits_data();
    void hostfileModelEdits();
    void hostfileModelRows();
    void nodesModelBasics();
    void nodesModelEdits_data();
    void nodesModelEdits();
    void nodesModelHeadMoves();
    void nodesModelRows();
};

static Hostfile sample()
{
    return Hostfile::parse(QStringLiteral("# c\nalice@n1 slots=4 max_slots=8 # head\n\nn2\n"), HostfileFormat::OpenMpi)
        .value();
}

void TestHostfileModel::hostfileModelBasics()
{
    HostfileModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.rowCount(), 0);
    model.setHostfile(sample());
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.columnCount(), int(HostfileModel::ColumnCount));
    QCOMPARE(model.data(model.index(0, HostfileModel::UserColumn)).toString(), QStringLiteral("alice"));
    QCOMPARE(model.data(model.index(0, HostfileModel::HostColumn)).toString(), QStringLiteral("n1"));
    QCOMPARE(model.data(model.index(0, HostfileModel::SlotsColumn)).toInt(), 4);
    QCOMPARE(model.data(model.index(0, HostfileModel::MaxSlotsColumn)).toInt(), 8);
    QCOMPARE(model.data(model.index(0, HostfileModel::CommentColumn)).toString(), QStringLiteral("# head"));
    QCOMPARE(model.data(model.index(1, HostfileModel::SlotsColumn)).toString(), QString());
    QVERIFY(!model.data(model.index(1, HostfileModel::SlotsColumn), Qt::EditRole).isValid());
    QCOMPARE(model.headerData(HostfileModel::HostColumn, Qt::Horizontal).toString(), QStringLiteral("Host"));
    QCOMPARE(model.headerData(1, Qt::Vertical).toInt(), 2);
    QVERIFY(model.flags(model.index(0, 0)) & Qt::ItemIsEditable);
}

void TestHostfileModel::hostfileModelEdits_data()
{
    QTest::addColumn<int>("column");
    QTest::addColumn<QVariant>("value");
    QTest::addColumn<bool>("accepted");

    QTest::addRow("host ok") << int(HostfileModel::HostColumn) << QVariant(QStringLiteral("gpu-07")) << true;
    QTest::addRow("host injection") << int(HostfileModel::HostColumn) << QVariant(QStringLiteral("a;rm -rf")) << false;
    QTest::addRow("host dash") << int(HostfileModel::HostColumn) << QVariant(QStringLiteral("-oProxyCommand")) << false;
    QTest::addRow("host empty") << int(HostfileModel::HostColumn) << QVariant(QString()) << false;
    QTest::addRow("user ok") << int(HostfileModel::UserColumn) << QVariant(QStringLiteral("bob")) << true;
    QTest::addRow("user cleared") << int(HostfileModel::UserColumn) << QVariant(QString()) << true;
    QTest::addRow("user bad") << int(HostfileModel::UserColumn) << QVariant(QStringLiteral("b b")) << false;
    QTest::addRow("slots int") << int(HostfileModel::SlotsColumn) << QVariant(6) << true;
    QTest::addRow("slots text") << int(HostfileModel::SlotsColumn) << QVariant(QStringLiteral("6")) << true;
    QTest::addRow("slots unset") << int(HostfileModel::SlotsColumn) << QVariant() << true;
    QTest::addRow("slots zero") << int(HostfileModel::SlotsColumn) << QVariant(0) << false;
    QTest::addRow("slots words") << int(HostfileModel::SlotsColumn) << QVariant(QStringLiteral("six")) << false;
    QTest::addRow("max slots") << int(HostfileModel::MaxSlotsColumn) << QVariant(16) << true;
    QTest::addRow("comment") << int(HostfileModel::CommentColumn) << QVariant(QStringLiteral("spare\nnode")) << true;
}

void TestHostfileModel::hostfileModelEdits()
{
    QFETCH(int, column);
    QFETCH(QVariant, value);
    QFETCH(bool, accepted);
    HostfileModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setHostfile(sample());
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    const QString before = model.hostfile().toText();
    QCOMPARE(model.setData(model.index(0, column), value), accepted);
    if (!accepted) {
        QCOMPARE(model.hostfile().toText(), before);
        QCOMPARE(changed.size(), 0);
        return;
    }
    QCOMPARE(changed.size(), 1);
    // Still a valid file, the comment lines kept, and it parses back to the same hosts.
    const QString text = model.hostfile().toText();
    QVERIFY(text.startsWith(QStringLiteral("# c\n")));
    const Result<Hostfile> back = Hostfile::parse(text, HostfileFormat::OpenMpi);
    QVERIFY2(back.ok(), qPrintable(back.errorString() + text));
    QCOMPARE(back->hosts(), model.hostfile().hosts());
}

void TestHostfileModel::hostfileModelRows()
{
    HostfileModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setHostfile(sample());
    QVERIFY(model.insertRows(1, 2));
    QCOMPARE(model.rowCount(), 4);
    QCOMPARE(model.data(model.index(1, HostfileModel::HostColumn)).toString(), QStringLiteral("localhost"));
    QVERIFY(model.setData(model.index(2, HostfileModel::HostColumn), QStringLiteral("n3")));
    QVERIFY(model.removeRows(0, 2));
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.data(model.index(0, HostfileModel::HostColumn)).toString(), QStringLiteral("n3"));
    QVERIFY(!model.removeRows(1, 5));
    QVERIFY(!model.insertRows(9, 1));
    QVERIFY(model.insertRows(model.rowCount(), 1));
    QCOMPARE(model.hostfile().toText(), QStringLiteral("# c\n\nn3\nn2\nlocalhost\n"));
}

static QList<ClusterNode> sampleNodes()
{
    ClusterNode a, b, c;
    a.name = a.host = QStringLiteral("a");
    b.name = b.host = QStringLiteral("b");
    c.name = c.host = QStringLiteral("c");
    a.slots = 4;
    b.user = QStringLiteral("alice");
    return {a, b, c};
}

void TestHostfileModel::nodesModelBasics()
{
    ClusterNodesModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setNodes(sampleNodes());
    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(model.columnCount(), int(ClusterNodesModel::ColumnCount));
    QCOMPARE(model.headRow(), 0);
    QCOMPARE(model.data(model.index(0, ClusterNodesModel::RoleColumn)).toString(), QStringLiteral("head"));
    QCOMPARE(model.data(model.index(0, ClusterNodesModel::RoleColumn), Qt::EditRole).toString(),
             QStringLiteral("worker"));
    QCOMPARE(model.data(model.index(1, ClusterNodesModel::UserColumn)).toString(), QStringLiteral("alice"));
    QCOMPARE(model.data(model.index(0, ClusterNodesModel::SlotsColumn)).toInt(), 4);
    QCOMPARE(model.data(model.index(0, ClusterNodesModel::PortColumn)).toInt(), 22);
    QCOMPARE(model.headerData(ClusterNodesModel::GpusColumn, Qt::Horizontal).toString(), QStringLiteral("GPUs"));
}

void TestHostfileModel::nodesModelEdits_data()
{
    QTest::addColumn<int>("column");
    QTest::addColumn<QVariant>("value");
    QTest::addColumn<bool>("accepted");

    QTest::addRow("port ok") << int(ClusterNodesModel::PortColumn) << QVariant(2222) << true;
    QTest::addRow("port zero") << int(ClusterNodesModel::PortColumn) << QVariant(0) << false;
    QTest::addRow("port text") << int(ClusterNodesModel::PortColumn) << QVariant(QStringLiteral("ssh")) << false;
    QTest::addRow("host ok") << int(ClusterNodesModel::HostColumn) << QVariant(QStringLiteral("10.1.2.3")) << true;
    QTest::addRow("host quote") << int(ClusterNodesModel::HostColumn) << QVariant(QStringLiteral("a\"b")) << false;
    QTest::addRow("user subst") << int(ClusterNodesModel::UserColumn) << QVariant(QStringLiteral("$(id)")) << false;
    QTest::addRow("identity ok") << int(ClusterNodesModel::IdentityColumn)
                                 << QVariant(QStringLiteral("~/.ssh/id_ed25519")) << true;
    QTest::addRow("identity key text") << int(ClusterNodesModel::IdentityColumn)
                                       << QVariant(QStringLiteral("-----BEGIN OPENSSH PRIVATE KEY-----")) << false;
    QTest::addRow("slots ok") << int(ClusterNodesModel::SlotsColumn) << QVariant(8) << true;
    QTest::addRow("slots zero") << int(ClusterNodesModel::SlotsColumn) << QVariant(0) << false;
    QTest::addRow("gpus ok") << int(ClusterNodesModel::GpusColumn) << QVariant(0) << true;
    QTest::addRow("gpus negative") << int(ClusterNodesModel::GpusColumn) << QVariant(-1) << false;
    QTest::addRow("name empty") << int(ClusterNodesModel::NameColumn) << QVariant(QString()) << false;
    QTest::addRow("role bad") << int(ClusterNodesModel::RoleColumn) << QVariant(QStringLiteral("boss")) << false;
}

void TestHostfileModel::nodesModelEdits()
{
    QFETCH(int, column);
    QFETCH(QVariant, value);
    QFETCH(bool, accepted);
    ClusterNodesModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setNodes(sampleNodes());
    QCOMPARE(model.setData(model.index(1, column), value), accepted);
    if (accepted)
        QCOMPARE(model.data(model.index(1, column), Qt::EditRole).toString(), value.toString());
    else
        QCOMPARE(model.nodes(), sampleNodes());
}

void TestHostfileModel::nodesModelHeadMoves()
{
    ClusterNodesModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QList<ClusterNode> nodes = sampleNodes();
    nodes[1].role = NodeRole::Head;
    model.setNodes(nodes);
    QCOMPARE(model.headRow(), 1);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    QVERIFY(model.setData(model.index(2, ClusterNodesModel::RoleColumn), QStringLiteral("head")));
    QCOMPARE(model.headRow(), 2);
    QCOMPARE(model.nodes().at(1).role, NodeRole::Worker);
    QCOMPARE(changed.size(), 1);
    QCOMPARE(changed.first().at(0).toModelIndex().row(), 1);
    QCOMPARE(changed.first().at(1).toModelIndex().row(), 2);
    // Demoting the only head: the first row becomes the head shown.
    QVERIFY(model.setData(model.index(2, ClusterNodesModel::RoleColumn), QStringLiteral("worker")));
    QCOMPARE(model.headRow(), 0);
    QCOMPARE(model.data(model.index(0, ClusterNodesModel::RoleColumn)).toString(), QStringLiteral("head"));
    ClusterProfile p;
    p.name = QStringLiteral("edited");
    p.nodes = model.nodes();
    QVERIFY(p.validate().isEmpty());
}

void TestHostfileModel::nodesModelRows()
{
    ClusterNodesModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setNodes(sampleNodes());
    QVERIFY(model.insertRows(0, 2));
    QCOMPARE(model.rowCount(), 5);
    QCOMPARE(model.data(model.index(0, ClusterNodesModel::NameColumn)).toString(), QStringLiteral("node4"));
    QCOMPARE(model.data(model.index(1, ClusterNodesModel::NameColumn)).toString(), QStringLiteral("node5"));
    QCOMPARE(model.headRow(), 0);
    QVERIFY(model.removeRows(0, 3));
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.data(model.index(0, ClusterNodesModel::HostColumn)).toString(), QStringLiteral("b"));
    QVERIFY(!model.removeRows(0, 3));
    ClusterProfile p;
    p.name = QStringLiteral("rows");
    p.nodes = model.nodes();
    QVERIFY(p.validate().isEmpty());
}

QTEST_GUILESS_MAIN(TestHostfileModel)
#include "tst_hostfile_model.moc"
