/* A FAKE CUDA driver library (built as fake_cuda/libcuda.so.1) for tst_gpu_info: the test machines have no GPU and
 * no NVIDIA driver, so the self-check's GPU listing is exercised by running the trainer with this directory first
 * on LD_LIBRARY_PATH. Only the driver API calls trainer/util/gpu.cpp uses are exported. Two devices: an H200 at
 * 0000:19:00.0 (the device fake_nvml.c knows) and an H100 PCIe at 0000:3B:00.0.
 * Environment: FAKE_CUDA_NO_DEVICE=1 makes cuInit fail with CUDA_ERROR_NO_DEVICE (100).
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

typedef int CUresult;
typedef int CUdevice;

enum {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_INVALID_VALUE = 1,
    CUDA_ERROR_NOT_INITIALIZED = 3,
    CUDA_ERROR_NO_DEVICE = 100,
    CUDA_ERROR_INVALID_DEVICE = 101
};

static int initialised = 0;
static const char* const names[] = {"NVIDIA H200", "NVIDIA H100 PCIe"};
static const char* const busIds[] = {"0000:19:00.0", "0000:3B:00.0"};
static const size_t memory[] = {143771ULL << 20, 81559ULL << 20};

static void copyString(char* out, int len, const char* s)
{
    strncpy(out, s, (size_t)len);
    if (len > 0)
        out[len - 1] = '\0';
}

EXPORT CUresult cuInit(unsigned int flags)
{
    const char* noDevice = getenv("FAKE_CUDA_NO_DEVICE");
    if (flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (noDevice && *noDevice == '1')
        return CUDA_ERROR_NO_DEVICE;
    initialised = 1;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuGetErrorName(CUresult error, const char** name)
{
    switch (error) {
    case CUDA_SUCCESS: *name = "CUDA_SUCCESS"; return CUDA_SUCCESS;
    case CUDA_ERROR_NOT_INITIALIZED: *name = "CUDA_ERROR_NOT_INITIALIZED"; return CUDA_SUCCESS;
    case CUDA_ERROR_NO_DEVICE: *name = "CUDA_ERROR_NO_DEVICE"; return CUDA_SUCCESS;
    default: *name = NULL; return CUDA_ERROR_INVALID_VALUE;
    }
}

EXPORT CUresult cuDriverGetVersion(int* version)
{
    *version = 13000;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGetCount(int* count)
{
    if (!initialised)
        return CUDA_ERROR_NOT_INITIALIZED;
    *count = 2;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGet(CUdevice* device, int ordinal)
{
    if (!initialised)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (ordinal < 0 || ordinal > 1)
        return CUDA_ERROR_INVALID_DEVICE;
    *device = ordinal;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGetName(char* name, int len, CUdevice dev)
{
    if (dev < 0 || dev > 1)
        return CUDA_ERROR_INVALID_DEVICE;
    copyString(name, len, names[dev]);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceTotalMem_v2(size_t* bytes, CUdevice dev)
{
    if (dev < 0 || dev > 1)
        return CUDA_ERROR_INVALID_DEVICE;
    *bytes = memory[dev];
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGetAttribute(int* value, int attribute, CUdevice dev)
{
    if (dev < 0 || dev > 1)
        return CUDA_ERROR_INVALID_DEVICE;
    if (attribute == 75) /* CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR */
        *value = 9;
    else if (attribute == 76) /* ..._MINOR */
        *value = 0;
    else
        return CUDA_ERROR_INVALID_VALUE;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGetPCIBusId(char* busId, int len, CUdevice dev)
{
    if (dev < 0 || dev > 1)
        return CUDA_ERROR_INVALID_DEVICE;
    copyString(busId, len, busIds[dev]);
    return CUDA_SUCCESS;
}
