#include "gpu/autotune_common.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dtype.h"
#include "error.h"
#include "jit/cubin_cache.h"
#include "prnn.h"

/* ---- parallel compilation into the disk cache ---- */

typedef struct {
    prnn_kernel_request *reqs;
    int count;
    int next;
    pthread_mutex_t lock;
} compile_queue;

static void *compile_worker(void *arg)
{
    compile_queue *q = arg;
    for (;;) {
        pthread_mutex_lock(&q->lock);
        int i = q->next++;
        pthread_mutex_unlock(&q->lock);
        if (i >= q->count)
            return NULL;
        void *cubin = NULL;
        size_t size;
        prnnCubinSource_t src;
        double ms;
        /* A failure here shows again, with its log, when the candidate is
         * loaded; this pass only fills the cache. */
        if (prnn_cubin_get(&q->reqs[i].req, &cubin, &size, &src, &ms) == PRNN_STATUS_SUCCESS)
            free(cubin);
    }
}

void prnn_autotune_precompile(prnn_kernel_request *reqs, int count, int threads)
{
    compile_queue q = {reqs, count, 0, PTHREAD_MUTEX_INITIALIZER};
    if (threads > count)
        threads = count;
    if (threads < 1)
        threads = 1;
    pthread_t tid[64];
    if (threads > 64)
        threads = 64;
    int started = 0;
    for (int i = 0; i < threads; i++)
        if (pthread_create(&tid[i], NULL, compile_worker, &q) == 0)
            started++;
    if (!started)
        compile_worker(&q);
    for (int i = 0; i < started; i++)
        pthread_join(tid[i], NULL);
}

/* ---- test data ---- */

static double rnd(unsigned long long *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return (double)(*state >> 11) * (1.0 / 9007199254740992.0) * 2.0 - 1.0;
}

void prnn_autotune_fill(void *buf, prnnDataType_t t, size_t n, double scale, unsigned long long *state)
{
    for (size_t i = 0; i < n; i++)
        prnn_store_from_double(buf, t, i, scale * rnd(state));
}


void prnn_autotune_free_buffers(const prnn_cuda_driver *cu, prnn_autotune_buffers *d)
{
    CUdeviceptr *all[] = {&d->x, &d->hx, &d->cx, &d->w, &d->y, &d->dy, &d->dx, &d->ws,
                          &d->reserve};
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

void prnn_autotune_problem(const struct prnnRNNStruct *rnn, int steps, int mini_batch,
                         int *batch, prnn_rnn_problem *p)
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

double prnn_autotune_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int prnn_autotune_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

prnnStatus_t prnn_autotune_ensure(const prnn_cuda_driver *cu, CUdeviceptr *p, size_t *have, size_t bytes)
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
