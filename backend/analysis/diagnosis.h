// Diagnosis of a MetricStore (the records of docs/reference/metrics-protocol.md).
//
// In synchronous allreduce a fast rank waits inside the collective for the slowest one, so raw
// comm time blames the wrong ranks. Per step, transfer = the smallest comm time over ranks, and each
// rank's wait = its comm time - transfer. Stragglers are ranks whose compute (fwd+bwd+opt) or data
// time is persistently above the median of the other ranks over a sliding window, by a margin the
// noise measured in that window cannot explain (docs/users/diagnosis.md).
#pragma once

#include "analysis/finding.h"
#include "metrics/metricstore.h"

#include <vector>

namespace traindeck::analysis {

// One link the profile's link test measured (one-way bandwidth between two hosts, as the ranks name them).
struct MeasuredLink {
    QString hostA, hostB;
    double gbps = 0;
    QString measuredAt; // when the link test ran (ISO date), shown in the evidence
};

struct DiagnosisOptions {
    // Analyse only steps in [fromStep, toStep] (-1: from the first / to the last).
    qint64 fromStep = -1;
    qint64 toStep = -1;

    // Straggler (docs/users/diagnosis.md): a rank's excess over the other ranks' median, as a share of the
    // step, tested over a trailing window of up to `window` steps against the noise measured in it.
    int window = 30;
    int stragglerMinSteps = 10;         // no verdict on fewer steps
    double stragglerMinEffect = 0.07;   // smallest excess worth a finding (share of the step)
    double stragglerAlpha = 2e-8;       // chance per step that noise alone raises a finding (whole job):
                                        // each rank's z must pass the (1 - alpha/ranks) normal quantile
    double stragglerTentativeZ = 2.0;   // ... below that: "not enough evidence yet"
    double stragglerNoiseFloor = 0.005; // smallest noise assumed (share of the step): timer resolution
    int stragglerResolveSteps = 10;     // resolved when the median of this many steps < half the effect
    double stragglerCritical = 0.30;    // job slowdown for critical severity
    qint64 stragglerSteps = 0;          // only the last this many steps of the range (0: all; live views)

    // Job-wide verdicts (communication, input share) need this many steps and this one-sided
    // confidence that the median share is above the threshold; below, they are tentative.
    int verdictMinSteps = 3;
    double verdictConfidence = 0.99;

    // Communication: transfer share of the step; link speed for the busbw comparison (GB/s, 0 =
    // unknown; 100 Gbit/s Ethernet = 12.5 GB/s). The slowest measured link between two of the run's
    // hosts counts (a ring allreduce runs at its slowest link); linkGBps when none joins them.
    double commShareWarning = 0.25;
    double commShareCritical = 0.50;
    double linkGBps = 0;
    QList<MeasuredLink> measuredLinks;

    // Input pipeline: data share of the step (median rank), and single stalls.
    double dataShareWarning = 0.10;
    double dataShareCritical = 0.30;
    double stallShare = 0.30; // a step where the median rank's data time is >= this share
    int stallMinCount = 3;

    // Memory: share of capacity (needs mem_total_mb in hello), growth between first and last window.
    double memWarning = 0.90;
    double memCritical = 0.97;
    double memGrowth = 0.25;

    // Loss: blocks of lossWindow steps; spike = above the previous block's median by spikeRelative
    // and spikeMad robust deviations; divergence = a block median >= divergenceFactor x best.
    int lossWindow = 50;
    double spikeRelative = 0.25;
    double spikeMad = 6.0;
    double divergenceFactor = 1.3;

    // Throughput: last driftWindow steps against the driftWindow steps after warmupSteps.
    int warmupSteps = 10;
    int driftWindow = 50;
    double driftWarning = 0.15;
    double driftCritical = 0.30;

    // Scaling efficiency = useful compute share of the step (or tokens/s / (N x single-rank tokens/s)
    // when singleRankTokensPerS is given). Reported below efficiencyInfo.
    double efficiencyInfo = 0.85;
    double efficiencyWarning = 0.70;
    double efficiencyCritical = 0.50;
    double singleRankTokensPerS = 0;
};

class Diagnosis {
  public:
    // All findings, most severe first.
    static QList<Finding> analyze(const metrics::MetricStore& store, const DiagnosisOptions& options = {});

    // Per-step building blocks (NaN where not measured), for views.
    static double transferMs(const metrics::MetricStore& store, qint64 row); // min comm over ranks
    static double transferMs(const std::vector<float>& comm); // of a row's comm values (MetricStore::rankRow)
    static double waitMs(const metrics::MetricStore& store, qint64 row, int rank);    // comm - transfer
    static double computeMs(const metrics::MetricStore& store, qint64 row, int rank); // fwd+bwd+opt
    // The z a rank's mean excess (winsorized) must reach to raise a straggler among `ranks` ranks: the normal
    // quantile of 1 - alpha / ranks, and beyond 8 ranks of 1 - alpha / ranks x (8 / ranks)^2 (diagnosis.cpp).
    static double stragglerZ(const DiagnosisOptions& options, int ranks);
};

} // namespace traindeck::analysis
