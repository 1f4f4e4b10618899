#include "model/hf_checkpoint.h"
#include "model/qwen2.h"

#include "model/safetensors.h"
#include "util/errors.h"
#include "util/fileio.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

namespace fs = std::filesystem;

namespace traindeck::model {

namespace {

std::string shapeText(const std::vector<int64_t>& shape)
{
    std::string s = "[";
    for (size_t i = 0; i < shape.size(); ++i)
        s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

bool isFloatDtype(const std::string& d)
{
    return d == "F32" || d == "F16" || d == "BF16" || d == "F64";
}

// name -> file, from model.safetensors.index.json when present.
std::map<std::string, std::string> readIndex(const std::string& dir)
{
    std::map<std::string, std::string> map;
    const fs::path indexPath = fs::path(dir) / "model.safetensors.index.json";
    if (!fs::exists(indexPath))
        return map;
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(util::readFile(indexPath.string()));
    } catch (const nlohmann::json::exception& e) { // parse_error, or out_of_range: a number that overflows
        throw InputError(indexPath.string() + ": invalid JSON: " + e.what());
    }
    if (!j.is_object() || !j.contains("weight_map") || !j["weight_map"].is_object())
        throw InputError(indexPath.string() + ": missing \"weight_map\" object");
    for (auto it = j["weight_map"].begin(); it != j["weight_map"].end(); ++it) {
        if (!it->is_string())
            throw InputError(indexPath.string() + ": weight_map entry \"" + it.key() + "\" is not a file name");
        const std::string file = it->get<std::string>();
        if (file.find('/') != std::string::npos || file == ".." || file.empty())
            throw InputError(indexPath.string() + ": weight_map entry \"" + it.key() + "\" names an invalid file");
        map[it.key()] = file;
    }
    return map;
}

} // namespace

std::vector<std::string> weightFiles(const std::string& dir)
{
    if (!fs::is_directory(dir))
        throw InputError(dir + ": not a directory");
    const auto index = readIndex(dir);
    std::vector<std::string> files;
    if (!index.empty()) {
        std::set<std::string> unique;
        for (const auto& [name, file] : index)
            unique.insert(file);
        for (const auto& f : unique)
            files.push_back((fs::path(dir) / f).string());
    } else if (fs::exists(fs::path(dir) / "model.safetensors")) {
        files.push_back((fs::path(dir) / "model.safetensors").string());
    } else {
        for (const auto& e : fs::directory_iterator(dir))
            if (e.path().extension() == ".safetensors")
                files.push_back(e.path().string());
        std::sort(files.begin(), files.end());
    }
    if (files.empty())
        throw InputError(dir + ": no weights found (expected model.safetensors or model.safetensors.index.json)");
    return files;
}

WeightSummary validateWeights(const std::string& dir, const Qwen2Config& config)
{
    std::map<std::string, std::vector<int64_t>> expected;
    for (auto& [name, shape] : expectedParameters(config))
        expected[name] = shape;
    const auto index = readIndex(dir);
    WeightSummary summary;
    std::set<std::string> seen;
    for (const auto& path : weightFiles(dir)) {
        auto file = SafetensorsFile::open(path);
        summary.files.push_back(path);
        for (const auto& t : file->tensors()) {
            const bool tiedHead = config.tie_word_embeddings && t.name == "lm_head.weight";
            auto it = expected.find(t.name);
            if (it == expected.end() && !tiedHead)
                throw InputError(path + ": tensor \"" + t.name +
                                 "\" is not a parameter of Qwen2ForCausalLM with this "
                                 "config.json (" +
                                 std::to_string(config.num_hidden_layers) + " layers)");
            const auto& want = tiedHead ? expected.at("model.embed_tokens.weight") : it->second;
            if (t.shape != want)
                throw InputError(path + ": tensor \"" + t.name + "\" has shape " + shapeText(t.shape) +
                                 " but config.json implies " + shapeText(want));
            if (!isFloatDtype(t.dtype))
                throw InputError(path + ": tensor \"" + t.name + "\" has dtype " + t.dtype +
                                 "; weights must be F32, F16 or BF16");
            if (!index.empty()) {
                auto where = index.find(t.name);
                if (where == index.end() || (fs::path(dir) / where->second).string() != path)
                    throw InputError(path + ": tensor \"" + t.name +
                                     "\" is not listed for this file in model.safetensors.index.json");
            }
            if (!seen.insert(t.name).second)
                throw InputError(path + ": tensor \"" + t.name + "\" appears in more than one weight file");
            ++summary.tensors;
            if (!tiedHead) {
                int64_t n = 1;
                for (auto d : t.shape)
                    n *= d;
                summary.parameters += n;
            }
        }
    }
    for (const auto& [name, shape] : expected)
        if (!seen.count(name))
            throw InputError(dir + ": tensor \"" + name + "\" is missing from the weight files (shape " +
                             shapeText(shape) + " expected)");
    for (const auto& [name, file] : index)
        if (!seen.count(name))
            throw InputError(dir + "/model.safetensors.index.json: lists \"" + name + "\" in " + file +
                             ", but that file does not contain it");
    return summary;
}

Qwen2ForCausalLM loadPretrained(const std::string& dir, torch::ScalarType dtype)
{
    const auto config = Qwen2Config::fromFile((fs::path(dir) / "config.json").string());
    validateWeights(dir, config);
    Qwen2ForCausalLM model(config);
    model->to(dtype);
    auto params = model->named_parameters();
    torch::NoGradGuard noGrad;
    for (const auto& path : weightFiles(dir)) {
        auto file = SafetensorsFile::open(path);
        for (const auto& t : file->tensors()) {
            auto* p = params.find(t.name);
            if (!p)
                continue; // a stored copy of a tied lm_head
            p->copy_(file->view(t));
        }
    }
    return model;
}

void savePretrained(Qwen2ForCausalLM& model, const std::string& dir, torch::ScalarType dtype,
                    const std::vector<std::string>& tokenizerFiles)
{
    util::makeDirs(dir);
    auto config = model->config();
    config.torch_dtype = dtypeName(dtype);
    util::writeFileAtomic((fs::path(dir) / "config.json").string(), config.toJson().dump(2) + "\n");
    std::vector<std::pair<std::string, torch::Tensor>> tensors;
    for (const auto& item : model->named_parameters())
        tensors.emplace_back(item.key(), item.value().detach().to(dtype));
    writeSafetensors((fs::path(dir) / "model.safetensors").string(), tensors);
    for (const auto& src : tokenizerFiles) {
        if (src.empty() || !fs::exists(src))
            continue;
        util::writeFileAtomic((fs::path(dir) / fs::path(src).filename()).string(), util::readFile(src));
    }
}

std::string dtypeName(torch::ScalarType type)
{
    switch (type) {
    case torch::kFloat32: return "float32";
    case torch::kBFloat16: return "bfloat16";
    case torch::kFloat16: return "float16";
    default: return c10::toString(type);
    }
}

torch::ScalarType parseDtypeName(const std::string& name)
{
    if (name == "fp32" || name == "float32" || name == "f32")
        return torch::kFloat32;
    if (name == "bf16" || name == "bfloat16")
        return torch::kBFloat16;
    if (name == "fp16" || name == "float16" || name == "f16")
        return torch::kFloat16;
    throw InputError("unknown dtype \"" + name + "\" (use fp32, bf16 or fp16)");
}

} // namespace traindeck::model
