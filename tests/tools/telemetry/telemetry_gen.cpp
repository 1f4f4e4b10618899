// traindeck-telemetry-gen: writes a generated run's metrics.jsonl in the trainer's protocol, for N ranks
// on H hosts, in real time (a file that grows at --rate steps per second, flushed line by line as the
// trainer does) or as fast as it can (--rate 0). A test tool: the 1,024-rank benchmarks and tests read
// its output through the same backend and GUI code as a real run's (tests/tools/telemetry/scale_run.h).
//
//   traindeck-telemetry-gen --out FILE [--ranks 1024] [--hosts 128] [--steps 100] [--rate 0] [--seed 1]
//                           [--checkpoint-every 0] [--fault SPEC]... [--log FILE]
//   SPEC: slow-rank:RANK:PCT[:FROM]   slow-host:HOST:PCT[:FROM]   slow-link:HOST:PCT[:FROM]
//         data-stall:EVERY:MS[:FROM]  stalled-rank:RANK:STEP[:WARN_S[:ABORT_S]]
//   HOST is a 0-based host index; PCT the slowdown in percent (10 = +10 %).
// --log FILE: the job's stderr.log as mpirun --tag-output writes it ("[1,RANK]<stderr>:text"): every rank's
// copy of one library warning (identical lines of 1,024 ranks, for the Logs tab to collapse), rank 0's start
// line and progress lines (every 10 steps) as traindeck-trainer writes them, and a stall's message. Put it
// beside the metrics file as stderr.log and the desktop shows it with the run opened offline.
// Exit codes: 0 written, 2 bad arguments (named), 1 the file could not be written.
#include "metrics/writer.h"
#include "scale_run.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QFile>
#include <QJsonDocument>
#include <QThread>

#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <thread>

using namespace traindeck;
using testing::ScaleFault;
using testing::ScaleRun;

namespace {

struct Options {
    ScaleRun run;
    QString out, log;
    qint64 steps = 100;
    double rate = 0;
    qint64 checkpointEvery = 0;
    double stallWarnS = 60, stallAbortS = 300;
};

[[noreturn]] void usageError(const QString& message)
{
    std::fprintf(stderr, "traindeck-telemetry-gen: %s\n", qPrintable(message));
    std::exit(2);
}

std::optional<double> number(const QString& text)
{
    bool ok = false;
    const double v = text.toDouble(&ok);
    return ok && std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

ScaleFault parseFault(const QString& spec, const Options& o, double& warnS, double& abortS)
{
    const QStringList p = spec.split(QLatin1Char(':'));
    static const QList<QPair<QString, ScaleFault::Kind>> kinds{
        {QStringLiteral("slow-rank"), ScaleFault::Kind::SlowRank},
        {QStringLiteral("slow-host"), ScaleFault::Kind::SlowHost},
        {QStringLiteral("slow-link"), ScaleFault::Kind::SlowLink},
        {QStringLiteral("data-stall"), ScaleFault::Kind::DataStall},
        {QStringLiteral("stalled-rank"), ScaleFault::Kind::StalledRank}};
    ScaleFault f;
    bool known = false;
    for (const auto& [name, kind] : kinds)
        if (p.value(0) == name)
            f.kind = kind, known = true;
    const bool stalled = f.kind == ScaleFault::Kind::StalledRank;
    if (!known || p.size() < 3 || p.size() > (stalled ? 5 : 4))
        usageError(QStringLiteral("--fault %1: expected slow-rank|slow-host|slow-link:TARGET:PCT[:FROM], "
                                  "data-stall:EVERY:MS[:FROM] or stalled-rank:RANK:STEP[:WARN_S[:ABORT_S]]")
                       .arg(spec));
    std::vector<double> v;
    for (int i = 1; i < p.size(); ++i) {
        const auto x = number(p[i]);
        if (!x || *x < 0)
            usageError(QStringLiteral("--fault %1: '%2' is not a number >= 0").arg(spec, p[i]));
        v.push_back(*x);
    }
    f.target = int(v[0]);
    const bool hostTarget = f.kind == ScaleFault::Kind::SlowHost || f.kind == ScaleFault::Kind::SlowLink;
    const int limit = hostTarget ? o.run.hosts : f.kind == ScaleFault::Kind::DataStall ? INT_MAX : o.run.ranks;
    if (f.target != v[0] || f.target >= limit || (f.kind == ScaleFault::Kind::DataStall && f.target < 1))
        usageError(QStringLiteral("--fault %1: %2 %3 does not exist (%4 of them)")
                       .arg(spec, hostTarget ? QStringLiteral("host") : QStringLiteral("rank"), p[1])
                       .arg(limit));
    if (stalled) {
        f.fromStep = qint64(v[1]);
        if (f.fromStep < 1)
            usageError(QStringLiteral("--fault %1: the stalled step must be >= 1").arg(spec));
        if (v.size() > 2)
            warnS = v[2];
        if (v.size() > 3)
            abortS = v[3];
        if (abortS <= warnS)
            usageError(QStringLiteral("--fault %1: ABORT_S must be above WARN_S").arg(spec));
        return f;
    }
    f.amount = f.kind == ScaleFault::Kind::DataStall ? v[1] : v[1] / 100.0;
    if (v.size() > 2)
        f.fromStep = std::max<qint64>(1, qint64(v[2]));
    return f;
}

Options parse(const QCoreApplication& app)
{
    QCommandLineParser cli;
    cli.setApplicationDescription(QStringLiteral("Writes a generated run's metrics.jsonl in the trainer's protocol."));
    cli.addHelpOption();
    cli.addOptions(
        {{QStringLiteral("out"), QStringLiteral("metrics file to write (replaced)"), QStringLiteral("file")},
         {QStringLiteral("ranks"), QStringLiteral("ranks (default 1024)"), QStringLiteral("n"), QStringLiteral("1024")},
         {QStringLiteral("hosts"), QStringLiteral("hosts; ranks are placed in equal blocks (default 128)"),
          QStringLiteral("n"), QStringLiteral("128")},
         {QStringLiteral("steps"), QStringLiteral("steps to write (default 100)"), QStringLiteral("n"),
          QStringLiteral("100")},
         {QStringLiteral("rate"), QStringLiteral("steps per second; 0 writes as fast as it can (default 0)"),
          QStringLiteral("r"), QStringLiteral("0")},
         {QStringLiteral("seed"), QStringLiteral("random seed (default 1)"), QStringLiteral("s"), QStringLiteral("1")},
         {QStringLiteral("checkpoint-every"), QStringLiteral("a checkpoint record every N steps (default 0: none)"),
          QStringLiteral("n"), QStringLiteral("0")},
         {QStringLiteral("fault"), QStringLiteral("a planted fault (repeatable), see the source's header"),
          QStringLiteral("spec")},
         {QStringLiteral("log"), QStringLiteral("also write the job's stderr.log (tagged as mpirun's) to this file"),
          QStringLiteral("file")}});
    cli.process(app);
    Options o;
    if (!cli.isSet(QStringLiteral("out")))
        usageError(QStringLiteral("--out is required"));
    o.out = cli.value(QStringLiteral("out"));
    o.log = cli.value(QStringLiteral("log"));
    auto integer = [&](const char* name, qint64 lo, qint64 hi) {
        bool ok = false;
        const qint64 v = cli.value(QLatin1String(name)).toLongLong(&ok);
        if (!ok || v < lo || v > hi)
            usageError(QStringLiteral("--%1 %2: expected an integer from %3 to %4")
                           .arg(QLatin1String(name), cli.value(QLatin1String(name)))
                           .arg(lo)
                           .arg(hi));
        return v;
    };
    o.run.ranks = int(integer("ranks", 1, 65536));
    o.run.hosts = int(integer("hosts", 1, o.run.ranks));
    o.steps = integer("steps", 0, qint64(1) << 40);
    o.run.seed = quint32(integer("seed", 0, UINT32_MAX));
    o.checkpointEvery = integer("checkpoint-every", 0, qint64(1) << 40);
    const auto rate = number(cli.value(QStringLiteral("rate")));
    if (!rate || *rate < 0)
        usageError(QStringLiteral("--rate %1: expected a number >= 0").arg(cli.value(QStringLiteral("rate"))));
    o.rate = *rate;
    for (const QString& spec : cli.values(QStringLiteral("fault")))
        o.run.faults.push_back(parseFault(spec, o, o.stallWarnS, o.stallAbortS));
    return o;
}

class Output {
  public:
    Output(const QString& path, bool realTime) : file_(path), realTime_(realTime)
    {
        if (!file_.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
            std::fprintf(stderr, "traindeck-telemetry-gen: cannot write %s: %s\n", qPrintable(path),
                         qPrintable(file_.errorString()));
            std::exit(1);
        }
    }
    // One complete line; in real time each reaches the file before the next step, as the trainer's do.
    void line(const QByteArray& text)
    {
        buffer_.append(text);
        if (realTime_ || buffer_.size() > (4 << 20))
            flush();
    }
    void flush()
    {
        if (!buffer_.isEmpty() && file_.write(buffer_) != buffer_.size()) {
            std::fprintf(stderr, "traindeck-telemetry-gen: cannot write %s: %s\n", qPrintable(file_.fileName()),
                         qPrintable(file_.errorString()));
            std::exit(1);
        }
        buffer_.clear();
        file_.flush();
    }

  private:
    QFile file_;
    bool realTime_;
    QByteArray buffer_;
};

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    Options o = parse(app);
    Output out(o.out, o.rate > 0);
    std::optional<Output> log;
    if (!o.log.isEmpty())
        log.emplace(o.log, o.rate > 0);
    auto logLine = [&](int rank, const QString& text) {
        if (log)
            log->line("[1," + QByteArray::number(rank) + "]<stderr>:" + text.toUtf8() + '\n');
    };
    const auto start = std::chrono::steady_clock::now();
    const double t0 = double(std::chrono::duration_cast<std::chrono::milliseconds>(
                                 std::chrono::system_clock::now().time_since_epoch())
                                 .count()) /
                      1000.0;
    const double period = o.rate > 0 ? 1.0 / o.rate : 0.5; // the records' clock in fast mode: 2 steps/s
    // Waits (real time) until `seconds` after the start; the records' time is t0 + seconds either way.
    auto at = [&](double seconds) {
        if (o.rate > 0)
            std::this_thread::sleep_until(start + std::chrono::duration<double>(seconds));
        return t0 + seconds;
    };
    // v, type and t first, as the protocol asks of writers (QJsonObject sorts its keys).
    QJsonObject hello = o.run.hello(at(0), o.steps);
    QByteArray first = "{\"v\":1,\"type\":\"hello\",\"t\":" + QByteArray::number(t0, 'f', 3) + ',';
    for (const char* key : {"v", "type", "t"})
        hello.remove(QLatin1String(key));
    out.line(first + QJsonDocument(hello).toJson(QJsonDocument::Compact).mid(1) + '\n');
    for (int r = 0; r < o.run.ranks; ++r)
        logLine(r, QStringLiteral("[W CUDAAllocatorConfig.h:28] Warning: expandable_segments not supported on this "
                                  "platform (function operator())"));
    logLine(0, QStringLiteral("training %1 (1777088000 parameters) on %2 rank(s) x 1 thread(s), cuda, BLAS core "
                              "unknown, %3 steps")
                   .arg(QStringLiteral("/models/DeepSeek-R1-Distill-Qwen-1.5B"))
                   .arg(o.run.ranks)
                   .arg(o.steps));
    const ScaleFault* stall = o.run.stall();
    QByteArray line;
    qint64 step = 1;
    for (; step <= o.steps; ++step) {
        if (stall && step >= stall->fromStep)
            break;
        const double t = at(double(step) * period);
        line.clear();
        const metrics::StepRecord record = o.run.step(step, t);
        metrics::appendStepLine(line, record);
        out.line(line);
        if (step % 10 == 0 || step == o.steps) {
            const double stepMs = double(record.tokens) / record.tokensPerS * 1000.0;
            logLine(0, QStringLiteral("step %1/%2  loss %3  lr %4  grad-norm %5  %6 tok/s  %7 ms/step  mfu %8%")
                           .arg(step)
                           .arg(o.steps)
                           .arg(record.loss, 0, 'f', 4)
                           .arg(record.lr, 0, 'e', 2)
                           .arg(record.gradNorm, 0, 'f', 3)
                           .arg(record.tokensPerS, 0, 'f', 0)
                           .arg(stepMs, 0, 'f', 0)
                           .arg(100 * record.mfu, 0, 'f', 1));
        }
        if (o.checkpointEvery > 0 && step % o.checkpointEvery == 0) {
            metrics::CheckpointRecord c;
            c.t = t + 0.1 * period;
            c.step = step;
            c.path = QStringLiteral("checkpoints/step-%1").arg(step, 8, 10, QLatin1Char('0'));
            c.bytes = 10663104512;
            c.ms = 8123.0;
            out.line(metrics::toJsonLine(c));
        }
    }
    const double end = double(step - 1) * period;
    if (stall && step >= stall->fromStep) {
        // The trainer's stall inspector: a warning after --stall-warn, the abort after --stall-abort.
        const auto warning = o.run.stallWarning(*stall, at(end + o.stallWarnS), o.stallWarnS);
        out.line(metrics::toJsonLine(warning));
        logLine(0, QStringLiteral("traindeck-trainer: stall: ") + warning.message);
        metrics::ErrorRecord e;
        e.t = at(end + o.stallAbortS);
        e.rank = stall->target;
        e.host = ScaleRun::hostName(o.run.hostOf(stall->target));
        e.message = o.run.stallWarning(*stall, e.t, o.stallAbortS).message +
                    QStringLiteral("; the job was aborted after --stall-abort %1 s").arg(o.stallAbortS);
        e.exitCode = 1;
        e.hasExitCode = true;
        out.line(metrics::toJsonLine(e));
    }
    metrics::DoneRecord d;
    d.t = t0 + end + (stall ? o.stallAbortS : 0.1);
    d.status = stall ? metrics::DoneRecord::Status::Failed : metrics::DoneRecord::Status::Finished;
    d.steps = step - 1;
    d.seconds = d.t - t0;
    out.line(metrics::toJsonLine(d));
    out.flush();
    if (log)
        log->flush();
    return 0;
}
