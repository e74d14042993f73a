/* Handle creation, backend selection, stream and autotune settings. */
#include "handle.h"

#include <stdlib.h>

#include "checked_size.h"
#include "descriptors.h"
#include "error.h"
#include "object_pool.h"
#include "gpu/gpu_backend.h"

prnnStatus_t prnn_check_handle(const struct prnnContext *h)
{
    if (!h)
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "handle is NULL");
    if (h->magic != PRNN_MAGIC_HANDLE)
        return prnn_fail(PRNN_STATUS_BAD_PARAM,
                         "handle is not a live prnn handle (never created, or already destroyed)");
    return PRNN_STATUS_SUCCESS;
}

int *prnn_handle_batch_scratch(struct prnnContext *h, size_t n)
{
    if (n > h->batch_scratch_cap) {
        int *p = realloc(h->batch_scratch, prnn_mul_size(n, sizeof(int)));
        if (!p)
            return NULL;
        h->batch_scratch = p;
        h->batch_scratch_cap = n;
    }
    return h->batch_scratch;
}

static prnnStatus_t create_handle(prnnHandle_t *handle, prnnBackend_t backend)
{
    if (!handle)
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "handle is NULL");
    *handle = NULL;
    if (backend != PRNN_BACKEND_GPU && backend != PRNN_BACKEND_CPU_REFERENCE)
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "backend = %d: not a prnnBackend_t", (int)backend);
    struct prnnContext *h = prnn_object_alloc(sizeof(*h));
    if (!h)
        return prnn_fail(PRNN_STATUS_ALLOC_FAILED, "out of host memory");
    h->magic = PRNN_MAGIC_HANDLE;
    h->backend = backend;
    h->autotune = PRNN_AUTOTUNE_OFF;
    if (backend == PRNN_BACKEND_GPU) {
        prnnStatus_t s = prnn_gpu_backend_create(&h->gpu);
        if (s) {
            h->magic = PRNN_MAGIC_DEAD;
            prnn_object_release(h, sizeof(*h));
            return s;
        }
    }
    *handle = h;
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnnCreate(prnnHandle_t *handle)
{
    prnn_api_enter("prnnCreate");
    return create_handle(handle, PRNN_BACKEND_GPU);
}

prnnStatus_t prnnCreateWithBackend(prnnHandle_t *handle, prnnBackend_t backend)
{
    prnn_api_enter("prnnCreateWithBackend");
    return create_handle(handle, backend);
}

prnnStatus_t prnnDestroy(prnnHandle_t handle)
{
    prnn_api_enter("prnnDestroy");
    if (!handle)
        return PRNN_STATUS_SUCCESS;
    PRNN_TRY(prnn_check_handle(handle));
    if (handle->gpu)
        prnn_gpu_backend_destroy(handle->gpu);
    free(handle->batch_scratch);
    handle->batch_scratch = NULL;
    handle->gpu = NULL;
    /* Kept, marked, for later checks to read (object_pool.h). */
    handle->magic = PRNN_MAGIC_DEAD;
    prnn_object_release(handle, sizeof(*handle));
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnnGetBackend(prnnHandle_t handle, prnnBackend_t *backend)
{
    prnn_api_enter("prnnGetBackend");
    PRNN_TRY(prnn_check_handle(handle));
    if (!backend)
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "backend is NULL");
    *backend = handle->backend;
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnnSetStream(prnnHandle_t handle, struct CUstream_st *stream)
{
    prnn_api_enter("prnnSetStream");
    PRNN_TRY(prnn_check_handle(handle));
    handle->stream = stream;
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnnGetStream(prnnHandle_t handle, struct CUstream_st **stream)
{
    prnn_api_enter("prnnGetStream");
    PRNN_TRY(prnn_check_handle(handle));
    if (!stream)
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "stream is NULL");
    *stream = handle->stream;
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnnSetAutotuneMode(prnnHandle_t handle, prnnAutotuneMode_t mode)
{
    prnn_api_enter("prnnSetAutotuneMode");
    PRNN_TRY(prnn_check_handle(handle));
    if (mode != PRNN_AUTOTUNE_OFF && mode != PRNN_AUTOTUNE_ON)
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "mode = %d: not a prnnAutotuneMode_t", (int)mode);
    handle->autotune = mode;
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnnGetAutotuneMode(prnnHandle_t handle, prnnAutotuneMode_t *mode)
{
    prnn_api_enter("prnnGetAutotuneMode");
    PRNN_TRY(prnn_check_handle(handle));
    if (!mode)
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "mode is NULL");
    *mode = handle->autotune;
    return PRNN_STATUS_SUCCESS;
}
