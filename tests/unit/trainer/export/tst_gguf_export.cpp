// `traindeck-trainer export-gguf` end to end, with llama.cpp (node-llama-cpp, the version setup-deps.sh
// pins) as the reference:
//   - next-token probabilities over the whole vocabulary at every position agree with our model's
//     (`eval-logits`) within 1e-4 in f32, for random models (several seeds, a large init std so the
//     distributions are peaked), an untied model, the small preset and a model after training steps,
//     on text, random ids with special tokens, and sequences past 64 tokens (RoPE); f16 and bf16 within
//     the tolerances below;
//   - llama.cpp's tokenisation with the exported vocabulary equals `traindeck-trainer tokenize` on a mixed
//     corpus;
//   - llama.cpp loads every exported file without a warning;
//   - the file's metadata, tensor names, shapes, types and alignment;
//   - bad input (truncated weights, a config that does not match the weights, a tokenizer that does not
//     match the vocabulary, ...) is refused with exit code 2 before anything is written.
// All llama.cpp work runs in one node process (llama_reference.mjs) to pay its start-up once.
#include "export/gguf_writer.h"
#include "model/hf_checkpoint.h"
#include "model/qwen2.h"
#include "model/safetensors.h"
#include "test_corpus.h"
#include "test_paths.h"
#include "testsupport.h"
#include "tokenizer/tokenizer.h"

#include <QDir>
#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTest>
#include <nlohmann/json.hpp>
#include <utf8proc.h>

#include <filesystem>
#include <random>

using json = nlohmann::json;
using testsupport::run;
using testsupport::trainerExe;
namespace fs = std::filesystem;

namespace {

// Tolerances on |p_llama - p_ours| per token and position. f32 is the bound. f16 and bf16 round
// every weight matrix (and llama.cpp then also rounds the activations going into f16/bf16 matrix products),
// so they are compared with bounds sized from measurements on these models (see docs/users/gguf-export.md).
constexpr double kTolF32 = 1e-4;
constexpr double kTolF16 = 3e-2;
constexpr double kTolBF16 = 1.5e-1;

QString nodeModules()
{
    return QStringLiteral(TRAINDECK_CACHE_DIR "/npm/node_modules");
}

std::string nfc(const std::string& s)
{
    utf8proc_uint8_t* out = utf8proc_NFC(reinterpret_cast<const utf8proc_uint8_t*>(s.c_str()));
    if (!out)
        return s;
    std::string r(reinterpret_cast<char*>(out));
    std::free(out);
    return r;
}

std::vector<int> parseIds(const QByteArray& text)
{
    std::vector<int> ids;
    for (const auto& w : text.simplified().split(' '))
        if (!w.isEmpty())
            ids.push_back(w.toInt());
    return ids;
}

QString idsText(const std::vector<int>& ids)
{
    QStringList parts;
    for (int id : ids)
        parts << QString::number(id);
    return parts.join(' ');
}

} // namespace

class TestGgufExport : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void initTestCase();
    void probabilities_data();
    void probabilities();
    void tokenizer_data();
    void tokenizer();
    void loadsWithoutWarnings();
    void fileLayout();
    void shardedInput();
    void refusesBadInput_data();
    void refusesBadInput();
    void cleanupTestCase();

  private:
    QString path(const QString& name) const { return tmp_.filePath(name); }
    void mustRun(const QStringList& args, int timeoutMs = 120000);
    void exportModel(const QString& dir, const QString& gguf, const QString& dtype);
    struct Model {
        QString id, dir, gguf, dtype;
        std::vector<std::vector<int>> sequences;
    };
    QTemporaryDir tmp_;
    QString tok_;
    std::vector<Model> models_;
    std::vector<std::string> texts_;
    std::vector<std::vector<int>> ourTokens_;
    json result_;
    QElapsedTimer timer_;
};

void TestGgufExport::mustRun(const QStringList& args, int timeoutMs)
{
    auto env = QProcessEnvironment::systemEnvironment();
    env.insert("XDG_CACHE_HOME", path("xdg-cache"));
    const auto r = run(trainerExe(), args, timeoutMs, env);
    QVERIFY2(r.finished && r.exitCode == 0, qPrintable("traindeck-trainer " + args.join(' ') + " failed (" +
                                                       QString::number(r.exitCode) + "): " + QString::fromUtf8(r.err)));
}

void TestGgufExport::exportModel(const QString& dir, const QString& gguf, const QString& dtype)
{
    mustRun({"export-gguf", "--model", dir, "--out", gguf, "--dtype", dtype});
}

void TestGgufExport::initTestCase()
{
    timer_.start();
    QVERIFY(tmp_.isValid());
    tok_ = testsupport::qwenTokenizerJson();
    const QString llamaEntry = nodeModules() + "/node-llama-cpp/dist/index.js";
    if (!QFile::exists(tok_) || !QFile::exists(llamaEntry))
        QFAIL(qPrintable("node-llama-cpp or Qwen's tokenizer.json is missing under " + nodeModules() +
                         "; run scripts/setup-deps.sh"));
    if (run("node", {"--version"}).exitCode != 0)
        QFAIL("node is not on PATH; run scripts/setup-deps.sh");

    // ---- models ----
    const auto tokenizer = traindeck::tok::Tokenizer::fromFile(tok_.toStdString());
    auto encode = [&](const std::string& s) {
        auto v = tokenizer->encode(s);
        return std::vector<int>(v.begin(), v.end());
    };
    std::mt19937 rng(1234);
    auto randomIds = [&](int n) {
        std::uniform_int_distribution<int> any(0, 151668);
        std::vector<int> ids;
        for (int i = 0; i < n; ++i)
            ids.push_back(i % 17 == 5 ? 151644 + i % 3 : any(rng)); // some special tokens among them
        return ids;
    };
    // Sequences: every position of each is compared (llama.cpp's full-vocabulary probabilities cost ~0.1 s a
    // position through node, so the set is chosen to cover what matters: text, random ids with special
    // tokens, and sequences past 64 tokens for RoPE).
    const auto text = encode("Hello world! 你好，世界。 def f(x):\n    return x ** 2  # 42\n");
    const auto randomSeq = randomIds(40);
    const auto longText = encode(
        "TrainDeck is a desktop manager for data-parallel LLM training on a small GPU cluster. A person points and "
        "clicks through SSH keys, node checks, the launch of the Qwen2 trainer, live loss curves and a diagnosis of "
        "stragglers. 训练在集群上进行，每个进程都持有完整的模型。");
    QVERIFY(longText.size() > 64);
    using Seqs = std::vector<std::vector<int>>;

    // Random models: a large init std makes the next-token distributions peaked, not uniform.
    for (int seed : {1, 2}) {
        const QString dir = path(QString("tiny-s%1").arg(seed));
        mustRun({"init", "--preset", "qwen2-tiny", "--seed", QString::number(seed), "--init-std", "0.5", "--tokenizer",
                 tok_, "--out", dir});
        models_.push_back({QString("tiny-seed%1-f32").arg(seed), dir, dir + ".f32.gguf", "f32",
                           seed == 1 ? Seqs{text, longText} : Seqs{randomSeq}});
    }
    // The same model exported to f16 and bf16, compared with the f32 model.
    models_.push_back({"tiny-seed1-f16", path("tiny-s1"), path("tiny-s1.f16.gguf"), "f16", Seqs{longText}});
    models_.push_back({"tiny-seed1-bf16", path("tiny-s1"), path("tiny-s1.bf16.gguf"), "bf16", Seqs{text}});

    // Untied embeddings (the presets are tied): exercises output.weight.
    {
        auto config = traindeck::model::Qwen2Config::preset("qwen2-tiny");
        config.tie_word_embeddings = false;
        config.raw["tie_word_embeddings"] = false;
        torch::manual_seed(3);
        traindeck::model::Qwen2ForCausalLM net(config);
        net->initWeights(0.5);
        const fs::path t = tok_.toStdString();
        traindeck::model::savePretrained(net, path("untied").toStdString(), torch::kFloat32,
                                         {t.string(), (t.parent_path() / "tokenizer_config.json").string()});
        models_.push_back({"tiny-untied-seed3-f32", path("untied"), path("untied.f32.gguf"), "f32", Seqs{text}});
    }
    // The small preset (hidden 256, 4 layers).
    mustRun({"init", "--preset", "qwen2-small", "--seed", "4", "--init-std", "0.2", "--tokenizer", tok_, "--out",
             path("small")});
    models_.push_back({"small-seed4-f32", path("small"), path("small.f32.gguf"), "f32", Seqs{text}});

    // A model after training steps: its checkpoint directory exports directly.
    {
        QByteArray corpus;
        for (int i = 0; i < 64; ++i)
            corpus += "The quick brown fox " + QByteArray::number(i) + " jumps over the lazy dog. 你好，世界！\n";
        testsupport::writeFile(path("train.txt"), corpus);
        // From a peaked random start (init std 0.5), 8 steps take the loss from ~20 to ~15: the weights moved
        // well away from the initialisation and the distributions stay peaked.
        mustRun({"train",
                 "--preset",
                 "qwen2-tiny",
                 "--init-std",
                 "0.5",
                 "--data",
                 path("train.txt"),
                 "--max-steps",
                 "8",
                 "--warmup",
                 "1",
                 "--lr",
                 "0.005",
                 "--out",
                 path("run"),
                 "--tokenizer",
                 tok_,
                 "--seq-len",
                 "32",
                 "--micro-batch",
                 "2",
                 "--threads",
                 "1"},
                300000);
        const QString ckpt = path("run/checkpoints/step-00000008");
        QVERIFY2(QFile::exists(ckpt + "/model.safetensors"), qPrintable(ckpt));
        const auto inDomain = encode(corpus.left(400).toStdString());
        QVERIFY(inDomain.size() >= 72);
        models_.push_back({"tiny-trained-8steps-f32", ckpt, path("trained.f32.gguf"), "f32",
                           Seqs{std::vector<int>(inDomain.begin(), inDomain.begin() + 72)}});
    }
    qInfo("models ready after %.1f s", timer_.elapsed() / 1000.0);

    // ---- exports and our log-probabilities ----
    json job;
    job["nodeModules"] = nodeModules().toStdString();
    // One llama.cpp thread: on this shared 2-core machine a second thread spin-waits at ggml's barriers while
    // other processes hold the cores, which makes every decode many times slower (see docs/users/gguf-export.md).
    job["threads"] = 1;
    job["models"] = json::array();
    std::map<std::pair<QString, size_t>, QString> ours; // (model dir, sequence) -> log-probs file
    for (const auto& m : models_) {
        exportModel(m.dir, m.gguf, m.dtype);
        json jm{{"id", m.id.toStdString()},
                {"gguf", m.gguf.toStdString()},
                {"contextSize", 128},
                {"sequences", json::array()}};
        for (size_t s = 0; s < m.sequences.size(); ++s) {
            const auto key = std::make_pair(m.dir, std::hash<std::string>{}(idsText(m.sequences[s]).toStdString()));
            if (!ours.count(key)) {
                const QString file = path(QString("ours-%1.bin").arg(ours.size()));
                mustRun({"eval-logits", "--model", m.dir, "--ids", idsText(m.sequences[s]), "--out", file});
                ours[key] = file;
            }
            jm["sequences"].push_back({{"ids", m.sequences[s]}, {"ours", ours[key].toStdString()}, {"vocab", 151936}});
        }
        job["models"].push_back(jm);
    }
    qInfo("exports and eval-logits done after %.1f s", timer_.elapsed() / 1000.0);

    // ---- tokenizer corpus: ours now, llama.cpp's in the same node run ----
    texts_ = {
        "I'm sure we'll see they've DON'T it's; the CAN'T won't -- she'd've",
        "深度学习模型的训练需要大量的数据和计算资源。我们在集群上使用数据并行，每个进程持有完整的模型。",
        "#include <vector>\nint main(int argc, char** argv) {\n\tfor (int i = 0; i < argc; "
        "++i)\n\t\tstd::puts(argv[i]);"
        "\n    return 0; // done\n}\n",
        "a  b   c\t\t d \n\n\n  e   \r\n  f      \n \n\t \u3000x  \n",
        "1234567890 3.14159 2024-02-29 0x1F 1,000,000 ١٢٣ ½ ² 10%",
        "emoji 😀 👍🏽 👨‍👩‍👧‍👦 🇨🇳 ❤️ 🤖! 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 ",
        "<|im_start|>user\nhi there<|im_end|>\n<|im_start|>assistant\n<think>ok</think>\n<tool_call>{}</tool_call>",
        "Ünïcödé ÀÉÎÕÜ ñ ß ﬁ Ωmega кириллица ελληνικά עברית العربية हिन्दी 日本語のテキスト 한국어",
    };
    std::string mixed;
    for (const auto& doc : traindeck::tok::testing::makeCorpus(48 * 1024, 77))
        mixed += nfc(doc) + "\n"; // llama.cpp does not NFC-normalise; our tokenizer does (see the docs)
    texts_.push_back(mixed);
    for (size_t i = 0; i < texts_.size(); ++i) {
        const QString file = path(QString("text-%1.txt").arg(i));
        testsupport::writeFile(file, QByteArray::fromStdString(texts_[i]));
        auto env = QProcessEnvironment::systemEnvironment();
        const auto r = run(trainerExe(), {"tokenize", "--tokenizer", tok_, "--input", file}, 60000, env);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        ourTokens_.push_back(parseIds(r.out));
    }
    job["models"][0]["tokenize"] = texts_;

    // ---- the one node run ----
    testsupport::writeFile(path("job.json"), QByteArray::fromStdString(job.dump()));
    const QString script =
        QString::fromUtf8(TRAINDECK_SOURCE_DIR) + QStringLiteral("/tests/unit/trainer/export/llama_reference.mjs");
    const auto r = run("node", {script, path("job.json"), path("result.json")}, 600000);
    QVERIFY2(r.finished && r.exitCode == 0,
             qPrintable("llama_reference.mjs failed (" + QString::number(r.exitCode) +
                        "): " + QString::fromUtf8(r.err) + (r.exitCode == 3 ? " -- run scripts/setup-deps.sh" : "")));
    result_ = json::parse(testsupport::readFile(path("result.json")).toStdString());
    qInfo("llama.cpp reference done after %.1f s", timer_.elapsed() / 1000.0);
}

void TestGgufExport::probabilities_data()
{
    QTest::addColumn<int>("model");
    QTest::addColumn<double>("tolerance");
    for (size_t i = 0; i < models_.size(); ++i) {
        const auto& m = models_[i];
        const double tol = m.dtype == "f32" ? kTolF32 : m.dtype == "f16" ? kTolF16 : kTolBF16;
        QTest::addRow("%s", qPrintable(m.id)) << int(i) << tol;
    }
}

void TestGgufExport::probabilities()
{
    QFETCH(int, model);
    QFETCH(double, tolerance);
    const json& m = result_["models"][size_t(model)];
    QCOMPARE(QString::fromStdString(m["id"].get<std::string>()), models_[size_t(model)].id);
    QCOMPARE(m["sequences"].size(), models_[size_t(model)].sequences.size());
    for (const json& s : m["sequences"]) {
        const double diff = s["maxAbsDiff"].get<double>();
        qInfo("%s: %d tokens, max |p_llama - p_ours| = %.3g (raw %.3g), mean top-1 probability %.3f, argmax agrees "
              "at %d, llama.cpp listed %d tokens; load %.0f ms, evaluation %.0f ms",
              qPrintable(models_[size_t(model)].id), s["length"].get<int>(), diff, s["maxAbsDiffRaw"].get<double>(),
              s["meanPeak"].get<double>(), s["argmaxAgree"].get<int>(), s["minMapSize"].get<int>(),
              m["loadMs"].get<double>(), s["evalMs"].get<double>());
        QCOMPARE(s["minMapSize"].get<int>(), 151936); // the full vocabulary at every position
        QVERIFY2(s["sumError"].get<double>() < 1e-3, "llama.cpp's probabilities do not sum to 1");
        QVERIFY2(diff <= tolerance, qPrintable(QString("max difference %1 > %2 at %3")
                                                   .arg(diff)
                                                   .arg(tolerance)
                                                   .arg(QString::fromStdString(s["worst"].dump()))));
        if (models_[size_t(model)].dtype == "f32")
            QCOMPARE(s["argmaxAgree"].get<int>(), s["length"].get<int>());
    }
    // Peaked, not uniform: otherwise a 1e-4 bound would prove little.
    QVERIFY2(m["sequences"][0]["meanPeak"].get<double>() > 0.05, "the distributions are too flat for this test");
}

void TestGgufExport::tokenizer_data()
{
    QTest::addColumn<int>("text");
    const char* names[] = {"english contractions", "chinese",       "code",
                           "whitespace runs",      "digits",        "emoji",
                           "added tokens",         "other scripts", "mixed 48 KiB corpus"};
    for (size_t i = 0; i < texts_.size(); ++i)
        QTest::addRow("%s", i < std::size(names) ? names[i] : "text") << int(i);
}

void TestGgufExport::tokenizer()
{
    QFETCH(int, text);
    const auto llama = result_["models"][0]["tokenize"][size_t(text)].get<std::vector<int>>();
    const auto& ours = ourTokens_[size_t(text)];
    QVERIFY(!ours.empty());
    if (llama != ours) {
        size_t i = 0;
        while (i < llama.size() && i < ours.size() && llama[i] == ours[i])
            ++i;
        QFAIL(qPrintable(QString("tokenisations differ at token %1 of %2/%3: llama.cpp %4, ours %5")
                             .arg(i)
                             .arg(llama.size())
                             .arg(ours.size())
                             .arg(i < llama.size() ? llama[i] : -1)
                             .arg(i < ours.size() ? ours[i] : -1)));
    }
}

void TestGgufExport::loadsWithoutWarnings()
{
    QStringList problems;
    for (const json& l : result_["logs"]) {
        const QString phase = QString::fromStdString(l["phase"].get<std::string>());
        const QString line = phase + " [" + QString::fromStdString(l["level"].get<std::string>()) + "] " +
                             QString::fromStdString(l["message"].get<std::string>());
        qInfo("llama.cpp: %s", qPrintable(line));
        if (phase.startsWith("load ") || phase.startsWith("tokenize "))
            problems << line;
    }
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join('\n')));
}

void TestGgufExport::fileLayout()
{
    using traindeck::exporter::GgufInfo;
    const auto tied = GgufInfo::read(path("tiny-s1.f32.gguf").toStdString());
    auto u = [&](const GgufInfo& g, const std::string& key) { return std::get<uint64_t>(g.metadata.at(key)); };
    auto f = [&](const GgufInfo& g, const std::string& key) { return std::get<double>(g.metadata.at(key)); };
    auto s = [&](const GgufInfo& g, const std::string& key) { return std::get<std::string>(g.metadata.at(key)); };
    QCOMPARE(tied.version, 3u);
    QCOMPARE(s(tied, "general.architecture"), std::string("qwen2"));
    QCOMPARE(u(tied, "qwen2.block_count"), uint64_t(2));
    QCOMPARE(u(tied, "qwen2.context_length"), uint64_t(4096));
    QCOMPARE(u(tied, "qwen2.embedding_length"), uint64_t(64));
    QCOMPARE(u(tied, "qwen2.feed_forward_length"), uint64_t(176));
    QCOMPARE(u(tied, "qwen2.attention.head_count"), uint64_t(4));
    QCOMPARE(u(tied, "qwen2.attention.head_count_kv"), uint64_t(2));
    QCOMPARE(f(tied, "qwen2.rope.freq_base"), 10000.0);
    QCOMPARE(f(tied, "qwen2.attention.layer_norm_rms_epsilon"), double(1e-6f));
    QCOMPARE(u(tied, "general.file_type"), uint64_t(0));
    QCOMPARE(s(tied, "tokenizer.ggml.model"), std::string("gpt2"));
    QCOMPARE(s(tied, "tokenizer.ggml.pre"), std::string("qwen2"));
    QCOMPARE(std::get<std::vector<std::string>>(tied.metadata.at("tokenizer.ggml.tokens")).size(), size_t(151936));
    QCOMPARE(std::get<std::vector<int64_t>>(tied.metadata.at("tokenizer.ggml.token_type")).size(), size_t(151936));
    QCOMPARE(std::get<std::vector<std::string>>(tied.metadata.at("tokenizer.ggml.merges")).size(), size_t(151387));
    QCOMPARE(u(tied, "tokenizer.ggml.eos_token_id"), uint64_t(151645));
    QCOMPARE(u(tied, "tokenizer.ggml.padding_token_id"), uint64_t(151643));
    QCOMPARE(std::get<bool>(tied.metadata.at("tokenizer.ggml.add_bos_token")), false);
    // 1 + 12 per layer + output_norm; tied: no output.weight (llama.cpp falls back to token_embd).
    QCOMPARE(tied.tensors.size(), size_t(1 + 12 * 2 + 1));
    std::map<std::string, GgufInfo::TensorInfo> byName;
    for (const auto& t : tied.tensors) {
        byName[t.name] = t;
        QCOMPARE(t.offset % tied.alignment, uint64_t(0));
    }
    QCOMPARE(tied.dataOffset % tied.alignment, uint64_t(0));
    QVERIFY(!byName.count("output.weight"));
    QCOMPARE(byName.at("token_embd.weight").ne, (std::vector<uint64_t>{64, 151936}));
    QCOMPARE(byName.at("blk.1.attn_q.weight").ne, (std::vector<uint64_t>{64, 64}));
    QCOMPARE(byName.at("blk.1.attn_k.weight").ne, (std::vector<uint64_t>{64, 32}));
    QCOMPARE(byName.at("blk.1.attn_k.bias").ne, (std::vector<uint64_t>{32}));
    QCOMPARE(byName.at("blk.0.ffn_gate.weight").ne, (std::vector<uint64_t>{64, 176}));
    QCOMPARE(byName.at("blk.0.ffn_down.weight").ne, (std::vector<uint64_t>{176, 64}));
    QCOMPARE(byName.at("output_norm.weight").ne, (std::vector<uint64_t>{64}));

    const auto half = GgufInfo::read(path("tiny-s1.f16.gguf").toStdString());
    QCOMPARE(u(half, "general.file_type"), uint64_t(1));
    for (const auto& t : half.tensors)
        QCOMPARE(t.type, t.ne.size() == 1 ? 0u : 1u); // norms and biases stay f32
    const auto brain = GgufInfo::read(path("tiny-s1.bf16.gguf").toStdString());
    QCOMPARE(u(brain, "general.file_type"), uint64_t(32));

    const auto untied = GgufInfo::read(path("untied.f32.gguf").toStdString());
    QCOMPARE(untied.tensors.size(), size_t(1 + 12 * 2 + 2));
    QCOMPARE(untied.tensors.back().name, std::string("output.weight"));
    QCOMPARE(untied.tensors.back().ne, (std::vector<uint64_t>{64, 151936}));

    const auto trained = GgufInfo::read(path("trained.f32.gguf").toStdString());
    QCOMPARE(s(trained, "general.name"), std::string("run step-00000008"));
}

void TestGgufExport::shardedInput()
{
    // The same weights split over two shards with model.safetensors.index.json export to the same tensors.
    const fs::path src = path("tiny-s1").toStdString(), dst = path("sharded").toStdString();
    fs::create_directories(dst);
    for (const char* f : {"config.json", "tokenizer.json", "tokenizer_config.json"})
        fs::copy_file(src / f, dst / f, fs::copy_options::overwrite_existing);
    auto file = traindeck::model::SafetensorsFile::open((src / "model.safetensors").string());
    std::vector<std::pair<std::string, torch::Tensor>> shard[2];
    json index{{"metadata", json::object()}, {"weight_map", json::object()}};
    const std::string names[2] = {"model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"};
    size_t i = 0;
    for (const auto& t : file->tensors()) {
        shard[i % 2].emplace_back(t.name, file->view(t).clone());
        index["weight_map"][t.name] = names[i % 2];
        ++i;
    }
    for (int k = 0; k < 2; ++k)
        traindeck::model::writeSafetensors((dst / names[k]).string(), shard[k]);
    testsupport::writeFile(QString::fromStdString((dst / "model.safetensors.index.json").string()),
                           QByteArray::fromStdString(index.dump(2)));
    exportModel(path("sharded"), path("sharded.f32.gguf"), "f32");
    using traindeck::exporter::GgufInfo;
    const auto a = GgufInfo::read(path("tiny-s1.f32.gguf").toStdString());
    const auto b = GgufInfo::read(path("sharded.f32.gguf").toStdString());
    QCOMPARE(a.tensors.size(), b.tensors.size());
    const QByteArray da = testsupport::readFile(path("tiny-s1.f32.gguf")).mid(qsizetype(a.dataOffset));
    const QByteArray db = testsupport::readFile(path("sharded.f32.gguf")).mid(qsizetype(b.dataOffset));
    QVERIFY(!da.isEmpty());
    QVERIFY2(da == db, "the tensor data differs between the sharded and the single-file export");
}

void TestGgufExport::refusesBadInput_data()
{
    QTest::addColumn<QString>("fault");
    QTest::addColumn<QString>("message");
    QTest::addRow("truncated weights") << "truncate"
                                       << "model.safetensors";
    QTest::addRow("config with more layers than the weights") << "layers"
                                                              << "is missing";
    QTest::addRow("config with another hidden size") << "hidden"
                                                     << "shape";
    QTest::addRow("tokenizer larger than the vocabulary") << "vocab"
                                                          << "vocab_size";
    QTest::addRow("no tokenizer") << "notokenizer"
                                  << "tokenizer.json";
    QTest::addRow("no weights") << "noweights"
                                << "no weights";
    QTest::addRow("bad dtype") << "dtype"
                               << "q4_0";
    QTest::addRow("missing output directory") << "outdir"
                                              << "does not exist";
    QTest::addRow("missing model directory") << "nomodel"
                                             << "does not exist";
}

void TestGgufExport::refusesBadInput()
{
    QFETCH(QString, fault);
    QFETCH(QString, message);
    const QString dir = path("bad-" + fault);
    const fs::path src = path("tiny-s2").toStdString();
    fs::copy(src, dir.toStdString(), fs::copy_options::recursive | fs::copy_options::overwrite_existing);
    const std::string weights = (fs::path(dir.toStdString()) / "model.safetensors").string();
    auto editConfig = [&](const std::function<void(json&)>& edit) {
        const QString file = dir + "/config.json";
        json j = json::parse(testsupport::readFile(file).toStdString());
        edit(j);
        testsupport::writeFile(file, QByteArray::fromStdString(j.dump(2)));
    };
    QString out = dir + "/out.gguf", model = dir;
    QStringList extra;
    if (fault == "truncate")
        fs::resize_file(weights, fs::file_size(weights) - 1000);
    else if (fault == "layers")
        editConfig([](json& j) { j["num_hidden_layers"] = 3; });
    else if (fault == "hidden")
        editConfig([](json& j) { j["hidden_size"] = 128; });
    else if (fault == "vocab") {
        // A model whose vocabulary is smaller than the tokenizer's.
        auto config = traindeck::model::Qwen2Config::preset("qwen2-tiny");
        config.vocab_size = 1000;
        config.raw["vocab_size"] = 1000;
        traindeck::model::Qwen2ForCausalLM net(config);
        fs::remove_all(dir.toStdString());
        const fs::path t = tok_.toStdString();
        traindeck::model::savePretrained(net, dir.toStdString(), torch::kFloat32, {t.string()});
    } else if (fault == "notokenizer")
        fs::remove(fs::path(dir.toStdString()) / "tokenizer.json");
    else if (fault == "noweights")
        fs::remove(weights);
    else if (fault == "dtype")
        extra << "--dtype"
              << "q4_0";
    else if (fault == "outdir")
        out = dir + "/no/such/dir/out.gguf";
    else if (fault == "nomodel")
        model = dir + "/nonexistent";
    const auto r = run(trainerExe(), QStringList{"export-gguf", "--model", model, "--out", out} + extra);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(message.toUtf8()), r.err.constData());
    // Nothing written: no output, no temporary file left behind.
    QVERIFY(!QFile::exists(out));
    for (const auto& e : fs::directory_iterator(dir.toStdString()))
        QVERIFY2(e.path().filename().string().find("out.gguf") == std::string::npos, e.path().c_str());
}

void TestGgufExport::cleanupTestCase()
{
    qInfo("total %.1f s", timer_.elapsed() / 1000.0);
}

QTEST_GUILESS_MAIN(TestGgufExport)
#include "tst_gguf_export.moc"
