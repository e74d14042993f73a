#include "gpu/run/reserve_layout.h"

#include "checked_size.h"
#include "dtype.h"

#define ALIGN 256

static size_t align_up(size_t n)
{
    return prnn_align_size(n, ALIGN);
}

void prnn_reserve_layout_compute(const prnn_rnn_problem *p, prnn_reserve_layout *r)
{
    const struct prnnRNNStruct *rnn = p->rnn;
    const size_t es = prnn_dtype_size(rnn->dtype);
    const size_t acc = prnn_dtype_math_size(rnn->dtype);
    const size_t dirs = (size_t)prnn_rnn_dirs(rnn), H = (size_t)rnn->hidden;
    const size_t rows = p->total_rows, L = (size_t)rnn->layers;
    const prnn_cell_traits_row *cell = prnn_cell_traits(rnn->mode);
    /* Saturating (checked_size.h): a shape too large gives an overflowed
     * total, which the API layer reports (rnn_api.c). The parts a shape
     * does not have stay 0. */
    *r = (prnn_reserve_layout){0};
    if (cell->scan) {
        const size_t B = (size_t)p->mini_batch;
        const size_t row_units = prnn_mul3_size(rows, dirs, H); /* rows x dirs x H */
        r->out_stride = align_up(prnn_mul_size(row_units, es));
        r->sru_stride[PRNN_SRU_U] = align_up(prnn_mul3_size(row_units, 4, acc));
        r->sru_stride[PRNN_SRU_C] = align_up(prnn_mul_size(row_units, acc));
        /* m = 4 at most */
        r->sru_stride[PRNN_SRU_DU] = align_up(prnn_mul3_size(row_units, 4, es));
        r->sru_stride[PRNN_SRU_V] = align_up(prnn_mul4_size(dirs, B, 4 * H, acc));
        size_t at = prnn_mul_size(L - 1, r->out_stride); /* after out[] */
        for (int i = 0; i < 4; i++) {
            r->sru[i] = at;
            at = prnn_add_size(at, prnn_mul_size(L, r->sru_stride[i]));
        }
        r->total = at;
        return;
    }
    /* LSTM with clipping keeps c before the clip too (PRNN_ACT_COLS_CLIP) */
    r->act_cols = cell->act_cols + (cell->clip && rnn->clip_mode != PRNN_RNN_CLIP_NONE ? 1 : 0);
    r->dg_cols = cell->dg_cols;
    const size_t P = (size_t)prnn_rnn_out_width(rnn);
    r->out_stride = align_up(prnn_mul4_size(rows, dirs, P, es));
    r->act_stride = align_up(prnn_mul4_size(rows, (size_t)r->act_cols, H, acc));
    r->dg_stride = align_up(prnn_mul4_size(rows, (size_t)r->dg_cols, H, es));
    r->out = 0;
    r->act = prnn_add_size(r->out, prnn_mul_size(L - 1, r->out_stride));
    r->dg = prnn_add_size(r->act, prnn_mul3_size(L, dirs, r->act_stride));
    size_t at = prnn_add_size(r->dg, prnn_mul3_size(L, dirs, r->dg_stride));
    if (rnn->proj) {
        r->proj_stride[PRNN_PROJ_M] = align_up(prnn_mul3_size(rows, H, es));
        r->proj_stride[PRNN_PROJ_DH] = align_up(prnn_mul3_size(rows, P, es));
        for (int i = 0; i < 2; i++) {
            r->proj[i] = at;
            at = prnn_add_size(at, prnn_mul3_size(L, dirs, r->proj_stride[i]));
        }
    }
    r->total = at;
}
