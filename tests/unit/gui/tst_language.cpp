#include "analysis/detector.h"
#include "language.h"
#include "mainwindow.h"
#include "runs/operations.h"
#include "runsession.h"
#include "test_home.h"

#include <QListWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace traindeck;
using namespace traindeck::gui;

class TestLanguage : public QObject {
    Q_OBJECT

    QTemporaryDir m_home;

  private Q_SLOTS:
    void initTestCase() { guitest::useTemporaryHome(m_home); }

    void chineseIsEmbedded() { QVERIFY(Language::available().contains(QStringLiteral("zh_CN"))); }

    void switchLoadsChinese()
    {
        QVERIFY(Language::instance()->apply(QStringLiteral("zh_CN")));
        QCOMPARE(Language::instance()->current(), QStringLiteral("zh_CN"));
        QCOMPARE(QCoreApplication::translate("traindeck::gui::MainWindow", "Monitor"), QStringLiteral("监控"));
        // Backend messages are translated too.
        QCOMPARE(QCoreApplication::translate("traindeck::cluster::HostfileModel", "Host"), QStringLiteral("主机"));
        // The diagnosis' findings, as the detectors look them up (their context once differed from the one
        // lupdate gave them, and every finding stayed English).
        QCOMPARE(analysis::detectors::tr("%1 of the last %2 steps slower, %3% confidence"),
                 QStringLiteral("最近 %2 步中有 %1 步较慢，置信度 %3%"));
        // Plural forms.
        QCOMPARE(QCoreApplication::translate("traindeck::gui::MonitorPage", "%n rank(s)", nullptr, 4),
                 QStringLiteral("4 个进程"));
        {
            RunSession session(std::make_shared<runs::Operations>());
            MainWindow window(&session);
            QCOMPARE(window.sidebar()->item(0)->text(), QStringLiteral("监控"));
            QCOMPARE(window.sidebar()->item(MainWindow::ClusterPageIndex)->text(), QStringLiteral("集群"));
        }
        // Back to English (the source language): only the plural forms are translated.
        QVERIFY(!Language::instance()->apply(QStringLiteral("en")));
        QCOMPARE(QCoreApplication::translate("traindeck::gui::MainWindow", "Monitor"), QStringLiteral("Monitor"));
        QVERIFY(!Language::available().contains(QStringLiteral("en")));
        RunSession session(std::make_shared<runs::Operations>());
        MainWindow window(&session);
        QCOMPARE(window.sidebar()->item(0)->text(), QStringLiteral("Monitor"));
    }

    void englishPluralForms()
    {
        Language::instance()->apply(QStringLiteral("en"));
        QCOMPARE(Language::instance()->current(), QStringLiteral("en"));
        QCOMPARE(QCoreApplication::translate("traindeck::gui::ClusterPage", "%n node(s)", nullptr, 1),
                 QStringLiteral("1 node"));
        QCOMPARE(QCoreApplication::translate("traindeck::gui::ClusterPage", "%n node(s)", nullptr, 2),
                 QStringLiteral("2 nodes"));
        const char* ctx = "traindeck::gui::ChecksPage";
        QCOMPARE(QCoreApplication::translate(ctx, "Checking %n node(s)…", nullptr, 1),
                 QStringLiteral("Checking 1 node…"));
        QCOMPARE(QCoreApplication::translate(ctx, "Checking %n node(s)…", nullptr, 3),
                 QStringLiteral("Checking 3 nodes…"));
        QCOMPARE(QCoreApplication::translate(ctx, "%n version(s) differ between nodes.", nullptr, 1),
                 QStringLiteral("1 version differs between nodes."));
        QCOMPARE(QCoreApplication::translate("traindeck::gui::MonitorPage", "%n rank(s)", nullptr, 1),
                 QStringLiteral("1 rank"));
        QCOMPARE(QCoreApplication::translate("traindeck::gui::MonitorPage", "%n rank(s)", nullptr, 8),
                 QStringLiteral("8 ranks"));
        // Non-plural texts stay the source texts.
        QCOMPARE(QCoreApplication::translate("traindeck::gui::MainWindow", "Monitor"), QStringLiteral("Monitor"));
    }

    void systemLocaleIsFollowed()
    {
        QLocale::setDefault(QLocale(QStringLiteral("zh_CN")));
        QCOMPARE(Language::resolve(QString()), QStringLiteral("zh_CN"));
        QLocale::setDefault(QLocale(QStringLiteral("de_DE")));
        QCOMPARE(Language::resolve(QString()), QStringLiteral("en"));
        QCOMPARE(Language::resolve(QStringLiteral("zh_CN")), QStringLiteral("zh_CN"));
    }
};

QTEST_MAIN(TestLanguage)
#include "tst_language.moc"
