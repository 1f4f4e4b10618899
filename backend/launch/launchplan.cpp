#include "launch/launchplan.h"

#include "launch/ranklogs.h"
#include "launch/rundir.h"
#include "launch/slurm.h"
#include "launch/transport.h"

#include <QDir>

using traindeck::cluster::ClusterProfile;

namespace traindeck::launch {

namespace {
struct Tr {
    Q_DECLARE_TR_FUNCTIONS(traindeck::launch::LaunchPlan)
};

// What every rank runs, after mpirun's or srun's own arguments.
QStringList trainerCommand(const LaunchInputs& in)
{
    QStringList a{in.trainerPath, QStringLiteral("train")};
    a << in.spec.trainerArgs();
    a << QStringLiteral("--metrics-out=") + runFile(in.runDir, runfile::kMetrics)
      << QStringLiteral("--out=") + runFile(in.runDir, runfile::kOut) << QStringLiteral("--run-id=") + in.runId;
    if (in.resume)
        a << QStringLiteral("--resume=latest");
    return a;
}
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
    } else if (profile.slurm && in.slurmRanksVia.isEmpty()) {
        d.append(Diagnostic::error(profile.name, Tr::tr("a Slurm profile is launched through sbatch (no ranks via)")));
    } else if (in.spec.ranks > 0 && in.spec.ranks != profile.totalSlots()) {
        d.append(Diagnostic::keyError(
            QStringLiteral("spec"), QStringLiteral("ranks"),
            Tr::tr("%1 does not match profile '%2' (%3 slots); leave ranks out for a cluster profile")
                .arg(in.spec.ranks)
                .arg(profile.name)
                .arg(profile.totalSlots())));
    }
    const Result<cluster::Hostfile> hostfile = profile.toHostfile();
    if (profile.slurm) {
        // Slurm places the ranks: no hostfile.
    } else if (!hostfile) {
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
    if (profile.slurm) {
        p.ranksPerNode = profile.slurm->tasksPerNode;
        p.hostfileText.clear();
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
    if (profile.slurm) {
        const cluster::SlurmSettings& s = *profile.slurm;
        p.slurmRanksVia = in.slurmRanksVia;
        p.sbatchOptions << QStringLiteral("--job-name=") + in.runId;
        p.sbatchOptions += slurm::resourceOptions(s); // the same resources as the checks' job
        p.sbatchOptions << QStringLiteral("--time=") + s.timeLimit
                        << QStringLiteral("--output=") + runFile(in.runDir, "slurm-%j.out");
        if (s.signalSeconds > 0)
            p.sbatchOptions << QStringLiteral("--signal=B:USR1@%1").arg(s.signalSeconds);
        // A job Slurm requeued (after a node failure) would start the batch script again from step 0
        // in the same run directory; TrainDeck resumes from the checkpoint as a new attempt instead.
        p.sbatchOptions << QStringLiteral("--no-requeue");
    }
    if (p.slurmRanksVia == QLatin1String("srun")) {
        // srun starts one task per Slurm task and passes the environment on (--export=ALL).
        // --label: every line of a rank starts with "RANK: ", as the logs by rank read it (ranklogs.h).
        a << QStringLiteral("srun") << QStringLiteral("--mpi=pmix") << QStringLiteral("--kill-on-bad-exit=1")
          << QStringLiteral("--export=ALL") << QStringLiteral("--label");
        if (!in.spec.mpiArgs.isEmpty())
            p.warnings.append(Diagnostic::warning(
                QStringLiteral("spec"), Tr::tr("mpi-args (%1) are mpirun's options; ranks start with srun here, "
                                               "so they are not used (set \"ranks_via\": \"mpirun\" in the profile)")
                                            .arg(in.spec.mpiArgs.join(QLatin1Char(' ')))));
        p.mpirunArgv = a + trainerCommand(in);
        return Result<LaunchPlan>(p, p.warnings);
    }
    a << (in.mpirunPath.isEmpty() ? profile.launcher : in.mpirunPath);
    if (!profile.slurm)
        a << QStringLiteral("--hostfile") << p.hostfilePath;
    a << QStringLiteral("-np") << QString::number(p.np);
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
    p.mpirunArgv = a + trainerCommand(in);
    return Result<LaunchPlan>(p, p.warnings);
}

Result<QString> previewLaunch(LaunchInputs in)
{
    // buildLaunchPlan wants an absolute run directory; a workdir such as ~/traindeck is only resolved
    // on the head at launch, so the plan is built on a stand-in that the text then names as written.
    static const QString standIn = QStringLiteral("/traindeck-preview-run-dir");
    QString shownRunDir;
    if (in.runDir.isEmpty()) {
        const QString workdir =
            in.profile.workdir.trimmed().isEmpty() ? QStringLiteral("~/traindeck") : in.profile.workdir.trimmed();
        shownRunDir = QDir::cleanPath(workdir + QStringLiteral("/runs/") + in.runId);
        in.runDir = standIn;
    }
    QString header;
    if (in.profile.slurm && in.slurmRanksVia.isEmpty()) {
        in.slurmRanksVia = in.profile.slurm->ranksVia;
        if (in.slurmRanksVia == QLatin1String("auto")) {
            in.slurmRanksVia = QStringLiteral("mpirun");
            header += Tr::tr("# ranks_via auto: srun --mpi=pmix when srun on the login node offers pmix, else mpirun;\n"
                             "# chosen when the job is submitted (shown here with mpirun).\n");
        }
    }
    const Result<LaunchPlan> plan = buildLaunchPlan(in);
    if (!plan)
        return Result<QString>::failure(plan.diagnostics());
    QString text;
    if (in.profile.slurm) {
        text = header + plan->batchScript();
    } else {
        for (auto it = plan->env.cbegin(); it != plan->env.cend(); ++it)
            text += it.key() + QLatin1Char('=') + shellQuote(it.value()) + QLatin1Char(' ');
        if (!text.isEmpty())
            text += QStringLiteral("\\\n  ");
        text += plan->commandLine();
    }
    if (!shownRunDir.isEmpty())
        text.replace(standIn, shownRunDir);
    return Result<QString>(text, plan.warnings());
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
                        "# output and exit status in this directory (docs/reference/cli.md, run directory layout).\n")
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

QString LaunchPlan::batchScript() const
{
    auto f = [&](const char* name) { return shellQuote(runFile(runDir, name)); };
    QString s;
    s += QStringLiteral("#!/bin/sh\n");
    for (const QString& option : sbatchOptions)
        s += QStringLiteral("#SBATCH ") + option + QLatin1Char('\n');
    s += QStringLiteral("# Written by traindeck: runs the ranks of run %1 (%2) inside this Slurm job and records\n"
                        "# their output and exit status in this directory (docs/users/slurm.md).\n")
             .arg(QString(runId).replace(QLatin1Char('\n'), QLatin1Char(' ')), slurmRanksVia);
    s += QStringLiteral("umask 077\n");
    s += QStringLiteral("cd %1 || exit 97\n").arg(shellQuote(runDir));
    s += QStringLiteral("if [ -e %1 ]; then echo 143 > %2.tmp && mv -f %2.tmp %2; exit 143; fi\n")
             .arg(f(runfile::kCancel), f(runfile::kExitCode));
    if (!pathPrefix.isEmpty())
        s += shellPathPrefix(pathPrefix) + QLatin1Char('\n');
    for (auto it = env.begin(); it != env.end(); ++it)
        s += QStringLiteral("%1=%2; export %1\n").arg(it.key(), shellQuote(it.value()));
    // The ranks run in the background so that the shell can pass Slurm's signals on while it waits.
    if (slurmRanksVia == QLatin1String("srun")) // how to read the logs' lines from here on (ranklogs.h)
        s += QStringLiteral("echo %1 | tee -a %2 >> %3\n")
                 .arg(shellQuote(QLatin1String(kSrunLabelMarker)), f(runfile::kStdout), f(runfile::kStderr));
    s += QStringLiteral("child=\n");
    s += QStringLiteral("trap 'echo USR1 >> signals; [ -n \"$child\" ] && kill -USR1 \"$child\" 2>/dev/null' USR1\n");
    s += QStringLiteral("trap 'echo TERM >> signals; [ -n \"$child\" ] && kill -TERM \"$child\" 2>/dev/null' TERM\n");
    s += commandLine() + QStringLiteral(" </dev/null >>%1 2>>%2 &\n").arg(f(runfile::kStdout), f(runfile::kStderr));
    s += QStringLiteral("child=$!\n");
    // wait returns early (above 128) when a trapped signal arrives: wait again until the child is gone.
    s += QStringLiteral("while :; do wait \"$child\"; code=$?; kill -0 \"$child\" 2>/dev/null || break; done\n");
    s += QStringLiteral("echo $code > %1.tmp && mv -f %1.tmp %1\n").arg(f(runfile::kExitCode));
    s += QStringLiteral("exit $code\n");
    return s;
}

} // namespace traindeck::launch
