/*
 * A plan: everything the GPU needs to run one RNN key (an RNN descriptor's
 * settings with batches of up to mini_batch rows) -- per pass, the engine
 * that runs it with its configuration and kernels, and the kernels every
 * call shares. Choosing the engines and keeping plans per handle is
 * plan_select.h's job; this file holds what a plan is and what is derived
 * from it (sizes, the tuning key, plan info).
 *
 * The forward pass's kernels are loaded when the plan is made. The
 * backward-data pass's engine and configuration are chosen then too (the
 * workspace size depends on them), but its kernels and the training kernels
 * are loaded on the first training need.
 */
#ifndef PRNN_PLAN_H
#define PRNN_PLAN_H

#include <stdint.h>

#include "cuda/device_info.h"
#include "gpu/engines/engine.h"
#include "gpu/run/run_kernels.h"
#include "rnn_key.h"
#include "rnn_problem.h"
#include "tuning/tuning_db.h"

/* A short-sequence pass (plan_short.h chooses them). A forward or
 * backward-data call of T steps runs on the first of its pass's slots with
 * T <= max_seq: on the slot's pass, or on the plan's pass where the slot's
 * has no engine (a tuning DB entry measured the pass's own engine fastest
 * for those lengths). max_seq 0: the slot is unused. */
typedef struct {
    prnn_pass_plan pass;
    int max_seq;
} prnn_short_slot;

/* The slots, in the order a call tries them: calls of one step (a tuning
 * DB entry's choice), calls of a few (the engines' models', below the
 * length short entries are timed at when one exists), calls up to a short
 * entry's measured length. */
enum { PRNN_SHORT_ONE = 0, PRNN_SHORT_FEW = 1, PRNN_SHORT_MEASURED = 2, PRNN_SHORT_SLOTS = 3 };

typedef struct prnn_plan {
    struct prnn_plan *next;
    prnn_rnn_key key;
    uint64_t hash; /* prnn_rnn_key_hash(&key) */
    prnn_pass_plan pass[PRNN_PASS_COUNT];
    /* The forward pass of short calls, where another engine's smaller
     * per-call cost beats the forward engine's. */
    prnn_short_slot short_fwd[PRNN_SHORT_SLOTS];
    /* The backward-data pass of short calls, likewise, chosen against the
     * pass as planned (a slot without an engine of its own runs whatever
     * the pass becomes: its tuned configuration or its fallback). Their
     * kernels load with the training kernels; a slot whose kernels cannot
     * load is cleared, and its lengths go to the next slot that covers
     * them, else to the pass. */
    prnn_short_slot short_bwd[PRNN_SHORT_SLOTS];
    /* The backward-data pass's fallback: the next engine that supports it,
     * prepared (its configuration chosen, nothing loaded), which runs the
     * pass if the first cannot load its kernels at the first training need
     * (engine NULL: none). The workspace size reported covers it. */
    prnn_pass_plan bwd_fallback;
    prnn_run_kernels kernels; /* setup, and the training kernels */
    prnn_load_stats stats;    /* of the kernels above */
    int training_loaded;
    double plan_ms; /* planning and loading, so far */
    /* Its calls' graphs (loop_graph.h: a call replays from a CUDA graph
     * once its launches repeat); NULL until prnn_plan_start_graphs; off
     * (no capture stream) with PRNN_CALL_GRAPHS=0. */
    struct prnn_loop_graphs *call_graphs;
} prnn_plan;

/* The plan's table of call graphs, at the end of its making (the context
 * current). */
prnnStatus_t prnn_plan_start_graphs(prnn_plan *p, const prnn_cuda_driver *cu);

/* Releases every pass plan's state and the call graphs, and frees the plan
 * (the context current where it holds any). */
void prnn_plan_free(prnn_plan *p);

/* The pass plan that runs a call of `kind` of seq_length steps: a
 * short-sequence forward or backward-data pass where one applies
 * (prnn_short_slot). */
const prnn_pass_plan *prnn_plan_pass_for(const prnn_plan *plan, int kind, int seq_length);

/* The workspace every call of p's shape runs in (what
 * prnnGetRNNWorkspaceSize reports): the largest of the call kinds' layouts,
 * the backward-data fallback's included. PRNN_SIZE_OVERFLOW when one of
 * them does not fit. */
size_t prnn_plan_workspace_bytes(const prnn_plan *plan, const prnn_rnn_problem *p);

/* Where the plan's cubins came from (the worst of its parts) and what
 * compiling them cost. */
prnn_load_stats prnn_plan_load_stats(const prnn_plan *plan);

/* The tuning database's key for (key, pass) on device dev. */
prnn_tuning_key prnn_plan_tuning_key(const prnn_device_info *dev, const prnn_rnn_key *key,
                                     prnn_pass pass);

/* The plan as prnnGetRNNPlanInfo describes it (the first structSize bytes
 * of info; device: the GPU's description). */
void prnn_plan_info(const prnn_plan *plan, const char *device, prnnRNNPlanInfo_t *info);

#endif
