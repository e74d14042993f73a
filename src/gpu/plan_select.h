/*
 * Choosing a plan's tiles and keeping plans per handle (GPU state): for each
 * pass the tuning databases' entry, the autotuner's winner (when the call's
 * autotune mode is on and no exact entry exists), then the heuristic's best
 * few, falling back to the standard path when no persistent tile runs.
 * $PRNN_TILE and $PRNN_TILE_BACKWARD force a tile per pass (experiments, bug
 * reports); one that cannot run is reported in the log and the normal choice
 * goes on.
 */
#ifndef PRNN_PLAN_SELECT_H
#define PRNN_PLAN_SELECT_H

#include "gpu/gpu_backend.h"
#include "gpu/plan.h"

/* The plan for (rnn, mini_batch) on the call's device, made on first use;
 * with training, its training kernels are loaded too (once). */
prnnStatus_t prnn_plan_get(const prnn_gpu_call *g, const struct prnnRNNStruct *rnn,
                           int mini_batch, int training, prnn_plan **out);

/* Frees a list of plans (modules stay loaded in the process-wide cache). */
void prnn_plan_free_all(prnn_plan *list);

#endif
