#include "rnn_call.h"

#include "error.h"
#include "ref/ref_rnn.h"
#include "rnn_validate.h"

prnnStatus_t prnn_resolve_call(struct prnnContext *h, const prnn_rnn_problem *p,
                               prnn_call_kind kind, prnn_resolved_call *rc)
{
    const int training = kind != PRNN_CALL_INFERENCE;
    if (prnn_call_is_cpu(h)) {
        rc->workspace_bytes = prnn_ref_workspace_bytes(p);
        rc->reserve_bytes = training ? prnn_ref_reserve_bytes(p) : 0;
    } else {
        prnn_gpu_call g = prnn_gpu_call_of(h);
        PRNN_TRY(prnn_gpu_call_plan(&g, p, kind, &rc->gpu));
        rc->workspace_bytes = rc->gpu.workspace_bytes;
        rc->reserve_bytes = rc->gpu.reserve_bytes;
    }
    PRNN_TRY(prnn_validate_size(p, "workspace", rc->workspace_bytes));
    if (training)
        PRNN_TRY(prnn_validate_size(p, "reserve space", rc->reserve_bytes));
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnn_resolve_compute_call(struct prnnContext *h, const prnn_rnn_problem *p,
                                       prnn_call_kind kind, const prnn_scratch_names *names,
                                       const void *workspace, size_t workspace_size,
                                       const void *reserve, size_t reserve_size,
                                       prnn_resolved_call *rc)
{
    PRNN_TRY(prnn_resolve_call(h, p, kind, rc));
    PRNN_TRY(prnn_validate_scratch(workspace, workspace_size, rc->workspace_bytes, names->workspace,
                                   names->workspace_size, names->workspace_query));
    if (kind == PRNN_CALL_INFERENCE)
        return PRNN_STATUS_SUCCESS;
    return prnn_validate_scratch(reserve, reserve_size, rc->reserve_bytes, names->reserve,
                                 names->reserve_size, names->reserve_query);
}

prnnStatus_t prnn_run_gpu(struct prnnContext *h, prnn_resolved_call *rc, const void *buffers,
                          void *workspace)
{
    prnn_gpu_call g = prnn_gpu_call_of(h);
    return prnn_gpu_run(&g, &rc->gpu, buffers, workspace);
}
