// traindeck-cli report RUN [--json | --html DIR] [--runs-dir DIR]: offline review of a run (live or
// ended): state, failure attribution, and the diagnosis findings. --json prints one object with a
// `findings` array ({kind, severity, ranks, hosts, evidence, recommendation, ...}); --html writes
// DIR/index.html with PNG plots (loss, throughput, per-rank step time, per-rank phases). The plots are
// drawn pixel by pixel into a QImage and written by Qt Gui's PNG writer: neither needs a
// QGuiApplication, unlike QPainter text (fonts). A remote run is read from its local record once it
// has ended (no network), over SSH while it runs.
#include "cli_common.h"
#include "command.h"

#include "analysis/balance.h"
#include "analysis/diagnosis.h"
#include "analysis/phases.h"
#include "common/format.h"
#include "launch/runmonitor.h"
#include "launch/transport.h"
#include "runs/operations.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>
#include <QTextStream>

#include <algorithm>
#include <cmath>
#include <optional>

using namespace traindeck::cli;
using namespace traindeck::launch;
using namespace traindeck::metrics;
using traindeck::formatNumber;
using traindeck::analysis::balanceSummary;
using traindeck::analysis::BalanceSummary;
using traindeck::analysis::Diagnosis;
using traindeck::analysis::Finding;
using traindeck::analysis::Phase;
using traindeck::analysis::PhaseMeans;
using traindeck::analysis::ShareChange;

namespace {

struct ReportCommand {
    Q_DECLARE_TR_FUNCTIONS(ReportCommand)
};

QString usage()
{
    return ReportCommand::tr(
        "usage: traindeck-cli report RUN [--json | --html DIR] [--runs-dir DIR]\n"
        "Summarises a run: state, failure (rank, host, exit code or signal), findings with evidence and\n"
        "recommendations. --json: one JSON object; --html DIR: DIR/index.html plus PNG plots.\n"
        "exit: 0 report written, 1 the run's files cannot be read or DIR cannot be written, 2 bad input.\n");
}

// ---- a tiny raster (lines and boxes; no QPainter, whose text would need fonts) ---------------

class Raster {
  public:
    Raster(int w, int h, QRgb bg) : img_(w, h, QImage::Format_RGB32) { img_.fill(bg); }
    void set(int x, int y, QRgb c)
    {
        if (img_.valid(x, y))
            img_.setPixel(x, y, c);
    }
    void fill(int x0, int y0, int x1, int y1, QRgb c)
    {
        for (int y = std::min(y0, y1); y <= std::max(y0, y1); ++y)
            for (int x = std::min(x0, x1); x <= std::max(x0, x1); ++x)
                set(x, y, c);
    }
    void line(int x0, int y0, int x1, int y1, QRgb c)
    {
        const int dx = std::abs(x1 - x0), sx = x0 < x1 ? 1 : -1;
        const int dy = -std::abs(y1 - y0), sy = y0 < y1 ? 1 : -1;
        int e = dx + dy;
        for (int guard = 0; guard < 100000; ++guard) {
            set(x0, y0, c);
            set(x0, y0 + 1, c); // 2 px thick
            if (x0 == x1 && y0 == y1)
                break;
            const int e2 = 2 * e;
            if (e2 >= dy) {
                e += dy;
                x0 += sx;
            }
            if (e2 <= dx) {
                e += dx;
                y0 += sy;
            }
        }
    }
    bool save(const QString& path) const { return img_.save(path, "PNG"); }

  private:
    QImage img_;
};

constexpr QRgb kWhite = qRgb(255, 255, 255), kBlack = qRgb(0, 0, 0), kGrid = qRgb(220, 220, 220);
const QRgb kPalette[] = {qRgb(31, 119, 180),  qRgb(255, 127, 14), qRgb(44, 160, 44),   qRgb(214, 39, 40),
                         qRgb(148, 103, 189), qRgb(140, 86, 75),  qRgb(227, 119, 194), qRgb(127, 127, 127)};

struct PlotRange {
    double yMin = 0, yMax = 1;
    qint64 xMin = 0, xMax = 1;
};

// Lines of the given series (min/max decimated to the plot width) on one axis box.
PlotRange plot(const MetricStore& s, const QList<SeriesId>& series, const QString& path)
{
    const int W = 800, H = 300, L = 10, R = 10, T = 10, B = 10;
    Raster img(W, H, kWhite);
    PlotRange range;
    range.xMin = s.firstStep();
    range.xMax = std::max(s.lastStep(), range.xMin + 1);
    const int pw = W - L - R, ph = H - T - B;
    std::vector<std::vector<MinMaxBucket>> data;
    double lo = INFINITY, hi = -INFINITY;
    for (const SeriesId& id : series) {
        data.push_back(s.decimate(id, range.xMin, range.xMax, pw));
        for (const MinMaxBucket& b : data.back()) {
            if (b.count > 0) {
                lo = std::min(lo, double(b.min));
                hi = std::max(hi, double(b.max));
            }
        }
    }
    if (!std::isfinite(lo)) {
        lo = 0;
        hi = 1;
    }
    if (hi - lo < 1e-9) {
        hi += 0.5;
        lo -= 0.5;
    }
    range.yMin = lo;
    range.yMax = hi;
    for (int i = 1; i < 5; ++i) {
        const int y = T + ph * i / 5;
        for (int x = L; x < W - R; x += 4)
            img.set(x, y, kGrid);
    }
    img.fill(L, T, W - R, T, kBlack);
    img.fill(L, H - B, W - R, H - B, kBlack);
    img.fill(L, T, L, H - B, kBlack);
    img.fill(W - R, T, W - R, H - B, kBlack);
    auto xOf = [&](double step) {
        return L + int(std::lround((step - range.xMin) / double(range.xMax - range.xMin) * pw));
    };
    auto yOf = [&](double v) { return T + ph - int(std::lround((v - lo) / (hi - lo) * ph)); };
    for (size_t k = 0; k < data.size(); ++k) {
        const QRgb c = kPalette[k % 8];
        int px = -1, py = -1;
        for (const MinMaxBucket& b : data[k]) {
            if (b.count == 0) {
                px = -1;
                continue;
            }
            const int x = xOf(0.5 * double(b.firstStep + b.lastStep));
            const int y0 = yOf(b.min), y1 = yOf(b.max);
            img.line(x, y0, x, y1, c);
            const int y = (y0 + y1) / 2;
            if (px >= 0)
                img.line(px, py, x, y, c);
            px = x;
            py = y;
        }
    }
    img.save(path);
    return range;
}

// Mean per-rank phase breakdown over the run as horizontal stacked bars, in analysis::Phase order:
// blue data, orange forward, green backward, red comm transfer, pink comm wait, purple optimizer.
void phasePlot(const MetricStore& s, const QString& path)
{
    const int n = std::max(1, s.worldSize());
    const int W = 800, rowH = 24, H = 20 + n * rowH;
    Raster img(W, H, kWhite);
    const int phaseColor[int(Phase::Count)] = {0, 1, 2, 3, 6, 4};
    const PhaseMeans means = traindeck::analysis::phaseMeans(s, 0); // the whole run
    double maxTotal = 0;
    for (int r = 0; r < means.ranks; ++r)
        maxTotal = std::max(maxTotal, means.total(r));
    for (int r = 0; r < means.ranks && maxTotal > 0; ++r) {
        int x = 10;
        for (int p = 0; p < int(Phase::Count); ++p) {
            const double ms = means.at(Phase(p), r);
            const int w = std::isfinite(ms) ? int(std::lround(ms / maxTotal * (W - 20))) : 0;
            if (w > 0)
                img.fill(x, 10 + r * rowH, x + w - 1, 10 + r * rowH + rowH - 6, kPalette[phaseColor[p]]);
            x += std::max(0, w);
        }
    }
    img.save(path);
}

QString esc(const QString& s)
{
    return s.toHtmlEscaped();
}

QString sharesText(const std::vector<int>& samples);
QString balanceText(const BalanceSummary& b);

// One plot for the HTML report: the PNG written to DIR/FILE, and its image with a caption of the
// ranges drawn (after `captionLead`).
QString plotFigure(const MetricStore& s, const QList<SeriesId>& series, const QString& dir, const QString& file,
                   const QString& alt, const QString& captionLead = {})
{
    const PlotRange r = plot(s, series, dir + QLatin1Char('/') + file);
    return QStringLiteral("<img src=\"%1\" alt=\"%2\"><p>%3%4</p>\n")
        .arg(file, esc(alt), esc(captionLead),
             esc(ReportCommand::tr("steps %1 to %2; y from %3 to %4")
                     .arg(r.xMin)
                     .arg(r.xMax)
                     .arg(formatNumber(r.yMin, 4, 'g'), formatNumber(r.yMax, 4, 'g'))));
}

bool writeHtml(const QString& dir, const QString& runId, JobState state, const RunMonitor& m,
               const QList<Finding>& findings, QTextStream& err)
{
    if (!QDir().mkpath(dir)) {
        err << ReportCommand::tr("%1: cannot create directory").arg(dir) << '\n';
        return false;
    }
    const MetricStore& s = m.store();
    QString h;
    h += QStringLiteral("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>%1</title>\n"
                        "<style>body{font-family:sans-serif;margin:2em;max-width:60em}table{border-collapse:collapse}"
                        "td,th{border:1px solid #ccc;padding:2px 8px;text-align:left}.critical{color:#b00}"
                        ".warning{color:#b60}</style></head><body>\n")
             .arg(esc(runId));
    h += QStringLiteral("<h1>%1</h1>\n<p>%2</p>\n")
             .arg(esc(runId),
                  esc(ReportCommand::tr("state %1, %n step(s), %2 rank(s)", nullptr, int(qMax<qint64>(0, s.lastStep())))
                          .arg(jobStateName(state))
                          .arg(s.worldSize())));
    if (state == JobState::Failed || state == JobState::Lost)
        h += QStringLiteral("<p class=\"critical\">%1</p>\n").arg(esc(m.failure().summary()));
    h += QStringLiteral("<h2>%1</h2>\n").arg(esc(ReportCommand::tr("Findings")));
    if (findings.isEmpty())
        h += QStringLiteral("<p>%1</p>\n").arg(esc(ReportCommand::tr("None.")));
    for (const Finding& f : findings) {
        QStringList ev;
        for (const auto& [k, v] : f.evidence)
            ev.append(k + QLatin1Char('=') + formatNumber(v, 4, 'g'));
        h += QStringLiteral("<h3 class=\"%1\">[%1] %2</h3><p>%3</p><p>%4</p><p><i>%5</i></p>\n")
                 .arg(Finding::severityName(f.severity), esc(f.summary), esc(f.timeline()),
                      esc(ev.join(QStringLiteral(", "))), esc(f.recommendation));
    }
    if (s.rowCount() > 0) {
        struct P {
            const char* file;
            QString title;
            QList<SeriesId> series;
        };
        QList<SeriesId> stepMs;
        for (int r = 0; r < s.worldSize(); ++r)
            stepMs.append(SeriesId::of(RankMetric::Step, r));
        const QList<P> plots{
            {"loss.png", ReportCommand::tr("Loss"), {SeriesId::of(Scalar::Loss)}},
            {"throughput.png", ReportCommand::tr("Throughput (tokens/s)"), {SeriesId::of(Scalar::TokensPerS)}},
            {"step_ms.png", ReportCommand::tr("Step time per rank (ms)"), stepMs}};
        h += QStringLiteral("<h2>%1</h2>\n").arg(esc(ReportCommand::tr("Plots")));
        for (const P& p : plots)
            h += QStringLiteral("<h3>%1</h3>").arg(esc(p.title)) +
                 plotFigure(s, p.series, dir, QString::fromLatin1(p.file), p.title);
        // Shares moved by --balance auto (or fixed unevenly), as in the text report, with every change
        // and a plot of each rank's share; an even split that never moved says nothing.
        if (const BalanceSummary b = balanceSummary(s); b.hasSamples() && (b.changed() || !b.sharesEqual())) {
            h += QStringLiteral("<h3>%1</h3><p>%2</p>\n").arg(esc(ReportCommand::tr("Balancing")), esc(balanceText(b)));
            if (b.changed()) {
                h += QStringLiteral("<table><tr><th>%1</th><th>%2</th></tr>\n")
                         .arg(esc(ReportCommand::tr("step")), esc(ReportCommand::tr("samples per rank")));
                for (const ShareChange& c : b.changes)
                    h += QStringLiteral("<tr><td>%1</td><td>%2</td></tr>\n").arg(c.step).arg(sharesText(c.samples));
                h += QStringLiteral("</table>\n");
            }
            QList<SeriesId> samples;
            for (int r = 0; r < s.worldSize(); ++r)
                samples.append(SeriesId::of(RankMetric::Samples, r));
            h += plotFigure(s, samples, dir, QStringLiteral("samples.png"), ReportCommand::tr("Samples per rank"),
                            ReportCommand::tr("samples per rank and step, one line per rank; "));
        }
        phasePlot(s, dir + QStringLiteral("/phases.png"));
        QStringList hostList;
        for (int r = 0; r < s.worldSize(); ++r)
            hostList.append(QStringLiteral("%1 %2").arg(r).arg(esc(s.hostOf(r))));
        h += QStringLiteral("<h3>%1</h3><img src=\"phases.png\" alt=\"phases\"><p>%2</p><p>%3</p>\n")
                 .arg(esc(ReportCommand::tr("Mean phase times per rank")),
                      esc(ReportCommand::tr(
                          "one bar per rank, top to bottom; blue data, orange forward, green backward, "
                          "red comm transfer, pink comm wait, purple optimizer")),
                      hostList.join(QStringLiteral(", ")));
    }
    h += QStringLiteral("</body></html>\n");
    QSaveFile f(dir + QStringLiteral("/index.html"));
    if (!f.open(QIODevice::WriteOnly) || f.write(h.toUtf8()) < 0 || !f.commit()) {
        err << ReportCommand::tr("%1: cannot write: %2").arg(f.fileName(), f.errorString()) << '\n';
        return false;
    }
    return true;
}

// The shares as "19/13".
QString sharesText(const std::vector<int>& samples)
{
    QStringList parts;
    for (int n : samples)
        parts.append(QString::number(n));
    return parts.join(QLatin1Char('/'));
}

// The balance history in one line: the current shares, when they changed and what the last change
// gained; an unchanged uneven split in a short line, an even one not at all (empty).
QString balanceText(const BalanceSummary& b)
{
    if (!b.hasSamples() || (!b.changed() && b.sharesEqual()))
        return {};
    if (!b.changed())
        return ReportCommand::tr("Balancing: samples per rank %1 since step %2 (unchanged)")
            .arg(sharesText(b.samples))
            .arg(b.sinceStep);
    // A long history names its last changes only.
    constexpr int kListedChanges = 5;
    QStringList steps;
    const int total = int(b.changes.size());
    if (total > kListedChanges)
        steps.append(QStringLiteral("…"));
    for (int i = std::max(0, total - kListedChanges); i < total; ++i)
        steps.append(ReportCommand::tr("step %1").arg(b.changes[size_t(i)].step));
    QString line = ReportCommand::tr("Balancing: samples per rank %1 since step %2 (%n change(s): %3)", nullptr, total)
                       .arg(sharesText(b.samples))
                       .arg(b.sinceStep)
                       .arg(steps.join(QStringLiteral(", ")));
    if (b.hasGain())
        line += ReportCommand::tr("; median step %1 ms before the last change, %2 ms after (%3 %)")
                    .arg(QString::number(b.beforeMs, 'f', 0), QString::number(b.afterMs, 'f', 0),
                         (b.gainPct > 0 ? QStringLiteral("+") : QString()) + QString::number(b.gainPct, 'f', 1));
    else
        line += ReportCommand::tr("; too few steps around the last change to compare step times");
    return line;
}

// `balance` of --json: the shares, their changes and the step times around the last change (null
// without enough steps).
QJsonObject balanceJson(const BalanceSummary& b)
{
    auto shares = [](const std::vector<int>& samples) {
        QJsonArray a;
        for (int n : samples)
            a.append(n);
        return a;
    };
    auto numberOrNull = [&](double v) { return b.hasGain() ? QJsonValue(v) : QJsonValue(QJsonValue::Null); };
    QJsonArray changes;
    for (const ShareChange& c : b.changes)
        changes.append(QJsonObject{{QStringLiteral("step"), c.step}, {QStringLiteral("samples"), shares(c.samples)}});
    return QJsonObject{{QStringLiteral("samples"), shares(b.samples)},
                       {QStringLiteral("since_step"), b.sinceStep},
                       {QStringLiteral("changes"), changes},
                       {QStringLiteral("before_ms"), numberOrNull(b.beforeMs)},
                       {QStringLiteral("after_ms"), numberOrNull(b.afterMs)},
                       {QStringLiteral("gain_pct"), numberOrNull(b.gainPct)}};
}

// The gradient allreduce per step, averaged over steps and ranks: the part on the critical path
// (comm_ms) and the part overlapped with backward (comm_hidden_ms, --overlap on); nullopt without the
// latter.
struct CommSplit {
    double exposedMs = 0, hiddenMs = 0;
};
std::optional<CommSplit> commSplit(const MetricStore& s)
{
    if (s.rowCount() == 0 || !s.hasRankMetric(RankMetric::CommHidden))
        return std::nullopt;
    CommSplit split;
    int n = 0;
    for (qint64 row = 0; row < s.rowCount(); ++row)
        for (int r = 0; r < s.worldSize(); ++r) {
            const double exposed = s.rankAt(RankMetric::Comm, r, row),
                         hidden = s.rankAt(RankMetric::CommHidden, r, row);
            if (!std::isfinite(exposed) || !std::isfinite(hidden))
                continue;
            split.exposedMs += exposed;
            split.hiddenMs += hidden;
            ++n;
        }
    if (n == 0)
        return std::nullopt;
    split.exposedMs /= n;
    split.hiddenMs /= n;
    return split;
}

int run(const QStringList& args)
{
    QTextStream out(stdout), err(stderr);
    QCommandLineParser parser;
    const QCommandLineOption jsonOpt(QStringLiteral("json"), ReportCommand::tr("One JSON object."));
    const QCommandLineOption htmlOpt(
        QStringLiteral("html"), ReportCommand::tr("Write an HTML report with PNG plots here."), QStringLiteral("dir"));
    const QCommandLineOption runsDir = runsDirOption();
    parser.addOptions({jsonOpt, htmlOpt, runsDir});
    if (const int rc = parseOrExit(parser, QStringLiteral("report"), args, usage()); rc >= 0)
        return rc;
    if (parser.positionalArguments().size() != 1 || (parser.isSet(jsonOpt) && parser.isSet(htmlOpt))) {
        err << ReportCommand::tr("traindeck-cli report: expected one RUN and at most one of --json, --html") << '\n'
            << usage();
        return ExitBadInput;
    }
    const auto loc = locateRunArgument(runsDirFrom(parser, runsDir), parser.positionalArguments().first(), true);
    if (!loc) {
        err << loc.errorString();
        return exitCodeOf(loc);
    }
    // One poll reads the whole run; a remote run that has ended gets its record synced on the way.
    const std::unique_ptr<RunMonitor> monitor = readingMonitor(loc.value(), err);
    RunMonitor& m = *monitor;
    m.poll();
    const JobState state = m.state();
    const MetricStore& s = m.store();
    const QList<Finding> findings = Diagnosis::analyze(s, traindeck::runs::Operations::diagnosisOptions(loc->localDir));
    const QString runId = QFileInfo(loc->localDir).fileName();

    if (parser.isSet(htmlOpt)) {
        const QString htmlDir = QDir::current().absoluteFilePath(parser.value(htmlOpt));
        if (!writeHtml(htmlDir, runId, state, m, findings, err))
            return ExitFailed;
        out << htmlDir << "/index.html\n";
        return ExitOk;
    }
    if (parser.isSet(jsonOpt)) {
        QJsonObject o;
        o.insert(QStringLiteral("run_id"), runId);
        o.insert(QStringLiteral("run_dir"), loc->localDir);
        if (loc->record) {
            o.insert(QStringLiteral("head"), loc->record->head);
            o.insert(QStringLiteral("remote_run_dir"), loc->record->remoteRunDir);
        }
        o.insert(QStringLiteral("state"), jobStateName(state));
        o.insert(QStringLiteral("last_step"), s.lastStep());
        o.insert(QStringLiteral("world_size"), s.worldSize());
        QJsonArray hosts;
        for (int r = 0; r < s.worldSize(); ++r)
            hosts.append(s.hostOf(r));
        o.insert(QStringLiteral("hosts"), hosts);
        if (s.rowCount() > 0)
            o.insert(QStringLiteral("last_loss"), s.scalarAt(Scalar::Loss, s.rowCount() - 1));
        if (const BalanceSummary b = balanceSummary(s); b.hasSamples()) {
            const QJsonObject balance = balanceJson(b);
            o.insert(QStringLiteral("samples_per_rank"), balance.value(QStringLiteral("samples"))); // as before
            o.insert(QStringLiteral("balance"), balance);
        }
        if (const auto comm = commSplit(s)) {
            o.insert(QStringLiteral("comm_exposed_ms"), comm->exposedMs); // mean per step and rank
            o.insert(QStringLiteral("comm_hidden_ms"), comm->hiddenMs);
        }
        if (state != JobState::Finished && isFinal(state))
            o.insert(QStringLiteral("failure"), m.failure().toJson());
        QJsonArray fa;
        for (const Finding& f : findings)
            fa.append(f.toJson());
        o.insert(QStringLiteral("findings"), fa);
        o.insert(QStringLiteral("malformed_lines"), m.malformedLines());
        QJsonArray issues;
        for (const ParseIssue& i : s.issues().mid(0, 20))
            issues.append(i.toString());
        o.insert(QStringLiteral("issues"), issues);
        out << QJsonDocument(o).toJson(QJsonDocument::Indented);
        return ExitOk;
    }
    out << ReportCommand::tr("run %1: %2, %n step(s)", nullptr, int(qMax<qint64>(0, s.lastStep())))
               .arg(runId, jobStateName(state))
        << '\n';
    if (s.rowCount() > 0) {
        QStringList hosts;
        for (int r = 0; r < s.worldSize(); ++r)
            hosts.append(QStringLiteral("%1:%2").arg(r).arg(s.hostOf(r)));
        out << ReportCommand::tr("ranks: %1").arg(hosts.join(QStringLiteral(", "))) << '\n';
        out << ReportCommand::tr("loss: %1 -> %2")
                   .arg(formatNumber(s.scalarAt(Scalar::Loss, 0), 4, 'g'),
                        formatNumber(s.scalarAt(Scalar::Loss, s.rowCount() - 1), 4, 'g'))
            << '\n';
        // Shares moved by --balance auto (or fixed unevenly): who takes how much, since when, and what
        // the last move gained.
        if (const QString balance = balanceText(balanceSummary(s)); !balance.isEmpty())
            out << balance << '\n';
        if (const auto comm = commSplit(s); comm && comm->exposedMs + comm->hiddenMs > 0)
            out << ReportCommand::tr("allreduce per step: %1 ms on the critical path, %2 ms hidden behind backward "
                                     "(%3 % overlapped)")
                       .arg(formatNumber(comm->exposedMs, 3, 'g'), formatNumber(comm->hiddenMs, 3, 'g'),
                            formatNumber(100.0 * comm->hiddenMs / (comm->exposedMs + comm->hiddenMs), 3, 'g'))
                << '\n';
    }
    if (state == JobState::Failed || state == JobState::Lost || state == JobState::Cancelled)
        out << ReportCommand::tr("failure: %1").arg(m.failure().summary()) << '\n';
    if (m.malformedLines() > 0)
        out << ReportCommand::tr("metrics.jsonl: %n malformed line(s) skipped", nullptr, int(m.malformedLines()))
            << '\n';
    out << ReportCommand::tr("findings:") << (findings.isEmpty() ? ReportCommand::tr(" none") : QString()) << '\n';
    for (const Finding& f : findings) {
        out << "  [" << Finding::severityName(f.severity) << "] " << f.summary << '\n';
        if (const QString when = f.timeline(); !when.isEmpty())
            out << "    " << when << '\n';
        QStringList ev;
        for (const auto& [k, v] : f.evidence)
            ev.append(k + QLatin1Char('=') + formatNumber(v, 4, 'g'));
        out << "    " << ev.join(QStringLiteral(", ")) << '\n';
        out << "    " << f.recommendation << '\n';
    }
    return ExitOk;
}

Registration reg{{QStringLiteral("report"), QStringLiteral("findings and plots of a run (text, --json, --html)"), run}};

} // namespace
