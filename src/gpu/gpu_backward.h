/*
 * The backward passes with a plan whose training kernels are loaded.
 *
 * Backward data, top layer first: per layer one cooperative launch of the
 * persistent backward-data kernel for both directions (or, on the standard
 * path, a GEMM and a pointwise kernel per step), leaving every row's gate
 * gradients in the reserve; then dx = dg W as one cuBLASLt GEMM over all
 * rows per direction (SKIP_INPUT layer 0: a sum over gates), which, through
 * the dropout mask, is the next layer down's dy.
 *
 * Backward weights: per layer and direction, dW += dg^T input and
 * dR += dg^T h_{t-1} as one GEMM each over all rows (GRU's input side two),
 * and the bias gradients as deterministic column sums.
 */
#ifndef PRNN_GPU_BACKWARD_H
#define PRNN_GPU_BACKWARD_H

#include "gpu/gpu_backend.h"
#include "gpu/plan.h"

prnnStatus_t prnn_gpu_backward_data_run(const prnn_gpu_call *g, const prnn_plan *plan,
                                        const prnn_rnn_problem *p,
                                        const prnn_backward_data_buffers *b);

prnnStatus_t prnn_gpu_backward_weights_run(const prnn_gpu_call *g, const prnn_plan *plan,
                                           const prnn_rnn_problem *p,
                                           const prnn_backward_weights_buffers *b);

#endif
