// Overlapping the gradient allreduce with the backward pass (--overlap on). Each bucket's allreduce
// starts on a communication thread as soon as backward has accumulated the last of its gradients (a
// post-hook on every parameter's gradient accumulator, as PyTorch DDP's reducer does), so the
// transfer of the last layers' gradients runs while the first layers' backward is still computing.
#pragma once

#include <torch/torch.h>

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace torch::autograd {
struct Node;
}

namespace traindeck::train {

class OverlappedAllreduce {
  public:
    // Reduces bucket `index` (runs on the communication thread, buckets in index order on every rank,
    // so all ranks enter the same collectives in the same order).
    using ReduceBucket = std::function<void(size_t index)>;
    // Called on the backward thread when a bucket's gradients are complete, before it is handed over
    // (the --inject-delay backward test aid sleeps here).
    using BucketReady = std::function<void(size_t index)>;

    OverlappedAllreduce(const std::vector<std::vector<torch::Tensor>>& bucketParams, ReduceBucket reduce,
                        BucketReady onReady = {});
    ~OverlappedAllreduce();
    OverlappedAllreduce(const OverlappedAllreduce&) = delete;
    OverlappedAllreduce& operator=(const OverlappedAllreduce&) = delete;

    // Before the backward pass whose gradients are to be reduced (the last micro-step of a step).
    void arm();

    struct Timing {
        double exposedMs = 0; // the training thread's wait after backward: on the critical path
        double busyMs = 0;    // the communication thread's time inside the bucket reductions
        double hiddenMs() const { return busyMs > exposedMs ? busyMs - exposedMs : 0.0; }
    };
    // After backward: hands over the buckets no hook announced (parameters that got no gradient), waits
    // for every reduction and returns the timings; rethrows the communication thread's error.
    Timing finish();

  private:
    void onGradientReady(size_t bucket);
    void communicate();

    struct Hook {
        std::shared_ptr<torch::autograd::Node> accumulator;
        uintptr_t key = 0;
    };
    std::vector<Hook> hooks_;
    std::vector<int> paramsPerBucket_;
    ReduceBucket reduce_;
    BucketReady onReady_;

    std::mutex mutex_;
    std::condition_variable changed_;
    bool armed_ = false, stopping_ = false;
    std::vector<int> pending_; // gradients still to come, per bucket
    std::vector<char> ready_;  // handed over to the communication thread
    size_t next_ = 0;          // the next bucket to reduce; == size when all are done
    double busyMs_ = 0;
    std::exception_ptr error_;
    std::thread thread_;
};

} // namespace traindeck::train
