#include "gpu/run/workspace_layout.h"

#include "checked_size.h"
#include "dtype.h"
#include "gpu/run/gemm.h"

#define ALIGN 256

prnn_pass prnn_call_pass(prnn_call_kind call)
{
    return call == PRNN_CALL_BACKWARD_DATA ? PRNN_PASS_BACKWARD_DATA : PRNN_PASS_FORWARD;
}

/* Sizes saturate (checked_size.h): the total says whether it all fits. */
size_t prnn_ws_take(prnn_ws_builder *b, size_t bytes)
{
    size_t at = prnn_align_size(b->cursor, ALIGN);
    b->cursor = prnn_add_size(at, bytes);
    return at;
}

/* The layered runner's own parts (layered_run.h): the input projections,
 * the output of a layer between layers, dropout, the gradient between
 * layers, and backward weights' gathered h_{t-1} and bias partial sums. */
void prnn_ws_layered_parts(const prnn_rnn_problem *p, prnn_call_kind call, prnn_ws_builder *b)
{
    const struct prnnRNNStruct *rnn = p->rnn;
    prnn_ws_layout *l = b->l;
    const size_t none = (size_t)-1;
    const size_t es = prnn_dtype_size(rnn->dtype);
    const size_t acc = prnn_dtype_math_size(rnn->dtype);
    const size_t dirs = (size_t)prnn_rnn_dirs(rnn), H = (size_t)rnn->hidden;
    const size_t gh = (size_t)prnn_cell_traits(rnn->mode)->gates * H;
    const size_t rows = p->total_rows;
    const int deep = rnn->layers > 1;
    const int dropout = deep && rnn->dropout > 0.0f;
    switch (call) {
    case PRNN_CALL_INFERENCE:
    case PRNN_CALL_FORWARD_TRAINING: {
        const int any_linear = rnn->input_mode == PRNN_LINEAR_INPUT || deep;
        l->xproj = any_linear ? prnn_ws_take(b, prnn_mul4_size(dirs, rows, gh, acc)) : none;
        if (call == PRNN_CALL_INFERENCE)
            l->layer_out = deep ? prnn_ws_take(b, prnn_mul4_size(rows, dirs, H, es)) : none;
        else
            l->dropped = dropout ? prnn_ws_take(b, prnn_mul4_size(rows, dirs, H, es)) : none;
        break;
    }
    case PRNN_CALL_BACKWARD_DATA:
        l->dgrad = deep ? prnn_ws_take(b, prnn_mul4_size(rows, dirs, H, acc)) : none;
        break;
    case PRNN_CALL_BACKWARD_WEIGHTS: {
        l->hprev = prnn_ws_take(b, prnn_mul3_size(rows, H, es));
        l->dropped = dropout ? prnn_ws_take(b, prnn_mul4_size(rows, dirs, H, es)) : none;
        /* Fixed chunks of rows (a function of the shape alone), so that the
         * bias sums always add in the same order. */
        size_t chunk = rows / 128 + (rows % 128 != 0);
        if (chunk < 32)
            chunk = 32;
        l->bias_chunk_rows = (int)chunk;
        l->bias_chunks = (int)(rows / chunk + (rows % chunk != 0)); /* <= 128 */
        l->bias_partial = prnn_ws_take(b, prnn_mul3_size((size_t)l->bias_chunks, gh, acc));
        break;
    }
    }
}

void prnn_ws_layout_compute(const prnn_pass_plan *pp, const prnn_rnn_problem *p,
                            prnn_call_kind call, prnn_ws_layout *l)
{
    const size_t none = (size_t)-1;
    *l = (prnn_ws_layout){0};
    l->zero_begin = l->zero_end = none;
    l->xproj = l->layer_out = l->dropped = l->dgrad = l->hprev = l->bias_partial = none;
    for (int i = 0; i < PRNN_WS_ENGINE_PARTS; i++)
        l->engine[i] = none;
    prnn_ws_builder b = {l, 0};
    l->batch = prnn_ws_take(&b, prnn_mul_size((size_t)p->seq_length, sizeof(int)));
    l->offset = prnn_ws_take(&b, prnn_mul_size((size_t)p->seq_length, sizeof(int)));
    const prnn_engine *e = pp->engine;
    if (e->workspace)
        e->workspace(pp, p, call, &b);
    if (!e->run)
        prnn_ws_layered_parts(p, call, &b);
    l->gemm_ws = prnn_ws_take(&b, PRNN_GEMM_WORKSPACE);
    l->total = prnn_align_size(b.cursor, ALIGN);
}
