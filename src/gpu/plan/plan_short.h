/*
 * The short-sequence passes of a plan: which engine runs a forward or
 * backward-data call of one step, and which runs calls of a few steps,
 * where another engine's smaller set-up beats the pass's engine (issue 22).
 * A slot comes from a tuning DB entry of the pass's sequence-length bucket
 * (tuning_db.h: measured by prnn-autotune --seq-buckets), else from the
 * engines' cost models (their set-up and step estimates, engine.h).
 */
#ifndef PRNN_PLAN_SHORT_H
#define PRNN_PLAN_SHORT_H

#include "gpu/engines/engine.h"
#include "gpu/plan/plan.h"

/*
 * The model's short-sequence engine for q's pass, with its configuration
 * and the longest sequence it runs: the engine whose modelled cost of a
 * T = 1 call (its set-up and one step) is lowest, when that is not the
 * pass's engine `runs`, for every length up to where runs' cost is no longer
 * higher. NULL when $PRNN_ENGINE (backward-data: or $PRNN_ENGINE_BACKWARD)
 * or a forcing variable ($PRNN_TILE, $PRNN_TILE_BACKWARD: forced_by) chose
 * the pass: forced, it runs every length. Reads q's device properties only
 * (tests/plan/test_short_regret.c checks the forward choices against
 * measured calls).
 */
const prnn_engine *prnn_plan_short_engine(const prnn_engine_query *q, const prnn_engine *runs,
                                          const char *forced_by, prnn_engine_config *cfg,
                                          int *max_seq_out);

/* One short slot's choice (prnn_short_slot's, before it is prepared). */
typedef struct {
    int max_seq;               /* 0: no choice, the slot stays unused */
    const prnn_engine *engine; /* NULL: the pass's own engine runs these
                                * calls (a tuning DB entry measured it
                                * fastest) */
    prnn_engine_choice choice; /* engine's configuration and its source */
} prnn_short_choice;

/*
 * The short slots' choices for q's pass (forward or backward-data), which
 * runs engine `runs`, prepared from configuration runs_config, whose
 * kernel runs it as runs_text (the pass plan's text; either may be NULL:
 * not known; an entry naming `runs` with a configuration equal to neither
 * gets a pass of its own):
 *  - PRNN_SHORT_ONE: the one-step bucket's entry (max_seq_length 1);
 *  - PRNN_SHORT_MEASURED: the short bucket's entry, timed at
 *    PRNN_TUNING_SHORT_SEQ steps, for calls up to its max_seq_length;
 *  - PRNN_SHORT_FEW: the models' choice (prnn_plan_short_engine), for calls
 *    up to the length they give; prnn_plan_short_trim then fits it to the
 *    other two.
 * An entry is taken exact or within the distance that lets an entry choose
 * an engine. None is taken for FP32 data under PRNN_TF32_RECURRENCE_MATH:
 * the entries were timed in strict FP32, and the pass may have left their
 * engines for a TF32 one. Nothing at all when $PRNN_ENGINE (backward-data:
 * or $PRNN_ENGINE_BACKWARD) or a forcing variable (forced_by) chose the
 * pass. Reads q's device properties and the databases only: nothing is
 * loaded.
 */
void prnn_plan_short_choices(const prnn_engine_query *q, const prnn_engine *runs,
                             const prnn_engine_config *runs_config, const char *runs_text,
                             const char *forced_by, prnn_short_choice out[PRNN_SHORT_SLOTS]);

/* The models' slot fitted to the measured ones as they stand (after a
 * choice that could not be prepared was cleared): below
 * PRNN_TUNING_SHORT_SEQ where the short slot has an entry (the lengths no
 * entry measured), and cleared where the one-step slot covers every length
 * it would. */
void prnn_plan_short_trim(prnn_short_choice out[PRNN_SHORT_SLOTS]);

#endif
