#include "gpu/autotune/autotune.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "error.h"
#include "gpu/autotune/autotune_common.h"
#include "gpu/plan/plan_make.h"
#include "gpu/run/call_run.h"
#include "gpu/run/gpu_run.h"
#include "gpu/run/gpu_state.h"
#include "ref/ref_rnn.h"
#include "tuning/tuning_db.h"

void prnn_autotune_defaults(prnn_autotune_options *o)
{
    memset(o, 0, sizeof(*o));
    o->max_candidates = 12;
    o->seq_length = 256;
    o->repeats = 5;
    o->budget_s = 60.0;
}

/* opts_in (NULL: the defaults) with its numbers brought into range. */
static void resolve(const prnn_autotune_options *opts_in, prnn_autotune_options *opts)
{
    if (opts_in)
        *opts = *opts_in;
    else
        prnn_autotune_defaults(opts);
    if (opts->max_candidates < 1 || opts->max_candidates > PRNN_AUTOTUNE_MAX_CANDIDATES)
        opts->max_candidates = PRNN_AUTOTUNE_MAX_CANDIDATES;
    if (opts->seq_bucket == PRNN_SEQ_BUCKET_ONE)
        opts->seq_length = 1;
    else if (opts->seq_bucket == PRNN_SEQ_BUCKET_SHORT)
        opts->seq_length = PRNN_TUNING_SHORT_SEQ;
    else if (opts->seq_length < 4)
        opts->seq_length = 4;
    if (opts->repeats < 1)
        opts->repeats = 1;
}

/* What a candidate is checked and timed on. */
typedef enum {
    TIME_FORWARD,  /* inference calls; y checked */
    TIME_BACKWARD, /* BackwardData after one ForwardTraining; dx checked */
    TIME_STEP      /* ForwardTraining + BackwardData; y and dx checked */
} timing;

/* One candidate's plan on the search's buffers; calls: how many calls
 * (back to back) one timed run makes. */
typedef struct {
    const prnn_gpu_call *g;
    const prnn_plan *plan;
    timing how;
    const prnn_rnn_problem *p;
    prnn_autotune_buffers *d;
    int calls;
} candidate_run;

/* Calls a timed run makes: one for a long sequence; a bucket's short
 * calls several, so that a run's events do not time one call's launch
 * alone (about 64 steps a run). */
static int calls_per_run(const prnn_autotune_options *o)
{
    return o->seq_bucket == PRNN_SEQ_BUCKET_ANY ? 1 : (64 + o->seq_length - 1) / o->seq_length;
}

/* One call of kind on the plan, on d's buffers (sized first). */
static prnnStatus_t call(const candidate_run *r, prnn_call_kind kind)
{
    const prnn_cuda_driver *cu = r->g->gs->cu;
    prnn_autotune_buffers *d = r->d;
    prnn_call_plan cp;
    PRNN_TRY(prnn_plan_call(r->plan, r->g->gs, r->p, kind, &cp));
    PRNN_TRY(prnn_autotune_ensure(cu, &d->ws, &d->ws_bytes, cp.workspace_bytes));
    if (kind != PRNN_CALL_INFERENCE)
        PRNN_TRY(prnn_autotune_ensure(cu, &d->reserve, &d->reserve_bytes, cp.reserve_bytes));
    const int cell = prnn_cell_traits(r->p->rnn->mode)->has_cell;
    const void *cx = cell ? (const void *)d->cx : NULL;
    if (kind == PRNN_CALL_BACKWARD_DATA) {
        prnn_backward_data_buffers b = {(const void *)d->y,
                                        (const void *)d->dy,
                                        NULL,
                                        NULL,
                                        (const void *)d->w,
                                        (const void *)d->hx,
                                        cx,
                                        (void *)d->dx,
                                        NULL,
                                        NULL,
                                        (void *)d->ws,
                                        d->ws_bytes,
                                        (void *)d->reserve,
                                        d->reserve_bytes};
        return prnn_call_run(&cp, r->g, &b, (void *)d->ws);
    }
    prnn_forward_buffers b = {(const void *)d->x,
                              (const void *)d->hx,
                              cx,
                              (const void *)d->w,
                              (void *)d->y,
                              NULL,
                              NULL,
                              (void *)d->ws,
                              d->ws_bytes,
                              kind == PRNN_CALL_INFERENCE ? NULL : (void *)d->reserve,
                              kind == PRNN_CALL_INFERENCE ? 0 : d->reserve_bytes};
    return prnn_call_run(&cp, r->g, &b, (void *)d->ws);
}

/* The timed work. */
static prnnStatus_t timed_fn(const void *ctx)
{
    const candidate_run *r = ctx;
    switch (r->how) {
    case TIME_FORWARD:
        for (int i = 1; i < r->calls; i++)
            PRNN_TRY(call(r, PRNN_CALL_INFERENCE));
        return call(r, PRNN_CALL_INFERENCE);
    case TIME_BACKWARD:
        for (int i = 1; i < r->calls; i++)
            PRNN_TRY(call(r, PRNN_CALL_BACKWARD_DATA));
        return call(r, PRNN_CALL_BACKWARD_DATA);
    case TIME_STEP:
        PRNN_TRY(call(r, PRNN_CALL_FORWARD_TRAINING));
        return call(r, PRNN_CALL_BACKWARD_DATA);
    }
    return PRNN_STATUS_INTERNAL_ERROR;
}

/* Runs the timed work once (repeats = 0, then waits), or times `repeats`
 * runs after `warmups` and gives their median per step. BackwardData
 * alone is preceded by the ForwardTraining that fills its reserve. */
static prnnStatus_t run_candidate(const candidate_run *r, int repeats, int warmups,
                                  double *us_per_step)
{
    if (r->how == TIME_BACKWARD)
        PRNN_TRY(call(r, PRNN_CALL_FORWARD_TRAINING));
    if (!repeats) {
        PRNN_TRY(timed_fn(r));
        return prnn_cu_check(r->g->gs->cu->cuStreamSynchronize((CUstream)r->g->stream),
                             "cuStreamSynchronize");
    }
    const int calls = r->how != TIME_STEP && r->calls > 1 ? r->calls : 1;
    return prnn_autotune_time(r->g, timed_fn, r, r->p->seq_length * calls, repeats, warmups,
                              us_per_step);
}

/* ---- the check against the CPU reference ---- */

typedef struct {
    void *yref, *dxref, *ygot, *dxgot;
    size_t ycount, xcount; /* elements */
} check_data;

static void free_check(check_data *cd)
{
    void *all[] = {cd->yref, cd->dxref, cd->ygot, cd->dxgot};
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
        free(all[i]);
}

/* The reference's y (and, for a timing with BackwardData, dx) of the short
 * problem. */
static prnnStatus_t make_check(const prnn_autotune_inputs *in, timing how, check_data *cd)
{
    const prnn_rnn_problem *pc = &in->check;
    const struct prnnRNNStruct *rnn = pc->rnn;
    const size_t es = prnn_dtype_size(rnn->dtype);
    const int cell = prnn_cell_traits(rnn->mode)->has_cell;
    cd->xcount = pc->total_rows * (size_t)rnn->hidden;
    cd->ycount = cd->xcount * prnn_rnn_dirs(rnn);
    cd->yref = malloc(cd->ycount * es);
    cd->ygot = malloc(cd->ycount * es);
    cd->dxref = malloc(cd->xcount * es);
    cd->dxgot = malloc(cd->xcount * es);
    size_t wsb = prnn_ref_workspace_bytes(pc), rsb = prnn_ref_reserve_bytes(pc);
    void *ws = malloc(wsb ? wsb : 1), *res = malloc(rsb ? rsb : 1);
    prnnStatus_t s = PRNN_STATUS_SUCCESS;
    if (!cd->yref || !cd->ygot || !cd->dxref || !cd->dxgot || !ws || !res)
        s = prnn_fail(PRNN_STATUS_ALLOC_FAILED, "out of host memory");
    const void *cx = cell ? in->cx : NULL;
    if (!s)
        s = prnn_ref_forward(pc, how != TIME_FORWARD, in->x, in->hx, cx, in->w, cd->yref, NULL,
                             NULL, ws, how != TIME_FORWARD ? res : NULL);
    if (!s && how != TIME_FORWARD)
        s = prnn_ref_backward_data(pc, cd->yref, in->dy, NULL, NULL, in->w, in->hx, cx, cd->dxref,
                                   NULL, NULL, ws, res);
    free(ws);
    free(res);
    return s;
}

static double rel_error(const void *got, const void *want, prnnDataType_t t, size_t n)
{
    double num = 0, den = 0;
    for (size_t k = 0; k < n; k++) {
        double a = prnn_load_as_double(got, t, k), r = prnn_load_as_double(want, t, k);
        num += (a - r) * (a - r);
        den += r * r;
    }
    return den > 0 ? sqrt(num / den) : sqrt(num);
}

/* Checks a candidate on the short problem (outputs poisoned first); 0 with
 * o->rel_error set, or EXECUTION_FAILED with a note when the results are
 * wrong. */
static prnnStatus_t check(const candidate_run *r, const check_data *cd, prnn_autotune_outcome *o)
{
    const prnn_cuda_driver *cu = r->g->gs->cu;
    const prnnDataType_t t = r->p->rnn->dtype;
    const size_t es = prnn_dtype_size(t);
    const int want_y = r->how != TIME_BACKWARD, want_dx = r->how != TIME_FORWARD;
    CUstream stream = (CUstream)r->g->stream;
    if (want_y)
        PRNN_TRY(prnn_cu_check(cu->cuMemsetD8Async(r->d->y, 0xff, cd->ycount * es, stream),
                               "cuMemsetD8Async"));
    if (want_dx)
        PRNN_TRY(prnn_cu_check(cu->cuMemsetD8Async(r->d->dx, 0xff, cd->xcount * es, stream),
                               "cuMemsetD8Async"));
    PRNN_TRY(run_candidate(r, 0, 0, NULL));
    double ey = 0, ex = 0;
    if (want_y) {
        PRNN_TRY(
            prnn_cu_check(cu->cuMemcpyDtoH(cd->ygot, r->d->y, cd->ycount * es), "cuMemcpyDtoH"));
        ey = rel_error(cd->ygot, cd->yref, t, cd->ycount);
    }
    if (want_dx) {
        PRNN_TRY(
            prnn_cu_check(cu->cuMemcpyDtoH(cd->dxgot, r->d->dx, cd->xcount * es), "cuMemcpyDtoH"));
        ex = rel_error(cd->dxgot, cd->dxref, t, cd->xcount);
    }
    o->rel_error = ey > ex || isnan(ey) ? ey : ex;
    /* fp32 with a TF32 math type: TF32 keeps half's 10-bit mantissa, in
     * the input GEMM and, under PRNN_TF32_RECURRENCE_MATH, in the standard
     * engine's recurrence: half's tolerance */
    const int tf32 = t == PRNN_DATA_FLOAT && prnn_math_tf32_gemms(r->p->rnn->math);
    const double tol = (t == PRNN_DATA_FLOAT || t == PRNN_DATA_DOUBLE) && !tf32 ? 1e-4 : 3e-2;
    if (!(o->rel_error <= tol)) {
        snprintf(o->note, sizeof(o->note), "rejected: relative error %.3g > %.0e (y %.3g, dx %.3g)",
                 o->rel_error, tol, ey, ex);
        return PRNN_STATUS_EXECUTION_FAILED;
    }
    return PRNN_STATUS_SUCCESS;
}

/* ---- candidates and their plans ---- */

typedef struct {
    const prnn_engine_query *q;
    timing how;
    const prnn_engine *forward_engine; /* TIME_BACKWARD: what fills the reserve */
} search_kind;

/* A plan running candidate c: its engine and configuration in the tuned
 * pass (both with TIME_STEP). */
static prnnStatus_t candidate_plan(const search_kind *k, const prnn_autotune_candidate *c,
                                   prnn_plan **plan)
{
    prnn_engine_choice choice;
    memset(&choice, 0, sizeof(choice));
    choice.config = c->config;
    choice.source = PRNN_CONFIG_AUTOTUNED;
    const prnn_engine_query *q = k->q;
    switch (k->how) {
    case TIME_FORWARD:
        return prnn_plan_with(q->g, q->rnn, q->key.mini_batch, c->engine, &choice, NULL, NULL,
                              plan);
    case TIME_BACKWARD:
        return prnn_plan_with(q->g, q->rnn, q->key.mini_batch, k->forward_engine, NULL, c->engine,
                              &choice, plan);
    case TIME_STEP:
        return prnn_plan_with(q->g, q->rnn, q->key.mini_batch, c->engine, &choice, c->engine,
                              &choice, plan);
    }
    return PRNN_STATUS_INTERNAL_ERROR;
}

/* The engines that run q, in the table's order (only, when given). */
static int engines_running(const prnn_engine_query *q, const prnn_engine *only,
                           const prnn_engine **out)
{
    int n = 0;
    char why[256];
    for (int i = 0; i < prnn_engine_count(); i++) {
        const prnn_engine *e = prnn_engine_at(i);
        if ((!only || e == only) && e->supports(q, why, sizeof(why)) == 0)
            out[n++] = e;
    }
    return n;
}

/* The engines of the search in the planner's order without a tuned
 * choice (by their models' estimates), so that the first engine's first
 * candidate is the library's own choice, the baseline an entry must beat. */
static int search_engines(const prnn_engine_query *q, const prnn_engine *only,
                          const prnn_engine **out)
{
    int n = engines_running(q, only, out);
    prnn_engine_sort_by_estimate(q, out, n);
    return n;
}

static int same_candidate(const prnn_autotune_candidate *a, const prnn_autotune_candidate *b)
{
    return a->engine == b->engine && memcmp(&a->config, &b->config, sizeof(a->config)) == 0;
}

/* Up to max candidates: every engine's first (its heuristic's choice) in
 * the search's order, then the rest of each engine's set in turn. *firsts:
 * how many of them are engines' first candidates. */
static int gather(const prnn_engine_query *q, const prnn_engine *const *engines, int ne,
                  const prnn_autotune_options *o, prnn_autotune_candidate *out, int max,
                  int *firsts)
{
    prnn_engine_config *sets = malloc(sizeof(*sets) * PRNN_AUTOTUNE_MAX_CANDIDATES * ne);
    int counts[16] = {0};
    if (!sets)
        return 0;
    for (int i = 0; i < ne; i++)
        counts[i] = engines[i]->candidates(q, 1, o->max_scratch_bytes,
                                           sets + i * PRNN_AUTOTUNE_MAX_CANDIDATES,
                                           PRNN_AUTOTUNE_MAX_CANDIDATES);
    int m = 0;
    for (int round = 0; m < max; round++) {
        int any = 0;
        for (int i = 0; i < ne && m < max; i++) {
            if (round >= counts[i])
                continue;
            any = 1;
            prnn_autotune_candidate c;
            memset(&c, 0, sizeof(c));
            c.engine = engines[i];
            c.config = sets[i * PRNN_AUTOTUNE_MAX_CANDIDATES + round];
            int dup = 0;
            for (int j = 0; j < m && !dup; j++)
                dup = same_candidate(&out[j], &c);
            if (!dup)
                out[m++] = c;
        }
        if (round == 0)
            *firsts = m;
        if (!any)
            break;
    }
    free(sets);
    return m;
}

static void candidate_text(const prnn_autotune_candidate *c, char *buf, size_t size)
{
    char cfg[256];
    c->engine->format(&c->config, cfg, sizeof(cfg));
    if (c->engine->fields)
        snprintf(buf, size, "%s: %s", c->engine->name, cfg);
    else
        snprintf(buf, size, "%s", c->engine->name);
}

/* The library's own choice (cand[0]) and the winner timed again in
 * alternation (prnn_autotune_alternate); the report and the decision use
 * these figures. The winner must beat it here too, or it is kept: an
 * autotuned entry is never slower than what the library would have chosen
 * without it. */
typedef struct {
    const search_kind *k;
    const prnn_autotune_candidate *pair[2];
    const prnn_rnn_problem *pt;
    prnn_autotune_buffers *d;
    int repeats;
    int calls;
} alternation;

static prnnStatus_t time_one(void *ctx, int k, double *us)
{
    const alternation *a = ctx;
    prnn_plan *plan;
    PRNN_TRY(candidate_plan(a->k, a->pair[k], &plan));
    candidate_run r = {a->k->q->g, plan, a->k->how, a->pt, a->d, a->calls};
    prnnStatus_t s = run_candidate(&r, a->repeats, 2, us);
    prnn_plan_free(plan);
    return s;
}

static prnnStatus_t remeasure(const search_kind *k, const prnn_rnn_problem *pt,
                              prnn_autotune_buffers *d, int repeats, int calls,
                              prnn_autotune_report *report)
{
    alternation a = {k, {&report->cand[0], &report->cand[report->best]}, pt, d, repeats, calls};
    double us[2];
    PRNN_TRY(prnn_autotune_alternate(time_one, &a, us));
    report->heuristic_us = us[0];
    if (!prnn_autotune_settle(us, &report->cand[0].out, &report->cand[report->best].out))
        report->best = 0;
    return PRNN_STATUS_SUCCESS;
}

/* The tuned pass's engine and configuration as the options name them
 * (the planner's choice), as a candidate: 1, or 0 when they name none
 * (or the search is of another engine only). */
static int planner_choice(const prnn_autotune_options *o, const prnn_engine *only,
                          prnn_autotune_candidate *c)
{
    const prnn_engine *e = o->pass_engine ? prnn_engine_find(o->pass_engine) : NULL;
    char err[256];
    if (!e || (only && e != only))
        return 0;
    memset(c, 0, sizeof(*c));
    c->engine = e;
    if (e->fields && (!o->pass_config || prnn_config_parse(e->fields, o->pass_config, &c->config,
                                                           sizeof(c->config), err, sizeof(err))))
        return 0;
    return 1;
}

/* c among the engines' first candidates (never skipped by the budget),
 * unless chosen has it already. When the set is full, the last candidate
 * gives way: one that is no engine's first, else the last engine's first
 * (chosen[0], the models' choice, always stays). */
static void add_first(prnn_autotune_candidate *chosen, int *m, int *firsts, int max,
                      const prnn_autotune_candidate *c)
{
    for (int j = 0; j < *m; j++)
        if (same_candidate(&chosen[j], c))
            return;
    if (*m == max) {
        if (*firsts == *m && *m > 1) {
            chosen[*m - 1] = *c; /* every place an engine's first */
            return;
        }
        if (*firsts == *m)
            return; /* max 1: the models' choice alone */
        (*m)--;
    }
    memmove(&chosen[*firsts + 1], &chosen[*firsts], sizeof(*chosen) * (size_t)(*m - *firsts));
    chosen[(*firsts)++] = *c;
    (*m)++;
}

/* Steps the short bucket's limit is measured at, beside
 * PRNN_TUNING_SHORT_SEQ. */
#define SHORT_LIMIT_SEQ PRNN_TUNING_MAX_SHORT_SEQ

/*
 * The short bucket's limit: the pass's own choice `own` and the winner w,
 * timed in alternation on calls of PRNN_TUNING_SHORT_SEQ and of
 * SHORT_LIMIT_SEQ steps; each call's time is taken as linear in its steps
 * between the two, and *max_seq is the last length where w's is lower
 * (SHORT_LIMIT_SEQ when it still is there). *own_wins when own is the
 * faster at PRNN_TUNING_SHORT_SEQ too (the entry then names own). The
 * alternated times at PRNN_TUNING_SHORT_SEQ replace w's and (own_out,
 * when not NULL) own's outcomes' times: the report and the entry use them.
 */
static prnnStatus_t short_limit(const search_kind *k, const prnn_autotune_candidate *own,
                                prnn_autotune_outcome *own_out, prnn_autotune_candidate *w,
                                const prnn_rnn_problem *pt, prnn_autotune_buffers *d,
                                const prnn_autotune_options *o, int *max_seq, int *own_wins)
{
    *max_seq = PRNN_TUNING_SHORT_SEQ;
    *own_wins = 0;
    if (!own || same_candidate(own, w))
        return PRNN_STATUS_SUCCESS;
    const prnn_cuda_driver *cu = k->q->g->gs->cu;
    double at_short[2], at_long[2];
    alternation a = {k, {own, w}, pt, d, o->repeats, calls_per_run(o)};
    PRNN_TRY(prnn_autotune_alternate(time_one, &a, at_short));
    w->out.us_per_step = at_short[1];
    if (own_out)
        own_out->us_per_step = at_short[0];
    /* w's lead a call (µs) at each length */
    const double lead_short = (at_short[0] - at_short[1]) * PRNN_TUNING_SHORT_SEQ;
    if (!(lead_short > 0)) {
        *own_wins = 1;
        return PRNN_STATUS_SUCCESS;
    }
    prnn_autotune_inputs in;
    prnn_autotune_buffers dl;
    memset(&dl, 0, sizeof(dl));
    prnnStatus_t s =
        prnn_autotune_inputs_make(k->q->rnn, k->q->key.mini_batch, SHORT_LIMIT_SEQ, &in);
    if (!s)
        s = prnn_autotune_inputs_upload(cu, &in, k->q->key.dtype, &dl);
    alternation al = {k, {own, w}, &in.timed, &dl, o->repeats, 1};
    if (!s)
        s = prnn_autotune_alternate(time_one, &al, at_long);
    prnn_autotune_free_buffers(cu, &dl);
    prnn_autotune_inputs_free(&in);
    if (s)
        return s;
    const double lead_long = (at_long[0] - at_long[1]) * SHORT_LIMIT_SEQ;
    if (lead_long >= 0) {
        *max_seq = SHORT_LIMIT_SEQ;
    } else {
        double t = PRNN_TUNING_SHORT_SEQ + (SHORT_LIMIT_SEQ - PRNN_TUNING_SHORT_SEQ) * lead_short /
                                               (lead_short - lead_long);
        *max_seq = t >= SHORT_LIMIT_SEQ ? SHORT_LIMIT_SEQ : (int)t;
    }
    return PRNN_STATUS_SUCCESS;
}

static prnnStatus_t search(const prnn_engine_query *q, const prnn_engine *only,
                           const prnn_autotune_options *opts_in, prnn_autotune_result *best,
                           prnn_autotune_report *report)
{
    struct prnn_gpu_state *gs = q->gs;
    const prnn_cuda_driver *cu = gs->cu;
    prnn_autotune_options opts;
    resolve(opts_in, &opts);
    memset(report, 0, sizeof(*report));
    report->best = -1;
    const double t_start = prnn_autotune_now_s();

    const prnn_engine *engines[16];
    int ne = search_engines(q, only, engines);
    search_kind k = {q, q->pass == PRNN_PASS_FORWARD ? TIME_FORWARD : TIME_BACKWARD, NULL};
    if (ne && engines[0]->one_config)
        k.how = TIME_STEP;
    const prnn_seq_bucket bucket = opts.seq_bucket;
    if (bucket != PRNN_SEQ_BUCKET_ANY && k.how == TIME_STEP)
        return prnn_fail(PRNN_STATUS_NOT_SUPPORTED,
                         "autotune: no %s sequence-length bucket is tuned for %s (one "
                         "configuration runs both passes and every length)",
                         prnn_seq_bucket_name(bucket), prnn_mode_name(q->key.mode));
    /* a bucket's order: by the modelled cost of its calls, the baseline
     * (cand[0]) the engine the models rank first for such a call */
    if (bucket != PRNN_SEQ_BUCKET_ANY)
        prnn_engine_sort_by_call_cost(q, engines, ne, opts.seq_length);
    if (k.how == TIME_BACKWARD) {
        /* the engine that fills the reserve: the table's last that runs
         * the forward pass. Since the step engine joined the table that is
         * the step engine wherever the algorithm is AUTO, the slowest at
         * T = 256 by its own model (LSTM f16 H 2048 B 256: 1077 against
         * the standard engine's 43 us/step), which the time budget pays
         * for; choosing the standard engine here is for a session with a
         * GPU to validate. */
        prnn_engine_query fq = *q;
        fq.pass = PRNN_PASS_FORWARD;
        const prnn_engine *fwd[16];
        int nf = engines_running(&fq, NULL, fwd);
        k.forward_engine = nf ? fwd[nf - 1] : NULL;
    }
    prnn_autotune_candidate chosen[PRNN_AUTOTUNE_MAX_CANDIDATES];
    int firsts = 0;
    int m = ne ? gather(q, engines, ne, &opts, chosen, opts.max_candidates, &firsts) : 0;
    prnn_autotune_candidate own; /* the pass's own choice for every length */
    const int have_own = bucket != PRNN_SEQ_BUCKET_ANY && m && planner_choice(&opts, only, &own);
    if (have_own)
        add_first(chosen, &m, &firsts, opts.max_candidates, &own);
    if (!m)
        return prnn_fail(PRNN_STATUS_NOT_SUPPORTED,
                         "autotune: no %s%s configuration fits %s hidden %d batch %d",
                         only ? only->name : "", only ? "" : "engine's",
                         prnn_mode_name(q->key.mode), q->key.hidden, q->key.mini_batch);

    /* Fill the disk cache in parallel; loading below then reads it. */
    PRNN_TRY(prnn_autotune_precompile(q, chosen, m));

    prnn_autotune_inputs in;
    check_data cd;
    memset(&cd, 0, sizeof(cd));
    prnn_autotune_buffers d;
    memset(&d, 0, sizeof(d));
    prnnStatus_t s = prnn_autotune_inputs_make(q->rnn, q->key.mini_batch, opts.seq_length, &in);
    const prnn_rnn_problem *pc = &in.check, *pt = &in.timed;
    if (!s)
        s = make_check(&in, k.how, &cd);
    if (!s)
        s = prnn_autotune_inputs_upload(cu, &in, q->key.dtype, &d);

    for (int i = 0; i < m && !s; i++) {
        prnn_autotune_candidate *c = &report->cand[report->count++];
        *c = chosen[i];
        char text[320];
        candidate_text(c, text, sizeof(text));
        /* the budget never skips an engine's first candidate: one slow
         * engine's timing must not leave the others untried */
        if (i >= firsts && prnn_autotune_now_s() - t_start > opts.budget_s) {
            snprintf(c->out.note, sizeof(c->out.note), "skipped: time budget spent");
            continue;
        }
        prnn_plan *plan = NULL;
        int rejected = 0;
        prnnStatus_t cs = candidate_plan(&k, c, &plan);
        if (cs == PRNN_STATUS_SUCCESS) {
            candidate_run rc = {q->g, plan, k.how, pc, &d, 1};
            cs = check(&rc, &cd, &c->out);
            rejected = cs == PRNN_STATUS_EXECUTION_FAILED && c->out.note[0];
            candidate_run rt = {q->g, plan, k.how, pt, &d, calls_per_run(&opts)};
            if (!cs)
                /* The first timing of a key also brings the clocks up
                 * from idle (a few ms of work). */
                cs = run_candidate(&rt, opts.repeats, i == 0 ? 40 : 2, &c->out.us_per_step);
        }
        prnn_plan_free(plan);
        int now_best;
        s = prnn_autotune_finish(&opts, i, m, cs, rejected, text, &c->out,
                                 report->best < 0 ? NULL : &report->cand[report->best].out,
                                 &now_best, &report->heuristic_us);
        if (now_best)
            report->best = report->count - 1;
    }
    if (!s && report->best > 0 && report->cand[0].out.ok)
        s = remeasure(&k, pt, &d, opts.repeats, calls_per_run(&opts), report);
    int max_seq = bucket == PRNN_SEQ_BUCKET_ONE ? 1 : 0;
    if (!s && bucket == PRNN_SEQ_BUCKET_SHORT && report->best >= 0) {
        int own_wins = 0, own_at = -1;
        for (int i = 0; have_own && i < report->count; i++)
            if (same_candidate(&report->cand[i], &own) && report->cand[i].out.ok)
                own_at = i;
        /* the pass's own choice is the reference only where it ran and
         * was right here */
        const int w_at = report->best;
        s = short_limit(&k, own_at >= 0 ? &own : NULL,
                        own_at >= 0 ? &report->cand[own_at].out : NULL, &report->cand[w_at], pt, &d,
                        &opts, &max_seq, &own_wins);
        if (own_wins)
            report->best = own_at;
        /* candidate 0's time, where it is one of the two just alternated */
        if (own_at == 0 || w_at == 0)
            report->heuristic_us = report->cand[0].out.us_per_step;
    }
    report->max_seq_length = max_seq;
    prnn_autotune_free_buffers(cu, &d);
    prnn_autotune_inputs_free(&in);
    free_check(&cd);
    report->seconds = prnn_autotune_now_s() - t_start;
    if (s)
        return s;
    if (report->best < 0)
        return prnn_fail(
            PRNN_STATUS_NOT_SUPPORTED,
            "autotune: none of %d %s candidates for %s hidden %d batch %d ran correctly", m,
            prnn_pass_name(q->pass), prnn_mode_name(q->key.mode), q->key.hidden, q->key.mini_batch);
    const prnn_autotune_candidate *w = &report->cand[report->best];
    best->engine = w->engine;
    best->config = w->config;
    best->us_per_step = w->out.us_per_step;
    prnn_tuning_key key = prnn_plan_tuning_key(&gs->info, &q->key, q->pass);
    key.seq_bucket = bucket;
    prnn_tuning_entry e;
    prnn_tuning_entry_from_key(&e, &key);
    if (max_seq)
        e.max_seq_length = max_seq;
    snprintf(e.engine, sizeof(e.engine), "%s", w->engine->name);
    e.config = w->config;
    e.us_per_step = w->out.us_per_step;
    return prnn_autotune_store(opts.output_db, &e, opts.seq_length, report->heuristic_us);
}

prnnStatus_t prnn_autotune_engine(const prnn_engine_query *q, const prnn_engine *e,
                                  const prnn_autotune_options *opts, prnn_autotune_result *best,
                                  prnn_autotune_report *report)
{
    prnn_autotune_report local;
    /* An engine whose one configuration serves both passes is tuned (and
     * stored) under pass forward. */
    prnn_engine_query tq = *q;
    if (e && e->one_config)
        tq.pass = PRNN_PASS_FORWARD;
    /* Timed on packed calls (prnn_plan_with's plans) with their kernels,
     * which a plan of unpacked data's configuration is the same for: the
     * search compiles ahead what it times. */
    tq.key.caller_rows = 0;
    /* Everything here runs with the handle's context current, pushed here
     * once: the tool calls this from a thread that has none (the planner
     * already has it pushed; pushes nest). */
    prnnStatus_t s = prnn_gpu_enter(q->gs);
    if (s)
        return s;
    s = search(&tq, e, opts, best, report ? report : &local);
    prnn_gpu_leave(q->gs);
    return s;
}

prnnStatus_t prnn_autotune_pass(const prnn_gpu_call *g, const struct prnnRNNStruct *rnn,
                                int mini_batch, prnn_pass pass, const prnn_engine *e,
                                const prnn_autotune_options *opts, prnn_autotune_result *best,
                                prnn_autotune_report *report)
{
    prnn_engine_query q;
    memset(&q, 0, sizeof(q));
    q.g = g;
    q.gs = g->gs;
    q.rnn = rnn;
    prnn_rnn_key_of(rnn, mini_batch, &q.key);
    q.pass = pass;
    return prnn_autotune_engine(&q, e, opts, best, report);
}
