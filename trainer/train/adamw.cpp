#include "train/adamw.h"

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

void AdamW::step(double lr, double weightDecay)
{
    torch::NoGradGuard noGrad;
    ++steps_;
    const double bc1 = 1.0 - std::pow(beta1_, static_cast<double>(steps_));
    const double bc2 = 1.0 - std::pow(beta2_, static_cast<double>(steps_));
    const double stepSize = lr / bc1;
    const double bc2Sqrt = std::sqrt(bc2);
    for (auto& ap : params_) {
        const auto& grad = ap.param.grad();
        if (!grad.defined())
            continue;
        if (ap.decay && weightDecay != 0)
            ap.param.mul_(1.0 - lr * weightDecay);
        ap.expAvg.lerp_(grad, 1.0 - beta1_);
        ap.expAvgSq.mul_(beta2_).addcmul_(grad, grad, 1.0 - beta2_);
        auto denom = ap.expAvgSq.sqrt();
        denom.div_(bc2Sqrt).add_(eps_);
        ap.param.addcdiv_(ap.expAvg, denom, -stepSize);
    }
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

}  // namespace traindeck::train
