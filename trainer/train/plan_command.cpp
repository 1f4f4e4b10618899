#include "train/plan_command.h"

#include "model/config.h"
#include "train/memory_plan.h"
#include "train/options.h"
#include "util/errors.h"

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <cstdio>
#include <filesystem>
#include <iostream>

namespace traindeck::train {

namespace {

// Takes "--NAME VALUE" (or "--NAME=VALUE") out of args; empty when absent.
std::string takeFlag(std::vector<std::string>& args, const std::string& name, bool boolean = false)
{
    for (size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--" + name) {
            if (boolean) {
                args.erase(args.begin() + static_cast<long>(i));
                return "true";
            }
            if (i + 1 >= args.size())
                throw InputError("--" + name + " needs a value");
            std::string value = args[i + 1];
            args.erase(args.begin() + static_cast<long>(i), args.begin() + static_cast<long>(i) + 2);
            return value;
        }
        if (args[i].rfind("--" + name + "=", 0) == 0) {
            std::string value = args[i].substr(name.size() + 3);
            args.erase(args.begin() + static_cast<long>(i));
            return value;
        }
    }
    return "";
}

bool hasFlag(const std::vector<std::string>& args, const std::string& name)
{
    for (const auto& a : args)
        if (a == "--" + name || a.rfind("--" + name + "=", 0) == 0)
            return true;
    return false;
}

double positiveNumber(const std::string& text, const std::string& flag)
{
    size_t used = 0;
    double value = 0;
    try {
        value = std::stod(text, &used);
    } catch (const std::logic_error&) {
        used = 0;
    }
    if (used != text.size() || !(value > 0))
        throw InputError("--" + flag + " must be a positive number, got \"" + text + "\"");
    return value;
}

std::string mib(double bytes)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%10.1f MiB", bytes / (1024.0 * 1024.0));
    return buf;
}

} // namespace

int runPlanCommand(const std::vector<std::string>& argsIn)
{
    std::vector<std::string> args = argsIn;
    if (hasFlag(args, "help") || hasFlag(args, "h")) {
        std::cout << "usage: traindeck-trainer plan [train flags] [--world-size N] [--available-mb MIB] [--json]\n"
                     "The memory one rank of that run needs at its fullest moment, per part, without running it.\n"
                     "--data and --max-steps may be left out. --device auto plans for this machine's device;\n"
                     "name --device cuda to plan for a GPU node. --available-mb: the memory each rank may use\n"
                     "(a GPU's memory, or a node's RAM divided by its ranks): says whether the plan fits and,\n"
                     "when it does not, which flags would make it fit.\n";
        return 0;
    }
    const bool json = !takeFlag(args, "json", true).empty();
    const std::string worldText = takeFlag(args, "world-size");
    const std::string availableText = takeFlag(args, "available-mb");
    int worldSize = 1;
    if (!worldText.empty()) {
        const double w = positiveNumber(worldText, "world-size");
        if (w != static_cast<int>(w) || w > 1 << 20)
            throw InputError("--world-size must be a whole number between 1 and 1048576, got \"" + worldText + "\"");
        worldSize = static_cast<int>(w);
    }
    const double available = availableText.empty() ? 0 : positiveNumber(availableText, "available-mb") * 1048576.0;
    // A plan needs no data and no length of run: the training parser requires both.
    if (!hasFlag(args, "data"))
        args.insert(args.end(), {"--data", "(plan)"});
    if (!hasFlag(args, "max-steps") && !hasFlag(args, "epochs"))
        args.insert(args.end(), {"--max-steps", "1"});
    const TrainOptions o = parseTrainOptions(args);

    MemoryPlanInputs in;
    in.config = o.preset.empty()
                    ? model::Qwen2Config::fromFile((std::filesystem::path(o.modelDir) / "config.json").string())
                    : model::Qwen2Config::preset(o.preset);
    in.cuda = o.device.rfind("cuda", 0) == 0 || (o.device == "auto" && torch::cuda::is_available());
    in.precision = o.precision;
    in.seqLen = o.seqLen;
    in.microBatch = o.microBatch;
    in.worldSize = worldSize;
    in.zero = o.zero;
    in.fusedLoss = o.fusedLoss;
    in.lossChunk = o.lossChunk;
    in.recomputeLayers = o.recomputeLayers;
#if TORCH_VERSION_MAJOR >= 2
    in.attentionKeepsScores = !in.cuda; // scaled_dot_product_attention: flash or memory-efficient kernels on GPUs
#else
    in.attentionKeepsScores = true;
#endif
    const MemoryPlan plan = planMemory(in);
    const auto suggestions =
        available > 0 && plan.total > available ? suggestToFit(in, available) : std::vector<MemorySuggestion>{};

    const std::string model = o.preset.empty() ? o.modelDir : o.preset;
    if (json) {
        nlohmann::ordered_json j;
        j["model"] = model;
        j["device"] = in.cuda ? "cuda" : "cpu";
        j["precision"] = in.precision;
        j["seq_len"] = in.seqLen;
        j["micro_batch"] = in.microBatch;
        j["world_size"] = in.worldSize;
        j["zero"] = in.zero;
        j["fused_loss"] = in.fusedLoss ? "on" : "off";
        j["recompute"] = in.recomputeLayers ? "layers" : "off";
        j["plan"] = plan.toJson();
        if (available > 0) {
            j["available_bytes"] = available;
            j["fits"] = plan.total <= available;
            j["suggestions"] = nlohmann::json::array();
            for (const auto& s : suggestions)
                j["suggestions"].push_back({{"flags", s.flags}, {"total_bytes", s.total}});
        }
        std::cout << j.dump() << "\n";
        return 0;
    }
    std::cout << "memory per rank: " << model << ", " << (in.cuda ? "cuda" : "cpu") << ", " << in.precision << ", "
              << in.microBatch << " x " << in.seqLen << " tokens, " << in.worldSize << " rank(s), --zero " << in.zero
              << ", --fused-loss " << (in.fusedLoss ? "on" : "off") << ", --recompute "
              << (in.recomputeLayers ? "layers" : "off") << "\n"
              << "  parameters  " << mib(plan.parameters) << "\n"
              << "  gradients   " << mib(plan.gradients) << "\n"
              << "  optimizer   " << mib(plan.optimizer) << "\n"
              << "  activations " << mib(plan.activations) << "  (peak)\n"
              << "  logits/loss " << mib(plan.logits) << "  (peak)\n"
              << "  workspace   " << mib(plan.workspace) << "\n"
              << "  total       " << mib(plan.total) << "  (the fullest moment: " << plan.peakMoment << ")\n";
    for (const auto& a : plan.assumptions)
        std::cout << "  note: " << a << "\n";
    if (available > 0) {
        std::cout << (plan.total <= available ? "fits in " : "does NOT fit in ") << mib(available) << "\n";
        for (const auto& s : suggestions)
            std::cout << "  would fit with " << s.flags << ":" << mib(s.total) << "\n";
        if (plan.total > available && suggestions.empty())
            std::cout << "  no combination of --fused-loss, --recompute, --zero and a smaller --micro-batch fits\n";
    }
    return 0;
}

} // namespace traindeck::train
