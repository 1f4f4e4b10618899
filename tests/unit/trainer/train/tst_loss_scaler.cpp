// Dynamic loss scaling: backoff and skip on non-finite gradients, growth after a run of good steps,
// and skipping without scaling in fp32.
#include "train/loss_scaler.h"

#include <QTest>

using traindeck::train::LossScaler;

class TestLossScaler : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void backoffAndGrowth();
    void disabledStillSkips();
    void restore();
};

void TestLossScaler::backoffAndGrowth()
{
    LossScaler s(true, 1024.0, 2.0, 0.5, 3);
    QVERIFY(s.update(false)); // overflow: skip and back off
    QCOMPARE(s.scale(), 512.0);
    QVERIFY(!s.update(true));
    QVERIFY(!s.update(true));
    QCOMPARE(s.scale(), 512.0);
    QVERIFY(!s.update(true)); // third good step in a row: grow
    QCOMPARE(s.scale(), 1024.0);
    QVERIFY(!s.update(true));
    QVERIFY(s.update(false)); // an overflow resets the run of good steps
    QCOMPARE(s.scale(), 512.0);
    QVERIFY(!s.update(true));
    QVERIFY(!s.update(true));
    QCOMPARE(s.scale(), 512.0);
    QCOMPARE(s.skippedSteps(), int64_t(2));
    for (int i = 0; i < 40; ++i)
        s.update(false);
    QCOMPARE(s.scale(), 1.0); // never below 1
}

void TestLossScaler::disabledStillSkips()
{
    LossScaler s(false);
    QCOMPARE(s.scale(), 1.0);
    QVERIFY(s.update(false));
    QCOMPARE(s.scale(), 1.0);
    for (int i = 0; i < 5000; ++i)
        QVERIFY(!s.update(true));
    QCOMPARE(s.scale(), 1.0);
}

void TestLossScaler::restore()
{
    LossScaler s(true, 65536.0, 2.0, 0.5, 10);
    s.restore(128.0, 9, 4);
    QVERIFY(!s.update(true));
    QCOMPARE(s.scale(), 256.0);
    QCOMPARE(s.skippedSteps(), int64_t(4));
}

QTEST_GUILESS_MAIN(TestLossScaler)
#include "tst_loss_scaler.moc"
