<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en_US">
<context>
    <name>traindeck::analysis::detectors</name>
    <message numerus="yes">
        <location filename="../backend/analysis/detect_stalls.cpp" line="117"/>
        <source>Stall: %1 did not reach %2 of step %3, which %n other rank(s) waited in for %4 s: stuck before the collective (data, compute or I/O), not in communication</source>
        <translation>
            <numerusform>Stall: %1 did not reach %2 of step %3, which %n other rank waited in for %4 s: stuck before the collective (data, compute or I/O), not in communication</numerusform>
            <numerusform>Stall: %1 did not reach %2 of step %3, which %n other ranks waited in for %4 s: stuck before the collective (data, compute or I/O), not in communication</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../backend/analysis/detect_data_loading.cpp" line="50"/>
        <source>The input pipeline may take %1% of every step: not enough evidence yet (%n step(s))</source>
        <translation>
            <numerusform>The input pipeline may take %1% of every step: not enough evidence yet (%n step)</numerusform>
            <numerusform>The input pipeline may take %1% of every step: not enough evidence yet (%n steps)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../backend/analysis/detect_communication.cpp" line="100"/>
        <source>Gradient transfer may take %1% of each step: not enough evidence yet (%n step(s))</source>
        <translation>
            <numerusform>Gradient transfer may take %1% of each step: not enough evidence yet (%n step)</numerusform>
            <numerusform>Gradient transfer may take %1% of each step: not enough evidence yet (%n steps)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../backend/analysis/detect_memory.cpp" line="43"/>
        <source>Device memory is %1% full on %n rank(s)</source>
        <translation>
            <numerusform>Device memory is %1% full on %n rank</numerusform>
            <numerusform>Device memory is %1% full on %n ranks</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>traindeck::checks::LinkTest</name>
    <message numerus="yes">
        <location filename="../backend/checks/linktest.cpp" line="299"/>
        <source>%1 and %n more</source>
        <translation>
            <numerusform>%1 and %n more</numerusform>
            <numerusform>%1 and %n more</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>traindeck::checks::NodeChecker</name>
    <message numerus="yes">
        <location filename="../backend/checks/nodecheckmachine.cpp" line="58"/>
        <source>%n core(s)</source>
        <translation>
            <numerusform>%n core</numerusform>
            <numerusform>%n cores</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../backend/checks/nodecheckmachine.cpp" line="189"/>
        <source>The profile uses %n GPU(s) on this node but nvidia-smi is missing: install the NVIDIA driver (and reboot), or set &quot;gpus&quot;: 0 to train on the CPU.</source>
        <translation>
            <numerusform>The profile uses %n GPU on this node but nvidia-smi is missing: install the NVIDIA driver (and reboot), or set &quot;gpus&quot;: 0 to train on the CPU.</numerusform>
            <numerusform>The profile uses %n GPUs on this node but nvidia-smi is missing: install the NVIDIA driver (and reboot), or set &quot;gpus&quot;: 0 to train on the CPU.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../backend/checks/nodecheckmachine.cpp" line="244"/>
        <source>the profile does not use the %n GPU(s) of this node</source>
        <translation>
            <numerusform>the profile does not use the %n GPU of this node</numerusform>
            <numerusform>the profile does not use the %n GPUs of this node</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../backend/checks/nodechecknetwork.cpp" line="269"/>
        <source>passwordless SSH to all %n worker(s)</source>
        <translation>
            <numerusform>passwordless SSH to the %n worker</numerusform>
            <numerusform>passwordless SSH to all %n workers</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../backend/checks/clusterchecker.cpp" line="362"/>
        <source>The check job could not be cancelled; it ends at its time limit (%n minute(s)), or cancel it on the login node with scancel %1.</source>
        <translation>
            <numerusform>The check job could not be cancelled; it ends at its time limit (%n minute), or cancel it on the login node with scancel %1.</numerusform>
            <numerusform>The check job could not be cancelled; it ends at its time limit (%n minutes), or cancel it on the login node with scancel %1.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>traindeck::checks::SlurmCheck</name>
    <message numerus="yes">
        <location filename="../backend/checks/slurmcheck.cpp" line="79"/>
        <source>partition %1: %2 of %n node(s) usable</source>
        <translation>
            <numerusform>partition %1: %2 of %n node usable</numerusform>
            <numerusform>partition %1: %2 of %n nodes usable</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../backend/checks/slurmcheck.cpp" line="81"/>
        <source>, %n with %1 or more GPUs</source>
        <translation>
            <numerusform>, %n with %1 or more GPUs</numerusform>
            <numerusform>, %n with %1 or more GPUs</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>traindeck::cluster::GpuTrainer</name>
    <message numerus="yes">
        <location filename="../backend/cluster/gputrainer.cpp" line="40"/>
        <source>This traindeck-trainer cannot use the node&apos;s %n GPU(s): its LibTorch sees no CUDA device (a CPU-only LibTorch, or one whose CUDA does not match the driver).</source>
        <translation>
            <numerusform>This traindeck-trainer cannot use the node&apos;s GPU: its LibTorch sees no CUDA device (a CPU-only LibTorch, or one whose CUDA does not match the driver).</numerusform>
            <numerusform>This traindeck-trainer cannot use the node&apos;s %n GPUs: its LibTorch sees no CUDA device (a CPU-only LibTorch, or one whose CUDA does not match the driver).</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../backend/cluster/gputrainer.cpp" line="52"/>
        <source>%n node(s) of this profile train on GPUs.</source>
        <translation>
            <numerusform>%n node of this profile trains on GPUs.</numerusform>
            <numerusform>%n nodes of this profile train on GPUs.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>traindeck::gui::ChecksPage</name>
    <message numerus="yes">
        <location filename="../app/gui/checkspage.cpp" line="149"/>
        <source>At more than %n node(s) the nodes that agree share one column (&quot;62 nodes: same&quot;); check to see a column per node.</source>
        <translation>
            <numerusform>At more than %n node the nodes that agree share one column (&quot;62 nodes: same&quot;); check to see a column per node.</numerusform>
            <numerusform>At more than %n nodes the nodes that agree share one column (&quot;62 nodes: same&quot;); check to see a column per node.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/checkspage.cpp" line="212"/>
        <source>Testing the links between %n node(s)…</source>
        <translation>
            <numerusform>Testing the link between %n node…</numerusform>
            <numerusform>Testing the links between %n nodes…</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/checkspage.cpp" line="225"/>
        <source>Testing the links between %n node(s)… round %1 done (%2 pair(s) side by side).</source>
        <translation>
            <numerusform>Testing the links between %n node… round %1 done (%2 pair(s) side by side).</numerusform>
            <numerusform>Testing the links between %n nodes… round %1 done (%2 pair(s) side by side).</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/checkspage.cpp" line="337"/>
        <source>MPI point-to-point, %1 KiB messages: %2 pair(s) in %n round(s) of pairs measured side by side, %3 s; median %4.</source>
        <translation>
            <numerusform>MPI point-to-point, %1 KiB messages: %2 pair(s) in %n round of pairs measured side by side, %3 s; median %4.</numerusform>
            <numerusform>MPI point-to-point, %1 KiB messages: %2 pairs in %n rounds of pairs measured side by side, %3 s; median %4.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/checkspage.cpp" line="364"/>
        <source>Profile: %1 (%n node(s))</source>
        <translation>
            <numerusform>Profile: %1 (%n node)</numerusform>
            <numerusform>Profile: %1 (%n nodes)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/checkspage.cpp" line="382"/>
        <source>Checking %n node(s)…</source>
        <translation>
            <numerusform>Checking %n node…</numerusform>
            <numerusform>Checking %n nodes…</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/checkspage.cpp" line="420"/>
        <source>Checking %n selected node(s)…</source>
        <translation>
            <numerusform>Checking %n selected node…</numerusform>
            <numerusform>Checking %n selected nodes…</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/checkspage.cpp" line="471"/>
        <location filename="../app/gui/checkspage.cpp" line="485"/>
        <source>%p% — %1 of %n node(s) done</source>
        <translation>
            <numerusform>%p% — %1 of %n node done</numerusform>
            <numerusform>%p% — %1 of %n nodes done</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/checkspage.cpp" line="602"/>
        <source>%n version(s) differ between nodes.</source>
        <translation>
            <numerusform>%n version differs between nodes.</numerusform>
            <numerusform>%n versions differ between nodes.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>traindeck::gui::ClusterPage</name>
    <message numerus="yes">
        <location filename="../app/gui/clusterpage.cpp" line="177"/>
        <source>Slurm places the ranks: %n rank(s) per job</source>
        <translation>
            <numerusform>Slurm places the ranks: %n rank per job</numerusform>
            <numerusform>Slurm places the ranks: %n ranks per job</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/clusterpage.cpp" line="179"/>
        <source>%n node(s)</source>
        <translation>
            <numerusform>%n node</numerusform>
            <numerusform>%n nodes</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/clusterpage.cpp" line="180"/>
        <source>%n rank(s) in all</source>
        <translation>
            <numerusform>%n rank in all</numerusform>
            <numerusform>%n ranks in all</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>traindeck::gui::FindingsPanel</name>
    <message numerus="yes">
        <location filename="../app/gui/findingspanel.cpp" line="132"/>
        <source>host %1 (%n rank(s))</source>
        <translation>
            <numerusform>host %1 (%n rank)</numerusform>
            <numerusform>host %1 (%n ranks)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/findingspanel.cpp" line="142"/>
        <source>and %n more</source>
        <translation>
            <numerusform>and %n more</numerusform>
            <numerusform>and %n more</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/findingspanel.cpp" line="157"/>
        <source>Findings (%n)</source>
        <translation>
            <numerusform>Findings (%n)</numerusform>
            <numerusform>Findings (%n)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>traindeck::gui::HostfileEditor</name>
    <message numerus="yes">
        <location filename="../app/gui/hostfileeditor.cpp" line="262"/>
        <source>Valid: %n host(s)</source>
        <translation>
            <numerusform>Valid: %n host</numerusform>
            <numerusform>Valid: %n hosts</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/hostfileeditor.cpp" line="263"/>
        <source>%n slot(s) in all</source>
        <translation>
            <numerusform>%n slot in all</numerusform>
            <numerusform>%n slots in all</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/hostfileeditor.cpp" line="265"/>
        <location filename="../app/gui/hostfileeditor.cpp" line="271"/>
        <source>%n warning(s)</source>
        <translation>
            <numerusform>%n warning</numerusform>
            <numerusform>%n warnings</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/hostfileeditor.cpp" line="270"/>
        <source>%n error(s)</source>
        <translation>
            <numerusform>%n error</numerusform>
            <numerusform>%n errors</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>traindeck::gui::LaunchPage</name>
    <message numerus="yes">
        <location filename="../app/gui/launchpage.cpp" line="522"/>
        <location filename="../app/gui/launchpage.cpp" line="525"/>
        <source>%n node(s)</source>
        <translation>
            <numerusform>%n node</numerusform>
            <numerusform>%n nodes</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/launchpage.cpp" line="523"/>
        <source>%n slot(s)</source>
        <translation>
            <numerusform>%n slot</numerusform>
            <numerusform>%n slots</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/launchpage.cpp" line="515"/>
        <location filename="../app/gui/launchpage.cpp" line="524"/>
        <source>%n rank(s)</source>
        <translation>
            <numerusform>%n rank</numerusform>
            <numerusform>%n ranks</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/launchpage.cpp" line="513"/>
        <source>Slurm: %n node(s)</source>
        <translation>
            <numerusform>Slurm: %n node</numerusform>
            <numerusform>Slurm: %n nodes</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/launchpage.cpp" line="514"/>
        <source>%n task(s)</source>
        <translation>
            <numerusform>%n task</numerusform>
            <numerusform>%n tasks</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/launchpage.cpp" line="525"/>
        <source>%n rank(s) in all</source>
        <translation>
            <numerusform>%n rank in all</numerusform>
            <numerusform>%n ranks in all</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>traindeck::gui::MonitorPage</name>
    <message numerus="yes">
        <location filename="../app/gui/monitorpage.cpp" line="476"/>
        <source>%n rank(s)</source>
        <translation>
            <numerusform>%n rank</numerusform>
            <numerusform>%n ranks</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/monitorpage.cpp" line="487"/>
        <source>%n malformed line(s) skipped</source>
        <translation>
            <numerusform>%n malformed line skipped</numerusform>
            <numerusform>%n malformed lines skipped</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>traindeck::gui::RunsPage</name>
    <message numerus="yes">
        <location filename="../app/gui/runspage.cpp" line="150"/>
        <source>%n run(s) in %1</source>
        <translation>
            <numerusform>%n run in %1</numerusform>
            <numerusform>%n runs in %1</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/runspage.cpp" line="151"/>
        <source>%n running</source>
        <translation>
            <numerusform>%n running</numerusform>
            <numerusform>%n running</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>traindeck::gui::monitor::BalanceTab</name>
    <message numerus="yes">
        <location filename="../app/gui/monitor/balancetab.cpp" line="265"/>
        <source>%1 each (%n rank(s))</source>
        <translation>
            <numerusform>%1 each (%n rank)</numerusform>
            <numerusform>%1 each (%n ranks)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/monitor/balancetab.cpp" line="266"/>
        <source>%1 to %2 (%n rank(s))</source>
        <translation>
            <numerusform>%1 to %2 (%n rank)</numerusform>
            <numerusform>%1 to %2 (%n ranks)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/monitor/balancetab.cpp" line="280"/>
        <source>Samples per rank: %1 since step %2 — changed at step(s) %3</source>
        <translation>
            <numerusform>Samples per rank: %1 since step %2 — changed at step %3</numerusform>
            <numerusform>Samples per rank: %1 since step %2 — changed at steps %3</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/monitor/balancetab.cpp" line="321"/>
        <source>%1: %n rank(s)</source>
        <translation>
            <numerusform>%1: %n rank</numerusform>
            <numerusform>%1: %n ranks</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/monitor/balancetab.cpp" line="346"/>
        <source>%n sample(s) per step since step %1</source>
        <translation>
            <numerusform>%n sample per step since step %1</numerusform>
            <numerusform>%n samples per step since step %1</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/monitor/balancetab.cpp" line="370"/>
        <source>Load balance by host: mean time per phase, %n host(s), slowest first</source>
        <translation>
            <numerusform>Load balance by host: mean time per phase, %n host, slowest first</numerusform>
            <numerusform>Load balance by host: mean time per phase, %n hosts, slowest first</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/monitor/balancetab.cpp" line="399"/>
        <source>%n sample(s)</source>
        <translation>
            <numerusform>%n sample</numerusform>
            <numerusform>%n samples</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>traindeck::launch::Launcher</name>
    <message numerus="yes">
        <location filename="../backend/launch/launcher.cpp" line="390"/>
        <source>%n more</source>
        <translation>
            <numerusform>%n more</numerusform>
            <numerusform>%n more</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../backend/launch/launcher.cpp" line="395"/>
        <source>the worker check on the head did not answer for %n worker(s) of %1 (%2): %3</source>
        <translation>
            <numerusform>the worker check on the head did not answer for %n worker of %1 (%2): %3</numerusform>
            <numerusform>the worker check on the head did not answer for %n workers of %1 (%2): %3</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>traindeck::runs::MemoryFit</name>
    <message numerus="yes">
        <location filename="../backend/runs/memoryfit.cpp" line="69"/>
        <source>RAM of %1 (%2) / %n rank(s)</source>
        <translation>
            <numerusform>RAM of %1 (%2) / %n rank</numerusform>
            <numerusform>RAM of %1 (%2) / %n ranks</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../backend/runs/memoryfit.cpp" line="123"/>
        <source>Memory per rank (%n rank(s), traindeck-trainer plan):</source>
        <translation>
            <numerusform>Memory per rank (%n rank, traindeck-trainer plan):</numerusform>
            <numerusform>Memory per rank (%n ranks, traindeck-trainer plan):</numerusform>
        </translation>
    </message>
</context>
</TS>
