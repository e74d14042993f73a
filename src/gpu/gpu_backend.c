/*
 * The GPU backend's entry points (gpu_backend.h): a call's plan (made on
 * first use; training kernels on the first training need) resolved into a
 * call plan, which the runner consumes.
 */
#include "gpu/gpu_backend.h"

#include <stdint.h>

#include "error.h"
#include "gpu/plan/plan_make.h"
#include "gpu/plan/plan_select.h"
#include "gpu/run/call_run.h"
#include "gpu/run/gpu_state.h"
#include "gpu/run/seq_io_plan.h"

prnnStatus_t prnn_gpu_backend_create(struct prnn_gpu_state **out)
{
    return prnn_gpu_state_create(out);
}

void prnn_gpu_backend_destroy(struct prnn_gpu_state *gs)
{
    if (!gs)
        return;
    /* the plans' engines may hold driver objects (the standard engine's
     * step graphs), released with the context current */
    const int entered = prnn_gpu_enter_quietly(gs);
    prnn_plan_free_all(gs->plans);
    gs->plans = NULL;
    if (entered)
        prnn_gpu_leave(gs);
    prnn_gpu_state_destroy(gs);
}

prnnStatus_t prnn_gpu_call_plan(const prnn_gpu_call *g, const prnn_rnn_problem *p,
                                prnn_call_kind kind, prnn_call_plan *cp)
{
    prnn_plan *plan;
    /* calls of unpacked data that run in place have plans of their own,
     * whose kernels read the caller's rows (prnn_rnn_key.caller_rows) */
    PRNN_TRY(prnn_plan_get(g, p->rnn, p->mini_batch, prnn_seq_io_may_run_in_place(p),
                           kind != PRNN_CALL_INFERENCE, &plan));
    return prnn_plan_call(plan, g->gs, p, kind, cp);
}

prnnStatus_t prnn_gpu_run(const prnn_gpu_call *g, prnn_call_plan *cp, const void *buffers,
                          void *workspace)
{
    return prnn_call_run(cp, g, buffers, workspace);
}

prnnStatus_t prnn_gpu_prepare(const prnn_gpu_call *g, const struct prnnRNNStruct *rnn,
                              int mini_batch)
{
    prnn_plan *plan;
    PRNN_TRY(prnn_plan_get(g, rnn, mini_batch, 0, 0, &plan));
    /* and the plan of its calls of unpacked data, where the descriptor
     * allows them: so that no such call plans either (under capture, say) */
    if ((rnn->aux_flags & PRNN_RNN_PADDED_IO_ENABLED) && prnn_seq_io_rnn_may_run_in_place(rnn))
        PRNN_TRY(prnn_plan_get(g, rnn, mini_batch, 1, 0, &plan));
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnn_gpu_plan_info(const prnn_gpu_call *g, const struct prnnRNNStruct *rnn,
                                int mini_batch, prnnRNNPlanInfo_t *info)
{
    prnn_plan *plan;
    PRNN_TRY(prnn_plan_get(g, rnn, mini_batch, 0, 0, &plan));
    prnn_plan_info(plan, g->gs->description, info);
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnn_gpu_zero(const prnn_gpu_call *g, void *ptr, size_t bytes)
{
    PRNN_TRY(prnn_gpu_enter(g->gs));
    prnnStatus_t s =
        prnn_cu_check(g->gs->cu->cuMemsetD8Async((CUdeviceptr)(uintptr_t)ptr, 0, bytes, g->stream),
                      "cuMemsetD8Async");
    prnn_gpu_leave(g->gs);
    return s;
}
