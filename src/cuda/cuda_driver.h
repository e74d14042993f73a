/*
 * The CUDA driver API, loaded at run time from libcuda.so.1 into a table of
 * function pointers (nothing links against CUDA).
 *
 * Call through the table with cuda.h's names: cu->cuMemAlloc(&p, n). cuda.h
 * #defines many names to their current ABI version (cuMemAlloc ->
 * cuMemAlloc_v2, cuCtxPushCurrent -> cuCtxPushCurrent_v2, cuGraphInstantiate
 * -> cuGraphInstantiateWithFlags, ...); the fields are declared through the
 * same macros, so the field, its prototype and the symbol resolved from
 * libcuda always agree, and this header must be used with the cuda.h it was
 * built against.
 */
#ifndef PRNN_CUDA_DRIVER_H
#define PRNN_CUDA_DRIVER_H

#include <cuda.h>

#include "prnn.h"

/* Every function the library needs: a driver without one is refused. */
#define PRNN_CUDA_REQUIRED_FUNCTIONS(X)                                       \
    X(cuInit)                                                                 \
    X(cuDriverGetVersion)                                                     \
    X(cuGetErrorName)                                                         \
    X(cuGetErrorString)                                                       \
    X(cuDeviceGetCount)                                                       \
    X(cuDeviceGet)                                                            \
    X(cuDeviceGetName)                                                        \
    X(cuDeviceGetAttribute)                                                   \
    X(cuDeviceTotalMem)                                                       \
    X(cuDevicePrimaryCtxRetain)                                               \
    X(cuDevicePrimaryCtxRelease)                                              \
    X(cuCtxGetCurrent)                                                        \
    X(cuCtxSetCurrent)                                                        \
    X(cuCtxGetDevice)                                                         \
    X(cuCtxPushCurrent)                                                       \
    X(cuCtxPopCurrent)                                                        \
    X(cuCtxSynchronize)                                                       \
    X(cuModuleLoadDataEx)                                                     \
    X(cuModuleGetFunction)                                                    \
    X(cuFuncGetAttribute)                                                     \
    X(cuFuncSetAttribute)                                                     \
    X(cuOccupancyMaxActiveBlocksPerMultiprocessor)                            \
    X(cuLaunchKernel)                                                         \
    X(cuLaunchCooperativeKernel)                                              \
    X(cuMemGetInfo)                                                           \
    X(cuMemAlloc)                                                             \
    X(cuMemFree)                                                              \
    X(cuMemcpyHtoD)                                                           \
    X(cuMemcpyDtoH)                                                           \
    X(cuMemcpyHtoDAsync)                                                      \
    X(cuMemcpyDtoHAsync)                                                      \
    X(cuMemcpyDtoDAsync)                                                      \
    X(cuMemsetD8Async)                                                        \
    X(cuMemsetD32Async)                                                       \
    X(cuStreamCreate)                                                         \
    X(cuStreamDestroy)                                                        \
    X(cuStreamSynchronize)                                                    \
    X(cuStreamBeginCapture)                                                   \
    X(cuStreamEndCapture)                                                     \
    X(cuEventCreate)                                                          \
    X(cuEventRecord)                                                          \
    X(cuEventSynchronize)                                                     \
    X(cuEventElapsedTime)                                                     \
    X(cuEventDestroy)                                                         \
    X(cuGraphInstantiate)                                                     \
    X(cuGraphLaunch)                                                          \
    X(cuGraphExecDestroy)                                                     \
    X(cuGraphDestroy)

/* Functions newer drivers have and the library can do without: NULL in the
 * table when the driver lacks them (check before calling). */
#define PRNN_CUDA_OPTIONAL_FUNCTIONS(X)                                       \
    X(cuCtxGetId)             /* CUDA 12.0: context identity */

#define PRNN_CUDA_FIELD(fn) __typeof__(fn) *fn;

typedef struct prnn_cuda_driver {
    PRNN_CUDA_REQUIRED_FUNCTIONS(PRNN_CUDA_FIELD)
    PRNN_CUDA_OPTIONAL_FUNCTIONS(PRNN_CUDA_FIELD)
    int driver_version; /* cuDriverGetVersion, e.g. 13000 */
    int device_count;   /* >= 1 */
    const char *library_path; /* the libcuda that was loaded */
} prnn_cuda_driver;

#undef PRNN_CUDA_FIELD

/*
 * The process-wide driver table. The first call loads libcuda.so.1, resolves
 * every function and calls cuInit(0); later calls (from any thread) return
 * the same table, or the same failure:
 *  - NO_DEVICE: libcuda cannot be loaded (the log names every path tried and
 *    dlerror()), cuInit fails, or there is no device (the log has the CUDA
 *    error name);
 *  - RUNTIME_PREREQUISITE_MISSING: the driver lacks a required function (the
 *    log names it; the driver is too old).
 */
prnnStatus_t prnn_cuda_driver_get(const prnn_cuda_driver **out);

/*
 * SUCCESS for CUDA_SUCCESS; otherwise fails with "<what>: <CUDA error name>:
 * <description>" in the log and returns ALLOC_FAILED for out-of-memory,
 * NO_DEVICE for a missing or unusable device or driver, EXECUTION_FAILED for
 * a kernel fault, INTERNAL_ERROR for the rest (a misuse of the driver by
 * prnn). Needs the driver table to have loaded for the names; without it the
 * message carries the number.
 */
prnnStatus_t prnn_cu_check(CUresult r, const char *what);

/* The status prnn_cu_check maps r to (no message). */
prnnStatus_t prnn_cu_status(CUresult r);

/* "CUDA_ERROR_OUT_OF_MEMORY", or "CUDA error <n>" in buf when the driver
 * does not know r or is not loaded. */
const char *prnn_cu_error_name(CUresult r, char *buf, size_t size);

#endif
