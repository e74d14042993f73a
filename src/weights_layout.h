/*
 * The flat weight buffer's layout (prnn's own; the public API only exposes it
 * through prnnGetRNNLinLayerMatrixParams / BiasParams).
 *
 * For each pseudo-layer p = layer * dirs + dir, in order, four blocks, each
 * starting at a multiple of PRNN_WEIGHT_ALIGN bytes:
 *   W  [gates * hidden][K]     row-major, gate-major rows (gate g's matrix is
 *                              rows g*hidden .. g*hidden + hidden-1); absent
 *                              for layer 0 with SKIP_INPUT.
 *                              K = inputSize (layer 0) or dirs * hidden.
 *   R  [gates * hidden][hidden] row-major, same row order.
 *   bW [gates * hidden]
 *   bR [gates * hidden]
 * Gate order: LSTM i, f, g, o; GRU r, z, n. Keeping each block contiguous lets
 * the input projection of all gates be one GEMM and lets the recurrent kernel
 * read its rows of R directly.
 */
#ifndef PRNN_WEIGHTS_LAYOUT_H
#define PRNN_WEIGHTS_LAYOUT_H

#include <stddef.h>

#include "descriptors.h"

#define PRNN_WEIGHT_ALIGN 256

typedef struct {
    /* Offsets and counts are in elements of the RNN's data type. */
    size_t w_offset; /* (size_t)-1 when W is absent (SKIP_INPUT layer 0) */
    size_t r_offset;
    size_t bw_offset;
    size_t br_offset;
    int w_cols; /* K; 0 when W is absent */
} prnn_pseudo_layer_layout;

/* Total size in bytes of the weight buffer for the given input size;
 * PRNN_SIZE_OVERFLOW (checked_size.h) when it does not fit in size_t. */
size_t prnn_weights_bytes(const struct prnnRNNStruct *rnn, int input_size);

/* Offsets of pseudo-layer p's blocks. p must be valid. */
void prnn_weights_pseudo_layer(const struct prnnRNNStruct *rnn, int input_size,
                               int pseudo_layer, prnn_pseudo_layer_layout *out);

/*
 * The matrix of linLayerID (cuDNN meaning) of pseudo-layer p: element offset,
 * rows and columns. Returns 0 and sets *offset to (size_t)-1 when the matrix
 * does not exist (W of a SKIP_INPUT layer 0). IDs must be valid.
 */
int prnn_weights_matrix(const struct prnnRNNStruct *rnn, int input_size,
                        int pseudo_layer, int lin_layer_id, size_t *offset,
                        int *rows, int *cols);

/* Element offset of the bias of linLayerID (hidden values). */
size_t prnn_weights_bias(const struct prnnRNNStruct *rnn, int input_size,
                         int pseudo_layer, int lin_layer_id);

#endif
