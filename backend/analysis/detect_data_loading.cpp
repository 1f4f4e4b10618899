#include "analysis/detector.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace traindeck::analysis::detectors {

// ---- input pipeline -------------------------------------------------------------------------

void dataLoading(const Context& c, QList<Finding>& out)
{
    static constexpr RankMetric kData = RankMetric::Data;
    std::vector<double> share;
    share.reserve(size_t(c.r1 - c.r0));
    for (qint64 row = c.r0; row < c.r1; ++row) {
        const double st = c.stepMs(row);
        share.push_back(st > 0 ? c.medianOverRanks(row, &kData) / st : kNaN);
    }
    if (share.empty())
        return;
    const MedianTest test = medianAbove(share, c.o.dataShareWarning, 0.005);
    const double medShare = test.median;
    std::vector<qint64> stalls;
    for (size_t i = 0; i < share.size(); ++i)
        if (share[i] >= c.o.stallShare)
            stalls.push_back(c.r0 + qint64(i));

    if (medShare >= c.o.dataShareWarning) {
        Finding f = c.make(FindingKind::DataLoading);
        f.severity = medShare >= c.o.dataShareCritical ? Severity::Critical : Severity::Warning;
        f.firstStep = qint64(c.step(c.r0));
        f.lastStep = qint64(c.step(c.r1 - 1));
        std::vector<double> d, st;
        for (qint64 row = c.r0; row < c.r1; ++row) {
            d.push_back(c.medianOverRanks(row, &kData));
            st.push_back(c.stepMs(row));
        }
        f.addEvidence(QStringLiteral("data_share_pct"), medShare * 100);
        f.addEvidence(QStringLiteral("data_ms"), median(d));
        f.addEvidence(QStringLiteral("step_ms"), median(st));
        f.addEvidence(QStringLiteral("confidence_pct"), test.confidence * 100);
        if (test.samples >= c.o.verdictMinSteps && test.confidence >= c.o.verdictConfidence) {
            f.summary = tr("The input pipeline takes %1% of every step on all ranks (%2% confidence that it is above "
                           "%3%)")
                            .arg(pct(medShare), confidenceText(test.confidence), pct(c.o.dataShareWarning));
        } else {
            f.severity = Severity::Info;
            f.state = FindingState::Tentative;
            f.summary = tr("The input pipeline may take %1% of every step: not enough evidence yet (%n step(s))",
                           nullptr, test.samples)
                            .arg(pct(medShare));
        }
        f.recommendation = tr("Ranks spend %1% of each step waiting for data. Add data loader workers or prefetching, "
                              "pre-tokenize the corpus, and keep it on local disk instead of a network file system.")
                               .arg(pct(medShare));
        out.append(f);
    } else if (int(stalls.size()) >= c.o.stallMinCount) {
        Finding f = c.make(FindingKind::DataLoading);
        f.severity = Severity::Warning;
        f.firstStep = qint64(c.step(stalls.front()));
        f.lastStep = qint64(c.step(stalls.back()));
        // Which ranks stall: those above the stall share in at least half of the stall steps.
        std::vector<int> hits(size_t(c.n), 0);
        std::vector<double> stallMs;
        for (qint64 row : stalls) {
            const double st = c.stepMs(row);
            stallMs.push_back(c.medianOverRanks(row, &kData));
            for (int k = 0; k < c.n; ++k)
                hits[size_t(k)] += c.rank(RankMetric::Data, k, row) >= c.o.stallShare * st;
        }
        QList<int> ranks;
        for (int k = 0; k < c.n; ++k)
            if (hits[size_t(k)] * 2 >= int(stalls.size()))
                ranks.append(k);
        if (int(ranks.size()) == c.n)
            ranks.clear(); // job-wide
        Finding g = c.make(FindingKind::DataLoading, ranks);
        g.severity = f.severity;
        g.firstStep = f.firstStep;
        g.lastStep = f.lastStep;
        g.addEvidence(QStringLiteral("stalls"), double(stalls.size()));
        g.addEvidence(QStringLiteral("stall_data_ms"), median(stallMs));
        g.addEvidence(QStringLiteral("steps"), double(c.r1 - c.r0));
        g.addEvidence(QStringLiteral("data_share_pct"), medShare * 100);
        g.summary =
            tr("The input pipeline stalled %1 times (about %2 ms each)").arg(stalls.size()).arg(ms(median(stallMs)));
        g.recommendation =
            tr("Training paused on input %1 times. Increase the data loader's prefetch depth or number of workers, "
               "and check for periodic slow reads (shard boundaries, a network file system, page cache eviction).")
                .arg(stalls.size());
        out.append(g);
    }
}

} // namespace traindeck::analysis::detectors
