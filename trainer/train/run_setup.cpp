#include "train/run.h"

#include "model/hf_checkpoint.h"
#include "train/checkpoint.h"
#include "train/device.h"
#include "train/rank_zero.h"
#include "train/trainer.h"
#include "util/errors.h"

#include <cstdio>
#include <filesystem>
#include <thread>

namespace fs = std::filesystem;

namespace traindeck::train {

namespace {

void setupDevice(TrainingRun& run)
{
    const auto& o = run.o;
    if (o.threads > 0)
        torch::set_num_threads(o.threads);
    run.device = resolveDevice(o.device, run.comm.localRank());
    if (run.device.is_cuda())
        run.deviceGuard.reset_device(run.device);
    if (o.precision == "fp16" && !run.device.is_cuda())
        throw InputError("--precision fp16 needs a CUDA device (fp16 with dynamic loss scaling); on the CPU use fp32 "
                         "or bf16");
}

// Tokenizer: given, else the model directory's, else bytes.
void loadTokenizer(TrainingRun& run)
{
    const auto& o = run.o;
    run.tokenizerPath = o.tokenizer;
    if (run.tokenizerPath.empty() && !o.modelDir.empty() && fs::exists(fs::path(o.modelDir) / "tokenizer.json"))
        run.tokenizerPath = (fs::path(o.modelDir) / "tokenizer.json").string();
    if (run.tokenizerPath.empty())
        return;
    if (!fs::exists(run.tokenizerPath))
        throw InputError(run.tokenizerPath + ": tokenizer file does not exist");
    try {
        run.tokenizer = tok::Tokenizer::fromFile(run.tokenizerPath);
    } catch (const tok::TokenizerError& e) {
        throw InputError(e.what());
    }
    run.tokenizerFiles.push_back(run.tokenizerPath);
    const auto cfg = fs::path(run.tokenizerPath).parent_path() / "tokenizer_config.json";
    if (fs::exists(cfg))
        run.tokenizerFiles.push_back(cfg.string());
}

// The model on this rank before the start-up broadcast: the checkpoint's, the model directory's, or a
// preset's initialised from --seed.
model::Qwen2ForCausalLM buildModel(const TrainOptions& o, int rank, const ResumePoint& resume)
{
    model::Qwen2ForCausalLM net{nullptr};
    if (!resume.dir.empty() && rank == 0) {
        net = model::loadPretrained(resume.dir);
    } else if (!resume.dir.empty()) {
        // Same shapes as rank 0's; the values come with the start-up broadcast.
        net = model::Qwen2ForCausalLM(
            model::Qwen2Config::fromJson(resume.config, resume.dir + "/config.json (from rank 0)"));
    } else if (!o.modelDir.empty()) {
        net = model::loadPretrained(o.modelDir);
    } else {
        auto config = model::Qwen2Config::preset(o.preset);
        const uint64_t seed = o.seed + (o.initSeedPerRank ? static_cast<uint64_t>(rank) : 0);
        torch::manual_seed(seed);
        net = model::Qwen2ForCausalLM(config);
        if (o.initStd > 0) {
            torch::manual_seed(seed);
            net->initWeights(o.initStd);
        }
    }
    if (o.initSeedPerRank && !o.modelDir.empty()) {
        torch::NoGradGuard noGrad;
        torch::manual_seed(o.seed + static_cast<uint64_t>(rank));
        for (auto& p : net->parameters())
            p.add_(torch::randn_like(p), 0.01);
    }
    return net;
}

// The model on the device and its optimizer (rank 0's state on resume; the others get it broadcast).
void setupModel(TrainingRun& run)
{
    run.net = buildModel(run.o, run.rank, run.resume);
    const auto& config = run.net->config();
    if (run.tokenizer && run.tokenizer->vocabSize() > config.vocab_size)
        throw InputError(run.tokenizerPath + ": tokenizer has " + std::to_string(run.tokenizer->vocabSize()) +
                         " ids but the model's vocab_size is " + std::to_string(config.vocab_size));
    run.net->to(run.device);
    run.net->train();
    run.net->model->setRecomputeLayers(run.o.recomputeLayers);

    std::vector<std::pair<std::string, torch::Tensor>> named;
    for (const auto& item : run.net->named_parameters())
        named.emplace_back(item.key(), item.value());
    run.paramNames.clear();
    for (const auto& [n, p] : named)
        run.paramNames.push_back(n);
    for (auto& [n, p] : named)
        run.params.push_back(p);
    // --zero 1: shardOptimizer builds this rank's part once the buckets exist; no rank ever holds all
    // of the state (jemalloc keeps freed memory resident, so a transient full copy would stay in RSS).
    if (run.o.zero == 1)
        return;
    auto& optimizer = run.optimizer.emplace(named);
    if (!run.resume.dir.empty()) {
        if (run.rank == 0)
            loadOptimizerState(run.resume.dir, optimizer);
        auto steps = torch::tensor({run.rank == 0 ? optimizer.steps() : int64_t(0)}, torch::kInt64);
        if (run.comm.size() > 1)
            run.comm.broadcast(steps, 0);
        optimizer.setSteps(steps.item<int64_t>());
    }
}

} // namespace

// Sum of all parameters in double: equal on every rank iff they hold the same model (for tests). The
// answer is rank 0's; every rank must call it.
bool ranksInSync(TrainingRun& run)
{
    torch::NoGradGuard noGrad;
    double sum = 0;
    for (auto& p : run.params)
        sum += p.to(torch::kFloat64).abs().sum().item<double>() + p.to(torch::kFloat64).sum().item<double>();
    const auto all = run.comm.gather({sum}, 0);
    bool equal = true;
    for (double v : all)
        equal = equal && v == all.front();
    return equal;
}

namespace {

// Horovod semantics: every rank starts from rank 0's parameters and optimizer state.
void broadcastStartState(TrainingRun& run)
{
    if (run.o.verifySync) {
        const bool equal = ranksInSync(run);
        if (run.rank == 0)
            std::fprintf(stderr, "sync check before broadcast: ranks %s\n", equal ? "equal" : "differ");
    }
    {
        torch::NoGradGuard noGrad;
        for (auto& p : run.params)
            broadcastFromRankZero(run.comm, p.data());
        // With --zero 1 each rank takes its shard of rank 0's state when the optimizer is sharded.
        if (run.o.zero == 0)
            for (auto& ap : run.optimizer->params()) {
                broadcastFromRankZero(run.comm, ap.expAvg);
                broadcastFromRankZero(run.comm, ap.expAvgSq);
            }
    }
    if (run.o.verifySync) {
        const bool equal = ranksInSync(run);
        if (run.rank == 0) {
            std::fprintf(stderr, "sync check after broadcast: ranks %s\n", equal ? "equal" : "differ");
            if (!equal)
                throw RuntimeFailure("parameters differ across ranks after the start-up broadcast");
        }
    }
}

// Token cache, dataset and this rank's loader, positioned where a resumed run left off.
void setupData(TrainingRun& run)
{
    const auto& o = run.o;
    const int world = run.world;
    data::TokenCacheOptions cacheOptions;
    cacheOptions.dataPath = o.data;
    cacheOptions.textField = o.textField;
    cacheOptions.cacheRoot = o.cacheDir;
    cacheOptions.threads = std::max(1, static_cast<int>(std::thread::hardware_concurrency()) / std::max(1, world));
    cacheOptions.verbose = run.lead;
    auto cache = data::TokenCache::buildOrLoad(cacheOptions, run.tokenizer.get());
    for (uint32_t id : {cache->eosId(), cache->padId()})
        if (id >= run.net->config().vocab_size)
            throw InputError("token id " + std::to_string(id) + " exceeds the model's vocab_size");
    auto dataset = std::make_shared<data::TokenDataset>(cache, data::parseBatchMode(o.batchMode), o.seqLen);
    data::SamplerOptions samplerOptions{world, run.rank, true, o.seed, false};

    const auto& state = run.resume.state;
    if (!state.is_null()) {
        run.step = state.at("step").get<int64_t>();
        run.epoch = state.at("epoch").get<int64_t>();
        const int64_t savedWorld = state.at("world_size").get<int64_t>();
        const int64_t consumed = state.at("samples_consumed_in_epoch").get<int64_t>();
        const bool savedBalanced = state.contains("balance_shares");
        // Another world size or split continues from the same global sample count within the epoch
        // (rounded down to whole samples per rank); the shuffle order of the epoch is the same, its split
        // is not. A balanced run's positions are global already, and it keeps its last split.
        if (run.balancer.active()) {
            run.position = consumed;
            run.balancer.resumeFrom(state);
        } else {
            run.position =
                savedWorld == world && !savedBalanced ? state.at("position").get<int64_t>() : consumed / world;
        }
    }
    run.loader.emplace(dataset, samplerOptions, o.microBatch, run.epoch, run.position, o.prefetch,
                       run.balancer.split());
}

// Run length, learning-rate schedule, gradient buckets (and the overlapped allreduce) and the loss scaler
// (restored on resume).
void setupSchedule(TrainingRun& run)
{
    const auto& o = run.o;
    run.maxSteps = o.maxSteps;
    if (o.epochs > 0)
        run.maxSteps = std::max<int64_t>(1, o.epochs * run.loader->batchesPerEpoch() / o.gradAccum);
    run.peakLr = o.scaleLr ? o.lr * run.world : o.lr;
    run.minLr = o.scaleLr ? o.minLr * run.world : o.minLr;
    run.buckets.emplace(run.params, run.paramNames, o.bucketMb, run.device,
                        run.device.is_cuda() && !run.comm.acceptsDeviceTensors(), run.comm,
                        dist::parseWireType(o.compression), o.zero);
    if (o.zero == 1)
        run.buckets->shardOptimizer(run.resume.dir, run.optimizer);
    if (o.overlap && run.buckets->hasGradientsToExchange()) {
        run.overlap = std::make_unique<OverlappedAllreduce>(
            run.buckets->parameterGroups(),
            [&run](size_t index) {
                // The step's number: run.step moves on only after the reductions (step.cpp).
                run.hooks.beforeBucketReduce(index, run.step + 1);
                run.buckets->reduce(index);
            },
            [&run](size_t index) { run.hooks.onBucketReady(index); });
        run.hooks.setOverlapped(true);
    }
    run.scaler = LossScaler(o.precision == "fp16");
    const auto& state = run.resume.state;
    if (!state.is_null() && state.contains("scaler"))
        run.scaler.restore(state["scaler"].value("scale", 1.0), state["scaler"].value("good_steps", int64_t(0)),
                           state["scaler"].value("skipped", int64_t(0)));
}

} // namespace

// Everything before the first step, in an order every rank follows (the collectives must match).
void setup(TrainingRun& run)
{
    setupDevice(run);
    loadTokenizer(run);
    run.resume = readResumePoint(run.o, run.comm);
    setupModel(run);
    broadcastStartState(run);
    setupData(run);
    setupSchedule(run);
    writeHello(run);
    if (!run.resume.state.is_null() && run.resume.state.contains("rng"))
        restoreRngState(run.resume.state["rng"].value("torch_cpu", std::string()));
}

} // namespace traindeck::train
