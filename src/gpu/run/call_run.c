#include "gpu/run/call_run.h"

#include "error.h"
#include "gpu/run/gpu_state.h"
#include "gpu/run/layered_run.h"

prnnStatus_t prnn_call_run(prnn_call_plan *c, const prnn_gpu_call *g, const void *buffers, void *ws)
{
    if (c->training && !c->kernels->training_loaded)
        return prnn_fail(PRNN_STATUS_INTERNAL_ERROR, "training kernels not loaded");
    c->ws = ws;
    c->stream = (CUstream)g->stream;
    PRNN_TRY(prnn_gpu_enter(c->gs));
    const prnn_engine *e = c->pass->engine;
    prnnStatus_t s;
    if (e->run)
        s = e->run(c, buffers);
    else if (c->kind == PRNN_CALL_BACKWARD_DATA)
        s = prnn_layered_backward_data(c, buffers);
    else if (c->kind == PRNN_CALL_BACKWARD_WEIGHTS)
        s = prnn_layered_backward_weights(c, buffers);
    else
        s = prnn_layered_forward(c, buffers);
    prnn_gpu_leave(c->gs);
    return s;
}
