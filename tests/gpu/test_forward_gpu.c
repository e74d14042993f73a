/*
 * GPU forward inference against the CPU reference, checkasm-style.
 *
 * Every case: seeded random weights, inputs and initial states (the seed is
 * printed; never zeros), outputs poisoned with NaN before the run and checked
 * for unwritten elements, a guard band after every output checked for
 * overwrites, relative error ||gpu - ref|| / ||ref|| per output against a
 * tolerance per data type, and a second run that must give identical bits.
 * Some cases also replay the call from a captured CUDA graph.
 *
 * Exit 77 when there is no GPU (meson: SKIP); any failure with a GPU present
 * exits 1. Usage: test_forward_gpu [--quick|--full] [--seed N] [--threads N]
 *                 [--filter SUBSTRING] [--verbose] [--repeat N]
 */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cuda/cuda_driver.h"
#include "dtype.h"
#include "prnn.h"

typedef struct {
    prnnRNNMode_t mode;
    int hidden, batch, layers, dirs, steps, input;
    prnnDataType_t dtype;
    int varlen;   /* batch sizes shrink over time */
    int skip;     /* SKIP_INPUT */
    int null_hx;  /* hx, cx NULL */
    int null_hy;  /* hy, cy NULL */
    int capture;  /* also replay from a CUDA graph */
    int autotune; /* plan with the handle's autotune mode on */
    const char *tile; /* forced tile ($PRNN_TILE, normalised text form): run
                       * alone, after the others, on fresh handles */
    prnnRNNAlgo_t algo;
    /* results */
    int done, pass;
    double err_y, err_hy, err_cy, tol;
    char path[32];
    char config[256];
    char problem[400];
} tcase;

static const prnn_cuda_driver *cu;
static CUcontext primary_ctx;
static pthread_mutex_t gpu_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long long global_seed;
static int verbose;
static int repeat = 1;
static int device_sms, device_smem_optin; /* device 0: SMs, shared memory per block */

static const char *mode_name(prnnRNNMode_t m)
{
    static const char *n[] = {"relu", "tanh", "lstm", "gru", "sru"};
    return (unsigned)m < 5 ? n[m] : "?";
}

static void describe(const tcase *c, char *buf, size_t n)
{
    snprintf(buf, n, "%s %s H=%d B=%d L=%d %s T=%d in=%d%s%s%s%s%s%s%s", mode_name(c->mode),
             prnn_dtype_name(c->dtype), c->hidden, c->batch, c->layers,
             c->dirs == 2 ? "bi" : "uni", c->steps, c->input, c->varlen ? " varlen" : "",
             c->skip ? " skip" : "", c->null_hx ? " hx=NULL" : "", c->null_hy ? " hy=NULL" : "",
             c->algo == PRNN_RNN_ALGO_STANDARD ? " standard" : "",
             c->autotune ? " autotune" : "", c->tile ? " forced tile" : "");
}

/* ---- random data ---- */

static double rnd(unsigned long long *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return (double)(*s >> 11) * (1.0 / 9007199254740992.0) * 2.0 - 1.0;
}

static void fill(void *buf, prnnDataType_t t, size_t n, double scale, unsigned long long *s)
{
    for (size_t i = 0; i < n; i++) {
        double v = scale * rnd(s);
        if (v == 0.0)
            v = scale * 0.5; /* never zeros */
        prnn_store_from_double(buf, t, i, v);
    }
}

/* ---- device buffers with guard bands ---- */

#define GUARD 4096
#define GUARD_BYTE 0xA5

typedef struct {
    CUdeviceptr p;
    size_t bytes;
} dbuf;

static int dalloc(dbuf *b, size_t bytes, char *err, size_t en)
{
    b->bytes = bytes;
    CUresult r = cu->cuMemAlloc(&b->p, bytes + GUARD);
    if (r != CUDA_SUCCESS) {
        snprintf(err, en, "cuMemAlloc(%zu) failed: %d", bytes + GUARD, (int)r);
        b->p = 0;
        return -1;
    }
    cu->cuMemsetD8Async(b->p + bytes, GUARD_BYTE, GUARD, NULL);
    return 0;
}

static void dfree(dbuf *b)
{
    if (b->p)
        cu->cuMemFree(b->p);
    b->p = 0;
}

static int guard_ok(const dbuf *b)
{
    unsigned char g[GUARD];
    if (cu->cuMemcpyDtoH(g, b->p + b->bytes, GUARD) != CUDA_SUCCESS)
        return 0;
    for (int i = 0; i < GUARD; i++)
        if (g[i] != GUARD_BYTE)
            return 0;
    return 1;
}

/* ---- one case ---- */

typedef struct {
    prnnHandle_t cpu, gpu;
} worker_handles;

static void set_tensor3(prnnTensorDescriptor_t d, prnnDataType_t t, int a, int b, int c)
{
    int dims[3] = {a, b, c}, strides[3] = {b * c, c, 1};
    prnnSetTensorNdDescriptor(d, t, 3, dims, strides);
}

static double rel_err(const void *got, const void *ref, prnnDataType_t t, size_t n,
                      size_t *nan_count)
{
    double num = 0, den = 0;
    *nan_count = 0;
    for (size_t i = 0; i < n; i++) {
        double a = prnn_load_as_double(got, t, i), r = prnn_load_as_double(ref, t, i);
        if (a != a) {
            (*nan_count)++;
            continue;
        }
        num += (a - r) * (a - r);
        den += r * r;
    }
    return den > 0 ? sqrt(num / den) : sqrt(num);
}

#define FAILF(...)                                                             \
    do {                                                                       \
        snprintf(c->problem, sizeof(c->problem), __VA_ARGS__);                 \
        goto out;                                                              \
    } while (0)

static void run_case(tcase *c, int index, worker_handles *wh)
{
    const prnnDataType_t dt = c->dtype;
    const size_t es = prnn_dtype_size(dt);
    const int H = c->hidden, T = c->steps, dirs = c->dirs;
    unsigned long long seed = global_seed * 1000003ull + (unsigned long long)index * 7919ull + 1;
    prnnRNNDescriptor_t rnn = NULL;
    prnnTensorDescriptor_t *xd = calloc((size_t)T, sizeof(*xd));
    prnnTensorDescriptor_t *yd = calloc((size_t)T, sizeof(*yd));
    prnnTensorDescriptor_t hd = NULL;
    prnnFilterDescriptor_t wd = NULL;
    int *batch = calloc((size_t)T, sizeof(int));
    void *hw = NULL, *hx = NULL, *hhx = NULL, *hcx = NULL, *ref_y = NULL, *ref_hy = NULL;
    void *ref_cy = NULL, *got = NULL, *got2 = NULL, *cws = NULL;
    dbuf dx = {0}, dy = {0}, dhx = {0}, dcx = {0}, dhy = {0}, dcy = {0}, dw = {0}, dws = {0};
    int locked = 0;
    c->done = 1;
    c->pass = 0;
    c->tol = dt == PRNN_DATA_FLOAT ? 1e-5 : dt == PRNN_DATA_DOUBLE ? 1e-10 : 1e-2;
    if (!xd || !yd || !batch)
        FAILF("out of host memory");

    size_t rows = 0;
    for (int t = 0; t < T; t++) {
        int b = c->batch;
        if (c->varlen && c->batch > 1) /* shrink in three stages to 1 */
            b = t < T / 3 ? c->batch : t < 2 * T / 3 ? (c->batch + 1) / 2 : 1;
        batch[t] = b;
        rows += (size_t)b;
    }
    prnnCreateRNNDescriptor(&rnn);
    prnnStatus_t s = prnnSetRNNDescriptor(rnn, H, c->layers, NULL,
                                          c->skip ? PRNN_SKIP_INPUT : PRNN_LINEAR_INPUT,
                                          dirs == 2 ? PRNN_BIDIRECTIONAL : PRNN_UNIDIRECTIONAL,
                                          c->mode, dt);
    if (s)
        FAILF("prnnSetRNNDescriptor: %s", prnnGetLastErrorLog());
    prnnSetRNNAlgorithm(rnn, c->algo);
    for (int t = 0; t < T; t++) {
        prnnCreateTensorDescriptor(&xd[t]);
        prnnCreateTensorDescriptor(&yd[t]);
        set_tensor3(xd[t], dt, batch[t], c->input, 1);
        set_tensor3(yd[t], dt, batch[t], H * dirs, 1);
    }
    prnnCreateTensorDescriptor(&hd);
    set_tensor3(hd, dt, c->layers * dirs, c->batch, H);
    size_t wbytes;
    if ((s = prnnGetRNNParamsSize(wh->cpu, rnn, xd[0], &wbytes, dt)))
        FAILF("params size: %s", prnnGetLastErrorLog());
    prnnCreateFilterDescriptor(&wd);
    int wdims[3] = {(int)(wbytes / es), 1, 1};
    prnnSetFilterNdDescriptor(wd, dt, PRNN_TENSOR_NCHW, 3, wdims);
    size_t xbytes = rows * (size_t)c->input * es, ybytes = rows * (size_t)H * dirs * es;
    size_t sbytes = (size_t)c->layers * dirs * c->batch * H * es;
    hw = malloc(wbytes);
    hx = malloc(xbytes);
    hhx = malloc(sbytes);
    hcx = malloc(sbytes);
    ref_y = malloc(ybytes);
    ref_hy = malloc(sbytes);
    ref_cy = malloc(sbytes);
    got = malloc(ybytes > sbytes ? ybytes : sbytes);
    got2 = malloc(ybytes > sbytes ? ybytes : sbytes);
    if (!hw || !hx || !hhx || !hcx || !ref_y || !ref_hy || !ref_cy || !got || !got2)
        FAILF("out of host memory");
    fill(hw, dt, wbytes / es, 1.0 / sqrt((double)H), &seed);
    fill(hx, dt, xbytes / es, 1.0, &seed);
    fill(hhx, dt, sbytes / es, 0.8, &seed);
    fill(hcx, dt, sbytes / es, 0.8, &seed);
    int lstm = c->mode == PRNN_LSTM;

    /* The reference, on the CPU backend through the same API. */
    size_t cws_bytes;
    if ((s = prnnGetRNNWorkspaceSize(wh->cpu, rnn, T, xd, &cws_bytes)))
        FAILF("cpu workspace size: %s", prnnGetLastErrorLog());
    cws = malloc(cws_bytes ? cws_bytes : 1);
    if (!cws)
        FAILF("out of host memory");
    s = prnnRNNForwardInference(wh->cpu, rnn, T, xd, hx, hd, c->null_hx ? NULL : hhx, hd,
                                c->null_hx ? NULL : hcx, wd, hw, yd, ref_y, hd, ref_hy, hd,
                                ref_cy, cws, cws_bytes);
    if (s)
        FAILF("cpu reference: %s", prnnGetLastErrorLog());

    /* Plan (compile) outside the GPU lock: it only needs the CPU. An
     * autotuned plan runs kernels, so it takes the lock (two cooperative
     * grids must not compete for the SMs). */
    if (c->autotune) {
        pthread_mutex_lock(&gpu_lock);
        prnnSetAutotuneMode(wh->gpu, PRNN_AUTOTUNE_ON);
    }
    s = prnnPrepareRNN(wh->gpu, rnn, c->batch, dt);
    if (c->autotune) {
        prnnSetAutotuneMode(wh->gpu, PRNN_AUTOTUNE_OFF);
        pthread_mutex_unlock(&gpu_lock);
    }
    if (s)
        FAILF("prnnPrepareRNN: %s: %s", prnnGetErrorString(s), prnnGetLastErrorLog());
    prnnRNNPlanInfo_t info;
    memset(&info, 0, sizeof(info));
    info.structSize = sizeof(info);
    if ((s = prnnGetRNNPlanInfo(wh->gpu, rnn, c->batch, dt, &info)))
        FAILF("plan info: %s", prnnGetLastErrorLog());
    snprintf(c->path, sizeof(c->path), "%s",
             info.path == PRNN_PATH_PERSISTENT_RESIDENT   ? "resident"
             : info.path == PRNN_PATH_PERSISTENT_STREAMED ? "streamed"
             : info.path == PRNN_PATH_STANDARD            ? "standard"
                                                          : "?");
    snprintf(c->config, sizeof(c->config), "%s", info.config);
    if (c->autotune && info.configSource != PRNN_CONFIG_AUTOTUNED)
        FAILF("autotune mode on, but the plan's configuration source is %d, not "
              "PRNN_CONFIG_AUTOTUNED", (int)info.configSource);
    if (c->tile && strcmp(info.config, c->tile) != 0)
        FAILF("the plan runs \"%s\", not the forced tile \"%s\" (log: %s)", info.config,
              c->tile, prnnGetLastErrorLog());
    size_t gws_bytes;
    if ((s = prnnGetRNNWorkspaceSize(wh->gpu, rnn, T, xd, &gws_bytes)))
        FAILF("gpu workspace size: %s", prnnGetLastErrorLog());

    pthread_mutex_lock(&gpu_lock);
    locked = 1;
    char err[128];
    if (dalloc(&dx, xbytes, err, sizeof(err)) || dalloc(&dy, ybytes, err, sizeof(err)) ||
        dalloc(&dhx, sbytes, err, sizeof(err)) || dalloc(&dcx, sbytes, err, sizeof(err)) ||
        dalloc(&dhy, sbytes, err, sizeof(err)) || dalloc(&dcy, sbytes, err, sizeof(err)) ||
        dalloc(&dw, wbytes, err, sizeof(err)) || dalloc(&dws, gws_bytes, err, sizeof(err)))
        FAILF("%s", err);
    cu->cuMemcpyHtoD(dx.p, hx, xbytes);
    cu->cuMemcpyHtoD(dhx.p, hhx, sbytes);
    cu->cuMemcpyHtoD(dcx.p, hcx, sbytes);
    cu->cuMemcpyHtoD(dw.p, hw, wbytes);
    /* cuMemcpyHtoD from pageable memory may return before the DMA lands, and
     * the non-blocking stream below does not wait for the legacy stream:
     * without this, a fast kernel can read half-uploaded weights (seen once
     * in 825 cases, as a wrong and non-repeatable result). The guard-band
     * memsets (legacy stream) must also land before the kernel runs. */
    cu->cuCtxSynchronize();
    CUstream stream = NULL;
    cu->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING);
    prnnSetStream(wh->gpu, (struct CUstream_st *)stream);
    for (int run = 0; run < 2 + c->capture; run++) {
        /* Poison: 0xFF bytes are NaN in every floating type. */
        cu->cuMemsetD8Async(dy.p, 0xff, ybytes, stream);
        cu->cuMemsetD8Async(dhy.p, 0xff, sbytes, stream);
        cu->cuMemsetD8Async(dcy.p, 0xff, sbytes, stream);
        cu->cuMemsetD8Async(dws.p, 0xff, gws_bytes, stream);
        void *hyp = c->null_hy ? NULL : (void *)dhy.p;
        void *cyp = c->null_hy || !lstm ? NULL : (void *)dcy.p;
        const void *hxp = c->null_hx ? NULL : (const void *)dhx.p;
        const void *cxp = c->null_hx ? NULL : (const void *)dcx.p;
        if (run < 2) {
            s = prnnRNNForwardInference(wh->gpu, rnn, T, xd, (void *)dx.p, hd, hxp, hd, cxp, wd,
                                        (void *)dw.p, yd, (void *)dy.p, hd, hyp, hd, cyp,
                                        (void *)dws.p, gws_bytes);
            if (s)
                FAILF("gpu forward: %s: %s", prnnGetErrorString(s), prnnGetLastErrorLog());
        } else {
            /* The same call captured into a graph and replayed. */
            CUgraph graph = NULL;
            CUgraphExec exec = NULL;
            CUresult r = cu->cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_GLOBAL);
            if (r)
                FAILF("cuStreamBeginCapture: %d", (int)r);
            s = prnnRNNForwardInference(wh->gpu, rnn, T, xd, (void *)dx.p, hd, hxp, hd, cxp, wd,
                                        (void *)dw.p, yd, (void *)dy.p, hd, hyp, hd, cyp,
                                        (void *)dws.p, gws_bytes);
            r = cu->cuStreamEndCapture(stream, &graph);
            if (s)
                FAILF("forward under capture: %s: %s", prnnGetErrorString(s),
                      prnnGetLastErrorLog());
            if (r)
                FAILF("cuStreamEndCapture: %d (something in the call is not capturable)",
                      (int)r);
            r = cu->cuGraphInstantiate(&exec, graph, 0);
            if (!r)
                r = cu->cuGraphLaunch(exec, stream);
            if (!r)
                r = cu->cuGraphLaunch(exec, stream); /* replays must not interfere */
            if (exec)
                cu->cuGraphExecDestroy(exec);
            cu->cuGraphDestroy(graph);
            if (r)
                FAILF("graph instantiate/launch: %d", (int)r);
        }
        CUresult r = cu->cuStreamSynchronize(stream);
        if (r) {
            const char *name = "?";
            cu->cuGetErrorName(r, &name);
            fprintf(stderr, "FATAL: the device faulted (%s) in case %d: ", name, index);
            char d[200];
            describe(c, d, sizeof(d));
            fprintf(stderr, "%s [%s]\n", d, c->config);
            exit(1); /* the context is gone: nothing else can run */
        }
        void *dst = run == 0 ? got : got2;
        cu->cuMemcpyDtoH(dst, dy.p, ybytes);
        if (run == 0) {
            size_t nan;
            c->err_y = rel_err(got, ref_y, dt, ybytes / es, &nan);
            if (nan)
                FAILF("%zu of %zu y elements unwritten (NaN) or NaN", nan, ybytes / es);
            if (!c->null_hy) {
                cu->cuMemcpyDtoH(got2, dhy.p, sbytes);
                c->err_hy = rel_err(got2, ref_hy, dt, sbytes / es, &nan);
                if (nan)
                    FAILF("%zu hy elements unwritten", nan);
                if (lstm) {
                    cu->cuMemcpyDtoH(got2, dcy.p, sbytes);
                    c->err_cy = rel_err(got2, ref_cy, dt, sbytes / es, &nan);
                    if (nan)
                        FAILF("%zu cy elements unwritten", nan);
                }
            }
        } else if (memcmp(got, got2, ybytes) != 0) {
            FAILF("%s gave different bits than the first run",
                  run == 1 ? "a second identical call" : "the graph replay");
        }
        const dbuf *outs[] = {&dy, &dhy, &dcy, &dws};
        const char *names[] = {"y", "hy", "cy", "workspace"};
        for (int i = 0; i < 4; i++)
            if (!guard_ok(outs[i]))
                FAILF("guard band after %s overwritten", names[i]);
    }
    if (c->err_y > c->tol || c->err_hy > c->tol || c->err_cy > c->tol)
        FAILF("relative error y %.2e hy %.2e cy %.2e > %.0e", c->err_y, c->err_hy, c->err_cy,
              c->tol);
    c->pass = 1;
out:
    if (locked) {
        if (stream) {
            prnnSetStream(wh->gpu, NULL);
            cu->cuStreamDestroy(stream);
        }
        dbuf *all[] = {&dx, &dy, &dhx, &dcx, &dhy, &dcy, &dw, &dws};
        for (int i = 0; i < 8; i++)
            dfree(all[i]);
        pthread_mutex_unlock(&gpu_lock);
    }
    for (int t = 0; t < T; t++) {
        if (xd && xd[t])
            prnnDestroyTensorDescriptor(xd[t]);
        if (yd && yd[t])
            prnnDestroyTensorDescriptor(yd[t]);
    }
    prnnDestroyTensorDescriptor(hd);
    prnnDestroyFilterDescriptor(wd);
    prnnDestroyRNNDescriptor(rnn);
    free(xd);
    free(yd);
    free(batch);
    free(hw);
    free(hx);
    free(hhx);
    free(hcx);
    free(ref_y);
    free(ref_hy);
    free(ref_cy);
    free(got);
    free(got2);
    free(cws);
}

/* ---- the sweep ---- */

static tcase *cases;
static int ncases, cap, next_case;
static const char *filter;

static void add(tcase c)
{
    if (!c.input)
        c.input = c.hidden;
    if (!c.steps) {
        /* Enough steps to use both hand-off parities many times, few enough
         * that the double-precision reference stays quick. */
        double work = (double)(c.mode == PRNN_LSTM ? 4 : c.mode == PRNN_GRU ? 3 : 1) *
                      c.hidden * (double)c.hidden * c.batch * c.layers * c.dirs;
        int t = (int)(4e7 / work);
        c.steps = t < 3 ? 3 : t > 24 ? 24 : t;
    }
    if (filter) {
        char d[256];
        describe(&c, d, sizeof(d));
        if (!strstr(d, filter))
            return;
    }
    for (int r = 1; r < repeat; r++) { /* --repeat: shake out races */
        if (ncases == cap) {
            cap = cap ? 2 * cap : 256;
            cases = realloc(cases, sizeof(*cases) * (size_t)cap);
        }
        cases[ncases++] = c;
    }
    if (ncases == cap) {
        cap = cap ? 2 * cap : 256;
        cases = realloc(cases, sizeof(*cases) * (size_t)cap);
    }
    cases[ncases++] = c;
}

static void build_sweep(int full)
{
    static const prnnRNNMode_t modes[] = {PRNN_RNN_RELU, PRNN_RNN_TANH, PRNN_LSTM, PRNN_GRU};
    static const int hs_full[] = {32, 100, 256, 512, 1024, 2048};
    static const int bs_full[] = {1, 2, 3, 4, 7, 8, 16, 64};
    static const int hs_quick[] = {32, 100, 512, 2048};
    static const int bs_quick[] = {1, 3, 8, 64};
    static const prnnDataType_t dts[] = {PRNN_DATA_FLOAT, PRNN_DATA_HALF, PRNN_DATA_BFLOAT16};
    const int *hs = full ? hs_full : hs_quick, *bs = full ? bs_full : bs_quick;
    int nh = full ? 6 : 4, nb = full ? 8 : 4;
    int k = 0;
    for (int m = 0; m < 4; m++)
        for (int hi = 0; hi < nh; hi++)
            for (int bi = 0; bi < nb; bi++)
                for (int di = 0; di < 3; di++)
                    for (int ld = 0; ld < 4; ld++) {
                        /* quick: one (layers, dirs) combination per point,
                         * rotating so that all four appear */
                        if (!full && ld != (k % 4))
                            continue;
                        tcase c = {0};
                        c.mode = modes[m];
                        c.hidden = hs[hi];
                        c.batch = bs[bi];
                        c.dtype = dts[di];
                        c.layers = 1 + (ld & 1);
                        c.dirs = 1 + (ld >> 1);
                        c.algo = PRNN_RNN_ALGO_AUTO;
                        add(c);
                        k++;
                    }
    /* Beyond the grid: variable lengths, long and short sequences, input
     * size != hidden, SKIP input, NULL states, double, the standard path,
     * graph capture. */
    for (int m = 0; m < 4; m++) {
        for (int di = 0; di < 3; di++) {
            tcase c = {.mode = modes[m], .hidden = 100, .batch = 7, .layers = 2, .dirs = 2,
                       .dtype = dts[di], .varlen = 1, .steps = 9, .input = 37};
            add(c);
            tcase c2 = {.mode = modes[m], .hidden = 256, .batch = 16, .layers = 1, .dirs = 2,
                        .dtype = dts[di], .varlen = 1, .steps = 12, .capture = 1};
            add(c2);
        }
        tcase l = {.mode = modes[m], .hidden = 64, .batch = 4, .layers = 1, .dirs = 1,
                   .dtype = PRNN_DATA_FLOAT, .steps = 512};
        add(l);
        tcase one = {.mode = modes[m], .hidden = 128, .batch = 3, .layers = 2, .dirs = 2,
                     .dtype = PRNN_DATA_HALF, .steps = 1};
        add(one);
        tcase sk = {.mode = modes[m], .hidden = 96, .batch = 5, .layers = 2, .dirs = 2,
                    .dtype = PRNN_DATA_FLOAT, .skip = 1, .steps = 6};
        add(sk);
        tcase nl = {.mode = modes[m], .hidden = 48, .batch = 2, .layers = 2, .dirs = 1,
                    .dtype = PRNN_DATA_BFLOAT16, .null_hx = 1, .null_hy = 1, .steps = 7};
        add(nl);
        tcase db = {.mode = modes[m], .hidden = 72, .batch = 3, .layers = 2, .dirs = 2,
                    .dtype = PRNN_DATA_DOUBLE, .varlen = 1, .steps = 8, .input = 20};
        add(db);
        tcase st = {.mode = modes[m], .hidden = 200, .batch = 6, .layers = 2, .dirs = 2,
                    .dtype = PRNN_DATA_FLOAT, .varlen = 1, .steps = 10,
                    .algo = PRNN_RNN_ALGO_STANDARD, .capture = 1};
        add(st);
        tcase sth = st;
        sth.dtype = PRNN_DATA_HALF;
        add(sth);
        tcase cap1 = {.mode = modes[m], .hidden = 1024, .batch = 8, .layers = 2, .dirs = 1,
                      .dtype = PRNN_DATA_HALF, .steps = 6, .capture = 1};
        add(cap1);
    }
    /* The handle's autotune mode: the search runs on first use, its winner
     * is checked here like any plan (and recorded in a scratch user DB). */
    tcase at1 = {.mode = PRNN_GRU, .hidden = 160, .batch = 5, .layers = 1, .dirs = 1,
                 .dtype = PRNN_DATA_FLOAT, .steps = 9, .autotune = 1};
    add(at1);
    tcase at2 = {.mode = PRNN_LSTM, .hidden = 320, .batch = 2, .layers = 2, .dirs = 2,
                 .dtype = PRNN_DATA_HALF, .steps = 7, .autotune = 1};
    add(at2);
    /* Forced tiles: code paths the tuning DB and the heuristic may not pick
     * on this device -- batch groups with each engine and hand-off, a last
     * group only partly filled, variable lengths shrinking whole groups
     * away, streamed weights per group (both engines), SKIP input, f64, the
     * FMA engine on half data. Each needs `sms` SMs and `smem` bytes of
     * shared memory per block; a case this GPU cannot hold is left out, and
     * the run says so. */
    static const struct {
        tcase c;
        const char *tile;
        int sms, smem;
    } forced[] = {
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
    int left_out = 0;
    for (size_t i = 0; i < sizeof(forced) / sizeof(forced[0]); i++) {
        if (device_sms < forced[i].sms || device_smem_optin < forced[i].smem) {
            left_out++;
            continue;
        }
        tcase c = forced[i].c;
        c.tile = forced[i].tile;
        add(c);
    }
    if (left_out)
        printf("note: %d forced-tile case(s) left out: this GPU has %d SMs and %d bytes of "
               "shared memory per block, too few for them\n", left_out, device_sms,
               device_smem_optin);
    /* Resident limits: the largest shapes the issue names. */
    tcase big = {.mode = PRNN_LSTM, .hidden = 2048, .batch = 8, .layers = 1, .dirs = 1,
                 .dtype = PRNN_DATA_HALF, .steps = 5};
    add(big);
}

static void report(const tcase *c)
{
    char d[256];
    describe(c, d, sizeof(d));
    if (!c->pass || verbose) {
        pthread_mutex_lock(&queue_lock);
        printf("%s %-60s %-9s y %.1e hy %.1e cy %.1e  %s%s%s\n", c->pass ? "ok  " : "FAIL", d,
               c->path, c->err_y, c->err_hy, c->err_cy, c->config, c->pass ? "" : "\n     -> ",
               c->problem);
        fflush(stdout);
        pthread_mutex_unlock(&queue_lock);
    }
}

/* A CPU reference handle and a GPU handle; the harness cannot go on
 * without them. */
static void open_handles(worker_handles *wh)
{
    if (prnnCreateWithBackend(&wh->cpu, PRNN_BACKEND_CPU_REFERENCE) || prnnCreate(&wh->gpu)) {
        fprintf(stderr, "cannot create handles: %s\n", prnnGetLastErrorLog());
        exit(1);
    }
}

static void close_handles(worker_handles *wh)
{
    prnnDestroy(wh->cpu);
    prnnDestroy(wh->gpu);
}

static void *worker(void *arg)
{
    worker_handles wh;
    (void)arg;
    open_handles(&wh);
    /* The harness's own driver calls need the context current here. */
    cu->cuCtxSetCurrent(primary_ctx);
    for (;;) {
        pthread_mutex_lock(&queue_lock);
        int i = next_case++;
        pthread_mutex_unlock(&queue_lock);
        if (i >= ncases)
            break;
        if (cases[i].tile)
            continue; /* run_forced_tiles */
        run_case(&cases[i], i, &wh);
        report(&cases[i]);
    }
    close_handles(&wh);
    return NULL;
}

/* $PRNN_TILE is read by every plan of the process: these cases run one at a
 * time, after the pool, each on new handles (plans are cached per handle). */
static void run_forced_tiles(void)
{
    for (int i = 0; i < ncases; i++) {
        if (!cases[i].tile)
            continue;
        worker_handles wh;
        open_handles(&wh);
        setenv("PRNN_TILE", cases[i].tile, 1);
        run_case(&cases[i], i, &wh);
        unsetenv("PRNN_TILE");
        report(&cases[i]);
        close_handles(&wh);
    }
}

int main(int argc, char **argv)
{
    int full = 0, threads = 0;
    global_seed = (unsigned long long)time(NULL);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--full"))
            full = 1;
        else if (!strcmp(argv[i], "--quick"))
            full = 0;
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            global_seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            threads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--filter") && i + 1 < argc)
            filter = argv[++i];
        else if (!strcmp(argv[i], "--verbose"))
            verbose = 1;
        else if (!strcmp(argv[i], "--repeat") && i + 1 < argc)
            repeat = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: %s [--quick|--full] [--seed N] [--threads N] "
                            "[--filter S] [--verbose] [--repeat N]\n", argv[0]);
            return 2;
        }
    }
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
    if (prnn_cuda_driver_get(&cu)) {
        printf("FAIL: driver table: %s\n", prnnGetLastErrorLog());
        return 1;
    }
    /* The test's own allocations use the primary context of device 0. */
    CUdevice dev;
    cu->cuDeviceGet(&dev, 0);
    cu->cuDeviceGetAttribute(&device_sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
    cu->cuDeviceGetAttribute(&device_smem_optin,
                             CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, dev);
    cu->cuDevicePrimaryCtxRetain(&primary_ctx, dev);
    cu->cuCtxSetCurrent(primary_ctx);

    build_sweep(full);
    /* Autotuned cases record their winners: into a scratch user DB, never
     * into the user's own. */
    char tuning_db[] = "/tmp/prnn-test-tuning-XXXXXX";
    int tfd = mkstemp(tuning_db);
    if (tfd < 0) {
        printf("FAIL: cannot create a scratch tuning DB in /tmp\n");
        return 1;
    }
    close(tfd);
    unlink(tuning_db); /* the writer creates it */
    setenv("PRNN_TUNING_DB", tuning_db, 1);
    if (threads <= 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        threads = n > 1 ? (int)n : 2;
    }
    if (threads > 32)
        threads = 32;
    printf("test_forward_gpu: %d cases (%s), seed %llu, %d threads\n", ncases,
           full ? "full" : "quick", global_seed, threads);
    fflush(stdout);
    pthread_t tid[32];
    for (int i = 0; i < threads; i++)
        pthread_create(&tid[i], NULL, worker, NULL);
    for (int i = 0; i < threads; i++)
        pthread_join(tid[i], NULL);
    run_forced_tiles();

    int pass = 0;
    double worst[4] = {0};
    int resident = 0, streamed = 0, standard = 0;
    for (int i = 0; i < ncases; i++) {
        pass += cases[i].pass;
        int k = cases[i].dtype;
        double e = cases[i].err_y > cases[i].err_hy ? cases[i].err_y : cases[i].err_hy;
        if (cases[i].pass && e > worst[k])
            worst[k] = e;
        resident += !strcmp(cases[i].path, "resident");
        streamed += !strcmp(cases[i].path, "streamed");
        standard += !strcmp(cases[i].path, "standard");
    }
    printf("\n| cases | passed | failed | resident | streamed | standard | worst rel err "
           "f32 / f64 / f16 / bf16 |\n|---|---|---|---|---|---|---|\n");
    printf("| %d | %d | %d | %d | %d | %d | %.1e / %.1e / %.1e / %.1e |\n", ncases, pass,
           ncases - pass, resident, streamed, standard, worst[0], worst[1], worst[2], worst[3]);
    printf("seed %llu (rerun with --seed %llu)\n", global_seed, global_seed);
    unlink(tuning_db);
    char lock[sizeof(tuning_db) + 8];
    snprintf(lock, sizeof(lock), "%s.lock", tuning_db); /* the writer's flock file */
    unlink(lock);
    return pass == ncases ? 0 : 1;
}
