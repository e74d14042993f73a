/*
 * prnn's cuDNN 9-shaped calls for the padded layouts and for points with a
 * projection (prnn_run_api.h): prnnSetRNNDescriptor_v8 (projSize, padded
 * I/O in the padded layouts), RNN data descriptors of the point's layout
 * and lengths, prnnRNNForward, prnnRNNBackwardData_v8 and
 * prnnRNNBackwardWeights_v8 on the bench_io buffers.
 */
#include <stdio.h>

#include "prnn_run_api.h"

static prnnRNNDataLayout_t data_layout(bench_layout l)
{
    return l == BENCH_LAYOUT_BATCH_PADDED ? PRNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED
           : l == BENCH_LAYOUT_SEQ_PADDED ? PRNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED
                                          : PRNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED;
}

static int v8_describe(prun *r, prnnRNNAlgo_t algo, char *err, size_t n)
{
    const bench_point *pt = &r->ctx->model->pt;
    const bench_seqs *q = &r->ctx->io->seqs;
    prnnDataType_t dt = pt->dtype;
    int dirs = pt->bidirectional ? 2 : 1;
    int proj = bench_out_size(pt);
    /* cuDNN requires padded I/O for the unpacked layouts; a packed point
     * (one with a projection) describes its data as cuDNN's side does */
    unsigned padded_io = q->layout == BENCH_LAYOUT_PACKED ? PRNN_RNN_PADDED_IO_DISABLED
                                                          : PRNN_RNN_PADDED_IO_ENABLED;
    /* the padding fill: 0, whose bytes are zeros in every data type */
    double fill = 0;
    if (prun_check(r, prnnCreateRNNDescriptor(&r->rnn), "prnnCreateRNNDescriptor", err, n) ||
        prun_check(r, prnnCreateRNNDataDescriptor(&r->xd), "prnnCreateRNNDataDescriptor", err, n) ||
        prun_check(r, prnnCreateRNNDataDescriptor(&r->yd), "prnnCreateRNNDataDescriptor", err, n) ||
        prun_check(r, prnnCreateTensorDescriptor(&r->h1), "prnnCreateTensorDescriptor", err, n) ||
        prun_check(r, prnnCreateTensorDescriptor(&r->c1), "prnnCreateTensorDescriptor", err, n) ||
        prun_check(r, prnnCreateTensorDescriptor(&r->mt), "prnnCreateTensorDescriptor", err, n) ||
        prun_check(r, prnnCreateTensorDescriptor(&r->bt), "prnnCreateTensorDescriptor", err, n))
        return -1;
    /* mathPrec: float for half and bfloat16 data, as cuDNN's first choice */
    prnnDataType_t prec = dt == PRNN_DATA_DOUBLE ? PRNN_DATA_DOUBLE : PRNN_DATA_FLOAT;
    if (prun_check(
            r,
            prnnSetRNNDescriptor_v8(r->rnn, algo, pt->mode, PRNN_RNN_DOUBLE_BIAS,
                                    pt->bidirectional ? PRNN_BIDIRECTIONAL : PRNN_UNIDIRECTIONAL,
                                    PRNN_LINEAR_INPUT, dt, prec, prun_math_type(r), pt->input,
                                    pt->hidden, proj, pt->layers, NULL, padded_io),
            "prnnSetRNNDescriptor_v8", err, n) ||
        prun_check(r,
                   prnnSetRNNDataDescriptor(r->xd, dt, data_layout(q->layout), q->T, q->B,
                                            pt->input, q->len, &fill),
                   "prnnSetRNNDataDescriptor(x)", err, n) ||
        prun_check(r,
                   prnnSetRNNDataDescriptor(r->yd, dt, data_layout(q->layout), q->T, q->B,
                                            proj * dirs, q->len, &fill),
                   "prnnSetRNNDataDescriptor(y)", err, n) ||
        prun_check(r, prun_set3(r->h1, dt, pt->layers * dirs, pt->batch, proj),
                   "prnnSetTensorNdDescriptor(h)", err, n) ||
        prun_check(r, prun_set3(r->c1, dt, pt->layers * dirs, pt->batch, pt->hidden),
                   "prnnSetTensorNdDescriptor(c)", err, n))
        return -1;
    return 0;
}

/* The workspace serves the forward inference of a training point too (the
 * runner times it beside the step): the larger of the two modes'. */
static int v8_sizes(prun *r, char *err, size_t n)
{
    prnnHandle_t h = r->p->handle;
    size_t work_inference = 0, work_training = 0;
    if (prun_check(r, prnnGetRNNWeightSpaceSize(h, r->rnn, &r->w_size), "prnnGetRNNWeightSpaceSize",
                   err, n) ||
        prun_check(r,
                   prnnGetRNNTempSpaceSizes(h, r->rnn, PRNN_FWD_MODE_INFERENCE, r->xd,
                                            &work_inference, NULL),
                   "prnnGetRNNTempSpaceSizes(INFERENCE)", err, n))
        return -1;
    if (r->ctx->model->pt.pass == BENCH_TRAINING &&
        prun_check(r,
                   prnnGetRNNTempSpaceSizes(h, r->rnn, PRNN_FWD_MODE_TRAINING, r->xd,
                                            &work_training, &r->reserve_size),
                   "prnnGetRNNTempSpaceSizes(TRAINING)", err, n))
        return -1;
    r->work_size = work_inference > work_training ? work_inference : work_training;
    return 0;
}

static int v8_locate(void *user, CUdeviceptr base, int pseudo_layer, int lin_id, int is_bias,
                     CUdeviceptr *ptr, size_t *count, char *err, size_t n)
{
    prun *r = user;
    void *m_addr = NULL, *b_addr = NULL;
    if (prun_check(r,
                   prnnGetRNNWeightParams(r->p->handle, r->rnn, pseudo_layer, r->w_size,
                                          bench_ptr(base), lin_id, r->mt, &m_addr, r->bt, &b_addr),
                   "prnnGetRNNWeightParams", err, n))
        return -1;
    void *addr = is_bias ? b_addr : m_addr;
    *ptr = (CUdeviceptr)(uintptr_t)addr;
    *count = 0;
    if (!addr)
        return 0;
    prnnDataType_t dt;
    int nb = 0, dims[8], strides[8];
    if (prun_check(r,
                   prnnGetTensorNdDescriptor(is_bias ? r->bt : r->mt, 8, &dt, &nb, dims, strides),
                   "prnnGetTensorNdDescriptor", err, n))
        return -1;
    size_t c = 1;
    for (int i = 0; i < nb && i < 8; i++)
        c *= (size_t)dims[i];
    *count = nb > 0 ? c : 0;
    return 0;
}

/* devSeqLengths: NULL, which prnn allows (it reads the lengths from the
 * data descriptors); cuDNN gets its device copy (cudnn_rnn.c). */
static int v8_forward(prun *r, prnnForwardMode_t mode, char *err, size_t n)
{
    const bench_io *io = r->ctx->io;
    int train = mode == PRNN_FWD_MODE_TRAINING;
    return prun_check(r,
                      prnnRNNForward(r->p->handle, r->rnn, mode, NULL, r->xd, bench_ptr(io->x),
                                     r->yd, bench_ptr(io->y), r->h1, bench_ptr(io->hx),
                                     bench_ptr(io->hy), r->c1, bench_ptr(io->cx), bench_ptr(io->cy),
                                     r->w_size, bench_ptr(r->w), r->work_size, prun_workspace(r),
                                     train ? r->reserve_size : 0,
                                     train ? bench_ptr(r->reserve) : NULL),
                      "prnnRNNForward", err, n);
}

static int v8_forward_inference(void *user, char *err, size_t n)
{
    return v8_forward(user, PRNN_FWD_MODE_INFERENCE, err, n);
}

static int v8_forward_training(void *user, char *err, size_t n)
{
    return v8_forward(user, PRNN_FWD_MODE_TRAINING, err, n);
}

static int v8_backward_data(void *user, char *err, size_t n)
{
    prun *r = user;
    const bench_io *io = r->ctx->io;
    return prun_check(r,
                      prnnRNNBackwardData_v8(
                          r->p->handle, r->rnn, NULL, r->yd, bench_ptr(io->y), bench_ptr(io->dy),
                          r->xd, bench_ptr(io->dx), r->h1, bench_ptr(io->hx), bench_ptr(io->dhy),
                          bench_ptr(io->dhx), r->c1, bench_ptr(io->cx), bench_ptr(io->dcy),
                          bench_ptr(io->dcx), r->w_size, bench_ptr(r->w), r->work_size,
                          prun_workspace(r), r->reserve_size, bench_ptr(r->reserve)),
                      "prnnRNNBackwardData_v8", err, n);
}

/* WGRAD_MODE_ADD, as the v5 call and cuDNN's run: dw is zeroed before the
 * checked call, the timed ones add to it. */
static int v8_backward_weights(void *user, char *err, size_t n)
{
    prun *r = user;
    const bench_io *io = r->ctx->io;
    return prun_check(r,
                      prnnRNNBackwardWeights_v8(r->p->handle, r->rnn, PRNN_WGRAD_MODE_ADD, NULL,
                                                r->xd, bench_ptr(io->x), r->h1, bench_ptr(io->hx),
                                                r->yd, bench_ptr(io->y), r->w_size,
                                                bench_ptr(r->dw), r->work_size, prun_workspace(r),
                                                r->reserve_size, bench_ptr(r->reserve)),
                      "prnnRNNBackwardWeights_v8", err, n);
}

const prun_api prun_v8_api = {
    v8_describe,
    v8_sizes,
    v8_locate,
    v8_forward_inference,
    {v8_forward_training, v8_backward_data, v8_backward_weights},
};
