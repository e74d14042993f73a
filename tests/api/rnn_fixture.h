/*
 * A complete, valid set of arguments for the four compute calls on the CPU
 * backend (float data), for a problem given as an rnn_shape: descriptors,
 * buffers with deterministic contents, workspace and reserve of the queried
 * sizes. Tests break one thing, or combine two fixtures (one fixture's
 * reserve passed to another's backward calls), and call through the four
 * wrappers, which pass exactly the fixture's fields.
 */
#ifndef PRNN_TEST_RNN_FIXTURE_H
#define PRNN_TEST_RNN_FIXTURE_H

#include "test_util.h"

#define FIXTURE_MAX_STEPS 8

typedef struct {
    prnnRNNMode_t mode;
    int hidden;
    int layers;
    prnnDirectionMode_t direction;
    int input;
    int seq;
    int batch[FIXTURE_MAX_STEPS];
    float dropout; /* with seed: no dropout descriptor when both are 0 */
    unsigned long long seed;
    prnnMathType_t math;
    prnnRNNAlgo_t algo;
} rnn_shape;

typedef struct {
    rnn_shape shape;
    prnnHandle_t handle; /* the fixture's own; tests may point it elsewhere */
    prnnHandle_t own_handle;
    prnnRNNDescriptor_t rnn;
    prnnTensorDescriptor_t xd[FIXTURE_MAX_STEPS], yd[FIXTURE_MAX_STEPS];
    prnnTensorDescriptor_t dxd[FIXTURE_MAX_STEPS], dyd[FIXTURE_MAX_STEPS];
    prnnTensorDescriptor_t hxd, cxd, hyd, cyd, dhxd, dcxd, dhyd, dcyd;
    prnnFilterDescriptor_t wd, dwd;
    int seq;
    const prnnTensorDescriptor_t *xdp, *ydp, *dxdp, *dydp;
    float *x, *y, *hx, *cx, *hy, *cy, *w, *dx, *dy, *dhx, *dcx, *dhy, *dcy, *dw;
    void *ws, *rs; /* rs: the reserve the calls use; tests may swap it */
    void *own_rs;
    size_t ws_size, rs_size, w_size;
} fixture;

static inline float *fixture_floats(size_t n)
{
    float *p = calloc(n ? n : 1, sizeof(float));
    for (size_t i = 0; i < n; i++)
        p[i] = (float)((int)(i * 37 % 17) - 8) / 16.0f;
    return p;
}

static inline void fixture_setup(fixture *f, const rnn_shape *shape)
{
    memset(f, 0, sizeof(*f));
    f->shape = *shape;
    const int dirs = shape->direction == PRNN_BIDIRECTIONAL ? 2 : 1;
    const int out = shape->hidden * dirs, mini = shape->batch[0];
    EXPECT_OK(prnnCreateWithBackend(&f->own_handle, PRNN_BACKEND_CPU_REFERENCE));
    f->handle = f->own_handle;
    prnnDropoutDescriptor_t drop = NULL;
    if (shape->dropout != 0.0f || shape->seed != 0) {
        EXPECT_OK(prnnCreateDropoutDescriptor(&drop));
        EXPECT_OK(prnnSetDropoutDescriptor(drop, NULL, shape->dropout, shape->seed));
    }
    EXPECT_OK(prnnCreateRNNDescriptor(&f->rnn));
    EXPECT_OK(prnnSetRNNDescriptor(f->rnn, shape->hidden, shape->layers, drop, PRNN_LINEAR_INPUT,
                                   shape->direction, shape->mode, PRNN_DATA_FLOAT));
    prnnDestroyDropoutDescriptor(drop); /* the RNN descriptor copied it */
    EXPECT_OK(prnnSetRNNMatrixMathType(f->rnn, shape->math));
    EXPECT_OK(prnnSetRNNAlgorithm(f->rnn, shape->algo));
    size_t rows = 0;
    for (int t = 0; t < shape->seq; t++) {
        prnnCreateTensorDescriptor(&f->xd[t]);
        prnnCreateTensorDescriptor(&f->yd[t]);
        prnnCreateTensorDescriptor(&f->dxd[t]);
        prnnCreateTensorDescriptor(&f->dyd[t]);
        set_tensor3(f->xd[t], PRNN_DATA_FLOAT, shape->batch[t], shape->input, 1);
        set_tensor3(f->dxd[t], PRNN_DATA_FLOAT, shape->batch[t], shape->input, 1);
        set_tensor3(f->yd[t], PRNN_DATA_FLOAT, shape->batch[t], out, 1);
        set_tensor3(f->dyd[t], PRNN_DATA_FLOAT, shape->batch[t], out, 1);
        rows += (size_t)shape->batch[t];
    }
    prnnTensorDescriptor_t *states[] = {&f->hxd,  &f->cxd,  &f->hyd,  &f->cyd,
                                        &f->dhxd, &f->dcxd, &f->dhyd, &f->dcyd};
    for (int i = 0; i < 8; i++) {
        prnnCreateTensorDescriptor(states[i]);
        set_tensor3(*states[i], PRNN_DATA_FLOAT, shape->layers * dirs, mini, shape->hidden);
    }
    EXPECT_OK(prnnGetRNNParamsSize(f->handle, f->rnn, f->xd[0], &f->w_size, PRNN_DATA_FLOAT));
    int wdims[3] = {(int)(f->w_size / sizeof(float)), 1, 1};
    prnnCreateFilterDescriptor(&f->wd);
    prnnCreateFilterDescriptor(&f->dwd);
    prnnSetFilterNdDescriptor(f->wd, PRNN_DATA_FLOAT, PRNN_TENSOR_NCHW, 3, wdims);
    prnnSetFilterNdDescriptor(f->dwd, PRNN_DATA_FLOAT, PRNN_TENSOR_NCHW, 3, wdims);
    f->seq = shape->seq;
    f->xdp = f->xd;
    f->ydp = f->yd;
    f->dxdp = f->dxd;
    f->dydp = f->dyd;
    EXPECT_OK(prnnGetRNNWorkspaceSize(f->handle, f->rnn, f->seq, f->xd, &f->ws_size));
    EXPECT_OK(prnnGetRNNTrainingReserveSize(f->handle, f->rnn, f->seq, f->xd, &f->rs_size));
    size_t st = (size_t)(shape->layers * dirs * mini * shape->hidden);
    f->x = fixture_floats(rows * (size_t)shape->input);
    f->dx = fixture_floats(rows * (size_t)shape->input);
    f->y = fixture_floats(rows * (size_t)out);
    f->dy = fixture_floats(rows * (size_t)out);
    f->hx = fixture_floats(st);
    f->cx = fixture_floats(st);
    f->hy = fixture_floats(st);
    f->cy = fixture_floats(st);
    f->dhx = fixture_floats(st);
    f->dcx = fixture_floats(st);
    f->dhy = fixture_floats(st);
    f->dcy = fixture_floats(st);
    f->w = fixture_floats(f->w_size / sizeof(float));
    f->dw = fixture_floats(f->w_size / sizeof(float));
    f->ws = malloc(f->ws_size ? f->ws_size : 1);
    f->own_rs = malloc(f->rs_size ? f->rs_size : 1);
    f->rs = f->own_rs;
}

static inline void fixture_teardown(fixture *f)
{
    for (int t = 0; t < f->shape.seq; t++) {
        prnnDestroyTensorDescriptor(f->xd[t]);
        prnnDestroyTensorDescriptor(f->yd[t]);
        prnnDestroyTensorDescriptor(f->dxd[t]);
        prnnDestroyTensorDescriptor(f->dyd[t]);
    }
    prnnTensorDescriptor_t states[] = {f->hxd,  f->cxd,  f->hyd,  f->cyd,
                                       f->dhxd, f->dcxd, f->dhyd, f->dcyd};
    for (int i = 0; i < 8; i++)
        prnnDestroyTensorDescriptor(states[i]);
    prnnDestroyFilterDescriptor(f->wd);
    prnnDestroyFilterDescriptor(f->dwd);
    prnnDestroyRNNDescriptor(f->rnn);
    prnnDestroy(f->own_handle);
    void *bufs[] = {f->x,  f->y,   f->hx,  f->cx,  f->hy,  f->cy, f->w,  f->dx,
                    f->dy, f->dhx, f->dcx, f->dhy, f->dcy, f->dw, f->ws, f->own_rs};
    for (size_t i = 0; i < sizeof(bufs) / sizeof(bufs[0]); i++)
        free(bufs[i]);
}

static inline prnnStatus_t fwd_training(fixture *f)
{
    return prnnRNNForwardTraining(f->handle, f->rnn, f->seq, f->xdp, f->x, f->hxd, f->hx, f->cxd,
                                  f->cx, f->wd, f->w, f->ydp, f->y, f->hyd, f->hy, f->cyd, f->cy,
                                  f->ws, f->ws_size, f->rs, f->rs_size);
}

static inline prnnStatus_t fwd_inference(fixture *f)
{
    return prnnRNNForwardInference(f->handle, f->rnn, f->seq, f->xdp, f->x, f->hxd, f->hx, f->cxd,
                                   f->cx, f->wd, f->w, f->ydp, f->y, f->hyd, f->hy, f->cyd, f->cy,
                                   f->ws, f->ws_size);
}

static inline prnnStatus_t bwd_data(fixture *f)
{
    return prnnRNNBackwardData(f->handle, f->rnn, f->seq, f->ydp, f->y, f->dydp, f->dy, f->dhyd,
                               f->dhy, f->dcyd, f->dcy, f->wd, f->w, f->hxd, f->hx, f->cxd, f->cx,
                               f->dxdp, f->dx, f->dhxd, f->dhx, f->dcxd, f->dcx, f->ws, f->ws_size,
                               f->rs, f->rs_size);
}

static inline prnnStatus_t bwd_weights(fixture *f)
{
    return prnnRNNBackwardWeights(f->handle, f->rnn, f->seq, f->xdp, f->x, f->hxd, f->hx, f->ydp,
                                  f->y, f->ws, f->ws_size, f->dwd, f->dw, f->rs, f->rs_size);
}

#endif
