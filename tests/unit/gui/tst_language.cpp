#include "language.h"
#include "mainwindow.h"
#include "runsession.h"

#include <QListWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace traindeck::gui;

class TestLanguage : public QObject
{
    Q_OBJECT

    QTemporaryDir m_home;

private Q_SLOTS:
    void initTestCase()
    {
        qputenv("XDG_CONFIG_HOME", m_home.filePath(QStringLiteral("config")).toUtf8());
        qputenv("XDG_DATA_HOME", m_home.filePath(QStringLiteral("data")).toUtf8());
    }

    void chineseIsEmbedded() { QVERIFY(Language::available().contains(QStringLiteral("zh_CN"))); }

    void switchLoadsChinese()
    {
        QVERIFY(Language::instance()->apply(QStringLiteral("zh_CN")));
        QCOMPARE(Language::instance()->current(), QStringLiteral("zh_CN"));
        QCOMPARE(QCoreApplication::translate("traindeck::gui::MainWindow", "Monitor"), QStringLiteral("监控"));
        // Backend messages are translated too.
        QCOMPARE(QCoreApplication::translate("traindeck::cluster::HostfileModel", "Host"), QStringLiteral("主机"));
        // Plural forms.
        QCOMPARE(QCoreApplication::translate("traindeck::gui::MonitorPage", "%n rank(s)", nullptr, 4), QStringLiteral("4 个进程"));
        {
            RunSession session;
            MainWindow window(&session);
            QCOMPARE(window.sidebar()->item(0)->text(), QStringLiteral("监控"));
            QCOMPARE(window.sidebar()->item(MainWindow::ClusterPageIndex)->text(), QStringLiteral("集群"));
        }
        // Back to English (the source language): no translator.
        QVERIFY(!Language::instance()->apply(QStringLiteral("en")));
        QCOMPARE(QCoreApplication::translate("traindeck::gui::MainWindow", "Monitor"), QStringLiteral("Monitor"));
        RunSession session;
        MainWindow window(&session);
        QCOMPARE(window.sidebar()->item(0)->text(), QStringLiteral("Monitor"));
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
