// Training samples from a token cache, in one of two batch modes:
//  - pack (default): documents joined by EOS and cut into seq_len blocks, labels = inputs;
//  - pad: one document per sample, truncated to seq_len (the recipe's max_length), padded with the pad
//    id, labels -100 on padding.
#pragma once

#include "data/sampler.h"
#include "data/token_cache.h"

#include <torch/torch.h>

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>

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
    torch::Tensor inputIds, labels; // [B, T] int64
    int64_t epoch = 0;
    int64_t positionAfter = 0; // samples of this rank's epoch consumed after this batch
    int64_t tokens = 0;        // label tokens that count toward the loss (not -100)
};

// Iterates this rank's samples in micro-batches from (epoch, position), prefetching on a background
// thread. A partial batch at the end of an epoch is dropped and the next epoch begins.
class DataLoader {
  public:
    DataLoader(std::shared_ptr<const TokenDataset> dataset, SamplerOptions sampler, int64_t microBatch,
               int64_t startEpoch = 0, int64_t startPosition = 0, int prefetch = 4);
    ~DataLoader();
    DataLoader(const DataLoader&) = delete;
    DataLoader& operator=(const DataLoader&) = delete;

    Batch next();
    int64_t batchesPerEpoch() const { return sampler_.samplesPerRank() / microBatch_; }
    const DistributedSampler& sampler() const { return sampler_; }

  private:
    void run();
    Batch make(int64_t& epoch, int64_t& position, std::vector<int64_t>& order, int64_t& orderEpoch);

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
    std::thread thread_;
};

} // namespace traindeck::data
