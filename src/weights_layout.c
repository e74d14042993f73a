#include "weights_layout.h"

#include "checked_size.h"
#include "dtype.h"

static size_t align_elems(size_t n, size_t elem_size)
{
    return prnn_align_size(n, PRNN_WEIGHT_ALIGN / elem_size);
}

static int layer_input_cols(const struct prnnRNNStruct *rnn, int input_size, int layer)
{
    if (layer == 0)
        return rnn->input_mode == PRNN_SKIP_INPUT ? 0 : input_size;
    return prnn_rnn_dirs(rnn) * prnn_rnn_out_width(rnn);
}

int prnn_sru_matrices(const struct prnnRNNStruct *rnn, int k)
{
    return k && k != prnn_sru_highway_width(rnn) ? 4 : 3;
}

int prnn_sru_highway_width(const struct prnnRNNStruct *rnn)
{
    return rnn->sru_convention == PRNN_SRU_CONVENTION_SRU_PACKAGE ? prnn_rnn_dirs(rnn) * rnn->hidden
                                                                  : rnn->hidden;
}

int prnn_weights_lin_layer_ids(const struct prnnRNNStruct *rnn)
{
    const prnn_cell_traits_row *cell = prnn_cell_traits(rnn->mode);
    return cell->w_matrices + cell->r_matrices + (rnn->proj ? 1 : 0);
}

/* One pseudo-layer's blocks from element offset off; returns the offset
 * after them. */
static size_t place(const struct prnnRNNStruct *rnn, int k, size_t off, prnn_pseudo_layer_layout *l)
{
    size_t es = prnn_dtype_size(rnn->dtype);
    size_t h = (size_t)rnn->hidden, p = (size_t)prnn_rnn_out_width(rnn);
    size_t rows = (size_t)prnn_cell_traits(rnn->mode)->gates * h;
    l->w_cols = k;
    l->w_rows = k ? (int)rows : 0;
    l->w_offset = k ? off : (size_t)-1;
    off = align_elems(prnn_add_size(off, prnn_mul_size(rows, (size_t)k)), es);
    l->v_offset = (size_t)-1;
    l->r_offset = off;
    off = align_elems(prnn_add_size(off, prnn_mul_size(rows, p)), es);
    l->bw_offset = prnn_rnn_has_bias_w(rnn) ? off : (size_t)-1;
    if (prnn_rnn_has_bias_w(rnn))
        off = align_elems(prnn_add_size(off, rows), es);
    l->br_offset = prnn_rnn_has_bias_r(rnn) ? off : (size_t)-1;
    if (prnn_rnn_has_bias_r(rnn))
        off = align_elems(prnn_add_size(off, rows), es);
    l->p_offset = rnn->proj ? off : (size_t)-1;
    if (rnn->proj)
        off = align_elems(prnn_add_size(off, prnn_mul_size(p, h)), es);
    return off;
}

/* SRU places a layer at a time: the W of both directions back to back, then
 * their V blocks, so that one GEMM projects the input for both directions
 * and one scan launch finds both directions' vectors. Direction dir's blocks
 * of the layer that starts at off; returns the offset after the whole layer. */
static size_t place_sru(const struct prnnRNNStruct *rnn, int k, int dir, size_t off,
                        prnn_pseudo_layer_layout *l)
{
    size_t es = prnn_dtype_size(rnn->dtype);
    size_t h = (size_t)rnn->hidden, dirs = (size_t)prnn_rnn_dirs(rnn);
    size_t rows = (size_t)prnn_sru_matrices(rnn, k) * h;
    l->w_cols = k;
    l->w_rows = k ? (int)rows : 0;
    l->w_offset = k ? prnn_add_size(off, prnn_mul3_size((size_t)dir, rows, (size_t)k)) : (size_t)-1;
    off = align_elems(prnn_add_size(off, prnn_mul3_size(dirs, rows, (size_t)k)), es);
    l->r_offset = l->bw_offset = l->br_offset = l->p_offset = (size_t)-1;
    l->v_offset = prnn_add_size(off, prnn_mul3_size((size_t)dir, PRNN_SRU_VECTORS, h));
    return align_elems(prnn_add_size(off, prnn_mul3_size(dirs, PRNN_SRU_VECTORS, h)), es);
}

/* Walks the pseudo-layers up to p (or all of them when p < 0) and returns
 * the element offset where p starts (SRU: where p's layer starts), or the
 * total. Saturating (checked_size.h): the total is PRNN_SIZE_OVERFLOW when
 * it does not fit, and offsets are only asked of shapes whose total fits. */
static size_t walk(const struct prnnRNNStruct *rnn, int input_size, int p,
                   prnn_pseudo_layer_layout *out)
{
    int dirs = prnn_rnn_dirs(rnn);
    int total = rnn->layers * dirs;
    size_t off = 0;
    for (int q = 0; q < total; q++) {
        prnn_pseudo_layer_layout l;
        size_t start = off;
        int k = layer_input_cols(rnn, input_size, q / dirs);
        if (!prnn_cell_traits(rnn->mode)->scan) {
            off = place(rnn, k, off, &l);
        } else {
            if (q % dirs)
                continue; /* placed with direction 0 */
            off = place_sru(rnn, k, 0, start, &l);
            if (p == q + 1 && dirs == 2) {
                place_sru(rnn, k, 1, start, out);
                return start;
            }
        }
        if (q == p) {
            *out = l;
            return start;
        }
    }
    return off;
}

size_t prnn_weights_bytes(const struct prnnRNNStruct *rnn, int input_size)
{
    return prnn_mul_size(walk(rnn, input_size, -1, NULL), prnn_dtype_size(rnn->dtype));
}

void prnn_weights_pseudo_layer(const struct prnnRNNStruct *rnn, int input_size, int pseudo_layer,
                               prnn_pseudo_layer_layout *out)
{
    walk(rnn, input_size, pseudo_layer, out);
}

int prnn_weights_matrix(const struct prnnRNNStruct *rnn, int input_size, int pseudo_layer,
                        int lin_layer_id, size_t *offset, int *rows, int *cols)
{
    const prnn_cell_traits_row *cell = prnn_cell_traits(rnn->mode);
    const int g = cell->w_matrices;
    size_t h = (size_t)rnn->hidden;
    prnn_pseudo_layer_layout l;
    walk(rnn, input_size, pseudo_layer, &l);
    *rows = rnn->hidden;
    if (lin_layer_id < g) {
        if ((size_t)lin_layer_id * h >= (size_t)l.w_rows) {
            /* SKIP layer 0's W, or SRU's u3 where x' = x */
            *offset = (size_t)-1;
            *cols = 0;
            return 0;
        }
        *cols = l.w_cols;
        *offset = l.w_offset + (size_t)lin_layer_id * h * (size_t)l.w_cols;
        return 1;
    }
    if (lin_layer_id == g + cell->r_matrices) { /* the projection: projSize x hiddenSize */
        *rows = rnn->proj;
        *cols = rnn->hidden;
        *offset = l.p_offset;
        return 1;
    }
    *cols = prnn_rnn_out_width(rnn);
    *offset = l.r_offset + (size_t)(lin_layer_id - g) * h * (size_t)*cols;
    return 1;
}

size_t prnn_weights_bias(const struct prnnRNNStruct *rnn, int input_size, int pseudo_layer,
                         int lin_layer_id)
{
    const prnn_cell_traits_row *cell = prnn_cell_traits(rnn->mode);
    const int g = cell->w_matrices;
    size_t h = (size_t)rnn->hidden;
    prnn_pseudo_layer_layout l;
    walk(rnn, input_size, pseudo_layer, &l);
    if (cell->scan)
        return l.v_offset + (size_t)lin_layer_id * h;
    size_t base = lin_layer_id < g ? l.bw_offset : l.br_offset;
    if (lin_layer_id >= g + cell->r_matrices || base == (size_t)-1)
        return (size_t)-1; /* the projection's, or one the bias mode drops */
    return base + (size_t)(lin_layer_id < g ? lin_layer_id : lin_layer_id - g) * h;
}
