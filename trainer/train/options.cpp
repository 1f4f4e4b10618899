#include "train/options.h"

#include "dist/nccl_communicator.h"
#include "train/device.h"
#include "util/errors.h"
#include "util/fileio.h"

#include <cmath>
#include <map>

namespace traindeck::train {

namespace {

enum class Kind { String, Int, Float, Bool };

struct Flag {
    const char* name;
    Kind kind;
    const char* help;
};

const std::vector<Flag>& flags()
{
    static const std::vector<Flag> all = {
        {"model", Kind::String, "Hugging Face model directory to start from"},
        {"preset", Kind::String, "built-in model preset (random init), e.g. qwen2-tiny"},
        {"tokenizer", Kind::String, "tokenizer.json (default: the model directory's; bytes without one)"},
        {"data", Kind::String, "JSONL file, text file or directory of them"},
        {"text-field", Kind::String, "JSONL field holding the text (default text)"},
        {"batch-mode", Kind::String, "pack (default) or pad"},
        {"cache-dir", Kind::String, "token cache root (default $XDG_CACHE_HOME/traindeck/tokens)"},
        {"seq-len", Kind::Int, "sequence length (default 128)"},
        {"micro-batch", Kind::Int, "sequences per rank per micro-step (default 4)"},
        {"grad-accum", Kind::Int, "micro-steps per optimizer step (default 1)"},
        {"lr", Kind::Float, "peak learning rate (default 3e-4)"},
        {"min-lr", Kind::Float, "final learning rate of the cosine schedule (default lr/10)"},
        {"warmup", Kind::Int, "linear warmup steps (default 10)"},
        {"max-steps", Kind::Int, "optimizer steps to run"},
        {"epochs", Kind::Int, "epochs to run (instead of --max-steps)"},
        {"weight-decay", Kind::Float, "AdamW weight decay (default 0.1)"},
        {"clip", Kind::Float, "global gradient-norm clip, 0 disables (default 1.0)"},
        {"seed", Kind::Int, "seed for initialisation and shuffling (default 1234)"},
        {"init-std", Kind::Float, "std of the random initialisation (default: config initializer_range)"},
        {"precision", Kind::String, "fp32 | bf16 | fp16 (default fp32; fp16 needs a CUDA device)"},
        {"device", Kind::String, "auto | cpu | cuda | cuda:N (default auto: cuda:<local rank> when CUDA is there)"},
        {"compression", Kind::String, "gradient wire compression: none | fp16 | bf16"},
        {"bucket-mb", Kind::Float, "allreduce bucket size in MiB (default 25)"},
        {"zero", Kind::Int, "0 (default) | 1: shard the optimizer state over the ranks (ZeRO stage 1)"},
        {"comm", Kind::String,
         "auto (default: NCCL on CUDA devices when built with it, else MPI) | mpi | nccl: gradient collectives"},
        {"collective-timeout", Kind::Float,
         "seconds an NCCL collective may take before the communicator is aborted and the job ends with an "
         "error (default 600, 0: no limit)"},
        {"overlap", Kind::String,
         "on (default) | off: start each bucket's allreduce during backward, as soon as its gradients are ready"},
        {"fused-loss", Kind::String,
         "on (default) | off: compute the output layer and the loss in chunks of tokens, never holding the "
         "whole [tokens, vocab] logits"},
        {"loss-chunk", Kind::Int,
         "tokens per chunk of --fused-loss on (default 0: automatic, the model's hidden size)"},
        {"recompute", Kind::String,
         "off (default) | layers: keep only each decoder layer's input in forward and recompute its "
         "activations in backward (less memory, one more forward pass)"},
        {"scale-lr", Kind::Bool, "multiply the learning rate by the world size"},
        {"checkpoint-every", Kind::Int, "steps between checkpoints, 0 = only at the end"},
        {"keep", Kind::Int, "checkpoints to keep (default 3)"},
        {"out", Kind::String, "output directory (default traindeck-out)"},
        {"resume", Kind::String, "latest or a checkpoint directory"},
        {"metrics-out", Kind::String, "JSON Lines telemetry file (rank 0)"},
        {"metrics-stdout", Kind::Bool, "also write telemetry records to stdout"},
        {"threads", Kind::Int, "intra-op threads per rank (default: LibTorch's)"},
        {"log-every", Kind::Int, "print progress every N steps (default 1)"},
        {"prefetch", Kind::Int, "batches prefetched by the data loader (default 4)"},
        {"balance", Kind::String,
         "off (default) | auto: every --balance-every steps give faster ranks more of the global batch"},
        {"balance-every", Kind::Int, "steps between rebalancing decisions (default 10)"},
        {"balance-shares", Kind::String,
         "TEST AID: N1,N2,... fixed samples per rank per micro-step (sum = micro-batch x ranks)"},
        {"stall-warning", Kind::Float,
         "seconds ranks may stay at one step and phase before rank 0 names them in a warning (default 60, 0 off)"},
        {"stall-abort", Kind::Float,
         "seconds of stall after which the job is aborted with an error (default 0: never)"},
        {"inject-stall", Kind::String, "TEST AID: RANK:STEP:SECONDS[:PHASE] stops one rank at that step"},
        {"inject-delay", Kind::String, "TEST AID: RANK:MS[:PHASE] makes one rank a straggler"},
        {"inject-slowdown", Kind::String,
         "TEST AID: RANK:FACTOR makes one rank's forward and backward FACTOR times slower per sample"},
        {"inject-exit", Kind::String, "TEST AID: RANK:STEP makes a rank exit with status 3 at that step"},
        {"inject-nan", Kind::String, "TEST AID: RANK:STEP makes that rank's loss NaN at that step"},
        {"init-seed-per-rank", Kind::Bool, "TEST AID: initialise every rank with a different seed"},
        {"verify-sync", Kind::Bool, "TEST AID: compare parameter checksums across ranks (start and end)"},
        {"run-id", Kind::String, "run identifier for telemetry (default: the out directory's name)"},
    };
    return all;
}

const Flag* findFlag(const std::string& name)
{
    for (const auto& f : flags())
        if (name == f.name)
            return &f;
    return nullptr;
}

nlohmann::json convert(const Flag& f, const std::string& text, const std::string& where)
{
    try {
        size_t used = 0;
        switch (f.kind) {
        case Kind::String: return text;
        case Kind::Int: {
            const long long v = std::stoll(text, &used);
            if (used != text.size())
                break;
            return v;
        }
        case Kind::Float: {
            const double v = std::stod(text, &used);
            if (used != text.size() || !std::isfinite(v))
                break;
            return v;
        }
        case Kind::Bool:
            if (text == "true" || text == "1" || text == "yes")
                return true;
            if (text == "false" || text == "0" || text == "no")
                return false;
            break;
        }
    } catch (const std::exception&) {
    }
    static const std::map<Kind, const char*> names = {
        {Kind::Int, "an integer"}, {Kind::Float, "a number"}, {Kind::Bool, "true or false"}, {Kind::String, "text"}};
    throw InputError(where + ": expected " + names.at(f.kind) + ", got \"" + text + "\"");
}

template <typename T> T get(const nlohmann::json& j, const char* key, T fallback)
{
    auto it = j.find(key);
    return it == j.end() ? fallback : it->get<T>();
}

// A RANK:STEP test-aid value, if the flag was given.
std::optional<std::pair<int, int64_t>> rankAndStep(const nlohmann::json& j, const char* flag)
{
    auto it = j.find(flag);
    if (it == j.end())
        return std::nullopt;
    const std::string s = it->get<std::string>();
    const auto c = s.find(':');
    std::pair<int, int64_t> v;
    try {
        if (c == std::string::npos)
            throw std::invalid_argument(s);
        size_t used1 = 0, used2 = 0;
        v = {std::stoi(s.substr(0, c), &used1), static_cast<int64_t>(std::stoll(s.substr(c + 1), &used2))};
        if (used1 != c || used2 != s.size() - c - 1)
            throw std::invalid_argument(s);
    } catch (const std::exception&) {
        throw InputError(std::string("--") + flag + " expects RANK:STEP, got \"" + s + "\"");
    }
    if (v.first < 0 || v.second < 1)
        throw InputError(std::string("--") + flag + ": rank >= 0 and step >= 1");
    return v;
}

void requireOption(bool ok, const std::string& message)
{
    if (!ok)
        throw InputError(message);
}

// The keys of one --config FILE.json, converted as the flags are, into fromConfig.
void readConfigFile(const std::string& file, nlohmann::json& fromConfig)
{
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(util::readFile(file));
    } catch (const nlohmann::json::exception& e) { // parse_error, or out_of_range: a number that overflows
        throw InputError(file + ": invalid JSON: " + e.what());
    }
    if (!j.is_object())
        throw InputError(file + ": expected a JSON object of flags");
    for (auto it = j.begin(); it != j.end(); ++it) {
        const Flag* f = findFlag(it.key());
        if (!f)
            throw InputError(file + ": unknown key \"" + it.key() + "\"");
        const std::string where = file + ": \"" + it.key() + "\"";
        if (it->is_string())
            fromConfig[it.key()] = convert(*f, it->get<std::string>(), where);
        else if (f->kind == Kind::Bool && it->is_boolean())
            fromConfig[it.key()] = *it;
        else if (f->kind == Kind::Int && it->is_number_integer())
            fromConfig[it.key()] = *it;
        else if (f->kind == Kind::Float && it->is_number())
            fromConfig[it.key()] = it->get<double>();
        else
            throw InputError(where + ": wrong type (" + it->type_name() + ")");
    }
}

// The flags and --config files of args as one object of converted values; flags win.
nlohmann::json collectFlags(const std::vector<std::string>& args)
{
    nlohmann::json fromFlags = nlohmann::json::object(), fromConfig = nlohmann::json::object();
    for (size_t i = 0; i < args.size(); ++i) {
        std::string a = args[i];
        if (a.rfind("--", 0) != 0)
            throw InputError("unexpected argument \"" + a + "\" (flags start with --)");
        a = a.substr(2);
        std::string value;
        bool hasValue = false;
        if (auto eq = a.find('='); eq != std::string::npos) {
            value = a.substr(eq + 1);
            a = a.substr(0, eq);
            hasValue = true;
        }
        if (a == "config") {
            if (!hasValue) {
                if (i + 1 >= args.size())
                    throw InputError("--config needs a file");
                value = args[++i];
            }
            readConfigFile(value, fromConfig);
            continue;
        }
        const Flag* f = findFlag(a);
        if (!f)
            throw InputError("unknown flag --" + a + " (see traindeck-trainer train --help)");
        if (!hasValue) {
            if (f->kind == Kind::Bool && (i + 1 >= args.size() || args[i + 1].rfind("--", 0) == 0)) {
                value = "true";
            } else {
                if (i + 1 >= args.size())
                    throw InputError("--" + a + " needs a value");
                value = args[++i];
            }
        }
        fromFlags[a] = convert(*f, value, "--" + a);
    }
    nlohmann::json j = fromConfig;
    j.update(fromFlags);
    return j;
}

void readModelAndDataOptions(const nlohmann::json& j, TrainOptions& o)
{
    o.modelDir = get<std::string>(j, "model", "");
    o.preset = get<std::string>(j, "preset", "");
    o.tokenizer = get<std::string>(j, "tokenizer", "");
    o.data = get<std::string>(j, "data", "");
    o.textField = get<std::string>(j, "text-field", o.textField);
    o.batchMode = get<std::string>(j, "batch-mode", o.batchMode);
    o.cacheDir = get<std::string>(j, "cache-dir", "");
    o.seqLen = get<int64_t>(j, "seq-len", o.seqLen);
    o.microBatch = get<int64_t>(j, "micro-batch", o.microBatch);
    o.gradAccum = get<int64_t>(j, "grad-accum", o.gradAccum);
}

void readOptimizerOptions(const nlohmann::json& j, TrainOptions& o)
{
    o.lr = get<double>(j, "lr", o.lr);
    o.minLr = get<double>(j, "min-lr", o.lr / 10);
    o.warmup = get<int64_t>(j, "warmup", o.warmup);
    o.maxSteps = get<int64_t>(j, "max-steps", 0);
    o.epochs = get<int64_t>(j, "epochs", 0);
    o.weightDecay = get<double>(j, "weight-decay", o.weightDecay);
    o.clip = get<double>(j, "clip", o.clip);
    o.seed = static_cast<uint64_t>(get<int64_t>(j, "seed", static_cast<int64_t>(o.seed)));
    o.initStd = get<double>(j, "init-std", -1);
    o.precision = get<std::string>(j, "precision", o.precision);
    o.lossChunk = get<int64_t>(j, "loss-chunk", o.lossChunk);
}

// Devices, gradient communication, load balancing and the stall inspector (--overlap is read by
// checkDistributedOptions).
void readDistributedOptions(const nlohmann::json& j, TrainOptions& o)
{
    o.compression = get<std::string>(j, "compression", o.compression);
    o.device = get<std::string>(j, "device", o.device);
    o.bucketMb = get<double>(j, "bucket-mb", o.bucketMb);
    o.comm = get<std::string>(j, "comm", o.comm);
    o.collectiveTimeout = get<double>(j, "collective-timeout", o.collectiveTimeout);
    o.zero = static_cast<int>(get<int64_t>(j, "zero", o.zero));
    o.scaleLr = get<bool>(j, "scale-lr", false);
    o.balance = get<std::string>(j, "balance", o.balance);
    o.balanceEvery = get<int64_t>(j, "balance-every", o.balanceEvery);
    o.stallWarning = get<double>(j, "stall-warning", o.stallWarning);
    o.stallAbort = get<double>(j, "stall-abort", o.stallAbort);
}

// Checkpoints, outputs, telemetry, threads; and the boolean test aids.
void readRunOptions(const nlohmann::json& j, TrainOptions& o)
{
    o.checkpointEvery = get<int64_t>(j, "checkpoint-every", 0);
    o.keep = get<int64_t>(j, "keep", o.keep);
    o.out = get<std::string>(j, "out", o.out);
    o.resume = get<std::string>(j, "resume", "");
    o.metricsOut = get<std::string>(j, "metrics-out", "");
    o.metricsStdout = get<bool>(j, "metrics-stdout", false);
    o.threads = static_cast<int>(get<int64_t>(j, "threads", 0));
    o.logEvery = get<int64_t>(j, "log-every", 1);
    o.prefetch = static_cast<int>(get<int64_t>(j, "prefetch", 4));
    o.runId = get<std::string>(j, "run-id", "");
    o.initSeedPerRank = get<bool>(j, "init-seed-per-rank", false);
    o.verifySync = get<bool>(j, "verify-sync", false);
}

void checkModelDataAndOptimizerOptions(const TrainOptions& o)
{
    requireOption(o.modelDir.empty() != o.preset.empty(), "give exactly one of --model DIR or --preset NAME");
    requireOption(!o.data.empty(), "--data is required (a JSONL file, text file or directory)");
    requireOption(o.seqLen >= 2 && o.seqLen <= 1 << 20, "--seq-len must be between 2 and 1048576");
    requireOption(o.microBatch >= 1, "--micro-batch must be at least 1");
    requireOption(o.gradAccum >= 1, "--grad-accum must be at least 1");
    requireOption(o.lr > 0 && o.lr < 10, "--lr must be in (0, 10)");
    requireOption(o.minLr >= 0 && o.minLr <= o.lr, "--min-lr must be between 0 and --lr");
    requireOption(o.warmup >= 0, "--warmup must be >= 0");
    requireOption((o.maxSteps > 0) != (o.epochs > 0), "give exactly one of --max-steps N or --epochs N (positive)");
    requireOption(o.weightDecay >= 0, "--weight-decay must be >= 0");
    requireOption(o.clip >= 0, "--clip must be >= 0 (0 disables clipping)");
    requireOption(o.initStd == -1 || o.initStd > 0, "--init-std must be positive");
}

// Also sets o.fusedLoss from --fused-loss and o.recomputeLayers from --recompute.
void checkLossOptions(const nlohmann::json& j, TrainOptions& o)
{
    const auto recompute = get<std::string>(j, "recompute", o.recomputeLayers ? "layers" : "off");
    requireOption(recompute == "off" || recompute == "layers",
                  "--recompute must be off or layers, got \"" + recompute + "\"");
    o.recomputeLayers = recompute == "layers";
    const auto fusedLoss = get<std::string>(j, "fused-loss", o.fusedLoss ? "on" : "off");
    requireOption(fusedLoss == "on" || fusedLoss == "off", "--fused-loss must be on or off, got \"" + fusedLoss + "\"");
    o.fusedLoss = fusedLoss == "on";
    requireOption(o.lossChunk >= 0 && o.lossChunk <= 1 << 30, "--loss-chunk must be between 0 and 1073741824");
}

// Also sets o.overlap from --overlap.
void checkDistributedOptions(const nlohmann::json& j, TrainOptions& o)
{
    const auto overlap = get<std::string>(j, "overlap", o.overlap ? "on" : "off");
    requireOption(o.precision == "fp32" || o.precision == "bf16" || o.precision == "fp16",
                  "--precision must be fp32, bf16 or fp16");
    requireOption(isDeviceSpec(o.device), "--device must be auto, cpu, cuda or cuda:N, got \"" + o.device + "\"");
    requireOption(o.compression == "none" || o.compression == "fp16" || o.compression == "bf16",
                  "--compression must be none, fp16 or bf16");
    requireOption(o.bucketMb > 0 && o.bucketMb <= 4096, "--bucket-mb must be in (0, 4096]");
    dist::parseCommBackend(o.comm); // throws InputError naming the values
    requireOption(o.collectiveTimeout >= 0 && o.collectiveTimeout <= 7 * 86400,
                  "--collective-timeout must be between 0 and 604800 seconds");
    requireOption(overlap == "on" || overlap == "off", "--overlap must be on or off, got \"" + overlap + "\"");
    o.overlap = overlap == "on";
    requireOption(o.zero == 0 || o.zero == 1,
                  "--zero must be 0 or 1 (stage 1 shards the optimizer state), got " + std::to_string(o.zero));
    requireOption(o.zero == 0 || o.compression == "none",
                  "--zero 1 reduce-scatters fp32 gradients: leave --compression at none");
}

void checkRunOptions(const TrainOptions& o)
{
    requireOption(o.checkpointEvery >= 0, "--checkpoint-every must be >= 0");
    requireOption(o.keep >= 1, "--keep must be at least 1");
    requireOption(!o.out.empty(), "--out must not be empty");
    requireOption(o.threads >= 0 && o.threads <= 1024, "--threads must be between 0 and 1024");
    requireOption(o.logEvery >= 1, "--log-every must be at least 1");
    requireOption(o.prefetch >= 1 && o.prefetch <= 64, "--prefetch must be between 1 and 64");
    requireOption(o.batchMode == "pack" || o.batchMode == "pad", "--batch-mode must be pack or pad");
}

// TEST AID --inject-delay RANK:MS[:PHASE], if given.
std::optional<InjectDelay> parseInjectDelay(const nlohmann::json& j)
{
    auto it = j.find("inject-delay");
    if (it == j.end())
        return std::nullopt;
    const std::string s = it->get<std::string>();
    InjectDelay d;
    const auto c1 = s.find(':');
    requireOption(c1 != std::string::npos, "--inject-delay expects RANK:MS[:PHASE], got \"" + s + "\"");
    const auto c2 = s.find(':', c1 + 1);
    try {
        size_t used = 0;
        d.rank = std::stoi(s.substr(0, c1), &used);
        d.ms = std::stod(s.substr(c1 + 1, c2 == std::string::npos ? std::string::npos : c2 - c1 - 1));
    } catch (const std::exception&) {
        throw InputError("--inject-delay expects RANK:MS[:PHASE], got \"" + s + "\"");
    }
    if (c2 != std::string::npos)
        d.phase = s.substr(c2 + 1);
    requireOption(d.rank >= 0 && d.ms >= 0, "--inject-delay: rank and milliseconds must be >= 0");
    requireOption(d.phase == "data" || d.phase == "forward" || d.phase == "backward" || d.phase == "optimizer",
                  "--inject-delay: phase must be data, forward, backward or optimizer");
    return d;
}

// TEST AID --inject-slowdown RANK:FACTOR, if given (1 <= FACTOR <= 100).
std::optional<std::pair<int, double>> parseInjectSlowdown(const nlohmann::json& j)
{
    auto it = j.find("inject-slowdown");
    if (it == j.end())
        return std::nullopt;
    const std::string s = it->get<std::string>();
    const std::string usage = "--inject-slowdown expects RANK:FACTOR (e.g. 1:1.5), got \"" + s + "\"";
    const auto colon = s.find(':');
    requireOption(colon != std::string::npos, usage);
    int rank = -1;
    double factor = 0;
    try {
        size_t usedRank = 0, usedFactor = 0;
        rank = std::stoi(s.substr(0, colon), &usedRank);
        factor = std::stod(s.substr(colon + 1), &usedFactor);
        requireOption(usedRank == colon && usedFactor == s.size() - colon - 1, usage);
    } catch (const std::logic_error&) {
        throw InputError(usage);
    }
    requireOption(rank >= 0 && factor >= 1 && factor <= 100,
                  "--inject-slowdown: rank must be >= 0 and the factor between 1 and 100, got \"" + s + "\"");
    return std::make_pair(rank, factor);
}

// --balance and --balance-every, then TEST AID --balance-shares N1,N2,... into o.balanceShares.
void checkBalanceOptions(const nlohmann::json& j, TrainOptions& o)
{
    requireOption(o.balance == "off" || o.balance == "auto",
                  "--balance must be off or auto, got \"" + o.balance + "\"");
    requireOption(o.balanceEvery >= 1 && o.balanceEvery <= 1000000, "--balance-every must be between 1 and 1000000");
    auto it = j.find("balance-shares");
    if (it == j.end())
        return;
    const std::string s = it->get<std::string>();
    const std::string usage = "--balance-shares expects N1,N2,... (samples per rank, each >= 1), got \"" + s + "\"";
    size_t from = 0;
    for (;;) {
        const auto comma = s.find(',', from);
        const std::string part = s.substr(from, comma == std::string::npos ? std::string::npos : comma - from);
        try {
            size_t used = 0;
            const long long v = std::stoll(part, &used);
            requireOption(used == part.size() && v >= 1 && v <= 1000000, usage);
            o.balanceShares.push_back(v);
        } catch (const std::logic_error&) {
            throw InputError(usage);
        }
        if (comma == std::string::npos)
            break;
        from = comma + 1;
    }
    requireOption(o.balance == "off", "--balance-shares fixes the split: leave --balance off");
}

void checkStallOptions(const TrainOptions& o)
{
    requireOption(o.stallWarning >= 0 && o.stallWarning <= 86400,
                  "--stall-warning must be between 0 and 86400 seconds");
    requireOption(o.stallAbort >= 0 && o.stallAbort <= 7 * 86400, "--stall-abort must be between 0 and 604800 seconds");
    requireOption(o.stallAbort == 0 || o.stallWarning == 0 || o.stallAbort >= o.stallWarning,
                  "--stall-abort must not be shorter than --stall-warning");
}

// TEST AID --inject-stall RANK:STEP:SECONDS[:PHASE], if given.
std::optional<InjectStall> parseInjectStall(const nlohmann::json& j)
{
    auto it = j.find("inject-stall");
    if (it == j.end())
        return std::nullopt;
    const std::string s = it->get<std::string>();
    const std::string usage = "--inject-stall expects RANK:STEP:SECONDS[:PHASE], got \"" + s + "\"";
    std::vector<std::string> parts;
    for (size_t from = 0;;) {
        const auto colon = s.find(':', from);
        parts.push_back(s.substr(from, colon == std::string::npos ? std::string::npos : colon - from));
        if (colon == std::string::npos)
            break;
        from = colon + 1;
    }
    requireOption(parts.size() == 3 || parts.size() == 4, usage);
    InjectStall st;
    try {
        size_t u0 = 0, u1 = 0, u2 = 0;
        st.rank = std::stoi(parts[0], &u0);
        st.step = std::stoll(parts[1], &u1);
        st.seconds = std::stod(parts[2], &u2);
        requireOption(u0 == parts[0].size() && u1 == parts[1].size() && u2 == parts[2].size(), usage);
    } catch (const std::logic_error&) {
        throw InputError(usage);
    }
    if (parts.size() == 4)
        st.phase = parts[3];
    requireOption(st.rank >= 0 && st.step >= 1 && st.seconds >= 0 && st.seconds <= 86400,
                  "--inject-stall: rank >= 0, step >= 1 and 0 <= seconds <= 86400");
    requireOption(st.phase == "data" || st.phase == "forward" || st.phase == "backward" || st.phase == "allreduce" ||
                      st.phase == "optimizer",
                  "--inject-stall: phase must be data, forward, backward, allreduce or optimizer");
    return st;
}

} // namespace

std::string trainUsage()
{
    std::string s = "usage: traindeck-trainer train [--config FILE.json] [--flag value ...]\n\n";
    for (const auto& f : flags())
        s += "  --" + std::string(f.name) + std::string(f.kind == Kind::Bool ? " " : " VALUE ") + "\n      " + f.help +
             "\n";
    s += "\nSIGUSR1 (Slurm's warning before a time limit; mpirun forwards it) stops the run at the next step "
         "boundary\nwith a checkpoint and exit status 75; --resume latest continues from it.\n";
    return s;
}

TrainOptions parseTrainOptions(const std::vector<std::string>& args)
{
    const nlohmann::json j = collectFlags(args);
    TrainOptions o;
    readModelAndDataOptions(j, o);
    readOptimizerOptions(j, o);
    readDistributedOptions(j, o);
    readRunOptions(j, o);

    // Of several faults, the first one checked below is the one reported.
    checkModelDataAndOptimizerOptions(o);
    checkLossOptions(j, o);
    checkDistributedOptions(j, o);
    checkRunOptions(o);
    o.injectDelay = parseInjectDelay(j);
    o.injectSlowdown = parseInjectSlowdown(j);
    checkBalanceOptions(j, o);
    checkStallOptions(o);
    o.injectStall = parseInjectStall(j);
    o.injectExit = rankAndStep(j, "inject-exit");
    o.injectNan = rankAndStep(j, "inject-nan");
    return o;
}

nlohmann::json TrainOptions::toJson() const
{
    nlohmann::json j = {{"seq_len", seqLen},
                        {"micro_batch", microBatch},
                        {"grad_accum", gradAccum},
                        {"lr", lr},
                        {"min_lr", minLr},
                        {"warmup", warmup},
                        {"max_steps", maxSteps},
                        {"epochs", epochs},
                        {"weight_decay", weightDecay},
                        {"clip", clip},
                        {"seed", seed},
                        {"precision", precision},
                        {"device", device},
                        {"compression", compression},
                        {"bucket_mb", bucketMb},
                        {"comm", comm},
                        {"overlap", overlap ? "on" : "off"},
                        {"zero", zero},
                        {"fused_loss", fusedLoss ? "on" : "off"},
                        {"loss_chunk", lossChunk},
                        {"recompute", recomputeLayers ? "layers" : "off"},
                        {"scale_lr", scaleLr},
                        {"batch_mode", batchMode},
                        {"text_field", textField},
                        {"data", data},
                        {"model", modelDir},
                        {"preset", preset},
                        {"tokenizer", tokenizer},
                        {"balance", balance}};
    if (initStd > 0)
        j["init_std"] = initStd;
    return j;
}

} // namespace traindeck::train
