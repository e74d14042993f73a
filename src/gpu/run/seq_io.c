#include "gpu/run/seq_io.h"

#include <limits.h>
#include <stdint.h>
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

/* Whether the moves carry the sequences' order in their own parameters
 * (a small batch), else they read it from the workspace (write_order). */
static int inline_order(const prnn_call_plan *c)
{
    return c->p->io->batch <= PRNN_SEQ_INLINE_ORDER;
}

/* The sequences' packed order into the workspace, from the launches'
 * parameters (capture-safe: a graph keeps the values), where the moves do
 * not carry it. */
static prnnStatus_t write_order(const prnn_call_plan *c)
{
    const prnn_seq_io *io = c->p->io;
    if (inline_order(c))
        return PRNN_STATUS_SUCCESS;
    prnn_seq_order_args a;
    for (int base = 0; base < io->batch; base += PRNN_SEQ_ORDER_CHUNK) {
        memset(&a, 0, sizeof(a));
        a.order = (int *)prnn_run_ws(c, c->l.io_order);
        a.base = base;
        a.count = io->batch - base < PRNN_SEQ_ORDER_CHUNK ? io->batch - base : PRNN_SEQ_ORDER_CHUNK;
        memcpy(a.v, io->order + base, (size_t)a.count * sizeof(int));
        PRNN_TRY(
            prnn_run_launch(c, c->kernels->seq_order, 1, 1, 256, &a, sizeof(a), "prnn_seq_order"));
    }
    return PRNN_STATUS_SUCCESS;
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
        m->a.order = (const int *)prnn_run_ws(c, c->l.io_order);
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

/* Whether a call can run in place (seq_io.h; BackwardWeights: read y in
 * place): its sequences' length when it can, else 0. */
static long long in_place_stride(const prnn_call_plan *c)
{
    const prnn_seq_io *io = c->p->io;
    const struct prnnRNNStruct *rnn = c->rnn;
    if (io->layout != PRNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED ||
        !c->pass->engine->batch_major_in_place || rnn->proj || rnn->input_mode == PRNN_SKIP_INPUT)
        return 0;
    /* every length maxSeqLength: no length is above it, so the rows sum
     * to batch * maxSeqLength exactly then */
    if (c->p->total_rows != (size_t)io->batch * (size_t)io->max_seq)
        return 0;
    /* the strided GEMMs' leading dimensions are a step's rows, batch *
     * gates * hidden elements (dg's and xproj's rows at most 4 * hidden
     * wide): an int, as cuBLASLt's keys hold them */
    if ((long long)io->batch * 4 * c->H > INT_MAX)
        return 0;
    return io->max_seq;
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

/* run(c, buffers) reading the caller's x and y in place where their strides
 * are set (prnn_call_plan.x_seq_stride, y_seq_stride; 0: packed rows), the
 * plan's strides cleared after, as every other call expects them. */
static prnnStatus_t run_strided(prnn_call_plan *c, const void *buffers,
                                prnnStatus_t (*run)(prnn_call_plan *, const void *),
                                long long x_seq_stride, long long y_seq_stride)
{
    c->x_seq_stride = x_seq_stride;
    c->y_seq_stride = y_seq_stride;
    prnnStatus_t s = run(c, buffers);
    c->x_seq_stride = c->y_seq_stride = 0;
    return s;
}

/* BackwardWeights moves x into packed order (its GEMMs pair x's rows with
 * dg's packed ones: seq_io.h). y is only read for h_{t-1}, which
 * prnn_gather_prev reads at the caller's rows where the call could run in
 * place (in_place_stride): then y and hx stay where they are (full-length
 * sequences keep the caller's order). */
static prnnStatus_t run_backward_weights(prnn_call_plan *c, const prnn_backward_weights_buffers *b,
                                         prnnStatus_t (*run)(prnn_call_plan *, const void *),
                                         long long y_in_place)
{
    const io_units u = units_of(c->p);
    prnn_backward_weights_buffers pb = *b;
    void *x = prnn_run_ws(c, c->l.io_x);
    pb.x = x;
    moves in;
    moves_start(&in, c, 0);
    moves_add(&in, b->x, x, u.in_cols, 0, NULL);
    if (!y_in_place) {
        void *y = prnn_run_ws(c, c->l.io_y), *hx = state_slot(c, b->hx, PRNN_SEQ_IO_HX);
        pb.y = y;
        pb.hx = hx;
        moves_add(&in, b->y, y, u.out_cols, 0, NULL);
        moves_add(&in, b->hx, hx, u.h_cols, 1, NULL);
    }
    PRNN_TRY(moves_launch(&in));
    return run_strided(c, &pb, run, 0, y_in_place);
}

prnnStatus_t prnn_seq_io_run(prnn_call_plan *c, const void *buffers,
                             prnnStatus_t (*run)(prnn_call_plan *c, const void *buffers))
{
    /* the step tables first: the moves read them (the engine's own
     * prnn_run_setup then has nothing to do) */
    PRNN_TRY(prnn_run_setup(c));
    c->setup_done = 1;
    const long long in_place = in_place_stride(c);
    if (in_place && c->kind != PRNN_CALL_BACKWARD_WEIGHTS)
        return run_strided(c, buffers, run, in_place, in_place);
    PRNN_TRY(write_order(c));
    switch (c->kind) {
    case PRNN_CALL_INFERENCE:
    case PRNN_CALL_FORWARD_TRAINING: return run_forward(c, buffers, run);
    case PRNN_CALL_BACKWARD_DATA: return run_backward_data(c, buffers, run);
    case PRNN_CALL_BACKWARD_WEIGHTS: return run_backward_weights(c, buffers, run, in_place);
    }
    return prnn_fail(PRNN_STATUS_INTERNAL_ERROR, "prnn_seq_io_run: call kind %d", (int)c->kind);
}
