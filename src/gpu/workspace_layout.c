#include "gpu/workspace_layout.h"

#include "checked_size.h"
#include "dtype.h"
#include "gpu/gemm.h"

#define ALIGN 256

/* Sizes saturate (checked_size.h): the total says whether it all fits. */
static size_t take(size_t *cursor, size_t bytes)
{
    size_t at = prnn_align_size(*cursor, ALIGN);
    *cursor = prnn_add_size(at, bytes);
    return at;
}

/* The hand-off area and streamed weights of a persistent pass: the forward
 * tile's, or the largest of the backward candidates' (whichever of them
 * loads then fits). */
static void persistent_parts(const prnn_plan *plan, int bwd, size_t dirs, size_t *cursor,
                             prnn_ws_layout *l)
{
    size_t ex = 0, groups = 0, packed = 0;
    if (!bwd) {
        ex = plan->fwd.geom.exchange_bytes_per_dir;
        groups = (size_t)plan->fwd.geom.tile.batch_groups;
        packed = plan->fwd.geom.kglb ? plan->fwd.geom.packed_bytes_per_dir : 0;
    } else {
        for (int i = 0; i < plan->n_bwd_cand; i++) {
            const prnn_kernel_geometry *g = &plan->bwd_cand[i];
            if (g->exchange_bytes_per_dir > ex)
                ex = g->exchange_bytes_per_dir;
            if ((size_t)g->tile.batch_groups > groups)
                groups = (size_t)g->tile.batch_groups;
            if (g->kglb && g->packed_bytes_per_dir > packed)
                packed = g->packed_bytes_per_dir;
        }
    }
    l->exchange = take(cursor, prnn_mul_size(dirs, ex));
    l->counters = *cursor; /* one per direction and batch group */
    *cursor = prnn_add_size(*cursor, prnn_mul3_size(dirs, groups, sizeof(unsigned)));
    l->zero_end = *cursor;
    l->packed = packed ? take(cursor, prnn_mul_size(dirs, packed)) : (size_t)-1;
}

/* SRU: the projection (inference; training writes U to the reserve), the
 * layer outputs, dropout, the gradient between layers and dx'. No hand-off:
 * the scan's threads never talk to each other. */
static void sru_parts(const prnn_rnn_problem *p, prnn_call_kind call, size_t *cursor,
                      prnn_ws_layout *l)
{
    const struct prnnRNNStruct *rnn = p->rnn;
    const size_t es = prnn_dtype_size(rnn->dtype);
    const size_t acc = rnn->dtype == PRNN_DATA_DOUBLE ? 8 : 4;
    const size_t dirs = (size_t)prnn_rnn_dirs(rnn), H = (size_t)rnn->hidden;
    const size_t rows = p->total_rows;
    /* every SRU buffer is rows x dirs x H elements (the projection 4 of
     * them), of the data type or the accumulation type */
    const size_t row_units = prnn_mul3_size(rows, dirs, H);
    const int deep = rnn->layers > 1;
    const int dropout = deep && rnn->dropout > 0.0f;
    switch (call) {
    case PRNN_CALL_INFERENCE:
        l->xproj = take(cursor, prnn_mul3_size(row_units, 4, acc));
        l->layer_out = deep ? take(cursor, prnn_mul_size(row_units, es)) : (size_t)-1;
        break;
    case PRNN_CALL_FORWARD_TRAINING:
    case PRNN_CALL_BACKWARD_WEIGHTS:
        l->dropped = dropout ? take(cursor, prnn_mul_size(row_units, es)) : (size_t)-1;
        break;
    case PRNN_CALL_BACKWARD_DATA:
        l->dgrad = deep ? take(cursor, prnn_mul_size(row_units, acc)) : (size_t)-1;
        l->sru_dxp = take(cursor, prnn_mul_size(row_units, acc));
        break;
    }
}

void prnn_ws_layout_compute(const prnn_plan *plan, const prnn_rnn_problem *p,
                            prnn_call_kind call, prnn_ws_layout *l)
{
    const struct prnnRNNStruct *rnn = p->rnn;
    const size_t none = (size_t)-1;
    const size_t es = prnn_dtype_size(rnn->dtype);
    const size_t acc = rnn->dtype == PRNN_DATA_DOUBLE ? 8 : 4;
    const size_t dirs = (size_t)prnn_rnn_dirs(rnn), H = (size_t)rnn->hidden;
    const size_t gh = (size_t)prnn_mode_gates(rnn->mode) * H;
    const size_t rows = p->total_rows, B = (size_t)p->mini_batch;
    const int deep = rnn->layers > 1;
    const int dropout = deep && rnn->dropout > 0.0f;
    size_t c = 0;
    *l = (prnn_ws_layout){0};
    l->exchange = l->counters = l->zero_end = l->packed = none;
    l->xproj = l->layer_out = l->hstate = l->cstate = l->rec = none;
    l->dropped = l->dgrad = l->carry = l->hprev = l->bias_partial = l->sru_dxp = none;
    l->batch = take(&c, prnn_mul_size((size_t)p->seq_length, sizeof(int)));
    l->offset = take(&c, prnn_mul_size((size_t)p->seq_length, sizeof(int)));
    if (rnn->mode == PRNN_SRU)
        sru_parts(p, call, &c, l);
    else switch (call) {
    case PRNN_CALL_INFERENCE:
    case PRNN_CALL_FORWARD_TRAINING: {
        const int any_linear = rnn->input_mode == PRNN_LINEAR_INPUT || deep;
        if (plan->path != PRNN_PATH_STANDARD) {
            persistent_parts(plan, 0, dirs, &c, l);
        } else {
            l->hstate = take(&c, prnn_mul3_size(B, H, es));
            l->cstate = take(&c, prnn_mul3_size(B, H, acc));
            l->rec = take(&c, prnn_mul3_size(B, gh, acc));
        }
        l->xproj = any_linear ? take(&c, prnn_mul4_size(dirs, rows, gh, acc)) : none;
        if (call == PRNN_CALL_INFERENCE)
            l->layer_out = deep ? take(&c, prnn_mul4_size(rows, dirs, H, es)) : none;
        else
            l->dropped = dropout ? take(&c, prnn_mul4_size(rows, dirs, H, es)) : none;
        break;
    }
    case PRNN_CALL_BACKWARD_DATA:
        if (plan->n_bwd_cand)
            persistent_parts(plan, 1, dirs, &c, l);
        /* the standard path is the fallback of every plan */
        l->rec = take(&c, prnn_mul3_size(B, H, acc));
        l->carry = take(&c, prnn_mul3_size(B, H, acc));
        l->dgrad = deep ? take(&c, prnn_mul4_size(rows, dirs, H, acc)) : none;
        break;
    case PRNN_CALL_BACKWARD_WEIGHTS: {
        l->hprev = take(&c, prnn_mul3_size(rows, H, es));
        l->dropped = dropout ? take(&c, prnn_mul4_size(rows, dirs, H, es)) : none;
        /* Fixed chunks of rows (a function of the shape alone), so that the
         * bias sums always add in the same order. */
        size_t chunk = rows / 128 + (rows % 128 != 0);
        if (chunk < 32)
            chunk = 32;
        l->bias_chunk_rows = (int)chunk;
        l->bias_chunks = (int)(rows / chunk + (rows % chunk != 0)); /* <= 128 */
        l->bias_partial = take(&c, prnn_mul3_size((size_t)l->bias_chunks, gh, acc));
        break;
    }
    }
    l->gemm_ws = take(&c, PRNN_GEMM_WORKSPACE);
    /* SRU's backward weights overlap layer 0's GEMM with the others' */
    l->gemm_ws_side = rnn->mode == PRNN_SRU && call == PRNN_CALL_BACKWARD_WEIGHTS && deep
                          ? take(&c, PRNN_GEMM_WORKSPACE)
                          : none;
    l->total = prnn_align_size(c, ALIGN);
}

size_t prnn_ws_bytes(const prnn_plan *plan, const prnn_rnn_problem *p)
{
    size_t most = 0;
    for (int k = 0; k < PRNN_CALL_KINDS; k++) {
        prnn_ws_layout l;
        prnn_ws_layout_compute(plan, p, (prnn_call_kind)k, &l);
        if (l.total > most) /* PRNN_SIZE_OVERFLOW is the largest */
            most = l.total;
    }
    return most;
}
