#include "gpu/plan/plan_make.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "gpu/run/gpu_state.h"

prnn_engine_query prnn_plan_query(const prnn_gpu_call *g, const struct prnnRNNStruct *rnn,
                                  const prnn_rnn_key *key, prnn_pass pass)
{
    prnn_engine_query q = {g, g->gs, rnn, *key, pass};
    return q;
}

static const char *engine_variable(prnn_pass pass)
{
    const char *back = getenv("PRNN_ENGINE_BACKWARD");
    if (pass == PRNN_PASS_BACKWARD_DATA && back && back[0])
        return "PRNN_ENGINE_BACKWARD";
    return "PRNN_ENGINE";
}

const char *prnn_plan_forced_engine(prnn_pass pass)
{
    const char *name = getenv(engine_variable(pass));
    return name && name[0] ? name : NULL;
}

/* Appends "name: why" to refused (size bytes, "; " between), at *at. */
static void note_refusal(char *refused, size_t size, size_t *at, const char *name, const char *why)
{
    if (!refused || *at >= size)
        return;
    int w = snprintf(refused + *at, size - *at, "%s%s: %s", *at ? "; " : "", name, why);
    if (w > 0)
        *at += (size_t)w;
}

/* The engines in the order a pass tries them: the forced one first. */
int prnn_plan_engine_order(const prnn_engine_query *q, const prnn_engine **order, char *refused,
                           size_t refused_size)
{
    int n = 0;
    size_t at = 0;
    if (refused && refused_size)
        refused[0] = '\0';
    const char *var = engine_variable(q->pass);
    const char *name = prnn_plan_forced_engine(q->pass);
    const prnn_engine *forced = name ? prnn_engine_find(name) : NULL;
    if (name && !forced) {
        char names[256];
        prnn_engine_names(names, sizeof(names));
        prnn_log_append("note: %s=%s ignored: no such engine (%s)", var, name, names);
    }
    char why[256];
    if (forced) {
        if (forced->supports(q, why, sizeof(why)) == 0) {
            order[n++] = forced;
        } else {
            prnn_log_append("note: %s=%s ignored: %s", var, name, why);
            note_refusal(refused, refused_size, &at, forced->name, why);
        }
    }
    for (int i = 0; i < prnn_engine_count(); i++) {
        const prnn_engine *e = prnn_engine_at(i);
        if (e == forced)
            continue;
        if (e->supports(q, why, sizeof(why)) == 0)
            order[n++] = e;
        else
            note_refusal(refused, refused_size, &at, e->name, why);
    }
    return n;
}

/* Engine e's pass plan for q, from its choices (NOT_SUPPORTED when none
 * runs). On failure pp holds nothing. */
prnnStatus_t prnn_plan_prepare_engine(const prnn_engine_query *q, const prnn_engine *e,
                                      const prnn_engine_choice *choices, int count,
                                      prnn_pass_plan *pp)
{
    memset(pp, 0, sizeof(*pp));
    pp->engine = e;
    prnnStatus_t s = e->prepare(q, choices, count, pp);
    if (s) {
        if (pp->state)
            e->release(pp);
        memset(pp, 0, sizeof(*pp));
    }
    return s;
}

prnnStatus_t prnn_plan_with(const prnn_gpu_call *g, const struct prnnRNNStruct *rnn, int mini_batch,
                            const prnn_engine *fwd_engine, const prnn_engine_choice *fwd,
                            const prnn_engine *bwd_engine, const prnn_engine_choice *bwd,
                            prnn_plan **out)
{
    *out = NULL;
    prnn_plan *p = calloc(1, sizeof(*p));
    if (!p)
        return prnn_fail(PRNN_STATUS_ALLOC_FAILED, "out of host memory");
    prnn_rnn_key_of(rnn, mini_batch, &p->key);
    p->hash = prnn_rnn_key_hash(&p->key);
    prnn_engine_query fq = prnn_plan_query(g, rnn, &p->key, PRNN_PASS_FORWARD);
    prnn_engine_query bq = prnn_plan_query(g, rnn, &p->key, PRNN_PASS_BACKWARD_DATA);
    prnnStatus_t s = prnn_gpu_enter(g->gs);
    if (s) {
        free(p);
        return s;
    }
    s = prnn_run_kernels_load(g->gs, &p->kernels, &p->stats);
    const struct {
        const prnn_engine_query *q;
        const prnn_engine *e;
        const prnn_engine_choice *c;
    } passes[PRNN_PASS_COUNT] = {{&fq, fwd_engine, fwd}, {&bq, bwd_engine, bwd}};
    for (int i = 0; i < PRNN_PASS_COUNT && !s; i++) {
        const prnn_engine *e = passes[i].e;
        if (!e)
            continue;
        char why[256];
        if (e->supports(passes[i].q, why, sizeof(why))) {
            s = prnn_fail(PRNN_STATUS_NOT_SUPPORTED, "the %s engine cannot run this shape: %s",
                          e->name, why);
            break;
        }
        prnn_engine_choice c;
        memset(&c, 0, sizeof(c));
        if (passes[i].c) {
            c = *passes[i].c;
        } else if (e->candidates(passes[i].q, 0, 0, &c.config, 1) < 1) {
            s = prnn_fail(PRNN_STATUS_NOT_SUPPORTED,
                          "the %s engine has no configuration for this shape", e->name);
            break;
        } else {
            c.source = PRNN_CONFIG_HEURISTIC;
        }
        s = prnn_plan_prepare_engine(passes[i].q, e, &c, 1, &p->pass[i]);
        if (!s && bwd_engine)
            s = e->load_training(passes[i].q, &p->pass[i]);
    }
    if (!s && bwd_engine)
        s = prnn_run_kernels_load_training(g->gs, rnn->dtype, &p->kernels, &p->stats);
    if (!s)
        s = prnn_plan_start_graphs(p, g->gs->cu);
    if (s)
        prnn_plan_free(p); /* in the context: its engines may hold driver objects */
    prnn_gpu_leave(g->gs);
    if (s)
        return s;
    p->training_loaded = bwd_engine != NULL;
    *out = p;
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnn_plan_call(const prnn_plan *plan, struct prnn_gpu_state *gs,
                            const prnn_rnn_problem *p, prnn_call_kind kind, prnn_call_plan *c)
{
    const prnn_pass_plan *pp = prnn_plan_pass_for(plan, kind, p->seq_length);
    if (!pp->engine)
        return prnn_fail(PRNN_STATUS_INTERNAL_ERROR, "the plan has no engine for the %s pass",
                         prnn_pass_name(prnn_call_pass(kind)));
    if (kind != PRNN_CALL_INFERENCE && !plan->training_loaded)
        return prnn_fail(PRNN_STATUS_INTERNAL_ERROR, "training kernels not loaded");
    prnn_call_plan_fill(c, gs, &plan->kernels, pp, p, kind);
    c->caller_rows = plan->key.caller_rows;
    c->call_graphs = plan->call_graphs;
    c->workspace_bytes = prnn_plan_workspace_bytes(plan, p);
    c->reserve_bytes = c->training ? c->r.total : 0;
    return PRNN_STATUS_SUCCESS;
}
