#include "gpu/kernel_request.h"

#include <stdio.h>
#include <string.h>

#include "error.h"
#include "prnn_kernel_abi.h"

int prnn_kernel_mode_code(prnnRNNMode_t mode)
{
    switch (mode) {
    case PRNN_RNN_RELU: return PRNN_KMODE_RELU;
    case PRNN_RNN_TANH: return PRNN_KMODE_TANH;
    case PRNN_LSTM: return PRNN_KMODE_LSTM;
    case PRNN_GRU: return PRNN_KMODE_GRU;
    case PRNN_SRU: break;
    }
    return -1;
}

static void start(prnn_kernel_request *r, const char *source, const char *kernel, int sm)
{
    r->n = 0;
    r->overflow = 0;
    memset(&r->req, 0, sizeof(r->req));
    r->req.source_name = source;
    r->req.kernel_name = kernel;
    r->req.sm = sm;
}

static void add_define(prnn_kernel_request *r, const char *name, long value)
{
    if (r->n == PRNN_REQUEST_MAX_DEFINES) {
        r->overflow = 1;
        return;
    }
    int len = snprintf(r->text[r->n], sizeof(r->text[0]), "%s=%ld", name, value);
    if (len < 0 || len >= (int)sizeof(r->text[0]))
        r->overflow = 1;
    r->ptr[r->n] = r->text[r->n];
    r->n++;
}

static prnnStatus_t finish(prnn_kernel_request *r)
{
    if (r->overflow)
        return prnn_fail(PRNN_STATUS_INTERNAL_ERROR,
                         "the request for %s (%s) needs more than %d defines of at most %d "
                         "characters", r->req.kernel_name, r->req.source_name,
                         PRNN_REQUEST_MAX_DEFINES, PRNN_REQUEST_DEFINE_CHARS - 1);
    r->req.defines = r->ptr;
    r->req.num_defines = r->n;
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnn_request_persistent(const prnn_kernel_geometry *g, int skip, int train, int sm,
                                     prnn_kernel_request *r)
{
    const int bwd = g->shape.pass == PRNN_PASS_BACKWARD_DATA;
    if (bwd && (skip || train))
        return prnn_fail(PRNN_STATUS_INTERNAL_ERROR,
                         "the backward-data kernel has no SKIP_INPUT or training variant");
    if (bwd)
        start(r, "rnn_backward.cu", "prnn_rnn_backward", sm);
    else
        start(r, "rnn_persistent.cu", "prnn_rnn_persistent", sm);
    add_define(r, "PRNN_PASS", bwd ? PRNN_KPASS_BACKWARD_DATA : PRNN_KPASS_FORWARD);
    add_define(r, "PRNN_MODE", prnn_kernel_mode_code(g->shape.mode));
    add_define(r, "PRNN_DTYPE", prnn_kernel_dtype_code(g->shape.dtype));
    add_define(r, "PRNN_H", g->shape.hidden);
    add_define(r, "PRNN_BMAX", g->shape.max_batch);
    add_define(r, "PRNN_NBLK", g->tile.blocks);
    add_define(r, "PRNN_UPB", g->units_per_block);
    add_define(r, "PRNN_THREADS", g->tile.threads);
    add_define(r, "PRNN_KSPLIT", g->tile.ksplit);
    add_define(r, "PRNN_LANES_K", g->tile.lanes_k);
    add_define(r, "PRNN_BC", g->tile.batch_chunk);
    add_define(r, "PRNN_BGRP", g->tile.batch_groups);
    add_define(r, "PRNN_GSTRIDE", g->group_stride);
    add_define(r, "PRNN_KREG", g->kreg);
    add_define(r, "PRNN_KSMEM", g->ksmem);
    add_define(r, "PRNN_MMA", g->tile.mma);
    add_define(r, "PRNN_HANDOFF", g->tile.handoff);
    add_define(r, "PRNN_RED_BUFS", g->red_bufs);
    if (!bwd) {
        add_define(r, "PRNN_SKIP", skip);
        add_define(r, "PRNN_TRAIN", train);
    }
    /* Cross-checks: the kernel static_asserts its own arithmetic against
     * these (kernel_geometry.c mirrors it). */
    add_define(r, "PRNN_SMEM_BYTES", (long)g->smem_bytes);
    add_define(r, "PRNN_KSTEPS", g->ksteps);
    add_define(r, "PRNN_WPK", g->wpk);
    add_define(r, "PRNN_EX_BYTES", (long)g->exchange_bytes_per_dir);
    add_define(r, "PRNN_PACKED_BYTES", (long)g->packed_bytes_per_dir);
    return finish(r);
}

prnnStatus_t prnn_request_step(prnnRNNMode_t mode, prnnDataType_t dtype, int hidden, int skip,
                               int sm, prnn_kernel_request *r)
{
    start(r, "rnn_step.cu", "prnn_step_cell", sm);
    add_define(r, "PRNN_MODE", prnn_kernel_mode_code(mode));
    add_define(r, "PRNN_DTYPE", prnn_kernel_dtype_code(dtype));
    add_define(r, "PRNN_H", hidden);
    add_define(r, "PRNN_SKIP", skip);
    return finish(r);
}

prnnStatus_t prnn_request_setup(int sm, prnn_kernel_request *r)
{
    start(r, "rnn_setup.cu", "prnn_rnn_setup", sm);
    return finish(r);
}

prnnStatus_t prnn_request_sru(prnnDataType_t dtype, int hidden, int threads, int upt,
                              int depth, int sm, prnn_kernel_request *r)
{
    start(r, "sru_scan.cu", "prnn_sru_kernels", sm);
    add_define(r, "PRNN_DTYPE", prnn_kernel_dtype_code(dtype));
    add_define(r, "PRNN_H", hidden);
    add_define(r, "PRNN_SRU_THREADS", threads);
    add_define(r, "PRNN_SRU_UPT", upt);
    add_define(r, "PRNN_SRU_DEPTH", depth);
    return finish(r);
}

prnnStatus_t prnn_request_train(prnnDataType_t dtype, int sm, prnn_kernel_request *r)
{
    start(r, "rnn_train.cu", "prnn_train_kernels", sm);
    add_define(r, "PRNN_DTYPE", prnn_kernel_dtype_code(dtype));
    return finish(r);
}
