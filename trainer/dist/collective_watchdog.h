// Waiting for a collective that runs on a device stream without trusting it to finish: the waiting thread
// polls the collective's completion and the library's asynchronous error, and gives up after a timeout.
// A collective stuck on a dead peer or a broken link would otherwise hang its rank for ever, and with it
// the job (NCCL kernels spin until their peer shows up). Kept free of CUDA and NCCL so its rules are
// tested on machines without a GPU.
#pragma once

#include <functional>
#include <optional>
#include <string>

namespace traindeck::dist {

struct CollectiveWait {
    std::string who;                // "rank 1 on node-b": starts every message
    std::string what;               // "ncclAllReduce of 6.0 MiB"
    double timeoutS = 0;            // --collective-timeout; 0: wait without a limit (errors still end the wait)
    std::function<bool()> finished; // true once the collective completed
    std::function<std::optional<std::string>()> error; // the library's asynchronous error, if any
    std::function<void()> abort;                       // tears the communicator down (ncclCommAbort)
};

// Returns once `finished` is true. On an asynchronous error, or when the timeout passes first, calls
// `abort` once and throws RuntimeFailure naming who, what and why. Polls with a backoff from a busy spin
// up to 1 ms, so a fast collective costs microseconds and a long one no CPU to speak of.
void waitForCollective(const CollectiveWait& wait);

} // namespace traindeck::dist
