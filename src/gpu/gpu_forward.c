/*
 * The GPU backend's entry points: sizes, planning, plan info, and the
 * forward pass. A forward call only enqueues work on the handle's stream:
 * one setup kernel, then per layer the input-projection GEMM(s) and one
 * cooperative launch of the persistent kernel (or, on the standard path, a
 * GEMM and a pointwise kernel per step). No allocation, synchronisation,
 * compilation or file I/O once the plan exists.
 */
#include <stdio.h>
#include <string.h>

#include "dtype.h"
#include "error.h"
#include "gpu/gpu_backend.h"
#include "gpu/gpu_state.h"
#include "gpu/plan.h"
#include "gpu/workspace_layout.h"
#include "prnn_kernel_abi.h"
#include "weights_layout.h"

#define CHECK(expr)                                                            \
    do {                                                                       \
        prnnStatus_t check_status_ = (expr);                                   \
        if (check_status_ != PRNN_STATUS_SUCCESS)                              \
            return check_status_;                                              \
    } while (0)

static prnnStatus_t training_not_supported(void)
{
    return prnn_fail(PRNN_STATUS_NOT_SUPPORTED,
                     "the GPU training path (ForwardTraining, BackwardData, "
                     "BackwardWeights) is not implemented yet; the CPU reference "
                     "backend (prnnCreateWithBackend(..., PRNN_BACKEND_CPU_REFERENCE)) "
                     "runs it");
}

prnnStatus_t prnn_gpu_workspace_bytes(const prnn_gpu_call *h, const prnn_rnn_problem *p,
                                      size_t *bytes)
{
    prnn_plan *plan;
    CHECK(prnn_plan_get(h, p->rnn, p->mini_batch, &plan));
    prnn_ws_layout l;
    prnn_ws_layout_compute(plan, p, &l);
    *bytes = l.total;
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnn_gpu_reserve_bytes(const prnn_gpu_call *h, const prnn_rnn_problem *p,
                                    size_t *bytes)
{
    (void)h;
    (void)p;
    *bytes = 0;
    return training_not_supported();
}

prnnStatus_t prnn_gpu_backward_data(const prnn_gpu_call *h, const prnn_rnn_problem *p,
                                    const prnn_backward_data_buffers *b)
{
    (void)h;
    (void)p;
    (void)b;
    return training_not_supported();
}

prnnStatus_t prnn_gpu_backward_weights(const prnn_gpu_call *h, const prnn_rnn_problem *p,
                                       const prnn_backward_weights_buffers *b)
{
    (void)h;
    (void)p;
    (void)b;
    return training_not_supported();
}

prnnStatus_t prnn_gpu_backend_create(struct prnn_gpu_state **out)
{
    return prnn_gpu_state_create(out);
}

void prnn_gpu_backend_destroy(struct prnn_gpu_state *gs)
{
    prnn_gpu_state_destroy(gs);
}

prnnStatus_t prnn_gpu_prepare(const prnn_gpu_call *h, const struct prnnRNNStruct *rnn,
                              int mini_batch)
{
    prnn_plan *plan;
    return prnn_plan_get(h, rnn, mini_batch, &plan);
}

prnnStatus_t prnn_gpu_plan_info(const prnn_gpu_call *h, const struct prnnRNNStruct *rnn,
                                int mini_batch, prnnRNNPlanInfo_t *info)
{
    prnn_plan *plan;
    CHECK(prnn_plan_get(h, rnn, mini_batch, &plan));
    prnnRNNPlanInfo_t full;
    memset(&full, 0, sizeof(full));
    full.structSize = info->structSize;
    full.path = plan->path;
    full.configSource = plan->config_source;
    full.cubinSource = plan->cubin_source;
    if (plan->path != PRNN_PATH_STANDARD) {
        full.numBlocks = plan->geom.tile.blocks * plan->geom.tile.batch_groups;
        full.threadsPerBlock = plan->geom.tile.threads;
        full.unitsPerBlock = plan->geom.units_per_block;
        full.tensorCores = plan->geom.tile.mma;
        full.residentFraction = plan->geom.resident_fraction;
    }
    full.compileMs = plan->compile_ms;
    full.planMs = plan->plan_ms;
    snprintf(full.config, sizeof(full.config), "%s", plan->config);
    snprintf(full.device, sizeof(full.device), "%s", h->gs->description);
    size_t n = info->structSize < sizeof(full) ? info->structSize : sizeof(full);
    memcpy(info, &full, n);
    return PRNN_STATUS_SUCCESS;
}

/* ---- the forward pass ---- */

typedef struct {
    const prnn_gpu_call *h;
    const prnn_rnn_problem *p;
    const prnn_forward_buffers *b;
    const prnn_plan *plan;
    prnn_ws_layout l;
    char *ws;
    CUstream stream;
    size_t es, acc, gh, state_stride; /* bytes; state_stride: one pseudo-layer */
    int dirs;
} fwd_ctx;

static void *ws_at(const fwd_ctx *c, size_t off) { return off == (size_t)-1 ? NULL : c->ws + off; }

static const void *offset_ptr(const void *base, size_t bytes)
{
    return base ? (const char *)base + bytes : NULL;
}

/* Per-step batch sizes and first rows, and a zeroed hand-off area. The runs
 * (steps of equal batch) travel in the kernel's parameters. */
static prnnStatus_t launch_setup(const fwd_ctx *c)
{
    const prnn_cuda_driver *cu = c->h->gs->cu;
    prnn_setup_args a;
    memset(&a, 0, sizeof(a));
    a.batch = (int *)ws_at(c, c->l.batch);
    a.offset = (int *)ws_at(c, c->l.offset);
    if (c->l.exchange != (size_t)-1) {
        a.zero = (unsigned *)ws_at(c, c->l.exchange);
        a.zero_words = (c->l.zero_end - c->l.exchange + 3) / 4;
    }
    const int T = c->p->seq_length;
    long long row = 0;
    int t = 0;
    while (t < T || a.zero) {
        a.t_begin = t;
        a.row_base = row;
        a.num_runs = 0;
        while (t < T && a.num_runs < PRNN_SETUP_MAX_RUNS) {
            int b = c->p->batch[t], t0 = t;
            while (t < T && c->p->batch[t] == b)
                t++;
            a.t_end[a.num_runs] = t;
            a.run_batch[a.num_runs] = b;
            a.num_runs++;
            row += (long long)(t - t0) * b;
        }
        unsigned long long work = (unsigned long long)T;
        if (a.zero_words > work)
            work = a.zero_words;
        unsigned grid = (unsigned)((work + 255) / 256);
        if (grid > 1024)
            grid = 1024;
        if (grid < 1)
            grid = 1;
        void *params[] = {&a};
        CHECK(prnn_cu_check(cu->cuLaunchKernel(c->plan->fn_setup, grid, 1, 1, 256, 1, 1, 0,
                                               c->stream, params, NULL),
                            "cuLaunchKernel(prnn_rnn_setup)"));
        a.zero = NULL; /* only the first launch zeroes */
        a.zero_words = 0;
        if (t >= T)
            break;
    }
    return PRNN_STATUS_SUCCESS;
}

/* xproj[dir] = input * W[dir]^T for every row of the sequence. */
static prnnStatus_t project_inputs(const fwd_ctx *c, int layer, const void *input, int k)
{
    prnn_gemm_cache *gemm;
    CHECK(prnn_gpu_gemm(c->h->gs, &gemm));
    const struct prnnRNNStruct *rnn = c->p->rnn;
    for (int d = 0; d < c->dirs; d++) {
        prnn_pseudo_layer_layout pl;
        prnn_weights_pseudo_layer(rnn, c->p->input_size, layer * c->dirs + d, &pl);
        prnn_gemm_key key;
        memset(&key, 0, sizeof(key));
        key.m = (int)c->gh;
        key.n = (int)c->p->total_rows;
        key.k = k;
        key.in_type = rnn->dtype;
        key.tf32 = rnn->math == PRNN_TENSOR_OP_MATH;
        void *out = c->ws + c->l.xproj + (size_t)d * c->p->total_rows * c->gh * c->acc;
        CHECK(prnn_gemm_run(gemm, &key, (const char *)c->b->w + pl.w_offset * c->es, input,
                            out, ws_at(c, c->l.gemm_ws), c->stream));
    }
    return PRNN_STATUS_SUCCESS;
}

static void dir_weights(const fwd_ctx *c, int pseudo, const void **R, const void **bw,
                        const void **br)
{
    prnn_pseudo_layer_layout pl;
    prnn_weights_pseudo_layer(c->p->rnn, c->p->input_size, pseudo, &pl);
    *R = (const char *)c->b->w + pl.r_offset * c->es;
    *bw = (const char *)c->b->w + pl.bw_offset * c->es;
    *br = (const char *)c->b->w + pl.br_offset * c->es;
}

static prnnStatus_t run_persistent_layer(const fwd_ctx *c, int layer, int skip,
                                         const void *input, void *output)
{
    const prnn_cuda_driver *cu = c->h->gs->cu;
    const prnn_kernel_geometry *g = &c->plan->geom;
    prnn_rnn_args a;
    memset(&a, 0, sizeof(a));
    for (int d = 0; d < c->dirs; d++) {
        prnn_dir_args *da = &a.dir[d];
        int pseudo = layer * c->dirs + d;
        dir_weights(c, pseudo, &da->R, &da->bW, &da->bR);
        da->xin = skip ? input
                       : (const void *)(c->ws + c->l.xproj +
                                        (size_t)d * c->p->total_rows * c->gh * c->acc);
        size_t so = (size_t)pseudo * c->state_stride;
        da->hx = offset_ptr(c->b->hx, so);
        da->cx = offset_ptr(c->b->cx, so);
        da->hy = (void *)offset_ptr(c->b->hy, so);
        da->cy = (void *)offset_ptr(c->b->cy, so);
        da->exchange = c->ws + c->l.exchange + (size_t)d * g->exchange_bytes_per_dir;
        da->counter = (unsigned *)(c->ws + c->l.counters) + (size_t)d * g->tile.batch_groups;
        da->packed = g->kglb ? c->ws + c->l.packed + (size_t)d * g->packed_bytes_per_dir : NULL;
    }
    a.y = output;
    a.batch = (const int *)ws_at(c, c->l.batch);
    a.offset = (const int *)ws_at(c, c->l.offset);
    a.seq_length = c->p->seq_length;
    a.y_cols = c->dirs * c->p->rnn->hidden;
    a.tag_base = (unsigned)layer * (unsigned)c->p->seq_length;
    void *params[] = {&a};
    CUfunction fn = skip ? c->plan->fn_rnn_skip : c->plan->fn_rnn;
    const unsigned grid = (unsigned)(g->tile.blocks * g->tile.batch_groups * c->dirs);
    return prnn_cu_check(cu->cuLaunchCooperativeKernel(fn, grid, 1, 1, (unsigned)g->tile.threads,
                                                       1, 1, (unsigned)g->smem_bytes, c->stream,
                                                       params),
                         "cuLaunchCooperativeKernel(prnn_rnn_persistent)");
}

/* One direction of one layer on the standard path: a GEMM and a pointwise
 * kernel per step. */
static prnnStatus_t run_standard_dir(const fwd_ctx *c, int layer, int d, int skip,
                                     const void *input, void *output)
{
    const prnn_cuda_driver *cu = c->h->gs->cu;
    const struct prnnRNNStruct *rnn = c->p->rnn;
    const int H = rnn->hidden, T = c->p->seq_length, B = c->p->mini_batch;
    prnn_gemm_cache *gemm;
    CHECK(prnn_gpu_gemm(c->h->gs, &gemm));
    int pseudo = layer * c->dirs + d;
    const void *R, *bw, *br;
    dir_weights(c, pseudo, &R, &bw, &br);
    size_t so = (size_t)pseudo * c->state_stride;

    prnn_step_init_args ia;
    memset(&ia, 0, sizeof(ia));
    ia.hx = offset_ptr(c->b->hx, so);
    ia.cx = offset_ptr(c->b->cx, so);
    ia.hstate = ws_at(c, c->l.hstate);
    ia.cstate = rnn->mode == PRNN_LSTM ? ws_at(c, c->l.cstate) : NULL;
    ia.count = B * H;
    void *iparams[] = {&ia};
    CHECK(prnn_cu_check(cu->cuLaunchKernel(c->plan->fn_step_init, (unsigned)((B * H + 255) / 256),
                                           1, 1, 256, 1, 1, 0, c->stream, iparams, NULL),
                        "cuLaunchKernel(prnn_step_init)"));

    prnn_step_args a;
    memset(&a, 0, sizeof(a));
    a.rec = ws_at(c, c->l.rec);
    a.xin = skip ? input
                 : (const void *)(c->ws + c->l.xproj +
                                  (size_t)d * c->p->total_rows * c->gh * c->acc);
    a.bW = bw;
    a.bR = br;
    a.hstate = ia.hstate;
    a.cstate = ia.cstate;
    a.y = output;
    a.hy = (void *)offset_ptr(c->b->hy, so);
    a.cy = (void *)offset_ptr(c->b->cy, so);
    a.y_cols = c->dirs * H;
    a.y_offset = d * H;
    a.reverse = d;
    CUfunction fn = skip ? c->plan->fn_step_skip : c->plan->fn_step;
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
        prnn_gemm_key key;
        memset(&key, 0, sizeof(key));
        key.m = (int)c->gh;
        key.n = a.batch;
        key.k = H;
        key.in_type = rnn->dtype;
        CHECK(prnn_gemm_run(gemm, &key, R, a.hstate, (void *)a.rec, ws_at(c, c->l.gemm_ws),
                            c->stream));
        void *params[] = {&a};
        CHECK(prnn_cu_check(cu->cuLaunchKernel(fn, (unsigned)((a.batch * H + 255) / 256), 1, 1,
                                               256, 1, 1, 0, c->stream, params, NULL),
                            "cuLaunchKernel(prnn_step_cell)"));
    }
    return PRNN_STATUS_SUCCESS;
}

static prnnStatus_t forward_layers(fwd_ctx *c)
{
    const struct prnnRNNStruct *rnn = c->p->rnn;
    const int L = rnn->layers;
    const int persistent = c->plan->path != PRNN_PATH_STANDARD;
    if (persistent)
        CHECK(launch_setup(c));
    for (int layer = 0; layer < L; layer++) {
        int skip = layer == 0 && rnn->input_mode == PRNN_SKIP_INPUT;
        const void *input = layer == 0 ? c->b->x : ws_at(c, c->l.layer_out);
        int k = layer == 0 ? c->p->input_size : c->dirs * rnn->hidden;
        /* The projection reads the previous layer's output before this
         * layer's kernel overwrites the same buffer (stream order). */
        if (!skip)
            CHECK(project_inputs(c, layer, input, k));
        void *output = layer == L - 1 ? c->b->y : ws_at(c, c->l.layer_out);
        if (persistent) {
            CHECK(run_persistent_layer(c, layer, skip, input, output));
        } else {
            for (int d = 0; d < c->dirs; d++)
                CHECK(run_standard_dir(c, layer, d, skip, input, output));
        }
    }
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnn_gpu_forward(const prnn_gpu_call *h, const prnn_rnn_problem *p, int training,
                              const prnn_forward_buffers *b)
{
    if (training)
        return training_not_supported();
    prnn_plan *plan;
    CHECK(prnn_plan_get(h, p->rnn, p->mini_batch, &plan));
    return prnn_gpu_forward_plan(h, plan, p, b);
}

prnnStatus_t prnn_gpu_forward_plan(const prnn_gpu_call *h, const prnn_plan *plan,
                                   const prnn_rnn_problem *p, const prnn_forward_buffers *b)
{
    fwd_ctx c;
    memset(&c, 0, sizeof(c));
    c.h = h;
    c.p = p;
    c.b = b;
    c.plan = plan;
    prnn_ws_layout_compute(plan, p, &c.l);
    if (b->workspace_bytes < c.l.total)
        return prnn_fail(PRNN_STATUS_BAD_PARAM,
                         "workSpaceSizeInBytes = %zu is too small: %zu needed",
                         b->workspace_bytes, c.l.total);
    c.ws = b->workspace;
    c.stream = (CUstream)h->stream;
    c.es = prnn_dtype_size(p->rnn->dtype);
    c.acc = p->rnn->dtype == PRNN_DATA_DOUBLE ? 8 : 4;
    c.gh = (size_t)prnn_mode_gates(p->rnn->mode) * (size_t)p->rnn->hidden;
    c.dirs = prnn_rnn_dirs(p->rnn);
    c.state_stride = (size_t)p->mini_batch * p->rnn->hidden * c.es;
    CHECK(prnn_gpu_enter(h->gs));
    prnnStatus_t s = forward_layers(&c);
    prnn_gpu_leave(h->gs);
    return s;
}
