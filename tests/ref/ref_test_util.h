/*
 * Helpers shared by the reference tests: building a problem without the API
 * layer, seeded random numbers, guarded buffers that catch writes outside
 * the documented sizes, and error measures. Header-only, so each test is one
 * self-contained executable.
 */
#ifndef PRNN_REF_TEST_UTIL_H
#define PRNN_REF_TEST_UTIL_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "descriptors.h"
#include "dtype.h"
#include "ref/philox.h"
#include "ref/ref_rnn.h"
#include "rnn_problem.h"
#include "weights_layout.h"

#define RT_MAX_STEPS 16

typedef struct {
    struct prnnRNNStruct rnn;
    prnn_rnn_problem p;
    int batch[RT_MAX_STEPS];
} rt_problem;

static inline void rt_problem_init(rt_problem *q, prnnRNNMode_t mode, int hidden, int layers,
                                   int bidir, int skip, int input, int steps, const int *batch,
                                   prnnDataType_t dtype, float dropout, unsigned long long seed)
{
    memset(q, 0, sizeof(*q));
    q->rnn.magic = PRNN_MAGIC_RNN;
    q->rnn.is_set = 1;
    q->rnn.hidden = hidden;
    q->rnn.layers = layers;
    q->rnn.dropout = dropout;
    q->rnn.seed = seed;
    q->rnn.input_mode = skip ? PRNN_SKIP_INPUT : PRNN_LINEAR_INPUT;
    q->rnn.direction = bidir ? PRNN_BIDIRECTIONAL : PRNN_UNIDIRECTIONAL;
    q->rnn.mode = mode;
    q->rnn.dtype = dtype;
    q->rnn.math = PRNN_DEFAULT_MATH;
    q->rnn.sru_convention = PRNN_SRU_CONVENTION_PRNN;
    q->rnn.sru_activation = PRNN_SRU_ACTIVATION_TANH;
    q->rnn.sru_scale = 1.0;
    size_t rows = 0;
    for (int t = 0; t < steps; t++) {
        q->batch[t] = batch[t];
        rows += (size_t)batch[t];
    }
    q->p.rnn = &q->rnn;
    q->p.input_size = input;
    q->p.seq_length = steps;
    q->p.batch = q->batch;
    q->p.mini_batch = batch[0];
    q->p.total_rows = rows;
}

/* SRU's conventions, as prnnSetRNNSRUConvention sets them. The cases the
 * tests run through: 0 is the default. */
enum { RT_SRU_CONVENTIONS = 4 };
static inline void rt_problem_sru(rt_problem *q, int which)
{
    static const struct {
        prnnSRUConvention_t convention;
        prnnSRUActivation_t activation;
        double scale;
    } c[RT_SRU_CONVENTIONS] = {
        {PRNN_SRU_CONVENTION_PRNN, PRNN_SRU_ACTIVATION_TANH, 1.0},
        /* the sru package's defaults (rescale as SRUCell's, highway_bias 0) */
        {PRNN_SRU_CONVENTION_SRU_PACKAGE, PRNN_SRU_ACTIVATION_IDENTITY, 1.7320508075688772},
        {PRNN_SRU_CONVENTION_SRU_PACKAGE, PRNN_SRU_ACTIVATION_TANH, 1.25},
        {PRNN_SRU_CONVENTION_PRNN, PRNN_SRU_ACTIVATION_IDENTITY, 0.75},
    };
    q->rnn.sru_convention = c[which].convention;
    q->rnn.sru_activation = c[which].activation;
    q->rnn.sru_scale = c[which].scale;
}
static inline int rt_problem_sru_split(int which)
{
    return which == 1 || which == 2;
}
static inline const char *rt_sru_name(int which)
{
    static const char *n[RT_SRU_CONVENTIONS] = {"", " pkg-id-1.73", " pkg-tanh-1.25",
                                                " prnn-id-0.75"};
    return n[which];
}

static inline int rt_dirs(const rt_problem *q)
{
    return prnn_rnn_dirs(&q->rnn);
}
static inline size_t rt_rows(const rt_problem *q)
{
    return q->p.total_rows;
}
static inline size_t rt_out_cols(const rt_problem *q)
{
    return (size_t)(rt_dirs(q) * q->rnn.hidden);
}
/* Elements of hx and friends: [layers * dirs][mini_batch][hidden]. */
static inline size_t rt_state_elems(const rt_problem *q)
{
    return (size_t)q->rnn.layers * (size_t)rt_dirs(q) * (size_t)q->p.mini_batch *
           (size_t)q->rnn.hidden;
}
static inline size_t rt_weight_elems(const rt_problem *q)
{
    return prnn_weights_bytes(&q->rnn, q->p.input_size) / prnn_dtype_size(q->rnn.dtype);
}

/* Element offsets of the real (non-padding) weights, in a fixed order (per
 * pseudo-layer: W, R, bW, bR; SRU: W, then b_f b_r v_f v_r) that does not
 * depend on the storage type, although the offsets do (blocks are aligned
 * in bytes). idx must hold rt_weight_elems(q) entries; returns how many
 * were written. */
static inline size_t rt_weight_indices(const rt_problem *q, size_t *idx)
{
    size_t n = 0, h = (size_t)q->rnn.hidden;
    size_t gh = (size_t)prnn_cell_traits(q->rnn.mode)->gates * h;
    for (int pl = 0; pl < q->rnn.layers * rt_dirs(q); pl++) {
        prnn_pseudo_layer_layout l;
        prnn_weights_pseudo_layer(&q->rnn, q->p.input_size, pl, &l);
        for (size_t i = 0; i < (size_t)l.w_rows * (size_t)l.w_cols; i++)
            idx[n++] = l.w_offset + i;
        if (q->rnn.mode == PRNN_SRU) {
            for (size_t i = 0; i < PRNN_SRU_VECTORS * h; i++)
                idx[n++] = l.v_offset + i;
            continue;
        }
        for (size_t i = 0; i < gh * h; i++)
            idx[n++] = l.r_offset + i;
        for (size_t i = 0; i < gh; i++)
            idx[n++] = l.bw_offset + i;
        for (size_t i = 0; i < gh; i++)
            idx[n++] = l.br_offset + i;
    }
    return n;
}

/* ---- seeded random numbers (xorshift64*, the same everywhere) ---- */

static uint64_t rt_rng_state = 0x9e3779b97f4a7c15ull;
static inline void rt_seed(uint64_t s)
{
    rt_rng_state = s ? s : 1;
}
static inline uint64_t rt_next(void)
{
    rt_rng_state ^= rt_rng_state >> 12;
    rt_rng_state ^= rt_rng_state << 25;
    rt_rng_state ^= rt_rng_state >> 27;
    return rt_rng_state * 0x2545f4914f6cdd1dull;
}
/* Uniform in [lo, hi). */
static inline double rt_uniform(double lo, double hi)
{
    return lo + (hi - lo) * (double)(rt_next() >> 11) * (1.0 / 9007199254740992.0);
}

/* ---- guarded buffers ---- */

/* 72 bytes: keeps pointers 8-byte but not 64-byte aligned, so the
 * reference's own alignment of workspace and reserve is exercised. */
#define RT_GUARD 72
#define RT_GUARD_BYTE 0xa5

typedef struct {
    unsigned char *raw;
    size_t size;
} rt_buf;

static inline void *rt_alloc(rt_buf *b, size_t size)
{
    b->size = size;
    b->raw = malloc(size + 2 * RT_GUARD);
    if (!b->raw) {
        fprintf(stderr, "out of memory (%zu bytes)\n", size);
        exit(1);
    }
    memset(b->raw, RT_GUARD_BYTE, size + 2 * RT_GUARD);
    return b->raw + RT_GUARD;
}

/* 0 when both guard bands are intact; prints the first damaged byte. */
static inline int rt_check_guard(const rt_buf *b, const char *name)
{
    for (size_t i = 0; i < RT_GUARD; i++) {
        if (b->raw[i] != RT_GUARD_BYTE) {
            printf("  %s: written %zu bytes before its start\n", name, RT_GUARD - i);
            return 1;
        }
        if (b->raw[RT_GUARD + b->size + i] != RT_GUARD_BYTE) {
            printf("  %s: written at byte %zu past its end\n", name, i);
            return 1;
        }
    }
    return 0;
}

static inline void rt_free(rt_buf *b)
{
    free(b->raw);
    b->raw = NULL;
}

/* ---- typed access ---- */

static inline double rt_get(const void *p, prnnDataType_t t, size_t i)
{
    return prnn_load_as_double(p, t, i);
}
static inline void rt_set(void *p, prnnDataType_t t, size_t i, double v)
{
    prnn_store_from_double(p, t, i, v);
}

/* Relative error with a floor, so that values near zero are compared in
 * absolute terms. */
static inline double rt_rel_err(double got, double want, double floor)
{
    double m = fabs(want) > fabs(got) ? fabs(want) : fabs(got);
    if (m < floor)
        m = floor;
    return fabs(got - want) / m;
}

static inline const char *rt_mode_name(prnnRNNMode_t m)
{
    switch (m) {
    case PRNN_RNN_RELU: return "RELU";
    case PRNN_RNN_TANH: return "TANH";
    case PRNN_LSTM: return "LSTM";
    case PRNN_GRU: return "GRU";
    case PRNN_SRU: return "SRU";
    }
    return "?";
}

#endif
