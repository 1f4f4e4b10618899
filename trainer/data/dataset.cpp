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

namespace {

SamplerOptions globalOrder(SamplerOptions o, const std::optional<BalancedSplit>& split)
{
    if (split) { // one permutation for the whole job, cut into micro-steps
        o.worldSize = 1;
        o.rank = 0;
    }
    return o;
}

int64_t sum(const std::vector<int64_t>& v)
{
    int64_t total = 0;
    for (int64_t x : v)
        total += x;
    return total;
}

} // namespace

DataLoader::DataLoader(std::shared_ptr<const TokenDataset> dataset, SamplerOptions sampler, int64_t microBatch,
                       int64_t startEpoch, int64_t startPosition, int prefetch, std::optional<BalancedSplit> split)
    : dataset_(std::move(dataset)), sampler_(dataset_->size(), globalOrder(sampler, split)), microBatch_(microBatch),
      epoch_(startEpoch), position_(startPosition), prefetch_(static_cast<size_t>(std::max(1, prefetch))),
      split_(std::move(split))
{
    if (microBatch_ < 1)
        throw InputError("micro-batch must be at least 1");
    if (split_) {
        if (split_->rank < 0 || split_->rank >= static_cast<int64_t>(split_->shares.size()) ||
            std::any_of(split_->shares.begin(), split_->shares.end(), [](int64_t s) { return s < 1; }))
            throw InputError("balanced split: every rank needs a share of at least one sample");
        if (sampler_.samplesPerRank() < sum(split_->shares))
            throw InputError("the dataset has " + std::to_string(sampler_.samplesPerRank()) +
                             " samples, fewer than one global micro-batch of " + std::to_string(sum(split_->shares)) +
                             " (use more data, a smaller --micro-batch or --seq-len)");
    } else if (sampler_.samplesPerRank() < microBatch_) {
        throw InputError("each rank gets " + std::to_string(sampler_.samplesPerRank()) +
                         " samples per epoch, fewer than one micro-batch of " + std::to_string(microBatch_) +
                         " (use more data, a smaller --micro-batch or --seq-len)");
    }
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

int64_t DataLoader::samplesPerMicroStep() const
{
    return split_ ? sum(split_->shares) : microBatch_; // the total never changes with resplit
}

void DataLoader::resplit(std::vector<int64_t> shares, int64_t epoch, int64_t position)
{
    if (!split_)
        throw RuntimeFailure("resplit needs a loader in balanced mode");
    if (shares.size() != split_->shares.size() || sum(shares) != sum(split_->shares) ||
        std::any_of(shares.begin(), shares.end(), [](int64_t s) { return s < 1; }))
        throw RuntimeFailure("resplit: the shares must keep the world size and the global micro-batch");
    std::lock_guard lock(mutex_);
    split_->shares = std::move(shares);
    epoch_ = epoch;
    position_ = position;
    queue_.clear();
    ++generation_;
    cv_.notify_all();
}

Batch DataLoader::make(int64_t& epoch, int64_t& position, std::vector<int64_t>& order, int64_t& orderEpoch,
                       const std::vector<int64_t>& shares)
{
    // Plain mode: this rank's own sample stream. Balanced: the global order, this rank's part of it.
    int64_t perStep = microBatch_, offset = 0, count = microBatch_;
    if (split_) {
        perStep = sum(shares);
        for (int64_t r = 0; r < split_->rank; ++r)
            offset += shares[static_cast<size_t>(r)];
        count = shares[static_cast<size_t>(split_->rank)];
    }
    if (position + perStep > sampler_.samplesPerRank()) {
        ++epoch;
        position = 0;
    }
    if (orderEpoch != epoch) {
        order = sampler_.indices(epoch);
        orderEpoch = epoch;
    }
    const int64_t T = dataset_->seqLen();
    Batch b;
    b.inputIds = torch::empty({count, T}, torch::kInt64);
    b.labels = torch::empty({count, T}, torch::kInt64);
    auto* ids = b.inputIds.data_ptr<int64_t>();
    auto* labels = b.labels.data_ptr<int64_t>();
    for (int64_t s = 0; s < count; ++s)
        dataset_->sample(order[static_cast<size_t>(position + offset + s)], ids + s * T, labels + s * T);
    for (int64_t s = 0; s < count; ++s)
        for (int64_t t = 1; t < T; ++t) // the first label of each row is never predicted
            b.tokens += labels[s * T + t] != -100;
    position += perStep;
    b.epoch = epoch;
    b.positionAfter = position;
    return b;
}

void DataLoader::run()
{
    int64_t epoch = 0, position = 0, orderEpoch = -1;
    uint64_t generation = ~uint64_t(0);
    std::vector<int64_t> order, shares;
    try {
        for (;;) {
            {
                std::lock_guard lock(mutex_);
                if (generation != generation_) { // the start, or a resplit
                    generation = generation_;
                    epoch = epoch_;
                    position = position_;
                    if (split_)
                        shares = split_->shares;
                }
            }
            Batch b = make(epoch, position, order, orderEpoch, shares);
            std::unique_lock lock(mutex_);
            cv_.wait(lock, [&] { return stop_ || queue_.size() < prefetch_ || generation != generation_; });
            if (stop_)
                return;
            if (generation != generation_)
                continue; // made with shares that no longer hold
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
