/*
 * The layered runner: how a call of the gate modes (RELU, TANH, LSTM, GRU)
 * runs, layer by layer, around its engine's recurrence. Forward: each
 * layer's input projection for every step (one cuBLASLt GEMM per
 * direction), the engine's forward_layer, dropout before the next layer.
 * Backward-data, top layer down: the engine's backward_layer (it leaves the
 * gate gradients dg in the reserve), then dx or the gradient of the layer
 * below (GEMMs over dg's input-side gates), through dropout. Backward
 * weights: GEMMs over all rows and deterministic bias sums, whatever the
 * engine. What engines' layer functions share is here too.
 */
#ifndef PRNN_LAYERED_RUN_H
#define PRNN_LAYERED_RUN_H

#include "gpu/run/gpu_run.h"
#include "prnn_kernel_abi.h"

prnnStatus_t prnn_layered_forward(const prnn_call_plan *c, const void *buffers);
prnnStatus_t prnn_layered_backward_data(const prnn_call_plan *c, const void *buffers);
prnnStatus_t prnn_layered_backward_weights(const prnn_call_plan *c, const void *buffers);

/* Direction d's projected input of the layer being run (xproj part). */
void *prnn_layered_xproj(const prnn_call_plan *c, int d);

/* The kernel arguments (prnn_kernel_abi.h) that the on-chip engines' layer
 * functions fill alike from lr: every direction's weights, input, states
 * and reserve columns, the output, the step table, the clip bounds and the
 * layer's hand-off tags; zero elsewhere (an engine adds its own scratch).
 * Forward (layered_forward.c) and backward-data (layered_backward.c). */
void prnn_layered_rnn_args(const prnn_layer_run *lr, prnn_rnn_args *a);
void prnn_layered_bwd_args(const prnn_layer_run *lr, prnn_bwd_args *a);

#endif
