#include "train/overlap.h"

#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/utils/lambda_post_hook.h>
#include <torch/csrc/autograd/variable.h>

#include <chrono>

namespace traindeck::train {

namespace {
using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point t)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}
} // namespace

OverlappedAllreduce::OverlappedAllreduce(const std::vector<std::vector<torch::Tensor>>& bucketParams,
                                         ReduceBucket reduce, BucketReady onReady)
    : reduce_(std::move(reduce)), onReady_(std::move(onReady))
{
    for (size_t b = 0; b < bucketParams.size(); ++b) {
        paramsPerBucket_.push_back(static_cast<int>(bucketParams[b].size()));
        for (const auto& p : bucketParams[b]) {
            // The accumulator node is what backward calls once per pass with the parameter's summed
            // gradient; its post-hook runs after the gradient is in .grad (the bucket). The variable
            // holds it weakly, so it is kept here.
            Hook hook;
            hook.accumulator = torch::autograd::impl::grad_accumulator(p);
            TORCH_CHECK(hook.accumulator, "overlapped allreduce: a parameter has no gradient accumulator");
            hook.key = hook.accumulator->add_post_hook(std::make_unique<torch::autograd::utils::LambdaPostHook>(
                [this, b](const torch::autograd::variable_list& outputs, const torch::autograd::variable_list&) {
                    onGradientReady(b);
                    return outputs;
                }));
            hooks_.push_back(std::move(hook));
        }
    }
    pending_.assign(paramsPerBucket_.size(), 0);
    ready_.assign(paramsPerBucket_.size(), 0);
    next_ = paramsPerBucket_.size();
    thread_ = std::thread([this] { communicate(); });
}

OverlappedAllreduce::~OverlappedAllreduce()
{
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    changed_.notify_all();
    thread_.join();
    for (auto& hook : hooks_)
        hook.accumulator->del_post_hook(hook.key);
}

void OverlappedAllreduce::arm()
{
    std::lock_guard lock(mutex_);
    for (size_t b = 0; b < pending_.size(); ++b) {
        pending_[b] = paramsPerBucket_[b];
        ready_[b] = 0;
    }
    next_ = 0;
    busyMs_ = 0;
    error_ = nullptr;
    armed_ = true;
}

void OverlappedAllreduce::onGradientReady(size_t bucket)
{
    {
        std::lock_guard lock(mutex_);
        if (!armed_ || pending_[bucket] <= 0 || --pending_[bucket] > 0)
            return;
    }
    if (onReady_)
        onReady_(bucket);
    {
        std::lock_guard lock(mutex_);
        ready_[bucket] = 1;
    }
    changed_.notify_all();
}

void OverlappedAllreduce::communicate()
{
    std::unique_lock lock(mutex_);
    for (;;) {
        changed_.wait(lock, [this] { return stopping_ || (armed_ && next_ < ready_.size() && ready_[next_]); });
        if (stopping_)
            return;
        const size_t index = next_;
        lock.unlock();
        const auto started = Clock::now();
        std::exception_ptr failure;
        try {
            reduce_(index);
        } catch (...) {
            failure = std::current_exception();
        }
        const double ms = msSince(started);
        lock.lock();
        busyMs_ += ms;
        if (failure) {
            // The remaining buckets are not reduced: finish() reports the error.
            error_ = failure;
            next_ = ready_.size();
        } else {
            ++next_;
        }
        changed_.notify_all();
    }
}

OverlappedAllreduce::Timing OverlappedAllreduce::finish()
{
    std::unique_lock lock(mutex_);
    // A bucket whose parameters got no gradient in this pass still has to be reduced (its zeros), or
    // the ranks would disagree about which collectives to enter.
    for (auto& r : ready_)
        r = 1;
    changed_.notify_all();
    const auto started = Clock::now();
    changed_.wait(lock, [this] { return next_ >= ready_.size(); });
    Timing timing;
    timing.exposedMs = msSince(started);
    timing.busyMs = busyMs_;
    armed_ = false;
    if (error_)
        std::rethrow_exception(std::exchange(error_, nullptr));
    return timing;
}

} // namespace traindeck::train
