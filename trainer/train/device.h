// Where a rank computes: the CPU or one CUDA device. LibTorch's CUDA calls are used through its
// device-generic API, so the same code builds against the CPU-only LibTorch and a CUDA one.
#pragma once

#include <torch/torch.h>

#include <string>

namespace traindeck::train {

// --device: "cpu"; "cuda" = cuda:<local rank mod device count>; "cuda:N"; "auto" = "cuda" when this
// LibTorch sees a CUDA device, else the CPU. Throws InputError when CUDA is asked for and absent.
torch::Device resolveDevice(const std::string& spec, int localRank);
// Whether `spec` is one of the forms above ("auto" only where allowAuto).
bool isDeviceSpec(const std::string& spec, bool allowAuto = true);

// Mixed precision for the forward pass (and the loss): autocast to bf16 on the CPU or CUDA, to fp16 on
// CUDA; nothing for fp32. The backward pass follows the dtypes the forward recorded.
class AutocastScope {
  public:
    AutocastScope(const torch::Device& device, const std::string& precision);
    ~AutocastScope();
    AutocastScope(const AutocastScope&) = delete;
    AutocastScope& operator=(const AutocastScope&) = delete;

  private:
    bool cpu_ = false, cuda_ = false;
};

// Waits for the device's queued kernels, so that phase timings measure work rather than launches
// (nothing to wait for on the CPU).
void synchronize(const torch::Device& device);

// Largest dense matmul throughput measured on the device in the given dtype (FLOP/s), best of `repeats`.
double measureMatmulPeak(const torch::Device& device, torch::ScalarType dtype, int size = 1024, int repeats = 5);

} // namespace traindeck::train
