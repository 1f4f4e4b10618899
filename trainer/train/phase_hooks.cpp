#include "train/phase_hooks.h"

#include "telemetry/metrics_writer.h"
#include "train/run.h"

#include <cstdio>
#include <limits>
#include <thread>

namespace traindeck::train {

PhaseHooks::PhaseHooks(const TrainOptions& options, dist::Communicator& comm)
    : o_(options), comm_(comm), rank_(comm.rank())
{
}

void PhaseHooks::mark(int64_t step, dist::Phase phase)
{
    if (stall_)
        stall_->enter(step, phase);
    if (!(overlapped_ && phase == dist::Phase::Allreduce))
        injectStall(step, phase);
}

PhaseHooks::Clock::time_point PhaseHooks::begin(int64_t step, dist::Phase phase, bool delayElsewhere)
{
    mark(step, phase);
    const auto started = Clock::now();
    if (!delayElsewhere)
        injectDelay(phase);
    return started;
}

void PhaseHooks::injectDelay(dist::Phase phase) const
{
    if (o_.injectDelay && o_.injectDelay->rank == rank_ && o_.injectDelay->phase == dist::phaseName(phase))
        std::this_thread::sleep_for(std::chrono::microseconds(static_cast<int64_t>(o_.injectDelay->ms * 1000)));
}

void PhaseHooks::slowDown(Clock::time_point started) const
{
    if (!o_.injectSlowdown || o_.injectSlowdown->first != rank_)
        return;
    const auto took = Clock::now() - started;
    std::this_thread::sleep_for(std::chrono::duration_cast<Clock::duration>(took * (o_.injectSlowdown->second - 1.0)));
}

// The rank stops once, for the planned seconds, when it reaches the planned step and phase.
void PhaseHooks::injectStall(int64_t step, dist::Phase phase)
{
    const auto& planned = o_.injectStall;
    if (!planned || planned->rank != rank_ || planned->step != step || planned->phase != dist::phaseName(phase) ||
        stallInjected_.exchange(true))
        return;
    std::fprintf(stderr, "traindeck-trainer: rank %d on %s: injected stall (test aid) of %.1f s in %s of step %lld\n",
                 rank_, comm_.host().c_str(), planned->seconds, planned->phase.c_str(), static_cast<long long>(step));
    std::fflush(stderr);
    std::this_thread::sleep_for(std::chrono::duration<double>(planned->seconds));
}

void PhaseHooks::atStepStart(int64_t step) const
{
    const auto& planned = o_.injectExit;
    if (!planned || planned->first != rank_ || planned->second != step)
        return;
    std::fprintf(stderr, "traindeck-trainer: rank %d on %s: injected exit (test aid) at step %lld\n", rank_,
                 comm_.host().c_str(), static_cast<long long>(step));
    std::fflush(stderr);
    std::_Exit(3);
}

torch::Tensor PhaseHooks::loss(int64_t step, torch::Tensor loss) const
{
    if (o_.injectNan && o_.injectNan->first == rank_ && o_.injectNan->second == step)
        return loss * std::numeric_limits<double>::quiet_NaN();
    return loss;
}

void PhaseHooks::beforeBucketReduce(size_t index, int64_t step)
{
    if (index == 0)
        injectStall(step, dist::Phase::Allreduce);
}

// --inject-delay R:MS:backward sleeps inside backward once the first bucket is ready, while the peers'
// reductions already wait for this rank.
void PhaseHooks::onBucketReady(size_t index) const
{
    if (index == 0)
        injectDelay(dist::Phase::Backward);
}

void PhaseHooks::startStallInspector(std::unique_ptr<telemetry::MetricsWriter>& metrics, DoneRecord& done, int64_t step)
{
    if (!(o_.stallWarning > 0))
        return;
    const auto hosts = comm_.allgatherStrings(comm_.host());
    if (comm_.anyTrue(!comm_.hasProgressChannel())) {
        if (rank_ == 0)
            metrics->write("warning", {{"rank", -1},
                                       {"host", ""},
                                       {"code", "stall_inspector_off"},
                                       {"message", "the stall inspector is off: the MPI library cannot take calls "
                                                   "from two threads (MPI_THREAD_MULTIPLE)"}});
        return;
    }
    dist::StallOptions options{o_.stallWarning, o_.stallAbort};
    stall_ = std::make_unique<dist::StallInspector>(
        comm_, options, hosts,
        [this, &metrics, &done, hosts](const dist::StallVerdict& v, const std::vector<dist::RankProgress>& board,
                                       bool abort) { reportStall(*metrics, done, hosts, v, board, abort); });
    stall_->enter(step + 1, dist::Phase::Data);
}

void PhaseHooks::finishStallInspector()
{
    if (stall_)
        stall_->finish();
}

// On rank 0's inspector thread: a `warning` record (code stall) naming the ranks that hold the job up;
// at --stall-abort an `error` record and `done` (failed), then the job ends.
void PhaseHooks::reportStall(telemetry::MetricsWriter& metrics, DoneRecord& done, const std::vector<std::string>& hosts,
                             const dist::StallVerdict& v, const std::vector<dist::RankProgress>& board, bool abort)
{
    const std::string text = dist::describeStall(v, board, hosts);
    const int rank = v.culprits.empty() ? -1 : v.culprits.front();
    const std::string host = rank >= 0 && static_cast<size_t>(rank) < hosts.size() ? hosts[size_t(rank)] : "";
    nlohmann::ordered_json ranks = nlohmann::ordered_json::array();
    for (int r : v.culprits) {
        const auto& p = board[size_t(r)];
        ranks.push_back({{"rank", r},
                         {"host", hosts[size_t(r)]},
                         {"step", p.step},
                         {"phase", dist::phaseName(p.phase)},
                         {"in_phase_s", p.inPhaseS},
                         {"silent_s", p.silentS}});
    }
    const nlohmann::ordered_json detail = {{"case", dist::stallCaseName(v.kind)},
                                           {"step", v.step},
                                           {"phase", dist::phaseName(v.phase)},
                                           {"waited_s", v.waitedS},
                                           {"ranks", ranks},
                                           {"waiting", v.waiting}};
    if (!abort) {
        metrics.write(
            "warning",
            {{"rank", rank}, {"host", host}, {"message", "stall: " + text}, {"code", "stall"}, {"stall", detail}});
        std::fprintf(stderr, "traindeck-trainer: stall: %s\n", text.c_str());
        std::fflush(stderr);
        return;
    }
    int64_t finished = std::numeric_limits<int64_t>::max(); // the steps every rank finished
    for (const auto& p : board)
        finished = std::min(finished, p.step - 1);
    char limit[64];
    std::snprintf(limit, sizeof limit, "%g s", o_.stallAbort);
    const std::string message = "stall: " + text + "; the job was aborted after --stall-abort " + limit;
    metrics.write("error", {{"rank", rank}, {"host", host}, {"message", message}, {"exit_code", 1}});
    done.write(&metrics, "failed", std::max<int64_t>(0, finished));
    std::fprintf(stderr, "traindeck-trainer: rank 0 on %s: %s\n", comm_.host().c_str(), message.c_str());
    std::fflush(stderr);
    comm_.abort(1);
}

} // namespace traindeck::train
