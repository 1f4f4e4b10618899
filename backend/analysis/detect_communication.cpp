#include "analysis/detector.h"

#include <QSet>
#include <algorithm>
#include <cmath>
#include <vector>

namespace traindeck::analysis::detectors {

// ---- communication --------------------------------------------------------------------------

// The capacity the comm-bound verdict compares with: the slowest link the profile's link test measured
// between two hosts of this run (a ring allreduce runs at its slowest link), else options.linkGBps.

namespace {

struct LinkCapacity {
    double gbps = 0;
    QString hostA, hostB, measuredAt; // empty when it is options.linkGBps
};

LinkCapacity linkCapacity(const Context& c)
{
    QSet<QString> hosts;
    for (int k = 0; k < c.n; ++k)
        if (!c.s.hostOf(k).isEmpty())
            hosts.insert(c.s.hostOf(k));
    LinkCapacity slowest;
    for (const MeasuredLink& l : c.o.measuredLinks)
        if (l.gbps > 0 && l.hostA != l.hostB && hosts.contains(l.hostA) && hosts.contains(l.hostB) &&
            (slowest.gbps == 0 || l.gbps < slowest.gbps))
            slowest = {l.gbps, l.hostA, l.hostB, l.measuredAt};
    if (slowest.gbps == 0)
        slowest.gbps = std::max(0.0, c.o.linkGBps);
    return slowest;
}

} // namespace

void commBound(const Context& c, QList<Finding>& out)
{
    if (c.n < 2)
        return;
    std::vector<double> share, transfer, steps, wait, bytes, busbw;
    for (qint64 row = c.r0; row < c.r1; ++row) {
        const double t = Diagnosis::transferMs(c.s, row);
        const double st = c.stepMs(row);
        if (!std::isfinite(t) || !(st > 0))
            continue;
        share.push_back(t / st);
        transfer.push_back(t);
        steps.push_back(st);
        double w = 0;
        for (int k = 0; k < c.n; ++k) // the wait is comm - transfer; the transfer once per row, not per rank
            w += c.rank(RankMetric::Comm, k, row) - t;
        wait.push_back(w / c.n);
        static constexpr RankMetric kBytes = RankMetric::CommBytes;
        const double b = c.medianOverRanks(row, &kBytes);
        bytes.push_back(b);
        if (std::isfinite(b) && t > 0)
            busbw.push_back(b / (t / 1000.0) * 2.0 * (c.n - 1) / c.n / 1e9);
    }
    const MedianTest test = medianAbove(share, c.o.commShareWarning, 0.005);
    const double medShare = test.median;
    if (!(medShare >= c.o.commShareWarning))
        return;
    Finding f = c.make(FindingKind::CommBound);
    f.severity = medShare >= c.o.commShareCritical ? Severity::Critical : Severity::Warning;
    const bool sure = test.samples >= c.o.verdictMinSteps && test.confidence >= c.o.verdictConfidence;
    if (!sure) {
        f.severity = Severity::Info;
        f.state = FindingState::Tentative;
    }
    f.firstStep = qint64(c.step(c.r0));
    f.lastStep = qint64(c.step(c.r1 - 1));
    const double bw = median(busbw);
    f.addEvidence(QStringLiteral("transfer_share_pct"), medShare * 100);
    f.addEvidence(QStringLiteral("transfer_ms"), median(transfer));
    f.addEvidence(QStringLiteral("step_ms"), median(steps));
    f.addEvidence(QStringLiteral("wait_ms"), median(wait));
    f.addEvidence(QStringLiteral("comm_bytes"), median(bytes));
    f.addEvidence(QStringLiteral("busbw_gb_per_s"), bw);
    f.addEvidence(QStringLiteral("world_size"), c.n);
    const LinkCapacity link = linkCapacity(c);
    // How sure the allreduce stays below half the link: the per-step utilisation's median tested
    // against 50 % as the transfer share is (the link itself is not the bottleneck then).
    MedianTest belowHalf;
    if (link.gbps > 0) {
        std::vector<double> unused;
        for (double b : busbw)
            unused.push_back(1.0 - b / link.gbps);
        belowHalf = medianAbove(unused, 0.5, 0.005);
        f.addEvidence(QStringLiteral("link_gb_per_s"), link.gbps);
        f.addEvidence(QStringLiteral("link_utilisation_pct"), bw / link.gbps * 100);
        f.addEvidence(QStringLiteral("below_half_link_confidence_pct"), belowHalf.confidence * 100);
    }
    f.addEvidence(QStringLiteral("confidence_pct"), test.confidence * 100);
    f.summary = sure ? tr("Gradient transfer takes %1% of each step (%2% confidence that it is above %3%)")
                           .arg(pct(medShare), confidenceText(test.confidence), pct(c.o.commShareWarning))
                     : tr("Gradient transfer may take %1% of each step: not enough evidence yet (%n step(s))", nullptr,
                          test.samples)
                           .arg(pct(medShare));
    const QString linkName =
        link.hostA.isEmpty() ? tr("the link's")
                             : tr("the link %1–%2's (link test of %3)").arg(link.hostA, link.hostB, link.measuredAt);
    if (link.gbps > 0 && std::isfinite(bw) && belowHalf.confidence >= c.o.verdictConfidence) {
        f.recommendation =
            tr("The allreduce reaches %1 GB/s bus bandwidth, only %2% of %3 %4 GB/s (%5% confidence that it stays "
               "below half). Check which transport NCCL uses (NCCL_DEBUG=INFO: InfiniBand/RoCE rather than TCP "
               "sockets), the network interface it picked (NCCL_SOCKET_IFNAME), and MTU and link speed on every "
               "host.")
                .arg(QString::number(bw, 'f', 2), pct(bw / link.gbps), linkName, QString::number(link.gbps, 'f', 2),
                     confidenceText(belowHalf.confidence));
    } else if (link.gbps > 0 && std::isfinite(bw)) {
        f.recommendation =
            tr("The allreduce uses %1% of %2 %3 GB/s (%4 GB/s bus bandwidth): the link is the limit. Send less per "
               "step: raise gradient accumulation or the per-rank batch, reduce gradients in bf16, or use a faster "
               "interconnect.")
                .arg(pct(bw / link.gbps), linkName, QString::number(link.gbps, 'f', 2), QString::number(bw, 'f', 2));
    } else {
        f.recommendation =
            tr("Achieved allreduce bus bandwidth is %1 GB/s; compare it with the link (e.g. 100 Gbit/s = 12.5 GB/s). "
               "Raise gradient accumulation or the per-rank batch so that each step computes more per byte sent, "
               "and check the NCCL transport with NCCL_DEBUG=INFO.")
                .arg(std::isfinite(bw) ? QString::number(bw, 'f', 2) : QStringLiteral("?"));
    }
    out.append(f);
}

} // namespace traindeck::analysis::detectors
