#include "launchpage.h"
#include "runs/operations.h"
#include "settings.h"

#include "cluster/clusterprofile.h"
#include "launch/jobspec.h"
#include "test_home.h"

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>

using namespace traindeck;
using namespace traindeck::gui;

class TestLaunchPage : public QObject {
    Q_OBJECT

    QTemporaryDir m_home;
    QString m_corpus;

  private Q_SLOTS:
    void initTestCase()
    {
        guitest::useTemporaryHome(m_home);
        qputenv("TRAINDECK_CACHE", m_home.filePath(QStringLiteral("cache")).toUtf8());
        Settings::setRunsDirOverride(m_home.filePath(QStringLiteral("runs")));
        QDir().mkpath(m_home.filePath(QStringLiteral("cache/demo")));
        m_corpus = m_home.filePath(QStringLiteral("cache/demo/corpus.jsonl"));
        QFile f(m_corpus);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"text\":\"hello\"}\n");
    }

    void demoSpec()
    {
        LaunchPage page(std::make_shared<runs::Operations>());
        page.applyPreset(LaunchPage::Preset::TinyDemo);
        const launch::JobSpec spec = page.spec();
        QCOMPARE(spec.profile, QStringLiteral("local"));
        QCOMPARE(spec.ranks, 2);
        QCOMPARE(spec.name, QStringLiteral("demo"));
        QCOMPARE(spec.trainer.value(QStringLiteral("preset")).toString(), QStringLiteral("qwen2-tiny"));
        QCOMPARE(spec.trainer.value(QStringLiteral("data")).toString(), m_corpus);
        QCOMPARE(spec.trainer.value(QStringLiteral("max-steps")).toInt(), 200);
        QCOMPARE(spec.trainer.value(QStringLiteral("seq-len")).toInt(), 64);
        QCOMPARE(spec.trainer.value(QStringLiteral("lr")).toString(), QStringLiteral("0.002"));
        QCOMPARE(spec.env.value(QStringLiteral("OMP_NUM_THREADS")), QStringLiteral("1"));
        QVERIFY(spec.trainer.value(QStringLiteral("tokenizer"))
                    .toString()
                    .endsWith(QStringLiteral("models/tokenizer.json")));
        QVERIFY2(spec.validate().isEmpty(), qPrintable(traindeck::formatDiagnostics(spec.validate())));
        // The spec survives its JSON form.
        const auto back = launch::JobSpec::fromJson(spec.toJson(), QStringLiteral("spec.json"));
        QVERIFY2(back.ok(), qPrintable(back.errorString()));
        QCOMPARE(back->trainerArgs(), spec.trainerArgs());
    }

    void balanceOverlapAndStallOptionsRoundTrip()
    {
        LaunchPage page(std::make_shared<runs::Operations>());
        page.applyPreset(LaunchPage::Preset::TinyDemo);
        QVERIFY(!page.spec().trainer.contains(QStringLiteral("balance")));
        QVERIFY(!page.spec().trainer.contains(QStringLiteral("stall-warning")));
        QCheckBox *balance = nullptr, *overlap = nullptr, *zero = nullptr;
        for (QCheckBox* box : page.findChildren<QCheckBox*>()) {
            if (box->text().contains(QStringLiteral("faster ranks")))
                balance = box;
            if (box->text().contains(QStringLiteral("Overlap")))
                overlap = box;
            if (box->text().contains(QStringLiteral("optimizer state")))
                zero = box;
        }
        QVERIFY(balance && overlap && zero);
        QVERIFY(!zero->isChecked());
        QVERIFY(!page.spec().trainer.contains(QStringLiteral("zero")));
        QVERIFY(overlap->isChecked()); // --overlap on is the trainer's default: not written
        QVERIFY(!page.spec().trainer.contains(QStringLiteral("overlap")));
        balance->setChecked(true);
        overlap->setChecked(false);
        zero->setChecked(true);
        QList<QSpinBox*> spins = page.findChildren<QSpinBox*>();
        QSpinBox* abort = nullptr;
        for (QSpinBox* s : spins)
            if (s->specialValueText() == QStringLiteral("never"))
                abort = s;
        QVERIFY(abort);
        abort->setValue(300);
        const launch::JobSpec spec = page.spec();
        QCOMPARE(spec.trainer.value(QStringLiteral("balance")).toString(), QStringLiteral("auto"));
        QCOMPARE(spec.trainer.value(QStringLiteral("stall-abort")).toInt(), 300);
        QVERIFY2(spec.validate().isEmpty(), qPrintable(traindeck::formatDiagnostics(spec.validate())));
        QVERIFY2(spec.trainerArgs().contains(QStringLiteral("--balance=auto")),
                 qPrintable(spec.trainerArgs().join(u' ')));
        // Back into a fresh form through the spec's JSON.
        const auto back = launch::JobSpec::fromJson(spec.toJson(), QStringLiteral("spec.json"));
        QVERIFY2(back.ok(), qPrintable(back.errorString()));
        QCOMPARE(back->trainer.value(QStringLiteral("balance")).toString(), QStringLiteral("auto"));
        QCOMPARE(back->trainer.value(QStringLiteral("overlap")).toString(), QStringLiteral("off"));
        QVERIFY(spec.trainerArgs().contains(QStringLiteral("--overlap=off")));
        QVERIFY2(spec.trainerArgs().contains(QStringLiteral("--zero=1")), qPrintable(spec.trainerArgs().join(u' ')));
        QCOMPARE(back->trainer.value(QStringLiteral("zero")).toInt(), 1);
    }

    void collectivesLibraryRoundTrips()
    {
        LaunchPage page(std::make_shared<runs::Operations>());
        page.applyPreset(LaunchPage::Preset::TinyDemo);
        QComboBox* comm = nullptr;
        for (QComboBox* box : page.findChildren<QComboBox*>())
            if (box->findText(QStringLiteral("nccl")) >= 0)
                comm = box;
        QVERIFY(comm);
        QCOMPARE(comm->currentText(), QStringLiteral("auto")); // the trainer's default: not written
        QVERIFY(!page.spec().trainer.contains(QStringLiteral("comm")));
        comm->setCurrentText(QStringLiteral("nccl"));
        const launch::JobSpec spec = page.spec();
        QVERIFY2(spec.validate().isEmpty(), qPrintable(traindeck::formatDiagnostics(spec.validate())));
        QVERIFY2(spec.trainerArgs().contains(QStringLiteral("--comm=nccl")), qPrintable(spec.trainerArgs().join(u' ')));
        const auto back = launch::JobSpec::fromJson(spec.toJson(), QStringLiteral("spec.json"));
        QVERIFY2(back.ok(), qPrintable(back.errorString()));
        QCOMPARE(back->trainer.value(QStringLiteral("comm")).toString(), QStringLiteral("nccl"));
    }

    void commandPreview()
    {
        LaunchPage page(std::make_shared<runs::Operations>());
        page.applyPreset(LaunchPage::Preset::TinyDemo);
        page.setRanks(3);
        const QString cmd = page.commandPreview();
        QVERIFY2(cmd.contains(QStringLiteral("-np 3")), qPrintable(cmd));
        QVERIFY(cmd.contains(QStringLiteral("mpirun")));
        QVERIFY(cmd.contains(QStringLiteral(" train ")));
        QVERIFY(cmd.contains(QStringLiteral("--preset=qwen2-tiny")));
        QVERIFY(cmd.contains(QStringLiteral("--max-steps=200")));
        QVERIFY(cmd.contains(QStringLiteral("--data=") + m_corpus));
        QVERIFY(cmd.contains(QStringLiteral("--metrics-out=")));
        QVERIFY(cmd.contains(QStringLiteral("-x OMP_NUM_THREADS")));
        QVERIFY(page.layoutText().contains(QStringLiteral("3")));
        page.updatePreview();
        QVERIFY(page.previewWidget()->toPlainText().contains(QStringLiteral("-np 3")));
    }

    // A Slurm profile previews the batch script that launch would submit, not an mpirun line alone.
    void slurmProfilePreviewsBatchScript()
    {
        cluster::ClusterProfile p;
        p.name = QStringLiteral("hpc");
        p.workdir = QStringLiteral("~/td");
        cluster::ClusterNode login;
        login.name = login.host = QStringLiteral("login1");
        p.nodes = {login};
        cluster::SlurmSettings s;
        s.partition = QStringLiteral("gpu");
        s.nodes = 2;
        s.tasksPerNode = 4;
        s.gpusPerNode = 4;
        s.timeLimit = QStringLiteral("02:00:00");
        p.slurm = s;
        const Status saved = p.saveNamed();
        QVERIFY2(saved.ok(), qPrintable(saved.errorString()));

        LaunchPage page(std::make_shared<runs::Operations>());
        page.applyPreset(LaunchPage::Preset::TinyDemo);
        page.reloadProfiles();
        page.setProfileName(QStringLiteral("hpc"));
        QCOMPARE(page.profileName(), QStringLiteral("hpc"));
        const QString script = page.previewWidget()->toPlainText();
        for (const char* want :
             {"#!/bin/sh", "#SBATCH --partition=gpu", "#SBATCH --nodes=2", "#SBATCH --ntasks-per-node=4",
              "#SBATCH --gpus-per-node=4", "#SBATCH --time=02:00:00", "#SBATCH --signal=B:USR1@120", "ranks_via auto",
              "-np 8", "--preset=qwen2-tiny", "~/td/runs/demo-"})
            QVERIFY2(script.contains(QLatin1String(want)),
                     qPrintable(QStringLiteral("%1 missing in\n%2").arg(QLatin1String(want), script)));
        QVERIFY2(!script.contains(QStringLiteral("--hostfile")), qPrintable(script));
        QVERIFY2(!script.contains(QStringLiteral("traindeck-preview-run-dir")), qPrintable(script));
        QVERIFY(page.layoutText().contains(QStringLiteral("gpu")));
        bool labelled = false;
        for (QLabel* l : page.findChildren<QLabel*>())
            labelled = labelled || l->text().contains(QStringLiteral("job.sbatch"));
        QVERIFY(labelled);

        // ranks_via srun: the ranks start with srun inside the job, and the comment about auto goes.
        s.ranksVia = QStringLiteral("srun");
        p.slurm = s;
        QVERIFY(p.saveNamed().ok());
        page.reloadProfiles();
        page.setProfileName(QStringLiteral("hpc"));
        const QString srun = page.previewWidget()->toPlainText();
        QVERIFY2(srun.contains(QStringLiteral("srun --mpi=pmix")), qPrintable(srun));
        QVERIFY2(!srun.contains(QStringLiteral("ranks_via auto")), qPrintable(srun));

        // Back to the local profile: the mpirun line again.
        page.setProfileName(QStringLiteral("local"));
        QVERIFY(!page.previewWidget()->toPlainText().contains(QStringLiteral("#SBATCH")));
        QVERIFY(cluster::ClusterProfile::removeNamed(QStringLiteral("hpc")).ok());
    }

    void validationBlocksLaunch()
    {
        LaunchPage page(std::make_shared<runs::Operations>());
        page.applyPreset(LaunchPage::Preset::TinyDemo);
        page.setDataPath(m_home.filePath(QStringLiteral("missing.jsonl")));
        bool dataError = false;
        for (const auto& d : page.validate())
            dataError = dataError || (d.isError() && d.message.contains(QStringLiteral("missing.jsonl")));
        QVERIFY(dataError);
        page.updatePreview();
        QVERIFY(!page.launchButton()->isEnabled());
    }

    void distillPreset()
    {
        LaunchPage page(std::make_shared<runs::Operations>());
        page.applyPreset(LaunchPage::Preset::DeepSeekDistill1_5B);
        const QString model = m_home.filePath(QStringLiteral("distill"));
        page.setModelDir(model);
        launch::JobSpec spec = page.spec();
        QCOMPARE(spec.trainer.value(QStringLiteral("model")).toString(), model);
        QVERIFY(!spec.trainer.contains(QStringLiteral("preset")));
        QCOMPARE(spec.trainer.value(QStringLiteral("precision")).toString(), QStringLiteral("bf16"));
        QCOMPARE(spec.trainer.value(QStringLiteral("seq-len")).toInt(), 1024);
        // No config.json there yet: the form says so.
        bool modelError = false;
        for (const auto& d : page.validate())
            modelError = modelError || d.message.contains(QStringLiteral("config.json"));
        QVERIFY(modelError);
    }
};

QTEST_MAIN(TestLaunchPage)
#include "tst_launchpage.moc"
