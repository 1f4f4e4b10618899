// safetensors reading/writing and Hugging Face model directories: bit-exact round trips, the layout
// transformers writes, every validation fault with a message naming the file, sharded checkpoints.
#include "model/hf_checkpoint.h"
#include "model/qwen2.h"
#include "model/safetensors.h"
#include "testsupport.h"

#include <QTemporaryDir>
#include <QTest>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <cstring>

using namespace traindeck::model;

namespace {

QByteArray makeFile(const std::string& header, const QByteArray& data)
{
    QByteArray out;
    const uint64_t n = header.size();
    out.append(reinterpret_cast<const char*>(&n), 8);
    out.append(header.data(), static_cast<qsizetype>(header.size()));
    out.append(data);
    return out;
}

void expectInputError(const std::function<void()>& f, const QString& mustContain, const QString& path)
{
    try {
        f();
        QFAIL(qPrintable("accepted: expected an error containing " + mustContain));
    } catch (const traindeck::InputError& e) {
        const QString m = QString::fromUtf8(e.what());
        QVERIFY2(m.contains(mustContain), e.what());
        if (!path.isEmpty())
            QVERIFY2(m.contains(path), e.what());
    }
}

} // namespace

class TestSafetensors : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void roundTripBitExact();
    void headerLayoutLikeTransformers();
    void zeroCopyView();
    void corruptFiles_data();
    void corruptFiles();
    void modelDirectoryRoundTrip();
    void bf16WeightsLoadConverted();
    void shardedCheckpoint();
    void modelDirectoryFaults_data();
    void modelDirectoryFaults();
};

void TestSafetensors::roundTripBitExact()
{
    QTemporaryDir dir;
    const std::string path = (dir.path() + "/t.safetensors").toStdString();
    std::vector<std::pair<std::string, torch::Tensor>> tensors = {
        {"a.f32", torch::randn({3, 5})},
        {"b.bf16", torch::randn({7}).to(torch::kBFloat16)},
        {"c.f16", torch::randn({2, 2, 3}).to(torch::kFloat16)},
        {"d.i64", torch::arange(11, torch::kInt64)},
        {"e.scalar", torch::tensor(3.5f)},
        {"f.empty", torch::zeros({0, 4})},
        {"g.special", torch::tensor({std::numeric_limits<float>::infinity(), -0.0f, 1e-45f})},
    };
    writeSafetensors(path, tensors);
    auto f = SafetensorsFile::open(path);
    QCOMPARE(f->tensors().size(), tensors.size());
    for (const auto& [name, t] : tensors) {
        auto v = f->view(name);
        QCOMPARE(v.scalar_type(), t.scalar_type());
        QCOMPARE(v.sizes().vec(), t.sizes().vec());
        QVERIFY2(t.numel() == 0 ||
                     std::memcmp(v.data_ptr(), t.contiguous().data_ptr(), t.numel() * t.element_size()) == 0,
                 name.c_str());
    }
    QCOMPARE(QString::fromStdString(f->metadata().at("format")), QStringLiteral("pt"));
}

void TestSafetensors::headerLayoutLikeTransformers()
{
    QTemporaryDir dir;
    const QString path = dir.path() + "/t.safetensors";
    writeSafetensors(path.toStdString(), {{"z", torch::ones({3})}, {"a", torch::zeros({2, 2})}});
    const QByteArray bytes = testsupport::readFile(path);
    uint64_t n = 0;
    std::memcpy(&n, bytes.constData(), 8);
    QCOMPARE(n % 8, uint64_t(0)); // the data section starts 8-byte aligned
    auto header = nlohmann::json::parse(bytes.mid(8, static_cast<qsizetype>(n)).toStdString());
    QCOMPARE(QString::fromStdString(header["__metadata__"]["format"].get<std::string>()), QStringLiteral("pt"));
    // Tensors are laid out in name order, contiguously.
    QCOMPARE(header["a"]["data_offsets"][0].get<uint64_t>(), uint64_t(0));
    QCOMPARE(header["a"]["data_offsets"][1].get<uint64_t>(), uint64_t(16));
    QCOMPARE(header["z"]["data_offsets"][0].get<uint64_t>(), uint64_t(16));
    QCOMPARE(QString::fromStdString(header["z"]["dtype"].get<std::string>()), QStringLiteral("F32"));
    QCOMPARE(uint64_t(bytes.size()), 8 + n + 28);
}

void TestSafetensors::zeroCopyView()
{
    QTemporaryDir dir;
    const std::string path = (dir.path() + "/t.safetensors").toStdString();
    writeSafetensors(path, {{"w", torch::randn({64, 64})}});
    torch::Tensor view;
    const void* mapped = nullptr;
    {
        auto f = SafetensorsFile::open(path);
        view = f->view("w");
        mapped = view.data_ptr();
    }
    // The view keeps the mapping alive after the file object is gone.
    QCOMPARE(view.data_ptr(), mapped);
    QVERIFY(torch::isfinite(view).all().item<bool>());
}

void TestSafetensors::corruptFiles_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("message");
    const QByteArray data16(16, '\0');
    const std::string ok = R"({"w":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]}})";
    QTest::addRow("shorter than 8 bytes") << QByteArray("abc") << "truncated";
    QTest::addRow("header length beyond file") << makeFile(ok, data16).left(20) << "exceeds the file size";
    QTest::addRow("data truncated") << makeFile(ok, data16.left(10)) << "beyond the data section";
    QTest::addRow("header not JSON") << makeFile("{not json}", data16) << "not valid JSON";
    QTest::addRow("header not object") << makeFile("[1,2]   ", data16) << "not a JSON object";
    QTest::addRow("unknown dtype") << makeFile(R"({"w":{"dtype":"F8","shape":[16],"data_offsets":[0,16]}})", data16)
                                   << "unknown dtype";
    QTest::addRow("shape vs bytes") << makeFile(R"({"w":{"dtype":"F32","shape":[3,2],"data_offsets":[0,16]}})", data16)
                                    << "does not match dtype";
    QTest::addRow("negative dim") << makeFile(R"({"w":{"dtype":"F32","shape":[-4],"data_offsets":[0,16]}})", data16)
                                  << "negative";
    QTest::addRow("offsets reversed") << makeFile(R"({"w":{"dtype":"U8","shape":[0],"data_offsets":[16,0]}})", data16)
                                      << "begin > end";
    QTest::addRow("hole") << makeFile(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}})", data16) << "hole";
    QTest::addRow("overlap")
        << makeFile(
               R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]},"b":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}})",
               data16)
        << "overlap";
    QTest::addRow("trailing bytes") << makeFile(ok, data16 + QByteArray(4, 'x')) << "cover";
    QTest::addRow("missing offsets") << makeFile(R"({"w":{"dtype":"F32","shape":[4]}})", data16) << "data_offsets";
    QTest::addRow("metadata not strings")
        << makeFile(R"({"__metadata__":{"a":1},"w":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})", data16)
        << "__metadata__";
    QTest::addRow("empty file") << QByteArray() << "truncated";
    // Found by fuzz_safetensors_header: a number JSON cannot hold was an uncaught out_of_range.
    QTest::addRow("number overflows")
        << makeFile(R"({"w":{"dtype":"F32","shape":[33366666666666666e6666],"data_offsets":[0,16]}})", data16)
        << "not valid JSON";
}

void TestSafetensors::corruptFiles()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QString, message);
    QTemporaryDir dir;
    const QString path = dir.path() + "/bad.safetensors";
    testsupport::writeFile(path, bytes);
    expectInputError([&] { SafetensorsFile::open(path.toStdString()); }, message, path);
}

void TestSafetensors::modelDirectoryRoundTrip()
{
    QTemporaryDir dir;
    for (bool tied : {false, true}) {
        torch::manual_seed(5);
        Qwen2ForCausalLM m(testsupport::microConfig(tied));
        const std::string out = (dir.path() + (tied ? "/tied" : "/untied")).toStdString();
        savePretrained(m, out, torch::kFloat32);
        auto summary = validateWeights(out, m->config());
        QCOMPARE(summary.parameters, m->config().parameterCount());
        auto loaded = loadPretrained(out);
        for (const auto& p : m->named_parameters())
            QVERIFY2(torch::equal(p.value(), loaded->named_parameters()[p.key()]), p.key().c_str());
        auto cfg =
            nlohmann::json::parse(testsupport::readFile(QString::fromStdString(out + "/config.json")).toStdString());
        QCOMPARE(QString::fromStdString(cfg["architectures"][0].get<std::string>()),
                 QStringLiteral("Qwen2ForCausalLM"));
        QCOMPARE(cfg["tie_word_embeddings"].get<bool>(), tied);
    }
}

void TestSafetensors::bf16WeightsLoadConverted()
{
    QTemporaryDir dir;
    torch::manual_seed(6);
    Qwen2ForCausalLM m(testsupport::microConfig());
    const std::string out = dir.path().toStdString();
    savePretrained(m, out, torch::kBFloat16);
    auto f = SafetensorsFile::open(out + "/model.safetensors");
    QCOMPARE(QString::fromStdString(f->find("model.norm.weight")->dtype), QStringLiteral("BF16"));
    auto loaded = loadPretrained(out, torch::kFloat32);
    auto w = loaded->named_parameters()["model.layers.1.mlp.up_proj.weight"];
    QCOMPARE(w.scalar_type(), torch::kFloat32);
    QVERIFY(torch::equal(
        w, m->named_parameters()["model.layers.1.mlp.up_proj.weight"].to(torch::kBFloat16).to(torch::kFloat32)));
}

void TestSafetensors::shardedCheckpoint()
{
    QTemporaryDir dir;
    torch::manual_seed(7);
    Qwen2ForCausalLM m(testsupport::microConfig());
    const std::string out = dir.path().toStdString();
    savePretrained(m, out, torch::kFloat32);
    std::filesystem::remove(out + "/model.safetensors");
    // Split the parameters over two shards with an index, as transformers does for large models.
    std::vector<std::pair<std::string, torch::Tensor>> a, b;
    nlohmann::json index = {{"metadata", {{"total_size", 0}}}, {"weight_map", nlohmann::json::object()}};
    int i = 0;
    for (const auto& p : m->named_parameters()) {
        const bool first = (i++ % 2) == 0;
        (first ? a : b).emplace_back(p.key(), p.value());
        index["weight_map"][p.key()] = first ? "model-00001-of-00002.safetensors" : "model-00002-of-00002.safetensors";
    }
    writeSafetensors(out + "/model-00001-of-00002.safetensors", a);
    writeSafetensors(out + "/model-00002-of-00002.safetensors", b);
    testsupport::writeFile(QString::fromStdString(out + "/model.safetensors.index.json"),
                           QByteArray::fromStdString(index.dump()));
    QCOMPARE(weightFiles(out).size(), size_t(2));
    auto loaded = loadPretrained(out);
    for (const auto& p : m->named_parameters())
        QVERIFY(torch::equal(p.value(), loaded->named_parameters()[p.key()]));
    // An index that points a tensor at the wrong shard is refused.
    index["weight_map"]["model.norm.weight"] =
        index["weight_map"]["model.norm.weight"] == "model-00001-of-00002.safetensors"
            ? "model-00002-of-00002.safetensors"
            : "model-00001-of-00002.safetensors";
    testsupport::writeFile(QString::fromStdString(out + "/model.safetensors.index.json"),
                           QByteArray::fromStdString(index.dump()));
    expectInputError([&] { validateWeights(out, m->config()); }, "model.norm.weight", {});
}

void TestSafetensors::modelDirectoryFaults_data()
{
    QTest::addColumn<QString>("fault");
    QTest::addColumn<QString>("message");
    QTest::addRow("no config.json") << "no-config"
                                    << "config.json";
    QTest::addRow("config not JSON") << "bad-config"
                                     << "invalid JSON";
    QTest::addRow("config number overflows") << "overflow-config"
                                             << "invalid JSON";
    QTest::addRow("no weights") << "no-weights"
                                << "no weights";
    QTest::addRow("shape mismatch") << "shape"
                                    << "has shape";
    QTest::addRow("missing tensor") << "missing"
                                    << "is missing";
    QTest::addRow("unexpected tensor") << "extra"
                                       << "is not a parameter";
    QTest::addRow("integer weights") << "int"
                                     << "dtype";
    QTest::addRow("truncated weights") << "truncated"
                                       << "model.safetensors";
}

void TestSafetensors::modelDirectoryFaults()
{
    QFETCH(QString, fault);
    QFETCH(QString, message);
    QTemporaryDir dir;
    torch::manual_seed(8);
    Qwen2ForCausalLM m(testsupport::microConfig());
    const std::string out = dir.path().toStdString();
    savePretrained(m, out, torch::kFloat32);
    std::vector<std::pair<std::string, torch::Tensor>> tensors;
    for (const auto& p : m->named_parameters())
        tensors.emplace_back(p.key(), p.value());
    const QString weights = dir.path() + "/model.safetensors";
    if (fault == "no-config")
        std::filesystem::remove(out + "/config.json");
    else if (fault == "bad-config")
        testsupport::writeFile(dir.path() + "/config.json", "{\"vocab_size\": ");
    else if (fault == "overflow-config")
        testsupport::writeFile(dir.path() + "/config.json", "{\"vocab_size\": 1e999}");
    else if (fault == "no-weights")
        std::filesystem::remove(weights.toStdString());
    else if (fault == "shape") {
        tensors[3].second = torch::zeros({5});
        writeSafetensors(weights.toStdString(), tensors);
    } else if (fault == "missing") {
        tensors.pop_back();
        writeSafetensors(weights.toStdString(), tensors);
    } else if (fault == "extra") {
        tensors.emplace_back("model.layers.9.mlp.up_proj.weight", torch::zeros({2}));
        writeSafetensors(weights.toStdString(), tensors);
    } else if (fault == "int") {
        tensors[0].second = tensors[0].second.to(torch::kInt32);
        writeSafetensors(weights.toStdString(), tensors);
    } else if (fault == "truncated") {
        const QByteArray bytes = testsupport::readFile(weights);
        testsupport::writeFile(weights, bytes.left(bytes.size() - 100));
    }
    expectInputError([&] { loadPretrained(out); }, message, {});
}

QTEST_GUILESS_MAIN(TestSafetensors)
#include "tst_safetensors.moc"
