#include "data/sampler.h"

#include "util/errors.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

namespace traindeck::data {

DistributedSampler::DistributedSampler(int64_t datasetSize, SamplerOptions options) : n_(datasetSize), options_(options)
{
    if (options_.worldSize < 1 || options_.rank < 0 || options_.rank >= options_.worldSize)
        throw InputError("sampler: rank " + std::to_string(options_.rank) + " is outside world size " +
                         std::to_string(options_.worldSize));
    if (n_ <= 0)
        throw InputError("sampler: the dataset is empty");
    if (options_.dropLast && n_ % options_.worldSize != 0)
        numSamples_ = (n_ - options_.worldSize + options_.worldSize - 1) / options_.worldSize; // ceil((n-w)/w)
    else
        numSamples_ = (n_ + options_.worldSize - 1) / options_.worldSize;
    if (numSamples_ <= 0)
        throw InputError("sampler: " + std::to_string(n_) + " samples cannot be split over " +
                         std::to_string(options_.worldSize) + " ranks with drop_last");
}

std::vector<int64_t> DistributedSampler::indices(int64_t epoch) const
{
    std::vector<int64_t> all;
    if (options_.shuffle) {
        auto gen = at::make_generator<at::CPUGeneratorImpl>(options_.seed + static_cast<uint64_t>(epoch));
        auto perm = torch::randperm(n_, gen, torch::TensorOptions().dtype(torch::kInt64));
        all.assign(perm.data_ptr<int64_t>(), perm.data_ptr<int64_t>() + n_);
    } else {
        all.resize(static_cast<size_t>(n_));
        for (int64_t i = 0; i < n_; ++i)
            all[static_cast<size_t>(i)] = i;
    }
    const int64_t total = totalSize();
    if (!options_.dropLast) {
        // Pad by repeating the permutation from its start (as often as needed).
        for (int64_t i = 0; static_cast<int64_t>(all.size()) < total; ++i)
            all.push_back(all[static_cast<size_t>(i % n_)]);
    } else {
        all.resize(static_cast<size_t>(total));
    }
    std::vector<int64_t> mine;
    mine.reserve(static_cast<size_t>(numSamples_));
    for (int64_t i = options_.rank; i < total; i += options_.worldSize)
        mine.push_back(all[static_cast<size_t>(i)]);
    return mine;
}

} // namespace traindeck::data
