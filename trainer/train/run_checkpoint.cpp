#include "train/run.h"

#include "train/checkpoint.h"
#include "train/rank_zero.h"
#include "train/trainer.h"
#include "util/errors.h"
#include "util/fileio.h"

#include <cstdio>
#include <filesystem>

namespace fs = std::filesystem;

namespace traindeck::train {

// The default CPU generator's state, for checkpoints (training itself draws no random numbers today,
// but dropout or sampling added later must resume exactly too).
std::string rngStateHex()
{
    auto state = at::detail::getDefaultCPUGenerator().get_state();
    static const char* digits = "0123456789abcdef";
    std::string hex;
    const auto* p = state.data_ptr<uint8_t>();
    for (int64_t i = 0; i < state.numel(); ++i) {
        hex += digits[p[i] >> 4];
        hex += digits[p[i] & 15];
    }
    return hex;
}

void restoreRngState(const std::string& hex)
{
    if (hex.empty() || hex.size() % 2)
        return;
    auto state = torch::empty({static_cast<int64_t>(hex.size() / 2)}, torch::kUInt8);
    auto* p = state.data_ptr<uint8_t>();
    auto nibble = [](char c) { return static_cast<uint8_t>(c <= '9' ? c - '0' : c - 'a' + 10); };
    for (size_t i = 0; i < hex.size() / 2; ++i)
        p[i] = static_cast<uint8_t>(nibble(hex[2 * i]) << 4 | nibble(hex[2 * i + 1]));
    auto generator = at::detail::getDefaultCPUGenerator();
    generator.set_state(state);
}

// Resume state. Only rank 0 reads the checkpoint (it wrote it, into the head's out directory, which
// need not exist on the other nodes): the others get its trainer state and model config here, and
// its parameters and optimizer state from the start-up broadcast (broadcastStartState). Every rank
// takes part in the broadcast, also when rank 0 could not read the checkpoint, so that none waits forever.
ResumePoint readResumePoint(const TrainOptions& o, dist::Communicator& comm)
{
    ResumePoint resume;
    if (o.resume.empty())
        return resume;
    const int rank = comm.rank();
    nlohmann::json envelope;
    if (rank == 0) {
        try {
            resume.dir = resolveCheckpoint(o.out, o.resume);
            resume.state = readTrainerState(resume.dir);
            envelope = {
                {"ok", true},
                {"dir", resume.dir},
                {"state", resume.state},
                {"config", nlohmann::json::parse(util::readFile((fs::path(resume.dir) / "config.json").string()))}};
        } catch (const std::exception& e) {
            envelope = {{"ok", false}, {"error", e.what()}};
            broadcastString(comm, envelope.dump());
            throw;
        }
    }
    const std::string received = broadcastString(comm, rank == 0 ? envelope.dump() : std::string());
    if (rank != 0) {
        envelope = nlohmann::json::parse(received);
        if (!envelope.value("ok", false))
            throw InputError("rank 0 could not read the checkpoint to resume from: " +
                             envelope.value("error", std::string()));
        resume.dir = envelope.at("dir").get<std::string>();
        resume.state = envelope.at("state");
        resume.config = nlohmann::ordered_json::parse(envelope.at("config").dump());
    }
    return resume;
}

namespace {

// trainer_state.json: where a resumed run continues, and what it must match to continue exactly.
nlohmann::json trainerState(const TrainingRun& run, int64_t atStep)
{
    const auto& o = run.o;
    const auto& scaler = run.scaler;
    nlohmann::json state{
        {"step", atStep},
        {"epoch", run.epoch},
        {"position", run.position},
        {"samples_consumed_in_epoch", run.balancer.active() ? run.position : run.position * run.world},
        {"world_size", run.world},
        {"zero", run.o.zero},
        {"optimizer_steps", run.optimizer->steps()},
        {"loss_scale", scaler.enabled() ? nlohmann::json(scaler.scale()) : nlohmann::json()},
        {"scaler", {{"scale", scaler.scale()}, {"good_steps", scaler.goodSteps()}, {"skipped", scaler.skippedSteps()}}},
        {"lr_schedule", {{"peak", run.peakLr}, {"min", run.minLr}, {"warmup", o.warmup}, {"max_steps", run.maxSteps}}},
        {"seed", o.seed},
        {"rng", {{"torch_cpu", rngStateHex()}}},
        {"config_hash",
         std::to_string(std::hash<std::string>{}(run.net->config().toJson().dump() + std::to_string(o.seqLen)))}};
    if (run.balancer.active())
        state["balance_shares"] = run.balancer.shares(); // the split the next step uses; positions are global
    return state;
}

} // namespace

// Rank 0 writes; the barriers keep the other ranks from running ahead or ending meanwhile.
void writeCheckpoint(TrainingRun& run, int64_t atStep)
{
    run.hooks.mark(atStep, dist::Phase::CheckpointWait);
    run.comm.barrier();
    const auto optimizerState =
        run.buckets->optimizerStateForCheckpoint(*run.optimizer); // gathered from every rank with --zero 1
    if (run.lead) {
        run.hooks.mark(atStep, dist::Phase::CheckpointWrite);
        auto r = saveCheckpoint(run.o.out, atStep, run.net, optimizerState, run.optimizer->steps(),
                                trainerState(run, atStep), run.tokenizerFiles, run.o.keep);
        run.metrics->write("checkpoint", {{"step", atStep}, {"path", r.path}, {"bytes", r.bytes}, {"ms", r.ms}});
        std::fprintf(stderr, "checkpoint %s (%.1f MB, %.0f ms)\n", r.path.c_str(), r.bytes / 1e6, r.ms);
        run.hooks.mark(atStep, dist::Phase::CheckpointWait);
    }
    run.comm.barrier();
}

} // namespace traindeck::train
