// InterruptWatcher (interrupts.h): the signal handler only writes the signal's number into a pipe
// (async-signal-safe); a QSocketNotifier reads it on the event loop, where anything may be called.
#include "interrupts.h"

#include <QSocketNotifier>

#include <csignal>
#include <fcntl.h>
#include <unistd.h>

namespace traindeck::cli {

namespace {
int g_pipe[2] = {-1, -1};
struct sigaction g_previousInt {
}, g_previousTerm{};

void onSignal(int sig)
{
    const unsigned char byte = static_cast<unsigned char>(sig);
    [[maybe_unused]] const ssize_t n = ::write(g_pipe[1], &byte, 1);
}
} // namespace

InterruptWatcher::InterruptWatcher(std::function<void()> onInterrupt) : m_onInterrupt(std::move(onInterrupt))
{
    if (g_pipe[0] >= 0)
        return; // another watcher lives (see the header): taking its handlers would break both
    if (::pipe2(g_pipe, O_CLOEXEC | O_NONBLOCK) != 0)
        return; // without a pipe the default handlers stay: Ctrl-C still ends the command
    m_notifier = new QSocketNotifier(g_pipe[0], QSocketNotifier::Read, this);
    connect(m_notifier, &QSocketNotifier::activated, this, [this] {
        unsigned char byte = 0;
        bool first = false;
        while (::read(g_pipe[0], &byte, 1) == 1) {
            if (m_signal == 0) {
                m_signal = byte;
                first = true;
            }
        }
        if (first && m_onInterrupt)
            m_onInterrupt();
    });
    struct sigaction sa {};
    sa.sa_handler = onSignal;
    sigemptyset(&sa.sa_mask);
    // No SA_RESTART: a terminal prompt's read returns, so Ctrl-C is not held up by a question.
    sa.sa_flags = 0;
    sigaction(SIGINT, &sa, &g_previousInt);
    sigaction(SIGTERM, &sa, &g_previousTerm);
}

InterruptWatcher::~InterruptWatcher()
{
    if (!m_notifier)
        return; // this one never took the handlers
    sigaction(SIGINT, &g_previousInt, nullptr);
    sigaction(SIGTERM, &g_previousTerm, nullptr);
    delete m_notifier;
    ::close(g_pipe[0]);
    ::close(g_pipe[1]);
    g_pipe[0] = g_pipe[1] = -1;
}

} // namespace traindeck::cli
