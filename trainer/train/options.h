// Options of `traindeck-trainer train`, from flags and/or --config FILE.json (flags win). Every value is
// validated before any rank starts work.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace traindeck::train {

struct InjectDelay {
    int rank = -1;
    double ms = 0;
    std::string phase = "forward"; // data | forward | backward | optimizer
};

// A rank that stops moving for a while at one step and phase (the stall inspector's test aid).
struct InjectStall {
    int rank = -1;
    int64_t step = 1;
    double seconds = 0;
    std::string phase = "data"; // data | forward | backward | allreduce (inside the collective) | optimizer
};

struct TrainOptions {
    std::string modelDir, preset;
    std::string tokenizer;
    std::string data;
    std::string textField = "text";
    std::string batchMode = "pack";
    std::string cacheDir;
    int64_t seqLen = 128;
    int64_t microBatch = 4;
    int64_t gradAccum = 1;
    double lr = 3e-4;
    double minLr = -1; // default lr / 10
    int64_t warmup = 10;
    int64_t maxSteps = 0;
    int64_t epochs = 0;
    double weightDecay = 0.1;
    double clip = 1.0;
    uint64_t seed = 1234;
    double initStd = -1; // default: the config's initializer_range
    std::string precision = "fp32";
    std::string device = "auto"; // auto | cpu | cuda | cuda:N
    std::string compression = "none";
    double bucketMb = 25;
    std::string comm = "auto";      // auto | mpi | nccl: the library of the gradient collectives
    double collectiveTimeout = 600; // seconds an NCCL collective may take before the job is aborted (0: no limit)
    bool overlap = true;            // allreduce buckets during backward (on a communication thread)
    int zero = 0;                   // 1: optimizer state sharded over the ranks (ZeRO-1)
    bool fusedLoss = true;          // output layer + cross-entropy in chunks of tokens (model/fused_loss.h)
    int64_t lossChunk = 0;          // tokens per chunk of the fused loss (0: automatic)
    bool recomputeLayers = false;   // --recompute layers: decoder layers recompute activations in backward
    bool scaleLr = false;           // multiply lr by the world size (Horovod's linear scaling)
    int64_t checkpointEvery = 0;
    int64_t keep = 3;
    std::string out = "traindeck-out";
    std::string resume; // "latest" or a checkpoint directory
    std::string metricsOut;
    bool metricsStdout = false;
    int threads = 0; // 0: LibTorch's default
    int64_t logEvery = 1;
    int prefetch = 4;
    std::string balance = "off";        // off | auto: shift samples toward faster ranks
    int64_t balanceEvery = 10;          // steps between rebalancing decisions
    std::vector<int64_t> balanceShares; // test aid: fixed samples per rank per micro-step
    double stallWarning = 60;           // seconds at one step and phase before rank 0 names the ranks (0: off)
    double stallAbort = 0;              // seconds of stall before the job is aborted (0: never)
    std::optional<InjectDelay> injectDelay;
    // --inject-slowdown RANK:FACTOR: that rank's forward and backward take FACTOR times as long (it sleeps
    // (FACTOR - 1) x their measured time), so its delay grows with the samples it gets, like a slower node's.
    std::optional<std::pair<int, double>> injectSlowdown;
    std::optional<InjectStall> injectStall;
    std::optional<std::pair<int, int64_t>> injectExit; // rank, step
    std::optional<std::pair<int, int64_t>> injectNan;  // rank, step: that rank's loss becomes NaN
    std::string runId;
    // Test aids: seed each rank's initialisation differently, and check parameter checksums across
    // ranks before/after the start-up broadcast and at the end.
    bool initSeedPerRank = false;
    bool verifySync = false;

    nlohmann::json toJson() const; // for the hello record and the config hash
};

// Parses the flags after "train"; throws InputError with one message naming the flag or key.
TrainOptions parseTrainOptions(const std::vector<std::string>& args);
std::string trainUsage();

} // namespace traindeck::train
