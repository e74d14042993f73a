/*
 * One RNN call's shape, resolved from the descriptors after validation: what
 * the CPU reference and the GPU path both consume.
 */
#ifndef PRNN_RNN_PROBLEM_H
#define PRNN_RNN_PROBLEM_H

#include <stddef.h>

#include "descriptors.h"

/*
 * Where a v8 call's sequences lie in the caller's x, y, dx and dy, and
 * which caller row of the states each packed row is, for the unpacked
 * layouts (prnnRNNDataLayout_t). Inside, prnn works on the packed view: the
 * sequences sorted by decreasing length (stably), step t holding one row per
 * sequence longer than t. Owned by the caller of whoever builds it.
 */
typedef struct {
    prnnRNNDataLayout_t layout; /* SEQ_MAJOR_UNPACKED or BATCH_MAJOR_UNPACKED */
    int max_seq;                /* maxSeqLength */
    int batch;                  /* batchSize: sequences, rows of the states */
    const int *lengths;         /* [batch], the caller's order */
    const int *order;           /* [batch]: packed row b is sequence order[b] */
    /* One value of the data type each, or NULL: written to the padding of
     * y (forward) and dx (backward data). */
    const void *y_fill, *x_fill;
} prnn_seq_io;

/* The vector index, in the caller's buffer, of step t of sequence s. */
static inline size_t prnn_seq_io_vector(const prnn_seq_io *io, int t, int s)
{
    if (io->layout == PRNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED)
        return (size_t)s * (size_t)io->max_seq + (size_t)t;
    return (size_t)t * (size_t)io->batch + (size_t)s;
}

typedef struct {
    const struct prnnRNNStruct *rnn;
    int input_size;
    int seq_length;
    /* batch[t] for t < seq_length: rows of step t, non-increasing, >= 1.
     * Owned by the caller of whoever builds the problem. */
    const int *batch;
    int mini_batch;    /* batch[0] */
    size_t total_rows; /* sum of batch[t] */
    /* NULL: x, y, dx, dy packed time-major and state row b is packed row
     * b (the v5 calls, and v8's SEQ_MAJOR_PACKED); else the unpacked
     * layout of a v8 call (the CPU reference reads it in place, the GPU
     * through packed copies: gpu/run/seq_io.h). */
    const prnn_seq_io *io;
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
