// The traindeck-trainer executable end to end: info, self-check, bad input (exit code 2 with a message
// naming the file/flag), and a real short training run of the tiny preset with the Qwen tokenizer.
#include "testsupport.h"

#include <QTemporaryDir>
#include <QTest>
#include <nlohmann/json.hpp>

using testsupport::run;
using testsupport::trainerExe;

class TestTrainerCli : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void version();
    void infoPresets_data();
    void infoPresets();
    void infoModelDirectory();
    void infoModelFaults_data();
    void infoModelFaults();
    void selfCheck();
    void blasCoreTypeCorrection();
    void badTrainFlags_data();
    void badTrainFlags();
    void memoryPlan();
    void badPlanFlags_data();
    void badPlanFlags();
    void trainTinyPreset();
    void evalLogitsDevice();
};

void TestTrainerCli::version()
{
    auto r = run(trainerExe(), {"--version"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.startsWith("traindeck-trainer "));
    QCOMPARE(run(trainerExe(), {"no-such-command"}).exitCode, 2);
    QCOMPARE(run(trainerExe(), {}).exitCode, 2);
}

void TestTrainerCli::infoPresets_data()
{
    QTest::addColumn<QString>("preset");
    QTest::addColumn<qint64>("parameters");
    QTest::addRow("1.5B distill") << "deepseek-r1-distill-qwen-1.5b" << qint64(1777088000);
    QTest::addRow("tiny") << "qwen2-tiny" << qint64(-1);
    QTest::addRow("small") << "qwen2-small" << qint64(-1);
}

void TestTrainerCli::infoPresets()
{
    QFETCH(QString, preset);
    QFETCH(qint64, parameters);
    auto r = run(trainerExe(), {"info", "--preset", preset});
    QCOMPARE(r.exitCode, 0);
    auto j = nlohmann::json::parse(r.out.toStdString());
    if (parameters > 0)
        QCOMPARE(j["parameters"].get<qint64>(), parameters);
    QCOMPARE(j["config"]["vocab_size"].get<int>(), 151936); // every preset keeps Qwen's vocabulary
    QCOMPARE(QString::fromStdString(j["config"]["model_type"].get<std::string>()), QStringLiteral("qwen2"));
    auto bad = run(trainerExe(), {"info", "--preset", "qwen-9000"});
    QCOMPARE(bad.exitCode, 2);
    QVERIFY(bad.err.contains("unknown preset"));
}

void TestTrainerCli::infoModelDirectory()
{
    QTemporaryDir dir;
    auto r = run(trainerExe(), {"init", "--preset", "qwen2-tiny", "--seed", "3", "--out", dir.path() + "/m"});
    QCOMPARE(r.exitCode, 0);
    r = run(trainerExe(), {"info", "--model", dir.path() + "/m"});
    QCOMPARE(r.exitCode, 0);
    auto j = nlohmann::json::parse(r.out.toStdString());
    QCOMPARE(j["weights"]["parameters"].get<int64_t>(), j["parameters"].get<int64_t>());
}

void TestTrainerCli::infoModelFaults_data()
{
    QTest::addColumn<QString>("fault");
    QTest::addColumn<QString>("message");
    QTest::addRow("missing directory") << "nodir"
                                       << "does not exist";
    QTest::addRow("missing config") << "noconfig"
                                    << "config.json";
    QTest::addRow("corrupt safetensors") << "corrupt"
                                         << "model.safetensors";
    QTest::addRow("layer count mismatch") << "layers"
                                          << "is missing";
}

void TestTrainerCli::infoModelFaults()
{
    QFETCH(QString, fault);
    QFETCH(QString, message);
    QTemporaryDir dir;
    const QString m = dir.path() + "/m";
    QCOMPARE(run(trainerExe(), {"init", "--preset", "qwen2-tiny", "--out", m}).exitCode, 0);
    QString target = m;
    if (fault == "nodir")
        target = dir.path() + "/absent";
    else if (fault == "noconfig")
        QFile::remove(m + "/config.json");
    else if (fault == "corrupt") {
        QByteArray bytes = testsupport::readFile(m + "/model.safetensors");
        testsupport::writeFile(m + "/model.safetensors", bytes.left(bytes.size() / 2));
    } else if (fault == "layers") {
        auto cfg = nlohmann::json::parse(testsupport::readFile(m + "/config.json").toStdString());
        cfg["num_hidden_layers"] = 3;
        testsupport::writeFile(m + "/config.json", QByteArray::fromStdString(cfg.dump()));
    }
    auto r = run(trainerExe(), {"info", "--model", target});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(message.toUtf8()), r.err.constData());
    QCOMPARE(r.err.count('\n'), 1); // one clear message
}

void TestTrainerCli::selfCheck()
{
    auto r = run(trainerExe(), {"self-check"});
    QCOMPARE(r.exitCode, 0);
    auto j = nlohmann::json::parse(r.out.toStdString());
    QVERIFY(j.contains("trainer") && j.contains("libtorch") && j.contains("mpi") && j.contains("blas"));
    QVERIFY(QString::fromStdString(j["mpi"].get<std::string>()).contains("MPI"));
    // On some machines OpenBLAS misdetects an AVX-512 CPU as an older core; the trainer must have
    // corrected the core type to SKYLAKEX, or OpenBLAS found a newer AVX-512 core itself (Cooperlake).
    const auto blas = j["blas"];
    if (blas["library"] == "openblas" && blas["cpu_best_core"] == "SKYLAKEX" &&
        !qEnvironmentVariableIsSet("OPENBLAS_CORETYPE")) {
        const QString core = QString::fromStdString(blas["core"].get<std::string>()).toUpper();
        QVERIFY2(
            QStringList({QStringLiteral("SKYLAKEX"), QStringLiteral("COOPERLAKE"), QStringLiteral("SAPPHIRERAPIDS")})
                .contains(core),
            qPrintable(core));
    }
    // Where the build found jemalloc, the trainer runs on it with purging off (main.cpp's malloc_conf was
    // honoured): the allocator setting that removes the per-step page faults.
    if (TRAINDECK_TRAINER_USES_JEMALLOC) {
        QCOMPARE(QString::fromStdString(j["allocator"]["name"].get<std::string>()), QStringLiteral("jemalloc"));
        QCOMPARE(j["allocator"]["dirty_decay_ms"].get<int>(), -1);
    }
}

void TestTrainerCli::blasCoreTypeCorrection()
{
    auto env = QProcessEnvironment::systemEnvironment();
    env.remove("OPENBLAS_CORETYPE");
    auto probe = nlohmann::json::parse(run(trainerExe(), {"self-check"}, 60000, env).out.toStdString())["blas"];
    if (probe["library"] != "openblas" || probe["cpu_best_core"] != "SKYLAKEX")
        QSKIP("needs OpenBLAS on an AVX-512 CPU");
    // OpenBLAS "detects" an old core (simulated): the trainer has it choose again, in the same process.
    env.insert("TRAINDECK_TEST_BLAS_DETECTED", "Prescott");
    auto j = nlohmann::json::parse(run(trainerExe(), {"self-check"}, 60000, env).out.toStdString())["blas"];
    QCOMPARE(QString::fromStdString(j["coretype_env"].get<std::string>()), QStringLiteral("SKYLAKEX"));
    QCOMPARE(QString::fromStdString(j["core"].get<std::string>()).toUpper(), QStringLiteral("SKYLAKEX"));
    QCOMPARE(QString::fromStdString(j["corrected"].get<std::string>()), QStringLiteral("in_place"));
    QCOMPARE(QString::fromStdString(j["process_name"].get<std::string>()), QStringLiteral("traindeck-train"));
    // Where OpenBLAS cannot choose again (simulated), it re-executes itself with the CPU's best core,
    // under its own name ("exe" when it ran /proc/self/exe: ranks hid from ps and pkill).
    auto noSwitch = env;
    noSwitch.insert("TRAINDECK_TEST_BLAS_NO_SWITCH", "1");
    j = nlohmann::json::parse(run(trainerExe(), {"self-check"}, 60000, noSwitch).out.toStdString())["blas"];
    QCOMPARE(QString::fromStdString(j["coretype_env"].get<std::string>()), QStringLiteral("SKYLAKEX"));
    QCOMPARE(QString::fromStdString(j["core"].get<std::string>()).toUpper(), QStringLiteral("SKYLAKEX"));
    QCOMPARE(QString::fromStdString(j["corrected"].get<std::string>()), QStringLiteral("reexecuted"));
    QCOMPARE(QString::fromStdString(j["process_name"].get<std::string>()), QStringLiteral("traindeck-train"));
    // A value already set is never changed.
    env.insert("OPENBLAS_CORETYPE", "Haswell");
    j = nlohmann::json::parse(run(trainerExe(), {"self-check"}, 60000, env).out.toStdString())["blas"];
    QCOMPARE(QString::fromStdString(j["coretype_env"].get<std::string>()), QStringLiteral("Haswell"));
    QCOMPARE(QString::fromStdString(j["core"].get<std::string>()), QStringLiteral("Haswell"));
    QCOMPARE(QString::fromStdString(j["corrected"].get<std::string>()), QStringLiteral("no"));
}

void TestTrainerCli::badTrainFlags_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::addRow("no model") << QStringList{"--data", "x"} << "--model DIR or --preset NAME";
    QTest::addRow("both model and preset")
        << QStringList{"--model", "a", "--preset", "qwen2-tiny", "--data", "x", "--max-steps", "1"} << "exactly one";
    QTest::addRow("negative lr") << QStringList{"--preset",    "qwen2-tiny", "--data", "x",
                                                "--max-steps", "1",          "--lr",   "-1"}
                                 << "--lr";
    QTest::addRow("lr not a number") << QStringList{"--preset",    "qwen2-tiny", "--data", "x",
                                                    "--max-steps", "1",          "--lr",   "fast"}
                                     << "--lr: expected a number";
    QTest::addRow("unknown flag") << QStringList{"--preset", "qwen2-tiny", "--warp-speed", "9"}
                                  << "unknown flag --warp-speed";
    QTest::addRow("no steps") << QStringList{"--preset", "qwen2-tiny", "--data", "x"} << "--max-steps";
    QTest::addRow("bad precision") << QStringList{"--preset",    "qwen2-tiny", "--data",      "x",
                                                  "--max-steps", "1",          "--precision", "fp8"}
                                   << "--precision";
    QTest::addRow("bad fused loss") << QStringList{"--preset",    "qwen2-tiny", "--data",       "x",
                                                   "--max-steps", "1",          "--fused-loss", "yes"}
                                    << "--fused-loss must be on or off";
    QTest::addRow("bad inject") << QStringList{"--preset",    "qwen2-tiny", "--data",        "x",
                                               "--max-steps", "1",          "--inject-exit", "one"}
                                << "--inject-exit";
    QTest::addRow("missing data") << QStringList{"--preset",    "qwen2-tiny", "--data", "/nonexistent/corpus.jsonl",
                                                 "--max-steps", "1"}
                                  << "/nonexistent/corpus.jsonl";
    QTest::addRow("bad device") << QStringList{"--preset",    "qwen2-tiny", "--data",   "x",
                                               "--max-steps", "1",          "--device", "cuda:x"}
                                << "--device must be auto, cpu, cuda or cuda:N";
    // Where this LibTorch has no CUDA (CI), asking for it is bad input, named before any work.
    if (!testsupport::libtorchSeesCuda()) {
        QTest::addRow("cuda absent") << QStringList{"--preset",    "qwen2-tiny", "--data",   "x",
                                                    "--max-steps", "1",          "--device", "cuda"}
                                     << "sees no CUDA device";
        QTest::addRow("fp16 on the cpu") << QStringList{"--preset",    "qwen2-tiny", "--data",      "x",
                                                        "--max-steps", "1",          "--precision", "fp16"}
                                         << "--precision fp16 needs a CUDA device";
    }
    QTest::addRow("config file missing") << QStringList{"--config", "/nonexistent/train.json"}
                                         << "/nonexistent/train.json";
}

void TestTrainerCli::badTrainFlags()
{
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    QTemporaryDir dir;
    auto r = run(trainerExe(), QStringList{"train", "--out", dir.path() + "/out"} + args);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(message.toUtf8()), r.err.constData());
}

// `plan`: the train flags without --data and --max-steps; JSON with every part; a model directory's
// config; --available-mb says whether it fits and what would.
void TestTrainerCli::memoryPlan()
{
    auto r = run(trainerExe(), {"plan", "--preset", "qwen2-small", "--seq-len", "1024", "--device", "cpu", "--json"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    auto j = nlohmann::json::parse(r.out.toStdString());
    QCOMPARE(j["plan"]["bytes"]["parameters"].get<double>(), 4.0 * 41849088);
    for (const char* part : {"gradients", "optimizer", "activations", "logits", "workspace", "total"})
        QVERIFY2(j["plan"]["bytes"][part].get<double>() > 0, part);
    QCOMPARE(QString::fromStdString(j["recompute"].get<std::string>()), QStringLiteral("off"));
    r = run(trainerExe(), {"plan", "--preset", "qwen2-small", "--seq-len", "1024", "--device", "cpu", "--recompute",
                           "layers", "--json"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const auto recomputed = nlohmann::json::parse(r.out.toStdString());
    QVERIFY(recomputed["plan"]["bytes"]["activations"].get<double>() <
            0.5 * j["plan"]["bytes"]["activations"].get<double>());

    QTemporaryDir dir;
    r = run(trainerExe(), {"init", "--preset", "qwen2-tiny", "--seed", "3", "--out", dir.path() + "/m"});
    QCOMPARE(r.exitCode, 0);
    r = run(trainerExe(), {"plan", "--model", dir.path() + "/m", "--device", "cuda", "--precision", "bf16",
                           "--world-size", "2", "--zero", "1", "--available-mb", "100"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY2(r.out.contains("does NOT fit") && r.out.contains("cuda") && r.out.contains("never measured"),
             r.out.constData());
    r = run(trainerExe(), {"plan", "--preset", "deepseek-r1-distill-qwen-1.5b", "--device", "cuda", "--precision",
                           "bf16", "--seq-len", "2048", "--micro-batch", "4", "--fused-loss", "off", "--world-size",
                           "8", "--available-mb", "81920", "--json"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    j = nlohmann::json::parse(r.out.toStdString());
    QCOMPARE(j["fits"].get<bool>(), false);
    QVERIFY2(!j["suggestions"].empty(), r.out.constData());
}

void TestTrainerCli::badPlanFlags_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::addRow("no model") << QStringList{} << "--model DIR or --preset NAME";
    QTest::addRow("world size 0") << QStringList{"--preset", "qwen2-tiny", "--world-size", "0"} << "--world-size";
    QTest::addRow("world size 1.5") << QStringList{"--preset", "qwen2-tiny", "--world-size", "1.5"} << "--world-size";
    QTest::addRow("available not a number") << QStringList{"--preset", "qwen2-tiny", "--available-mb", "lots"}
                                            << "--available-mb must be a positive number";
    QTest::addRow("bad recompute") << QStringList{"--preset", "qwen2-tiny", "--recompute", "all"}
                                   << "--recompute must be off or layers";
    QTest::addRow("missing value") << QStringList{"--preset", "qwen2-tiny", "--world-size"} << "--world-size needs";
}

void TestTrainerCli::badPlanFlags()
{
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    auto r = run(trainerExe(), QStringList{"plan"} + args);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(message.toUtf8()), r.err.constData());
}

void TestTrainerCli::trainTinyPreset()
{
    const QString tok = testsupport::qwenTokenizerJson();
    if (!QFile::exists(tok))
        QFAIL("Qwen tokenizer.json missing: run scripts/setup-deps.sh");
    QTemporaryDir dir;
    QByteArray corpus;
    for (int i = 0; i < 200; ++i)
        corpus +=
            "{\"text\":\"The quick brown fox " + QByteArray::number(i) + " jumps over the lazy dog. 你好，世界！\"}\n";
    testsupport::writeFile(dir.path() + "/c.jsonl", corpus);
    // Flags from a config file, overridden on the command line.
    testsupport::writeFile(dir.path() + "/train.json",
                           R"({"preset":"qwen2-tiny","seq-len":32,"micro-batch":2,"max-steps":50,"lr":0.003})");
    auto env = QProcessEnvironment::systemEnvironment();
    env.insert("XDG_CACHE_HOME", dir.path() + "/xdg-cache");
    auto r = run(trainerExe(),
                 {"train", "--config", dir.path() + "/train.json", "--max-steps", "4", "--warmup", "1", "--data",
                  dir.path() + "/c.jsonl", "--tokenizer", tok, "--out", dir.path() + "/out", "--metrics-out",
                  dir.path() + "/metrics.jsonl", "--threads", "1"},
                 300000, env);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY(r.err.contains("step 4/4"));
    const auto lines = testsupport::readFile(dir.path() + "/metrics.jsonl").trimmed().split('\n');
    QStringList types;
    for (const auto& line : lines)
        types << QString::fromStdString(nlohmann::json::parse(line.toStdString())["type"].get<std::string>());
    QCOMPARE(types, (QStringList{"hello", "step", "step", "step", "step", "checkpoint", "done"}));
    auto hello = nlohmann::json::parse(lines[0].toStdString());
    QCOMPARE(hello["world_size"].get<int>(), 1);
    QVERIFY(hello["versions"].contains("blas_core"));
    auto step = nlohmann::json::parse(lines[4].toStdString());
    QCOMPARE(step["step"].get<int>(), 4);
    QCOMPARE(step["tokens"].get<int>(), 2 * 31);
    QCOMPARE(step["fwd_ms"].size(), size_t(1));
    QVERIFY(step["loss"].get<double>() > 0);
    // The checkpoint is a Hugging Face model directory the trainer can load again.
    const QString ckpt = dir.path() + "/out/checkpoints/step-00000004";
    QVERIFY(QFile::exists(ckpt + "/tokenizer.json"));
    QVERIFY(QFile::exists(ckpt + "/optimizer.safetensors"));
    QCOMPARE(testsupport::readFile(dir.path() + "/out/checkpoints/latest").trimmed(), QByteArray("step-00000004"));
    QCOMPARE(run(trainerExe(), {"info", "--model", ckpt}).exitCode, 0);
    auto state = nlohmann::json::parse(testsupport::readFile(ckpt + "/trainer_state.json").toStdString());
    QCOMPARE(state["step"].get<int>(), 4);
    QCOMPARE(state["world_size"].get<int>(), 1);
    QVERIFY(state["rng"]["torch_cpu"].get<std::string>().size() > 100);

    // bf16 autocast on the CPU trains too.
    r = run(trainerExe(),
            {"train", "--preset", "qwen2-tiny", "--precision", "bf16", "--max-steps", "2", "--seq-len", "16",
             "--micro-batch", "1", "--data", dir.path() + "/c.jsonl", "--tokenizer", tok, "--out", dir.path() + "/bf16",
             "--threads", "1"},
            300000, env);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY(r.err.contains("step 2/2"));
}

// eval-logits on an explicit device: the CPU gives the default's bytes; a malformed or absent device is
// bad input named before any work.
void TestTrainerCli::evalLogitsDevice()
{
    QTemporaryDir dir;
    const QString m = dir.path() + "/m";
    QCOMPARE(run(trainerExe(), {"init", "--preset", "qwen2-tiny", "--seed", "5", "--out", m}).exitCode, 0);
    const QStringList base{"eval-logits", "--model", m, "--ids", "1 2 3 4"};
    QCOMPARE(run(trainerExe(), base + QStringList{"--out", dir.path() + "/default.f32"}).exitCode, 0);
    QCOMPARE(run(trainerExe(), base + QStringList{"--out", dir.path() + "/cpu.f32", "--device", "cpu"}).exitCode, 0);
    const QByteArray a = testsupport::readFile(dir.path() + "/default.f32");
    QCOMPARE(a.size(), qsizetype(4 * 151936 * sizeof(float)));
    QCOMPARE(testsupport::readFile(dir.path() + "/cpu.f32"), a);

    auto r = run(trainerExe(), base + QStringList{"--out", dir.path() + "/x.f32", "--device", "gpu0"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("--device must be cpu, cuda or cuda:N"), r.err.constData());
    if (!testsupport::libtorchSeesCuda()) {
        r = run(trainerExe(), base + QStringList{"--out", dir.path() + "/x.f32", "--device", "cuda"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("sees no CUDA device"), r.err.constData());
    }
    QVERIFY(!QFile::exists(dir.path() + "/x.f32"));
}

QTEST_GUILESS_MAIN(TestTrainerCli)
#include "tst_trainer_cli.moc"
