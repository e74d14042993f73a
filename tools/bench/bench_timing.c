#include "bench_timing.h"

#include <stdio.h>
#include <stdlib.h>

int bench_timer_create(const bench_device *d, bench_timer *t, int repeats, char *err, size_t n)
{
    t->n = 0;
    t->start = calloc((size_t)repeats, sizeof(CUevent));
    t->stop = calloc((size_t)repeats, sizeof(CUevent));
    if (!t->start || !t->stop) {
        free(t->start);
        free(t->stop);
        t->start = t->stop = NULL;
        snprintf(err, n, "out of host memory");
        return -1;
    }
    for (int i = 0; i < repeats; i++) {
        if (bench_cu(d, d->cu->cuEventCreate(&t->start[i], CU_EVENT_DEFAULT), "cuEventCreate", err,
                     n))
            goto fail;
        if (bench_cu(d, d->cu->cuEventCreate(&t->stop[i], CU_EVENT_DEFAULT), "cuEventCreate", err,
                     n)) {
            d->cu->cuEventDestroy(t->start[i]);
            goto fail;
        }
        t->n = i + 1;
    }
    return 0;
fail:
    bench_timer_destroy(d, t);
    return -1;
}

void bench_timer_destroy(const bench_device *d, bench_timer *t)
{
    for (int i = 0; i < t->n; i++) {
        d->cu->cuEventDestroy(t->start[i]);
        d->cu->cuEventDestroy(t->stop[i]);
    }
    free(t->start);
    free(t->stop);
    t->start = t->stop = NULL;
    t->n = 0;
}

int bench_time_first_call(const bench_device *d, bench_call_fn fn, void *user, double *ms,
                          char *err, size_t n)
{
    if (bench_sync(d, err, n))
        return -1;
    double t0 = bench_now_ms();
    if (fn(user, err, n) || bench_sync(d, err, n))
        return -1;
    *ms = bench_now_ms() - t0;
    return 0;
}

/* One sample: fn between event pair i, waited for. */
static int time_one(const bench_device *d, bench_timer *t, int i, bench_call_fn fn, void *user,
                    double *ms_out, char *err, size_t n)
{
    const prnn_cuda_driver *cu = d->cu;
    if (bench_cu(d, cu->cuEventRecord(t->start[i], d->stream), "cuEventRecord", err, n) ||
        fn(user, err, n) ||
        bench_cu(d, cu->cuEventRecord(t->stop[i], d->stream), "cuEventRecord", err, n) ||
        bench_cu(d, cu->cuEventSynchronize(t->stop[i]), "cuEventSynchronize", err, n))
        return -1;
    float ms = 0;
    if (bench_cu(d, cu->cuEventElapsedTime(&ms, t->start[i], t->stop[i]), "cuEventElapsedTime", err,
                 n))
        return -1;
    *ms_out = ms;
    return 0;
}

static int check_pairs(const bench_timer *t, int repeats, char *err, size_t n)
{
    if (repeats <= t->n)
        return 0;
    snprintf(err, n, "internal: %d repeats but %d event pairs", repeats, t->n);
    return -1;
}

int bench_time_calls(const bench_device *d, bench_timer *t, int warmup, int repeats,
                     bench_call_fn fn, void *user, double *samples_ms, char *err, size_t n)
{
    if (check_pairs(t, repeats, err, n))
        return -1;
    for (int i = 0; i < warmup; i++)
        if (fn(user, err, n))
            return -1;
    if (bench_sync(d, err, n))
        return -1;
    for (int i = 0; i < repeats; i++)
        if (time_one(d, t, i, fn, user, &samples_ms[i], err, n))
            return -1;
    return 0;
}

int bench_time_sequence(const bench_device *d, bench_timer *t, int repeats,
                        const bench_call_fn *fns, int nfn, void *user, double *samples_ms,
                        char *err, size_t n)
{
    if (check_pairs(t, repeats, err, n) || bench_sync(d, err, n))
        return -1;
    /* Pair i serves every call of repeat i: each pair is read back before
     * it is recorded again. */
    for (int i = 0; i < repeats; i++)
        for (int k = 0; k < nfn; k++)
            if (time_one(d, t, i, fns[k], user, &samples_ms[k * repeats + i], err, n))
                return -1;
    return 0;
}
