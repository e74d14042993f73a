/*
 * A compute call or size query after validation, shared by the v5 entry
 * points (rnn_api.c) and the v8 ones (rnn_api_v8.c): resolved once into
 * the sizes its scratch buffers need and, on the GPU, its call plan, then
 * run on the handle's backend.
 */
#ifndef PRNN_RNN_CALL_H
#define PRNN_RNN_CALL_H

#include <stddef.h>

#include "gpu/gpu_backend.h"
#include "handle.h"
#include "rnn_problem.h"

static inline int prnn_call_is_cpu(const struct prnnContext *h)
{
    return h->backend == PRNN_BACKEND_CPU_REFERENCE;
}

/* What the GPU layer needs of the handle. */
static inline prnn_gpu_call prnn_gpu_call_of(const struct prnnContext *h)
{
    prnn_gpu_call g = {h->gpu, h->stream, h->autotune};
    return g;
}

/* A call resolved once after validation: the sizes its scratch buffers
 * must have and, on the GPU, its call plan (engine, layouts), which the run
 * then consumes. */
typedef struct {
    size_t workspace_bytes, reserve_bytes;
    prnn_call_plan gpu;
} prnn_resolved_call;

/* Resolves a call of `kind` of p (a size query asks for INFERENCE: the
 * workspace; or FORWARD_TRAINING: the reserve, which on the GPU also
 * prepares the training kernels). A size that does not fit is a BAD_PARAM
 * naming the shape, never a wrapped small number. */
prnnStatus_t prnn_resolve_call(struct prnnContext *h, const prnn_rnn_problem *p,
                               prnn_call_kind kind, prnn_resolved_call *rc);

/* What an API family's messages call the scratch buffers, their sizes and
 * the queries that give the sizes. */
typedef struct {
    const char *workspace, *workspace_size, *workspace_query;
    const char *reserve, *reserve_size, *reserve_query;
} prnn_scratch_names;

/* prnn_resolve_call, then the compute call's scratch buffers checked: the
 * workspace, and for any kind but INFERENCE the reserve, each at least what
 * its query gives for this shape (messages in the words of names). */
prnnStatus_t prnn_resolve_compute_call(struct prnnContext *h, const prnn_rnn_problem *p,
                                       prnn_call_kind kind, const prnn_scratch_names *names,
                                       const void *workspace, size_t workspace_size,
                                       const void *reserve, size_t reserve_size,
                                       prnn_resolved_call *rc);

/* A resolved call on the GPU: buffers is the prnn_*_buffers struct of its
 * kind (rnn_problem.h). */
prnnStatus_t prnn_run_gpu(struct prnnContext *h, prnn_resolved_call *rc, const void *buffers,
                          void *workspace);

#endif
