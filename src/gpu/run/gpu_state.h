/* Per-handle GPU state: driver, device, primary context, GEMMs, plans. */
#ifndef PRNN_GPU_STATE_H
#define PRNN_GPU_STATE_H

#include "cuda/cuda_driver.h"
#include "cuda/device_info.h"
#include "gpu/run/gemm.h"
#include "prnn.h"

struct prnn_plan;

struct prnn_gpu_state {
    const prnn_cuda_driver *cu;
    CUdevice device;
    CUcontext ctx; /* the device's primary context, retained */
    prnn_device_info info;
    char description[128];
    int gemm_ready;
    prnn_gemm_cache gemm;
    /* A second stream for work a call overlaps with its own, and the events
     * that fork it from the call's stream and join it back (gpu_run.h:
     * prnn_run_fork); made at planning by the plans that use it. */
    CUstream side;
    CUevent fork, join;
    struct prnn_plan *plans; /* owned by the backend (gpu_backend.c frees them) */
};

/* Loads the driver, binds the current device (or device 0) and retains its
 * primary context. NO_DEVICE when there is no driver or device. */
prnnStatus_t prnn_gpu_state_create(struct prnn_gpu_state **out);
/* Releases the context, cuBLASLt and the state; the plans must be freed
 * first (prnn_gpu_backend_destroy). */
void prnn_gpu_state_destroy(struct prnn_gpu_state *g);

/* Makes the handle's context current for a call; every enter has a leave. */
prnnStatus_t prnn_gpu_enter(struct prnn_gpu_state *g);
void prnn_gpu_leave(struct prnn_gpu_state *g);
/* As prnn_gpu_enter, for releasing driver objects on a failure or at the
 * end: 1 when the context was made current (leave then), 0 when not, and
 * the thread's log untouched either way. */
int prnn_gpu_enter_quietly(struct prnn_gpu_state *g);

/* The side stream and its events, made on the first call (the handle's
 * context must be current). */
prnnStatus_t prnn_gpu_side_stream(struct prnn_gpu_state *g);

/* cuBLASLt, loaded and created on first use. */
prnnStatus_t prnn_gpu_gemm(struct prnn_gpu_state *g, prnn_gemm_cache **out);

#endif
