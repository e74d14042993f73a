#include "gpu/run/seq_io.h"

#include <stdint.h>
#include <string.h>

#include "error.h"
#include "gpu/run/gpu_state.h"
#include "gpu/run/seq_io_plan.h"
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

/* Whether the moves and the setup kernel carry the sequences' order (and
 * lengths) in their own parameters (a small batch), else the kernels read
 * them from the workspace (write_ints). */
static int inline_order(const prnn_call_plan *c)
{
    return c->p->io->batch <= PRNN_SEQ_INLINE_ORDER;
}

/* The workspace's copy of the sequences' order, and of their lengths
 * (prnn_ws_layout.io_order: the order, then the lengths). */
static int *ws_order(const prnn_call_plan *c)
{
    return (int *)prnn_run_ws(c, c->l.io_order);
}

static int *ws_lengths(const prnn_call_plan *c)
{
    return ws_order(c) + c->p->io->batch;
}

/* count values into dst in the workspace, from the launches' parameters
 * (capture-safe: a graph keeps the values). */
static prnnStatus_t write_ints(const prnn_call_plan *c, int *dst, const int *v, int count)
{
    prnn_seq_order_args a;
    for (int base = 0; base < count; base += PRNN_SEQ_ORDER_CHUNK) {
        memset(&a, 0, sizeof(a));
        a.order = dst;
        a.base = base;
        a.count = count - base < PRNN_SEQ_ORDER_CHUNK ? count - base : PRNN_SEQ_ORDER_CHUNK;
        memcpy(a.v, v + base, (size_t)a.count * sizeof(int));
        PRNN_TRY(
            prnn_run_launch(c, c->kernels->seq_order, 1, 1, 256, &a, sizeof(a), "prnn_seq_order"));
    }
    return PRNN_STATUS_SUCCESS;
}

/* The sequences' order into the workspace, where the moves do not carry
 * it. */
static prnnStatus_t write_order(const prnn_call_plan *c)
{
    if (inline_order(c))
        return PRNN_STATUS_SUCCESS;
    return write_ints(c, ws_order(c), c->p->io->order, c->p->io->batch);
}

/* Tensors moved in one launch (rnn_seq_io.cuh), all into packed order or
 * all out of it (to_caller): a launch each way instead of one per tensor,
 * which at T = 1 cost more than the engine's work. */
typedef struct {
    const prnn_call_plan *c;
    prnn_seq_move_args a;
    unsigned long long most; /* units (threads' moves) of the largest move */
} moves;

static void moves_start(moves *m, const prnn_call_plan *c, int to_caller)
{
    const prnn_seq_io *io = c->p->io;
    memset(m, 0, sizeof(*m));
    m->c = c;
    m->a.inline_order = inline_order(c);
    if (m->a.inline_order)
        memcpy(m->a.order_v, io->order, (size_t)io->batch * sizeof(int));
    else
        m->a.order = ws_order(c);
    m->a.batch = (const int *)prnn_run_ws(c, c->l.batch);
    m->a.offset = (const int *)prnn_run_ws(c, c->l.offset);
    m->a.packed_steps = c->p->seq_length;
    m->a.seqs = io->batch;
    m->a.es = (int)c->es;
    m->a.batch_major = io->layout == PRNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED;
    m->a.to_caller = to_caller;
}

/* The bytes a thread of the move kernel moves at once: 16, 8 or 4 where
 * they divide a vector's bytes and both addresses, never less than an
 * element (es; the buffers hold whole elements). */
static int move_unit(const void *src, const void *dst, size_t vector_bytes, size_t es)
{
    const uintptr_t both = (uintptr_t)src | (uintptr_t)dst | (uintptr_t)vector_bytes;
    int unit = 16;
    while (unit > (int)es && both % (uintptr_t)unit)
        unit /= 2;
    return unit;
}

/* One tensor between the caller's order and the packed one: data (x, y,
 * dy, dx: `cols` wide) or the states (states set); a scatter writes the
 * padding with *fill when fill is not NULL. Nothing when src or dst is
 * NULL (a state the caller does not pass or want). */
static void moves_add(moves *m, const void *src, void *dst, size_t cols, int states,
                      const void *fill)
{
    if (!src || !dst)
        return;
    const struct prnnRNNStruct *rnn = m->c->rnn;
    const int k = m->a.count++;
    m->a.src[k] = src;
    m->a.dst[k] = dst;
    m->a.cols[k] = (int)cols;
    m->a.steps[k] = states ? rnn->layers * prnn_rnn_dirs(rnn) : m->c->p->io->max_seq;
    m->a.states[k] = states;
    m->a.has_fill[k] = fill != NULL;
    if (fill)
        memcpy(&m->a.fill_bits[k], fill, m->c->es);
    m->a.unit[k] = move_unit(src, dst, cols * m->c->es, m->c->es);
    const unsigned long long units = (unsigned long long)m->a.steps[k] * (unsigned)m->a.seqs *
                                     (cols * m->c->es / (size_t)m->a.unit[k]);
    if (units > m->most)
        m->most = units;
}

static prnnStatus_t moves_launch(moves *m)
{
    if (!m->a.count)
        return PRNN_STATUS_SUCCESS;
    return prnn_run_launch(m->c, m->c->kernels->seq_move, prnn_run_grid(m->most, 256),
                           (unsigned)m->a.count, 256, &m->a, sizeof(m->a), "prnn_seq_move");
}

/* A state's packed slot in the workspace, or NULL where the caller passes
 * or wants none (NULL stays NULL: zeros, or not written). */
static void *state_slot(const prnn_call_plan *c, const void *caller, int slot)
{
    return caller ? prnn_run_ws(c, c->l.io_state[slot]) : NULL;
}

/* Whether the call runs in place (seq_io_plan.h): its plan's kernels were
 * compiled for the caller's rows, which the plan of such a call's problem
 * always has (gpu_backend.c keys it so). */
static int runs_in_place(const prnn_call_plan *c)
{
    return c->caller_rows && prnn_seq_io_runs_in_place(c->pass->engine, c->p);
}

/* Where the caller's rows are (prnn_rows). */
static prnn_rows caller_rows(const prnn_call_plan *c)
{
    const prnn_seq_io *io = c->p->io;
    prnn_rows r;
    if (io->layout == PRNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED) {
        r.seq_stride = io->max_seq;
        r.step_stride = 1;
    } else {
        r.seq_stride = 1;
        r.step_stride = io->batch;
    }
    return r;
}

/* The first setup launch's extra work for a call run in place (and the
 * launches that write the order and lengths first where they do not fit in
 * its parameters): the order the kernels read (NULL: the caller's own) and,
 * where pad is not NULL, pad's padding written with *fill. */
static prnnStatus_t setup_in_place(const prnn_call_plan *c, const int *order, void *pad,
                                   const void *fill)
{
    const prnn_seq_io *io = c->p->io;
    prnn_setup_io_args a;
    memset(&a, 0, sizeof(a));
    const int small = inline_order(c);
    if (order) {
        if (small) {
            a.order = ws_order(c);
            a.order_count = io->batch;
            memcpy(a.order_v, io->order, (size_t)io->batch * sizeof(int));
        } else {
            PRNN_TRY(write_ints(c, ws_order(c), io->order, io->batch));
        }
    }
    if (pad && fill && !prnn_seq_io_full_length(c->p)) {
        const prnn_rows r = caller_rows(c);
        a.pad = pad;
        memcpy(&a.fill_bits, fill, c->es);
        a.seq_stride = r.seq_stride;
        a.step_stride = r.step_stride;
        a.seqs = io->batch;
        a.steps = io->max_seq;
        a.row_bytes = (long long)(units_of(c->p).out_cols * c->es);
        a.es = (int)c->es;
        a.unit = move_unit(pad, pad, (size_t)a.row_bytes, c->es);
        if (small) {
            memcpy(a.lengths_v, io->lengths, (size_t)io->batch * sizeof(int));
        } else {
            PRNN_TRY(write_ints(c, ws_lengths(c), io->lengths, io->batch));
            a.lengths = ws_lengths(c);
        }
    }
    return prnn_run_setup_io(c, &a);
}

static prnnStatus_t run_forward(prnn_call_plan *c, const prnn_forward_buffers *b,
                                prnnStatus_t (*run)(prnn_call_plan *, const void *))
{
    const io_units u = units_of(c->p);
    prnn_forward_buffers pb = *b;
    void *x = prnn_run_ws(c, c->l.io_x);
    pb.x = x;
    pb.y = prnn_run_ws(c, c->l.io_y);
    void *hx = state_slot(c, b->hx, PRNN_SEQ_IO_HX), *cx = state_slot(c, b->cx, PRNN_SEQ_IO_CX);
    pb.hx = hx;
    pb.cx = cx;
    pb.hy = state_slot(c, b->hy, PRNN_SEQ_IO_HY);
    pb.cy = state_slot(c, b->cy, PRNN_SEQ_IO_CY);
    moves in, out;
    moves_start(&in, c, 0);
    moves_add(&in, b->x, x, u.in_cols, 0, NULL);
    moves_add(&in, b->hx, hx, u.h_cols, 1, NULL);
    moves_add(&in, b->cx, cx, u.c_cols, 1, NULL);
    PRNN_TRY(moves_launch(&in));
    PRNN_TRY(run(c, &pb));
    moves_start(&out, c, 1);
    moves_add(&out, pb.y, b->y, u.out_cols, 0, c->p->io->y_fill);
    moves_add(&out, pb.hy, b->hy, u.h_cols, 1, NULL);
    moves_add(&out, pb.cy, b->cy, u.c_cols, 1, NULL);
    return moves_launch(&out);
}

static prnnStatus_t run_backward_data(prnn_call_plan *c, const prnn_backward_data_buffers *b,
                                      prnnStatus_t (*run)(prnn_call_plan *, const void *))
{
    const io_units u = units_of(c->p);
    prnn_backward_data_buffers pb = *b;
    void *y = prnn_run_ws(c, c->l.io_y), *dy = prnn_run_ws(c, c->l.io_dy);
    void *hx = state_slot(c, b->hx, PRNN_SEQ_IO_HX), *cx = state_slot(c, b->cx, PRNN_SEQ_IO_CX);
    void *dhy = state_slot(c, b->dhy, PRNN_SEQ_IO_HY);
    void *dcy = state_slot(c, b->dcy, PRNN_SEQ_IO_CY);
    pb.y = y;
    pb.dy = dy;
    pb.dx = b->dx ? prnn_run_ws(c, c->l.io_dx) : NULL; /* NULL: layer 0's product skipped */
    pb.hx = hx;
    pb.cx = cx;
    pb.dhy = dhy;
    pb.dcy = dcy;
    pb.dhx = state_slot(c, b->dhx, PRNN_SEQ_IO_DHX);
    pb.dcx = state_slot(c, b->dcx, PRNN_SEQ_IO_DCX);
    moves in, out;
    moves_start(&in, c, 0);
    moves_add(&in, b->y, y, u.out_cols, 0, NULL);
    moves_add(&in, b->dy, dy, u.out_cols, 0, NULL);
    moves_add(&in, b->hx, hx, u.h_cols, 1, NULL);
    moves_add(&in, b->cx, cx, u.c_cols, 1, NULL);
    moves_add(&in, b->dhy, dhy, u.h_cols, 1, NULL);
    moves_add(&in, b->dcy, dcy, u.c_cols, 1, NULL);
    PRNN_TRY(moves_launch(&in));
    PRNN_TRY(run(c, &pb));
    moves_start(&out, c, 1);
    moves_add(&out, pb.dx, b->dx, u.in_cols, 0, c->p->io->x_fill);
    moves_add(&out, pb.dhx, b->dhx, u.h_cols, 1, NULL);
    moves_add(&out, pb.dcx, b->dcx, u.c_cols, 1, NULL);
    return moves_launch(&out);
}

/* run(c, buffers) with the plan's rows set where the call reads or writes
 * the caller's buffers in place, cleared after, as every other call
 * expects them. */
static prnnStatus_t run_with_rows(prnn_call_plan *c, const void *buffers,
                                  prnnStatus_t (*run)(prnn_call_plan *, const void *),
                                  prnn_rows x_rows, prnn_rows y_rows, const int *order)
{
    c->x_rows = x_rows;
    c->y_rows = y_rows;
    c->order = order;
    prnnStatus_t s = run(c, buffers);
    memset(&c->x_rows, 0, sizeof(c->x_rows));
    memset(&c->y_rows, 0, sizeof(c->y_rows));
    c->order = NULL;
    return s;
}

/* The kernels' order of the caller's sequences: NULL where it is theirs. */
static const int *kernel_order(const prnn_call_plan *c)
{
    return prnn_seq_io_order_is_identity(c->p->io) ? NULL : ws_order(c);
}

/* A forward call on an engine that runs in place: nothing moves; the setup
 * kernel writes y's padding. */
static prnnStatus_t forward_in_place(prnn_call_plan *c, const prnn_forward_buffers *b,
                                     prnnStatus_t (*run)(prnn_call_plan *, const void *))
{
    const int *order = kernel_order(c);
    PRNN_TRY(setup_in_place(c, order, b->y, c->p->io->y_fill));
    c->setup_done = 1;
    const prnn_rows rows = caller_rows(c);
    return run_with_rows(c, b, run, rows, rows, order);
}

/* Backward-data on an engine that runs in place: y, dy and the states are
 * read and written where they are, and so is dx where the sequences are
 * full length in their own order (its GEMM then writes a product per
 * sequence, prnn_run_gemm_key_caller_rows); else dx is made in packed rows
 * and moved out with its padding, as a GEMM cannot scatter rows. */
static prnnStatus_t backward_data_in_place(prnn_call_plan *c, const prnn_backward_data_buffers *b,
                                           prnnStatus_t (*run)(prnn_call_plan *, const void *))
{
    const int *order = kernel_order(c);
    PRNN_TRY(setup_in_place(c, order, NULL, NULL));
    c->setup_done = 1;
    const prnn_rows rows = caller_rows(c), packed = {0};
    if (!b->dx || !prnn_seq_io_dx_moves(c->p))
        return run_with_rows(c, b, run, rows, rows, order);
    prnn_backward_data_buffers pb = *b;
    pb.dx = prnn_run_ws(c, c->l.io_dx);
    if (!order) /* the move reads the order, which the setup did not write */
        PRNN_TRY(write_order(c));
    PRNN_TRY(run_with_rows(c, &pb, run, packed, rows, order));
    moves out;
    moves_start(&out, c, 1);
    moves_add(&out, pb.dx, b->dx, units_of(c->p).in_cols, 0, c->p->io->x_fill);
    return moves_launch(&out);
}

/* BackwardWeights moves x into packed order (its GEMMs pair x's rows with
 * dg's packed ones, summing over rows, and the caller's padding may hold
 * anything, NaN included). y is only read for h_{t-1}, which
 * prnn_gather_prev reads at the caller's rows where the engine runs in
 * place: then y and hx stay where they are. */
static prnnStatus_t run_backward_weights(prnn_call_plan *c, const prnn_backward_weights_buffers *b,
                                         prnnStatus_t (*run)(prnn_call_plan *, const void *),
                                         int in_place)
{
    const io_units u = units_of(c->p);
    const int *order = in_place ? kernel_order(c) : NULL;
    if (in_place)
        PRNN_TRY(setup_in_place(c, order, NULL, NULL));
    else
        PRNN_TRY(prnn_run_setup(c));
    c->setup_done = 1; /* the moves read the step tables */
    if (!order)        /* else setup_in_place wrote it */
        PRNN_TRY(write_order(c));
    prnn_backward_weights_buffers pb = *b;
    void *x = prnn_run_ws(c, c->l.io_x);
    pb.x = x;
    moves in;
    moves_start(&in, c, 0);
    moves_add(&in, b->x, x, u.in_cols, 0, NULL);
    if (!in_place) {
        void *y = prnn_run_ws(c, c->l.io_y), *hx = state_slot(c, b->hx, PRNN_SEQ_IO_HX);
        pb.y = y;
        pb.hx = hx;
        moves_add(&in, b->y, y, u.out_cols, 0, NULL);
        moves_add(&in, b->hx, hx, u.h_cols, 1, NULL);
    }
    PRNN_TRY(moves_launch(&in));
    const prnn_rows packed = {0};
    return run_with_rows(c, &pb, run, packed, in_place ? caller_rows(c) : packed, order);
}

prnnStatus_t prnn_seq_io_run(prnn_call_plan *c, const void *buffers,
                             prnnStatus_t (*run)(prnn_call_plan *c, const void *buffers))
{
    const int in_place = runs_in_place(c);
    if (c->kind == PRNN_CALL_BACKWARD_WEIGHTS)
        return run_backward_weights(c, buffers, run, in_place);
    if (in_place)
        return c->kind == PRNN_CALL_BACKWARD_DATA ? backward_data_in_place(c, buffers, run)
                                                  : forward_in_place(c, buffers, run);
    /* the step tables first: the moves read them (the engine's own
     * prnn_run_setup then has nothing to do) */
    PRNN_TRY(prnn_run_setup(c));
    c->setup_done = 1;
    PRNN_TRY(write_order(c));
    switch (c->kind) {
    case PRNN_CALL_INFERENCE:
    case PRNN_CALL_FORWARD_TRAINING: return run_forward(c, buffers, run);
    case PRNN_CALL_BACKWARD_DATA: return run_backward_data(c, buffers, run);
    case PRNN_CALL_BACKWARD_WEIGHTS: break;
    }
    return prnn_fail(PRNN_STATUS_INTERNAL_ERROR, "prnn_seq_io_run: call kind %d", (int)c->kind);
}
