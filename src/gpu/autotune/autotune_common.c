#include "gpu/autotune/autotune_common.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dtype.h"
#include "error.h"
#include "gpu/run/gpu_state.h"
#include "jit/cubin_batch.h"
#include "prnn.h"
#include "weights_layout.h"

/* ---- parallel compilation into the disk cache ---- */

prnnStatus_t prnn_autotune_precompile(const prnn_engine_query *q,
                                      const prnn_autotune_candidate *chosen, int count)
{
    const int per = PRNN_ENGINE_MAX_REQUESTS;
    prnn_kernel_request *kr = malloc(sizeof(*kr) * (size_t)count * per);
    prnn_compile_request *reqs = malloc(sizeof(*reqs) * (size_t)count * per);
    if (!kr || !reqs) {
        free(kr);
        free(reqs);
        return prnn_fail(PRNN_STATUS_ALLOC_FAILED, "out of host memory");
    }
    int n = 0;
    const int training = q->pass == PRNN_PASS_BACKWARD_DATA;
    for (int i = 0; i < count; i++) {
        int k = chosen[i].engine->requests(q, &chosen[i].config, training, &kr[n]);
        for (int j = 0; j < k; j++, n++)
            reqs[n] = kr[n].req;
    }
    /* A failure here shows again, with its log, when the candidate is
     * loaded; this only fills the cache. */
    prnn_cubin_batch_get(NULL, reqs, n, 0, NULL);
    free(reqs);
    free(kr);
    return PRNN_STATUS_SUCCESS;
}

/* ---- test data ---- */

static double rnd(unsigned long long *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return (double)(*state >> 11) * (1.0 / 9007199254740992.0) * 2.0 - 1.0;
}

static void fill(void *buf, prnnDataType_t t, size_t n, double scale, unsigned long long *state)
{
    for (size_t i = 0; i < n; i++)
        prnn_store_from_double(buf, t, i, scale * rnd(state));
}

void prnn_autotune_free_buffers(const prnn_cuda_driver *cu, prnn_autotune_buffers *d)
{
    CUdeviceptr *all[] = {&d->x, &d->hx, &d->cx, &d->w, &d->y, &d->dy, &d->dx, &d->ws, &d->reserve};
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
        if (*all[i])
            cu->cuMemFree(*all[i]);
        *all[i] = 0;
    }
}

prnnStatus_t prnn_autotune_alloc(const prnn_cuda_driver *cu, CUdeviceptr *p, size_t bytes)
{
    return prnn_cu_check(cu->cuMemAlloc(p, bytes ? bytes : 256), "cuMemAlloc");
}

static void make_problem(const struct prnnRNNStruct *rnn, int steps, int mini_batch, int *batch,
                         prnn_rnn_problem *p)
{
    for (int t = 0; t < steps; t++)
        batch[t] = mini_batch;
    p->rnn = rnn;
    p->input_size = rnn->hidden;
    p->seq_length = steps;
    p->batch = batch;
    p->mini_batch = mini_batch;
    p->total_rows = (size_t)steps * (size_t)mini_batch;
}

prnnStatus_t prnn_autotune_inputs_make(const struct prnnRNNStruct *rnn, int mini_batch,
                                       int seq_length, prnn_autotune_inputs *in)
{
    memset(in, 0, sizeof(*in));
    in->timed_batch = malloc(sizeof(int) * (size_t)seq_length);
    if (!in->timed_batch)
        return prnn_fail(PRNN_STATUS_ALLOC_FAILED, "out of host memory");
    make_problem(rnn, PRNN_AUTOTUNE_CHECK_STEPS, mini_batch, in->check_batch, &in->check);
    make_problem(rnn, seq_length, mini_batch, in->timed_batch, &in->timed);
    const size_t es = prnn_dtype_size(rnn->dtype);
    const int dirs = prnn_rnn_dirs(rnn);
    in->wbytes = prnn_weights_bytes(rnn, rnn->hidden);
    /* x, y and dy hold the longer of the two problems (a one-step timed
     * call is shorter than the check) */
    const size_t rows = in->timed.total_rows > in->check.total_rows ? in->timed.total_rows
                                                                    : in->check.total_rows;
    in->xcount = rows * (size_t)rnn->hidden;
    in->ycount = in->xcount * dirs;
    in->scount = (size_t)rnn->layers * dirs * mini_batch * rnn->hidden;
    in->w = malloc(in->wbytes);
    in->x = malloc(in->xcount * es);
    in->hx = malloc(in->scount * es);
    in->cx = malloc(in->scount * es);
    in->dy = malloc(in->ycount * es);
    if (!in->w || !in->x || !in->hx || !in->cx || !in->dy)
        return prnn_fail(PRNN_STATUS_ALLOC_FAILED, "out of host memory");
    unsigned long long seed = 0x9e3779b97f4a7c15ull ^ (unsigned long long)rnn->hidden;
    fill(in->w, rnn->dtype, in->wbytes / es, 1.0 / sqrt((double)rnn->hidden), &seed);
    fill(in->x, rnn->dtype, in->xcount, 1.0, &seed);
    fill(in->hx, rnn->dtype, in->scount, 0.5, &seed);
    fill(in->cx, rnn->dtype, in->scount, 0.5, &seed);
    fill(in->dy, rnn->dtype, in->ycount, 1.0, &seed);
    return PRNN_STATUS_SUCCESS;
}

void prnn_autotune_inputs_free(prnn_autotune_inputs *in)
{
    void *all[] = {in->timed_batch, in->w, in->x, in->hx, in->cx, in->dy};
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
        free(all[i]);
    memset(in, 0, sizeof(*in));
}

prnnStatus_t prnn_autotune_inputs_upload(const prnn_cuda_driver *cu, const prnn_autotune_inputs *in,
                                         prnnDataType_t t, prnn_autotune_buffers *d)
{
    const size_t es = prnn_dtype_size(t);
    PRNN_TRY(prnn_autotune_alloc(cu, &d->x, in->xcount * es));
    PRNN_TRY(prnn_autotune_alloc(cu, &d->hx, in->scount * es));
    PRNN_TRY(prnn_autotune_alloc(cu, &d->cx, in->scount * es));
    PRNN_TRY(prnn_autotune_alloc(cu, &d->w, in->wbytes));
    PRNN_TRY(prnn_autotune_alloc(cu, &d->y, in->ycount * es));
    PRNN_TRY(prnn_autotune_alloc(cu, &d->dy, in->ycount * es));
    PRNN_TRY(prnn_autotune_alloc(cu, &d->dx, in->xcount * es));
    PRNN_TRY(prnn_cu_check(cu->cuMemcpyHtoD(d->x, in->x, in->xcount * es), "cuMemcpyHtoD"));
    PRNN_TRY(prnn_cu_check(cu->cuMemcpyHtoD(d->hx, in->hx, in->scount * es), "cuMemcpyHtoD"));
    PRNN_TRY(prnn_cu_check(cu->cuMemcpyHtoD(d->cx, in->cx, in->scount * es), "cuMemcpyHtoD"));
    PRNN_TRY(prnn_cu_check(cu->cuMemcpyHtoD(d->w, in->w, in->wbytes), "cuMemcpyHtoD"));
    PRNN_TRY(prnn_cu_check(cu->cuMemcpyHtoD(d->dy, in->dy, in->ycount * es), "cuMemcpyHtoD"));
    /* A pageable upload may still be in flight when cuMemcpyHtoD returns,
     * and the handle's stream may not wait for the legacy stream. */
    return prnn_cu_check(cu->cuCtxSynchronize(), "cuCtxSynchronize");
}

double prnn_autotune_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int prnn_autotune_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

prnnStatus_t prnn_autotune_ensure(const prnn_cuda_driver *cu, CUdeviceptr *p, size_t *have,
                                  size_t bytes)
{
    if (bytes <= *have)
        return PRNN_STATUS_SUCCESS;
    if (*p)
        cu->cuMemFree(*p);
    *p = 0;
    *have = 0;
    PRNN_TRY(prnn_autotune_alloc(cu, p, bytes));
    *have = bytes;
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnn_autotune_time(const prnn_gpu_call *h, prnn_autotune_run_fn run, const void *ctx,
                                int seq_length, int repeats, int warmups, double *us_per_step)
{
    const prnn_cuda_driver *cu = h->gs->cu;
    CUstream stream = (CUstream)h->stream;
    CUevent e0 = NULL, e1 = NULL;
    double times[64];
    int n = repeats > 64 ? 64 : repeats < 1 ? 1 : repeats;
    prnnStatus_t s = prnn_cu_check(cu->cuEventCreate(&e0, CU_EVENT_DEFAULT), "cuEventCreate");
    if (!s)
        s = prnn_cu_check(cu->cuEventCreate(&e1, CU_EVENT_DEFAULT), "cuEventCreate");
    for (int i = -warmups; i < n && !s; i++) {
        s = prnn_cu_check(cu->cuEventRecord(e0, stream), "cuEventRecord");
        if (!s)
            s = run(ctx);
        if (!s)
            s = prnn_cu_check(cu->cuEventRecord(e1, stream), "cuEventRecord");
        if (!s)
            s = prnn_cu_check(cu->cuEventSynchronize(e1), "cuEventSynchronize");
        float ms = 0;
        if (!s)
            s = prnn_cu_check(cu->cuEventElapsedTime(&ms, e0, e1), "cuEventElapsedTime");
        if (!s && i >= 0)
            times[i] = ms * 1000.0 / seq_length;
    }
    if (e0)
        cu->cuEventDestroy(e0);
    if (e1)
        cu->cuEventDestroy(e1);
    if (s)
        return s;
    qsort(times, (size_t)n, sizeof(double), prnn_autotune_cmp_double);
    *us_per_step = times[n / 2];
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnn_autotune_alternate(prnn_autotune_time_fn time, void *ctx, double us[2])
{
    enum { ROUNDS = 3 };
    double t[2][ROUNDS];
    for (int r = 0; r < ROUNDS; r++)
        for (int k = 0; k < 2; k++)
            PRNN_TRY(time(ctx, k, &t[k][r]));
    for (int k = 0; k < 2; k++) {
        qsort(t[k], ROUNDS, sizeof(double), prnn_autotune_cmp_double);
        us[k] = t[k][ROUNDS / 2];
    }
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnn_autotune_finish(const prnn_autotune_options *opts, int i, int m, prnnStatus_t cs,
                                  int rejected, const char *config_text, prnn_autotune_outcome *o,
                                  const prnn_autotune_outcome *best, int *now_best,
                                  double *heuristic_us)
{
    *now_best = 0;
    if (cs == PRNN_STATUS_SUCCESS) {
        o->ok = 1;
        *now_best = !best || o->us_per_step < best->us_per_step;
    } else if (!o->note[0]) {
        snprintf(o->note, sizeof(o->note), "failed: %.150s", prnn_log_get());
    }
    if (i == 0)
        *heuristic_us = o->ok ? o->us_per_step : 0;
    if (opts->progress) {
        char line[512];
        if (o->ok)
            snprintf(line, sizeof(line), "%8.3f us/step  err %.1e  %s", o->us_per_step,
                     o->rel_error, config_text);
        else
            snprintf(line, sizeof(line), "   --- %s  %s", o->note, config_text);
        opts->progress(opts->progress_ctx, i + 1, m, line);
    }
    return cs == PRNN_STATUS_EXECUTION_FAILED && !rejected ? cs : PRNN_STATUS_SUCCESS;
}

int prnn_autotune_settle(const double us[2], prnn_autotune_outcome *heuristic,
                         prnn_autotune_outcome *winner)
{
    heuristic->us_per_step = us[0];
    winner->us_per_step = us[1];
    return us[1] < us[0];
}

prnnStatus_t prnn_autotune_store(const char *output_db, prnn_tuning_entry *e, int seq_length,
                                 double heuristic_us)
{
    if (output_db && !output_db[0])
        return PRNN_STATUS_SUCCESS;
    time_t now = time(NULL);
    struct tm tmv;
    gmtime_r(&now, &tmv);
    char date[32];
    strftime(date, sizeof(date), "%Y-%m-%d", &tmv);
    snprintf(e->source, sizeof(e->source), "prnn-autotune %d.%d.%d %s, T=%d, heuristic %.3f us",
             PRNN_VERSION_MAJOR, PRNN_VERSION_MINOR, PRNN_VERSION_PATCH, date, seq_length,
             heuristic_us);
    return prnn_tuning_db_store(output_db, e);
}
