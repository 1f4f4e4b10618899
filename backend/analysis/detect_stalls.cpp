#include "analysis/detector.h"

#include <QCoreApplication>
#include <QHash>
#include <QJsonArray>
#include <QJsonObject>
#include <QMap>
#include <cmath>

namespace traindeck::analysis::detectors {

// ---- stalls ---------------------------------------------------------------------------------
//
// The trainer's stall inspector (trainer/dist/stall.h) writes a `warning` with code "stall" when ranks
// stop moving, naming the ranks that hold the job up and how. The latest warning of a step stands for
// that stall; it holds until the job moves past it (a later step record, or the run finishing).

namespace {

QString phaseLabel(const QString& phase)
{
    static const QHash<QString, const char*> labels = {
        {QStringLiteral("setup"), QT_TRANSLATE_NOOP("traindeck::analysis::Diagnosis", "setup")},
        {QStringLiteral("data"), QT_TRANSLATE_NOOP("traindeck::analysis::Diagnosis", "data loading")},
        {QStringLiteral("forward"), QT_TRANSLATE_NOOP("traindeck::analysis::Diagnosis", "the forward pass")},
        {QStringLiteral("backward"), QT_TRANSLATE_NOOP("traindeck::analysis::Diagnosis", "the backward pass")},
        {QStringLiteral("allreduce"), QT_TRANSLATE_NOOP("traindeck::analysis::Diagnosis", "the gradient allreduce")},
        {QStringLiteral("optimizer"), QT_TRANSLATE_NOOP("traindeck::analysis::Diagnosis", "the optimizer step")},
        {QStringLiteral("report"),
         QT_TRANSLATE_NOOP("traindeck::analysis::Diagnosis", "the gather of the step's figures")},
        {QStringLiteral("checkpoint_wait"),
         QT_TRANSLATE_NOOP("traindeck::analysis::Diagnosis", "the checkpoint barrier")},
        {QStringLiteral("checkpoint_write"),
         QT_TRANSLATE_NOOP("traindeck::analysis::Diagnosis", "writing a checkpoint")},
        {QStringLiteral("finished"), QT_TRANSLATE_NOOP("traindeck::analysis::Diagnosis", "the end of the run")},
    };
    const auto it = labels.constFind(phase);
    return it == labels.constEnd() ? phase : QCoreApplication::translate("traindeck::analysis::Diagnosis", it.value());
}

} // namespace

void stalls(const MetricStore& s, const DiagnosisOptions& o, QList<Finding>& out)
{
    QMap<qint64, const metrics::WarningRecord*> latest; // by stalled step
    for (const metrics::WarningRecord& w : s.warnings())
        if (w.code == QLatin1String("stall") && !w.stall.isEmpty())
            latest[w.stall.value(QStringLiteral("step")).toInteger(-1)] = &w;
    const qint64 lastStep = s.lastStep();
    const auto done = s.done();
    for (auto it = latest.cbegin(); it != latest.cend(); ++it) {
        const qint64 step = it.key();
        const metrics::WarningRecord& w = *it.value();
        if (step < 0 || (o.fromStep >= 0 && step < o.fromStep) || (o.toStep >= 0 && step > o.toStep))
            continue;
        const QJsonObject& d = w.stall;
        const QString kase = d.value(QStringLiteral("case")).toString();
        const QString phase = d.value(QStringLiteral("phase")).toString();
        const double waited = d.value(QStringLiteral("waited_s")).toDouble();
        const QJsonArray culprits = d.value(QStringLiteral("ranks")).toArray();
        const QJsonArray waiting = d.value(QStringLiteral("waiting")).toArray();

        Finding f;
        f.kind = FindingKind::Stall;
        f.severity = Severity::Critical;
        QStringList where; // "rank 1 (node2) in data loading of step 3"
        for (const QJsonValue v : culprits) {
            const QJsonObject r = v.toObject();
            const int rank = r.value(QStringLiteral("rank")).toInt(-1);
            QString host = r.value(QStringLiteral("host")).toString();
            if (host.isEmpty())
                host = s.hostOf(rank);
            f.ranks.append(rank);
            f.hosts.append(host);
            const QString who = host.isEmpty() ? tr("rank %1").arg(rank) : tr("rank %1 (%2)").arg(rank).arg(host);
            where.append(tr("%1 in %2 of step %3")
                             .arg(who, phaseLabel(r.value(QStringLiteral("phase")).toString()),
                                  QString::number(r.value(QStringLiteral("step")).toInteger())));
        }
        if (f.ranks.isEmpty() && w.rank >= 0) {
            f.ranks.append(w.rank);
            f.hosts.append(w.host);
            where.append(w.host.isEmpty() ? tr("rank %1").arg(w.rank) : tr("rank %1 (%2)").arg(w.rank).arg(w.host));
        }
        f.firstStep = f.lastStep = f.raisedStep = step;
        // The job moved past the stalled step (a collective after a step's figures waits for that step's
        // record to be written, so it counts only once the next step is there).
        const bool afterStep = phase == QLatin1String("report") || phase.startsWith(QLatin1String("checkpoint"));
        const bool movedOn = lastStep >= step + (afterStep ? 1 : 0);
        const bool finished =
            done && done->status == metrics::DoneRecord::Status::Finished && done->origin.offset > w.origin.offset;
        f.state = movedOn || finished ? FindingState::Resolved : FindingState::Active;
        if (f.state == FindingState::Resolved)
            f.resolvedStep = std::max(lastStep, step);
        f.addEvidence(QStringLiteral("waited_s"), waited);
        f.addEvidence(QStringLiteral("step"), double(step));
        f.addEvidence(QStringLiteral("ranks_waiting"), double(waiting.size()));
        f.addEvidence(QStringLiteral("in_collective"), kase == QLatin1String("in_collective") ? 1 : 0);
        f.addEvidence(QStringLiteral("no_heartbeat"), kase == QLatin1String("no_heartbeat") ? 1 : 0);

        const QString seconds = QString::number(waited, 'f', 0);
        const QString list = where.join(QStringLiteral("; "));
        if (kase == QLatin1String("in_collective")) {
            f.summary = tr("Stall: every rank entered %1 of step %2 and none finished it for %3 s: stuck in "
                           "communication, not before the collective")
                            .arg(phaseLabel(phase), QString::number(step), seconds);
            f.recommendation = tr("Check the network between the hosts (a link down, a firewall, the wrong interface "
                                  "in btl_tcp_if_include or NCCL_SOCKET_IFNAME), then that MPI and NCCL match on every "
                                  "node (the Checks page).");
        } else if (kase == QLatin1String("no_heartbeat")) {
            f.summary = tr("Stall: no word from %1 for %2 s: the process is stopped or hung, or its host is "
                           "unreachable")
                            .arg(list, seconds);
            f.recommendation = tr("Check that the process still runs on that host (stopped, swapping, out of "
                                  "memory) and that the host answers; its log is in the Logs tab.");
        } else if (!waiting.isEmpty()) {
            f.summary = tr("Stall: %1 did not reach %2 of step %3, which %n other rank(s) waited in for %4 s: "
                           "stuck before the collective (data, compute or I/O), not in communication",
                           nullptr, int(waiting.size()))
                            .arg(list, phaseLabel(phase), QString::number(step), seconds);
            f.recommendation = tr("Look at what that rank was doing: its log (Logs tab), the file system its data "
                                  "and checkpoints are on, its memory and swap. --stall-abort ends a job that "
                                  "hangs like this instead of letting it wait.");
        } else {
            f.summary = tr("Stall: %1 made no progress for %2 s").arg(list, seconds);
            f.recommendation = tr("Look at what that rank was doing: its log (Logs tab), the file system its data "
                                  "and checkpoints are on, its memory and swap. --stall-abort ends a job that "
                                  "hangs like this instead of letting it wait.");
        }
        if (f.state == FindingState::Resolved)
            f.summary = tr("Resolved at step %1: %2").arg(QString::number(f.resolvedStep), f.summary);
        out.append(f);
    }
}

} // namespace traindeck::analysis::detectors
