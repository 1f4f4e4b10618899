// Where gradients live between backward and the optimizer, how they are averaged over ranks, and with
// --zero 1 which range of each bucket this rank's optimizer owns (ZeRO-1: the optimizer state sharded).
#pragma once

#include "dist/communicator.h"
#include "train/adamw.h"
#include "train/zero.h"

#include <torch/torch.h>

#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace traindeck::train {

// Gradients travel in fused buckets of about --bucket-mb, filled in reverse parameter order (the order
// in which backward produces them). Every parameter's .grad is a view into its bucket, so backward
// accumulates straight into the buffer the allreduce sends: no copies in or out (PyTorch DDP's
// gradient_as_bucket_view). On CUDA the MPI backend needs host memory: `host` is a pinned staging copy
// (NCCL reduces `flat` where it is).
struct Bucket {
    std::vector<torch::Tensor> params;
    std::vector<torch::Tensor> views; // views[i]: params[i]'s gradient inside `flat`
    torch::Tensor flat;
    torch::Tensor host;
    // --zero 1: each rank's element count, this rank's range [shardBegin, shardBegin + counts[rank]) of
    // `flat` (`shard`), and the receive buffer of the reduce-scatter.
    std::vector<int64_t> counts;
    int64_t shardBegin = 0;
    torch::Tensor shard, received;
};

class GradientBuckets {
  public:
    // `params` and `names` in the model's order. stageOnHost: the communicator needs host memory.
    GradientBuckets(const std::vector<torch::Tensor>& params, const std::vector<std::string>& names, double bucketMb,
                    const torch::Device& device, bool stageOnHost, dist::Communicator& comm, dist::WireType wire,
                    int zero);

    // A single process without compression has nothing to exchange.
    bool hasGradientsToExchange() const { return world_ > 1 || wire_ != dist::WireType::None; }
    // Each bucket's parameters, in bucket order (for the overlapped allreduce's hooks).
    std::vector<std::vector<torch::Tensor>> parameterGroups() const;

    // Backward adds into existing gradients in place; should anything have replaced a .grad tensor, its
    // values go back into the bucket and the view is restored.
    void reattachViews();
    // One bucket's allreduce and average (the same call with or without --overlap, so both give the same bits).
    void reduce(size_t index);
    // Every bucket, on the calling thread.
    void reduceAll();
    int64_t bytesSent() const;
    // Unscales the gradients by the loss scale, clips them to `clip` (0: off); returns their norm before
    // clipping. --zero 1: only each rank's shards hold averaged gradients; the norm adds their squares over ranks.
    double unscaleAndClip(double lossScale, double clip);
    // --zero 1 after the optimizer step: every rank's updated shard to every rank.
    void allgatherParameters();
    void zeroGradients();

    // --zero 1: this rank's range of every bucket and an optimizer over just those elements (emplaced into
    // `optimizer`). On resume rank 0 reads the checkpoint's state (memory-mapped) bucket by bucket and
    // broadcasts it; each rank keeps its range, so the state is re-sharded for any world size and no rank
    // holds all of it.
    void shardOptimizer(const std::string& resumeDir, std::optional<AdamW>& optimizer);
    // The optimizer state a checkpoint holds, every parameter whole (only rank 0's answer counts):
    // sharded, every rank's pieces are gathered at rank 0 bucket by bucket; every rank must call this.
    std::vector<std::pair<std::string, torch::Tensor>> optimizerStateForCheckpoint(AdamW& optimizer);

  private:
    const std::string& nameOf(const torch::Tensor& param) const;

    dist::Communicator& comm_;
    const dist::WireType wire_;
    const int zero_, world_, rank_;
    std::vector<Bucket> buckets_;
    std::vector<std::vector<ShardPiece>> zeroPieces_;    // --zero 1: this rank's pieces, per bucket
    std::unordered_map<const void*, std::string> names_; // by the parameter's TensorImpl
};

} // namespace traindeck::train
