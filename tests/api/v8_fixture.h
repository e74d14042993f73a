/*
 * A complete set of arguments for the v8 calls (prnnRNNForward,
 * prnnRNNBackwardData_v8, prnnRNNBackwardWeights_v8) on the CPU backend, in
 * double, for a problem given as a v8_case: descriptors, seeded random
 * buffers, workspace and reserve of the queried sizes. The padding
 * positions of x and dy hold NaN, so that a call reading them shows up in
 * every result.
 */
#ifndef PRNN_TEST_V8_FIXTURE_H
#define PRNN_TEST_V8_FIXTURE_H

#include <math.h>
#include <stdint.h>

#include "../v8_layout.h"
#include "test_util.h"

#define V8_MAX_BATCH 8

typedef struct {
    prnnRNNMode_t mode;
    int hidden, proj, layers, bidir, input;
    int batch, max_seq;
    int lengths[V8_MAX_BATCH];
    prnnRNNDataLayout_t layout;
    prnnRNNBiasMode_t bias;
    int clip; /* PRNN_RNN_CLIP_MINMAX with [lclip, rclip] */
    double lclip, rclip;
    prnnNanPropagation_t nan_opt;
} v8_case;

typedef struct {
    v8_case c;
    prnnHandle_t h;
    prnnRNNDescriptor_t rnn;
    prnnRNNDataDescriptor_t xd, yd;
    prnnTensorDescriptor_t hd, cd;
    int dirs, out_cols;
    size_t nx, ny, nh, nc, nw, ws_size, rs_size, w_bytes;
    double *x, *y, *hx, *cx, *hy, *cy, *w, *dy, *dhy, *dcy, *dx, *dhx, *dcx, *dw;
    void *ws, *rs;
} v8_run;

static const double v8_fill = -7.25;

static inline double v8_rand(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(*s >> 11) / 9007199254740992.0 - 0.5;
}

/* Whether vector index v of a data buffer is padding (unpacked layouts). */
static inline int v8_is_padding(const v8_case *c, size_t v)
{
    if (c->layout == PRNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED)
        return 0;
    int t, s;
    if (c->layout == PRNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED) {
        t = (int)(v / (size_t)c->batch);
        s = (int)(v % (size_t)c->batch);
    } else {
        s = (int)(v / (size_t)c->max_seq);
        t = (int)(v % (size_t)c->max_seq);
    }
    return t >= c->lengths[s];
}

static inline size_t v8_vectors(const v8_case *c)
{
    return v8_layout_vectors(c->layout, c->max_seq, c->batch, c->lengths);
}

static inline double *v8_random(size_t n, uint64_t *seed)
{
    double *p = malloc((n ? n : 1) * sizeof(double));
    for (size_t i = 0; i < n; i++)
        p[i] = v8_rand(seed);
    return p;
}

/* NaN in every padding position of a data buffer of `cols` columns. */
static inline void v8_poison_padding(const v8_case *c, double *buf, int cols)
{
    for (size_t v = 0; v < v8_vectors(c); v++)
        if (v8_is_padding(c, v))
            for (int k = 0; k < cols; k++)
                buf[v * (size_t)cols + (size_t)k] = NAN;
}

static inline void v8_setup(v8_run *r, const v8_case *c, uint64_t seed)
{
    memset(r, 0, sizeof(*r));
    r->c = *c;
    r->dirs = c->bidir ? 2 : 1;
    int proj = c->proj ? c->proj : c->hidden;
    r->out_cols = r->dirs * proj;
    EXPECT_OK(prnnCreateWithBackend(&r->h, PRNN_BACKEND_CPU_REFERENCE));
    EXPECT_OK(prnnCreateRNNDescriptor(&r->rnn));
    EXPECT_OK(prnnSetRNNDescriptor_v8(r->rnn, PRNN_RNN_ALGO_STANDARD, c->mode, c->bias,
                                      c->bidir ? PRNN_BIDIRECTIONAL : PRNN_UNIDIRECTIONAL,
                                      PRNN_LINEAR_INPUT, PRNN_DATA_DOUBLE, PRNN_DATA_DOUBLE,
                                      PRNN_DEFAULT_MATH, c->input, c->hidden, proj, c->layers, NULL,
                                      PRNN_RNN_PADDED_IO_ENABLED));
    if (c->clip)
        EXPECT_OK(prnnRNNSetClip_v8(r->rnn, PRNN_RNN_CLIP_MINMAX, c->nan_opt, c->lclip, c->rclip));
    EXPECT_OK(prnnCreateRNNDataDescriptor(&r->xd));
    EXPECT_OK(prnnCreateRNNDataDescriptor(&r->yd));
    double fill = v8_fill;
    EXPECT_OK(prnnSetRNNDataDescriptor(r->xd, PRNN_DATA_DOUBLE, c->layout, c->max_seq, c->batch,
                                       c->input, c->lengths, &fill));
    EXPECT_OK(prnnSetRNNDataDescriptor(r->yd, PRNN_DATA_DOUBLE, c->layout, c->max_seq, c->batch,
                                       r->out_cols, c->lengths, &fill));
    EXPECT_OK(prnnCreateTensorDescriptor(&r->hd));
    EXPECT_OK(prnnCreateTensorDescriptor(&r->cd));
    int ld = c->layers * r->dirs;
    EXPECT_OK(set_tensor3(r->hd, PRNN_DATA_DOUBLE, ld, c->batch, proj));
    EXPECT_OK(set_tensor3(r->cd, PRNN_DATA_DOUBLE, ld, c->batch, c->hidden));
    EXPECT_OK(prnnGetRNNWeightSpaceSize(r->h, r->rnn, &r->w_bytes));
    EXPECT_OK(prnnGetRNNTempSpaceSizes(r->h, r->rnn, PRNN_FWD_MODE_TRAINING, r->xd, &r->ws_size,
                                       &r->rs_size));
    size_t vec = v8_vectors(c);
    r->nx = vec * (size_t)c->input;
    r->ny = vec * (size_t)r->out_cols;
    r->nh = (size_t)ld * (size_t)c->batch * (size_t)proj;
    r->nc = (size_t)ld * (size_t)c->batch * (size_t)c->hidden;
    r->nw = r->w_bytes / sizeof(double);
    r->x = v8_random(r->nx, &seed);
    r->w = v8_random(r->nw, &seed);
    r->hx = v8_random(r->nh, &seed);
    r->cx = v8_random(r->nc, &seed);
    r->dy = v8_random(r->ny, &seed);
    r->dhy = v8_random(r->nh, &seed);
    r->dcy = v8_random(r->nc, &seed);
    v8_poison_padding(c, r->x, c->input);
    v8_poison_padding(c, r->dy, r->out_cols);
    r->y = v8_random(r->ny, &seed);
    r->hy = v8_random(r->nh, &seed);
    r->cy = v8_random(r->nc, &seed);
    r->dx = v8_random(r->nx, &seed);
    r->dhx = v8_random(r->nh, &seed);
    r->dcx = v8_random(r->nc, &seed);
    r->dw = v8_random(r->nw, &seed);
    r->ws = malloc(r->ws_size ? r->ws_size : 1);
    r->rs = malloc(r->rs_size ? r->rs_size : 1);
}

static inline void v8_teardown(v8_run *r)
{
    double *bufs[] = {r->x,  r->y,   r->hx,  r->cx, r->hy,  r->cy,  r->w,
                      r->dy, r->dhy, r->dcy, r->dx, r->dhx, r->dcx, r->dw};
    for (size_t i = 0; i < sizeof(bufs) / sizeof(bufs[0]); i++)
        free(bufs[i]);
    free(r->ws);
    free(r->rs);
    prnnDestroyRNNDataDescriptor(r->xd);
    prnnDestroyRNNDataDescriptor(r->yd);
    prnnDestroyTensorDescriptor(r->hd);
    prnnDestroyTensorDescriptor(r->cd);
    prnnDestroyRNNDescriptor(r->rnn);
    prnnDestroy(r->h);
}

static inline prnnStatus_t v8_forward(v8_run *r, prnnForwardMode_t mode)
{
    return prnnRNNForward(r->h, r->rnn, mode, NULL, r->xd, r->x, r->yd, r->y, r->hd, r->hx, r->hy,
                          r->cd, r->cx, r->cy, r->w_bytes, r->w, r->ws_size, r->ws, r->rs_size,
                          r->rs);
}

static inline prnnStatus_t v8_backward_data(v8_run *r)
{
    return prnnRNNBackwardData_v8(r->h, r->rnn, NULL, r->yd, r->y, r->dy, r->xd, r->dx, r->hd,
                                  r->hx, r->dhy, r->dhx, r->cd, r->cx, r->dcy, r->dcx, r->w_bytes,
                                  r->w, r->ws_size, r->ws, r->rs_size, r->rs);
}

static inline prnnStatus_t v8_backward_weights(v8_run *r, prnnWgradMode_t mode)
{
    return prnnRNNBackwardWeights_v8(r->h, r->rnn, mode, NULL, r->xd, r->x, r->hd, r->hx, r->yd,
                                     r->y, r->w_bytes, r->dw, r->ws_size, r->ws, r->rs_size, r->rs);
}

#endif
