#include "gpu/gpu_backward.h"

#include <string.h>

#include "error.h"
#include "gpu/gpu_run.h"
#include "gpu/gpu_state.h"
#include "gpu/reserve_layout.h"
#include "gpu/train_ops.h"
#include "prnn_kernel_abi.h"

/* The input-side gate blocks of a dg row: (first dg column, first W row,
 * rows) in units of hidden; GRU's n comes from dg column 3 (PRNN_DG_COLS). */
typedef struct {
    int dg_col, w_row, count;
} gate_run;

static int input_side_runs(prnnRNNMode_t mode, int gates, gate_run *runs)
{
    if (mode == PRNN_GRU) {
        runs[0] = (gate_run){0, 0, 2};
        runs[1] = (gate_run){3, 2, 1};
        return 2;
    }
    runs[0] = (gate_run){0, 0, gates};
    return 1;
}

/* ---- backward data ---- */

typedef struct {
    prnn_run_ctx c;
    const prnn_backward_data_buffers *b;
    prnn_reserve_layout r;
    int dg_cols;
} bwd_ctx;

/* The gradient of layer l's output: dy for the top layer, else what the
 * layer above left in the workspace (math type). */
static const void *dout_of(const bwd_ctx *x, int layer, int *storage)
{
    *storage = layer == x->c.rnn->layers - 1;
    return *storage ? x->b->dy : prnn_run_ws(&x->c, x->c.l.dgrad);
}

static const void *hout_of(const bwd_ctx *x, int layer)
{
    return layer == x->c.rnn->layers - 1 ? x->b->y : prnn_reserve_out(&x->r, x->b->reserve, layer);
}

static prnnStatus_t run_persistent_layer(const bwd_ctx *x, int layer, unsigned tag_base)
{
    const prnn_run_ctx *c = &x->c;
    const prnn_kernel_geometry *g = &c->plan->bwd.geom;
    prnn_bwd_args a;
    memset(&a, 0, sizeof(a));
    int dy_storage;
    const void *dy = dout_of(x, layer, &dy_storage);
    for (int d = 0; d < c->dirs; d++) {
        prnn_bwd_dir_args *da = &a.dir[d];
        int pseudo = layer * c->dirs + d;
        prnn_dir_weights w;
        prnn_run_dir_weights(c, x->b->w, pseudo, &w);
        size_t so = (size_t)pseudo * c->state_stride;
        da->R = w.R;
        da->dy = dy;
        da->act = prnn_reserve_act(&x->r, x->b->reserve, pseudo);
        da->hx = prnn_run_offset(x->b->hx, so);
        da->cx = prnn_run_offset(x->b->cx, so);
        da->dhy = prnn_run_offset(x->b->dhy, so);
        da->dcy = prnn_run_offset(x->b->dcy, so);
        da->dhx = (void *)prnn_run_offset(x->b->dhx, so);
        da->dcx = (void *)prnn_run_offset(x->b->dcx, so);
        da->dg = prnn_reserve_dg(&x->r, x->b->reserve, pseudo);
        da->exchange = c->ws + c->l.exchange + (size_t)d * g->exchange_bytes_per_dir;
        da->counter = (unsigned *)(c->ws + c->l.counters) + (size_t)d * g->tile.batch_groups;
        da->packed = g->kglb ? c->ws + c->l.packed + (size_t)d * g->packed_bytes_per_dir : NULL;
    }
    a.hout = hout_of(x, layer);
    a.batch = (const int *)prnn_run_ws(c, c->l.batch);
    a.offset = (const int *)prnn_run_ws(c, c->l.offset);
    a.seq_length = c->p->seq_length;
    a.y_cols = c->dirs * c->H;
    a.dy_cols = c->dirs * c->H;
    a.dy_storage = dy_storage;
    a.tag_base = tag_base;
    void *params[] = {&a};
    const unsigned grid = (unsigned)(g->tile.blocks * g->tile.batch_groups * c->dirs);
    return prnn_cu_check(c->gs->cu->cuLaunchCooperativeKernel(c->plan->bwd.fn, grid, 1, 1,
                                                              (unsigned)g->tile.threads, 1, 1,
                                                              (unsigned)g->smem_bytes, c->stream,
                                                              params),
                         "cuLaunchCooperativeKernel(prnn_rnn_backward)");
}

/* One direction of one layer on the standard path: per step (walking time
 * backwards) a GEMM rec = dg R over the rows the previous step ran, then the
 * cell backward; a final GEMM and pointwise pass leave dhx / dcx. */
static prnnStatus_t run_standard_dir(const bwd_ctx *x, int layer, int d)
{
    const prnn_run_ctx *c = &x->c;
    const int H = c->H, T = c->p->seq_length;
    const int pseudo = layer * c->dirs + d;
    prnn_dir_weights w;
    prnn_run_dir_weights(c, x->b->w, pseudo, &w);
    size_t so = (size_t)pseudo * c->state_stride;
    char *dg = prnn_reserve_dg(&x->r, x->b->reserve, pseudo);
    const long long rec_row = (long long)x->dg_cols * H; /* elements per dg row */

    prnn_step_bwd_args a;
    memset(&a, 0, sizeof(a));
    int dy_storage;
    a.dy = dout_of(x, layer, &dy_storage);
    a.dy_storage = dy_storage;
    a.dy_cols = c->dirs * H;
    a.act = prnn_reserve_act(&x->r, x->b->reserve, pseudo);
    a.hout = hout_of(x, layer);
    a.y_cols = c->dirs * H;
    a.y_offset = d * H;
    a.hx = prnn_run_offset(x->b->hx, so);
    a.cx = prnn_run_offset(x->b->cx, so);
    a.dhy = prnn_run_offset(x->b->dhy, so);
    a.dcy = prnn_run_offset(x->b->dcy, so);
    a.dhx = (void *)prnn_run_offset(x->b->dhx, so);
    a.dcx = (void *)prnn_run_offset(x->b->dcx, so);
    a.dg = dg;
    a.carry = prnn_run_ws(c, c->l.carry);
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
        a.cur_b = cur_b;
        a.prev_b = prev_b;
        a.tp_b = has_tp ? c->p->batch[tp] : 0;
        a.tp_row0 = has_tp ? (d ? row0 + cur_b : row0 - c->p->batch[tp]) : 0;
        a.rec = NULL;
        if (prev_b) {
            /* rec[prev_b][H] = dg_prev[:, recurrent side] R: the recurrence, strict */
            prnn_gemm_key key;
            prnn_run_gemm_key(c, &key);
            key.tf32 = 0;
            key.m = prev_b;
            key.n = H;
            key.k = (int)c->gh;
            key.lda = (int)rec_row;
            key.ldb = H;
            key.ldc = H;
            a.rec = prnn_run_ws(c, c->l.rec);
            PRNN_TRY(prnn_run_gemm(c, &key, dg + (size_t)prev_row0 * rec_row * c->es, w.R,
                                (void *)a.rec));
        }
        const int hi_b = cur_b > prev_b ? cur_b : prev_b;
        PRNN_TRY(prnn_run_launch(c, c->plan->step.cell_backward, (unsigned)((hi_b * H + 255) / 256),
                              1, 256, &a, "prnn_step_cell_backward"));
        prev_b = cur_b;
        prev_row0 = row0;
    }
    return PRNN_STATUS_SUCCESS;
}

/* The gradient of layer l's input: dx (layer 0, storage type) or the
 * workspace's dgrad (math type) for the layer below. */
static prnnStatus_t input_gradient(const bwd_ctx *x, int layer)
{
    const prnn_run_ctx *c = &x->c;
    const int H = c->H;
    const int bottom = layer == 0;
    void *out = bottom ? x->b->dx : prnn_run_ws(c, c->l.dgrad);
    if (bottom && c->rnn->input_mode == PRNN_SKIP_INPUT) {
        const void *dg[2] = {prnn_reserve_dg(&x->r, x->b->reserve, 0),
                             c->dirs > 1 ? prnn_reserve_dg(&x->r, x->b->reserve, 1) : NULL};
        return prnn_train_skip_dx(c, dg, out);
    }
    gate_run runs[2];
    int nruns = input_side_runs(c->rnn->mode, c->G, runs);
    int first = 1;
    for (int d = 0; d < c->dirs; d++) {
        int pseudo = layer * c->dirs + d;
        prnn_dir_weights w;
        prnn_run_dir_weights(c, x->b->w, pseudo, &w);
        const char *dg = prnn_reserve_dg(&x->r, x->b->reserve, pseudo);
        for (int i = 0; i < nruns; i++) {
            /* out[rows][K] (+)= dg[rows][run] W[run][K] */
            prnn_gemm_key key;
            prnn_run_gemm_key(c, &key);
            key.m = (int)c->p->total_rows;
            key.n = w.w_cols;
            key.k = runs[i].count * H;
            key.lda = x->dg_cols * H;
            key.ldb = w.w_cols;
            key.ldc = w.w_cols;
            key.c_storage = bottom;
            key.accumulate = !first;
            first = 0;
            PRNN_TRY(prnn_run_gemm(c, &key, dg + (size_t)runs[i].dg_col * H * c->es,
                                (const char *)w.W + (size_t)runs[i].w_row * H * w.w_cols * c->es,
                                out));
        }
    }
    return PRNN_STATUS_SUCCESS;
}

/* prnn_run_enqueue's body: x is the call's bwd_ctx. */
static prnnStatus_t backward_layers(void *arg)
{
    bwd_ctx *x = arg;
    x->dg_cols = x->r.dg_cols;
    const prnn_run_ctx *c = &x->c;
    const int L = c->rnn->layers;
    const int persistent = c->plan->bwd_path != PRNN_PATH_STANDARD;
    PRNN_TRY(prnn_run_setup(c, persistent));
    for (int layer = L - 1; layer >= 0; layer--) {
        if (persistent) {
            unsigned tag_base = (unsigned)(L - 1 - layer) * (unsigned)c->p->seq_length;
            PRNN_TRY(run_persistent_layer(x, layer, tag_base));
        } else {
            for (int d = 0; d < c->dirs; d++)
                PRNN_TRY(run_standard_dir(x, layer, d));
        }
        PRNN_TRY(input_gradient(x, layer));
        if (layer > 0 && prnn_train_dropout_after(c, layer - 1))
            PRNN_TRY(prnn_train_dropout_backward(c, layer - 1, prnn_run_ws(c, c->l.dgrad)));
    }
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnn_gpu_backward_data_run(const prnn_gpu_call *g, const prnn_plan *plan,
                                        const prnn_rnn_problem *p,
                                        const prnn_backward_data_buffers *b)
{
    bwd_ctx x;
    memset(&x, 0, sizeof(x));
    x.b = b;
    return prnn_run_enqueue(g, plan, p, PRNN_CALL_BACKWARD_DATA, b->workspace,
                            b->workspace_bytes, &x.c, &x.r, backward_layers, &x);
}

/* ---- backward weights ---- */

typedef struct {
    prnn_run_ctx c;
    const prnn_backward_weights_buffers *b;
    prnn_reserve_layout r;
} wgt_ctx;

/* C[m][n] += A^T B over all rows: A = dg columns [rows][m] (lda), B =
 * [rows][n] (ldb), C the storage-type gradient in dw. */
static prnnStatus_t grad_gemm(const wgt_ctx *x, int m, int n, const void *a, int lda,
                              const void *b, int ldb, void *out)
{
    const prnn_run_ctx *c = &x->c;
    prnn_gemm_key key;
    prnn_run_gemm_key(c, &key);
    key.m = m;
    key.n = n;
    key.k = (int)c->p->total_rows;
    key.trans_a = 1;
    key.lda = lda;
    key.ldb = ldb;
    key.ldc = n;
    key.c_storage = 1;
    key.accumulate = 1;
    return prnn_run_gemm(c, &key, a, b, out);
}

static prnnStatus_t weights_dir(const wgt_ctx *x, int layer, int d, const void *input, int kin)
{
    const prnn_run_ctx *c = &x->c;
    const int H = c->H, pseudo = layer * c->dirs + d;
    const int ld = x->r.dg_cols * H;
    const char *dg = prnn_reserve_dg(&x->r, (void *)x->b->reserve, pseudo);
    prnn_dir_weights w;
    prnn_run_dir_weights(c, x->b->dw, pseudo, &w);
    gate_run runs[2];
    int nruns = input_side_runs(c->rnn->mode, c->G, runs);
    if (w.W) {
        for (int i = 0; i < nruns; i++)
            PRNN_TRY(grad_gemm(x, runs[i].count * H, kin, dg + (size_t)runs[i].dg_col * H * c->es,
                            ld, input, kin,
                            (char *)w.W + (size_t)runs[i].w_row * H * kin * c->es));
    }
    /* input-side bias: GRU skips the recurrent n column block */
    int split = nruns == 2 ? runs[1].w_row * H : (int)c->gh;
    PRNN_TRY(prnn_train_bias_grad(c, dg, ld, (int)c->gh, split, H, (void *)w.bW));
    PRNN_TRY(prnn_train_bias_grad(c, dg, ld, (int)c->gh, (int)c->gh, 0, (void *)w.bR));
    /* dR = dg_rec^T h_{t-1}, with h_{t-1} of every row gathered first */
    const int L = c->rnn->layers;
    const void *out = layer == L - 1 ? x->b->y
                                     : prnn_reserve_out(&x->r, (void *)x->b->reserve, layer);
    size_t so = (size_t)pseudo * c->state_stride;
    void *hprev = prnn_run_ws(c, c->l.hprev);
    PRNN_TRY(prnn_train_gather_prev(c, d, out, c->dirs * H, prnn_run_offset(x->b->hx, so), hprev));
    return grad_gemm(x, (int)c->gh, H, dg, ld, hprev, H, (void *)w.R);
}

/* prnn_run_enqueue's body: x is the call's wgt_ctx. */
static prnnStatus_t weights_layers(void *arg)
{
    const wgt_ctx *x = arg;
    const prnn_run_ctx *c = &x->c;
    PRNN_TRY(prnn_run_setup(c, 0));
    for (int layer = 0; layer < c->rnn->layers; layer++) {
        const void *input = x->b->x;
        int kin = c->p->input_size;
        if (layer > 0) {
            kin = c->dirs * c->H;
            PRNN_TRY(prnn_train_next_input(
                c, layer - 1, 1, prnn_reserve_out(&x->r, (void *)x->b->reserve, layer - 1),
                &input));
        }
        for (int d = 0; d < c->dirs; d++)
            PRNN_TRY(weights_dir(x, layer, d, input, kin));
    }
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnn_gpu_backward_weights_run(const prnn_gpu_call *g, const prnn_plan *plan,
                                           const prnn_rnn_problem *p,
                                           const prnn_backward_weights_buffers *b)
{
    wgt_ctx x;
    memset(&x, 0, sizeof(x));
    x.b = b;
    return prnn_run_enqueue(g, plan, p, PRNN_CALL_BACKWARD_WEIGHTS, b->workspace,
                            b->workspace_bytes, &x.c, &x.r, weights_layers, &x);
}
