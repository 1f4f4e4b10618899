// A gate that holds a background call until the test opens it (tests of threads blocked in slow calls).
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>

namespace traindeck::guitest {

struct Gate {
    std::mutex mutex;
    std::condition_variable cv;
    bool open = false;
    int entered = 0;

    void release()
    {
        {
            std::lock_guard lock(mutex);
            open = true;
        }
        cv.notify_all();
    }
    // True once a call is blocked in pass().
    bool waitEntered(int ms)
    {
        std::unique_lock lock(mutex);
        return cv.wait_for(lock, std::chrono::milliseconds(ms), [this] { return entered > 0; });
    }
    void pass()
    {
        std::unique_lock lock(mutex);
        ++entered;
        cv.notify_all();
        // Capped, so that a failed test does not leave the process hanging.
        cv.wait_for(lock, std::chrono::seconds(60), [this] { return open; });
    }
};

} // namespace traindeck::guitest
