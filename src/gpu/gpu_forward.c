#include "gpu/gpu_forward.h"

#include <string.h>

#include "error.h"
#include "gpu/gpu_run.h"
#include "gpu/gpu_state.h"
#include "gpu/reserve_layout.h"
#include "gpu/train_ops.h"
#include "prnn_kernel_abi.h"

typedef struct {
    prnn_run_ctx c;
    const prnn_forward_buffers *b;
    int training;
    prnn_reserve_layout r;
} fwd_ctx;

static void *xproj_of(const fwd_ctx *f, int d)
{
    const prnn_run_ctx *c = &f->c;
    return c->ws + c->l.xproj + (size_t)d * c->p->total_rows * c->gh * c->acc;
}

/* xproj[dir] = input W[dir]^T for every row of the sequence. */
static prnnStatus_t project_inputs(const fwd_ctx *f, int layer, const void *input, int k)
{
    const prnn_run_ctx *c = &f->c;
    for (int d = 0; d < c->dirs; d++) {
        prnn_dir_weights w;
        prnn_run_dir_weights(c, f->b->w, layer * c->dirs + d, &w);
        prnn_gemm_key key;
        prnn_run_gemm_key(c, &key);
        key.m = (int)c->p->total_rows;
        key.n = (int)c->gh;
        key.k = k;
        key.trans_b = 1;
        key.lda = k;
        key.ldb = k;
        key.ldc = (int)c->gh;
        PRNN_TRY(prnn_run_gemm(c, &key, input, w.W, xproj_of(f, d)));
    }
    return PRNN_STATUS_SUCCESS;
}

static prnnStatus_t run_persistent_layer(const fwd_ctx *f, int layer, int skip, const void *input,
                                         void *output)
{
    const prnn_run_ctx *c = &f->c;
    const prnn_tile_kernels *k = f->training ? &c->plan->fwd_train : &c->plan->fwd;
    const prnn_kernel_geometry *g = &k->geom;
    prnn_rnn_args a;
    memset(&a, 0, sizeof(a));
    for (int d = 0; d < c->dirs; d++) {
        prnn_dir_args *da = &a.dir[d];
        int pseudo = layer * c->dirs + d;
        prnn_dir_weights w;
        prnn_run_dir_weights(c, f->b->w, pseudo, &w);
        da->R = w.R;
        da->bW = w.bW;
        da->bR = w.bR;
        da->xin = skip ? input : xproj_of(f, d);
        size_t so = (size_t)pseudo * c->state_stride;
        da->hx = prnn_run_offset(f->b->hx, so);
        da->cx = prnn_run_offset(f->b->cx, so);
        da->hy = (void *)prnn_run_offset(f->b->hy, so);
        da->cy = (void *)prnn_run_offset(f->b->cy, so);
        da->exchange = c->ws + c->l.exchange + (size_t)d * g->exchange_bytes_per_dir;
        da->counter = (unsigned *)(c->ws + c->l.counters) + (size_t)d * g->tile.batch_groups;
        da->packed = g->kglb ? c->ws + c->l.packed + (size_t)d * g->packed_bytes_per_dir : NULL;
        da->act = f->training ? prnn_reserve_act(&f->r, f->b->reserve, pseudo) : NULL;
    }
    a.y = output;
    a.batch = (const int *)prnn_run_ws(c, c->l.batch);
    a.offset = (const int *)prnn_run_ws(c, c->l.offset);
    a.seq_length = c->p->seq_length;
    a.y_cols = c->dirs * c->H;
    a.tag_base = (unsigned)layer * (unsigned)c->p->seq_length;
    void *params[] = {&a};
    CUfunction fn = skip ? k->fn_skip : k->fn;
    const unsigned grid = (unsigned)(g->tile.blocks * g->tile.batch_groups * c->dirs);
    return prnn_cu_check(c->gs->cu->cuLaunchCooperativeKernel(fn, grid, 1, 1,
                                                              (unsigned)g->tile.threads, 1, 1,
                                                              (unsigned)g->smem_bytes, c->stream,
                                                              params),
                         "cuLaunchCooperativeKernel(prnn_rnn_persistent)");
}

/* One direction of one layer on the standard path: a GEMM and a pointwise
 * kernel per step. */
static prnnStatus_t run_standard_dir(const fwd_ctx *f, int layer, int d, int skip,
                                     const void *input, void *output)
{
    const prnn_run_ctx *c = &f->c;
    const prnn_step_kernels *sk = &c->plan->step;
    const int H = c->H, T = c->p->seq_length, B = c->p->mini_batch;
    int pseudo = layer * c->dirs + d;
    prnn_dir_weights w;
    prnn_run_dir_weights(c, f->b->w, pseudo, &w);
    size_t so = (size_t)pseudo * c->state_stride;

    prnn_step_init_args ia;
    memset(&ia, 0, sizeof(ia));
    ia.hx = prnn_run_offset(f->b->hx, so);
    ia.cx = prnn_run_offset(f->b->cx, so);
    ia.hstate = prnn_run_ws(c, c->l.hstate);
    ia.cstate = c->rnn->mode == PRNN_LSTM ? prnn_run_ws(c, c->l.cstate) : NULL;
    ia.count = B * H;
    PRNN_TRY(prnn_run_launch(c, sk->init, (unsigned)((B * H + 255) / 256), 1, 256, &ia,
                          "prnn_step_init"));

    prnn_step_args a;
    memset(&a, 0, sizeof(a));
    a.rec = prnn_run_ws(c, c->l.rec);
    a.xin = skip ? input : xproj_of(f, d);
    a.bW = w.bW;
    a.bR = w.bR;
    a.hstate = ia.hstate;
    a.cstate = ia.cstate;
    a.y = output;
    a.hy = (void *)prnn_run_offset(f->b->hy, so);
    a.cy = (void *)prnn_run_offset(f->b->cy, so);
    a.y_cols = c->dirs * H;
    a.y_offset = d * H;
    a.reverse = d;
    a.act = f->training ? prnn_reserve_act(&f->r, f->b->reserve, pseudo) : NULL;
    CUfunction fn = skip ? sk->cell_skip : sk->cell;
    /* First row of each step, walked in processing order. */
    long long row = d ? (long long)c->p->total_rows : 0;
    for (int s = 0; s < T; s++) {
        int t = d ? T - 1 - s : s;
        if (d) {
            row -= c->p->batch[t];
            a.row0 = row;
        } else {
            a.row0 = row;
            row += c->p->batch[t];
        }
        a.batch = c->p->batch[t];
        a.next_batch = s + 1 < T ? c->p->batch[d ? t - 1 : t + 1] : 0;
        a.final_step = s == T - 1;
        /* rec = h_{t-1} R^T for the step's rows: the recurrence, strict */
        prnn_gemm_key key;
        prnn_run_gemm_key(c, &key);
        key.tf32 = 0;
        key.m = a.batch;
        key.n = (int)c->gh;
        key.k = H;
        key.trans_b = 1;
        key.lda = H;
        key.ldb = H;
        key.ldc = (int)c->gh;
        PRNN_TRY(prnn_run_gemm(c, &key, a.hstate, w.R, (void *)a.rec));
        PRNN_TRY(prnn_run_launch(c, fn, (unsigned)((a.batch * H + 255) / 256), 1, 256, &a,
                              "prnn_step_cell"));
    }
    return PRNN_STATUS_SUCCESS;
}

/* prnn_run_enqueue's body: f is the call's fwd_ctx. */
static prnnStatus_t forward_layers(void *arg)
{
    const fwd_ctx *f = arg;
    const prnn_run_ctx *c = &f->c;
    const struct prnnRNNStruct *rnn = c->rnn;
    const int L = rnn->layers;
    const int persistent = c->plan->path != PRNN_PATH_STANDARD;
    PRNN_TRY(prnn_run_setup(c, persistent));
    const void *input = f->b->x;
    for (int layer = 0; layer < L; layer++) {
        int skip = layer == 0 && rnn->input_mode == PRNN_SKIP_INPUT;
        int k = layer == 0 ? c->p->input_size : c->dirs * c->H;
        /* The projection reads the previous layer's output before this
         * layer's kernel overwrites the same buffer (inference: stream
         * order; training keeps every layer's output in the reserve). */
        if (!skip)
            PRNN_TRY(project_inputs(f, layer, input, k));
        void *output = layer == L - 1 ? f->b->y
                       : f->training  ? prnn_reserve_out(&f->r, f->b->reserve, layer)
                                      : prnn_run_ws(c, c->l.layer_out);
        if (persistent) {
            PRNN_TRY(run_persistent_layer(f, layer, skip, input, output));
        } else {
            for (int d = 0; d < c->dirs; d++)
                PRNN_TRY(run_standard_dir(f, layer, d, skip, input, output));
        }
        PRNN_TRY(prnn_train_next_input(c, layer, f->training, output, &input));
    }
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnn_gpu_forward_run(const prnn_gpu_call *g, const prnn_plan *plan,
                                  const prnn_rnn_problem *p, int training,
                                  const prnn_forward_buffers *b)
{
    fwd_ctx f;
    memset(&f, 0, sizeof(f));
    f.b = b;
    f.training = training;
    return prnn_run_enqueue(g, plan, p,
                            training ? PRNN_CALL_FORWARD_TRAINING : PRNN_CALL_INFERENCE,
                            b->workspace, b->workspace_bytes, &f.c, &f.r, forward_layers, &f);
}
