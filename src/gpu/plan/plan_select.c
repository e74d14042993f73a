#include "gpu/plan/plan_select.h"
#include "gpu/plan/plan_make.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "gpu/autotune/autotune.h"
#include "gpu/plan/plan_db.h"
#include "gpu/plan/plan_log.h"
#include "gpu/plan/plan_short.h"
#include "gpu/run/gpu_state.h"
#include "jit/cubin_batch.h"
#include "jit/cubin_cache.h"
#include "jit/module_cache.h"
#include "jit/nvrtc_compile.h"
#include "prnn_kernel_abi.h"
#include "tuning/tuning_db.h"

/* Configurations a pass's engine is offered, at most. */
#define MAX_CHOICES 4

/* The configuration e's variable forces for q's pass, parsed: 1 when set
 * and valid for e (err says why not otherwise), 0 when unset. */
static int parse_forced(const prnn_engine_query *q, const prnn_engine *e, prnn_engine_choice *c,
                        char *err, size_t n)
{
    const char *var = e->force_var[q->pass];
    const char *text = var ? getenv(var) : NULL;
    err[0] = '\0';
    if (!text || !text[0] || !e->fields)
        return 0;
    memset(c, 0, sizeof(*c));
    if (prnn_config_parse(e->fields, text, &c->config, sizeof(c->config), err, n) ||
        e->fits(q, &c->config, err, n))
        return -1;
    c->source = PRNN_CONFIG_USER_DB;
    c->forced_by = var;
    return 1;
}

/* The engine a forcing variable's configuration is for ($PRNN_TILE's tile
 * runs on the engine it fits: handoff 2, the small-h engine), or NULL. */
static const prnn_engine *forced_owner(const prnn_engine_query *q, const prnn_engine *const *order,
                                       int n)
{
    for (int i = 0; i < n; i++) {
        prnn_engine_choice c;
        char err[256];
        if (parse_forced(q, order[i], &c, err, sizeof(err)) == 1)
            return order[i];
    }
    return NULL;
}

/* The configuration e's variable forces for q's pass, if any and valid: 1,
 * else 0. One that no engine of the order can run is reported in the log
 * and ignored (one another engine runs is that engine's). */
static int forced_config(const prnn_engine_query *q, const prnn_engine *e, prnn_engine_choice *c)
{
    char err[256];
    int r = parse_forced(q, e, c, err, sizeof(err));
    if (r >= 0)
        return r;
    const prnn_engine *order[16];
    int n = prnn_plan_engine_order(q, order, NULL, 0);
    if (!forced_owner(q, order, n))
        prnn_log_append("note: %s ignored: %s", e->force_var[q->pass], err);
    return 0;
}

/* For an engine without configuration fields: where the tuning DB holds an
 * entry naming it that may choose an engine (prnn_plan_engine_entry, as
 * db_engine_first takes it), c's source is that entry's database, and for
 * a sibling's entry c names the GPU it was tuned on; else c is left as it
 * is. */
static void configless_db_source(const prnn_engine_query *q, const prnn_engine *e,
                                 prnn_engine_choice *c)
{
    prnn_plan_fits_one fc = {q, e};
    prnn_tuning_result found;
    if (!prnn_plan_engine_entry(q, PRNN_SEQ_BUCKET_ANY, prnn_plan_entry_fits, &fc, &found))
        return;
    c->source = found.source;
    if (found.sibling)
        snprintf(c->tuned_on, sizeof(c->tuned_on), "%.127s", found.entry.gpu_name);
}

/*
 * Engine e's configurations for q in order of preference: forced, the
 * tuning DB's entry (or, with may_autotune and no exact entry, the
 * autotuner's winner), then its heuristic's. *settled: the first is forced
 * or an exact entry, which autotuning must not replace.
 */
static prnnStatus_t engine_choices(const prnn_engine_query *q, const prnn_engine *e,
                                   int may_autotune, prnn_engine_choice *out, int *count,
                                   int *settled)
{
    int n = 0;
    *settled = 0;
    if (forced_config(q, e, &out[n])) {
        n++;
        *settled = 1;
    }
    /* One configuration for both passes lives under pass forward. */
    prnn_pass db_pass = e->one_config ? PRNN_PASS_FORWARD : q->pass;
    if (!n && e->fields && prnn_plan_db_holds_shape(q)) {
        prnn_tuning_key key = prnn_plan_tuning_key(&q->gs->info, &q->key, db_pass);
        prnn_plan_fits_one fc = {q, e};
        prnn_tuning_result found;
        /* With autotuning on, only an exact entry spares the search: a
         * nearest entry is a guess for another shape. */
        if (prnn_tuning_lookup(&key, prnn_plan_entry_fits, &fc, &found) == 1 &&
            (found.exact || !may_autotune)) {
            memset(&out[n], 0, sizeof(out[n]));
            out[n].config = found.entry.config;
            out[n].source = found.source;
            if (found.sibling)
                snprintf(out[n].tuned_on, sizeof(out[n].tuned_on), "%.127s", found.entry.gpu_name);
            n++;
            *settled = found.exact;
        }
    }
    if (!n && may_autotune && e->fields) {
        prnn_autotune_result best;
        prnn_engine_query dq = *q;
        dq.pass = db_pass;
        PRNN_TRY(prnn_autotune_engine(&dq, e, NULL, &best, NULL));
        memset(&out[n], 0, sizeof(out[n]));
        out[n].config = best.config;
        out[n++].source = PRNN_CONFIG_AUTOTUNED;
    }
    prnn_engine_config heur[MAX_CHOICES];
    const int none_before = n == 0;
    int h = e->candidates(q, 0, 0, heur, MAX_CHOICES - n);
    for (int i = 0; i < h; i++) {
        memset(&out[n], 0, sizeof(out[n]));
        out[n].config = heur[i];
        out[n].source = PRNN_CONFIG_HEURISTIC;
        /* an engine with no configuration of its own (tiny-h, step,
         * standard) that a tuning DB entry put first: the DB chose it */
        if (i == 0 && none_before && !e->fields)
            configless_db_source(q, e, &out[n]);
        n++;
    }
    *count = n;
    return PRNN_STATUS_SUCCESS;
}

/*
 * The engine that goes first in the order instead of the one the tuning DB's
 * entry names, or NULL. Under PRNN_TF32_RECURRENCE_MATH with FP32 data an
 * engine with tf32_recurrence runs faster than the entries' times, which
 * prnn-autotune measures under the default math (a recurrence in strict
 * FP32). The on-chip engines run FP32 under every math type, so an entry
 * naming one times it right: it keeps its place where that time beats the
 * TF32 engine's estimate of the entry's own shape (its hidden size, batch
 * and directions, which the TF32 engine runs one after the other: a
 * nearest entry is compared as measured, then stands for q as it would
 * have). (LSTM f32 H 1024 B 64 on an H100: the DB's resident tile 26.8 us
 * a step, the standard engine in TF32 11.8; bench/NOTES.md, the eighth
 * session.)
 */
static const prnn_engine *tf32_over_entry(const prnn_engine_query *q,
                                          const prnn_engine *const *order, int n,
                                          const prnn_tuning_entry *entry)
{
    if (!prnn_rnn_key_tf32_recurrence(&q->key))
        return NULL;
    prnn_engine_query at_entry = *q;
    at_entry.key.hidden = entry->hidden;
    at_entry.key.mini_batch = entry->batch_max;
    at_entry.key.dirs = entry->directions;
    for (int i = 0; i < n; i++)
        if (order[i]->tf32_recurrence && strcmp(order[i]->name, entry->engine) != 0 &&
            order[i]->estimate(&at_entry) * entry->directions < entry->us_per_step)
            return order[i];
    return NULL;
}

/* Moves e to order[at], the others keeping their order. */
static void move_to(const prnn_engine **order, int n, const prnn_engine *e, int at)
{
    for (int i = 0; i < n; i++)
        if (order[i] == e) {
            if (i > at)
                memmove(&order[at + 1], &order[at], sizeof(order[0]) * (size_t)(i - at));
            else if (i < at)
                memmove(&order[i], &order[i + 1], sizeof(order[0]) * (size_t)(at - i));
            order[at] = e;
            return;
        }
}

/* The engine a forcing variable's configuration is for, else the one a
 * tuning DB entry for q's pass names (exact, or nearest within
 * PRNN_PLAN_ENGINE_NEAREST_MAX_COST; or the TF32 engine tf32_over_entry puts before
 * it), goes first in the order, unless $PRNN_ENGINE already put one there.
 * 1 when the order's first is chosen (forced or by the database), else 0. */
static int db_engine_first(const prnn_engine_query *q, const prnn_engine **order, int n)
{
    /* a forced configuration chooses its engine */
    const prnn_engine *owner = forced_owner(q, order, n);
    if (owner) {
        move_to(order, n, owner, 0);
        return 1;
    }
    const char *forced = prnn_plan_forced_engine(q->pass);
    if (forced && n && strcmp(order[0]->name, forced) == 0)
        return 1;
    if (n < 2)
        return 0;
    prnn_tuning_result found;
    const prnn_engine *named = prnn_plan_db_engine(q, PRNN_SEQ_BUCKET_ANY, order, n, &found);
    if (!named)
        return 0;
    move_to(order, n, named, 0);
    /* the TF32 engine first, the entry's next should it not run */
    const prnn_engine *tf32 = tf32_over_entry(q, order, n, &found.entry);
    if (tf32)
        move_to(order, n, tf32, 0);
    return 1;
}

/* Engine e's pass plan for q from its own choices (forced, tuning DB,
 * the autotuner with may_autotune, its heuristic's). */
static prnnStatus_t prepare_from_choices(const prnn_engine_query *q, const prnn_engine *e,
                                         int may_autotune, prnn_pass_plan *pp)
{
    prnn_engine_choice choices[MAX_CHOICES];
    int count, settled;
    PRNN_TRY(engine_choices(q, e, may_autotune, choices, &count, &settled));
    PRNN_TRY(prnn_plan_prepare_engine(q, e, choices, count, pp));
    pp->settled = settled;
    return PRNN_STATUS_SUCCESS;
}

/*
 * The pass plan of q: the first engine in order that can run it. With
 * fallback, the last engine of the order after it that can (the most
 * general: the standard engine where it may run), prepared: the
 * backward-data pass's, should its own not load. The last engine's reason
 * goes into the error when none can.
 */
/* The engines q's pass tries, in order: forced, the tuning DB's, else by
 * their models' estimates; refused as prnn_plan_engine_order's. Returns how
 * many. */
static int pass_order(const prnn_engine_query *q, const prnn_engine **order, char *refused,
                      size_t refused_size)
{
    int n = prnn_plan_engine_order(q, order, refused, refused_size);
    if (!db_engine_first(q, order, n))
        prnn_engine_sort_by_estimate(q, order, n);
    return n;
}

static prnnStatus_t choose_pass(const prnn_engine_query *q, int may_autotune, prnn_pass_plan *pp,
                                prnn_pass_plan *fallback)
{
    const prnn_engine *order[16];
    char why[512];
    int n = pass_order(q, order, why, sizeof(why)); /* why: the refusals, until an engine fails */
    for (int i = 0; i < n; i++) {
        prnnStatus_t s = prepare_from_choices(q, order[i], may_autotune, pp);
        if (s == PRNN_STATUS_SUCCESS) {
            for (int j = n - 1; fallback && j > i; j--) {
                s = prepare_from_choices(q, order[j], 0, fallback);
                if (s != PRNN_STATUS_NOT_SUPPORTED)
                    return s;
            }
            return PRNN_STATUS_SUCCESS;
        }
        if (s != PRNN_STATUS_NOT_SUPPORTED)
            return s; /* a compile or driver failure is a real error */
        snprintf(why, sizeof(why), "%s", prnn_log_get());
    }
    if (q->key.algo == PRNN_RNN_ALGO_PERSISTENT)
        return prnn_fail(PRNN_STATUS_NOT_SUPPORTED,
                         "PRNN_RNN_ALGO_PERSISTENT: no persistent configuration runs %s hidden %d "
                         "batch %d on %s%s%s",
                         prnn_mode_name(q->key.mode), q->key.hidden, q->key.mini_batch,
                         q->gs->description, why[0] ? ": " : "", why);
    return prnn_fail(PRNN_STATUS_NOT_SUPPORTED,
                     "no engine runs the %s pass of %s hidden %d batch %d on %s%s%s",
                     prnn_pass_name(q->pass), prnn_mode_name(q->key.mode), q->key.hidden,
                     q->key.mini_batch, q->gs->description, why[0] ? ": " : "", why);
}

/* A short slot of q's pass prepared from choice c (NOT_SUPPORTED: it stays
 * unused, the pass's own engine runs its lengths). */
static prnnStatus_t prepare_slot(const prnn_engine_query *q, prnn_short_slot *slot,
                                 const prnn_short_choice *c)
{
    if (!c->max_seq)
        return PRNN_STATUS_SUCCESS;
    if (!c->engine) { /* a measurement's choice of the pass's own */
        slot->max_seq = c->max_seq;
        slot->pass.source = c->choice.source;
        snprintf(slot->pass.tuned_on, sizeof(slot->pass.tuned_on), "%s", c->choice.tuned_on);
        return PRNN_STATUS_SUCCESS;
    }
    prnnStatus_t s = prnn_plan_prepare_engine(q, c->engine, &c->choice, 1, &slot->pass);
    if (s == PRNN_STATUS_NOT_SUPPORTED)
        return PRNN_STATUS_SUCCESS;
    if (!s)
        slot->max_seq = c->max_seq;
    return s;
}

/* The short-sequence passes of q's pass (plan_short.h) into slots,
 * prepared: the measured slots first, then the models' fitted to those that
 * run. The backward-data pass's load nothing (their kernels come with the
 * training kernels). */
static prnnStatus_t choose_short(const prnn_engine_query *q, const prnn_pass_plan *runs,
                                 prnn_short_slot slots[PRNN_SHORT_SLOTS])
{
    prnn_short_choice ch[PRNN_SHORT_SLOTS];
    prnn_plan_short_choices(q, runs->engine, &runs->chosen, runs->config, runs->forced_by, ch);
    const int measured[] = {PRNN_SHORT_ONE, PRNN_SHORT_MEASURED};
    for (int k = 0; k < 2; k++) {
        const int i = measured[k];
        PRNN_TRY(prepare_slot(q, &slots[i], &ch[i]));
        if (!slots[i].max_seq)
            memset(&ch[i], 0, sizeof(ch[i]));
    }
    prnn_plan_short_trim(ch);
    return prepare_slot(q, &slots[PRNN_SHORT_FEW], &ch[PRNN_SHORT_FEW]);
}

/* Whether the autotuner may search for p: it is on, and the network does
 * not clip its cell state. A clipped LSTM takes its unclipped shape's tuned
 * or heuristic configuration (the same kernels but for the clamp): the
 * autotuner checks each candidate's gradients against the CPU reference,
 * which the clip's jump makes too noisy in 16 bits to accept any, and its
 * results would land under the unclipped shape's key. */
static int may_autotune(const prnn_gpu_call *g, const prnn_plan *p)
{
    return g->autotune == PRNN_AUTOTUNE_ON && p->key.clip == PRNN_KCLIP_NONE;
}

static prnnStatus_t make_plan(const prnn_gpu_call *g, const struct prnnRNNStruct *rnn, prnn_plan *p)
{
    PRNN_TRY(prnn_run_kernels_load(g->gs, &p->kernels, &p->stats));
    prnn_engine_query bq = prnn_plan_query(g, rnn, &p->key, PRNN_PASS_BACKWARD_DATA);
    PRNN_TRY(choose_pass(&bq, 0, &p->pass[PRNN_PASS_BACKWARD_DATA], &p->bwd_fallback));
    PRNN_TRY(choose_short(&bq, &p->pass[PRNN_PASS_BACKWARD_DATA], p->short_bwd));
    prnn_engine_query fq = prnn_plan_query(g, rnn, &p->key, PRNN_PASS_FORWARD);
    PRNN_TRY(choose_pass(&fq, may_autotune(g, p), &p->pass[PRNN_PASS_FORWARD], NULL));
    return choose_short(&fq, &p->pass[PRNN_PASS_FORWARD], p->short_fwd);
}

/* With autotuning on and no settled choice for the backward-data pass, its
 * engine's configuration is tuned first, among those that fit the
 * workspace size already reported, and takes the first place. */
static prnnStatus_t autotune_backward(const prnn_engine_query *q, prnn_pass_plan *pp)
{
    const prnn_engine *e = pp->engine;
    if (!e->fields || e->one_config)
        return PRNN_STATUS_SUCCESS;
    prnn_autotune_options o;
    prnn_autotune_defaults(&o);
    o.max_scratch_bytes = e->scratch ? e->scratch(pp) : 0;
    prnn_autotune_result best;
    PRNN_TRY(prnn_autotune_engine(q, e, &o, &best, NULL));
    prnn_engine_choice choices[MAX_CHOICES];
    int n = 0;
    memset(&choices[n], 0, sizeof(choices[n]));
    choices[n].config = best.config;
    choices[n++].source = PRNN_CONFIG_AUTOTUNED;
    prnn_engine_config heur[MAX_CHOICES];
    int h = e->candidates(q, 0, 0, heur, MAX_CHOICES - n);
    for (int i = 0; i < h; i++) {
        memset(&choices[n], 0, sizeof(choices[n]));
        choices[n].config = heur[i];
        choices[n++].source = PRNN_CONFIG_HEURISTIC;
    }
    prnn_pass_plan tuned;
    PRNN_TRY(prnn_plan_prepare_engine(q, e, choices, n, &tuned));
    e->release(pp);
    *pp = tuned;
    return PRNN_STATUS_SUCCESS;
}

/* The training kernels, once: the forward engine's training variant, the
 * backward-data engine's kernels (its fallback's when they cannot load),
 * and the shared training kernels. */
static prnnStatus_t load_training(const prnn_gpu_call *g, const struct prnnRNNStruct *rnn,
                                  prnn_plan *p)
{
    prnn_engine_query fq = prnn_plan_query(g, rnn, &p->key, PRNN_PASS_FORWARD);
    prnn_engine_query bq = prnn_plan_query(g, rnn, &p->key, PRNN_PASS_BACKWARD_DATA);
    prnn_pass_plan *f = &p->pass[PRNN_PASS_FORWARD], *b = &p->pass[PRNN_PASS_BACKWARD_DATA];
    if (may_autotune(g, p) && !b->settled && !b->loaded)
        PRNN_TRY(autotune_backward(&bq, b));
    PRNN_TRY(f->engine->load_training(&fq, f));
    for (int i = 0; i < PRNN_SHORT_SLOTS; i++)
        if (p->short_fwd[i].pass.engine)
            PRNN_TRY(p->short_fwd[i].pass.engine->load_training(&fq, &p->short_fwd[i].pass));
    prnnStatus_t s = b->engine->load_training(&bq, b);
    if (s == PRNN_STATUS_NOT_SUPPORTED && p->bwd_fallback.engine) {
        prnn_log_append("note: the %s engine's backward-data kernels do not load here; the %s "
                        "engine runs the pass",
                        b->engine->name, p->bwd_fallback.engine->name);
        s = p->bwd_fallback.engine->load_training(&bq, &p->bwd_fallback);
        if (!s) {
            b->engine->release(b);
            *b = p->bwd_fallback;
            memset(&p->bwd_fallback, 0, sizeof(p->bwd_fallback));
        }
    }
    if (s)
        return s;
    for (int i = 0; i < PRNN_SHORT_SLOTS; i++) {
        prnn_short_slot *sb = &p->short_bwd[i];
        if (!sb->pass.engine)
            continue;
        s = sb->pass.engine->load_training(&bq, &sb->pass);
        if (s == PRNN_STATUS_NOT_SUPPORTED) {
            prnn_log_append("note: the %s engine's backward-data kernels do not load here; "
                            "backward-data calls of up to %d steps run on the next short slot "
                            "that covers them, else on the %s engine",
                            sb->pass.engine->name, sb->max_seq, b->engine->name);
            sb->pass.engine->release(&sb->pass);
            memset(sb, 0, sizeof(*sb));
        } else if (s) {
            return s;
        }
    }
    return prnn_run_kernels_load_training(g->gs, rnn->dtype, &p->kernels, &p->stats);
}

/* PRNN_LOG_PLANS: an event's shape, device, outcome and time. */
static void log_event_init(prnn_plan_log_event *e, const char *event,
                           const struct prnn_gpu_state *gs, const prnn_rnn_key *key, prnnStatus_t s,
                           double ms)
{
    memset(e, 0, sizeof(*e));
    e->event = event;
    e->mode = key->mode;
    e->dtype = key->dtype;
    e->hidden = key->hidden;
    e->batch = key->mini_batch;
    e->layers = key->layers;
    e->dirs = key->dirs;
    e->caller_rows = key->caller_rows;
    e->device = gs->description;
    e->status = s;
    e->ms = ms;
}

static prnn_plan_log_pass log_pass_plan(const prnn_pass_plan *pp, const prnn_rnn_key *key)
{
    prnn_plan_log_pass lp = {"", PRNN_PATH_STANDARD, "", PRNN_CONFIG_NONE, NULL, NULL};
    if (!pp->engine)
        return lp;
    prnn_engine_info info;
    pp->engine->describe(pp, key, &info);
    lp.path = info.path;
    lp.config = pp->config;
    lp.source = pp->source;
    lp.forced_by = pp->forced_by;
    lp.tuned_on = pp->tuned_on[0] ? pp->tuned_on : NULL;
    return lp;
}

static prnn_plan_log_pass log_pass(const prnn_plan *p, prnn_pass pass)
{
    prnn_plan_log_pass lp = log_pass_plan(&p->pass[pass], &p->key);
    lp.pass = prnn_pass_name(pass);
    return lp;
}

/* What an event compiled ahead, and what its loads compiled after. */
typedef struct {
    prnn_cubin_batch_counts counts;
    unsigned long compiles_before; /* prnn_nvrtc_compile_count when the loads began */
} ahead_log;

static void log_ahead(prnn_plan_log_event *e, const ahead_log *a)
{
    e->ahead_kernels = a->counts.compiled;
    e->ahead_threads = a->counts.threads;
    e->later_compiles = prnn_nvrtc_compile_count() - a->compiles_before;
}

/* A plan event prints both passes and their short slots (C99 has no
 * static_assert; a negative array size fails the build instead). */
typedef char
    prnn_log_holds_every_pass[2 + 2 * PRNN_SHORT_SLOTS <= PRNN_PLAN_LOG_MAX_PASSES ? 1 : -1];

/* Labels for a pass's short slots as log passes (storage that must
 * outlive the event). */
typedef char short_names[PRNN_SHORT_SLOTS][48];

/* pass's used short slots (runs: the pass plan that runs a slot without a
 * pass of its own) as the event's next passes, labelled "<label> T=1" or
 * "<label> T<=n". */
static void log_short_slots(prnn_plan_log_event *e, const prnn_plan *p,
                            const prnn_short_slot slots[PRNN_SHORT_SLOTS],
                            const prnn_pass_plan *runs, const char *label, short_names names)
{
    for (int i = 0; i < PRNN_SHORT_SLOTS; i++) {
        const prnn_short_slot *slot = &slots[i];
        if (!slot->max_seq)
            continue;
        if (slot->max_seq == 1)
            snprintf(names[i], sizeof(names[i]), "%s T=1", label);
        else
            snprintf(names[i], sizeof(names[i]), "%s T<=%d", label, slot->max_seq);
        if (slot->pass.engine) {
            e->passes[e->npasses] = log_pass_plan(&slot->pass, &p->key);
        } else { /* a measured choice of the pass's own */
            e->passes[e->npasses] = log_pass_plan(runs, &p->key);
            e->passes[e->npasses].source = slot->pass.source;
        }
        e->passes[e->npasses++].pass = names[i];
    }
}

/* A new plan: the forward pass that loaded, the backward-data pass chosen. */
static void log_plan(const struct prnn_gpu_state *gs, const prnn_plan *p, prnnStatus_t s, double ms,
                     const ahead_log *a)
{
    prnn_plan_log_event e;
    log_event_init(&e, "plan", gs, &p->key, s, ms);
    log_ahead(&e, a);
    e.passes[0] = log_pass(p, PRNN_PASS_FORWARD);
    e.passes[1] = log_pass(p, PRNN_PASS_BACKWARD_DATA);
    e.npasses = 2;
    short_names fwd_names, bwd_names;
    log_short_slots(&e, p, p->short_fwd, &p->pass[PRNN_PASS_FORWARD], "forward", fwd_names);
    log_short_slots(&e, p, p->short_bwd, &p->pass[PRNN_PASS_BACKWARD_DATA], "backward-data",
                    bwd_names);
    prnn_load_stats stats = prnn_plan_load_stats(p);
    e.cubin = stats.cubin_source;
    e.compile_ms = stats.compile_ms;
    prnn_plan_log_print(&e);
}

/* The training kernels loaded: the backward-data pass that loaded. */
static void log_training(const struct prnn_gpu_state *gs, const prnn_plan *p, prnnStatus_t s,
                         double ms, const prnn_load_stats *event, const ahead_log *a)
{
    prnn_plan_log_event e;
    log_event_init(&e, "training kernels", gs, &p->key, s, ms);
    log_ahead(&e, a);
    e.passes[0] = log_pass(p, PRNN_PASS_BACKWARD_DATA);
    e.npasses = 1;
    short_names bwd_names;
    log_short_slots(&e, p, p->short_bwd, &p->pass[PRNN_PASS_BACKWARD_DATA], "backward-data",
                    bwd_names);
    e.cubin = event->cubin_source;
    e.compile_ms = event->compile_ms;
    prnn_plan_log_print(&e);
}

/* The parts of a plan that load kernels, each with its own statistics. */
enum { STAT_PARTS = 3 + 2 * PRNN_SHORT_SLOTS };
static void stat_parts(prnn_plan *p, prnn_load_stats *parts[STAT_PARTS])
{
    parts[0] = &p->stats;
    parts[1] = &p->pass[0].stats;
    parts[2] = &p->pass[1].stats;
    for (int i = 0; i < PRNN_SHORT_SLOTS; i++) {
        parts[3 + i] = &p->short_fwd[i].pass.stats;
        parts[3 + PRNN_SHORT_SLOTS + i] = &p->short_bwd[i].pass.stats;
    }
}

static void reset_sources(prnn_plan *p, prnn_load_stats saved[STAT_PARTS])
{
    prnn_load_stats *parts[STAT_PARTS];
    stat_parts(p, parts);
    for (int i = 0; i < STAT_PARTS; i++) {
        saved[i] = *parts[i];
        parts[i]->cubin_source = PRNN_CUBIN_NONE;
    }
}

static void restore_sources(prnn_plan *p, const prnn_load_stats saved[STAT_PARTS])
{
    prnn_load_stats *parts[STAT_PARTS];
    stat_parts(p, parts);
    for (int i = 0; i < STAT_PARTS; i++)
        if (saved[i].cubin_source > parts[i]->cubin_source)
            parts[i]->cubin_source = saved[i].cubin_source;
}

/* The plan's training kernels, with the event (begun at t0, with what was
 * compiled ahead for it) logged. */
static prnnStatus_t prepare_training(const prnn_gpu_call *g, const struct prnnRNNStruct *rnn,
                                     prnn_plan *p, double t0, const ahead_log *a)
{
    struct prnn_gpu_state *gs = g->gs;
    /* The plan's cubin source is the worst over its life; the log wants
     * this event's own, so the sources start afresh and are merged after. */
    prnn_load_stats before = prnn_plan_load_stats(p), saved[STAT_PARTS];
    reset_sources(p, saved);
    prnnStatus_t s = prnn_gpu_enter(gs);
    if (!s) {
        s = load_training(g, rnn, p);
        prnn_gpu_leave(gs);
    }
    prnn_load_stats after = prnn_plan_load_stats(p);
    prnn_load_stats event = {after.cubin_source, after.compile_ms - before.compile_ms};
    restore_sources(p, saved);
    double ms = prnn_now_ms() - t0;
    if (prnn_plan_log_enabled())
        log_training(gs, p, s, ms, &event, a);
    if (s)
        return s;
    p->training_loaded = 1;
    p->plan_ms += ms;
    return PRNN_STATUS_SUCCESS;
}

/* ---- the kernels a plan loads, compiled ahead ---- */

/* The kernels of the first of e's choices that runs q here, into out: how
 * many (0 when none runs); its forcing variable and configuration into
 * *forced_by and *chosen where those are not NULL. */
static int choice_kernels(const prnn_engine_query *q, const prnn_engine *e,
                          const prnn_engine_choice *choices, int count, int training,
                          prnn_kernel_request *out, const char **forced_by,
                          prnn_engine_config *chosen)
{
    char why[256];
    for (int i = 0; i < count; i++) {
        if (e->fits(q, &choices[i].config, why, sizeof(why)))
            continue;
        int n = e->requests(q, &choices[i].config, training, out);
        if (n >= 0) {
            if (forced_by)
                *forced_by = choices[i].forced_by;
            if (chosen)
                *chosen = choices[i].config;
            return n;
        }
    }
    return 0;
}

/* The engine q's pass tries first (NULL: none), and the kernels of its
 * first configuration that runs (*chosen), added to ks. */
static const prnn_engine *pass_kernels(const prnn_engine_query *q, int training,
                                       prnn_plan_kernels *ks, const char **forced_by,
                                       prnn_engine_config *chosen)
{
    const prnn_engine *order[16];
    if (pass_order(q, order, NULL, 0) < 1)
        return NULL;
    prnn_engine_choice choices[MAX_CHOICES];
    int count, settled;
    if (engine_choices(q, order[0], 0, choices, &count, &settled))
        return NULL;
    ks->count += choice_kernels(q, order[0], choices, count, training, &ks->req[ks->count],
                                forced_by, chosen);
    return order[0];
}

/* The kernels of q's pass's short slots (pass engine runs with
 * configuration chosen), each engine and configuration once, added to ks. */
static void short_kernels(const prnn_engine_query *q, const prnn_engine *runs,
                          const prnn_engine_config *chosen, const char *forced_by, int training,
                          prnn_plan_kernels *ks)
{
    prnn_short_choice ch[PRNN_SHORT_SLOTS];
    prnn_plan_short_choices(q, runs, chosen, NULL, forced_by, ch);
    prnn_plan_short_trim(ch);
    for (int i = 0; i < PRNN_SHORT_SLOTS; i++) {
        const prnn_engine *sh = ch[i].engine;
        int again = 0; /* an earlier slot's engine and configuration */
        for (int j = 0; j < i && !again; j++)
            again = ch[j].engine == sh && memcmp(&ch[j].choice.config, &ch[i].choice.config,
                                                 sizeof(ch[i].choice.config)) == 0;
        if (sh && !again)
            ks->count +=
                choice_kernels(q, sh, &ch[i].choice, 1, training, &ks->req[ks->count], NULL, NULL);
    }
}

void prnn_plan_kernel_set(const prnn_gpu_call *g, const prnn_rnn_key *key, int training,
                          prnn_plan_kernels *ks)
{
    ks->count = 0;
    char *saved = prnn_log_save();
    const int sm = g->gs->info.sm;
    if (!prnn_request_setup(sm, &ks->req[ks->count]))
        ks->count++;
    if (training && !prnn_request_train(key->dtype, sm, &ks->req[ks->count]))
        ks->count++;
    const char *forced_by = NULL;
    prnn_engine_config chosen;
    memset(&chosen, 0, sizeof(chosen));
    prnn_engine_query bq = prnn_plan_query(g, NULL, key, PRNN_PASS_BACKWARD_DATA);
    const prnn_engine *bwd = pass_kernels(&bq, training, ks, &forced_by, &chosen);
    if (training) /* the backward-data slots', loaded with them */
        short_kernels(&bq, bwd, &chosen, forced_by, training, ks);
    prnn_engine_query fq = prnn_plan_query(g, NULL, key, PRNN_PASS_FORWARD);
    forced_by = NULL;
    memset(&chosen, 0, sizeof(chosen));
    const prnn_engine *fwd = pass_kernels(&fq, training, ks, &forced_by, &chosen);
    short_kernels(&fq, fwd, &chosen, forced_by, training, ks);
    /* Its notes stay (a user DB that could not be read is reported by the
     * first lookup only; a forcing variable ignored is reported again by
     * the planning); a failure's message must not replace the caller's log. */
    if (saved && strncmp(prnn_log_get(), saved, strlen(saved)) == 0)
        free(saved);
    else
        prnn_log_restore(saved);
}

/*
 * The kernels that planning key (training: and its training kernels) will
 * load, that no module of the handle's context holds and that the disk
 * cache does not have, compiled on several threads now, for the loads to
 * take (jit/cubin_batch.h). NULL when there is nothing to gain: fewer than
 * two, or the autotuner chooses (it compiles its own candidates so). Cached
 * kernels are left to the loads: reading a plan's five cubins took 1.4 ms
 * one after another and 3.4 ms through a batch's threads (bench/NOTES.md,
 * issue 26).
 */
static prnn_cubin_batch *compile_ahead(const prnn_gpu_call *g, const prnn_rnn_key *key,
                                       int training, prnn_cubin_batch_counts *counts)
{
    memset(counts, 0, sizeof(*counts));
    /* On the heap (about 40 KB): planning runs on the caller's threads, whose
     * stacks may be small. Without it the loads compile as they always
     * did. */
    prnn_plan_kernels *ks = g->autotune == PRNN_AUTOTUNE_ON ? NULL : malloc(sizeof(*ks));
    if (!ks)
        return NULL;
    prnn_plan_kernel_set(g, key, training, ks);
    prnn_compile_request reqs[PRNN_PLAN_MAX_KERNELS];
    int n = 0;
    for (int i = 0; i < ks->count; i++)
        if (!prnn_module_loaded(g->gs->cu, g->gs->ctx, &ks->req[i].req) &&
            !prnn_cubin_cached(&ks->req[i].req))
            reqs[n++] = ks->req[i].req;
    prnn_cubin_batch *b = n > 1 ? prnn_cubin_batch_get(NULL, reqs, n, 1, counts) : NULL;
    free(ks);
    return b;
}

prnnStatus_t prnn_plan_get(const prnn_gpu_call *g, const struct prnnRNNStruct *rnn, int mini_batch,
                           int caller_rows, int training, prnn_plan **out)
{
    struct prnn_gpu_state *gs = g->gs;
    prnn_rnn_key key;
    prnn_rnn_key_of(rnn, mini_batch, &key);
    key.caller_rows = caller_rows;
    const uint64_t hash = prnn_rnn_key_hash(&key);
    prnn_plan *p = NULL;
    for (prnn_plan *q = gs->plans; q && !p; q = q->next)
        if (q->hash == hash && prnn_rnn_key_equal(&q->key, &key))
            p = q;
    const int need_training = training && (!p || !p->training_loaded);
    if (p && !need_training) {
        *out = p;
        return PRNN_STATUS_SUCCESS;
    }
    /* What this call loads, compiled ahead in parallel (its time is the
     * plan's, or the training event's, as the compiles' always were). */
    double t0 = prnn_now_ms();
    ahead_log a;
    prnn_cubin_batch *ahead = compile_ahead(g, &key, need_training, &a.counts);
    a.compiles_before = prnn_nvrtc_compile_count();
    prnnStatus_t s = PRNN_STATUS_SUCCESS;
    if (!p) {
        p = calloc(1, sizeof(*p));
        if (!p) {
            prnn_cubin_batch_end(ahead);
            return prnn_fail(PRNN_STATUS_ALLOC_FAILED, "out of host memory");
        }
        p->key = key;
        p->hash = hash;
        s = prnn_gpu_enter(gs);
        if (!s) {
            s = make_plan(g, rnn, p);
            if (!s)
                s = prnn_plan_start_graphs(p, gs->cu);
            prnn_gpu_leave(gs);
        }
        double ms = prnn_now_ms() - t0;
        if (prnn_plan_log_enabled())
            log_plan(gs, p, s, ms, &a);
        if (s) {
            prnn_cubin_batch_end(ahead);
            /* its engines may hold driver objects (the standard engine's
             * capture stream): released in the context */
            const int entered = prnn_gpu_enter_quietly(gs);
            prnn_plan_free(p);
            if (entered)
                prnn_gpu_leave(gs);
            return s;
        }
        p->plan_ms = ms;
        p->next = gs->plans;
        gs->plans = p;
        /* The training event's own: what was compiled ahead was the plan's. */
        t0 = prnn_now_ms();
        memset(&a.counts, 0, sizeof(a.counts));
        a.compiles_before = prnn_nvrtc_compile_count();
    }
    if (need_training)
        s = prepare_training(g, rnn, p, t0, &a);
    prnn_cubin_batch_end(ahead);
    if (s)
        return s;
    *out = p;
    return PRNN_STATUS_SUCCESS;
}

void prnn_plan_free_all(prnn_plan *list)
{
    while (list) {
        prnn_plan *next = list->next;
        prnn_plan_free(list);
        list = next;
    }
}
