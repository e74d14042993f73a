#include "gpu/run/seq_io.h"

#include <string.h>

#include "error.h"
#include "gpu/run/gpu_state.h"
#include "prnn_kernel_abi.h"

typedef struct {
    size_t in_cols, out_cols, h_cols, c_cols;
} io_units;

static io_units units_of(const prnn_rnn_problem *p)
{
    const struct prnnRNNStruct *rnn = p->rnn;
    io_units u;
    u.in_cols = (size_t)p->input_size;
    u.h_cols = (size_t)prnn_rnn_out_width(rnn);
    u.c_cols = (size_t)rnn->hidden;
    u.out_cols = (size_t)prnn_rnn_dirs(rnn) * u.h_cols;
    return u;
}

/* The sequences' packed order into the workspace, from the launches'
 * parameters (capture-safe: a graph keeps the values). */
static prnnStatus_t write_order(const prnn_call_plan *c)
{
    const prnn_seq_io *io = c->p->io;
    prnn_seq_order_args a;
    for (int base = 0; base < io->batch; base += PRNN_SEQ_ORDER_CHUNK) {
        memset(&a, 0, sizeof(a));
        a.order = (int *)prnn_run_ws(c, c->l.io_order);
        a.base = base;
        a.count = io->batch - base < PRNN_SEQ_ORDER_CHUNK ? io->batch - base : PRNN_SEQ_ORDER_CHUNK;
        memcpy(a.v, io->order + base, (size_t)a.count * sizeof(int));
        PRNN_TRY(prnn_run_launch(c, c->kernels->seq_order, 1, 1, 256, &a, "prnn_seq_order"));
    }
    return PRNN_STATUS_SUCCESS;
}

/* One tensor between the caller's order and the packed one: data (x, y,
 * dy, dx: `cols` wide) or the states (states set). to_caller scatters,
 * writing the padding with *fill when fill is not NULL. */
static prnnStatus_t move(const prnn_call_plan *c, const void *src, void *dst, size_t cols,
                         int states, int to_caller, const void *fill)
{
    const prnn_seq_io *io = c->p->io;
    const struct prnnRNNStruct *rnn = c->rnn;
    prnn_seq_move_args a;
    memset(&a, 0, sizeof(a));
    a.src = src;
    a.dst = dst;
    a.order = (const int *)prnn_run_ws(c, c->l.io_order);
    a.batch = (const int *)prnn_run_ws(c, c->l.batch);
    a.offset = (const int *)prnn_run_ws(c, c->l.offset);
    a.steps = states ? rnn->layers * prnn_rnn_dirs(rnn) : io->max_seq;
    a.packed_steps = c->p->seq_length;
    a.seqs = io->batch;
    a.cols = (int)cols;
    a.es = (int)c->es;
    a.batch_major = io->layout == PRNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED;
    a.states = states;
    a.to_caller = to_caller;
    a.has_fill = fill != NULL;
    if (fill)
        memcpy(&a.fill_bits, fill, c->es);
    const unsigned long long threads = (unsigned long long)a.steps * (unsigned)a.seqs * 32;
    return prnn_run_launch(c, c->kernels->seq_move, prnn_run_grid(threads, 256), 1, 256, &a,
                           "prnn_seq_move");
}

/* A state tensor into its slot (NULL stays NULL: zeros, or not wanted). */
static prnnStatus_t state_in(const prnn_call_plan *c, const void *caller, int slot, size_t cols,
                             const void **packed)
{
    *packed = NULL;
    if (!caller)
        return PRNN_STATUS_SUCCESS;
    void *at = prnn_run_ws(c, c->l.io_state[slot]);
    *packed = at;
    return move(c, caller, at, cols, 1, 0, NULL);
}

static void *state_out_slot(const prnn_call_plan *c, const void *caller, int slot)
{
    return caller ? prnn_run_ws(c, c->l.io_state[slot]) : NULL;
}

static prnnStatus_t run_forward(prnn_call_plan *c, const prnn_forward_buffers *b,
                                prnnStatus_t (*run)(prnn_call_plan *, const void *))
{
    const io_units u = units_of(c->p);
    prnn_forward_buffers pb = *b;
    void *x = prnn_run_ws(c, c->l.io_x);
    pb.x = x;
    pb.y = prnn_run_ws(c, c->l.io_y);
    PRNN_TRY(move(c, b->x, x, u.in_cols, 0, 0, NULL));
    PRNN_TRY(state_in(c, b->hx, PRNN_SEQ_IO_HX, u.h_cols, &pb.hx));
    PRNN_TRY(state_in(c, b->cx, PRNN_SEQ_IO_CX, u.c_cols, &pb.cx));
    pb.hy = state_out_slot(c, b->hy, PRNN_SEQ_IO_HY);
    pb.cy = state_out_slot(c, b->cy, PRNN_SEQ_IO_CY);
    PRNN_TRY(run(c, &pb));
    PRNN_TRY(move(c, pb.y, b->y, u.out_cols, 0, 1, c->p->io->y_fill));
    if (b->hy)
        PRNN_TRY(move(c, pb.hy, b->hy, u.h_cols, 1, 1, NULL));
    if (b->cy)
        PRNN_TRY(move(c, pb.cy, b->cy, u.c_cols, 1, 1, NULL));
    return PRNN_STATUS_SUCCESS;
}

static prnnStatus_t run_backward_data(prnn_call_plan *c, const prnn_backward_data_buffers *b,
                                      prnnStatus_t (*run)(prnn_call_plan *, const void *))
{
    const io_units u = units_of(c->p);
    prnn_backward_data_buffers pb = *b;
    void *y = prnn_run_ws(c, c->l.io_y), *dy = prnn_run_ws(c, c->l.io_dy);
    pb.y = y;
    pb.dy = dy;
    pb.dx = prnn_run_ws(c, c->l.io_dx);
    PRNN_TRY(move(c, b->y, y, u.out_cols, 0, 0, NULL));
    PRNN_TRY(move(c, b->dy, dy, u.out_cols, 0, 0, NULL));
    PRNN_TRY(state_in(c, b->hx, PRNN_SEQ_IO_HX, u.h_cols, &pb.hx));
    PRNN_TRY(state_in(c, b->cx, PRNN_SEQ_IO_CX, u.c_cols, &pb.cx));
    PRNN_TRY(state_in(c, b->dhy, PRNN_SEQ_IO_HY, u.h_cols, &pb.dhy));
    PRNN_TRY(state_in(c, b->dcy, PRNN_SEQ_IO_CY, u.c_cols, &pb.dcy));
    pb.dhx = state_out_slot(c, b->dhx, PRNN_SEQ_IO_DHX);
    pb.dcx = state_out_slot(c, b->dcx, PRNN_SEQ_IO_DCX);
    PRNN_TRY(run(c, &pb));
    PRNN_TRY(move(c, pb.dx, b->dx, u.in_cols, 0, 1, c->p->io->x_fill));
    if (b->dhx)
        PRNN_TRY(move(c, pb.dhx, b->dhx, u.h_cols, 1, 1, NULL));
    if (b->dcx)
        PRNN_TRY(move(c, pb.dcx, b->dcx, u.c_cols, 1, 1, NULL));
    return PRNN_STATUS_SUCCESS;
}

static prnnStatus_t run_backward_weights(prnn_call_plan *c, const prnn_backward_weights_buffers *b,
                                         prnnStatus_t (*run)(prnn_call_plan *, const void *))
{
    const io_units u = units_of(c->p);
    prnn_backward_weights_buffers pb = *b;
    void *x = prnn_run_ws(c, c->l.io_x), *y = prnn_run_ws(c, c->l.io_y);
    pb.x = x;
    pb.y = y;
    PRNN_TRY(move(c, b->x, x, u.in_cols, 0, 0, NULL));
    PRNN_TRY(move(c, b->y, y, u.out_cols, 0, 0, NULL));
    PRNN_TRY(state_in(c, b->hx, PRNN_SEQ_IO_HX, u.h_cols, &pb.hx));
    return run(c, &pb);
}

prnnStatus_t prnn_seq_io_run(prnn_call_plan *c, const void *buffers,
                             prnnStatus_t (*run)(prnn_call_plan *c, const void *buffers))
{
    /* the step tables first: the moves read them (the engine's own setup
     * launch writes the same values again) */
    PRNN_TRY(prnn_run_setup(c));
    PRNN_TRY(write_order(c));
    switch (c->kind) {
    case PRNN_CALL_INFERENCE:
    case PRNN_CALL_FORWARD_TRAINING: return run_forward(c, buffers, run);
    case PRNN_CALL_BACKWARD_DATA: return run_backward_data(c, buffers, run);
    case PRNN_CALL_BACKWARD_WEIGHTS: return run_backward_weights(c, buffers, run);
    }
    return prnn_fail(PRNN_STATUS_INTERNAL_ERROR, "prnn_seq_io_run: call kind %d", (int)c->kind);
}
