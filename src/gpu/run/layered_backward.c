#include <string.h>

#include "error.h"
#include "gpu/run/layered_run.h"
#include "gpu/run/train_ops.h"

/* ---- backward data ---- */

void prnn_layered_bwd_args(const prnn_layer_run *lr, prnn_bwd_args *a)
{
    const prnn_call_plan *c = lr->c;
    const prnn_backward_data_buffers *b = lr->bwd;
    memset(a, 0, sizeof(*a));
    for (int d = 0; d < c->dirs; d++) {
        prnn_bwd_dir_args *da = &a->dir[d];
        const int pseudo = lr->layer * c->dirs + d;
        prnn_dir_weights w;
        prnn_run_dir_weights(c, b->w, pseudo, &w);
        const size_t so_h = (size_t)pseudo * c->h_state_stride;
        const size_t so_c = (size_t)pseudo * c->c_state_stride;
        da->R = w.R;
        da->dy = lr->dout;
        da->act = prnn_reserve_act(&c->r, b->reserve, pseudo);
        da->hx = prnn_run_offset(b->hx, so_h);
        da->cx = prnn_run_offset(b->cx, so_c);
        da->dhy = prnn_run_offset(b->dhy, so_h);
        da->dcy = prnn_run_offset(b->dcy, so_c);
        da->dhx = prnn_run_out_offset(b->dhx, so_h);
        da->dcx = prnn_run_out_offset(b->dcx, so_c);
        da->dg = prnn_reserve_dg(&c->r, b->reserve, pseudo);
    }
    a->hout = lr->hout;
    a->batch = (const int *)prnn_run_ws(c, c->l.batch);
    a->offset = (const int *)prnn_run_ws(c, c->l.offset);
    a->seq_length = c->p->seq_length;
    a->y_cols = c->dirs * c->P;
    a->dy_cols = c->dirs * c->P;
    a->dy_storage = lr->dout_storage;
    a->y_rows = prnn_run_output_rows(c, lr->layer);
    a->order = c->order;
    a->tag_base = lr->tag_base;
    a->clip_lo = c->rnn->lclip; /* PRNN_CLIP's bounds (prnnRNNSetClip_v8) */
    a->clip_hi = c->rnn->rclip;
}

/* The gradient of layer l's output: dy for the top layer, else what the
 * layer above left in the workspace (math type). */
static const void *dout_of(const prnn_call_plan *c, const prnn_backward_data_buffers *b, int layer,
                           int *storage)
{
    *storage = layer == c->rnn->layers - 1;
    return *storage ? b->dy : prnn_run_ws(c, c->l.dgrad);
}

static const void *hout_of(const prnn_call_plan *c, const prnn_backward_data_buffers *b, int layer)
{
    return layer == c->rnn->layers - 1 ? b->y : prnn_reserve_out(&c->r, b->reserve, layer);
}

/* The gradient of layer l's input: dx (layer 0, storage type; none when
 * dx is NULL) or the workspace's dgrad (math type) for the layer below. */
static prnnStatus_t input_gradient(const prnn_call_plan *c, const prnn_backward_data_buffers *b,
                                   int layer)
{
    const int H = c->H;
    const int bottom = layer == 0;
    void *out = bottom ? b->dx : prnn_run_ws(c, c->l.dgrad);
    if (!out)
        return PRNN_STATUS_SUCCESS;
    if (bottom && c->rnn->input_mode == PRNN_SKIP_INPUT) {
        const void *dg[2] = {prnn_reserve_dg(&c->r, b->reserve, 0),
                             c->dirs > 1 ? prnn_reserve_dg(&c->r, b->reserve, 1) : NULL};
        return prnn_train_skip_dx(c, dg, out);
    }
    const prnn_cell_traits_row *cell = prnn_cell_traits(c->rnn->mode);
    const prnn_gate_run *runs = cell->input_run; /* the input-side gate blocks of a dg row */
    const int nruns = cell->input_runs;
    int first = 1;
    for (int d = 0; d < c->dirs; d++) {
        int pseudo = layer * c->dirs + d;
        prnn_dir_weights w;
        prnn_run_dir_weights(c, b->w, pseudo, &w);
        const char *dg = prnn_reserve_dg(&c->r, b->reserve, pseudo);
        for (int i = 0; i < nruns; i++) {
            /* out[rows][K] (+)= dg[rows][run] W[run][K] */
            prnn_gemm_key key;
            prnn_run_gemm_key(c, &key);
            key.m = (int)c->p->total_rows;
            key.n = w.w_cols;
            key.k = runs[i].count * H;
            key.lda = c->r.dg_cols * H;
            key.ldb = w.w_cols;
            key.ldc = w.w_cols;
            key.c_storage = bottom;
            key.accumulate = !first;
            if (prnn_run_input_rows(c, layer).seq_stride) /* dx in place */
                prnn_run_gemm_key_caller_rows(c, 0, &key);
            first = 0;
            PRNN_TRY(prnn_run_gemm(c, &key, dg + (size_t)runs[i].dg_col * H * c->es,
                                   (const char *)w.W + (size_t)runs[i].w_row * H * w.w_cols * c->es,
                                   out));
        }
    }
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnn_layered_backward_data(const prnn_call_plan *c, const void *buffers)
{
    const prnn_backward_data_buffers *b = buffers;
    const int L = c->rnn->layers;
    PRNN_TRY(prnn_run_setup(c));
    for (int layer = L - 1; layer >= 0; layer--) {
        prnn_layer_run lr;
        memset(&lr, 0, sizeof(lr));
        lr.c = c;
        lr.layer = layer;
        lr.tag_base = (unsigned)(L - 1 - layer) * (unsigned)c->p->seq_length;
        lr.bwd = b;
        lr.dout = dout_of(c, b, layer, &lr.dout_storage);
        lr.hout = hout_of(c, b, layer);
        PRNN_TRY(c->pass->engine->backward_layer(&lr));
        PRNN_TRY(input_gradient(c, b, layer));
        if (layer > 0 && prnn_train_dropout_after(c, layer - 1))
            PRNN_TRY(prnn_train_dropout_backward(c, layer - 1, prnn_run_ws(c, c->l.dgrad)));
    }
    return PRNN_STATUS_SUCCESS;
}

/* ---- backward weights ---- */

/* C[m][n] += A^T B over all rows: A = dg columns [rows][m] (lda), B =
 * [rows][n] (ldb), C the storage-type gradient in dw. */
static prnnStatus_t grad_gemm(const prnn_call_plan *c, int m, int n, const void *a, int lda,
                              const void *b, int ldb, void *out)
{
    prnn_gemm_key key;
    prnn_run_gemm_key(c, &key);
    key.m = m;
    key.n = n;
    key.k = (int)c->p->total_rows;
    key.trans_a = 1;
    key.lda = lda;
    key.ldb = ldb;
    key.ldc = n;
    key.c_storage = 1;
    key.accumulate = 1;
    return prnn_run_gemm(c, &key, a, b, out);
}

static prnnStatus_t weights_dir(const prnn_call_plan *c, const prnn_backward_weights_buffers *b,
                                int layer, int d, const void *input, int kin)
{
    const int H = c->H, pseudo = layer * c->dirs + d;
    const int ld = c->r.dg_cols * H;
    const char *reserve = b->reserve; /* only read */
    const char *dg = reserve + prnn_reserve_dg_at(&c->r, pseudo);
    prnn_dir_grads w;
    prnn_run_dir_grads(c, b->dw, pseudo, &w);
    const prnn_cell_traits_row *cell = prnn_cell_traits(c->rnn->mode);
    const prnn_gate_run *runs = cell->input_run; /* the input-side gate blocks of a dg row */
    const int nruns = cell->input_runs;
    if (w.W) {
        for (int i = 0; i < nruns; i++)
            PRNN_TRY(grad_gemm(c, runs[i].count * H, kin, dg + (size_t)runs[i].dg_col * H * c->es,
                               ld, input, kin,
                               (char *)w.W + (size_t)runs[i].w_row * H * kin * c->es));
    }
    /* both biases from one pass over dg's columns; the input side's skips
     * GRU's recurrent n column block */
    prnn_bias_target biases[2];
    int nbias = 0;
    if (w.bW)
        biases[nbias++] = (prnn_bias_target){w.bW, nruns == 2 ? runs[1].w_row * H : (int)c->gh, H};
    if (w.bR)
        biases[nbias++] = (prnn_bias_target){w.bR, (int)c->gh, 0};
    PRNN_TRY(prnn_train_bias_grads(c, dg, ld, (int)c->gh, biases, nbias));
    /* dR = dg_rec^T h_{t-1}, with h_{t-1} (P wide) of every row gathered
     * first; one step's h_{t-1} is hx itself, already in dg's row order
     * (a one-step call's sequences are all one step long: their order is
     * the caller's, c->order NULL; a NULL hx is gathered as zeros, so that
     * a non-finite dg still makes dR NaN as 0 * dg does in the reference) */
    const int L = c->rnn->layers, P = c->P;
    const void *out = layer == L - 1 ? b->y : reserve + prnn_reserve_out_at(&c->r, layer);
    const void *hx = prnn_run_offset(b->hx, (size_t)pseudo * c->h_state_stride);
    const void *hprev = hx;
    if (c->p->seq_length > 1 || !hx) {
        void *gathered = prnn_run_ws(c, c->l.hprev);
        PRNN_TRY(prnn_train_gather_prev(c, d, out, c->dirs * P, prnn_run_output_rows(c, layer), hx,
                                        gathered));
        hprev = gathered;
    }
    PRNN_TRY(grad_gemm(c, (int)c->gh, P, dg, ld, hprev, P, w.R));
    /* the projection's dWp = dh^T m over every row (both kept in the
     * reserve: m by the forward, dh by BackwardData) */
    if (!w.Wp)
        return PRNN_STATUS_SUCCESS;
    return grad_gemm(c, P, H, reserve + prnn_reserve_proj_at(&c->r, PRNN_PROJ_DH, pseudo), P,
                     reserve + prnn_reserve_proj_at(&c->r, PRNN_PROJ_M, pseudo), H, w.Wp);
}

prnnStatus_t prnn_layered_backward_weights(const prnn_call_plan *c, const void *buffers)
{
    const prnn_backward_weights_buffers *b = buffers;
    PRNN_TRY(prnn_run_setup(c));
    for (int layer = 0; layer < c->rnn->layers; layer++) {
        const void *input = b->x;
        int kin = c->p->input_size;
        if (layer > 0) {
            kin = c->dirs * c->P;
            PRNN_TRY(prnn_train_next_input(
                c, layer - 1, 1, (const char *)b->reserve + prnn_reserve_out_at(&c->r, layer - 1),
                &input));
        }
        for (int d = 0; d < c->dirs; d++)
            PRNN_TRY(weights_dir(c, b, layer, d, input, kin));
    }
    return PRNN_STATUS_SUCCESS;
}
