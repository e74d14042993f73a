#include "weights_layout.h"

#include "checked_size.h"
#include "dtype.h"

static size_t align_elems(size_t n, size_t elem_size)
{
    return prnn_align_size(n, PRNN_WEIGHT_ALIGN / elem_size);
}

static int layer_input_cols(const struct prnnRNNStruct *rnn, int input_size,
                            int layer)
{
    if (layer == 0)
        return rnn->input_mode == PRNN_SKIP_INPUT ? 0 : input_size;
    return prnn_rnn_dirs(rnn) * rnn->hidden;
}

/* Walks the pseudo-layers up to p (or all of them when p < 0) and returns
 * the element offset where p starts (or the total). Saturating
 * (checked_size.h): the total is PRNN_SIZE_OVERFLOW when it does not fit,
 * and offsets are only asked of shapes whose total fits. */
static size_t walk(const struct prnnRNNStruct *rnn, int input_size, int p,
                   prnn_pseudo_layer_layout *out)
{
    size_t es = prnn_dtype_size(rnn->dtype);
    size_t gh = (size_t)prnn_mode_gates(rnn->mode) * (size_t)rnn->hidden;
    int dirs = prnn_rnn_dirs(rnn);
    int total = rnn->layers * dirs;
    size_t off = 0;
    for (int q = 0; q < total; q++) {
        int k = layer_input_cols(rnn, input_size, q / dirs);
        prnn_pseudo_layer_layout l;
        l.w_cols = k;
        l.w_offset = k ? off : (size_t)-1;
        off = align_elems(prnn_add_size(off, prnn_mul_size(gh, (size_t)k)), es);
        l.r_offset = off;
        off = align_elems(prnn_add_size(off, prnn_mul_size(gh, (size_t)rnn->hidden)), es);
        l.bw_offset = off;
        off = align_elems(prnn_add_size(off, gh), es);
        l.br_offset = off;
        off = align_elems(prnn_add_size(off, gh), es);
        if (q == p) {
            *out = l;
            return l.w_cols ? l.w_offset : l.r_offset;
        }
    }
    return off;
}

size_t prnn_weights_bytes(const struct prnnRNNStruct *rnn, int input_size)
{
    return prnn_mul_size(walk(rnn, input_size, -1, NULL), prnn_dtype_size(rnn->dtype));
}

void prnn_weights_pseudo_layer(const struct prnnRNNStruct *rnn, int input_size,
                               int pseudo_layer, prnn_pseudo_layer_layout *out)
{
    walk(rnn, input_size, pseudo_layer, out);
}

int prnn_weights_matrix(const struct prnnRNNStruct *rnn, int input_size,
                        int pseudo_layer, int lin_layer_id, size_t *offset,
                        int *rows, int *cols)
{
    int g = prnn_mode_gates(rnn->mode);
    size_t h = (size_t)rnn->hidden;
    prnn_pseudo_layer_layout l;
    walk(rnn, input_size, pseudo_layer, &l);
    *rows = rnn->hidden;
    if (lin_layer_id < g) {
        if (!l.w_cols) {
            *offset = (size_t)-1;
            *cols = 0;
            return 0;
        }
        *cols = l.w_cols;
        *offset = l.w_offset + (size_t)lin_layer_id * h * (size_t)l.w_cols;
        return 1;
    }
    *cols = rnn->hidden;
    *offset = l.r_offset + (size_t)(lin_layer_id - g) * h * h;
    return 1;
}

size_t prnn_weights_bias(const struct prnnRNNStruct *rnn, int input_size,
                         int pseudo_layer, int lin_layer_id)
{
    int g = prnn_mode_gates(rnn->mode);
    size_t h = (size_t)rnn->hidden;
    prnn_pseudo_layer_layout l;
    walk(rnn, input_size, pseudo_layer, &l);
    if (lin_layer_id < g)
        return l.bw_offset + (size_t)lin_layer_id * h;
    return l.br_offset + (size_t)(lin_layer_id - g) * h;
}
