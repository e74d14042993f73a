/*
 * GPU training (ForwardTraining, BackwardData, BackwardWeights) against the
 * CPU reference, checkasm-style, on gpu_check.h's harness.
 *
 * Every case runs one whole training step on both sides with the same seeded
 * data (never zeros; the seed is printed) and compares every output and
 * gradient: y, hy, cy; dx, dhx, dcx (random dy, dhy, dcy); and the whole dw
 * buffer, which BackwardWeights adds to: dw starts from the same random
 * values on both sides, scaled matrix by matrix (and bias by bias) to the
 * gradient's own size, so that a gradient written instead of added, or a
 * wrong matrix, shows in the relative error. dw is also checked part by part
 * (every matrix and bias of every pseudo-layer, located with
 * prnnGetRNNLinLayerMatrixParams / BiasParams, and the layout's padding,
 * which must keep its values); failures name the worst part, for example
 * "dw L1 dir0 R[f]" (layer and direction count from 0, direction 1 is the
 * reverse one).
 *
 * On the device: every output, the workspace and the reserve are poisoned
 * with 0xFF bytes (NaN) before the step, and the workspace again before each
 * backward call (its contents are undefined between calls); nothing compared
 * may stay NaN; guard bands surround every buffer; the inputs must come back
 * unchanged. The step runs twice (dw reset identically) and must give
 * identical bits, with and without dropout; some cases also capture the whole
 * step into one CUDA graph and replay it twice, and it must give the plain
 * run's bits. Forced tiles set $PRNN_TILE and $PRNN_TILE_BACKWARD (the
 * library may normalise or drop the backward one; the forward one must be
 * the plan's config).
 *
 * Tolerances (relative error): fp32 1e-5 (dw 1e-4: it sums over every row of
 * every step), fp16 / bf16 2e-2 (dw too), fp64 1e-10 (dw 1e-9); except the
 * gradients of ReLU layers in fp32 (5e-2) and fp16 / bf16 (2.5e-1), whose
 * derivative jumps at 0 (gpu_check.h, GC_TOL_RELU_GRAD, says why and how
 * much); the summary counts the cases that needed that allowance.
 *
 * Exit 77 when there is no GPU, NVRTC or cuBLASLt (meson: SKIP); any failure
 * with them present exits 1. Usage: test_training_gpu [--quick|--full] [--seed N] [--threads N]
 *                 [--filter S] [--verbose] [--repeat N] [--self-test] [--list]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "gpu_check.h"

/* Inputs of the step (IN_DW0: dw before BackwardWeights) and its outputs. */
enum { IN_X, IN_HX, IN_CX, IN_W, IN_DY, IN_DHY, IN_DCY, IN_DW0, NIN };
enum { OUT_Y, OUT_HY, OUT_CY, OUT_DX, OUT_DHX, OUT_DCX, OUT_DW, NOUT };
static const char *const in_name[NIN] = {"x", "hx", "cx", "w", "dy", "dhy", "dcy", "dw (initial)"};
static const char *const out_name[NOUT] = {"y", "hy", "cy", "dx", "dhx", "dcx", "dw"};

#define DROPOUT 0.3f

typedef struct {
    gc_shape s;
    int null_hx;  /* hx, cx NULL (zeros) in every call */
    int null_hy;  /* hy, cy NULL (not wanted) */
    int null_dhy; /* dhy, dcy NULL (zeros) */
    int null_dhx; /* dhx, dcx NULL (not wanted) */
    int null_dx;  /* dx NULL (not wanted: layer 0's input gradient skipped) */
    int capture;  /* also replay the whole step from a CUDA graph */
    /* results */
    gc_result r;
    double err[NOUT];             /* OUT_DW: the whole buffer */
    double tol, tol_grad, tol_dw; /* y, hy, cy; dx, dhx, dcx; dw */
    int relu_allowance;           /* passed only by ReLU's allowance (GC_TOL_RELU_GRAD) */
    char dw_worst[40];            /* the part of dw with the largest relative error */
    double dw_worst_err;
    char note[200]; /* forced tiles: the log after planning (--verbose) */
} tcase;

static void describe(const void *p, char *buf, size_t n)
{
    const tcase *c = p;
    char mid[112];
    snprintf(mid, sizeof(mid), "%s%s%s%s%s%s%s", c->null_hx ? " hx=NULL" : "",
             c->null_hy ? " hy=NULL" : "", c->null_dhy ? " dhy=NULL" : "",
             c->null_dhx ? " dhx=NULL" : "", c->null_dx ? " dx=NULL" : "",
             c->s.dropout > 0 ? " dropout" : "", c->capture ? " graph" : "");
    gc_describe(&c->s, mid, "", buf, n);
}

static gc_cases sweep = GC_CASES(tcase, describe);
#define CASE(i) (*(tcase *)gc_case(&sweep, i))

/* ---- the step's buffers and calls, the same on both sides ---- */

/* One side's buffers: host memory for the reference, device memory (or the
 * self-test's host memory) for the device under test. */
typedef struct {
    void *in[NIN], *out[NOUT];
    void *ws, *rs;
    size_t ws_bytes, rs_bytes;
} side;

static size_t in_bytes(const gc_problem *pb, int i)
{
    return i == IN_X                  ? pb->xbytes
           : i == IN_W || i == IN_DW0 ? pb->wbytes
           : i == IN_DY               ? pb->ybytes
                                      : pb->sbytes;
}

static size_t out_bytes(const gc_problem *pb, int o)
{
    return o == OUT_Y    ? pb->ybytes
           : o == OUT_DX ? pb->xbytes
           : o == OUT_DW ? pb->wbytes
                         : pb->sbytes;
}

/* Which arguments a case passes as NULL: the flag that drops each one, and
 * those only the modes with a cell state have (cx, dcy; cy, dcx). */
enum { KEEP, NULL_HX, NULL_HY, NULL_DHY, NULL_DHX, NULL_DX };
static const unsigned char in_drop[NIN] = {KEEP, NULL_HX,  NULL_HX,  KEEP,
                                           KEEP, NULL_DHY, NULL_DHY, KEEP};
static const unsigned char in_cell[NIN] = {0, 0, 1, 0, 0, 0, 1, 0};
static const unsigned char out_drop[NOUT] = {KEEP,     NULL_HY,  NULL_HY, NULL_DX,
                                             NULL_DHX, NULL_DHX, KEEP};
static const unsigned char out_cell[NOUT] = {0, 0, 1, 0, 0, 1, 0};

static int passed(const tcase *c, int drop, int cell_only)
{
    const int flag[] = {0, c->null_hx, c->null_hy, c->null_dhy, c->null_dhx, c->null_dx};
    return !flag[drop] && (!cell_only || prnn_cell_traits(c->s.mode)->has_cell);
}

static int in_used(const tcase *c, int i)
{
    return passed(c, in_drop[i], in_cell[i]);
}

/* The outputs asked for, and compared. */
static int out_used(const tcase *c, int o)
{
    return passed(c, out_drop[o], out_cell[o]);
}

/* The arguments of the three calls: b with what the case leaves out NULL. */
static side args(const tcase *c, const side *b)
{
    side a = *b;
    for (int i = 0; i < NIN; i++)
        if (!in_used(c, i))
            a.in[i] = NULL;
    for (int o = 0; o < NOUT; o++)
        if (!out_used(c, o))
            a.out[o] = NULL;
    return a;
}

static prnnStatus_t forward_training(prnnHandle_t h, const gc_problem *pb, const side *a)
{
    return prnnRNNForwardTraining(h, pb->rnn, pb->steps, pb->xd, a->in[IN_X], pb->hd, a->in[IN_HX],
                                  pb->hd, a->in[IN_CX], pb->wd, a->in[IN_W], pb->yd, a->out[OUT_Y],
                                  pb->hd, a->out[OUT_HY], pb->hd, a->out[OUT_CY], a->ws,
                                  a->ws_bytes, a->rs, a->rs_bytes);
}

static prnnStatus_t backward_data(prnnHandle_t h, const gc_problem *pb, const side *a)
{
    return prnnRNNBackwardData(h, pb->rnn, pb->steps, pb->yd, a->out[OUT_Y], pb->yd, a->in[IN_DY],
                               pb->hd, a->in[IN_DHY], pb->hd, a->in[IN_DCY], pb->wd, a->in[IN_W],
                               pb->hd, a->in[IN_HX], pb->hd, a->in[IN_CX], pb->xd, a->out[OUT_DX],
                               pb->hd, a->out[OUT_DHX], pb->hd, a->out[OUT_DCX], a->ws, a->ws_bytes,
                               a->rs, a->rs_bytes);
}

static prnnStatus_t backward_weights(prnnHandle_t h, const gc_problem *pb, const side *a)
{
    return prnnRNNBackwardWeights(h, pb->rnn, pb->steps, pb->xd, a->in[IN_X], pb->hd, a->in[IN_HX],
                                  pb->yd, a->out[OUT_Y], a->ws, a->ws_bytes, pb->wd, a->out[OUT_DW],
                                  a->rs, a->rs_bytes);
}

static int call_failed(char *err, size_t n, const char *call, prnnStatus_t s)
{
    snprintf(err, n, "%s: %s: %s", call, prnnGetErrorString(s), prnnGetLastErrorLog());
    return -1;
}

/* ---- the parts of dw ---- */

/* A range of dw's elements; group: the index of its name in the parts'
 * names (every padding range shares one). */
typedef struct {
    size_t off, n;
    int group;
} dw_range;

typedef struct {
    dw_range *r;
    int nr;
    char (*name)[40];
    int ngroups, padding; /* padding: the group of the padding, or -1 */
} dw_parts;

static void parts_free(dw_parts *p)
{
    free(p->r);
    free(p->name);
    memset(p, 0, sizeof(*p));
}

static int by_offset(const void *a, const void *b)
{
    const dw_range *x = a, *y = b;
    return x->off < y->off ? -1 : x->off > y->off;
}

static void part_name(const tcase *c, int pseudo, int id, int bias, char *buf, size_t n)
{
    int gates = prnn_cell_traits(c->s.mode)->gates;
    const char *letters = c->s.mode == PRNN_LSTM ? "ifgo" : c->s.mode == PRNN_GRU ? "rzn" : "";
    if (c->s.mode == PRNN_SRU) {
        /* matrices u0 f r x'; vectors b_f b_r v_f v_r */
        static const char *const mats[] = {"W[u0]", "W[f]", "W[r]", "W[x']"};
        static const char *const vecs[] = {"b_f", "b_r", "v_f", "v_r"};
        snprintf(buf, n, "dw L%d dir%d %s", pseudo / c->s.dirs, pseudo % c->s.dirs,
                 bias ? vecs[id & 3] : mats[id & 3]);
        return;
    }
    char gate[4] = "";
    if (gates > 1)
        snprintf(gate, sizeof(gate), "[%c]", letters[id % gates]);
    snprintf(buf, n, "dw L%d dir%d %s%s%s", pseudo / c->s.dirs, pseudo % c->s.dirs, bias ? "b" : "",
             id < gates ? "W" : "R", gate);
}

/*
 * Every matrix and bias of every pseudo-layer as the public calls place
 * them in a buffer at `base` (not dereferenced), then the gaps between them
 * (padding) as one more group. They must lie inside the buffer without
 * overlapping. 0, or -1 with a message.
 */
static int find_parts(const tcase *c, const gc_problem *pb, prnnHandle_t h, const void *base,
                      dw_parts *p, char *err, size_t errsize)
{
    /* SRU: linLayerID 0..3 in both calls */
    const prnn_cell_traits_row *cell = prnn_cell_traits(c->s.mode);
    const int ids = cell->w_matrices + cell->r_matrices;
    const int pseudo = c->s.layers * c->s.dirs;
    const size_t total = pb->wbytes / pb->es, most = (size_t)ids * 2 * pseudo;
    prnnFilterDescriptor_t fd = NULL;
    memset(p, 0, sizeof(*p));
    p->padding = -1;
    /* most named parts, and at most one gap before each and one at the end */
    p->r = calloc(2 * most + 1, sizeof(*p->r));
    p->name = calloc(most + 1, sizeof(*p->name));
    if (!p->r || !p->name) {
        snprintf(err, errsize, "out of host memory");
        return -1;
    }
    prnnCreateFilterDescriptor(&fd);
    for (int q = 0; q < pseudo; q++)
        for (int id = 0; id < ids; id++)
            for (int bias = 0; bias < 2; bias++) {
                void *ptr = NULL;
                prnnStatus_t s = bias ? prnnGetRNNLinLayerBiasParams(h, pb->rnn, q, pb->xd[0],
                                                                     pb->wd, base, id, fd, &ptr)
                                      : prnnGetRNNLinLayerMatrixParams(h, pb->rnn, q, pb->xd[0],
                                                                       pb->wd, base, id, fd, &ptr);
                if (s) {
                    snprintf(err, errsize,
                             "prnnGetRNNLinLayer%sParams(pseudoLayer %d, linLayerID %d): %s",
                             bias ? "Bias" : "Matrix", q, id, prnnGetLastErrorLog());
                    prnnDestroyFilterDescriptor(fd);
                    return -1;
                }
                if (!ptr)
                    continue; /* W of layer 0 with SKIP_INPUT; SRU's W[x'] where x' = x */
                int nd = 0, dims[3] = {0, 0, 0};
                prnnGetFilterNdDescriptor(fd, 3, NULL, NULL, &nd, dims);
                dw_range *r = &p->r[p->nr++];
                r->off = (size_t)((const char *)ptr - (const char *)base) / pb->es;
                r->n = (size_t)dims[0] * dims[1] * dims[2];
                r->group = p->ngroups;
                part_name(c, q, id, bias, p->name[p->ngroups++], sizeof(p->name[0]));
            }
    prnnDestroyFilterDescriptor(fd);
    qsort(p->r, (size_t)p->nr, sizeof(*p->r), by_offset);
    size_t at = 0;
    int named = p->nr;
    for (int i = 0; i <= named; i++) {
        size_t next = i < named ? p->r[i].off : total;
        if (i < named && (next < at || next > total || p->r[i].n > total - next)) {
            snprintf(
                err, errsize,
                "%s (elements %zu to %zu) overlaps another part or leaves the %zu-element buffer",
                p->name[p->r[i].group], p->r[i].off, p->r[i].off + p->r[i].n, total);
            return -1;
        }
        if (next > at) {
            if (p->padding < 0) {
                p->padding = p->ngroups;
                snprintf(p->name[p->ngroups++], sizeof(p->name[0]), "dw padding");
            }
            p->r[p->nr++] = (dw_range){at, next - at, p->padding};
        }
        if (i < named)
            at = p->r[i].off + p->r[i].n;
    }
    return 0;
}

/*
 * dw before BackwardWeights: random, never zero, each part scaled to the
 * root mean square of its gradient g (computed from zeros), so that the
 * initial values neither drown the gradient nor vanish beside it; the
 * padding at scale 1.
 */
static void initial_dw(const dw_parts *p, const void *g, void *dw0, prnnDataType_t dt, size_t es,
                       unsigned long long *seed)
{
    for (int i = 0; i < p->nr; i++) {
        const dw_range *r = &p->r[i];
        double sum = 0;
        for (size_t e = r->off; e < r->off + r->n; e++) {
            double v = prnn_load_as_double(g, dt, e);
            sum += v * v;
        }
        double scale = sqrt(3.0 * sum / (double)r->n); /* uniform: rms = scale / sqrt(3) */
        if (r->group == p->padding || !(scale > 0) || !isfinite(scale))
            scale = 1.0;
        gc_fill((char *)dw0 + r->off * es, dt, r->n, scale, seed);
    }
}

/* ---- one case ---- */

typedef struct {
    gc_problem pb;
    dw_parts parts;
    void *host_in[NIN];  /* the data, uploaded as is */
    void *ref_out[NOUT]; /* the reference's results */
    void *ref_ws, *ref_rs;
    size_t ref_ws_bytes, ref_rs_bytes;
    void *got0[NOUT], *scratch; /* the first run's results; downloads */
    gc_buf in[NIN], out[NOUT], ws, rs;
    int on_device; /* the gc_bufs hold device memory */
} case_state;

static int host_buffers(case_state *k)
{
    const gc_problem *pb = &k->pb;
    int ok = 1;
    size_t largest = 0;
    for (int i = 0; i < NIN; i++) {
        ok &= (k->host_in[i] = malloc(in_bytes(pb, i))) != NULL;
        largest = in_bytes(pb, i) > largest ? in_bytes(pb, i) : largest;
    }
    for (int o = 0; o < NOUT; o++) {
        ok &= (k->ref_out[o] = malloc(out_bytes(pb, o))) != NULL;
        ok &= (k->got0[o] = malloc(out_bytes(pb, o))) != NULL;
        largest = out_bytes(pb, o) > largest ? out_bytes(pb, o) : largest;
    }
    ok &= (k->scratch = malloc(largest)) != NULL;
    return ok ? 0 : -1;
}

/* The reference through the same API on the CPU backend: ForwardTraining,
 * BackwardData, then BackwardWeights twice: from zeros (to scale dw's
 * initial values) and from the initial values (the result compared). */
static int reference(tcase *c, case_state *k, prnnHandle_t ref, unsigned long long *seed)
{
    const gc_problem *pb = &k->pb;
    const prnnDataType_t dt = c->s.dtype;
    prnnStatus_t s;
    char why[400];
    if ((s = prnnGetRNNWorkspaceSize(ref, pb->rnn, pb->steps, pb->xd, &k->ref_ws_bytes)) ||
        (s = prnnGetRNNTrainingReserveSize(ref, pb->rnn, pb->steps, pb->xd, &k->ref_rs_bytes)))
        return call_failed(c->r.problem, sizeof(c->r.problem), "cpu reference sizes", s);
    k->ref_ws = malloc(k->ref_ws_bytes ? k->ref_ws_bytes : 1);
    k->ref_rs = malloc(k->ref_rs_bytes ? k->ref_rs_bytes : 1);
    if (!k->ref_ws || !k->ref_rs) {
        snprintf(c->r.problem, sizeof(c->r.problem), "out of host memory");
        return -1;
    }
    side b;
    memcpy(b.in, k->host_in, sizeof(b.in));
    memcpy(b.out, k->ref_out, sizeof(b.out));
    b.ws = k->ref_ws;
    b.rs = k->ref_rs;
    b.ws_bytes = k->ref_ws_bytes;
    b.rs_bytes = k->ref_rs_bytes;
    side a = args(c, &b);
    memset(k->ref_out[OUT_DW], 0, pb->wbytes); /* 0.0 in every type */
    if ((s = forward_training(ref, pb, &a)))
        return call_failed(c->r.problem, sizeof(c->r.problem), "cpu reference ForwardTraining", s);
    if ((s = backward_data(ref, pb, &a)))
        return call_failed(c->r.problem, sizeof(c->r.problem), "cpu reference BackwardData", s);
    if ((s = backward_weights(ref, pb, &a)))
        return call_failed(c->r.problem, sizeof(c->r.problem), "cpu reference BackwardWeights", s);
    if (find_parts(c, pb, ref, k->ref_out[OUT_DW], &k->parts, why, sizeof(why))) {
        snprintf(c->r.problem, sizeof(c->r.problem), "dw layout: %s", why);
        return -1;
    }
    /* BackwardWeights writes only the matrices and biases the LinLayer
     * calls name: this pins the parts to the layout the reference uses. */
    for (int i = 0; i < k->parts.nr; i++) {
        const dw_range *r = &k->parts.r[i];
        for (size_t e = r->off; r->group == k->parts.padding && e < r->off + r->n; e++)
            if (prnn_load_as_double(k->ref_out[OUT_DW], dt, e) != 0.0) {
                snprintf(c->r.problem, sizeof(c->r.problem),
                         "the reference's BackwardWeights wrote element %zu of dw, outside every "
                         "matrix and bias that prnnGetRNNLinLayerMatrixParams / BiasParams report",
                         e);
                return -1;
            }
    }
    initial_dw(&k->parts, k->ref_out[OUT_DW], k->host_in[IN_DW0], dt, pb->es, seed);
    memcpy(k->ref_out[OUT_DW], k->host_in[IN_DW0], pb->wbytes);
    if ((s = backward_weights(ref, pb, &a)))
        return call_failed(c->r.problem, sizeof(c->r.problem), "cpu reference BackwardWeights", s);
    for (int o = 0; o < NOUT; o++) {
        if (!out_used(c, o))
            continue;
        size_t nan;
        gc_rel_err(k->ref_out[o], k->ref_out[o], dt, out_bytes(pb, o) / pb->es, &nan);
        if (nan) {
            snprintf(c->r.problem, sizeof(c->r.problem), "the reference's %s has %zu NaN elements",
                     out_name[o], nan);
            return -1;
        }
    }
    return 0;
}

/* Buffers on the device under test, the inputs uploaded, the stream open. */
static int device_setup(tcase *c, case_state *k, prnnHandle_t dut, size_t ws_bytes, size_t rs_bytes,
                        gc_stream *stream)
{
    const gc_problem *pb = &k->pb;
    char err[160];
    int bad = 0;
    k->on_device = 1;
    for (int i = 0; i < NIN && !bad; i++)
        bad = gc_alloc(&k->in[i], in_bytes(pb, i), err, sizeof(err)) ||
              gc_upload(&k->in[i], k->host_in[i]);
    for (int o = 0; o < NOUT && !bad; o++)
        bad = gc_alloc(&k->out[o], out_bytes(pb, o), err, sizeof(err));
    if (!bad)
        bad = gc_alloc(&k->ws, ws_bytes, err, sizeof(err)) ||
              gc_alloc(&k->rs, rs_bytes, err, sizeof(err));
    if (bad) {
        snprintf(c->r.problem, sizeof(c->r.problem), "device buffers: %s", err);
        return -1;
    }
    gc_open_stream(dut, stream);
    return 0;
}

static void device_free(case_state *k)
{
    for (int i = 0; i < NIN; i++)
        gc_free(&k->in[i]);
    for (int o = 0; o < NOUT; o++)
        gc_free(&k->out[o]);
    gc_free(&k->ws);
    gc_free(&k->rs);
}

/* The whole step on the device under test, as enqueue_step puts it on the
 * stream (plainly, or into a graph). */
typedef struct {
    const tcase *c;
    const case_state *k;
    prnnHandle_t dut;
    gc_stream stream;
} step;

static int enqueue_step(void *arg, char *err, size_t errsize)
{
    const step *p = arg;
    const case_state *k = p->k;
    const gc_problem *pb = &k->pb;
    side b;
    for (int i = 0; i < NIN; i++)
        b.in[i] = gc_addr(&k->in[i]);
    for (int o = 0; o < NOUT; o++)
        b.out[o] = gc_addr(&k->out[o]);
    b.ws = gc_addr(&k->ws);
    b.rs = gc_addr(&k->rs);
    b.ws_bytes = k->ws.bytes;
    b.rs_bytes = k->rs.bytes;
    side a = args(p->c, &b);
    /* Poison: 0xFF bytes are NaN in every floating type. dw starts again
     * from its initial values. */
    int r = gc.dev->copy(k->out[OUT_DW].p, k->in[IN_DW0].p, pb->wbytes, p->stream);
    for (int o = 0; o < NOUT; o++)
        if (o != OUT_DW)
            r |= gc_poison(&k->out[o], p->stream);
    r |= gc_poison(&k->ws, p->stream) | gc_poison(&k->rs, p->stream);
    if (r) {
        snprintf(err, errsize, "poisoning the outputs or resetting dw failed: %d", r);
        return -1;
    }
    prnnStatus_t s = forward_training(p->dut, pb, &a);
    if (s)
        return call_failed(err, errsize, "ForwardTraining", s);
    if (gc_poison(&k->ws, p->stream)) {
        snprintf(err, errsize, "poisoning the workspace failed");
        return -1;
    }
    if ((s = backward_data(p->dut, pb, &a)))
        return call_failed(err, errsize, "BackwardData", s);
    if (gc_poison(&k->ws, p->stream)) {
        snprintf(err, errsize, "poisoning the workspace failed");
        return -1;
    }
    if ((s = backward_weights(p->dut, pb, &a)))
        return call_failed(err, errsize, "BackwardWeights", s);
    return 0;
}

/* The first run's results against the reference: every error, then the
 * first output left NaN (0, or -1 with the problem set). */
static int compare(tcase *c, case_state *k)
{
    const gc_problem *pb = &k->pb;
    const prnnDataType_t dt = c->s.dtype;
    size_t nan[NOUT] = {0};
    for (int o = 0; o < NOUT; o++)
        if (out_used(c, o))
            c->err[o] =
                gc_rel_err(k->got0[o], k->ref_out[o], dt, out_bytes(pb, o) / pb->es, &nan[o]);
    /* dw part by part */
    const dw_parts *p = &k->parts;
    gc_err_sum *g = calloc((size_t)p->ngroups, sizeof(*g));
    if (!g) {
        snprintf(c->r.problem, sizeof(c->r.problem), "out of host memory");
        return -1;
    }
    for (int i = 0; i < p->nr; i++)
        gc_err_add(&g[p->r[i].group], k->got0[OUT_DW], k->ref_out[OUT_DW], dt, p->r[i].off,
                   p->r[i].n);
    c->dw_worst_err = -1;
    for (int i = 0; i < p->ngroups; i++) {
        double e = gc_err_value(&g[i]);
        if (e > c->dw_worst_err || e != e) {
            c->dw_worst_err = e;
            snprintf(c->dw_worst, sizeof(c->dw_worst), "%s", p->name[i]);
        }
    }
    free(g);
    for (int o = 0; o < NOUT; o++)
        if (nan[o]) {
            snprintf(c->r.problem, sizeof(c->r.problem),
                     "%zu of %zu %s elements unwritten (NaN) or NaN", nan[o],
                     out_bytes(pb, o) / pb->es, out_name[o]);
            return -1;
        }
    return 0;
}

/* The inputs must come back as they were uploaded. */
static int inputs_unchanged(tcase *c, case_state *k)
{
    for (int i = 0; i < NIN; i++) {
        if (gc_download(k->scratch, &k->in[i])) {
            snprintf(c->r.problem, sizeof(c->r.problem), "the input %s did not download",
                     in_name[i]);
            return -1;
        }
        if (memcmp(k->scratch, k->host_in[i], k->in[i].bytes) != 0) {
            snprintf(c->r.problem, sizeof(c->r.problem), "the step changed its input %s",
                     in_name[i]);
            return -1;
        }
    }
    return 0;
}

/* Downloads the run's outputs; a run after the first must match its bits.
 * fresh: the runs with fresh inputs (said in a failure's message). */
static int check_run(tcase *c, case_state *k, int run, int fresh)
{
    for (int o = 0; o < NOUT; o++) {
        if (!out_used(c, o))
            continue;
        if (gc_download(run == 0 ? k->got0[o] : k->scratch, &k->out[o])) {
            snprintf(c->r.problem, sizeof(c->r.problem), "the output %s did not download",
                     out_name[o]);
            return -1;
        }
        if (run > 0 && memcmp(k->got0[o], k->scratch, k->out[o].bytes) != 0) {
            snprintf(c->r.problem, sizeof(c->r.problem),
                     "%s%s: %s gave different bits than the first run",
                     fresh ? "fresh inputs: " : "", out_name[o],
                     run == 1 ? "a second identical step" : "the graph replay (two launches)");
            return -1;
        }
    }
    if (run == 0 && (compare(c, k) || inputs_unchanged(c, k)))
        return -1;
    const gc_buf *all[NIN + NOUT + 2];
    const char *names[NIN + NOUT + 2];
    int n = 0;
    for (int i = 0; i < NIN; i++, n++) {
        all[n] = &k->in[i];
        names[n] = in_name[i];
    }
    for (int o = 0; o < NOUT; o++, n++) {
        all[n] = &k->out[o];
        names[n] = out_name[o];
    }
    all[n] = &k->ws;
    names[n++] = "workspace";
    all[n] = &k->rs;
    names[n++] = "reserve";
    for (int i = 0; i < n; i++)
        if (!gc_guard_ok(all[i])) {
            snprintf(c->r.problem, sizeof(c->r.problem), "guard band around %s overwritten",
                     names[i]);
            return -1;
        }
    return 0;
}

/* Every error against its tolerance (0, or -1 with the list of the
 * outputs over); notes whether ReLU's allowance was needed. */
static int within_tolerance(tcase *c)
{
    char list[400] = "";
    size_t at = 0;
    const double strict_grad = gc_tolerance(c->s.dtype, GC_TOL_TRAINING);
    const double strict_dw = gc_tolerance(c->s.dtype, GC_TOL_WEIGHT_GRAD);
    for (int o = 0; o <= NOUT; o++) {
        /* o == NOUT: the worst part of dw */
        double e = o < NOUT ? c->err[o] : c->dw_worst_err;
        double tol = o >= OUT_DW ? c->tol_dw : o >= OUT_DX ? c->tol_grad : c->tol;
        double strict = o >= OUT_DW ? strict_dw : o >= OUT_DX ? strict_grad : tol;
        c->relu_allowance |= e > strict && e <= tol;
        if (e > tol && at < sizeof(list))
            at += (size_t)snprintf(list + at, sizeof(list) - at, "%s%s %.2e > %.1e", at ? ", " : "",
                                   o < NOUT ? out_name[o] : c->dw_worst, e, tol);
    }
    if (!at)
        return 0;
    snprintf(c->r.problem, sizeof(c->r.problem), "relative error %s (worst dw part: %s)", list,
             c->dw_worst);
    return -1;
}

/* Every input but dw's initial values (reference() draws those) from
 * seed. */
static void fill_inputs(const tcase *c, case_state *k, unsigned long long *seed)
{
    const gc_problem *pb = &k->pb;
    static const double scale[NIN] = {1.0, 0.8, 0.8, 0, 1.0, 1.0, 1.0, 0};
    for (int i = 0; i < NIN; i++)
        if (i != IN_DW0)
            gc_fill(k->host_in[i], c->s.dtype, in_bytes(pb, i) / pb->es,
                    i == IN_W ? 1.0 / sqrt((double)c->s.hidden) : scale[i], seed);
}

/* New inputs (the weights and dw's initial values too) from seed, and
 * their reference. */
static int fresh_inputs(tcase *c, case_state *k, prnnHandle_t ref, unsigned long long *seed)
{
    fill_inputs(c, k, seed);
    free(k->ref_ws);
    free(k->ref_rs);
    k->ref_ws = k->ref_rs = NULL;
    parts_free(&k->parts);
    return reference(c, k, ref, seed);
}

static int upload_inputs(tcase *c, case_state *k)
{
    for (int i = 0; i < NIN; i++)
        if (gc_upload(&k->in[i], k->host_in[i])) {
            snprintf(c->r.problem, sizeof(c->r.problem), "uploading %s failed", in_name[i]);
            return -1;
        }
    return 0;
}

static void free_state(case_state *k)
{
    if (k->on_device)
        device_free(k);
    for (int i = 0; i < NIN; i++)
        free(k->host_in[i]);
    for (int o = 0; o < NOUT; o++) {
        free(k->ref_out[o]);
        free(k->got0[o]);
    }
    free(k->scratch);
    free(k->ref_ws);
    free(k->ref_rs);
    parts_free(&k->parts);
    gc_problem_free(&k->pb);
}

#define FAILF(...) GC_FAILF(c->r.problem, __VA_ARGS__)

static void run_case(int index, gc_handles *wh)
{
    tcase *c = &CASE(index);
    const prnnDataType_t dt = c->s.dtype;
    unsigned long long seed = gc_case_seed(index);
    case_state k;
    gc_stream stream = NULL;
    int locked = 0;
    char d[256];
    memset(&k, 0, sizeof(k));
    describe(c, d, sizeof(d));
    c->r.done = 1;
    c->r.pass = 0;
    c->tol = c->tol_grad = gc_tolerance(dt, GC_TOL_TRAINING);
    c->tol_dw = gc_tolerance(dt, GC_TOL_WEIGHT_GRAD);
    if (c->s.mode == PRNN_RNN_RELU) {
        double floor = gc_tolerance(dt, GC_TOL_RELU_GRAD);
        c->tol_grad = c->tol_grad > floor ? c->tol_grad : floor;
        c->tol_dw = c->tol_dw > floor ? c->tol_dw : floor;
    }
    if (gc_problem_init(&k.pb, &c->s, wh->ref, seed ^ 0xd509d509d509ull, c->r.problem,
                        sizeof(c->r.problem)))
        goto out;
    const gc_problem *pb = &k.pb;
    if (host_buffers(&k))
        FAILF("out of host memory");
    fill_inputs(c, &k, &seed);
    if (reference(c, &k, wh->ref, &seed))
        goto out;

    if (gc_plan(wh->dut, pb, &c->s, 0, &c->r))
        goto out;
    /* The reserve size also plans the training kernels (compile and load),
     * outside the GPU lock. */
    size_t ws_bytes, rs_bytes;
    prnnStatus_t s;
    if ((s = prnnGetRNNWorkspaceSize(wh->dut, pb->rnn, pb->steps, pb->xd, &ws_bytes)))
        FAILF("gpu workspace size: %s: %s", prnnGetErrorString(s), prnnGetLastErrorLog());
    if ((s = prnnGetRNNTrainingReserveSize(wh->dut, pb->rnn, pb->steps, pb->xd, &rs_bytes)))
        FAILF("gpu reserve size: %s: %s", prnnGetErrorString(s), prnnGetLastErrorLog());
    if (c->s.tile || c->s.bwd_tile)
        snprintf(c->note, sizeof(c->note), "%s", prnnGetLastErrorLog());

    pthread_mutex_lock(&gc_gpu_lock);
    locked = 1;
    if (device_setup(c, &k, wh->dut, ws_bytes, rs_bytes, &stream))
        goto out;
    step st = {c, &k, wh->dut, stream};
    /* Thread-local capture: the other workers keep planning (loading
     * modules) while this thread captures. */
    for (int run = 0; run < gc_run_count(c->capture); run++)
        if (gc_run(stream, run, GC_CAPTURE_THREAD_LOCAL, enqueue_step, &st, "training step", index,
                   d, c->r.config, c->r.problem, sizeof(c->r.problem)) ||
            check_run(c, &k, run, 0))
            goto out;
    if (within_tolerance(c))
        goto out;
    /* Fresh inputs in the same buffers: the same launches, so the steps
     * from here on replay the graphs prnn captured at the second
     * (loop_graph.h), which must read what the buffers hold now. */
    /* the reference without the GPU: the other workers' cases run */
    pthread_mutex_unlock(&gc_gpu_lock);
    const int fresh_failed = fresh_inputs(c, &k, wh->ref, &seed);
    pthread_mutex_lock(&gc_gpu_lock);
    if (fresh_failed || upload_inputs(c, &k))
        goto out;
    unsigned long long replays_before = 0, replays_after = 0;
    const int graphs = gc_call_graph_replays(wh->dut, pb, &c->s, &replays_before, c->r.problem,
                                             sizeof(c->r.problem));
    if (graphs < 0)
        goto out;
    for (int run = 0; run < 2; run++)
        if (gc_run(stream, 0, GC_CAPTURE_THREAD_LOCAL, enqueue_step, &st, "training step", index, d,
                   c->r.config, c->r.problem, sizeof(c->r.problem)) ||
            check_run(c, &k, run, 1))
            goto out;
    if (within_tolerance(c)) {
        char problem[200];
        snprintf(problem, sizeof(problem), "%.199s", c->r.problem);
        FAILF("fresh inputs, the two steps after the first two: %s", problem);
    }
    /* each of a step's three calls replayed the graph its second call
     * captured */
    if (graphs == 0 && gc_call_graph_replays(wh->dut, pb, &c->s, &replays_after, c->r.problem,
                                             sizeof(c->r.problem)))
        goto out;
    if (graphs == 0 && replays_after < replays_before + 6)
        FAILF("the two steps with fresh inputs made %llu replays of prnn's call graphs, not 6",
              replays_after - replays_before);
    c->r.pass = 1;
out:
    if (locked) {
        gc_close_stream(wh->dut, stream);
        device_free(&k);
        k.on_device = 0;
        pthread_mutex_unlock(&gc_gpu_lock);
    }
    free_state(&k);
}

/* ---- the sweep ---- */

/* clang-format off */
/* The grid: mode x hidden x batch x data type; quick takes one (layers,
 * directions) combination per point, rotating through the four, full takes
 * all four; two-layer cases alternate dropout on and off in blocks of four
 * points. */
static void add_grid(int full)
{
    static const prnnRNNMode_t modes[] = {PRNN_RNN_RELU, PRNN_RNN_TANH, PRNN_LSTM, PRNN_GRU,
                                          PRNN_SRU};
    static const int hs_quick[] = {32, 37, 100, 512, 1024};
    static const int hs_full[] = {32, 37, 100, 256, 512, 1024};
    static const int bs_quick[] = {1, 3, 8, 64};
    static const int bs_full[] = {1, 2, 3, 4, 7, 8, 16, 64};
    static const prnnDataType_t dts[] = {PRNN_DATA_FLOAT, PRNN_DATA_HALF, PRNN_DATA_BFLOAT16};
    const int *hs = full ? hs_full : hs_quick, *bs = full ? bs_full : bs_quick;
    const int nh = full ? 6 : 5, nb = full ? 8 : 4;
    int point = 0;
    for (int m = 0; m < 5; m++)
        for (int hi = 0; hi < nh; hi++)
            for (int bi = 0; bi < nb; bi++)
                for (int di = 0; di < 3; di++, point++)
                    for (int ld = 0; ld < 4; ld++) {
                        if (!full && ld != point % 4)
                            continue;
                        tcase c = {.s = {.mode = modes[m], .hidden = hs[hi], .batch = bs[bi],
                                         .layers = 1 + (ld & 1), .dirs = 1 + (ld >> 1),
                                         .dtype = dts[di]}};
                        if (c.s.layers == 2 && (point / 4) % 2 == 0)
                            c.s.dropout = DROPOUT;
                        gc_add(&sweep, &c);
                    }
}

/* Beyond the grid, per mode: variable lengths with input size != hidden,
 * graph capture, long and one-step sequences, SKIP input, double, the
 * standard algorithm, input wider than hidden, and the NULL-argument
 * variants (all at H=48: the self-test and memcheck run those). */
static void add_mode_extras(prnnRNNMode_t mode)
{
    static const prnnDataType_t dts[] = {PRNN_DATA_FLOAT, PRNN_DATA_HALF, PRNN_DATA_BFLOAT16};
    for (int di = 0; di < 3; di++) {
        tcase v = {.s = {.mode = mode, .hidden = 100, .batch = 7, .layers = 2, .dirs = 2,
                         .dtype = dts[di], .varlen = 1, .steps = 9, .input = 37,
                         .dropout = di == 1 ? 0.0f : DROPOUT}};
        gc_add(&sweep, &v);
        tcase g = {.s = {.mode = mode, .hidden = 256, .batch = 16, .layers = 2, .dirs = 2,
                         .dtype = dts[di], .varlen = 1, .steps = 12,
                         .dropout = di == 0 ? DROPOUT : 0.0f},
                   .capture = 1};
        gc_add(&sweep, &g);
    }
    tcase lg = {.s = {.mode = mode, .hidden = 64, .batch = 4, .layers = 1, .dirs = 1,
                      .dtype = PRNN_DATA_FLOAT, .steps = 512}};
    gc_add(&sweep, &lg);
    tcase lh = {.s = {.mode = mode, .hidden = 64, .batch = 4, .layers = 2, .dirs = 1,
                      .dtype = PRNN_DATA_BFLOAT16, .steps = 128, .dropout = DROPOUT}};
    gc_add(&sweep, &lh);
    tcase one = {.s = {.mode = mode, .hidden = 128, .batch = 3, .layers = 2, .dirs = 2,
                       .dtype = PRNN_DATA_HALF, .steps = 1, .dropout = DROPOUT}};
    gc_add(&sweep, &one);
    /* one step: BackwardWeights' dR reads hx in place, or gathers a NULL
     * hx as zeros; both biases in one launch (rows <= 32) or from partial
     * sums (40 rows) */
    tcase one_null = one;
    one_null.s.dtype = PRNN_DATA_FLOAT;
    one_null.null_hx = 1;
    gc_add(&sweep, &one_null);
    tcase one_wide = {.s = {.mode = mode, .hidden = 64, .batch = 40, .layers = 1, .dirs = 2,
                            .dtype = PRNN_DATA_FLOAT, .steps = 1}};
    gc_add(&sweep, &one_wide);
    tcase sk = {.s = {.mode = mode, .hidden = 96, .batch = 5, .layers = 2, .dirs = 2,
                      .dtype = PRNN_DATA_FLOAT, .skip = 1, .steps = 6, .dropout = DROPOUT}};
    gc_add(&sweep, &sk);
    sk.null_dx = 1;
    gc_add(&sweep, &sk);
    /* SKIP_INPUT and a batch wider than the device's multiprocessors at a
     * hidden size every engine takes (tiny-h's rows per block > 1) */
    tcase sks = {.s = {.mode = mode, .hidden = 48, .batch = 3, .layers = 2, .dirs = 2,
                       .dtype = PRNN_DATA_HALF, .skip = 1, .varlen = 1, .steps = 7}};
    gc_add(&sweep, &sks);
    tcase many_rows = {.s = {.mode = mode, .hidden = 32, .batch = 300, .layers = 1, .dirs = 2,
                        .dtype = PRNN_DATA_FLOAT, .varlen = 1, .steps = 5}};
    gc_add(&sweep, &many_rows);
    tcase db = {.s = {.mode = mode, .hidden = 72, .batch = 3, .layers = 2, .dirs = 2,
                      .dtype = PRNN_DATA_DOUBLE, .varlen = 1, .steps = 8, .input = 20,
                      .dropout = DROPOUT}};
    gc_add(&sweep, &db);
    tcase std = {.s = {.mode = mode, .hidden = 200, .batch = 6, .layers = 2, .dirs = 2,
                       .dtype = PRNN_DATA_FLOAT, .varlen = 1, .steps = 10,
                       .algo = PRNN_RNN_ALGO_STANDARD, .dropout = DROPOUT},
                 .capture = 1};
    gc_add(&sweep, &std);
    std.s.dtype = PRNN_DATA_HALF;
    std.s.dropout = 0;
    gc_add(&sweep, &std);
    tcase wide = {.s = {.mode = mode, .hidden = 32, .batch = 8, .layers = 1, .dirs = 2,
                        .dtype = PRNN_DATA_FLOAT, .steps = 16, .input = 160}};
    gc_add(&sweep, &wide);
    /* hx, hy, dhy, dhx, dx: NULL one at a time, all at once, and with other types */
    static const struct {
        prnnDataType_t dt;
        int hx, hy, dhy, dhx, dx, dropout;
    } nulls[] = {
        {PRNN_DATA_FLOAT, 1, 0, 0, 0, 0, 0},    {PRNN_DATA_FLOAT, 0, 1, 1, 0, 0, 0},
        {PRNN_DATA_FLOAT, 0, 0, 0, 1, 0, 0},    {PRNN_DATA_FLOAT, 0, 0, 0, 0, 1, 0},
        {PRNN_DATA_FLOAT, 1, 1, 1, 1, 1, 1},    {PRNN_DATA_BFLOAT16, 0, 0, 1, 0, 0, 1},
        {PRNN_DATA_DOUBLE, 1, 0, 0, 1, 0, 1},   {PRNN_DATA_HALF, 0, 0, 0, 0, 1, 1},
    };
    for (size_t i = 0; i < sizeof(nulls) / sizeof(nulls[0]); i++) {
        tcase n = {.s = {.mode = mode, .hidden = 48, .batch = 5, .layers = 2, .dirs = 2,
                         .dtype = nulls[i].dt, .varlen = 1, .steps = 7, .input = 20,
                         .dropout = nulls[i].dropout ? DROPOUT : 0.0f},
                   .null_hx = nulls[i].hx, .null_hy = nulls[i].hy, .null_dhy = nulls[i].dhy,
                   .null_dhx = nulls[i].dhx, .null_dx = nulls[i].dx};
        gc_add(&sweep, &n);
    }
}

/* SRU under its other conventions (gc_sru_conventions), as the forward
 * suite runs them, with dropout between the layers and NULL arguments. */
static void add_sru_conventions(void)
{
    static const prnnDataType_t dts[] = {PRNN_DATA_FLOAT, PRNN_DATA_HALF, PRNN_DATA_BFLOAT16};
    for (int di = 0; di < 3; di++) {
        tcase b = {.s = {.mode = PRNN_SRU, .hidden = 256, .batch = 32, .layers = 2, .dirs = 2,
                         .dtype = dts[di], .steps = 8, .sru = 1,
                         .dropout = di == 0 ? DROPOUT : 0.0f}};
        gc_add(&sweep, &b);
        tcase w = {.s = {.mode = PRNN_SRU, .hidden = 100, .batch = 7, .layers = 2, .dirs = 2,
                         .dtype = dts[di], .varlen = 1, .steps = 9, .input = 200,
                         .sru = 1 + (di == 1), .dropout = di == 1 ? DROPOUT : 0.0f}};
        gc_add(&sweep, &w);
    }
    tcase db = {.s = {.mode = PRNN_SRU, .hidden = 72, .batch = 3, .layers = 2, .dirs = 2,
                      .dtype = PRNN_DATA_DOUBLE, .varlen = 1, .steps = 8, .input = 144,
                      .sru = 2, .dropout = DROPOUT}};
    gc_add(&sweep, &db);
    tcase sk = {.s = {.mode = PRNN_SRU, .hidden = 96, .batch = 5, .layers = 2, .dirs = 1,
                      .dtype = PRNN_DATA_FLOAT, .skip = 1, .steps = 6, .sru = 1}};
    gc_add(&sweep, &sk);
    tcase ps = {.s = {.mode = PRNN_SRU, .hidden = 96, .batch = 5, .layers = 2, .dirs = 2,
                      .dtype = PRNN_DATA_FLOAT, .skip = 1, .steps = 6, .sru = 3,
                      .dropout = DROPOUT}};
    gc_add(&sweep, &ps);
    tcase pn = {.s = {.mode = PRNN_SRU, .hidden = 48, .batch = 5, .layers = 2, .dirs = 2,
                      .dtype = PRNN_DATA_BFLOAT16, .varlen = 1, .steps = 7, .input = 96,
                      .sru = 2},
                .null_hx = 1, .null_hy = 1, .null_dhy = 1, .null_dhx = 1, .null_dx = 1};
    gc_add(&sweep, &pn);
    tcase pf = {.s = {.mode = PRNN_SRU, .hidden = 48, .batch = 5, .layers = 2, .dirs = 2,
                      .dtype = PRNN_DATA_FLOAT, .varlen = 1, .steps = 7, .input = 20,
                      .sru = 3}};
    gc_add(&sweep, &pf);
    tcase cap = {.s = {.mode = PRNN_SRU, .hidden = 512, .batch = 16, .layers = 2, .dirs = 2,
                       .dtype = PRNN_DATA_HALF, .varlen = 1, .steps = 6, .sru = 1},
                 .capture = 1};
    gc_add(&sweep, &cap);
}

static void with_dropout(void *p)
{
    tcase *c = p;
    if (c->s.layers > 1)
        c->s.dropout = DROPOUT;
}

/* Backward-data tiles forced on the backward pass alone (the forward tile
 * is the plan's own): the partial-sum hand-off on both engines and L2
 * hand-offs, every data type, batch groups, an odd batch chunk under the
 * mma engine (rows travel in pairs), streamed k-steps, 128 blocks; then
 * gather tiles that once failed. */
static void add_forced_backward_tiles(void)
{
    /* the shape with its backward tile; SMs (blocks x groups x directions)
     * and bytes of shared memory per block the tile needs */
    static const gc_forced_tile tiles[] = {
        {{.mode = PRNN_LSTM, .hidden = 256, .batch = 8, .layers = 2, .dirs = 1,
          .dtype = PRNN_DATA_FLOAT, .varlen = 1, .steps = 9,
          .bwd_tile = "blocks=8 threads=256 ksplit=1 lanes_k=1 batch_chunk=4 "
                      "reg_slots=64 smem_slots=32 mma=0 handoff=0 batch_groups=2 partial_sums=1"},
         NULL, 16, 36864},
        {{.mode = PRNN_LSTM, .hidden = 512, .batch = 16, .layers = 1, .dirs = 2,
          .dtype = PRNN_DATA_HALF, .varlen = 1, .steps = 12,
          .bwd_tile = "blocks=32 threads=256 ksplit=1 lanes_k=1 batch_chunk=4 "
                      "reg_slots=64 smem_slots=0 mma=1 handoff=0 batch_groups=2 partial_sums=1"},
         NULL, 128, 5248},
        {{.mode = PRNN_GRU, .hidden = 100, .batch = 7, .layers = 2, .dirs = 2,
          .dtype = PRNN_DATA_BFLOAT16, .varlen = 1, .steps = 9, .input = 37,
          .bwd_tile = "blocks=4 threads=128 ksplit=1 lanes_k=1 batch_chunk=3 "
                      "reg_slots=24 smem_slots=16 mma=1 handoff=1 batch_groups=1 partial_sums=1"},
         NULL, 8, 10848},
        {{.mode = PRNN_RNN_RELU, .hidden = 72, .batch = 5, .layers = 2, .dirs = 1,
          .dtype = PRNN_DATA_DOUBLE, .varlen = 1, .steps = 8,
          .bwd_tile = "blocks=3 threads=128 ksplit=1 lanes_k=1 batch_chunk=1 "
                      "reg_slots=32 smem_slots=8 mma=0 handoff=1 batch_groups=5 partial_sums=1"},
         NULL, 15, 5440},
        {{.mode = PRNN_RNN_TANH, .hidden = 96, .batch = 8, .layers = 2, .dirs = 2,
          .dtype = PRNN_DATA_FLOAT, .skip = 1, .varlen = 1, .steps = 10,
          .bwd_tile = "blocks=3 threads=128 ksplit=1 lanes_k=1 batch_chunk=2 "
                      "reg_slots=32 smem_slots=0 mma=0 handoff=1 batch_groups=1 partial_sums=1"},
         NULL, 6, 1280},
        {{.mode = PRNN_LSTM, .hidden = 1024, .batch = 4, .layers = 1, .dirs = 1,
          .dtype = PRNN_DATA_FLOAT, .steps = 10,
          .bwd_tile = "blocks=64 threads=256 ksplit=1 lanes_k=1 batch_chunk=4 "
                      "reg_slots=128 smem_slots=128 mma=0 handoff=0 batch_groups=1 partial_sums=1"},
         NULL, 64, 134144},
        {{.mode = PRNN_GRU, .hidden = 2048, .batch = 8, .layers = 1, .dirs = 1,
          .dtype = PRNN_DATA_HALF, .varlen = 1, .steps = 6,
          .bwd_tile = "blocks=128 threads=256 ksplit=1 lanes_k=1 batch_chunk=8 "
                      "reg_slots=64 smem_slots=128 mma=1 handoff=0 batch_groups=1 partial_sums=1"},
         NULL, 128, 136064},
        /* The FMA partial-sum tiles' 16-bit shared-memory fill (k-steps at
         * g * UPB + j): the shipped tiles of LSTM f16 H 1024 B 1 (94 blocks,
         * the last with one unit), LSTM H 512 B 4 in bf16 (4 batch groups,
         * two layers) and GRU H 2048 B 1 (224 shared-memory slots). */
        {{.mode = PRNN_LSTM, .hidden = 1024, .batch = 1, .layers = 1, .dirs = 1,
          .dtype = PRNN_DATA_HALF, .steps = 8,
          .bwd_tile = "blocks=94 threads=256 ksplit=1 lanes_k=1 batch_chunk=1 "
                      "reg_slots=164 smem_slots=12 mma=0 handoff=0 batch_groups=1 partial_sums=1"},
         NULL, 94, 14512},
        {{.mode = PRNN_LSTM, .hidden = 512, .batch = 4, .layers = 2, .dirs = 1,
          .dtype = PRNN_DATA_BFLOAT16, .varlen = 1, .steps = 7,
          .bwd_tile = "blocks=24 threads=256 ksplit=1 lanes_k=1 batch_chunk=1 "
                      "reg_slots=170 smem_slots=6 mma=0 handoff=0 batch_groups=4 partial_sums=1"},
         NULL, 96, 8448},
        {{.mode = PRNN_GRU, .hidden = 2048, .batch = 1, .layers = 1, .dirs = 1,
          .dtype = PRNN_DATA_HALF, .steps = 5,
          .bwd_tile = "blocks=128 threads=256 ksplit=1 lanes_k=1 batch_chunk=1 "
                      "reg_slots=152 smem_slots=224 mma=0 handoff=0 batch_groups=1 partial_sums=1"},
         NULL, 128, 231616},
        /* Gather hand-off, FMA engine, lanes_k 8 with every k-step in
         * registers: the warps left the Lamport spin one lane at a time and
         * reached the barrier after it diverged, which hung B 1 and gave a
         * wrong dx at B 2, until the spins became warp-uniform
         * (rnn_handoff.cuh, bench/NOTES.md v0.13). */
        {{.mode = PRNN_LSTM, .hidden = 512, .batch = 1, .layers = 1, .dirs = 1,
          .dtype = PRNN_DATA_FLOAT, .steps = 24,
          .bwd_tile = "blocks=32 threads=256 ksplit=8 lanes_k=8 batch_chunk=1 "
                      "reg_slots=128 smem_slots=0 mma=0 handoff=0 batch_groups=1"},
         NULL, 32, 9216},
        {{.mode = PRNN_LSTM, .hidden = 512, .batch = 2, .layers = 1, .dirs = 1,
          .dtype = PRNN_DATA_FLOAT, .steps = 24,
          .bwd_tile = "blocks=32 threads=256 ksplit=8 lanes_k=8 batch_chunk=2 "
                      "reg_slots=128 smem_slots=0 mma=0 handoff=0 batch_groups=1"},
         NULL, 32, 18432},
        {{.mode = PRNN_LSTM, .hidden = 512, .batch = 1, .layers = 1, .dirs = 1,
          .dtype = PRNN_DATA_HALF, .steps = 24,
          .bwd_tile = "blocks=32 threads=256 ksplit=8 lanes_k=8 batch_chunk=1 "
                      "reg_slots=128 smem_slots=0 mma=0 handoff=0 batch_groups=1"},
         NULL, 32, 9216},
    };
    gc_add_tile_cases(&sweep, tiles, NULL, (int)(sizeof(tiles) / sizeof(tiles[0])), NULL);
}

static void build_sweep(int full)
{
    static const prnnRNNMode_t modes[] = {PRNN_RNN_RELU, PRNN_RNN_TANH, PRNN_LSTM, PRNN_GRU,
                                          PRNN_SRU};
    add_grid(full);
    /* SRU's "standard" cases check that it ignores the algorithm */
    for (int m = 0; m < 5; m++)
        add_mode_extras(modes[m]);
    add_sru_conventions();
    /* Some of the forward suite's forced tiles, for the forward and the
     * backward-data kernels alike (two layers: with dropout). */
    static const int forced[] = {0, 1, 3, 4, 7};
    gc_add_forced_tiles(&sweep, forced, (int)(sizeof(forced) / sizeof(forced[0])),
                        with_dropout);
    /* The largest resident shape the forward suite runs. */
    tcase big = {.s = {.mode = PRNN_LSTM, .hidden = 2048, .batch = 8, .layers = 1, .dirs = 1,
                       .dtype = PRNN_DATA_HALF, .steps = 5}};
    gc_add(&sweep, &big);
    add_forced_backward_tiles();
}
/* clang-format on */

static void report(int i)
{
    const tcase *c = &CASE(i);
    if (c->r.pass && !gc.verbose)
        return;
    char d[256];
    describe(c, d, sizeof(d));
    pthread_mutex_lock(&gc_print_lock);
    printf("%s %-72s %-9s y %.1e hy %.1e cy %.1e dx %.1e dhx %.1e dcx %.1e dw %.1e (worst %s "
           "%.1e)%s  %s%s%s\n",
           c->r.pass ? "ok  " : "FAIL", d, c->r.path, c->err[OUT_Y], c->err[OUT_HY], c->err[OUT_CY],
           c->err[OUT_DX], c->err[OUT_DHX], c->err[OUT_DCX], c->err[OUT_DW],
           c->dw_worst[0] ? c->dw_worst : "-", c->dw_worst_err > 0 ? c->dw_worst_err : 0.0,
           c->relu_allowance ? " [relu allowance]" : "", c->r.config, c->r.pass ? "" : "\n     -> ",
           c->r.problem);
    if ((c->s.tile || c->s.bwd_tile) && gc.verbose)
        printf("     log after planning: %s\n", c->note);
    fflush(stdout);
    pthread_mutex_unlock(&gc_print_lock);
}

static double largest(const double *v, int from, int to)
{
    double m = 0;
    for (int i = from; i < to; i++)
        m = v[i] > m ? v[i] : m;
    return m;
}

int main(int argc, char **argv)
{
    static const char *const tile_vars[] = {"PRNN_TILE", "PRNN_TILE_BACKWARD", NULL};
    const gc_suite suite = {&sweep, run_case, report, tile_vars};
    int r = gc_main(argc, argv, "test_training_gpu", build_sweep, &suite);
    if (r >= 0)
        return r;

    /* worst errors of the passed cases: forward outputs, dx / dhx / dcx, dw */
    int pass = 0, allowance = 0;
    double worst[3][4] = {{0}};
    for (int i = 0; i < sweep.n; i++) {
        const tcase *c = &CASE(i);
        pass += c->r.pass;
        if (!c->r.pass)
            continue;
        allowance += c->relu_allowance;
        double e[3] = {largest(c->err, OUT_Y, OUT_DX), largest(c->err, OUT_DX, OUT_DW),
                       c->err[OUT_DW]};
        if (c->relu_allowance)
            e[1] = e[2] = 0; /* gradients over the strict tolerance: counted below */
        for (int j = 0; j < 3; j++)
            if (e[j] > worst[j][c->s.dtype])
                worst[j][c->s.dtype] = e[j];
    }
    char w[3][64];
    for (int j = 0; j < 3; j++)
        gc_format_per_dtype(worst[j], w[j], sizeof(w[j]));
    printf("\n| cases | passed | failed | worst rel err f32 / f64 / f16 / bf16: y, hy, cy | dx, "
           "dhx, dcx | dw |\n|---|---|---|---|---|---|\n");
    printf("| %d | %d | %d | %s | %s | %s |\n", sweep.n, pass, sweep.n - pass, w[0], w[1], w[2]);
    printf("%d passed case(s) needed the ReLU gradient allowance (their gradients are not in the "
           "worst columns; --verbose marks them)\n",
           allowance);
    return gc_finish(pass, sweep.n);
}
