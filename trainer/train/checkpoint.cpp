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

CheckpointResult saveCheckpoint(const std::string& outDir, int64_t step, model::Qwen2ForCausalLM& model,
                                const AdamW& optimizer, const nlohmann::json& trainerState,
                                const std::vector<std::string>& tokenizerFiles, int64_t keep)
{
    const auto started = std::chrono::steady_clock::now();
    const fs::path root = fs::path(outDir) / "checkpoints";
    util::makeDirs(root.string());
    const std::string name = stepName(step);
    const fs::path tmp = root / (".tmp-" + name + "-" + std::to_string(::getpid()));
    const fs::path final = root / name;
    fs::remove_all(tmp);
    model::savePretrained(model, tmp.string(), torch::kFloat32, tokenizerFiles);
    auto state = optimizer.stateTensors();
    model::writeSafetensors((tmp / "optimizer.safetensors").string(), state,
                            {{"format", "pt"}, {"optimizer", "adamw"}, {"steps", std::to_string(optimizer.steps())}});
    util::writeFileAtomic((tmp / "trainer_state.json").string(), trainerState.dump(2) + "\n");
    util::fsyncDirectory(tmp.string());
    fs::remove_all(final);
    fs::rename(tmp, final);
    util::fsyncDirectory(root.string());
    util::writeFileAtomic((root / "latest").string(), name + "\n");

    // Keep the newest `keep` complete checkpoints.
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(root))
        if (e.is_directory() && e.path().filename().string().rfind("step-", 0) == 0)
            names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    for (size_t i = 0; i + static_cast<size_t>(keep) < names.size(); ++i)
        fs::remove_all(root / names[i]);

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
    } catch (const nlohmann::json::parse_error& e) {
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
