#include "prnn_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_stats.h"
#include "dtype.h"
#include "prnn_run_api.h"
#include "tool_cli.h"

/* The library's name, short: "resident" for "persistent-resident". */
const char *bench_path_name(prnnRNNPath_t p)
{
    if (p == PRNN_PATH_CPU_REFERENCE)
        return "cpu";
    const char *name = prnnGetRNNPathString(p);
    return strncmp(name, "persistent-", 11) == 0 ? name + 11 : name;
}

static const char *config_source_name(prnnConfigSource_t s)
{
    switch (s) {
    case PRNN_CONFIG_NONE: return "none";
    case PRNN_CONFIG_SHIPPED_DB: return "shipped-db";
    case PRNN_CONFIG_USER_DB: return "user-db";
    case PRNN_CONFIG_HEURISTIC: return "heuristic";
    case PRNN_CONFIG_AUTOTUNED: return "autotuned";
    }
    return "?";
}

static const char *cubin_source_name(prnnCubinSource_t s)
{
    switch (s) {
    case PRNN_CUBIN_NONE: return "none";
    case PRNN_CUBIN_MEMORY: return "memory";
    case PRNN_CUBIN_DISK_CACHE: return "disk";
    case PRNN_CUBIN_COMPILED: return "compiled";
    }
    return "?";
}

int bench_prnn_open(bench_prnn **out, const bench_device *d, char *err, size_t n)
{
    *out = NULL;
    bench_prnn *p = calloc(1, sizeof(*p));
    if (!p) {
        snprintf(err, n, "out of host memory");
        return TOOL_EXIT_FAILURE;
    }
    p->d = d;
    prnnStatus_t s = prnnCreate(&p->handle);
    if (s != PRNN_STATUS_SUCCESS) {
        snprintf(err, n, "prnnCreate: %s: %s", prnnGetErrorString(s), prnnGetLastErrorLog());
        free(p);
        return s == PRNN_STATUS_NO_DEVICE ? TOOL_EXIT_NO_GPU : TOOL_EXIT_FAILURE;
    }
    s = prnnSetStream(p->handle, d->stream);
    if (s != PRNN_STATUS_SUCCESS) {
        snprintf(err, n, "prnnSetStream: %s: %s", prnnGetErrorString(s), prnnGetLastErrorLog());
        bench_prnn_close(p);
        return TOOL_EXIT_FAILURE;
    }
    *out = p;
    return 0;
}

void bench_prnn_close(bench_prnn *p)
{
    if (!p)
        return;
    if (p->d->stream)
        p->d->cu->cuStreamSynchronize(p->d->stream);
    prnnDestroy(p->handle);
    free(p);
}

void *prun_workspace(prun *r)
{
    const int n = r->ctx->workspaces > 1 ? r->ctx->workspaces : 1;
    const unsigned long long k = r->work_turn++ % (unsigned long long)n;
    return (char *)bench_ptr(r->work) + k * r->work_stride;
}

int prun_check(prun *r, prnnStatus_t s, const char *what, char *err, size_t n)
{
    if (s == PRNN_STATUS_SUCCESS)
        return 0;
    r->last = s;
    snprintf(err, n, "%s: %s: %s", what, prnnGetErrorString(s), prnnGetLastErrorLog());
    /* One line in the table's note. */
    for (char *c = err; *c; c++)
        if (*c == '\n')
            *c = ' ';
    return -1;
}

prnnStatus_t prun_set3(prnnTensorDescriptor_t t, prnnDataType_t dt, int a, int b, int c)
{
    int dims[3] = {a, b, c};
    int strides[3] = {b * c, c, 1};
    return prnnSetTensorNdDescriptor(t, dt, 3, dims, strides);
}

prnnMathType_t prun_math_type(const prun *r)
{
    return r->ctx->math == BENCH_MATH_TF32 ? PRNN_TF32_RECURRENCE_MATH : PRNN_DEFAULT_MATH;
}

static void prun_free(prun *r)
{
    const bench_device *d = r->p->d;
    d->cu->cuStreamSynchronize(d->stream);
    if (r->exec)
        d->cu->cuGraphExecDestroy(r->exec);
    if (r->graph)
        d->cu->cuGraphDestroy(r->graph);
    prnnDestroyRNNDescriptor(r->rnn);
    prnnDestroyTensorDescriptor(r->x1);
    prnnDestroyTensorDescriptor(r->y1);
    prnnDestroyTensorDescriptor(r->h1);
    prnnDestroyFilterDescriptor(r->wd);
    prnnDestroyFilterDescriptor(r->md);
    if (r->xd)
        prnnDestroyRNNDataDescriptor(r->xd);
    if (r->yd)
        prnnDestroyRNNDataDescriptor(r->yd);
    if (r->c1)
        prnnDestroyTensorDescriptor(r->c1);
    if (r->mt)
        prnnDestroyTensorDescriptor(r->mt);
    if (r->bt)
        prnnDestroyTensorDescriptor(r->bt);
    free(r->xs);
    free(r->ys);
    bench_free(d, &r->w);
    bench_free(d, &r->dw);
    bench_free(d, &r->work);
    bench_free(d, &r->reserve);
}

/* ---- the v5 calls: the packed layout ---- */

static int v5_locate(void *user, CUdeviceptr base, int pseudo_layer, int lin_id, int is_bias,
                     CUdeviceptr *ptr, size_t *count, char *err, size_t n)
{
    prun *r = user;
    void *addr = NULL;
    prnnStatus_t s =
        is_bias ? prnnGetRNNLinLayerBiasParams(r->p->handle, r->rnn, pseudo_layer, r->x1, r->wd,
                                               bench_ptr(base), lin_id, r->md, &addr)
                : prnnGetRNNLinLayerMatrixParams(r->p->handle, r->rnn, pseudo_layer, r->x1, r->wd,
                                                 bench_ptr(base), lin_id, r->md, &addr);
    if (prun_check(r, s,
                   is_bias ? "prnnGetRNNLinLayerBiasParams" : "prnnGetRNNLinLayerMatrixParams", err,
                   n))
        return -1;
    *ptr = (CUdeviceptr)(uintptr_t)addr;
    *count = 0;
    if (!addr)
        return 0;
    prnnDataType_t dt;
    prnnTensorFormat_t fmt;
    int nb = 0, dims[8];
    if (prun_check(r, prnnGetFilterNdDescriptor(r->md, 8, &dt, &fmt, &nb, dims),
                   "prnnGetFilterNdDescriptor", err, n))
        return -1;
    size_t c = 1;
    for (int i = 0; i < nb && i < 8; i++)
        c *= (size_t)dims[i];
    *count = nb > 0 ? c : 0;
    return 0;
}

/* The four calls, each a bench_call_fn on a prun. */
static int v5_forward_inference(void *user, char *err, size_t n)
{
    prun *r = user;
    const bench_io *io = r->ctx->io;
    return prun_check(r,
                      prnnRNNForwardInference(r->p->handle, r->rnn, r->ctx->model->pt.seq, r->xs,
                                              bench_ptr(io->x), r->h1, bench_ptr(io->hx), r->h1,
                                              bench_ptr(io->cx), r->wd, bench_ptr(r->w), r->ys,
                                              bench_ptr(io->y), r->h1, bench_ptr(io->hy), r->h1,
                                              bench_ptr(io->cy), prun_workspace(r), r->work_size),
                      "prnnRNNForwardInference", err, n);
}

static int v5_forward_training(void *user, char *err, size_t n)
{
    prun *r = user;
    const bench_io *io = r->ctx->io;
    return prun_check(r,
                      prnnRNNForwardTraining(r->p->handle, r->rnn, r->ctx->model->pt.seq, r->xs,
                                             bench_ptr(io->x), r->h1, bench_ptr(io->hx), r->h1,
                                             bench_ptr(io->cx), r->wd, bench_ptr(r->w), r->ys,
                                             bench_ptr(io->y), r->h1, bench_ptr(io->hy), r->h1,
                                             bench_ptr(io->cy), prun_workspace(r), r->work_size,
                                             bench_ptr(r->reserve), r->reserve_size),
                      "prnnRNNForwardTraining", err, n);
}

static int v5_backward_data(void *user, char *err, size_t n)
{
    prun *r = user;
    const bench_io *io = r->ctx->io;
    return prun_check(
        r,
        prnnRNNBackwardData(r->p->handle, r->rnn, r->ctx->model->pt.seq, r->ys, bench_ptr(io->y),
                            r->ys, bench_ptr(io->dy), r->h1, bench_ptr(io->dhy), r->h1,
                            bench_ptr(io->dcy), r->wd, bench_ptr(r->w), r->h1, bench_ptr(io->hx),
                            r->h1, bench_ptr(io->cx), r->xs, bench_ptr(io->dx), r->h1,
                            bench_ptr(io->dhx), r->h1, bench_ptr(io->dcx), prun_workspace(r),
                            r->work_size, bench_ptr(r->reserve), r->reserve_size),
        "prnnRNNBackwardData", err, n);
}

static int v5_backward_weights(void *user, char *err, size_t n)
{
    prun *r = user;
    const bench_io *io = r->ctx->io;
    return prun_check(r,
                      prnnRNNBackwardWeights(r->p->handle, r->rnn, r->ctx->model->pt.seq, r->xs,
                                             bench_ptr(io->x), r->h1, bench_ptr(io->hx), r->ys,
                                             bench_ptr(io->y), prun_workspace(r), r->work_size,
                                             r->wd, bench_ptr(r->dw), bench_ptr(r->reserve),
                                             r->reserve_size),
                      "prnnRNNBackwardWeights", err, n);
}

static int v5_describe(prun *r, prnnRNNAlgo_t algo, char *err, size_t n)
{
    const bench_point *pt = &r->ctx->model->pt;
    prnnDataType_t dt = pt->dtype;
    int dirs = pt->bidirectional ? 2 : 1;
    r->xs = calloc((size_t)pt->seq, sizeof(*r->xs));
    r->ys = calloc((size_t)pt->seq, sizeof(*r->ys));
    if (!r->xs || !r->ys) {
        snprintf(err, n, "out of host memory");
        return -1;
    }
    if (prun_check(r, prnnCreateRNNDescriptor(&r->rnn), "prnnCreateRNNDescriptor", err, n) ||
        prun_check(r, prnnCreateTensorDescriptor(&r->x1), "prnnCreateTensorDescriptor", err, n) ||
        prun_check(r, prnnCreateTensorDescriptor(&r->y1), "prnnCreateTensorDescriptor", err, n) ||
        prun_check(r, prnnCreateTensorDescriptor(&r->h1), "prnnCreateTensorDescriptor", err, n) ||
        prun_check(r, prnnCreateFilterDescriptor(&r->wd), "prnnCreateFilterDescriptor", err, n) ||
        prun_check(r, prnnCreateFilterDescriptor(&r->md), "prnnCreateFilterDescriptor", err, n))
        return -1;
    if (prun_check(r,
                   prnnSetRNNDescriptor(
                       r->rnn, pt->hidden, pt->layers, NULL, PRNN_LINEAR_INPUT,
                       pt->bidirectional ? PRNN_BIDIRECTIONAL : PRNN_UNIDIRECTIONAL, pt->mode, dt),
                   "prnnSetRNNDescriptor", err, n) ||
        prun_check(r, prnnSetRNNMatrixMathType(r->rnn, prun_math_type(r)),
                   "prnnSetRNNMatrixMathType", err, n) ||
        prun_check(r, prnnSetRNNAlgorithm(r->rnn, algo), "prnnSetRNNAlgorithm", err, n) ||
        prun_check(r, prun_set3(r->x1, dt, pt->batch, pt->input, 1), "prnnSetTensorNdDescriptor(x)",
                   err, n) ||
        prun_check(r, prun_set3(r->y1, dt, pt->batch, pt->hidden * dirs, 1),
                   "prnnSetTensorNdDescriptor(y)", err, n) ||
        prun_check(r, prun_set3(r->h1, dt, pt->layers * dirs, pt->batch, pt->hidden),
                   "prnnSetTensorNdDescriptor(h)", err, n))
        return -1;
    for (int t = 0; t < pt->seq; t++) {
        r->xs[t] = r->x1;
        r->ys[t] = r->y1;
    }
    return 0;
}

static int v5_sizes(prun *r, char *err, size_t n)
{
    const bench_point *pt = &r->ctx->model->pt;
    prnnHandle_t h = r->p->handle;
    prnnDataType_t dt = pt->dtype;
    if (prun_check(r, prnnGetRNNParamsSize(h, r->rnn, r->x1, &r->w_size, dt),
                   "prnnGetRNNParamsSize", err, n))
        return -1;
    size_t elem = prnn_dtype_size(dt);
    if (r->w_size % elem || r->w_size / elem > 0x7fffffff) {
        snprintf(err, n,
                 "prnnGetRNNParamsSize: %zu bytes is not a whole number of elements below 2^31",
                 r->w_size);
        return -1;
    }
    int wdims[3] = {(int)(r->w_size / elem), 1, 1};
    if (prun_check(r, prnnSetFilterNdDescriptor(r->wd, dt, PRNN_TENSOR_NCHW, 3, wdims),
                   "prnnSetFilterNdDescriptor(w)", err, n) ||
        prun_check(r, prnnGetRNNWorkspaceSize(h, r->rnn, pt->seq, r->xs, &r->work_size),
                   "prnnGetRNNWorkspaceSize", err, n) ||
        (pt->pass == BENCH_TRAINING &&
         prun_check(r, prnnGetRNNTrainingReserveSize(h, r->rnn, pt->seq, r->xs, &r->reserve_size),
                    "prnnGetRNNTrainingReserveSize", err, n)))
        return -1;
    return 0;
}

static const prun_api prun_v5_api = {
    v5_describe,
    v5_sizes,
    v5_locate,
    v5_forward_inference,
    {v5_forward_training, v5_backward_data, v5_backward_weights},
};

/* ---- what both families share ---- */

/* The point's call: one forward inference, or the three calls of a
 * training step. */
static int call_api(prun *r, char *err, size_t n)
{
    if (r->ctx->model->pt.pass == BENCH_INFERENCE)
        return r->api->forward_inference(r, err, n);
    return bench_run_step(r->api->phases, r, err, n);
}

static int call_step(void *user, char *err, size_t n)
{
    prun *r = user;
    if (r->use_graph) {
        const bench_device *d = r->p->d;
        return bench_cu(d, d->cu->cuGraphLaunch(r->exec, d->stream), "cuGraphLaunch", err, n);
    }
    return call_api(r, err, n);
}

/* Describes the plan into *plan; nothing to do for a slot that records
 * none (the "cublasLt-graph" run passes NULL). */
static void fill_plan(prun *r, bench_plan *plan)
{
    if (!plan)
        return;
    const bench_point *pt = &r->ctx->model->pt;
    prnnRNNPlanInfo_t info;
    memset(&info, 0, sizeof(info));
    info.structSize = sizeof(info);
    prnnStatus_t s = prnnGetRNNPlanInfo(r->p->handle, r->rnn, pt->batch, pt->dtype, &info);
    if (s != PRNN_STATUS_SUCCESS) {
        bench_copy(plan->path, sizeof(plan->path), "?");
        if (r->ctx->verbose)
            fprintf(stderr, "prnn-bench:   prnnGetRNNPlanInfo: %s\n", prnnGetLastErrorLog());
        return;
    }
    plan->valid = 1;
    bench_copy(plan->path, sizeof(plan->path), bench_path_name(info.path));
    bench_copy(plan->engine, sizeof(plan->engine), info.engine);
    bench_copy(plan->backward_engine, sizeof(plan->backward_engine), info.backwardEngine);
    /* a sequence this short runs its forward pass on a short slot (plan
     * info's shortSlot*): the point names the slot's engine, configuration
     * and source */
    prnnConfigSource_t source = info.configSource;
    for (int i = 0; i < info.shortSlots && i < 3; i++)
        if (pt->seq <= info.shortSlotMaxSeqLength[i]) {
            const char *e = info.shortSlotEngine[i];
            const char *cfg = info.shortSlotConfig[i][0] ? info.shortSlotConfig[i] : e;
            if (strcmp(e, info.engine) != 0)
                bench_copy(plan->path, sizeof(plan->path), e);
            bench_copy(plan->engine, sizeof(plan->engine), e);
            bench_copy(info.config, sizeof(info.config), cfg);
            source = info.shortSlotConfigSource[i];
            break;
        }
    /* and its backward-data pass on a backward short slot */
    for (int i = 0; i < info.backwardShortSlots && i < 3; i++)
        if (pt->seq <= info.backwardShortSlotMaxSeqLength[i]) {
            bench_copy(plan->backward_engine, sizeof(plan->backward_engine),
                       info.backwardShortSlotEngine[i]);
            break;
        }
    bench_copy(plan->config_source, sizeof(plan->config_source), config_source_name(source));
    bench_copy(plan->cubin_source, sizeof(plan->cubin_source), cubin_source_name(info.cubinSource));
    plan->num_blocks = info.numBlocks;
    plan->threads_per_block = info.threadsPerBlock;
    plan->units_per_block = info.unitsPerBlock;
    plan->tensor_cores = info.tensorCores;
    plan->resident_fraction = info.residentFraction;
    plan->plan_ms = info.planMs;
    plan->compile_ms = info.compileMs;
    bench_copy(plan->config, sizeof(plan->config), info.config);
}

/* ctx->workspaces workspaces of work_size, 256 bytes apart or more. */
static int alloc_workspaces(prun *r, char *err, size_t n)
{
    const size_t count = r->ctx->workspaces > 1 ? (size_t)r->ctx->workspaces : 1;
    r->work_stride = (r->work_size + 255) / 256 * 256;
    r->work_turn = 0;
    if (count > 1 && r->work_stride > ((size_t)4 << 30) / count) {
        snprintf(err, n, "--workspaces %zu: %zu workspaces of %zu bytes exceed 4 GiB", count, count,
                 r->work_size);
        return -1;
    }
    return bench_alloc(r->p->d, &r->work, count > 1 ? count * r->work_stride : r->work_size,
                       "prnn workspace", err, n);
}

/* Descriptors, plan, weights, workspace and reserve: everything before the
 * first call. */
static int setup(prun *r, prnnRNNAlgo_t algo, bench_plan *plan, double *plan_ms, char *err,
                 size_t n)
{
    const bench_device *d = r->p->d;
    const bench_point *pt = &r->ctx->model->pt;
    int train = pt->pass == BENCH_TRAINING;
    if (r->api->describe(r, algo, err, n) ||
        (pt->mode == PRNN_SRU && r->ctx->sru_package &&
         prun_check(r,
                    prnnSetRNNSRUConvention(r->rnn, PRNN_SRU_CONVENTION_SRU_PACKAGE,
                                            PRNN_SRU_ACTIVATION_IDENTITY, 1.0),
                    "prnnSetRNNSRUConvention", err, n)))
        return -1;
    /* Plan first, through the call made for it: the size queries below may
     * plan too (the workspace depends on the plan), and the plan time must
     * be measured where it is spent. */
    double t0 = bench_now_ms();
    if (prun_check(r, prnnPrepareRNN(r->p->handle, r->rnn, pt->batch, pt->dtype), "prnnPrepareRNN",
                   err, n))
        return -1;
    fill_plan(r, plan);
    *plan_ms = bench_now_ms() - t0;
    if (r->api->sizes(r, err, n))
        return -1;
    if (bench_alloc(d, &r->w, r->w_size, "prnn weights", err, n) ||
        (train && bench_alloc(d, &r->dw, r->w_size, "prnn dw", err, n)) ||
        alloc_workspaces(r, err, n) ||
        (train && bench_alloc(d, &r->reserve, r->reserve_size, "prnn reserve", err, n)) ||
        bench_memset(d, r->w, 0, r->w_size, err, n) ||
        bench_model_upload(d, r->ctx->model, r->api->locate, r, r->w, err, n))
        return -1;
    return 0;
}

/* The checked first call (or launch): poisoned outputs, zeroed dw. */
static int checked_call(prun *r, double *ms, bench_sig *sig, char *err, size_t n)
{
    const bench_device *d = r->p->d;
    const bench_run_ctx *ctx = r->ctx;
    int train = ctx->model->pt.pass == BENCH_TRAINING;
    return bench_io_poison_outputs(d, ctx->io, err, n) ||
           bench_memset(d, r->dw, 0, r->dw ? r->w_size : 0, err, n) ||
           bench_time_first_call(d, call_step, r, ms, err, n) ||
           bench_sig_capture(d, sig, ctx->io, ctx->model, train ? r->api->locate : NULL, r, r->dw,
                             err, n);
}

static void set_failure(bench_impl_result *res, const prun *r, const char *err)
{
    if (!res)
        return;
    res->state = r->last == PRNN_STATUS_NOT_SUPPORTED ? BENCH_NA : BENCH_FAILED;
    bench_copy(res->note, sizeof(res->note), err);
}

/* Captures one call into r->graph / r->exec. */
static int capture(prun *r, char *err, size_t n)
{
    const bench_device *d = r->p->d;
    const prnn_cuda_driver *cu = d->cu;
    if (bench_sync(d, err, n) ||
        bench_cu(d, cu->cuStreamBeginCapture(d->stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
                 "cuStreamBeginCapture", err, n))
        return -1;
    char call_err[BENCH_ERR] = "";
    int call_rc = call_api(r, call_err, sizeof(call_err));
    CUresult end = cu->cuStreamEndCapture(d->stream, &r->graph);
    if (call_rc) {
        snprintf(err, n, "during capture: %s", call_err);
        return -1;
    }
    if (bench_cu(d, end, "cuStreamEndCapture", err, n))
        return -1;
    if (!r->graph) {
        snprintf(err, n, "cuStreamEndCapture returned no graph");
        return -1;
    }
    if (bench_cu(d, cu->cuGraphInstantiate(&r->exec, r->graph, 0), "cuGraphInstantiate", err, n)) {
        r->exec = NULL;
        return -1;
    }
    r->use_graph = 1;
    return 0;
}

/* The plain call: checked first call, whole-call timing, and for a
 * training point each phase alone. -1 (res and err set) on failure. */
static int run_plain(prun *r, double prepare_ms, bench_impl_result *res, bench_sig *sig, char *err,
                     size_t n)
{
    const bench_run_ctx *ctx = r->ctx;
    const bench_point *pt = &ctx->model->pt;
    double first = 0;
    bench_stats us;
    if (checked_call(r, &first, sig, err, n) ||
        bench_time_calls(r->p->d, ctx->timer, ctx->warmup, ctx->repeats, call_step, r, ctx->samples,
                         err, n))
        goto fail;
    /* Before the phases reuse the samples. */
    bench_stats_compute(ctx->samples, ctx->repeats, bench_us_per_step_scale(pt), &us);
    if (pt->pass == BENCH_TRAINING && bench_run_phases(ctx, r->api->phases, r, res->phase, err, n))
        goto fail;
    res->state = BENCH_OK;
    res->us = us;
    res->setup_ms = prepare_ms;
    res->first_call_ms = first;
    return 0;
fail:
    bench_sig_free(sig);
    set_failure(res, r, err);
    return -1;
}

/* Training points: ForwardInference on the step's descriptors and buffers
 * (its workspace size is the same query), timed like an inference point
 * but not compared (the step's outputs are). */
static void run_fwd_inference(prun *r, bench_impl_result *res)
{
    const bench_run_ctx *ctx = r->ctx;
    char err[BENCH_ERR] = "";
    double first = 0;
    r->last = PRNN_STATUS_SUCCESS;
    if (bench_time_first_call(r->p->d, r->api->forward_inference, r, &first, err, sizeof(err)) ||
        bench_time_calls(r->p->d, ctx->timer, ctx->warmup, ctx->repeats, r->api->forward_inference,
                         r, ctx->samples, err, sizeof(err))) {
        set_failure(res, r, err);
        return;
    }
    res->state = BENCH_OK;
    res->first_call_ms = first;
    bench_stats_compute(ctx->samples, ctx->repeats, bench_us_per_step_scale(&ctx->model->pt),
                        &res->us);
}

void bench_prnn_run(bench_prnn *p, const bench_run_ctx *ctx, prnnRNNAlgo_t algo, bench_plan *plan,
                    bench_impl_result *plain, bench_sig *sig_plain, bench_impl_result *graph,
                    bench_sig *sig_graph, bench_impl_result *fwd_inference)
{
    const bench_device *d = p->d;
    const bench_point *pt = &ctx->model->pt;
    double scale = bench_us_per_step_scale(pt);
    char err[BENCH_ERR] = "";
    if (sig_plain)
        memset(sig_plain, 0, sizeof(*sig_plain));
    if (sig_graph)
        memset(sig_graph, 0, sizeof(*sig_graph));

    prun r;
    memset(&r, 0, sizeof(r));
    r.p = p;
    r.ctx = ctx;
    /* v5 descriptors have no projection: a projected point takes the v8
     * calls in any layout */
    r.api = pt->layout == BENCH_LAYOUT_PACKED && !pt->proj ? &prun_v5_api : &prun_v8_api;
    r.last = PRNN_STATUS_SUCCESS;
    double prepare_ms = 0;
    if (setup(&r, algo, plan, &prepare_ms, err, sizeof(err))) {
        set_failure(plain, &r, err);
        set_failure(graph, &r, err);
        set_failure(fwd_inference, &r, err);
        prun_free(&r);
        return;
    }
    if (plan)
        plan->prepare_wall_ms = prepare_ms;

    if (plain && run_plain(&r, prepare_ms, plain, sig_plain, err, sizeof(err))) {
        /* The graph would fail the same way. */
        set_failure(graph, &r, err);
        graph = NULL;
    } else if (!plain && graph) {
        /* One plain call first, so that anything done lazily on the first
         * call happens outside the capture. */
        if (bench_sync(d, err, sizeof(err)) || call_api(&r, err, sizeof(err)) ||
            bench_sync(d, err, sizeof(err))) {
            set_failure(graph, &r, err);
            graph = NULL;
        }
    }
    /* Timed whether or not the step ran: a forward figure beside a step
     * that prnn cannot run yet still says what the step will be held to. */
    if (fwd_inference && pt->pass == BENCH_TRAINING)
        run_fwd_inference(&r, fwd_inference);

    if (graph) {
        r.last = PRNN_STATUS_SUCCESS;
        double t1 = bench_now_ms();
        int rc = capture(&r, err, sizeof(err));
        double capture_ms = bench_now_ms() - t1;
        double first = 0;
        if (!rc)
            rc = checked_call(&r, &first, sig_graph, err, sizeof(err)) ||
                 bench_time_calls(d, ctx->timer, ctx->warmup, ctx->repeats, call_step, &r,
                                  ctx->samples, err, sizeof(err));
        if (rc) {
            if (sig_graph)
                bench_sig_free(sig_graph);
            /* A capture that failed is a finding about prnn, not a refusal:
             * the API promises capturable calls after planning. */
            if (r.last != PRNN_STATUS_NOT_SUPPORTED)
                r.last = PRNN_STATUS_EXECUTION_FAILED;
            set_failure(graph, &r, err);
        } else {
            graph->state = BENCH_OK;
            graph->setup_ms = prepare_ms + capture_ms;
            graph->first_call_ms = first;
            bench_stats_compute(ctx->samples, ctx->repeats, scale, &graph->us);
        }
    }
    prun_free(&r);
}
