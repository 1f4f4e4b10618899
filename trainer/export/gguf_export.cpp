#include "export/gguf_export.h"

#include "export/gguf_vocab.h"
#include "export/tensor_names.h"
#include "model/config.h"
#include "model/hf_checkpoint.h"
#include "model/qwen2.h"
#include "model/safetensors.h"
#include "util/errors.h"
#include "util/fileio.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>

#include <sys/mman.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace traindeck::exporter {

namespace {

constexpr const char* kUsage =
    "usage: traindeck-trainer export-gguf --model DIR --out FILE.gguf [--dtype f32|f16|bf16] [--tokenizer FILE]\n"
    "\n"
    "Writes a GGUF v3 file that llama.cpp loads as architecture qwen2: hyper-parameters, the tokenizer\n"
    "(gpt2-style BPE, qwen2 pre-tokenizer) and every tensor under llama.cpp's names.\n"
    "  --model DIR        Hugging Face model directory: config.json, model.safetensors (or shards),\n"
    "                     tokenizer.json (a training checkpoint such as RUN/checkpoints/step-00000100 works)\n"
    "  --out FILE.gguf    written atomically (temporary file, then rename)\n"
    "  --dtype T          type of the weight matrices: f16 (default), bf16 or f32; norms and biases stay f32\n"
    "  --tokenizer FILE   tokenizer.json to use instead of DIR/tokenizer.json\n"
    "exit codes: 0 written, 1 runtime failure (I/O), 2 bad input (nothing written)\n";

constexpr int64_t kChunkElements = int64_t(4) << 20; // converted per step: 16 MiB of f32 at most
constexpr uint64_t kProgressMinBytes = uint64_t(64) << 20;

torch::ScalarType torchType(GgmlType t)
{
    switch (t) {
    case GgmlType::F32: return torch::kFloat32;
    case GgmlType::F16: return torch::kFloat16;
    case GgmlType::BF16: return torch::kBFloat16;
    }
    throw std::logic_error("ggml type");
}

GgufFileType fileType(GgmlType t)
{
    switch (t) {
    case GgmlType::F32: return GgufFileType::AllF32;
    case GgmlType::F16: return GgufFileType::MostlyF16;
    case GgmlType::BF16: return GgufFileType::MostlyBF16;
    }
    throw std::logic_error("ggml type");
}

GgmlType parseDtype(const std::string& s)
{
    if (s == "f32" || s == "fp32" || s == "float32")
        return GgmlType::F32;
    if (s == "f16" || s == "fp16" || s == "float16")
        return GgmlType::F16;
    if (s == "bf16" || s == "bfloat16")
        return GgmlType::BF16;
    throw InputError("--dtype \"" + s + "\" is not supported (use f32, f16 or bf16)");
}

uint32_t toU32(int64_t v, const char* what)
{
    if (v < 0 || v > int64_t(UINT32_MAX))
        throw InputError(std::string("config.json: ") + what + " does not fit GGUF's u32");
    return static_cast<uint32_t>(v);
}

std::string modelName(const fs::path& dir)
{
    fs::path d = fs::weakly_canonical(dir);
    if (d.filename().empty())
        d = d.parent_path();
    std::string name = d.filename().string();
    // A training checkpoint: RUN/checkpoints/step-N -> "RUN step-N".
    if (name.rfind("step-", 0) == 0 && d.parent_path().filename() == "checkpoints")
        name = d.parent_path().parent_path().filename().string() + " " + name;
    return name.empty() ? "qwen2" : name;
}

std::string gib(uint64_t bytes)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f GB", static_cast<double>(bytes) / 1e9);
    return buf;
}

// Address ranges at which `path` is memory-mapped in this process (from /proc/self/maps).
std::vector<std::pair<uintptr_t, uintptr_t>> mappedRanges(const std::string& path)
{
    std::vector<std::pair<uintptr_t, uintptr_t>> out;
    std::error_code ec;
    const std::string canonical = fs::canonical(path, ec).string();
    std::ifstream maps("/proc/self/maps");
    std::string line;
    while (std::getline(maps, line)) {
        const auto slash = line.find('/');
        if (slash == std::string::npos || line.compare(slash, std::string::npos, canonical) != 0)
            continue;
        std::istringstream in(line);
        uintptr_t begin = 0, end = 0;
        char dash;
        in >> std::hex >> begin >> dash >> end;
        out.emplace_back(begin, end);
    }
    return out;
}

// Once a tensor is written, drop its pages from this process's resident set when they belong to the
// read-only mapping of the weight file (they are re-read from the file if touched again), so the exporter's
// footprint stays at about one tensor, not the whole model. Anything else (an aligned copy) is left alone.
void releaseMappedPages(const void* data, size_t bytes, const std::vector<std::pair<uintptr_t, uintptr_t>>& ranges)
{
    const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
    const auto p = reinterpret_cast<uintptr_t>(data);
    for (const auto& [b, e] : ranges) {
        if (p < b || p + bytes > e)
            continue;
        const uintptr_t first = (p + page - 1) & ~(page - 1), last = (p + bytes) & ~(page - 1);
        if (last > first)
            ::madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
        return;
    }
}

struct PlannedTensor {
    std::string hfName, ggufName;
    std::shared_ptr<model::SafetensorsFile> file;
    const model::TensorInfo* info = nullptr;
    GgmlType type = GgmlType::F32;
};

} // namespace

ExportResult exportGguf(const ExportOptions& o, std::ostream& log)
{
    const auto started = std::chrono::steady_clock::now();
    // ---- everything that can be wrong with the input is checked before the output is created ----
    if (o.modelDir.empty() || !fs::is_directory(o.modelDir))
        throw InputError(o.modelDir + ": model directory does not exist");
    if (o.outPath.empty())
        throw InputError("export-gguf needs --out FILE.gguf");
    const fs::path outPath(o.outPath);
    const fs::path outDir = outPath.has_parent_path() ? outPath.parent_path() : fs::path(".");
    if (!fs::is_directory(outDir))
        throw InputError(o.outPath + ": the output directory " + outDir.string() + " does not exist");
    if (fs::is_directory(outPath))
        throw InputError(o.outPath + ": is a directory; give a file name such as model.gguf");

    const auto config = model::Qwen2Config::fromFile((fs::path(o.modelDir) / "config.json").string());
    model::validateWeights(o.modelDir, config); // names, shapes, dtypes, byte bounds (truncated files)

    const std::string tokPath =
        o.tokenizerPath.empty() ? (fs::path(o.modelDir) / "tokenizer.json").string() : o.tokenizerPath;
    if (!fs::is_regular_file(tokPath))
        throw InputError(tokPath + ": no tokenizer.json" +
                         (o.tokenizerPath.empty() ? " in the model directory; pass --tokenizer FILE (the tokenizer "
                                                    "the model was trained with)"
                                                  : std::string()));
    const GgufVocab vocab = loadGgufVocab(tokPath, config.vocab_size, config.bos_token_id, config.eos_token_id);
    if (vocab.ignoreMerges)
        log << "export-gguf: warning: " << tokPath
            << " sets ignore_merges, which llama.cpp's qwen2 tokenizer does not apply; tokenisation may differ\n";
    if (config.raw.contains("rope_scaling") && !config.raw["rope_scaling"].is_null())
        log << "export-gguf: warning: config.json's rope_scaling is not exported (the trainer's model ignores it "
               "too)\n";
    if (config.raw.value("use_sliding_window", false))
        log << "export-gguf: warning: config.json's use_sliding_window is not exported (the trainer's model uses "
               "full attention too)\n";

    std::map<std::string, std::pair<std::shared_ptr<model::SafetensorsFile>, const model::TensorInfo*>> stored;
    std::map<const model::SafetensorsFile*, std::vector<std::pair<uintptr_t, uintptr_t>>> mapped;
    for (const auto& path : model::weightFiles(o.modelDir)) {
        auto file = model::SafetensorsFile::open(path);
        mapped[file.get()] = mappedRanges(path);
        for (const auto& t : file->tensors())
            stored[t.name] = {file, &t};
    }
    std::vector<PlannedTensor> plan;
    for (const auto& [hfName, shape] : model::expectedParameters(config)) {
        auto gguf = ggufTensorName(hfName);
        auto it = stored.find(hfName);
        if (!gguf || it == stored.end())
            throw InputError(o.modelDir + ": cannot export tensor \"" + hfName + "\"");
        PlannedTensor p{hfName, *gguf, it->second.first, it->second.second,
                        shape.size() == 1 ? GgmlType::F32 : o.dtype};
        plan.push_back(std::move(p));
    }
    // Tied embeddings: no output.weight; llama.cpp's qwen2 loader then uses token_embd for the LM head.

    // ---- metadata ----
    std::unique_ptr<util::AtomicFileWriter> out;
    GgufWriter writer([&out](const void* data, size_t bytes) { out->write(data, bytes); });
    const std::string arch = "qwen2";
    writer.addString("general.architecture", arch);
    writer.addString("general.type", "model");
    writer.addString("general.name", modelName(o.modelDir));
    writer.addUint32("general.file_type", static_cast<uint32_t>(fileType(o.dtype)));
    writer.addUint32("general.quantization_version", 2);
    writer.addUint32(arch + ".block_count", toU32(config.num_hidden_layers, "num_hidden_layers"));
    writer.addUint32(arch + ".context_length", toU32(config.max_position_embeddings, "max_position_embeddings"));
    writer.addUint32(arch + ".embedding_length", toU32(config.hidden_size, "hidden_size"));
    writer.addUint32(arch + ".feed_forward_length", toU32(config.intermediate_size, "intermediate_size"));
    writer.addUint32(arch + ".attention.head_count", toU32(config.num_attention_heads, "num_attention_heads"));
    writer.addUint32(arch + ".attention.head_count_kv", toU32(config.num_key_value_heads, "num_key_value_heads"));
    writer.addFloat32(arch + ".rope.freq_base", static_cast<float>(config.rope_theta));
    writer.addFloat32(arch + ".attention.layer_norm_rms_epsilon", static_cast<float>(config.rms_norm_eps));
    writer.addString("tokenizer.ggml.model", "gpt2");
    writer.addString("tokenizer.ggml.pre", "qwen2");
    writer.addStringArray("tokenizer.ggml.tokens", vocab.tokens);
    writer.addInt32Array("tokenizer.ggml.token_type", vocab.types);
    writer.addStringArray("tokenizer.ggml.merges", vocab.merges);
    if (vocab.bos)
        writer.addUint32("tokenizer.ggml.bos_token_id", static_cast<uint32_t>(*vocab.bos));
    if (vocab.eos)
        writer.addUint32("tokenizer.ggml.eos_token_id", static_cast<uint32_t>(*vocab.eos));
    if (vocab.pad)
        writer.addUint32("tokenizer.ggml.padding_token_id", static_cast<uint32_t>(*vocab.pad));
    writer.addBool("tokenizer.ggml.add_bos_token", vocab.addBos);
    writer.addBool("tokenizer.ggml.add_eos_token", vocab.addEos);
    if (!vocab.chatTemplate.empty())
        writer.addString("tokenizer.chat_template", vocab.chatTemplate);

    for (const auto& p : plan) {
        std::vector<uint64_t> ne;
        for (auto it = p.info->shape.rbegin(); it != p.info->shape.rend(); ++it)
            ne.push_back(static_cast<uint64_t>(*it));
        writer.addTensor(p.ggufName, ne, p.type);
    }

    // ---- data: one tensor at a time, converted in bounded chunks ----
    const uint64_t total = writer.totalBytes();
    const bool showProgress = total >= kProgressMinBytes;
    out = std::make_unique<util::AtomicFileWriter>(o.outPath);
    writer.writeHeader();
    ExportResult result;
    torch::NoGradGuard noGrad;
    uint64_t done = writer.headerBytes();
    auto lastReport = std::chrono::steady_clock::now();
    for (size_t i = 0; i < plan.size(); ++i) {
        const auto& p = plan[i];
        const auto source = p.file->view(*p.info);
        const auto flat = source.reshape({-1});
        const auto target = torchType(p.type);
        const int64_t n = flat.numel();
        int64_t nonFinite = 0, overflowed = 0;
        for (int64_t start = 0; start < n; start += kChunkElements) {
            const auto src = flat.narrow(0, start, std::min(kChunkElements, n - start));
            const auto dst = src.to(target).contiguous();
            const auto srcFinite = torch::isfinite(src);
            nonFinite += src.numel() - srcFinite.sum().item<int64_t>();
            if (p.type != GgmlType::F32)
                overflowed += torch::logical_and(srcFinite, torch::isinf(dst)).sum().item<int64_t>();
            writer.writeTensorData(dst.data_ptr(), static_cast<size_t>(dst.numel()) * dst.element_size());
            done += static_cast<uint64_t>(dst.numel()) * dst.element_size();
        }
        releaseMappedPages(source.data_ptr(), static_cast<size_t>(source.nbytes()), mapped[p.file.get()]);
        if (nonFinite)
            log << "export-gguf: warning: " << p.hfName << " holds " << nonFinite << " NaN/inf values\n";
        if (overflowed)
            log << "export-gguf: warning: " << overflowed << " values of " << p.hfName << " exceed the "
                << ggmlTypeName(p.type) << " range and became +-inf; export with --dtype bf16 or f32\n";
        result.nonFinite += nonFinite;
        result.overflowed += overflowed;
        const auto now = std::chrono::steady_clock::now();
        if (showProgress && (now - lastReport > std::chrono::seconds(1) || i + 1 == plan.size())) {
            lastReport = now;
            log << "export-gguf: " << (i + 1) << "/" << plan.size() << " tensors, " << gib(done) << " of " << gib(total)
                << " (" << p.ggufName << ")\n";
            log.flush();
        }
    }
    writer.finish();
    out->commit();
    result.bytes = total;
    result.tensors = plan.size();
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return result;
}

int runExportGguf(const std::vector<std::string>& args)
{
    ExportOptions o;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--help" || a == "-h") {
            std::cout << kUsage;
            return 0;
        }
        if (a != "--model" && a != "--out" && a != "--dtype" && a != "--tokenizer")
            throw InputError("export-gguf: unknown argument \"" + a + "\"\n" + kUsage);
        if (i + 1 >= args.size())
            throw InputError("export-gguf: " + a + " needs a value");
        const std::string& v = args[++i];
        if (a == "--model")
            o.modelDir = v;
        else if (a == "--out")
            o.outPath = v;
        else if (a == "--tokenizer")
            o.tokenizerPath = v;
        else
            o.dtype = parseDtype(v);
    }
    if (o.modelDir.empty() || o.outPath.empty())
        throw InputError(std::string("export-gguf needs --model DIR and --out FILE.gguf\n") + kUsage);
    const auto r = exportGguf(o, std::cerr);
    char secs[32];
    std::snprintf(secs, sizeof secs, "%.1f", r.seconds);
    std::cerr << "export-gguf: wrote " << o.outPath << ": " << r.tensors << " tensors, " << r.bytes << " bytes ("
              << ggmlTypeName(o.dtype) << ") in " << secs << " s\n";
    return 0;
}

} // namespace traindeck::exporter
