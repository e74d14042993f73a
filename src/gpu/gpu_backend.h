/*
 * The GPU backend as the API layer sees it: sizes, planning, and the compute
 * calls, after the API layer has validated every argument. Nothing below
 * this header sees the public handle: a call carries the GPU state, the
 * stream and the autotune mode.
 */
#ifndef PRNN_GPU_BACKEND_H
#define PRNN_GPU_BACKEND_H

#include "prnn.h"
#include "rnn_problem.h"

struct prnn_gpu_state;

/* What every GPU call needs from the handle. */
typedef struct {
    struct prnn_gpu_state *gs;
    struct CUstream_st *stream;
    prnnAutotuneMode_t autotune;
} prnn_gpu_call;

/* The per-handle GPU state (driver, device, primary context, cuBLASLt, plans).
 * NO_DEVICE when there is no driver or device. */
prnnStatus_t prnn_gpu_backend_create(struct prnn_gpu_state **out);
void prnn_gpu_backend_destroy(struct prnn_gpu_state *gs);

/* One size for every compute call of this shape (the largest of their
 * layouts), as prnnGetRNNWorkspaceSize promises. */
prnnStatus_t prnn_gpu_workspace_bytes(const prnn_gpu_call *g, const prnn_rnn_problem *p,
                                      size_t *bytes);
/* Also prepares the training kernels (compile and load), so that the first
 * training call pays nothing. */
prnnStatus_t prnn_gpu_reserve_bytes(const prnn_gpu_call *g, const prnn_rnn_problem *p,
                                    size_t *bytes);

prnnStatus_t prnn_gpu_prepare(const prnn_gpu_call *g, const struct prnnRNNStruct *rnn,
                              int mini_batch);
prnnStatus_t prnn_gpu_plan_info(const prnn_gpu_call *g, const struct prnnRNNStruct *rnn,
                                int mini_batch, prnnRNNPlanInfo_t *info);

prnnStatus_t prnn_gpu_forward(const prnn_gpu_call *g, const prnn_rnn_problem *p, int training,
                              const prnn_forward_buffers *b);
prnnStatus_t prnn_gpu_backward_data(const prnn_gpu_call *g, const prnn_rnn_problem *p,
                                    const prnn_backward_data_buffers *b);
prnnStatus_t prnn_gpu_backward_weights(const prnn_gpu_call *g, const prnn_rnn_problem *p,
                                       const prnn_backward_weights_buffers *b);

#endif
