#include "train/checkpoint.h"

#include "model/hf_checkpoint.h"
#include "model/safetensors.h"
#include "util/errors.h"
#include "util/fileio.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <unistd.h>

namespace fs = std::filesystem;

namespace traindeck::train {

static std::string stepName(int64_t step)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "step-%08lld", static_cast<long long>(step));
    return buf;
}

// Leftovers of saves that were interrupted (a crash, a full disk, a kill): temporary directories are
// removed; an old checkpoint that util::replaceDirectory had renamed aside is put back when its step
// directory is missing, and removed otherwise.
static void removeLeftovers(const fs::path& root)
{
    std::vector<fs::path> entries;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(root, ec))
        entries.push_back(e.path());
    for (const fs::path& p : entries) {
        const std::string n = p.filename().string();
        if (n.rfind(".tmp-step-", 0) == 0) {
            fs::remove_all(p, ec);
            if (ec)
                std::fprintf(stderr, "warning: %s: cannot remove a stale temporary checkpoint: %s\n", p.c_str(),
                             ec.message().c_str());
        } else if (const size_t old = n.find(".old-"); n.rfind(".step-", 0) == 0 && old != std::string::npos) {
            const fs::path original = root / n.substr(1, old - 1);
            if (!fs::exists(original, ec))
                fs::rename(p, original, ec);
            else
                fs::remove_all(p, ec);
        }
    }
}

static std::string latestName(const fs::path& root)
{
    std::error_code ec;
    if (!fs::exists(root / "latest", ec))
        return {};
    std::string name;
    try {
        name = util::readFile((root / "latest").string());
    } catch (const InputError&) {
        return {};
    }
    while (!name.empty() && (name.back() == '\n' || name.back() == ' '))
        name.pop_back();
    return name;
}

CheckpointResult saveCheckpoint(const std::string& outDir, int64_t step, model::Qwen2ForCausalLM& model,
                                const AdamW& optimizer, const nlohmann::json& trainerState,
                                const std::vector<std::string>& tokenizerFiles, int64_t keep)
{
    return saveCheckpoint(outDir, step, model, optimizer.stateTensors(), optimizer.steps(), trainerState,
                          tokenizerFiles, keep);
}

CheckpointResult saveCheckpoint(const std::string& outDir, int64_t step, model::Qwen2ForCausalLM& model,
                                const std::vector<std::pair<std::string, torch::Tensor>>& optimizerState,
                                int64_t optimizerSteps, const nlohmann::json& trainerState,
                                const std::vector<std::string>& tokenizerFiles, int64_t keep)
{
    const auto started = std::chrono::steady_clock::now();
    const fs::path root = fs::path(outDir) / "checkpoints";
    util::makeDirs(root.string());
    const std::string name = stepName(step);
    const fs::path tmp = root / (".tmp-" + name + "-" + std::to_string(::getpid()));
    const fs::path final = root / name;
    removeLeftovers(root);
    try {
        fs::remove_all(tmp);
        model::savePretrained(model, tmp.string(), torch::kFloat32, tokenizerFiles);
        model::writeSafetensors((tmp / "optimizer.safetensors").string(), optimizerState,
                                {{"format", "pt"}, {"optimizer", "adamw"}, {"steps", std::to_string(optimizerSteps)}});
        util::writeFileAtomic((tmp / "trainer_state.json").string(), trainerState.dump(2) + "\n");
        util::fsyncDirectory(tmp.string());
        // Re-saving a step (after a resume) replaces it in one step: `latest` may name it.
        util::replaceDirectory(tmp.string(), final.string());
        util::writeFileAtomic((root / "latest").string(), name + "\n");
    } catch (const InputError& e) {
        std::error_code ec;
        fs::remove_all(tmp, ec);
        throw InputError("checkpoint " + final.string() + " was not saved: " + e.what());
    } catch (const std::exception& e) {
        std::error_code ec;
        fs::remove_all(tmp, ec);
        throw RuntimeFailure("checkpoint " + final.string() + " was not saved: " + e.what());
    }

    // Keep the newest `keep` complete checkpoints, and always the one `latest` names (after a resume
    // from an earlier step it need not be the newest).
    const std::string latest = latestName(root);
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(root))
        if (e.is_directory() && e.path().filename().string().rfind("step-", 0) == 0)
            names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    for (size_t i = 0; i + static_cast<size_t>(keep) < names.size(); ++i) {
        if (names[i] == latest)
            continue;
        std::error_code ec;
        fs::remove_all(root / names[i], ec);
        if (ec)
            std::fprintf(stderr, "warning: %s: cannot remove an old checkpoint: %s\n", (root / names[i]).c_str(),
                         ec.message().c_str());
    }

    CheckpointResult r;
    r.path = (fs::path("checkpoints") / name).string();
    for (const auto& e : fs::directory_iterator(final))
        if (e.is_regular_file())
            r.bytes += e.file_size();
    r.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
    return r;
}

std::string resolveCheckpoint(const std::string& outDir, const std::string& spec)
{
    std::string dir = spec;
    if (spec == "latest") {
        const fs::path marker = fs::path(outDir) / "checkpoints" / "latest";
        if (!fs::exists(marker))
            throw InputError(marker.string() + ": no checkpoint to resume from (the run has not saved one yet)");
        std::string name = util::readFile(marker.string());
        while (!name.empty() && (name.back() == '\n' || name.back() == ' '))
            name.pop_back();
        dir = (fs::path(outDir) / "checkpoints" / name).string();
    }
    for (const char* f : {"config.json", "model.safetensors", "optimizer.safetensors", "trainer_state.json"})
        if (!fs::exists(fs::path(dir) / f))
            throw InputError(dir + ": not a complete checkpoint (" + f + " is missing)");
    return dir;
}

nlohmann::json readTrainerState(const std::string& dir)
{
    const std::string path = (fs::path(dir) / "trainer_state.json").string();
    try {
        return nlohmann::json::parse(util::readFile(path));
    } catch (const nlohmann::json::exception& e) { // parse_error, or out_of_range: a number that overflows
        throw InputError(path + ": invalid JSON: " + e.what());
    }
}

void loadOptimizerState(const std::string& dir, AdamW& optimizer)
{
    auto file = model::SafetensorsFile::open((fs::path(dir) / "optimizer.safetensors").string());
    torch::NoGradGuard noGrad;
    for (auto& ap : optimizer.params()) {
        for (auto [suffix, target] : {std::pair{".exp_avg", &ap.expAvg}, std::pair{".exp_avg_sq", &ap.expAvgSq}}) {
            const auto* info = file->find(ap.name + suffix);
            if (!info)
                throw InputError(file->path() + ": optimizer state for \"" + ap.name + "\" is missing");
            auto v = file->view(*info);
            if (v.sizes() != target->sizes())
                throw InputError(file->path() + ": optimizer state for \"" + ap.name + "\" has the wrong shape");
            target->copy_(v);
        }
    }
    const auto& meta = file->metadata();
    if (auto it = meta.find("steps"); it != meta.end())
        optimizer.setSteps(std::stoll(it->second));
}

} // namespace traindeck::train
