// The figures the telemetry reports: what each rank tells rank 0 at start-up (RankInfo) and after every
// step (StepStats), and what it knows of its device. The records themselves are written by
// writeHello/reportStep (run.h).
#pragma once

#include "train/rank_zero.h"

#include <torch/torch.h>

#include <string>

namespace traindeck::train {

// A rank as rank 0 learns it at start-up: for the hello's rank list (the memory it can use, host RAM or
// the GPU's memory, is for the memory-pressure diagnosis) and the run's total peak FLOP/s (for MFU).
struct RankInfo : Gathered<RankInfo> {
    double localRank = 0, pid = 0, memoryTotalMb = 0, peakFlops = 0;
    double optimizerMb = 0; // the optimizer state this rank holds (1/world of it with --zero 1)

    struct Field {
        const char* name;
        double RankInfo::*member;
    };
    static constexpr Field fields[] = {{"local_rank", &RankInfo::localRank},
                                       {"pid", &RankInfo::pid},
                                       {"mem_total_mb", &RankInfo::memoryTotalMb},
                                       {"peak_flops", &RankInfo::peakFlops},
                                       {"optimizer_mb", &RankInfo::optimizerMb}};
};

// One rank's figures for one optimizer step. Counts are doubles too: they travel in the same gather.
struct StepStats : Gathered<StepStats> {
    // commMs: the allreduce time on the critical path (all of it without --overlap); commHiddenMs: the
    // part that ran during backward.
    double dataMs = 0, fwdMs = 0, bwdMs = 0, commMs = 0, commHiddenMs = 0, optMs = 0, stepMs = 0;
    double memMb = 0, util = 0;
    double commBytes = 0;
    double loss = 0; // mean over the micro-steps
    double tokens = 0;
    double samples = 0; // sequences this rank trained on (its share of the global batch)

    // How the step record shows a field: an array with one value per rank under the field's name, or
    // combined over the ranks (reportStep: the mean loss, the total tokens).
    enum Shown { PerRank, PerRankInteger, Combined };
    struct Field {
        const char* name;
        double StepStats::*member;
        Shown shown;
    };
    // The per-rank arrays appear in the step record in this order.
    static constexpr Field fields[] = {{"data_ms", &StepStats::dataMs, PerRank},
                                       {"fwd_ms", &StepStats::fwdMs, PerRank},
                                       {"bwd_ms", &StepStats::bwdMs, PerRank},
                                       {"comm_ms", &StepStats::commMs, PerRank},
                                       {"comm_hidden_ms", &StepStats::commHiddenMs, PerRank},
                                       {"opt_ms", &StepStats::optMs, PerRank},
                                       {"step_ms", &StepStats::stepMs, PerRank},
                                       {"mem_mb", &StepStats::memMb, PerRank},
                                       {"util", &StepStats::util, PerRank},
                                       {"comm_bytes", &StepStats::commBytes, PerRankInteger},
                                       {"samples", &StepStats::samples, PerRankInteger},
                                       {"loss", &StepStats::loss, Combined},
                                       {"tokens", &StepStats::tokens, Combined}};
};

// What the telemetry says about a rank's device.
struct DeviceTelemetry {
    std::string label; // "cpu" or "cuda:0|NVIDIA H200" (the name after '|')
    std::string pciBusId;
    double memoryTotalMb = 0;
    double peakFlops = 0;
    std::string peakSource; // "measured fp32 matmul", "datasheet NVIDIA H200 bf16", ...
};

// A CUDA device is identified through the driver (name, PCI bus id for NVML); its peak comes from the
// datasheet table, else from a matmul measured on it in the training dtype. CPU ranks measure matmul
// throughput (fp32, or bf16 under bf16 autocast) with the BLAS core the trainer uses.
DeviceTelemetry describeDevice(const torch::Device& device, const std::string& precision);

// GPU utilisation (NVML: share of time a kernel ran) and this process's GPU memory, where NVML answers;
// the CPU figures stay otherwise.
void sampleGpu(const DeviceTelemetry& device, double& utilPercent, double& memMb);

} // namespace traindeck::train
