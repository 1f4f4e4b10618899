// Training samples from a token cache, in one of two batch modes:
//  - pack (default): documents joined by EOS and cut into seq_len blocks, labels = inputs;
//  - pad: one document per sample, truncated to seq_len (the recipe's max_length), padded with the pad
//    id, labels -100 on padding.
#pragma once

#include "data/sampler.h"
#include "data/token_cache.h"

// ATen's Tensor class only, not torch/torch.h: the suites that include this compile without LibTorch's
// precompiled header (docs/contributors/testing.md, "Compile time").
#include <ATen/core/Tensor.h>

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace traindeck::data {

enum class BatchMode { Pack, Pad };
BatchMode parseBatchMode(const std::string& name); // "pack" | "pad"; throws InputError

class TokenDataset {
  public:
    TokenDataset(std::shared_ptr<TokenCache> cache, BatchMode mode, int64_t seqLen); // throws InputError
    int64_t size() const { return size_; }
    int64_t seqLen() const { return seqLen_; }
    // Writes seqLen ids and labels of sample i.
    void sample(int64_t i, int64_t* ids, int64_t* labels) const;

  private:
    std::shared_ptr<TokenCache> cache_;
    BatchMode mode_;
    int64_t seqLen_;
    int64_t size_ = 0;
};

struct Batch {
    at::Tensor inputIds, labels; // [B, T] int64
    int64_t epoch = 0;
    int64_t positionAfter = 0; // samples of this rank's epoch consumed after this batch
    int64_t tokens = 0;        // label tokens that count toward the loss (not -100)
};

// How the global batch is split in balanced mode (--balance): each micro-step takes the next
// sum(shares) samples of the epoch's global order (the sampler's permutation for one rank), and rank r the
// shares[r] samples after those of the lower ranks. Positions are then global: samples of the epoch
// consumed by all ranks together.
struct BalancedSplit {
    std::vector<int64_t> shares; // samples per rank per micro-step, each >= 1
    int64_t rank = 0;
};

// Iterates this rank's samples in micro-batches from (epoch, position), prefetching on a background
// thread. A partial batch at the end of an epoch is dropped and the next epoch begins.
class DataLoader {
  public:
    DataLoader(std::shared_ptr<const TokenDataset> dataset, SamplerOptions sampler, int64_t microBatch,
               int64_t startEpoch = 0, int64_t startPosition = 0, int prefetch = 4,
               std::optional<BalancedSplit> split = std::nullopt);
    ~DataLoader();
    DataLoader(const DataLoader&) = delete;
    DataLoader& operator=(const DataLoader&) = delete;

    Batch next();
    int64_t batchesPerEpoch() const { return sampler_.samplesPerRank() / samplesPerMicroStep(); }
    const DistributedSampler& sampler() const { return sampler_; }
    // Balanced mode: new shares from (epoch, position) on, the position after the last batch taken;
    // batches prefetched with the old shares are dropped.
    void resplit(std::vector<int64_t> shares, int64_t epoch, int64_t position);

  private:
    void run();
    int64_t samplesPerMicroStep() const;
    Batch make(int64_t& epoch, int64_t& position, std::vector<int64_t>& order, int64_t& orderEpoch,
               const std::vector<int64_t>& shares);

    std::shared_ptr<const TokenDataset> dataset_;
    DistributedSampler sampler_;
    int64_t microBatch_;
    int64_t epoch_, position_;
    size_t prefetch_;
    std::mutex mutex_;
    std::condition_variable cv_;
    std::deque<Batch> queue_;
    std::exception_ptr error_;
    bool stop_ = false;
    std::optional<BalancedSplit> split_; // shares guarded by mutex_
    uint64_t generation_ = 0;            // bumped by resplit: the producer restarts from epoch_/position_
    std::thread thread_;
};

} // namespace traindeck::data
