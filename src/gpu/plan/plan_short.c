#include "gpu/plan/plan_short.h"

#include <stdio.h>
#include <string.h>

#include "gpu/plan/plan_db.h"
#include "gpu/plan/plan_make.h"

/* Whether a variable (prnn_plan_forced_engine) or a forcing configuration
 * (forced_by) chose q's pass. */
static int pass_forced(const prnn_engine_query *q, const char *forced_by)
{
    return prnn_plan_forced_engine(q->pass) || forced_by;
}

const prnn_engine *prnn_plan_short_engine(const prnn_engine_query *q, const prnn_engine *runs,
                                          const char *forced_by, prnn_engine_config *cfg,
                                          int *max_seq_out)
{
    if (pass_forced(q, forced_by))
        return NULL;
    const prnn_engine *order[16];
    int n = prnn_plan_engine_order(q, order, NULL, 0);
    const double f_setup = runs->call_setup(q), f_step = runs->estimate(q);
    const prnn_engine *best = NULL;
    double best_cost = f_setup + f_step, best_step = 0, best_setup = 0;
    for (int i = 0; i < n; i++) {
        if (order[i] == runs)
            continue;
        double setup = order[i]->call_setup(q), step = order[i]->estimate(q);
        if (setup + step < best_cost) {
            best = order[i];
            best_cost = setup + step;
            best_step = step;
            best_setup = setup;
        }
    }
    if (!best)
        return NULL;
    /* the longest T with setup + T * step below the forward engine's */
    int max_seq = PRNN_TUNING_MAX_SHORT_SEQ;
    if (best_step > f_step) {
        double t = (f_setup - best_setup) / (best_step - f_step);
        max_seq = t < 1 ? 1 : t > PRNN_TUNING_MAX_SHORT_SEQ ? PRNN_TUNING_MAX_SHORT_SEQ : (int)t;
    }
    if (best->candidates(q, 0, 0, cfg, 1) < 1)
        return NULL;
    *max_seq_out = max_seq;
    return best;
}

/* The bucket's entry for q's pass as slot choice c: 1, or 0 when the
 * databases have none that may choose the engine here. */
static int from_db(const prnn_engine_query *q, prnn_seq_bucket bucket, const prnn_engine *runs,
                   const prnn_engine_config *runs_config, const char *runs_text,
                   const prnn_engine *const *order, int n, prnn_short_choice *c)
{
    prnn_tuning_result found;
    const prnn_engine *e = prnn_plan_db_engine(q, bucket, order, n, &found);
    if (!e)
        return 0;
    memset(c, 0, sizeof(*c));
    c->max_seq = found.entry.max_seq_length;
    c->choice.config = found.entry.config;
    c->choice.source = found.source;
    if (found.sibling)
        snprintf(c->choice.tuned_on, sizeof(c->choice.tuned_on), "%.127s", found.entry.gpu_name);
    /* the pass's own engine and configuration: it runs them (the
     * configuration it was prepared from, or the form its kernel runs,
     * which prnn-autotune reads from plan info) */
    char text[256] = "";
    if (e->fields && runs_text)
        e->format(&found.entry.config, text, sizeof(text));
    const int same =
        e == runs &&
        (!e->fields ||
         (runs_config && memcmp(&found.entry.config, runs_config, sizeof(*runs_config)) == 0) ||
         (runs_text && strcmp(text, runs_text) == 0));
    c->engine = same ? NULL : e;
    return 1;
}

void prnn_plan_short_choices(const prnn_engine_query *q, const prnn_engine *runs,
                             const prnn_engine_config *runs_config, const char *runs_text,
                             const char *forced_by, prnn_short_choice out[PRNN_SHORT_SLOTS])
{
    memset(out, 0, sizeof(*out) * PRNN_SHORT_SLOTS);
    if (pass_forced(q, forced_by) || !runs)
        return;
    if (!prnn_rnn_key_tf32_recurrence(&q->key)) {
        const prnn_engine *order[16];
        int n = prnn_plan_engine_order(q, order, NULL, 0);
        from_db(q, PRNN_SEQ_BUCKET_ONE, runs, runs_config, runs_text, order, n,
                &out[PRNN_SHORT_ONE]);
        from_db(q, PRNN_SEQ_BUCKET_SHORT, runs, runs_config, runs_text, order, n,
                &out[PRNN_SHORT_MEASURED]);
    }
    prnn_short_choice *m = &out[PRNN_SHORT_FEW];
    m->engine = prnn_plan_short_engine(q, runs, forced_by, &m->choice.config, &m->max_seq);
    m->choice.source = PRNN_CONFIG_HEURISTIC;
    if (!m->engine)
        memset(m, 0, sizeof(*m));
}

void prnn_plan_short_trim(prnn_short_choice out[PRNN_SHORT_SLOTS])
{
    prnn_short_choice *m = &out[PRNN_SHORT_FEW];
    /* below the length the short entry was timed at */
    if (m->engine && out[PRNN_SHORT_MEASURED].max_seq && m->max_seq >= PRNN_TUNING_SHORT_SEQ)
        m->max_seq = PRNN_TUNING_SHORT_SEQ - 1;
    /* nothing left to it: the one-step slot covers its lengths */
    if (!m->engine || m->max_seq <= out[PRNN_SHORT_ONE].max_seq)
        memset(m, 0, sizeof(*m));
}
