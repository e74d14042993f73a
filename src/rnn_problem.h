/*
 * One RNN call's shape, resolved from the descriptors after validation: what
 * the CPU reference and the GPU path both consume.
 */
#ifndef PRNN_RNN_PROBLEM_H
#define PRNN_RNN_PROBLEM_H

#include <stddef.h>

#include "descriptors.h"

typedef struct {
    const struct prnnRNNStruct *rnn;
    int input_size;
    int seq_length;
    /* batch[t] for t < seq_length: rows of step t, non-increasing, >= 1.
     * Owned by the caller of whoever builds the problem. */
    const int *batch;
    int mini_batch;    /* batch[0] */
    size_t total_rows; /* sum of batch[t] */
} prnn_rnn_problem;

/* The buffers of a forward call (training or inference). Pointers as the
 * public API documents them; hx, cx, hy, cy may be NULL. */
typedef struct {
    const void *x, *hx, *cx, *w;
    void *y, *hy, *cy;
    void *workspace;
    size_t workspace_bytes;
    void *reserve; /* NULL for inference */
    size_t reserve_bytes;
} prnn_forward_buffers;

/* The buffers of BackwardData. dhy, dcy may be NULL (zeros); dhx, dcx may be
 * NULL (not wanted); cx, dcy, dcx are NULL unless LSTM or SRU. */
typedef struct {
    const void *y, *dy, *dhy, *dcy, *w, *hx, *cx;
    void *dx, *dhx, *dcx;
    void *workspace;
    size_t workspace_bytes;
    void *reserve;
    size_t reserve_bytes;
} prnn_backward_data_buffers;

/* The buffers of BackwardWeights. hx may be NULL (zeros). The workspace is
 * const in the public API (cuDNN v5's signature) but its contents are
 * undefined after the call, as for every call. */
typedef struct {
    const void *x, *hx, *y;
    void *workspace;
    size_t workspace_bytes;
    void *dw;
    const void *reserve;
    size_t reserve_bytes;
} prnn_backward_weights_buffers;

#endif
