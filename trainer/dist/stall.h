// The stall inspector: rank 0 learns where every rank is (step and phase) from reports that travel on a
// channel of their own, from a helper thread, so it keeps learning while its own main thread waits
// inside a collective. When ranks stop moving it says which ranks hold the job up and how: never
// entered the collective the others wait in (stuck in data, compute or I/O), entered it and none
// finished (stuck in communication), or went silent (process stopped, host unreachable).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace traindeck::dist {

class Communicator;

// Where a rank is within a step, in step order. Collective phases are those every rank must reach.
enum class Phase : int {
    Setup,
    Data,
    Forward,
    Backward,
    Allreduce, // the gradient allreduce (collective)
    Optimizer,
    Report,          // the gather of the step's figures at rank 0 (collective)
    CheckpointWrite, // rank 0 writing a checkpoint while the others wait (before them in step order)
    CheckpointWait,  // the barriers around a checkpoint (collective)
    Finished,
};
const char* phaseName(Phase phase); // "data", "allreduce", "checkpoint_write", ...
bool isCollective(Phase phase);
constexpr int kPhaseCount = int(Phase::Finished) + 1;

struct RankProgress {
    int64_t step = 0; // the step it works on (1-based; 0 before the first)
    Phase phase = Phase::Setup;
    double inPhaseS = 0; // how long it has been at this step and phase, by rank 0's clock
    double silentS = 0;  // how long since rank 0 last heard from it
    double usualS = 0;   // the longest this phase has taken before in this run (any rank; 0: unknown)
};

enum class StallCase { None, BeforeCollective, InCollective, NoHeartbeat };
const char* stallCaseName(StallCase c); // "before_collective", "in_collective", "no_heartbeat"

struct StallVerdict {
    StallCase kind = StallCase::None;
    std::vector<int> culprits; // the ranks that hold the job up
    std::vector<int> waiting;  // the ranks that wait for them inside a collective
    int64_t step = 0;          // the collective the waiting ranks are in; else the culprits' step and phase
    Phase phase = Phase::Setup;
    double waitedS = 0; // how long the job has not moved
    // What identifies one stall: a different key is a new stall, worth a new warning.
    std::string key() const;
};

// The verdict for one look at the board (index = rank): a stall once a rank has been silent for warningS
// seconds, or has waited that long inside a collective that other ranks have not reached (or that nobody
// leaves). With nobody in a collective, only when every rank is stuck (one process, or a hung shared
// file system): each at one step and phase for warningS and three times the longest that phase took
// before, so a long step of a big model is not a stall.
StallVerdict judgeStall(const std::vector<RankProgress>& board, double warningS);

// One sentence naming ranks, hosts, steps and phases, e.g. "rank 1 (node2) has not reached the allreduce
// of step 3 that ranks 0, 2 and 3 wait in for 61 s: it is in data loading of step 3".
std::string describeStall(const StallVerdict& verdict, const std::vector<RankProgress>& board,
                          const std::vector<std::string>& hosts);

struct StallOptions {
    double warningS = 60; // 0: no inspector
    double abortS = 0;    // 0: never abort
};

class StallInspector {
  public:
    // report runs on rank 0's inspector thread: once per stall (abort false) and once when the stall
    // reaches abortS (abort true; report should end the job). hosts: every rank's host, index = rank.
    using Report = std::function<void(const StallVerdict&, const std::vector<RankProgress>& board, bool abort)>;
    StallInspector(Communicator& comm, StallOptions options, std::vector<std::string> hosts, Report report);
    ~StallInspector(); // stops without waiting for the other ranks (an error path)
    StallInspector(const StallInspector&) = delete;
    StallInspector& operator=(const StallInspector&) = delete;

    // Called by the training thread at every phase change: one atomic store.
    void enter(int64_t step, Phase phase);
    // The normal end, on every rank: each rank's last report reaches rank 0 before MPI ends.
    void finish();

    // How often a rank reports, and rank 0 looks at the board.
    static double periodFor(double warningS);

  private:
    void reportLoop();  // ranks other than 0
    void inspectLoop(); // rank 0
    void stop(bool waitForOthers);

    Communicator& comm_;
    const StallOptions options_;
    const std::vector<std::string> hosts_;
    const Report report_;
    const double periodS_;
    std::atomic<int64_t> position_{0}; // step * kPhaseCount + phase
    std::mutex mutex_;
    std::condition_variable wake_;
    bool stopping_ = false, waitForOthers_ = false;
    std::thread thread_;
};

} // namespace traindeck::dist
