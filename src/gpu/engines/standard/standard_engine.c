/*
 * The standard engine (PRNN_PATH_STANDARD): the classic non-persistent
 * recurrence, per step one cuBLASLt GEMM (h_{t-1} R^T forward, dg R
 * backward) and one fused pointwise kernel (rnn_step.cu). It needs no
 * co-resident blocks, and where a step is a real GEMM (large batch, large
 * hidden size) it is the engine that keeps up. It is also the engine of
 * the LSTM projection (h = Wp m, m = o * tanh(c): cuDNN's projSize): one
 * more GEMM per step in each pass.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "checked_size.h"
#include "dtype.h"
#include "error.h"
#include "gpu/engines/engine.h"
#include "gpu/run/gpu_state.h"
#include "gpu/run/kernel_request.h"
#include "gpu/run/layered_run.h"
#include "gpu/run/loop_graph.h"
#include "gpu/run/run_kernels.h"
#include "prnn_kernel_abi.h"

/* rnn_step.cu's kernels, and the step loops' graphs (loop_graph.h). */
typedef struct {
    CUfunction init, cell, cell_skip, cell_backward;
    CUfunction proj_hy, dh_proj; /* with a projection */
    prnn_loop_graphs graphs;
} prnn_step_kernels;

/* Engine parts of the workspace. */
enum {
    WS_HSTATE = 0, /* forward: miniBatch * hidden, storage type */
    WS_CSTATE = 1, /* forward: miniBatch * hidden, math type */
    WS_REC = 2,    /* miniBatch * gates * hidden (forward R h; backward dg R,
                    * miniBatch * hidden), math type */
    WS_CARRY = 3,  /* backward: miniBatch * hidden, math type */
    /* with a projection (WS_HSTATE is then miniBatch * P, WS_REC backward
     * dm = dh Wp): */
    WS_M = 4,   /* inference: m of a step's rows, miniBatch * hidden, storage type
                 * (training keeps m in the reserve) */
    WS_RECP = 5 /* backward: dg R, miniBatch * P, math type */
};

static prnnStatus_t request_step(const prnn_rnn_key *key, int skip, int sm, prnn_kernel_request *r)
{
    prnn_request_start(r, "rnn_step.cu", "prnn_step_cell", sm);
    prnn_request_cell(r, key);
    prnn_request_define(r, "PRNN_DTYPE", prnn_kernel_dtype_code(key->dtype));
    prnn_request_define(r, "PRNN_H", key->hidden);
    prnn_request_define(r, "PRNN_SKIP", skip);
    if (key->proj)
        prnn_request_define(r, "PRNN_PROJ", key->proj);
    return prnn_request_finish(r);
}

static int supports(const prnn_engine_query *q, char *why, size_t n)
{
    if (prnn_cell_traits(q->key.mode)->scan) {
        snprintf(why, n, "SRU has no recurrent matrix");
        return -1;
    }
    if (q->key.algo == PRNN_RNN_ALGO_PERSISTENT) {
        snprintf(why, n, "the descriptor's algorithm is PRNN_RNN_ALGO_PERSISTENT");
        return -1;
    }
    return 0;
}

/* Whether the per-step recurrent GEMMs may use TF32: FP32 data under
 * PRNN_TF32_RECURRENCE_MATH (prnn.h); gemm.c applies it to FP32 data only. */
static int recurrence_tf32(const prnn_call_plan *c)
{
    return c->rnn->math == PRNN_TF32_RECURRENCE_MATH;
}

/*
 * A step: one cuBLASLt GEMM (forward h R^T: B x G.H x H; backward dg R:
 * B x H x G.H, the same work) and one pointwise kernel, each launched from
 * the host. The launches and the library's fixed cost set its floor
 * (cuDNN's STANDARD, the same scheme, runs 11-40 us per step on an H100:
 * docs/ARCHITECTURE.md section 1); the GEMM's time its slope
 * (prnn_engine_gemm_us; TF32 under PRNN_TF32_RECURRENCE_MATH).
 */
static double estimate(const prnn_engine_query *q)
{
    const prnn_rnn_key *k = &q->key;
    const double G = prnn_cell_traits(k->mode)->gates, H = k->hidden, B = k->mini_batch;
    const double gemm = prnn_engine_gemm_us(k, B, G * H, H, prnn_rnn_key_tf32_recurrence(k));
    /* two launches and cuBLASLt's set-up; the backward step's pointwise kernel
     * also reads the forward's activations and writes dg (B 64-128 on an H100:
     * 1.1-1.6x a 9 us floor's estimate, the eighth session's autotune logs) */
    const double floor_us = q->pass == PRNN_PASS_BACKWARD_DATA ? 13.0 : 9.0;
    return floor_us + gemm;
}

/* Per call and layer: the setup kernel, the input projection and the
 * state's initialisation, each a launch, and the projection's GEMM. */
static double call_setup(const prnn_engine_query *q)
{
    return 7.5 + prnn_engine_input_gemm_us(&q->key);
}

static void format(const prnn_engine_config *c, char *buf, size_t size)
{
    (void)c;
    snprintf(buf, size, "standard");
}

/* load()'s modules: the forward pass's now, the backward-data pass's (the
 * same) when training. */
static int requests(const prnn_engine_query *q, const prnn_engine_config *c, int training,
                    prnn_kernel_request *out)
{
    (void)c;
    if (q->pass == PRNN_PASS_BACKWARD_DATA && !training)
        return 0;
    const int skips = q->key.input_mode == PRNN_SKIP_INPUT ? 2 : 1;
    for (int skip = 0; skip < skips; skip++)
        if (request_step(&q->key, skip, q->gs->info.sm, &out[skip]))
            return -1;
    return skips;
}

/* The step kernels serve both passes (one module, or two with the
 * SKIP_INPUT variant). */
static prnnStatus_t load(const prnn_engine_query *q, prnn_pass_plan *pp)
{
    prnn_step_kernels *k = pp->state;
    for (int skip = 0; skip < 2; skip++) {
        if (skip && q->key.input_mode != PRNN_SKIP_INPUT)
            break;
        prnn_kernel_request r;
        const prnn_named_fn all[] = {{"prnn_step_cell", &k->cell},
                                     {"prnn_step_init", &k->init},
                                     {"prnn_step_cell_backward", &k->cell_backward}};
        const prnn_named_fn projected[] = {{"prnn_step_cell", &k->cell},
                                           {"prnn_step_init", &k->init},
                                           {"prnn_step_cell_backward", &k->cell_backward},
                                           {"prnn_step_proj_hy", &k->proj_hy},
                                           {"prnn_step_dh_proj", &k->dh_proj}};
        const prnn_named_fn skipped[] = {{"prnn_step_cell", &k->cell_skip}};
        prnnStatus_t s = request_step(&q->key, skip, q->gs->info.sm, &r);
        PRNN_TRY(skip          ? prnn_load_functions(q->gs, s, &r, &pp->stats, skipped, 1)
                 : q->key.proj ? prnn_load_functions(q->gs, s, &r, &pp->stats, projected, 5)
                               : prnn_load_functions(q->gs, s, &r, &pp->stats, all, 3));
    }
    if (!k->graphs.cu)
        prnn_loop_graphs_init(&k->graphs, q->gs->cu, "PRNN_STEP_GRAPHS");
    pp->loaded = 1;
    return PRNN_STATUS_SUCCESS;
}

static void release(prnn_pass_plan *pp)
{
    prnn_step_kernels *k = pp->state;
    if (k)
        prnn_loop_graphs_release(&k->graphs);
    prnn_engine_free_state(pp);
}

/* The forward pass loads its kernels now; the backward-data pass on the
 * first training need. */
static prnnStatus_t prepare(const prnn_engine_query *q, const prnn_engine_choice *choices,
                            int count, prnn_pass_plan *pp)
{
    PRNN_TRY(prnn_engine_take_choice(pp, choices, count, sizeof(prnn_step_kernels)));
    return q->pass == PRNN_PASS_FORWARD ? load(q, pp) : PRNN_STATUS_SUCCESS;
}

static prnnStatus_t load_training(const prnn_engine_query *q, prnn_pass_plan *pp)
{
    return pp->loaded ? PRNN_STATUS_SUCCESS : load(q, pp);
}

static void workspace(const prnn_pass_plan *pp, const prnn_rnn_problem *p, int call,
                      prnn_ws_builder *b)
{
    (void)pp;
    prnn_ws_layout *l = b->l;
    const prnn_ws_units u = prnn_ws_units_of(p);
    const int proj = p->rnn->proj != 0;
    if (call == PRNN_CALL_INFERENCE || call == PRNN_CALL_FORWARD_TRAINING) {
        l->engine[WS_HSTATE] = prnn_ws_take(b, prnn_mul3_size(u.B, u.P, u.es));
        l->engine[WS_CSTATE] = prnn_ws_take(b, prnn_mul3_size(u.B, u.H, u.acc));
        l->engine[WS_REC] = prnn_ws_take(b, prnn_mul3_size(u.B, u.gh, u.acc));
        if (proj && call == PRNN_CALL_INFERENCE)
            l->engine[WS_M] = prnn_ws_take(b, prnn_mul3_size(u.B, u.H, u.es));
    } else if (call == PRNN_CALL_BACKWARD_DATA) {
        l->engine[WS_REC] = prnn_ws_take(b, prnn_mul3_size(u.B, u.H, u.acc));
        l->engine[WS_CARRY] = prnn_ws_take(b, prnn_mul3_size(u.B, u.H, u.acc));
        if (proj)
            l->engine[WS_RECP] = prnn_ws_take(b, prnn_mul3_size(u.B, u.P, u.acc));
    }
}

/* One direction of one layer: the loop's context. */
typedef struct {
    const prnn_layer_run *lr;
    int d;
} dir_loop;

/* A GEMM key for the recurrence's products (h R^T, dg R and, with a
 * projection, m Wp^T and dh Wp): out[m][n] = a[m][k] b (b [n][k] with
 * trans_b, else [k][n]), rows lda / ldb / ldc elements apart, out in the
 * math type; strict unless the math type lets the recurrence use TF32. */
static void recurrence_key(const prnn_call_plan *c, int m, int n, int k, int trans_b, int lda,
                           int ldb, int ldc, prnn_gemm_key *key)
{
    prnn_run_gemm_key(c, key);
    key->tf32 = recurrence_tf32(c);
    key->m = m;
    key->n = n;
    key->k = k;
    key->trans_b = trans_b;
    key->lda = lda;
    key->ldb = ldb;
    key->ldc = ldc;
}

/* With a projection, rec = h_{t-1} R^T of a step's `batch` rows: h_{t-1} of
 * the rows the previous step ran is its output in y (prev_row0, y_cols
 * apart; none at the first step), of rows that start here hstate's copy
 * of hx (the reverse direction's batch grows). */
static prnnStatus_t projected_recurrence(const prnn_call_plan *c, const prnn_step_args *a,
                                         const void *R, void *rec, int s, long long prev_row0,
                                         int prev_batch)
{
    const int P = c->P, gh = (int)c->gh;
    const int from_y = s == 0 ? 0 : a->batch < prev_batch ? a->batch : prev_batch;
    prnn_gemm_key key;
    if (from_y) {
        recurrence_key(c, from_y, gh, P, 1, a->y_cols, P, gh, &key);
        const char *h = (const char *)a->y + ((size_t)prev_row0 * a->y_cols + a->y_offset) * c->es;
        PRNN_TRY(prnn_run_gemm(c, &key, h, R, rec));
    }
    if (a->batch == from_y)
        return PRNN_STATUS_SUCCESS;
    recurrence_key(c, a->batch - from_y, gh, P, 1, P, P, gh, &key);
    return prnn_run_gemm(c, &key, (const char *)a->hstate + (size_t)from_y * P * c->es, R,
                         (char *)rec + (size_t)from_y * gh * c->acc);
}

/* With a projection, after the cell: h = m Wp^T of the step's rows, into y
 * (storage type). */
static prnnStatus_t projection(const prnn_call_plan *c, const prnn_step_args *a, const void *Wp)
{
    prnn_gemm_key key;
    recurrence_key(c, a->batch, c->P, c->H, 1, c->H, c->H, a->y_cols, &key);
    key.c_storage = 1;
    char *h = (char *)a->y + ((size_t)a->row0 * a->y_cols + a->y_offset) * c->es;
    return prnn_run_gemm(c, &key, a->m, Wp, h);
}

/* With a projection, once a direction's steps ran: hy from y. */
static prnnStatus_t projected_hy(const prnn_call_plan *c, const prnn_step_kernels *sk,
                                 const prnn_step_args *a)
{
    if (!a->hy)
        return PRNN_STATUS_SUCCESS;
    prnn_step_proj_hy_args h;
    memset(&h, 0, sizeof(h));
    h.y = a->y;
    h.hy = a->hy;
    h.batch = (const int *)prnn_run_ws(c, c->l.batch);
    h.offset = (const int *)prnn_run_ws(c, c->l.offset);
    h.seq_length = c->p->seq_length;
    h.rows = c->p->mini_batch;
    h.y_cols = a->y_cols;
    h.y_offset = a->y_offset;
    h.reverse = a->reverse;
    return prnn_run_launch(c, sk->proj_hy, (unsigned)((h.rows * c->P + 255) / 256), 1, 256, &h,
                           sizeof(h), "prnn_step_proj_hy");
}

/* One direction of one layer, forward: a GEMM and a pointwise kernel per
 * step (and with a projection a second GEMM), on c's stream. */
static prnnStatus_t forward_steps(const void *ctx, const prnn_call_plan *c)
{
    const prnn_layer_run *lr = ((const dir_loop *)ctx)->lr;
    const int d = ((const dir_loop *)ctx)->d;
    const prnn_forward_buffers *b = lr->fwd;
    const prnn_step_kernels *sk = c->pass->state;
    const int layer = lr->layer, skip = lr->skip;
    const int H = c->H, P = c->P, T = c->p->seq_length, B = c->p->mini_batch;
    const int proj = c->rnn->proj != 0;
    int pseudo = layer * c->dirs + d;
    prnn_dir_weights w;
    prnn_run_dir_weights(c, b->w, pseudo, &w);
    const size_t so_h = (size_t)pseudo * c->h_state_stride;
    const size_t so_c = (size_t)pseudo * c->c_state_stride;

    prnn_step_init_args ia;
    memset(&ia, 0, sizeof(ia));
    ia.hx = prnn_run_offset(b->hx, so_h);
    ia.cx = prnn_run_offset(b->cx, so_c);
    ia.hstate = prnn_run_ws(c, c->l.engine[WS_HSTATE]);
    ia.cstate = prnn_cell_traits(c->rnn->mode)->has_cell ? prnn_run_ws(c, c->l.engine[WS_CSTATE])
                                                         : NULL;
    ia.h_count = B * P;
    ia.c_count = B * H;
    ia.h_width = P;
    ia.c_width = H;
    ia.order = c->order;
    PRNN_TRY(prnn_run_launch(c, sk->init, (unsigned)((B * H + 255) / 256), 1, 256, &ia, sizeof(ia),
                             "prnn_step_init"));

    prnn_step_args a;
    memset(&a, 0, sizeof(a));
    void *rec = prnn_run_ws(c, c->l.engine[WS_REC]); /* the GEMM writes, the cell reads */
    a.rec = rec;
    a.xin = skip ? lr->input : prnn_layered_xproj(c, d);
    a.bW = w.bW;
    a.bR = w.bR;
    a.hstate = ia.hstate;
    a.cstate = ia.cstate;
    a.y = lr->output;
    a.hy = prnn_run_out_offset(b->hy, so_h);
    a.cy = prnn_run_out_offset(b->cy, so_c);
    a.y_cols = c->dirs * P;
    a.y_offset = d * P;
    a.reverse = d;
    a.y_rows = prnn_run_output_rows(c, layer);
    a.x_rows = prnn_run_xproj_rows(c, layer);
    a.order = c->order;
    a.clip_lo = c->rnn->lclip; /* PRNN_CLIP's bounds (prnnRNNSetClip_v8) */
    a.clip_hi = c->rnn->rclip;
    a.act = c->training ? prnn_reserve_act(&c->r, b->reserve, pseudo) : NULL;
    CUfunction fn = skip ? sk->cell_skip : sk->cell;
    /* m: the reserve's rows in training (dWp reads them), else one step's */
    char *m = !proj         ? NULL
              : c->training ? prnn_reserve_proj(&c->r, b->reserve, PRNN_PROJ_M, pseudo)
                            : prnn_run_ws(c, c->l.engine[WS_M]);
    /* First row of each step, walked in processing order. */
    long long row = d ? (long long)c->p->total_rows : 0, prev_row0 = 0;
    int prev_batch = 0;
    for (int s = 0; s < T; s++) {
        int t = d ? T - 1 - s : s;
        if (d) {
            row -= c->p->batch[t];
            a.row0 = row;
        } else {
            a.row0 = row;
            row += c->p->batch[t];
        }
        a.t = t;
        a.batch = c->p->batch[t];
        a.next_batch = s + 1 < T ? c->p->batch[d ? t - 1 : t + 1] : 0;
        a.final_step = s == T - 1;
        /* rec = h_{t-1} R^T for the step's rows */
        if (proj) {
            a.m = m + (c->training ? (size_t)a.row0 * H * c->es : 0);
            PRNN_TRY(projected_recurrence(c, &a, w.R, rec, s, prev_row0, prev_batch));
        } else {
            prnn_gemm_key key;
            recurrence_key(c, a.batch, (int)c->gh, H, 1, H, H, (int)c->gh, &key);
            PRNN_TRY(prnn_run_gemm(c, &key, a.hstate, w.R, rec));
        }
        PRNN_TRY(prnn_run_launch(c, fn, (unsigned)((a.batch * H + 255) / 256), 1, 256, &a,
                                 sizeof(a), "prnn_step_cell"));
        if (proj)
            PRNN_TRY(projection(c, &a, w.Wp));
        prev_row0 = a.row0;
        prev_batch = a.batch;
    }
    return proj ? projected_hy(c, sk, &a) : PRNN_STATUS_SUCCESS;
}

/* With a projection, a backward step's dh and dm: prnn_step_dh_proj makes
 * dh of the step's rows (P wide, kept in the reserve for dWp) from recp =
 * dg_prev R, dhy and dy, and leaves dhx of rows that start later; then dm =
 * dh Wp of the step's rows, which the cell backward reads as its rec. */
static prnnStatus_t projected_dh(const prnn_call_plan *c, const prnn_step_kernels *sk,
                                 const prnn_step_bwd_args *a, const void *recp, const void *dhy,
                                 void *dhx, char *dh, const void *Wp, void *dm)
{
    const int P = c->P, H = c->H;
    prnn_step_dh_args h;
    memset(&h, 0, sizeof(h));
    h.rec = a->prev_b ? recp : NULL;
    h.dy = a->dy;
    h.dhy = dhy;
    h.dhx = dhx;
    h.dh = dh;
    h.row0 = a->row0;
    h.cur_b = a->cur_b;
    h.prev_b = a->prev_b;
    h.dy_cols = a->dy_cols;
    h.y_offset = a->y_offset;
    h.dy_storage = a->dy_storage;
    const int hi_b = a->cur_b > a->prev_b ? a->cur_b : a->prev_b;
    PRNN_TRY(prnn_run_launch(c, sk->dh_proj, (unsigned)((hi_b * P + 255) / 256), 1, 256, &h,
                             sizeof(h), "prnn_step_dh_proj"));
    if (!a->cur_b)
        return PRNN_STATUS_SUCCESS;
    prnn_gemm_key key;
    recurrence_key(c, a->cur_b, H, P, 0, P, H, H, &key);
    return prnn_run_gemm(c, &key, dh + (size_t)a->row0 * P * c->es, Wp, dm);
}

/* One direction of one layer, backward: per step (walking time backwards) a
 * GEMM rec = dg R over the rows the previous step ran, then the cell
 * backward; a final GEMM and pointwise pass leave dhx / dcx. With a
 * projection, dh and dm (projected_dh) between the two. */
static prnnStatus_t backward_steps(const void *ctx, const prnn_call_plan *c)
{
    const prnn_layer_run *lr = ((const dir_loop *)ctx)->lr;
    const int d = ((const dir_loop *)ctx)->d;
    const prnn_backward_data_buffers *b = lr->bwd;
    const prnn_step_kernels *sk = c->pass->state;
    const int layer = lr->layer;
    const int H = c->H, P = c->P, T = c->p->seq_length;
    const int proj = c->rnn->proj != 0;
    const int pseudo = layer * c->dirs + d;
    prnn_dir_weights w;
    prnn_run_dir_weights(c, b->w, pseudo, &w);
    const size_t so_h = (size_t)pseudo * c->h_state_stride;
    const size_t so_c = (size_t)pseudo * c->c_state_stride;
    char *dg = prnn_reserve_dg(&c->r, b->reserve, pseudo);
    char *dh = proj ? prnn_reserve_proj(&c->r, b->reserve, PRNN_PROJ_DH, pseudo) : NULL;
    void *rec = prnn_run_ws(c, c->l.engine[WS_REC]);
    void *recp = proj ? prnn_run_ws(c, c->l.engine[WS_RECP]) : rec; /* dg R */
    const long long rec_row = (long long)c->r.dg_cols * H;          /* elements per dg row */

    prnn_step_bwd_args a;
    memset(&a, 0, sizeof(a));
    a.dy = lr->dout;
    a.dy_storage = lr->dout_storage;
    a.dy_cols = c->dirs * P;
    a.act = prnn_reserve_act(&c->r, b->reserve, pseudo);
    a.hout = lr->hout;
    a.y_cols = c->dirs * P;
    a.y_offset = d * P;
    a.hx = prnn_run_offset(b->hx, so_h);
    a.cx = prnn_run_offset(b->cx, so_c);
    a.dhy = prnn_run_offset(b->dhy, so_h);
    a.dcy = prnn_run_offset(b->dcy, so_c);
    a.dhx = prnn_run_out_offset(b->dhx, so_h);
    a.dcx = prnn_run_out_offset(b->dcx, so_c);
    a.dg = dg;
    a.carry = prnn_run_ws(c, c->l.engine[WS_CARRY]);
    a.y_rows = prnn_run_output_rows(c, layer);
    a.order = c->order;
    a.clip_lo = c->rnn->lclip; /* PRNN_CLIP's bounds (prnnRNNSetClip_v8) */
    a.clip_hi = c->rnn->rclip;
    /* First rows of the steps, walked in this direction's order: dir 0 from
     * the last step down, dir 1 from the first up. */
    long long prev_row0 = 0;
    long long row0 = d ? 0 : (long long)c->p->total_rows;
    int prev_b = 0;
    for (int s = 0; s <= T; s++) {
        const int t = d ? s : T - 1 - s;
        const int cur_b = s < T ? c->p->batch[t] : 0;
        if (s < T && !d)
            row0 -= cur_b;
        if (s < T && d && s > 0)
            row0 += prev_b;
        const int tp = d ? t + 1 : t - 1;
        const int has_tp = s < T && tp >= 0 && tp < T;
        a.row0 = row0;
        a.t = t;
        a.tp = tp;
        a.cur_b = cur_b;
        a.prev_b = prev_b;
        a.tp_b = has_tp ? c->p->batch[tp] : 0;
        a.tp_row0 = has_tp ? (d ? row0 + cur_b : row0 - c->p->batch[tp]) : 0;
        a.rec = NULL;
        if (prev_b) {
            /* recp[prev_b][P] = dg_prev[:, recurrent side] R */
            prnn_gemm_key key;
            recurrence_key(c, prev_b, P, (int)c->gh, 0, (int)rec_row, P, P, &key);
            a.rec = recp;
            PRNN_TRY(prnn_run_gemm(c, &key, dg + (size_t)prev_row0 * rec_row * c->es, w.R, recp));
        }
        if (proj) {
            PRNN_TRY(projected_dh(c, sk, &a, recp, a.dhy, a.dhx, dh, w.Wp, rec));
            a.rec = cur_b ? rec : NULL;
        }
        const int hi_b = cur_b > prev_b ? cur_b : prev_b;
        PRNN_TRY(prnn_run_launch(c, sk->cell_backward, (unsigned)((hi_b * H + 255) / 256), 1, 256,
                                 &a, sizeof(a), "prnn_step_cell_backward"));
        prev_b = cur_b;
        prev_row0 = row0;
    }
    return PRNN_STATUS_SUCCESS;
}

/* A direction's steps, replayed from a graph where they repeat. */
static prnnStatus_t forward_dir(const prnn_layer_run *lr, int d)
{
    prnn_step_kernels *sk = lr->c->pass->state;
    const dir_loop dl = {lr, d};
    return prnn_loop_run(&sk->graphs, lr->c, forward_steps, &dl);
}

static prnnStatus_t backward_dir(const prnn_layer_run *lr, int d)
{
    prnn_step_kernels *sk = lr->c->pass->state;
    const dir_loop dl = {lr, d};
    return prnn_loop_run(&sk->graphs, lr->c, backward_steps, &dl);
}

static prnnStatus_t forward_layer(const prnn_layer_run *lr)
{
    for (int d = 0; d < lr->c->dirs; d++)
        PRNN_TRY(forward_dir(lr, d));
    return PRNN_STATUS_SUCCESS;
}

static prnnStatus_t backward_layer(const prnn_layer_run *lr)
{
    for (int d = 0; d < lr->c->dirs; d++)
        PRNN_TRY(backward_dir(lr, d));
    return PRNN_STATUS_SUCCESS;
}

static void describe(const prnn_pass_plan *pp, const prnn_rnn_key *key, prnn_engine_info *info)
{
    (void)pp;
    memset(info, 0, sizeof(*info));
    info->path = PRNN_PATH_STANDARD;
    /* the per-step product on tensor cores: 16-bit data, or TF32 */
    info->tensor_cores = key->dtype == PRNN_DATA_HALF || key->dtype == PRNN_DATA_BFLOAT16 ||
                         prnn_rnn_key_tf32_recurrence(key);
}

const prnn_engine prnn_standard_engine = {
    .name = "standard",
    .tf32_recurrence = 1,
    .unpacked_in_place = 1, /* without a projection (seq_io.c) */
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
    .forward_layer = forward_layer,
    .backward_layer = backward_layer,
    .describe = describe,
    .release = release,
};
