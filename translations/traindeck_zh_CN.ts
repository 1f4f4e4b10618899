<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>traindeck::analysis</name>
    <message>
        <location filename="../backend/analysis/diagnosis.cpp" line="84"/>
        <source>rank %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/analysis/diagnosis.cpp" line="84"/>
        <source>rank %1 (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/analysis/diagnosis.cpp" line="179"/>
        <source>%1 is a straggler: its data loading takes %2% longer than the other ranks&apos; (%3 ms vs %4 ms)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/analysis/diagnosis.cpp" line="182"/>
        <source>Check the input pipeline on %1: local disk or network file system speed, data loader workers, CPU load from other processes; pre-shard or cache the data set on local disk.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/analysis/diagnosis.cpp" line="186"/>
        <source>%1 is a straggler: its compute takes %2% longer than the other ranks&apos; (%3 ms vs %4 ms)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/analysis/diagnosis.cpp" line="189"/>
        <source>Every other rank waits about %1 ms per step for %2. Check that device for thermal or power throttling, a slower model or clock, other jobs sharing it, or CPU threads oversubscribed on its host; if it persists, exclude that host from the hostfile.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/analysis/diagnosis.cpp" line="229"/>
        <source>The input pipeline takes %1% of every step on all ranks</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/analysis/diagnosis.cpp" line="231"/>
        <source>Ranks spend %1% of each step waiting for data. Add data loader workers or prefetching, pre-tokenize the corpus, and keep it on local disk instead of a network file system.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/analysis/diagnosis.cpp" line="260"/>
        <source>The input pipeline stalled %1 times (about %2 ms each)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/analysis/diagnosis.cpp" line="264"/>
        <source>Training paused on input %1 times. Increase the data loader&apos;s prefetch depth or number of workers, and check for periodic slow reads (shard boundaries, a network file system, page cache eviction).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/analysis/diagnosis.cpp" line="310"/>
        <source>Gradient transfer takes %1% of each step</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/analysis/diagnosis.cpp" line="313"/>
        <source>The allreduce reaches %1 GB/s bus bandwidth, only %2% of the link&apos;s %3 GB/s. Check which transport NCCL uses (NCCL_DEBUG=INFO: InfiniBand/RoCE rather than TCP sockets), the network interface it picked (NCCL_SOCKET_IFNAME), and MTU and link speed on every host.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/analysis/diagnosis.cpp" line="319"/>
        <source>The link is close to saturated (%1 of %2 GB/s). Send less per step: raise gradient accumulation or the per-rank batch, reduce gradients in bf16, or use a faster interconnect.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/analysis/diagnosis.cpp" line="324"/>
        <source>Achieved allreduce bus bandwidth is %1 GB/s; compare it with the link (e.g. 100 Gbit/s = 12.5 GB/s). Raise gradient accumulation or the per-rank batch so that each step computes more per byte sent, and check the NCCL transport with NCCL_DEBUG=INFO.</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <location filename="../backend/analysis/diagnosis.cpp" line="364"/>
        <source>Device memory is %1% full on %n rank(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <location filename="../backend/analysis/diagnosis.cpp" line="366"/>
        <source>Memory is close to capacity; an out-of-memory error is likely on a longer sequence or batch. Lower the per-rank batch (raise gradient accumulation to keep the global batch), enable activation checkpointing, or shorten the sequence length.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/analysis/diagnosis.cpp" line="399"/>
        <source>Device memory grew by %1% since the start of the run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/analysis/diagnosis.cpp" line="401"/>
        <source>Memory keeps growing, which usually means tensors are kept across steps (a loss or metric kept with its graph, a growing cache). Detach values you keep for logging; watch for an out-of-memory error.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/analysis/diagnosis.cpp" line="437"/>
        <source>The loss became NaN/infinite at step %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/analysis/diagnosis.cpp" line="439"/>
        <source>Resume from the checkpoint of step %1 with a lower learning rate (or longer warm-up) and gradient clipping; with fp16, check the loss scale, or train in bf16.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/analysis/diagnosis.cpp" line="442"/>
        <source>Restart with a lower learning rate (or longer warm-up) and gradient clipping; with fp16, check the loss scale, or train in bf16. Save checkpoints more often to resume sooner.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/analysis/diagnosis.cpp" line="495"/>
        <source>The loss spiked %1 time(s), up to %2x its recent level</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/analysis/diagnosis.cpp" line="497"/>
        <source>Occasional loss spikes often come from a few bad batches or too high a learning rate. Inspect the data around step %1, enable gradient clipping, or lower the peak learning rate.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/analysis/diagnosis.cpp" line="514"/>
        <source>The loss diverged: it is %1x its best level since step %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/analysis/diagnosis.cpp" line="516"/>
        <source>Stop the run and resume from the checkpoint of step %1 with a lower learning rate and gradient clipping.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/analysis/diagnosis.cpp" line="519"/>
        <source>Stop the run and restart with a lower learning rate, a longer warm-up and gradient clipping.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/analysis/diagnosis.cpp" line="553"/>
        <source>Throughput dropped by %1% since the start of the run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/analysis/diagnosis.cpp" line="555"/>
        <source>Throughput fell from %1 to %2 %3. Look at which step phase grew (data, compute or communication) in the per-rank view; check for thermal throttling, other jobs on the nodes, or a filling disk.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/analysis/diagnosis.cpp" line="558"/>
        <source>tokens/s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/analysis/diagnosis.cpp" line="558"/>
        <source>steps/s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/analysis/diagnosis.cpp" line="609"/>
        <source>gradient transfer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/analysis/diagnosis.cpp" line="609"/>
        <source>waiting for slower ranks</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/analysis/diagnosis.cpp" line="609"/>
        <source>data loading</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/analysis/diagnosis.cpp" line="610"/>
        <source>%1 ranks do the work of %2 (%3% scaling efficiency)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/analysis/diagnosis.cpp" line="614"/>
        <source>The largest loss is %1 (%2 ms of a %3 ms step). Address it first; see the other findings for the details.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>traindeck::cluster::ClusterNodesModel</name>
    <message>
        <location filename="../backend/cluster/clusternodesmodel.cpp" line="59"/>
        <source>head</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusternodesmodel.cpp" line="59"/>
        <source>worker</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusternodesmodel.cpp" line="66"/>
        <source>Rank 0 and the run directory live on the head node</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusternodesmodel.cpp" line="78"/>
        <source>Name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusternodesmodel.cpp" line="80"/>
        <source>Host</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusternodesmodel.cpp" line="82"/>
        <source>Port</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusternodesmodel.cpp" line="84"/>
        <source>User</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusternodesmodel.cpp" line="86"/>
        <source>Identity file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusternodesmodel.cpp" line="88"/>
        <source>Slots</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusternodesmodel.cpp" line="90"/>
        <source>GPUs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusternodesmodel.cpp" line="92"/>
        <source>Role</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>traindeck::cluster::ClusterProfile</name>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="66"/>
        <source>removed: profiles hold no secrets (passwords, tokens, keys); use an SSH key or agent</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="70"/>
        <location filename="../backend/cluster/clusterprofile.cpp" line="363"/>
        <source>profiles must not hold secrets (passwords, tokens, keys); remove it and use an SSH key or agent</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="88"/>
        <source>profiles must not hold private keys</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="108"/>
        <location filename="../backend/cluster/clusterprofile.cpp" line="250"/>
        <location filename="../backend/cluster/clusterprofile.cpp" line="267"/>
        <source>expected a string</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="122"/>
        <location filename="../backend/cluster/clusterprofile.cpp" line="386"/>
        <location filename="../backend/cluster/clusterprofile.cpp" line="396"/>
        <location filename="../backend/cluster/clusterprofile.cpp" line="398"/>
        <source>expected an integer %1..%2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="206"/>
        <source>invalid JSON: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="210"/>
        <source>expected a JSON object with &quot;version&quot;, &quot;name&quot; and &quot;nodes&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="219"/>
        <source>missing; read as version %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="224"/>
        <source>expected an integer format version (%1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="227"/>
        <source>format version %1 is newer than this TrainDeck reads (%2); update TrainDeck</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="239"/>
        <source>expected true or false</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="255"/>
        <source>expected a directory or a list of directories</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="270"/>
        <source>expected an object of NAME: value strings</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="275"/>
        <source>missing; a profile needs at least one node</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="277"/>
        <source>expected a list of nodes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="282"/>
        <source>expected an object with at least &quot;host&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="305"/>
        <source>expected &quot;head&quot; or &quot;worker&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="308"/>
        <source>missing; every node needs a host name or address</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="338"/>
        <location filename="../backend/cluster/clusterprofile.cpp" line="586"/>
        <source>&quot;local&quot; is the built-in profile; choose another name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="341"/>
        <location filename="../backend/cluster/clusterprofile.cpp" line="378"/>
        <source>must not be empty</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="343"/>
        <location filename="../backend/cluster/clusterprofile.cpp" line="365"/>
        <location filename="../backend/cluster/clusterprofile.cpp" line="380"/>
        <source>control characters (such as a newline) are not allowed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="345"/>
        <source>must not start with &apos;-&apos;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="351"/>
        <source>expected a program name or path without spaces (&quot;mpirun&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="355"/>
        <source>one directory per entry; &apos;:&apos; is not allowed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="368"/>
        <source>a profile needs at least one node</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="382"/>
        <source>&apos;%1&apos; is already the name of nodes[%2]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="394"/>
        <source>expected the path of a key file, not the key itself</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="402"/>
        <source>%1 port %2 is already nodes[%3]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="408"/>
        <source>nodes[%1] is already the head; exactly one node may be &quot;head&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="489"/>
        <source># Open MPI hostfile from TrainDeck cluster profile &apos;%1&apos;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="508"/>
        <source>a hostfile carries no SSH port; set &quot;Port %1&quot; for %2 in ~/.ssh/config or pass --mca plm_rsh_args &quot;-p %1&quot; to mpirun</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="548"/>
        <source>cannot read: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="550"/>
        <source>file is larger than 4 MiB; not a profile</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="564"/>
        <source>no profile &apos;%1&apos; (known: %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="575"/>
        <location filename="../backend/cluster/clusterprofile.cpp" line="578"/>
        <source>cannot write: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="591"/>
        <source>cannot create the profiles directory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="599"/>
        <source>cannot remove profile &apos;%1&apos;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="602"/>
        <source>cannot remove: no such profile</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="618"/>
        <source>&quot;local&quot; is the built-in profile; import it under another name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="625"/>
        <source>profile &apos;%1&apos; exists already; choose another name or overwrite it</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>traindeck::cluster::Diagnostic</name>
    <message>
        <location filename="../backend/cluster/result.cpp" line="14"/>
        <source>warning: </source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>traindeck::cluster::Hostfile</name>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="95"/>
        <source>%1: expected an integer 1..%2, got &apos;%3&apos;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="104"/>
        <source>%1 hostfiles have no user@ part; set the user in ~/.ssh/config or the cluster profile</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="156"/>
        <source>unexpected &apos;:&apos; after the process count (expected &apos;host:N&apos;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="161"/>
        <source>process count</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="172"/>
        <source>empty user name before &apos;@&apos;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="189"/>
        <source>expected a host name before &apos;%1&apos;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="201"/>
        <source>unexpected &apos;%1&apos; after the host (MPICH lines are &apos;host&apos; or &apos;host:N&apos;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="213"/>
        <source>unexpected &apos;=&apos;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="215"/>
        <source>unexpected &apos;%1&apos; (DeepSpeed lines are &apos;host slots=N&apos;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="217"/>
        <source>expected &apos;=&apos; after &apos;%1&apos;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="221"/>
        <location filename="../backend/cluster/hostfile.cpp" line="229"/>
        <source>no spaces allowed around &apos;=&apos; in DeepSpeed hostfiles</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="239"/>
        <source>unknown attribute &apos;%1&apos; (DeepSpeed knows only slots=)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="240"/>
        <source>unknown attribute &apos;%1&apos; (expected slots= or max_slots=)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="244"/>
        <source>&apos;%1&apos; given twice on one line</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="248"/>
        <source>missing value after &apos;%1=&apos;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="252"/>
        <source>unexpected &apos;=&apos; in &apos;%1&apos;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="310"/>
        <source>invalid UTF-8 in the line</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="311"/>
        <source>control character U+%1 in the line</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="334"/>
        <source>cannot read: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="337"/>
        <source>file is larger than 16 MiB; not a hostfile</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="387"/>
        <source>missing &apos;slots=N&apos; after &apos;%1&apos; (DeepSpeed needs a count on every line)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="391"/>
        <source>%1 hostfiles have no max_slots</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="395"/>
        <source>max_slots (%1) is less than slots (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="406"/>
        <source>host &apos;%1&apos; is already listed on line %2; DeepSpeed allows each host once (add the slots up on one line)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="411"/>
        <source>host &apos;%1&apos; is listed on line %2 as &apos;%3&apos; and here as &apos;%4&apos;; use one user per host</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="417"/>
        <source>host &apos;%1&apos; is also listed on line %2; %3 adds up the slots of repeated lines</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="424"/>
        <source>no hosts in the hostfile</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="486"/>
        <source>no slots for &apos;%1&apos;; wrote slots=1 (Open MPI would use the core count)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="497"/>
        <source>repeated host &apos;%1&apos; merged into line %2 (DeepSpeed allows each host once)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="518"/>
        <source>user &apos;%1&apos; dropped: %2 hostfiles have no user; set it in ~/.ssh/config</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="524"/>
        <source>max_slots=%1 dropped: %2 hostfiles have no max_slots</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="531"/>
        <source>IPv6 address &apos;%1&apos; cannot be written in an MPICH hostfile; use a host name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="551"/>
        <location filename="../backend/cluster/hostfile.cpp" line="554"/>
        <source>cannot write: %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>traindeck::cluster::HostfileModel</name>
    <message>
        <location filename="../backend/cluster/hostfilemodel.cpp" line="55"/>
        <source>Not set: Open MPI uses the number of cores, MPICH 1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfilemodel.cpp" line="67"/>
        <source>User</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfilemodel.cpp" line="69"/>
        <source>Host</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfilemodel.cpp" line="71"/>
        <source>Slots</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfilemodel.cpp" line="73"/>
        <source>Max slots</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfilemodel.cpp" line="75"/>
        <source>Comment</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>traindeck::cluster::Names</name>
    <message>
        <location filename="../backend/cluster/names.cpp" line="24"/>
        <source>a space</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/names.cpp" line="31"/>
        <source>empty host name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/names.cpp" line="33"/>
        <source>host name &apos;%1&apos; starts with &apos;-&apos;; it would be read as an option</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/names.cpp" line="36"/>
        <source>IPv6 address &apos;%1&apos; is not allowed in this format</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/names.cpp" line="39"/>
        <source>&apos;%1&apos; is not a valid IPv6 address</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/names.cpp" line="57"/>
        <source>&apos;%1&apos; is not a valid IPv4 address</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/names.cpp" line="61"/>
        <source>host name is longer than 253 characters</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/names.cpp" line="67"/>
        <source>empty label in host name &apos;%1&apos;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/names.cpp" line="69"/>
        <source>label longer than 63 characters in host name &apos;%1&apos;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/names.cpp" line="71"/>
        <source>a label of host name &apos;%1&apos; starts with &apos;-&apos;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/names.cpp" line="73"/>
        <source>a label of host name &apos;%1&apos; ends with &apos;-&apos;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/names.cpp" line="79"/>
        <source>invalid character %1 in host name &apos;%2&apos;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/names.cpp" line="87"/>
        <source>empty user name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/names.cpp" line="89"/>
        <source>user name &apos;%1&apos; starts with &apos;-&apos;; it would be read as an option</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/names.cpp" line="91"/>
        <source>user name &apos;%1&apos; is longer than 32 characters</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/names.cpp" line="98"/>
        <source>invalid character %1 in user name &apos;%2&apos;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/names.cpp" line="106"/>
        <source>empty profile name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/names.cpp" line="108"/>
        <source>profile name is longer than 64 characters</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/names.cpp" line="114"/>
        <source>invalid character %1 in profile name &apos;%2&apos; (use letters, digits, &apos;.&apos;, &apos;-&apos;, &apos;_&apos;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/names.cpp" line="122"/>
        <source>empty environment variable name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/cluster/names.cpp" line="126"/>
        <source>invalid character %1 in environment variable name &apos;%2&apos;</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>traindeck::gui::ClusterPage</name>
    <message>
        <location filename="../app/gui/clusterpage.cpp" line="26"/>
        <source>&amp;Profile:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/clusterpage.cpp" line="30"/>
        <source>&amp;Save</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/clusterpage.cpp" line="31"/>
        <source>Save the nodes to the profile file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/clusterpage.cpp" line="32"/>
        <source>Save &amp;as…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/clusterpage.cpp" line="40"/>
        <source>SS&amp;H setup…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/clusterpage.cpp" line="41"/>
        <source>Create a key, install it on every node and verify password-less login</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/clusterpage.cpp" line="47"/>
        <source>Nodes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/clusterpage.cpp" line="52"/>
        <source>Cluster nodes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/clusterpage.cpp" line="59"/>
        <source>A&amp;dd node</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/clusterpage.cpp" line="60"/>
        <source>&amp;Remove node</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/clusterpage.cpp" line="68"/>
        <source>Hostfile</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/clusterpage.cpp" line="72"/>
        <source>Use hostfile as &amp;nodes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/clusterpage.cpp" line="73"/>
        <source>Replace the node table with the hosts of the hostfile (repeated hosts merged)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/clusterpage.cpp" line="141"/>
        <source>Cannot load profile: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/clusterpage.cpp" line="146"/>
        <source>This machine, ranks started as local processes (no SSH).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/clusterpage.cpp" line="147"/>
        <source>Work directory on the nodes: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/clusterpage.cpp" line="157"/>
        <source>%n node(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/clusterpage.cpp" line="158"/>
        <source>%n rank(s) in all</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <location filename="../app/gui/clusterpage.cpp" line="166"/>
        <source>Hostfile has errors</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/clusterpage.cpp" line="166"/>
        <source>Fix the errors listed below the hostfile first.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/clusterpage.cpp" line="183"/>
        <location filename="../app/gui/clusterpage.cpp" line="203"/>
        <source>Cannot save profile</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/clusterpage.cpp" line="193"/>
        <source>Save profile as</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/clusterpage.cpp" line="194"/>
        <source>Profile name (letters, digits, &apos;.&apos;, &apos;_&apos;, &apos;-&apos;):</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>traindeck::gui::FindingsPanel</name>
    <message>
        <location filename="../app/gui/findingspanel.cpp" line="25"/>
        <source>Findings</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/findingspanel.cpp" line="30"/>
        <source>Diagnosis findings</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/findingspanel.cpp" line="35"/>
        <source>Finding details</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/findingspanel.cpp" line="36"/>
        <source>Select a finding to see its evidence and what to do.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/findingspanel.cpp" line="54"/>
        <source>Critical</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/findingspanel.cpp" line="55"/>
        <source>Warning</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/findingspanel.cpp" line="58"/>
        <source>Info</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/findingspanel.cpp" line="74"/>
        <source>Straggler</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/findingspanel.cpp" line="75"/>
        <source>Data loading</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/findingspanel.cpp" line="76"/>
        <source>Communication-bound</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/findingspanel.cpp" line="77"/>
        <source>Memory pressure</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/findingspanel.cpp" line="78"/>
        <source>Loss is NaN</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/findingspanel.cpp" line="79"/>
        <source>Loss spikes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/findingspanel.cpp" line="80"/>
        <source>Loss divergence</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/findingspanel.cpp" line="81"/>
        <source>Throughput drift</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/findingspanel.cpp" line="82"/>
        <source>Scaling efficiency</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/findingspanel.cpp" line="117"/>
        <source>rank %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/findingspanel.cpp" line="118"/>
        <source>rank %1 (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/findingspanel.cpp" line="130"/>
        <source>Findings: none</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/findingspanel.cpp" line="130"/>
        <source>Findings (%n)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <location filename="../app/gui/findingspanel.cpp" line="156"/>
        <source>Steps %1 to %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/findingspanel.cpp" line="158"/>
        <source>Evidence</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/findingspanel.cpp" line="160"/>
        <source>n/a</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/findingspanel.cpp" line="167"/>
        <source>What to do:</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>traindeck::gui::HostfileEditor</name>
    <message>
        <location filename="../app/gui/hostfileeditor.cpp" line="126"/>
        <source>Open MPI hostfile</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/hostfileeditor.cpp" line="127"/>
        <source>DeepSpeed hostfile</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/hostfileeditor.cpp" line="128"/>
        <source>MPICH machine file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/hostfileeditor.cpp" line="138"/>
        <source>F&amp;ormat:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/hostfileeditor.cpp" line="142"/>
        <source>Changing the format converts a valid hostfile to the new syntax</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/hostfileeditor.cpp" line="144"/>
        <source>&amp;Import…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/hostfileeditor.cpp" line="145"/>
        <source>E&amp;xport…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/hostfileeditor.cpp" line="154"/>
        <source>Hostfile text</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/hostfileeditor.cpp" line="159"/>
        <source># one host per line, e.g.
node1 slots=8
node2 slots=8</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/hostfileeditor.cpp" line="164"/>
        <source>Hostfile problems</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/hostfileeditor.cpp" line="252"/>
        <source>line %1, column %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/hostfileeditor.cpp" line="253"/>
        <source>Error</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/hostfileeditor.cpp" line="253"/>
        <source>Warning</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/hostfileeditor.cpp" line="262"/>
        <source>Valid: %n host(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/hostfileeditor.cpp" line="263"/>
        <source>%n slot(s) in all</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/hostfileeditor.cpp" line="265"/>
        <location filename="../app/gui/hostfileeditor.cpp" line="271"/>
        <source>%n warning(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <location filename="../app/gui/hostfileeditor.cpp" line="268"/>
        <source>Empty: add one host per line.</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/hostfileeditor.cpp" line="270"/>
        <source>%n error(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <location filename="../app/gui/hostfileeditor.cpp" line="272"/>
        <source>double-click a problem to go to it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/hostfileeditor.cpp" line="317"/>
        <source>Cannot read %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/hostfileeditor.cpp" line="336"/>
        <source>Fix the errors in the hostfile first.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/hostfileeditor.cpp" line="356"/>
        <source>Cannot write %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/hostfileeditor.cpp" line="373"/>
        <source>Import hostfile</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/hostfileeditor.cpp" line="379"/>
        <source>Import failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/hostfileeditor.cpp" line="386"/>
        <source>Export hostfile</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/hostfileeditor.cpp" line="392"/>
        <source>Export failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/hostfileeditor.cpp" line="394"/>
        <source>Exported with warnings</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>traindeck::gui::LaunchPage</name>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="60"/>
        <source>Browse…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="65"/>
        <source>Choose a directory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="67"/>
        <source>Choose a file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="68"/>
        <source>Text or JSON Lines (*.jsonl *.json *.txt);;All files (*)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="83"/>
        <source>Model and data</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="86"/>
        <source>Tiny demo (qwen2-tiny, random init, CPU)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="87"/>
        <source>DeepSeek-R1-Distill-Qwen-1.5B (from a model directory)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="88"/>
        <source>&amp;Preset:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="90"/>
        <source>Run name; the run id adds the date and time</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="91"/>
        <source>Run &amp;name:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="93"/>
        <source>directory with config.json, *.safetensors, tokenizer.json</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="94"/>
        <source>&amp;Model directory:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="96"/>
        <source>JSONL file, text file or a directory of them</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="97"/>
        <source>&amp;Dataset:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="99"/>
        <source>tokenizer.json (empty: the model directory&apos;s)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="100"/>
        <source>&amp;Tokenizer:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="104"/>
        <source>World layout</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="107"/>
        <source>Cluster p&amp;rofile:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="111"/>
        <source>Ranks on this machine (local profile only; a cluster profile&apos;s hostfile gives the layout)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="112"/>
        <source>Ran&amp;ks (local):</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="114"/>
        <source>Layout:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="118"/>
        <source>Hyper-parameters</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="128"/>
        <source>Optimizer steps to run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="129"/>
        <source>Tokens per sequence</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="130"/>
        <source>Sequences per rank per micro-step</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="131"/>
        <source>Micro-steps per optimizer step</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="132"/>
        <source>Linear warmup steps of the cosine schedule</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="133"/>
        <source>Steps between checkpoints (0: only at the end); needed to resume</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="134"/>
        <source>Seed for initialisation and shuffling</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="135"/>
        <source>Intra-op threads per rank (0: LibTorch&apos;s default)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="141"/>
        <source>Peak learning rate, e.g. 3e-4</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="151"/>
        <source>Global gradient-norm clip; 0 disables clipping</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="156"/>
        <source>Max &amp;steps:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="157"/>
        <source>Se&amp;quence length:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="158"/>
        <source>Micro-&amp;batch:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="159"/>
        <source>Gradient &amp;accumulation:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="160"/>
        <source>&amp;Learning rate:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="161"/>
        <source>&amp;Warmup steps:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="162"/>
        <source>Weight d&amp;ecay:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="163"/>
        <source>Gradient c&amp;lip:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="164"/>
        <source>Pre&amp;cision:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="165"/>
        <source>Checkpoint e&amp;very:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="166"/>
        <source>S&amp;eed:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="167"/>
        <source>T&amp;hreads per rank:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="179"/>
        <source>Environment variables (exported to every rank)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="182"/>
        <source>Name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="182"/>
        <source>Value</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="185"/>
        <source>Environment variables</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="188"/>
        <source>Add &amp;variable</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="189"/>
        <source>Remo&amp;ve variable</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="197"/>
        <source>Problems</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="199"/>
        <source>Problems:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="202"/>
        <source>mpirun command (preview):</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="206"/>
        <source>mpirun command preview</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="210"/>
        <location filename="../app/gui/launchpage.cpp" line="510"/>
        <source>&amp;Launch</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="395"/>
        <source>form</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="401"/>
        <source>learning rate</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="401"/>
        <source>enter a number between 0 and 10, e.g. 3e-4</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="408"/>
        <location filename="../app/gui/launchpage.cpp" line="410"/>
        <source>dataset</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="408"/>
        <source>choose a JSONL or text file, or a directory of them</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="410"/>
        <source>%1 does not exist (the demo corpus is made by scripts/setup-deps.sh)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="413"/>
        <source>tokenizer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="413"/>
        <source>%1 is not a file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="417"/>
        <location filename="../app/gui/launchpage.cpp" line="419"/>
        <source>model directory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="417"/>
        <source>choose the DeepSeek-R1-Distill-Qwen-1.5B directory (config.json, *.safetensors)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="419"/>
        <source>%1 has no config.json</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="422"/>
        <source>trainer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="422"/>
        <source>traindeck-trainer was not found; build it (cmake --build build --target traindeck-trainer)</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/launchpage.cpp" line="437"/>
        <location filename="../app/gui/launchpage.cpp" line="439"/>
        <source>%n node(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/launchpage.cpp" line="437"/>
        <source>%n slot(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/launchpage.cpp" line="438"/>
        <source>%n rank(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/launchpage.cpp" line="439"/>
        <source>%n rank(s) in all</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="477"/>
        <source>None: ready to launch.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="479"/>
        <source>(fix the problems above to see the command)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="496"/>
        <source>Launching…</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>traindeck::gui::MainWindow</name>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="44"/>
        <source>TrainDeck</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="53"/>
        <source>Pages</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="72"/>
        <source>Monitor</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="72"/>
        <source>Live curves, devices, load balance and diagnosis (Ctrl+1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="73"/>
        <source>Runs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="73"/>
        <source>Run history: open, compare, resume, cancel (Ctrl+2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="74"/>
        <source>Launch</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="74"/>
        <source>Start a training run (Ctrl+3)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="75"/>
        <source>Cluster</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="75"/>
        <source>Nodes, hostfile and SSH setup (Ctrl+4)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="76"/>
        <source>Settings</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="76"/>
        <source>Runs directory, language, colours (Ctrl+5)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="94"/>
        <source>&amp;File</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="95"/>
        <source>Run the &amp;demo</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="96"/>
        <source>Launch the tiny demo on this machine (2 CPU ranks)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="98"/>
        <source>&amp;Open metrics file…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="101"/>
        <source>Open metrics file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="102"/>
        <source>Metrics (metrics.jsonl *.jsonl)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="109"/>
        <source>&amp;Quit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="112"/>
        <source>&amp;Help</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="113"/>
        <source>&amp;About TrainDeck</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="115"/>
        <source>About TrainDeck</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="116"/>
        <source>TrainDeck %1
Data-parallel LLM training on a small cluster: launch, monitor, diagnose, resume.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="128"/>
        <location filename="../app/gui/mainwindow.cpp" line="192"/>
        <source>No job</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="154"/>
        <source>Reattached to running job %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="164"/>
        <source>Launched %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="169"/>
        <source>Launch failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="176"/>
        <location filename="../app/gui/mainwindow.cpp" line="182"/>
        <source>Job %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="183"/>
        <source>The run failed: %1 — resume it on the Runs page</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="188"/>
        <source>Viewing a finished run offline</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="190"/>
        <source>Loading…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="195"/>
        <source>Cannot open run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="195"/>
        <source>%1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="215"/>
        <source>Connection: this machine (local profile)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="217"/>
        <source>Connection: profile %1, head node %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/screenshots.cpp" line="27"/>
        <source>Cannot create %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/screenshots.cpp" line="37"/>
        <source>Cannot write %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>traindeck::gui::MonitorPage</name>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="75"/>
        <source>No run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="83"/>
        <source>&amp;Smoothing:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="88"/>
        <source>Weight of the exponential moving average of the loss (debiased)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="96"/>
        <source>&amp;Bars over last:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="100"/>
        <source> steps</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="101"/>
        <source>The load-balance bars show the mean of each phase over these last steps</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="106"/>
        <source>&amp;Heatmap:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="108"/>
        <source>Step time</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="109"/>
        <source>Data loading</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="110"/>
        <source>Forward</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="111"/>
        <source>Backward</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="112"/>
        <source>Communication (total)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="113"/>
        <source>Communication wait</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="114"/>
        <source>Optimizer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="115"/>
        <source>Compute (fwd+bwd+opt)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="120"/>
        <source>&amp;Follow latest</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="122"/>
        <source>Keep the newest step in view; zooming or panning turns this off</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="126"/>
        <source>Reset &amp;zoom</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="127"/>
        <source>Show the whole run again (also: double-click a plot)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="129"/>
        <source>Export &amp;PNG…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="130"/>
        <source>Save the plots of the current tab as an image</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="132"/>
        <source>Export &amp;CSV…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="133"/>
        <source>Save the run&apos;s series (scalars and per-rank step times) as CSV</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="144"/>
        <source>Loss</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="145"/>
        <source>Learning rate</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="146"/>
        <source>Gradient norm</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="147"/>
        <source>Throughput</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="156"/>
        <source>loss (raw)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="161"/>
        <source>loss (smoothed)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="165"/>
        <source>loss</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="168"/>
        <location filename="../app/gui/monitorpage.cpp" line="170"/>
        <source>learning rate</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="174"/>
        <source>gradient norm</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="176"/>
        <source>L2 norm before clipping</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="179"/>
        <location filename="../app/gui/monitorpage.cpp" line="181"/>
        <source>tokens/s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="183"/>
        <location filename="../app/gui/monitorpage.cpp" line="185"/>
        <source>MFU (%)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="194"/>
        <source>Device utilisation per rank</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="195"/>
        <source>utilisation (%)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="196"/>
        <source>Peak memory per rank</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="197"/>
        <source>memory (MiB)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="204"/>
        <location filename="../app/gui/monitorpage.cpp" line="694"/>
        <source>Load balance: mean time per phase and rank</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="205"/>
        <location filename="../app/gui/monitorpage.cpp" line="244"/>
        <source>rank</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="206"/>
        <source>ms per step</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="216"/>
        <source>data</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="216"/>
        <source>forward</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="216"/>
        <source>backward</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="216"/>
        <source>comm transfer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="217"/>
        <source>comm wait</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="217"/>
        <source>optimizer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="243"/>
        <source>Step time per rank and step</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="253"/>
        <source>ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="266"/>
        <source>&amp;Training</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="267"/>
        <source>&amp;Devices</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="268"/>
        <source>&amp;Load balance</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="302"/>
        <source>%1 per rank and step</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="336"/>
        <source>step</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="593"/>
        <source>rank %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="593"/>
        <source>rank %1 (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="691"/>
        <source>Load balance: mean time per phase and rank, steps %1–%2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="817"/>
        <source>No run — open one on the Runs page or launch one</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="818"/>
        <source>Loading %1…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="819"/>
        <source>Run %1 (live)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="820"/>
        <source>Run %1 (finished, offline)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="825"/>
        <source>step %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/monitorpage.cpp" line="826"/>
        <source>%n rank(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="828"/>
        <source>loss %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="831"/>
        <source>%1 tokens/s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="834"/>
        <source>MFU %1%</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/monitorpage.cpp" line="837"/>
        <source>%n malformed line(s) skipped</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="842"/>
        <source>selected ranks: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="863"/>
        <source>Export plots as PNG</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="865"/>
        <source>PNG images (*.png)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="869"/>
        <location filename="../app/gui/monitorpage.cpp" line="910"/>
        <location filename="../app/gui/monitorpage.cpp" line="940"/>
        <source>Export failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="869"/>
        <source>Could not write %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="897"/>
        <source>Export CSV</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="897"/>
        <source>There is no data to export yet.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="901"/>
        <source>Export series as CSV</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="903"/>
        <source>CSV files (*.csv)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="910"/>
        <location filename="../app/gui/monitorpage.cpp" line="940"/>
        <source>Could not write %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="915"/>
        <source>Exporting %1…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="915"/>
        <source>Cancel</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>traindeck::gui::RunsModel</name>
    <message>
        <location filename="../app/gui/runspage.cpp" line="54"/>
        <source>starting</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/runspage.cpp" line="55"/>
        <source>running</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/runspage.cpp" line="56"/>
        <source>finished</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/runspage.cpp" line="57"/>
        <source>failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/runspage.cpp" line="58"/>
        <source>cancelled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/runspage.cpp" line="59"/>
        <source>lost</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/runspage.cpp" line="118"/>
        <source>%1 (exit %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/runspage.cpp" line="141"/>
        <source>Run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/runspage.cpp" line="142"/>
        <source>State</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/runspage.cpp" line="143"/>
        <source>Started</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/runspage.cpp" line="144"/>
        <source>Last step</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/runspage.cpp" line="145"/>
        <source>Loss</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/runspage.cpp" line="146"/>
        <source>Profile</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/runspage.cpp" line="147"/>
        <source>Head node</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>traindeck::gui::RunsPage</name>
    <message>
        <location filename="../app/gui/runspage.cpp" line="160"/>
        <source>Re&amp;fresh</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/runspage.cpp" line="161"/>
        <source>&amp;Open in Monitor</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/runspage.cpp" line="162"/>
        <source>&amp;Compare loss</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/runspage.cpp" line="163"/>
        <source>Plot the loss of the selected runs together (select several with Ctrl or Shift)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/runspage.cpp" line="164"/>
        <source>&amp;Resume</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/runspage.cpp" line="165"/>
        <source>Relaunch a failed, cancelled or lost run from its latest checkpoint</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/runspage.cpp" line="166"/>
        <source>C&amp;ancel run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/runspage.cpp" line="167"/>
        <source>Stop a running job (SIGTERM, then SIGKILL after 10 s)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/runspage.cpp" line="175"/>
        <source>Run history</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/runspage.cpp" line="186"/>
        <source>Loss of the compared runs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/runspage.cpp" line="192"/>
        <source>step</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/runspage.cpp" line="193"/>
        <source>loss</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/runspage.cpp" line="243"/>
        <source>%n run(s) in %1</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/runspage.cpp" line="244"/>
        <source>%n running</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <location filename="../app/gui/runspage.cpp" line="304"/>
        <source>Cannot read the metrics of %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/runspage.cpp" line="324"/>
        <source>Resuming %1…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/runspage.cpp" line="330"/>
        <source>Resume failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/runspage.cpp" line="344"/>
        <source>Cancel run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/runspage.cpp" line="345"/>
        <source>Stop %1? Training ends now; the latest checkpoint stays for a resume.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/runspage.cpp" line="349"/>
        <source>Cancelling %1…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/runspage.cpp" line="355"/>
        <source>Cancel failed</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>traindeck::gui::SettingsPage</name>
    <message>
        <location filename="../app/gui/settingspage.cpp" line="23"/>
        <source>Browse…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/settingspage.cpp" line="43"/>
        <source>Every run gets a directory here with its spec, logs, metrics and checkpoints</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/settingspage.cpp" line="44"/>
        <source>&amp;Runs directory:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/settingspage.cpp" line="44"/>
        <source>Runs directory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/settingspage.cpp" line="47"/>
        <source>directory with config.json and *.safetensors</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/settingspage.cpp" line="48"/>
        <source>Hugging Face model directory used by the DeepSeek-R1-Distill-Qwen-1.5B preset</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/settingspage.cpp" line="49"/>
        <source>&amp;Model directory (1.5B preset):</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/settingspage.cpp" line="49"/>
        <source>Model directory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/settingspage.cpp" line="52"/>
        <source>System default</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/settingspage.cpp" line="57"/>
        <source>&amp;Language:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/settingspage.cpp" line="60"/>
        <source>Okabe–Ito (colour-blind safe)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/settingspage.cpp" line="61"/>
        <source>Tableau 10</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/settingspage.cpp" line="63"/>
        <source>Plot colours; axes and backgrounds follow the system theme</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/settingspage.cpp" line="64"/>
        <source>Plot &amp;colours:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/settingspage.cpp" line="69"/>
        <source> ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/settingspage.cpp" line="71"/>
        <source>How often the Monitor redraws while metrics arrive</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/settingspage.cpp" line="72"/>
        <source>Monitor &amp;refresh:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/gui/settingspage.cpp" line="75"/>
        <source>Changes apply at once. Plot colours apply to plots created afterwards (reopen the run).</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>traindeck::launch::FailureInfo</name>
    <message>
        <location filename="../backend/launch/failure.cpp" line="113"/>
        <source>the job</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/launch/failure.cpp" line="115"/>
        <source>rank %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/launch/failure.cpp" line="117"/>
        <source>rank %1 on %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/launch/failure.cpp" line="120"/>
        <source>was killed by signal %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/launch/failure.cpp" line="121"/>
        <source>was killed by signal %1 (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/launch/failure.cpp" line="123"/>
        <source>exited with code %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/launch/failure.cpp" line="125"/>
        <source>failed (mpirun exit code %1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/launch/failure.cpp" line="127"/>
        <source>failed</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>traindeck::launch::JobSpec</name>
    <message>
        <location filename="../backend/launch/jobspec.cpp" line="72"/>
        <source>invalid JSON: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/launch/jobspec.cpp" line="75"/>
        <source>expected a JSON object</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/launch/jobspec.cpp" line="85"/>
        <source>unknown key (expected one of %1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/launch/jobspec.cpp" line="90"/>
        <source>expected an integer %1..%2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/launch/jobspec.cpp" line="96"/>
        <source>missing (expected %1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/launch/jobspec.cpp" line="101"/>
        <location filename="../backend/launch/jobspec.cpp" line="189"/>
        <source>expected a non-empty string</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/launch/jobspec.cpp" line="107"/>
        <source>expected a profile name or file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/launch/jobspec.cpp" line="116"/>
        <source>expected an object of NAME: &quot;value&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/launch/jobspec.cpp" line="122"/>
        <source>not a valid environment variable name (letters, digits, _; not starting with a digit)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/launch/jobspec.cpp" line="124"/>
        <location filename="../backend/launch/jobspec.cpp" line="149"/>
        <source>expected a string</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/launch/jobspec.cpp" line="133"/>
        <source>expected an object</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/launch/jobspec.cpp" line="140"/>
        <source>expected an interface name or subnet list, e.g. &quot;eth0&quot; or &quot;10.0.0.0/24&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/launch/jobspec.cpp" line="146"/>
        <source>expected an array of strings</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/launch/jobspec.cpp" line="154"/>
        <source>unknown key (expected btl_tcp_if_include, oob_tcp_if_include or args)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/launch/jobspec.cpp" line="161"/>
        <source>expected an object of trainer flags without dashes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/launch/jobspec.cpp" line="178"/>
        <source>cannot read: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/launch/jobspec.cpp" line="187"/>
        <source>unsupported version %1 (expected %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/launch/jobspec.cpp" line="191"/>
        <source>longer than 200 characters</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/launch/jobspec.cpp" line="193"/>
        <source>expected an integer 1..%1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/launch/jobspec.cpp" line="196"/>
        <source>not a valid environment variable name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/launch/jobspec.cpp" line="202"/>
        <source>not a trainer flag name (write flags without the leading dashes, e.g. &quot;max-steps&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/launch/jobspec.cpp" line="206"/>
        <source>set by the launcher (the run directory&apos;s out/, metrics.jsonl and run id); remove it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/launch/jobspec.cpp" line="210"/>
        <source>unknown trainer flag (see traindeck-trainer train --help)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/launch/jobspec.cpp" line="216"/>
        <source>expected a finite number</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/launch/jobspec.cpp" line="219"/>
        <source>contains a NUL character</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/launch/jobspec.cpp" line="221"/>
        <source>expected a string, number or boolean</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>traindeck::launch::LaunchPlan</name>
    <message>
        <location filename="../backend/launch/launchplan.cpp" line="23"/>
        <source>must be an absolute path</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/launch/launchplan.cpp" line="25"/>
        <source>no trainer executable</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/launch/launchplan.cpp" line="27"/>
        <source>empty</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/launch/launchplan.cpp" line="46"/>
        <source>%1 does not match profile &apos;%2&apos; (%3 slots); leave ranks out for a cluster profile</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/launch/launchplan.cpp" line="69"/>
        <source>nodes have different slot counts: ranks are placed with --map-by slot</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>traindeck::launch::Launcher</name>
    <message>
        <location filename="../backend/launch/launcher.cpp" line="35"/>
        <source>%1 not found or not executable</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/launch/launcher.cpp" line="42"/>
        <source>%1 not found in PATH</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/launch/launcher.cpp" line="52"/>
        <source>%1 not found on %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/launch/launcher.cpp" line="94"/>
        <source>%1: traindeck-trainer not found or not executable on %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/launch/launcher.cpp" line="111"/>
        <source>not found: set &quot;trainer&quot; in the cluster profile, put it beside traindeck-cli or in PATH on %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/launch/launcher.cpp" line="122"/>
        <source>not found on %1: install Open MPI (Debian: openmpi-bin) or set &quot;launcher&quot; in the profile</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/launch/launcher.cpp" line="139"/>
        <source>the runs directory must be an absolute path</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/launch/launcher.cpp" line="167"/>
        <source>cannot read the run record</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/launch/launcher.cpp" line="172"/>
        <source>the run is still %1; cancel it first or wait for it to end</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/launch/launcher.cpp" line="174"/>
        <source>the run finished; there is nothing to resume</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/launch/launcher.cpp" line="178"/>
        <source>no checkpoint to resume from (set trainer.checkpoint-every in the spec); launch it again instead</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/launch/launcher.cpp" line="212"/>
        <source>cannot move the previous attempt&apos;s files: %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>traindeck::launch::RunDir</name>
    <message>
        <location filename="../backend/launch/rundir.cpp" line="173"/>
        <source>no run given</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/launch/rundir.cpp" line="182"/>
        <source>no such run (neither a run id under %1 nor a run directory); see traindeck-cli runs</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>traindeck::launch::RunMonitor</name>
    <message>
        <location filename="../backend/launch/runmonitor.cpp" line="123"/>
        <source>%1 became shorter than what was read; it was replaced or truncated</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>traindeck::launch::Transport</name>
    <message>
        <location filename="../backend/launch/transport.cpp" line="77"/>
        <source>cannot start: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/launch/transport.cpp" line="111"/>
        <source>no such script</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/launch/transport.cpp" line="118"/>
        <source>setsid failed (exit %1): %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/launch/transport.cpp" line="128"/>
        <source>cannot read: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/launch/transport.cpp" line="133"/>
        <source>cannot seek to %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/launch/transport.cpp" line="145"/>
        <source>cannot create directory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/launch/transport.cpp" line="148"/>
        <source>cannot write: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/launch/transport.cpp" line="231"/>
        <source>the head node %1 is remote and this build has no SSH transport yet; run traindeck-cli on the head node itself</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>traindeck::metrics::MetricStore</name>
    <message>
        <location filename="../backend/metrics/metricstore.cpp" line="424"/>
        <source>cannot open %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/metrics/metricstore.cpp" line="445"/>
        <location filename="../backend/metrics/metricstore.cpp" line="480"/>
        <source>cannot write %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>traindeck::metrics::MetricsParser</name>
    <message>
        <location filename="../backend/metrics/parser.cpp" line="455"/>
        <source>unexpected characters after the JSON object</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/metrics/parser.cpp" line="739"/>
        <source>unsupported schema version</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>traindeck::metrics::MetricsParser::Private</name>
    <message>
        <location filename="../backend/metrics/parser.cpp" line="384"/>
        <source>line too long (%1 bytes, at most %2 allowed)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/metrics/parser.cpp" line="418"/>
        <location filename="../backend/metrics/parser.cpp" line="428"/>
        <location filename="../backend/metrics/parser.cpp" line="437"/>
        <source>not JSON: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/metrics/parser.cpp" line="427"/>
        <source>not a JSON object</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/metrics/parser.cpp" line="435"/>
        <source>missing field &apos;type&apos;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/metrics/parser.cpp" line="436"/>
        <source>field &apos;type&apos;: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/metrics/parser.cpp" line="448"/>
        <source>not JSON</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/metrics/parser.cpp" line="463"/>
        <source>missing field &apos;%1&apos;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/metrics/parser.cpp" line="467"/>
        <source>field &apos;%1&apos;: %2</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>traindeck::metrics::MetricsTailer</name>
    <message>
        <location filename="../backend/metrics/tailer.cpp" line="173"/>
        <source>cannot read %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>traindeck::metrics::ParseIssue</name>
    <message>
        <location filename="../backend/metrics/records.cpp" line="27"/>
        <source>line %1 (byte offset %2): %3</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>traindeck::ssh::ExecResult</name>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="203"/>
        <source>exit code %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="205"/>
        <source>killed by signal %1%2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="205"/>
        <source> (core dumped)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="207"/>
        <source>timed out after %1 ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="209"/>
        <source>cancelled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="213"/>
        <source>failed</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>traindeck::ssh::HostKeyInfo</name>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="169"/>
        <source>The host key of %1 (%2 %3) is known.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="172"/>
        <source>The authenticity of host %1 cannot be established: it is not in %2.
Its %3 key fingerprint is %4.
Compare it with the fingerprint the administrator gives you (on the host: ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub) before you accept it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="181"/>
        <source>WARNING: the host key of %1 does not match the one recorded in %2.
Someone could be intercepting the connection (a man-in-the-middle attack), or the host was reinstalled and got a new key.
The host now offers a %3 key with fingerprint %4.
TrainDeck refuses to connect. After you have verified the new fingerprint with the administrator, remove the old key with:
  ssh-keygen -R &apos;%1&apos; -f &apos;%2&apos;
and connect again to accept the new one.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="195"/>
        <source>The host key of %1 could not be checked against %2.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>traindeck::ssh::LocalRunner</name>
    <message>
        <location filename="../backend/ssh/commandrunner.cpp" line="80"/>
        <source>local: cannot start /bin/sh: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/commandrunner.cpp" line="124"/>
        <source>local: cancelled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/commandrunner.cpp" line="130"/>
        <source>local: the command did not finish within %1 s</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>traindeck::ssh::SshConnection</name>
    <message>
        <location filename="../backend/ssh/sshconnection.cpp" line="89"/>
        <source>cancelled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshconnection.cpp" line="92"/>
        <source>%1: not connected</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>traindeck::ssh::SshKeys</name>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="36"/>
        <source>%1: cannot create: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="51"/>
        <location filename="../backend/ssh/sshkeys.cpp" line="195"/>
        <source>%1: cannot write: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="62"/>
        <source>%1: cannot create the directory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="64"/>
        <source>%1: cannot set mode 0700</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="68"/>
        <source>%1: not a directory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="70"/>
        <source>%1: readable by others and cannot be set to mode 0700</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="131"/>
        <source>invalid key file name &apos;%1&apos;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="135"/>
        <source>the key comment may not contain a newline</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="147"/>
        <source>%1 exists; choose another name or overwrite it explicitly</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="156"/>
        <source>cannot generate an ED25519 key</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="169"/>
        <source>cannot export the private key</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="179"/>
        <source>cannot export the public key</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="206"/>
        <location filename="../backend/ssh/sshkeys.cpp" line="422"/>
        <source>%1: cannot read: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="211"/>
        <source>%1: this is a private key; give the .pub file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="224"/>
        <source>%1: not an OpenSSH public key (expected a line such as &apos;ssh-ed25519 AAAA... comment&apos;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="262"/>
        <source>not a valid public key line</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="271"/>
        <source>%1: installing the key failed (%2): %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="280"/>
        <source>%1: unexpected answer while installing the key: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="299"/>
        <source>%1: the key was installed but logging in with %2 failed: %3
Check the permissions of ~/.ssh (0700) and ~/.ssh/authorized_keys (0600) on the node, and the server&apos;s AuthorizedKeysFile.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="308"/>
        <source>%1: key login works but running a command failed: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="333"/>
        <source>%1: cannot create or read the head&apos;s key (%2): %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="346"/>
        <source>%1: the head&apos;s public key could not be read</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="349"/>
        <source>%1: created ~/.ssh/%2 (%3)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="349"/>
        <source>%1: using ~/.ssh/%2 (%3)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="352"/>
        <source>%1: added &apos;IdentityFile ~/.ssh/id_ed25519_traindeck&apos; to ~/.ssh/config (id_ed25519 has a passphrase)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="361"/>
        <source>%1: authorized the head&apos;s key</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="361"/>
        <source>%1: the head&apos;s key was already authorized</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="370"/>
        <source>%1: no verified host key</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="387"/>
        <source>%1: the head&apos;s ~/.ssh/known_hosts holds a different %2 key for %3 than this machine verified (%4). This may be an attack or a reinstalled node; check it and remove the old line on the head with: ssh-keygen -R &apos;%3&apos;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="391"/>
        <source>%1: cannot update ~/.ssh/known_hosts (%2): %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="395"/>
        <source>%1: added the host key of %2 (%3) to ~/.ssh/known_hosts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="396"/>
        <source>%1: the host key of %2 (%3) was already known</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="408"/>
        <source>%1: `%2` still fails (%3): %4</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="412"/>
        <source>%1: passwordless SSH to %2 works</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="425"/>
        <source>%1: cannot read</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="438"/>
        <source>%1: copying %2 to %3 failed (%4): %5</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="443"/>
        <source>%1: %2 arrived damaged (sha256 %3, expected %4)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>traindeck::ssh::SshSession</name>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="281"/>
        <location filename="../backend/ssh/sshsession.cpp" line="458"/>
        <location filename="../backend/ssh/sshsession.cpp" line="507"/>
        <location filename="../backend/ssh/sshsession.cpp" line="722"/>
        <source>%1: cancelled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="283"/>
        <source>invalid host name &apos;%1&apos;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="287"/>
        <source>%1: cannot create an SSH session</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="300"/>
        <source>%1: cannot parse the SSH configuration %2: %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="355"/>
        <source>%1 (port %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="364"/>
        <source>%1: no answer within %2 s (%3)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="365"/>
        <source>Check that the host is up, that sshd listens on port %1 and that no firewall drops the connection.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="368"/>
        <source>%1: cannot resolve the host name (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="369"/>
        <source>Check the spelling, /etc/hosts or DNS, or use the IP address.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="370"/>
        <source>%1: cannot connect: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="371"/>
        <source>Check that the host is up and that sshd listens on port %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="410"/>
        <source>%1: the server sent no host key</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="436"/>
        <source>%1: HOST KEY CHANGED, refusing to connect (this may be an attack)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="441"/>
        <source>%1: the host offers a %2 key but another type is recorded, refusing to connect (this may be an attack)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="451"/>
        <source>%1: cannot check the host key against %2: %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="461"/>
        <source>%1: unknown host key %2 %3 was not accepted</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="472"/>
        <source>%1: cannot add the host key to %2: %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="484"/>
        <location filename="../backend/ssh/sshsession.cpp" line="640"/>
        <source>%1: not connected</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="494"/>
        <source>%1: authentication failed: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="516"/>
        <source>keys (agent: %1, identity: %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="517"/>
        <source>yes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="517"/>
        <source>no</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="518"/>
        <source>defaults</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="524"/>
        <source>%1: authentication failed (server offers: %2; tried: %3)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="526"/>
        <location filename="../backend/ssh/sshsession.cpp" line="527"/>
        <source>nothing</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="528"/>
        <source>Install your public key on the node (traindeck-cli install-key, or ssh-copy-id), or name the right private key in the profile&apos;s &quot;identity&quot;.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="579"/>
        <source>Password for %1:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="647"/>
        <source>%1: cannot open a channel: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="666"/>
        <source>%1: cannot open a session channel: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="668"/>
        <source>%1: cannot start the command: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="729"/>
        <source>%1: the command did not finish within %2 s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="748"/>
        <source>%1: connection lost while the command ran: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="749"/>
        <source>The node did not answer for %1 s (keepalive). Check the network and whether the node is up.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="778"/>
        <source>%1: the command ended without an exit status</source>
        <translation type="unfinished"></translation>
    </message>
</context>
</TS>
