/*
 * Loaded kernels, per CUDA context, for the life of the process: the second
 * plan of a shape costs a lookup, not a compile, a file read or a load.
 */
#ifndef PRNN_MODULE_CACHE_H
#define PRNN_MODULE_CACHE_H

#include "cuda/cuda_driver.h"
#include "jit/nvrtc_compile.h"
#include "prnn.h"

/*
 * The function function_name of req's kernel, loaded in ctx, which must be
 * current on the calling thread.
 *
 * A (ctx, key) seen before returns at once with *source = PRNN_CUBIN_MEMORY
 * and *compile_ms = 0. Otherwise the cubin comes from prnn_cubin_get (disk
 * cache or NVRTC, reported in *source and *compile_ms) and is loaded with
 * cuModuleLoadDataEx (MAPPING_ERROR with the driver's log if it refuses it).
 * Threads racing on one (ctx, key) end with one module: the others wait for
 * the first and get PRNN_CUBIN_MEMORY. Contexts are told apart by
 * cuCtxGetId where the driver has it, so a context destroyed and re-created
 * at the same address is never handed a stale module. source and compile_ms
 * may be NULL.
 */
prnnStatus_t prnn_module_get(const prnn_cuda_driver *cu, CUcontext ctx,
                             const prnn_compile_request *req, const char *function_name,
                             CUfunction *fn, prnnCubinSource_t *source, double *compile_ms);

/* As prnn_module_get, for the module itself (cuModuleGetGlobal, several
 * functions of one module). */
prnnStatus_t prnn_module_get_module(const prnn_cuda_driver *cu, CUcontext ctx,
                                    const prnn_compile_request *req, CUmodule *module,
                                    prnnCubinSource_t *source, double *compile_ms);

/* 1 when req's module is loaded in ctx (no compile, no file, no load: a
 * key and a lookup), else 0. Leaves the thread's log as it was. */
int prnn_module_loaded(const prnn_cuda_driver *cu, CUcontext ctx, const prnn_compile_request *req);

#endif
