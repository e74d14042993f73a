/*
 * The tuning databases as the planner reads them (tuning/tuning_db.h does
 * the search): which entries a pass may take, and whether one may choose
 * the engine. plan_select.c (every length's passes) and plan_short.c (the
 * short-sequence passes) use them.
 */
#ifndef PRNN_PLAN_DB_H
#define PRNN_PLAN_DB_H

#include "gpu/engines/engine.h"
#include "tuning/tuning_db.h"

/* Entries farther than this do not choose the engine: which engine wins
 * changes with the shape faster than a tile's best choice does (a batch
 * twice as large can turn the steps into real GEMMs). */
#define PRNN_PLAN_ENGINE_NEAREST_MAX_COST 1.0

/* The fits callback for one engine's configurations: an entry for this
 * engine whose configuration still runs q here. ctx: a
 * prnn_plan_fits_one. */
typedef struct {
    const prnn_engine_query *q;
    const prnn_engine *engine;
} prnn_plan_fits_one;
int prnn_plan_entry_fits(const prnn_tuning_entry *e, const void *ctx, char *why, size_t n);

/* The fits callback for the choice of engine: an entry whose engine runs q
 * (order holds the engines that may) and whose configuration still runs
 * here. ctx: a prnn_plan_fits_any. */
typedef struct {
    const prnn_engine_query *q;
    const prnn_engine *const *order;
    int n;
} prnn_plan_fits_any;
int prnn_plan_entry_fits_any(const prnn_tuning_entry *e, const void *ctx, char *why, size_t n);

/* Whether the tuning databases may hold q's shape: their key has no
 * projSize, and an entry timed without a projection says nothing of a
 * projected layer (its one engine, the standard one, has no configuration
 * to take; plan info must not call it tuned). A clipped LSTM, by contrast,
 * takes its unclipped shape's entry on purpose (plan_select.c's
 * may_autotune). */
int prnn_plan_db_holds_shape(const prnn_engine_query *q);

/* The tuning DB's entry for q's pass and sequence-length bucket that may
 * choose an engine (fits says whose entries count): exact, or nearest
 * within PRNN_PLAN_ENGINE_NEAREST_MAX_COST. 1 with *found, else 0. */
int prnn_plan_engine_entry(const prnn_engine_query *q, prnn_seq_bucket bucket,
                           prnn_tuning_fits_fn fits, const void *ctx, prnn_tuning_result *found);

/* The engine of order[0..n) that such an entry of q's pass and bucket
 * names (the entry in *found), or NULL when there is none. */
const prnn_engine *prnn_plan_db_engine(const prnn_engine_query *q, prnn_seq_bucket bucket,
                                       const prnn_engine *const *order, int n,
                                       prnn_tuning_result *found);

#endif
