/*
 * Choosing a plan's engines and keeping plans per handle (GPU state). For
 * each pass, the engines that support the shape are tried in the table's
 * order (src/gpu/engines/engine_table.c), the one $PRNN_ENGINE (or, for the
 * backward-data pass, $PRNN_ENGINE_BACKWARD) names first; each engine gets
 * its configurations in order of preference: the one its variable forces
 * ($PRNN_TILE, $PRNN_TILE_BACKWARD, $PRNN_SRU_TILE), the tuning
 * databases' entry for it, the autotuner's winner (when the call's autotune
 * mode is on and no exact entry exists), then its heuristic's. The first
 * engine that loads runs the pass. A forcing that cannot run is reported in
 * the log and the normal choice goes on.
 */
#ifndef PRNN_PLAN_SELECT_H
#define PRNN_PLAN_SELECT_H

#include "gpu/gpu_call.h"
#include "gpu/engines/engine.h"
#include "gpu/plan/plan.h"
#include "gpu/run/kernel_request.h"

/* The plan for (rnn, mini_batch) on the call's device, made on first use;
 * with training, its training kernels are loaded too (once). caller_rows:
 * a plan for calls of unpacked data (prnn_rnn_key.caller_rows), else 0. */
prnnStatus_t prnn_plan_get(const prnn_gpu_call *g, const struct prnnRNNStruct *rnn, int mini_batch,
                           int caller_rows, int training, prnn_plan **out);

/* The kernels a plan of key loads, at most: the setup and training
 * kernels, and one engine's per pass (forward and backward-data, and each
 * one's short slots). */
#define PRNN_PLAN_MAX_KERNELS (2 + 2 * (1 + PRNN_SHORT_SLOTS) * PRNN_ENGINE_MAX_REQUESTS)

typedef struct {
    prnn_kernel_request req[PRNN_PLAN_MAX_KERNELS];
    int count;
} prnn_plan_kernels;

/*
 * The kernels a new plan of key on g's device loads (training: with its
 * training kernels), as its choices predict them without loading anything:
 * each pass's first engine and its first configuration that runs (forced,
 * tuning DB, heuristic; not the autotuner's), the short-sequence slots'
 * (each engine and configuration once, none a second time for a slot that
 * runs the forward pass's), the setup and training kernels. Where a choice fails to load and the
 * plan moves on, it loads kernels not listed. Needs g->gs->info only (no
 * context): prnn-cache warm runs it on a described device. Notes its
 * choices make are appended to the thread's log, as planning appends them;
 * nothing replaces it.
 */
void prnn_plan_kernel_set(const prnn_gpu_call *g, const prnn_rnn_key *key, int training,
                          prnn_plan_kernels *ks);

/* Frees a list of plans (modules stay loaded in the process-wide cache). */
void prnn_plan_free_all(prnn_plan *list);

#endif
