#include "gpu/run/workspace_layout.h"

#include "checked_size.h"
#include "dtype.h"
#include "gpu/run/gemm.h"
#include "gpu/run/seq_io_plan.h"

#define ALIGN 256

prnn_pass prnn_call_pass(prnn_call_kind call)
{
    return call == PRNN_CALL_BACKWARD_DATA ? PRNN_PASS_BACKWARD_DATA : PRNN_PASS_FORWARD;
}

prnn_ws_units prnn_ws_units_of(const prnn_rnn_problem *p)
{
    const struct prnnRNNStruct *rnn = p->rnn;
    prnn_ws_units u;
    u.es = prnn_dtype_size(rnn->dtype);
    u.acc = prnn_dtype_math_size(rnn->dtype);
    u.dirs = (size_t)prnn_rnn_dirs(rnn);
    u.H = (size_t)rnn->hidden;
    u.gh = (size_t)prnn_cell_traits(rnn->mode)->gates * u.H;
    u.P = (size_t)prnn_rnn_out_width(rnn);
    u.B = (size_t)p->mini_batch;
    u.rows = p->total_rows;
    u.deep = rnn->layers > 1;
    u.dropout = u.deep && rnn->dropout > 0.0f;
    return u;
}

int prnn_ws_needs_zero_bias(const prnn_rnn_problem *p, prnn_call_kind call)
{
    const struct prnnRNNStruct *rnn = p->rnn;
    const int forward = call == PRNN_CALL_INFERENCE || call == PRNN_CALL_FORWARD_TRAINING;
    return forward && !prnn_cell_traits(rnn->mode)->scan &&
           (!prnn_rnn_has_bias_w(rnn) || !prnn_rnn_has_bias_r(rnn));
}

/* Sizes saturate (checked_size.h): the total says whether it all fits. */
size_t prnn_ws_take(prnn_ws_builder *b, size_t bytes)
{
    size_t at = prnn_align_size(b->cursor, ALIGN);
    b->cursor = prnn_add_size(at, bytes);
    return at;
}

size_t prnn_ws_xproj_rows(const prnn_engine *e, const prnn_rnn_problem *p)
{
    if (!prnn_seq_io_runs_in_place(e, p))
        return p->total_rows;
    /* step-major rows of every sequence, padding included, where layer 0's
     * projection reads the caller's x in place (gpu_run.h) */
    const size_t padded = prnn_mul_size((size_t)p->io->batch, (size_t)p->io->max_seq);
    return padded > p->total_rows ? padded : p->total_rows;
}

/* The layered runner's own parts (layered_run.h): the input projections,
 * the output of a layer between layers, dropout, the gradient between
 * layers, and backward weights' gathered h_{t-1} and bias partial sums. */
void prnn_ws_layered_parts(const prnn_rnn_problem *p, prnn_call_kind call, prnn_ws_builder *b)
{
    prnn_ws_layout *l = b->l;
    const size_t none = (size_t)-1;
    const prnn_ws_units u = prnn_ws_units_of(p);
    /* a layer's output, or its gradient, of every row */
    const size_t out_units = prnn_mul3_size(u.rows, u.dirs, u.P);
    switch (call) {
    case PRNN_CALL_INFERENCE:
    case PRNN_CALL_FORWARD_TRAINING: {
        const int any_linear = p->rnn->input_mode == PRNN_LINEAR_INPUT || u.deep;
        l->xproj = any_linear
                       ? prnn_ws_take(b, prnn_mul4_size(u.dirs, prnn_ws_xproj_rows(b->engine, p),
                                                        u.gh, u.acc))
                       : none;
        if (call == PRNN_CALL_INFERENCE)
            l->layer_out = u.deep ? prnn_ws_take(b, prnn_mul_size(out_units, u.es)) : none;
        else
            l->dropped = u.dropout ? prnn_ws_take(b, prnn_mul_size(out_units, u.es)) : none;
        break;
    }
    case PRNN_CALL_BACKWARD_DATA:
        l->dgrad = u.deep ? prnn_ws_take(b, prnn_mul_size(out_units, u.acc)) : none;
        break;
    case PRNN_CALL_BACKWARD_WEIGHTS: {
        const size_t rows = u.rows;
        l->hprev = prnn_ws_take(b, prnn_mul3_size(rows, u.P, u.es));
        l->dropped = u.dropout ? prnn_ws_take(b, prnn_mul_size(out_units, u.es)) : none;
        /* Fixed chunks of rows (a function of the shape alone), so that the
         * bias sums always add in the same order. */
        size_t chunk = rows / 128 + (rows % 128 != 0);
        if (chunk < 32)
            chunk = 32;
        l->bias_chunk_rows = (int)chunk;
        l->bias_chunks = (int)(rows / chunk + (rows % chunk != 0)); /* <= 128 */
        /* every dg column's sums, once for both biases (train_ops.h) */
        const size_t dg_width = (size_t)prnn_cell_traits(p->rnn->mode)->dg_cols * u.H;
        l->bias_partial = prnn_ws_take(b, prnn_mul3_size((size_t)l->bias_chunks, dg_width, u.acc));
        break;
    }
    }
}

/* The unpacked layouts' parts (seq_io.h moves the tensors through them). */
typedef struct {
    size_t es, rows, in_cols, out_cols, state_rows, h_cols, c_cols;
    int cell;
} seq_io_units;

static seq_io_units seq_io_units_of(const prnn_rnn_problem *p)
{
    const struct prnnRNNStruct *rnn = p->rnn;
    const size_t dirs = (size_t)prnn_rnn_dirs(rnn);
    seq_io_units u;
    u.es = prnn_dtype_size(rnn->dtype);
    u.rows = p->total_rows;
    u.in_cols = (size_t)p->input_size;
    u.h_cols = (size_t)prnn_rnn_out_width(rnn);
    u.c_cols = (size_t)rnn->hidden;
    u.out_cols = dirs * u.h_cols;
    u.state_rows = (size_t)rnn->layers * dirs * (size_t)p->mini_batch;
    u.cell = prnn_cell_traits(rnn->mode)->has_cell;
    return u;
}

void prnn_ws_seq_io_parts(const prnn_rnn_problem *p, prnn_call_kind call, prnn_ws_builder *b)
{
    prnn_ws_layout *l = b->l;
    const seq_io_units u = seq_io_units_of(p);
    const size_t x_bytes = prnn_mul3_size(u.rows, u.in_cols, u.es);
    const size_t y_bytes = prnn_mul3_size(u.rows, u.out_cols, u.es);
    const size_t h_bytes = prnn_mul3_size(u.state_rows, u.h_cols, u.es);
    const size_t c_bytes = prnn_mul3_size(u.state_rows, u.c_cols, u.es);
    /* the order of sequences, then their lengths (seq_io.c) */
    l->io_order = prnn_ws_take(b, prnn_mul3_size(2, (size_t)p->io->batch, sizeof(int)));
    if (prnn_seq_io_runs_in_place(b->engine, p)) {
        if (call == PRNN_CALL_BACKWARD_DATA && prnn_seq_io_dx_moves(p))
            l->io_dx = prnn_ws_take(b, x_bytes);
        else if (call == PRNN_CALL_BACKWARD_WEIGHTS)
            l->io_x = prnn_ws_take(b, x_bytes);
        return;
    }
    l->io_state[PRNN_SEQ_IO_HX] = prnn_ws_take(b, h_bytes);
    if (u.cell)
        l->io_state[PRNN_SEQ_IO_CX] = prnn_ws_take(b, c_bytes);
    switch (call) {
    case PRNN_CALL_INFERENCE:
    case PRNN_CALL_FORWARD_TRAINING:
        l->io_x = prnn_ws_take(b, x_bytes);
        l->io_y = prnn_ws_take(b, y_bytes);
        l->io_state[PRNN_SEQ_IO_HY] = prnn_ws_take(b, h_bytes);
        if (u.cell)
            l->io_state[PRNN_SEQ_IO_CY] = prnn_ws_take(b, c_bytes);
        break;
    case PRNN_CALL_BACKWARD_DATA:
        l->io_y = prnn_ws_take(b, y_bytes);
        l->io_dy = prnn_ws_take(b, y_bytes);
        l->io_dx = prnn_ws_take(b, x_bytes);
        l->io_state[PRNN_SEQ_IO_HY] = prnn_ws_take(b, h_bytes); /* dhy */
        l->io_state[PRNN_SEQ_IO_DHX] = prnn_ws_take(b, h_bytes);
        if (u.cell) {
            l->io_state[PRNN_SEQ_IO_CY] = prnn_ws_take(b, c_bytes); /* dcy */
            l->io_state[PRNN_SEQ_IO_DCX] = prnn_ws_take(b, c_bytes);
        }
        break;
    case PRNN_CALL_BACKWARD_WEIGHTS:
        l->io_x = prnn_ws_take(b, x_bytes);
        l->io_y = prnn_ws_take(b, y_bytes);
        break;
    }
}

void prnn_ws_layout_compute(const prnn_pass_plan *pp, const prnn_rnn_problem *p,
                            prnn_call_kind call, prnn_ws_layout *l)
{
    const size_t none = (size_t)-1;
    *l = (prnn_ws_layout){0};
    l->zero_begin = l->zero_end = l->zero_bias = none;
    l->xproj = l->layer_out = l->dropped = l->dgrad = l->hprev = l->bias_partial = none;
    l->io_order = l->io_x = l->io_y = l->io_dy = l->io_dx = none;
    for (int i = 0; i < PRNN_WS_ENGINE_PARTS; i++)
        l->engine[i] = none;
    for (int i = 0; i < PRNN_SEQ_IO_STATES; i++)
        l->io_state[i] = none;
    prnn_ws_builder b = {l, 0, pp->engine};
    l->batch = prnn_ws_take(&b, prnn_mul_size((size_t)p->seq_length, sizeof(int)));
    l->offset = prnn_ws_take(&b, prnn_mul_size((size_t)p->seq_length, sizeof(int)));
    if (prnn_ws_needs_zero_bias(p, call)) {
        const prnn_ws_units u = prnn_ws_units_of(p);
        l->zero_bias = prnn_ws_take(&b, prnn_mul_size(u.gh, u.es));
    }
    const prnn_engine *e = pp->engine;
    if (e->workspace)
        e->workspace(pp, p, call, &b);
    if (!e->run)
        prnn_ws_layered_parts(p, call, &b);
    if (p->io)
        prnn_ws_seq_io_parts(p, call, &b);
    l->gemm_ws = prnn_ws_take(&b, PRNN_GEMM_WORKSPACE);
    l->total = prnn_align_size(b.cursor, ALIGN);
}
