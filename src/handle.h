/* The handle behind prnnHandle_t. */
#ifndef PRNN_HANDLE_H
#define PRNN_HANDLE_H

#include <stddef.h>
#include <stdint.h>

#include "prnn.h"

#define PRNN_MAGIC_HANDLE 0x7048444cu /* "pHDL" */

struct prnn_gpu_state; /* src/gpu/gpu_state.h; NULL on the CPU backend */

struct prnnContext {
    uint32_t magic;
    prnnBackend_t backend;
    struct CUstream_st *stream;
    prnnAutotuneMode_t autotune;
    /* Per-step batch sizes of the call being validated. Grown, never shrunk,
     * so that compute calls do not allocate once a sequence length has been
     * seen. */
    int *batch_scratch;
    size_t batch_scratch_cap;
    struct prnn_gpu_state *gpu;
};

/* SUCCESS when h is a live handle; BAD_PARAM naming "handle" otherwise. */
prnnStatus_t prnn_check_handle(const struct prnnContext *h);

/* A batch array of at least n ints owned by the handle. */
int *prnn_handle_batch_scratch(struct prnnContext *h, size_t n);

#endif
