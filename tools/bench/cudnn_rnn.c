#include "cudnn_rnn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_stats.h"
#include "cudnn_lib.h"
#include "cudnn_math.h"

struct bench_cudnn {
    const bench_cudnn_lib *lib;
    const bench_device *d;
    cudnnHandle_t handle;
    cudnnDropoutDescriptor_t dropout;
    CUdeviceptr dropout_states;
};

/* ---- session ---- */

int bench_cudnn_open(bench_cudnn **out, const bench_device *d, char *version, size_t version_size,
                     char *err, size_t n)
{
    *out = NULL;
    const bench_cudnn_lib *lib;
    if (bench_cudnn_load(&lib, err, n))
        return -1;
    snprintf(version, version_size, "%zu.%zu.%zu (%s)", lib->version / 10000,
             (lib->version % 10000) / 100, lib->version % 100, lib->path);
    bench_cudnn *c = calloc(1, sizeof(*c));
    if (!c) {
        snprintf(err, n, "out of host memory");
        return -1;
    }
    c->lib = lib;
    c->d = d;
    cudnnStatus_t s = lib->cudnnCreate(&c->handle);
    if (s != CUDNN_STATUS_SUCCESS) {
        c->handle = NULL;
        bench_cudnn_error(lib, s, "cudnnCreate", err, n);
        goto fail;
    }
    s = lib->cudnnSetStream(c->handle, (cudaStream_t)d->stream);
    if (s != CUDNN_STATUS_SUCCESS) {
        bench_cudnn_error(lib, s, "cudnnSetStream", err, n);
        goto fail;
    }
    s = lib->cudnnCreateDropoutDescriptor(&c->dropout);
    if (s != CUDNN_STATUS_SUCCESS) {
        c->dropout = NULL;
        bench_cudnn_error(lib, s, "cudnnCreateDropoutDescriptor", err, n);
        goto fail;
    }
    size_t states = 0;
    s = lib->cudnnDropoutGetStatesSize(c->handle, &states);
    if (s != CUDNN_STATUS_SUCCESS) {
        bench_cudnn_error(lib, s, "cudnnDropoutGetStatesSize", err, n);
        goto fail;
    }
    if (bench_alloc(d, &c->dropout_states, states, "cuDNN dropout states", err, n))
        goto fail;
    s = lib->cudnnSetDropoutDescriptor(c->dropout, c->handle, 0.0f, bench_ptr(c->dropout_states),
                                       states, 1234ull);
    if (s != CUDNN_STATUS_SUCCESS) {
        bench_cudnn_error(lib, s, "cudnnSetDropoutDescriptor", err, n);
        goto fail;
    }
    if (bench_sync(d, err, n))
        goto fail;
    *out = c;
    return 0;
fail:
    bench_cudnn_close(c);
    return -1;
}

void bench_cudnn_close(bench_cudnn *c)
{
    if (!c)
        return;
    const bench_cudnn_lib *lib = c->lib;
    if (c->d->stream)
        c->d->cu->cuStreamSynchronize(c->d->stream);
    if (c->dropout)
        lib->cudnnDestroyDropoutDescriptor(c->dropout);
    bench_free(c->d, &c->dropout_states);
    if (c->handle)
        lib->cudnnDestroy(c->handle);
    free(c);
}

/* ---- one algorithm ---- */

static const char *const algo_names[] = {"CUDNN_RNN_ALGO_STANDARD", "CUDNN_RNN_ALGO_PERSIST_STATIC",
                                         "CUDNN_RNN_ALGO_PERSIST_DYNAMIC",
                                         "CUDNN_RNN_ALGO_PERSIST_STATIC_SMALL_H"};

static cudnnRNNMode_t cudnn_mode(prnnRNNMode_t m)
{
    switch (m) {
    case PRNN_RNN_RELU: return CUDNN_RNN_RELU;
    case PRNN_LSTM: return CUDNN_LSTM;
    case PRNN_GRU: return CUDNN_GRU;
    default: return CUDNN_RNN_TANH;
    }
}

/* The point's layout as cuDNN names it (bench_types.h). */
static cudnnRNNDataLayout_t cudnn_layout(bench_layout l)
{
    switch (l) {
    case BENCH_LAYOUT_SEQ_PADDED: return CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED;
    case BENCH_LAYOUT_BATCH_PADDED: return CUDNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED;
    default: return CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED;
    }
}

/* Everything one attempt (one algorithm, one math choice) owns. */
typedef struct {
    bench_cudnn *c;
    const bench_run_ctx *ctx;
    cudnnRNNDescriptor_t rnn;
    cudnnRNNDataDescriptor_t xd, yd;
    /* hd: hx/hy (projSize wide); cd: cx/cy (hiddenSize wide) */
    cudnnTensorDescriptor_t hd, cd, md, bd;
    size_t w_size, work_size, reserve_size;
    CUdeviceptr w, dw, work, reserve, seqlens;
    /* Status of the last cuDNN call that failed (SUCCESS when the failure
     * was something else), so that a refusal can be told from an error. */
    cudnnStatus_t last;
} attempt;

/* Checks a cuDNN status inside an attempt: on failure records it, writes
 * the message and returns -1. */
static int ck(attempt *a, cudnnStatus_t s, const char *what, char *err, size_t n)
{
    if (s == CUDNN_STATUS_SUCCESS)
        return 0;
    a->last = s;
    bench_cudnn_error(a->c->lib, s, what, err, n);
    return -1;
}

static void attempt_free(attempt *a)
{
    const bench_cudnn_lib *lib = a->c->lib;
    const bench_device *d = a->c->d;
    d->cu->cuStreamSynchronize(d->stream);
    if (a->rnn)
        lib->cudnnDestroyRNNDescriptor(a->rnn);
    if (a->xd)
        lib->cudnnDestroyRNNDataDescriptor(a->xd);
    if (a->yd)
        lib->cudnnDestroyRNNDataDescriptor(a->yd);
    if (a->hd)
        lib->cudnnDestroyTensorDescriptor(a->hd);
    if (a->cd)
        lib->cudnnDestroyTensorDescriptor(a->cd);
    if (a->md)
        lib->cudnnDestroyTensorDescriptor(a->md);
    if (a->bd)
        lib->cudnnDestroyTensorDescriptor(a->bd);
    bench_free(d, &a->w);
    bench_free(d, &a->dw);
    bench_free(d, &a->work);
    bench_free(d, &a->reserve);
    bench_free(d, &a->seqlens);
}

static int locate(void *user, CUdeviceptr base, int pseudo_layer, int lin_id, int is_bias,
                  CUdeviceptr *ptr, size_t *count, char *err, size_t n)
{
    attempt *a = user;
    const bench_cudnn_lib *lib = a->c->lib;
    void *m_addr = NULL, *b_addr = NULL;
    if (ck(a,
           lib->cudnnGetRNNWeightParams(a->c->handle, a->rnn, pseudo_layer, a->w_size,
                                        bench_ptr(base), lin_id, a->md, &m_addr, a->bd, &b_addr),
           "cudnnGetRNNWeightParams", err, n))
        return -1;
    void *addr = is_bias ? b_addr : m_addr;
    *ptr = (CUdeviceptr)(uintptr_t)addr;
    *count = 0;
    if (!addr)
        return 0;
    cudnnDataType_t dt;
    int nb = 0, dims[8], strides[8];
    if (ck(a, lib->cudnnGetTensorNdDescriptor(is_bias ? a->bd : a->md, 8, &dt, &nb, dims, strides),
           "cudnnGetTensorNdDescriptor", err, n))
        return -1;
    size_t c = 1;
    for (int i = 0; i < nb && i < 8; i++)
        c *= (size_t)dims[i];
    *count = nb > 0 ? c : 0;
    return 0;
}

static int call_forward(attempt *a, cudnnForwardMode_t mode, char *err, size_t n)
{
    const bench_io *io = a->ctx->io;
    return ck(a,
              a->c->lib->cudnnRNNForward(
                  a->c->handle, a->rnn, mode, (const int32_t *)bench_ptr(a->seqlens), a->xd,
                  bench_ptr(io->x), a->yd, bench_ptr(io->y), a->hd, bench_ptr(io->hx),
                  bench_ptr(io->hy), a->cd, bench_ptr(io->cx), bench_ptr(io->cy), a->w_size,
                  bench_ptr(a->w), a->work_size, bench_ptr(a->work),
                  mode == CUDNN_FWD_MODE_TRAINING ? a->reserve_size : 0,
                  mode == CUDNN_FWD_MODE_TRAINING ? bench_ptr(a->reserve) : NULL),
              "cudnnRNNForward", err, n);
}

/* The calls of a training step, each a bench_call_fn on an attempt. */
static int call_forward_training(void *user, char *err, size_t n)
{
    return call_forward(user, CUDNN_FWD_MODE_TRAINING, err, n);
}

static int call_backward_data(void *user, char *err, size_t n)
{
    attempt *a = user;
    const bench_io *io = a->ctx->io;
    return ck(a,
              a->c->lib->cudnnRNNBackwardData_v8(
                  a->c->handle, a->rnn, (const int32_t *)bench_ptr(a->seqlens), a->yd,
                  bench_ptr(io->y), bench_ptr(io->dy), a->xd, bench_ptr(io->dx), a->hd,
                  bench_ptr(io->hx), bench_ptr(io->dhy), bench_ptr(io->dhx), a->cd,
                  bench_ptr(io->cx), bench_ptr(io->dcy), bench_ptr(io->dcx), a->w_size,
                  bench_ptr(a->w), a->work_size, bench_ptr(a->work), a->reserve_size,
                  bench_ptr(a->reserve)),
              "cudnnRNNBackwardData_v8", err, n);
}

static int call_backward_weights(void *user, char *err, size_t n)
{
    attempt *a = user;
    const bench_io *io = a->ctx->io;
    return ck(a,
              a->c->lib->cudnnRNNBackwardWeights_v8(
                  a->c->handle, a->rnn, CUDNN_WGRAD_MODE_ADD,
                  (const int32_t *)bench_ptr(a->seqlens), a->xd, bench_ptr(io->x), a->hd,
                  bench_ptr(io->hx), a->yd, bench_ptr(io->y), a->w_size, bench_ptr(a->dw),
                  a->work_size, bench_ptr(a->work), a->reserve_size, bench_ptr(a->reserve)),
              "cudnnRNNBackwardWeights_v8", err, n);
}

static const bench_call_fn training_phases[BENCH_NUM_PHASES] = {
    call_forward_training, call_backward_data, call_backward_weights};

static int call_step(void *user, char *err, size_t n)
{
    attempt *a = user;
    if (a->ctx->model->pt.pass == BENCH_INFERENCE)
        return call_forward(a, CUDNN_FWD_MODE_INFERENCE, err, n);
    return bench_run_step(training_phases, a, err, n);
}

/* Descriptors, buffers and weights: everything before the first call. */
static int setup(attempt *a, int algo, const bench_cudnn_math *mc, double *setup_ms, char *err,
                 size_t n)
{
    const bench_cudnn_lib *lib = a->c->lib;
    const bench_device *d = a->c->d;
    const bench_point *pt = &a->ctx->model->pt;
    const bench_seqs *q = &a->ctx->io->seqs;
    cudnnDataType_t dt = bench_cudnn_dtype(pt->dtype);
    int dirs = pt->bidirectional ? 2 : 1;
    int proj = bench_out_size(pt);
    int train = pt->pass == BENCH_TRAINING;
    int padded = q->layout != BENCH_LAYOUT_PACKED;
    /* The padding fill of y (read as one value of the data type): 0, whose
     * bytes are zeros in every type. cuDNN reads it in the padded layouts
     * only, which require padded I/O. */
    double fill = 0;

    if (ck(a, lib->cudnnCreateRNNDescriptor(&a->rnn), "cudnnCreateRNNDescriptor", err, n) ||
        ck(a, lib->cudnnCreateRNNDataDescriptor(&a->xd), "cudnnCreateRNNDataDescriptor", err, n) ||
        ck(a, lib->cudnnCreateRNNDataDescriptor(&a->yd), "cudnnCreateRNNDataDescriptor", err, n) ||
        ck(a, lib->cudnnCreateTensorDescriptor(&a->hd), "cudnnCreateTensorDescriptor", err, n) ||
        ck(a, lib->cudnnCreateTensorDescriptor(&a->cd), "cudnnCreateTensorDescriptor", err, n) ||
        ck(a, lib->cudnnCreateTensorDescriptor(&a->md), "cudnnCreateTensorDescriptor", err, n) ||
        ck(a, lib->cudnnCreateTensorDescriptor(&a->bd), "cudnnCreateTensorDescriptor", err, n))
        return -1;

    double t0 = bench_now_ms();
    if (ck(a,
           lib->cudnnSetRNNDescriptor_v8(
               a->rnn, (cudnnRNNAlgo_t)algo, cudnn_mode(pt->mode), CUDNN_RNN_DOUBLE_BIAS,
               pt->bidirectional ? CUDNN_BIDIRECTIONAL : CUDNN_UNIDIRECTIONAL, CUDNN_LINEAR_INPUT,
               dt, mc->math_prec, mc->math_type, pt->input, pt->hidden, proj, pt->layers,
               a->c->dropout, padded ? CUDNN_RNN_PADDED_IO_ENABLED : CUDNN_RNN_PADDED_IO_DISABLED),
           "cudnnSetRNNDescriptor_v8", err, n))
        return -1;
    if (algo == CUDNN_RNN_ALGO_PERSIST_DYNAMIC &&
        ck(a, lib->cudnnBuildRNNDynamic(a->c->handle, a->rnn, pt->batch), "cudnnBuildRNNDynamic",
           err, n))
        return -1;

    int hdims[3] = {pt->layers * dirs, pt->batch, proj};
    int hstrides[3] = {pt->batch * proj, proj, 1};
    int cdims[3] = {pt->layers * dirs, pt->batch, pt->hidden};
    int cstrides[3] = {pt->batch * pt->hidden, pt->hidden, 1};
    int rc = ck(a,
                lib->cudnnSetRNNDataDescriptor(a->xd, dt, cudnn_layout(q->layout), q->T, q->B,
                                               pt->input, q->len, padded ? &fill : NULL),
                "cudnnSetRNNDataDescriptor(x)", err, n) ||
             ck(a,
                lib->cudnnSetRNNDataDescriptor(a->yd, dt, cudnn_layout(q->layout), q->T, q->B,
                                               proj * dirs, q->len, padded ? &fill : NULL),
                "cudnnSetRNNDataDescriptor(y)", err, n) ||
             ck(a, lib->cudnnSetTensorNdDescriptor(a->hd, dt, 3, hdims, hstrides),
                "cudnnSetTensorNdDescriptor(h)", err, n) ||
             ck(a, lib->cudnnSetTensorNdDescriptor(a->cd, dt, 3, cdims, cstrides),
                "cudnnSetTensorNdDescriptor(c)", err, n) ||
             ck(a, lib->cudnnGetRNNWeightSpaceSize(a->c->handle, a->rnn, &a->w_size),
                "cudnnGetRNNWeightSpaceSize", err, n) ||
             ck(a,
                lib->cudnnGetRNNTempSpaceSizes(a->c->handle, a->rnn,
                                               train ? CUDNN_FWD_MODE_TRAINING
                                                     : CUDNN_FWD_MODE_INFERENCE,
                                               a->xd, &a->work_size, &a->reserve_size),
                "cudnnGetRNNTempSpaceSizes", err, n);
    *setup_ms = bench_now_ms() - t0;
    if (rc)
        return -1;

    rc = bench_alloc(d, &a->w, a->w_size, "cuDNN weights", err, n) ||
         (train && bench_alloc(d, &a->dw, a->w_size, "cuDNN dw", err, n)) ||
         bench_alloc(d, &a->work, a->work_size, "cuDNN workspace", err, n) ||
         (train && bench_alloc(d, &a->reserve, a->reserve_size, "cuDNN reserve", err, n)) ||
         bench_alloc(d, &a->seqlens, (size_t)pt->batch * sizeof(int32_t), "cuDNN devSeqLengths",
                     err, n) ||
         bench_upload(d, a->seqlens, q->len, (size_t)pt->batch * sizeof(int32_t), err, n);
    if (rc)
        return -1;
    /* Bytes outside the parameters (padding) must not be garbage. */
    if (bench_memset(d, a->w, 0, a->w_size, err, n) ||
        bench_model_upload(d, a->ctx->model, locate, a, a->w, err, n))
        return -1;
    return 0;
}

void bench_cudnn_run(bench_cudnn *c, const bench_run_ctx *ctx, int algo, bench_impl_result *r,
                     bench_sig *sig)
{
    memset(sig, 0, sizeof(*sig));
    const bench_device *d = c->d;
    const bench_point *pt = &ctx->model->pt;
    /* cuDNN documents its recurrent projection for CUDNN_RNN_ALGO_STANDARD
     * only: a projected point does not try the persistent algorithms, and
     * shows them refused (with --verbose, why) */
    if (pt->proj && algo != CUDNN_RNN_ALGO_STANDARD) {
        r->state = BENCH_REFUSED;
        snprintf(r->note, sizeof(r->note),
                 "%s: cuDNN runs LSTM projections (projSize %d < hiddenSize %d) with "
                 "CUDNN_RNN_ALGO_STANDARD only",
                 algo_names[algo], pt->proj, pt->hidden);
        return;
    }
    bench_cudnn_math choices[BENCH_CUDNN_MAX_MATH];
    int nchoices = bench_cudnn_math_choices(pt->dtype, ctx->math, choices);
    int train = pt->pass == BENCH_TRAINING;
    char err[BENCH_ERR] = "";

    for (int k = 0; k < nchoices; k++) {
        attempt a;
        memset(&a, 0, sizeof(a));
        a.c = c;
        a.ctx = ctx;
        a.last = CUDNN_STATUS_SUCCESS;
        double setup_ms = 0, first_ms = 0;
        int rc = setup(&a, algo, &choices[k], &setup_ms, err, sizeof(err));
        if (!rc) {
            /* The checked first call: poisoned outputs, zeroed dw. */
            rc = bench_io_poison_outputs(d, ctx->io, err, sizeof(err)) ||
                 bench_memset(d, a.dw, 0, a.dw ? a.w_size : 0, err, sizeof(err)) ||
                 bench_time_first_call(d, call_step, &a, &first_ms, err, sizeof(err)) ||
                 bench_sig_capture(d, sig, ctx->io, ctx->model, train ? locate : NULL, &a, a.dw,
                                   err, sizeof(err));
        }
        bench_stats us, phase[BENCH_NUM_PHASES];
        if (!rc) {
            rc = bench_time_calls(d, ctx->timer, ctx->warmup, ctx->repeats, call_step, &a,
                                  ctx->samples, err, sizeof(err));
            /* Before the phases reuse the samples. */
            if (!rc)
                bench_stats_compute(ctx->samples, ctx->repeats, bench_us_per_step_scale(pt), &us);
            if (!rc && train)
                rc = bench_run_phases(ctx, training_phases, &a, phase, err, sizeof(err));
            if (rc)
                bench_sig_free(sig);
        }
        attempt_free(&a);
        if (!rc) {
            r->state = BENCH_OK;
            r->setup_ms = setup_ms;
            r->first_call_ms = first_ms;
            r->us = us;
            if (train)
                memcpy(r->phase, phase, sizeof(phase));
            r->fallback = k > 0;
            bench_copy(r->note, sizeof(r->note), choices[k].note);
            return;
        }
        if (a.last == CUDNN_STATUS_SUCCESS || !bench_cudnn_is_refusal(a.last)) {
            r->state = BENCH_FAILED;
            bench_copy(r->note, sizeof(r->note), err);
            return;
        }
        /* Refused: try the next math choice, if any. */
        if (ctx->verbose)
            fprintf(stderr, "prnn-bench:   %s refused (math choice %d): %s\n", algo_names[algo],
                    k + 1, err);
    }
    r->state = BENCH_REFUSED;
    bench_copy(r->note, sizeof(r->note), err);
}
