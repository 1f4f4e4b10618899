// DistributedSampler with the semantics of PyTorch's torch.utils.data.DistributedSampler: a permutation
// seeded by seed + epoch (torch.randperm with a seeded CPU generator), padded by repetition to a multiple
// of the world size (or truncated with drop_last), rank r takes indices r, r + world, ...
#pragma once

#include <cstdint>
#include <vector>

namespace traindeck::data {

struct SamplerOptions {
    int64_t worldSize = 1;
    int64_t rank = 0;
    bool shuffle = true;
    uint64_t seed = 0;
    bool dropLast = false;
};

class DistributedSampler {
  public:
    DistributedSampler(int64_t datasetSize, SamplerOptions options); // throws InputError
    int64_t samplesPerRank() const { return numSamples_; }
    int64_t totalSize() const { return numSamples_ * options_.worldSize; }
    // This rank's indices for an epoch.
    std::vector<int64_t> indices(int64_t epoch) const;

  private:
    int64_t n_;
    SamplerOptions options_;
    int64_t numSamples_;
};

} // namespace traindeck::data
