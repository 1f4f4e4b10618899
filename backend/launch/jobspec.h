// A job spec: what to train, where, with how many ranks. JSON, versioned, validated with diagnostics
// that name the key ("job.json: trainer.max-steps: expected a number"). Example:
//   {"version":1, "name":"demo", "profile":"local", "ranks":2, "env":{"OMP_NUM_THREADS":"1"},
//    "mpi":{"btl_tcp_if_include":"eth0", "oob_tcp_if_include":"eth0", "args":["--report-bindings"]},
//    "trainer":{"preset":"qwen2-tiny", "data":"corpus.jsonl", "max-steps":200}}
// "trainer" holds traindeck-trainer's `train` flags without the dashes (docs/reference/cli.md lists the rules).
#pragma once

#include "common/result.h"

#include <QCoreApplication>
#include <QJsonObject>
#include <QMap>
#include <QString>
#include <QStringList>

namespace traindeck::launch {

struct JobSpec {
    Q_DECLARE_TR_FUNCTIONS(traindeck::launch::JobSpec)

  public:
    static constexpr int FormatVersion = 1;
    static constexpr int MaxRanks = 100000;

    int version = FormatVersion;
    QString name;
    QString profile = QStringLiteral("local"); // profile name, or a profile file path
    int ranks = 0;                             // local profile: ranks (0: 1); cluster: 0 or its slot count
    QMap<QString, QString> env;                // exported to every rank (-x NAME)
    QString btlTcpIfInclude;                   // mpi.btl_tcp_if_include
    QString oobTcpIfInclude;                   // mpi.oob_tcp_if_include
    QStringList mpiArgs;                       // mpi.args: extra mpirun arguments, verbatim (quoted)
    QJsonObject trainer;                       // flag name (no dashes) -> string, number or bool

    // Parses and validates. fileName names the spec in diagnostics.
    static Result<JobSpec> fromJson(const QByteArray& json, const QString& fileName);
    static Result<JobSpec> load(const QString& path);
    // The job specs that come with TrainDeck (resources/specs/<name>.json, built in): "demo", the
    // local-cluster default (qwen2-tiny on the demo corpus, 2 ranks), and
    // "deepseek-r1-distill-qwen-1.5b" (its model directory left to fill in). Relative paths in them are
    // in the cache directory, paths::cacheDir(), where scripts/setup-deps.sh puts the demo inputs.
    static Result<JobSpec> builtin(const QString& name);
    QJsonObject toJsonObject() const;
    QByteArray toJson() const; // indented UTF-8
    Diagnostics validate(const QString& fileName = QString()) const;

    // Makes relative path-valued trainer flags (data, tokenizer, model, config, cache-dir, resume other
    // than "latest") absolute against baseDir (the spec file's directory).
    void resolvePaths(const QString& baseDir);

    // The trainer's flags, in a stable order: ["--preset=qwen2-tiny", "--max-steps=200", ...].
    // Booleans: true gives "--flag", false nothing.
    QStringList trainerArgs() const;

    // Flags of `traindeck-trainer train` a spec may set, and those the launcher sets itself.
    static const QStringList& knownTrainerFlags();
    static const QStringList& reservedTrainerFlags(); // out, metrics-out, run-id
};

} // namespace traindeck::launch
