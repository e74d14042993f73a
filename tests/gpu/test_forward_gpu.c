/*
 * GPU forward inference against the CPU reference, checkasm-style.
 *
 * Every case: seeded random weights, inputs and initial states (the seed is
 * printed; never zeros), outputs poisoned with NaN before the run and checked
 * for unwritten elements, guard bands around every output checked for
 * overwrites, relative error ||gpu - ref|| / ||ref|| per output against a
 * tolerance per data type, and a second run that must give identical bits.
 * Some cases also replay the call from a captured CUDA graph. Then fresh
 * inputs in the same buffers, called twice more: prnn replays a call whose
 * launches repeat from a graph of its own (loop_graph.h), which must read
 * the inputs of the call it stands for. The harness is gpu_check.h's,
 * shared with test_training_gpu.
 *
 * Exit 77 when there is no GPU, NVRTC or cuBLASLt (meson: SKIP); any failure
 * with them present exits 1. Usage: test_forward_gpu [--quick|--full] [--seed N] [--threads N]
 *                 [--filter SUBSTRING] [--verbose] [--repeat N] [--self-test]
 *                 [--list]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_check.h"

typedef struct {
    gc_shape s;
    int null_hx;  /* hx, cx NULL */
    int null_hy;  /* hy, cy NULL */
    int capture;  /* also replay from a CUDA graph */
    int autotune; /* plan with the handle's autotune mode on */
    /* x, hx, cx, y, hy and cy one element past a 16-byte boundary (a
     * view's pointer): kernels that read or write them 16 bytes at a time
     * where the bases allow must take their element-wise paths */
    int shifted;
    /* results */
    gc_result r;
    double err_y, err_hy, err_cy, tol;
} tcase;

static void describe(const void *p, char *buf, size_t n)
{
    const tcase *c = p;
    char mid[32];
    snprintf(mid, sizeof(mid), "%s%s%s", c->null_hx ? " hx=NULL" : "", c->null_hy ? " hy=NULL" : "",
             c->shifted ? " shifted" : "");
    gc_describe(&c->s, mid, c->autotune ? " autotune" : "", buf, n);
}

static gc_cases sweep = GC_CASES(tcase, describe);
#define CASE(i) (*(tcase *)gc_case(&sweep, i))

/* ---- one case ---- */

#define FAILF(...) GC_FAILF(c->r.problem, __VA_ARGS__)

/* The forward call, on either stream state (plain or capturing). */
typedef struct {
    const gc_problem *pb;
    prnnHandle_t h;
    const void *x, *hx, *cx, *w;
    void *y, *hy, *cy, *ws;
    size_t ws_bytes;
} fwd_call;

static int enqueue_forward(void *arg, char *err, size_t errsize)
{
    const fwd_call *f = arg;
    const gc_problem *pb = f->pb;
    prnnStatus_t s = prnnRNNForwardInference(f->h, pb->rnn, pb->steps, pb->xd, f->x, pb->hd, f->hx,
                                             pb->hd, f->cx, pb->wd, f->w, pb->yd, f->y, pb->hd,
                                             f->hy, pb->hd, f->cy, f->ws, f->ws_bytes);
    if (s) {
        snprintf(err, errsize, "%s: %s", prnnGetErrorString(s), prnnGetLastErrorLog());
        return -1;
    }
    return 0;
}

/* The outputs and workspace a call writes, as y, hy, cy, workspace. */
enum { N_OUTS = 4 };
static const char *const out_names[N_OUTS] = {"y", "hy", "cy", "workspace"};

/* Poison: 0xFF bytes are NaN in every floating type. */
static void poison_outputs(gc_buf *const outs[N_OUTS], gc_stream stream)
{
    for (int i = 0; i < N_OUTS; i++)
        gc_poison(outs[i], stream);
}

/* The name of the first of outs whose guard bands were overwritten, or NULL. */
static const char *guard_overwritten(gc_buf *const outs[N_OUTS])
{
    for (int i = 0; i < N_OUTS; i++)
        if (!gc_guard_ok(outs[i]))
            return out_names[i];
    return NULL;
}

static void run_case(int index, gc_handles *wh)
{
    tcase *c = &CASE(index);
    const prnnDataType_t dt = c->s.dtype;
    unsigned long long seed = gc_case_seed(index);
    gc_problem pb;
    void *hw = NULL, *hx = NULL, *hhx = NULL, *hcx = NULL, *ref_y = NULL, *ref_hy = NULL;
    void *ref_cy = NULL, *got = NULL, *got2 = NULL, *cws = NULL;
    gc_buf dx = {0}, dy = {0}, dhx = {0}, dcx = {0}, dhy = {0}, dcy = {0};
    gc_buf dw = {0}, dws = {0};
    gc_stream stream = NULL;
    int locked = 0;
    c->r.done = 1;
    c->r.pass = 0;
    c->tol = gc_tolerance(dt, GC_TOL_FORWARD);
    if (gc_problem_init(&pb, &c->s, wh->ref, 0, c->r.problem, sizeof(c->r.problem)))
        goto out;
    const size_t es = pb.es, xbytes = pb.xbytes, ybytes = pb.ybytes, sbytes = pb.sbytes;
    const size_t wbytes = pb.wbytes;
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
    gc_fill(hw, dt, wbytes / es, 1.0 / sqrt((double)c->s.hidden), &seed);
    gc_fill(hx, dt, xbytes / es, 1.0, &seed);
    gc_fill(hhx, dt, sbytes / es, 0.8, &seed);
    gc_fill(hcx, dt, sbytes / es, 0.8, &seed);
    int cell = prnn_cell_traits(c->s.mode)->has_cell;

    /* The reference, on the CPU backend through the same API. */
    size_t cws_bytes;
    prnnStatus_t s;
    if ((s = prnnGetRNNWorkspaceSize(wh->ref, pb.rnn, pb.steps, pb.xd, &cws_bytes)))
        FAILF("cpu workspace size: %s", prnnGetLastErrorLog());
    cws = malloc(cws_bytes ? cws_bytes : 1);
    if (!cws)
        FAILF("out of host memory");
    /* the same call on the host's buffers, again for the fresh inputs */
    fwd_call ref = {&pb,
                    wh->ref,
                    hx,
                    c->null_hx ? NULL : hhx,
                    c->null_hx ? NULL : hcx,
                    hw,
                    ref_y,
                    ref_hy,
                    ref_cy,
                    cws,
                    cws_bytes};
    char why[400];
    if (enqueue_forward(&ref, why, sizeof(why)))
        FAILF("cpu reference: %s", why);

    if (gc_plan(wh->dut, &pb, &c->s, c->autotune, &c->r))
        goto out;
    size_t gws_bytes;
    if ((s = prnnGetRNNWorkspaceSize(wh->dut, pb.rnn, pb.steps, pb.xd, &gws_bytes)))
        FAILF("gpu workspace size: %s", prnnGetLastErrorLog());

    pthread_mutex_lock(&gc_gpu_lock);
    locked = 1;
    char err[128];
    const size_t shift = c->shifted ? es : 0;
    if (gc_alloc_shifted(&dx, xbytes, shift, err, sizeof(err)) ||
        gc_alloc_shifted(&dy, ybytes, shift, err, sizeof(err)) ||
        gc_alloc_shifted(&dhx, sbytes, shift, err, sizeof(err)) ||
        gc_alloc_shifted(&dcx, sbytes, shift, err, sizeof(err)) ||
        gc_alloc_shifted(&dhy, sbytes, shift, err, sizeof(err)) ||
        gc_alloc_shifted(&dcy, sbytes, shift, err, sizeof(err)) ||
        gc_alloc(&dw, wbytes, err, sizeof(err)) || gc_alloc(&dws, gws_bytes, err, sizeof(err)))
        FAILF("%s", err);
    gc_upload(&dx, hx);
    gc_upload(&dhx, hhx);
    gc_upload(&dcx, hcx);
    gc_upload(&dw, hw);
    gc_open_stream(wh->dut, &stream);
    fwd_call f = {&pb,
                  wh->dut,
                  gc_addr(&dx),
                  c->null_hx ? NULL : gc_addr(&dhx),
                  c->null_hx ? NULL : gc_addr(&dcx),
                  gc_addr(&dw),
                  gc_addr(&dy),
                  c->null_hy ? NULL : gc_addr(&dhy),
                  c->null_hy || !cell ? NULL : gc_addr(&dcy),
                  gc_addr(&dws),
                  gws_bytes};
    char d[200];
    describe(c, d, sizeof(d));
    gc_buf *const outs[N_OUTS] = {&dy, &dhy, &dcy, &dws};
    for (int run = 0; run < gc_run_count(c->capture); run++) {
        poison_outputs(outs, stream);
        if (gc_run(stream, run, GC_CAPTURE_GLOBAL, enqueue_forward, &f, "forward", index, d,
                   c->r.config, c->r.problem, sizeof(c->r.problem)))
            goto out;
        void *dst = run == 0 ? got : got2;
        gc_download(dst, &dy);
        if (run == 0) {
            size_t nan;
            c->err_y = gc_rel_err(got, ref_y, dt, ybytes / es, &nan);
            if (nan)
                FAILF("%zu of %zu y elements unwritten (NaN) or NaN", nan, ybytes / es);
            if (!c->null_hy) {
                gc_download(got2, &dhy);
                c->err_hy = gc_rel_err(got2, ref_hy, dt, sbytes / es, &nan);
                if (nan)
                    FAILF("%zu hy elements unwritten", nan);
                if (cell) {
                    gc_download(got2, &dcy);
                    c->err_cy = gc_rel_err(got2, ref_cy, dt, sbytes / es, &nan);
                    if (nan)
                        FAILF("%zu cy elements unwritten", nan);
                }
            }
        } else if (memcmp(got, got2, ybytes) != 0) {
            FAILF("%s gave different bits than the first run",
                  run == 1 ? "a second identical call" : "the graph replay");
        }
        const char *over = guard_overwritten(outs);
        if (over)
            FAILF("guard band around %s overwritten", over);
    }
    if (c->err_y > c->tol || c->err_hy > c->tol || c->err_cy > c->tol)
        FAILF("relative error y %.2e hy %.2e cy %.2e > %.0e", c->err_y, c->err_hy, c->err_cy,
              c->tol);
    /* Fresh inputs in the same buffers: the same launches, so the calls
     * from here on replay the graph prnn captured at the second (the
     * workspace poisoned before each, as above). */
    gc_fill(hx, dt, xbytes / es, 1.0, &seed);
    gc_fill(hhx, dt, sbytes / es, 0.8, &seed);
    gc_fill(hcx, dt, sbytes / es, 0.8, &seed);
    /* the reference without the GPU: the other workers' cases run */
    pthread_mutex_unlock(&gc_gpu_lock);
    const int ref_failed = enqueue_forward(&ref, why, sizeof(why));
    pthread_mutex_lock(&gc_gpu_lock);
    if (ref_failed)
        FAILF("cpu reference (fresh inputs): %s", why);
    gc_upload(&dx, hx);
    gc_upload(&dhx, hhx);
    gc_upload(&dcx, hcx);
    unsigned long long replays_before = 0, replays_after = 0;
    const int graphs = gc_call_graph_replays(wh->dut, &pb, &c->s, &replays_before, c->r.problem,
                                             sizeof(c->r.problem));
    if (graphs < 0)
        goto out;
    for (int run = 0; run < 2; run++) {
        poison_outputs(outs, stream);
        if (gc_run(stream, 0, GC_CAPTURE_GLOBAL, enqueue_forward, &f, "forward", index, d,
                   c->r.config, c->r.problem, sizeof(c->r.problem)))
            goto out;
        void *dst = run == 0 ? got : got2;
        gc_download(dst, &dy);
        size_t nan;
        const double e = gc_rel_err(dst, ref_y, dt, ybytes / es, &nan);
        if (nan || e > c->tol)
            FAILF("fresh inputs, call %d after the first two: y relative error %.2e (%zu NaN)",
                  run + 1, e, nan);
        if (run == 1 && memcmp(got, got2, ybytes) != 0)
            FAILF("fresh inputs: a second identical call gave different bits");
        if (!c->null_hy) {
            gc_download(got2, &dhy);
            const double eh = gc_rel_err(got2, ref_hy, dt, sbytes / es, &nan);
            if (nan || eh > c->tol)
                FAILF("fresh inputs, call %d: hy relative error %.2e (%zu NaN)", run + 1, eh, nan);
            if (cell) {
                gc_download(got2, &dcy);
                const double ec = gc_rel_err(got2, ref_cy, dt, sbytes / es, &nan);
                if (nan || ec > c->tol)
                    FAILF("fresh inputs, call %d: cy relative error %.2e (%zu NaN)", run + 1, ec,
                          nan);
            }
        }
        const char *over = guard_overwritten(outs);
        if (over)
            FAILF("fresh inputs: guard band around %s overwritten", over);
    }
    /* both calls replayed the graph the second call captured */
    if (graphs == 0 && gc_call_graph_replays(wh->dut, &pb, &c->s, &replays_after, c->r.problem,
                                             sizeof(c->r.problem)))
        goto out;
    if (graphs == 0 && replays_after < replays_before + 2)
        FAILF("the two calls with fresh inputs made %llu replays of prnn's call graph, not 2",
              replays_after - replays_before);
    c->r.pass = 1;
out:
    if (locked) {
        gc_close_stream(wh->dut, stream);
        gc_buf *all[] = {&dx, &dy, &dhx, &dcx, &dhy, &dcy, &dw, &dws};
        for (int i = 0; i < 8; i++)
            gc_free(all[i]);
        pthread_mutex_unlock(&gc_gpu_lock);
    }
    gc_problem_free(&pb);
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

/* clang-format off */
/* SRU under its other conventions (gc_sru_conventions): the sru package's
 * with an input as wide as the output (x' = x split across directions at
 * every layer) and as wide as one direction (u3 at layer 0, the split at
 * layer 1: the benchmark's stack), in every data type; its SKIP input
 * (unidirectional only); prnn's convention scaled, with the identity, SKIP
 * included; a graph capture. */
static void add_sru_conventions(void)
{
    static const prnnDataType_t dts[] = {PRNN_DATA_FLOAT, PRNN_DATA_HALF, PRNN_DATA_BFLOAT16};
    for (int di = 0; di < 3; di++) {
        tcase b = {.s = {.mode = PRNN_SRU, .hidden = 256, .batch = 32, .layers = 2, .dirs = 2,
                         .dtype = dts[di], .steps = 8, .sru = 1}};
        gc_add(&sweep, &b);
        tcase w = {.s = {.mode = PRNN_SRU, .hidden = 100, .batch = 7, .layers = 2, .dirs = 2,
                         .dtype = dts[di], .varlen = 1, .steps = 9, .input = 200,
                         .sru = 1 + (di == 1)}};
        gc_add(&sweep, &w);
    }
    tcase db = {.s = {.mode = PRNN_SRU, .hidden = 72, .batch = 3, .layers = 2, .dirs = 2,
                      .dtype = PRNN_DATA_DOUBLE, .varlen = 1, .steps = 8, .input = 144,
                      .sru = 2}};
    gc_add(&sweep, &db);
    tcase sk = {.s = {.mode = PRNN_SRU, .hidden = 96, .batch = 5, .layers = 2, .dirs = 1,
                      .dtype = PRNN_DATA_FLOAT, .skip = 1, .steps = 6, .sru = 1}};
    gc_add(&sweep, &sk);
    tcase ps = {.s = {.mode = PRNN_SRU, .hidden = 96, .batch = 5, .layers = 2, .dirs = 2,
                      .dtype = PRNN_DATA_FLOAT, .skip = 1, .steps = 6, .sru = 3}};
    gc_add(&sweep, &ps);
    tcase pn = {.s = {.mode = PRNN_SRU, .hidden = 48, .batch = 2, .layers = 2, .dirs = 2,
                      .dtype = PRNN_DATA_BFLOAT16, .steps = 7, .input = 37, .sru = 3},
                .null_hx = 1, .null_hy = 1};
    gc_add(&sweep, &pn);
    tcase cap = {.s = {.mode = PRNN_SRU, .hidden = 512, .batch = 16, .layers = 2, .dirs = 2,
                       .dtype = PRNN_DATA_HALF, .varlen = 1, .steps = 6, .sru = 1},
                 .capture = 1};
    gc_add(&sweep, &cap);
}

static void build_sweep(int full)
{
    static const prnnRNNMode_t modes[] = {PRNN_RNN_RELU, PRNN_RNN_TANH, PRNN_LSTM, PRNN_GRU,
                                          PRNN_SRU};
    static const int hs_full[] = {32, 100, 256, 512, 1024, 2048};
    static const int bs_full[] = {1, 2, 3, 4, 7, 8, 16, 64};
    static const int hs_quick[] = {32, 100, 512, 2048};
    static const int bs_quick[] = {1, 3, 8, 64};
    static const prnnDataType_t dts[] = {PRNN_DATA_FLOAT, PRNN_DATA_HALF, PRNN_DATA_BFLOAT16};
    const int *hs = full ? hs_full : hs_quick, *bs = full ? bs_full : bs_quick;
    int nh = full ? 6 : 4, nb = full ? 8 : 4;
    int k = 0;
    for (int m = 0; m < 5; m++)
        for (int hi = 0; hi < nh; hi++)
            for (int bi = 0; bi < nb; bi++)
                for (int di = 0; di < 3; di++)
                    for (int ld = 0; ld < 4; ld++) {
                        /* quick: meant as one (layers, dirs) combination per
                         * point, rotating; as written (k moves with ld) it
                         * keeps all four, and the quick sweep's 835 cases
                         * are these */
                        if (!full && ld != (k % 4))
                            continue;
                        tcase c = {0};
                        c.s.mode = modes[m];
                        c.s.hidden = hs[hi];
                        c.s.batch = bs[bi];
                        c.s.dtype = dts[di];
                        c.s.layers = 1 + (ld & 1);
                        c.s.dirs = 1 + (ld >> 1);
                        c.s.algo = PRNN_RNN_ALGO_AUTO;
                        gc_add(&sweep, &c);
                        k++;
                    }
    /* Beyond the grid: variable lengths, long and short sequences, input
     * size != hidden, SKIP input, NULL states, double, the standard path,
     * graph capture. (SRU has no standard path: the algorithm is ignored,
     * and those cases check that it is.) */
    for (int m = 0; m < 5; m++) {
        for (int di = 0; di < 3; di++) {
            tcase c = {.s = {.mode = modes[m], .hidden = 100, .batch = 7, .layers = 2,
                             .dirs = 2, .dtype = dts[di], .varlen = 1, .steps = 9,
                             .input = 37}};
            gc_add(&sweep, &c);
            tcase c2 = {.s = {.mode = modes[m], .hidden = 256, .batch = 16, .layers = 1,
                              .dirs = 2, .dtype = dts[di], .varlen = 1, .steps = 12},
                        .capture = 1};
            gc_add(&sweep, &c2);
        }
        tcase l = {.s = {.mode = modes[m], .hidden = 64, .batch = 4, .layers = 1, .dirs = 1,
                         .dtype = PRNN_DATA_FLOAT, .steps = 512}};
        gc_add(&sweep, &l);
        tcase one = {.s = {.mode = modes[m], .hidden = 128, .batch = 3, .layers = 2,
                           .dirs = 2, .dtype = PRNN_DATA_HALF, .steps = 1}};
        gc_add(&sweep, &one);
        /* the caller's tensors one element off 16 bytes, on the short
         * calls' engines and on the long ones' (fp32 and fp16, where the
         * step engine reads whole rows in vectors at H 256) */
        static const int shifted_lengths[] = {1, 24};
        for (int di = 0; di < 2; di++)
            for (int li = 0; li < 2; li++) {
                tcase sh = {.s = {.mode = modes[m], .hidden = 256, .batch = 8, .layers = 2,
                                  .dirs = 2, .dtype = dts[di], .steps = shifted_lengths[li]},
                            .shifted = 1};
                gc_add(&sweep, &sh);
            }
        tcase sk = {.s = {.mode = modes[m], .hidden = 96, .batch = 5, .layers = 2, .dirs = 2,
                          .dtype = PRNN_DATA_FLOAT, .skip = 1, .steps = 6}};
        gc_add(&sweep, &sk);
        /* SKIP_INPUT and a batch wider than the device's multiprocessors at
         * a hidden size every engine takes (tiny-h's rows per block > 1) */
        tcase sks = {.s = {.mode = modes[m], .hidden = 48, .batch = 3, .layers = 2, .dirs = 2,
                           .dtype = PRNN_DATA_HALF, .skip = 1, .varlen = 1, .steps = 7}};
        gc_add(&sweep, &sks);
        tcase wide = {.s = {.mode = modes[m], .hidden = 32, .batch = 300, .layers = 1, .dirs = 2,
                            .dtype = PRNN_DATA_FLOAT, .varlen = 1, .steps = 5}};
        gc_add(&sweep, &wide);
        tcase nl = {.s = {.mode = modes[m], .hidden = 48, .batch = 2, .layers = 2, .dirs = 1,
                          .dtype = PRNN_DATA_BFLOAT16, .steps = 7},
                    .null_hx = 1, .null_hy = 1};
        gc_add(&sweep, &nl);
        tcase db = {.s = {.mode = modes[m], .hidden = 72, .batch = 3, .layers = 2, .dirs = 2,
                          .dtype = PRNN_DATA_DOUBLE, .varlen = 1, .steps = 8, .input = 20}};
        gc_add(&sweep, &db);
        tcase st = {.s = {.mode = modes[m], .hidden = 200, .batch = 6, .layers = 2, .dirs = 2,
                          .dtype = PRNN_DATA_FLOAT, .varlen = 1, .steps = 10,
                          .algo = PRNN_RNN_ALGO_STANDARD},
                    .capture = 1};
        gc_add(&sweep, &st);
        tcase sth = st;
        sth.s.dtype = PRNN_DATA_HALF;
        gc_add(&sweep, &sth);
        tcase cap1 = {.s = {.mode = modes[m], .hidden = 1024, .batch = 8, .layers = 2,
                            .dirs = 1, .dtype = PRNN_DATA_HALF, .steps = 6},
                      .capture = 1};
        gc_add(&sweep, &cap1);
    }
    add_sru_conventions();
    /* The handle's autotune mode: the search runs on first use, its winner
     * is checked here like any plan (and recorded in a scratch user DB). */
    tcase at1 = {.s = {.mode = PRNN_GRU, .hidden = 160, .batch = 5, .layers = 1, .dirs = 1,
                       .dtype = PRNN_DATA_FLOAT, .steps = 9},
                 .autotune = 1};
    gc_add(&sweep, &at1);
    tcase at2 = {.s = {.mode = PRNN_LSTM, .hidden = 320, .batch = 2, .layers = 2, .dirs = 2,
                       .dtype = PRNN_DATA_HALF, .steps = 7},
                 .autotune = 1};
    gc_add(&sweep, &at2);
    /* Every forced tile the harness knows (a case this GPU cannot hold is
     * left out, and the run says so). */
    gc_add_forced_tiles(&sweep, NULL, gc_forced_tile_count, NULL);
    /* Resident limits: the largest shapes the issue names. */
    tcase big = {.s = {.mode = PRNN_LSTM, .hidden = 2048, .batch = 8, .layers = 1, .dirs = 1,
                       .dtype = PRNN_DATA_HALF, .steps = 5}};
    gc_add(&sweep, &big);
}
/* clang-format on */

static void report(int i)
{
    const tcase *c = &CASE(i);
    char d[256];
    describe(c, d, sizeof(d));
    if (!c->r.pass || gc.verbose) {
        pthread_mutex_lock(&gc_print_lock);
        printf("%s %-60s %-9s y %.1e hy %.1e cy %.1e  %s%s%s\n", c->r.pass ? "ok  " : "FAIL", d,
               c->r.path, c->err_y, c->err_hy, c->err_cy, c->r.config,
               c->r.pass ? "" : "\n     -> ", c->r.problem);
        fflush(stdout);
        pthread_mutex_unlock(&gc_print_lock);
    }
}

int main(int argc, char **argv)
{
    static const char *const tile_vars[] = {"PRNN_TILE", NULL};
    const gc_suite suite = {&sweep, run_case, report, tile_vars};
    int r = gc_main(argc, argv, "test_forward_gpu", build_sweep, &suite);
    if (r >= 0)
        return r;

    int pass = 0;
    double worst[4] = {0};
    int resident = 0, streamed = 0, standard = 0, sru = 0, small_h = 0, tiny_h = 0, step = 0;
    for (int i = 0; i < sweep.n; i++) {
        const tcase *c = &CASE(i);
        pass += c->r.pass;
        int k = c->s.dtype;
        double e = c->err_y > c->err_hy ? c->err_y : c->err_hy;
        if (c->r.pass && e > worst[k])
            worst[k] = e;
        resident += !strcmp(c->r.path, "resident");
        streamed += !strcmp(c->r.path, "streamed");
        standard += !strcmp(c->r.path, "standard");
        sru += !strcmp(c->r.path, "sru-scan");
        small_h += !strcmp(c->r.path, "small-h");
        step += !strcmp(c->r.path, "step");
        tiny_h += !strcmp(c->r.path, "tiny-h");
    }
    char w[64];
    gc_format_per_dtype(worst, w, sizeof(w));
    printf("\n| cases | passed | failed | resident | streamed | small-h | tiny-h | step | standard "
           "| sru-scan | worst rel err f32 / f64 / f16 / bf16 |\n"
           "|---|---|---|---|---|---|---|---|---|---|---|\n");
    printf("| %d | %d | %d | %d | %d | %d | %d | %d | %d | %d | %s |\n", sweep.n, pass,
           sweep.n - pass, resident, streamed, small_h, tiny_h, step, standard, sru, w);
    return gc_finish(pass, sweep.n);
}
