#include <string.h>

#include "error.h"
#include "gpu/run/layered_run.h"
#include "gpu/run/train_ops.h"

void *prnn_layered_xproj(const prnn_call_plan *c, int d)
{
    return c->ws + c->l.xproj +
           (size_t)d * prnn_ws_xproj_rows(c->pass->engine, c->p) * c->gh * c->acc;
}

void prnn_layered_rnn_args(const prnn_layer_run *lr, prnn_rnn_args *a)
{
    const prnn_call_plan *c = lr->c;
    const prnn_forward_buffers *b = lr->fwd;
    memset(a, 0, sizeof(*a));
    for (int d = 0; d < c->dirs; d++) {
        prnn_dir_args *da = &a->dir[d];
        const int pseudo = lr->layer * c->dirs + d;
        prnn_dir_weights w;
        prnn_run_dir_weights(c, b->w, pseudo, &w);
        da->R = w.R;
        da->bW = w.bW;
        da->bR = w.bR;
        da->xin = lr->skip ? lr->input : prnn_layered_xproj(c, d);
        const size_t so_h = (size_t)pseudo * c->h_state_stride;
        const size_t so_c = (size_t)pseudo * c->c_state_stride;
        da->hx = prnn_run_offset(b->hx, so_h);
        da->cx = prnn_run_offset(b->cx, so_c);
        da->hy = prnn_run_out_offset(b->hy, so_h);
        da->cy = prnn_run_out_offset(b->cy, so_c);
        da->act = c->training ? prnn_reserve_act(&c->r, b->reserve, pseudo) : NULL;
    }
    a->y = lr->output;
    a->y_rows = prnn_run_output_rows(c, lr->layer);
    /* SKIP_INPUT's x never runs in place (seq_io.c): its rows are packed */
    a->x_rows = prnn_run_xproj_rows(c, lr->layer);
    a->order = c->order;
    a->batch = (const int *)prnn_run_ws(c, c->l.batch);
    a->offset = (const int *)prnn_run_ws(c, c->l.offset);
    a->seq_length = c->p->seq_length;
    a->y_cols = c->dirs * c->P;
    a->tag_base = lr->tag_base;
    a->clip_lo = c->rnn->lclip; /* PRNN_CLIP's bounds (prnnRNNSetClip_v8) */
    a->clip_hi = c->rnn->rclip;
}

/* xproj[dir] = input W[dir]^T for every row of the sequence, in packed
 * order; layer 0 of a call run in place reads the caller's x, its rows
 * written step-major in the caller's order of sequences
 * (prnn_run_gemm_key_caller_rows, prnn_run_xproj_rows). */
static prnnStatus_t project_inputs(const prnn_call_plan *c, const prnn_forward_buffers *b,
                                   int layer, const void *input, int k)
{
    for (int d = 0; d < c->dirs; d++) {
        prnn_dir_weights w;
        prnn_run_dir_weights(c, b->w, layer * c->dirs + d, &w);
        prnn_gemm_key key;
        prnn_run_gemm_key_abt(c, (int)c->p->total_rows, (int)c->gh, k, &key);
        if (prnn_run_input_rows(c, layer).seq_stride)
            prnn_run_gemm_key_caller_rows(c, 1, &key);
        PRNN_TRY(prnn_run_gemm(c, &key, input, w.W, prnn_layered_xproj(c, d)));
    }
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnn_layered_forward(const prnn_call_plan *c, const void *buffers)
{
    const prnn_forward_buffers *b = buffers;
    const struct prnnRNNStruct *rnn = c->rnn;
    const int L = rnn->layers;
    PRNN_TRY(prnn_run_setup(c));
    const void *input = b->x;
    for (int layer = 0; layer < L; layer++) {
        int skip = layer == 0 && rnn->input_mode == PRNN_SKIP_INPUT;
        int k = layer == 0 ? c->p->input_size : c->dirs * c->P;
        /* The projection reads the previous layer's output before this
         * layer's kernel overwrites the same buffer (inference: stream
         * order; training keeps every layer's output in the reserve). */
        if (!skip)
            PRNN_TRY(project_inputs(c, b, layer, input, k));
        void *output = layer == L - 1 ? b->y
                       : c->training  ? prnn_reserve_out(&c->r, b->reserve, layer)
                                      : prnn_run_ws(c, c->l.layer_out);
        prnn_layer_run lr;
        memset(&lr, 0, sizeof(lr));
        lr.c = c;
        lr.layer = layer;
        lr.skip = skip;
        lr.tag_base = (unsigned)layer * (unsigned)c->p->seq_length;
        lr.fwd = b;
        lr.input = input;
        lr.output = output;
        PRNN_TRY(c->pass->engine->forward_layer(&lr));
        PRNN_TRY(prnn_train_next_input(c, layer, c->training, output, &input));
    }
    return PRNN_STATUS_SUCCESS;
}
