#include "train/device.h"

#include "util/errors.h"

#include <ATen/autocast_mode.h>

#include <chrono>

namespace traindeck::train {

// LibTorch 2.4 replaced the per-backend autocast setters with device-type-generic ones.
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
#define TRAINDECK_AUTOCAST_GENERIC 1
#endif

bool isDeviceSpec(const std::string& spec, bool allowAuto)
{
    if (spec == "cpu" || spec == "cuda" || (allowAuto && spec == "auto"))
        return true;
    return spec.starts_with("cuda:") && spec.size() > 5 && spec.size() < 9 &&
           spec.find_first_not_of("0123456789", 5) == std::string::npos;
}

torch::Device resolveDevice(const std::string& spec, int localRank)
{
    if (spec == "cpu")
        return torch::kCPU;
    const bool haveCuda = torch::cuda::is_available();
    if (spec == "auto" && !haveCuda)
        return torch::kCPU;
    if (!haveCuda)
        throw InputError("--device " + spec +
                         ": this trainer's LibTorch sees no CUDA device (build against a CUDA "
                         "LibTorch and check the driver, or use --device cpu)");
    const int count = static_cast<int>(torch::cuda::device_count());
    int index = localRank % count;
    if (spec.starts_with("cuda:")) {
        index = std::stoi(spec.substr(5));
        if (index >= count)
            throw InputError("--device " + spec + ": only " + std::to_string(count) + " CUDA device(s) visible");
    }
    return {torch::kCUDA, static_cast<c10::DeviceIndex>(index)};
}

AutocastScope::AutocastScope(const torch::Device& device, const std::string& precision)
{
    if (precision == "fp32")
        return;
    const auto dtype = precision == "fp16" ? at::kHalf : at::kBFloat16;
    if (device.is_cuda()) {
        cuda_ = true;
#ifdef TRAINDECK_AUTOCAST_GENERIC
        at::autocast::set_autocast_dtype(at::kCUDA, dtype);
        at::autocast::set_autocast_enabled(at::kCUDA, true);
#else
        at::autocast::set_autocast_gpu_dtype(dtype);
        at::autocast::set_enabled(true);
#endif
    } else {
        cpu_ = true;
#ifdef TRAINDECK_AUTOCAST_GENERIC
        at::autocast::set_autocast_dtype(at::kCPU, dtype);
        at::autocast::set_autocast_enabled(at::kCPU, true);
#else
        at::autocast::set_autocast_cpu_dtype(dtype);
        at::autocast::set_cpu_enabled(true);
#endif
    }
}

AutocastScope::~AutocastScope()
{
#ifdef TRAINDECK_AUTOCAST_GENERIC
    if (cuda_)
        at::autocast::set_autocast_enabled(at::kCUDA, false);
    if (cpu_)
        at::autocast::set_autocast_enabled(at::kCPU, false);
#else
    if (cuda_)
        at::autocast::set_enabled(false);
    if (cpu_)
        at::autocast::set_cpu_enabled(false);
#endif
    if (cuda_ || cpu_)
        at::autocast::clear_cache(); // casts of the weights are valid for one forward pass only
}

void synchronize(const torch::Device& device)
{
    if (device.is_cuda())
        torch::cuda::synchronize(device.index());
}

double measureMatmulPeak(const torch::Device& device, torch::ScalarType dtype, int size, int repeats)
{
    torch::NoGradGuard noGrad;
    const auto options = torch::TensorOptions().device(device).dtype(dtype);
    auto a = torch::randn({size, size}, options);
    auto b = torch::randn({size, size}, options);
    auto c = torch::matmul(a, b); // warm up (and pick the kernel)
    synchronize(device);
    double best = 0;
    for (int i = 0; i < repeats; ++i) {
        const auto t = std::chrono::steady_clock::now();
        c = torch::matmul(a, b);
        synchronize(device);
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
        best = std::max(best, 2.0 * size * size * static_cast<double>(size) / s);
    }
    return best;
}

} // namespace traindeck::train
