#include <string.h>

#include "error.h"
#include "gpu/engines/persistent/persistent.h"
#include "gpu/run/layered_run.h"
#include "gpu/run/seq_io_plan.h"
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
                           void *args, size_t arg_bytes, const char *name)
{
    const unsigned grid = (unsigned)(g->tile.blocks * g->tile.batch_groups * c->dirs);
    /* the local hand-off's blocks never wait for each other */
    return prnn_run_launch_blocks(c, fn, grid, (unsigned)g->tile.threads, g->smem_bytes,
                                  g->tile.handoff != 2, args, arg_bytes, name);
}

prnnStatus_t prnn_persistent_forward_layer(const prnn_layer_run *lr)
{
    const prnn_call_plan *c = lr->c;
    const prnn_persistent_state *st = c->pass->state;
    const prnn_tile_kernels *k = c->training ? &st->train : &st->run;
    const prnn_kernel_geometry *g = &k->geom;
    prnn_rnn_args a;
    prnn_layered_rnn_args(lr, &a);
    PRNN_TRY(prnn_seq_io_check_kernel_rows(c->caller_rows, c->rnn->layers, &a.x_rows, &a.y_rows));
    for (int d = 0; d < c->dirs; d++)
        scratch_of(c, g, d, &a.dir[d].exchange, &a.dir[d].counter, &a.dir[d].packed);
    return launch(c, g, lr->skip ? k->fn_skip : k->fn, &a, sizeof(a), "prnn_rnn_persistent");
}

prnnStatus_t prnn_persistent_backward_layer(const prnn_layer_run *lr)
{
    const prnn_call_plan *c = lr->c;
    const prnn_persistent_state *st = c->pass->state;
    const prnn_kernel_geometry *g = &st->run.geom;
    prnn_bwd_args a;
    prnn_layered_bwd_args(lr, &a);
    for (int d = 0; d < c->dirs; d++)
        scratch_of(c, g, d, &a.dir[d].exchange, &a.dir[d].counter, &a.dir[d].packed);
    return launch(c, g, st->run.fn, &a, sizeof(a), "prnn_rnn_backward");
}
