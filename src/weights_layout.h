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
 *   R  [gates * hidden][P]     row-major, same row order; P = projSize with
 *                              a projection (LSTM, v8 descriptors), else
 *                              hidden; K of a deeper layer is dirs * P.
 *   bW [gates * hidden]        absent where the bias mode drops bW
 *   bR [gates * hidden]        absent where the bias mode drops bR
 *   Wp [P][hidden]             the projection W_proj (only with one)
 * Gate order: LSTM i, f, g, o; GRU r, z, n. Keeping each block contiguous lets
 * the input projection of all gates be one GEMM and lets the recurrent kernel
 * read its rows of R directly.
 *
 * SRU has no recurrent matrix and no bias pairs. For each layer, two blocks,
 * each aligned as above, each holding both directions back to back (so that
 * one GEMM projects the input for both, and one scan launch reads both
 * directions' vectors):
 *   W  [dirs][M * hidden][K]    row-major: the matrices of u0 (candidate),
 *                               u1 (forget gate f), u2 (reset gate r) and,
 *                               when K differs from the highway width
 *                               (prnn_sru_highway_width), u3 (the
 *                               projection x' of the input onto the
 *                               highway): M = 3 or 4.
 *                               Absent for layer 0 with SKIP_INPUT.
 *   V  [dirs][4 * hidden]       b_f, b_r, v_f, v_r: the elementwise
 *                               parameters of the scan, contiguous so that
 *                               a scan thread reads its four from one place.
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
    int w_rows; /* rows of W: gates * hidden, for SRU M * hidden (0 when
                 * absent) */
    /* SRU: r_offset, bw_offset and br_offset are (size_t)-1, and v_offset
     * is the V block; (size_t)-1 for the other modes. */
    size_t v_offset;
    /* LSTM with a projection: the block W_proj [proj][hidden]; (size_t)-1
     * without. bw_offset / br_offset are (size_t)-1 where the bias mode
     * drops that bias. */
    size_t p_offset;
} prnn_pseudo_layer_layout;

/* SRU: matrices in W for a layer whose input has k columns (0: none, SKIP
 * layer 0): 3, or 4 when k differs from prnn_sru_highway_width and x' must
 * be projected. */
int prnn_sru_matrices(const struct prnnRNNStruct *rnn, int k);

/* SRU: the input width at which x' is the input itself, by the convention
 * (prnnSRUConvention_t): hidden (prnn's; every direction reads all of it),
 * or dirs * hidden (the sru package's; direction d reads columns
 * d * hidden .. d * hidden + hidden - 1). */
int prnn_sru_highway_width(const struct prnnRNNStruct *rnn);

/* The parameter vectors of an SRU V block, in order (bias linLayerIDs). */
enum { PRNN_SRU_BF = 0, PRNN_SRU_BR = 1, PRNN_SRU_VF = 2, PRNN_SRU_VR = 3, PRNN_SRU_VECTORS = 4 };

/* Number of linLayerIDs each LinLayer call accepts for the mode: its W and
 * R matrices (rnn_cell_traits.h), one more, the projection, for an LSTM
 * with one; for SRU 4 (matrices 0..3, vectors 0..3). */
int prnn_weights_lin_layer_ids(const struct prnnRNNStruct *rnn);

/* Total size in bytes of the weight buffer for the given input size;
 * PRNN_SIZE_OVERFLOW (checked_size.h) when it does not fit in size_t. */
size_t prnn_weights_bytes(const struct prnnRNNStruct *rnn, int input_size);

/* Offsets of pseudo-layer p's blocks. p must be valid. */
void prnn_weights_pseudo_layer(const struct prnnRNNStruct *rnn, int input_size, int pseudo_layer,
                               prnn_pseudo_layer_layout *out);

/*
 * The matrix of linLayerID (cuDNN meaning) of pseudo-layer p: element offset,
 * rows and columns (the id after the R matrices: the projection, proj x
 * hidden). Returns 0 and sets *offset to (size_t)-1 when the matrix does not
 * exist (W of a SKIP_INPUT layer 0). IDs must be valid.
 */
int prnn_weights_matrix(const struct prnnRNNStruct *rnn, int input_size, int pseudo_layer,
                        int lin_layer_id, size_t *offset, int *rows, int *cols);

/* Element offset of the bias of linLayerID (hidden values); for SRU, of
 * vector linLayerID of the V block; (size_t)-1 for a bias the bias mode
 * drops and for the projection's id (it has none). */
size_t prnn_weights_bias(const struct prnnRNNStruct *rnn, int input_size, int pseudo_layer,
                         int lin_layer_id);

#endif
