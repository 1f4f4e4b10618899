// Not a subcommand: helpers for the run subcommands (named cmd_* so the CLI's source glob picks it up).
#include "cli_common.h"

#include "command.h"

#include "analysis/diagnosis.h"
#include "analysis/findinghistory.h"
#include "analysis/phases.h"
#include "common/format.h"
#include "common/paths.h"
#include "launch/runmonitor.h"
#include "launch/transport.h"
#include "runs/operations.h"
#include "ssh/sshtransport.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QTimer>

#include <cmath>
#include <cstdio>
#include <unistd.h>

using namespace traindeck::launch;
using namespace traindeck::metrics;
using traindeck::analysis::Diagnosis;
using traindeck::analysis::Finding;

namespace traindeck::cli {

namespace {
struct Follow {
    Q_DECLARE_TR_FUNCTIONS(traindeck::cli::Follow)
};

QJsonValue num(double v)
{
    if (std::isfinite(v))
        return v;
    if (std::isnan(v))
        return QStringLiteral("NaN");
    return v > 0 ? QStringLiteral("Infinity") : QStringLiteral("-Infinity");
}

QJsonArray arr(const std::vector<float>& v)
{
    QJsonArray a;
    for (float x : v)
        a.append(std::isfinite(x) ? QJsonValue(double(x)) : QJsonValue());
    return a;
}

void printJson(const QJsonObject& o)
{
    const QByteArray line = QJsonDocument(o).toJson(QJsonDocument::Compact) + '\n';
    std::fwrite(line.constData(), 1, size_t(line.size()), stdout);
    std::fflush(stdout);
}

QJsonObject recordJson(const Record& rec)
{
    QJsonObject o;
    std::visit(
        [&](const auto& r) {
            using R = std::decay_t<decltype(r)>;
            o.insert(QStringLiteral("offset"), r.origin.offset);
            o.insert(QStringLiteral("t"), r.t);
            if constexpr (std::is_same_v<R, HelloRecord>) {
                o.insert(QStringLiteral("type"), QStringLiteral("hello"));
                o.insert(QStringLiteral("run_id"), r.runId);
                o.insert(QStringLiteral("world_size"), r.worldSize);
                QJsonArray hosts;
                for (const RankInfo& i : r.ranks)
                    hosts.append(i.host);
                o.insert(QStringLiteral("hosts"), hosts);
                if (r.resumedFromStep >= 0)
                    o.insert(QStringLiteral("resumed_from"), r.resumedFromStep);
            } else if constexpr (std::is_same_v<R, StepRecord>) {
                o.insert(QStringLiteral("type"), QStringLiteral("step"));
                o.insert(QStringLiteral("step"), r.step);
                o.insert(QStringLiteral("loss"), num(r.loss));
                o.insert(QStringLiteral("lr"), num(r.lr));
                o.insert(QStringLiteral("tokens_per_s"), num(r.tokensPerS));
                o.insert(QStringLiteral("step_ms"), arr(r.series(RankMetric::Step)));
                o.insert(QStringLiteral("comm_ms"), arr(r.series(RankMetric::Comm)));
            } else if constexpr (std::is_same_v<R, EvalRecord>) {
                o.insert(QStringLiteral("type"), QStringLiteral("eval"));
                o.insert(QStringLiteral("step"), r.step);
                o.insert(QStringLiteral("loss"), num(r.loss));
            } else if constexpr (std::is_same_v<R, CheckpointRecord>) {
                o.insert(QStringLiteral("type"), QStringLiteral("checkpoint"));
                o.insert(QStringLiteral("step"), r.step);
                o.insert(QStringLiteral("path"), r.path);
            } else if constexpr (std::is_same_v<R, WarningRecord>) {
                o.insert(QStringLiteral("type"), QStringLiteral("warning"));
                o.insert(QStringLiteral("rank"), r.rank);
                o.insert(QStringLiteral("host"), r.host);
                o.insert(QStringLiteral("message"), r.message);
            } else if constexpr (std::is_same_v<R, ErrorRecord>) {
                o.insert(QStringLiteral("type"), QStringLiteral("error"));
                o.insert(QStringLiteral("rank"), r.rank);
                o.insert(QStringLiteral("host"), r.host);
                o.insert(QStringLiteral("message"), r.message);
            } else if constexpr (std::is_same_v<R, DoneRecord>) {
                o.insert(QStringLiteral("type"), QStringLiteral("done"));
                o.insert(QStringLiteral("status"), QString::fromLatin1(DoneRecord::statusName(r.status)));
                o.insert(QStringLiteral("steps"), r.steps);
            }
        },
        rec);
    return o;
}

qint64 originOffset(const Record& rec)
{
    return std::visit([](const auto& r) { return r.origin.offset; }, rec);
}

// Per-rank phase bar for the latest step: d data, f forward, b backward, c comm transfer, w comm
// wait, o optimizer (analysis::Phase order).
QStringList phaseBars(const MetricStore& s, int width)
{
    QStringList out;
    if (s.rowCount() == 0)
        return out;
    const qint64 row = s.rowCount() - 1;
    double maxMs = 0;
    for (int r = 0; r < s.worldSize(); ++r)
        maxMs = std::max(maxMs, double(s.rankAt(RankMetric::Step, r, row)));
    if (!(maxMs > 0))
        return out;
    static constexpr char kPhaseChar[int(analysis::Phase::Count)] = {'d', 'f', 'b', 'c', 'w', 'o'};
    const analysis::PhaseMeans phases = analysis::phaseBreakdown(s, row);
    for (int r = 0; r < s.worldSize(); ++r) {
        QString bar;
        for (int p = 0; p < int(analysis::Phase::Count); ++p) {
            const double v = phases.at(analysis::Phase(p), r);
            if (std::isfinite(v) && v > 0)
                bar += QString(int(std::lround(v / maxMs * width)), QLatin1Char(kPhaseChar[p]));
        }
        bar.truncate(width);
        out.append(QStringLiteral("  rank %1 %2 |%3| %4 ms")
                       .arg(r, 3)
                       .arg(s.hostOf(r).left(16), -16)
                       .arg(bar, -width)
                       .arg(formatNumber(s.rankAt(RankMetric::Step, r, row), 1), 8));
    }
    return out;
}

} // namespace

QCommandLineOption runsDirOption()
{
    return QCommandLineOption(QStringLiteral("runs-dir"),
                              QCoreApplication::translate("traindeck::cli", "Run directories live here (default %1).")
                                  .arg(paths::defaultRunsDir()),
                              QStringLiteral("dir"));
}

QString runsDirFrom(const QCommandLineParser& parser, const QCommandLineOption& option)
{
    if (parser.isSet(option) && !parser.value(option).isEmpty())
        return QDir::cleanPath(QDir::current().absoluteFilePath(parser.value(option)));
    return paths::defaultRunsDir();
}

traindeck::Result<cluster::ClusterProfile> resolveProfile(const QString& nameOrFile, const QString& baseDir)
{
    using cluster::ClusterProfile;
    if (nameOrFile.isEmpty() || nameOrFile == QLatin1String("local"))
        return ClusterProfile::local();
    const bool looksLikeFile = nameOrFile.contains(QLatin1Char('/')) || nameOrFile.endsWith(QLatin1String(".json"));
    if (looksLikeFile) {
        const QString path = QDir::isAbsolutePath(nameOrFile) ? nameOrFile : QDir(baseDir).absoluteFilePath(nameOrFile);
        return ClusterProfile::load(QFileInfo::exists(path) ? path : nameOrFile);
    }
    return ClusterProfile::loadNamed(nameOrFile);
}

int parseOrExit(QCommandLineParser& parser, const QString& name, const QStringList& args, const QString& usage)
{
    QTextStream out(stdout), err(stderr);
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    const QCommandLineOption help(QStringList{QStringLiteral("h"), QStringLiteral("help")},
                                  QCoreApplication::translate("traindeck::cli", "Show help."));
    parser.addOption(help);
    if (!parser.parse(QStringList{QStringLiteral("traindeck-cli ") + name} + args)) {
        err << QStringLiteral("traindeck-cli %1: ").arg(name) << parser.errorText() << '\n' << usage;
        return ExitBadInput;
    }
    if (parser.isSet(help)) {
        out << usage;
        return ExitOk;
    }
    return -1;
}

const runs::Operations& operations()
{
    static const runs::Operations overSsh(ssh::sshTransportFactory());
    return overSsh;
}

Result<RunLocation> locateRunArgument(const QString& runsDir, const QString& run, bool offlineWhenSynced)
{
    const auto dir = resolveRunDir(runsDir, run);
    if (!dir) {
        Diagnostics why = dir.diagnostics();
        for (Diagnostic& d : why)
            d.code = kNoSuchRun;
        return Result<RunLocation>::failure(why);
    }
    return operations().locate(dir.value(), offlineWhenSynced);
}

int exitCodeOf(const Result<RunLocation>& failed)
{
    return failed.errorCode() == kNoSuchRun ? ExitBadInput : ExitFailed;
}

std::unique_ptr<RunMonitor> readingMonitor(const RunLocation& location, QTextStream& err)
{
    std::unique_ptr<RunMonitor> monitor = runs::Operations::monitor(location);
    monitor->setMaxBytesPerPoll(256 << 20);
    QObject::connect(monitor.get(), &RunMonitor::errorOccurred, monitor.get(),
                     [&err](const QString& message) { err << message << '\n'; });
    return monitor;
}

int followStarted(const runs::StartedRun& run, bool json)
{
    RunLocation loc;
    loc.transport = run.transport;
    loc.runDir = run.runDir;
    loc.localDir = run.localDir;
    loc.remote = run.remote && !run.localDir.isEmpty(); // a remote run without a record is followed as is
    FollowOptions fo;
    fo.json = json;
    return followRun(loc, fo);
}

namespace {

// Follows one run for followRun(): prints records, state changes, findings (diagnosed on
// analysis::DiagnosisCadence) and the end, as JSON lines, a redrawn terminal view or plain lines.
class RunFollower {
  public:
    RunFollower(const RunLocation& location, const FollowOptions& options)
        : m_owned(runs::Operations::monitor(location)), m_monitor(*m_owned), m_runDir(location.runDir),
          m_options(options), m_out(stdout), m_tty(!options.json && ::isatty(STDOUT_FILENO))
    {
        m_monitor.setPollInterval(options.pollMs);
        m_live.setOptions(runs::Operations::diagnosisOptions(location.localDir));
        m_sinceDraw.start();
        QObject::connect(&m_monitor, &RunMonitor::errorOccurred, &m_monitor,
                         [](const QString& message) { QTextStream(stderr) << message << '\n'; });
        QObject::connect(&m_monitor, &RunMonitor::recordsReady, &m_loop,
                         [this](const QList<Record>& records, qint64 offsetAfter) { onRecords(records, offsetAfter); });
        QObject::connect(&m_monitor, &RunMonitor::malformedLine, &m_loop,
                         [this](const ParseIssue& i) { onMalformed(i); });
        QObject::connect(&m_monitor, &RunMonitor::stateChanged, &m_loop, [this](JobState s) { onStateChanged(s); });
        QObject::connect(&m_monitor, &RunMonitor::ended, &m_loop, [this](JobState s) { onEnded(s); });
    }

    int exec()
    {
        m_monitor.start(m_options.fromOffset);
        m_loop.exec();
        return m_exitCode;
    }

  private:
    void diagnose(bool force)
    {
        if (!force && !m_cadence.due(m_monitor.store()))
            return;
        m_cadence.ran(m_monitor.store());
        QElapsedTimer took;
        took.start();
        const auto changes = m_live.update(m_monitor.store());
        m_cadence.took(took.elapsed());
        m_findings = m_live.findings();
        for (const auto& change : changes) {
            const Finding& f = change.finding;
            if (f.severity == analysis::Severity::Info && f.kind == analysis::FindingKind::ScalingEfficiency)
                continue; // shown at the end (it is always there)
            if (m_options.json) {
                QJsonObject o = f.toJson();
                o.insert(QStringLiteral("type"), QStringLiteral("finding"));
                printJson(o);
            } else if (!m_tty) {
                m_out << (change.type == analysis::FindingHistory::Change::Type::Raised
                              ? Follow::tr("finding [%1] %2")
                              : Follow::tr("finding resolved [%1] %2"))
                             .arg(Finding::severityName(f.severity), f.summary)
                      << '\n';
                m_out.flush();
            }
        }
    }

    void draw()
    {
        const MetricStore& s = m_monitor.store();
        m_out << "\x1b[H\x1b[2J";
        m_out << Follow::tr("run %1  state %2").arg(QFileInfo(m_runDir).fileName(), jobStateName(m_monitor.state()));
        if (!m_monitor.stateDetail().isEmpty())
            m_out << " (" << m_monitor.stateDetail() << ')';
        m_out << '\n';
        if (s.rowCount() > 0) {
            const qint64 row = s.rowCount() - 1;
            m_out << Follow::tr("step %1%2  loss %3  %4 tok/s  %5 samples/s")
                         .arg(s.stepAt(row))
                         .arg(m_maxSteps > 0 ? QStringLiteral("/%1").arg(m_maxSteps) : QString())
                         .arg(formatNumber(s.scalarAt(Scalar::Loss, row), 4))
                         .arg(formatNumber(s.scalarAt(Scalar::TokensPerS, row), 0))
                         .arg(formatNumber(s.scalarAt(Scalar::SamplesPerS, row), 1))
                  << '\n';
            m_out << Follow::tr("per-rank phases of the last step (d data, f forward, b backward, c comm transfer, w "
                                "comm wait, o optimizer):")
                  << '\n';
            for (const QString& l : phaseBars(s, 40))
                m_out << l << '\n';
        }
        if (!m_findings.isEmpty()) {
            m_out << Follow::tr("findings:") << '\n';
            for (const Finding& f : m_findings)
                m_out << "  [" << Finding::severityName(f.severity) << "] " << f.summary << '\n';
        }
        const QStringList tail = m_monitor.stderrTail();
        if (!tail.isEmpty()) {
            m_out << Follow::tr("stderr:") << '\n';
            for (const QString& l : tail.mid(qMax<qsizetype>(0, tail.size() - 4)))
                m_out << "  " << l.left(160) << '\n';
        }
        m_out.flush();
        m_sinceDraw.restart();
    }

    // One line per step, error, warning and checkpoint (stdout not a terminal).
    void printLine(const Record& rec)
    {
        if (const auto* st = std::get_if<StepRecord>(&rec)) {
            double maxMs = 0;
            for (float v : st->series(RankMetric::Step))
                maxMs = std::max(maxMs, double(v));
            m_out << Follow::tr("step %1%2  loss %3  %4 tok/s  %5 ms/step")
                         .arg(st->step)
                         .arg(m_maxSteps > 0 ? QStringLiteral("/%1").arg(m_maxSteps) : QString())
                         .arg(formatNumber(st->loss, 4))
                         .arg(formatNumber(st->tokensPerS, 0))
                         .arg(formatNumber(maxMs, 0))
                  << '\n';
        } else if (const auto* e = std::get_if<ErrorRecord>(&rec)) {
            m_out << Follow::tr("error: rank %1 on %2: %3").arg(e->rank).arg(e->host, e->message) << '\n';
        } else if (const auto* w = std::get_if<WarningRecord>(&rec)) {
            m_out << Follow::tr("warning: rank %1 on %2: %3").arg(w->rank).arg(w->host, w->message) << '\n';
        } else if (const auto* c = std::get_if<CheckpointRecord>(&rec)) {
            m_out << Follow::tr("checkpoint at step %1: %2").arg(c->step).arg(c->path) << '\n';
        }
        m_out.flush();
    }

    void onRecords(const QList<Record>& records, qint64 offsetAfter)
    {
        for (qsizetype i = 0; i < records.size(); ++i) {
            const Record& rec = records[i];
            if (const auto* h = std::get_if<HelloRecord>(&rec))
                m_maxSteps = qint64(h->hparams.value(QStringLiteral("max_steps")).toDouble(-1));
            if (m_options.json) {
                QJsonObject o = recordJson(rec);
                o.insert(QStringLiteral("next_offset"),
                         i + 1 < records.size() ? originOffset(records[i + 1]) : offsetAfter);
                printJson(o);
            } else if (!m_tty && m_options.printSteps) {
                printLine(rec);
            }
        }
        diagnose(false);
        if (m_tty && m_sinceDraw.elapsed() > 400)
            draw();
    }

    void onMalformed(const ParseIssue& i)
    {
        if (m_options.json)
            printJson({{QStringLiteral("type"), QStringLiteral("malformed")},
                       {QStringLiteral("line"), i.line},
                       {QStringLiteral("offset"), i.offset},
                       {QStringLiteral("reason"), i.reason}});
        else
            QTextStream(stderr) << Follow::tr("metrics.jsonl: %1 (skipped)").arg(i.toString()) << '\n';
    }

    void onStateChanged(JobState s)
    {
        const QString detail = m_monitor.stateDetail();
        if (m_options.json) {
            const RunFiles f = m_monitor.files();
            QJsonObject o{{QStringLiteral("type"), QStringLiteral("state")},
                          {QStringLiteral("state"), jobStateName(s)},
                          {QStringLiteral("run_dir"), m_runDir},
                          {QStringLiteral("pid"), f.pid}};
            if (f.slurmJob)
                o.insert(QStringLiteral("slurm_job"), f.slurmJob->jobId);
            if (!detail.isEmpty())
                o.insert(QStringLiteral("detail"), detail);
            printJson(o);
        } else if (m_tty) {
            draw();
        } else {
            m_out << (detail.isEmpty() ? Follow::tr("state: %1").arg(jobStateName(s))
                                       : Follow::tr("state: %1 (%2)").arg(jobStateName(s), detail))
                  << '\n';
            m_out.flush();
        }
    }

    void printEndJson(JobState s, const FailureInfo& failure)
    {
        if (s != JobState::Finished) {
            QJsonObject o = failure.toJson();
            o.insert(QStringLiteral("type"), QStringLiteral("failure"));
            o.insert(QStringLiteral("state"), jobStateName(s));
            printJson(o);
        }
        QJsonObject end{{QStringLiteral("type"), QStringLiteral("end")},
                        {QStringLiteral("state"), jobStateName(s)},
                        {QStringLiteral("last_step"), m_monitor.store().lastStep()},
                        {QStringLiteral("metrics_offset"), m_monitor.metricsOffset()},
                        {QStringLiteral("malformed_lines"), m_monitor.malformedLines()},
                        {QStringLiteral("exit_code"), exitCodeFor(s)}};
        if (!m_monitor.stateDetail().isEmpty())
            end.insert(QStringLiteral("detail"), m_monitor.stateDetail());
        printJson(end);
    }

    void printEndText(JobState s, const FailureInfo& failure)
    {
        if (m_tty)
            draw();
        m_out << Follow::tr("run %1 %2 after %n step(s)", nullptr, int(qMax<qint64>(0, m_monitor.store().lastStep())))
                     .arg(QFileInfo(m_runDir).fileName(), jobStateName(s))
              << '\n';
        if (!m_monitor.stateDetail().isEmpty())
            m_out << Follow::tr("slurm: %1").arg(m_monitor.stateDetail()) << '\n';
        if (s == JobState::Failed || s == JobState::Lost)
            m_out << Follow::tr("failure: %1").arg(failure.summary()) << '\n';
        if (s != JobState::Finished && !failure.stderrTail.isEmpty()) {
            m_out << Follow::tr("last stderr lines:") << '\n';
            for (const QString& l : failure.stderrTail.mid(qMax<qsizetype>(0, failure.stderrTail.size() - 8)))
                m_out << "  " << l << '\n';
        }
        m_out.flush();
    }

    void onEnded(JobState s)
    {
        diagnose(true);
        if (m_options.json)
            printEndJson(s, m_monitor.failure());
        else
            printEndText(s, m_monitor.failure());
        m_exitCode = exitCodeFor(s);
        m_loop.quit();
    }

    const std::unique_ptr<RunMonitor> m_owned;
    RunMonitor& m_monitor;
    const QString m_runDir;
    const FollowOptions m_options;
    QTextStream m_out;
    const bool m_tty;
    analysis::LiveDiagnosis m_live;
    analysis::DiagnosisCadence m_cadence;
    QList<Finding> m_findings;
    QElapsedTimer m_sinceDraw;
    qint64 m_maxSteps = -1;
    int m_exitCode = ExitFailed;
    QEventLoop m_loop;
};

} // namespace

int followRun(const RunLocation& location, const FollowOptions& options)
{
    return RunFollower(location, options).exec();
}

} // namespace traindeck::cli
