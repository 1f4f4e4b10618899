// Shared helpers for the trainer tests: running the real traindeck-trainer, temporary files, small
// model configs.
#pragma once

#include "model/config.h"
#include "util/errors.h"

#include <QByteArray>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

namespace testsupport {

struct ProcessResult {
    int exitCode = -1;
    bool finished = false;
    QByteArray out, err;
};

QString trainerExe();
QString qwenTokenizerJson(); // the real Qwen tokenizer.json from the npm cache (setup-deps.sh)
ProcessResult run(const QString& program, const QStringList& args, int timeoutMs = 120000,
                  const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment(),
                  const QByteArray& stdinData = {});
void writeFile(const QString& path, const QByteArray& contents);
QByteArray readFile(const QString& path);

// A very small Qwen2 (vocab 512) that runs in milliseconds.
traindeck::model::Qwen2Config microConfig(bool tied = false);

} // namespace testsupport
