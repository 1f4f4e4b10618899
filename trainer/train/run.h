// The training run's units and what they share (internal to traindeck-trainer's `train`):
//   run_setup.cpp       everything before the first step, in an order every rank follows
//   step.cpp            one optimizer step: micro-steps, gradient exchange, the optimizer
//   step_report.cpp     the hello and step records (figures gathered at rank 0)
//   rebalancer.cpp      --balance: samples per rank, moved toward each rank's speed
//   gradient_buckets.cpp  the gradients' buckets, their allreduce, ZeRO-1's shards
//   phase_hooks.cpp     the stall inspector's marks and the --inject-* test aids, at phase boundaries
//   run_checkpoint.cpp  trainer state, checkpoints, the resume point
//   trainer.cpp         the loop, the stop signal, the `done` record
#pragma once

#include "data/dataset.h"
#include "dist/communicator.h"
#include "model/qwen2.h"
#include "telemetry/metrics_writer.h"
#include "tokenizer/tokenizer.h"
#include "train/adamw.h"
#include "train/gradient_buckets.h"
#include "train/loss_scaler.h"
#include "train/options.h"
#include "train/overlap.h"
#include "train/phase_hooks.h"
#include "train/rebalancer.h"
#include "train/step_report.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace traindeck::train {

using Clock = std::chrono::steady_clock;
inline double msSince(Clock::time_point t)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

// The run's `done` record, written once by whichever end comes first: finished, stopped on SIGUSR1,
// failed, or aborted by the stall inspector on its own thread.
class DoneRecord {
  public:
    explicit DoneRecord(Clock::time_point started) : started_(started) {}
    void write(telemetry::MetricsWriter* metrics, const char* status, int64_t steps);

  private:
    const Clock::time_point started_;
    std::atomic<bool> written_{false};
};

// Where a resumed run continues; an empty dir for a fresh run.
struct ResumePoint {
    std::string dir;               // rank 0's checkpoint directory
    nlohmann::json state;          // its trainer_state.json; null for a fresh run
    nlohmann::ordered_json config; // its config.json, on the other ranks only (the model's shapes)
};

// What setup builds and the steps use, declared in the order setup builds it (and destroyed in reverse).
// The parts with state of their own own it: the buckets, the balancer, the phase hooks.
struct TrainingRun {
    TrainingRun(const TrainOptions& options, dist::Communicator& communicator,
                std::unique_ptr<telemetry::MetricsWriter>& metricsWriter, DoneRecord& doneRecord)
        : o(options), comm(communicator), metrics(metricsWriter), done(doneRecord), rank(comm.rank()),
          world(comm.size()), lead(rank == 0), balancer(options, communicator), hooks(options, communicator)
    {
    }

    const TrainOptions& o;
    dist::Communicator& comm;
    // Both belong to runTraining: rank 0's metrics writer (from writeHello on) and the run's end.
    std::unique_ptr<telemetry::MetricsWriter>& metrics;
    DoneRecord& done;
    const int rank, world;
    const bool lead;

    torch::Device device{torch::kCPU};
    // The rank's GPU is the current device for the whole run, so nothing creates a context on GPU 0 from
    // every rank of a node.
    c10::OptionalDeviceGuard deviceGuard;

    std::string tokenizerPath;
    std::unique_ptr<tok::Tokenizer> tokenizer; // null: bytes
    std::vector<std::string> tokenizerFiles;   // copied into every checkpoint
    ResumePoint resume;

    model::Qwen2ForCausalLM net{nullptr};
    std::vector<torch::Tensor> params;
    std::vector<std::string> paramNames; // same order as params
    std::optional<AdamW> optimizer;      // --zero 1: over this rank's shard of every bucket only
    std::optional<data::DataLoader> loader;
    Rebalancer balancer;

    int64_t maxSteps = 0;
    double peakLr = 0, minLr = 0;
    std::optional<GradientBuckets> buckets;
    std::unique_ptr<OverlappedAllreduce> overlap; // --overlap on with something to exchange; after `buckets`
    LossScaler scaler{false};

    DeviceTelemetry deviceInfo;
    double peakFlopsAllRanks = 0; // rank 0 only
    double tokenFlops = 0;

    // The last finished step, and the data position after it.
    int64_t step = 0, epoch = 0, position = 0;

    // Last, so that the stall inspector's thread ends first.
    PhaseHooks hooks;
};

// run_setup.cpp
void setup(TrainingRun& run);
// Sum of all parameters: equal on every rank iff they hold the same model (for tests); rank 0's answer.
bool ranksInSync(TrainingRun& run);

// step.cpp: what a step leaves for its report.
struct StepResult {
    StepStats stats;
    double gradNorm = 0;
    double lr = 0;
    double lossScale = 1; // the scale this step's loss was multiplied by
};
StepResult runStep(TrainingRun& run);

// step_report.cpp
void writeHello(TrainingRun& run);
std::vector<StepStats> reportStep(TrainingRun& run, const StepResult& result);

// run_checkpoint.cpp
ResumePoint readResumePoint(const TrainOptions& o, dist::Communicator& comm);
void writeCheckpoint(TrainingRun& run, int64_t atStep);

} // namespace traindeck::train
