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

prnnStatus_t prnn_layered_forward(const prnn_call_plan *c, const void *buffers);
prnnStatus_t prnn_layered_backward_data(const prnn_call_plan *c, const void *buffers);
prnnStatus_t prnn_layered_backward_weights(const prnn_call_plan *c, const void *buffers);

/* Direction d's projected input of the layer being run (xproj part). */
void *prnn_layered_xproj(const prnn_call_plan *c, int d);

#endif
