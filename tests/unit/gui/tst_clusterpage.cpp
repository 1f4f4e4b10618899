// The Cluster page edits a profile's launcher: mpirun over SSH or Slurm with its partition and job
// defaults, judged by ClusterProfile::validate() as the user types, saved and loaded back.
#include "clusterpage.h"
#include "hostfileeditor.h"
#include "slurmeditor.h"

#include "cluster/clusterprofile.h"
#include "test_home.h"

#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>

using namespace traindeck;
using namespace traindeck::gui;

namespace {
template <typename W> W* labelled(QWidget* root, const QString& label)
{
    // The form's fields are found by their label's buddy, as a keyboard user reaches them.
    for (QLabel* l : root->findChildren<QLabel*>()) {
        if (l->text().remove(QLatin1Char('&')) == label)
            return qobject_cast<W*>(l->buddy());
    }
    return nullptr;
}

QPushButton* button(QWidget* root, const QString& text)
{
    for (QPushButton* b : root->findChildren<QPushButton*>()) {
        if (b->text() == text)
            return b;
    }
    return nullptr;
}
} // namespace

class TestClusterPage : public QObject {
    Q_OBJECT

    QTemporaryDir m_home;

  private Q_SLOTS:
    void initTestCase()
    {
        guitest::useTemporaryHome(m_home);
        cluster::ClusterProfile p;
        p.name = QStringLiteral("lab");
        cluster::ClusterNode a, b;
        a.name = a.host = QStringLiteral("login1");
        a.role = cluster::NodeRole::Head;
        b.name = b.host = QStringLiteral("worker1");
        b.slots = 4;
        p.nodes = {a, b};
        const Status saved = p.saveNamed();
        QVERIFY2(saved.ok(), qPrintable(saved.errorString()));
    }

    void slurmSettingsAreEditedValidatedSavedAndLoaded()
    {
        ClusterPage page;
        page.selectProfile(QStringLiteral("lab"));
        QCOMPARE(page.profileName(), QStringLiteral("lab"));
        SlurmSettingsEditor* editor = page.launcherEditor();
        QComboBox* launcher = editor->launcherBox();
        QCOMPARE(launcher->currentIndex(), 0);
        QVERIFY(!page.profile().slurm);
        QVERIFY(launcher->isEnabled());
        QCOMPARE(page.profile().totalSlots(), 5);

        launcher->setCurrentIndex(1);
        QVERIFY(page.profile().slurm.has_value());
        // No partition yet: the page says so, from the profile's own rules.
        QVERIFY2(page.problemsLabel()->text().contains(QStringLiteral("slurm.partition")),
                 qPrintable(page.problemsLabel()->text()));
        QVERIFY(!page.hostfileEditor()->isEnabled()); // Slurm places the ranks: no hostfile

        auto* partition = labelled<QLineEdit>(editor, QStringLiteral("Partition:"));
        auto* account = labelled<QLineEdit>(editor, QStringLiteral("Account:"));
        auto* time = labelled<QLineEdit>(editor, QStringLiteral("Time limit:"));
        auto* nodes = labelled<QSpinBox>(editor, QStringLiteral("Nodes:"));
        auto* tasks = labelled<QSpinBox>(editor, QStringLiteral("Ranks per node:"));
        auto* gpus = labelled<QSpinBox>(editor, QStringLiteral("GPUs per node:"));
        auto* via = labelled<QComboBox>(editor, QStringLiteral("Ranks start via:"));
        QVERIFY(partition && account && time && nodes && tasks && gpus && via);

        QTest::keyClicks(partition, QStringLiteral("debug"));
        time->clear();
        QTest::keyClicks(time, QStringLiteral("ninety"));
        QVERIFY2(page.problemsLabel()->text().contains(QStringLiteral("slurm.time")),
                 qPrintable(page.problemsLabel()->text()));
        QVERIFY(!page.problemsLabel()->text().contains(QStringLiteral("slurm.partition")));
        time->setText(QStringLiteral("1-00:30:00"));
        QVERIFY2(page.problemsLabel()->text().isEmpty(), qPrintable(page.problemsLabel()->text()));
        nodes->setValue(2);
        tasks->setValue(4);
        gpus->setValue(4);
        via->setCurrentIndex(via->findData(QStringLiteral("srun")));
        QCOMPARE(page.profile().totalSlots(), 8);

        QPushButton* save = button(&page, QStringLiteral("&Save"));
        QVERIFY(save);
        save->click();
        const auto loaded = cluster::ClusterProfile::loadNamed(QStringLiteral("lab"));
        QVERIFY2(loaded.ok(), qPrintable(loaded.errorString()));
        QVERIFY(loaded->slurm.has_value());
        cluster::SlurmSettings want;
        want.partition = QStringLiteral("debug");
        want.timeLimit = QStringLiteral("1-00:30:00");
        want.nodes = 2;
        want.tasksPerNode = 4;
        want.gpusPerNode = 4;
        want.ranksVia = QStringLiteral("srun");
        QVERIFY(*loaded->slurm == want);
        QCOMPARE(loaded->nodes.size(), 2); // the login node and the rest are kept

        // A new page shows what was saved; switching back to mpirun drops the section on save.
        ClusterPage again;
        again.selectProfile(QStringLiteral("lab"));
        QCOMPARE(again.launcherEditor()->launcherBox()->currentIndex(), 1);
        QCOMPARE(labelled<QLineEdit>(again.launcherEditor(), QStringLiteral("Partition:"))->text(),
                 QStringLiteral("debug"));
        QVERIFY(*again.profile().slurm == want);
        again.launcherEditor()->launcherBox()->setCurrentIndex(0);
        button(&again, QStringLiteral("&Save"))->click();
        QVERIFY(!cluster::ClusterProfile::loadNamed(QStringLiteral("lab"))->slurm.has_value());
    }

    void localProfileCannotUseSlurm()
    {
        ClusterPage page;
        page.selectProfile(QStringLiteral("local"));
        QVERIFY(!page.launcherEditor()->launcherBox()->isEnabled());
        QCOMPARE(page.launcherEditor()->launcherBox()->currentIndex(), 0);
        QVERIFY(!page.profile().slurm);
    }
};

QTEST_MAIN(TestClusterPage)
#include "tst_clusterpage.moc"
