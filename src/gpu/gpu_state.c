#include "gpu/gpu_state.h"

#include <stdlib.h>

#include "error.h"

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

void prnn_gpu_leave(struct prnn_gpu_state *g)
{
    CUcontext dummy;
    g->cu->cuCtxPopCurrent(&dummy);
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
