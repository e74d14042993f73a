#include "gpu/run/call_run.h"

#include <stdint.h>

#include "error.h"
#include "gpu/run/gpu_state.h"
#include "gpu/run/layered_run.h"
#include "gpu/run/loop_graph.h"
#include "gpu/run/seq_io.h"

/* The zeros a forward call's kernels read for a bias the bias mode drops
 * (the workspace's zero_bias, when the call has one). */
static prnnStatus_t zero_absent_bias(const prnn_call_plan *c)
{
    if (c->l.zero_bias == (size_t)-1)
        return PRNN_STATUS_SUCCESS;
    return prnn_run_zero(c, prnn_run_ws(c, c->l.zero_bias), c->gh * c->es);
}

static prnnStatus_t run_engine(prnn_call_plan *c, const void *buffers)
{
    const prnn_engine *e = c->pass->engine;
    PRNN_TRY(zero_absent_bias(c));
    if (e->run)
        return e->run(c, buffers);
    if (c->kind == PRNN_CALL_BACKWARD_DATA)
        return prnn_layered_backward_data(c, buffers);
    if (c->kind == PRNN_CALL_BACKWARD_WEIGHTS)
        return prnn_layered_backward_weights(c, buffers);
    return prnn_layered_forward(c, buffers);
}

/* The call, on c's stream (signed, captured or launched: loop_graph.h):
 * on a copy of c, whose per-call fields each run sets afresh. */
static prnnStatus_t run_call(const void *buffers, const prnn_call_plan *c)
{
    prnn_call_plan run = *c;
    run.setup_done = 0;
    /* an unpacked v8 layout: the engine runs on packed copies (seq_io.h) */
    return run.p->io ? prnn_seq_io_run(&run, buffers, run_engine) : run_engine(&run, buffers);
}

prnnStatus_t prnn_call_run(prnn_call_plan *c, const prnn_gpu_call *g, const void *buffers, void *ws)
{
    if (c->training && !c->kernels->training_loaded)
        return prnn_fail(PRNN_STATUS_INTERNAL_ERROR, "training kernels not loaded");
    c->ws = ws;
    c->stream = (CUstream)g->stream;
    c->signing = NULL;
    PRNN_TRY(prnn_gpu_enter(c->gs));
    prnnStatus_t s = c->call_graphs ? prnn_loop_run(c->call_graphs, c, run_call, buffers)
                                    : run_call(buffers, c);
    prnn_gpu_leave(c->gs);
    return s;
}
