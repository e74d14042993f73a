/*
 * The step engine (PRNN_PATH_STEP): for short sequences. Per layer and
 * timestep one launch of rnn_fused_step.cu runs the input projection, the
 * recurrence and the cell of both directions: no setup kernel, no memset, no
 * cuBLASLt call, no cooperative launch and no loading of R on-chip -- what a
 * persistent call pays once, and what a T = 1 call (a streaming decoder's
 * step, inside a CUDA graph) cannot amortise. The planner gives it the
 * forward pass of short calls where a tuning DB entry of a sequence-length
 * bucket or its model says so (plan.h's short slots, plan_short.h);
 * longer calls run the plan's forward engine. Backward
 * weights of a training step it ran are the layered runner's GEMMs; its
 * reserve is every gate engine's (reserve_layout.h).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "checked_size.h"
#include "dtype.h"
#include "error.h"
#include "gpu/engines/engine.h"
#include "gpu/run/gpu_run.h"
#include "gpu/run/gpu_state.h"
#include "gpu/run/kernel_request.h"
#include "gpu/run/layered_run.h"
#include "gpu/run/run_kernels.h"
#include "gpu/run/train_ops.h"
#include "prnn_kernel_abi.h"

/* The kernel's variants: [SKIP_INPUT's layer 0][keeps act for training]. */
typedef struct {
    CUfunction fn[2][2];
    int rows_per_warp;
    int train_loaded;
} step_state;

/* Engine parts of the workspace. */
enum {
    WS_HSTATE = 0, /* 2 x dirs x miniBatch x hidden, storage type: h ping-pong */
    WS_CSTATE = 1, /* dirs x miniBatch x hidden, math type (LSTM) */
    WS_OUT2 = 2    /* inference, layers > 2: the second layer-output buffer */
};

enum { THREADS = 256, WARPS = THREADS / 32 };

static int rows_per_warp(const prnn_rnn_key *key)
{
    return key->mini_batch < 4 ? key->mini_batch : 4;
}

static prnnStatus_t request_step(const prnn_rnn_key *key, int skip, int train, int sm,
                                 prnn_kernel_request *r)
{
    prnn_request_start(r, "rnn_fused_step.cu", "prnn_fused_step", sm);
    prnn_request_cell(r, key);
    prnn_request_define(r, "PRNN_DTYPE", prnn_kernel_dtype_code(key->dtype));
    prnn_request_define(r, "PRNN_H", key->hidden);
    prnn_request_define(r, "PRNN_STEP_RPW", rows_per_warp(key));
    prnn_request_define(r, "PRNN_SKIP", skip);
    prnn_request_define(r, "PRNN_TRAIN", train);
    return prnn_request_finish(r);
}

static int supports(const prnn_engine_query *q, char *why, size_t n)
{
    if (prnn_cell_traits(q->key.mode)->scan) {
        snprintf(why, n, "SRU has its own scan");
        return -1;
    }
    if (prnn_engine_refuse_projection(q, why, n))
        return -1;
    if (q->pass != PRNN_PASS_FORWARD) {
        snprintf(why, n, "it runs the forward pass only");
        return -1;
    }
    if (q->key.algo != PRNN_RNN_ALGO_AUTO) {
        snprintf(why, n, "the descriptor asks for another algorithm");
        return -1;
    }
    return 0;
}

/* Whether rows of `len` elements suit 16-byte loads of `v` elements: whole
 * vectors, and where a gated cell (LSTM, GRU) sums several gates a row, at
 * least one vector for every lane of the warp. A gated step with fewer
 * vectors than lanes idles more lanes than it saves loads: LSTM/GRU f16
 * H 64 B 256 ran 1.16-1.23x the scalar loop, where one-gate steps gained at
 * every size (bench/NOTES.md, "Sixteenth session"). */
static int vector_rows(size_t len, size_t v, int gates)
{
    return len % v == 0 && (gates == 1 || len >= 32 * v);
}

/*
 * A call of one step (plain, replayed from the call's graph: about 6 us on
 * an H100), a small cost per gate and row of a warp (the butterfly sums and
 * the cell), then the longer of the layer's W and R read from L2 once per
 * warp row group and its products: B x H x 2H multiply-adds per gate plus
 * one more (the loads and loop of a row), at 12 TFLOPS where the rows are
 * read in 16-byte vectors and 5 in the scalar loops. Fitted to T = 1 calls
 * of every engine forced on an H100 (bench/NOTES.md, sixteenth session:
 * 96 shapes, H 64-1024, B 1-256, mean error 11 %, at most 1.45x). Against
 * the persistent engines it loses at any length its per-step floor is paid
 * over; what it saves is their per-call set-up (plan_select.c weighs the
 * two).
 */
static double estimate(const prnn_engine_query *q)
{
    const prnn_rnn_key *k = &q->key;
    const double H = k->hidden, B = k->mini_batch;
    const int gates = prnn_cell_traits(k->mode)->gates;
    const double rows = rows_per_warp(k);
    const double groups = ceil(B / rows);
    /* W and R (the input size taken as H), read by every row group */
    const double bytes = 2.0 * prnn_engine_r_bytes(k) * groups;
    /* R and the h rows: the model assumes aligned bases (the workspace's
     * always are; R and hx are the caller's, which the launch checks) */
    const double rate =
        vector_rows((size_t)k->hidden, 16 / prnn_dtype_size(k->dtype), gates) ? 12e12 : 5e12;
    const double products = 2.0 * B * H * 2.0 * H * (gates + 1.0) / rate;
    return 6.0 + 0.1 * gates * rows + fmax(bytes / 4e12, products) * 1e6;
}

/* No set-up: each step is the whole call's work. */
static double call_setup(const prnn_engine_query *q)
{
    (void)q;
    return 0.0;
}

static void format(const prnn_engine_config *c, char *buf, size_t size)
{
    (void)c;
    snprintf(buf, size, "step");
}

/* load_variant's kernels: each input variant, inference and (training) the
 * one that keeps what backward reads. */
static int requests(const prnn_engine_query *q, const prnn_engine_config *c, int training,
                    prnn_kernel_request *out)
{
    (void)c;
    const int skips = q->key.input_mode == PRNN_SKIP_INPUT ? 2 : 1;
    int n = 0;
    for (int train = 0; train <= training; train++)
        for (int skip = 0; skip < skips; skip++)
            if (request_step(&q->key, skip, train, q->gs->info.sm, &out[n++]))
                return -1;
    return n;
}

static prnnStatus_t load_variant(const prnn_engine_query *q, int skip, int train,
                                 prnn_pass_plan *pp)
{
    step_state *st = pp->state;
    prnn_kernel_request r;
    const prnn_named_fn fn = {"prnn_fused_step", &st->fn[skip][train]};
    return prnn_load_functions(q->gs, request_step(&q->key, skip, train, q->gs->info.sm, &r), &r,
                               &pp->stats, &fn, 1);
}

/* Inference's variants (train 0) or training's (1): every layer's, and
 * SKIP_INPUT's layer 0's. */
static prnnStatus_t load_variants(const prnn_engine_query *q, int train, prnn_pass_plan *pp)
{
    PRNN_TRY(load_variant(q, 0, train, pp));
    if (q->key.input_mode == PRNN_SKIP_INPUT)
        PRNN_TRY(load_variant(q, 1, train, pp));
    return PRNN_STATUS_SUCCESS;
}

static prnnStatus_t prepare(const prnn_engine_query *q, const prnn_engine_choice *choices,
                            int count, prnn_pass_plan *pp)
{
    PRNN_TRY(prnn_engine_take_choice(pp, choices, count, sizeof(step_state)));
    step_state *st = pp->state;
    st->rows_per_warp = rows_per_warp(&q->key);
    PRNN_TRY(load_variants(q, 0, pp));
    pp->loaded = 1;
    return PRNN_STATUS_SUCCESS;
}

static prnnStatus_t load_training(const prnn_engine_query *q, prnn_pass_plan *pp)
{
    step_state *st = pp->state;
    if (st->train_loaded)
        return PRNN_STATUS_SUCCESS;
    PRNN_TRY(load_variants(q, 1, pp));
    st->train_loaded = 1;
    return PRNN_STATUS_SUCCESS;
}

/* The running state, the layer outputs between layers (inference: two
 * buffers, since a step reads its input row while writing its output row),
 * dropout; backward weights: the layered runner's parts. */
static void workspace(const prnn_pass_plan *pp, const prnn_rnn_problem *p, int call,
                      prnn_ws_builder *b)
{
    (void)pp;
    prnn_ws_layout *l = b->l;
    const prnn_ws_units u = prnn_ws_units_of(p);
    if (call == PRNN_CALL_BACKWARD_WEIGHTS || call == PRNN_CALL_BACKWARD_DATA) {
        prnn_ws_layered_parts(p, (prnn_call_kind)call, b);
        return;
    }
    /* a layer's output of every row */
    const size_t out_bytes = prnn_mul4_size(u.rows, u.dirs, u.H, u.es);
    l->engine[WS_HSTATE] = prnn_ws_take(b, prnn_mul4_size(2 * u.dirs, u.B, u.H, u.es));
    l->engine[WS_CSTATE] = prnn_ws_take(b, prnn_mul4_size(u.dirs, u.B, u.H, u.acc));
    if (call == PRNN_CALL_INFERENCE && u.deep) {
        l->layer_out = prnn_ws_take(b, out_bytes);
        if (p->rnn->layers > 2)
            l->engine[WS_OUT2] = prnn_ws_take(b, out_bytes);
    }
    if (call == PRNN_CALL_FORWARD_TRAINING && u.dropout)
        l->dropped = prnn_ws_take(b, out_bytes);
}

/* Direction d's h ping-pong buffer of parity `par`, and its c. */
static char *hstate(const prnn_call_plan *c, int d, int par)
{
    return c->ws + c->l.engine[WS_HSTATE] + (size_t)(2 * d + par) * c->p->mini_batch * c->H * c->es;
}

static char *cstate(const prnn_call_plan *c, int d)
{
    return c->ws + c->l.engine[WS_CSTATE] + (size_t)d * c->p->mini_batch * c->H * c->acc;
}

/* Which operands the kernel reads 16 bytes at a time
 * (prnn_fused_step_args.vec): those whose rows suit vectors (vector_rows)
 * from aligned bases. */
static int vectors_fit(const prnn_call_plan *c, const prnn_fused_step_args *a, int skip)
{
    const size_t v = 16 / c->es;
    uintptr_t h_bases = 0;
    for (int d = 0; d < c->dirs; d++)
        h_bases |= (uintptr_t)a->R[d] | (uintptr_t)a->hx[d] | (uintptr_t)hstate(c, d, 0) |
                   (uintptr_t)hstate(c, d, 1);
    int vec = 0;
    if (vector_rows((size_t)c->H, v, c->G) && h_bases % 16 == 0)
        vec |= PRNN_STEP_VEC_H;
    if (!skip) {
        uintptr_t x_bases = (uintptr_t)a->x;
        for (int d = 0; d < c->dirs; d++)
            x_bases |= (uintptr_t)a->W[d];
        if (vector_rows((size_t)a->x_cols, v, c->G) && x_bases % 16 == 0)
            vec |= PRNN_STEP_VEC_X;
    }
    return vec;
}

/* One layer: a launch per step, both directions in each. */
static prnnStatus_t layer(const prnn_call_plan *c, const prnn_forward_buffers *b, int layer,
                          const void *input, void *output)
{
    const step_state *st = c->pass->state;
    const int T = c->p->seq_length, dirs = c->dirs;
    const int *batch = c->p->batch;
    const int skip = layer == 0 && c->rnn->input_mode == PRNN_SKIP_INPUT;
    CUfunction fn = st->fn[skip][c->training];
    prnn_fused_step_args a;
    memset(&a, 0, sizeof(a));
    a.x = input;
    a.y = output;
    a.x_cols = layer == 0 ? c->p->input_size : dirs * c->H;
    a.y_cols = dirs * c->H;
    a.x_rows = prnn_run_input_rows(c, layer);
    a.y_rows = prnn_run_output_rows(c, layer);
    a.order = c->order;
    a.clip_lo = c->rnn->lclip; /* PRNN_CLIP's bounds (prnnRNNSetClip_v8) */
    a.clip_hi = c->rnn->rclip;
    for (int d = 0; d < dirs; d++) {
        const int pseudo = layer * dirs + d;
        prnn_dir_weights w;
        prnn_run_dir_weights(c, b->w, pseudo, &w);
        a.W[d] = w.W;
        a.R[d] = w.R;
        a.bW[d] = w.bW;
        a.bR[d] = w.bR;
        const size_t so_h = (size_t)pseudo * c->h_state_stride;
        const size_t so_c = (size_t)pseudo * c->c_state_stride;
        a.hx[d] = prnn_run_offset(b->hx, so_h);
        a.cx[d] = prnn_run_offset(b->cx, so_c);
        a.hy[d] = prnn_run_out_offset(b->hy, so_h);
        a.cy[d] = prnn_run_out_offset(b->cy, so_c);
        a.cstate[d] = cstate(c, d);
        a.act[d] = c->training ? prnn_reserve_act(&c->r, b->reserve, pseudo) : NULL;
    }
    a.vec = vectors_fit(c, &a, skip);
    /* first rows of the steps processed: direction 0 from the front,
     * direction 1 from the back */
    long long front = 0, back = (long long)c->p->total_rows;
    unsigned groups_max = 0;
    for (int s = 0; s < T; s++) {
        for (int d = 0; d < dirs; d++) {
            const int t = d ? T - 1 - s : s;
            a.t[d] = t;
            a.batch[d] = batch[t];
            if (d) {
                back -= batch[t];
                a.row0[d] = back;
                a.prev_batch[d] = s ? batch[t + 1] : 0;
                a.next_batch[d] = s + 1 < T ? batch[t] : 0;
            } else {
                a.row0[d] = front;
                front += batch[t];
                a.prev_batch[d] = s ? batch[t] : 0; /* batch[t - 1] >= batch[t] */
                a.next_batch[d] = s + 1 < T ? batch[t + 1] : 0;
            }
            a.hprev[d] = s ? hstate(c, d, (s - 1) & 1) : NULL;
            a.hnext[d] = hstate(c, d, s & 1);
            unsigned g = (unsigned)((batch[t] + st->rows_per_warp - 1) / st->rows_per_warp);
            if (g > groups_max)
                groups_max = g;
        }
        const unsigned grid[3] = {(unsigned)((c->H + WARPS - 1) / WARPS), (unsigned)dirs,
                                  groups_max};
        PRNN_TRY(prnn_run_launch_3d(c, fn, grid, THREADS, &a, sizeof(a), "prnn_fused_step"));
        groups_max = 0;
    }
    return PRNN_STATUS_SUCCESS;
}

static prnnStatus_t forward(const prnn_call_plan *c, const prnn_forward_buffers *b)
{
    const int L = c->rnn->layers;
    const void *input = b->x;
    for (int l = 0; l < L; l++) {
        /* inference alternates two buffers between layers: a step reads its
         * input row while it writes its output row */
        void *between = (l & 1) && c->l.engine[WS_OUT2] != (size_t)-1
                            ? prnn_run_ws(c, c->l.engine[WS_OUT2])
                            : prnn_run_ws(c, c->l.layer_out);
        void *output = l == L - 1    ? b->y
                       : c->training ? prnn_reserve_out(&c->r, b->reserve, l)
                                     : between;
        PRNN_TRY(layer(c, b, l, input, output));
        PRNN_TRY(prnn_train_next_input(c, l, c->training, output, &input));
    }
    return PRNN_STATUS_SUCCESS;
}

static prnnStatus_t run(prnn_call_plan *c, const void *buffers)
{
    switch (c->kind) {
    case PRNN_CALL_INFERENCE:
    case PRNN_CALL_FORWARD_TRAINING: return forward(c, buffers);
    case PRNN_CALL_BACKWARD_WEIGHTS: return prnn_layered_backward_weights(c, buffers);
    case PRNN_CALL_BACKWARD_DATA: break;
    }
    return prnn_fail(PRNN_STATUS_INTERNAL_ERROR, "the step engine runs no backward-data pass");
}

static void describe(const prnn_pass_plan *pp, const prnn_rnn_key *key, prnn_engine_info *info)
{
    const step_state *st = pp->state;
    memset(info, 0, sizeof(*info));
    info->path = PRNN_PATH_STEP;
    if (!st)
        return;
    info->threads_per_block = THREADS;
    info->units_per_block = WARPS;
    info->num_blocks = ((key->hidden + WARPS - 1) / WARPS) *
                       ((key->mini_batch + st->rows_per_warp - 1) / st->rows_per_warp);
}

const prnn_engine prnn_step_engine = {
    .name = "step",
    .unpacked_in_place = 1,
    .supports = supports,
    .fits = prnn_engine_fits_any,
    .candidates = prnn_engine_no_config,
    .estimate = estimate,
    .call_setup = call_setup,
    .format = format,
    .prepare = prepare,
    .load_training = load_training,
    .requests = requests,
    .workspace = workspace,
    .run = run,
    .describe = describe,
    .release = prnn_engine_free_state,
};
