#include "train/rebalancer.h"

#include "train/balance.h"
#include "train/rank_zero.h"
#include "util/errors.h"

#include <algorithm>
#include <cstdio>
#include <numeric>

namespace traindeck::train {

namespace {
// A new split must promise at least this much shorter a step, whatever the noise (balance.h).
constexpr double kMinGain = 0.05;
} // namespace

Rebalancer::Rebalancer(const TrainOptions& options, dist::Communicator& comm)
    : o_(options), comm_(comm), world_(comm.size()), rank_(comm.rank())
{
    if (o_.balance != "auto" && o_.balanceShares.empty())
        return;
    shares_ =
        o_.balanceShares.empty() ? std::vector<int64_t>(static_cast<size_t>(world_), o_.microBatch) : o_.balanceShares;
    if (shares_.size() != static_cast<size_t>(world_))
        throw InputError("--balance-shares names " + std::to_string(shares_.size()) + " ranks, the job has " +
                         std::to_string(world_));
    if (!coversTheBatch(shares_))
        throw InputError("--balance-shares must add up to --micro-batch x ranks = " +
                         std::to_string(o_.microBatch * world_));
    msPerSample_.assign(static_cast<size_t>(world_), {});
}

bool Rebalancer::coversTheBatch(const std::vector<int64_t>& shares) const
{
    return std::accumulate(shares.begin(), shares.end(), int64_t(0)) == o_.microBatch * world_;
}

void Rebalancer::resumeFrom(const nlohmann::json& state)
{
    if (!active() || !state.contains("balance_shares"))
        return;
    const auto saved = state["balance_shares"].get<std::vector<int64_t>>();
    if (o_.balanceShares.empty() && saved.size() == shares_.size() && coversTheBatch(saved) &&
        std::all_of(saved.begin(), saved.end(), [](int64_t x) { return x >= 1; }))
        shares_ = saved;
}

std::optional<data::BalancedSplit> Rebalancer::split() const
{
    if (!active())
        return std::nullopt;
    return data::BalancedSplit{shares_, rank_};
}

double Rebalancer::lossWeight() const
{
    return active() ? static_cast<double>(shares_[static_cast<size_t>(rank_)]) / static_cast<double>(o_.microBatch)
                    : 1.0;
}

void Rebalancer::afterStep(const std::vector<StepStats>& ranks, int64_t step, int64_t maxSteps,
                           data::DataLoader& loader, int64_t epoch, int64_t position)
{
    if (!active() || o_.balance != "auto")
        return;
    const bool lead = rank_ == 0;
    if (lead && !firstStepOfSplit_)
        for (size_t r = 0; r < ranks.size() && r < msPerSample_.size(); ++r)
            if (ranks[r].samples > 0)
                msPerSample_[r].push_back((ranks[r].dataMs + ranks[r].fwdMs + ranks[r].bwdMs) / ranks[r].samples);
    firstStepOfSplit_ = false;
    if (step % o_.balanceEvery != 0 || step >= maxSteps)
        return;
    auto proposal = torch::tensor(shares_, torch::kInt64);
    if (lead) {
        std::vector<double> perSample;
        for (auto& window : msPerSample_) { // the median, in place: the window starts over anyway
            std::nth_element(window.begin(), window.begin() + static_cast<std::ptrdiff_t>(window.size() / 2),
                             window.end());
            perSample.push_back(window.empty() ? 0.0 : window[window.size() / 2]);
        }
        const double minGain = std::max(kMinGain, timingNoise(msPerSample_));
        for (auto& window : msPerSample_)
            window.clear();
        const auto next = proposeShares(shares_, perSample, minGain);
        if (next != shares_) {
            std::string text;
            for (size_t r = 0; r < next.size(); ++r)
                text += (r ? "," : "") + std::to_string(next[r]);
            std::fprintf(
                stderr,
                "balance: samples per rank %s from step %lld (predicted step %.0f ms, was %.0f ms; a new split "
                "must gain %.0f %% at this noise)\n",
                text.c_str(), static_cast<long long>(step + 1), predictedStepMs(next, perSample),
                predictedStepMs(shares_, perSample), 100 * minGain);
        }
        proposal = torch::tensor(next, torch::kInt64);
    }
    broadcastFromRankZero(comm_, proposal);
    std::vector<int64_t> next(proposal.data_ptr<int64_t>(), proposal.data_ptr<int64_t>() + proposal.numel());
    if (next == shares_)
        return;
    shares_ = next;
    firstStepOfSplit_ = true;
    loader.resplit(next, epoch, position);
}

} // namespace traindeck::train
