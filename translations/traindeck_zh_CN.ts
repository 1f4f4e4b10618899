<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>NodeChecker</name>
    <message>
        <location filename="../backend/checks/clusterchecker.cpp" line="28"/>
        <source>compute %1</source>
        <translation>计算节点 %1</translation>
    </message>
</context>
<context>
    <name>SshTransport</name>
    <message>
        <location filename="../backend/ssh/sshtransport.cpp" line="301"/>
        <source>the profile has no nodes</source>
        <translation>该配置没有节点</translation>
    </message>
</context>
<context>
    <name>traindeck::Diagnostic</name>
    <message>
        <location filename="../backend/common/result.cpp" line="17"/>
        <source>warning: </source>
        <translation>警告：</translation>
    </message>
</context>
<context>
    <name>traindeck::analysis::Diagnosis</name>
    <message>
        <location filename="../backend/analysis/detect_stalls.cpp" line="23"/>
        <source>setup</source>
        <translation>准备阶段</translation>
    </message>
    <message>
        <location filename="../backend/analysis/detect_stalls.cpp" line="24"/>
        <source>data loading</source>
        <translation>数据加载</translation>
    </message>
    <message>
        <location filename="../backend/analysis/detect_stalls.cpp" line="25"/>
        <source>the forward pass</source>
        <translation>前向传播</translation>
    </message>
    <message>
        <location filename="../backend/analysis/detect_stalls.cpp" line="26"/>
        <source>the backward pass</source>
        <translation>反向传播</translation>
    </message>
    <message>
        <location filename="../backend/analysis/detect_stalls.cpp" line="27"/>
        <source>the gradient allreduce</source>
        <translation>梯度 allreduce</translation>
    </message>
    <message>
        <location filename="../backend/analysis/detect_stalls.cpp" line="28"/>
        <source>the optimizer step</source>
        <translation>优化器步骤</translation>
    </message>
    <message>
        <location filename="../backend/analysis/detect_stalls.cpp" line="30"/>
        <source>the gather of the step&apos;s figures</source>
        <translation>本步数据的汇总</translation>
    </message>
    <message>
        <location filename="../backend/analysis/detect_stalls.cpp" line="32"/>
        <source>the checkpoint barrier</source>
        <translation>检查点屏障</translation>
    </message>
    <message>
        <location filename="../backend/analysis/detect_stalls.cpp" line="34"/>
        <source>writing a checkpoint</source>
        <translation>写入检查点</translation>
    </message>
    <message>
        <location filename="../backend/analysis/detect_stalls.cpp" line="35"/>
        <source>the end of the run</source>
        <translation>运行结束</translation>
    </message>
</context>
<context>
    <name>traindeck::analysis::Finding</name>
    <message>
        <location filename="../backend/analysis/finding.cpp" line="56"/>
        <source>raised at step %1</source>
        <translation>于第 %1 步发现</translation>
    </message>
    <message>
        <location filename="../backend/analysis/finding.cpp" line="58"/>
        <source>resolved at step %1</source>
        <translation>于第 %1 步解决</translation>
    </message>
    <message>
        <location filename="../backend/analysis/finding.cpp" line="60"/>
        <source>not enough evidence yet</source>
        <translation>证据尚不充分</translation>
    </message>
</context>
<context>
    <name>traindeck::analysis::FindingHistory</name>
    <message>
        <location filename="../backend/analysis/findinghistory.cpp" line="86"/>
        <source>Resolved at step %1: %2</source>
        <translation>已于第 %1 步解决：%2</translation>
    </message>
</context>
<context>
    <name>traindeck::analysis::detectors</name>
    <message>
        <location filename="../backend/analysis/detect_stalls.cpp" line="75"/>
        <location filename="../backend/analysis/detect_stalls.cpp" line="83"/>
        <location filename="../backend/analysis/detector.cpp" line="25"/>
        <source>rank %1</source>
        <translation>进程 %1</translation>
    </message>
    <message>
        <location filename="../backend/analysis/detect_stalls.cpp" line="75"/>
        <location filename="../backend/analysis/detect_stalls.cpp" line="83"/>
        <location filename="../backend/analysis/detector.cpp" line="25"/>
        <source>rank %1 (%2)</source>
        <translation>进程 %1（%2）</translation>
    </message>
    <message>
        <location filename="../backend/analysis/detect_stragglers.cpp" line="325"/>
        <source>Check the input pipeline on %1: local disk or network file system speed, data loader workers, CPU load from other processes; pre-shard or cache the data set on local disk.</source>
        <translation>检查 %1 上的输入管线：本地磁盘或网络文件系统的速度、数据加载线程数、其他进程造成的 CPU 负载；可预先分片或把数据集缓存到本地磁盘。</translation>
    </message>
    <message>
        <location filename="../backend/analysis/detect_data_loading.cpp" line="54"/>
        <source>Ranks spend %1% of each step waiting for data. Add data loader workers or prefetching, pre-tokenize the corpus, and keep it on local disk instead of a network file system.</source>
        <translation>各进程每步有 %1% 的时间在等待数据。请增加数据加载线程或预取，预先对语料分词，并将其放在本地磁盘而非网络文件系统上。</translation>
    </message>
    <message>
        <location filename="../backend/analysis/detect_data_loading.cpp" line="87"/>
        <source>The input pipeline stalled %1 times (about %2 ms each)</source>
        <translation>输入管线停顿了 %1 次（每次约 %2 ms）</translation>
    </message>
    <message>
        <location filename="../backend/analysis/detect_data_loading.cpp" line="89"/>
        <source>Training paused on input %1 times. Increase the data loader&apos;s prefetch depth or number of workers, and check for periodic slow reads (shard boundaries, a network file system, page cache eviction).</source>
        <translation>训练因等待输入暂停了 %1 次。请增大数据加载器的预取深度或线程数，并检查是否存在周期性的慢读（分片边界、网络文件系统、页缓存被换出）。</translation>
    </message>
    <message>
        <location filename="../backend/analysis/detect_stragglers.cpp" line="320"/>
        <location filename="../backend/analysis/detect_stragglers.cpp" line="419"/>
        <source>%1 of the last %2 steps slower, %3% confidence</source>
        <translation>最近 %2 步中有 %1 步较慢，置信度 %3%</translation>
    </message>
    <message>
        <location filename="../backend/analysis/detect_stragglers.cpp" line="322"/>
        <source>%1 is a straggler: its data loading takes %2% longer than the other ranks&apos; (%3 ms vs %4 ms; %5)</source>
        <translation>%1 是掉队进程：其数据加载耗时比其他进程长 %2%（%3 ms 对比 %4 ms；%5）</translation>
    </message>
    <message>
        <location filename="../backend/analysis/detect_stragglers.cpp" line="329"/>
        <source>%1 is a straggler: its compute takes %2% longer than the other ranks&apos; (%3 ms vs %4 ms; %5)</source>
        <translation>%1 是掉队进程：其计算耗时比其他进程长 %2%（%3 ms 对比 %4 ms；%5）</translation>
    </message>
    <message>
        <location filename="../backend/analysis/detect_stragglers.cpp" line="333"/>
        <source>Every other rank waits about %1 ms per step for %2. Check that device for thermal or power throttling, a slower model or clock, other jobs sharing it, or CPU threads oversubscribed on its host. If it persists, let the trainer give it a smaller share of each batch (&quot;balance&quot;: &quot;auto&quot; in the job spec, --balance auto), or exclude that host from the hostfile.</source>
        <translation>其他每个 rank 每步都要等待 %2 约 %1 毫秒。请检查该设备是否存在过热或功耗限制、型号或时钟较慢、有其他作业共享，或其主机上的 CPU 线程超额订阅。如果问题持续，可以让训练器给它分配更小的批次份额（作业规格中的 &quot;balance&quot;: &quot;auto&quot;，即 --balance auto），或将该主机从 hostfile 中排除。</translation>
    </message>
    <message>
        <location filename="../backend/analysis/detect_stragglers.cpp" line="421"/>
        <source>Host %1 is slow: the data loading of its %2 ranks takes %3% longer than the other hosts&apos; (%4 ms vs %5 ms; %6)</source>
        <translation>主机 %1 较慢：其 %2 个进程的数据加载耗时比其他主机长 %3%（%4 ms 对比 %5 ms；%6）</translation>
    </message>
    <message>
        <location filename="../backend/analysis/detect_stragglers.cpp" line="426"/>
        <source>Every rank on %1 waits longer for its data, so the cause is the host, not one rank: its local disk or network file system, CPU load from other processes, or too few data loader threads for its ranks.</source>
        <translation>%1 上的每个进程等待数据的时间都更长，因此原因在主机而不在某个进程：它的本地磁盘或网络文件系统、其他进程造成的 CPU 负载，或数据加载线程不足以供其进程使用。</translation>
    </message>
    <message>
        <location filename="../backend/analysis/detect_stragglers.cpp" line="431"/>
        <source>Host %1 is slow: the compute of its %2 ranks takes %3% longer than the other hosts&apos; (%4 ms vs %5 ms; %6)</source>
        <translation>主机 %1 较慢：其 %2 个进程的计算耗时比其他主机长 %3%（%4 ms 对比 %5 ms；%6）</translation>
    </message>
    <message>
        <location filename="../backend/analysis/detect_stragglers.cpp" line="436"/>
        <source>Every rank on %1 is slower, so the cause is the host, not one device: power or thermal limits, clocks, CPU threads oversubscribed, other jobs on the node. Check it, give it a smaller share of each batch (--balance auto), or exclude it from the hostfile.</source>
        <translation>%1 上的每个进程都更慢，因此原因在主机而不在某个设备：功耗或温度限制、时钟频率、CPU 线程超额订阅、该节点上的其他作业。请检查该主机，给它分配更小的批次份额（--balance auto），或将其从 hostfile 中排除。</translation>
    </message>
    <message>
        <location filename="../backend/analysis/detect_stalls.cpp" line="131"/>
        <location filename="../backend/analysis/detect_stragglers.cpp" line="341"/>
        <location filename="../backend/analysis/detect_stragglers.cpp" line="443"/>
        <source>Resolved at step %1: %2</source>
        <translation>已于第 %1 步解决：%2</translation>
    </message>
    <message>
        <location filename="../backend/analysis/detect_stragglers.cpp" line="374"/>
        <source>%1 may be slower (%2 % of the step over the last %3 steps): not enough evidence yet</source>
        <translation>%1 可能较慢（最近 %3 步中占每步的 %2 %）：证据尚不充分</translation>
    </message>
    <message>
        <location filename="../backend/analysis/detect_stragglers.cpp" line="377"/>
        <source>Nothing to do yet: TrainDeck keeps measuring and raises a straggler finding once the difference is clear of the noise.</source>
        <translation>暂时无需处理：TrainDeck 会继续测量，一旦差异明显超出噪声，就会给出掉队进程的诊断结果。</translation>
    </message>
    <message>
        <location filename="../backend/analysis/detect_stalls.cpp" line="76"/>
        <source>%1 in %2 of step %3</source>
        <translation>%1 处于第 %3 步的%2</translation>
    </message>
    <message>
        <location filename="../backend/analysis/detect_stalls.cpp" line="104"/>
        <source>Stall: every rank entered %1 of step %2 and none finished it for %3 s: stuck in communication, not before the collective</source>
        <translation>停滞：所有 rank 都已进入第 %2 步的%1，%3 秒内无一完成：卡在通信中，而不是在集合通信之前</translation>
    </message>
    <message>
        <location filename="../backend/analysis/detect_stalls.cpp" line="107"/>
        <source>Check the network between the hosts (a link down, a firewall, the wrong interface in btl_tcp_if_include or NCCL_SOCKET_IFNAME), then that MPI and NCCL match on every node (the Checks page).</source>
        <translation>检查主机之间的网络（链路断开、防火墙、btl_tcp_if_include 或 NCCL_SOCKET_IFNAME 中的接口错误），然后确认每个节点上的 MPI 和 NCCL 版本一致（检查页面）。</translation>
    </message>
    <message>
        <location filename="../backend/analysis/detect_stalls.cpp" line="111"/>
        <source>Stall: no word from %1 for %2 s: the process is stopped or hung, or its host is unreachable</source>
        <translation>停滞：%2 秒内没有收到 %1 的消息：进程已停止或挂起，或其主机无法访问</translation>
    </message>
    <message>
        <location filename="../backend/analysis/detect_stalls.cpp" line="114"/>
        <source>Check that the process still runs on that host (stopped, swapping, out of memory) and that the host answers; its log is in the Logs tab.</source>
        <translation>检查该进程是否仍在该主机上运行（被停止、正在交换、内存不足），以及主机是否有响应；其日志在“日志”标签页中。</translation>
    </message>
    <message numerus="yes">
        <location filename="../backend/analysis/detect_stalls.cpp" line="117"/>
        <source>Stall: %1 did not reach %2 of step %3, which %n other rank(s) waited in for %4 s: stuck before the collective (data, compute or I/O), not in communication</source>
        <translation>
            <numerusform>停滞：%1 未到达第 %3 步的%2，另外 %n 个 rank 已在其中等待了 %4 秒：卡在集合通信之前（数据、计算或 I/O），而不是通信中</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../backend/analysis/detect_stalls.cpp" line="121"/>
        <location filename="../backend/analysis/detect_stalls.cpp" line="126"/>
        <source>Look at what that rank was doing: its log (Logs tab), the file system its data and checkpoints are on, its memory and swap. --stall-abort ends a job that hangs like this instead of letting it wait.</source>
        <translation>查看该 rank 当时在做什么：它的日志（“日志”标签页）、数据和检查点所在的文件系统、内存和交换空间。--stall-abort 会结束这样挂起的作业，而不是让它一直等待。</translation>
    </message>
    <message>
        <location filename="../backend/analysis/detect_stalls.cpp" line="125"/>
        <source>Stall: %1 made no progress for %2 s</source>
        <translation>停滞：%1 在 %2 秒内没有进展</translation>
    </message>
    <message>
        <location filename="../backend/analysis/detect_data_loading.cpp" line="44"/>
        <source>The input pipeline takes %1% of every step on all ranks (%2% confidence that it is above %3%)</source>
        <translation>在所有进程上，输入管线都占每步的 %1%（高于 %3% 的置信度为 %2%）</translation>
    </message>
    <message numerus="yes">
        <location filename="../backend/analysis/detect_data_loading.cpp" line="50"/>
        <source>The input pipeline may take %1% of every step: not enough evidence yet (%n step(s))</source>
        <translation>
            <numerusform>输入管线可能占每步的 %1%：证据尚不充分（%n 步）</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../backend/analysis/detect_communication.cpp" line="98"/>
        <source>Gradient transfer takes %1% of each step (%2% confidence that it is above %3%)</source>
        <translation>梯度传输占每步的 %1%（高于 %3% 的置信度为 %2%）</translation>
    </message>
    <message numerus="yes">
        <location filename="../backend/analysis/detect_communication.cpp" line="100"/>
        <source>Gradient transfer may take %1% of each step: not enough evidence yet (%n step(s))</source>
        <translation>
            <numerusform>梯度传输可能占每步的 %1%：证据尚不充分（%n 步）</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../backend/analysis/detect_communication.cpp" line="104"/>
        <source>the link&apos;s</source>
        <translation>链路</translation>
    </message>
    <message>
        <location filename="../backend/analysis/detect_communication.cpp" line="105"/>
        <source>the link %1–%2&apos;s (link test of %3)</source>
        <translation>链路 %1–%2（%3 的链路测试）</translation>
    </message>
    <message>
        <location filename="../backend/analysis/detect_communication.cpp" line="108"/>
        <source>The allreduce reaches %1 GB/s bus bandwidth, only %2% of %3 %4 GB/s (%5% confidence that it stays below half). Check which transport NCCL uses (NCCL_DEBUG=INFO: InfiniBand/RoCE rather than TCP sockets), the network interface it picked (NCCL_SOCKET_IFNAME), and MTU and link speed on every host.</source>
        <translation>allreduce 的总线带宽为 %1 GB/s，仅为%3 %4 GB/s 的 %2%（有 %5% 的把握它保持在一半以下）。请检查 NCCL 使用的传输方式（NCCL_DEBUG=INFO：应为 InfiniBand/RoCE 而非 TCP 套接字）、它选择的网络接口（NCCL_SOCKET_IFNAME），以及每台主机的 MTU 和链路速度。</translation>
    </message>
    <message>
        <location filename="../backend/analysis/detect_communication.cpp" line="116"/>
        <source>The allreduce uses %1% of %2 %3 GB/s (%4 GB/s bus bandwidth): the link is the limit. Send less per step: raise gradient accumulation or the per-rank batch, reduce gradients in bf16, or use a faster interconnect.</source>
        <translation>allreduce 使用了%2 %3 GB/s 的 %1%（总线带宽 %4 GB/s）：链路本身就是瓶颈。请减少每步发送的数据：提高梯度累积或每个 rank 的批大小、以 bf16 归约梯度，或使用更快的互连。</translation>
    </message>
    <message>
        <location filename="../backend/analysis/detect_communication.cpp" line="122"/>
        <source>Achieved allreduce bus bandwidth is %1 GB/s; compare it with the link (e.g. 100 Gbit/s = 12.5 GB/s). Raise gradient accumulation or the per-rank batch so that each step computes more per byte sent, and check the NCCL transport with NCCL_DEBUG=INFO.</source>
        <translation>实际 allreduce 总线带宽为 %1 GB/s，请与链路带宽比较（例如 100 Gbit/s = 12.5 GB/s）。提高梯度累积或每进程批大小，使每发送一个字节对应更多计算，并用 NCCL_DEBUG=INFO 检查 NCCL 的传输方式。</translation>
    </message>
    <message numerus="yes">
        <location filename="../backend/analysis/detect_memory.cpp" line="43"/>
        <source>Device memory is %1% full on %n rank(s)</source>
        <translation>
            <numerusform>%n 个进程的设备显存已用 %1%</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../backend/analysis/detect_memory.cpp" line="45"/>
        <source>Memory is close to capacity; an out-of-memory error is likely on a longer sequence or batch. Lower the per-rank batch (raise gradient accumulation to keep the global batch), enable activation checkpointing, or shorten the sequence length.</source>
        <translation>显存已接近上限，序列或批次稍长就可能内存不足。请减小每进程批大小（同时提高梯度累积以保持全局批大小）、启用激活检查点，或缩短序列长度。</translation>
    </message>
    <message>
        <location filename="../backend/analysis/detect_memory.cpp" line="82"/>
        <source>Device memory grew by %1% since the start of the run</source>
        <translation>自运行开始以来，设备显存增长了 %1%</translation>
    </message>
    <message>
        <location filename="../backend/analysis/detect_memory.cpp" line="84"/>
        <source>Memory keeps growing, which usually means tensors are kept across steps (a loss or metric kept with its graph, a growing cache). Detach values you keep for logging; watch for an out-of-memory error.</source>
        <translation>显存持续增长，通常意味着有张量跨步保留（保存了带计算图的损失或指标、不断增长的缓存）。请对用于日志的值调用 detach，并留意内存不足错误。</translation>
    </message>
    <message>
        <location filename="../backend/analysis/detect_loss.cpp" line="54"/>
        <source>The loss became NaN/infinite at step %1</source>
        <translation>损失在第 %1 步变为 NaN/无穷大</translation>
    </message>
    <message>
        <location filename="../backend/analysis/detect_loss.cpp" line="56"/>
        <source>Resume from the checkpoint of step %1 with a lower learning rate (or longer warm-up) and gradient clipping; with fp16, check the loss scale, or train in bf16.</source>
        <translation>从第 %1 步的检查点恢复，并降低学习率（或延长预热）、启用梯度裁剪；使用 fp16 时请检查损失缩放，或改用 bf16 训练。</translation>
    </message>
    <message>
        <location filename="../backend/analysis/detect_loss.cpp" line="59"/>
        <source>Restart with a lower learning rate (or longer warm-up) and gradient clipping; with fp16, check the loss scale, or train in bf16. Save checkpoints more often to resume sooner.</source>
        <translation>降低学习率（或延长预热）并启用梯度裁剪后重新开始；使用 fp16 时请检查损失缩放，或改用 bf16 训练。更频繁地保存检查点，以便更快恢复。</translation>
    </message>
    <message>
        <location filename="../backend/analysis/detect_loss.cpp" line="120"/>
        <source>The loss spiked %1 time(s), up to %2x its recent level</source>
        <translation>损失出现 %1 次尖峰，最高达近期水平的 %2 倍</translation>
    </message>
    <message>
        <location filename="../backend/analysis/detect_loss.cpp" line="122"/>
        <source>Occasional loss spikes often come from a few bad batches or too high a learning rate. Inspect the data around step %1, enable gradient clipping, or lower the peak learning rate.</source>
        <translation>偶发的损失尖峰通常来自少数坏批次或过高的学习率。请检查第 %1 步附近的数据、启用梯度裁剪，或降低峰值学习率。</translation>
    </message>
    <message>
        <location filename="../backend/analysis/detect_loss.cpp" line="136"/>
        <source>The loss diverged: it is %1x its best level since step %2</source>
        <translation>损失发散：当前为第 %2 步以来最佳水平的 %1 倍</translation>
    </message>
    <message>
        <location filename="../backend/analysis/detect_loss.cpp" line="141"/>
        <source>Stop the run and resume from the checkpoint of step %1 with a lower learning rate and gradient clipping.</source>
        <translation>停止运行，并从第 %1 步的检查点以更低的学习率和梯度裁剪恢复。</translation>
    </message>
    <message>
        <location filename="../backend/analysis/detect_loss.cpp" line="144"/>
        <source>Stop the run and restart with a lower learning rate, a longer warm-up and gradient clipping.</source>
        <translation>停止运行，以更低的学习率、更长的预热和梯度裁剪重新开始。</translation>
    </message>
    <message>
        <location filename="../backend/analysis/detect_throughput.cpp" line="44"/>
        <source>Throughput dropped by %1% since the start of the run</source>
        <translation>自运行开始以来，吞吐量下降了 %1%</translation>
    </message>
    <message>
        <location filename="../backend/analysis/detect_throughput.cpp" line="46"/>
        <source>Throughput fell from %1 to %2 %3. Look at which step phase grew (data, compute or communication) in the per-rank view; check for thermal throttling, other jobs on the nodes, or a filling disk.</source>
        <translation>吞吐量从 %1 降到了 %2 %3。请在按进程的视图中查看哪个阶段变长（数据、计算或通信）；检查是否过热降频、节点上是否有其他作业，或磁盘是否将满。</translation>
    </message>
    <message>
        <location filename="../backend/analysis/detect_throughput.cpp" line="48"/>
        <source>tokens/s</source>
        <translation>tokens/s</translation>
    </message>
    <message>
        <location filename="../backend/analysis/detect_throughput.cpp" line="48"/>
        <source>steps/s</source>
        <translation>步/秒</translation>
    </message>
    <message>
        <location filename="../backend/analysis/detect_throughput.cpp" line="107"/>
        <source>gradient transfer</source>
        <translation>梯度传输</translation>
    </message>
    <message>
        <location filename="../backend/analysis/detect_throughput.cpp" line="107"/>
        <source>waiting for slower ranks</source>
        <translation>等待较慢的进程</translation>
    </message>
    <message>
        <location filename="../backend/analysis/detect_throughput.cpp" line="107"/>
        <source>data loading</source>
        <translation>数据加载</translation>
    </message>
    <message>
        <location filename="../backend/analysis/detect_throughput.cpp" line="108"/>
        <source>%1 ranks do the work of %2 (%3% scaling efficiency)</source>
        <translation>%1 个进程只完成了 %2 个进程的工作量（扩展效率 %3%）</translation>
    </message>
    <message>
        <location filename="../backend/analysis/detect_throughput.cpp" line="109"/>
        <source>The largest loss is %1 (%2 ms of a %3 ms step). Address it first; see the other findings for the details.</source>
        <translation>最大的损耗是%1（每步 %3 ms 中占 %2 ms）。请先解决它，详情见其他诊断结果。</translation>
    </message>
</context>
<context>
    <name>traindeck::checks::LinkReport</name>
    <message>
        <location filename="../backend/checks/linktest.cpp" line="91"/>
        <source>high-latency node</source>
        <translation>高延迟节点</translation>
    </message>
    <message>
        <location filename="../backend/checks/linktest.cpp" line="91"/>
        <source>slow node</source>
        <translation>慢节点</translation>
    </message>
    <message>
        <location filename="../backend/checks/linktest.cpp" line="92"/>
        <source>slow link %1 – %2</source>
        <translation>慢链路 %1 – %2</translation>
    </message>
    <message>
        <location filename="../backend/checks/linktest.cpp" line="95"/>
        <source>suspect</source>
        <translation>可疑</translation>
    </message>
</context>
<context>
    <name>traindeck::checks::LinkTest</name>
    <message>
        <location filename="../backend/checks/linktest.cpp" line="37"/>
        <source>%1 Gbit/s</source>
        <translation>%1 Gbit/s</translation>
    </message>
    <message>
        <location filename="../backend/checks/linktest.cpp" line="37"/>
        <source>%1 Mbit/s</source>
        <translation>%1 Mbit/s</translation>
    </message>
    <message>
        <location filename="../backend/checks/linktest.cpp" line="217"/>
        <source>the link test printed no result</source>
        <translation>链路测试没有输出结果</translation>
    </message>
    <message>
        <location filename="../backend/checks/linktest.cpp" line="219"/>
        <source>the link test ran %1 rank(s) for %2 node(s)</source>
        <translation>链路测试为 %2 个节点运行了 %1 个进程</translation>
    </message>
    <message>
        <location filename="../backend/checks/linktest.cpp" line="224"/>
        <source>the link test&apos;s result has no message size: %1</source>
        <translation>链路测试的结果没有消息大小：%1</translation>
    </message>
    <message>
        <location filename="../backend/checks/linktest.cpp" line="239"/>
        <source>the link test&apos;s result is malformed: %1</source>
        <translation>链路测试的结果格式有误：%1</translation>
    </message>
    <message>
        <location filename="../backend/checks/linktest.cpp" line="274"/>
        <source>the link test&apos;s verdict is malformed: %1</source>
        <translation>链路测试的判定格式错误：%1</translation>
    </message>
    <message>
        <location filename="../backend/checks/linktest.cpp" line="293"/>
        <location filename="../backend/checks/linktest.cpp" line="310"/>
        <source>%1 µs</source>
        <translation>%1 µs</translation>
    </message>
    <message>
        <location filename="../backend/checks/linktest.cpp" line="295"/>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message numerus="yes">
        <location filename="../backend/checks/linktest.cpp" line="299"/>
        <source>%1 and %n more</source>
        <translation>
            <numerusform>%1 及另外 %n 个</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../backend/checks/linktest.cpp" line="302"/>
        <source>the median latency is %1 µs</source>
        <translation>延迟中位数为 %1 µs</translation>
    </message>
    <message>
        <location filename="../backend/checks/linktest.cpp" line="303"/>
        <source>the median is %1</source>
        <translation>中位数为 %1</translation>
    </message>
    <message>
        <location filename="../backend/checks/linktest.cpp" line="306"/>
        <source>%1 was slow with every partner: %2; %3</source>
        <translation>%1 与每个配对节点都慢：%2；%3</translation>
    </message>
    <message>
        <location filename="../backend/checks/linktest.cpp" line="315"/>
        <source>the link between %1 and %2 measured %3 (%4), while both were fast with other nodes (%5)</source>
        <translation>%1 与 %2 之间的链路测得 %3（%4），而两者与其他节点都快（%5）</translation>
    </message>
    <message>
        <location filename="../backend/checks/linktest.cpp" line="321"/>
        <source>%1 could not be measured: no healthy partner was left for it within the rounds</source>
        <translation>%1 无法测量：在轮次内没有剩余的健康配对节点</translation>
    </message>
    <message>
        <location filename="../backend/checks/linktest.cpp" line="322"/>
        <source>%1 was slow with %2 only: the rounds ended before a second healthy partner could tell a slow node from a slow link (%3)</source>
        <translation>%1 仅与 %2 慢：轮次结束前没有第二个健康配对节点来区分慢节点与慢链路（%3）</translation>
    </message>
    <message>
        <location filename="../backend/checks/linktest.cpp" line="334"/>
        <source>the link test needs at least two nodes</source>
        <translation>链路测试至少需要两个节点</translation>
    </message>
    <message>
        <location filename="../backend/checks/linktest.cpp" line="356"/>
        <source>mpirun on %1 could not run the link test (%2): check head → worker SSH (traindeck-cli install-key --head-to-workers), that Open MPI and traindeck-trainer are on every node, and btl_tcp_if_include</source>
        <translation>%1 上的 mpirun 无法运行链路测试（%2）：请检查主节点 → 工作节点的 SSH（traindeck-cli install-key --head-to-workers）、每个节点上是否都有 Open MPI 和 traindeck-trainer，以及 btl_tcp_if_include</translation>
    </message>
    <message>
        <location filename="../backend/checks/linktest.cpp" line="364"/>
        <source> — Open MPI could not open a TCP connection between two ranks (its warning below). Common causes: a full neighbour (ARP) table on a node (&quot;neighbor table overflow!&quot; in dmesg; the network check warns when the table is too small for the cluster), a firewall between the nodes, or btl_tcp_if_include naming an interface the nodes cannot reach each other on</source>
        <translation> — Open MPI 无法在两个进程之间建立 TCP 连接（其警告见下）。常见原因：某个节点的邻居（ARP）表已满（dmesg 中出现“neighbor table overflow!”；当邻居表对集群来说太小时，网络检查会发出警告）、节点之间有防火墙，或 btl_tcp_if_include 指定了节点之间无法互通的接口</translation>
    </message>
    <message>
        <location filename="../backend/checks/linktest.cpp" line="381"/>
        <source>not kept for the diagnosis of this profile&apos;s runs: %1</source>
        <translation>未保存以供此配置的运行诊断使用：%1</translation>
    </message>
    <message>
        <location filename="../backend/checks/linktest.cpp" line="400"/>
        <source>the link test needs a cluster profile with a head and at least one more node</source>
        <translation>链路测试需要一个有主节点且至少还有一个节点的集群配置</translation>
    </message>
    <message>
        <location filename="../backend/checks/linktest.cpp" line="407"/>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
</context>
<context>
    <name>traindeck::checks::NodeChecker</name>
    <message>
        <location filename="../backend/checks/clusterchecker.cpp" line="196"/>
        <source>this machine (no SSH)</source>
        <translation>本机（不使用 SSH）</translation>
    </message>
    <message>
        <location filename="../backend/checks/clusterchecker.cpp" line="205"/>
        <source>%1@%2:%3 (%4)</source>
        <translation>%1@%2:%3（%4）</translation>
    </message>
    <message>
        <location filename="../backend/checks/clusterchecker.cpp" line="209"/>
        <source>host key %1 %2</source>
        <translation>主机密钥 %1 %2</translation>
    </message>
    <message>
        <location filename="../backend/checks/clusterchecker.cpp" line="220"/>
        <source>To accept it: answer the question in TrainDeck, or run `traindeck-cli check --accept-new-host-keys` after verifying the fingerprint.</source>
        <translation>如需接受：请在 TrainDeck 中回答确认问题，或在核对指纹后运行 `traindeck-cli check --accept-new-host-keys`。</translation>
    </message>
    <message>
        <location filename="../backend/checks/clusterchecker.cpp" line="264"/>
        <location filename="../backend/checks/clusterchecker.cpp" line="288"/>
        <location filename="../backend/checks/clusterchecker.cpp" line="289"/>
        <source>not reachable</source>
        <translation>无法连接</translation>
    </message>
    <message>
        <location filename="../backend/checks/clusterchecker.cpp" line="300"/>
        <source>not submitted: the partition cannot run it (see Slurm)</source>
        <translation>未提交：该分区无法运行它（见 Slurm）</translation>
    </message>
    <message>
        <location filename="../backend/checks/clusterchecker.cpp" line="329"/>
        <source>the check job did not run</source>
        <translation>检查作业没有运行</translation>
    </message>
    <message numerus="yes">
        <location filename="../backend/checks/clusterchecker.cpp" line="362"/>
        <source>The check job could not be cancelled; it ends at its time limit (%n minute(s)), or cancel it on the login node with scancel %1.</source>
        <translation>
            <numerusform>无法取消检查作业；它会在时间限制（%n 分钟）到达时结束，也可以在登录节点上用 scancel %1 取消它。</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../backend/checks/clusterchecker.cpp" line="399"/>
        <source>job step of job %1 on %2 (host name %3)</source>
        <translation>作业 %1 在 %2 上的作业步（主机名 %3）</translation>
    </message>
    <message>
        <location filename="../backend/checks/clusterchecker.cpp" line="402"/>
        <source>srun in job %1 on %2: %3</source>
        <translation>作业 %1 中 %2 上的 srun：%3</translation>
    </message>
    <message>
        <location filename="../backend/checks/clusterchecker.cpp" line="403"/>
        <source>Slurm did not start a job step on this node (its words are in the evidence); `srun --jobid=%1 --overlap -w %2 hostname` on the login node shows the same.</source>
        <translation>Slurm 没有在此节点上启动作业步（其输出见证据）；在登录节点上运行 `srun --jobid=%1 --overlap -w %2 hostname` 会看到同样的结果。</translation>
    </message>
    <message>
        <location filename="../backend/checks/clusterchecker.cpp" line="413"/>
        <source>no job step</source>
        <translation>没有作业步</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodecheck.cpp" line="29"/>
        <source>… (%1 more lines)</source>
        <translation>…（另有 %1 行）</translation>
    </message>
    <message>
        <location filename="../backend/checks/clusterchecker.cpp" line="298"/>
        <location filename="../backend/checks/nodecheck.cpp" line="313"/>
        <source>cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodecheck.cpp" line="335"/>
        <source>The command did not answer in time; the node may be overloaded or a file system hangs.</source>
        <translation>命令未在规定时间内响应；节点可能负载过高，或某个文件系统挂起。</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodecheck.cpp" line="337"/>
        <source>Check the connection to the node.</source>
        <translation>请检查到该节点的连接。</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodecheck.cpp" line="207"/>
        <location filename="../backend/checks/nodematrix.cpp" line="21"/>
        <source>Operating system</source>
        <translation>操作系统</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodecheck.cpp" line="205"/>
        <source>Reachable and logged in</source>
        <translation>可以连接并已登录</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodecheck.cpp" line="209"/>
        <source>CPU cores</source>
        <translation>CPU 核心</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodecheck.cpp" line="211"/>
        <source>Memory</source>
        <translation>内存</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodecheck.cpp" line="213"/>
        <source>Free disk in the work directory</source>
        <translation>工作目录可用磁盘空间</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodecheck.cpp" line="215"/>
        <source>GPUs</source>
        <translation>GPU</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodecheck.cpp" line="224"/>
        <source>Network interfaces</source>
        <translation>网络接口</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodecheck.cpp" line="226"/>
        <source>Clock</source>
        <translation>时钟</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodecheck.cpp" line="228"/>
        <source>Head → workers SSH</source>
        <translation>主节点 → 工作节点 SSH</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodecheck.cpp" line="230"/>
        <source>Interconnect (allreduce)</source>
        <translation>互连（allreduce）</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodecheck.cpp" line="232"/>
        <source>Slurm</source>
        <translation>Slurm</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodecheck.cpp" line="235"/>
        <source>Check job</source>
        <translation>检查作业</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodecheckmachine.cpp" line="30"/>
        <source>%1, %2</source>
        <translation>%1，%2</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodecheckmachine.cpp" line="33"/>
        <source>TrainDeck&apos;s trainer is built and tested on Linux; other systems may not work.</source>
        <translation>TrainDeck 的训练程序在 Linux 上构建和测试，其他系统可能无法运行。</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodecheckmachine.cpp" line="53"/>
        <source>core count unknown</source>
        <translation>核心数未知</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodecheckmachine.cpp" line="54"/>
        <source>`nproc` gave no number; check that coreutils are installed.</source>
        <translation>`nproc` 没有输出数字；请检查是否安装了 coreutils。</translation>
    </message>
    <message numerus="yes">
        <location filename="../backend/checks/nodecheckmachine.cpp" line="58"/>
        <source>%n core(s)</source>
        <translation>
            <numerusform>%n 个核心</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../backend/checks/nodecheckmachine.cpp" line="62"/>
        <source>The profile puts %1 CPU ranks on %2 cores; use at most %2 slots on this node.</source>
        <translation>该配置在 %2 个核心上放置了 %1 个 CPU 进程；此节点最多使用 %2 个槽位。</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodecheckmachine.cpp" line="78"/>
        <location filename="../backend/checks/nodechecknetwork.cpp" line="163"/>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodecheckmachine.cpp" line="79"/>
        <source>/proc/meminfo could not be read.</source>
        <translation>无法读取 /proc/meminfo。</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodecheckmachine.cpp" line="88"/>
        <source>%1 of RAM; at least %2 GB is recommended for the 1.5B model (weights, optimizer state and data loading per rank). Use fewer ranks per node or a node with more memory.</source>
        <translation>内存 %1；1.5B 模型建议至少 %2 GB（每个进程的权重、优化器状态和数据加载）。请减少每节点的进程数，或使用内存更大的节点。</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodecheckmachine.cpp" line="110"/>
        <source>cannot create %1</source>
        <translation>无法创建 %1</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodecheckmachine.cpp" line="110"/>
        <source>%1 is not writable</source>
        <translation>%1 不可写</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodecheckmachine.cpp" line="111"/>
        <source>Create the work directory %1 on the node with write access for the login user, or change &quot;workdir&quot; in the profile.</source>
        <translation>请在节点上创建工作目录 %1 并赋予登录用户写权限，或修改配置中的 &quot;workdir&quot;。</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodecheckmachine.cpp" line="121"/>
        <source>free space unknown</source>
        <translation>可用空间未知</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodecheckmachine.cpp" line="122"/>
        <source>`df -Pk` gave unexpected output.</source>
        <translation>`df -Pk` 的输出不符合预期。</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodecheckmachine.cpp" line="126"/>
        <source>%1 free in %2 (%3)</source>
        <translation>%2 可用 %1（%3）</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodecheckmachine.cpp" line="130"/>
        <source>Only %1 free: a checkpoint of the 1.5B model with optimizer state needs about 30 GB. Free space or point &quot;workdir&quot; at a larger file system.</source>
        <translation>仅剩 %1 可用：1.5B 模型连同优化器状态的一个检查点约需 30 GB。请释放空间，或将 &quot;workdir&quot; 指向更大的文件系统。</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodecheckmachine.cpp" line="136"/>
        <source>%1 free; %2 GB or more is recommended to keep a few checkpoints (about 30 GB each with optimizer state).</source>
        <translation>可用 %1；建议至少 %2 GB，以便保留几个检查点（连同优化器状态每个约 30 GB）。</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodecheckmachine.cpp" line="183"/>
        <source>nvidia-smi not found on PATH</source>
        <translation>PATH 中找不到 nvidia-smi</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodecheckmachine.cpp" line="184"/>
        <location filename="../backend/checks/nodecheckmachine.cpp" line="201"/>
        <location filename="../backend/checks/nodecheckmachine.cpp" line="210"/>
        <location filename="../backend/checks/nodechecksoftware.cpp" line="90"/>
        <source>no GPU</source>
        <translation>无 GPU</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodecheckmachine.cpp" line="185"/>
        <source>no GPU (nvidia-smi not found)</source>
        <translation>无 GPU（找不到 nvidia-smi）</translation>
    </message>
    <message numerus="yes">
        <location filename="../backend/checks/nodecheckmachine.cpp" line="189"/>
        <source>The profile uses %n GPU(s) on this node but nvidia-smi is missing: install the NVIDIA driver (and reboot), or set &quot;gpus&quot;: 0 to train on the CPU.</source>
        <translation>
            <numerusform>配置在此节点上使用 %n 块 GPU，但缺少 nvidia-smi：请安装 NVIDIA 驱动（并重启），或设置 &quot;gpus&quot;: 0 改用 CPU 训练。</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../backend/checks/nodecheckmachine.cpp" line="194"/>
        <source>No NVIDIA GPU found; CPU training is still possible but much slower.</source>
        <translation>未发现 NVIDIA GPU；仍可使用 CPU 训练，但会慢得多。</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodecheckmachine.cpp" line="200"/>
        <source>nvidia-smi failed (exit code %1)</source>
        <translation>nvidia-smi 运行失败（退出码 %1）</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodecheckmachine.cpp" line="202"/>
        <source>nvidia-smi cannot talk to the driver: check that the NVIDIA kernel module is loaded (lsmod | grep nvidia) and matches the installed driver, or reboot after a driver update.</source>
        <translation>nvidia-smi 无法与驱动通信：请确认 NVIDIA 内核模块已加载（lsmod | grep nvidia）且与已安装的驱动版本一致，或在更新驱动后重启。</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodecheckmachine.cpp" line="209"/>
        <source>nvidia-smi lists no GPU</source>
        <translation>nvidia-smi 未列出任何 GPU</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodecheckmachine.cpp" line="211"/>
        <source>No GPU is visible (CUDA_VISIBLE_DEVICES, a container without GPUs, or a failed device).</source>
        <translation>看不到任何 GPU（CUDA_VISIBLE_DEVICES 设置、容器未挂载 GPU，或设备故障）。</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodecheckmachine.cpp" line="226"/>
        <source>%1 × %2 (%3 GiB), driver %4</source>
        <translation>%1 × %2（%3 GiB），驱动 %4</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodecheckmachine.cpp" line="232"/>
        <source>the profile uses %1 GPUs but %2 are present</source>
        <translation>配置使用 %1 块 GPU，但实际有 %2 块</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodecheckmachine.cpp" line="234"/>
        <source>Set &quot;gpus&quot; to %1 for this node, or check CUDA_VISIBLE_DEVICES and the driver.</source>
        <translation>请将此节点的 &quot;gpus&quot; 设为 %1，或检查 CUDA_VISIBLE_DEVICES 和驱动。</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodecheckmachine.cpp" line="238"/>
        <source>%1 ranks but %2 GPUs</source>
        <translation>%1 个进程但只有 %2 块 GPU</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodecheckmachine.cpp" line="239"/>
        <source>Use one rank per GPU: set &quot;slots&quot; to at most %1.</source>
        <translation>每块 GPU 一个进程：请将 &quot;slots&quot; 设为不超过 %1。</translation>
    </message>
    <message numerus="yes">
        <location filename="../backend/checks/nodecheckmachine.cpp" line="244"/>
        <source>the profile does not use the %n GPU(s) of this node</source>
        <translation>
            <numerusform>配置没有使用此节点的 %n 块 GPU</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../backend/checks/nodecheckmachine.cpp" line="245"/>
        <source>Set &quot;gpus&quot;: %1 for this node to train on them.</source>
        <translation>为此节点设置 &quot;gpus&quot;: %1 即可在 GPU 上训练。</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodecheckmachine.cpp" line="250"/>
        <source>%1 GiB per GPU</source>
        <translation>每块 GPU %1 GiB</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodecheckmachine.cpp" line="251"/>
        <source>At least %1 GB per GPU is recommended for the 1.5B model; use a smaller micro-batch, activation checkpointing or bf16 if memory runs out.</source>
        <translation>1.5B 模型建议每块 GPU 至少 %1 GB；如显存不足，请减小微批大小、启用激活检查点或使用 bf16。</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodecheckmachine.cpp" line="258"/>
        <source>mixed models: %1</source>
        <translation>混合型号：%1</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodecheckmachine.cpp" line="259"/>
        <source>Mixed GPU models make the slowest one set the pace of every step.</source>
        <translation>GPU 型号不一致时，最慢的那块决定每一步的速度。</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodematrix.cpp" line="89"/>
        <source>; differs from %1 (%2)</source>
        <translation>；与 %1（%2）不同</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodecheck.cpp" line="216"/>
        <location filename="../backend/checks/nodematrix.cpp" line="37"/>
        <source>traindeck-trainer</source>
        <translation>traindeck-trainer</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodechecksoftware.cpp" line="37"/>
        <source>not found on PATH</source>
        <translation>PATH 中未找到</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodechecksoftware.cpp" line="38"/>
        <source>command -v traindeck-trainer: not found</source>
        <translation>command -v traindeck-trainer：未找到</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodechecksoftware.cpp" line="49"/>
        <source>%1 self-check failed (%2)</source>
        <translation>%1 自检失败（%2）</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodechecksoftware.cpp" line="51"/>
        <source>A library is missing (see the evidence): install LibTorch/Open MPI on the node or deploy a trainer built for it.</source>
        <translation>缺少某个库（见证据）：请在节点上安装 LibTorch/Open MPI，或部署为该节点构建的训练程序。</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodechecksoftware.cpp" line="60"/>
        <source>%1 self-check printed no JSON</source>
        <translation>%1 自检没有输出 JSON</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodechecksoftware.cpp" line="79"/>
        <source>available</source>
        <translation>可用</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodechecksoftware.cpp" line="79"/>
        <location filename="../backend/checks/nodechecksoftware.cpp" line="114"/>
        <source>not available</source>
        <translation>不可用</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodechecksoftware.cpp" line="80"/>
        <source>%1 (LibTorch %2) at %3</source>
        <translation>%1（LibTorch %2），位于 %3</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodechecksoftware.cpp" line="80"/>
        <source>unknown version</source>
        <translation>版本未知</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodechecksoftware.cpp" line="83"/>
        <source>The self-check has no &quot;trainer&quot; version; deploy a current traindeck-trainer.</source>
        <translation>自检结果中没有 &quot;trainer&quot; 版本；请部署最新的 traindeck-trainer。</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodechecksoftware.cpp" line="116"/>
        <source>The trainer on this node cannot use CUDA (a CPU-only LibTorch?).</source>
        <translation>此节点上的训练程序无法使用 CUDA（可能是仅 CPU 版 LibTorch）。</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodecheck.cpp" line="218"/>
        <location filename="../backend/checks/nodematrix.cpp" line="27"/>
        <source>CUDA</source>
        <translation>CUDA</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodechecksoftware.cpp" line="105"/>
        <source>driver supports CUDA %1</source>
        <translation>驱动支持 CUDA %1</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodechecksoftware.cpp" line="107"/>
        <source>toolkit %1</source>
        <translation>工具包 %1</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodechecksoftware.cpp" line="109"/>
        <source>trainer: CUDA %1</source>
        <translation>训练程序：CUDA %1</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodechecksoftware.cpp" line="110"/>
        <source>CUDA version unknown</source>
        <translation>CUDA 版本未知</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodechecksoftware.cpp" line="113"/>
        <source>nvidia-smi shows no CUDA version; update the NVIDIA driver.</source>
        <translation>nvidia-smi 未显示 CUDA 版本；请更新 NVIDIA 驱动。</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodecheck.cpp" line="220"/>
        <location filename="../backend/checks/nodematrix.cpp" line="29"/>
        <source>NCCL</source>
        <translation>NCCL</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodechecksoftware.cpp" line="127"/>
        <source>no GPU (NCCL is used for GPU training)</source>
        <translation>无 GPU（NCCL 用于 GPU 训练）</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodechecksoftware.cpp" line="151"/>
        <source>NCCL not found</source>
        <translation>未找到 NCCL</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodechecksoftware.cpp" line="152"/>
        <source>Install NCCL (libnccl2 from NVIDIA&apos;s repository, or the CUDA toolkit&apos;s copy under /usr/local/cuda); multi-GPU training needs it.</source>
        <translation>请安装 NCCL（NVIDIA 软件源中的 libnccl2，或 /usr/local/cuda 下 CUDA 工具包自带的版本）；多 GPU 训练需要它。</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodechecksoftware.cpp" line="157"/>
        <source>NCCL %1</source>
        <translation>NCCL %1</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodechecksoftware.cpp" line="158"/>
        <source> (trainer: %1)</source>
        <translation>（训练程序：%1）</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodecheck.cpp" line="222"/>
        <location filename="../backend/checks/nodematrix.cpp" line="33"/>
        <source>Open MPI</source>
        <translation>Open MPI</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodechecksoftware.cpp" line="179"/>
        <source>%1 not found</source>
        <translation>未找到 %1</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodechecksoftware.cpp" line="180"/>
        <source>Install Open MPI on every node (Debian/Ubuntu: apt install openmpi-bin libopenmpi-dev), the same version everywhere, or set &quot;launcher&quot;/&quot;path_prefix&quot; in the profile.</source>
        <translation>请在每个节点上安装相同版本的 Open MPI（Debian/Ubuntu：apt install openmpi-bin libopenmpi-dev），或在配置中设置 &quot;launcher&quot;/&quot;path_prefix&quot;。</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodechecksoftware.cpp" line="189"/>
        <source>TrainDeck launches with Open MPI&apos;s mpirun; another MPI may need different options.</source>
        <translation>TrainDeck 使用 Open MPI 的 mpirun 启动；其他 MPI 实现可能需要不同的选项。</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodechecknetwork.cpp" line="85"/>
        <source>`ip` not found</source>
        <translation>未找到 `ip`</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodechecknetwork.cpp" line="86"/>
        <source>Install iproute2 to list the interfaces, then set NCCL_SOCKET_IFNAME in the profile&apos;s env.</source>
        <translation>请安装 iproute2 以列出网络接口，然后在配置的 env 中设置 NCCL_SOCKET_IFNAME。</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodechecknetwork.cpp" line="105"/>
        <source>NCCL_SOCKET_IFNAME=%1 is set</source>
        <translation>已设置 NCCL_SOCKET_IFNAME=%1</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodechecknetwork.cpp" line="108"/>
        <source>; no matching interface</source>
        <translation>；没有匹配的接口</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodechecknetwork.cpp" line="110"/>
        <source>No interface on %1 matches NCCL_SOCKET_IFNAME=%2; NCCL would fail to start. Use %3.</source>
        <translation>%1 上没有与 NCCL_SOCKET_IFNAME=%2 匹配的接口，NCCL 将无法启动。请使用 %3。</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodechecknetwork.cpp" line="111"/>
        <source>an existing interface</source>
        <translation>一个已存在的接口</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodechecknetwork.cpp" line="119"/>
        <source>only loopback</source>
        <translation>只有回环接口</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodechecknetwork.cpp" line="121"/>
        <source>No network interface besides loopback: other nodes cannot reach this one.</source>
        <translation>除回环接口外没有其他网络接口：其他节点无法访问此节点。</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodechecknetwork.cpp" line="126"/>
        <source>suggested NCCL_SOCKET_IFNAME=%1</source>
        <translation>建议 NCCL_SOCKET_IFNAME=%1</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodechecknetwork.cpp" line="126"/>
        <source> (%1)</source>
        <translation>（%1）</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodechecknetwork.cpp" line="136"/>
        <source>; neighbour table capped at %1 entries</source>
        <translation>；邻居表上限为 %1 条</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodechecknetwork.cpp" line="138"/>
        <source>The kernel of %1 keeps at most %2 neighbour (ARP) entries, and traffic among the profile&apos;s %3 nodes needs about %4: once the table is full, connections to new peers fail (&quot;neighbor table overflow!&quot; in dmesg) and MPI or NCCL hangs. Raise net.ipv4.neigh.default.gc_thresh1, gc_thresh2 and gc_thresh3 (e.g. to %5, %6 and %4 with sysctl -w).</source>
        <translation>%1 的内核最多保留 %2 条邻居（ARP）表项，而配置文件中 %3 个节点之间的通信大约需要 %4 条：表满之后，连向新对端的连接会失败（dmesg 中出现“neighbor table overflow!”），MPI 或 NCCL 会挂起。请调高 net.ipv4.neigh.default.gc_thresh1、gc_thresh2 和 gc_thresh3（例如用 sysctl -w 设为 %5、%6 和 %4）。</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodechecknetwork.cpp" line="164"/>
        <source>`date +%s.%N` gave no time.</source>
        <translation>`date +%s.%N` 没有返回时间。</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodechecknetwork.cpp" line="171"/>
        <source>offset %1 s (± %2 s) from this machine</source>
        <translation>与本机相差 %1 秒（± %2 秒）</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodechecknetwork.cpp" line="174"/>
        <source>The clock differs by %1 s: timestamps in metrics and logs will not line up. Enable time synchronisation (systemd-timesyncd, chrony or ntpd) on every node.</source>
        <translation>时钟相差 %1 秒：指标和日志中的时间戳将对不上。请在每个节点上启用时间同步（systemd-timesyncd、chrony 或 ntpd）。</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodechecknetwork.cpp" line="229"/>
        <source>%1: ok%2</source>
        <translation>%1：正常%2</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodechecknetwork.cpp" line="231"/>
        <source> (getent cannot resolve %1, ssh could)</source>
        <translation>（getent 无法解析 %1，但 ssh 可以）</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodechecknetwork.cpp" line="235"/>
        <source>%1: exit %2: %3</source>
        <translation>%1：退出码 %2：%3</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodechecknetwork.cpp" line="239"/>
        <source>%1 cannot resolve %2: add it to /etc/hosts on the head or to DNS, or use its IP address in the profile.</source>
        <translation>%1 无法解析 %2：请将其加入主节点的 /etc/hosts 或 DNS，或在配置中使用其 IP 地址。</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodechecknetwork.cpp" line="244"/>
        <source>The head does not know the host key of %1 (or it changed). Let TrainDeck set up head → worker SSH (it copies the key this machine verified), or on the head run `ssh%2 %3` once and compare the fingerprint.</source>
        <translation>主节点不认识 %1 的主机密钥（或密钥已变更）。请让 TrainDeck 设置主节点到工作节点的 SSH（它会复制本机已核验的密钥），或在主节点上运行一次 `ssh%2 %3` 并核对指纹。</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodechecknetwork.cpp" line="250"/>
        <source>The head has no key authorized on %1. Let TrainDeck set up head → worker SSH, or on the head run: ssh-keygen -t ed25519 (if it has no key) and ssh-copy-id%2 %3</source>
        <translation>主节点在 %1 上没有已授权的密钥。请让 TrainDeck 设置主节点到工作节点的 SSH，或在主节点上运行：ssh-keygen -t ed25519（若尚无密钥）和 ssh-copy-id%2 %3</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodechecknetwork.cpp" line="254"/>
        <source>ssh is not installed on the head: apt install openssh-client.</source>
        <translation>主节点未安装 ssh：apt install openssh-client。</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodechecknetwork.cpp" line="256"/>
        <source>Check that %1 is reachable from the head on port %2 (firewall, routing).</source>
        <translation>请检查主节点能否通过端口 %2 访问 %1（防火墙、路由）。</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodechecknetwork.cpp" line="262"/>
        <source>the test did not complete</source>
        <translation>测试未完成</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodechecknetwork.cpp" line="264"/>
        <source>Run `ssh -o BatchMode=yes WORKER true` on the head by hand to see what fails.</source>
        <translation>请在主节点上手动运行 `ssh -o BatchMode=yes WORKER true` 查看失败原因。</translation>
    </message>
    <message numerus="yes">
        <location filename="../backend/checks/nodechecknetwork.cpp" line="269"/>
        <source>passwordless SSH to all %n worker(s)</source>
        <translation>
            <numerusform>到全部 %n 个工作节点均可免密 SSH</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../backend/checks/nodechecknetwork.cpp" line="272"/>
        <source>no passwordless SSH to %1</source>
        <translation>无法免密 SSH 到 %1</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodechecksoftware.cpp" line="31"/>
        <source>Install traindeck-trainer on %1 in a directory on PATH or in the profile&apos;s &quot;path_prefix&quot; (for example ~/.local/bin), in the same version as on the other nodes. TrainDeck copies this machine&apos;s binary there with: traindeck-cli deploy --profile FILE --node %1</source>
        <translation>请在 %1 上把 traindeck-trainer 安装到 PATH 中的目录或配置文件的 &quot;path_prefix&quot; 目录（例如 ~/.local/bin），版本须与其他节点一致。TrainDeck 可用以下命令把本机的程序复制过去：traindeck-cli deploy --profile FILE --node %1</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodechecknetwork.cpp" line="282"/>
        <source>single node</source>
        <translation>单节点</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodechecknetwork.cpp" line="305"/>
        <source>traindeck-trainer has no bench-comm (older version)</source>
        <translation>traindeck-trainer 没有 bench-comm（版本较旧）</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodechecknetwork.cpp" line="315"/>
        <source>allreduce test failed (%1)</source>
        <translation>allreduce 测试失败（%1）</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodechecknetwork.cpp" line="316"/>
        <source>mpirun could not run across the nodes: check head → worker SSH, that Open MPI and the trainer are the same on every node, and NCCL_SOCKET_IFNAME / btl_tcp_if_include.</source>
        <translation>mpirun 无法跨节点运行：请检查主节点到工作节点的 SSH、各节点的 Open MPI 与训练程序是否一致，以及 NCCL_SOCKET_IFNAME / btl_tcp_if_include。</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodechecknetwork.cpp" line="324"/>
        <source>allreduce bus bandwidth %1 GB/s at %2 MiB over %3 ranks</source>
        <translation>allreduce 总线带宽 %1 GB/s（%2 MiB，%3 个进程）</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodechecknetwork.cpp" line="330"/>
        <source>Below 1 GB/s: gradient allreduce will dominate each step. Use a faster link (25 GbE or InfiniBand) and make sure NCCL/MPI use it (NCCL_SOCKET_IFNAME, NCCL_IB_HCA).</source>
        <translation>低于 1 GB/s：梯度 allreduce 将主导每一步。请使用更快的链路（25 GbE 或 InfiniBand），并确保 NCCL/MPI 使用它（NCCL_SOCKET_IFNAME、NCCL_IB_HCA）。</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodechecknetwork.cpp" line="350"/>
        <source>sinfo not found on the login node</source>
        <translation>登录节点上找不到 sinfo</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodechecknetwork.cpp" line="351"/>
        <source>command -v sinfo: not found</source>
        <translation>command -v sinfo：未找到</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodechecknetwork.cpp" line="352"/>
        <source>Install Slurm&apos;s client commands on the login node (Debian: slurm-client) or add their directory to the profile&apos;s &quot;path_prefix&quot;.</source>
        <translation>在登录节点上安装 Slurm 的客户端命令（Debian：slurm-client），或把它们所在的目录加入配置的 &quot;path_prefix&quot;。</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodechecknetwork.cpp" line="359"/>
        <source>sinfo failed (%1)</source>
        <translation>sinfo 失败（%1）</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodechecknetwork.cpp" line="361"/>
        <source>Slurm&apos;s controller did not answer: check that slurmctld runs and is reachable from the login node (scontrol ping).</source>
        <translation>Slurm 控制器没有响应：请检查 slurmctld 是否在运行、登录节点能否访问它（scontrol ping）。</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodematrix.cpp" line="22"/>
        <source>Different systems may ship different library versions.</source>
        <translation>不同的系统可能附带不同版本的库。</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodematrix.cpp" line="23"/>
        <source>GPUs and driver</source>
        <translation>GPU 与驱动</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodematrix.cpp" line="24"/>
        <source>Different GPUs or drivers: the slowest node sets the pace; use the same driver everywhere.</source>
        <translation>GPU 或驱动不一致：最慢的节点决定速度；请在所有节点上使用相同的驱动。</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodematrix.cpp" line="28"/>
        <source>Use the same CUDA version on every node.</source>
        <translation>请在每个节点上使用相同的 CUDA 版本。</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodematrix.cpp" line="30"/>
        <source>Different NCCL versions can hang or fail in collectives; install the same one everywhere.</source>
        <translation>NCCL 版本不一致可能导致集合通信挂起或失败；请在所有节点上安装同一版本。</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodematrix.cpp" line="34"/>
        <source>Open MPI must be the same version on every node; install the head&apos;s version on all nodes.</source>
        <translation>每个节点的 Open MPI 版本必须相同；请在所有节点上安装与主节点相同的版本。</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodematrix.cpp" line="38"/>
        <source>Every node must run the same traindeck-trainer version: deploy the head&apos;s binary to the nodes that differ.</source>
        <translation>每个节点必须运行相同版本的 traindeck-trainer：请把主节点的程序部署到版本不同的节点上。</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodematrix.cpp" line="41"/>
        <source>NCCL_SOCKET_IFNAME</source>
        <translation>NCCL_SOCKET_IFNAME</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodematrix.cpp" line="42"/>
        <source>The interfaces have different names: set NCCL_SOCKET_IFNAME in the profile&apos;s env to a common prefix or a comma-separated list.</source>
        <translation>各节点的网络接口名称不同：请在配置的 env 中将 NCCL_SOCKET_IFNAME 设为共同前缀或逗号分隔的列表。</translation>
    </message>
    <message>
        <location filename="../backend/checks/nodematrix.cpp" line="86"/>
        <source>; differs from the head (%1)</source>
        <translation>；与主节点不同（%1）</translation>
    </message>
</context>
<context>
    <name>traindeck::checks::SlurmCheck</name>
    <message>
        <location filename="../backend/checks/slurmcheck.cpp" line="55"/>
        <source>no partition &apos;%1&apos; (%2)</source>
        <translation>没有分区 &apos;%1&apos;（%2）</translation>
    </message>
    <message>
        <location filename="../backend/checks/slurmcheck.cpp" line="57"/>
        <source>sinfo lists no nodes</source>
        <translation>sinfo 没有列出任何节点</translation>
    </message>
    <message>
        <location filename="../backend/checks/slurmcheck.cpp" line="58"/>
        <source>sinfo lists the partitions: %1</source>
        <translation>sinfo 列出的分区：%1</translation>
    </message>
    <message>
        <location filename="../backend/checks/slurmcheck.cpp" line="60"/>
        <source>Slurm lists no nodes: check slurm.conf (NodeName and PartitionName lines) on the cluster.</source>
        <translation>Slurm 没有列出任何节点：请检查集群上的 slurm.conf（NodeName 和 PartitionName 行）。</translation>
    </message>
    <message>
        <location filename="../backend/checks/slurmcheck.cpp" line="62"/>
        <source>Set &quot;partition&quot; in the profile&apos;s &quot;slurm&quot; section to one of: %1.</source>
        <translation>将配置 &quot;slurm&quot; 部分中的 &quot;partition&quot; 设为以下之一：%1。</translation>
    </message>
    <message numerus="yes">
        <location filename="../backend/checks/slurmcheck.cpp" line="79"/>
        <source>partition %1: %2 of %n node(s) usable</source>
        <translation>
            <numerusform>分区 %1：%n 个节点中有 %2 个可用</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../backend/checks/slurmcheck.cpp" line="81"/>
        <source>, %n with %1 or more GPUs</source>
        <translation>
            <numerusform>，其中 %n 个有 %1 个或更多 GPU</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../backend/checks/slurmcheck.cpp" line="84"/>
        <source>; not usable: %1</source>
        <translation>；不可用：%1</translation>
    </message>
    <message>
        <location filename="../backend/checks/slurmcheck.cpp" line="87"/>
        <source>An administrator brings a node back with `scontrol update nodename=NODE state=resume` once the cause (Slurm&apos;s reason) is fixed.</source>
        <translation>原因（Slurm 给出的理由）排除后，管理员可用 `scontrol update nodename=NODE state=resume` 恢复节点。</translation>
    </message>
    <message>
        <location filename="../backend/checks/slurmcheck.cpp" line="91"/>
        <source>The profile asks for %1 nodes but only %2 can run jobs now. Lower &quot;nodes&quot; in the profile&apos;s &quot;slurm&quot; section, choose another partition, or wait for the nodes.</source>
        <translation>配置要求 %1 个节点，但目前只有 %2 个可以运行作业。请减小配置 &quot;slurm&quot; 部分中的 &quot;nodes&quot;、选择其他分区，或等待节点可用。</translation>
    </message>
    <message>
        <location filename="../backend/checks/slurmcheck.cpp" line="99"/>
        <source>The profile asks for %1 GPUs on each of %2 nodes, but only %3 usable node(s) have that many (gres; at most %4 per node). Lower &quot;gpus_per_node&quot; or &quot;nodes&quot;, or choose a partition with GPU nodes.</source>
        <translation>配置要求 %2 个节点每个有 %1 个 GPU，但只有 %3 个可用节点满足（gres；每节点最多 %4 个）。请减小 &quot;gpus_per_node&quot; 或 &quot;nodes&quot;，或选择有 GPU 节点的分区。</translation>
    </message>
    <message>
        <location filename="../backend/checks/slurmcheck.cpp" line="108"/>
        <source>Slurm places no jobs on these nodes; enough others are usable.</source>
        <translation>Slurm 不会把作业放到这些节点上；其他可用节点足够。</translation>
    </message>
    <message>
        <location filename="../backend/checks/slurmcheck.cpp" line="197"/>
        <source>sbatch refused the check job (%1)</source>
        <translation>sbatch 拒绝了检查作业（%1）</translation>
    </message>
    <message>
        <location filename="../backend/checks/slurmcheck.cpp" line="199"/>
        <source>The check job asks for the same resources as a training job (the profile&apos;s &quot;slurm&quot; section: partition, account, nodes, tasks, CPUs and GPUs per node); Slurm&apos;s answer above says which one it cannot give.</source>
        <translation>检查作业申请的资源与训练作业相同（配置的 &quot;slurm&quot; 部分：分区、账户、节点数、每节点任务数、CPU 和 GPU）；上面 Slurm 的回答说明了它无法提供哪一项。</translation>
    </message>
    <message>
        <location filename="../backend/checks/slurmcheck.cpp" line="206"/>
        <source>sbatch gave no job id</source>
        <translation>sbatch 没有给出作业 ID</translation>
    </message>
    <message>
        <location filename="../backend/checks/slurmcheck.cpp" line="208"/>
        <source>Run the sbatch command by hand on the login node to see what it says.</source>
        <translation>在登录节点上手动运行该 sbatch 命令，看看它的输出。</translation>
    </message>
    <message>
        <location filename="../backend/checks/slurmcheck.cpp" line="213"/>
        <source>sbatch: job %1</source>
        <translation>sbatch：作业 %1</translation>
    </message>
    <message>
        <location filename="../backend/checks/slurmcheck.cpp" line="214"/>
        <source>sbatch gave no job id (%1); job %2 found by its name and marker</source>
        <translation>sbatch 没有给出作业 ID（%1）；已按名称和标记找到作业 %2</translation>
    </message>
    <message>
        <location filename="../backend/checks/slurmcheck.cpp" line="224"/>
        <source>cancelled (%1)</source>
        <translation>已取消（%1）</translation>
    </message>
    <message>
        <location filename="../backend/checks/slurmcheck.cpp" line="243"/>
        <source>the check job ended before the checks ran: %1</source>
        <translation>检查作业在检查运行之前就结束了：%1</translation>
    </message>
    <message>
        <location filename="../backend/checks/slurmcheck.cpp" line="245"/>
        <source>Slurm ended the job at once; `scontrol show job %1` on the login node (while Slurm keeps it) tells why.</source>
        <translation>Slurm 立即结束了该作业；在登录节点上运行 `scontrol show job %1`（在 Slurm 仍保留它时）可以看到原因。</translation>
    </message>
    <message>
        <location filename="../backend/checks/slurmcheck.cpp" line="252"/>
        <source>%1 after %2 s; the compute nodes were not checked</source>
        <translation>%2 秒后仍为 %1；未检查计算节点</translation>
    </message>
    <message>
        <location filename="../backend/checks/slurmcheck.cpp" line="258"/>
        <source>The check job did not start in time (Slurm&apos;s reason above: Resources or Priority means the nodes are busy). Run the checks when the partition has free nodes, or let the job wait longer (traindeck-cli check --job-wait SECONDS).</source>
        <translation>检查作业没有按时开始（见上面 Slurm 给出的理由：Resources 或 Priority 表示节点繁忙）。请在分区有空闲节点时运行检查，或让作业等待更久（traindeck-cli check --job-wait 秒数）。</translation>
    </message>
    <message>
        <location filename="../backend/checks/slurmcheck.cpp" line="277"/>
        <source>job %1 runs on %2, but scontrol show hostnames failed (%3)</source>
        <translation>作业 %1 在 %2 上运行，但 scontrol show hostnames 失败（%3）</translation>
    </message>
    <message>
        <location filename="../backend/checks/slurmcheck.cpp" line="279"/>
        <source>Check that scontrol works on the login node.</source>
        <translation>请检查登录节点上的 scontrol 是否可用。</translation>
    </message>
    <message>
        <location filename="../backend/checks/slurmcheck.cpp" line="283"/>
        <source>job %1 running on %2 after %3 s</source>
        <translation>作业 %1 在 %3 秒后于 %2 上运行</translation>
    </message>
    <message>
        <location filename="../backend/checks/slurmcheck.cpp" line="326"/>
        <source>scancel %1 failed (%2): %3</source>
        <translation>scancel %1 失败（%2）：%3</translation>
    </message>
</context>
<context>
    <name>traindeck::cluster::ClusterNodesModel</name>
    <message>
        <location filename="../backend/cluster/clusternodesmodel.cpp" line="11"/>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusternodesmodel.cpp" line="12"/>
        <source>Host</source>
        <translation>主机</translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusternodesmodel.cpp" line="13"/>
        <source>Port</source>
        <translation>端口</translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusternodesmodel.cpp" line="14"/>
        <source>User</source>
        <translation>用户</translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusternodesmodel.cpp" line="15"/>
        <source>Identity file</source>
        <translation>身份密钥文件</translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusternodesmodel.cpp" line="16"/>
        <source>Slots</source>
        <translation>槽位</translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusternodesmodel.cpp" line="17"/>
        <source>GPUs</source>
        <translation>GPU</translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusternodesmodel.cpp" line="18"/>
        <source>Role</source>
        <translation>角色</translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusternodesmodel.cpp" line="60"/>
        <source>head</source>
        <translation>主节点</translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusternodesmodel.cpp" line="60"/>
        <source>worker</source>
        <translation>工作节点</translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusternodesmodel.cpp" line="64"/>
        <source>Rank 0 and the run directory live on the head node</source>
        <translation>0 号进程和运行目录位于主节点上</translation>
    </message>
</context>
<context>
    <name>traindeck::cluster::ClusterProfile</name>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="80"/>
        <source>removed: profiles hold no secrets (passwords, tokens, keys); use an SSH key or agent</source>
        <translation>已移除：配置中不保存机密（密码、令牌、密钥）；请使用 SSH 密钥或代理</translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="84"/>
        <location filename="../backend/cluster/clusterprofile.cpp" line="420"/>
        <source>profiles must not hold secrets (passwords, tokens, keys); remove it and use an SSH key or agent</source>
        <translation>配置中不得保存机密（密码、令牌、密钥）；请删除它并使用 SSH 密钥或代理</translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="103"/>
        <source>profiles must not hold private keys</source>
        <translation>配置中不得保存私钥</translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="123"/>
        <location filename="../backend/cluster/clusterprofile.cpp" line="329"/>
        <location filename="../backend/cluster/clusterprofile.cpp" line="346"/>
        <source>expected a string</source>
        <translation>应为字符串</translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="137"/>
        <location filename="../backend/cluster/clusterprofile.cpp" line="444"/>
        <location filename="../backend/cluster/clusterprofile.cpp" line="446"/>
        <location filename="../backend/cluster/clusterprofile.cpp" line="448"/>
        <location filename="../backend/cluster/clusterprofile.cpp" line="450"/>
        <location filename="../backend/cluster/clusterprofile.cpp" line="456"/>
        <location filename="../backend/cluster/clusterprofile.cpp" line="488"/>
        <location filename="../backend/cluster/clusterprofile.cpp" line="498"/>
        <location filename="../backend/cluster/clusterprofile.cpp" line="500"/>
        <source>expected an integer %1..%2</source>
        <translation>应为 %1..%2 之间的整数</translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="285"/>
        <source>invalid JSON: %1</source>
        <translation>JSON 无效：%1</translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="289"/>
        <source>expected a JSON object with &quot;version&quot;, &quot;name&quot; and &quot;nodes&quot;</source>
        <translation>应为包含 &quot;version&quot;、&quot;name&quot; 和 &quot;nodes&quot; 的 JSON 对象</translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="298"/>
        <source>missing; read as version %1</source>
        <translation>缺失；按版本 %1 读取</translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="303"/>
        <source>expected an integer format version (%1)</source>
        <translation>应为整数格式版本（%1）</translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="306"/>
        <source>format version %1 is newer than this TrainDeck reads (%2); update TrainDeck</source>
        <translation>格式版本 %1 比此版本 TrainDeck 能读取的（%2）更新；请更新 TrainDeck</translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="318"/>
        <source>expected true or false</source>
        <translation>应为 true 或 false</translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="334"/>
        <source>expected a directory or a list of directories</source>
        <translation>应为一个目录或目录列表</translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="349"/>
        <source>expected an object of NAME: value strings</source>
        <translation>应为 NAME: value 字符串组成的对象</translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="354"/>
        <source>missing; a profile needs at least one node</source>
        <translation>缺失；配置至少需要一个节点</translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="356"/>
        <source>expected a list of nodes</source>
        <translation>应为节点列表</translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="361"/>
        <source>expected an object with at least &quot;host&quot;</source>
        <translation>应为至少包含 &quot;host&quot; 的对象</translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="205"/>
        <source>expected &quot;head&quot; or &quot;worker&quot;</source>
        <translation>应为 &quot;head&quot; 或 &quot;worker&quot;</translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="208"/>
        <source>missing; every node needs a host name or address</source>
        <translation>缺失；每个节点都需要主机名或地址</translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="237"/>
        <source>unknown key; expected one of %1</source>
        <translation>未知的键；应为以下之一：%1</translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="219"/>
        <source>expected an object with at least &quot;partition&quot;</source>
        <translation>应为至少包含 &quot;partition&quot; 的对象</translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="393"/>
        <location filename="../backend/cluster/clusterprofile.cpp" line="712"/>
        <source>&quot;local&quot; is the built-in profile; choose another name</source>
        <translation>&quot;local&quot; 是内置配置；请另选名称</translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="396"/>
        <location filename="../backend/cluster/clusterprofile.cpp" line="479"/>
        <source>must not be empty</source>
        <translation>不能为空</translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="398"/>
        <location filename="../backend/cluster/clusterprofile.cpp" line="422"/>
        <location filename="../backend/cluster/clusterprofile.cpp" line="481"/>
        <source>control characters (such as a newline) are not allowed</source>
        <translation>不允许控制字符（如换行）</translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="400"/>
        <location filename="../backend/cluster/clusterprofile.cpp" line="435"/>
        <source>must not start with &apos;-&apos;</source>
        <translation>不能以 &apos;-&apos; 开头</translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="406"/>
        <source>expected a program name or path without spaces (&quot;mpirun&quot;)</source>
        <translation>应为不含空格的程序名或路径（&quot;mpirun&quot;）</translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="410"/>
        <source>one directory per entry; &apos;:&apos; is not allowed</source>
        <translation>每项一个目录；不允许使用 &apos;:&apos;</translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="425"/>
        <source>a profile needs at least one node</source>
        <translation>配置至少需要一个节点</translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="430"/>
        <source>must not be empty: name the Slurm partition to submit to (sinfo lists them)</source>
        <translation>不能为空：请指定要提交到的 Slurm 分区（sinfo 会列出）</translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="433"/>
        <source>expected a Slurm name (letters, digits, _ . + -), got &apos;%1&apos;</source>
        <translation>应为 Slurm 名称（字母、数字、_ . + -），实际为“%1”</translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="441"/>
        <source>expected a Slurm time limit (MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM or D-HH:MM:SS), got &apos;%1&apos;</source>
        <translation>应为 Slurm 时间限制（MM、MM:SS、HH:MM:SS、D-HH、D-HH:MM 或 D-HH:MM:SS），实际为“%1”</translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="454"/>
        <source>expected &quot;auto&quot;, &quot;mpirun&quot; or &quot;srun&quot;, got &apos;%1&apos;</source>
        <translation>应为 &quot;auto&quot;、&quot;mpirun&quot; 或 &quot;srun&quot;，实际为“%1”</translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="458"/>
        <source>the built-in local profile cannot use Slurm</source>
        <translation>内置的 local 配置不能使用 Slurm</translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="464"/>
        <source>&apos;%1&apos; has %2, which a Slurm job script&apos;s #SBATCH lines cannot carry (sbatch splits them at blanks and expands %); choose a work directory without blanks, quotes, backslashes or %</source>
        <translation>“%1”含有%2，Slurm 作业脚本的 #SBATCH 行无法承载（sbatch 会在空白处拆分并展开 %）；请选择不含空白、引号、反斜杠或 % 的工作目录</translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="466"/>
        <source>&apos;%&apos;</source>
        <translation>“%”</translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="467"/>
        <source>a blank</source>
        <translation>空白</translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="468"/>
        <source>a quote or backslash</source>
        <translation>引号或反斜杠</translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="484"/>
        <source>&apos;%1&apos; is already the name of nodes[%2]</source>
        <translation>&apos;%1&apos; 已是 nodes[%2] 的名称</translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="496"/>
        <source>expected the path of a key file, not the key itself</source>
        <translation>应为密钥文件的路径，而不是密钥本身</translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="504"/>
        <source>%1 port %2 is already nodes[%3]</source>
        <translation>%1 端口 %2 已是 nodes[%3]</translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="511"/>
        <source>nodes[%1] is already the head; exactly one node may be &quot;head&quot;</source>
        <translation>nodes[%1] 已是主节点；只能有一个节点为 &quot;head&quot;</translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="615"/>
        <source># Open MPI hostfile from TrainDeck cluster profile &apos;%1&apos;</source>
        <translation># 由 TrainDeck 集群配置 &apos;%1&apos; 生成的 Open MPI hostfile</translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="634"/>
        <source>a hostfile carries no SSH port; set &quot;Port %1&quot; for %2 in ~/.ssh/config or pass --mca plm_rsh_args &quot;-p %1&quot; to mpirun</source>
        <translation>hostfile 不包含 SSH 端口；请在 ~/.ssh/config 中为 %2 设置 &quot;Port %1&quot;，或向 mpirun 传递 --mca plm_rsh_args &quot;-p %1&quot;</translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="674"/>
        <source>cannot read: %1</source>
        <translation>无法读取：%1</translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="676"/>
        <source>file is larger than 4 MiB; not a profile</source>
        <translation>文件大于 4 MiB，不是配置文件</translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="690"/>
        <source>no profile &apos;%1&apos; (known: %2)</source>
        <translation>没有配置 &apos;%1&apos;（已知：%2）</translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="701"/>
        <location filename="../backend/cluster/clusterprofile.cpp" line="704"/>
        <source>cannot write: %1</source>
        <translation>无法写入：%1</translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="717"/>
        <source>cannot create the profiles directory</source>
        <translation>无法创建配置目录</translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="725"/>
        <source>cannot remove profile &apos;%1&apos;</source>
        <translation>无法删除配置 &apos;%1&apos;</translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="728"/>
        <source>cannot remove: no such profile</source>
        <translation>无法删除：没有该配置</translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="745"/>
        <source>&quot;local&quot; is the built-in profile; import it under another name</source>
        <translation>&quot;local&quot; 是内置配置；请以其他名称导入</translation>
    </message>
    <message>
        <location filename="../backend/cluster/clusterprofile.cpp" line="755"/>
        <source>profile &apos;%1&apos; exists already; choose another name or overwrite it</source>
        <translation>配置 &apos;%1&apos; 已存在；请另选名称或覆盖它</translation>
    </message>
</context>
<context>
    <name>traindeck::cluster::GpuTrainer</name>
    <message>
        <location filename="../backend/cluster/gputrainer.cpp" line="23"/>
        <source>To train on GPUs, traindeck-trainer must be built against a CUDA LibTorch (Debian&apos;s LibTorch is CPU-only). On a GPU node, in a TrainDeck checkout, run %1: it builds the trainer against the LibTorch of the node&apos;s PyTorch (or --libtorch DIR) and prints whether it can use CUDA. Put that binary on PATH on the GPU nodes, or copy it to them with traindeck-cli deploy --trainer PATH. See %2.</source>
        <translation>要在 GPU 上训练，traindeck-trainer 必须基于 CUDA 版 LibTorch 构建（Debian 的 LibTorch 仅支持 CPU）。请在一台 GPU 节点上的 TrainDeck 源码目录中运行 %1：它会基于该节点 PyTorch 中的 LibTorch（或 --libtorch DIR）构建训练程序，并显示它能否使用 CUDA。然后把该程序放到各 GPU 节点的 PATH 中，或用 traindeck-cli deploy --trainer PATH 复制到这些节点。详见 %2。</translation>
    </message>
    <message numerus="yes">
        <location filename="../backend/cluster/gputrainer.cpp" line="40"/>
        <source>This traindeck-trainer cannot use the node&apos;s %n GPU(s): its LibTorch sees no CUDA device (a CPU-only LibTorch, or one whose CUDA does not match the driver).</source>
        <translation>
            <numerusform>此 traindeck-trainer 无法使用该节点的 %n 块 GPU：它的 LibTorch 看不到任何 CUDA 设备（仅 CPU 版 LibTorch，或其 CUDA 与驱动不匹配）。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../backend/cluster/gputrainer.cpp" line="52"/>
        <source>%n node(s) of this profile train on GPUs.</source>
        <translation>
            <numerusform>此配置中有 %n 个节点在 GPU 上训练。</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>traindeck::cluster::Hostfile</name>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="93"/>
        <source>%1: expected an integer 1..%2, got &apos;%3&apos;</source>
        <translation>%1：应为 1..%2 之间的整数，实际为 &apos;%3&apos;</translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="102"/>
        <source>%1 hostfiles have no user@ part; set the user in ~/.ssh/config or the cluster profile</source>
        <translation>%1 hostfile 不含 user@ 部分；请在 ~/.ssh/config 或集群配置中设置用户</translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="154"/>
        <source>unexpected &apos;:&apos; after the process count (expected &apos;host:N&apos;)</source>
        <translation>进程数之后出现意外的 &apos;:&apos;（应为 &apos;host:N&apos;）</translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="159"/>
        <source>process count</source>
        <translation>进程数</translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="170"/>
        <source>empty user name before &apos;@&apos;</source>
        <translation>&apos;@&apos; 之前的用户名为空</translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="188"/>
        <source>expected a host name before &apos;%1&apos;</source>
        <translation>&apos;%1&apos; 之前应有主机名</translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="200"/>
        <source>unexpected &apos;%1&apos; after the host (MPICH lines are &apos;host&apos; or &apos;host:N&apos;)</source>
        <translation>主机之后出现意外的 &apos;%1&apos;（MPICH 的行格式为 &apos;host&apos; 或 &apos;host:N&apos;）</translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="212"/>
        <source>unexpected &apos;=&apos;</source>
        <translation>意外的 &apos;=&apos;</translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="214"/>
        <source>unexpected &apos;%1&apos; (DeepSpeed lines are &apos;host slots=N&apos;)</source>
        <translation>意外的 &apos;%1&apos;（DeepSpeed 的行格式为 &apos;host slots=N&apos;）</translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="216"/>
        <source>expected &apos;=&apos; after &apos;%1&apos;</source>
        <translation>&apos;%1&apos; 之后应有 &apos;=&apos;</translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="220"/>
        <location filename="../backend/cluster/hostfile.cpp" line="228"/>
        <source>no spaces allowed around &apos;=&apos; in DeepSpeed hostfiles</source>
        <translation>DeepSpeed hostfile 中 &apos;=&apos; 两侧不允许有空格</translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="239"/>
        <source>unknown attribute &apos;%1&apos; (DeepSpeed knows only slots=)</source>
        <translation>未知属性 &apos;%1&apos;（DeepSpeed 只支持 slots=）</translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="240"/>
        <source>unknown attribute &apos;%1&apos; (expected slots= or max_slots=)</source>
        <translation>未知属性 &apos;%1&apos;（应为 slots= 或 max_slots=）</translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="244"/>
        <source>&apos;%1&apos; given twice on one line</source>
        <translation>&apos;%1&apos; 在一行中出现了两次</translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="248"/>
        <source>missing value after &apos;%1=&apos;</source>
        <translation>&apos;%1=&apos; 之后缺少值</translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="253"/>
        <source>unexpected &apos;=&apos; in &apos;%1&apos;</source>
        <translation>&apos;%1&apos; 中出现意外的 &apos;=&apos;</translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="311"/>
        <source>invalid UTF-8 in the line</source>
        <translation>该行包含无效的 UTF-8</translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="312"/>
        <source>control character U+%1 in the line</source>
        <translation>该行包含控制字符 U+%1</translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="335"/>
        <source>cannot read: %1</source>
        <translation>无法读取：%1</translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="338"/>
        <source>file is larger than 16 MiB; not a hostfile</source>
        <translation>文件大于 16 MiB，不是 hostfile</translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="394"/>
        <source>missing &apos;slots=N&apos; after &apos;%1&apos; (DeepSpeed needs a count on every line)</source>
        <translation>&apos;%1&apos; 之后缺少 &apos;slots=N&apos;（DeepSpeed 要求每行都有数量）</translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="398"/>
        <source>%1 hostfiles have no max_slots</source>
        <translation>%1 hostfile 不支持 max_slots</translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="402"/>
        <source>max_slots (%1) is less than slots (%2)</source>
        <translation>max_slots（%1）小于 slots（%2）</translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="415"/>
        <source>host &apos;%1&apos; adds up to %2 %3 over its lines; at most %4 per host</source>
        <translation>主机 &apos;%1&apos; 各行的 %3 合计为 %2；每个主机最多 %4</translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="422"/>
        <source>the hosts add up to more than %1 slots at this line; at most %1 in one hostfile</source>
        <translation>截至此行，各主机的槽位数合计超过 %1；一个 hostfile 中最多 %1 个</translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="432"/>
        <source>host &apos;%1&apos; is already listed on line %2; DeepSpeed allows each host once (add the slots up on one line)</source>
        <translation>主机 &apos;%1&apos; 已在第 %2 行列出；DeepSpeed 中每个主机只能出现一次（请把槽位数合并到同一行）</translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="437"/>
        <source>host &apos;%1&apos; is listed on line %2 as &apos;%3&apos; and here as &apos;%4&apos;; use one user per host</source>
        <translation>主机 &apos;%1&apos; 在第 %2 行写作 &apos;%3&apos;，此处写作 &apos;%4&apos;；每个主机请使用同一用户</translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="444"/>
        <source>host &apos;%1&apos; is also listed on line %2; %3 adds up the slots of repeated lines</source>
        <translation>主机 &apos;%1&apos; 也在第 %2 行列出；%3 会把重复行的槽位数相加</translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="449"/>
        <source>no hosts in the hostfile</source>
        <translation>hostfile 中没有主机</translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="512"/>
        <source>no slots for &apos;%1&apos;; wrote slots=1 (Open MPI would use the core count)</source>
        <translation>&apos;%1&apos; 没有槽位数；已写入 slots=1（Open MPI 会使用核心数）</translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="523"/>
        <source>repeated host &apos;%1&apos; merged into line %2 (DeepSpeed allows each host once)</source>
        <translation>重复的主机 &apos;%1&apos; 已合并到第 %2 行（DeepSpeed 中每个主机只能出现一次）</translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="544"/>
        <source>user &apos;%1&apos; dropped: %2 hostfiles have no user; set it in ~/.ssh/config</source>
        <translation>已丢弃用户 &apos;%1&apos;：%2 hostfile 不含用户；请在 ~/.ssh/config 中设置</translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="550"/>
        <source>max_slots=%1 dropped: %2 hostfiles have no max_slots</source>
        <translation>已丢弃 max_slots=%1：%2 hostfile 不支持 max_slots</translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="558"/>
        <source>IPv6 address &apos;%1&apos; cannot be written in an MPICH hostfile; use a host name</source>
        <translation>IPv6 地址 &apos;%1&apos; 无法写入 MPICH hostfile；请使用主机名</translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfile.cpp" line="577"/>
        <location filename="../backend/cluster/hostfile.cpp" line="580"/>
        <source>cannot write: %1</source>
        <translation>无法写入：%1</translation>
    </message>
</context>
<context>
    <name>traindeck::cluster::HostfileModel</name>
    <message>
        <location filename="../backend/cluster/hostfilemodel.cpp" line="11"/>
        <source>User</source>
        <translation>用户</translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfilemodel.cpp" line="12"/>
        <source>Host</source>
        <translation>主机</translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfilemodel.cpp" line="13"/>
        <source>Slots</source>
        <translation>槽位</translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfilemodel.cpp" line="14"/>
        <source>Max slots</source>
        <translation>最大槽位</translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfilemodel.cpp" line="15"/>
        <source>Comment</source>
        <translation>注释</translation>
    </message>
    <message>
        <location filename="../backend/cluster/hostfilemodel.cpp" line="53"/>
        <source>Not set: Open MPI uses the number of cores, MPICH 1</source>
        <translation>未设置：Open MPI 使用核心数，MPICH 使用 1</translation>
    </message>
</context>
<context>
    <name>traindeck::cluster::Names</name>
    <message>
        <location filename="../backend/cluster/names.cpp" line="24"/>
        <source>a space</source>
        <translation>空格</translation>
    </message>
    <message>
        <location filename="../backend/cluster/names.cpp" line="31"/>
        <source>empty host name</source>
        <translation>主机名为空</translation>
    </message>
    <message>
        <location filename="../backend/cluster/names.cpp" line="33"/>
        <source>host name &apos;%1&apos; starts with &apos;-&apos;; it would be read as an option</source>
        <translation>主机名 &apos;%1&apos; 以 &apos;-&apos; 开头，会被当作选项</translation>
    </message>
    <message>
        <location filename="../backend/cluster/names.cpp" line="37"/>
        <source>IPv6 address &apos;%1&apos; is not allowed in this format</source>
        <translation>此格式不允许 IPv6 地址 &apos;%1&apos;</translation>
    </message>
    <message>
        <location filename="../backend/cluster/names.cpp" line="41"/>
        <source>&apos;%1&apos; is not a valid IPv6 address</source>
        <translation>&apos;%1&apos; 不是有效的 IPv6 地址</translation>
    </message>
    <message>
        <location filename="../backend/cluster/names.cpp" line="59"/>
        <source>&apos;%1&apos; is not a valid IPv4 address</source>
        <translation>&apos;%1&apos; 不是有效的 IPv4 地址</translation>
    </message>
    <message>
        <location filename="../backend/cluster/names.cpp" line="63"/>
        <source>host name is longer than 253 characters</source>
        <translation>主机名超过 253 个字符</translation>
    </message>
    <message>
        <location filename="../backend/cluster/names.cpp" line="69"/>
        <source>empty label in host name &apos;%1&apos;</source>
        <translation>主机名 &apos;%1&apos; 中有空标签</translation>
    </message>
    <message>
        <location filename="../backend/cluster/names.cpp" line="71"/>
        <source>label longer than 63 characters in host name &apos;%1&apos;</source>
        <translation>主机名 &apos;%1&apos; 中有超过 63 个字符的标签</translation>
    </message>
    <message>
        <location filename="../backend/cluster/names.cpp" line="73"/>
        <source>a label of host name &apos;%1&apos; starts with &apos;-&apos;</source>
        <translation>主机名 &apos;%1&apos; 的某个标签以 &apos;-&apos; 开头</translation>
    </message>
    <message>
        <location filename="../backend/cluster/names.cpp" line="75"/>
        <source>a label of host name &apos;%1&apos; ends with &apos;-&apos;</source>
        <translation>主机名 &apos;%1&apos; 的某个标签以 &apos;-&apos; 结尾</translation>
    </message>
    <message>
        <location filename="../backend/cluster/names.cpp" line="81"/>
        <source>invalid character %1 in host name &apos;%2&apos;</source>
        <translation>主机名 &apos;%2&apos; 中有无效字符 %1</translation>
    </message>
    <message>
        <location filename="../backend/cluster/names.cpp" line="89"/>
        <source>empty user name</source>
        <translation>用户名为空</translation>
    </message>
    <message>
        <location filename="../backend/cluster/names.cpp" line="91"/>
        <source>user name &apos;%1&apos; starts with &apos;-&apos;; it would be read as an option</source>
        <translation>用户名 &apos;%1&apos; 以 &apos;-&apos; 开头，会被当作选项</translation>
    </message>
    <message>
        <location filename="../backend/cluster/names.cpp" line="93"/>
        <source>user name &apos;%1&apos; is longer than 32 characters</source>
        <translation>用户名 &apos;%1&apos; 超过 32 个字符</translation>
    </message>
    <message>
        <location filename="../backend/cluster/names.cpp" line="100"/>
        <source>invalid character %1 in user name &apos;%2&apos;</source>
        <translation>用户名 &apos;%2&apos; 中有无效字符 %1</translation>
    </message>
    <message>
        <location filename="../backend/cluster/names.cpp" line="108"/>
        <source>empty profile name</source>
        <translation>配置名称为空</translation>
    </message>
    <message>
        <location filename="../backend/cluster/names.cpp" line="110"/>
        <source>profile name is longer than 64 characters</source>
        <translation>配置名称超过 64 个字符</translation>
    </message>
    <message>
        <location filename="../backend/cluster/names.cpp" line="116"/>
        <source>invalid character %1 in profile name &apos;%2&apos; (use letters, digits, &apos;.&apos;, &apos;-&apos;, &apos;_&apos;)</source>
        <translation>配置名称 &apos;%2&apos; 中有无效字符 %1（请使用字母、数字、&apos;.&apos;、&apos;-&apos;、&apos;_&apos;）</translation>
    </message>
    <message>
        <location filename="../backend/cluster/names.cpp" line="125"/>
        <source>empty environment variable name</source>
        <translation>环境变量名为空</translation>
    </message>
    <message>
        <location filename="../backend/cluster/names.cpp" line="129"/>
        <source>invalid character %1 in environment variable name &apos;%2&apos;</source>
        <translation>环境变量名 &apos;%2&apos; 中有无效字符 %1</translation>
    </message>
</context>
<context>
    <name>traindeck::cluster::ProfileRecord</name>
    <message>
        <location filename="../backend/cluster/profilerecord.cpp" line="30"/>
        <source>cannot create the directory</source>
        <translation>无法创建该目录</translation>
    </message>
    <message>
        <location filename="../backend/cluster/profilerecord.cpp" line="36"/>
        <source>cannot write: %1</source>
        <translation>无法写入：%1</translation>
    </message>
    <message>
        <location filename="../backend/cluster/profilerecord.cpp" line="48"/>
        <source>not a profile name</source>
        <translation>不是配置文件名</translation>
    </message>
    <message>
        <location filename="../backend/cluster/profilerecord.cpp" line="53"/>
        <source>file is larger than 16 MiB; not %1</source>
        <translation>文件大于 16 MiB；不是%1</translation>
    </message>
    <message>
        <location filename="../backend/cluster/profilerecord.cpp" line="57"/>
        <source>not a JSON object: %1</source>
        <translation>不是 JSON 对象：%1</translation>
    </message>
    <message>
        <location filename="../backend/cluster/profilerecord.cpp" line="62"/>
        <source>&quot;profile&quot; or &quot;measured_at&quot; is missing or wrong</source>
        <translation>“profile” 或 “measured_at” 缺失或有误</translation>
    </message>
</context>
<context>
    <name>traindeck::cluster::SavedLinkTest</name>
    <message>
        <location filename="../backend/cluster/savedlinktest.cpp" line="30"/>
        <source>no link test saved for this profile</source>
        <translation>此配置没有保存的链路测试</translation>
    </message>
    <message>
        <location filename="../backend/cluster/savedlinktest.cpp" line="31"/>
        <source>a link test</source>
        <translation>链路测试</translation>
    </message>
    <message>
        <location filename="../backend/cluster/savedlinktest.cpp" line="48"/>
        <source>needs host_a, host_b and a bandwidth_mbps of 0 or more</source>
        <translation>需要 host_a、host_b 以及不小于 0 的 bandwidth_mbps</translation>
    </message>
</context>
<context>
    <name>traindeck::cluster::SavedNodeMemory</name>
    <message>
        <location filename="../backend/cluster/savednodememory.cpp" line="39"/>
        <source>the nodes&apos; memory was not checked for this profile</source>
        <translation>尚未检查此配置的节点内存</translation>
    </message>
    <message>
        <location filename="../backend/cluster/savednodememory.cpp" line="40"/>
        <source>a memory record</source>
        <translation>内存记录</translation>
    </message>
    <message>
        <location filename="../backend/cluster/savednodememory.cpp" line="58"/>
        <source>needs a host, and ram_mib, gpus and gpu_mib of 0 or more</source>
        <translation>需要 host，以及不小于 0 的 ram_mib、gpus 和 gpu_mib</translation>
    </message>
</context>
<context>
    <name>traindeck::gui::CheckResultsModel</name>
    <message>
        <location filename="../app/gui/models/checksmodel.cpp" line="18"/>
        <source>✓ pass</source>
        <translation>✓ 通过</translation>
    </message>
    <message>
        <location filename="../app/gui/models/checksmodel.cpp" line="19"/>
        <source>! warn</source>
        <translation>! 警告</translation>
    </message>
    <message>
        <location filename="../app/gui/models/checksmodel.cpp" line="20"/>
        <source>✗ fail</source>
        <translation>✗ 失败</translation>
    </message>
    <message>
        <location filename="../app/gui/models/checksmodel.cpp" line="23"/>
        <source>– skip</source>
        <translation>– 跳过</translation>
    </message>
    <message>
        <location filename="../app/gui/models/checksmodel.cpp" line="169"/>
        <source>…</source>
        <translation>…</translation>
    </message>
    <message>
        <location filename="../app/gui/models/checksmodel.cpp" line="169"/>
        <source>—</source>
        <translation>—</translation>
    </message>
    <message>
        <location filename="../app/gui/models/checksmodel.cpp" line="172"/>
        <source>Not run on this node</source>
        <translation>未在此节点上运行</translation>
    </message>
    <message>
        <location filename="../app/gui/models/checksmodel.cpp" line="173"/>
        <source>Not checked yet</source>
        <translation>尚未检查</translation>
    </message>
</context>
<context>
    <name>traindeck::gui::ChecksPage</name>
    <message>
        <location filename="../app/gui/checkspage.cpp" line="37"/>
        <source>Host key refused</source>
        <translation>已拒绝主机密钥</translation>
    </message>
    <message>
        <location filename="../app/gui/checkspage.cpp" line="42"/>
        <source>Unknown host key</source>
        <translation>未知的主机密钥</translation>
    </message>
    <message>
        <location filename="../app/gui/checkspage.cpp" line="43"/>
        <source>First connection to %1. Compare the fingerprint with the one the node&apos;s administrator sees (ssh-keygen -lf on the node&apos;s host key).

%2 key fingerprint:
%3</source>
        <translation>首次连接 %1。请将指纹与节点管理员看到的指纹进行比对（在节点上对主机密钥执行 ssh-keygen -lf）。

%2 密钥指纹：
%3</translation>
    </message>
    <message>
        <location filename="../app/gui/checkspage.cpp" line="51"/>
        <source>&amp;Trust and save</source>
        <translation>信任并保存(&amp;T)</translation>
    </message>
    <message>
        <location filename="../app/gui/checkspage.cpp" line="54"/>
        <source>Trust &amp;once</source>
        <translation>仅本次信任(&amp;O)</translation>
    </message>
    <message>
        <location filename="../app/gui/checkspage.cpp" line="56"/>
        <source>&amp;Reject</source>
        <translation>拒绝(&amp;R)</translation>
    </message>
    <message>
        <location filename="../app/gui/checkspage.cpp" line="78"/>
        <source>SSH</source>
        <translation>SSH</translation>
    </message>
    <message>
        <location filename="../app/gui/checkspage.cpp" line="80"/>
        <source>Passphrase:</source>
        <translation>口令：</translation>
    </message>
    <message>
        <location filename="../app/gui/checkspage.cpp" line="98"/>
        <source>&amp;Run checks</source>
        <translation>运行检查(&amp;R)</translation>
    </message>
    <message>
        <location filename="../app/gui/checkspage.cpp" line="99"/>
        <source>Run the environment checks on every node of the profile</source>
        <translation>在配置的每个节点上运行环境检查</translation>
    </message>
    <message>
        <location filename="../app/gui/checkspage.cpp" line="100"/>
        <source>Re-run &amp;selected</source>
        <translation>重新运行所选(&amp;S)</translation>
    </message>
    <message>
        <location filename="../app/gui/checkspage.cpp" line="101"/>
        <source>Run the checks again on the nodes of the selected rows or cells only</source>
        <translation>仅在所选行或单元格的节点上再次运行检查</translation>
    </message>
    <message>
        <location filename="../app/gui/checkspage.cpp" line="103"/>
        <source>&amp;Cancel</source>
        <translation>取消(&amp;C)</translation>
    </message>
    <message>
        <location filename="../app/gui/checkspage.cpp" line="105"/>
        <source>Test &amp;links</source>
        <translation>测试链路(&amp;L)</translation>
    </message>
    <message>
        <location filename="../app/gui/checkspage.cpp" line="114"/>
        <source>Check progress</source>
        <translation>检查进度</translation>
    </message>
    <message>
        <location filename="../app/gui/checkspage.cpp" line="123"/>
        <source>Not run yet.</source>
        <translation>尚未运行。</translation>
    </message>
    <message>
        <location filename="../app/gui/checkspage.cpp" line="130"/>
        <source>Check results: nodes × checks</source>
        <translation>检查结果：节点 × 检查项</translation>
    </message>
    <message>
        <location filename="../app/gui/checkspage.cpp" line="136"/>
        <source>Check details</source>
        <translation>检查详情</translation>
    </message>
    <message>
        <location filename="../app/gui/checkspage.cpp" line="137"/>
        <source>Select a cell to see what was seen and what to do.</source>
        <translation>选择一个单元格，查看检查到的情况和处理建议。</translation>
    </message>
    <message>
        <location filename="../app/gui/checkspage.cpp" line="139"/>
        <source>Versions across nodes (cells that differ from the head are highlighted)</source>
        <translation>各节点版本（与头节点不同的单元格已高亮）</translation>
    </message>
    <message>
        <location filename="../app/gui/checkspage.cpp" line="143"/>
        <source>Version matrix</source>
        <translation>版本矩阵</translation>
    </message>
    <message>
        <location filename="../app/gui/checkspage.cpp" line="148"/>
        <source>Show &amp;every node</source>
        <translation>显示每个节点(&amp;E)</translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/checkspage.cpp" line="149"/>
        <source>At more than %n node(s) the nodes that agree share one column (&quot;62 nodes: same&quot;); check to see a column per node.</source>
        <translation>
            <numerusform>超过 %n 个节点时，结果一致的节点合并为一列（“62 个节点：相同”）；勾选后每个节点一列。</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../app/gui/checkspage.cpp" line="163"/>
        <source>Links between nodes (bandwidth, one-way latency)</source>
        <translation>节点之间的链路（带宽、单向延迟）</translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/checkspage.cpp" line="212"/>
        <source>Testing the links between %n node(s)…</source>
        <translation>
            <numerusform>正在测试 %n 个节点之间的链路…</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../app/gui/checkspage.cpp" line="264"/>
        <source>✗ The link test could not run: %1</source>
        <translation>✗ 链路测试无法运行：%1</translation>
    </message>
    <message>
        <location filename="../app/gui/checkspage.cpp" line="286"/>
        <source>%1
%2 µs</source>
        <translation>%1
%2 µs</translation>
    </message>
    <message>
        <location filename="../app/gui/checkspage.cpp" line="335"/>
        <source>✓ Measured the link between the two nodes (with two nodes no node can be singled out).</source>
        <translation>✓ 已测量两个节点之间的链路（只有两个节点时无法单独指出某个节点）。</translation>
    </message>
    <message>
        <location filename="../app/gui/checkspage.cpp" line="106"/>
        <source>Measure latency and bandwidth between the nodes in rounds of pairs measured side by side (MPI point-to-point, started on the head) and name slow nodes and slow links</source>
        <translation>按轮次并行测量节点对之间的延迟和带宽（MPI 点对点，在头节点上启动），并指出慢节点和慢链路</translation>
    </message>
    <message>
        <location filename="../app/gui/checkspage.cpp" line="108"/>
        <source>&amp;All pairs</source>
        <translation>所有节点对(&amp;A)</translation>
    </message>
    <message>
        <location filename="../app/gui/checkspage.cpp" line="109"/>
        <source>Measure every pair of nodes (N-1 rounds) and show the full matrix: finds a slow link between two healthy nodes. Without it, a search for slow nodes in a few rounds.</source>
        <translation>测量每一对节点（N-1 轮）并显示完整矩阵：可找出两个健康节点之间的慢链路。不勾选时，用几轮搜索慢节点。</translation>
    </message>
    <message>
        <location filename="../app/gui/checkspage.cpp" line="166"/>
        <location filename="../app/gui/checkspage.cpp" line="360"/>
        <source>Not tested yet: Test links searches the links between the nodes for slow ones.</source>
        <translation>尚未测试：“测试链路”会在节点之间的链路中搜索慢链路。</translation>
    </message>
    <message>
        <location filename="../app/gui/checkspage.cpp" line="169"/>
        <source>Link test results</source>
        <translation>链路测试结果</translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/checkspage.cpp" line="225"/>
        <source>Testing the links between %n node(s)… round %1 done (%2 pair(s) side by side).</source>
        <translation>
            <numerusform>正在测试 %n 个节点之间的链路…… 第 %1 轮完成（%2 对并行）。</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../app/gui/checkspage.cpp" line="291"/>
        <source>A link of a slow node</source>
        <translation>慢节点的一条链路</translation>
    </message>
    <message>
        <location filename="../app/gui/checkspage.cpp" line="291"/>
        <source>A slow link</source>
        <translation>慢链路</translation>
    </message>
    <message>
        <location filename="../app/gui/checkspage.cpp" line="300"/>
        <source>Node</source>
        <translation>节点</translation>
    </message>
    <message>
        <location filename="../app/gui/checkspage.cpp" line="300"/>
        <source>Fastest pair</source>
        <translation>最快节点对</translation>
    </message>
    <message>
        <location filename="../app/gui/checkspage.cpp" line="300"/>
        <source>Slowest pair</source>
        <translation>最慢节点对</translation>
    </message>
    <message>
        <location filename="../app/gui/checkspage.cpp" line="301"/>
        <source>Latency</source>
        <translation>延迟</translation>
    </message>
    <message>
        <location filename="../app/gui/checkspage.cpp" line="301"/>
        <source>Pairs</source>
        <translation>节点对</translation>
    </message>
    <message>
        <location filename="../app/gui/checkspage.cpp" line="301"/>
        <source>Verdict</source>
        <translation>判定</translation>
    </message>
    <message>
        <location filename="../app/gui/checkspage.cpp" line="314"/>
        <location filename="../app/gui/checkspage.cpp" line="315"/>
        <location filename="../app/gui/checkspage.cpp" line="316"/>
        <source>—</source>
        <translation>—</translation>
    </message>
    <message>
        <location filename="../app/gui/checkspage.cpp" line="316"/>
        <source>%1 µs</source>
        <translation>%1 µs</translation>
    </message>
    <message>
        <location filename="../app/gui/checkspage.cpp" line="333"/>
        <source>⚠ %1: %2</source>
        <translation>⚠ %1：%2</translation>
    </message>
    <message>
        <location filename="../app/gui/checkspage.cpp" line="336"/>
        <source>✓ No node or link stands out.</source>
        <translation>✓ 没有突出的节点或链路。</translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/checkspage.cpp" line="337"/>
        <source>MPI point-to-point, %1 KiB messages: %2 pair(s) in %n round(s) of pairs measured side by side, %3 s; median %4.</source>
        <translation>
            <numerusform>MPI 点对点，%1 KiB 消息：%n 轮并行测量共 %2 对，%3 秒；中位数 %4。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/checkspage.cpp" line="364"/>
        <source>Profile: %1 (%n node(s))</source>
        <translation>
            <numerusform>配置：%1（%n 个节点）</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../app/gui/checkspage.cpp" line="377"/>
        <source>The profile has no nodes: add nodes on the Cluster page.</source>
        <translation>该配置没有节点：请在“集群”页面添加节点。</translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/checkspage.cpp" line="382"/>
        <source>Checking %n node(s)…</source>
        <translation>
            <numerusform>正在检查 %n 个节点…</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/checkspage.cpp" line="420"/>
        <source>Checking %n selected node(s)…</source>
        <translation>
            <numerusform>正在检查所选的 %n 个节点…</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/checkspage.cpp" line="471"/>
        <location filename="../app/gui/checkspage.cpp" line="485"/>
        <source>%p% — %1 of %n node(s) done</source>
        <translation>
            <numerusform>%p% — 已完成 %1 / %n 个节点</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../app/gui/checkspage.cpp" line="504"/>
        <source>Cancelling…</source>
        <translation>正在取消…</translation>
    </message>
    <message>
        <location filename="../app/gui/checkspage.cpp" line="560"/>
        <source>&amp;Re-run</source>
        <translation>重新运行(&amp;R)</translation>
    </message>
    <message>
        <location filename="../app/gui/checkspage.cpp" line="561"/>
        <source>Run the checks again on every node</source>
        <translation>在每个节点上重新运行检查</translation>
    </message>
    <message>
        <location filename="../app/gui/checkspage.cpp" line="596"/>
        <source>%1 passed, %2 warnings, %3 failed in %4 s.</source>
        <translation>%1 项通过，%2 项警告，%3 项失败，用时 %4 秒。</translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/checkspage.cpp" line="602"/>
        <source>%n version(s) differ between nodes.</source>
        <translation>
            <numerusform>有 %n 个版本在节点之间不一致。</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../app/gui/checkspage.cpp" line="604"/>
        <source>Cancelled: some checks did not run.</source>
        <translation>已取消：部分检查未运行。</translation>
    </message>
    <message>
        <location filename="../app/gui/checkspage.cpp" line="613"/>
        <source>Not checked yet.</source>
        <translation>尚未检查。</translation>
    </message>
    <message>
        <location filename="../app/gui/checkspage.cpp" line="616"/>
        <source>%1 on %2: %3</source>
        <translation>%2 上的%1：%3</translation>
    </message>
    <message>
        <location filename="../app/gui/checkspage.cpp" line="621"/>
        <source>Evidence:</source>
        <translation>检查依据：</translation>
    </message>
    <message>
        <location filename="../app/gui/checkspage.cpp" line="622"/>
        <source>(none)</source>
        <translation>（无）</translation>
    </message>
    <message>
        <location filename="../app/gui/checkspage.cpp" line="624"/>
        <source>Remedy:</source>
        <translation>处理建议：</translation>
    </message>
</context>
<context>
    <name>traindeck::gui::ClusterPage</name>
    <message>
        <location filename="../app/gui/clusterpage.cpp" line="27"/>
        <source>&amp;Profile:</source>
        <translation>配置(&amp;P)：</translation>
    </message>
    <message>
        <location filename="../app/gui/clusterpage.cpp" line="31"/>
        <source>&amp;Save</source>
        <translation>保存(&amp;S)</translation>
    </message>
    <message>
        <location filename="../app/gui/clusterpage.cpp" line="32"/>
        <source>Save the nodes to the profile file</source>
        <translation>将节点保存到配置文件</translation>
    </message>
    <message>
        <location filename="../app/gui/clusterpage.cpp" line="33"/>
        <source>Save &amp;as…</source>
        <translation>另存为(&amp;A)…</translation>
    </message>
    <message>
        <location filename="../app/gui/clusterpage.cpp" line="40"/>
        <source>SS&amp;H setup…</source>
        <translation>SSH 设置(&amp;H)…</translation>
    </message>
    <message>
        <location filename="../app/gui/clusterpage.cpp" line="41"/>
        <source>Create a key, install it on every node and verify password-less login</source>
        <translation>创建密钥、安装到每个节点并验证免密登录</translation>
    </message>
    <message>
        <location filename="../app/gui/clusterpage.cpp" line="46"/>
        <source>Nodes</source>
        <translation>节点</translation>
    </message>
    <message>
        <location filename="../app/gui/clusterpage.cpp" line="51"/>
        <source>Cluster nodes</source>
        <translation>集群节点</translation>
    </message>
    <message>
        <location filename="../app/gui/clusterpage.cpp" line="58"/>
        <source>A&amp;dd node</source>
        <translation>添加节点(&amp;D)</translation>
    </message>
    <message>
        <location filename="../app/gui/clusterpage.cpp" line="59"/>
        <source>&amp;Remove node</source>
        <translation>移除节点(&amp;R)</translation>
    </message>
    <message>
        <location filename="../app/gui/clusterpage.cpp" line="67"/>
        <source>Hostfile</source>
        <translation>Hostfile</translation>
    </message>
    <message>
        <location filename="../app/gui/clusterpage.cpp" line="71"/>
        <source>Use hostfile as &amp;nodes</source>
        <translation>用 hostfile 生成节点(&amp;N)</translation>
    </message>
    <message>
        <location filename="../app/gui/clusterpage.cpp" line="72"/>
        <source>Replace the node table with the hosts of the hostfile (repeated hosts merged)</source>
        <translation>用 hostfile 中的主机替换节点表（重复的主机会合并）</translation>
    </message>
    <message>
        <location filename="../app/gui/clusterpage.cpp" line="157"/>
        <source>Cannot load profile: %1</source>
        <translation>无法加载配置：%1</translation>
    </message>
    <message>
        <location filename="../app/gui/clusterpage.cpp" line="164"/>
        <source>This machine, ranks started as local processes (no SSH).</source>
        <translation>本机，各进程作为本地进程启动（不使用 SSH）。</translation>
    </message>
    <message>
        <location filename="../app/gui/clusterpage.cpp" line="165"/>
        <source>Work directory on the nodes: %1</source>
        <translation>节点上的工作目录：%1</translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/clusterpage.cpp" line="177"/>
        <source>Slurm places the ranks: %n rank(s) per job</source>
        <translation>
            <numerusform>由 Slurm 放置进程：每个作业 %n 个进程</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/clusterpage.cpp" line="179"/>
        <source>%n node(s)</source>
        <translation>
            <numerusform>%n 个节点</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/clusterpage.cpp" line="180"/>
        <source>%n rank(s) in all</source>
        <translation>
            <numerusform>共 %n 个进程</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../app/gui/clusterpage.cpp" line="183"/>
        <source>Not used with Slurm: the scheduler places the ranks</source>
        <translation>使用 Slurm 时不使用：由调度器放置进程</translation>
    </message>
    <message>
        <location filename="../app/gui/clusterpage.cpp" line="186"/>
        <source>Error: %1</source>
        <translation>错误：%1</translation>
    </message>
    <message>
        <location filename="../app/gui/clusterpage.cpp" line="186"/>
        <source>Warning: %1</source>
        <translation>警告：%1</translation>
    </message>
    <message>
        <location filename="../app/gui/clusterpage.cpp" line="197"/>
        <source>Hostfile has errors</source>
        <translation>Hostfile 有错误</translation>
    </message>
    <message>
        <location filename="../app/gui/clusterpage.cpp" line="197"/>
        <source>Fix the errors listed below the hostfile first.</source>
        <translation>请先修正 hostfile 下方列出的错误。</translation>
    </message>
    <message>
        <location filename="../app/gui/clusterpage.cpp" line="214"/>
        <location filename="../app/gui/clusterpage.cpp" line="234"/>
        <source>Cannot save profile</source>
        <translation>无法保存配置</translation>
    </message>
    <message>
        <location filename="../app/gui/clusterpage.cpp" line="225"/>
        <source>Save profile as</source>
        <translation>配置另存为</translation>
    </message>
    <message>
        <location filename="../app/gui/clusterpage.cpp" line="225"/>
        <source>Profile name (letters, digits, &apos;.&apos;, &apos;_&apos;, &apos;-&apos;):</source>
        <translation>配置名称（字母、数字、&apos;.&apos;、&apos;_&apos;、&apos;-&apos;）：</translation>
    </message>
</context>
<context>
    <name>traindeck::gui::FindingsPanel</name>
    <message>
        <location filename="../app/gui/findingspanel.cpp" line="28"/>
        <source>Findings</source>
        <translation>诊断结果</translation>
    </message>
    <message>
        <location filename="../app/gui/findingspanel.cpp" line="33"/>
        <source>Diagnosis findings</source>
        <translation>诊断结果</translation>
    </message>
    <message>
        <location filename="../app/gui/findingspanel.cpp" line="38"/>
        <source>Finding details</source>
        <translation>诊断详情</translation>
    </message>
    <message>
        <location filename="../app/gui/findingspanel.cpp" line="39"/>
        <source>Select a finding to see its evidence and what to do.</source>
        <translation>选择一条诊断结果以查看证据和处理建议。</translation>
    </message>
    <message>
        <location filename="../app/gui/findingspanel.cpp" line="57"/>
        <source>Critical</source>
        <translation>严重</translation>
    </message>
    <message>
        <location filename="../app/gui/findingspanel.cpp" line="58"/>
        <source>Warning</source>
        <translation>警告</translation>
    </message>
    <message>
        <location filename="../app/gui/findingspanel.cpp" line="61"/>
        <source>Info</source>
        <translation>提示</translation>
    </message>
    <message>
        <location filename="../app/gui/findingspanel.cpp" line="77"/>
        <source>Straggler</source>
        <translation>掉队进程</translation>
    </message>
    <message>
        <location filename="../app/gui/findingspanel.cpp" line="78"/>
        <source>Data loading</source>
        <translation>数据加载</translation>
    </message>
    <message>
        <location filename="../app/gui/findingspanel.cpp" line="79"/>
        <source>Communication-bound</source>
        <translation>通信瓶颈</translation>
    </message>
    <message>
        <location filename="../app/gui/findingspanel.cpp" line="80"/>
        <source>Memory pressure</source>
        <translation>内存压力</translation>
    </message>
    <message>
        <location filename="../app/gui/findingspanel.cpp" line="81"/>
        <source>Loss is NaN</source>
        <translation>损失为 NaN</translation>
    </message>
    <message>
        <location filename="../app/gui/findingspanel.cpp" line="82"/>
        <source>Loss spikes</source>
        <translation>损失尖峰</translation>
    </message>
    <message>
        <location filename="../app/gui/findingspanel.cpp" line="83"/>
        <source>Loss divergence</source>
        <translation>损失发散</translation>
    </message>
    <message>
        <location filename="../app/gui/findingspanel.cpp" line="84"/>
        <source>Throughput drift</source>
        <translation>吞吐量下降</translation>
    </message>
    <message>
        <location filename="../app/gui/findingspanel.cpp" line="85"/>
        <source>Scaling efficiency</source>
        <translation>扩展效率</translation>
    </message>
    <message>
        <location filename="../app/gui/findingspanel.cpp" line="86"/>
        <source>Stall</source>
        <translation>停滞</translation>
    </message>
    <message>
        <location filename="../app/gui/findingspanel.cpp" line="111"/>
        <source>active</source>
        <translation>持续中</translation>
    </message>
    <message>
        <location filename="../app/gui/findingspanel.cpp" line="112"/>
        <source>resolved</source>
        <translation>已解决</translation>
    </message>
    <message>
        <location filename="../app/gui/findingspanel.cpp" line="113"/>
        <source>not enough evidence yet</source>
        <translation>证据尚不充分</translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/findingspanel.cpp" line="132"/>
        <source>host %1 (%n rank(s))</source>
        <translation>
            <numerusform>主机 %1（%n 个进程）</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../app/gui/findingspanel.cpp" line="138"/>
        <source>rank %1</source>
        <translation>进程 %1</translation>
    </message>
    <message>
        <location filename="../app/gui/findingspanel.cpp" line="139"/>
        <source>rank %1 (%2)</source>
        <translation>进程 %1（%2）</translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/findingspanel.cpp" line="142"/>
        <source>and %n more</source>
        <translation>
            <numerusform>以及另外 %n 个</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../app/gui/findingspanel.cpp" line="157"/>
        <source>Findings: none</source>
        <translation>诊断结果：无</translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/findingspanel.cpp" line="157"/>
        <source>Findings (%n)</source>
        <translation>
            <numerusform>诊断结果（%n）</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../app/gui/findingspanel.cpp" line="189"/>
        <source>Steps %1 to %2</source>
        <translation>第 %1 步至第 %2 步</translation>
    </message>
    <message>
        <location filename="../app/gui/findingspanel.cpp" line="194"/>
        <source>Evidence</source>
        <translation>证据</translation>
    </message>
    <message>
        <location filename="../app/gui/findingspanel.cpp" line="204"/>
        <source>What to do:</source>
        <translation>处理建议：</translation>
    </message>
</context>
<context>
    <name>traindeck::gui::HostfileEditor</name>
    <message>
        <location filename="../app/gui/hostfileeditor.cpp" line="124"/>
        <source>Open MPI hostfile</source>
        <translation>Open MPI hostfile</translation>
    </message>
    <message>
        <location filename="../app/gui/hostfileeditor.cpp" line="125"/>
        <source>DeepSpeed hostfile</source>
        <translation>DeepSpeed hostfile</translation>
    </message>
    <message>
        <location filename="../app/gui/hostfileeditor.cpp" line="126"/>
        <source>MPICH machine file</source>
        <translation>MPICH machine file</translation>
    </message>
    <message>
        <location filename="../app/gui/hostfileeditor.cpp" line="136"/>
        <source>F&amp;ormat:</source>
        <translation>格式(&amp;O)：</translation>
    </message>
    <message>
        <location filename="../app/gui/hostfileeditor.cpp" line="140"/>
        <source>Changing the format converts a valid hostfile to the new syntax</source>
        <translation>切换格式会把有效的 hostfile 转换为新语法</translation>
    </message>
    <message>
        <location filename="../app/gui/hostfileeditor.cpp" line="142"/>
        <source>&amp;Import…</source>
        <translation>导入(&amp;I)…</translation>
    </message>
    <message>
        <location filename="../app/gui/hostfileeditor.cpp" line="143"/>
        <source>E&amp;xport…</source>
        <translation>导出(&amp;X)…</translation>
    </message>
    <message>
        <location filename="../app/gui/hostfileeditor.cpp" line="152"/>
        <source>Hostfile text</source>
        <translation>Hostfile 文本</translation>
    </message>
    <message>
        <location filename="../app/gui/hostfileeditor.cpp" line="157"/>
        <source># one host per line, e.g.
node1 slots=8
node2 slots=8</source>
        <translation># 每行一个主机，例如
node1 slots=8
node2 slots=8</translation>
    </message>
    <message>
        <location filename="../app/gui/hostfileeditor.cpp" line="162"/>
        <source>Hostfile problems</source>
        <translation>Hostfile 问题</translation>
    </message>
    <message>
        <location filename="../app/gui/hostfileeditor.cpp" line="252"/>
        <source>line %1, column %2</source>
        <translation>第 %1 行，第 %2 列</translation>
    </message>
    <message>
        <location filename="../app/gui/hostfileeditor.cpp" line="253"/>
        <source>Error</source>
        <translation>错误</translation>
    </message>
    <message>
        <location filename="../app/gui/hostfileeditor.cpp" line="253"/>
        <source>Warning</source>
        <translation>警告</translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/hostfileeditor.cpp" line="262"/>
        <source>Valid: %n host(s)</source>
        <translation>
            <numerusform>有效：%n 个主机</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/hostfileeditor.cpp" line="263"/>
        <source>%n slot(s) in all</source>
        <translation>
            <numerusform>共 %n 个槽位</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/hostfileeditor.cpp" line="265"/>
        <location filename="../app/gui/hostfileeditor.cpp" line="271"/>
        <source>%n warning(s)</source>
        <translation>
            <numerusform>%n 个警告</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../app/gui/hostfileeditor.cpp" line="268"/>
        <source>Empty: add one host per line.</source>
        <translation>为空：请每行添加一个主机。</translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/hostfileeditor.cpp" line="270"/>
        <source>%n error(s)</source>
        <translation>
            <numerusform>%n 个错误</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../app/gui/hostfileeditor.cpp" line="272"/>
        <source>double-click a problem to go to it</source>
        <translation>双击问题即可跳转到对应位置</translation>
    </message>
    <message>
        <location filename="../app/gui/hostfileeditor.cpp" line="317"/>
        <source>cannot read: %1</source>
        <translation>无法读取：%1</translation>
    </message>
    <message>
        <location filename="../app/gui/hostfileeditor.cpp" line="347"/>
        <source>cannot write: %1</source>
        <translation>无法写入：%1</translation>
    </message>
    <message>
        <location filename="../app/gui/hostfileeditor.cpp" line="333"/>
        <source>Fix the errors in the hostfile first.</source>
        <translation>请先修正 hostfile 中的错误。</translation>
    </message>
    <message>
        <location filename="../app/gui/hostfileeditor.cpp" line="362"/>
        <source>Import hostfile</source>
        <translation>导入 hostfile</translation>
    </message>
    <message>
        <location filename="../app/gui/hostfileeditor.cpp" line="368"/>
        <source>Import failed</source>
        <translation>导入失败</translation>
    </message>
    <message>
        <location filename="../app/gui/hostfileeditor.cpp" line="375"/>
        <source>Export hostfile</source>
        <translation>导出 hostfile</translation>
    </message>
    <message>
        <location filename="../app/gui/hostfileeditor.cpp" line="381"/>
        <source>Export failed</source>
        <translation>导出失败</translation>
    </message>
    <message>
        <location filename="../app/gui/hostfileeditor.cpp" line="383"/>
        <source>Exported with warnings</source>
        <translation>已导出，但有警告</translation>
    </message>
</context>
<context>
    <name>traindeck::gui::LaunchPage</name>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="48"/>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="53"/>
        <source>Choose a directory</source>
        <translation>选择目录</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="56"/>
        <source>Choose a file</source>
        <translation>选择文件</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="57"/>
        <source>Text or JSON Lines (*.jsonl *.json *.txt);;All files (*)</source>
        <translation>文本或 JSON Lines (*.jsonl *.json *.txt);;所有文件 (*)</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="95"/>
        <source>Model and data</source>
        <translation>模型与数据</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="98"/>
        <source>Tiny demo (qwen2-tiny, random init, CPU)</source>
        <translation>微型演示（qwen2-tiny，随机初始化，CPU）</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="99"/>
        <source>DeepSeek-R1-Distill-Qwen-1.5B (from a model directory)</source>
        <translation>DeepSeek-R1-Distill-Qwen-1.5B（来自模型目录）</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="100"/>
        <source>&amp;Preset:</source>
        <translation>预设(&amp;P)：</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="102"/>
        <source>Run name; the run id adds the date and time</source>
        <translation>运行名称；运行 ID 会附加日期和时间</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="103"/>
        <source>Run &amp;name:</source>
        <translation>运行名称(&amp;N)：</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="105"/>
        <source>directory with config.json, *.safetensors, tokenizer.json</source>
        <translation>包含 config.json、*.safetensors、tokenizer.json 的目录</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="106"/>
        <source>&amp;Model directory:</source>
        <translation>模型目录(&amp;M)：</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="108"/>
        <source>JSONL file, text file or a directory of them</source>
        <translation>JSONL 文件、文本文件或包含它们的目录</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="109"/>
        <source>&amp;Dataset:</source>
        <translation>数据集(&amp;D)：</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="111"/>
        <source>tokenizer.json (empty: the model directory&apos;s)</source>
        <translation>tokenizer.json（留空：使用模型目录中的）</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="112"/>
        <source>&amp;Tokenizer:</source>
        <translation>分词器(&amp;T)：</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="119"/>
        <source>World layout</source>
        <translation>进程布局</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="122"/>
        <source>Cluster p&amp;rofile:</source>
        <translation>集群配置(&amp;R)：</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="127"/>
        <source>Ranks on this machine (local profile only; a cluster profile&apos;s hostfile gives the layout)</source>
        <translation>本机上的进程数（仅限 local 配置；集群配置由其 hostfile 决定布局）</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="128"/>
        <source>Ran&amp;ks (local):</source>
        <translation>进程数(&amp;K)（本地）：</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="130"/>
        <source>Layout:</source>
        <translation>布局：</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="137"/>
        <source>Hyper-parameters</source>
        <translation>超参数</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="147"/>
        <source>Optimizer steps to run</source>
        <translation>要运行的优化器步数</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="148"/>
        <source>Tokens per sequence</source>
        <translation>每个序列的 token 数</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="149"/>
        <source>Sequences per rank per micro-step</source>
        <translation>每个进程每个微步的序列数</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="150"/>
        <source>Micro-steps per optimizer step</source>
        <translation>每个优化器步包含的微步数</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="151"/>
        <source>Linear warmup steps of the cosine schedule</source>
        <translation>余弦调度的线性预热步数</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="152"/>
        <source>Steps between checkpoints (0: only at the end); needed to resume</source>
        <translation>两次检查点之间的步数（0：仅在结束时保存）；恢复训练需要检查点</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="153"/>
        <source>Seed for initialisation and shuffling</source>
        <translation>用于初始化和打乱数据的随机种子</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="154"/>
        <source>Intra-op threads per rank (0: LibTorch&apos;s default)</source>
        <translation>每个进程的算子内线程数（0：使用 LibTorch 默认值）</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="160"/>
        <source>Peak learning rate, e.g. 3e-4</source>
        <translation>峰值学习率，例如 3e-4</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="170"/>
        <source>Global gradient-norm clip; 0 disables clipping</source>
        <translation>全局梯度范数裁剪阈值；0 表示不裁剪</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="175"/>
        <source>Max &amp;steps:</source>
        <translation>最大步数(&amp;S)：</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="176"/>
        <source>Se&amp;quence length:</source>
        <translation>序列长度(&amp;Q)：</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="177"/>
        <source>Micro-&amp;batch:</source>
        <translation>微批大小(&amp;B)：</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="178"/>
        <source>Gradient &amp;accumulation:</source>
        <translation>梯度累积(&amp;A)：</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="179"/>
        <source>&amp;Learning rate:</source>
        <translation>学习率(&amp;L)：</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="180"/>
        <source>&amp;Warmup steps:</source>
        <translation>预热步数(&amp;W)：</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="181"/>
        <source>Weight d&amp;ecay:</source>
        <translation>权重衰减(&amp;E)：</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="182"/>
        <source>Gradient c&amp;lip:</source>
        <translation>梯度裁剪(&amp;L)：</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="183"/>
        <source>Pre&amp;cision:</source>
        <translation>精度(&amp;C)：</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="184"/>
        <source>Checkpoint e&amp;very:</source>
        <translation>检查点间隔(&amp;V)：</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="185"/>
        <source>S&amp;eed:</source>
        <translation>随机种子(&amp;E)：</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="186"/>
        <source>T&amp;hreads per rank:</source>
        <translation>每进程线程数(&amp;H)：</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="187"/>
        <source>Give faster ranks more of each batch</source>
        <translation>给较快的 rank 分配更多批次样本</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="188"/>
        <source>--balance auto: every 10 steps the trainer moves samples from slower to faster ranks; the update stays the same</source>
        <translation>--balance auto：训练器每 10 步把样本从较慢的 rank 移到较快的 rank；参数更新保持不变</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="190"/>
        <source>Load &amp;balance:</source>
        <translation>负载均衡(&amp;B)：</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="191"/>
        <source>Overlap the gradient allreduce with backward</source>
        <translation>梯度 allreduce 与反向传播重叠</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="193"/>
        <source>--overlap on: each gradient bucket is sent as soon as backward has produced it; the results are the same bit for bit</source>
        <translation>--overlap on：反向传播一产生某个梯度桶就立即发送；结果逐位相同</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="195"/>
        <source>&amp;Overlap:</source>
        <translation>重叠(&amp;O)：</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="196"/>
        <source>Shard the optimizer state over the ranks</source>
        <translation>在各 rank 之间分片优化器状态</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="197"/>
        <source>--zero 1 (ZeRO stage 1): each rank keeps AdamW&apos;s state for its share of the parameters only; the update stays the same</source>
        <translation>--zero 1（ZeRO 第 1 阶段）：每个 rank 只保存其所负责参数部分的 AdamW 状态；更新结果不变</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="199"/>
        <source>&amp;ZeRO-1:</source>
        <translation>&amp;ZeRO-1：</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="200"/>
        <source>Recompute each layer&apos;s activations in backward</source>
        <translation>在反向传播中重新计算每层的激活</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="201"/>
        <source>--recompute layers: each decoder layer keeps only its input for backward and runs its forward again there; much less memory, one more forward pass, the same results</source>
        <translation>--recompute layers：每个解码层只为反向传播保留其输入，并在反向时重新执行前向；内存少得多，多一次前向计算，结果相同</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="203"/>
        <source>&amp;Recompute:</source>
        <translation>重新计算(&amp;R)：</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="208"/>
        <source>--comm: the library of the gradient collectives. auto takes NCCL when every rank trains on a GPU and the trainer was built with NCCL, MPI otherwise</source>
        <translation>--comm：梯度集合通信所用的库。auto 在每个 rank 都在 GPU 上训练且训练器带 NCCL 构建时使用 NCCL，否则使用 MPI</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="210"/>
        <source>Co&amp;llectives:</source>
        <translation>集合通信(&amp;L)：</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="212"/>
        <source>Seconds ranks may stand still before the trainer names the ranks the job waits for (0: off)</source>
        <translation>rank 停滞多少秒后，训练器指出作业正在等待的 rank（0：关闭）</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="214"/>
        <location filename="../app/gui/launchpage.cpp" line="217"/>
        <source> s</source>
        <translation> 秒</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="215"/>
        <source>Stall &amp;warning after:</source>
        <translation>停滞警告时间(&amp;W)：</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="216"/>
        <source>Seconds of stall after which the job is aborted (0: never)</source>
        <translation>停滞多少秒后中止作业（0：从不）</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="218"/>
        <source>never</source>
        <translation>从不</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="219"/>
        <source>Abort a stall a&amp;fter:</source>
        <translation>停滞中止时间(&amp;F)：</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="227"/>
        <source>Environment variables (exported to every rank)</source>
        <translation>环境变量（导出到每个进程）</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="230"/>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="230"/>
        <source>Value</source>
        <translation>值</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="234"/>
        <source>Environment variables</source>
        <translation>环境变量</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="237"/>
        <source>Add &amp;variable</source>
        <translation>添加变量(&amp;V)</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="238"/>
        <source>Remo&amp;ve variable</source>
        <translation>移除变量(&amp;V)</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="246"/>
        <source>Problems</source>
        <translation>问题</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="248"/>
        <source>Problems:</source>
        <translation>问题：</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="253"/>
        <source>Memory plan</source>
        <translation>内存规划</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="256"/>
        <location filename="../app/gui/launchpage.cpp" line="564"/>
        <source>mpirun command (preview):</source>
        <translation>mpirun 命令（预览）：</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="260"/>
        <location filename="../app/gui/launchpage.cpp" line="565"/>
        <source>mpirun command preview</source>
        <translation>mpirun 命令预览</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="264"/>
        <location filename="../app/gui/launchpage.cpp" line="640"/>
        <source>&amp;Launch</source>
        <translation>启动(&amp;L)</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="503"/>
        <location filename="../app/gui/launchpage.cpp" line="634"/>
        <source>form</source>
        <translation>表单</translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/launchpage.cpp" line="513"/>
        <source>Slurm: %n node(s)</source>
        <translation>
            <numerusform>Slurm：%n 个节点</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/launchpage.cpp" line="514"/>
        <source>%n task(s)</source>
        <translation>
            <numerusform>%n 个任务</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="516"/>
        <source>partition %1</source>
        <translation>分区 %1</translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/launchpage.cpp" line="522"/>
        <location filename="../app/gui/launchpage.cpp" line="525"/>
        <source>%n node(s)</source>
        <translation>
            <numerusform>%n 个节点</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/launchpage.cpp" line="523"/>
        <source>%n slot(s)</source>
        <translation>
            <numerusform>%n 个槽位</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/launchpage.cpp" line="515"/>
        <location filename="../app/gui/launchpage.cpp" line="524"/>
        <source>%n rank(s)</source>
        <translation>
            <numerusform>%n 个进程</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/launchpage.cpp" line="525"/>
        <source>%n rank(s) in all</source>
        <translation>
            <numerusform>共 %n 个进程</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="561"/>
        <source>None: ready to launch.</source>
        <translation>无：可以启动。</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="564"/>
        <source>Batch script job.sbatch (preview):</source>
        <translation>批处理脚本 job.sbatch（预览）：</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="565"/>
        <source>Batch script preview</source>
        <translation>批处理脚本预览</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="567"/>
        <source>(fix the problems above to see the command)</source>
        <translation>（修正上面的问题后即可看到命令）</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="586"/>
        <source>Memory plan: no traindeck-trainer on this machine to plan with.</source>
        <translation>内存规划：本机没有可用于规划的 traindeck-trainer。</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="590"/>
        <source>Memory plan: computing…</source>
        <translation>内存规划：计算中…</translation>
    </message>
    <message>
        <location filename="../app/gui/launchpage.cpp" line="628"/>
        <source>Launching…</source>
        <translation>正在启动…</translation>
    </message>
</context>
<context>
    <name>traindeck::gui::LogsPanel</name>
    <message>
        <location filename="../app/gui/logspanel.cpp" line="54"/>
        <source>&amp;Show in log</source>
        <translation>在日志中显示(&amp;S)</translation>
    </message>
    <message>
        <location filename="../app/gui/logspanel.cpp" line="55"/>
        <source>Select the failed rank&apos;s first error in the log below</source>
        <translation>在下方日志中选中失败进程的首个错误</translation>
    </message>
    <message>
        <location filename="../app/gui/logspanel.cpp" line="63"/>
        <source>Only the lines of this rank</source>
        <translation>仅显示该进程的行</translation>
    </message>
    <message>
        <location filename="../app/gui/logspanel.cpp" line="65"/>
        <source>Only the lines of ranks on this host</source>
        <translation>仅显示该主机上各进程的行</translation>
    </message>
    <message>
        <location filename="../app/gui/logspanel.cpp" line="66"/>
        <source>&amp;Errors only</source>
        <translation>仅显示错误(&amp;E)</translation>
    </message>
    <message>
        <location filename="../app/gui/logspanel.cpp" line="67"/>
        <source>Rank:</source>
        <translation>进程：</translation>
    </message>
    <message>
        <location filename="../app/gui/logspanel.cpp" line="69"/>
        <source>Host:</source>
        <translation>主机：</translation>
    </message>
    <message>
        <location filename="../app/gui/logspanel.cpp" line="122"/>
        <source>All ranks</source>
        <translation>所有进程</translation>
    </message>
    <message>
        <location filename="../app/gui/logspanel.cpp" line="124"/>
        <source>All hosts</source>
        <translation>所有主机</translation>
    </message>
    <message>
        <location filename="../app/gui/logspanel.cpp" line="156"/>
        <source>rank %1</source>
        <translation>进程 %1</translation>
    </message>
    <message>
        <location filename="../app/gui/logspanel.cpp" line="186"/>
        <source>&lt;b&gt;First error&lt;/b&gt; (%1)&lt;br&gt;&lt;tt&gt;%2: %3&lt;/tt&gt;</source>
        <translation>&lt;b&gt;首个错误&lt;/b&gt;（%1）&lt;br&gt;&lt;tt&gt;%2: %3&lt;/tt&gt;</translation>
    </message>
</context>
<context>
    <name>traindeck::gui::MainWindow</name>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="48"/>
        <source>TrainDeck</source>
        <translation>TrainDeck</translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="67"/>
        <source>Pages</source>
        <translation>页面</translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="87"/>
        <source>Monitor</source>
        <translation>监控</translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="88"/>
        <source>Live curves, devices, load balance and diagnosis (Ctrl+1)</source>
        <translation>实时曲线、设备、负载均衡与诊断（Ctrl+1）</translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="89"/>
        <source>Runs</source>
        <translation>运行</translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="89"/>
        <source>Run history: open, compare, resume, cancel (Ctrl+2)</source>
        <translation>运行历史：打开、比较、恢复、取消（Ctrl+2）</translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="90"/>
        <source>Launch</source>
        <translation>启动</translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="90"/>
        <source>Start a training run (Ctrl+3)</source>
        <translation>开始一次训练（Ctrl+3）</translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="91"/>
        <source>Checks</source>
        <translation>检查</translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="91"/>
        <source>Check the nodes: GPUs, versions, SSH, disk (Ctrl+4)</source>
        <translation>检查节点：GPU、版本、SSH、磁盘（Ctrl+4）</translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="92"/>
        <source>Cluster</source>
        <translation>集群</translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="93"/>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="92"/>
        <source>Nodes, hostfile and SSH setup (Ctrl+5)</source>
        <translation>节点、hostfile 与 SSH 设置（Ctrl+5）</translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="93"/>
        <source>Runs directory, language, colours (Ctrl+6)</source>
        <translation>运行目录、语言、配色（Ctrl+6）</translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="114"/>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="115"/>
        <source>Run the &amp;demo</source>
        <translation>运行演示(&amp;D)</translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="116"/>
        <source>Launch the tiny demo on this machine (2 CPU ranks)</source>
        <translation>在本机启动微型演示（2 个 CPU 进程）</translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="118"/>
        <source>&amp;Open metrics file…</source>
        <translation>打开指标文件(&amp;O)…</translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="121"/>
        <source>Open metrics file</source>
        <translation>打开指标文件</translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="122"/>
        <source>Metrics (metrics.jsonl *.jsonl)</source>
        <translation>指标 (metrics.jsonl *.jsonl)</translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="129"/>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="132"/>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="133"/>
        <source>&amp;About TrainDeck</source>
        <translation>关于 TrainDeck(&amp;A)</translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="136"/>
        <source>About TrainDeck</source>
        <translation>关于 TrainDeck</translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="137"/>
        <source>TrainDeck %1
Data-parallel LLM training on a small cluster: launch, monitor, diagnose, resume.</source>
        <translation>TrainDeck %1
在小型集群上进行数据并行的大模型训练：启动、监控、诊断、恢复。</translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="152"/>
        <location filename="../app/gui/mainwindow.cpp" line="244"/>
        <source>No job</source>
        <translation>无作业</translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="183"/>
        <source>Reattached to running job %1</source>
        <translation>已重新连接到运行中的作业 %1</translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="191"/>
        <source>Launched %1</source>
        <translation>已启动 %1</translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="196"/>
        <source>Launch failed</source>
        <translation>启动失败</translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="206"/>
        <source>SSH setup</source>
        <translation>SSH 设置</translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="207"/>
        <source>The local profile runs on this machine and needs no SSH.</source>
        <translation>本地配置在本机上运行，不需要 SSH。</translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="228"/>
        <location filename="../app/gui/mainwindow.cpp" line="234"/>
        <source>Job %1: %2</source>
        <translation>作业 %1：%2</translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="235"/>
        <source>The run failed: %1 — resume it on the Runs page</source>
        <translation>运行失败：%1 —— 可在“运行”页面恢复</translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="240"/>
        <source>Viewing a finished run offline</source>
        <translation>正在离线查看已结束的运行</translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="242"/>
        <source>Loading…</source>
        <translation>正在加载…</translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="248"/>
        <source>Cannot follow %1: %2</source>
        <translation>无法跟踪 %1：%2</translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="251"/>
        <source>Cannot open run</source>
        <translation>无法打开运行</translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="251"/>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="277"/>
        <source>Connection: this machine (local profile)</source>
        <translation>连接：本机（local 配置）</translation>
    </message>
    <message>
        <location filename="../app/gui/mainwindow.cpp" line="279"/>
        <source>Connection: profile %1, head node %2</source>
        <translation>连接：配置 %1，主节点 %2</translation>
    </message>
    <message>
        <location filename="../app/gui/screenshots.cpp" line="34"/>
        <source>cannot create the directory</source>
        <translation>无法创建该目录</translation>
    </message>
    <message>
        <location filename="../app/gui/screenshots.cpp" line="43"/>
        <location filename="../app/gui/screenshots.cpp" line="90"/>
        <source>cannot write</source>
        <translation>无法写入</translation>
    </message>
</context>
<context>
    <name>traindeck::gui::MonitorPage</name>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="81"/>
        <source>No run</source>
        <translation>无运行</translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="89"/>
        <source>&amp;Smoothing:</source>
        <translation>平滑(&amp;S)：</translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="94"/>
        <source>Weight of the exponential moving average of the loss (debiased)</source>
        <translation>损失指数移动平均的权重（已去偏）</translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="102"/>
        <source>&amp;Bars over last:</source>
        <translation>柱状图统计最近(&amp;B)：</translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="106"/>
        <source> steps</source>
        <translation> 步</translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="107"/>
        <source>The load-balance bars show the mean of each phase over these last steps</source>
        <translation>负载均衡柱状图显示最近这些步中各阶段的平均耗时</translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="112"/>
        <source>&amp;Heatmap:</source>
        <translation>热力图(&amp;H)：</translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="114"/>
        <source>Step time</source>
        <translation>步耗时</translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="115"/>
        <source>Data loading</source>
        <translation>数据加载</translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="116"/>
        <source>Forward</source>
        <translation>前向</translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="117"/>
        <source>Backward</source>
        <translation>反向</translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="118"/>
        <source>Communication (critical path)</source>
        <translation>通信（关键路径）</translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="119"/>
        <source>Communication wait</source>
        <translation>通信等待</translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="120"/>
        <source>Communication hidden by backward</source>
        <translation>被反向传播隐藏的通信</translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="121"/>
        <source>Optimizer</source>
        <translation>优化器</translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="122"/>
        <source>Compute (fwd+bwd+opt)</source>
        <translation>计算（前向+反向+优化器）</translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="123"/>
        <source>Samples (share of the batch)</source>
        <translation>样本数（批次份额）</translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="128"/>
        <source>&amp;Follow latest</source>
        <translation>跟随最新(&amp;F)</translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="130"/>
        <source>Keep the newest step in view; zooming or panning turns this off</source>
        <translation>始终显示最新的一步；缩放或平移会关闭此项</translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="134"/>
        <source>Reset &amp;zoom</source>
        <translation>重置缩放(&amp;Z)</translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="135"/>
        <source>Show the whole run again (also: double-click a plot)</source>
        <translation>重新显示整个运行（也可双击图表）</translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="137"/>
        <source>Export &amp;PNG…</source>
        <translation>导出 PNG(&amp;P)…</translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="138"/>
        <source>Save the plots of the current tab as an image</source>
        <translation>将当前标签页的图表保存为图片</translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="140"/>
        <source>Export &amp;CSV…</source>
        <translation>导出 CSV(&amp;C)…</translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="141"/>
        <source>Save the run&apos;s series (scalars and per-rank step times) as CSV</source>
        <translation>将运行的序列（标量和各进程步耗时）保存为 CSV</translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="55"/>
        <source>&amp;Training</source>
        <translation>训练(&amp;T)</translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="56"/>
        <source>&amp;Devices</source>
        <translation>设备(&amp;D)</translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="57"/>
        <source>&amp;Load balance</source>
        <translation>负载均衡(&amp;L)</translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="59"/>
        <source>L&amp;ogs</source>
        <translation>日志(&amp;O)</translation>
    </message>
    <message>
        <location filename="../app/gui/monitor/monitorplot.cpp" line="23"/>
        <source>step</source>
        <translation>步</translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="467"/>
        <source>No run — open one on the Runs page or launch one</source>
        <translation>无运行 —— 可在“运行”页面打开，或启动一次新的运行</translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="468"/>
        <source>Loading %1…</source>
        <translation>正在加载 %1…</translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="469"/>
        <source>Run %1 (live)</source>
        <translation>运行 %1（实时）</translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="470"/>
        <source>Run %1 (finished, offline)</source>
        <translation>运行 %1（已结束，离线）</translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="475"/>
        <source>step %1</source>
        <translation>第 %1 步</translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/monitorpage.cpp" line="476"/>
        <source>%n rank(s)</source>
        <translation>
            <numerusform>%n 个进程</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="478"/>
        <source>loss %1</source>
        <translation>损失 %1</translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="481"/>
        <source>%1 tokens/s</source>
        <translation>%1 tokens/s</translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="484"/>
        <source>MFU %1%</source>
        <translation>MFU %1%</translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/monitorpage.cpp" line="487"/>
        <source>%n malformed line(s) skipped</source>
        <translation>
            <numerusform>已跳过 %n 行格式错误的数据</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="492"/>
        <source>selected ranks: %1</source>
        <translation>已选进程：%1</translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="514"/>
        <source>Export plots as PNG</source>
        <translation>将图表导出为 PNG</translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="515"/>
        <source>PNG images (*.png)</source>
        <translation>PNG 图片 (*.png)</translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="519"/>
        <location filename="../app/gui/monitorpage.cpp" line="538"/>
        <location filename="../app/gui/monitorpage.cpp" line="570"/>
        <source>Export failed</source>
        <translation>导出失败</translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="519"/>
        <source>Could not write %1.</source>
        <translation>无法写入 %1。</translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="525"/>
        <source>Export CSV</source>
        <translation>导出 CSV</translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="525"/>
        <source>There is no data to export yet.</source>
        <translation>还没有可导出的数据。</translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="530"/>
        <source>Export series as CSV</source>
        <translation>将序列导出为 CSV</translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="531"/>
        <source>CSV files (*.csv)</source>
        <translation>CSV 文件 (*.csv)</translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="538"/>
        <location filename="../app/gui/monitorpage.cpp" line="571"/>
        <source>Could not write %1: %2</source>
        <translation>无法写入 %1：%2</translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="543"/>
        <source>Exporting %1…</source>
        <translation>正在导出 %1…</translation>
    </message>
    <message>
        <location filename="../app/gui/monitorpage.cpp" line="543"/>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
</context>
<context>
    <name>traindeck::gui::RunsModel</name>
    <message>
        <location filename="../app/gui/models/runsmodel.cpp" line="21"/>
        <source>starting</source>
        <translation>启动中</translation>
    </message>
    <message>
        <location filename="../app/gui/models/runsmodel.cpp" line="22"/>
        <source>pending</source>
        <translation>排队中</translation>
    </message>
    <message>
        <location filename="../app/gui/models/runsmodel.cpp" line="23"/>
        <source>running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <location filename="../app/gui/models/runsmodel.cpp" line="24"/>
        <source>finished</source>
        <translation>已完成</translation>
    </message>
    <message>
        <location filename="../app/gui/models/runsmodel.cpp" line="25"/>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <location filename="../app/gui/models/runsmodel.cpp" line="26"/>
        <source>cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <location filename="../app/gui/models/runsmodel.cpp" line="27"/>
        <source>lost</source>
        <translation>已失联</translation>
    </message>
    <message>
        <location filename="../app/gui/models/runsmodel.cpp" line="100"/>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <location filename="../app/gui/models/runsmodel.cpp" line="102"/>
        <source>%1 (exit %2)</source>
        <translation>%1（退出码 %2）</translation>
    </message>
    <message>
        <location filename="../app/gui/models/runsmodel.cpp" line="105"/>
        <source>%1 (seen %2)</source>
        <translation>%1（%2 时所见）</translation>
    </message>
    <message>
        <location filename="../app/gui/models/runsmodel.cpp" line="112"/>
        <source>%1 (remote)</source>
        <translation>%1（远程）</translation>
    </message>
    <message>
        <location filename="../app/gui/models/runsmodel.cpp" line="119"/>
        <source>On %1: %2
Local record and metrics mirror: %3</source>
        <translation>位于 %1：%2
本地记录与指标镜像：%3</translation>
    </message>
    <message>
        <location filename="../app/gui/models/runsmodel.cpp" line="132"/>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <location filename="../app/gui/models/runsmodel.cpp" line="133"/>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <location filename="../app/gui/models/runsmodel.cpp" line="134"/>
        <source>Started</source>
        <translation>开始时间</translation>
    </message>
    <message>
        <location filename="../app/gui/models/runsmodel.cpp" line="135"/>
        <source>Last step</source>
        <translation>最后一步</translation>
    </message>
    <message>
        <location filename="../app/gui/models/runsmodel.cpp" line="136"/>
        <source>Loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <location filename="../app/gui/models/runsmodel.cpp" line="137"/>
        <source>Profile</source>
        <translation>配置</translation>
    </message>
    <message>
        <location filename="../app/gui/models/runsmodel.cpp" line="138"/>
        <source>Head node</source>
        <translation>主节点</translation>
    </message>
</context>
<context>
    <name>traindeck::gui::RunsPage</name>
    <message>
        <location filename="../app/gui/runspage.cpp" line="44"/>
        <source>Re&amp;fresh</source>
        <translation>刷新(&amp;F)</translation>
    </message>
    <message>
        <location filename="../app/gui/runspage.cpp" line="45"/>
        <source>&amp;Open in Monitor</source>
        <translation>在监控中打开(&amp;O)</translation>
    </message>
    <message>
        <location filename="../app/gui/runspage.cpp" line="46"/>
        <source>&amp;Compare loss</source>
        <translation>比较损失(&amp;C)</translation>
    </message>
    <message>
        <location filename="../app/gui/runspage.cpp" line="47"/>
        <source>Plot the loss of the selected runs together (select several with Ctrl or Shift)</source>
        <translation>把所选运行的损失画在一起（按住 Ctrl 或 Shift 可多选）</translation>
    </message>
    <message>
        <location filename="../app/gui/runspage.cpp" line="48"/>
        <source>&amp;Resume</source>
        <translation>恢复(&amp;R)</translation>
    </message>
    <message>
        <location filename="../app/gui/runspage.cpp" line="49"/>
        <source>Relaunch a failed, cancelled or lost run from its latest checkpoint</source>
        <translation>从最新检查点重新启动失败、已取消或已失联的运行</translation>
    </message>
    <message>
        <location filename="../app/gui/runspage.cpp" line="50"/>
        <source>C&amp;ancel run</source>
        <translation>取消运行(&amp;A)</translation>
    </message>
    <message>
        <location filename="../app/gui/runspage.cpp" line="51"/>
        <source>Stop a running job (SIGTERM, then SIGKILL after 10 s)</source>
        <translation>停止正在运行的作业（先发送 SIGTERM，10 秒后发送 SIGKILL）</translation>
    </message>
    <message>
        <location filename="../app/gui/runspage.cpp" line="59"/>
        <source>Run history</source>
        <translation>运行历史</translation>
    </message>
    <message>
        <location filename="../app/gui/runspage.cpp" line="70"/>
        <source>Loss of the compared runs</source>
        <translation>所比较运行的损失</translation>
    </message>
    <message>
        <location filename="../app/gui/runspage.cpp" line="76"/>
        <source>step</source>
        <translation>步</translation>
    </message>
    <message>
        <location filename="../app/gui/runspage.cpp" line="77"/>
        <source>loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <location filename="../app/gui/runspage.cpp" line="84"/>
        <source>Select one or more runs above and press Compare loss</source>
        <translation>在上方选择一个或多个运行，然后点击“比较损失”</translation>
    </message>
    <message>
        <location filename="../app/gui/runspage.cpp" line="149"/>
        <source>No runs in %1 yet: start one on the Launch page.</source>
        <translation>%1 中还没有运行：请在“启动”页面开始一次。</translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/runspage.cpp" line="150"/>
        <source>%n run(s) in %1</source>
        <translation>
            <numerusform>%1 中共有 %n 个运行</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/runspage.cpp" line="151"/>
        <source>%n running</source>
        <translation>
            <numerusform>%n 个运行中</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../app/gui/runspage.cpp" line="175"/>
        <source>Cannot reach the head node of a remote run: %1</source>
        <translation>无法连接远程运行的主节点：%1</translation>
    </message>
    <message>
        <location filename="../app/gui/runspage.cpp" line="240"/>
        <source>Cannot read the metrics of %1: %2</source>
        <translation>无法读取 %1 的指标：%2</translation>
    </message>
    <message>
        <location filename="../app/gui/runspage.cpp" line="261"/>
        <source>Resuming %1…</source>
        <translation>正在恢复 %1…</translation>
    </message>
    <message>
        <location filename="../app/gui/runspage.cpp" line="266"/>
        <source>Resume failed</source>
        <translation>恢复失败</translation>
    </message>
    <message>
        <location filename="../app/gui/runspage.cpp" line="281"/>
        <source>Cancel run</source>
        <translation>取消运行</translation>
    </message>
    <message>
        <location filename="../app/gui/runspage.cpp" line="282"/>
        <source>Stop %1? Training ends now; the latest checkpoint stays for a resume.</source>
        <translation>要停止 %1 吗？训练将立即结束；最新的检查点会保留，以便之后恢复。</translation>
    </message>
    <message>
        <location filename="../app/gui/runspage.cpp" line="286"/>
        <source>Cancelling %1…</source>
        <translation>正在取消 %1…</translation>
    </message>
    <message>
        <location filename="../app/gui/runspage.cpp" line="291"/>
        <source>Cancel failed</source>
        <translation>取消失败</translation>
    </message>
</context>
<context>
    <name>traindeck::gui::SettingsPage</name>
    <message>
        <location filename="../app/gui/settingspage.cpp" line="23"/>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <location filename="../app/gui/settingspage.cpp" line="43"/>
        <source>Every run gets a directory here with its spec, logs, metrics and checkpoints</source>
        <translation>每次运行都会在此目录下建立子目录，存放其配置、日志、指标和检查点</translation>
    </message>
    <message>
        <location filename="../app/gui/settingspage.cpp" line="44"/>
        <source>&amp;Runs directory:</source>
        <translation>运行目录(&amp;R)：</translation>
    </message>
    <message>
        <location filename="../app/gui/settingspage.cpp" line="44"/>
        <source>Runs directory</source>
        <translation>运行目录</translation>
    </message>
    <message>
        <location filename="../app/gui/settingspage.cpp" line="47"/>
        <source>directory with config.json and *.safetensors</source>
        <translation>包含 config.json 和 *.safetensors 的目录</translation>
    </message>
    <message>
        <location filename="../app/gui/settingspage.cpp" line="48"/>
        <source>Hugging Face model directory used by the DeepSeek-R1-Distill-Qwen-1.5B preset</source>
        <translation>DeepSeek-R1-Distill-Qwen-1.5B 预设使用的 Hugging Face 模型目录</translation>
    </message>
    <message>
        <location filename="../app/gui/settingspage.cpp" line="49"/>
        <source>&amp;Model directory (1.5B preset):</source>
        <translation>模型目录（1.5B 预设）(&amp;M)：</translation>
    </message>
    <message>
        <location filename="../app/gui/settingspage.cpp" line="49"/>
        <source>Model directory</source>
        <translation>模型目录</translation>
    </message>
    <message>
        <location filename="../app/gui/settingspage.cpp" line="52"/>
        <source>System default</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <location filename="../app/gui/settingspage.cpp" line="57"/>
        <source>&amp;Language:</source>
        <translation>语言(&amp;L)：</translation>
    </message>
    <message>
        <location filename="../app/gui/settingspage.cpp" line="60"/>
        <source>Okabe–Ito (colour-blind safe)</source>
        <translation>Okabe–Ito（色盲友好）</translation>
    </message>
    <message>
        <location filename="../app/gui/settingspage.cpp" line="61"/>
        <source>Tableau 10</source>
        <translation>Tableau 10</translation>
    </message>
    <message>
        <location filename="../app/gui/settingspage.cpp" line="63"/>
        <source>Plot colours; axes and backgrounds follow the system theme</source>
        <translation>图表配色；坐标轴和背景跟随系统主题</translation>
    </message>
    <message>
        <location filename="../app/gui/settingspage.cpp" line="64"/>
        <source>Plot &amp;colours:</source>
        <translation>图表配色(&amp;C)：</translation>
    </message>
    <message>
        <location filename="../app/gui/settingspage.cpp" line="69"/>
        <source> ms</source>
        <translation> ms</translation>
    </message>
    <message>
        <location filename="../app/gui/settingspage.cpp" line="71"/>
        <source>How often the Monitor redraws while metrics arrive</source>
        <translation>指标到达时监控页面的重绘间隔</translation>
    </message>
    <message>
        <location filename="../app/gui/settingspage.cpp" line="72"/>
        <source>Monitor &amp;refresh:</source>
        <translation>监控刷新间隔(&amp;R)：</translation>
    </message>
    <message>
        <location filename="../app/gui/settingspage.cpp" line="76"/>
        <source>Changes apply at once. Plot colours apply to plots created afterwards (reopen the run).</source>
        <translation>更改立即生效。图表配色对之后创建的图表生效（重新打开运行即可）。</translation>
    </message>
</context>
<context>
    <name>traindeck::gui::SlurmSettingsEditor</name>
    <message>
        <location filename="../app/gui/slurmeditor.cpp" line="13"/>
        <location filename="../app/gui/slurmeditor.cpp" line="20"/>
        <source>Launcher</source>
        <translation>启动方式</translation>
    </message>
    <message>
        <location filename="../app/gui/slurmeditor.cpp" line="18"/>
        <source>mpirun over SSH (the nodes above, as a hostfile)</source>
        <translation>通过 SSH 使用 mpirun（上面的节点，作为 hostfile）</translation>
    </message>
    <message>
        <location filename="../app/gui/slurmeditor.cpp" line="19"/>
        <source>Slurm (sbatch on the login node: the head node above)</source>
        <translation>Slurm（在登录节点，即上面的主节点上运行 sbatch）</translation>
    </message>
    <message>
        <location filename="../app/gui/slurmeditor.cpp" line="21"/>
        <source>&amp;Launch with:</source>
        <translation>启动方式(&amp;L)：</translation>
    </message>
    <message>
        <location filename="../app/gui/slurmeditor.cpp" line="29"/>
        <source>required, e.g. gpu</source>
        <translation>必填，例如 gpu</translation>
    </message>
    <message>
        <location filename="../app/gui/slurmeditor.cpp" line="30"/>
        <source>&amp;Partition:</source>
        <translation>分区(&amp;P)：</translation>
    </message>
    <message>
        <location filename="../app/gui/slurmeditor.cpp" line="32"/>
        <source>empty: your default account</source>
        <translation>留空：使用你的默认账户</translation>
    </message>
    <message>
        <location filename="../app/gui/slurmeditor.cpp" line="33"/>
        <source>A&amp;ccount:</source>
        <translation>账户(&amp;C)：</translation>
    </message>
    <message>
        <location filename="../app/gui/slurmeditor.cpp" line="35"/>
        <source>MM, HH:MM:SS or D-HH:MM:SS</source>
        <translation>MM、HH:MM:SS 或 D-HH:MM:SS</translation>
    </message>
    <message>
        <location filename="../app/gui/slurmeditor.cpp" line="36"/>
        <source>The job&apos;s time limit (sbatch --time). The trainer checkpoints and stops when Slurm signals it shortly before the limit; resume continues in a new job.</source>
        <translation>作业的时间限制（sbatch --time）。Slurm 在到达限制前不久发出信号时，训练程序会保存检查点并停止；恢复会在新作业中继续。</translation>
    </message>
    <message>
        <location filename="../app/gui/slurmeditor.cpp" line="38"/>
        <source>&amp;Time limit:</source>
        <translation>时间限制(&amp;T)：</translation>
    </message>
    <message>
        <location filename="../app/gui/slurmeditor.cpp" line="48"/>
        <source>&amp;Nodes:</source>
        <translation>节点数(&amp;N)：</translation>
    </message>
    <message>
        <location filename="../app/gui/slurmeditor.cpp" line="50"/>
        <source>Ranks per node (--ntasks-per-node); one per GPU on GPU nodes</source>
        <translation>每节点进程数（--ntasks-per-node）；GPU 节点上每个 GPU 一个</translation>
    </message>
    <message>
        <location filename="../app/gui/slurmeditor.cpp" line="51"/>
        <source>Ranks per &amp;node:</source>
        <translation>每节点进程数(&amp;N)：</translation>
    </message>
    <message>
        <location filename="../app/gui/slurmeditor.cpp" line="53"/>
        <source>none asked</source>
        <translation>不申请</translation>
    </message>
    <message>
        <location filename="../app/gui/slurmeditor.cpp" line="54"/>
        <source>&amp;GPUs per node:</source>
        <translation>每节点 GPU 数(&amp;G)：</translation>
    </message>
    <message>
        <location filename="../app/gui/slurmeditor.cpp" line="56"/>
        <source>CP&amp;Us per rank:</source>
        <translation>每进程 CPU 数(&amp;U)：</translation>
    </message>
    <message>
        <location filename="../app/gui/slurmeditor.cpp" line="58"/>
        <source>auto (srun when it offers pmix, else mpirun)</source>
        <translation>自动（srun 支持 pmix 时用 srun，否则用 mpirun）</translation>
    </message>
    <message>
        <location filename="../app/gui/slurmeditor.cpp" line="59"/>
        <source>mpirun (hosts and ranks from Slurm)</source>
        <translation>mpirun（主机和进程数取自 Slurm）</translation>
    </message>
    <message>
        <location filename="../app/gui/slurmeditor.cpp" line="60"/>
        <source>srun --mpi=pmix</source>
        <translation>srun --mpi=pmix</translation>
    </message>
    <message>
        <location filename="../app/gui/slurmeditor.cpp" line="61"/>
        <source>Ranks &amp;start via:</source>
        <translation>进程启动方式(&amp;S)：</translation>
    </message>
    <message>
        <location filename="../app/gui/slurmeditor.cpp" line="62"/>
        <source> s</source>
        <translation> 秒</translation>
    </message>
    <message>
        <location filename="../app/gui/slurmeditor.cpp" line="63"/>
        <source>no warning signal</source>
        <translation>不发送预警信号</translation>
    </message>
    <message>
        <location filename="../app/gui/slurmeditor.cpp" line="64"/>
        <source>Seconds before the time limit at which Slurm sends SIGUSR1 (the trainer then checkpoints and stops)</source>
        <translation>在时间限制前多少秒由 Slurm 发送 SIGUSR1（训练程序随即保存检查点并停止）</translation>
    </message>
    <message>
        <location filename="../app/gui/slurmeditor.cpp" line="66"/>
        <source>Checkpoint &amp;before limit:</source>
        <translation>到限前保存检查点(&amp;B)：</translation>
    </message>
</context>
<context>
    <name>traindeck::gui::SshWizard</name>
    <message>
        <location filename="../app/gui/sshwizard.cpp" line="35"/>
        <source>SSH key</source>
        <translation>SSH 密钥</translation>
    </message>
    <message>
        <location filename="../app/gui/sshwizard.cpp" line="36"/>
        <source>TrainDeck logs in to the nodes with an ED25519 key. Generate a new one or use a key you already have.</source>
        <translation>TrainDeck 使用 ED25519 密钥登录各节点。请生成新密钥，或使用已有的密钥。</translation>
    </message>
    <message>
        <location filename="../app/gui/sshwizard.cpp" line="46"/>
        <source>optional</source>
        <translation>可选</translation>
    </message>
    <message>
        <location filename="../app/gui/sshwizard.cpp" line="49"/>
        <source>&amp;Passphrase:</source>
        <translation>口令(&amp;P)：</translation>
    </message>
    <message>
        <location filename="../app/gui/sshwizard.cpp" line="50"/>
        <source>Re&amp;peat passphrase:</source>
        <translation>重复口令(&amp;P)：</translation>
    </message>
    <message>
        <location filename="../app/gui/sshwizard.cpp" line="52"/>
        <source>Use an &amp;existing private key:</source>
        <translation>使用已有私钥(&amp;E)：</translation>
    </message>
    <message>
        <location filename="../app/gui/sshwizard.cpp" line="57"/>
        <source>Private key file</source>
        <translation>私钥文件</translation>
    </message>
    <message>
        <location filename="../app/gui/sshwizard.cpp" line="58"/>
        <source>&amp;Browse…</source>
        <translation>浏览(&amp;B)…</translation>
    </message>
    <message>
        <location filename="../app/gui/sshwizard.cpp" line="79"/>
        <source>Choose a private key</source>
        <translation>选择私钥</translation>
    </message>
    <message>
        <location filename="../app/gui/sshwizard.cpp" line="107"/>
        <source>Passwords</source>
        <translation>密码</translation>
    </message>
    <message>
        <location filename="../app/gui/sshwizard.cpp" line="108"/>
        <source>The password of each node is used once to install the key and is never stored. Leave it empty for nodes where the key already works.</source>
        <translation>每个节点的密码仅用于安装密钥一次，绝不保存。对于密钥已可登录的节点，请留空。</translation>
    </message>
    <message>
        <location filename="../app/gui/sshwizard.cpp" line="114"/>
        <source>Password for %1</source>
        <translation>%1 的密码</translation>
    </message>
    <message>
        <location filename="../app/gui/sshwizard.cpp" line="115"/>
        <source>%1:</source>
        <translation>%1：</translation>
    </message>
    <message>
        <location filename="../app/gui/sshwizard.cpp" line="119"/>
        <source>Let the &amp;head node log in to the workers (needed by mpirun)</source>
        <translation>允许头节点(&amp;H)登录各工作节点（mpirun 需要）</translation>
    </message>
    <message>
        <location filename="../app/gui/sshwizard.cpp" line="130"/>
        <source>Install and verify</source>
        <translation>安装并验证</translation>
    </message>
    <message>
        <location filename="../app/gui/sshwizard.cpp" line="131"/>
        <source>The key is added to ~/.ssh/authorized_keys on every node, then a fresh login with the key alone is tried.</source>
        <translation>将密钥添加到每个节点的 ~/.ssh/authorized_keys，然后仅用该密钥尝试重新登录。</translation>
    </message>
    <message>
        <location filename="../app/gui/sshwizard.cpp" line="135"/>
        <source>Installation progress</source>
        <translation>安装进度</translation>
    </message>
    <message>
        <location filename="../app/gui/sshwizard.cpp" line="138"/>
        <source>Node</source>
        <translation>节点</translation>
    </message>
    <message>
        <location filename="../app/gui/sshwizard.cpp" line="138"/>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <location filename="../app/gui/sshwizard.cpp" line="142"/>
        <source>Status per node</source>
        <translation>各节点状态</translation>
    </message>
    <message>
        <location filename="../app/gui/sshwizard.cpp" line="157"/>
        <source>Summary</source>
        <translation>摘要</translation>
    </message>
    <message>
        <location filename="../app/gui/sshwizard.cpp" line="177"/>
        <source>SSH setup: %1</source>
        <translation>SSH 设置：%1</translation>
    </message>
    <message>
        <location filename="../app/gui/sshwizard.cpp" line="208"/>
        <source>&amp;Use the TrainDeck key %1 (it exists)</source>
        <translation>使用 TrainDeck 密钥 %1（已存在）(&amp;U)</translation>
    </message>
    <message>
        <location filename="../app/gui/sshwizard.cpp" line="209"/>
        <source>&amp;Generate a new ED25519 key as %1</source>
        <translation>生成新的 ED25519 密钥 %1(&amp;G)</translation>
    </message>
    <message>
        <location filename="../app/gui/sshwizard.cpp" line="227"/>
        <source>The passphrases do not match.</source>
        <translation>两次输入的口令不一致。</translation>
    </message>
    <message>
        <location filename="../app/gui/sshwizard.cpp" line="242"/>
        <source>Choose an existing private key file.</source>
        <translation>请选择一个已有的私钥文件。</translation>
    </message>
    <message>
        <location filename="../app/gui/sshwizard.cpp" line="250"/>
        <source>Key %1
Fingerprint %2</source>
        <translation>密钥 %1
指纹 %2</translation>
    </message>
    <message>
        <location filename="../app/gui/sshwizard.cpp" line="264"/>
        <location filename="../app/gui/sshwizard.cpp" line="297"/>
        <source>waiting</source>
        <translation>等待中</translation>
    </message>
    <message>
        <location filename="../app/gui/sshwizard.cpp" line="265"/>
        <source>working…</source>
        <translation>处理中…</translation>
    </message>
    <message>
        <location filename="../app/gui/sshwizard.cpp" line="266"/>
        <source>✓ %1</source>
        <translation>✓ %1</translation>
    </message>
    <message>
        <location filename="../app/gui/sshwizard.cpp" line="267"/>
        <source>✗ %1</source>
        <translation>✗ %1</translation>
    </message>
    <message>
        <location filename="../app/gui/sshwizard.cpp" line="295"/>
        <source>Head → workers</source>
        <translation>头节点 → 工作节点</translation>
    </message>
    <message>
        <location filename="../app/gui/sshwizard.cpp" line="361"/>
        <source>Key: %1 (%2)</source>
        <translation>密钥：%1（%2）</translation>
    </message>
    <message>
        <location filename="../app/gui/sshwizard.cpp" line="366"/>
        <source>✓ %1: %2</source>
        <translation>✓ %1：%2</translation>
    </message>
    <message>
        <location filename="../app/gui/sshwizard.cpp" line="366"/>
        <source>✗ %1: %2</source>
        <translation>✗ %1：%2</translation>
    </message>
    <message>
        <location filename="../app/gui/sshwizard.cpp" line="367"/>
        <source>not done</source>
        <translation>未完成</translation>
    </message>
    <message>
        <location filename="../app/gui/sshwizard.cpp" line="370"/>
        <source>✓ Head → workers: %1</source>
        <translation>✓ 头节点 → 工作节点：%1</translation>
    </message>
    <message>
        <location filename="../app/gui/sshwizard.cpp" line="370"/>
        <source>✗ Head → workers: %1</source>
        <translation>✗ 头节点 → 工作节点：%1</translation>
    </message>
    <message>
        <location filename="../app/gui/sshwizard.cpp" line="374"/>
        <source>Every node accepts the key. Set it as the nodes&apos; identity in the profile if it is not one of the SSH defaults.</source>
        <translation>所有节点都接受该密钥。如果它不是 SSH 默认密钥之一，请在配置中将其设为各节点的身份密钥。</translation>
    </message>
    <message>
        <location filename="../app/gui/sshwizard.cpp" line="376"/>
        <source>%1 of %2 nodes accept the key. Fix the failures above and run the wizard again.</source>
        <translation>%2 个节点中有 %1 个接受该密钥。请修复上述失败后重新运行向导。</translation>
    </message>
</context>
<context>
    <name>traindeck::gui::VersionMatrixModel</name>
    <message>
        <location filename="../app/gui/models/checksmodel.cpp" line="300"/>
        <source>—</source>
        <translation>—</translation>
    </message>
    <message>
        <location filename="../app/gui/models/checksmodel.cpp" line="302"/>
        <source>%1 (differs from the head)</source>
        <translation>%1（与头节点不同）</translation>
    </message>
    <message>
        <location filename="../app/gui/models/checksmodel.cpp" line="302"/>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <location filename="../app/gui/models/checksmodel.cpp" line="305"/>
        <source>Differs from the head node</source>
        <translation>与头节点不同</translation>
    </message>
    <message>
        <location filename="../app/gui/models/checksmodel.cpp" line="306"/>
        <source>Differs from the head node. %1</source>
        <translation>与头节点不同。%1</translation>
    </message>
    <message>
        <location filename="../app/gui/models/checksmodel.cpp" line="342"/>
        <source>%1 nodes: same</source>
        <translation>%1 个节点：相同</translation>
    </message>
    <message>
        <location filename="../app/gui/models/checksmodel.cpp" line="343"/>
        <source>%1 (head)</source>
        <translation>%1（头节点）</translation>
    </message>
</context>
<context>
    <name>traindeck::gui::monitor::BalanceTab</name>
    <message>
        <location filename="../app/gui/monitor/balancetab.cpp" line="144"/>
        <location filename="../app/gui/monitor/balancetab.cpp" line="375"/>
        <source>Load balance: mean time per phase and rank</source>
        <translation>负载均衡：各进程各阶段的平均耗时</translation>
    </message>
    <message>
        <location filename="../app/gui/monitor/balancetab.cpp" line="145"/>
        <location filename="../app/gui/monitor/balancetab.cpp" line="205"/>
        <location filename="../app/gui/monitor/balancetab.cpp" line="377"/>
        <location filename="../app/gui/monitor/balancetab.cpp" line="470"/>
        <source>rank and host</source>
        <translation>进程与主机</translation>
    </message>
    <message>
        <location filename="../app/gui/monitor/balancetab.cpp" line="146"/>
        <source>ms per step</source>
        <translation>每步毫秒数</translation>
    </message>
    <message>
        <location filename="../app/gui/monitor/balancetab.cpp" line="44"/>
        <source>data</source>
        <translation>数据</translation>
    </message>
    <message>
        <location filename="../app/gui/monitor/balancetab.cpp" line="45"/>
        <source>forward</source>
        <translation>前向</translation>
    </message>
    <message>
        <location filename="../app/gui/monitor/balancetab.cpp" line="46"/>
        <source>backward</source>
        <translation>反向</translation>
    </message>
    <message>
        <location filename="../app/gui/monitor/balancetab.cpp" line="47"/>
        <source>comm transfer</source>
        <translation>通信传输</translation>
    </message>
    <message>
        <location filename="../app/gui/monitor/balancetab.cpp" line="48"/>
        <source>comm wait</source>
        <translation>通信等待</translation>
    </message>
    <message>
        <location filename="../app/gui/monitor/balancetab.cpp" line="49"/>
        <source>optimizer</source>
        <translation>优化器</translation>
    </message>
    <message>
        <location filename="../app/gui/monitor/balancetab.cpp" line="64"/>
        <source>← All hosts</source>
        <translation>← 所有主机</translation>
    </message>
    <message>
        <location filename="../app/gui/monitor/balancetab.cpp" line="65"/>
        <source>Back to one bar per host (Backspace)</source>
        <translation>返回每台主机一根柱（Backspace）</translation>
    </message>
    <message>
        <location filename="../app/gui/monitor/balancetab.cpp" line="75"/>
        <source>Rank</source>
        <translation>进程</translation>
    </message>
    <message>
        <location filename="../app/gui/monitor/balancetab.cpp" line="75"/>
        <source>Host</source>
        <translation>主机</translation>
    </message>
    <message>
        <location filename="../app/gui/monitor/balancetab.cpp" line="75"/>
        <source>Slower by</source>
        <translation>慢出</translation>
    </message>
    <message>
        <location filename="../app/gui/monitor/balancetab.cpp" line="75"/>
        <source>Phase</source>
        <translation>阶段</translation>
    </message>
    <message>
        <location filename="../app/gui/monitor/balancetab.cpp" line="75"/>
        <source>Since step</source>
        <translation>起始步</translation>
    </message>
    <message>
        <location filename="../app/gui/monitor/balancetab.cpp" line="81"/>
        <source>The slowest ranks over the bars&apos; steps: their own time (every phase but the wait for the others) over the median rank&apos;s. Select one to open its host.</source>
        <translation>柱状图所覆盖步数中最慢的进程：其自身耗时（除等待其他进程外的所有阶段）相对中位进程的超出。选中一行可打开其主机。</translation>
    </message>
    <message>
        <location filename="../app/gui/monitor/balancetab.cpp" line="97"/>
        <source>Heatmap: every &amp;rank</source>
        <translation>热力图：每个进程(&amp;R)</translation>
    </message>
    <message>
        <location filename="../app/gui/monitor/balancetab.cpp" line="98"/>
        <source>Show a row per rank instead of a row per host (the median of its ranks)</source>
        <translation>每个进程一行，而不是每台主机一行（其进程的中位数）</translation>
    </message>
    <message>
        <location filename="../app/gui/monitor/balancetab.cpp" line="181"/>
        <source>median rank&apos;s own time</source>
        <translation>中位进程的自身耗时</translation>
    </message>
    <message>
        <location filename="../app/gui/monitor/balancetab.cpp" line="184"/>
        <source>its ranks: fastest to slowest</source>
        <translation>其进程：最快到最慢</translation>
    </message>
    <message>
        <location filename="../app/gui/monitor/balancetab.cpp" line="204"/>
        <source>Step time per rank and step</source>
        <translation>各进程每步的步耗时</translation>
    </message>
    <message>
        <location filename="../app/gui/monitor/balancetab.cpp" line="214"/>
        <location filename="../app/gui/monitor/balancetab.cpp" line="237"/>
        <source>ms</source>
        <translation>ms</translation>
    </message>
    <message>
        <location filename="../app/gui/monitor/balancetab.cpp" line="236"/>
        <location filename="../app/gui/monitor/balancetab.cpp" line="469"/>
        <source>%1 per rank and step</source>
        <translation>各进程每步的%1</translation>
    </message>
    <message>
        <location filename="../app/gui/monitor/balancetab.cpp" line="237"/>
        <source>samples</source>
        <translation>样本</translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/monitor/balancetab.cpp" line="265"/>
        <source>%1 each (%n rank(s))</source>
        <translation>
            <numerusform>每个 %1（%n 个进程）</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/monitor/balancetab.cpp" line="266"/>
        <source>%1 to %2 (%n rank(s))</source>
        <translation>
            <numerusform>%1 到 %2（%n 个进程）</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../app/gui/monitor/balancetab.cpp" line="269"/>
        <source>Samples per rank: %1 since step %2 (unchanged)</source>
        <translation>各进程样本数：%1，自第 %2 步起（未变）</translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/monitor/balancetab.cpp" line="280"/>
        <source>Samples per rank: %1 since step %2 — changed at step(s) %3</source>
        <translation>
            <numerusform>各进程样本数：%1，自第 %2 步起 — 调整于第 %3 步</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../app/gui/monitor/balancetab.cpp" line="286"/>
        <source>Median step %1 ms before the last change, %2 ms after (%3 %)</source>
        <translation>最后一次调整前步耗时中位数 %1 ms，调整后 %2 ms（%3 %）</translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/monitor/balancetab.cpp" line="321"/>
        <source>%1: %n rank(s)</source>
        <translation>
            <numerusform>%1：%n 个进程</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../app/gui/monitor/balancetab.cpp" line="322"/>
        <source>own time per step: median %1 ms, fastest %2 ms, slowest %3 ms (rank %4)</source>
        <translation>每步自身耗时：中位数 %1 ms，最快 %2 ms，最慢 %3 ms（进程 %4）</translation>
    </message>
    <message>
        <location filename="../app/gui/monitor/balancetab.cpp" line="326"/>
        <source>Click to show its ranks</source>
        <translation>点击显示其进程</translation>
    </message>
    <message>
        <location filename="../app/gui/monitor/balancetab.cpp" line="341"/>
        <source>Rank %1</source>
        <translation>进程 %1</translation>
    </message>
    <message>
        <location filename="../app/gui/monitor/balancetab.cpp" line="341"/>
        <source>Rank %1 on %2</source>
        <translation>进程 %1（%2）</translation>
    </message>
    <message>
        <location filename="../app/gui/monitor/balancetab.cpp" line="343"/>
        <source>%1 ms per step (mean of the phases)</source>
        <translation>每步 %1 ms（各阶段平均值之和）</translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/monitor/balancetab.cpp" line="346"/>
        <source>%n sample(s) per step since step %1</source>
        <translation>
            <numerusform>自第 %1 步起每步 %n 个样本</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../app/gui/monitor/balancetab.cpp" line="368"/>
        <source>, steps %1–%2</source>
        <translation>，第 %1–%2 步</translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/monitor/balancetab.cpp" line="370"/>
        <source>Load balance by host: mean time per phase, %n host(s), slowest first</source>
        <translation>
            <numerusform>按主机的负载均衡：各阶段平均耗时，%n 台主机，最慢的在前</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../app/gui/monitor/balancetab.cpp" line="373"/>
        <source>Load balance on %1: mean time per phase and rank</source>
        <translation>%1 上的负载均衡：各阶段和进程的平均耗时</translation>
    </message>
    <message>
        <location filename="../app/gui/monitor/balancetab.cpp" line="377"/>
        <source>host, slowest first</source>
        <translation>主机，最慢的在前</translation>
    </message>
    <message>
        <location filename="../app/gui/monitor/balancetab.cpp" line="422"/>
        <source>%1 %</source>
        <translation>%1 %</translation>
    </message>
    <message>
        <location filename="../app/gui/monitor/balancetab.cpp" line="425"/>
        <source>–</source>
        <translation>–</translation>
    </message>
    <message>
        <location filename="../app/gui/monitor/balancetab.cpp" line="468"/>
        <source>%1 per host and step (the median of its ranks)</source>
        <translation>每台主机每步的%1（其进程的中位数）</translation>
    </message>
    <message>
        <location filename="../app/gui/monitor/balancetab.cpp" line="470"/>
        <source>host</source>
        <translation>主机</translation>
    </message>
    <message numerus="yes">
        <location filename="../app/gui/monitor/balancetab.cpp" line="399"/>
        <source>%n sample(s)</source>
        <translation>
            <numerusform>%n 个样本</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../app/gui/monitor/balancetab.h" line="105"/>
        <source>Step time</source>
        <translation>步耗时</translation>
    </message>
</context>
<context>
    <name>traindeck::gui::monitor::DevicesTab</name>
    <message>
        <location filename="../app/gui/monitor/devicestab.cpp" line="25"/>
        <location filename="../app/gui/monitor/devicestab.cpp" line="67"/>
        <source>Device utilisation per rank</source>
        <translation>各进程的设备利用率</translation>
    </message>
    <message>
        <location filename="../app/gui/monitor/devicestab.cpp" line="26"/>
        <source>utilisation (%)</source>
        <translation>利用率（%）</translation>
    </message>
    <message>
        <location filename="../app/gui/monitor/devicestab.cpp" line="27"/>
        <location filename="../app/gui/monitor/devicestab.cpp" line="68"/>
        <source>Peak memory per rank</source>
        <translation>各进程的峰值显存</translation>
    </message>
    <message>
        <location filename="../app/gui/monitor/devicestab.cpp" line="28"/>
        <source>memory (MiB)</source>
        <translation>显存（MiB）</translation>
    </message>
    <message>
        <location filename="../app/gui/monitor/devicestab.cpp" line="47"/>
        <source>rank %1</source>
        <translation>进程 %1</translation>
    </message>
    <message>
        <location filename="../app/gui/monitor/devicestab.cpp" line="47"/>
        <source>rank %1 (%2)</source>
        <translation>进程 %1（%2）</translation>
    </message>
    <message>
        <location filename="../app/gui/monitor/devicestab.cpp" line="66"/>
        <source>Device utilisation per host (the median of its ranks)</source>
        <translation>每台主机的设备利用率（其进程的中位数）</translation>
    </message>
    <message>
        <location filename="../app/gui/monitor/devicestab.cpp" line="68"/>
        <source>Peak memory per host (its largest rank)</source>
        <translation>每台主机的峰值内存（其最大的进程）</translation>
    </message>
</context>
<context>
    <name>traindeck::gui::monitor::TrainingTab</name>
    <message>
        <location filename="../app/gui/monitor/trainingtab.cpp" line="21"/>
        <source>Loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <location filename="../app/gui/monitor/trainingtab.cpp" line="22"/>
        <source>Learning rate</source>
        <translation>学习率</translation>
    </message>
    <message>
        <location filename="../app/gui/monitor/trainingtab.cpp" line="23"/>
        <source>Gradient norm</source>
        <translation>梯度范数</translation>
    </message>
    <message>
        <location filename="../app/gui/monitor/trainingtab.cpp" line="24"/>
        <source>Throughput</source>
        <translation>吞吐量</translation>
    </message>
    <message>
        <location filename="../app/gui/monitor/trainingtab.cpp" line="33"/>
        <source>loss (raw)</source>
        <translation>损失（原始）</translation>
    </message>
    <message>
        <location filename="../app/gui/monitor/trainingtab.cpp" line="38"/>
        <source>loss (smoothed)</source>
        <translation>损失（平滑）</translation>
    </message>
    <message>
        <location filename="../app/gui/monitor/trainingtab.cpp" line="42"/>
        <source>loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <location filename="../app/gui/monitor/trainingtab.cpp" line="45"/>
        <location filename="../app/gui/monitor/trainingtab.cpp" line="47"/>
        <source>learning rate</source>
        <translation>学习率</translation>
    </message>
    <message>
        <location filename="../app/gui/monitor/trainingtab.cpp" line="51"/>
        <source>gradient norm</source>
        <translation>梯度范数</translation>
    </message>
    <message>
        <location filename="../app/gui/monitor/trainingtab.cpp" line="53"/>
        <source>L2 norm before clipping</source>
        <translation>裁剪前的 L2 范数</translation>
    </message>
    <message>
        <location filename="../app/gui/monitor/trainingtab.cpp" line="56"/>
        <location filename="../app/gui/monitor/trainingtab.cpp" line="58"/>
        <source>tokens/s</source>
        <translation>tokens/s</translation>
    </message>
    <message>
        <location filename="../app/gui/monitor/trainingtab.cpp" line="60"/>
        <location filename="../app/gui/monitor/trainingtab.cpp" line="62"/>
        <source>MFU (%)</source>
        <translation>MFU（%）</translation>
    </message>
</context>
<context>
    <name>traindeck::launch::FailureInfo</name>
    <message>
        <location filename="../backend/launch/failure.cpp" line="88"/>
        <source>mpirun lost contact with %1 (the node went down, its Open MPI daemon was killed or the link to it was cut)</source>
        <translation>mpirun 与 %1 失去联系（节点宕机、其 Open MPI 守护进程被终止，或到它的链路被切断）</translation>
    </message>
    <message>
        <location filename="../backend/launch/failure.cpp" line="194"/>
        <source>the job on %1</source>
        <translation>%1 上的作业</translation>
    </message>
    <message>
        <location filename="../backend/launch/failure.cpp" line="196"/>
        <source>the job</source>
        <translation>作业</translation>
    </message>
    <message>
        <location filename="../backend/launch/failure.cpp" line="198"/>
        <source>rank %1</source>
        <translation>进程 %1</translation>
    </message>
    <message>
        <location filename="../backend/launch/failure.cpp" line="200"/>
        <source>rank %1 on %2</source>
        <translation>%2 上的进程 %1</translation>
    </message>
    <message>
        <location filename="../backend/launch/failure.cpp" line="203"/>
        <source>was killed by signal %1</source>
        <translation>被信号 %1 终止</translation>
    </message>
    <message>
        <location filename="../backend/launch/failure.cpp" line="204"/>
        <source>was killed by signal %1 (%2)</source>
        <translation>被信号 %1（%2）终止</translation>
    </message>
    <message>
        <location filename="../backend/launch/failure.cpp" line="206"/>
        <source>exited with code %1</source>
        <translation>以退出码 %1 退出</translation>
    </message>
    <message>
        <location filename="../backend/launch/failure.cpp" line="208"/>
        <source>failed (mpirun exit code %1)</source>
        <translation>失败（mpirun 退出码 %1）</translation>
    </message>
    <message>
        <location filename="../backend/launch/failure.cpp" line="210"/>
        <source>failed</source>
        <translation>失败</translation>
    </message>
</context>
<context>
    <name>traindeck::launch::JobSpec</name>
    <message>
        <location filename="../backend/launch/jobspec.cpp" line="120"/>
        <source>invalid JSON: %1</source>
        <translation>JSON 无效：%1</translation>
    </message>
    <message>
        <location filename="../backend/launch/jobspec.cpp" line="123"/>
        <source>expected a JSON object</source>
        <translation>应为 JSON 对象</translation>
    </message>
    <message>
        <location filename="../backend/launch/jobspec.cpp" line="133"/>
        <source>unknown key (expected one of %1)</source>
        <translation>未知键（应为以下之一：%1）</translation>
    </message>
    <message>
        <location filename="../backend/launch/jobspec.cpp" line="138"/>
        <source>expected an integer %1..%2</source>
        <translation>应为 %1..%2 之间的整数</translation>
    </message>
    <message>
        <location filename="../backend/launch/jobspec.cpp" line="144"/>
        <source>missing (expected %1)</source>
        <translation>缺失（应为 %1）</translation>
    </message>
    <message>
        <location filename="../backend/launch/jobspec.cpp" line="149"/>
        <location filename="../backend/launch/jobspec.cpp" line="251"/>
        <source>expected a non-empty string</source>
        <translation>应为非空字符串</translation>
    </message>
    <message>
        <location filename="../backend/launch/jobspec.cpp" line="155"/>
        <source>expected a profile name or file</source>
        <translation>应为配置名称或文件</translation>
    </message>
    <message>
        <location filename="../backend/launch/jobspec.cpp" line="164"/>
        <source>expected an object of NAME: &quot;value&quot;</source>
        <translation>应为 NAME: &quot;value&quot; 组成的对象</translation>
    </message>
    <message>
        <location filename="../backend/launch/jobspec.cpp" line="171"/>
        <source>not a valid environment variable name (letters, digits, _; not starting with a digit)</source>
        <translation>不是有效的环境变量名（字母、数字、_，且不以数字开头）</translation>
    </message>
    <message>
        <location filename="../backend/launch/jobspec.cpp" line="173"/>
        <location filename="../backend/launch/jobspec.cpp" line="200"/>
        <source>expected a string</source>
        <translation>应为字符串</translation>
    </message>
    <message>
        <location filename="../backend/launch/jobspec.cpp" line="182"/>
        <source>expected an object</source>
        <translation>应为对象</translation>
    </message>
    <message>
        <location filename="../backend/launch/jobspec.cpp" line="190"/>
        <source>expected an interface name or subnet list, e.g. &quot;eth0&quot; or &quot;10.0.0.0/24&quot;</source>
        <translation>应为接口名或子网列表，例如 &quot;eth0&quot; 或 &quot;10.0.0.0/24&quot;</translation>
    </message>
    <message>
        <location filename="../backend/launch/jobspec.cpp" line="197"/>
        <source>expected an array of strings</source>
        <translation>应为字符串数组</translation>
    </message>
    <message>
        <location filename="../backend/launch/jobspec.cpp" line="205"/>
        <source>unknown key (expected btl_tcp_if_include, oob_tcp_if_include or args)</source>
        <translation>未知键（应为 btl_tcp_if_include、oob_tcp_if_include 或 args）</translation>
    </message>
    <message>
        <location filename="../backend/launch/jobspec.cpp" line="212"/>
        <source>expected an object of trainer flags without dashes</source>
        <translation>应为不带短横线的训练程序参数组成的对象</translation>
    </message>
    <message>
        <location filename="../backend/launch/jobspec.cpp" line="229"/>
        <source>cannot read: %1</source>
        <translation>无法读取：%1</translation>
    </message>
    <message>
        <location filename="../backend/launch/jobspec.cpp" line="237"/>
        <source>no built-in job spec of this name</source>
        <translation>没有此名称的内置作业配置</translation>
    </message>
    <message>
        <location filename="../backend/launch/jobspec.cpp" line="249"/>
        <source>unsupported version %1 (expected %2)</source>
        <translation>不支持的版本 %1（应为 %2）</translation>
    </message>
    <message>
        <location filename="../backend/launch/jobspec.cpp" line="253"/>
        <source>longer than 200 characters</source>
        <translation>超过 200 个字符</translation>
    </message>
    <message>
        <location filename="../backend/launch/jobspec.cpp" line="255"/>
        <source>expected an integer 1..%1</source>
        <translation>应为 1..%1 之间的整数</translation>
    </message>
    <message>
        <location filename="../backend/launch/jobspec.cpp" line="258"/>
        <source>not a valid environment variable name</source>
        <translation>不是有效的环境变量名</translation>
    </message>
    <message>
        <location filename="../backend/launch/jobspec.cpp" line="264"/>
        <source>not a trainer flag name (write flags without the leading dashes, e.g. &quot;max-steps&quot;)</source>
        <translation>不是训练程序的参数名（请去掉开头的短横线，例如 &quot;max-steps&quot;）</translation>
    </message>
    <message>
        <location filename="../backend/launch/jobspec.cpp" line="268"/>
        <source>set by the launcher (the run directory&apos;s out/, metrics.jsonl and run id); remove it</source>
        <translation>由启动器设置（运行目录下的 out/、metrics.jsonl 和运行 ID）；请删除它</translation>
    </message>
    <message>
        <location filename="../backend/launch/jobspec.cpp" line="272"/>
        <source>unknown trainer flag (see traindeck-trainer train --help)</source>
        <translation>未知的训练程序参数（参见 traindeck-trainer train --help）</translation>
    </message>
    <message>
        <location filename="../backend/launch/jobspec.cpp" line="278"/>
        <source>expected a finite number</source>
        <translation>应为有限数值</translation>
    </message>
    <message>
        <location filename="../backend/launch/jobspec.cpp" line="281"/>
        <source>contains a NUL character</source>
        <translation>包含 NUL 字符</translation>
    </message>
    <message>
        <location filename="../backend/launch/jobspec.cpp" line="283"/>
        <source>expected a string, number or boolean</source>
        <translation>应为字符串、数字或布尔值</translation>
    </message>
</context>
<context>
    <name>traindeck::launch::LaunchPlan</name>
    <message>
        <location filename="../backend/launch/launchplan.cpp" line="36"/>
        <source>must be an absolute path</source>
        <translation>必须是绝对路径</translation>
    </message>
    <message>
        <location filename="../backend/launch/launchplan.cpp" line="38"/>
        <source>no trainer executable</source>
        <translation>没有训练程序可执行文件</translation>
    </message>
    <message>
        <location filename="../backend/launch/launchplan.cpp" line="40"/>
        <source>empty</source>
        <translation>为空</translation>
    </message>
    <message>
        <location filename="../backend/launch/launchplan.cpp" line="58"/>
        <source>a Slurm profile is launched through sbatch (no ranks via)</source>
        <translation>Slurm 配置通过 sbatch 启动（未指定进程启动方式）</translation>
    </message>
    <message>
        <location filename="../backend/launch/launchplan.cpp" line="62"/>
        <source>%1 does not match profile &apos;%2&apos; (%3 slots); leave ranks out for a cluster profile</source>
        <translation>%1 与配置 &apos;%2&apos;（%3 个槽位）不符；使用集群配置时请不要设置 ranks</translation>
    </message>
    <message>
        <location filename="../backend/launch/launchplan.cpp" line="91"/>
        <source>nodes have different slot counts: ranks are placed with --map-by slot</source>
        <translation>各节点槽位数不同：进程将以 --map-by slot 方式放置</translation>
    </message>
    <message>
        <location filename="../backend/launch/launchplan.cpp" line="129"/>
        <source>mpi-args (%1) are mpirun&apos;s options; ranks start with srun here, so they are not used (set &quot;ranks_via&quot;: &quot;mpirun&quot; in the profile)</source>
        <translation>mpi-args（%1）是 mpirun 的选项；此处进程由 srun 启动，因此不会使用它们（可在配置中设置 &quot;ranks_via&quot;: &quot;mpirun&quot;）</translation>
    </message>
    <message>
        <location filename="../backend/launch/launchplan.cpp" line="173"/>
        <source># ranks_via auto: srun --mpi=pmix when srun on the login node offers pmix, else mpirun;
# chosen when the job is submitted (shown here with mpirun).
</source>
        <translation># ranks_via auto：登录节点上的 srun 支持 pmix 时使用 srun --mpi=pmix，否则使用 mpirun；
# 在提交作业时选定（此处以 mpirun 显示）。
</translation>
    </message>
</context>
<context>
    <name>traindeck::launch::Launcher</name>
    <message>
        <location filename="../backend/launch/launcher.cpp" line="38"/>
        <source>%1 not found or not executable</source>
        <translation>%1 不存在或不可执行</translation>
    </message>
    <message>
        <location filename="../backend/launch/launcher.cpp" line="48"/>
        <source>%1 not found in PATH</source>
        <translation>PATH 中找不到 %1</translation>
    </message>
    <message>
        <location filename="../backend/launch/launcher.cpp" line="58"/>
        <source>%1 not found on %2</source>
        <translation>%2 上找不到 %1</translation>
    </message>
    <message>
        <location filename="../backend/launch/launcher.cpp" line="189"/>
        <source>Slurm job %1 was submitted but its record could not be written, so it was cancelled (scancel %1)</source>
        <translation>Slurm 作业 %1 已提交，但无法写入其记录，因此已取消（scancel %1）</translation>
    </message>
    <message>
        <location filename="../backend/launch/launcher.cpp" line="194"/>
        <source>Slurm job %1 was submitted but its record could not be written, and scancel %1 failed: it may still run; cancel it on %2 with scancel %1</source>
        <translation>Slurm 作业 %1 已提交，但无法写入其记录，且 scancel %1 失败：它可能仍在运行；请在 %2 上用 scancel %1 取消它</translation>
    </message>
    <message>
        <location filename="../backend/launch/launcher.cpp" line="210"/>
        <source>the start command reported an error (%1), but run %2 is running (pid %3)</source>
        <translation>启动命令报告了错误（%1），但运行 %2 已在进行中（pid %3）</translation>
    </message>
    <message>
        <location filename="../backend/launch/launcher.cpp" line="218"/>
        <source>whether run %1 started is not known (its run directory cannot be read); check with traindeck-cli runs --refresh before launching it again</source>
        <translation>无法确定运行 %1 是否已启动（无法读取其运行目录）；再次启动前请用 traindeck-cli runs --refresh 检查</translation>
    </message>
    <message>
        <location filename="../backend/launch/launcher.cpp" line="221"/>
        <source>run %1 did not start (no pid after 5 s)</source>
        <translation>运行 %1 未能启动（5 秒后仍没有 pid）</translation>
    </message>
    <message>
        <location filename="../backend/launch/launcher.cpp" line="237"/>
        <source>%1: traindeck-trainer not found or not executable on %2</source>
        <translation>%1：%2 上的 traindeck-trainer 不存在或不可执行</translation>
    </message>
    <message>
        <location filename="../backend/launch/launcher.cpp" line="256"/>
        <source>not found: set &quot;trainer&quot; in the cluster profile, put it beside traindeck-cli or in PATH on %1</source>
        <translation>未找到：请在集群配置中设置 &quot;trainer&quot;，或将其放在 traindeck-cli 旁边或 %1 的 PATH 中</translation>
    </message>
    <message>
        <location filename="../backend/launch/launcher.cpp" line="267"/>
        <source>not found on %1: install Open MPI (Debian: openmpi-bin) or set &quot;launcher&quot; in the profile</source>
        <translation>%1 上未找到：请安装 Open MPI（Debian：openmpi-bin），或在配置中设置 &quot;launcher&quot;</translation>
    </message>
    <message>
        <location filename="../backend/launch/launcher.cpp" line="353"/>
        <source>the head %1 cannot log in to %2 with `ssh -o BatchMode=yes %3` as mpirun will (%4); set up head → worker trust: traindeck-cli install-key --head-to-workers --profile FILE</source>
        <translation>主节点 %1 无法像 mpirun 那样用 `ssh -o BatchMode=yes %3` 登录 %2（%4）；请设置主节点 → 工作节点的信任：traindeck-cli install-key --head-to-workers --profile FILE</translation>
    </message>
    <message>
        <location filename="../backend/launch/launcher.cpp" line="358"/>
        <source>Open MPI&apos;s daemon (orted) is not on the PATH of a non-interactive SSH login on %1; install Open MPI there (Debian: openmpi-bin), the same version as on the head</source>
        <translation>在 %1 上，非交互式 SSH 登录的 PATH 中没有 Open MPI 守护进程（orted）；请在该节点安装与主节点相同版本的 Open MPI（Debian：openmpi-bin）</translation>
    </message>
    <message>
        <location filename="../backend/launch/launcher.cpp" line="362"/>
        <source>%1 is not on %2: copy it with traindeck-cli deploy --profile FILE --node %2</source>
        <translation>%2 上没有 %1：请用 traindeck-cli deploy --profile FILE --node %2 复制过去</translation>
    </message>
    <message>
        <location filename="../backend/launch/launcher.cpp" line="366"/>
        <source>%1 does not exist on %2, and every rank reads it: put it on a shared file system or copy it to the same path on every node</source>
        <translation>%2 上不存在 %1，而每个进程都要读取它：请把它放到共享文件系统上，或复制到每个节点的相同路径</translation>
    </message>
    <message>
        <location filename="../backend/launch/launcher.cpp" line="373"/>
        <source>%1 reports &quot;%2&quot; but the head&apos;s reports &quot;%3&quot;: every node must run the same build; copy the head&apos;s with traindeck-cli deploy --profile FILE --node %1</source>
        <translation>%1 报告的版本为“%2”，而主节点的为“%3”：每个节点必须运行同一构建；请用 traindeck-cli deploy --profile FILE --node %1 复制主节点的版本</translation>
    </message>
    <message>
        <location filename="../backend/launch/launcher.cpp" line="377"/>
        <source>unexpected answer from %1: %2</source>
        <translation>来自 %1 的意外应答：%2</translation>
    </message>
    <message numerus="yes">
        <location filename="../backend/launch/launcher.cpp" line="390"/>
        <source>%n more</source>
        <translation>
            <numerusform>另外 %n 个</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../backend/launch/launcher.cpp" line="392"/>
        <source>the check timed out after %1 s</source>
        <translation>检查在 %1 秒后超时</translation>
    </message>
    <message numerus="yes">
        <location filename="../backend/launch/launcher.cpp" line="395"/>
        <source>the worker check on the head did not answer for %n worker(s) of %1 (%2): %3</source>
        <translation>
            <numerusform>头节点上的工作节点检查有 %n 个工作节点（共 %1 个）没有回应（%2）：%3</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../backend/launch/launcher.cpp" line="423"/>
        <location filename="../backend/launch/remoterun.cpp" line="219"/>
        <source>the runs directory must be an absolute path</source>
        <translation>运行目录必须是绝对路径</translation>
    </message>
    <message>
        <location filename="../backend/launch/launcher.cpp" line="438"/>
        <source>no free run id for %1</source>
        <translation>找不到可用于 %1 的空闲运行 ID</translation>
    </message>
    <message>
        <location filename="../backend/launch/launcher.cpp" line="466"/>
        <source>cannot read the run record</source>
        <translation>无法读取运行记录</translation>
    </message>
    <message>
        <location filename="../backend/launch/launcher.cpp" line="471"/>
        <source>cannot read the run&apos;s Slurm job record: whether its job still runs is unknown; nothing was submitted, try again</source>
        <translation>无法读取该运行的 Slurm 作业记录：不知道其作业是否仍在运行；未提交任何内容，请重试</translation>
    </message>
    <message>
        <location filename="../backend/launch/launcher.cpp" line="476"/>
        <source>the run is still %1; cancel it first or wait for it to end</source>
        <translation>该运行仍处于%1状态；请先取消，或等待其结束</translation>
    </message>
    <message>
        <location filename="../backend/launch/launcher.cpp" line="478"/>
        <source>the run finished; there is nothing to resume</source>
        <translation>该运行已完成，无需恢复</translation>
    </message>
    <message>
        <location filename="../backend/launch/launcher.cpp" line="483"/>
        <source>no checkpoint to resume from (set trainer.checkpoint-every in the spec); launch it again instead</source>
        <translation>没有可用于恢复的检查点（请在配置中设置 trainer.checkpoint-every）；请重新启动它</translation>
    </message>
    <message>
        <location filename="../backend/launch/launcher.cpp" line="522"/>
        <source>another resume of this run is under way or has already started attempt %1 (%2 exists); follow it with traindeck-cli watch</source>
        <translation>该运行的另一次恢复正在进行，或已开始第 %1 次尝试（%2 已存在）；请用 traindeck-cli watch 跟踪它</translation>
    </message>
    <message>
        <location filename="../backend/launch/launcher.cpp" line="539"/>
        <source>cannot move the previous attempt&apos;s files: %1</source>
        <translation>无法移动上一次尝试的文件：%1</translation>
    </message>
    <message>
        <location filename="../backend/launch/launcher.cpp" line="572"/>
        <source>nothing was started and the run is as it was before this resume: resume it again once the cause is fixed</source>
        <translation>未启动任何内容，运行保持本次恢复之前的状态：排除原因后请再次恢复</translation>
    </message>
    <message>
        <location filename="../backend/launch/launcher.cpp" line="576"/>
        <source>nothing was started, but the run could not be put back as it was (%1): move the files of %2 back into the run directory, remove it and restore run.json&apos;s attempts to %3</source>
        <translation>未启动任何内容，但无法将运行还原（%1）：请把 %2 中的文件移回运行目录，删除它，并将 run.json 的 attempts 恢复为 %3</translation>
    </message>
    <message>
        <location filename="../backend/launch/launcher.cpp" line="591"/>
        <source>cannot read the run&apos;s Slurm job record, so there is no job to scancel; nothing was cancelled, try again</source>
        <translation>无法读取该运行的 Slurm 作业记录，因此没有可 scancel 的作业；未取消任何内容，请重试</translation>
    </message>
    <message>
        <location filename="../backend/launch/launcher.cpp" line="637"/>
        <source>cannot tell whether process group %1 on %2 is still the run&apos;s; nothing was signalled, try again</source>
        <translation>无法确定 %2 上的进程组 %1 是否仍属于该运行；未发送任何信号，请重试</translation>
    </message>
</context>
<context>
    <name>traindeck::launch::RankLog</name>
    <message>
        <location filename="../backend/launch/ranklogs.cpp" line="309"/>
        <source>rank %1</source>
        <translation>进程 %1</translation>
    </message>
    <message>
        <location filename="../backend/launch/ranklogs.cpp" line="325"/>
        <source>ranks %1 except %2</source>
        <translation>进程 %1，%2 除外</translation>
    </message>
    <message>
        <location filename="../backend/launch/ranklogs.cpp" line="327"/>
        <source>ranks %1</source>
        <translation>进程 %1</translation>
    </message>
</context>
<context>
    <name>traindeck::launch::RankLogModel</name>
    <message>
        <location filename="../backend/launch/ranklogmodel.cpp" line="136"/>
        <source>%1, line %2</source>
        <translation>%1，第 %2 行</translation>
    </message>
    <message>
        <location filename="../backend/launch/ranklogmodel.cpp" line="139"/>
        <source>ranks %1 on %2</source>
        <translation>%2 上的进程 %1</translation>
    </message>
    <message>
        <location filename="../backend/launch/ranklogmodel.cpp" line="155"/>
        <source>Source</source>
        <translation>来源</translation>
    </message>
    <message>
        <location filename="../backend/launch/ranklogmodel.cpp" line="156"/>
        <source>Message</source>
        <translation>消息</translation>
    </message>
</context>
<context>
    <name>traindeck::launch::RemoteRuns</name>
    <message>
        <location filename="../backend/launch/remoterun.cpp" line="55"/>
        <location filename="../backend/launch/remoterun.cpp" line="69"/>
        <source>cannot write the metrics mirror: %1</source>
        <translation>无法写入指标镜像：%1</translation>
    </message>
    <message>
        <location filename="../backend/launch/remoterun.cpp" line="193"/>
        <source>%1: only ~/ is understood here; write the work directory as ~/DIR or an absolute path</source>
        <translation>%1：此处只支持 ~/；请将工作目录写作 ~/目录 或绝对路径</translation>
    </message>
    <message>
        <location filename="../backend/launch/remoterun.cpp" line="199"/>
        <source>cannot resolve %1 on %2: $HOME is not an absolute path there (%3); set an absolute workdir in the profile</source>
        <translation>无法在 %2 上解析 %1：那里的 $HOME 不是绝对路径（%3）；请在配置中设置绝对路径的 workdir</translation>
    </message>
    <message>
        <location filename="../backend/launch/remoterun.cpp" line="201"/>
        <source>empty</source>
        <translation>为空</translation>
    </message>
    <message>
        <location filename="../backend/launch/remoterun.cpp" line="234"/>
        <source>run %1 was not started on %2: its local record could not be written: %3</source>
        <translation>运行 %1 未在 %2 上启动：无法写入其本地记录：%3</translation>
    </message>
    <message>
        <location filename="../backend/launch/remoterun.cpp" line="243"/>
        <source>the run&apos;s record is kept: traindeck-cli runs --refresh tells whether it runs</source>
        <translation>该运行的记录已保留：可用 traindeck-cli runs --refresh 查看它是否在运行</translation>
    </message>
    <message>
        <location filename="../backend/launch/remoterun.cpp" line="256"/>
        <source>a local run with this id already exists</source>
        <translation>已存在同一 ID 的本地运行</translation>
    </message>
    <message>
        <location filename="../backend/launch/remoterun.cpp" line="260"/>
        <source>cannot create the run&apos;s local record directory</source>
        <translation>无法创建该运行的本地记录目录</translation>
    </message>
    <message>
        <location filename="../backend/launch/remoterun.cpp" line="262"/>
        <source>a run with this id already exists here</source>
        <translation>此处已存在同一 ID 的运行</translation>
    </message>
    <message>
        <location filename="../backend/launch/remoterun.cpp" line="306"/>
        <location filename="../backend/launch/remoterun.cpp" line="340"/>
        <source>not the record of a remote run</source>
        <translation>不是远程运行的记录</translation>
    </message>
    <message>
        <location filename="../backend/launch/remoterun.cpp" line="313"/>
        <source>cannot read run %1 on %2: %3</source>
        <translation>无法读取 %2 上的运行 %1：%3</translation>
    </message>
    <message>
        <location filename="../backend/launch/remoterun.cpp" line="336"/>
        <source>the run&apos;s record is locked by another process</source>
        <translation>该运行的本地记录已被另一个进程锁定</translation>
    </message>
    <message>
        <location filename="../backend/launch/remoterun.cpp" line="427"/>
        <source>the record names no cluster profile</source>
        <translation>该记录未指明集群配置</translation>
    </message>
    <message>
        <location filename="../backend/launch/remoterun.cpp" line="443"/>
        <source>unreadable record of a remote run</source>
        <translation>远程运行的记录无法读取</translation>
    </message>
    <message>
        <location filename="../backend/launch/remoterun.cpp" line="455"/>
        <source>cannot reach the head node of run %1: %2</source>
        <translation>无法连接运行 %1 的头节点：%2</translation>
    </message>
</context>
<context>
    <name>traindeck::launch::RunDir</name>
    <message>
        <location filename="../backend/launch/rundir.cpp" line="349"/>
        <source>no run given</source>
        <translation>未指定运行</translation>
    </message>
    <message>
        <location filename="../backend/launch/rundir.cpp" line="359"/>
        <source>no such run (neither a run id under %1 nor a run directory); see traindeck-cli runs</source>
        <translation>没有该运行（既不是 %1 下的运行 ID，也不是运行目录）；参见 traindeck-cli runs</translation>
    </message>
</context>
<context>
    <name>traindeck::launch::RunMonitor</name>
    <message>
        <location filename="../backend/launch/runmonitor.cpp" line="224"/>
        <source>cannot write the metrics mirror %1: %2</source>
        <translation>无法写入指标镜像 %1：%2</translation>
    </message>
    <message>
        <location filename="../backend/launch/runmonitor.cpp" line="296"/>
        <source>%1 became shorter than what was read; it was replaced or truncated</source>
        <translation>%1 比已读取的部分短；文件已被替换或截断</translation>
    </message>
</context>
<context>
    <name>traindeck::launch::Slurm</name>
    <message>
        <location filename="../backend/launch/slurm.cpp" line="68"/>
        <source>job %1 </source>
        <translation>作业 %1 </translation>
    </message>
    <message>
        <location filename="../backend/launch/slurm.cpp" line="70"/>
        <source>unknown to Slurm</source>
        <translation>Slurm 不认识该作业</translation>
    </message>
    <message>
        <location filename="../backend/launch/slurm.cpp" line="80"/>
        <source>%1 on %2</source>
        <translation>%1，位于 %2</translation>
    </message>
    <message>
        <location filename="../backend/launch/slurm.cpp" line="341"/>
        <source>cannot ask Slurm on %1 about job %2: %3</source>
        <translation>无法在 %1 上向 Slurm 查询作业 %2：%3</translation>
    </message>
    <message>
        <location filename="../backend/launch/slurm.cpp" line="371"/>
        <source>the profile has no &quot;slurm&quot; section</source>
        <translation>该配置没有 &quot;slurm&quot; 部分</translation>
    </message>
    <message>
        <location filename="../backend/launch/slurm.cpp" line="387"/>
        <source>%1 not found on the login node %2: install Slurm&apos;s client commands there (Debian: slurm-client) or add their directory to &quot;path_prefix&quot;</source>
        <translation>登录节点 %2 上找不到 %1：请在那里安装 Slurm 客户端命令（Debian：slurm-client），或把其目录加入 &quot;path_prefix&quot;</translation>
    </message>
    <message>
        <location filename="../backend/launch/slurm.cpp" line="397"/>
        <source>sinfo failed on %1 (is slurmctld reachable?): %2</source>
        <translation>%1 上的 sinfo 失败（slurmctld 是否可达？）：%2</translation>
    </message>
    <message>
        <location filename="../backend/launch/slurm.cpp" line="411"/>
        <source>no partition &apos;%1&apos; on this cluster; sinfo on %2 lists: %3</source>
        <translation>该集群没有分区“%1”；%2 上的 sinfo 列出：%3</translation>
    </message>
    <message>
        <location filename="../backend/launch/slurm.cpp" line="424"/>
        <source>account &apos;%1&apos; cannot be checked: sacctmgr on %2 says &quot;%3&quot; (a cluster without an accounting database has no accounts; leave &quot;account&quot; empty there)</source>
        <translation>无法检查账户“%1”：%2 上的 sacctmgr 返回“%3”（没有记账数据库的集群没有账户；请将 &quot;account&quot; 留空）</translation>
    </message>
    <message>
        <location filename="../backend/launch/slurm.cpp" line="433"/>
        <source>unknown account &apos;%1&apos; (sacctmgr show account on %2 does not list it)</source>
        <translation>未知账户“%1”（%2 上的 sacctmgr show account 未列出它）</translation>
    </message>
    <message>
        <location filename="../backend/launch/slurm.cpp" line="463"/>
        <source>squeue on %1 failed: %2</source>
        <translation>%1 上的 squeue 失败：%2</translation>
    </message>
    <message>
        <location filename="../backend/launch/slurm.cpp" line="469"/>
        <source>%1 of your jobs on %2 are named %3 (%4)</source>
        <translation>您在 %2 上有 %1 个作业名为 %3（%4）</translation>
    </message>
    <message>
        <location filename="../backend/launch/slurm.cpp" line="475"/>
        <source>squeue on %1 answered no job id: %2</source>
        <translation>%1 上的 squeue 没有返回作业 ID：%2</translation>
    </message>
    <message>
        <location filename="../backend/launch/slurm.cpp" line="491"/>
        <source>gave no job id: %1</source>
        <translation>没有给出作业 ID：%1</translation>
    </message>
    <message>
        <location filename="../backend/launch/slurm.cpp" line="492"/>
        <source>refused the job: %1</source>
        <translation>拒绝了该作业：%1</translation>
    </message>
    <message>
        <location filename="../backend/launch/slurm.cpp" line="500"/>
        <source>sbatch on %1 %2; Slurm has this run&apos;s job %3 all the same (found by its name), which is followed</source>
        <translation>%1 上的 sbatch %2；但 Slurm 中仍有该运行的作业 %3（按名称找到），将继续跟踪它</translation>
    </message>
    <message>
        <location filename="../backend/launch/slurm.cpp" line="505"/>
        <source>sbatch on %1 %2</source>
        <translation>%1 上的 sbatch %2</translation>
    </message>
    <message>
        <location filename="../backend/launch/slurm.cpp" line="508"/>
        <source>sbatch on %1 %2; whether job %3 was submitted is not known; check with squeue --me -n %3 on %1</source>
        <translation>%1 上的 sbatch %2；不知道作业 %3 是否已提交；请在 %1 上用 squeue --me -n %3 检查</translation>
    </message>
    <message>
        <location filename="../backend/launch/slurm.cpp" line="521"/>
        <source>scancel %1 on %2 failed: %3</source>
        <translation>%2 上的 scancel %1 失败：%3</translation>
    </message>
</context>
<context>
    <name>traindeck::launch::Transport</name>
    <message>
        <location filename="../backend/launch/transport.cpp" line="175"/>
        <source>%1: unexpected answer while reading the run directory: %2</source>
        <translation>%1：读取运行目录时得到意外的回答：%2</translation>
    </message>
    <message>
        <location filename="../backend/launch/transport.cpp" line="179"/>
        <source>no start marker</source>
        <translation>没有开始标记</translation>
    </message>
    <message>
        <location filename="../backend/launch/transport.cpp" line="253"/>
        <source>no directory line</source>
        <translation>没有目录行</translation>
    </message>
    <message>
        <location filename="../backend/launch/transport.cpp" line="198"/>
        <source>cut short before %1</source>
        <translation>在 %1 之前被截断</translation>
    </message>
    <message>
        <location filename="../backend/launch/transport.cpp" line="212"/>
        <source>the bytes of %1 do not match their count (the file changed while it was read?)</source>
        <translation>%1 的字节数与声明的数量不符（文件在读取时被修改？）</translation>
    </message>
    <message>
        <location filename="../backend/launch/transport.cpp" line="226"/>
        <source>no pid</source>
        <translation>没有 pid</translation>
    </message>
    <message>
        <location filename="../backend/launch/transport.cpp" line="228"/>
        <source>no boot id</source>
        <translation>没有启动 ID</translation>
    </message>
    <message>
        <location filename="../backend/launch/transport.cpp" line="233"/>
        <source>no boot time</source>
        <translation>没有启动时间</translation>
    </message>
    <message>
        <location filename="../backend/launch/transport.cpp" line="238"/>
        <source>no start time</source>
        <translation>没有进程开始时间</translation>
    </message>
    <message>
        <location filename="../backend/launch/transport.cpp" line="245"/>
        <source>no liveness</source>
        <translation>没有存活检查结果</translation>
    </message>
    <message>
        <location filename="../backend/launch/transport.cpp" line="256"/>
        <source>no end marker</source>
        <translation>没有结束标记</translation>
    </message>
    <message>
        <location filename="../backend/launch/transport.cpp" line="275"/>
        <source>%1: cannot create the directory: %2</source>
        <translation>%1：无法创建目录：%2</translation>
    </message>
    <message>
        <location filename="../backend/launch/transport.cpp" line="290"/>
        <source>%1: cannot read the boot id (exit %2): %3</source>
        <translation>%1：无法读取 boot id（退出码 %2）：%3</translation>
    </message>
    <message>
        <location filename="../backend/launch/transport.cpp" line="325"/>
        <source>cannot start: %1</source>
        <translation>无法启动：%1</translation>
    </message>
    <message>
        <location filename="../backend/launch/transport.cpp" line="359"/>
        <source>no such script</source>
        <translation>没有该脚本</translation>
    </message>
    <message>
        <location filename="../backend/launch/transport.cpp" line="368"/>
        <source>setsid failed (exit %1): %2</source>
        <translation>setsid 失败（退出码 %1）：%2</translation>
    </message>
    <message>
        <location filename="../backend/launch/transport.cpp" line="376"/>
        <location filename="../backend/launch/transport.cpp" line="446"/>
        <source>cannot read: %1</source>
        <translation>无法读取：%1</translation>
    </message>
    <message>
        <location filename="../backend/launch/transport.cpp" line="382"/>
        <source>cannot seek to %1: %2</source>
        <translation>无法定位到 %1：%2</translation>
    </message>
    <message>
        <location filename="../backend/launch/transport.cpp" line="394"/>
        <location filename="../backend/launch/transport.cpp" line="430"/>
        <source>cannot create directory</source>
        <translation>无法创建目录</translation>
    </message>
    <message>
        <location filename="../backend/launch/transport.cpp" line="397"/>
        <source>cannot write: %1</source>
        <translation>无法写入：%1</translation>
    </message>
    <message>
        <location filename="../backend/launch/transport.cpp" line="435"/>
        <source>cannot create the directory: %1</source>
        <translation>无法创建目录：%1</translation>
    </message>
    <message>
        <location filename="../backend/launch/transport.cpp" line="523"/>
        <source>the head node %1 is remote and this build has no SSH transport yet; run traindeck-cli on the head node itself</source>
        <translation>主节点 %1 是远程主机，而此构建尚无 SSH 传输；请直接在主节点上运行 traindeck-cli</translation>
    </message>
</context>
<context>
    <name>traindeck::metrics::MetricStore</name>
    <message>
        <location filename="../backend/metrics/metricstore.cpp" line="68"/>
        <source>cannot create %1</source>
        <translation>无法创建 %1</translation>
    </message>
    <message>
        <location filename="../backend/metrics/metricstore.cpp" line="618"/>
        <source>cannot open: %1</source>
        <translation>无法打开：%1</translation>
    </message>
    <message>
        <location filename="../backend/metrics/metricstore.cpp" line="636"/>
        <source>cannot write: %1</source>
        <translation>无法写入：%1</translation>
    </message>
</context>
<context>
    <name>traindeck::metrics::MetricsParser</name>
    <message>
        <location filename="../backend/metrics/parser.cpp" line="285"/>
        <source>unexpected characters after the JSON object</source>
        <translation>JSON 对象之后有多余字符</translation>
    </message>
    <message>
        <location filename="../backend/metrics/parserrecords.cpp" line="137"/>
        <source>unsupported schema version</source>
        <translation>不支持的模式版本</translation>
    </message>
</context>
<context>
    <name>traindeck::metrics::MetricsParser::Private</name>
    <message>
        <location filename="../backend/metrics/parser.cpp" line="210"/>
        <source>line too long (%1 bytes, at most %2 allowed)</source>
        <translation>行过长（%1 字节，最多允许 %2）</translation>
    </message>
    <message>
        <location filename="../backend/metrics/parser.cpp" line="246"/>
        <location filename="../backend/metrics/parser.cpp" line="256"/>
        <location filename="../backend/metrics/parser.cpp" line="266"/>
        <source>not JSON: %1</source>
        <translation>不是 JSON：%1</translation>
    </message>
    <message>
        <location filename="../backend/metrics/parser.cpp" line="255"/>
        <source>not a JSON object</source>
        <translation>不是 JSON 对象</translation>
    </message>
    <message>
        <location filename="../backend/metrics/parser.cpp" line="263"/>
        <source>missing field &apos;type&apos;</source>
        <translation>缺少字段 &apos;type&apos;</translation>
    </message>
    <message>
        <location filename="../backend/metrics/parser.cpp" line="265"/>
        <source>field &apos;type&apos;: %1</source>
        <translation>字段 &apos;type&apos;：%1</translation>
    </message>
    <message>
        <location filename="../backend/metrics/parser.cpp" line="277"/>
        <source>not JSON</source>
        <translation>不是 JSON</translation>
    </message>
    <message>
        <location filename="../backend/metrics/parser.cpp" line="293"/>
        <source>missing field &apos;%1&apos;</source>
        <translation>缺少字段 &apos;%1&apos;</translation>
    </message>
    <message>
        <location filename="../backend/metrics/parser.cpp" line="297"/>
        <source>field &apos;%1&apos;: %2</source>
        <translation>字段 &apos;%1&apos;：%2</translation>
    </message>
</context>
<context>
    <name>traindeck::metrics::MetricsTailer</name>
    <message>
        <location filename="../backend/metrics/tailer.cpp" line="129"/>
        <source>cannot read %1: %2</source>
        <translation>无法读取 %1：%2</translation>
    </message>
</context>
<context>
    <name>traindeck::metrics::ParseIssue</name>
    <message>
        <location filename="../backend/metrics/records.cpp" line="28"/>
        <source>line %1 (byte offset %2): %3</source>
        <translation>第 %1 行（字节偏移 %2）：%3</translation>
    </message>
</context>
<context>
    <name>traindeck::runs::MemoryFit</name>
    <message>
        <location filename="../backend/runs/memoryfit.cpp" line="25"/>
        <source>Memory plan: %1 per rank; the nodes&apos; memory is not known yet (run the checks to compare).</source>
        <translation>内存规划：每个 rank %1；节点内存尚未知（运行检查以进行比较）。</translation>
    </message>
    <message>
        <location filename="../backend/runs/memoryfit.cpp" line="28"/>
        <source>Memory plan: %1 per rank fits in %2 (%3, checked %4).</source>
        <translation>内存规划：每个 rank %1，可放入 %2（%3，检查于 %4）。</translation>
    </message>
    <message>
        <location filename="../backend/runs/memoryfit.cpp" line="30"/>
        <source>Memory plan: %1 per rank does NOT fit in %2 (%3, checked %4).</source>
        <translation>内存规划：每个 rank %1，放不进 %2（%3，检查于 %4）。</translation>
    </message>
    <message>
        <location filename="../backend/runs/memoryfit.cpp" line="34"/>
        <source>No combination of --fused-loss, --recompute, --zero and a smaller --micro-batch fits: use more nodes or a smaller model.</source>
        <translation>--fused-loss、--recompute、--zero 与更小的 --micro-batch 的任何组合都放不下：请使用更多节点或更小的模型。</translation>
    </message>
    <message>
        <location filename="../backend/runs/memoryfit.cpp" line="36"/>
        <source>It would fit with: %1.</source>
        <translation>以下设置可以放下：%1。</translation>
    </message>
    <message>
        <location filename="../backend/runs/memoryfit.cpp" line="66"/>
        <source>the smallest GPU of %1 (%2)</source>
        <translation>%1 上最小的 GPU（%2）</translation>
    </message>
    <message numerus="yes">
        <location filename="../backend/runs/memoryfit.cpp" line="69"/>
        <source>RAM of %1 (%2) / %n rank(s)</source>
        <translation>
            <numerusform>%1 的内存（%2）/ %n 个 rank</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../backend/runs/memoryfit.cpp" line="107"/>
        <source>the memory plan did not finish: %1</source>
        <translation>内存规划未完成：%1</translation>
    </message>
    <message>
        <location filename="../backend/runs/memoryfit.cpp" line="112"/>
        <source>cannot plan the memory: %1</source>
        <translation>无法规划内存：%1</translation>
    </message>
    <message>
        <location filename="../backend/runs/memoryfit.cpp" line="121"/>
        <source>the memory plan&apos;s output is not understood: %1</source>
        <translation>无法理解内存规划的输出：%1</translation>
    </message>
    <message numerus="yes">
        <location filename="../backend/runs/memoryfit.cpp" line="123"/>
        <source>Memory per rank (%n rank(s), traindeck-trainer plan):</source>
        <translation>
            <numerusform>每个 rank 的内存（%n 个 rank，traindeck-trainer plan）：</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../backend/runs/memoryfit.cpp" line="135"/>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
</context>
<context>
    <name>traindeck::runs::Operations</name>
    <message>
        <location filename="../backend/runs/operations.cpp" line="35"/>
        <source>job specs must not hold secrets (tokens, passwords, keys): they would be stored in the run directory; set it in the environment of the nodes instead (e.g. a file read by the login shell)</source>
        <translation>作业配置中不得保存机密（令牌、密码、密钥）：它们会被保存到运行目录中；请改为在节点的环境中设置（例如登录 shell 读取的文件）</translation>
    </message>
    <message>
        <location filename="../backend/runs/operations.cpp" line="50"/>
        <source>-x %1=... puts a secret into the run directory and mpirun&apos;s command line; export it on the nodes instead and pass only its name (-x %1)</source>
        <translation>-x %1=... 会把机密写入运行目录和 mpirun 的命令行；请改为在节点上导出它，并只传递其名称（-x %1）</translation>
    </message>
    <message>
        <location filename="../backend/runs/operations.cpp" line="57"/>
        <source>--mca %1 looks like it carries a secret, which would be stored in the run directory; set it in the nodes&apos; environment (OMPI_MCA_%1) instead</source>
        <translation>--mca %1 看起来携带机密，它会被保存到运行目录中；请改为在节点的环境中设置（OMPI_MCA_%1）</translation>
    </message>
    <message>
        <location filename="../backend/runs/operations.cpp" line="68"/>
        <source>enter a learning rate between 0 and 10, e.g. 3e-4</source>
        <translation>请输入 0 到 10 之间的学习率，例如 3e-4</translation>
    </message>
    <message>
        <location filename="../backend/runs/operations.cpp" line="74"/>
        <source>choose a JSONL or text file, or a directory of them</source>
        <translation>请选择 JSONL 或文本文件，或包含它们的目录</translation>
    </message>
    <message>
        <location filename="../backend/runs/operations.cpp" line="77"/>
        <source>%1 does not exist (the demo corpus is made by scripts/setup-deps.sh)</source>
        <translation>%1 不存在（演示语料由 scripts/setup-deps.sh 生成）</translation>
    </message>
    <message>
        <location filename="../backend/runs/operations.cpp" line="80"/>
        <source>%1 is not a file</source>
        <translation>%1 不是文件</translation>
    </message>
    <message>
        <location filename="../backend/runs/operations.cpp" line="85"/>
        <source>choose a model directory (config.json, *.safetensors) or a preset</source>
        <translation>请选择模型目录（config.json、*.safetensors）或预设</translation>
    </message>
    <message>
        <location filename="../backend/runs/operations.cpp" line="87"/>
        <source>%1 has no config.json</source>
        <translation>%1 中没有 config.json</translation>
    </message>
    <message>
        <location filename="../backend/runs/operations.cpp" line="93"/>
        <source>%1 (build it: cmake --build build --target traindeck-trainer)</source>
        <translation>%1（请构建它：cmake --build build --target traindeck-trainer）</translation>
    </message>
    <message>
        <location filename="../backend/runs/operations.cpp" line="213"/>
        <source>%1 on %2: %3</source>
        <translation>%2 上的 %1：%3</translation>
    </message>
</context>
<context>
    <name>traindeck::ssh::ExecResult</name>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="118"/>
        <source>exit code %1</source>
        <translation>退出码 %1</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="120"/>
        <source>killed by signal %1%2</source>
        <translation>被信号 %1 终止%2</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="120"/>
        <source> (core dumped)</source>
        <translation>（已转储核心）</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="121"/>
        <source>timed out after %1 ms</source>
        <translation>%1 ms 后超时</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="122"/>
        <source>cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="125"/>
        <source>failed</source>
        <translation>失败</translation>
    </message>
</context>
<context>
    <name>traindeck::ssh::HostKeyInfo</name>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="86"/>
        <source>The host key of %1 (%2 %3) is known.</source>
        <translation>%1 的主机密钥（%2 %3）是已知的。</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="89"/>
        <source>The authenticity of host %1 cannot be established: it is not in %2.
Its %3 key fingerprint is %4.
Compare it with the fingerprint the administrator gives you (on the host: ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub) before you accept it.</source>
        <translation>无法确认主机 %1 的真实性：它不在 %2 中。
其 %3 密钥指纹为 %4。
接受之前，请与管理员提供的指纹核对（在该主机上运行：ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub）。</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="97"/>
        <source>WARNING: the host key of %1 does not match the one recorded in %2.
Someone could be intercepting the connection (a man-in-the-middle attack), or the host was reinstalled and got a new key.
The host now offers a %3 key with fingerprint %4.
TrainDeck refuses to connect. After you have verified the new fingerprint with the administrator, remove the old key with:
  ssh-keygen -R &apos;%1&apos; -f &apos;%2&apos;
and connect again to accept the new one.</source>
        <translation>警告：%1 的主机密钥与 %2 中记录的不一致。
可能有人在拦截连接（中间人攻击），也可能该主机重装后生成了新密钥。
该主机现在提供的 %3 密钥指纹为 %4。
TrainDeck 拒绝连接。与管理员核实新指纹后，用以下命令删除旧密钥：
  ssh-keygen -R &apos;%1&apos; -f &apos;%2&apos;
然后重新连接以接受新密钥。</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="110"/>
        <source>The host key of %1 could not be checked against %2.</source>
        <translation>无法对照 %2 检查 %1 的主机密钥。</translation>
    </message>
</context>
<context>
    <name>traindeck::ssh::LocalRunner</name>
    <message>
        <location filename="../backend/ssh/commandrunner.cpp" line="80"/>
        <source>local: cannot start /bin/sh: %1</source>
        <translation>本地：无法启动 /bin/sh：%1</translation>
    </message>
    <message>
        <location filename="../backend/ssh/commandrunner.cpp" line="118"/>
        <source>local: cancelled</source>
        <translation>本地：已取消</translation>
    </message>
    <message>
        <location filename="../backend/ssh/commandrunner.cpp" line="125"/>
        <source>local: the command did not finish within %1 s</source>
        <translation>本地：命令未在 %1 秒内完成</translation>
    </message>
</context>
<context>
    <name>traindeck::ssh::SshConnection</name>
    <message>
        <location filename="../backend/ssh/sshconnection.cpp" line="90"/>
        <source>cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshconnection.cpp" line="93"/>
        <source>%1: not connected</source>
        <translation>%1：未连接</translation>
    </message>
</context>
<context>
    <name>traindeck::ssh::SshKeys</name>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="37"/>
        <source>%1: cannot create: %2</source>
        <translation>%1：无法创建：%2</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="53"/>
        <location filename="../backend/ssh/sshkeys.cpp" line="202"/>
        <source>%1: cannot write: %2</source>
        <translation>%1：无法写入：%2</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="64"/>
        <source>%1: cannot create the directory</source>
        <translation>%1：无法创建该目录</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="66"/>
        <source>%1: cannot set mode 0700</source>
        <translation>%1：无法将权限设为 0700</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="70"/>
        <source>%1: not a directory</source>
        <translation>%1：不是目录</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="73"/>
        <source>%1: readable by others and cannot be set to mode 0700</source>
        <translation>%1：其他用户可读，且无法将权限设为 0700</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="142"/>
        <source>invalid key file name &apos;%1&apos;</source>
        <translation>无效的密钥文件名 &apos;%1&apos;</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="144"/>
        <source>the key comment may not contain a newline</source>
        <translation>密钥注释中不能包含换行</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="148"/>
        <source>an empty passphrase cannot encrypt the key; give a passphrase, or none for an unencrypted key</source>
        <translation>空密码短语无法加密密钥；请提供密码短语，或不设密码短语以生成未加密的密钥</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="162"/>
        <source>%1 exists; choose another name or overwrite it explicitly</source>
        <translation>%1 已存在；请另选名称，或明确选择覆盖</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="169"/>
        <source>cannot generate an ED25519 key</source>
        <translation>无法生成 ED25519 密钥</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="180"/>
        <source>cannot export the private key</source>
        <translation>无法导出私钥</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="188"/>
        <source>cannot export the public key</source>
        <translation>无法导出公钥</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="213"/>
        <location filename="../backend/ssh/sshkeys.cpp" line="596"/>
        <source>%1: cannot read: %2</source>
        <translation>%1：无法读取：%2</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="217"/>
        <source>%1: this is a private key; give the .pub file</source>
        <translation>%1：这是私钥；请提供 .pub 文件</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="230"/>
        <source>%1: not an OpenSSH public key (expected a line such as &apos;ssh-ed25519 AAAA... comment&apos;)</source>
        <translation>%1：不是 OpenSSH 公钥（应为形如 &apos;ssh-ed25519 AAAA... comment&apos; 的一行）</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="264"/>
        <source>key login already works</source>
        <translation>密钥登录已可用</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="265"/>
        <source>key added, key login verified</source>
        <translation>密钥已添加，密钥登录已验证</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="266"/>
        <source>key was already authorized, key login verified</source>
        <translation>密钥此前已授权，密钥登录已验证</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="286"/>
        <source>no private key beside the public key (%1) to prove the key login with</source>
        <translation>公钥旁没有私钥（%1），无法验证密钥登录</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="287"/>
        <source>none given</source>
        <translation>未提供</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="320"/>
        <source>the key does not work yet and no password was given</source>
        <translation>密钥尚不可用，且未提供密码</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="327"/>
        <source>key installed, but the key login could not be verified</source>
        <translation>密钥已安装，但无法验证密钥登录</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="337"/>
        <source>not a valid public key line</source>
        <translation>不是有效的公钥行</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="345"/>
        <source>%1: installing the key failed (%2): %3</source>
        <translation>%1：安装密钥失败（%2）：%3</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="354"/>
        <source>%1: unexpected answer while installing the key: %2</source>
        <translation>%1：安装密钥时收到意外的应答：%2</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="369"/>
        <source>%1: the key was installed but logging in with %2 failed: %3
Check the permissions of ~/.ssh (0700) and ~/.ssh/authorized_keys (0600) on the node, and the server&apos;s AuthorizedKeysFile.</source>
        <translation>%1：密钥已安装，但使用 %2 登录失败：%3
请检查节点上 ~/.ssh（0700）和 ~/.ssh/authorized_keys（0600）的权限，以及服务器的 AuthorizedKeysFile 设置。</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="378"/>
        <source>%1: key login works but running a command failed: %2</source>
        <translation>%1：密钥登录成功，但运行命令失败：%2</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="386"/>
        <source>the profile has no nodes</source>
        <translation>该配置没有节点</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="388"/>
        <source>%1 nodes chosen of %2</source>
        <translation>选择了 %1 个节点（共 %2 个）</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="390"/>
        <source>no node is chosen</source>
        <translation>未选择任何节点</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="394"/>
        <location filename="../backend/ssh/sshkeys.cpp" line="473"/>
        <source>the profile has no head node</source>
        <translation>该配置没有主节点</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="398"/>
        <source>head -&gt; workers needs every node of the profile; %1 is left out</source>
        <translation>头节点 → 工作节点需要配置中的每个节点；%1 未被选中</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="440"/>
        <source>cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="446"/>
        <source>skipped: not every node accepts the key</source>
        <translation>已跳过：并非所有节点都接受该密钥</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="461"/>
        <source>the key is on %1 of %2 node(s); %3 step(s) failed</source>
        <translation>密钥已在 %2 个节点中的 %1 个上；%3 个步骤失败</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="482"/>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="514"/>
        <source>%1: cannot create or read the head&apos;s key (%2): %3</source>
        <translation>%1：无法创建或读取主节点的密钥（%2）：%3</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="526"/>
        <source>%1: the head&apos;s public key could not be read</source>
        <translation>%1：无法读取主节点的公钥</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="527"/>
        <source>%1: created ~/.ssh/%2 (%3)</source>
        <translation>%1：已创建 ~/.ssh/%2（%3）</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="527"/>
        <source>%1: using ~/.ssh/%2 (%3)</source>
        <translation>%1：使用 ~/.ssh/%2（%3）</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="530"/>
        <source>%1: added &apos;IdentityFile ~/.ssh/id_ed25519_traindeck&apos; to ~/.ssh/config (id_ed25519 has a passphrase)</source>
        <translation>%1：已在 ~/.ssh/config 中添加 &apos;IdentityFile ~/.ssh/id_ed25519_traindeck&apos;（id_ed25519 设有密码短语）</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="539"/>
        <source>%1: authorized the head&apos;s key</source>
        <translation>%1：已授权主节点的密钥</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="540"/>
        <source>%1: the head&apos;s key was already authorized</source>
        <translation>%1：主节点的密钥此前已获授权</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="549"/>
        <source>%1: no verified host key</source>
        <translation>%1：没有已核验的主机密钥</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="563"/>
        <source>%1: the head&apos;s ~/.ssh/known_hosts holds a different %2 key for %3 than this machine verified (%4). This may be an attack or a reinstalled node; check it and remove the old line on the head with: ssh-keygen -R &apos;%3&apos;</source>
        <translation>%1：主节点的 ~/.ssh/known_hosts 中记录的 %3 的 %2 密钥与本机核验的（%4）不同。这可能是攻击，也可能是节点已重装；请核实后在主节点上用以下命令删除旧记录：ssh-keygen -R &apos;%3&apos;</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="569"/>
        <source>%1: cannot update ~/.ssh/known_hosts (%2): %3</source>
        <translation>%1：无法更新 ~/.ssh/known_hosts（%2）：%3</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="571"/>
        <source>%1: added the host key of %2 (%3) to ~/.ssh/known_hosts</source>
        <translation>%1：已将 %2 的主机密钥（%3）加入 ~/.ssh/known_hosts</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="572"/>
        <source>%1: the host key of %2 (%3) was already known</source>
        <translation>%1：%2 的主机密钥（%3）此前已知</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="585"/>
        <source>%1: `%2` still fails (%3): %4</source>
        <translation>%1：`%2` 仍然失败（%3）：%4</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="587"/>
        <source>%1: passwordless SSH to %2 works</source>
        <translation>%1：到 %2 的免密 SSH 可用</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="599"/>
        <source>%1: cannot read</source>
        <translation>%1：无法读取</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="610"/>
        <source>%1: copying %2 to %3 failed (%4): %5</source>
        <translation>%1：将 %2 复制到 %3 失败（%4）：%5</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshkeys.cpp" line="616"/>
        <source>%1: %2 arrived damaged (sha256 %3, expected %4)</source>
        <translation>%1：%2 传输后已损坏（sha256 %3，应为 %4）</translation>
    </message>
</context>
<context>
    <name>traindeck::ssh::SshSession</name>
    <message>
        <location filename="../backend/ssh/sshexec.cpp" line="360"/>
        <location filename="../backend/ssh/sshsession.cpp" line="210"/>
        <location filename="../backend/ssh/sshsession.cpp" line="392"/>
        <location filename="../backend/ssh/sshsession.cpp" line="444"/>
        <source>%1: cancelled</source>
        <translation>%1：已取消</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="212"/>
        <source>invalid host name &apos;%1&apos;</source>
        <translation>无效的主机名 &apos;%1&apos;</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="216"/>
        <source>%1: cannot create an SSH session</source>
        <translation>%1：无法创建 SSH 会话</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="229"/>
        <source>%1: cannot parse the SSH configuration %2: %3</source>
        <translation>%1：无法解析 SSH 配置 %2：%3</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="288"/>
        <source>%1 (port %2)</source>
        <translation>%1（端口 %2）</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="298"/>
        <source>%1: no answer within %2 s (%3)</source>
        <translation>%1：%2 秒内无应答（%3）</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="300"/>
        <source>Check that the host is up, that sshd listens on port %1 and that no firewall drops the connection.</source>
        <translation>请检查主机是否在线、sshd 是否监听端口 %1，以及是否有防火墙丢弃连接。</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="304"/>
        <source>%1: cannot resolve the host name (%2)</source>
        <translation>%1：无法解析主机名（%2）</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="305"/>
        <source>Check the spelling, /etc/hosts or DNS, or use the IP address.</source>
        <translation>请检查拼写、/etc/hosts 或 DNS，或改用 IP 地址。</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="306"/>
        <source>%1: cannot connect: %2</source>
        <translation>%1：无法连接：%2</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="307"/>
        <source>Check that the host is up and that sshd listens on port %1.</source>
        <translation>请检查主机是否在线，以及 sshd 是否监听端口 %1。</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="345"/>
        <source>%1: the server sent no host key</source>
        <translation>%1：服务器没有发送主机密钥</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="370"/>
        <source>%1: HOST KEY CHANGED, refusing to connect (this may be an attack)</source>
        <translation>%1：主机密钥已变更，拒绝连接（可能是攻击）</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="375"/>
        <source>%1: the host offers a %2 key but another type is recorded, refusing to connect (this may be an attack)</source>
        <translation>%1：主机提供的是 %2 密钥，但记录的是另一种类型，拒绝连接（可能是攻击）</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="385"/>
        <source>%1: cannot check the host key against %2: %3</source>
        <translation>%1：无法对照 %2 检查主机密钥：%3</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="395"/>
        <source>%1: unknown host key %2 %3 was not accepted</source>
        <translation>%1：未接受未知主机密钥 %2 %3</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="407"/>
        <source>%1: cannot add the host key to %2: %3</source>
        <translation>%1：无法将主机密钥加入 %2：%3</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshexec.cpp" line="230"/>
        <location filename="../backend/ssh/sshsession.cpp" line="418"/>
        <source>%1: not connected</source>
        <translation>%1：未连接</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="431"/>
        <source>%1: authentication failed: %2</source>
        <translation>%1：身份验证失败：%2</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="451"/>
        <source>keys (agent: %1, identity: %2)</source>
        <translation>密钥（代理：%1，身份文件：%2）</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="452"/>
        <source>yes</source>
        <translation>是</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="452"/>
        <source>no</source>
        <translation>否</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="453"/>
        <source>defaults</source>
        <translation>默认</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="459"/>
        <source>%1: authentication failed (server offers: %2; tried: %3)</source>
        <translation>%1：身份验证失败（服务器支持：%2；已尝试：%3）</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="461"/>
        <location filename="../backend/ssh/sshsession.cpp" line="462"/>
        <source>nothing</source>
        <translation>无</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="463"/>
        <source>Install your public key on the node (traindeck-cli install-key, or ssh-copy-id), or name the right private key in the profile&apos;s &quot;identity&quot;.</source>
        <translation>请把你的公钥安装到节点上（traindeck-cli install-key 或 ssh-copy-id），或在配置的 &quot;identity&quot; 中指定正确的私钥。</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshsession.cpp" line="514"/>
        <source>Password for %1:</source>
        <translation>%1 的密码：</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshexec.cpp" line="263"/>
        <source>%1: cannot open a channel: %2</source>
        <translation>%1：无法打开通道：%2</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshexec.cpp" line="273"/>
        <source>%1: cannot open a session channel: %2</source>
        <translation>%1：无法打开会话通道：%2</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshexec.cpp" line="293"/>
        <source>%1: cannot start the command: %2</source>
        <translation>%1：无法启动命令：%2</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshexec.cpp" line="367"/>
        <source>%1: the command did not finish within %2 s</source>
        <translation>%1：命令未在 %2 秒内完成</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshexec.cpp" line="244"/>
        <source>%1: connection lost while the command ran: %2</source>
        <translation>%1：命令运行期间连接中断：%2</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshexec.cpp" line="246"/>
        <source>The node did not answer for %1 s (keepalive). Check the network and whether the node is up.</source>
        <translation>节点 %1 秒内无响应（keepalive）。请检查网络以及节点是否在线。</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshexec.cpp" line="414"/>
        <source>%1: the command ended without an exit status</source>
        <translation>%1：命令结束时没有退出状态</translation>
    </message>
</context>
<context>
    <name>traindeck::ssh::SshTransport</name>
    <message>
        <location filename="../backend/ssh/sshtransport.cpp" line="99"/>
        <source>After verifying the fingerprint, accept the key with `traindeck-cli check --profile PROFILE --accept-new-host-keys` (or connect once with ssh(1) and answer yes).</source>
        <translation>核对指纹后，用 `traindeck-cli check --profile PROFILE --accept-new-host-keys` 接受该密钥（或用 ssh(1) 连接一次并回答 yes）。</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshtransport.cpp" line="176"/>
        <source>%1: cannot start detached (exit %2): %3</source>
        <translation>%1：无法以分离方式启动（退出码 %2）：%3</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshtransport.cpp" line="204"/>
        <source>%1: cannot read: %2</source>
        <translation>%1：无法读取：%2</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshtransport.cpp" line="212"/>
        <source>%1: cannot read: unexpected answer from the head node</source>
        <translation>%1：无法读取：头节点返回了意外的应答</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshtransport.cpp" line="237"/>
        <source>%1: cannot write: %2</source>
        <translation>%1：无法写入：%2</translation>
    </message>
    <message>
        <location filename="../backend/ssh/sshtransport.cpp" line="290"/>
        <source>%1: cannot read the run directory: %2</source>
        <translation>%1：无法读取运行目录：%2</translation>
    </message>
</context>
</TS>
