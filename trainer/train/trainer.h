// `traindeck-trainer train`: Horovod-style data-parallel training of a Qwen2 model.
#pragma once

#include "dist/communicator.h"
#include "train/options.h"

namespace traindeck::train {

// The exit code after a stop on SIGUSR1 (a checkpoint at the step boundary, resumable): EX_TEMPFAIL.
constexpr int kStoppedExitCode = 75;

// Runs training; returns the process exit code (0 finished, kStoppedExitCode stopped on SIGUSR1).
// Throws InputError / RuntimeFailure.
int runTraining(const TrainOptions& options, dist::Communicator& comm);

std::string rngStateHex();
void restoreRngState(const std::string& hex);

// Measured dense fp32 matmul throughput of this process (FLOP/s), used as the CPU peak for MFU.
double measureMatmulPeak(int size = 1024, int repeats = 5);

// Training FLOPs per token: 6N plus attention (12 * layers * hidden * seq_len), as in PaLM's MFU.
double flopsPerToken(int64_t parameters, int64_t layers, int64_t hidden, int64_t seqLen);

} // namespace traindeck::train
