#include "launchpage.h"

#include "backgroundwork.h"
#include "launch/launchplan.h"
#include "launch/transport.h"
#include "plotstyle.h"
#include "runs/memoryfit.h"
#include "runs/operations.h"
#include "settings.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QDoubleValidator>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPointer>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>

#include <cmath>

namespace traindeck::gui {

using cluster::ClusterProfile;

static QWidget* pathField(QLineEdit* edit, QWidget* parent, bool directory, bool fileToo = false)
{
    auto* w = new QWidget(parent);
    auto* l = new QHBoxLayout(w);
    l->setContentsMargins(0, 0, 0, 0);
    l->addWidget(edit, 1);
    auto* b = new QPushButton(LaunchPage::tr("Browse…"), w);
    l->addWidget(b);
    QObject::connect(b, &QPushButton::clicked, w, [edit, w, directory, fileToo] {
        QString path;
        if (directory && !fileToo)
            path = QFileDialog::getExistingDirectory(w, LaunchPage::tr("Choose a directory"), edit->text());
        else
            path = QFileDialog::getOpenFileName(
                w, LaunchPage::tr("Choose a file"), edit->text(),
                LaunchPage::tr("Text or JSON Lines (*.jsonl *.json *.txt);;All files (*)"));
        if (!path.isEmpty())
            edit->setText(path);
    });
    return w;
}

LaunchPage::LaunchPage(std::shared_ptr<const runs::Operations> operations, QWidget* parent)
    : QWidget(parent), m_operations(std::move(operations))
{
    auto* outer = new QHBoxLayout(this);
    auto* formHost = new QWidget;
    auto* left = new QVBoxLayout(formHost);
    left->setContentsMargins(0, 0, 0, 0);
    left->addWidget(buildModelBox(formHost));
    left->addWidget(buildWorldBox(formHost));
    left->addWidget(buildHyperparameterBox(formHost));
    left->addStretch(1);

    auto* scroll = new QScrollArea(this);
    scroll->setWidget(formHost);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setMinimumWidth(420);
    outer->addWidget(scroll, 1);
    outer->addLayout(buildSidePanel(), 1);
    connectPreview();

    const auto trainer = runs::Operations::localTrainer();
    m_trainerPath = trainer.ok() ? trainer.value() : QString();

    reloadProfiles();
    applyPreset(Preset::TinyDemo);
}

// Model and data: the preset, the run's name, the model directory, the dataset and the tokenizer.
QGroupBox* LaunchPage::buildModelBox(QWidget* parent)
{
    auto* whatBox = new QGroupBox(tr("Model and data"), parent);
    auto* what = new QFormLayout(whatBox);
    m_preset = new QComboBox(whatBox);
    m_preset->addItem(tr("Tiny demo (qwen2-tiny, random init, CPU)"), int(Preset::TinyDemo));
    m_preset->addItem(tr("DeepSeek-R1-Distill-Qwen-1.5B (from a model directory)"), int(Preset::DeepSeekDistill1_5B));
    what->addRow(tr("&Preset:"), m_preset);
    m_name = new QLineEdit(QStringLiteral("demo"), whatBox);
    m_name->setToolTip(tr("Run name; the run id adds the date and time"));
    what->addRow(tr("Run &name:"), m_name);
    m_modelDir = new QLineEdit(Settings::modelDir(), whatBox);
    m_modelDir->setPlaceholderText(tr("directory with config.json, *.safetensors, tokenizer.json"));
    what->addRow(tr("&Model directory:"), pathField(m_modelDir, whatBox, true));
    m_data = new QLineEdit(whatBox);
    m_data->setPlaceholderText(tr("JSONL file, text file or a directory of them"));
    what->addRow(tr("&Dataset:"), pathField(m_data, whatBox, true, true));
    m_tokenizer = new QLineEdit(whatBox);
    m_tokenizer->setPlaceholderText(tr("tokenizer.json (empty: the model directory's)"));
    what->addRow(tr("&Tokenizer:"), pathField(m_tokenizer, whatBox, false, true));
    return whatBox;
}

// World layout: the cluster profile, the number of ranks and where they go.
QGroupBox* LaunchPage::buildWorldBox(QWidget* parent)
{
    auto* whereBox = new QGroupBox(tr("World layout"), parent);
    auto* where = new QFormLayout(whereBox);
    m_profile = new QComboBox(whereBox);
    where->addRow(tr("Cluster p&rofile:"), m_profile);
    m_ranks = new QSpinBox(whereBox);
    m_ranks->setRange(1, 1024);
    m_ranks->setValue(2);
    m_ranks->setToolTip(
        tr("Ranks on this machine (local profile only; a cluster profile's hostfile gives the layout)"));
    where->addRow(tr("Ran&ks (local):"), m_ranks);
    m_layout = new QLabel(whereBox);
    where->addRow(tr("Layout:"), m_layout);
    return whereBox;
}

// Hyper-parameters and the trainer's options (precision, balance, overlap, ZeRO, the communicator).
QGroupBox* LaunchPage::buildHyperparameterBox(QWidget* parent)
{
    auto* hpBox = new QGroupBox(tr("Hyper-parameters"), parent);
    auto* hp = new QFormLayout(hpBox);
    auto spin = [hpBox](int lo, int hi, int v, const QString& tip) {
        auto* s = new QSpinBox(hpBox);
        s->setRange(lo, hi);
        s->setValue(v);
        s->setToolTip(tip);
        s->setAccelerated(true);
        return s;
    };
    m_maxSteps = spin(1, 100000000, 200, tr("Optimizer steps to run"));
    m_seqLen = spin(2, 1 << 20, 64, tr("Tokens per sequence"));
    m_microBatch = spin(1, 4096, 4, tr("Sequences per rank per micro-step"));
    m_gradAccum = spin(1, 4096, 1, tr("Micro-steps per optimizer step"));
    m_warmup = spin(0, 1000000, 10, tr("Linear warmup steps of the cosine schedule"));
    m_checkpointEvery = spin(0, 100000000, 50, tr("Steps between checkpoints (0: only at the end); needed to resume"));
    m_seed = spin(0, 2147483647, 1234, tr("Seed for initialisation and shuffling"));
    m_threads = spin(0, 1024, 1, tr("Intra-op threads per rank (0: LibTorch's default)"));
    m_lr = new QLineEdit(QStringLiteral("0.002"), hpBox);
    auto* lrValidator = new QDoubleValidator(1e-9, 9.99, 9, m_lr);
    lrValidator->setNotation(QDoubleValidator::ScientificNotation);
    lrValidator->setLocale(QLocale::c());
    m_lr->setValidator(lrValidator);
    m_lr->setToolTip(tr("Peak learning rate, e.g. 3e-4"));
    m_weightDecay = new QDoubleSpinBox(hpBox);
    m_weightDecay->setRange(0, 10);
    m_weightDecay->setDecimals(3);
    m_weightDecay->setSingleStep(0.01);
    m_weightDecay->setValue(0.1);
    m_clip = new QDoubleSpinBox(hpBox);
    m_clip->setRange(0, 1000);
    m_clip->setDecimals(2);
    m_clip->setValue(1.0);
    m_clip->setToolTip(tr("Global gradient-norm clip; 0 disables clipping"));
    m_precision = new QComboBox(hpBox);
    m_precision->addItem(QStringLiteral("fp32"));
    m_precision->addItem(QStringLiteral("bf16"));
    m_precision->addItem(QStringLiteral("fp16"));
    hp->addRow(tr("Max &steps:"), m_maxSteps);
    hp->addRow(tr("Se&quence length:"), m_seqLen);
    hp->addRow(tr("Micro-&batch:"), m_microBatch);
    hp->addRow(tr("Gradient &accumulation:"), m_gradAccum);
    hp->addRow(tr("&Learning rate:"), m_lr);
    hp->addRow(tr("&Warmup steps:"), m_warmup);
    hp->addRow(tr("Weight d&ecay:"), m_weightDecay);
    hp->addRow(tr("Gradient c&lip:"), m_clip);
    hp->addRow(tr("Pre&cision:"), m_precision);
    hp->addRow(tr("Checkpoint e&very:"), m_checkpointEvery);
    hp->addRow(tr("S&eed:"), m_seed);
    hp->addRow(tr("T&hreads per rank:"), m_threads);
    m_balance = new QCheckBox(tr("Give faster ranks more of each batch"), hpBox);
    m_balance->setToolTip(tr("--balance auto: every 10 steps the trainer moves samples from slower to faster ranks; "
                             "the update stays the same"));
    hp->addRow(tr("Load &balance:"), m_balance);
    m_overlap = new QCheckBox(tr("Overlap the gradient allreduce with backward"), hpBox);
    m_overlap->setChecked(true);
    m_overlap->setToolTip(tr("--overlap on: each gradient bucket is sent as soon as backward has produced it; the "
                             "results are the same bit for bit"));
    hp->addRow(tr("&Overlap:"), m_overlap);
    m_zero = new QCheckBox(tr("Shard the optimizer state over the ranks"), hpBox);
    m_zero->setToolTip(tr("--zero 1 (ZeRO stage 1): each rank keeps AdamW's state for its share of the parameters "
                          "only; the update stays the same"));
    hp->addRow(tr("&ZeRO-1:"), m_zero);
    m_recompute = new QCheckBox(tr("Recompute each layer's activations in backward"), hpBox);
    m_recompute->setToolTip(tr("--recompute layers: each decoder layer keeps only its input for backward and runs "
                               "its forward again there; much less memory, one more forward pass, the same results"));
    hp->addRow(tr("&Recompute:"), m_recompute);
    m_comm = new QComboBox(hpBox);
    m_comm->addItem(QStringLiteral("auto"));
    m_comm->addItem(QStringLiteral("mpi"));
    m_comm->addItem(QStringLiteral("nccl"));
    m_comm->setToolTip(tr("--comm: the library of the gradient collectives. auto takes NCCL when every rank trains on "
                          "a GPU and the trainer was built with NCCL, MPI otherwise"));
    hp->addRow(tr("Co&llectives:"), m_comm);
    m_stallWarning = spin(0, 86400, 60,
                          tr("Seconds ranks may stand still before the trainer names the ranks the job "
                             "waits for (0: off)"));
    m_stallWarning->setSuffix(tr(" s"));
    hp->addRow(tr("Stall &warning after:"), m_stallWarning);
    m_stallAbort = spin(0, 604800, 0, tr("Seconds of stall after which the job is aborted (0: never)"));
    m_stallAbort->setSuffix(tr(" s"));
    m_stallAbort->setSpecialValueText(tr("never"));
    hp->addRow(tr("Abort a stall a&fter:"), m_stallAbort);
    return hpBox;
}

// The right side: environment variables, problems, the mpirun preview and the Launch button.
QVBoxLayout* LaunchPage::buildSidePanel()
{
    auto* right = new QVBoxLayout;
    auto* envBox = new QGroupBox(tr("Environment variables (exported to every rank)"), this);
    auto* el = new QVBoxLayout(envBox);
    m_env = new QTableWidget(0, 2, envBox);
    m_env->setHorizontalHeaderLabels({tr("Name"), tr("Value")});
    m_env->horizontalHeader()->setStretchLastSection(true);
    m_env->setColumnWidth(0, 200);
    m_env->verticalHeader()->setVisible(false);
    m_env->setAccessibleName(tr("Environment variables"));
    el->addWidget(m_env);
    auto* envButtons = new QHBoxLayout;
    auto* addEnv = new QPushButton(tr("Add &variable"), envBox);
    auto* removeEnv = new QPushButton(tr("Remo&ve variable"), envBox);
    envButtons->addWidget(addEnv);
    envButtons->addWidget(removeEnv);
    envButtons->addStretch(1);
    el->addLayout(envButtons);
    right->addWidget(envBox, 2);

    m_problems = new QListWidget(this);
    m_problems->setAccessibleName(tr("Problems"));
    m_problems->setMaximumHeight(110);
    right->addWidget(new QLabel(tr("Problems:"), this));
    right->addWidget(m_problems, 1);
    m_memory = new QLabel(this);
    m_memory->setWordWrap(true);
    m_memory->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    m_memory->setAccessibleName(tr("Memory plan"));
    right->addWidget(m_memory);

    auto* previewLabel = m_previewLabel = new QLabel(tr("mpirun command (preview):"), this);
    m_preview = new QPlainTextEdit(this);
    m_preview->setReadOnly(true);
    m_preview->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_preview->setAccessibleName(tr("mpirun command preview"));
    previewLabel->setBuddy(m_preview);
    right->addWidget(previewLabel);
    right->addWidget(m_preview, 3);
    m_launch = new QPushButton(tr("&Launch"), this);
    m_launch->setDefault(true);
    QFont lf = m_launch->font();
    lf.setBold(true);
    m_launch->setFont(lf);
    auto* lb = new QHBoxLayout;
    lb->addStretch(1);
    lb->addWidget(m_launch);
    right->addLayout(lb);

    connect(addEnv, &QPushButton::clicked, this, [this] {
        m_env->insertRow(m_env->rowCount());
        m_env->setCurrentCell(m_env->rowCount() - 1, 0);
        m_env->editItem(m_env->item(m_env->rowCount() - 1, 0));
    });
    connect(removeEnv, &QPushButton::clicked, this, [this] {
        if (m_env->currentRow() >= 0)
            m_env->removeRow(m_env->currentRow());
        schedulePreview();
    });
    return right;
}

// Every field updates the preview (coalesced by m_previewTimer); Launch launches.
void LaunchPage::connectPreview()
{
    m_previewTimer = new QTimer(this);
    m_previewTimer->setSingleShot(true);
    m_previewTimer->setInterval(150);
    connect(m_previewTimer, &QTimer::timeout, this, &LaunchPage::updatePreview);
    m_memoryTimer = new QTimer(this);
    m_memoryTimer->setSingleShot(true);
    m_memoryTimer->setInterval(600);
    connect(m_memoryTimer, &QTimer::timeout, this, &LaunchPage::updateMemoryPlan);
    connect(m_preset, &QComboBox::activated, this, [this] { applyPreset(preset()); });
    for (QLineEdit* e : {m_name, m_modelDir, m_data, m_tokenizer, m_lr})
        connect(e, &QLineEdit::textChanged, this, &LaunchPage::schedulePreview);
    for (QSpinBox* s :
         {m_ranks, m_maxSteps, m_seqLen, m_microBatch, m_gradAccum, m_warmup, m_checkpointEvery, m_seed, m_threads})
        connect(s, &QSpinBox::valueChanged, this, &LaunchPage::schedulePreview);
    for (QDoubleSpinBox* s : {m_weightDecay, m_clip})
        connect(s, &QDoubleSpinBox::valueChanged, this, &LaunchPage::schedulePreview);
    connect(m_precision, &QComboBox::currentIndexChanged, this, &LaunchPage::schedulePreview);
    connect(m_balance, &QCheckBox::toggled, this, &LaunchPage::schedulePreview);
    connect(m_overlap, &QCheckBox::toggled, this, &LaunchPage::schedulePreview);
    connect(m_zero, &QCheckBox::toggled, this, &LaunchPage::schedulePreview);
    connect(m_recompute, &QCheckBox::toggled, this, &LaunchPage::schedulePreview);
    connect(m_comm, &QComboBox::currentTextChanged, this, &LaunchPage::schedulePreview);
    connect(m_profile, &QComboBox::currentIndexChanged, this, &LaunchPage::schedulePreview);
    connect(m_env, &QTableWidget::itemChanged, this, &LaunchPage::schedulePreview);
    connect(m_launch, &QPushButton::clicked, this, &LaunchPage::launchNow);
}

void LaunchPage::schedulePreview()
{
    m_previewTimer->start();
}

void LaunchPage::reloadProfiles()
{
    const QString current = m_profile->currentText();
    const QSignalBlocker b(m_profile);
    m_profile->clear();
    m_profile->addItems(ClusterProfile::availableNames());
    const int i = m_profile->findText(current);
    m_profile->setCurrentIndex(i >= 0 ? i : 0);
    schedulePreview();
}

LaunchPage::Preset LaunchPage::preset() const
{
    return Preset(m_preset->currentData().toInt());
}

void LaunchPage::applyPreset(Preset preset)
{
    m_preset->setCurrentIndex(m_preset->findData(int(preset)));
    const bool tiny = preset == Preset::TinyDemo;
    m_modelDir->setEnabled(!tiny);
    const auto spec =
        launch::JobSpec::builtin(tiny ? QStringLiteral("demo") : QStringLiteral("deepseek-r1-distill-qwen-1.5b"));
    if (spec.ok())
        applySpec(spec.value());
    if (!tiny && m_modelDir->text().isEmpty())
        m_modelDir->setText(Settings::modelDir());
    updatePreview();
}

// The form's fields from a spec; a field the spec leaves out gets the trainer's default, except the
// dataset and model directory, which stay as the user chose them.
void LaunchPage::applySpec(const launch::JobSpec& s)
{
    const QJsonObject& t = s.trainer;
    auto number = [&t](const char* key, double fallback) { return t.value(QLatin1String(key)).toDouble(fallback); };
    auto text = [&t](const char* key, QLineEdit* edit) {
        if (t.contains(QLatin1String(key)))
            edit->setText(t.value(QLatin1String(key)).toString());
    };
    m_name->setText(s.name);
    text("data", m_data);
    text("model", m_modelDir);
    m_tokenizer->setText(t.value(QStringLiteral("tokenizer")).toString());
    m_maxSteps->setValue(int(number("max-steps", 200)));
    m_seqLen->setValue(int(number("seq-len", 64)));
    m_microBatch->setValue(int(number("micro-batch", 4)));
    m_gradAccum->setValue(int(number("grad-accum", 1)));
    m_lr->setText(QLocale::c().toString(number("lr", 3e-4), 'g', 6));
    m_warmup->setValue(int(number("warmup", 0)));
    m_weightDecay->setValue(number("weight-decay", 0.1));
    m_clip->setValue(number("clip", 1.0));
    m_precision->setCurrentText(t.value(QStringLiteral("precision")).toString(QStringLiteral("fp32")));
    m_checkpointEvery->setValue(int(number("checkpoint-every", 0)));
    m_seed->setValue(int(number("seed", 1234)));
    m_threads->setValue(int(number("threads", 0)));
    m_balance->setChecked(t.value(QStringLiteral("balance")).toString() == QLatin1String("auto"));
    m_overlap->setChecked(t.value(QStringLiteral("overlap")).toString() != QLatin1String("off"));
    m_zero->setChecked(t.value(QStringLiteral("zero")).toInt() == 1);
    m_recompute->setChecked(t.value(QStringLiteral("recompute")).toString() == QLatin1String("layers"));
    m_comm->setCurrentText(t.value(QStringLiteral("comm")).toString(QStringLiteral("auto")));
    m_stallWarning->setValue(int(number("stall-warning", 60)));
    m_stallAbort->setValue(int(number("stall-abort", 0)));
    if (s.ranks > 0)
        m_ranks->setValue(s.ranks);
    if (!s.profile.isEmpty())
        m_profile->setCurrentIndex(std::max(0, m_profile->findText(s.profile)));
    m_env->setRowCount(0);
    for (auto it = s.env.cbegin(); it != s.env.cend(); ++it)
        setEnv(it.key(), it.value());
}

void LaunchPage::setProfileName(const QString& name)
{
    const int i = m_profile->findText(name);
    if (i >= 0)
        m_profile->setCurrentIndex(i);
    updatePreview();
}

QString LaunchPage::profileName() const
{
    return m_profile->currentText();
}
void LaunchPage::setRanks(int ranks)
{
    m_ranks->setValue(ranks);
    updatePreview();
}
void LaunchPage::setDataPath(const QString& path)
{
    m_data->setText(path);
    updatePreview();
}
void LaunchPage::setModelDir(const QString& dir)
{
    m_modelDir->setText(dir);
    updatePreview();
}

void LaunchPage::setEnv(const QString& name, const QString& value)
{
    for (int r = 0; r < m_env->rowCount(); ++r) {
        if (m_env->item(r, 0) && m_env->item(r, 0)->text() == name) {
            m_env->setItem(r, 1, new QTableWidgetItem(value));
            return;
        }
    }
    const int r = m_env->rowCount();
    m_env->insertRow(r);
    m_env->setItem(r, 0, new QTableWidgetItem(name));
    m_env->setItem(r, 1, new QTableWidgetItem(value));
}

launch::JobSpec LaunchPage::spec() const
{
    launch::JobSpec s;
    s.name = m_name->text().trimmed();
    s.profile = m_profile->currentText();
    const bool local = s.profile == QLatin1String("local");
    s.ranks = local ? m_ranks->value() : 0;
    for (int r = 0; r < m_env->rowCount(); ++r) {
        const auto* k = m_env->item(r, 0);
        const auto* v = m_env->item(r, 1);
        if (k && !k->text().trimmed().isEmpty())
            s.env.insert(k->text().trimmed(), v ? v->text() : QString());
    }
    QJsonObject t;
    if (preset() == Preset::TinyDemo)
        t.insert(QStringLiteral("preset"), QStringLiteral("qwen2-tiny"));
    else
        t.insert(QStringLiteral("model"), m_modelDir->text().trimmed());
    t.insert(QStringLiteral("data"), m_data->text().trimmed());
    if (!m_tokenizer->text().trimmed().isEmpty())
        t.insert(QStringLiteral("tokenizer"), m_tokenizer->text().trimmed());
    t.insert(QStringLiteral("max-steps"), m_maxSteps->value());
    t.insert(QStringLiteral("seq-len"), m_seqLen->value());
    t.insert(QStringLiteral("micro-batch"), m_microBatch->value());
    if (m_gradAccum->value() != 1)
        t.insert(QStringLiteral("grad-accum"), m_gradAccum->value());
    bool ok = false;
    const double lr = QLocale::c().toDouble(m_lr->text().trimmed(), &ok);
    t.insert(QStringLiteral("lr"), ok ? QLocale::c().toString(lr, 'g', 6) : m_lr->text().trimmed());
    t.insert(QStringLiteral("warmup"), m_warmup->value());
    // Decimal values as the user sees them ("0.1", not 0.10000000000000001).
    t.insert(QStringLiteral("weight-decay"), QLocale::c().toString(m_weightDecay->value(), 'g', 6));
    t.insert(QStringLiteral("clip"), QLocale::c().toString(m_clip->value(), 'g', 6));
    if (m_precision->currentText() != QLatin1String("fp32"))
        t.insert(QStringLiteral("precision"), m_precision->currentText());
    t.insert(QStringLiteral("checkpoint-every"), m_checkpointEvery->value());
    t.insert(QStringLiteral("seed"), m_seed->value());
    if (m_threads->value() > 0)
        t.insert(QStringLiteral("threads"), m_threads->value());
    if (m_balance->isChecked())
        t.insert(QStringLiteral("balance"), QStringLiteral("auto"));
    if (!m_overlap->isChecked())
        t.insert(QStringLiteral("overlap"), QStringLiteral("off"));
    if (m_zero->isChecked())
        t.insert(QStringLiteral("zero"), 1);
    if (m_recompute->isChecked())
        t.insert(QStringLiteral("recompute"), QStringLiteral("layers"));
    if (m_comm->currentText() != QLatin1String("auto"))
        t.insert(QStringLiteral("comm"), m_comm->currentText());
    if (m_stallWarning->value() != 60)
        t.insert(QStringLiteral("stall-warning"), m_stallWarning->value());
    if (m_stallAbort->value() > 0)
        t.insert(QStringLiteral("stall-abort"), m_stallAbort->value());
    s.trainer = t;
    return s;
}

Result<ClusterProfile> LaunchPage::profile() const
{
    return ClusterProfile::loadNamed(m_profile->currentText(), m_ranks->value());
}

Diagnostics LaunchPage::validate() const
{
    const auto prof = profile();
    if (!prof.ok())
        return prof.diagnostics();
    return runs::Operations::validate(spec(), prof.value(), tr("form"));
}

QString LaunchPage::layoutText() const
{
    const auto prof = profile();
    if (!prof.ok())
        return QString();
    const ClusterProfile& p = prof.value();
    if (p.slurm)
        return tr("Slurm: %n node(s)", nullptr, p.slurm->nodes) + QStringLiteral(" × ") +
               tr("%n task(s)", nullptr, p.slurm->tasksPerNode) + QStringLiteral(" = ") +
               tr("%n rank(s)", nullptr, p.totalSlots()) + QStringLiteral(", ") +
               tr("partition %1").arg(p.slurm->partition);
    const int nodes = int(p.nodes.size());
    bool uniform = nodes > 0;
    for (const auto& n : p.nodes)
        uniform = uniform && n.slots == p.nodes.first().slots;
    if (uniform)
        return tr("%n node(s)", nullptr, nodes) + QStringLiteral(" × ") +
               tr("%n slot(s)", nullptr, p.nodes.first().slots) + QStringLiteral(" = ") +
               tr("%n rank(s)", nullptr, p.totalSlots());
    return tr("%n node(s)", nullptr, nodes) + QStringLiteral(", ") + tr("%n rank(s) in all", nullptr, p.totalSlots());
}

QString LaunchPage::commandPreview() const
{
    const auto prof = profile();
    if (!prof.ok())
        return QString();
    launch::LaunchInputs in;
    in.spec = spec();
    in.profile = prof.value();
    in.runId = launch::makeRunId(in.spec.name, QDateTime::currentDateTime(), [](const QString&) { return false; });
    const bool local = launch::isLocalProfile(in.profile);
    // A remote run directory is only known on the head: the preview names it after the profile's workdir.
    if (local)
        in.runDir = QDir(Settings::runsDir()).filePath(in.runId);
    in.trainerPath = m_trainerPath.isEmpty() ? QStringLiteral("traindeck-trainer") : m_trainerPath;
    in.asRoot = local && launch::LocalTransport().runsAsRoot();
    const auto text = launch::previewLaunch(in);
    return text.ok() ? text.value() : QString();
}

void LaunchPage::updatePreview()
{
    m_previewTimer->stop();
    const bool local = m_profile->currentText() == QLatin1String("local");
    m_ranks->setEnabled(local);
    m_layout->setText(layoutText());
    const Diagnostics d = validate();
    m_problems->clear();
    for (const Diagnostic& x : d) {
        auto* item = new QListWidgetItem((x.key.isEmpty() ? QString() : x.key + QStringLiteral(": ")) + x.message);
        item->setForeground(x.isError() ? failColor() : warnColor().darker(130));
        m_problems->addItem(item);
    }
    if (d.isEmpty())
        m_problems->addItem(tr("None: ready to launch."));
    const auto prof = profile();
    const bool slurm = prof.ok() && prof->slurm.has_value();
    m_previewLabel->setText(slurm ? tr("Batch script job.sbatch (preview):") : tr("mpirun command (preview):"));
    m_preview->setAccessibleName(slurm ? tr("Batch script preview") : tr("mpirun command preview"));
    const QString cmd = commandPreview();
    m_preview->setPlainText(cmd.isEmpty() ? tr("(fix the problems above to see the command)") : cmd);
    m_launch->setEnabled(!hasErrors(d) && !m_launching);
    if (hasErrors(d)) {
        ++m_memoryRequest; // an answer for the fields as they were is no longer wanted
        m_memory->clear();
        m_memoryTimer->stop();
    } else {
        m_memoryTimer->start();
    }
}

// The memory one rank needs against what the profile's nodes had at their last checks, on a worker
// thread (it runs the local trainer's `plan`); the verdict's colour says whether it fits.
void LaunchPage::updateMemoryPlan()
{
    const auto prof = profile();
    if (!prof.ok())
        return;
    if (m_trainerPath.isEmpty()) {
        m_memory->setText(tr("Memory plan: no traindeck-trainer on this machine to plan with."));
        return;
    }
    const int request = ++m_memoryRequest;
    m_memory->setText(tr("Memory plan: computing…"));
    background::run(
        this,
        [spec = spec(), profile = prof.value(), trainer = m_trainerPath] {
            return runs::planMemoryFit(spec, profile, trainer);
        },
        [this, request](Result<runs::MemoryFit> fit) {
            if (request != m_memoryRequest)
                return;
            QPalette palette = m_memory->palette();
            if (!fit.ok()) {
                m_memory->setText(fit.errorString());
                m_memory->setToolTip(QString());
                palette.setColor(QPalette::WindowText, warnColor().darker(130));
            } else {
                m_memory->setText(fit->verdict());
                m_memory->setToolTip(fit->planText);
                palette.setColor(QPalette::WindowText,
                                 fit->fits ? QGuiApplication::palette().color(QPalette::WindowText) : failColor());
            }
            m_memory->setPalette(palette);
        },
        QStringLiteral("memory-plan"));
}

void LaunchPage::launchNow()
{
    updatePreview();
    const Diagnostics d = validate();
    if (hasErrors(d) || m_launching) {
        Q_EMIT launchFailed(formatDiagnostics(d));
        return;
    }
    const auto prof = profile();
    const launch::JobSpec s = spec();
    const QString runsDir = Settings::runsDir();
    m_launching = true;
    m_launch->setEnabled(false);
    m_launch->setText(tr("Launching…"));
    QPointer<LaunchPage> self(this);
    // SSH connect and launch on a registered worker thread (backgroundwork.h); the outcome is dropped
    // when the page is gone or the application is quitting.
    background::start(
        [self, operations = m_operations,
         request = runs::LaunchRequest{s, prof.value(), QString(), runsDir, tr("form")}] {
            const Result<runs::StartedRun> r = operations->launch(request);
            background::post([self, r] {
                if (!self)
                    return;
                self->m_launching = false;
                self->m_launch->setText(tr("&Launch"));
                self->updatePreview();
                if (!r.ok())
                    Q_EMIT self->launchFailed(r.errorString());
                else if (r->localDir.isEmpty()) // started on the head, but without a record it cannot be followed here
                    Q_EMIT self->launchFailed(formatDiagnostics(r.warnings()));
                else
                    Q_EMIT self->launched(r->localDir);
            });
        },
        QStringLiteral("Launch"));
}

} // namespace traindeck::gui
