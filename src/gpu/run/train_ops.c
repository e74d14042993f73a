#include "gpu/run/train_ops.h"

#include <string.h>

#include "error.h"
#include "gpu/run/kernel_request.h"
#include "prnn_kernel_abi.h"
#include "ref/philox.h"

int prnn_train_dropout_after(const prnn_call_plan *c, int layer)
{
    return layer + 1 < c->rnn->layers && prnn_dropout_threshold((double)c->rnn->dropout) > 0;
}

static void dropout_args(const prnn_call_plan *c, int layer, prnn_dropout_args *a)
{
    memset(a, 0, sizeof(*a));
    a->n = (unsigned long long)c->p->total_rows * (unsigned long long)(c->dirs * c->P);
    a->seed = c->rnn->seed;
    a->layer = layer;
    a->threshold = prnn_dropout_threshold((double)c->rnn->dropout);
    /* the reference's scale, exactly (src/ref/ref_layout.c) */
    a->scale = 1.0 / (1.0 - (double)c->rnn->dropout);
}

prnnStatus_t prnn_train_dropout_forward(const prnn_call_plan *c, int layer, const void *src,
                                        void *dst)
{
    prnn_dropout_args a;
    dropout_args(c, layer, &a);
    a.src = src;
    a.dst = dst;
    return prnn_run_launch(c, c->kernels->dropout_forward, prnn_run_grid((a.n + 3) / 4, 256), 1,
                           256, &a, sizeof(a), "prnn_dropout_forward");
}

prnnStatus_t prnn_train_dropout_backward(const prnn_call_plan *c, int layer, void *grad)
{
    prnn_dropout_args a;
    dropout_args(c, layer, &a);
    a.dst = grad;
    return prnn_run_launch(c, c->kernels->dropout_backward, prnn_run_grid((a.n + 3) / 4, 256), 1,
                           256, &a, sizeof(a), "prnn_dropout_backward");
}

prnnStatus_t prnn_train_gather_prev(const prnn_call_plan *c, int dir, const void *out, int ld,
                                    prnn_rows out_rows, const void *hx, void *dst)
{
    prnn_gather_args a;
    memset(&a, 0, sizeof(a));
    a.out = out;
    a.out_rows = out_rows;
    a.hx = hx;
    a.order = c->order;
    a.dst = dst;
    a.batch = (const int *)prnn_run_ws(c, c->l.batch);
    a.offset = (const int *)prnn_run_ws(c, c->l.offset);
    a.seq_length = c->p->seq_length;
    a.hidden = c->P; /* h's width */
    a.ld = ld;
    a.col0 = dir * c->P;
    a.reverse = dir;
    unsigned gy = c->p->seq_length < 1024 ? (unsigned)c->p->seq_length : 1024;
    unsigned gx = prnn_run_grid((unsigned long long)c->p->mini_batch * c->P, 256);
    if (gx > 64)
        gx = 64;
    return prnn_run_launch(c, c->kernels->gather_prev, gx, gy, 256, &a, sizeof(a),
                           "prnn_gather_prev");
}

prnnStatus_t prnn_train_next_input(const prnn_call_plan *c, int layer, int training,
                                   const void *output, const void **input)
{
    *input = output;
    if (!training || !prnn_train_dropout_after(c, layer))
        return PRNN_STATUS_SUCCESS;
    void *dropped = prnn_run_ws(c, c->l.dropped);
    PRNN_TRY(prnn_train_dropout_forward(c, layer, output, dropped));
    *input = dropped;
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnn_train_bias_grads(const prnn_call_plan *c, const void *dg, int ld, int cols,
                                   const prnn_bias_target *targets, int count)
{
    if (count < 1)
        return PRNN_STATUS_SUCCESS;
    prnn_bias_args a;
    memset(&a, 0, sizeof(a));
    a.dg = dg;
    a.partial = prnn_run_ws(c, c->l.bias_partial);
    a.rows = (long long)c->p->total_rows;
    a.ld = ld;
    a.cols = cols;
    for (int j = 0; j < count && j < 2; j++) {
        a.bias[j] = targets[j].bias;
        a.col_split[j] = targets[j].col_split;
        a.col_skip[j] = targets[j].col_skip;
    }
    a.chunk_rows = c->l.bias_chunk_rows;
    a.chunks = c->l.bias_chunks;
    const unsigned biases = count < 2 ? 1u : 2u;
    const unsigned gx = (unsigned)((cols + 127) / 128);
    if (a.chunks == 1) /* no partial sums to keep: one launch */
        return prnn_run_launch(c, c->kernels->bias_direct, gx, biases, 128, &a, sizeof(a),
                               "prnn_bias_direct");
    prnnStatus_t s = prnn_run_launch(c, c->kernels->bias_partial, (unsigned)((ld + 127) / 128),
                                     (unsigned)a.chunks, 128, &a, sizeof(a), "prnn_bias_partial");
    if (!s)
        s = prnn_run_launch(c, c->kernels->bias_finish, gx, biases, 128, &a, sizeof(a),
                            "prnn_bias_finish");
    return s;
}

prnnStatus_t prnn_train_skip_dx(const prnn_call_plan *c, const void *const *dg, void *dx)
{
    prnn_skip_dx_args a;
    memset(&a, 0, sizeof(a));
    a.dg[0] = dg[0];
    a.dg[1] = c->dirs > 1 ? dg[1] : NULL;
    a.dx = dx;
    a.count = (long long)c->p->total_rows * c->H;
    a.hidden = c->H;
    a.dirs = c->dirs;
    a.dg_cols = prnn_cell_traits(c->rnn->mode)->dg_cols;
    a.gates = c->G;
    return prnn_run_launch(c, c->kernels->skip_dx, prnn_run_grid((unsigned long long)a.count, 256),
                           1, 256, &a, sizeof(a), "prnn_skip_dx");
}
