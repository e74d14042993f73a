/* The GPU suites' shared harness: see gpu_check.h. */
#include "gpu_check.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cuda/cuda_driver.h"
#include "dtype.h"
#include "../needs_libs.h"
#include "../test_rmtree.h"

gc_options gc = {.repeat = 1};
pthread_mutex_t gc_gpu_lock = PTHREAD_MUTEX_INITIALIZER;
/* Read-held by a worker's planning, plan release and handle creation and
 * destruction outside gc_gpu_lock (module loads, allocations, frees: calls
 * CUDA forbids in every thread while any thread captures in GLOBAL mode),
 * write-held by a GLOBAL-mode capture. Without it another worker could
 * break a capture: the forward suite's GLOBAL capture of an SRU case (the
 * last cases, captured while finished workers destroy their handles)
 * failed in cublasLtMatmul (bench/NOTES.md, twelfth and twenty-sixth
 * sessions). */
static pthread_rwlock_t unsafe_calls = PTHREAD_RWLOCK_INITIALIZER;
pthread_mutex_t gc_print_lock = PTHREAD_MUTEX_INITIALIZER;

static const prnn_cuda_driver *cu;
static CUcontext primary_ctx;
/* The scratch user DB: tuning.json in a private directory (prnn writes a
 * DB only in a directory nobody else can write: /tmp itself is refused). */
static char tuning_dir[] = "/tmp/prnn-test-tuning-XXXXXX";
static char tuning_db[sizeof(tuning_dir) + 16];
static int next_case;

/* ---- the device operations: the GPU ---- */

static int gpu_alloc(gc_ptr *p, size_t bytes)
{
    CUdeviceptr d = 0;
    CUresult r = cu->cuMemAlloc(&d, bytes);
    *p = d;
    return (int)r;
}

static void gpu_release(gc_ptr p)
{
    cu->cuMemFree((CUdeviceptr)p);
}

static int gpu_memset8(gc_ptr p, unsigned char value, size_t bytes, gc_stream s)
{
    return (int)cu->cuMemsetD8Async((CUdeviceptr)p, value, bytes, s);
}

static int gpu_copy(gc_ptr dst, gc_ptr src, size_t bytes, gc_stream s)
{
    return (int)cu->cuMemcpyDtoDAsync((CUdeviceptr)dst, (CUdeviceptr)src, bytes, s);
}

static int gpu_upload(gc_ptr dst, const void *src, size_t bytes)
{
    return (int)cu->cuMemcpyHtoD((CUdeviceptr)dst, src, bytes);
}

static int gpu_download(void *dst, gc_ptr src, size_t bytes)
{
    return (int)cu->cuMemcpyDtoH(dst, (CUdeviceptr)src, bytes);
}

static int gpu_sync_device(void)
{
    return (int)cu->cuCtxSynchronize();
}

static int gpu_stream_create(gc_stream *s)
{
    CUstream cs = NULL;
    CUresult r = cu->cuStreamCreate(&cs, CU_STREAM_NON_BLOCKING);
    *s = cs;
    return (int)r;
}

static void gpu_stream_destroy(gc_stream s)
{
    if (s)
        cu->cuStreamDestroy(s);
}

static int gpu_stream_sync(gc_stream s)
{
    return (int)cu->cuStreamSynchronize(s);
}

static const char *gpu_error_name(int r)
{
    const char *name = "?";
    cu->cuGetErrorName((CUresult)r, &name);
    return name;
}

static int gpu_capture_begin(gc_stream s, gc_capture_mode mode)
{
    return (int)cu->cuStreamBeginCapture(s, mode == GC_CAPTURE_GLOBAL
                                                ? CU_STREAM_CAPTURE_MODE_GLOBAL
                                                : CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
}

static int gpu_capture_end(gc_stream s, void **graph)
{
    CUgraph g = NULL;
    CUresult r = cu->cuStreamEndCapture(s, &g);
    *graph = g;
    return (int)r;
}

static int gpu_graph_instantiate(void **exec, void *graph)
{
    CUgraphExec e = NULL;
    CUresult r = cu->cuGraphInstantiate(&e, (CUgraph)graph, 0);
    *exec = e;
    return (int)r;
}

static int gpu_graph_launch(void *exec, gc_stream s)
{
    return (int)cu->cuGraphLaunch((CUgraphExec)exec, s);
}

static void gpu_graph_destroy(void *exec, void *graph)
{
    if (exec)
        cu->cuGraphExecDestroy((CUgraphExec)exec);
    if (graph)
        cu->cuGraphDestroy((CUgraph)graph);
}

static const gc_device_ops gpu_ops = {
    .alloc_name = "cuMemAlloc",
    .alloc = gpu_alloc,
    .release = gpu_release,
    .memset8 = gpu_memset8,
    .copy = gpu_copy,
    .upload = gpu_upload,
    .download = gpu_download,
    .sync_device = gpu_sync_device,
    .stream_create = gpu_stream_create,
    .stream_destroy = gpu_stream_destroy,
    .stream_sync = gpu_stream_sync,
    .error_name = gpu_error_name,
    .capture_begin = gpu_capture_begin,
    .capture_end = gpu_capture_end,
    .graph_instantiate = gpu_graph_instantiate,
    .graph_launch = gpu_graph_launch,
    .graph_destroy = gpu_graph_destroy,
};

/* ---- the device operations: host memory (the self-test) ---- */

static void *host(gc_ptr p)
{
    return (void *)(uintptr_t)p;
}

static int host_alloc(gc_ptr *p, size_t bytes)
{
    void *m = malloc(bytes ? bytes : 1);
    *p = (gc_ptr)(uintptr_t)m;
    return m ? 0 : 2; /* CUDA_ERROR_OUT_OF_MEMORY */
}

static void host_release(gc_ptr p)
{
    free(host(p));
}

static int host_memset8(gc_ptr p, unsigned char value, size_t bytes, gc_stream s)
{
    (void)s;
    memset(host(p), value, bytes);
    return 0;
}

static int host_copy(gc_ptr dst, gc_ptr src, size_t bytes, gc_stream s)
{
    (void)s;
    memcpy(host(dst), host(src), bytes);
    return 0;
}

static int host_upload(gc_ptr dst, const void *src, size_t bytes)
{
    memcpy(host(dst), src, bytes);
    return 0;
}

static int host_download(void *dst, gc_ptr src, size_t bytes)
{
    memcpy(dst, host(src), bytes);
    return 0;
}

static int host_nothing(void)
{
    return 0;
}

static int host_stream_create(gc_stream *s)
{
    *s = NULL;
    return 0;
}

static void host_stream_destroy(gc_stream s)
{
    (void)s;
}

static int host_stream_sync(gc_stream s)
{
    (void)s;
    return 0;
}

static const char *host_error_name(int r)
{
    return r ? "host error" : "success";
}

/* No graph capture: the self-test leaves it out. */
static const gc_device_ops host_ops = {
    .alloc_name = "malloc",
    .alloc = host_alloc,
    .release = host_release,
    .memset8 = host_memset8,
    .copy = host_copy,
    .upload = host_upload,
    .download = host_download,
    .sync_device = host_nothing,
    .stream_create = host_stream_create,
    .stream_destroy = host_stream_destroy,
    .stream_sync = host_stream_sync,
    .error_name = host_error_name,
};

/* ---- options and process state ---- */

void gc_parse_args(int argc, char **argv)
{
    gc.seed = (unsigned long long)time(NULL);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--full"))
            gc.full = 1;
        else if (!strcmp(argv[i], "--quick"))
            gc.full = 0;
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            gc.seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            gc.threads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--filter") && i + 1 < argc)
            gc.filter = argv[++i];
        else if (!strcmp(argv[i], "--verbose"))
            gc.verbose = 1;
        else if (!strcmp(argv[i], "--repeat") && i + 1 < argc)
            gc.repeat = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--self-test"))
            gc.self_test = 1;
        else if (!strcmp(argv[i], "--list"))
            gc.list = 1;
        else {
            fprintf(stderr,
                    "usage: %s [--quick|--full] [--seed N] [--threads N] [--filter S] [--verbose] "
                    "[--repeat N] [--self-test] [--list]\n",
                    argv[0]);
            exit(2);
        }
    }
    if (gc.threads <= 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        gc.threads = n > 1 ? (int)n : 2;
    }
    if (gc.threads > 32)
        gc.threads = 32;
}

static int start_gpu(void)
{
    prnnHandle_t probe;
    prnnStatus_t s = prnnCreate(&probe);
    if (s == PRNN_STATUS_NO_DEVICE) {
        printf("SKIP: no GPU: %s\n", prnnGetLastErrorLog());
        return 77;
    }
    if (s) {
        printf("FAIL: prnnCreate: %s: %s\n", prnnGetErrorString(s), prnnGetLastErrorLog());
        return 1;
    }
    prnnDestroy(probe);
    /* A GPU, but nothing to compile or multiply with. */
    if (needs_nvrtc("the GPU suite") || needs_cublaslt("the GPU suite"))
        return 77;
    if (prnn_cuda_driver_get(&cu)) {
        printf("FAIL: driver table: %s\n", prnnGetLastErrorLog());
        return 1;
    }
    /* The test's own allocations use the primary context of device 0. */
    CUdevice dev;
    cu->cuDeviceGet(&dev, 0);
    cu->cuDeviceGetAttribute(&gc.sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
    cu->cuDeviceGetAttribute(&gc.smem_optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                             dev);
    cu->cuDevicePrimaryCtxRetain(&primary_ctx, dev);
    cu->cuCtxSetCurrent(primary_ctx);
    gc.dev = &gpu_ops;
    return 0;
}

/* The self-test's check of the guard bands: a byte written just before or
 * just after a buffer is seen, and nothing is seen without one. */
static int guards_detect_overwrites(void)
{
    gc_buf b;
    char err[128];
    if (gc_alloc_shifted(&b, 40, 4, err, sizeof(err)))
        return 0;
    unsigned char *p = host(b.p);
    int ok = gc_guard_ok(&b);
    const unsigned char before = p[-1 - 4], after = p[40];
    p[-1 - 4] = 0;
    ok = ok && !gc_guard_ok(&b);
    p[-1 - 4] = before;
    p[40] = 0;
    ok = ok && !gc_guard_ok(&b);
    p[40] = after;
    ok = ok && gc_guard_ok(&b);
    gc_free(&b);
    return ok;
}

int gc_start(void)
{
    if (gc.self_test) {
        gc.dev = &host_ops;
        printf("self-test: the device under test is a second CPU-reference handle in host memory; "
               "every comparison must be exact; graph capture and forced tiles are skipped\n");
        if (!guards_detect_overwrites()) {
            printf("FAIL: the guard bands around a buffer miss an overwrite\n");
            return 1;
        }
    } else {
        int r = start_gpu();
        if (r)
            return r;
    }
    /* Autotuned cases record their winners: into a scratch user DB, never
     * into the user's own. */
    if (!mkdtemp(tuning_dir)) {
        printf("FAIL: cannot create a scratch tuning DB directory in /tmp: %s\n", strerror(errno));
        return 1;
    }
    snprintf(tuning_db, sizeof(tuning_db), "%s/tuning.json", tuning_dir);
    setenv("PRNN_TUNING_DB", tuning_db, 1);
    return 0;
}

void gc_print_header(const char *prog, int ncases)
{
    printf("%s: %d cases (%s), seed %llu, %d threads\n", prog, ncases, gc.full ? "full" : "quick",
           gc.seed, gc.threads);
    fflush(stdout);
}

int gc_finish(int passed, int ncases)
{
    printf("seed %llu (rerun with --seed %llu)\n", gc.seed, gc.seed);
    /* the DB, its lock file and whatever else the writer left there */
    test_rmtree(tuning_dir);
    return passed == ncases ? 0 : 1;
}

/* ---- random data ---- */

unsigned long long gc_case_seed(int index)
{
    return gc.seed * 1000003ull + (unsigned long long)index * 7919ull + 1;
}

double gc_rnd(unsigned long long *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return (double)(*s >> 11) * (1.0 / 9007199254740992.0) * 2.0 - 1.0;
}

void gc_fill(void *buf, prnnDataType_t t, size_t n, double scale, unsigned long long *s)
{
    for (size_t i = 0; i < n; i++) {
        double v = scale * gc_rnd(s);
        if (v == 0.0)
            v = scale * 0.5; /* never zeros */
        prnn_store_from_double(buf, t, i, v);
    }
}

/* ---- comparisons ---- */

void gc_err_add(gc_err_sum *e, const void *got, const void *ref, prnnDataType_t t, size_t from,
                size_t n)
{
    for (size_t i = from; i < from + n; i++) {
        double a = prnn_load_as_double(got, t, i), r = prnn_load_as_double(ref, t, i);
        if (a != a) {
            e->nan++;
            continue;
        }
        e->num += (a - r) * (a - r);
        e->den += r * r;
    }
}

double gc_err_value(const gc_err_sum *e)
{
    return e->den > 0 ? sqrt(e->num / e->den) : sqrt(e->num);
}

double gc_rel_err(const void *got, const void *ref, prnnDataType_t t, size_t n, size_t *nan_count)
{
    gc_err_sum e = {0, 0, 0};
    gc_err_add(&e, got, ref, t, 0, n);
    *nan_count = e.nan;
    return gc_err_value(&e);
}

double gc_tolerance(prnnDataType_t t, gc_tol_kind kind)
{
    /* rows: float, double, half, bfloat16 (prnnDataType_t order). The
     * gradients of bfloat16 (unit roundoff 2^-9, 8 times half's) carry
     * every step's rounded state back through the sequence: LSTM H 256 B 2
     * T 16 measured 1.0-2.4 % RMS over seven seeds (bench/NOTES.md v0.14),
     * so 3 %; half's stay at 2 %. */
    static const double tol[4][4] = {
        {1e-5, 1e-10, 1e-2, 1e-2},     /* forward inference */
        {1e-5, 1e-10, 2e-2, 3e-2},     /* forward training, dx, dhx, dcx */
        {1e-4, 1e-9, 2e-2, 3e-2},      /* dw */
        {5e-2, 1e-10, 2.5e-1, 2.5e-1}, /* ReLU gradients: a floor (gpu_check.h) */
    };
    if (gc.self_test)
        return 0.0;
    return tol[kind][(unsigned)t < 4 ? t : 0];
}

void gc_format_per_dtype(const double v[4], char *buf, size_t n)
{
    snprintf(buf, n, "%.1e / %.1e / %.1e / %.1e", v[0], v[1], v[2], v[3]);
}

/* ---- device buffers with guard bands ---- */

#define GUARD 4096
#define GUARD_BYTE 0xA5

int gc_alloc_shifted(gc_buf *b, size_t bytes, size_t shift, char *err, size_t errsize)
{
    /* a band before the buffer too (a multiple of the driver's 256-byte
     * alignment, so that shift keeps its meaning) */
    b->bytes = bytes;
    int r = gc.dev->alloc(&b->base, GUARD + shift + bytes + GUARD);
    if (r) {
        snprintf(err, errsize, "%s(%zu) failed: %d", gc.dev->alloc_name,
                 GUARD + shift + bytes + GUARD, r);
        b->p = b->base = 0;
        return -1;
    }
    b->p = b->base + GUARD + shift;
    gc.dev->memset8(b->base, GUARD_BYTE, GUARD, NULL);
    gc.dev->memset8(b->p + bytes, GUARD_BYTE, GUARD, NULL);
    return 0;
}

int gc_alloc(gc_buf *b, size_t bytes, char *err, size_t errsize)
{
    return gc_alloc_shifted(b, bytes, 0, err, errsize);
}

void gc_free(gc_buf *b)
{
    if (b->base)
        gc.dev->release(b->base);
    b->p = b->base = 0;
}

int gc_guard_ok(const gc_buf *b)
{
    unsigned char g[GUARD];
    const gc_ptr bands[2] = {b->base, b->p + b->bytes};
    for (int k = 0; k < 2; k++) {
        if (gc.dev->download(g, bands[k], GUARD))
            return 0;
        for (int i = 0; i < GUARD; i++)
            if (g[i] != GUARD_BYTE)
                return 0;
    }
    return 1;
}

void *gc_addr(const gc_buf *b)
{
    return (void *)(uintptr_t)b->p;
}

int gc_poison(const gc_buf *b, gc_stream s)
{
    /* nothing for an empty buffer (a zero-width memset node may not capture) */
    return b->bytes ? gc.dev->memset8(b->p, 0xff, b->bytes, s) : 0;
}

int gc_upload(const gc_buf *b, const void *src)
{
    const int r = gc.dev->upload(b->p, src, b->bytes);
    return r ? r : gc.dev->sync_device(); /* see gpu_check.h */
}

int gc_download(void *dst, const gc_buf *b)
{
    return gc.dev->download(dst, b->p, b->bytes);
}

void gc_open_stream(prnnHandle_t dut, gc_stream *s)
{
    gc.dev->sync_device(); /* see gpu_check.h */
    *s = NULL;
    gc.dev->stream_create(s);
    prnnSetStream(dut, *s);
}

void gc_close_stream(prnnHandle_t dut, gc_stream s)
{
    prnnSetStream(dut, NULL);
    gc.dev->stream_destroy(s);
}

void gc_sync_or_die(gc_stream s, int index, const char *desc, const char *config)
{
    int r = gc.dev->stream_sync(s);
    if (r) {
        fprintf(stderr, "FATAL: the device faulted (%s) in case %d: %s [%s]\n",
                gc.dev->error_name(r), index, desc, config);
        exit(1); /* the context is gone: nothing else can run */
    }
}

/* ---- graph capture ---- */

int gc_can_capture(void)
{
    return gc.dev->capture_begin != NULL;
}

int gc_capture_replay(gc_stream s, gc_capture_mode mode, gc_enqueue_fn fn, void *ctx, int launches,
                      const char *what, char *err, size_t errsize)
{
    void *graph = NULL, *exec = NULL;
    char why[400];
    const int global = mode == GC_CAPTURE_GLOBAL;
    if (global)
        pthread_rwlock_wrlock(&unsafe_calls);
    int r = gc.dev->capture_begin(s, mode);
    if (r) {
        if (global)
            pthread_rwlock_unlock(&unsafe_calls);
        snprintf(err, errsize, "cuStreamBeginCapture: %d", r);
        return -1;
    }
    int failed = fn(ctx, why, sizeof(why));
    r = gc.dev->capture_end(s, &graph);
    if (global)
        pthread_rwlock_unlock(&unsafe_calls);
    if (failed) {
        snprintf(err, errsize, "%s under capture: %s", what, why);
        gc.dev->graph_destroy(NULL, graph);
        return -1;
    }
    if (r) {
        snprintf(err, errsize, "cuStreamEndCapture: %d (something in the call is not capturable)",
                 r);
        gc.dev->graph_destroy(NULL, graph);
        return -1;
    }
    r = gc.dev->graph_instantiate(&exec, graph);
    for (int i = 0; i < launches && !r; i++)
        r = gc.dev->graph_launch(exec, s);
    gc.dev->graph_destroy(exec, graph);
    if (r) {
        snprintf(err, errsize, "graph instantiate/launch: %d", r);
        return -1;
    }
    return 0;
}

int gc_run_count(int capture)
{
    return 2 + (capture && gc_can_capture());
}

int gc_run(gc_stream s, int run, gc_capture_mode mode, gc_enqueue_fn fn, void *ctx,
           const char *what, int index, const char *desc, const char *config, char *err,
           size_t errsize)
{
    char why[400];
    if (run < 2) {
        if (fn(ctx, why, sizeof(why))) {
            snprintf(err, errsize, "gpu %s: %s", what, why);
            return -1;
        }
    } else if (gc_capture_replay(s, mode, fn, ctx, 2, what, err, errsize)) {
        return -1; /* the same work captured into a graph and replayed twice */
    }
    gc_sync_or_die(s, index, desc, config);
    return 0;
}

/* ---- cases ---- */

const gc_sru_convention gc_sru_conventions[] = {
    {"", PRNN_SRU_CONVENTION_PRNN, PRNN_SRU_ACTIVATION_TANH, 1.0},
    /* the sru package's SRUCell defaults: rescale, highway_bias 0 */
    {" sru-pkg-id", PRNN_SRU_CONVENTION_SRU_PACKAGE, PRNN_SRU_ACTIVATION_IDENTITY,
     1.7320508075688772},
    {" sru-pkg-tanh", PRNN_SRU_CONVENTION_SRU_PACKAGE, PRNN_SRU_ACTIVATION_TANH, 0.8},
    {" sru-prnn-id", PRNN_SRU_CONVENTION_PRNN, PRNN_SRU_ACTIVATION_IDENTITY, 1.25},
};
const int gc_sru_convention_count =
    (int)(sizeof(gc_sru_conventions) / sizeof(gc_sru_conventions[0]));

void gc_describe(const gc_shape *s, const char *mid, const char *tail, char *buf, size_t n)
{
    snprintf(buf, n, "%s %s H=%d B=%d L=%d %s T=%d in=%d%s%s%s%s%s%s%s", prnn_mode_name(s->mode),
             prnn_dtype_name(s->dtype), s->hidden, s->batch, s->layers, s->dirs == 2 ? "bi" : "uni",
             s->steps, s->input, s->varlen ? " varlen" : "", s->skip ? " skip" : "",
             gc_sru_conventions[s->sru].name, mid,
             s->algo == PRNN_RNN_ALGO_STANDARD ? " standard" : "", tail,
             s->tile       ? " forced tile"
             : s->bwd_tile ? " forced backward tile"
                           : "");
}

int gc_default_steps(const gc_shape *s, double budget)
{
    double work = (double)prnn_cell_traits(s->mode)->gates * s->hidden * (double)s->hidden *
                  s->batch * s->layers * s->dirs;
    int t = (int)(budget / work);
    return t < 3 ? 3 : t > 24 ? 24 : t;
}

int gc_filter_match(const char *desc)
{
    if (!gc.filter)
        return 1;
    const char *part = gc.filter;
    for (;;) {
        const char *bar = strchr(part, '|');
        size_t len = bar ? (size_t)(bar - part) : strlen(part);
        char want[256];
        if (len >= sizeof(want))
            len = sizeof(want) - 1;
        memcpy(want, part, len);
        want[len] = 0;
        if (strstr(desc, want))
            return 1;
        if (!bar)
            return 0;
        part = bar + 1;
    }
}

static void push(gc_cases *v, const void *c)
{
    if (v->n == v->cap) {
        v->cap = v->cap ? 2 * v->cap : 256;
        v->items = realloc(v->items, v->size * (size_t)v->cap);
        if (!v->items) {
            fprintf(stderr, "out of host memory for %d cases\n", v->cap);
            exit(1);
        }
    }
    memcpy((char *)v->items + v->size * (size_t)v->n++, c, v->size);
}

void *gc_case(const gc_cases *v, int i)
{
    return (char *)v->items + v->size * (size_t)i;
}

gc_shape *gc_case_shape(const gc_cases *v, int i)
{
    return gc_case(v, i);
}

void gc_add(gc_cases *v, void *c)
{
    gc_shape *s = c;
    if (!s->input)
        s->input = s->hidden;
    if (!s->steps)
        s->steps = gc_default_steps(s, 4e7);
    char d[256];
    v->describe(c, d, sizeof(d));
    if (!gc_filter_match(d))
        return;
    for (int r = 0; r < (gc.repeat > 1 ? gc.repeat : 1); r++) /* --repeat: shake out races */
        push(v, c);
}

/* Forced tiles (see gpu_check.h); the suites pick from this one list. */
/* clang-format off */
const gc_forced_tile gc_forced_tiles[] = {
    {{.mode = PRNN_RNN_TANH, .hidden = 256, .batch = 64, .layers = 1, .dirs = 1,
      .dtype = PRNN_DATA_FLOAT},
     "blocks=4 threads=256 ksplit=8 lanes_k=1 batch_chunk=4 reg_slots=64 smem_slots=0 "
     "mma=0 handoff=0 batch_groups=16", 64, 20480},
    {{.mode = PRNN_LSTM, .hidden = 512, .batch = 16, .layers = 1, .dirs = 2,
      .dtype = PRNN_DATA_HALF, .varlen = 1, .steps = 12},
     "blocks=16 threads=256 ksplit=8 lanes_k=1 batch_chunk=4 reg_slots=64 smem_slots=64 "
     "mma=1 handoff=1 batch_groups=4", 128, 107520},
    {{.mode = PRNN_LSTM, .hidden = 1024, .batch = 8, .layers = 1, .dirs = 1,
      .dtype = PRNN_DATA_HALF, .varlen = 1, .steps = 10},
     "blocks=32 threads=256 ksplit=8 lanes_k=1 batch_chunk=4 reg_slots=32 smem_slots=0 "
     "mma=1 handoff=0 batch_groups=2", 64, 50176},
    {{.mode = PRNN_GRU, .hidden = 100, .batch = 7, .layers = 2, .dirs = 2,
      .dtype = PRNN_DATA_BFLOAT16, .varlen = 1, .steps = 9, .input = 37},
     "blocks=4 threads=128 ksplit=4 lanes_k=2 batch_chunk=2 reg_slots=65 smem_slots=0 "
     "mma=0 handoff=0 batch_groups=2", 16, 5632},
    {{.mode = PRNN_RNN_RELU, .hidden = 72, .batch = 5, .layers = 2, .dirs = 1,
      .dtype = PRNN_DATA_DOUBLE, .varlen = 1, .steps = 8},
     "blocks=3 threads=128 ksplit=4 lanes_k=1 batch_chunk=1 reg_slots=36 smem_slots=0 "
     "mma=0 handoff=1 batch_groups=5", 15, 2112},
    {{.mode = PRNN_LSTM, .hidden = 256, .batch = 3, .layers = 1, .dirs = 1,
      .dtype = PRNN_DATA_HALF},
     "blocks=16 threads=256 ksplit=8 lanes_k=2 batch_chunk=3 reg_slots=64 smem_slots=0 "
     "mma=0 handoff=0 batch_groups=1", 16, 15360},
    {{.mode = PRNN_LSTM, .hidden = 1024, .batch = 4, .layers = 1, .dirs = 1,
      .dtype = PRNN_DATA_FLOAT, .steps = 10},
     "blocks=32 threads=256 ksplit=8 lanes_k=1 batch_chunk=2 reg_slots=16 smem_slots=0 "
     "mma=0 handoff=0 batch_groups=2", 64, 24576},
    {{.mode = PRNN_RNN_TANH, .hidden = 96, .batch = 8, .layers = 2, .dirs = 2,
      .dtype = PRNN_DATA_FLOAT, .skip = 1, .varlen = 1, .steps = 10},
     "blocks=3 threads=128 ksplit=4 lanes_k=1 batch_chunk=1 reg_slots=24 smem_slots=0 "
     "mma=0 handoff=0 batch_groups=8", 48, 1408},
};
/* clang-format on */
const int gc_forced_tile_count = (int)(sizeof(gc_forced_tiles) / sizeof(gc_forced_tiles[0]));

void gc_add_forced_tiles(gc_cases *v, const int *which, int n, void (*adapt)(void *c))
{
    gc_add_tile_cases(v, gc_forced_tiles, which, n, adapt);
}

void gc_add_tile_cases(gc_cases *v, const gc_forced_tile *tiles, const int *which, int n,
                       void (*adapt)(void *c))
{
    int left_out = 0;
    void *c = malloc(v->size);
    if (!c) {
        fprintf(stderr, "out of host memory\n");
        exit(1);
    }
    for (int i = 0; i < n; i++) {
        const gc_forced_tile *f = &tiles[which ? which[i] : i];
        if (gc.self_test || gc.sms < f->sms || gc.smem_optin < f->smem) {
            left_out++;
            continue;
        }
        memset(c, 0, v->size);
        gc_shape *s = c;
        *s = f->s;
        s->tile = f->tile;
        if (adapt)
            adapt(c);
        gc_add(v, c);
    }
    free(c);
    if (left_out && gc.self_test)
        printf("note: %d forced-tile case(s) left out: the self-test has no GPU\n", left_out);
    else if (left_out)
        printf("note: %d forced-tile case(s) left out: this GPU has %d SMs and %d bytes of shared "
               "memory per block, too few for them\n",
               left_out, gc.sms, gc.smem_optin);
}

/* ---- the descriptors of one case ---- */

static void set_tensor3(prnnTensorDescriptor_t d, prnnDataType_t t, int a, int b, int c)
{
    int dims[3] = {a, b, c}, strides[3] = {b * c, c, 1};
    prnnSetTensorNdDescriptor(d, t, 3, dims, strides);
}

int gc_problem_init(gc_problem *p, const gc_shape *s, prnnHandle_t ref,
                    unsigned long long dropout_seed, char *err, size_t errsize)
{
    const int T = s->steps, dirs = s->dirs;
    const prnnDataType_t dt = s->dtype;
    memset(p, 0, sizeof(*p));
    p->steps = T;
    p->es = prnn_dtype_size(dt);
    p->xd = calloc((size_t)T, sizeof(*p->xd));
    p->yd = calloc((size_t)T, sizeof(*p->yd));
    p->batch = calloc((size_t)T, sizeof(int));
    if (!p->xd || !p->yd || !p->batch) {
        snprintf(err, errsize, "out of host memory");
        return -1;
    }
    for (int t = 0; t < T; t++) {
        int b = s->batch;
        if (s->varlen && s->batch > 1) /* shrink in three stages to 1 */
            b = t < T / 3 ? s->batch : t < 2 * T / 3 ? (s->batch + 1) / 2 : 1;
        p->batch[t] = b;
        p->rows += (size_t)b;
    }
    prnnDropoutDescriptor_t drop = NULL;
    if (s->dropout > 0) {
        prnnCreateDropoutDescriptor(&drop);
        if (prnnSetDropoutDescriptor(drop, ref, s->dropout, dropout_seed)) {
            snprintf(err, errsize, "prnnSetDropoutDescriptor: %s", prnnGetLastErrorLog());
            prnnDestroyDropoutDescriptor(drop);
            return -1;
        }
    }
    prnnCreateRNNDescriptor(&p->rnn);
    prnnStatus_t st = prnnSetRNNDescriptor(
        p->rnn, s->hidden, s->layers, drop, s->skip ? PRNN_SKIP_INPUT : PRNN_LINEAR_INPUT,
        dirs == 2 ? PRNN_BIDIRECTIONAL : PRNN_UNIDIRECTIONAL, s->mode, dt);
    prnnDestroyDropoutDescriptor(drop); /* rnnDesc holds a copy */
    if (st) {
        snprintf(err, errsize, "prnnSetRNNDescriptor: %s", prnnGetLastErrorLog());
        return -1;
    }
    prnnSetRNNAlgorithm(p->rnn, s->algo);
    if (s->sru) {
        const gc_sru_convention *c = &gc_sru_conventions[s->sru];
        if (prnnSetRNNSRUConvention(p->rnn, c->convention, c->activation, c->scale)) {
            snprintf(err, errsize, "prnnSetRNNSRUConvention: %s", prnnGetLastErrorLog());
            return -1;
        }
    }
    for (int t = 0; t < T; t++) {
        prnnCreateTensorDescriptor(&p->xd[t]);
        prnnCreateTensorDescriptor(&p->yd[t]);
        set_tensor3(p->xd[t], dt, p->batch[t], s->input, 1);
        set_tensor3(p->yd[t], dt, p->batch[t], s->hidden * dirs, 1);
    }
    prnnCreateTensorDescriptor(&p->hd);
    set_tensor3(p->hd, dt, s->layers * dirs, s->batch, s->hidden);
    if (prnnGetRNNParamsSize(ref, p->rnn, p->xd[0], &p->wbytes, dt)) {
        snprintf(err, errsize, "params size: %s", prnnGetLastErrorLog());
        return -1;
    }
    prnnCreateFilterDescriptor(&p->wd);
    int wdims[3] = {(int)(p->wbytes / p->es), 1, 1};
    prnnSetFilterNdDescriptor(p->wd, dt, PRNN_TENSOR_NCHW, 3, wdims);
    p->xbytes = p->rows * (size_t)s->input * p->es;
    p->ybytes = p->rows * (size_t)s->hidden * dirs * p->es;
    p->sbytes = (size_t)s->layers * dirs * s->batch * s->hidden * p->es;
    return 0;
}

void gc_problem_free(gc_problem *p)
{
    for (int t = 0; t < p->steps; t++) {
        if (p->xd && p->xd[t])
            prnnDestroyTensorDescriptor(p->xd[t]);
        if (p->yd && p->yd[t])
            prnnDestroyTensorDescriptor(p->yd[t]);
    }
    prnnDestroyTensorDescriptor(p->hd);
    prnnDestroyFilterDescriptor(p->wd);
    pthread_rwlock_rdlock(&unsafe_calls); /* its plans' modules and buffers go */
    prnnDestroyRNNDescriptor(p->rnn);
    pthread_rwlock_unlock(&unsafe_calls);
    free(p->xd);
    free(p->yd);
    free(p->batch);
    memset(p, 0, sizeof(*p));
}

/* The plan of s on dut: 0, or -1 with err set. */
static int plan_info(prnnHandle_t dut, const gc_problem *p, const gc_shape *s,
                     prnnRNNPlanInfo_t *info, char *err, size_t errsize)
{
    memset(info, 0, sizeof(*info));
    info->structSize = sizeof(*info);
    if (prnnGetRNNPlanInfo(dut, p->rnn, s->batch, s->dtype, info)) {
        snprintf(err, errsize, "plan info: %s", prnnGetLastErrorLog());
        return -1;
    }
    return 0;
}

int gc_call_graph_replays(prnnHandle_t dut, const gc_problem *p, const gc_shape *s,
                          unsigned long long *replays, char *err, size_t errsize)
{
    prnnRNNPlanInfo_t info;
    if (plan_info(dut, p, s, &info, err, errsize))
        return -1;
    const char *off = getenv("PRNN_CALL_GRAPHS");
    if (info.path == PRNN_PATH_CPU_REFERENCE || (off && strcmp(off, "0") == 0))
        return 1;
    if (!info.callGraphs) {
        snprintf(err, errsize, "the plan's call graphs are off (%d captured, %llu replays): %s",
                 info.callGraphsCaptured, info.callGraphReplays, prnnGetLastErrorLog());
        return -1;
    }
    *replays = info.callGraphReplays;
    return 0;
}

int gc_plan(prnnHandle_t dut, const gc_problem *p, const gc_shape *s, int autotune, gc_result *r)
{
    char *err = r->problem;
    const size_t errsize = sizeof(r->problem);
    /* Plan (compile) outside the GPU lock: it only needs the CPU. An
     * autotuned plan runs kernels, so it takes the lock (two cooperative
     * grids must not compete for the SMs). */
    if (autotune) {
        pthread_mutex_lock(&gc_gpu_lock);
        prnnSetAutotuneMode(dut, PRNN_AUTOTUNE_ON);
    }
    pthread_rwlock_rdlock(&unsafe_calls);
    prnnStatus_t st = prnnPrepareRNN(dut, p->rnn, s->batch, s->dtype);
    pthread_rwlock_unlock(&unsafe_calls);
    if (autotune) {
        prnnSetAutotuneMode(dut, PRNN_AUTOTUNE_OFF);
        pthread_mutex_unlock(&gc_gpu_lock);
    }
    if (st) {
        snprintf(err, errsize, "prnnPrepareRNN: %s: %s", prnnGetErrorString(st),
                 prnnGetLastErrorLog());
        return -1;
    }
    prnnRNNPlanInfo_t info;
    if (plan_info(dut, p, s, &info, err, errsize))
        return -1;
    /* the library's path name, short ("resident" for "persistent-resident");
     * a sequence short enough runs on a short slot's engine and
     * configuration */
    const char *path = info.path == PRNN_PATH_CPU_REFERENCE ? "cpu"
                                                            : prnnGetRNNPathString(info.path);
    const char *config = info.config;
    for (int i = 0; i < info.shortSlots && i < 3; i++)
        if (s->steps <= info.shortSlotMaxSeqLength[i]) {
            if (strcmp(info.shortSlotEngine[i], info.engine) != 0)
                path = info.shortSlotEngine[i];
            config = info.shortSlotConfig[i];
            break;
        }
    if (strncmp(path, "persistent-", 11) == 0)
        path += 11;
    snprintf(r->path, sizeof(r->path), "%s", path);
    snprintf(r->config, sizeof(r->config), "%s", config);
    /* The self-test's CPU handle plans nothing: no source to check; an
     * engine forced by $PRNN_ENGINE may have no configuration to tune. */
    const char *forced_engine = getenv("PRNN_ENGINE");
    if (autotune && !gc.self_test && !(forced_engine && forced_engine[0]) &&
        info.configSource != PRNN_CONFIG_AUTOTUNED) {
        snprintf(err, errsize,
                 "autotune mode on, but the plan's configuration source is %d, not "
                 "PRNN_CONFIG_AUTOTUNED",
                 (int)info.configSource);
        return -1;
    }
    if (s->tile && strcmp(info.config, s->tile) != 0) {
        snprintf(err, errsize, "the plan runs \"%s\", not the forced tile \"%s\" (log: %s)",
                 info.config, s->tile, prnnGetLastErrorLog());
        return -1;
    }
    if (s->bwd_tile && strcmp(info.backwardConfig, s->bwd_tile) != 0) {
        snprintf(err, errsize,
                 "the plan's backward-data pass runs \"%s\", not the forced tile \"%s\" (log: %s)",
                 info.backwardConfig, s->bwd_tile, prnnGetLastErrorLog());
        return -1;
    }
    return 0;
}

/* ---- running a suite ---- */

/* A reference handle and the device under test; the harness cannot go on
 * without them. */
static void open_handles(gc_handles *h)
{
    prnnStatus_t s = prnnCreateWithBackend(&h->ref, PRNN_BACKEND_CPU_REFERENCE);
    if (!s)
        s = gc.self_test ? prnnCreateWithBackend(&h->dut, PRNN_BACKEND_CPU_REFERENCE)
                         : prnnCreate(&h->dut);
    if (s) {
        fprintf(stderr, "cannot create handles: %s\n", prnnGetLastErrorLog());
        exit(1);
    }
}

static void close_handles(gc_handles *h)
{
    prnnDestroy(h->ref);
    prnnDestroy(h->dut);
}

/* The suite gc_run_suite's workers run (set before they start). */
static const gc_suite *running_suite;

static void *worker(void *arg)
{
    (void)arg;
    const gc_suite *suite = running_suite;
    gc_handles h;
    pthread_rwlock_rdlock(&unsafe_calls); /* its streams, buffers and cuBLASLt handle */
    open_handles(&h);
    pthread_rwlock_unlock(&unsafe_calls);
    /* The harness's own driver calls need the context current here. */
    if (!gc.self_test)
        cu->cuCtxSetCurrent(primary_ctx);
    for (;;) {
        pthread_mutex_lock(&gc_print_lock);
        int i = next_case++;
        pthread_mutex_unlock(&gc_print_lock);
        if (i >= suite->cases->n)
            break;
        const gc_shape *shape = gc_case_shape(suite->cases, i);
        if (shape->tile || shape->bwd_tile)
            continue; /* after the pool, alone */
        suite->run(i, &h);
        suite->report(i);
    }
    pthread_rwlock_rdlock(&unsafe_calls);
    close_handles(&h);
    pthread_rwlock_unlock(&unsafe_calls);
    return NULL;
}

void gc_run_suite(const gc_suite *suite)
{
    pthread_t tid[32];
    next_case = 0;
    running_suite = suite;
    for (int i = 0; i < gc.threads; i++)
        pthread_create(&tid[i], NULL, worker, NULL);
    for (int i = 0; i < gc.threads; i++)
        pthread_join(tid[i], NULL);
    for (int i = 0; i < suite->cases->n; i++) {
        const gc_shape *shape = gc_case_shape(suite->cases, i);
        if (!shape->tile && !shape->bwd_tile)
            continue;
        gc_handles h;
        open_handles(&h);
        for (const char *const *v = suite->tile_vars; *v; v++) {
            const char *tile = shape->bwd_tile && strcmp(*v, "PRNN_TILE_BACKWARD") == 0
                                   ? shape->bwd_tile
                                   : shape->tile;
            if (tile)
                setenv(*v, tile, 1);
            else
                unsetenv(*v);
        }
        suite->run(i, &h);
        for (const char *const *v = suite->tile_vars; *v; v++)
            unsetenv(*v);
        suite->report(i);
        close_handles(&h);
    }
}

int gc_main(int argc, char **argv, const char *prog, void (*build)(int full), const gc_suite *suite)
{
    gc_parse_args(argc, argv);
    int r = gc_start();
    if (r)
        return r;
    build(gc.full);
    const gc_cases *v = suite->cases;
    gc_print_header(prog, v->n);
    if (gc.list) {
        for (int i = 0; i < v->n; i++) {
            char d[256];
            v->describe(gc_case(v, i), d, sizeof(d));
            printf("%s\n", d);
        }
        return gc_finish(v->n, v->n);
    }
    gc_run_suite(suite);
    return -1;
}
