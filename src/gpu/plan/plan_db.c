#include "gpu/plan/plan_db.h"

#include <stdio.h>
#include <string.h>

#include "gpu/plan/plan.h"
#include "gpu/run/gpu_state.h"

int prnn_plan_entry_fits(const prnn_tuning_entry *e, const void *ctx, char *why, size_t n)
{
    const prnn_plan_fits_one *f = ctx;
    if (strcmp(e->engine, f->engine->name) != 0) {
        snprintf(why, n, "an entry for the %s engine", e->engine);
        return -1;
    }
    return f->engine->fits(f->q, &e->config, why, n);
}

int prnn_plan_entry_fits_any(const prnn_tuning_entry *e, const void *ctx, char *why, size_t n)
{
    const prnn_plan_fits_any *f = ctx;
    for (int i = 0; i < f->n; i++)
        if (strcmp(e->engine, f->order[i]->name) == 0)
            return f->order[i]->fits(f->q, &e->config, why, n);
    snprintf(why, n, "the %s engine cannot run this shape here", e->engine);
    return -1;
}

int prnn_plan_db_holds_shape(const prnn_engine_query *q)
{
    return q->key.proj == 0;
}

const prnn_engine *prnn_plan_db_engine(const prnn_engine_query *q, prnn_seq_bucket bucket,
                                       const prnn_engine *const *order, int n,
                                       prnn_tuning_result *found)
{
    prnn_plan_fits_any fc = {q, order, n};
    if (!prnn_plan_engine_entry(q, bucket, prnn_plan_entry_fits_any, &fc, found))
        return NULL;
    for (int i = 0; i < n; i++)
        if (strcmp(order[i]->name, found->entry.engine) == 0)
            return order[i];
    return NULL;
}

int prnn_plan_engine_entry(const prnn_engine_query *q, prnn_seq_bucket bucket,
                           prnn_tuning_fits_fn fits, const void *ctx, prnn_tuning_result *found)
{
    if (!prnn_plan_db_holds_shape(q))
        return 0;
    prnn_tuning_key key = prnn_plan_tuning_key(&q->gs->info, &q->key, q->pass);
    key.seq_bucket = bucket;
    return prnn_tuning_lookup(&key, fits, ctx, found) == 1 &&
           (found->exact || found->cost <= PRNN_PLAN_ENGINE_NEAREST_MAX_COST);
}
