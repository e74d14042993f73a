#include "cuda/cuda_driver.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cuda/dl_loader.h"
#include "error.h"

static prnn_cuda_driver driver;
static prnn_dl_once loaded = PRNN_DL_ONCE_INIT;

#define PRNN_CUDA_SPEC(name, symbol, required, ret, params)                                        \
    PRNN_DL_SPEC(prnn_cuda_driver, name, symbol, required)
static const prnn_dl_symbol_spec specs[] = {PRNN_CU_FUNCTIONS(PRNN_CUDA_SPEC)};

/*
 * Older symbols with the same prototype, for drivers that predate the version
 * cuda_api.h names. Only entries whose ABI is identical belong here (for
 * example cuMemAlloc's v1 took 32-bit sizes and must never be a fallback).
 */
static const prnn_dl_fallback fallbacks[] = {
    /* cuEventElapsedTime_v2 arrived with CUDA 12.8, same arguments. */
    {"cuEventElapsedTime_v2", "cuEventElapsedTime"},
    {NULL, NULL},
};

static const char *error_name_raw(CUresult r)
{
    const char *name = NULL;
    if (driver.cuGetErrorName && driver.cuGetErrorName(r, &name) == CUDA_SUCCESS)
        return name;
    return NULL;
}

const char *prnn_cu_error_name(CUresult r, char *buf, size_t size)
{
    const char *name = error_name_raw(r);
    if (name)
        return name;
    snprintf(buf, size, "CUDA error %d", (int)r);
    return buf;
}

/* What a failing cuInit means and what to check. A stub libcuda (the
 * toolkit's lib64/stubs, found first through LD_LIBRARY_PATH) cannot name
 * its own errors, so the common ones are spelled out here. */
static const char *init_hint(CUresult r)
{
    switch ((int)r) {
    case 34: /* CUDA_ERROR_STUB_LIBRARY */
        return "CUDA_ERROR_STUB_LIBRARY: the libcuda.so.1 found is the CUDA toolkit's stub "
               "(lib64/stubs), which only exists for linking and cannot run anything; check that "
               "the NVIDIA driver is installed and that LD_LIBRARY_PATH (or the linker's cache) "
               "does not put a stubs directory before the driver's libcuda.so.1";
    case 35: /* CUDA_ERROR_INSUFFICIENT_DRIVER */
        return "CUDA_ERROR_INSUFFICIENT_DRIVER: the kernel-mode NVIDIA driver is older than this "
               "libcuda.so.1; update the driver, or check that the libcuda.so.1 found belongs to "
               "the installed driver";
    case 100: /* CUDA_ERROR_NO_DEVICE */
        return "CUDA_ERROR_NO_DEVICE: no CUDA device is visible (check CUDA_VISIBLE_DEVICES, and "
               "in a container that the GPUs are passed in)";
    case 803: /* CUDA_ERROR_SYSTEM_DRIVER_MISMATCH */
        return "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH: libcuda.so.1 and the kernel-mode driver are of "
               "different versions; reinstall the driver or reboot after an update";
    case 999: /* CUDA_ERROR_UNKNOWN */
        return "CUDA_ERROR_UNKNOWN: often the driver's kernel module is not loaded or /dev/nvidia* "
               "is not accessible; check nvidia-smi";
    }
    return NULL;
}

static prnnStatus_t load(void)
{
    /* libcuda comes with the driver, not the toolkit: only the dynamic
     * linker's search (plus WSL's location, which is not always on it).
     * PRNN_CUDA_PATH holds at most a stub that cannot run anything. */
    static const char *const candidates[] = {"libcuda.so.1", "/usr/lib/wsl/lib/libcuda.so.1", NULL};
    void *lib;
    prnnStatus_t s = prnn_dl_load(
        "the CUDA driver library", candidates, specs, sizeof(specs) / sizeof(specs[0]), fallbacks,
        &driver, PRNN_STATUS_NO_DEVICE, loaded.message, sizeof(loaded.message), &lib);
    if (s != PRNN_STATUS_SUCCESS) {
        memset(&driver, 0, sizeof(driver));
        if (s == PRNN_STATUS_NO_DEVICE) {
            size_t len = strlen(loaded.message);
            snprintf(loaded.message + len, sizeof(loaded.message) - len,
                     "\n(is the NVIDIA driver installed?)");
        }
        return s;
    }
    driver.library_path = prnn_dl_origin(lib, "cuInit");

    char num[32];
    CUresult r = driver.cuInit(0);
    if (r != CUDA_SUCCESS) {
        const char *desc = NULL, *hint = init_hint(r);
        if (driver.cuGetErrorString(r, &desc) != CUDA_SUCCESS)
            desc = NULL;
        if (hint)
            snprintf(loaded.message, sizeof(loaded.message),
                     "cuInit: CUDA error %d (%s) (driver library %s)", (int)r, hint,
                     driver.library_path);
        else
            snprintf(loaded.message, sizeof(loaded.message),
                     "cuInit: %s: %s (driver library %s; check that the NVIDIA driver is installed "
                     "and nvidia-smi works)",
                     prnn_cu_error_name(r, num, sizeof(num)),
                     desc ? desc : "the driver gives no description", driver.library_path);
        return PRNN_STATUS_NO_DEVICE;
    }
    r = driver.cuDriverGetVersion(&driver.driver_version);
    if (r == CUDA_SUCCESS)
        r = driver.cuDeviceGetCount(&driver.device_count);
    if (r != CUDA_SUCCESS) {
        snprintf(loaded.message, sizeof(loaded.message), "cuDeviceGetCount: %s (driver library %s)",
                 prnn_cu_error_name(r, num, sizeof(num)), driver.library_path);
        return PRNN_STATUS_NO_DEVICE;
    }
    if (driver.device_count < 1) {
        snprintf(loaded.message, sizeof(loaded.message),
                 "no CUDA device: cuDeviceGetCount found 0 (CUDA_ERROR_NO_DEVICE; driver library "
                 "%s, version %d)",
                 driver.library_path, driver.driver_version);
        return PRNN_STATUS_NO_DEVICE;
    }
    return PRNN_STATUS_SUCCESS;
}

static void run_load(void)
{
    loaded.status = load();
}

prnnStatus_t prnn_cuda_driver_get(const prnn_cuda_driver **out)
{
    prnnStatus_t s = prnn_dl_once_run(&loaded, run_load);
    if (out)
        *out = s == PRNN_STATUS_SUCCESS ? &driver : NULL;
    return s;
}

prnnStatus_t prnn_cu_status(CUresult r)
{
    switch (r) {
    case CUDA_SUCCESS: return PRNN_STATUS_SUCCESS;
    case CUDA_ERROR_OUT_OF_MEMORY: return PRNN_STATUS_ALLOC_FAILED;
    case CUDA_ERROR_NO_DEVICE:
    case CUDA_ERROR_INVALID_DEVICE:
    case CUDA_ERROR_NOT_INITIALIZED:
    case CUDA_ERROR_DEINITIALIZED:
    case CUDA_ERROR_STUB_LIBRARY:
    case CUDA_ERROR_DEVICE_UNAVAILABLE:
    case CUDA_ERROR_DEVICE_NOT_LICENSED:
    case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
    case CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE: return PRNN_STATUS_NO_DEVICE;
    case CUDA_ERROR_INVALID_IMAGE:
    case CUDA_ERROR_INVALID_SOURCE:
    case CUDA_ERROR_NO_BINARY_FOR_GPU:
    case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
    case CUDA_ERROR_SHARED_OBJECT_INIT_FAILED:
    case CUDA_ERROR_NOT_FOUND:
        /* A cubin the driver refuses: loading a compiled kernel failed. */
        return PRNN_STATUS_MAPPING_ERROR;
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES:
    case CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE:
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_ECC_UNCORRECTABLE:
    case CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED:
    case CUDA_ERROR_STREAM_CAPTURE_INVALIDATED: return PRNN_STATUS_EXECUTION_FAILED;
    default: return PRNN_STATUS_INTERNAL_ERROR;
    }
}

prnnStatus_t prnn_cu_check(CUresult r, const char *what)
{
    if (r == CUDA_SUCCESS)
        return PRNN_STATUS_SUCCESS;
    char num[32];
    const char *desc = NULL;
    if (!driver.cuGetErrorString || driver.cuGetErrorString(r, &desc) != CUDA_SUCCESS)
        desc = NULL;
    return prnn_fail(prnn_cu_status(r), "%s: %s: %s", what ? what : "CUDA call",
                     prnn_cu_error_name(r, num, sizeof(num)), desc ? desc : "no description");
}
