/*
 * SRU on the GPU (PRNN_PATH_SRU_SCAN): per layer, one cuBLASLt GEMM
 * projects the input for every step and both directions, and one launch of
 * sru_scan.cu runs the elementwise recurrence; backward the scan walks time
 * backwards, then GEMMs give dx (or the gradient of the layer below) and dW,
 * and a fixed-order reduction the V block's gradient. Called by the GPU
 * backend for SRU plans in place of the persistent runners.
 */
#ifndef PRNN_SRU_RUN_H
#define PRNN_SRU_RUN_H

#include "gpu/gpu_backend.h"
#include "gpu/plan.h"

prnnStatus_t prnn_sru_forward_run(const prnn_gpu_call *g, const prnn_plan *plan,
                                  const prnn_rnn_problem *p, int training,
                                  const prnn_forward_buffers *b);

prnnStatus_t prnn_sru_backward_data_run(const prnn_gpu_call *g, const prnn_plan *plan,
                                        const prnn_rnn_problem *p,
                                        const prnn_backward_data_buffers *b);

prnnStatus_t prnn_sru_backward_weights_run(const prnn_gpu_call *g, const prnn_plan *plan,
                                           const prnn_rnn_problem *p,
                                           const prnn_backward_weights_buffers *b);

#endif
