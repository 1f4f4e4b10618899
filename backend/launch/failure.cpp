#include "launch/failure.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QRegularExpression>

namespace traindeck::launch {

namespace {
struct Tr {
    Q_DECLARE_TR_FUNCTIONS(traindeck::launch::FailureInfo)
};
} // namespace

QStringList lastLines(const QByteArray& text, int n)
{
    QList<QByteArray> lines = text.split('\n');
    while (!lines.isEmpty() && lines.last().trimmed().isEmpty())
        lines.removeLast();
    QStringList out;
    for (qsizetype i = qMax<qsizetype>(0, lines.size() - n); i < lines.size(); ++i)
        out.append(QString::fromUtf8(lines[i]));
    return out;
}

int rankFromText(QStringView digits)
{
    if (digits.isEmpty() || digits.size() > 7)
        return -1;
    bool ok = false;
    const int rank = digits.toInt(&ok);
    return ok && rank >= 0 && rank <= kMaxRankInText ? rank : -1;
}

FailureInfo attributeFailure(const QList<metrics::ErrorRecord>& errors, const QByteArray& text,
                             std::optional<int> mpirunExitCode, const QStringList& hostsByRank,
                             const QStringList& stderrTail)
{
    FailureInfo f;
    f.stderrTail = stderrTail;
    if (mpirunExitCode) {
        f.mpirunExitCode = *mpirunExitCode;
        f.sources.append(QStringLiteral("wrapper"));
    }
    auto use = [&](int rank, const QString& host, const QString& source) {
        if (f.rank < 0 && rank >= 0) {
            f.rank = rank;
            f.known = true;
        }
        if (rank == f.rank && f.host.isEmpty() && !host.isEmpty())
            f.host = host;
        if (!f.sources.contains(source))
            f.sources.append(source);
    };

    const QString all = QString::fromUtf8(text);
    // mpirun's messages wrap lines; match on whitespace-normalised text.
    const QString flat = all.simplified();

    // 0. A node lost (its daemon killed, the node down, the link cut) is the cause, whatever the
    //    surviving ranks report afterwards about their broken connections.
    static const QRegularExpression lostDaemonRe(QStringLiteral(
        "lost communication with a remote daemon\\..*?Remote daemon\\s*: \\[\\[\\d+,\\d+\\],\\d+\\] on node (\\S+)"));
    static const QRegularExpression lostOwnDaemonRe(
        QStringLiteral("lost communication with its daemon located on node: hostname: (\\S+)"));
    // When the ssh that carries a node's daemon dies first, mpirun reports a daemon that failed (without
    // naming it) and ssh names the node.
    static const QRegularExpression daemonFailedRe(QStringLiteral(
        "ORTE was unable to reliably start one or more daemons|An ORTE daemon has unexpectedly failed after launch"));
    static const QRegularExpression sshLostRe(QStringLiteral("(?:Connection to (\\S+) closed by remote host|Read from "
                                                             "remote host (\\S+?):|ssh: connect to host (\\S+) port)"));
    QRegularExpressionMatch lost = lostDaemonRe.match(flat);
    if (!lost.hasMatch())
        lost = lostOwnDaemonRe.match(flat);
    if (!lost.hasMatch() && daemonFailedRe.match(flat).hasMatch()) {
        const QRegularExpressionMatch ssh = sshLostRe.match(flat);
        if (ssh.hasMatch()) {
            const QString node = ssh.captured(1) + ssh.captured(2) + ssh.captured(3); // one of them matched
            static const QRegularExpression any(QStringLiteral("(\\S+)"));
            lost = any.match(node);
        }
    }
    if (lost.hasMatch()) {
        const QString node = lost.captured(1);
        f.host = node;
        f.lostNode = node;
        f.message =
            Tr::tr("mpirun lost contact with %1 (the node went down, its Open MPI daemon was killed or the link "
                   "to it was cut)")
                .arg(node);
        f.sources.append(QStringLiteral("mpirun"));
        const qsizetype rank = hostsByRank.indexOf(node);
        if (rank >= 0) {
            f.rank = int(rank);
            f.known = true;
        }
        return f;
    }

    // A rank killed by a signal (the OOM killer, kill -9) cannot say so itself, and the ranks that talked to
    // it report failed MPI calls, sometimes before mpirun's word on the signal (seen at 64 testbed ranks on
    // one machine, where the OOM killer ended one). Such a report by another rank is the death's
    // consequence: mpirun's line names the cause.
    static const QRegularExpression signalRe(QStringLiteral(
        "process rank (\\d+) with PID (\\d+) on node (\\S+?) exited on signal (\\d+)(?: \\(([^)]*)\\))?"));
    static const QRegularExpression peerCallFailedRe(QStringLiteral("\\bMPI_[A-Za-z_]+ failed\\b|\\bMPI_ERR_[A-Z_]+"));
    const QRegularExpressionMatch signalled = signalRe.match(flat);
    const auto consequenceOfSignal = [&](int rank, const QString& message) {
        return signalled.hasMatch() && rank != rankFromText(signalled.capturedView(1)) &&
               peerCallFailedRe.match(message).hasMatch();
    };

    // 1. The trainer's own error records (rank 0 writes them for any rank it learns about).
    for (const metrics::ErrorRecord& e : errors) {
        if (e.rank < 0 || consequenceOfSignal(e.rank, e.message))
            continue;
        use(e.rank, e.host, QStringLiteral("metrics"));
        if (e.rank == f.rank) {
            if (f.message.isEmpty())
                f.message = e.message;
            if (e.hasExitCode && f.exitCode < 0)
                f.exitCode = e.exitCode;
        }
        break;
    }

    // 2. Trainer stderr lines. A line blaming a peer (rank 0 noticing rank 1) comes after the
    //    failing rank's own line, so the first one wins.
    //    With mpirun --tag-output the line starts with the rank's tag, "[jobid,rank]<stderr>:", with
    //    srun --label with "RANK: ".
    static const QRegularExpression trainerLine(
        QStringLiteral("^(?:\\[\\d+,\\d+\\]<std\\w+>:|\\s*\\d+: )?traindeck-trainer: rank (\\d+) on ([^:\\s]+): (.*)$"),
        QRegularExpression::MultilineOption);
    for (auto it = trainerLine.globalMatch(all); it.hasNext();) {
        const QRegularExpressionMatch m = it.next();
        const int r = rankFromText(m.capturedView(1));
        if (consequenceOfSignal(r, m.captured(3)))
            continue;
        use(r, m.captured(2), QStringLiteral("trainer"));
        if (r == f.rank && f.message.isEmpty())
            f.message = m.captured(3).trimmed();
        break;
    }

    // 3. mpirun.
    static const QRegularExpression abortRe(
        QStringLiteral("MPI_ABORT was invoked on rank (\\d+) in communicator \\S+ with errorcode (-?\\d+)"));
    static const QRegularExpression exitRe(
        QStringLiteral("Process name: \\[\\[\\d+,\\d+\\],(\\d+)\\] Exit code: (-?\\d+)"));
    static const QRegularExpression nodeRe(QStringLiteral("Local host: (\\S+)"));
    if (const QRegularExpressionMatch& m = signalled; m.hasMatch()) {
        const int r = rankFromText(m.capturedView(1));
        use(r, m.captured(3).remove(QRegularExpression(QStringLiteral("[.,;]$"))), QStringLiteral("mpirun"));
        if (r == f.rank && f.signal == 0) {
            f.signal = m.captured(4).toInt();
            f.signalName = m.captured(5);
        }
    }
    if (const auto m = exitRe.match(flat); m.hasMatch()) {
        const int r = rankFromText(m.capturedView(1));
        use(r, QString(), QStringLiteral("mpirun"));
        if (r == f.rank && f.exitCode < 0)
            f.exitCode = m.captured(2).toInt();
    }
    if (const auto m = abortRe.match(flat); m.hasMatch()) {
        const int r = rankFromText(m.capturedView(1));
        use(r, QString(), QStringLiteral("mpirun"));
        if (r == f.rank && f.exitCode < 0)
            f.exitCode = m.captured(2).toInt();
    }
    // 4. srun (ranks started by srun inside a Slurm job): "srun: error: NODE: task R: Exited with exit
    //    code N" (or "tasks 0-3: Killed"); the first such line is the task that failed first.
    //    Anchored at a line's start: a rank's own output that quotes such a line is not srun's word.
    static const QRegularExpression srunRe(
        QStringLiteral("^srun: error: ([^:\\s]+): tasks? (\\d+)[-,\\d]*: (?:Exited with exit code (\\d+)|(.+))"),
        QRegularExpression::MultilineOption);
    if (const auto m = srunRe.match(all); m.hasMatch()) {
        const int r = rankFromText(m.capturedView(2));
        use(r, m.captured(1), QStringLiteral("srun"));
        if (r == f.rank && f.exitCode < 0 && !m.captured(3).isEmpty())
            f.exitCode = m.captured(3).toInt();
    }
    if (f.known && f.host.isEmpty() && f.rank < hostsByRank.size())
        f.host = hostsByRank.value(f.rank);
    if (f.known && f.exitCode < 0 && f.signal == 0 && mpirunExitCode && *mpirunExitCode > 0 && *mpirunExitCode < 128)
        f.exitCode = *mpirunExitCode; // mpirun exits with the status of the lowest failed rank
    return f;
}

QString FailureInfo::summary() const
{
    QString where;
    if (!known && !host.isEmpty())
        where = Tr::tr("the job on %1").arg(host);
    else if (!known)
        where = Tr::tr("the job");
    else if (host.isEmpty())
        where = Tr::tr("rank %1").arg(rank);
    else
        where = Tr::tr("rank %1 on %2").arg(rank).arg(host);
    QString how;
    if (signal > 0)
        how = signalName.isEmpty() ? Tr::tr("was killed by signal %1").arg(signal)
                                   : Tr::tr("was killed by signal %1 (%2)").arg(signal).arg(signalName);
    else if (exitCode >= 0)
        how = Tr::tr("exited with code %1").arg(exitCode);
    else if (mpirunExitCode >= 0)
        how = Tr::tr("failed (mpirun exit code %1)").arg(mpirunExitCode);
    else
        how = Tr::tr("failed");
    QString s = where + QLatin1Char(' ') + how;
    if (!message.isEmpty())
        s += QStringLiteral(": ") + message;
    return s;
}

QJsonObject FailureInfo::toJson() const
{
    QJsonObject o;
    o.insert(QStringLiteral("known"), known);
    o.insert(QStringLiteral("rank"), rank);
    o.insert(QStringLiteral("host"), host);
    if (!lostNode.isEmpty())
        o.insert(QStringLiteral("lost_node"), lostNode);
    o.insert(QStringLiteral("exit_code"), exitCode >= 0 ? QJsonValue(exitCode) : QJsonValue());
    o.insert(QStringLiteral("signal"), signal > 0 ? QJsonValue(signal) : QJsonValue());
    if (!signalName.isEmpty())
        o.insert(QStringLiteral("signal_name"), signalName);
    o.insert(QStringLiteral("message"), message);
    o.insert(QStringLiteral("mpirun_exit_code"), mpirunExitCode >= 0 ? QJsonValue(mpirunExitCode) : QJsonValue());
    o.insert(QStringLiteral("sources"), QJsonArray::fromStringList(sources));
    o.insert(QStringLiteral("stderr_tail"), QJsonArray::fromStringList(stderrTail));
    o.insert(QStringLiteral("summary"), summary());
    return o;
}

} // namespace traindeck::launch
