/* A FAKE libnvidia-ml for tst_gpu_info: the test machines have no GPU and no NVIDIA driver, so the NVML client
 * in trainer/util/gpu.cpp is exercised against this stand-in (loaded through TRAINDECK_NVML_LIBRARY or an explicit
 * path). It knows one device, "0000:19:00.0", and mimics NVML's calling conventions: the running-process call
 * answers NVML_ERROR_INSUFFICIENT_SIZE with the count when the buffer is too small, power is NOT_SUPPORTED.
 *
 * Variants (compile definitions):
 *   default           nvmlDeviceGetComputeRunningProcesses_v3 with nvmlProcessInfo_v2_t (24-byte entries)
 *   FAKE_NVML_LEGACY  only the unversioned nvmlDeviceGetComputeRunningProcesses with nvmlProcessInfo_v1_t (16 bytes);
 *                     power is supported (412.345 W)
 *   FAKE_NVML_R535    _v3 writing 32-byte entries (the extra usedGpuCcProtectedMemory of some R535 drivers)
 * Environment: FAKE_NVML_INIT_FAIL=1 makes nvmlInit_v2 fail with NVML_ERROR_DRIVER_NOT_LOADED (9).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

typedef int nvmlReturn_t;
typedef struct FakeDevice {
    int id;
} * nvmlDevice_t;
typedef struct {
    unsigned int gpu, memory;
} nvmlUtilization_t;
typedef struct {
    unsigned long long total, free, used;
} nvmlMemory_t;

#if defined(FAKE_NVML_LEGACY)
typedef struct {
    unsigned int pid;
    unsigned long long usedGpuMemory;
} fakeProcessInfo_t;
#elif defined(FAKE_NVML_R535)
typedef struct {
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId, computeInstanceId;
    unsigned long long usedGpuCcProtectedMemory;
} fakeProcessInfo_t;
#else
typedef struct {
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId, computeInstanceId;
} fakeProcessInfo_t;
#endif

enum {
    SUCCESS = 0,
    UNINITIALIZED = 1,
    INVALID_ARGUMENT = 2,
    NOT_SUPPORTED = 3,
    NOT_FOUND = 6,
    INSUFFICIENT_SIZE = 7,
    DRIVER_NOT_LOADED = 9
};

static struct FakeDevice device = {19};
static int initCount = 0;

EXPORT nvmlReturn_t nvmlInit_v2(void)
{
    const char* fail = getenv("FAKE_NVML_INIT_FAIL");
    if (fail && *fail == '1')
        return DRIVER_NOT_LOADED;
    ++initCount;
    return SUCCESS;
}

EXPORT nvmlReturn_t nvmlShutdown(void)
{
    if (initCount == 0)
        return UNINITIALIZED;
    --initCount;
    return SUCCESS;
}

EXPORT const char* nvmlErrorString(nvmlReturn_t r)
{
    switch (r) {
    case SUCCESS: return "Success";
    case UNINITIALIZED: return "Uninitialized";
    case NOT_SUPPORTED: return "Not Supported";
    case NOT_FOUND: return "Not Found";
    case INSUFFICIENT_SIZE: return "Insufficient Size";
    case DRIVER_NOT_LOADED: return "Driver Not Loaded";
    default: return "Unknown Error";
    }
}

EXPORT nvmlReturn_t nvmlSystemGetDriverVersion(char* version, unsigned int length)
{
    static const char v[] = "999.99.99-fake";
    if (initCount == 0)
        return UNINITIALIZED;
    if (length < sizeof v)
        return INSUFFICIENT_SIZE;
    memcpy(version, v, sizeof v);
    return SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char* busId, nvmlDevice_t* dev)
{
    if (initCount == 0)
        return UNINITIALIZED;
    if (!busId || !dev)
        return INVALID_ARGUMENT;
    /* NVML accepts the 4- and 8-digit domain forms. */
    if (strcmp(busId, "0000:19:00.0") != 0 && strcmp(busId, "00000000:19:00.0") != 0)
        return NOT_FOUND;
    *dev = &device;
    return SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t dev, nvmlUtilization_t* u)
{
    if (dev != &device || !u)
        return INVALID_ARGUMENT;
    u->gpu = 87;
    u->memory = 42;
    return SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t dev, nvmlMemory_t* m)
{
    if (dev != &device || !m)
        return INVALID_ARGUMENT;
    m->total = 143771ULL << 20;
    m->used = 50000ULL << 20;
    m->free = m->total - m->used;
    return SUCCESS;
}

static nvmlReturn_t runningProcesses(nvmlDevice_t dev, unsigned int* count, fakeProcessInfo_t* infos)
{
    if (dev != &device || !count)
        return INVALID_ARGUMENT;
    if (*count < 2 || !infos) {
        *count = 2;
        return INSUFFICIENT_SIZE;
    }
    memset(infos, 0, 2 * sizeof *infos);
    infos[0].pid = 4242; /* someone else */
    infos[0].usedGpuMemory = 1000ULL << 20;
    infos[1].pid = (unsigned int)getpid();
    infos[1].usedGpuMemory = 12345ULL << 20;
#if !defined(FAKE_NVML_LEGACY)
    infos[0].gpuInstanceId = infos[0].computeInstanceId = 0xFFFFFFFFu; /* no MIG */
    infos[1].gpuInstanceId = infos[1].computeInstanceId = 0xFFFFFFFFu;
#endif
    *count = 2;
    return SUCCESS;
}

#if defined(FAKE_NVML_LEGACY)
EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses(nvmlDevice_t dev, unsigned int* count,
                                                         fakeProcessInfo_t* infos)
{
    return runningProcesses(dev, count, infos);
}
#else
EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t dev, unsigned int* count,
                                                            fakeProcessInfo_t* infos)
{
    return runningProcesses(dev, count, infos);
}
#endif

EXPORT nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t dev, unsigned int* milliwatts)
{
#if defined(FAKE_NVML_LEGACY)
    if (dev != &device || !milliwatts)
        return INVALID_ARGUMENT;
    *milliwatts = 412345;
    return SUCCESS;
#else
    (void)dev;
    (void)milliwatts;
    return NOT_SUPPORTED;
#endif
}
