#include "util/gpu.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <memory>
#include <type_traits>
#include <utility>

namespace traindeck::util {

namespace {

std::string dlErrorText()
{
    const char* e = ::dlerror();
    return e ? e : "unknown error";
}

template <typename Fn> Fn symbol(void* lib, const char* name)
{
    return reinterpret_cast<Fn>(::dlsym(lib, name));
}

// ---- CUDA driver API ------------------------------------------------------------------------------------------
// The few declarations we need, as in cuda.h (CUDA 12/13): CUresult is an enum (int-sized), CUdevice an int.
using CUresult = int;
using CUdevice = int;
constexpr int kCuAttrComputeCapabilityMajor = 75; // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
constexpr int kCuAttrComputeCapabilityMinor = 76; // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR

struct CudaApi {
    std::string error; // non-empty when unusable
    CUresult (*init)(unsigned int) = nullptr;
    CUresult (*driverGetVersion)(int*) = nullptr;
    CUresult (*deviceGetCount)(int*) = nullptr;
    CUresult (*deviceGet)(CUdevice*, int) = nullptr;
    CUresult (*deviceGetName)(char*, int, CUdevice) = nullptr;
    CUresult (*deviceTotalMem)(size_t*, CUdevice) = nullptr; // cuDeviceTotalMem_v2
    CUresult (*deviceGetAttribute)(int*, int, CUdevice) = nullptr;
    CUresult (*deviceGetPCIBusId)(char*, int, CUdevice) = nullptr;
    CUresult (*getErrorName)(CUresult, const char**) = nullptr; // optional, for messages
};

const CudaApi& cudaApi()
{
    static const CudaApi api = [] {
        CudaApi a;
        void* lib = ::dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
        if (!lib) {
            a.error = "libcuda.so.1 not found (" + dlErrorText() + ")";
            return a;
        }
        std::string missing;
        auto need = [&](auto& fn, const char* name) {
            fn = symbol<std::remove_reference_t<decltype(fn)>>(lib, name);
            if (!fn)
                missing += (missing.empty() ? "" : ", ") + std::string(name);
        };
        need(a.init, "cuInit");
        need(a.driverGetVersion, "cuDriverGetVersion");
        need(a.deviceGetCount, "cuDeviceGetCount");
        need(a.deviceGet, "cuDeviceGet");
        need(a.deviceGetName, "cuDeviceGetName");
        need(a.deviceTotalMem, "cuDeviceTotalMem_v2");
        need(a.deviceGetAttribute, "cuDeviceGetAttribute");
        need(a.deviceGetPCIBusId, "cuDeviceGetPCIBusId");
        a.getErrorName = symbol<decltype(a.getErrorName)>(lib, "cuGetErrorName");
        if (!missing.empty())
            a.error = "libcuda.so.1 lacks " + missing;
        // The library stays loaded for the life of the process (LibTorch may share it).
        return a;
    }();
    return api;
}

std::string cudaFailure(const CudaApi& api, const char* call, CUresult rc)
{
    std::string s = std::string(call) + " failed: " + std::to_string(rc);
    const char* name = nullptr;
    if (api.getErrorName && api.getErrorName(rc, &name) == 0 && name)
        s += std::string(" (") + name + ")";
    return s;
}

// ---- NVML --------------------------------------------------------------------------------------------------------
// Declarations as in nvml.h (R470..R580): nvmlReturn_t is an enum (int-sized), nvmlDevice_t an opaque pointer.
using NvmlReturn = int;
using NvmlDevice = struct NvmlDeviceOpaque*;
constexpr NvmlReturn kNvmlSuccess = 0;
constexpr NvmlReturn kNvmlInsufficientSize = 7;              // NVML_ERROR_INSUFFICIENT_SIZE
constexpr unsigned kNvmlDriverVersionBufferSize = 80;        // NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE
constexpr unsigned long long kNvmlValueNotAvailable = ~0ULL; // NVML_VALUE_NOT_AVAILABLE (usedGpuMemory)

struct NvmlUtilization { // nvmlUtilization_t
    unsigned int gpu;
    unsigned int memory;
};
struct NvmlMemory { // nvmlMemory_t (v1)
    unsigned long long total;
    unsigned long long free;
    unsigned long long used;
};
// nvmlProcessInfo_v1_t {pid, usedGpuMemory} (16 bytes, the unversioned call) and nvmlProcessInfo_v2_t
// {pid, usedGpuMemory, gpuInstanceId, computeInstanceId} (24 bytes, _v2 and _v3). Some R535 drivers wrote a 32-byte
// struct from _v3 (an extra usedGpuCcProtectedMemory), later reverted, and some wrote 16-byte entries; we read
// pid at offset 0 and usedGpuMemory at offset 8 (the same in every layout), size the buffer for the largest
// layout, and check the stride (see processStride below).
struct NvmlProcessInfoV2 {
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId;
    unsigned int computeInstanceId;
};
static_assert(sizeof(NvmlProcessInfoV2) == 24, "nvmlProcessInfo_v2_t is 24 bytes");
constexpr size_t kProcessStrideV1 = 16, kProcessStrideV2 = 24, kProcessStrideR535 = 32;
constexpr size_t kProcessMaxStride = kProcessStrideR535;

double toMiB(unsigned long long bytes)
{
    return static_cast<double>(bytes) / (1024.0 * 1024.0);
}

struct ProcessEntry {
    uint32_t pid = 0;
    uint64_t usedGpuMemory = 0;
};

ProcessEntry processAt(const unsigned char* buf, size_t stride, size_t i)
{
    ProcessEntry e;
    std::memcpy(&e.pid, buf + i * stride, sizeof e.pid);
    std::memcpy(&e.usedGpuMemory, buf + i * stride + 8, sizeof e.usedGpuMemory);
    return e;
}

// The stride the library actually wrote: the nominal one unless its entries are implausible and another
// stride's are (pids in 1..PID_MAX_LIMIT, memory below 1 PiB or "not available"). With one entry all agree.
size_t processStride(const unsigned char* buf, size_t count, size_t nominal)
{
    if (count < 2)
        return nominal;
    auto plausible = [&](size_t stride) {
        for (size_t i = 0; i < count; ++i) {
            const ProcessEntry e = processAt(buf, stride, i);
            if (e.pid == 0 || e.pid > (1u << 22) ||
                (e.usedGpuMemory != kNvmlValueNotAvailable && e.usedGpuMemory >= (1ULL << 50)))
                return false;
        }
        return true;
    };
    for (size_t stride : {nominal, kProcessStrideV2, kProcessStrideR535, kProcessStrideV1})
        if (plausible(stride))
            return stride;
    return nominal;
}

} // namespace

std::vector<GpuDevice> cudaDevices(std::string* error)
{
    auto fail = [&](std::string why) {
        if (error)
            *error = std::move(why);
        return std::vector<GpuDevice>{};
    };
    if (error)
        error->clear();
    const CudaApi& api = cudaApi();
    if (!api.error.empty())
        return fail(api.error);
    if (CUresult rc = api.init(0); rc != 0)
        return fail(cudaFailure(api, "cuInit", rc));
    int count = 0;
    if (CUresult rc = api.deviceGetCount(&count); rc != 0)
        return fail(cudaFailure(api, "cuDeviceGetCount", rc));
    if (count <= 0)
        return fail("no CUDA device");
    std::vector<GpuDevice> devices;
    std::string problems;
    for (int i = 0; i < count; ++i) {
        CUdevice dev = 0;
        if (CUresult rc = api.deviceGet(&dev, i); rc != 0) {
            problems += (problems.empty() ? "" : "; ") + cudaFailure(api, "cuDeviceGet", rc);
            continue;
        }
        GpuDevice d;
        d.index = i;
        char name[256] = {};
        if (api.deviceGetName(name, sizeof name - 1, dev) == 0)
            d.name = name;
        size_t bytes = 0;
        if (api.deviceTotalMem(&bytes, dev) == 0)
            d.memoryTotalBytes = static_cast<int64_t>(bytes);
        api.deviceGetAttribute(&d.computeMajor, kCuAttrComputeCapabilityMajor, dev);
        api.deviceGetAttribute(&d.computeMinor, kCuAttrComputeCapabilityMinor, dev);
        char bus[64] = {};
        if (api.deviceGetPCIBusId(bus, sizeof bus - 1, dev) == 0)
            d.pciBusId = bus;
        devices.push_back(std::move(d));
    }
    if (error && !problems.empty())
        *error = problems;
    return devices;
}

std::string cudaDriverVersion()
{
    const CudaApi& api = cudaApi();
    int v = 0;
    if (!api.error.empty() || api.driverGetVersion(&v) != 0 || v <= 0)
        return "";
    return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); // 13000 -> "13.0", 12040 -> "12.4"
}

// ---- Nvml ----------------------------------------------------------------------------------------------------

struct Nvml::Api {
    NvmlReturn (*init)() = nullptr; // nvmlInit_v2
    NvmlReturn (*shutdown)() = nullptr;
    const char* (*errorString)(NvmlReturn) = nullptr;
    NvmlReturn (*systemGetDriverVersion)(char*, unsigned int) = nullptr;
    NvmlReturn (*deviceGetHandleByPciBusId)(const char*, NvmlDevice*) = nullptr; // _v2
    NvmlReturn (*deviceGetUtilizationRates)(NvmlDevice, NvmlUtilization*) = nullptr;
    NvmlReturn (*deviceGetMemoryInfo)(NvmlDevice, NvmlMemory*) = nullptr;
    NvmlReturn (*deviceGetPowerUsage)(NvmlDevice, unsigned int*) = nullptr;                     // optional
    NvmlReturn (*deviceGetComputeRunningProcesses)(NvmlDevice, unsigned int*, void*) = nullptr; // optional
    size_t processStride = kProcessStrideV2; // of the struct the chosen process call takes
};

Nvml& Nvml::instance()
{
    // Never destroyed: NVML stays initialised until the process exits, so a sampling thread can never race
    // a static destructor.
    static Nvml* nvml = [] {
        const char* env = std::getenv("TRAINDECK_NVML_LIBRARY");
        return new Nvml(env && *env ? env : "libnvidia-ml.so.1");
    }();
    return *nvml;
}

Nvml::Nvml(const std::string& library)
{
    void* lib = ::dlopen(library.c_str(), RTLD_LAZY | RTLD_LOCAL);
    if (!lib) {
        m_error = "cannot load NVML (" + library + "): " + dlErrorText();
        return;
    }
    auto api = std::make_unique<Api>();
    std::string missing;
    auto need = [&](auto& fn, const char* name) {
        fn = symbol<std::remove_reference_t<decltype(fn)>>(lib, name);
        if (!fn)
            missing += (missing.empty() ? "" : ", ") + std::string(name);
    };
    need(api->init, "nvmlInit_v2");
    need(api->shutdown, "nvmlShutdown");
    need(api->errorString, "nvmlErrorString");
    need(api->systemGetDriverVersion, "nvmlSystemGetDriverVersion");
    need(api->deviceGetHandleByPciBusId, "nvmlDeviceGetHandleByPciBusId_v2");
    need(api->deviceGetUtilizationRates, "nvmlDeviceGetUtilizationRates");
    need(api->deviceGetMemoryInfo, "nvmlDeviceGetMemoryInfo");
    if (!missing.empty()) {
        m_error = library + " lacks NVML symbol(s): " + missing;
        ::dlclose(lib);
        return;
    }
    api->deviceGetPowerUsage = symbol<decltype(api->deviceGetPowerUsage)>(lib, "nvmlDeviceGetPowerUsage");
    using ProcessesFn = decltype(api->deviceGetComputeRunningProcesses);
    for (auto [name, stride] : {std::pair{"nvmlDeviceGetComputeRunningProcesses_v3", kProcessStrideV2},
                                std::pair{"nvmlDeviceGetComputeRunningProcesses_v2", kProcessStrideV2},
                                std::pair{"nvmlDeviceGetComputeRunningProcesses", kProcessStrideV1}}) {
        if (auto fn = symbol<ProcessesFn>(lib, name)) {
            api->deviceGetComputeRunningProcesses = fn;
            api->processStride = stride;
            break;
        }
    }
    if (NvmlReturn rc = api->init(); rc != kNvmlSuccess) {
        const char* text = api->errorString(rc);
        m_error = "nvmlInit_v2 failed: " + std::to_string(rc) + " (" + (text ? text : "unknown error") + ")";
        ::dlclose(lib);
        return;
    }
    // The library stays loaded: NVML keeps state of its own until the process exits.
    m_api = api.release();
}

Nvml::~Nvml()
{
    if (m_api)
        m_api->shutdown(); // NVML counts nvmlInit/nvmlShutdown pairs; other users keep theirs
    delete m_api;
}

bool Nvml::available() const
{
    return m_api != nullptr;
}

const std::string& Nvml::error() const
{
    return m_error;
}

std::string Nvml::driverVersion() const
{
    if (!m_api)
        return "";
    char buf[kNvmlDriverVersionBufferSize] = {};
    if (m_api->systemGetDriverVersion(buf, sizeof buf - 1) != kNvmlSuccess)
        return "";
    return buf;
}

std::optional<GpuSample> Nvml::sample(const std::string& pciBusId, int64_t pid) const
{
    if (!m_api || pciBusId.empty())
        return std::nullopt;
    NvmlDevice dev = nullptr;
    if (m_api->deviceGetHandleByPciBusId(pciBusId.c_str(), &dev) != kNvmlSuccess)
        return std::nullopt;
    GpuSample s;
    NvmlUtilization util{};
    if (m_api->deviceGetUtilizationRates(dev, &util) == kNvmlSuccess)
        s.utilisationPercent = util.gpu;
    NvmlMemory mem{};
    if (m_api->deviceGetMemoryInfo(dev, &mem) == kNvmlSuccess)
        s.deviceMemoryUsedMiB = toMiB(mem.used);
    unsigned int milliwatts = 0;
    if (m_api->deviceGetPowerUsage && m_api->deviceGetPowerUsage(dev, &milliwatts) == kNvmlSuccess)
        s.powerWatts = milliwatts / 1000.0;
    if (m_api->deviceGetComputeRunningProcesses) {
        // Ask for the count first (NVML_ERROR_INSUFFICIENT_SIZE with the count set), then fetch with some room
        // for processes that start in between; retry a few times if the list keeps growing.
        unsigned int count = 0;
        NvmlReturn rc = m_api->deviceGetComputeRunningProcesses(dev, &count, nullptr);
        std::vector<uint64_t> storage; // 8-byte aligned, sized for the largest layout
        unsigned int capacity = 0;
        for (int attempt = 0; attempt < 4 && rc == kNvmlInsufficientSize; ++attempt) {
            capacity = count + 8;
            storage.assign(capacity * kProcessMaxStride / sizeof(uint64_t), 0);
            count = capacity;
            rc = m_api->deviceGetComputeRunningProcesses(dev, &count, storage.data());
        }
        if (rc == kNvmlSuccess && !storage.empty()) {
            const size_t n = std::min(count, capacity);
            const auto* buf = reinterpret_cast<const unsigned char*>(storage.data());
            const size_t stride = processStride(buf, n, m_api->processStride);
            double used = -1;
            for (size_t i = 0; i < n; ++i) {
                const ProcessEntry e = processAt(buf, stride, i);
                if (pid >= 0 && static_cast<int64_t>(e.pid) == pid && e.usedGpuMemory != kNvmlValueNotAvailable)
                    used = std::max(used, 0.0) + toMiB(e.usedGpuMemory); // summed over MIG instances
            }
            s.memoryUsedMiB = used;
        }
    }
    return s;
}

// ---- Peak FLOP/s --------------------------------------------------------------------------------------------
//
// Dense (no structured sparsity) peak per GPU from the vendor's datasheets; where a datasheet gives only the
// sparse tensor figure (marked *), dense = sparse / 2. "fp32" is the plain FP32 (CUDA-core) rate, not TF32;
// bf16/fp16 are tensor-core rates with FP32 accumulate (what LibTorch uses), 0 when the GPU has no such
// tensor path (Volta and Turing have no BF16).
//
//  Device (words matched)  FP32 TF  BF16 TF  FP16 TF  Source
//  H100 (SXM5)              66.9    989.4    989.4    H100 datasheet, SXM: FP32 67, BF16/FP16 1,979*
//  H100 PCIe                51.2    756.5    756.5    H100 datasheet, PCIe: FP32 51, BF16/FP16 1,513*
//  H100 NVL                 60      835.5    835.5    H100 NVL datasheet (per GPU): FP32 60, BF16/FP16 1,671*
//  H800 (SXM)               66.9    989.4    989.4    H800 datasheet: as H100 SXM
//  H800 PCIe                51.2    756.5    756.5    H800 PCIe: as H100 PCIe
//  H200 (SXM)               66.9    989.4    989.4    H200 datasheet, SXM: FP32 67, BF16/FP16 1,979*
//  H200 NVL                 60      835.5    835.5    H200 datasheet, NVL: FP32 60, BF16/FP16 1,671*
//  GH200                    66.9    989.4    989.4    GH200 datasheet: FP32 67, BF16/FP16 1,979*
//  H20                      44      148      148      H20 product brief: FP32 44, BF16/FP16 148 (dense)
//  B200                     75      2250     2250     HGX B200 (8 GPUs): FP32 600, FP16/BF16 36 PF* -> per GPU
//  B100                     60      1750     1750     HGX B100 (8 GPUs): FP32 480, FP16/BF16 28 PF* -> per GPU
//  GB200                    80      2500     2500     GB200 NVL72 (72 GPUs): FP32 5,760, FP16/BF16 360 PF* -> per GPU
//  A100 (SXM/PCIe, 40/80GB) 19.5    312      312      A100 datasheet: FP32 19.5, BF16/FP16 312 (624*)
//  A800                     19.5    312      312      A800 datasheet: as A100
//  A10                      31.2    125      125      A10 datasheet: FP32 31.2, BF16/FP16 125 (250*)
//  A30                      10.3    165      165      A30 datasheet: FP32 10.3, BF16/FP16 165 (330*)
//  A40                      37.4    149.7    149.7    A40 datasheet: FP32 37.4, BF16/FP16 149.7 (299.4*)
//  L40S                     91.6    362.05   362.05   L40S datasheet: FP32 91.6, BF16/FP16 362.05 (733*)
//  L40                      90.5    181.05   181.05   L40 datasheet: FP32 90.5, BF16/FP16 181.05 (362.1*)
//  L4                       30.3    121      121      L4 datasheet: FP32 30.3, BF16/FP16 242*
//  V100 (SXM2/SXM3)         15.7    0        125      V100 datasheet, SXM2: FP32 15.7, Tensor 125
//  V100 PCIe                14      0        112      V100 datasheet, PCIe: FP32 14, Tensor 112
//  V100S                    16.4    0        130      V100S datasheet: FP32 16.4, Tensor 130
//  T4                       8.1     0        65       T4 datasheet: FP32 8.1, mixed FP16/FP32 65
//  RTX 4090                 82.6    165.2    165.2    Ada whitepaper: FP16/BF16 with FP32 accumulate 165.2 (330.4*)
//  RTX 3090                 35.6    71       71       GA102 whitepaper: FP16/BF16 with FP32 accumulate 71 (142*)
//  RTX 3090 Ti              40      80       80       no whitepaper table: 84 SMs x 1.86 GHz at the 3090's per-SM rates
//  RTX A6000                38.7    154.8    154.8    RTX A6000 datasheet: FP32 38.7, Tensor 309.7*
//  RTX 6000 Ada             91.1    364.2    364.2    RTX 6000 Ada datasheet FP32 91.1; Ada whitepaper 364.2 (728.5*)

namespace {

struct PeakEntry {
    const char* words; // all must appear as whole words of the device name (case-insensitive)
    double fp32, bf16, fp16;
};

constexpr PeakEntry kPeakTable[] = {
    {"H100", 66.9e12, 989.4e12, 989.4e12},
    {"H100 PCIe", 51.2e12, 756.5e12, 756.5e12},
    {"H100 NVL", 60e12, 835.5e12, 835.5e12},
    {"H800", 66.9e12, 989.4e12, 989.4e12},
    {"H800 PCIe", 51.2e12, 756.5e12, 756.5e12},
    {"H200", 66.9e12, 989.4e12, 989.4e12},
    {"H200 NVL", 60e12, 835.5e12, 835.5e12},
    {"GH200", 66.9e12, 989.4e12, 989.4e12},
    {"H20", 44e12, 148e12, 148e12},
    {"B200", 75e12, 2250e12, 2250e12},
    {"B100", 60e12, 1750e12, 1750e12},
    {"GB200", 80e12, 2500e12, 2500e12},
    {"A100", 19.5e12, 312e12, 312e12},
    {"A800", 19.5e12, 312e12, 312e12},
    {"A10", 31.2e12, 125e12, 125e12},
    {"A30", 10.3e12, 165e12, 165e12},
    {"A40", 37.4e12, 149.7e12, 149.7e12},
    {"L40S", 91.6e12, 362.05e12, 362.05e12},
    {"L40", 90.5e12, 181.05e12, 181.05e12},
    {"L4", 30.3e12, 121e12, 121e12},
    {"V100", 15.7e12, 0, 125e12},
    {"V100 PCIe", 14e12, 0, 112e12},
    {"V100S", 16.4e12, 0, 130e12},
    {"T4", 8.1e12, 0, 65e12},
    {"RTX 4090", 82.6e12, 165.2e12, 165.2e12},
    {"RTX 3090", 35.6e12, 71e12, 71e12},
    {"RTX 3090 Ti", 40e12, 80e12, 80e12},
    {"RTX A6000", 38.7e12, 154.8e12, 154.8e12},
    {"RTX 6000 Ada", 91.1e12, 364.2e12, 364.2e12},
};

// Lower-case words split at anything but letters and digits: "Tesla V100-PCIE-32GB" -> tesla v100 pcie 32gb.
std::vector<std::string> words(const std::string& s)
{
    std::vector<std::string> out;
    std::string cur;
    for (unsigned char c : s) {
        if (std::isalnum(c)) {
            cur += static_cast<char>(std::tolower(c));
        } else if (!cur.empty()) {
            out.push_back(std::move(cur));
            cur.clear();
        }
    }
    if (!cur.empty())
        out.push_back(std::move(cur));
    return out;
}

} // namespace

std::optional<double> gpuPeakFlops(const std::string& deviceName, const std::string& precision)
{
    std::string p = precision;
    std::transform(p.begin(), p.end(), p.begin(), [](unsigned char c) { return std::tolower(c); });
    double PeakEntry::*field = nullptr;
    if (p == "fp32" || p == "float32" || p == "f32")
        field = &PeakEntry::fp32;
    else if (p == "bf16" || p == "bfloat16")
        field = &PeakEntry::bf16;
    else if (p == "fp16" || p == "float16" || p == "f16" || p == "half")
        field = &PeakEntry::fp16;
    else
        return std::nullopt;
    const std::vector<std::string> name = words(deviceName);
    const PeakEntry* best = nullptr;
    size_t bestWords = 0;
    for (const PeakEntry& e : kPeakTable) {
        const std::vector<std::string> key = words(e.words);
        const bool all = std::all_of(key.begin(), key.end(), [&](const std::string& w) {
            return std::find(name.begin(), name.end(), w) != name.end();
        });
        if (all && key.size() > bestWords) {
            best = &e;
            bestWords = key.size();
        }
    }
    if (!best)
        return std::nullopt;
    return best->*field;
}

} // namespace traindeck::util
