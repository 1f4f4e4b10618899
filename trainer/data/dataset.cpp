#include "data/dataset.h"

#include "util/errors.h"

#include <algorithm>

namespace traindeck::data {

BatchMode parseBatchMode(const std::string& name)
{
    if (name == "pack")
        return BatchMode::Pack;
    if (name == "pad")
        return BatchMode::Pad;
    throw InputError("unknown batch mode \"" + name + "\" (use pack or pad)");
}

TokenDataset::TokenDataset(std::shared_ptr<TokenCache> cache, BatchMode mode, int64_t seqLen)
    : cache_(std::move(cache)), mode_(mode), seqLen_(seqLen)
{
    if (seqLen_ < 2)
        throw InputError("sequence length must be at least 2, got " + std::to_string(seqLen_));
    if (mode_ == BatchMode::Pack) {
        size_ = static_cast<int64_t>(cache_->tokens().size()) / seqLen_;
        if (size_ == 0)
            throw InputError("the dataset has " + std::to_string(cache_->tokens().size()) +
                             " tokens, fewer than one sequence of " + std::to_string(seqLen_) +
                             " (use a larger dataset or a smaller --seq-len)");
    } else {
        size_ = static_cast<int64_t>(cache_->numDocs());
        if (size_ == 0)
            throw InputError("the dataset contains no documents");
    }
}

void TokenDataset::sample(int64_t i, int64_t* ids, int64_t* labels) const
{
    const auto tokens = cache_->tokens();
    if (mode_ == BatchMode::Pack) {
        const uint32_t* src = tokens.data() + i * seqLen_;
        for (int64_t t = 0; t < seqLen_; ++t)
            ids[t] = labels[t] = src[t];
        return;
    }
    const auto starts = cache_->docStarts();
    const uint64_t begin = starts[static_cast<size_t>(i)];
    const uint64_t end = starts[static_cast<size_t>(i) + 1] - 1; // without the EOS the cache appends
    const int64_t len = std::min<int64_t>(static_cast<int64_t>(end - begin), seqLen_);
    for (int64_t t = 0; t < seqLen_; ++t) {
        if (t < len) {
            ids[t] = labels[t] = tokens[begin + static_cast<uint64_t>(t)];
        } else {
            ids[t] = cache_->padId();
            labels[t] = -100;
        }
    }
}

DataLoader::DataLoader(std::shared_ptr<const TokenDataset> dataset, SamplerOptions sampler, int64_t microBatch,
                       int64_t startEpoch, int64_t startPosition, int prefetch)
    : dataset_(std::move(dataset)), sampler_(dataset_->size(), sampler), microBatch_(microBatch), epoch_(startEpoch),
      position_(startPosition), prefetch_(static_cast<size_t>(std::max(1, prefetch)))
{
    if (microBatch_ < 1)
        throw InputError("micro-batch must be at least 1");
    if (sampler_.samplesPerRank() < microBatch_)
        throw InputError("each rank gets " + std::to_string(sampler_.samplesPerRank()) +
                         " samples per epoch, fewer than one micro-batch of " + std::to_string(microBatch_) +
                         " (use more data, a smaller --micro-batch or --seq-len)");
    thread_ = std::thread([this] { run(); });
}

DataLoader::~DataLoader()
{
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
}

Batch DataLoader::make(int64_t& epoch, int64_t& position, std::vector<int64_t>& order, int64_t& orderEpoch)
{
    if (position + microBatch_ > sampler_.samplesPerRank()) {
        ++epoch;
        position = 0;
    }
    if (orderEpoch != epoch) {
        order = sampler_.indices(epoch);
        orderEpoch = epoch;
    }
    const int64_t T = dataset_->seqLen();
    Batch b;
    b.inputIds = torch::empty({microBatch_, T}, torch::kInt64);
    b.labels = torch::empty({microBatch_, T}, torch::kInt64);
    auto* ids = b.inputIds.data_ptr<int64_t>();
    auto* labels = b.labels.data_ptr<int64_t>();
    for (int64_t s = 0; s < microBatch_; ++s)
        dataset_->sample(order[static_cast<size_t>(position + s)], ids + s * T, labels + s * T);
    for (int64_t s = 0; s < microBatch_; ++s)
        for (int64_t t = 1; t < T; ++t) // the first label of each row is never predicted
            b.tokens += labels[s * T + t] != -100;
    position += microBatch_;
    b.epoch = epoch;
    b.positionAfter = position;
    return b;
}

void DataLoader::run()
{
    int64_t epoch = epoch_, position = position_, orderEpoch = -1;
    std::vector<int64_t> order;
    try {
        for (;;) {
            Batch b = make(epoch, position, order, orderEpoch);
            std::unique_lock lock(mutex_);
            cv_.wait(lock, [&] { return stop_ || queue_.size() < prefetch_; });
            if (stop_)
                return;
            queue_.push_back(std::move(b));
            cv_.notify_all();
        }
    } catch (...) {
        std::lock_guard lock(mutex_);
        error_ = std::current_exception();
        cv_.notify_all();
    }
}

Batch DataLoader::next()
{
    std::unique_lock lock(mutex_);
    cv_.wait(lock, [&] { return !queue_.empty() || error_; });
    if (queue_.empty())
        std::rethrow_exception(error_);
    Batch b = std::move(queue_.front());
    queue_.pop_front();
    cv_.notify_all();
    return b;
}

} // namespace traindeck::data
