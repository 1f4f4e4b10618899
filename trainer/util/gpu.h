// GPU discovery, utilisation and peak FLOP/s without a link-time dependency on CUDA or the NVIDIA driver:
// the CUDA driver API (libcuda.so.1) and NVML (libnvidia-ml.so.1) are loaded with dlopen, so the same
// binary runs (and reports "no GPU") on machines without a driver.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace traindeck::util {

struct GpuDevice {
    int index = -1;       // CUDA ordinal as the process sees it (after CUDA_VISIBLE_DEVICES)
    std::string name;     // "NVIDIA H200"
    std::string pciBusId; // "0000:19:00.0"
    int64_t memoryTotalBytes = 0;
    int computeMajor = 0, computeMinor = 0;
};

// CUDA driver API through dlopen("libcuda.so.1"): cuInit, cuDeviceGetCount, cuDeviceGet, cuDeviceGetName,
// cuDeviceTotalMem_v2, cuDeviceGetAttribute (compute capability), cuDeviceGetPCIBusId, cuDriverGetVersion.
// Empty when there is no driver or no device; `error` (optional) says why ("libcuda.so.1 not found", "cuInit failed:
// 100").
std::vector<GpuDevice> cudaDevices(std::string* error = nullptr);
std::string cudaDriverVersion(); // "13.0", or "" without a driver

struct GpuSample {
    double utilisationPercent = -1; // nvmlDeviceGetUtilizationRates().gpu
    double memoryUsedMiB = -1; // used by this process (nvmlDeviceGetComputeRunningProcesses, matched by pid), else -1
    double deviceMemoryUsedMiB = -1; // nvmlDeviceGetMemoryInfo().used
    double powerWatts = -1;          // nvmlDeviceGetPowerUsage / 1000, -1 when unsupported
};

// NVML through dlopen("libnvidia-ml.so.1") (override with env TRAINDECK_NVML_LIBRARY, for tests), initialised once
// (nvmlInit_v2), thread-safe, never throws; unsupported queries leave -1.
class Nvml {
  public:
    static Nvml& instance();

    // Loads and initialises NVML from `library` (a file name for the loader or a path). instance() uses this with
    // TRAINDECK_NVML_LIBRARY or "libnvidia-ml.so.1"; tests construct their own to try several libraries.
    explicit Nvml(const std::string& library);
    ~Nvml();
    Nvml(const Nvml&) = delete;
    Nvml& operator=(const Nvml&) = delete;

    bool available() const;
    const std::string&
    error() const; // why unavailable: library missing, symbol missing (names it), init failed (code + nvmlErrorString)
    std::string driverVersion() const; // nvmlSystemGetDriverVersion, "" if unavailable
    // Device by PCI bus id (nvmlDeviceGetHandleByPciBusId_v2), sampled now; nullopt when unavailable/not found.
    std::optional<GpuSample> sample(const std::string& pciBusId, int64_t pid) const;

  private:
    struct Api;           // the resolved function pointers (gpu.cpp)
    Api* m_api = nullptr; // null unless available
    std::string m_error;
};

// Dense (non-sparse) peak FLOP/s of one device for a precision ("fp32", "bf16", "fp16"; fp32 means what
// LibTorch uses by default, i.e. plain FP32 CUDA-core throughput, not TF32) from a table keyed by the
// words of the device name (case-insensitive; the entry naming the most words wins, so "H100 PCIe" beats "H100").
// 0 when the device is known but lacks the precision (bf16 on V100/T4); nullopt for unknown devices or precisions.
std::optional<double> gpuPeakFlops(const std::string& deviceName, const std::string& precision);

} // namespace traindeck::util
