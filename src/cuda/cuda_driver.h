/*
 * The CUDA driver API, loaded at run time from libcuda.so.1 into a table of
 * function pointers (nothing links against CUDA; no CUDA header is needed to
 * build: cuda_api.h declares what is used).
 *
 * Call through the table with cuda.h's names: cu->cuMemAlloc(&p, n). Each
 * field is resolved by the ABI-versioned symbol that cuda.h's macros map the
 * name to (cuMemAlloc_v2, cuCtxPushCurrent_v2, cuGraphInstantiateWithFlags,
 * ...), as listed in cuda_api.h and checked against cuda.h by tests/decl.
 */
#ifndef PRNN_CUDA_DRIVER_H
#define PRNN_CUDA_DRIVER_H

#include "cuda/cuda_api.h"
#include "prnn.h"

/* A driver without a required function of PRNN_CU_FUNCTIONS is refused;
 * optional ones are NULL in the table when the driver lacks them (check
 * before calling). */
typedef struct prnn_cuda_driver {
    PRNN_CU_FUNCTIONS(PRNN_API_TABLE_FIELD)
    int driver_version;       /* cuDriverGetVersion, e.g. 13000 */
    int device_count;         /* >= 1 */
    const char *library_path; /* the libcuda that was loaded */
} prnn_cuda_driver;

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
