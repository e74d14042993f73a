/*
 * libFuzzer target over the public API on the CPU backend (issue #25): the
 * input bytes choose an RNN (mode, sizes, layers, direction, input mode,
 * data type, dropout, math type, algorithm, sequence length, batch of every
 * step) and the descriptors' dimensions and strides, mostly valid and now
 * and then broken. Every call runs: descriptor set-up and read-back, the
 * three size queries, the LinLayer calls for every pseudo-layer and ID;
 * then, for shapes that pass, ForwardInference and the three training
 * calls, with buffers of exactly the queried and described sizes (so
 * AddressSanitizer sees any read or write past them) and NULL for the
 * optional states now and then. A finding is a crash or sanitizer report,
 * and also (abort) a failing call without a message in prnnGetLastErrorLog,
 * a status outside prnnStatus_t, a descriptor that does not read back what
 * was set, or LinLayer regions outside the weights or overlapping.
 *
 * Built and run by tests/fuzz/run_fuzz_api.sh (the meson test api-fuzz).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prnn.h"

#define MAX_STEPS 8
/* Compute only for shapes whose buffers stay small: every execution must
 * take microseconds, not seconds. */
#define MAX_COMPUTE_BYTES (2u << 20)

typedef struct {
    const uint8_t *p;
    size_t n;
} input;

static unsigned take8(input *in)
{
    if (!in->n)
        return 0;
    in->n--;
    return *in->p++;
}

static unsigned take16(input *in)
{
    unsigned a = take8(in);
    return a | take8(in) << 8;
}

/* Mostly small values in [lo, hi]; one time in sixteen an edge case. */
static int take_int(input *in, int lo, int hi)
{
    static const int edge[] = {0,       -1,    1,       2,          3,          7,
                               8,       16,    17,      32,         33,         64,
                               1 << 16, 46341, 1 << 20, 0x3fffffff, 0x7fffffff, -0x7fffffff - 1};
    unsigned b = take8(in);
    if ((b & 15) == 15)
        return edge[take8(in) % (sizeof(edge) / sizeof(edge[0]))];
    return lo + (int)(take8(in) % (unsigned)(hi - lo + 1));
}

static void fail(const char *what, const char *call, prnnStatus_t s)
{
    fprintf(stderr, "fuzz_api: %s: %s returned %d (%s); log: \"%s\"\n", what, call, (int)s,
            prnnGetErrorString(s), prnnGetLastErrorLog());
    abort();
}

/* Every status is one of prnnStatus_t's, and every failure says why. */
static prnnStatus_t check(prnnStatus_t s, const char *call)
{
    if ((int)s < 0 || (int)s > PRNN_STATUS_TUNING_DB_ERROR)
        fail("status outside prnnStatus_t", call, s);
    if (s != PRNN_STATUS_SUCCESS && prnnGetLastErrorLog()[0] == '\0')
        fail("failure without a message", call, s);
    if (strcmp(prnnGetErrorString(s), "PRNN_STATUS_UNKNOWN") == 0)
        fail("status without a name", call, s);
    return s;
}
#define CALL(expr) check((expr), #expr)

static size_t elem_size(prnnDataType_t t)
{
    return t == PRNN_DATA_DOUBLE ? 8 : t == PRNN_DATA_FLOAT ? 4 : 2;
}

/* A buffer of n elements of type t holding small values (|v| <= 1/2). */
static void *values(input *in, prnnDataType_t t, size_t n)
{
    size_t bytes = n * elem_size(t);
    unsigned char *p = malloc(bytes ? bytes : 1);
    unsigned seed = take8(in);
    for (size_t i = 0; i < n; i++) {
        float v = (float)((int)((i * 2654435761u + seed) % 33) - 16) / 32.0f;
        switch (t) {
        case PRNN_DATA_DOUBLE: {
            double d = v;
            memcpy(p + 8 * i, &d, 8);
            break;
        }
        case PRNN_DATA_FLOAT: memcpy(p + 4 * i, &v, 4); break;
        default: {
            /* bfloat16 is the top half of the float; fp16 from the float
             * bits for these small values (exponent -5 .. -1, or 0). */
            uint32_t u;
            memcpy(&u, &v, 4);
            uint16_t h;
            if (t == PRNN_DATA_BFLOAT16)
                h = (uint16_t)(u >> 16);
            else if (v == 0.0f)
                h = 0;
            else
                h = (uint16_t)((u >> 16 & 0x8000) | ((((u >> 23) & 0xff) - 112) << 10) |
                               ((u >> 13) & 0x3ff));
            memcpy(p + 2 * i, &h, 2);
            break;
        }
        }
    }
    return p;
}

typedef struct {
    prnnRNNMode_t mode;
    int hidden, layers, input, seq, dirs;
    prnnDirectionMode_t direction;
    prnnRNNInputMode_t input_mode;
    prnnDataType_t type;
    int batch[MAX_STEPS];
    int broken; /* a descriptor was set other than the compute calls expect */
} shape;

static void choose(input *in, shape *s)
{
    static const int modes[] = {PRNN_RNN_RELU, PRNN_RNN_TANH, PRNN_LSTM, PRNN_GRU, PRNN_SRU};
    unsigned m = take8(in);
    s->mode = (m & 31) == 31 ? (prnnRNNMode_t)(int)(int8_t)take8(in) : (prnnRNNMode_t)modes[m % 5];
    s->hidden = take_int(in, 1, 24);
    s->layers = take_int(in, 1, 3);
    s->input = take_int(in, 1, 24);
    s->seq = take_int(in, 1, 6);
    unsigned f = take8(in);
    s->direction = (f & 1) ? PRNN_BIDIRECTIONAL : PRNN_UNIDIRECTIONAL;
    s->input_mode = (f & 6) == 6 ? PRNN_SKIP_INPUT : PRNN_LINEAR_INPUT;
    if ((f & 0x78) == 0x78)
        s->direction = (prnnDirectionMode_t)(int)(int8_t)take8(in);
    s->dirs = s->direction == PRNN_BIDIRECTIONAL ? 2 : 1;
    unsigned t = take8(in);
    s->type = (t & 63) == 63 ? (prnnDataType_t)(int)(int8_t)take8(in) : (prnnDataType_t)(t % 4);
    if (s->input_mode == PRNN_SKIP_INPUT && (take8(in) & 3))
        s->input = s->hidden; /* the rule SKIP_INPUT needs, mostly kept */
    int b = take_int(in, 1, 6);
    for (int i = 0; i < MAX_STEPS; i++) {
        unsigned c = take8(in);
        if ((c & 15) == 15)
            b = take_int(in, -1, 9); /* may increase, or go to 0 */
        else if ((c & 3) == 3 && b > 1)
            b--;
        s->batch[i] = b;
    }
}

/* a * b as a caller's int would hold it, saturated instead of overflowing
 * (the caller's own arithmetic is not what is under test). */
static int mul(int a, int b)
{
    long long p = (long long)a * b;
    return p > 0x7fffffff ? 0x7fffffff : p < -0x7fffffff - 1 ? -0x7fffffff - 1 : (int)p;
}

/* A packed 3-d tensor, or (one time in 32) a broken one. */
static void set3(input *in, shape *s, prnnTensorDescriptor_t d, prnnDataType_t t, int a, int b,
                 int c)
{
    int dims[3] = {a, b, c};
    int strides[3] = {mul(b, c), c, 1};
    int nb = 3;
    unsigned k = take8(in);
    if ((k & 31) == 31) {
        s->broken = 1;
        switch (take8(in) % 5) {
        case 0: dims[take8(in) % 3] = take_int(in, -2, 40); break;
        case 1: strides[take8(in) % 3] = take_int(in, -2, 40); break;
        case 2: nb = take_int(in, 0, 9); break;
        case 3: t = (prnnDataType_t)(take8(in) % 5); break;
        default: break;
        }
        if (nb > 3)
            nb = 3; /* the arrays hold three */
    }
    prnnStatus_t st = CALL(prnnSetTensorNdDescriptor(d, t, nb, dims, strides));
    if (st != PRNN_STATUS_SUCCESS) {
        s->broken = 1;
        return;
    }
    /* What was set reads back. */
    int got_dims[8], got_strides[8], got_nb = -1;
    prnnDataType_t got_t;
    CALL(prnnGetTensorNdDescriptor(d, 8, &got_t, &got_nb, got_dims, got_strides));
    if (got_nb != nb || got_t != t || memcmp(got_dims, dims, sizeof(int) * (size_t)nb))
        fail("tensor descriptor reads back differently", "prnnGetTensorNdDescriptor",
             PRNN_STATUS_SUCCESS);
}

typedef struct {
    uintptr_t lo, hi;
} region;

static int cmp_region(const void *a, const void *b)
{
    const region *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Every LinLayer matrix and bias of every pseudo-layer: inside w, and no
 * two overlapping. */
static void linlayers(input *in, prnnHandle_t h, prnnRNNDescriptor_t rnn, const shape *s,
                      prnnTensorDescriptor_t x0, prnnFilterDescriptor_t wd, const void *w,
                      size_t wbytes)
{
    prnnFilterDescriptor_t md = NULL;
    if (CALL(prnnCreateFilterDescriptor(&md)))
        return;
    enum { MAX_REGIONS = 6 * 2 * 16 * 2 };
    static region r[MAX_REGIONS];
    int nr = 0;
    int ids = s->mode == PRNN_LSTM ? 8 : s->mode == PRNN_GRU ? 6 : s->mode == PRNN_SRU ? 4 : 2;
    int pseudo = mul(s->layers, s->dirs);
    /* A few out-of-range arguments as well. */
    int extra = (int)(take8(in) % 3);
    for (int p = -extra; p < pseudo + extra && p < 16; p++) {
        for (int id = -1; id <= ids; id++) {
            for (int bias = 0; bias < 2; bias++) {
                void *at = NULL;
                prnnStatus_t st =
                    bias ? CALL(prnnGetRNNLinLayerBiasParams(h, rnn, p, x0, wd, w, id, md, &at))
                         : CALL(prnnGetRNNLinLayerMatrixParams(h, rnn, p, x0, wd, w, id, md, &at));
                int inside = p >= 0 && p < pseudo && id >= 0 && id < ids;
                if (st == PRNN_STATUS_SUCCESS && !inside)
                    fail("LinLayer accepted an argument out of range",
                         bias ? "prnnGetRNNLinLayerBiasParams" : "prnnGetRNNLinLayerMatrixParams",
                         st);
                if (st != PRNN_STATUS_SUCCESS || !at)
                    continue;
                prnnDataType_t t;
                prnnTensorFormat_t fmt;
                int nb = 0, dims[3] = {0, 0, 0};
                CALL(prnnGetFilterNdDescriptor(md, 3, &t, &fmt, &nb, dims));
                size_t bytes = (size_t)dims[0] * (size_t)dims[1] * (size_t)dims[2] *
                               elem_size(s->type);
                uintptr_t lo = (uintptr_t)at, base = (uintptr_t)w;
                if (lo < base || lo + bytes > base + wbytes || bytes == 0)
                    fail("LinLayer region outside the weights", "LinLayer", st);
                if (nr < MAX_REGIONS)
                    r[nr++] = (region){lo, lo + bytes};
            }
        }
    }
    qsort(r, (size_t)nr, sizeof(r[0]), cmp_region);
    for (int i = 1; i < nr; i++)
        if (r[i].lo < r[i - 1].hi)
            fail("two LinLayer regions overlap", "LinLayer", PRNN_STATUS_SUCCESS);
    prnnDestroyFilterDescriptor(md);
}

/* The four compute calls with buffers of exactly the sizes the descriptors
 * and queries give. */
static void compute(input *in, prnnHandle_t h, prnnRNNDescriptor_t rnn, const shape *s,
                    prnnTensorDescriptor_t *xd, prnnTensorDescriptor_t *yd,
                    prnnTensorDescriptor_t state, prnnFilterDescriptor_t wd, void *w, size_t wbytes,
                    size_t ws_bytes, size_t rs_bytes)
{
    size_t rows = 0;
    for (int t = 0; t < s->seq; t++)
        rows += (size_t)s->batch[t];
    size_t es = elem_size(s->type);
    size_t nx = rows * (size_t)s->input, ny = rows * (size_t)s->hidden * (size_t)s->dirs;
    size_t ns = (size_t)s->layers * (size_t)s->dirs * (size_t)s->batch[0] * (size_t)s->hidden;
    if ((nx + 2 * ny + 8 * ns) * es + wbytes * 2 + ws_bytes + rs_bytes > MAX_COMPUTE_BYTES)
        return;
    unsigned nulls = take8(in); /* which optional states are NULL */
    void *x = values(in, s->type, nx), *y = values(in, s->type, ny);
    void *dy = values(in, s->type, ny), *dx = values(in, s->type, nx);
    void *st[8];
    for (int i = 0; i < 8; i++)
        st[i] = (nulls >> i & 1) ? NULL : values(in, s->type, ns);
    /* hx cx hy cy dhy dcy dhx dcx */
    void *dw = values(in, s->type, wbytes / es);
    void *ws = malloc(ws_bytes ? ws_bytes : 1), *rs = malloc(rs_bytes ? rs_bytes : 1);
    /* The descriptors are always given; a NULL pointer is what says "zeros"
     * or "not wanted". */
    prnnTensorDescriptor_t sd[8];
    for (int i = 0; i < 8; i++)
        sd[i] = state;
    CALL(prnnRNNForwardInference(h, rnn, s->seq, xd, x, sd[0], st[0], sd[1], st[1], wd, w, yd, y,
                                 sd[2], st[2], sd[3], st[3], ws, ws_bytes));
    prnnStatus_t f =
        CALL(prnnRNNForwardTraining(h, rnn, s->seq, xd, x, sd[0], st[0], sd[1], st[1], wd, w, yd, y,
                                    sd[2], st[2], sd[3], st[3], ws, ws_bytes, rs, rs_bytes));
    prnnStatus_t b = PRNN_STATUS_NOT_SUPPORTED;
    if (f == PRNN_STATUS_SUCCESS)
        b = CALL(prnnRNNBackwardData(h, rnn, s->seq, yd, y, yd, dy, sd[4], st[4], sd[5], st[5], wd,
                                     w, sd[0], st[0], sd[1], st[1], xd, dx, sd[6], st[6], sd[7],
                                     st[7], ws, ws_bytes, rs, rs_bytes));
    if (b == PRNN_STATUS_SUCCESS)
        CALL(prnnRNNBackwardWeights(h, rnn, s->seq, xd, x, sd[0], st[0], yd, y, ws, ws_bytes, wd,
                                    dw, rs, rs_bytes));
    /* The calls the reference accepted must all succeed: the shapes passed
     * the queries. */
    if (f != PRNN_STATUS_SUCCESS || b != PRNN_STATUS_SUCCESS)
        fail("a training call failed on a shape the size queries accepted",
             f != PRNN_STATUS_SUCCESS ? "prnnRNNForwardTraining" : "prnnRNNBackwardData",
             f != PRNN_STATUS_SUCCESS ? f : b);
    free(x);
    free(y);
    free(dy);
    free(dx);
    free(dw);
    free(ws);
    free(rs);
    for (int i = 0; i < 8; i++)
        free(st[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    input in = {data, size};
    shape s;
    memset(&s, 0, sizeof(s));
    choose(&in, &s);

    prnnHandle_t h = NULL;
    if (CALL(prnnCreateWithBackend(&h, PRNN_BACKEND_CPU_REFERENCE)))
        return 0;
    unsigned tune = take8(&in);
    if ((tune & 7) == 7)
        CALL(prnnSetAutotuneMode(h, (prnnAutotuneMode_t)(tune >> 3 & 3)));

    prnnDropoutDescriptor_t drop = NULL;
    unsigned dk = take8(&in);
    if (dk & 1) {
        static const float probs[] = {0.0f, 0.25f, 0.5f, 0.99f, 1.0f, -0.25f, 2.0f, NAN, INFINITY};
        float pr = probs[(dk >> 1) % 9];
        unsigned long long seed = take16(&in);
        CALL(prnnCreateDropoutDescriptor(&drop));
        if (CALL(prnnSetDropoutDescriptor(drop, (dk & 0x80) ? h : NULL, pr, seed)) ==
            PRNN_STATUS_SUCCESS) {
            float gp = -1;
            unsigned long long gs = 0;
            CALL(prnnGetDropoutDescriptor(drop, h, &gp, &gs));
            if (gp != pr || gs != seed)
                fail("dropout descriptor reads back differently", "prnnGetDropoutDescriptor",
                     PRNN_STATUS_SUCCESS);
        }
    }
    prnnRNNDescriptor_t rnn = NULL;
    CALL(prnnCreateRNNDescriptor(&rnn));
    prnnStatus_t set = CALL(prnnSetRNNDescriptor(rnn, s.hidden, s.layers, drop, s.input_mode,
                                                 s.direction, s.mode, s.type));
    prnnDestroyDropoutDescriptor(drop);
    if (set == PRNN_STATUS_SUCCESS) {
        int gh, gl;
        float gd;
        unsigned long long gs;
        prnnRNNInputMode_t gi;
        prnnDirectionMode_t gdir;
        prnnRNNMode_t gm;
        prnnDataType_t gt;
        CALL(prnnGetRNNDescriptor(rnn, &gh, &gl, &gd, &gs, &gi, &gdir, &gm, &gt));
        if (gh != s.hidden || gl != s.layers || gm != s.mode || gt != s.type ||
            gdir != s.direction || gi != s.input_mode)
            fail("RNN descriptor reads back differently", "prnnGetRNNDescriptor",
                 PRNN_STATUS_SUCCESS);
    }
    unsigned am = take8(&in);
    CALL(prnnSetRNNMatrixMathType(rnn, (prnnMathType_t)(am % 5)));
    CALL(prnnSetRNNAlgorithm(rnn, (prnnRNNAlgo_t)((am >> 2) % 4)));

    int seq = s.seq >= 1 && s.seq <= MAX_STEPS ? s.seq : 1;
    prnnTensorDescriptor_t xd[MAX_STEPS] = {0}, yd[MAX_STEPS] = {0}, state = NULL;
    for (int t = 0; t < seq; t++) {
        CALL(prnnCreateTensorDescriptor(&xd[t]));
        CALL(prnnCreateTensorDescriptor(&yd[t]));
        set3(&in, &s, xd[t], s.type, s.batch[t], s.input, 1);
        set3(&in, &s, yd[t], s.type, s.batch[t], mul(s.hidden, s.dirs), 1);
    }
    CALL(prnnCreateTensorDescriptor(&state));
    set3(&in, &s, state, s.type, mul(s.layers, s.dirs), s.batch[0], s.hidden);

    /* The size queries, with the sequence length as chosen (maybe out of
     * range: the arrays hold seq entries, so only that many are passed). */
    size_t wbytes = 0, ws_bytes = 0, rs_bytes = 0;
    int qseq = s.seq <= 0 ? s.seq : seq;
    prnnStatus_t ok = CALL(prnnGetRNNParamsSize(h, rnn, xd[0], &wbytes, s.type));
    prnnStatus_t okw = CALL(prnnGetRNNWorkspaceSize(h, rnn, qseq, xd, &ws_bytes));
    prnnStatus_t okr = CALL(prnnGetRNNTrainingReserveSize(h, rnn, qseq, xd, &rs_bytes));
    if ((am & 0xf0) == 0xf0) {
        prnnRNNPlanInfo_t info;
        memset(&info, 0, sizeof(info));
        info.structSize = sizeof(info);
        CALL(prnnGetRNNPlanInfo(h, rnn, s.batch[0], s.type, &info));
        CALL(prnnPrepareRNN(h, rnn, s.batch[0], s.type));
    }

    prnnFilterDescriptor_t wd = NULL;
    CALL(prnnCreateFilterDescriptor(&wd));
    void *w = NULL;
    if (ok == PRNN_STATUS_SUCCESS && wbytes <= MAX_COMPUTE_BYTES) {
        int dims[3] = {(int)(wbytes / elem_size(s.type)), 1, 1};
        unsigned k = take8(&in);
        if ((k & 31) == 31) {
            dims[k >> 5 & 1] += (int)(k >> 6) - 1;
            s.broken = 1;
        }
        if (CALL(prnnSetFilterNdDescriptor(wd, s.type, PRNN_TENSOR_NCHW, 3, dims)))
            s.broken = 1;
        w = values(&in, s.type, wbytes / elem_size(s.type));
        linlayers(&in, h, rnn, &s, xd[0], wd, w, wbytes);
        if (!s.broken && okw == PRNN_STATUS_SUCCESS && okr == PRNN_STATUS_SUCCESS && s.seq == qseq)
            compute(&in, h, rnn, &s, xd, yd, state, wd, w, wbytes, ws_bytes, rs_bytes);
    }
    free(w);
    prnnDestroyFilterDescriptor(wd);
    for (int t = 0; t < seq; t++) {
        prnnDestroyTensorDescriptor(xd[t]);
        prnnDestroyTensorDescriptor(yd[t]);
    }
    prnnDestroyTensorDescriptor(state);
    prnnDestroyRNNDescriptor(rnn);
    CALL(prnnDestroy(h));
    return 0;
}
