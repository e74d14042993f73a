/*
 * The GPU backend as the API layer sees it: a compute call (or a size
 * query) resolved once into a call plan after the API layer has validated
 * its arguments, running it, planning and plan info. Nothing below this
 * header sees the public handle: a call carries the GPU state, the stream
 * and the autotune mode (gpu_call.h).
 */
#ifndef PRNN_GPU_BACKEND_H
#define PRNN_GPU_BACKEND_H

#include "gpu/gpu_call.h"
#include "gpu/run/gpu_run.h"
#include "prnn.h"
#include "rnn_problem.h"

/* The per-handle GPU state (driver, device, primary context, cuBLASLt, plans).
 * NO_DEVICE when there is no driver or device. */
prnnStatus_t prnn_gpu_backend_create(struct prnn_gpu_state **out);
void prnn_gpu_backend_destroy(struct prnn_gpu_state *gs);

/*
 * The call plan of a call of `kind` of p: its plan (made on first use;
 * with a training kind, its training kernels loaded too), the engine that
 * runs the call, its layouts, and the sizes the caller's buffers must have
 * (workspace_bytes: one size for every call of the shape, as
 * prnnGetRNNWorkspaceSize promises; reserve_bytes for training kinds). A
 * size query asks for kind INFERENCE (workspace) or FORWARD_TRAINING
 * (reserve: which prepares the training kernels, so that the first training
 * call pays nothing).
 */
prnnStatus_t prnn_gpu_call_plan(const prnn_gpu_call *g, const prnn_rnn_problem *p,
                                prnn_call_kind kind, prnn_call_plan *cp);

/* Runs cp on the caller's buffers (prnn_forward_buffers,
 * prnn_backward_data_buffers or prnn_backward_weights_buffers as its kind
 * says), their sizes checked against cp's. Only enqueues work. */
prnnStatus_t prnn_gpu_run(const prnn_gpu_call *g, prnn_call_plan *cp, const void *buffers,
                          void *workspace);

/* Enqueues zeros over bytes bytes of device memory at ptr on the call's
 * stream (prnnRNNBackwardWeights_v8's PRNN_WGRAD_MODE_SET). */
prnnStatus_t prnn_gpu_zero(const prnn_gpu_call *g, void *ptr, size_t bytes);

prnnStatus_t prnn_gpu_prepare(const prnn_gpu_call *g, const struct prnnRNNStruct *rnn,
                              int mini_batch);
prnnStatus_t prnn_gpu_plan_info(const prnn_gpu_call *g, const struct prnnRNNStruct *rnn,
                                int mini_batch, prnnRNNPlanInfo_t *info);

#endif
