// Ctrl-C and SIGTERM for a command that started something it must take back (the checks' Slurm job):
// while an InterruptWatcher lives, SIGINT and SIGTERM call onInterrupt on the Qt event loop instead of
// killing the process, and the command exits 128 + signal() once it has cleaned up. One at a time: the
// signal handlers and their pipe belong to the process, so a second watcher made while one lives is ignored
// (it never fires) until the first is gone.
#pragma once

#include <QObject>

#include <functional>

class QSocketNotifier;

namespace traindeck::cli {

// A QObject for its connections' lifetime only (no signals or slots of its own).
class InterruptWatcher : public QObject {
  public:
    explicit InterruptWatcher(std::function<void()> onInterrupt);
    ~InterruptWatcher() override;
    InterruptWatcher(const InterruptWatcher&) = delete;
    InterruptWatcher& operator=(const InterruptWatcher&) = delete;

    // The first signal that arrived (SIGINT, SIGTERM), or 0.
    int signal() const { return m_signal; }
    // 128 + signal(): the shell's convention (130 for Ctrl-C, 143 for SIGTERM).
    int exitCode() const { return 128 + m_signal; }

  private:
    std::function<void()> m_onInterrupt;
    QSocketNotifier* m_notifier = nullptr;
    int m_signal = 0;
};

} // namespace traindeck::cli
