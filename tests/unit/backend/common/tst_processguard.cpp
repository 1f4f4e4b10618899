// protectProcessSecrets: the process stops being dumpable (no core file with typed passwords, no
// ptrace attach), unless TRAINDECK_ALLOW_CORE_DUMPS=1.
#include "common/processguard.h"

#include <QTest>

#include <sys/prctl.h>

class TestProcessGuard : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void notDumpableUnlessAsked()
    {
        QCOMPARE(::prctl(PR_GET_DUMPABLE), 1);
        qputenv("TRAINDECK_ALLOW_CORE_DUMPS", "1");
        QVERIFY(traindeck::protectProcessSecrets().ok());
        QCOMPARE(::prctl(PR_GET_DUMPABLE), 1);
        qunsetenv("TRAINDECK_ALLOW_CORE_DUMPS");
        QVERIFY(traindeck::protectProcessSecrets().ok());
        QCOMPARE(::prctl(PR_GET_DUMPABLE), 0);
    }
};

QTEST_GUILESS_MAIN(TestProcessGuard)
#include "tst_processguard.moc"
