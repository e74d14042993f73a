/*
 * Allocation-failure injection (issue #25): each call sequence is run once
 * to count its allocations, then once per allocation with exactly that one
 * failing (tests/fuzz/fault_alloc.h), each run in a fresh thread (so the
 * thread's error log is allocated anew) after the object pool is emptied
 * (so handles and descriptors are allocated anew). Every run must end in a
 * clean status: SUCCESS (the failure was absorbed, the results the same) or
 * ALLOC_FAILED with a message; no leak (the live allocations come back to
 * where they were); and the same sequence run again afterwards, on the same
 * handle where one was given, must succeed with bit-identical results.
 *
 * Sequences: the public API on the CPU backend, from prnnCreateWithBackend
 * to prnnDestroy (descriptors set and read back, the size queries, every
 * LinLayer call, the four compute calls) for every mode, both directions,
 * dropout, SKIP_INPUT, variable lengths and three data types, once on a
 * fresh handle and once on a handle that lives on; and the file code under
 * it (the tuning DB writer over an existing DB, the user-DB lookup, the
 * cubin cache's store, load, scan and clear), which must never lose an
 * entry or take an out-of-memory for a malformed file.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "error.h"
#include "fault_alloc.h"
#include "jit/cubin_cache.h"
#include "object_pool.h"
#include "prnn.h"
#include "tuning_test.h"

typedef struct {
    const char *name;
    prnnRNNMode_t mode;
    int hidden, layers, input, seq;
    prnnDirectionMode_t dir;
    prnnRNNInputMode_t imode;
    prnnDataType_t type;
    int batch[4];
    float dropout;
} shape;

/* clang-format off */
static const shape shapes[] = {
    {"lstm bidir 2 layers dropout", PRNN_LSTM, 5, 2, 3, 3, PRNN_BIDIRECTIONAL,
     PRNN_LINEAR_INPUT, PRNN_DATA_FLOAT, {3, 2, 2, 0}, 0.25f},
    {"gru variable lengths", PRNN_GRU, 4, 1, 4, 4, PRNN_UNIDIRECTIONAL,
     PRNN_LINEAR_INPUT, PRNN_DATA_FLOAT, {3, 3, 2, 1}, 0.0f},
    {"relu skip-input double", PRNN_RNN_RELU, 4, 2, 4, 2, PRNN_UNIDIRECTIONAL,
     PRNN_SKIP_INPUT, PRNN_DATA_DOUBLE, {2, 2, 0, 0}, 0.0f},
    {"tanh bidir half", PRNN_RNN_TANH, 3, 1, 2, 2, PRNN_BIDIRECTIONAL,
     PRNN_LINEAR_INPUT, PRNN_DATA_HALF, {2, 1, 0, 0}, 0.0f},
    {"sru bidir 2 layers", PRNN_SRU, 4, 2, 3, 3, PRNN_BIDIRECTIONAL,
     PRNN_LINEAR_INPUT, PRNN_DATA_FLOAT, {2, 2, 1, 0}, 0.5f},
};
/* clang-format on */

static size_t elem(prnnDataType_t t)
{
    return t == PRNN_DATA_DOUBLE ? 8 : t == PRNN_DATA_FLOAT ? 4 : 2;
}

/* A buffer of the test's own (never failed, never counted). */
static void *buffer(size_t bytes, unsigned seed)
{
    unsigned char *p = fault_real_malloc(bytes ? bytes : 1);
    for (size_t i = 0; i < bytes; i++)
        p[i] = 0;
    size_t n = bytes / 2;
    for (size_t i = 0; i < n; i++) {
        /* small values in every type: 16-bit patterns of about 0.1, whose
         * float and double readings are tiny or small, never NaN */
        unsigned short v = (unsigned short)(0x2e00 + (i * 7 + seed) % 97);
        memcpy(p + 2 * i, &v, 2);
    }
    return p;
}

typedef struct {
    unsigned char *bytes;
    size_t n, cap;
} results;

static void keep(results *r, const void *p, size_t n)
{
    if (!p || !r)
        return;
    if (r->n + n > r->cap) {
        size_t cap = (r->n + n) * 2;
        unsigned char *b = fault_real_malloc(cap);
        if (r->bytes)
            memcpy(b, r->bytes, r->n);
        fault_real_free(r->bytes);
        r->bytes = b;
        r->cap = cap;
    }
    memcpy(r->bytes + r->n, p, n);
    r->n += n;
}

/* Where a sequence stopped. */
typedef struct {
    prnnStatus_t status;
    const char *step;
    char log[512];
} outcome;

#define STEP(call)                                                                                 \
    do {                                                                                           \
        prnnStatus_t s_ = (call);                                                                  \
        if (s_ != PRNN_STATUS_SUCCESS) {                                                           \
            o->status = s_;                                                                        \
            o->step = #call;                                                                       \
            snprintf(o->log, sizeof(o->log), "%s", prnnGetLastErrorLog());                         \
            goto done;                                                                             \
        }                                                                                          \
    } while (0)

static void set3(prnnTensorDescriptor_t d, prnnDataType_t t, int a, int b, int c, outcome *o)
{
    int dims[3] = {a, b, c}, strides[3] = {b * c, c, 1};
    prnnStatus_t s = prnnSetTensorNdDescriptor(d, t, 3, dims, strides);
    if (s && !o->status) {
        o->status = s;
        o->step = "prnnSetTensorNdDescriptor";
        snprintf(o->log, sizeof(o->log), "%s", prnnGetLastErrorLog());
    }
}

/* The public call sequence; everything it made is destroyed before it
 * returns. given: a handle to use, or NULL to create (and destroy) one. */
static void api_sequence(prnnHandle_t given, const shape *s, results *r, outcome *o)
{
    const int dirs = s->dir == PRNN_BIDIRECTIONAL ? 2 : 1;
    const size_t es = elem(s->type);
    prnnHandle_t h = given;
    prnnDropoutDescriptor_t drop = NULL;
    prnnRNNDescriptor_t rnn = NULL;
    prnnTensorDescriptor_t xd[4] = {0}, yd[4] = {0}, sd = NULL;
    prnnFilterDescriptor_t wd = NULL, ld = NULL;
    void *buf[16] = {0};
    int nbuf = 0;
    memset(o, 0, sizeof(*o));

    if (!given)
        STEP(prnnCreateWithBackend(&h, PRNN_BACKEND_CPU_REFERENCE));
    STEP(prnnSetAutotuneMode(h, PRNN_AUTOTUNE_OFF));
    STEP(prnnCreateDropoutDescriptor(&drop));
    STEP(prnnSetDropoutDescriptor(drop, h, s->dropout, 1234));
    STEP(prnnCreateRNNDescriptor(&rnn));
    STEP(prnnSetRNNDescriptor(rnn, s->hidden, s->layers, drop, s->imode, s->dir, s->mode, s->type));
    STEP(prnnSetRNNMatrixMathType(rnn, PRNN_DEFAULT_MATH));
    STEP(prnnSetRNNAlgorithm(rnn, PRNN_RNN_ALGO_AUTO));
    int hd, ld_;
    float dp;
    unsigned long long seed;
    prnnRNNInputMode_t im;
    prnnDirectionMode_t dm;
    prnnRNNMode_t mm;
    prnnDataType_t tt;
    STEP(prnnGetRNNDescriptor(rnn, &hd, &ld_, &dp, &seed, &im, &dm, &mm, &tt));
    size_t rows = 0;
    for (int t = 0; t < s->seq; t++) {
        STEP(prnnCreateTensorDescriptor(&xd[t]));
        STEP(prnnCreateTensorDescriptor(&yd[t]));
        set3(xd[t], s->type, s->batch[t], s->input, 1, o);
        set3(yd[t], s->type, s->batch[t], s->hidden * dirs, 1, o);
        rows += (size_t)s->batch[t];
    }
    STEP(prnnCreateTensorDescriptor(&sd));
    set3(sd, s->type, s->layers * dirs, s->batch[0], s->hidden, o);
    if (o->status)
        goto done;
    size_t wbytes, ws, rs;
    STEP(prnnGetRNNParamsSize(h, rnn, xd[0], &wbytes, s->type));
    STEP(prnnGetRNNWorkspaceSize(h, rnn, s->seq, xd, &ws));
    STEP(prnnGetRNNTrainingReserveSize(h, rnn, s->seq, xd, &rs));
    STEP(prnnCreateFilterDescriptor(&wd));
    STEP(prnnCreateFilterDescriptor(&ld));
    int wdims[3] = {(int)(wbytes / es), 1, 1};
    STEP(prnnSetFilterNdDescriptor(wd, s->type, PRNN_TENSOR_NCHW, 3, wdims));
    size_t nx = rows * (size_t)s->input, ny = rows * (size_t)(s->hidden * dirs);
    size_t ns = (size_t)(s->layers * dirs * s->batch[0] * s->hidden);
    void *x = buf[nbuf++] = buffer(nx * es, 1);
    void *y = buf[nbuf++] = buffer(ny * es, 2);
    void *dy = buf[nbuf++] = buffer(ny * es, 3);
    void *dx = buf[nbuf++] = buffer(nx * es, 4);
    void *w = buf[nbuf++] = buffer(wbytes, 5);
    void *dw = buf[nbuf++] = buffer(wbytes, 6);
    void *wsp = buf[nbuf++] = buffer(ws, 7);
    void *rsp = buf[nbuf++] = buffer(rs, 8);
    void *hx = buf[nbuf++] = buffer(ns * es, 9);
    void *cx = buf[nbuf++] = buffer(ns * es, 10);
    void *hy = buf[nbuf++] = buffer(ns * es, 11);
    void *cy = buf[nbuf++] = buffer(ns * es, 12);
    void *dhy = buf[nbuf++] = buffer(ns * es, 13);
    void *dhx = buf[nbuf++] = buffer(ns * es, 14);
    void *dcx = buf[nbuf++] = buffer(ns * es, 15);
    int ids = s->mode == PRNN_LSTM ? 8 : s->mode == PRNN_GRU ? 6 : s->mode == PRNN_SRU ? 4 : 2;
    for (int p = 0; p < s->layers * dirs; p++)
        for (int id = 0; id < ids; id++) {
            void *at;
            STEP(prnnGetRNNLinLayerMatrixParams(h, rnn, p, xd[0], wd, w, id, ld, &at));
            STEP(prnnGetRNNLinLayerBiasParams(h, rnn, p, xd[0], wd, w, id, ld, &at));
        }
    STEP(prnnRNNForwardInference(h, rnn, s->seq, xd, x, sd, hx, sd, cx, wd, w, yd, y, sd, hy, sd,
                                 cy, wsp, ws));
    keep(r, y, ny * es);
    STEP(prnnRNNForwardTraining(h, rnn, s->seq, xd, x, sd, hx, sd, cx, wd, w, yd, y, sd, hy, sd, cy,
                                wsp, ws, rsp, rs));
    keep(r, y, ny * es);
    keep(r, hy, ns * es);
    keep(r, cy, ns * es);
    STEP(prnnRNNBackwardData(h, rnn, s->seq, yd, y, yd, dy, sd, dhy, sd, NULL, wd, w, sd, hx, sd,
                             cx, xd, dx, sd, dhx, sd, dcx, wsp, ws, rsp, rs));
    keep(r, dx, nx * es);
    keep(r, dhx, ns * es);
    keep(r, dcx, ns * es);
    STEP(prnnRNNBackwardWeights(h, rnn, s->seq, xd, x, sd, hx, yd, y, wsp, ws, wd, dw, rsp, rs));
    keep(r, dw, wbytes);
    /* A failing call: its message is formatted (and may need memory). */
    if (prnnGetRNNWorkspaceSize(h, rnn, 0, xd, &ws) != PRNN_STATUS_BAD_PARAM ||
        !prnnGetLastErrorLog()[0]) {
        o->status = PRNN_STATUS_INTERNAL_ERROR;
        o->step = "a bad call that did not fail with BAD_PARAM and a message";
    }
done:
    for (int i = 0; i < nbuf; i++)
        fault_real_free(buf[i]);
    for (int t = 0; t < 4; t++) {
        prnnDestroyTensorDescriptor(xd[t]);
        prnnDestroyTensorDescriptor(yd[t]);
    }
    prnnDestroyTensorDescriptor(sd);
    prnnDestroyFilterDescriptor(wd);
    prnnDestroyFilterDescriptor(ld);
    prnnDestroyRNNDescriptor(rnn);
    prnnDestroyDropoutDescriptor(drop);
    if (!given)
        prnnDestroy(h);
}

/* ---- the file code ------------------------------------------------------ */

static char files_dir[4096];
static int failing_for_good; /* the run's mode (run_thread) */

/* An existing DB of two entries before every run. */
static void files_setup(void)
{
    char path[4200];
    snprintf(path, sizeof(path), "%s/db.json", files_dir);
    prnn_tuning_entry e[2];
    test_entry(&e[0], 256, 8, 3);
    test_entry(&e[1], 512, 8, 4);
    unlink(path);
    CHECK(prnn_tuning_db_store_many(path, e, 2) == PRNN_STATUS_SUCCESS);
    setenv("PRNN_TUNING_DB", path, 1);
    setenv("PRNN_CACHE_DIR", files_dir, 1);
}

static void files_sequence(prnnHandle_t given, const shape *s, results *r, outcome *o)
{
    (void)given;
    (void)s;
    memset(o, 0, sizeof(*o));
    char path[4200];
    snprintf(path, sizeof(path), "%s/db.json", files_dir);
    prnn_tuning_entry e;
    test_entry(&e, 1024, 8, 5);
    prnn_log_clear();
    prnnStatus_t st = prnn_tuning_db_store(path, &e);
    if (st) {
        o->status = st;
        o->step = "prnn_tuning_db_store";
        snprintf(o->log, sizeof(o->log), "%s", prnn_log_get());
    }
    /* The lookup degrades (no user DB this once) and says why; it never
     * fails, and it forgets: unarmed, the entry is found. */
    prnn_tuning_key k = test_key(512, 8);
    prnn_tuning_result res;
    int fired = fault_alloc_fired();
    prnn_log_clear();
    int found = prnn_tuning_lookup(&k, NULL, NULL, &res);
    int blocks = found && res.source == PRNN_CONFIG_USER_DB ? res.entry.config.tile.blocks : 0;
    if (!fault_alloc_fired() || (fired && !failing_for_good))
        EXPECT(blocks == 4, "the user DB's entry not found (%d); log: %s", blocks, prnn_log_get());
    else
        EXPECT(blocks == 4 || strstr(prnn_log_get(), "out of memory"),
               "the lookup failed without saying it was out of memory: %s", prnn_log_get());
    keep(r, "lookup", 6);

    /* The cubin cache: an out-of-memory load is a miss, never a hit of
     * something else. */
    static const char payload[] = "\177ELF pretend cubin";
    static char text[] = "fault-injection key";
    prnn_cubin_key ck = {text, sizeof(text) - 1, ""};
    memset(ck.name, 'f', 32);
    char why[4400];
    int stored =
        prnn_cubin_cache_store(files_dir, &ck, payload, sizeof(payload), why, sizeof(why)) == 0;
    void *got = NULL;
    size_t n = 0;
    prnn_cubin_lookup l = prnn_cubin_cache_load(files_dir, &ck, &got, &n, why, sizeof(why));
    if (l == PRNN_CUBIN_HIT) {
        CHECK(n == sizeof(payload) && memcmp(got, payload, n) == 0);
        free(got);
    } else if (stored) {
        EXPECT(l == PRNN_CUBIN_BAD && strstr(why, "out of memory"),
               "a stored entry that did not load: %d, %s", (int)l, why);
    }
    prnn_temp_sweep_result sw;
    st = prnn_cubin_cache_clear(files_dir, &sw);
    if (st && !o->status) {
        o->status = st;
        o->step = "prnn_cubin_cache_clear";
        snprintf(o->log, sizeof(o->log), "%s", prnn_log_get());
    }
}

/* After every files run: the DB holds its two old entries (and the new one
 * when the store succeeded), and no malformed-file backup was made. */
static void files_check(const outcome *o)
{
    char path[4200];
    snprintf(path, sizeof(path), "%s/db.json", files_dir);
    char *text = test_read_file(path, NULL);
    prnn_tuning_db db;
    CHECK(text && test_parse(&db, text) == 0);
    if (text) {
        EXPECT(test_exact_blocks(&db, 256) == 3 && test_exact_blocks(&db, 512) == 4,
               "an existing entry was lost (store: %s)", o->log);
        if (!o->status)
            CHECK(test_exact_blocks(&db, 1024) == 5);
        prnn_tuning_db_free(&db);
    }
    free(text);
    EXPECT(test_count_files(files_dir, "db.json.bad") == 0,
           "an out-of-memory taken for a malformed file: %s", o->log);
    CHECK(test_count_files(files_dir, "db.json.tmp") == 0);
}

/* ---- the driver ----------------------------------------------------------- */

typedef void (*sequence_fn)(prnnHandle_t given, const shape *s, results *r, outcome *o);

typedef struct {
    sequence_fn fn;
    prnnHandle_t given;
    const shape *s;
    long fail_at; /* -1: none */
    int for_good; /* every allocation from fail_at on fails */
    results r;
    outcome o;
    long allocations;
} run_args;

static void *run_thread(void *p)
{
    run_args *a = p;
    /* A failure's message in this thread's log first: a later failure
     * whose message cannot be stored must not show this one. */
    if (a->fail_at >= 0 &&
        prnnSetTensorNdDescriptor(NULL, PRNN_DATA_FLOAT, 3, NULL, NULL) != PRNN_STATUS_BAD_PARAM)
        exit(2);
    failing_for_good = a->for_good;
    if (a->for_good)
        fault_alloc_arm_from(a->fail_at);
    else
        fault_alloc_arm(a->fail_at);
    a->fn(a->given, a->s, &a->r, &a->o);
    a->allocations = fault_alloc_count();
    fault_alloc_arm(-1);
    return NULL;
}

/* One run in a fresh thread (its error log allocated anew, and freed when
 * it ends). */
static void run(run_args *a)
{
    pthread_t t;
    a->r.n = 0;
    if (pthread_create(&t, NULL, run_thread, a) != 0) {
        perror("pthread_create");
        exit(1);
    }
    pthread_join(t, NULL);
}

static long live_now(void)
{
    return fault_alloc_live() - (long)prnn_object_pool_count();
}

static int total_runs, total_failures_injected, absorbed;

/* The sequence with each of its allocations failing in turn. */
static void inject(const char *what, sequence_fn fn, prnnHandle_t given, const shape *s,
                   void (*setup)(void), void (*after)(const outcome *))
{
    run_args ref = {fn, given, s, -1, 0, {0}, {0}, 0};
    /* Once first, so that what a process does once (the shipped tuning DB,
     * the error log's key) is done: the counted run is the steady state. */
    if (setup)
        setup();
    prnn_object_pool_trim();
    run(&ref);
    fault_real_free(ref.r.bytes);
    memset(&ref.r, 0, sizeof(ref.r));
    if (setup)
        setup();
    prnn_object_pool_trim();
    run(&ref);
    EXPECT(ref.o.status == PRNN_STATUS_SUCCESS, "%s: the reference run failed at %s: %s", what,
           ref.o.step, ref.o.log);
    int before_failures = test_failures;
    long n = ref.allocations;
    /* k / 2: the allocation that fails; k % 2: alone, or with every one
     * after it (memory gone for good). */
    for (long k = 0; k < 2 * n; k++) {
        if (setup)
            setup();
        prnn_object_pool_trim();
        long live0 = live_now();
        run_args a = {fn, given, s, k / 2, (int)(k % 2), {0}, {0}, 0};
        run(&a);
        long leaked = live_now() - live0;
        total_runs++;
        total_failures_injected++;
        if (a.o.status == PRNN_STATUS_SUCCESS) {
            absorbed++;
            EXPECT(a.r.n == ref.r.n && memcmp(a.r.bytes, ref.r.bytes, ref.r.n) == 0,
                   "%s: allocation %ld of %ld failed, the sequence succeeded with other results",
                   what, k / 2, n);
        } else {
            EXPECT(a.o.status == PRNN_STATUS_ALLOC_FAILED ||
                       (fn == files_sequence && a.o.status == PRNN_STATUS_CACHE_ERROR),
                   "%s: allocation %ld of %ld failed: %s returned %s, not ALLOC_FAILED; log: %s",
                   what, k / 2, n, a.o.step, prnnGetErrorString(a.o.status), a.o.log);
            EXPECT(strstr(a.o.log, "out of") != NULL && strstr(a.o.log, "desc is NULL") == NULL,
                   "%s: allocation %ld failed%s, %s's message does not say so: \"%s\"", what, k / 2,
                   k % 2 ? " for good" : "", a.o.step, a.o.log);
        }
        EXPECT(leaked == 0, "%s: allocation %ld of %ld failed (%s): %ld allocation%s leaked", what,
               k / 2, n, a.o.step ? a.o.step : "absorbed", leaked, leaked == 1 ? "" : "s");
        if (after)
            after(&a.o);
        /* Still usable, with the same results. */
        if (setup)
            setup();
        run_args again = {fn, given, s, -1, 0, {0}, {0}, 0};
        run(&again);
        total_runs++;
        EXPECT(again.o.status == PRNN_STATUS_SUCCESS && again.r.n == ref.r.n &&
                   memcmp(again.r.bytes, ref.r.bytes, ref.r.n) == 0,
               "%s: after allocation %ld failed, the sequence run again %s (%s: %s)", what, k / 2,
               again.o.status ? "failed" : "gave other results", again.o.step ? again.o.step : "",
               again.o.log);
        fault_real_free(a.r.bytes);
        fault_real_free(again.r.bytes);
        if (test_failures - before_failures > 20) {
            fprintf(stderr, "%s: too many failures, next sequence\n", what);
            break;
        }
    }
    printf("%-44s %4ld allocations, each failed in turn (alone, and for good)%s\n", what, n,
           test_failures == before_failures ? ": clean" : ": FAILURES");
    fault_real_free(ref.r.bytes);
}

/* The shipped tuning DB is parsed by a process's first lookup (16970
 * allocations, cJSON's): one allocation of it failing, sampled (the first
 * 64, then every 199th), each in a child process that has not loaded it. The
 * lookup must return and say so, and the next one load it after all: out
 * of memory must not cost the process its database. */
static void test_shipped_db_first_load(void)
{
    prnn_tuning_key k = {.gpu_name = "NVIDIA H100 80GB HBM3",
                         .cc_major = 9,
                         .cc_minor = 0,
                         .sm_count = 132,
                         .rnn = {.mode = PRNN_RNN_TANH,
                                 .dtype = PRNN_DATA_FLOAT,
                                 .hidden = 256,
                                 .layers = 1,
                                 .dirs = 1,
                                 .mini_batch = 4},
                         .pass = PRNN_PASS_FORWARD};
    unsetenv("PRNN_TUNING_DB");
    setenv("PRNN_CACHE_DIR", "/nonexistent/prnn-test", 1);
    long n = -1;
    int pipefd[2];
    CHECK(pipe(pipefd) == 0);
    pid_t pid = fork();
    if (pid == 0) {
        prnn_tuning_result r;
        fault_alloc_arm(-1);
        int found = prnn_tuning_lookup(&k, NULL, NULL, &r);
        long count = found && r.entry.config.tile.batch_groups == 4 ? fault_alloc_count() : -1;
        _exit(write(pipefd[1], &count, sizeof(count)) == sizeof(count) ? 0 : 1);
    }
    int status;
    waitpid(pid, &status, 0);
    CHECK(read(pipefd[0], &n, sizeof(n)) == sizeof(n) && n > 0);
    close(pipefd[0]);
    close(pipefd[1]);
    int samples = 0, bad = 0;
    for (long i = 0; i < n; i = i < 64 ? i + 1 : i + 199) {
        pid = fork();
        if (pid == 0) {
            prnn_tuning_result r;
            fault_alloc_arm(i);
            prnn_log_clear();
            int found = prnn_tuning_lookup(&k, NULL, NULL, &r);
            fault_alloc_arm(-1);
            if (!found && !strstr(prnn_log_get(), "out of memory")) {
                fprintf(stderr, "allocation %ld: no entry, and the log does not say why: %s\n", i,
                        prnn_log_get());
                _exit(1);
            }
            found = prnn_tuning_lookup(&k, NULL, NULL, &r);
            _exit(found && r.entry.config.tile.batch_groups == 4 ? 0 : 2);
        }
        samples++;
        if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            if (bad++ < 5)
                fprintf(stderr, "shipped DB, allocation %ld of %ld failing: child %s %d\n", i, n,
                        WIFEXITED(status) ? "exited" : "killed by signal",
                        WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
        }
    }
    CHECK(bad == 0);
    printf("%-44s %4ld allocations, %d of them failed (one per process)%s\n",
           "shipped tuning DB, first lookup", n, samples, bad ? ": FAILURES" : ": clean");
}

/* A thread's first call, with no memory at all: its log cannot even be
 * made, and the failure must still say what happened (the log read ""). */
static void *no_memory_thread(void *p)
{
    char *log = p;
    prnnTensorDescriptor_t d = NULL;
    fault_alloc_arm_from(0);
    prnnStatus_t s = prnnCreateTensorDescriptor(&d);
    snprintf(log, 256, "%s", prnnGetLastErrorLog());
    fault_alloc_arm(-1);
    EXPECT(s == PRNN_STATUS_ALLOC_FAILED && d == NULL,
           "no memory: prnnCreateTensorDescriptor returned %s", prnnGetErrorString(s));
    return NULL;
}

static void test_no_memory_at_all(void)
{
    char log[256] = "";
    pthread_t t;
    prnn_object_pool_trim();
    CHECK(pthread_create(&t, NULL, no_memory_thread, log) == 0);
    pthread_join(t, NULL);
    EXPECT(strstr(log, "out of host memory") != NULL,
           "a thread's first failure with no memory left has the message \"%s\"", log);
    printf("%-44s the failure says \"%s\"\n", "no memory at all, first call", log);
}

int main(void)
{
    fault_alloc_init();
    test_no_memory_at_all();
    test_shipped_db_first_load();
    unsetenv("PRNN_TUNING_DB");
    for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
        char what[128];
        snprintf(what, sizeof(what), "api, fresh handle: %s", shapes[i].name);
        inject(what, api_sequence, NULL, &shapes[i], NULL, NULL);
        prnnHandle_t h;
        CHECK(prnnCreateWithBackend(&h, PRNN_BACKEND_CPU_REFERENCE) == PRNN_STATUS_SUCCESS);
        snprintf(what, sizeof(what), "api, handle kept: %s", shapes[i].name);
        inject(what, api_sequence, h, &shapes[i], NULL, NULL);
        prnnDestroy(h);
    }
    char *dir = test_mkdtemp();
    snprintf(files_dir, sizeof(files_dir), "%s", dir);
    free(dir);
    inject("files: DB store and lookup, cubin cache", files_sequence, NULL, NULL, files_setup,
           files_check);
    test_rm_rf(files_dir);
    printf("%d runs, %d with one allocation failing (%d absorbed with the same results)\n",
           total_runs, total_failures_injected, absorbed);
    return test_finish("fuzz-alloc-failures: every allocation of every sequence failed in turn: "
                       "clean statuses, no leak, handles still usable");
}
