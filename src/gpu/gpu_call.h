/*
 * What every GPU call carries from the handle: the GPU state, the stream and
 * the autotune mode. Below the facade (gpu_backend.h) nothing sees the
 * public handle, and every layer can include this without reaching up.
 */
#ifndef PRNN_GPU_CALL_H
#define PRNN_GPU_CALL_H

#include "prnn.h"

struct prnn_gpu_state;

typedef struct {
    struct prnn_gpu_state *gs;
    struct CUstream_st *stream;
    prnnAutotuneMode_t autotune;
} prnn_gpu_call;

#endif
