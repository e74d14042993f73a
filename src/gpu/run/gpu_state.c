#include "gpu/run/gpu_state.h"

#include <stdlib.h>

#include "error.h"
#include "cuda/warmup.h"

prnnStatus_t prnn_gpu_state_create(struct prnn_gpu_state **out)
{
    *out = NULL;
    const prnn_cuda_driver *cu;
    prnnStatus_t s = prnn_cuda_driver_get(&cu);
    if (s)
        return s;
    struct prnn_gpu_state *g = calloc(1, sizeof(*g));
    if (!g)
        return prnn_fail(PRNN_STATUS_ALLOC_FAILED, "out of host memory");
    g->cu = cu;
    /* The runtime API's rule: the current context's device, else device 0. */
    CUcontext current = NULL;
    if (cu->cuCtxGetCurrent(&current) == CUDA_SUCCESS && current) {
        s = prnn_cu_check(cu->cuCtxGetDevice(&g->device), "cuCtxGetDevice");
    } else {
        s = prnn_cu_check(cu->cuDeviceGet(&g->device, 0), "cuDeviceGet(0)");
    }
    if (!s)
        s = prnn_device_info_query(cu, g->device, &g->info);
    /* NVRTC's and cuBLASLt's start-up beside the context's creation and
     * whatever the caller does before its first plan (cuda/warmup.h). */
    if (!s)
        prnn_cuda_warm_up(g->info.sm);
    if (!s)
        s = prnn_cu_check(cu->cuDevicePrimaryCtxRetain(&g->ctx, g->device),
                          "cuDevicePrimaryCtxRetain");
    if (s) {
        free(g);
        return s;
    }
    prnn_device_info_describe(&g->info, g->description, sizeof(g->description));
    *out = g;
    return PRNN_STATUS_SUCCESS;
}

void prnn_gpu_state_destroy(struct prnn_gpu_state *g)
{
    if (!g)
        return;
    int pushed = g->cu->cuCtxPushCurrent(g->ctx) == CUDA_SUCCESS;
    if (g->gemm_ready)
        prnn_gemm_cache_destroy(&g->gemm);
    if (pushed) {
        if (g->fork)
            g->cu->cuEventDestroy(g->fork);
        if (g->join)
            g->cu->cuEventDestroy(g->join);
        if (g->side)
            g->cu->cuStreamDestroy(g->side);
        CUcontext dummy;
        g->cu->cuCtxPopCurrent(&dummy);
    }
    g->cu->cuDevicePrimaryCtxRelease(g->device);
    free(g);
}

prnnStatus_t prnn_gpu_enter(struct prnn_gpu_state *g)
{
    return prnn_cu_check(g->cu->cuCtxPushCurrent(g->ctx), "cuCtxPushCurrent");
}

int prnn_gpu_enter_quietly(struct prnn_gpu_state *g)
{
    return g->cu->cuCtxPushCurrent(g->ctx) == CUDA_SUCCESS;
}

void prnn_gpu_leave(struct prnn_gpu_state *g)
{
    CUcontext dummy;
    g->cu->cuCtxPopCurrent(&dummy);
}

prnnStatus_t prnn_gpu_side_stream(struct prnn_gpu_state *g)
{
    const prnn_cuda_driver *cu = g->cu;
    /* non-blocking: ordered with the caller's stream by the events alone,
     * even where that stream is the legacy default one */
    if (!g->side)
        PRNN_TRY(
            prnn_cu_check(cu->cuStreamCreate(&g->side, CU_STREAM_NON_BLOCKING), "cuStreamCreate"));
    if (!g->fork)
        PRNN_TRY(
            prnn_cu_check(cu->cuEventCreate(&g->fork, CU_EVENT_DISABLE_TIMING), "cuEventCreate"));
    if (!g->join)
        PRNN_TRY(
            prnn_cu_check(cu->cuEventCreate(&g->join, CU_EVENT_DISABLE_TIMING), "cuEventCreate"));
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnn_gpu_gemm(struct prnn_gpu_state *g, prnn_gemm_cache **out)
{
    if (!g->gemm_ready) {
        prnnStatus_t s = prnn_gemm_cache_init(&g->gemm);
        if (s)
            return s;
        g->gemm_ready = 1;
    }
    *out = &g->gemm;
    return PRNN_STATUS_SUCCESS;
}
