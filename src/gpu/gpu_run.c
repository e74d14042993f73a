#include "gpu/gpu_run.h"

#include <stdio.h>
#include <string.h>

#include "dtype.h"
#include "error.h"
#include "gpu/gpu_state.h"
#include "prnn_kernel_abi.h"
#include "weights_layout.h"

prnnStatus_t prnn_run_begin(prnn_run_ctx *c, const prnn_gpu_call *g, const prnn_plan *plan,
                            const prnn_rnn_problem *p, prnn_call_kind call, void *ws,
                            size_t ws_bytes)
{
    memset(c, 0, sizeof(*c));
    c->gs = g->gs;
    c->plan = plan;
    c->p = p;
    c->rnn = p->rnn;
    prnn_ws_layout_compute(plan, p, call, &c->l);
    if (ws_bytes < c->l.total)
        return prnn_fail(PRNN_STATUS_BAD_PARAM,
                         "workSpaceSizeInBytes = %zu is too small: %zu needed", ws_bytes,
                         c->l.total);
    c->ws = ws;
    c->stream = (CUstream)g->stream;
    c->es = prnn_dtype_size(p->rnn->dtype);
    c->acc = p->rnn->dtype == PRNN_DATA_DOUBLE ? 8 : 4;
    c->G = prnn_mode_gates(p->rnn->mode);
    c->H = p->rnn->hidden;
    c->gh = (size_t)c->G * (size_t)c->H;
    c->dirs = prnn_rnn_dirs(p->rnn);
    c->state_stride = (size_t)p->mini_batch * c->H * c->es;
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnn_run_enqueue(const prnn_gpu_call *g, const prnn_plan *plan,
                              const prnn_rnn_problem *p, prnn_call_kind call, void *ws,
                              size_t ws_bytes, prnn_run_ctx *c, prnn_reserve_layout *r,
                              prnnStatus_t (*body)(void *arg), void *arg)
{
    const int training = call != PRNN_CALL_INFERENCE;
    if (training && !plan->training_loaded)
        return prnn_fail(PRNN_STATUS_INTERNAL_ERROR, "training kernels not loaded");
    PRNN_TRY(prnn_run_begin(c, g, plan, p, call, ws, ws_bytes));
    memset(r, 0, sizeof(*r));
    if (training)
        prnn_reserve_layout_compute(p, r);
    PRNN_TRY(prnn_gpu_enter(g->gs));
    prnnStatus_t s = body(arg);
    prnn_gpu_leave(g->gs);
    return s;
}

void *prnn_run_ws(const prnn_run_ctx *c, size_t offset)
{
    return offset == (size_t)-1 ? NULL : c->ws + offset;
}

const void *prnn_run_offset(const void *base, size_t bytes)
{
    return base ? (const char *)base + bytes : NULL;
}

void prnn_run_dir_weights(const prnn_run_ctx *c, const void *w, int pseudo, prnn_dir_weights *d)
{
    prnn_pseudo_layer_layout pl;
    prnn_weights_pseudo_layer(c->rnn, c->p->input_size, pseudo, &pl);
    const char *base = w;
    d->W = pl.w_offset == (size_t)-1 ? NULL : base + pl.w_offset * c->es;
    d->R = base + pl.r_offset * c->es;
    d->bW = base + pl.bw_offset * c->es;
    d->bR = base + pl.br_offset * c->es;
    d->w_cols = pl.w_cols;
}

unsigned prnn_run_grid(unsigned long long n, unsigned block)
{
    unsigned long long grid = (n + block - 1) / block;
    if (grid > 4096)
        grid = 4096;
    return grid ? (unsigned)grid : 1;
}

prnnStatus_t prnn_run_launch(const prnn_run_ctx *c, CUfunction fn, unsigned grid_x,
                             unsigned grid_y, unsigned block, void *arg, const char *name)
{
    char what[80];
    snprintf(what, sizeof(what), "cuLaunchKernel(%s)", name);
    void *params[] = {arg};
    return prnn_cu_check(c->gs->cu->cuLaunchKernel(fn, grid_x, grid_y, 1, block, 1, 1, 0,
                                                   c->stream, params, NULL),
                         what);
}

/* The runs (steps of equal batch) travel in the kernel's parameters; a long
 * varying sequence takes several launches. */
prnnStatus_t prnn_run_setup(const prnn_run_ctx *c, int zero_handoff)
{
    prnn_setup_args a;
    memset(&a, 0, sizeof(a));
    a.batch = (int *)prnn_run_ws(c, c->l.batch);
    a.offset = (int *)prnn_run_ws(c, c->l.offset);
    if (zero_handoff && c->l.exchange != (size_t)-1) {
        a.zero = (unsigned *)prnn_run_ws(c, c->l.exchange);
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
        prnnStatus_t s = prnn_run_launch(c, c->plan->fn_setup, grid, 1, 256, &a, "prnn_rnn_setup");
        if (s)
            return s;
        a.zero = NULL; /* only the first launch zeroes */
        a.zero_words = 0;
        if (t >= T)
            break;
    }
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnn_run_fork(const prnn_run_ctx *c, prnn_run_ctx *side)
{
    const struct prnn_gpu_state *g = c->gs;
    if (!g->side)
        return prnn_fail(PRNN_STATUS_INTERNAL_ERROR, "prnn_run_fork: no side stream");
    PRNN_TRY(prnn_cu_check(g->cu->cuEventRecord(g->fork, c->stream), "cuEventRecord"));
    PRNN_TRY(prnn_cu_check(g->cu->cuStreamWaitEvent(g->side, g->fork, 0), "cuStreamWaitEvent"));
    *side = *c;
    side->stream = g->side;
    side->l.gemm_ws = c->l.gemm_ws_side;
    side->l.gemm_ws_side = (size_t)-1;
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnn_run_join(const prnn_run_ctx *c)
{
    const struct prnn_gpu_state *g = c->gs;
    PRNN_TRY(prnn_cu_check(g->cu->cuEventRecord(g->join, g->side), "cuEventRecord"));
    return prnn_cu_check(g->cu->cuStreamWaitEvent(c->stream, g->join, 0), "cuStreamWaitEvent");
}

void prnn_run_gemm_key(const prnn_run_ctx *c, prnn_gemm_key *key)
{
    memset(key, 0, sizeof(*key));
    key->in_type = c->rnn->dtype;
    key->tf32 = c->rnn->math == PRNN_TENSOR_OP_MATH;
}

prnnStatus_t prnn_run_gemm(const prnn_run_ctx *c, const prnn_gemm_key *key, const void *a,
                           const void *b, void *out)
{
    if (c->l.gemm_ws == (size_t)-1)
        return prnn_fail(PRNN_STATUS_INTERNAL_ERROR, "prnn_run_gemm: no GEMM workspace here");
    prnn_gemm_cache *gemm;
    prnnStatus_t s = prnn_gpu_gemm(c->gs, &gemm);
    if (s)
        return s;
    return prnn_gemm_run(gemm, key, a, b, out, prnn_run_ws(c, c->l.gemm_ws), c->stream);
}
