/*
 * Runs a planned call: the engine's own run, or the layered runner
 * (layered_run.h) with the engine's layer functions. The one file above
 * both, so that the call plan and the helpers every runner shares
 * (gpu_run.h) stay below the runners that use them.
 */
#ifndef PRNN_CALL_RUN_H
#define PRNN_CALL_RUN_H

#include "gpu/gpu_call.h"
#include "gpu/run/gpu_run.h"

/* Runs the call on the caller's buffers (a prnn_forward_buffers,
 * prnn_backward_data_buffers or prnn_backward_weights_buffers as the kind
 * says) and workspace, on g's stream, holding the device's context: the
 * engine's own run, or the layered runner with its layer functions. The
 * buffers' sizes have been checked against the plan's. */
prnnStatus_t prnn_call_run(prnn_call_plan *c, const prnn_gpu_call *g, const void *buffers,
                           void *ws);

#endif
