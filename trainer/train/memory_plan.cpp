#include "train/memory_plan.h"

#include <algorithm>

namespace traindeck::train {

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

// The runtime's own resident memory on the CPU: a qwen2-tiny run at 16 tokens with the Qwen tokenizer
// peaked at 568 MiB, of which the plan's other parts are 224 MiB (docs/reference/trainer.md "Memory plan").
constexpr double kCpuWorkspace = 344 * kMiB;
// On a GPU: the CUDA context, cuBLAS's workspace and the caching allocator's slack. Assumed (no GPU has
// checked it): PyTorch's context alone is 0.5-0.6 GiB on recent GPUs.
constexpr double kCudaWorkspace = 1024 * kMiB;

struct Shapes {
    double bth, btk, bti, scores, mask; // elements (mask: bytes)
};

// One decoder layer's tensors kept for backward (train/model/qwen2.cpp's forward, op by op), in bytes:
// each RMSNorm keeps its normalised input and its output (2 [B,T,H]); q keeps its projection, the rotated
// half and the rotated result (3), k the same at the kv width, v one; repeat_kv copies k and v to the full
// width (2, when heads > kv heads); the attention's output reshaped (1); the residual sum (1); the MLP
// keeps gate, silu(gate), up and their product (4 [B,T,I]); the layer's output (1). Without fused
// attention the softmax's probabilities [B,heads,T,T] (fp32) and the causal mask [T,T] (bytes) too; with
// it, its output and log-sum-exp.
double layerBytes(const Shapes& s, const MemoryPlanInputs& in, double a, bool repeatedKv)
{
    double bytes = a * ((repeatedKv ? 11 : 9) * s.bth + 4 * s.btk + 4 * s.bti) + a * s.bth;
    if (in.attentionKeepsScores)
        bytes += 4 * s.scores + (a < 4 ? 2 * s.scores : 0) + s.mask;
    else
        bytes += a * s.bth + 4 * s.scores / static_cast<double>(in.seqLen);
    return bytes;
}

} // namespace

nlohmann::ordered_json MemoryPlan::toJson() const
{
    auto mib = [](double b) { return static_cast<double>(static_cast<int64_t>(b / kMiB * 10 + 0.5)) / 10; };
    nlohmann::ordered_json j;
    j["bytes"] = {
        {"parameters", parameters}, {"gradients", gradients}, {"optimizer", optimizer}, {"activations", activations},
        {"logits", logits},         {"workspace", workspace}, {"total", total}};
    j["mib"] = {{"parameters", mib(parameters)},
                {"gradients", mib(gradients)},
                {"optimizer", mib(optimizer)},
                {"activations", mib(activations)},
                {"logits", mib(logits)},
                {"workspace", mib(workspace)},
                {"total", mib(total)}};
    j["peak_moment"] = peakMoment;
    j["assumptions"] = assumptions;
    return j;
}

MemoryPlan planMemory(const MemoryPlanInputs& in)
{
    const auto& c = in.config;
    const double P = static_cast<double>(c.parameterCount());
    const double B = static_cast<double>(in.microBatch), T = static_cast<double>(in.seqLen);
    const double H = static_cast<double>(c.hidden_size), V = static_cast<double>(c.vocab_size);
    const double L = static_cast<double>(c.num_hidden_layers);
    const double kvWidth = static_cast<double>(c.num_key_value_heads * c.headDim());
    const bool autocast = in.precision != "fp32";
    const double a = autocast ? 2 : 4; // bytes of an activation element (autocast: matmul outputs in 16 bits)
    const Shapes s{B * T * H, B * T * kvWidth, B * T * static_cast<double>(c.intermediate_size),
                   B * static_cast<double>(c.num_attention_heads) * T * T, T * T};
    const bool repeatedKv = c.num_attention_heads > c.num_key_value_heads;

    MemoryPlan plan;
    plan.parameters = 4 * P;                                                 // fp32 master weights, also under autocast
    plan.gradients = 4 * P;                                                  // the gradient buckets (fp32)
    plan.optimizer = 8 * P / (in.zero == 1 ? std::max(1, in.worldSize) : 1); // AdamW's two moments
    plan.workspace = in.cuda ? kCudaWorkspace : kCpuWorkspace;
    if (autocast)
        plan.workspace += 2 * P; // autocast's 16-bit copies of the weights, cached for the forward pass

    // The layers. Backward adds temporaries of about 1.5 x the scores (measured: 1.0x at 1024 tokens, 1.5x
    // at 2048, bench_activations) or a few [B,T,H] with fused attention.
    const double layer = layerBytes(s, in, a, repeatedKv);
    const double backwardTemporaries = in.attentionKeepsScores ? 1.5 * 4 * s.scores : 4 * a * s.bth;
    const double stackEnds = a * s.bth + 2 * a * s.bth; // the embedding's output; the final norm's two
    double heldActivations = 0;
    if (in.recomputeLayers) {
        heldActivations = stackEnds + L * a * s.bth; // each layer's input (the last one's output too)
        plan.activations = heldActivations + layer + backwardTemporaries; // one layer rebuilt at a time
    } else {
        heldActivations = stackEnds + L * layer;
        plan.activations = heldActivations + backwardTemporaries;
    }

    // The output layer and the loss over N = B x (T - 1) predicted tokens.
    const double N = B * (T - 1);
    double lossForward = 0, lossBackward = 0;
    if (in.fusedLoss) {
        const double chunk = std::min(N, static_cast<double>(in.lossChunk > 0 ? in.lossChunk : c.hidden_size));
        // The weight's gradient (fp32) and the hidden states' are made in forward and kept; a chunk's
        // logits (fp32) and logsumexp's temporary of the same size (plus the 16-bit matmul output).
        lossForward = 4 * V * H + a * N * H + chunk * V * (8 + (autocast ? 2 : 0));
        // Backward scales the stored gradients into new tensors.
        lossBackward = 2 * 4 * V * H + 2 * a * N * H;
    } else {
        // The logits (fp32) and their log-softmax; backward: the log-softmax, its gradient and the logits'.
        lossForward = N * V * (8 + (autocast ? 2 : 0));
        lossBackward = 3 * 4 * N * V;
    }
    plan.logits = std::max(lossForward, lossBackward);

    // The moments a step's memory can peak at, on top of the state (parameters, gradients, optimizer,
    // workspace). The embedding's backward makes its whole [V, H] gradient densely, at the end.
    struct Moment {
        const char* name;
        double bytes;
    };
    const Moment moments[] = {{"loss forward", heldActivations + lossForward},
                              {"loss backward", heldActivations + lossBackward},
                              {"layers backward", plan.activations},
                              {"embedding backward", 4 * V * H + stackEnds}};
    const auto* peak = std::max_element(std::begin(moments), std::end(moments),
                                        [](const Moment& x, const Moment& y) { return x.bytes < y.bytes; });
    plan.peakMoment = peak->name;
    plan.total = plan.parameters + plan.gradients + plan.optimizer + plan.workspace + peak->bytes;

    plan.assumptions.push_back(in.cuda ? "workspace: 1 GiB assumed for the CUDA context, cuBLAS and the caching "
                                         "allocator's slack (never measured: no GPU was lent)"
                                       : "workspace: 344 MiB measured on the CPU (LibTorch, OpenBLAS, the Qwen "
                                         "tokenizer, the data loader, the allocator's slack)");
    if (autocast)
        plan.assumptions.push_back(
            "--precision " + in.precision +
            ": activations counted at 2 bytes, the softmax at 4 (estimated; validated at fp32 only)");
    if (!in.attentionKeepsScores)
        plan.assumptions.push_back("fused attention (LibTorch 2): no heads x T x T scores are kept");
    return plan;
}

std::vector<MemorySuggestion> suggestToFit(const MemoryPlanInputs& in, double availableBytes)
{
    // Cheapest first: recomputation costs an extra forward of the layers; the fused loss costs nothing;
    // ZeRO-1 an allgather of the parameters; a smaller micro-batch more steps (or --grad-accum).
    std::vector<std::pair<std::string, MemoryPlanInputs>> tries;
    auto add = [&](std::string flags, auto change) {
        MemoryPlanInputs t = in;
        change(t);
        tries.emplace_back(std::move(flags), t);
    };
    if (!in.fusedLoss)
        add("--fused-loss on", [](MemoryPlanInputs& t) { t.fusedLoss = true; });
    if (!in.recomputeLayers)
        add("--recompute layers", [](MemoryPlanInputs& t) { t.recomputeLayers = true; });
    if (in.zero == 0 && in.worldSize > 1)
        add("--zero 1", [](MemoryPlanInputs& t) { t.zero = 1; });
    add("--fused-loss on --recompute layers" + std::string(in.worldSize > 1 ? " --zero 1" : ""),
        [](MemoryPlanInputs& t) {
            t.fusedLoss = true;
            t.recomputeLayers = true;
            t.zero = t.worldSize > 1 ? 1 : t.zero;
        });
    for (int64_t mb = in.microBatch / 2; mb >= 1; mb /= 2)
        add("--micro-batch " + std::to_string(mb) + " --grad-accum " + std::to_string(in.microBatch / mb) +
                " with --fused-loss on --recompute layers",
            [mb](MemoryPlanInputs& t) {
                t.microBatch = mb;
                t.fusedLoss = true;
                t.recomputeLayers = true;
            });
    std::vector<MemorySuggestion> out;
    for (const auto& [flags, t] : tries) {
        const double total = planMemory(t).total;
        if (total <= availableBytes) {
            out.push_back({flags, total});
            if (out.size() == 2)
                break;
        }
    }
    return out;
}

} // namespace traindeck::train
