#include "dist/collective_watchdog.h"

#include "util/errors.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>

namespace traindeck::dist {

void waitForCollective(const CollectiveWait& wait)
{
    using Clock = std::chrono::steady_clock;
    const auto start = Clock::now();
    auto pause = std::chrono::microseconds(0);
    for (;;) {
        if (wait.finished())
            return;
        std::optional<std::string> failure;
        if (auto e = wait.error())
            failure = wait.what + " failed: " + *e;
        const double waited = std::chrono::duration<double>(Clock::now() - start).count();
        if (!failure && wait.timeoutS > 0 && waited > wait.timeoutS) {
            char text[160];
            std::snprintf(text, sizeof text, " did not finish within %g s (--collective-timeout)", wait.timeoutS);
            failure = wait.what + text;
        }
        if (failure) {
            wait.abort();
            throw RuntimeFailure(wait.who + ": " + *failure + "; the communicator was aborted");
        }
        if (pause.count() == 0)
            std::this_thread::yield();
        else
            std::this_thread::sleep_for(pause);
        pause = std::min(std::chrono::microseconds(1000), pause + std::chrono::microseconds(pause.count() / 2 + 1));
    }
}

} // namespace traindeck::dist
