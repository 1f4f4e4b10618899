#include "model/fused_loss.h"

#include <algorithm>

namespace traindeck::model {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

struct LossAndGradients {
    torch::Tensor loss;                   // fp32 scalar
    torch::Tensor gradHidden, gradWeight; // d loss / d hidden, d loss / d weight (undefined without gradients)
};

// The chunked loss; with withGradients also its gradients, which need each chunk's logits only while
// the chunk is computed: softmax - onehot(target), scaled by 1/valid, is d loss / d logits.
LossAndGradients chunkedLoss(const torch::Tensor& hidden, const torch::Tensor& weight, const torch::Tensor& targets,
                             int64_t chunkTokens, bool withGradients)
{
    TORCH_CHECK(hidden.dim() == 2 && weight.dim() == 2 && targets.dim() == 1,
                "fused loss: hidden [N, H], weight [V, H], targets [N]");
    TORCH_CHECK(hidden.size(0) == targets.size(0) && hidden.size(1) == weight.size(1),
                "fused loss: shapes do not match");
    const int64_t tokens = hidden.size(0);
    const int64_t chunk = chunkTokens > 0 ? chunkTokens : automaticLossChunk(weight.size(1));
    const auto fp32 = hidden.options().dtype(torch::kFloat32);

    LossAndGradients out;
    if (withGradients) {
        out.gradHidden = torch::zeros_like(hidden);
        out.gradWeight = torch::zeros(weight.sizes(), weight.options().dtype(torch::kFloat32));
    }
    const int64_t valid = targets.ne(kIgnoreIndex).sum().item<int64_t>();
    if (valid == 0) {
        out.loss = torch::zeros({}, fp32);
        if (withGradients)
            out.gradWeight = out.gradWeight.to(weight.scalar_type());
        return out;
    }

    auto lossSum = torch::zeros({}, fp32);
    for (int64_t start = 0; start < tokens; start += chunk) {
        const int64_t length = std::min(chunk, tokens - start);
        const auto h = hidden.narrow(0, start, length);
        const auto target = targets.narrow(0, start, length);
        // As the unfused loss: the matmul in autocast's dtype when autocast is on, the logits in fp32.
        auto logitsRaw = torch::matmul(h, weight.t());
        const auto computeDtype = logitsRaw.scalar_type();
        auto logits = logitsRaw.to(torch::kFloat32);
        logitsRaw = torch::Tensor(); // an fp32 copy was made under autocast: free the other one now

        const auto counted = target.ne(kIgnoreIndex);
        const auto safeTarget = target.masked_fill(counted.logical_not(), 0).unsqueeze(1);
        const auto logSumExp = logits.logsumexp(1);
        const auto targetLogit = logits.gather(1, safeTarget).squeeze(1);
        lossSum += (logSumExp - targetLogit).masked_fill(counted.logical_not(), 0).sum();
        if (!withGradients)
            continue;

        // d loss / d logits, in place of the logits: softmax - onehot, zero rows for ignored tokens.
        const auto rowScale = counted.to(torch::kFloat32).div_(static_cast<double>(valid)).unsqueeze(1);
        auto gradLogits = logits.sub_(logSumExp.unsqueeze(1)).exp_();
        gradLogits.scatter_add_(1, safeTarget, torch::full_like(safeTarget, -1, fp32));
        gradLogits.mul_(rowScale);

        out.gradHidden.narrow(0, start, length).copy_(torch::matmul(gradLogits.to(computeDtype), weight));
        if (computeDtype == torch::kFloat32 && h.scalar_type() == torch::kFloat32)
            out.gradWeight.addmm_(gradLogits.t(), h); // accumulates inside the GEMM: no [V, H] temporary
        else
            out.gradWeight.add_(torch::matmul(gradLogits.to(computeDtype).t(), h));
    }
    out.loss = lossSum / static_cast<double>(valid);
    if (withGradients)
        out.gradWeight = out.gradWeight.to(weight.scalar_type());
    return out;
}

// Autograd's view: forward computes the loss and its gradients, backward scales them by grad_output.
struct FusedLinearCrossEntropyFunction : public torch::autograd::Function<FusedLinearCrossEntropyFunction> {
    static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& hidden, const torch::Tensor& weight,
                                 const torch::Tensor& targets, int64_t chunkTokens)
    {
        auto result = chunkedLoss(hidden, weight, targets, chunkTokens, /*withGradients=*/true);
        ctx->saved_data["grad_hidden"] = result.gradHidden;
        ctx->saved_data["grad_weight"] = result.gradWeight;
        return result.loss;
    }

    static variable_list backward(AutogradContext* ctx, variable_list gradOutputs)
    {
        const auto gradOutput = gradOutputs[0];
        const auto gradHidden = ctx->saved_data["grad_hidden"].toTensor();
        const auto gradWeight = ctx->saved_data["grad_weight"].toTensor();
        return {gradHidden * gradOutput.to(gradHidden.scalar_type()),
                gradWeight * gradOutput.to(gradWeight.scalar_type()), torch::Tensor(), torch::Tensor()};
    }
};

} // namespace

int64_t automaticLossChunk(int64_t hidden)
{
    return std::max<int64_t>(1, hidden);
}

torch::Tensor fusedLinearCrossEntropy(const torch::Tensor& hidden, const torch::Tensor& weight,
                                      const torch::Tensor& targets, int64_t chunkTokens)
{
    // Without a gradient to compute (evaluation, NoGradGuard) the chunks need not keep theirs.
    if (!torch::GradMode::is_enabled() || !(hidden.requires_grad() || weight.requires_grad()))
        return chunkedLoss(hidden, weight, targets, chunkTokens, /*withGradients=*/false).loss;
    return FusedLinearCrossEntropyFunction::apply(hidden, weight, targets, chunkTokens);
}

} // namespace traindeck::model
