#include "train/adamw.h"

#include "train/adamw_kernel.h"

#include <ATen/Parallel.h>

#include <cmath>

namespace traindeck::train {

AdamW::AdamW(std::vector<std::pair<std::string, torch::Tensor>> namedParams, double beta1, double beta2, double eps)
    : beta1_(beta1), beta2_(beta2), eps_(eps)
{
    for (auto& [name, p] : namedParams) {
        AdamWParam ap;
        ap.name = name;
        ap.param = p;
        ap.decay = p.dim() >= 2;
        ap.expAvg = torch::zeros_like(p, torch::MemoryFormat::Contiguous);
        ap.expAvgSq = torch::zeros_like(p, torch::MemoryFormat::Contiguous);
        params_.push_back(std::move(ap));
    }
}

AdamW::AdamW(std::vector<AdamWParam> pieces, double beta1, double beta2, double eps)
    : params_(std::move(pieces)), beta1_(beta1), beta2_(beta2), eps_(eps)
{
    for (auto& ap : params_) {
        if (!ap.expAvg.defined())
            ap.expAvg = torch::zeros_like(ap.param, torch::MemoryFormat::Contiguous);
        if (!ap.expAvgSq.defined())
            ap.expAvgSq = torch::zeros_like(ap.param, torch::MemoryFormat::Contiguous);
    }
}

void AdamW::step(double lr, double weightDecay)
{
    torch::NoGradGuard noGrad;
    ++steps_;
    const double bc1 = 1.0 - std::pow(beta1_, static_cast<double>(steps_));
    const double bc2 = 1.0 - std::pow(beta2_, static_cast<double>(steps_));
    const double stepSize = lr / bc1;
    const double bc2Sqrt = std::sqrt(bc2);
    for (auto& ap : params_) {
        const auto& grad = ap.grad.defined() ? ap.grad : ap.param.grad();
        if (!grad.defined())
            continue;
        if (fusedKernelApplies(ap, grad)) {
            AdamWScalars s;
            s.decayFactor = ap.decay && weightDecay != 0 ? static_cast<float>(1.0 - lr * weightDecay) : 1.0f;
            s.oneMinusBeta1 = static_cast<float>(1.0 - beta1_);
            s.beta2 = static_cast<float>(beta2_);
            s.oneMinusBeta2 = static_cast<float>(1.0 - beta2_);
            s.bc2Sqrt = static_cast<float>(bc2Sqrt);
            s.eps = static_cast<float>(eps_);
            s.negStepSize = static_cast<float>(-stepSize);
            float* p = ap.param.data_ptr<float>();
            const float* g = grad.data_ptr<float>();
            float* m = ap.expAvg.data_ptr<float>();
            float* v = ap.expAvgSq.data_ptr<float>();
            at::parallel_for(0, ap.param.numel(), 1 << 15, [&](int64_t begin, int64_t end) {
                adamwUpdate(p + begin, g + begin, m + begin, v + begin, end - begin, s);
            });
            continue;
        }
        if (ap.decay && weightDecay != 0)
            ap.param.mul_(1.0 - lr * weightDecay);
        ap.expAvg.lerp_(grad, 1.0 - beta1_);
        ap.expAvgSq.mul_(beta2_).addcmul_(grad, grad, 1.0 - beta2_);
        auto denom = ap.expAvgSq.sqrt();
        denom.div_(bc2Sqrt).add_(eps_);
        ap.param.addcdiv_(ap.expAvg, denom, -stepSize);
    }
}

// The fused loop handles contiguous float32 CPU tensors; anything else (CUDA, other dtypes) takes the
// op-by-op path, which computes the same update.
bool AdamW::fusedKernelApplies(const AdamWParam& ap, const torch::Tensor& grad) const
{
    if (!fused_)
        return false;
    for (const torch::Tensor* t : {&ap.param, &grad, &ap.expAvg, &ap.expAvgSq})
        if (!t->device().is_cpu() || t->scalar_type() != torch::kFloat32 || !t->is_contiguous())
            return false;
    return true;
}

void AdamW::zeroGrad()
{
    for (auto& ap : params_) {
        auto& g = ap.param.mutable_grad();
        if (g.defined())
            g.zero_();
    }
}

std::vector<std::pair<std::string, torch::Tensor>> AdamW::stateTensors() const
{
    std::vector<std::pair<std::string, torch::Tensor>> out;
    for (const auto& ap : params_) {
        out.emplace_back(ap.name + ".exp_avg", ap.expAvg);
        out.emplace_back(ap.name + ".exp_avg_sq", ap.expAvgSq);
    }
    return out;
}

} // namespace traindeck::train
