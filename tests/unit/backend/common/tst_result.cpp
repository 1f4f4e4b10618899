// Result, Status and Diagnostic: how a diagnostic reads (location, warning, detail lines), the
// machine-readable code that callers branch on, and the first error of a result.
#include "common/result.h"

#include <QTest>

using traindeck::Diagnostic;
using traindeck::Diagnostics;
using traindeck::Done;
using traindeck::Result;
using traindeck::Status;

class TestResult : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void toString_data()
    {
        QTest::addColumn<Diagnostic>("diagnostic");
        QTest::addColumn<QString>("text");
        QTest::addRow("text position") << Diagnostic::error(QStringLiteral("hosts"), 3, 0, QStringLiteral("bad slots"))
                                       << QStringLiteral("hosts:3:1: bad slots");
        QTest::addRow("key") << Diagnostic::keyError(QStringLiteral("p.json"), QStringLiteral("nodes[1].port"),
                                                     QStringLiteral("out of range"))
                             << QStringLiteral("p.json: nodes[1].port: out of range");
        QTest::addRow("where") << Diagnostic::warning(QStringLiteral("/runs/r1"), QStringLiteral("no exit code"))
                               << QStringLiteral("/runs/r1: warning: no exit code");
        QTest::addRow("key without file") << Diagnostic::keyError(QString(), QStringLiteral("lr"), QStringLiteral("x"))
                                          << QStringLiteral("<input>: lr: x");
        // A message that names its subject itself: no location in front, the detail on the next lines.
        QTest::addRow("coded") << Diagnostic::codedError(QStringLiteral("ssh.auth"),
                                                         QStringLiteral("root@n1: authentication failed"),
                                                         QStringLiteral("Install your key.\nOr name it."))
                               << QStringLiteral("root@n1: authentication failed\nInstall your key.\nOr name it.");
        Diagnostic located = Diagnostic::codedError(QStringLiteral("ssh.link_lost"), QStringLiteral("n1: lost"),
                                                    QStringLiteral("Check the network."));
        located.file = QStringLiteral("/runs/r1/metrics.jsonl");
        QTest::addRow("coded, located") << located
                                        << QStringLiteral("/runs/r1/metrics.jsonl: n1: lost\nCheck the network.");
    }
    void toString()
    {
        QFETCH(Diagnostic, diagnostic);
        QFETCH(QString, text);
        QCOMPARE(diagnostic.toString(), text);
    }

    void codeAndEquality()
    {
        const Diagnostic a = Diagnostic::codedError(QStringLiteral("ssh.auth"), QStringLiteral("m"));
        QVERIFY(a.isError());
        QCOMPARE(a.code, QStringLiteral("ssh.auth"));
        QVERIFY(a.detail.isEmpty());
        QCOMPARE(a, Diagnostic::codedError(QStringLiteral("ssh.auth"), QStringLiteral("m")));
        QVERIFY(a != Diagnostic::codedError(QStringLiteral("ssh.timeout"), QStringLiteral("m")));
        QVERIFY(a != Diagnostic::codedError(QStringLiteral("ssh.auth"), QStringLiteral("m"), QStringLiteral("d")));
        // The plain factories leave the code empty.
        QVERIFY(Diagnostic::error(QStringLiteral("f"), QStringLiteral("m")).code.isEmpty());
    }

    void firstErrorAndCode()
    {
        const Status ok = Done{};
        QVERIFY(ok.errorCode().isEmpty());
        QCOMPARE(ok.firstError(), Diagnostic{});

        const Diagnostic warning = Diagnostic::warning(QStringLiteral("f"), QStringLiteral("careful"));
        const Diagnostic error = Diagnostic::codedError(QStringLiteral("ssh.host_key_changed"), QStringLiteral("no"));
        const Result<int> failed = Result<int>::failure(Diagnostics{warning, error});
        QVERIFY(!failed);
        QCOMPARE(failed.firstError(), error);
        QCOMPARE(failed.errorCode(), QStringLiteral("ssh.host_key_changed"));
        QCOMPARE(failed.errorString(), warning.toString() + QLatin1Char('\n') + error.toString() + QLatin1Char('\n'));

        // Across a queued signal or a QVariant.
        const QVariant v = QVariant::fromValue(Diagnostics{error});
        QCOMPARE(v.value<Diagnostics>().value(0).code, QStringLiteral("ssh.host_key_changed"));
    }
};

QTEST_GUILESS_MAIN(TestResult)
#include "tst_result.moc"
