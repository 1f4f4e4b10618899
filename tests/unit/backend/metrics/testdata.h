// Synthetic protocol lines for the metrics tests.
#pragma once

#include "metrics/records.h"
#include "metrics/writer.h"

#include <QByteArray>
#include <QString>

namespace traindeck::metrics::testdata {

inline HelloRecord hello(int ranks, const QString& runId = QStringLiteral("test-run"))
{
    HelloRecord h;
    h.t = 1718000000.0;
    h.runId = runId;
    h.worldSize = ranks;
    for (int r = 0; r < ranks; ++r) {
        RankInfo ri;
        ri.rank = r;
        ri.host = QStringLiteral("node%1").arg(r / 2 + 1);
        ri.device = QStringLiteral("cuda:%1").arg(r % 2);
        ri.localRank = r % 2;
        ri.memTotalMb = 81559;
        h.ranks.append(ri);
    }
    h.trainerVersion = QStringLiteral("0.1.0");
    h.libtorchVersion = QStringLiteral("2.3.0");
    h.mpiVersion = QStringLiteral("Open MPI 4.1.4");
    h.ncclVersion = QStringLiteral("2.21.5");
    h.modelConfig = QJsonObject{{QStringLiteral("model_type"), QStringLiteral("qwen2")}};
    h.parameters = 1777088000;
    h.hparams = QJsonObject{{QStringLiteral("lr"), 3e-4}};
    return h;
}

inline StepRecord step(int ranks, qint64 n, double loss = -1)
{
    StepRecord s;
    s.t = 1718000000.0 + double(n) * 1.5;
    s.step = n;
    s.epoch = 0;
    s.loss = loss >= 0 ? loss : 10.0 - 0.01 * double(n);
    s.lr = 3e-4;
    s.gradNorm = 1.25;
    s.tokens = 4096 * ranks;
    s.tokensPerS = 20000;
    s.samplesPerS = 20;
    s.present = StepRecord::HasGradNorm | StepRecord::HasMem | StepRecord::HasUtil | StepRecord::HasCommBytes |
                StepRecord::HasSamples | StepRecord::HasCommHidden;
    const float base[kRankMetricCount] = {2.f,     400.f, 800.f,        230.f, 40.f, 1500.f,
                                          60000.f, 97.f,  3554176000.f, 4.f,   12.f};
    for (int m = 0; m < kRankMetricCount; ++m) {
        s.perRank[size_t(m)].resize(size_t(ranks));
        const bool integral = m == int(RankMetric::CommBytes) || m == int(RankMetric::Samples);
        for (int r = 0; r < ranks; ++r)
            s.perRank[size_t(m)][size_t(r)] = integral ? base[m] : base[m] + float(r) + 0.25f;
    }
    return s;
}

inline QByteArray helloLine(int ranks)
{
    return toJsonLine(hello(ranks));
}

inline QByteArray stepLine(int ranks, qint64 n)
{
    return toJsonLine(step(ranks, n));
}

// hello + steps 1..steps + an eval, checkpoint, warning, error and done.
inline QByteArray smallStream(int ranks, int steps)
{
    QByteArray s = helloLine(ranks);
    for (int i = 1; i <= steps; ++i) {
        s += stepLine(ranks, i);
        if (i == 2) {
            EvalRecord e;
            e.t = 1718000003.1;
            e.step = 2;
            e.loss = 3.5;
            e.perplexity = 33.1;
            s += toJsonLine(e);
            CheckpointRecord c;
            c.t = 1718000003.2;
            c.step = 2;
            c.path = QStringLiteral("checkpoints/step-2");
            c.bytes = 123456789;
            c.ms = 812.5;
            s += toJsonLine(c);
            WarningRecord w;
            w.t = 1718000003.3;
            w.rank = 1;
            w.host = QStringLiteral("node1");
            w.message = QStringLiteral("slow \"disk\" on node1 \u00e9");
            w.code = QStringLiteral("slow_disk");
            s += toJsonLine(w);
        }
    }
    ErrorRecord er;
    er.t = 1718000100.0;
    er.rank = 0;
    er.host = QStringLiteral("node1");
    er.message = QStringLiteral("boom");
    er.exitCode = 3;
    er.hasExitCode = true;
    s += toJsonLine(er);
    DoneRecord d;
    d.t = 1718000101.0;
    d.status = DoneRecord::Status::Failed;
    d.steps = steps;
    d.seconds = 101.0;
    s += toJsonLine(d);
    return s;
}

} // namespace traindeck::metrics::testdata
