/*
 * What prnn uses of the CUDA driver API (cuda.h), declared without cuda.h:
 * see api_decl.h for the lists' format and how tests/decl checks them
 * against the toolkit's header. Add to the lists, never declare beside them.
 *
 * 64-bit platforms only (cuda.h's CUdeviceptr is 32 bits elsewhere).
 */
#ifndef PRNN_CUDA_API_H
#define PRNN_CUDA_API_H

#include "cuda/api_decl.h"

/* clang-format off */
#define PRNN_CU_SCALARS(X)                                                    \
    X(CUdevice, int)                                                          \
    X(CUdeviceptr, unsigned long long)

#define PRNN_CU_HANDLES(X)                                                    \
    X(CUcontext, struct CUctx_st)                                             \
    X(CUmodule, struct CUmod_st)                                              \
    X(CUfunction, struct CUfunc_st)                                           \
    X(CUevent, struct CUevent_st)                                             \
    X(CUstream, struct CUstream_st)                                           \
    X(CUgraph, struct CUgraph_st)                                             \
    X(CUgraphExec, struct CUgraphExec_st)                                     \
    /* The runtime API's name for the same stream type (driver_types.h):     \
     * what cuBLASLt and cuDNN take. */                                       \
    X(cudaStream_t, struct CUstream_st)

/* The errors prnn_cu_status tells apart, and success. */
#define PRNN_CU_RESULT_VALUES(X)                                              \
    X(CUDA_SUCCESS, 0)                                                        \
    X(CUDA_ERROR_OUT_OF_MEMORY, 2)                                            \
    X(CUDA_ERROR_NOT_INITIALIZED, 3)                                          \
    X(CUDA_ERROR_DEINITIALIZED, 4)                                            \
    X(CUDA_ERROR_STUB_LIBRARY, 34)                                            \
    X(CUDA_ERROR_DEVICE_UNAVAILABLE, 46)                                      \
    X(CUDA_ERROR_NO_DEVICE, 100)                                              \
    X(CUDA_ERROR_INVALID_DEVICE, 101)                                         \
    X(CUDA_ERROR_DEVICE_NOT_LICENSED, 102)                                    \
    X(CUDA_ERROR_INVALID_IMAGE, 200)                                          \
    X(CUDA_ERROR_NO_BINARY_FOR_GPU, 209)                                      \
    X(CUDA_ERROR_ECC_UNCORRECTABLE, 214)                                      \
    X(CUDA_ERROR_UNSUPPORTED_PTX_VERSION, 222)                                \
    X(CUDA_ERROR_INVALID_SOURCE, 300)                                         \
    X(CUDA_ERROR_SHARED_OBJECT_INIT_FAILED, 303)                              \
    X(CUDA_ERROR_NOT_FOUND, 500)                                              \
    X(CUDA_ERROR_ILLEGAL_ADDRESS, 700)                                        \
    X(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, 701)                                \
    X(CUDA_ERROR_LAUNCH_TIMEOUT, 702)                                         \
    X(CUDA_ERROR_ASSERT, 710)                                                 \
    X(CUDA_ERROR_HARDWARE_STACK_ERROR, 714)                                   \
    X(CUDA_ERROR_ILLEGAL_INSTRUCTION, 715)                                    \
    X(CUDA_ERROR_MISALIGNED_ADDRESS, 716)                                     \
    X(CUDA_ERROR_INVALID_ADDRESS_SPACE, 717)                                  \
    X(CUDA_ERROR_INVALID_PC, 718)                                             \
    X(CUDA_ERROR_LAUNCH_FAILED, 719)                                          \
    X(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, 720)                           \
    X(CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, 803)                                 \
    X(CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE, 804)                         \
    X(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, 900)                             \
    X(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, 901)

/* The properties device_info.c reads. */
#define PRNN_CU_DEVICE_ATTRIBUTE_VALUES(X)                                    \
    X(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 1)                           \
    X(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, 8)                     \
    X(CU_DEVICE_ATTRIBUTE_WARP_SIZE, 10)                                      \
    X(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK, 12)                        \
    X(CU_DEVICE_ATTRIBUTE_CLOCK_RATE, 13)                                     \
    X(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 16)                           \
    X(CU_DEVICE_ATTRIBUTE_INTEGRATED, 18)                                     \
    X(CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, 33)                                     \
    X(CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, 34)                                  \
    X(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, 36)                              \
    X(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, 37)                        \
    X(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, 38)                                  \
    X(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, 39)                 \
    X(CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, 50)                                  \
    X(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 75)                       \
    X(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 76)                       \
    X(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, 81)           \
    X(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR, 82)               \
    X(CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, 95)                             \
    X(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, 97)              \
    X(CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR, 106)                 \
    X(CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE, 108)                  \
    X(CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK, 111)

#define PRNN_CU_FUNCTION_ATTRIBUTE_VALUES(X)                                  \
    X(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, 3)                                  \
    X(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 8)

#define PRNN_CU_JIT_OPTION_VALUES(X)                                          \
    X(CU_JIT_ERROR_LOG_BUFFER, 5)                                             \
    X(CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, 6)

#define PRNN_CU_STREAM_CAPTURE_MODE_VALUES(X)                                 \
    X(CU_STREAM_CAPTURE_MODE_GLOBAL, 0)                                       \
    X(CU_STREAM_CAPTURE_MODE_THREAD_LOCAL, 1)

#define PRNN_CU_STREAM_CAPTURE_STATUS_VALUES(X)                               \
    X(CU_STREAM_CAPTURE_STATUS_NONE, 0)                                       \
    X(CU_STREAM_CAPTURE_STATUS_ACTIVE, 1)                                     \
    X(CU_STREAM_CAPTURE_STATUS_INVALIDATED, 2)

#define PRNN_CU_ENUMS(X)                                                      \
    X(CUresult, PRNN_CU_RESULT_VALUES)                                        \
    X(CUdevice_attribute, PRNN_CU_DEVICE_ATTRIBUTE_VALUES)                    \
    X(CUfunction_attribute, PRNN_CU_FUNCTION_ATTRIBUTE_VALUES)                \
    X(CUjit_option, PRNN_CU_JIT_OPTION_VALUES)                                \
    X(CUstreamCaptureMode, PRNN_CU_STREAM_CAPTURE_MODE_VALUES)                \
    X(CUstreamCaptureStatus, PRNN_CU_STREAM_CAPTURE_STATUS_VALUES)

/* Flags passed as unsigned int (CUstream_flags, CUevent_flags). */
#define PRNN_CU_CONSTANTS(X)                                                  \
    X(CU_STREAM_NON_BLOCKING, 1)                                              \
    X(CU_EVENT_DISABLE_TIMING, 2)                                             \
    X(CU_EVENT_DEFAULT, 0)

/* Every function the library calls: a driver without a required one is
 * refused (cuda_driver.c). cuEventElapsedTime_v2 (CUDA 12.8) falls back to
 * the older symbol of the same type there. */
#define PRNN_CU_FUNCTIONS(X)                                                  \
    X(cuInit, cuInit, 1, CUresult, (unsigned int flags))                      \
    X(cuDriverGetVersion, cuDriverGetVersion, 1, CUresult,                    \
      (int *driver_version))                                                  \
    X(cuGetErrorName, cuGetErrorName, 1, CUresult,                            \
      (CUresult error, const char **name))                                    \
    X(cuGetErrorString, cuGetErrorString, 1, CUresult,                        \
      (CUresult error, const char **description))                             \
    X(cuDeviceGetCount, cuDeviceGetCount, 1, CUresult, (int *count))          \
    X(cuDeviceGet, cuDeviceGet, 1, CUresult, (CUdevice *device, int ordinal)) \
    X(cuDeviceGetName, cuDeviceGetName, 1, CUresult,                          \
      (char *name, int len, CUdevice dev))                                    \
    X(cuDeviceGetAttribute, cuDeviceGetAttribute, 1, CUresult,                \
      (int *value, CUdevice_attribute attrib, CUdevice dev))                  \
    X(cuDeviceTotalMem, cuDeviceTotalMem_v2, 1, CUresult,                     \
      (size_t *bytes, CUdevice dev))                                          \
    X(cuDevicePrimaryCtxRetain, cuDevicePrimaryCtxRetain, 1, CUresult,        \
      (CUcontext *ctx, CUdevice dev))                                         \
    X(cuDevicePrimaryCtxRelease, cuDevicePrimaryCtxRelease_v2, 1, CUresult,   \
      (CUdevice dev))                                                         \
    X(cuCtxGetCurrent, cuCtxGetCurrent, 1, CUresult, (CUcontext *ctx))        \
    X(cuCtxSetCurrent, cuCtxSetCurrent, 1, CUresult, (CUcontext ctx))         \
    X(cuCtxGetDevice, cuCtxGetDevice, 1, CUresult, (CUdevice *device))       \
    X(cuCtxPushCurrent, cuCtxPushCurrent_v2, 1, CUresult, (CUcontext ctx))    \
    X(cuCtxPopCurrent, cuCtxPopCurrent_v2, 1, CUresult, (CUcontext *ctx))     \
    X(cuCtxSynchronize, cuCtxSynchronize, 1, CUresult, (void))                \
    X(cuModuleLoadDataEx, cuModuleLoadDataEx, 1, CUresult,                    \
      (CUmodule *module, const void *image, unsigned int num_options,         \
       CUjit_option *options, void **option_values))                          \
    X(cuModuleGetFunction, cuModuleGetFunction, 1, CUresult,                  \
      (CUfunction *fn, CUmodule module, const char *name))                    \
    X(cuFuncGetAttribute, cuFuncGetAttribute, 1, CUresult,                    \
      (int *value, CUfunction_attribute attrib, CUfunction fn))               \
    X(cuFuncSetAttribute, cuFuncSetAttribute, 1, CUresult,                    \
      (CUfunction fn, CUfunction_attribute attrib, int value))                \
    X(cuOccupancyMaxActiveBlocksPerMultiprocessor,                            \
      cuOccupancyMaxActiveBlocksPerMultiprocessor, 1, CUresult,               \
      (int *num_blocks, CUfunction fn, int block_size, size_t dynamic_smem))  \
    X(cuLaunchKernel, cuLaunchKernel, 1, CUresult,                            \
      (CUfunction fn, unsigned int grid_x, unsigned int grid_y,               \
       unsigned int grid_z, unsigned int block_x, unsigned int block_y,       \
       unsigned int block_z, unsigned int smem_bytes, CUstream stream,        \
       void **params, void **extra))                                          \
    X(cuLaunchCooperativeKernel, cuLaunchCooperativeKernel, 1, CUresult,      \
      (CUfunction fn, unsigned int grid_x, unsigned int grid_y,               \
       unsigned int grid_z, unsigned int block_x, unsigned int block_y,       \
       unsigned int block_z, unsigned int smem_bytes, CUstream stream,        \
       void **params))                                                        \
    X(cuMemGetInfo, cuMemGetInfo_v2, 1, CUresult,                             \
      (size_t *free_bytes, size_t *total_bytes))                              \
    X(cuMemAlloc, cuMemAlloc_v2, 1, CUresult,                                 \
      (CUdeviceptr *ptr, size_t bytes))                                       \
    X(cuMemFree, cuMemFree_v2, 1, CUresult, (CUdeviceptr ptr))                \
    X(cuMemcpyHtoD, cuMemcpyHtoD_v2, 1, CUresult,                             \
      (CUdeviceptr dst, const void *src, size_t bytes))                       \
    X(cuMemcpyDtoH, cuMemcpyDtoH_v2, 1, CUresult,                             \
      (void *dst, CUdeviceptr src, size_t bytes))                             \
    X(cuMemcpyHtoDAsync, cuMemcpyHtoDAsync_v2, 1, CUresult,                   \
      (CUdeviceptr dst, const void *src, size_t bytes, CUstream stream))      \
    X(cuMemcpyDtoHAsync, cuMemcpyDtoHAsync_v2, 1, CUresult,                   \
      (void *dst, CUdeviceptr src, size_t bytes, CUstream stream))            \
    X(cuMemcpyDtoDAsync, cuMemcpyDtoDAsync_v2, 1, CUresult,                   \
      (CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream stream))      \
    X(cuMemsetD8Async, cuMemsetD8Async, 1, CUresult,                          \
      (CUdeviceptr dst, unsigned char value, size_t count, CUstream stream))  \
    X(cuMemsetD32Async, cuMemsetD32Async, 1, CUresult,                        \
      (CUdeviceptr dst, unsigned int value, size_t count, CUstream stream))   \
    X(cuStreamCreate, cuStreamCreate, 1, CUresult,                            \
      (CUstream *stream, unsigned int flags))                                 \
    X(cuStreamDestroy, cuStreamDestroy_v2, 1, CUresult, (CUstream stream))    \
    X(cuStreamSynchronize, cuStreamSynchronize, 1, CUresult,                  \
      (CUstream stream))                                                      \
    X(cuStreamBeginCapture, cuStreamBeginCapture_v2, 1, CUresult,             \
      (CUstream stream, CUstreamCaptureMode mode))                            \
    X(cuStreamEndCapture, cuStreamEndCapture, 1, CUresult,                    \
      (CUstream stream, CUgraph *graph))                                      \
    X(cuStreamIsCapturing, cuStreamIsCapturing, 1, CUresult,                  \
      (CUstream stream, CUstreamCaptureStatus *status))                       \
    X(cuEventCreate, cuEventCreate, 1, CUresult,                              \
      (CUevent *event, unsigned int flags))                                   \
    X(cuEventRecord, cuEventRecord, 1, CUresult,                              \
      (CUevent event, CUstream stream))                                       \
    X(cuEventSynchronize, cuEventSynchronize, 1, CUresult, (CUevent event))   \
    X(cuStreamWaitEvent, cuStreamWaitEvent, 1, CUresult,                      \
      (CUstream stream, CUevent event, unsigned int flags))                   \
    X(cuEventElapsedTime, cuEventElapsedTime_v2, 1, CUresult,                 \
      (float *ms, CUevent start, CUevent end))                                \
    X(cuEventDestroy, cuEventDestroy_v2, 1, CUresult, (CUevent event))        \
    X(cuGraphInstantiate, cuGraphInstantiateWithFlags, 1, CUresult,           \
      (CUgraphExec *exec, CUgraph graph, unsigned long long flags))           \
    X(cuGraphLaunch, cuGraphLaunch, 1, CUresult,                              \
      (CUgraphExec exec, CUstream stream))                                    \
    X(cuGraphExecDestroy, cuGraphExecDestroy, 1, CUresult,                    \
      (CUgraphExec exec))                                                     \
    X(cuGraphDestroy, cuGraphDestroy, 1, CUresult, (CUgraph graph))           \
    /* CUDA 12.0: context identity. */                                        \
    X(cuCtxGetId, cuCtxGetId, 0, CUresult,                                    \
      (CUcontext ctx, unsigned long long *id))

#define PRNN_CU_API(K)                                                        \
    K(PRNN_CU_SCALARS, PRNN_CU_ENUMS, PRNN_CU_CONSTANTS, PRNN_API_NONE,       \
      PRNN_CU_HANDLES, PRNN_CU_FUNCTIONS)

PRNN_CU_API(PRNN_API_DECLARE)

/* clang-format on */
#endif
