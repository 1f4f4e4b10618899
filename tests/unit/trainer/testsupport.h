// Shared helpers for the trainer tests: running the real traindeck-trainer, temporary files, small
// model configs.
#pragma once

#include "model/config.h"
#include "util/errors.h"

#include <QByteArray>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace testsupport {

struct ProcessResult {
    int exitCode = -1;
    bool finished = false;
    QByteArray out, err;
};

QString trainerExe();
// Whether LibTorch sees a CUDA device (torch::cuda::is_available(), kept in testsupport.cpp so that suites
// asking it need no LibTorch header).
bool libtorchSeesCuda();
QString qwenTokenizerJson(); // the real Qwen tokenizer.json from the npm cache (setup-deps.sh)
ProcessResult run(const QString& program, const QStringList& args, int timeoutMs = 120000,
                  const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment(),
                  const QByteArray& stdinData = {});
void writeFile(const QString& path, const QByteArray& contents);
QByteArray readFile(const QString& path);

// A very small Qwen2 (vocab 512) that runs in milliseconds.
traindeck::model::Qwen2Config microConfig(bool tied = false);

// The micro model (initialised with `seed`) saved as a Hugging Face directory `dir`/model, and a JSONL
// corpus `dir`/corpus.jsonl of 400 numbered lines ending in `sentence`; XDG_CACHE_HOME goes under `dir`.
struct MicroRun {
    QString model, data;
};
MicroRun writeMicroRun(const QString& dir, uint64_t seed, const QByteArray& sentence);

// traindeck-trainer train under `mpirun -np np` (np 0: without mpirun) with the micro run's small
// settings (one thread, seq-len 32, warmup 2, lr 0.001) after `args`.
ProcessResult trainMicro(int np, const QStringList& args, int timeoutMs = 180000);

// The records of a metrics file in order; only those of `type` ("step", "hello", ...) when given. A line
// that is not JSON (one cut by a kill) is skipped.
std::vector<nlohmann::json> records(const QString& metrics, const std::string& type = {});

// The largest over tensors of max|a - b| / max|a| between two checkpoints' model.safetensors; names the
// worst tensor on stderr. The k_proj biases are left out: their gradient is zero in exact arithmetic
// (softmax ignores a constant added to every key of a query), so AdamW turns pure rounding noise into
// full-size steps in both runs alike.
double maxRelativeDifference(const QString& checkpointA, const QString& checkpointB);

} // namespace testsupport
