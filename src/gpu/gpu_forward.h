/*
 * The forward pass with a plan: one setup kernel, then per layer the
 * input-projection GEMM(s) and one cooperative launch of the persistent
 * kernel (or, on the standard path, a GEMM and a pointwise kernel per step).
 * Training also keeps what backward needs in the reserve (reserve_layout.h)
 * and applies dropout between layers.
 */
#ifndef PRNN_GPU_FORWARD_H
#define PRNN_GPU_FORWARD_H

#include "gpu/gpu_backend.h"
#include "gpu/plan.h"

/* training: 0 inference (b->reserve unused), 1 training (the plan's
 * training kernels loaded). Arguments already validated. */
prnnStatus_t prnn_gpu_forward_run(const prnn_gpu_call *g, const prnn_plan *plan,
                                  const prnn_rnn_problem *p, int training,
                                  const prnn_forward_buffers *b);

#endif
