#include "runs/operations.h"

#include "cluster/names.h"
#include "cluster/savedlinktest.h"
#include "launch/launcher.h"
#include "launch/runmonitor.h"
#include "launch/transport.h"

#include <QDir>
#include <QFileInfo>
#include <QLocale>

namespace traindeck::runs {

using launch::JobState;
using launch::RunLocation;

Operations::Operations(launch::RemoteTransportFactory remoteTransports)
    : m_remoteTransports(std::move(remoteTransports))
{
}

Diagnostics Operations::validate(const launch::JobSpec& spec, const cluster::ClusterProfile& profile,
                                 const QString& fileName)
{
    Diagnostics d = spec.validate(fileName);
    auto err = [&](const QString& key, const QString& message) {
        d.append(Diagnostic::keyError(fileName, key, message));
    };
    // Secrets never go into a run directory (docs/users/security.md): the spec's env lands in spec.json and
    // run.sh on the head. The same rule as for cluster profiles (cluster::Names::looksLikeSecretKey).
    for (auto it = spec.env.begin(); it != spec.env.end(); ++it) {
        if (cluster::Names::looksLikeSecretKey(it.key()) || cluster::Names::looksLikeSecretValue(it.value()))
            err(QStringLiteral("env.") + it.key(),
                tr("job specs must not hold secrets (tokens, passwords, keys): they would be stored in the run "
                   "directory; set it in the environment of the nodes instead (e.g. a file read by the login shell)"));
    }
    // mpirun's own arguments land in spec.json, run.sh, run.json and mpirun's argv alike: "-x NAME=VALUE"
    // exports a value to the ranks, "--mca NAME VALUE" sets a parameter.
    for (int i = 0; i + 1 < spec.mpiArgs.size(); ++i) {
        const QString& opt = spec.mpiArgs.at(i);
        const QString& next = spec.mpiArgs.at(i + 1);
        auto argKey = [](int index) { return QStringLiteral("mpi.args[%1]").arg(index); };
        if (opt == QLatin1String("-x") || opt == QLatin1String("--x")) {
            const QString name = next.section(QLatin1Char('='), 0, 0);
            const QString value = next.contains(QLatin1Char('=')) ? next.section(QLatin1Char('='), 1) : QString();
            if (!value.isEmpty() &&
                (cluster::Names::looksLikeSecretKey(name) || cluster::Names::looksLikeSecretValue(value)))
                err(argKey(i + 1),
                    tr("-x %1=... puts a secret into the run directory and mpirun's command line; export "
                       "it on the nodes instead and pass only its name (-x %1)")
                        .arg(name));
        } else if ((opt == QLatin1String("--mca") || opt == QLatin1String("-mca")) && i + 2 < spec.mpiArgs.size()) {
            const QString& value = spec.mpiArgs.at(i + 2);
            if (cluster::Names::looksLikeSecretKey(next) || cluster::Names::looksLikeSecretValue(value))
                err(argKey(i + 2),
                    tr("--mca %1 looks like it carries a secret, which would be stored in the run directory; set "
                       "it in the nodes' environment (OMPI_MCA_%1) instead")
                        .arg(next));
        }
    }
    const QJsonObject& t = spec.trainer;
    if (t.contains(QStringLiteral("lr"))) {
        const QJsonValue v = t.value(QStringLiteral("lr"));
        bool ok = v.isDouble();
        const double lr = ok ? v.toDouble() : QLocale::c().toDouble(v.toString().trimmed(), &ok);
        if (!ok || !(lr > 0 && lr < 10))
            err(QStringLiteral("trainer.lr"), tr("enter a learning rate between 0 and 10, e.g. 3e-4"));
    }
    // On this machine the files can be looked at now; on a cluster the preflight checks the nodes.
    const bool local = launch::isLocalProfile(profile);
    const QString data = t.value(QStringLiteral("data")).toString().trimmed();
    if (data.isEmpty())
        err(QStringLiteral("trainer.data"), tr("choose a JSONL or text file, or a directory of them"));
    else if (local && !QFileInfo::exists(data))
        err(QStringLiteral("trainer.data"),
            tr("%1 does not exist (the demo corpus is made by scripts/setup-deps.sh)").arg(data));
    const QString tok = t.value(QStringLiteral("tokenizer")).toString().trimmed();
    if (local && !tok.isEmpty() && !QFileInfo(tok).isFile())
        err(QStringLiteral("trainer.tokenizer"), tr("%1 is not a file").arg(tok));
    if (!t.contains(QStringLiteral("preset"))) {
        const QString model = t.value(QStringLiteral("model")).toString().trimmed();
        if (model.isEmpty())
            err(QStringLiteral("trainer.model"),
                tr("choose a model directory (config.json, *.safetensors) or a preset"));
        else if (local && !QFileInfo::exists(model + QStringLiteral("/config.json")))
            err(QStringLiteral("trainer.model"), tr("%1 has no config.json").arg(model));
    }
    if (local) {
        launch::LocalTransport here;
        const auto trainer = launch::Launcher::findTrainer(here, profile);
        if (!trainer.ok())
            err(QStringLiteral("trainer"), tr("%1 (build it: cmake --build build --target traindeck-trainer)")
                                               .arg(formatDiagnostics(trainer.diagnostics())));
    }
    return d;
}

Result<StartedRun> Operations::launch(LaunchRequest request) const
{
    auto transport = launch::transportFor(request.profile, m_remoteTransports);
    if (!transport)
        return Result<StartedRun>::failure(transport.diagnostics());
    launch::JobSpec& spec = request.spec;
    if (transport.value()->isLocal() && !request.specDir.isEmpty())
        spec.resolvePaths(request.specDir);
    const Diagnostics problems = validate(spec, request.profile, request.specFile);
    if (hasErrors(problems))
        return Result<StartedRun>::failure(problems);
    QDir().mkpath(request.runsDir);
    const auto launched = launch::RemoteRuns::launch(*transport.value(), spec, request.profile, request.runsDir);
    if (!launched)
        return Result<StartedRun>::failure(launched.diagnostics());
    StartedRun out;
    out.runId = launched->outcome.runId;
    out.runDir = launched->outcome.runDir;
    out.localDir = launched->localDir;
    out.remote = launched->remote;
    out.head = transport.value()->displayName();
    out.transport = transport.value();
    out.plan = launched->outcome.plan;
    return Result<StartedRun>(out, problems + launched.diagnostics());
}

bool Operations::isInputProblem(const Diagnostics& failure)
{
    for (const Diagnostic& d : failure) {
        if (d.isError() &&
            (d.code.startsWith(QLatin1String("ssh.")) || d.code == QLatin1String(launch::kStartFailedCode)))
            return false;
    }
    return true;
}

Result<StartedRun> Operations::resume(const QString& localDir) const
{
    const auto loc = launch::locateRun(localDir, m_remoteTransports);
    if (!loc)
        return Result<StartedRun>::failure(loc.diagnostics());
    launch::Transport& t = *loc->transport;
    const std::optional<launch::RunInfo> before = launch::readRunInfo(t, loc->runDir);
    const auto resumed = launch::Launcher::resume(t, loc->runDir);
    if (!resumed)
        return Result<StartedRun>::failure(resumed.diagnostics());
    if (loc->remote)
        launch::RemoteRuns::reopen(t, loc->runDir, loc->localDir, before ? before->attempts : 1);
    StartedRun out;
    out.runId = resumed->runId;
    out.runDir = loc->runDir;
    out.localDir = loc->localDir;
    out.remote = loc->remote;
    out.head = t.displayName();
    out.transport = loc->transport;
    out.plan = resumed->plan;
    return Result<StartedRun>(out, resumed.diagnostics());
}

Result<JobState> Operations::cancel(const QString& localDir, int graceMs) const
{
    const auto loc = launch::locateRun(localDir, m_remoteTransports);
    if (!loc)
        return Result<JobState>::failure(loc.diagnostics());
    const auto state = launch::Launcher::cancel(*loc->transport, loc->runDir, graceMs);
    if (!state || !loc->remote)
        return state;
    // The record gets the final files; the run is stopped whether or not that works.
    const auto synced = launch::RemoteRuns::sync(*loc->transport, loc->runDir, loc->localDir);
    Diagnostics warnings = state.diagnostics();
    for (Diagnostic x : synced.diagnostics()) {
        x.severity = Diagnostic::Severity::Warning;
        warnings << x;
    }
    return Result<JobState>(state.value(), warnings);
}

Result<RunLocation> Operations::locate(const QString& localDir, bool offlineWhenSynced) const
{
    if (offlineWhenSynced && launch::isRemoteRecord(localDir)) {
        const std::optional<launch::RemoteRecord> rec = launch::readRemoteRecord(localDir);
        if (rec && rec->synced) {
            RunLocation loc;
            loc.transport = std::make_shared<launch::LocalTransport>();
            loc.runDir = loc.localDir = localDir;
            loc.record = rec;
            return loc;
        }
    }
    return launch::locateRun(localDir, m_remoteTransports);
}

std::unique_ptr<launch::RunMonitor> Operations::monitor(const RunLocation& location, std::function<bool()> syncAtEnd)
{
    auto m = std::make_unique<launch::RunMonitor>(location.transport, location.runDir);
    if (location.remote)
        m->setRecordDir(location.localDir, std::move(syncAtEnd));
    else if (location.record && location.record->synced)
        m->setKnownFinalState(location.record->lastState);
    return m;
}

QStringList Operations::refreshRemote(const QList<launch::RunSummary>& runs, std::function<bool()> stop) const
{
    QStringList errors;
    for (const launch::RunSummary& r : runs) {
        if (!r.remote || r.synced)
            continue;
        if (stop && stop())
            break; // the next refresh asks about the rest
        const auto loc = launch::locateRun(r.runDir, m_remoteTransports);
        const auto state = loc ? launch::RemoteRuns::sync(*loc->transport, loc->runDir, loc->localDir)
                               : Result<JobState>::failure(loc.diagnostics());
        if (!state)
            errors << tr("%1 on %2: %3").arg(r.runId, r.head, state.errorString());
    }
    return errors;
}

Result<QList<launch::RunSummary>> Operations::list(const QString& runsDir, bool refresh) const
{
    QList<launch::RunSummary> runs = launch::listRuns(runsDir);
    if (!refresh)
        return runs;
    Diagnostics unreachable;
    for (const QString& e : refreshRemote(runs))
        unreachable.append(Diagnostic::warning(QString(), e));
    return Result<QList<launch::RunSummary>>(launch::listRuns(runsDir), unreachable);
}

analysis::DiagnosisOptions Operations::diagnosisOptions(const QString& localDir)
{
    analysis::DiagnosisOptions options;
    QString profile;
    if (launch::isRemoteRecord(localDir)) {
        if (const auto record = launch::readRemoteRecord(localDir))
            profile = record->profile;
    } else {
        launch::LocalTransport here;
        if (const auto info = launch::readRunInfo(here, localDir))
            profile = info->profile;
    }
    // None for a run without a profile name or for "local" (a link test needs two nodes).
    const Result<cluster::SavedLinkTest> saved = cluster::SavedLinkTest::load(profile);
    if (!saved)
        return options;
    for (const cluster::SavedLink& l : saved->links)
        options.measuredLinks.append(
            {l.hostA, l.hostB, l.bandwidthMbps / 8000.0, saved->measuredAt.toString(Qt::ISODate)});
    return options;
}

Result<QString> Operations::localTrainer()
{
    launch::LocalTransport local;
    return launch::Launcher::findTrainer(local, cluster::ClusterProfile::local(1));
}

} // namespace traindeck::runs
