#include <string.h>

#include "error.h"
#include "gpu/engines/persistent/persistent.h"
#include "gpu/run/layered_run.h"
#include "prnn_kernel_abi.h"

/* Where direction d's hand-off area, counters and streamed weights are. */
static void scratch_of(const prnn_call_plan *c, const prnn_kernel_geometry *g, int d,
                       void **exchange, unsigned **counter, void **packed)
{
    *exchange = c->ws + c->l.engine[PRNN_PERSISTENT_WS_EXCHANGE] +
                (size_t)d * g->exchange_bytes_per_dir;
    *counter = (unsigned *)(c->ws + c->l.engine[PRNN_PERSISTENT_WS_COUNTERS]) +
               (size_t)d * g->tile.batch_groups;
    *packed = g->kglb ? c->ws + c->l.engine[PRNN_PERSISTENT_WS_PACKED] +
                            (size_t)d * g->packed_bytes_per_dir
                      : NULL;
}

static prnnStatus_t launch(const prnn_call_plan *c, const prnn_kernel_geometry *g, CUfunction fn,
                           void *args, const char *name)
{
    const unsigned grid = (unsigned)(g->tile.blocks * g->tile.batch_groups * c->dirs);
    /* the local hand-off's blocks never wait for each other */
    return prnn_run_launch_blocks(c, fn, grid, (unsigned)g->tile.threads, g->smem_bytes,
                                  g->tile.handoff != 2, args, name);
}

prnnStatus_t prnn_persistent_forward_layer(const prnn_layer_run *lr)
{
    const prnn_call_plan *c = lr->c;
    const prnn_forward_buffers *b = lr->fwd;
    const prnn_persistent_state *st = c->pass->state;
    const prnn_tile_kernels *k = c->training ? &st->train : &st->run;
    const prnn_kernel_geometry *g = &k->geom;
    prnn_rnn_args a;
    memset(&a, 0, sizeof(a));
    for (int d = 0; d < c->dirs; d++) {
        prnn_dir_args *da = &a.dir[d];
        int pseudo = lr->layer * c->dirs + d;
        prnn_dir_weights w;
        prnn_run_dir_weights(c, b->w, pseudo, &w);
        da->R = w.R;
        da->bW = w.bW;
        da->bR = w.bR;
        da->xin = lr->skip ? lr->input : prnn_layered_xproj(c, d);
        size_t so = (size_t)pseudo * c->state_stride;
        da->hx = prnn_run_offset(b->hx, so);
        da->cx = prnn_run_offset(b->cx, so);
        da->hy = prnn_run_out_offset(b->hy, so);
        da->cy = prnn_run_out_offset(b->cy, so);
        scratch_of(c, g, d, &da->exchange, &da->counter, &da->packed);
        da->act = c->training ? prnn_reserve_act(&c->r, b->reserve, pseudo) : NULL;
    }
    a.y = lr->output;
    a.batch = (const int *)prnn_run_ws(c, c->l.batch);
    a.offset = (const int *)prnn_run_ws(c, c->l.offset);
    a.seq_length = c->p->seq_length;
    a.y_cols = c->dirs * c->H;
    a.tag_base = lr->tag_base;
    a.clip_lo = c->rnn->lclip; /* PRNN_CLIP's bounds (prnnRNNSetClip_v8) */
    a.clip_hi = c->rnn->rclip;
    return launch(c, g, lr->skip ? k->fn_skip : k->fn, &a, "prnn_rnn_persistent");
}

prnnStatus_t prnn_persistent_backward_layer(const prnn_layer_run *lr)
{
    const prnn_call_plan *c = lr->c;
    const prnn_backward_data_buffers *b = lr->bwd;
    const prnn_persistent_state *st = c->pass->state;
    const prnn_kernel_geometry *g = &st->run.geom;
    prnn_bwd_args a;
    memset(&a, 0, sizeof(a));
    for (int d = 0; d < c->dirs; d++) {
        prnn_bwd_dir_args *da = &a.dir[d];
        int pseudo = lr->layer * c->dirs + d;
        prnn_dir_weights w;
        prnn_run_dir_weights(c, b->w, pseudo, &w);
        size_t so = (size_t)pseudo * c->state_stride;
        da->R = w.R;
        da->dy = lr->dout;
        da->act = prnn_reserve_act(&c->r, b->reserve, pseudo);
        da->hx = prnn_run_offset(b->hx, so);
        da->cx = prnn_run_offset(b->cx, so);
        da->dhy = prnn_run_offset(b->dhy, so);
        da->dcy = prnn_run_offset(b->dcy, so);
        da->dhx = prnn_run_out_offset(b->dhx, so);
        da->dcx = prnn_run_out_offset(b->dcx, so);
        da->dg = prnn_reserve_dg(&c->r, b->reserve, pseudo);
        scratch_of(c, g, d, &da->exchange, &da->counter, &da->packed);
    }
    a.hout = lr->hout;
    a.batch = (const int *)prnn_run_ws(c, c->l.batch);
    a.offset = (const int *)prnn_run_ws(c, c->l.offset);
    a.seq_length = c->p->seq_length;
    a.y_cols = c->dirs * c->H;
    a.dy_cols = c->dirs * c->H;
    a.dy_storage = lr->dout_storage;
    a.tag_base = lr->tag_base;
    a.clip_lo = c->rnn->lclip; /* PRNN_CLIP's bounds (prnnRNNSetClip_v8) */
    a.clip_hi = c->rnn->rclip;
    return launch(c, g, st->run.fn, &a, "prnn_rnn_backward");
}
