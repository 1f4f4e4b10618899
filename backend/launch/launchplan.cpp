#include "launch/launchplan.h"

#include "launch/rundir.h"
#include "launch/transport.h"

using traindeck::cluster::ClusterProfile;

namespace traindeck::launch {

namespace {
struct Tr {
    Q_DECLARE_TR_FUNCTIONS(traindeck::launch::LaunchPlan)
};
} // namespace

Result<LaunchPlan> buildLaunchPlan(const LaunchInputs& in)
{
    Diagnostics d = in.spec.validate(QStringLiteral("spec"));
    if (in.runDir.isEmpty() || !in.runDir.startsWith(QLatin1Char('/')))
        d.append(Diagnostic::error(QStringLiteral("run directory"), Tr::tr("must be an absolute path")));
    if (in.trainerPath.isEmpty())
        d.append(Diagnostic::error(QStringLiteral("traindeck-trainer"), Tr::tr("no trainer executable")));
    if (in.runId.isEmpty())
        d.append(Diagnostic::error(QStringLiteral("run id"), Tr::tr("empty")));

    LaunchPlan p;
    p.runDir = in.runDir;
    p.runId = in.runId;
    p.hostfilePath = runFile(in.runDir, runfile::kHostfile);

    // Layout: the local profile takes `ranks` from the spec; a cluster profile's nodes give it.
    ClusterProfile profile = in.profile;
    if (profile.isLocal) {
        const int ranks = in.spec.ranks > 0 ? in.spec.ranks : 1;
        ClusterProfile local = ClusterProfile::local(ranks);
        local.env = profile.env;
        local.pathPrefix = profile.pathPrefix;
        local.launcher = profile.launcher;
        local.extra = profile.extra;
        profile = local;
    } else if (in.spec.ranks > 0 && in.spec.ranks != profile.totalSlots()) {
        d.append(Diagnostic::keyError(
            QStringLiteral("spec"), QStringLiteral("ranks"),
            Tr::tr("%1 does not match profile '%2' (%3 slots); leave ranks out for a cluster profile")
                .arg(in.spec.ranks)
                .arg(profile.name)
                .arg(profile.totalSlots())));
    }
    const Result<cluster::Hostfile> hostfile = profile.toHostfile();
    if (!hostfile) {
        d += hostfile.diagnostics();
    } else {
        p.warnings += hostfile.warnings();
        p.hostfileText = hostfile->toText();
    }
    if (hasErrors(d))
        return Result<LaunchPlan>::failure(d);

    p.np = profile.totalSlots();
    p.ranksPerNode = profile.nodes.isEmpty() ? 0 : profile.nodes.first().slots;
    for (const auto& n : profile.nodes) {
        if (n.slots != p.ranksPerNode)
            p.ranksPerNode = 0;
    }
    if (p.ranksPerNode == 0)
        p.warnings.append(Diagnostic::warning(
            profile.name, Tr::tr("nodes have different slot counts: ranks are placed with --map-by slot")));

    // Environment: profile first, the spec wins.
    for (auto it = profile.env.begin(); it != profile.env.end(); ++it)
        p.env.insert(it.key(), it.value());
    for (auto it = in.spec.env.begin(); it != in.spec.env.end(); ++it)
        p.env.insert(it.key(), it.value());
    p.pathPrefix = profile.pathPrefix;
    QStringList exported = p.env.keys();
    if (!p.pathPrefix.isEmpty())
        exported.prepend(QStringLiteral("PATH"));
    if (in.asRoot) {
        // For mpirun itself (not exported to ranks).
        p.env.insert(QStringLiteral("OMPI_ALLOW_RUN_AS_ROOT"), QStringLiteral("1"));
        p.env.insert(QStringLiteral("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"), QStringLiteral("1"));
    }

    QStringList a;
    a << (in.mpirunPath.isEmpty() ? profile.launcher : in.mpirunPath);
    a << QStringLiteral("--hostfile") << p.hostfilePath << QStringLiteral("-np") << QString::number(p.np);
    a << QStringLiteral("--map-by")
      << (p.ranksPerNode > 0 ? QStringLiteral("ppr:%1:node").arg(p.ranksPerNode) : QStringLiteral("slot"));
    a << QStringLiteral("--bind-to") << QStringLiteral("none");
    // Every line a rank writes becomes "[jobid,rank]<stderr>:..." (mpirun's own stay untagged): the
    // logs by node and rank (ranklogs.h) label and group them.
    a << QStringLiteral("--tag-output");
    if (!in.spec.btlTcpIfInclude.isEmpty())
        a << QStringLiteral("--mca") << QStringLiteral("btl_tcp_if_include") << in.spec.btlTcpIfInclude;
    if (!in.spec.oobTcpIfInclude.isEmpty())
        a << QStringLiteral("--mca") << QStringLiteral("oob_tcp_if_include") << in.spec.oobTcpIfInclude;
    for (const QString& name : exported)
        a << QStringLiteral("-x") << name;
    a << in.spec.mpiArgs;
    a << in.trainerPath << QStringLiteral("train");
    a << in.spec.trainerArgs();
    a << QStringLiteral("--metrics-out=") + runFile(in.runDir, runfile::kMetrics)
      << QStringLiteral("--out=") + runFile(in.runDir, runfile::kOut) << QStringLiteral("--run-id=") + in.runId;
    if (in.resume)
        a << QStringLiteral("--resume=latest");
    p.mpirunArgv = a;
    return Result<LaunchPlan>(p, p.warnings);
}

QString LaunchPlan::commandLine() const
{
    return shellJoin(mpirunArgv);
}

QString LaunchPlan::wrapperScript() const
{
    auto f = [&](const char* name) { return shellQuote(runFile(runDir, name)); };
    QString s;
    s += QStringLiteral("#!/bin/sh\n"
                        "# Written by traindeck: runs mpirun for run %1 in its own session and records its pid,\n"
                        "# output and exit status in this directory (docs/cli.md, run directory layout).\n")
             .arg(QString(runId).replace(QLatin1Char('\n'), QLatin1Char(' ')));
    // Everything the run writes on the head (pid, logs, metrics, checkpoints) is its owner's only.
    s += QStringLiteral("umask 077\n");
    s += QStringLiteral("cd %1 || exit 97\n").arg(shellQuote(runDir));
    s += pidRecordShellLine(runFile(runDir, runfile::kPid));
    // Cancelled before it started.
    s += QStringLiteral("if [ -e %1 ]; then echo 143 > %2.tmp && mv -f %2.tmp %2; exit 143; fi\n")
             .arg(f(runfile::kCancel), f(runfile::kExitCode));
    // A trapped signal waits for the foreground mpirun; the exit status is still recorded.
    s += QStringLiteral("trap 'echo TERM >> signals' TERM\n");
    s += QStringLiteral("trap 'echo INT >> signals' INT\n");
    if (!pathPrefix.isEmpty())
        s += shellPathPrefix(pathPrefix) + QLatin1Char('\n');
    for (auto it = env.begin(); it != env.end(); ++it)
        s += QStringLiteral("%1=%2; export %1\n").arg(it.key(), shellQuote(it.value()));
    s += commandLine() + QStringLiteral(" </dev/null >%1 2>%2\n").arg(f(runfile::kStdout), f(runfile::kStderr));
    s += QStringLiteral("code=$?\n");
    s += QStringLiteral("echo $code > %1.tmp && mv -f %1.tmp %1\n").arg(f(runfile::kExitCode));
    s += QStringLiteral("exit $code\n");
    return s;
}

} // namespace traindeck::launch
