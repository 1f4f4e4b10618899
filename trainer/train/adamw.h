// AdamW with the update of torch.optim.AdamW (decoupled weight decay, bias correction), written out so
// its state is plain tensors we can checkpoint, broadcast and restore bit for bit.
#pragma once

#include <torch/torch.h>

#include <string>
#include <vector>

namespace traindeck::train {

struct AdamWParam {
    std::string name;
    torch::Tensor param;
    bool decay = true; // weight decay off for biases and norm weights
    torch::Tensor expAvg, expAvgSq;
    // ZeRO-1 pieces: `param` is a flat slice of the named parameter and `grad` its gradient slice (a
    // parameter's own .grad is used when undefined).
    torch::Tensor grad;
};

class AdamW {
  public:
    AdamW(std::vector<std::pair<std::string, torch::Tensor>> namedParams, double beta1 = 0.9, double beta2 = 0.95,
          double eps = 1e-8);
    // Over given pieces (ZeRO-1: this rank's shard); a piece's state starts at zero unless it comes with one.
    explicit AdamW(std::vector<AdamWParam> pieces, double beta1 = 0.9, double beta2 = 0.95, double eps = 1e-8);
    void step(double lr, double weightDecay);
    void zeroGrad();
    // The fused single-pass CPU update (default on); off computes the same update op by op (tests compare the two).
    void setFused(bool on) { fused_ = on; }
    int64_t steps() const { return steps_; }
    void setSteps(int64_t s) { steps_ = s; }
    std::vector<AdamWParam>& params() { return params_; }

    // State as named tensors ("<param>.exp_avg", "<param>.exp_avg_sq") for checkpoints.
    std::vector<std::pair<std::string, torch::Tensor>> stateTensors() const;

  private:
    bool fusedKernelApplies(const AdamWParam& ap, const torch::Tensor& grad) const;

    std::vector<AdamWParam> params_;
    bool fused_ = true;
    double beta1_, beta2_, eps_;
    int64_t steps_ = 0;
};

} // namespace traindeck::train
