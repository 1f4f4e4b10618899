// --balance: how many samples of the global micro-batch each rank takes (its share), and with
// --balance auto the shares moved toward each rank's measured speed every --balance-every steps.
// The arithmetic is in balance.h; this owns the shares and the timings they are decided from.
#pragma once

#include "data/dataset.h"
#include "dist/communicator.h"
#include "train/options.h"
#include "train/step_report.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <vector>

namespace traindeck::train {

class Rebalancer {
  public:
    // Takes --balance and --balance-shares; throws InputError when the shares do not fit the job.
    Rebalancer(const TrainOptions& options, dist::Communicator& comm);

    bool active() const { return !shares_.empty(); }
    // Samples per rank per micro-step; empty when every rank takes --micro-batch of its own stream.
    const std::vector<int64_t>& shares() const { return shares_; }
    // A resumed run keeps its last split (unless --balance-shares names one).
    void resumeFrom(const nlohmann::json& trainerState);
    // This rank's part of the loader's global stream; nullopt when not balancing.
    std::optional<data::BalancedSplit> split() const;
    // A balanced rank's loss counts by its share of the global batch, so the averaged gradient is the mean
    // over all samples of the step, whatever the split.
    double lossWeight() const;
    // After each step's report: rank 0 records each rank's time per sample (data, forward and backward:
    // the work that grows with the samples); every --balance-every steps it proposes a split from their
    // medians, taken when it promises more than the timings' noise (timingNoise, at least 5 %); every rank
    // takes it and the loader re-splits its stream.
    void afterStep(const std::vector<StepStats>& ranks, int64_t step, int64_t maxSteps, data::DataLoader& loader,
                   int64_t epoch, int64_t position);

  private:
    bool coversTheBatch(const std::vector<int64_t>& shares) const;

    const TrainOptions& o_;
    dist::Communicator& comm_;
    const int world_, rank_;
    std::vector<int64_t> shares_;
    std::vector<std::vector<double>> msPerSample_; // rank 0: each rank's time per sample since the last decision
    // The first step of the run and the first at a new split are not timings of the split: a rank whose
    // batch grew allocates and faults in its larger tensors then (2-4 s here against a 0.8 s step).
    bool firstStepOfSplit_ = true;
};

} // namespace traindeck::train
