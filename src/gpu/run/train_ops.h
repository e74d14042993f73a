/*
 * Launchers of the training path's elementwise and reduction kernels
 * (kernel_src/rnn_train.cu), around the recurrence and the GEMMs.
 */
#ifndef PRNN_TRAIN_OPS_H
#define PRNN_TRAIN_OPS_H

#include "gpu/run/gpu_run.h"

/* Whether layer l's output is dropped out before layer l + 1 (training). */
int prnn_train_dropout_after(const prnn_call_plan *c, int layer);

/* dst = dropout(src) of layer `layer`'s output (storage type, both
 * [rows][dirs*P], P the width of h: gpu_run.h). */
prnnStatus_t prnn_train_dropout_forward(const prnn_call_plan *c, int layer, const void *src,
                                        void *dst);

/* What layer + 1 reads of layer `layer`'s output (storage type): output
 * itself, or, in training with dropout after the layer, its dropped copy in
 * the workspace's `dropped` part (the same Philox bits every time it is
 * made, so BackwardWeights sees what the forward pass saw). */
prnnStatus_t prnn_train_next_input(const prnn_call_plan *c, int layer, int training,
                                   const void *output, const void **input);

/* The gradient of layer `layer`'s output through its dropout, in place
 * (math type). */
prnnStatus_t prnn_train_dropout_backward(const prnn_call_plan *c, int layer, void *grad);

/* dst[rows][P] = h_{t-1} of every row of direction dir: rows of out
 * (ld elements apart, this direction's columns; where out_rows says: packed,
 * or the caller's y read in place), or hx (at the rows of the call's
 * order; NULL: zeros). */
prnnStatus_t prnn_train_gather_prev(const prnn_call_plan *c, int dir, const void *out, int ld,
                                    prnn_rows out_rows, const void *hx, void *dst);

/* A bias gradient: bias[i] += the sum over rows of dg column
 * i + (i >= col_split ? col_skip : 0). */
typedef struct {
    void *bias;
    int col_split, col_skip;
} prnn_bias_target;

/* The `count` (1 or 2) targets' columns i < cols, with every dg column
 * summed once for all of them; dg rows are ld elements apart (the whole
 * row is summed: the workspace's bias_partial holds chunks x ld sums).
 * Deterministic: fixed chunks of rows, added in order. */
prnnStatus_t prnn_train_bias_grads(const prnn_call_plan *c, const void *dg, int ld, int cols,
                                   const prnn_bias_target *targets, int count);

/* SKIP_INPUT's dx from the input-side gate gradients of both directions. */
prnnStatus_t prnn_train_skip_dx(const prnn_call_plan *c, const void *const *dg, void *dx);

#endif
