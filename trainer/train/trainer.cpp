#include "train/trainer.h"

#include "dist/nccl_communicator.h"
#include "train/device.h"
#include "train/run.h"
#include "util/errors.h"

#include <atomic>
#include <csignal>
#include <cstdio>

namespace traindeck::train {

void DoneRecord::write(telemetry::MetricsWriter* metrics, const char* status, int64_t steps)
{
    if (!metrics || written_.exchange(true))
        return;
    metrics->write("done", {{"status", status},
                            {"steps", steps},
                            {"seconds", std::chrono::duration<double>(Clock::now() - started_).count()}});
}

double measureMatmulPeak(int size, int repeats)
{
    return measureMatmulPeak(torch::kCPU, torch::kFloat32, size, repeats);
}

double flopsPerToken(int64_t parameters, int64_t layers, int64_t hidden, int64_t seqLen)
{
    return 6.0 * static_cast<double>(parameters) + 12.0 * layers * hidden * static_cast<double>(seqLen);
}

namespace {

// SIGUSR1 asks for a stop at the next step boundary with a checkpoint (Slurm sends it before a job's
// time limit with --signal=B:USR1@T; mpirun forwards it to every rank). A lock-free atomic is all a
// signal handler may touch.
std::atomic<bool> stopRequested{false};
static_assert(std::atomic<bool>::is_always_lock_free);

extern "C" void onStopSignal(int)
{
    stopRequested.store(true, std::memory_order_relaxed);
}

void installStopSignal()
{
    struct sigaction action = {};
    action.sa_handler = onStopSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART; // MPI's and the data loader's system calls go on
    sigaction(SIGUSR1, &action, nullptr);
}

// Every rank learns whether any was asked to stop (ranks get the signal at slightly different times).
bool stopAgreed(TrainingRun& run)
{
    const bool mine = stopRequested.load(std::memory_order_relaxed);
    return run.world > 1 ? run.comm.anyTrue(mine) : mine;
}

// How the loop ended (an exception aside): the exit code and the `done` record's status.
struct LoopEnd {
    int exitCode = 0;
    const char* status = "finished";
    int64_t steps = 0;
};

// Setup, then steps until --max-steps (or an agreed stop), with checkpoints. `finishedStep`: the last
// step this process finished, for the `done` record of a run that fails.
LoopEnd trainLoop(const TrainOptions& o, dist::Communicator& comm, std::unique_ptr<telemetry::MetricsWriter>& metrics,
                  DoneRecord& done, int64_t& finishedStep)
{
    TrainingRun run(o, comm, metrics, done);
    setup(run);
    run.hooks.startStallInspector(metrics, done, run.step);
    while (run.step < run.maxSteps) {
        const StepResult result = runStep(run);
        finishedStep = run.step;
        run.balancer.afterStep(reportStep(run, result), run.step, run.maxSteps, *run.loader, run.epoch, run.position);
        if (run.step < run.maxSteps && stopAgreed(run)) {
            writeCheckpoint(run, run.step);
            const std::string message = "stopped on SIGUSR1 after step " + std::to_string(run.step) +
                                        " with a checkpoint; resume continues from it";
            if (run.lead) {
                metrics->write("warning", {{"rank", -1}, {"host", ""}, {"code", "stop_signal"}, {"message", message}});
                std::fprintf(stderr, "traindeck-trainer: %s\n", message.c_str());
            }
            run.hooks.finishStallInspector();
            return {kStoppedExitCode, "cancelled", run.step};
        }
        if (o.checkpointEvery > 0 && run.step % o.checkpointEvery == 0 && run.step < run.maxSteps)
            writeCheckpoint(run, run.step);
    }
    if (o.verifySync) {
        run.hooks.mark(run.step, dist::Phase::Report);
        const bool equal = ranksInSync(run);
        if (run.lead) {
            std::fprintf(stderr, "sync check at the end: ranks %s\n", equal ? "equal" : "differ");
            if (!equal)
                throw RuntimeFailure("parameters diverged across ranks during training");
        }
    }
    writeCheckpoint(run, run.step);
    run.hooks.finishStallInspector();
    return {0, "finished", run.step};
}

// --comm: NCCL over `control` when every rank trains on a CUDA device and NCCL was built in (auto) or
// asked for (nccl); otherwise the control communicator itself (MPI). Every rank takes the same choice.
std::unique_ptr<dist::Communicator> gradientCommunicator(const TrainOptions& o, dist::Communicator& control)
{
    const auto requested = dist::parseCommBackend(o.comm);
    if (requested == dist::CommBackend::Mpi)
        return nullptr;
    const torch::Device device = resolveDevice(o.device, control.localRank());
    const bool cudaHere = device.is_cuda();
    const bool cudaEverywhere = !control.anyTrue(!cudaHere);
    if (!cudaEverywhere && requested == dist::CommBackend::Nccl && cudaHere)
        throw InputError("--comm nccl needs a CUDA device on every rank, and some ranks train on the CPU (--device)");
    if (dist::chooseCommBackend(requested, cudaHere && cudaEverywhere) != dist::CommBackend::Nccl)
        return nullptr;
    const auto hosts = control.allgatherStrings(control.host());
    const int local = dist::localGpuIndex(hosts, control.rank(), static_cast<int>(torch::cuda::device_count()));
    const int index = o.device.starts_with("cuda:") ? device.index() : local;
    return dist::makeNcclCommunicator(control, index, o.collectiveTimeout);
}

} // namespace

int runTraining(const TrainOptions& o, dist::Communicator& control)
{
    installStopSignal();
    std::unique_ptr<telemetry::MetricsWriter> metrics; // rank 0's, from the hello on
    DoneRecord done(Clock::now());
    int64_t step = 0;
    const auto nccl = gradientCommunicator(o, control);
    dist::Communicator& comm = nccl ? *nccl : control;
    try {
        const LoopEnd end = trainLoop(o, comm, metrics, done, step);
        done.write(metrics.get(), end.status, end.steps);
        return end.exitCode;
    } catch (const std::exception& e) {
        if (metrics) {
            const bool input = dynamic_cast<const InputError*>(&e) != nullptr;
            metrics->write(
                "error",
                {{"rank", comm.rank()}, {"host", comm.host()}, {"message", e.what()}, {"exit_code", input ? 2 : 1}});
        }
        done.write(metrics.get(), "failed", step);
        throw;
    }
}

} // namespace traindeck::train
