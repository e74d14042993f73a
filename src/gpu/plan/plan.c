#include "gpu/plan/plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "gpu/run/loop_graph.h"
#include "gpu/run/workspace_layout.h"

void prnn_plan_free(prnn_plan *p)
{
    if (!p)
        return;
    /* the graphs first: they launch the passes' kernels */
    if (p->call_graphs) {
        prnn_loop_graphs_release(p->call_graphs);
        free(p->call_graphs);
    }
    for (int i = 0; i < PRNN_PASS_COUNT; i++)
        if (p->pass[i].engine && p->pass[i].state)
            p->pass[i].engine->release(&p->pass[i]);
    for (int i = 0; i < PRNN_SHORT_SLOTS; i++) {
        prnn_pass_plan *slots[2] = {&p->short_fwd[i].pass, &p->short_bwd[i].pass};
        for (int k = 0; k < 2; k++)
            if (slots[k]->engine && slots[k]->state)
                slots[k]->engine->release(slots[k]);
    }
    if (p->bwd_fallback.engine && p->bwd_fallback.state)
        p->bwd_fallback.engine->release(&p->bwd_fallback);
    free(p);
}

prnnStatus_t prnn_plan_start_graphs(prnn_plan *p, const prnn_cuda_driver *cu)
{
    p->call_graphs = calloc(1, sizeof(*p->call_graphs));
    if (!p->call_graphs)
        return prnn_fail(PRNN_STATUS_ALLOC_FAILED, "out of host memory");
    prnn_loop_graphs_init(p->call_graphs, cu, "PRNN_CALL_GRAPHS");
    return PRNN_STATUS_SUCCESS;
}

/* The short slot of pass (forward or backward-data) that runs calls of
 * seq_length steps, or NULL. */
static const prnn_short_slot *short_slot(const prnn_plan *plan, prnn_pass pass, int seq_length)
{
    const prnn_short_slot *slots = pass == PRNN_PASS_FORWARD         ? plan->short_fwd
                                   : pass == PRNN_PASS_BACKWARD_DATA ? plan->short_bwd
                                                                     : NULL;
    for (int i = 0; slots && i < PRNN_SHORT_SLOTS; i++) {
        const prnn_short_slot *s = &slots[i];
        if (s->max_seq && seq_length <= s->max_seq)
            return s;
    }
    return NULL;
}

const prnn_pass_plan *prnn_plan_pass_for(const prnn_plan *plan, int kind, int seq_length)
{
    prnn_pass pass = prnn_call_pass((prnn_call_kind)kind);
    const prnn_short_slot *s = short_slot(plan, pass, seq_length);
    if (s && s->pass.engine)
        return &s->pass;
    return &plan->pass[pass];
}

size_t prnn_plan_workspace_bytes(const prnn_plan *plan, const prnn_rnn_problem *p)
{
    size_t most = 0;
    for (int k = 0; k < PRNN_CALL_KINDS; k++) {
        const prnn_pass_plan *pp = prnn_plan_pass_for(plan, k, p->seq_length);
        if (!pp->engine)
            continue; /* an inference-only plan (the autotuner's) */
        prnn_ws_layout l;
        prnn_ws_layout_compute(pp, p, (prnn_call_kind)k, &l);
        if (l.total > most) /* PRNN_SIZE_OVERFLOW is the largest */
            most = l.total;
    }
    /* the passes that may run backward-data calls of this length should
     * the chosen one not load: the fallback; and, before the training
     * kernels load (a slot whose kernels cannot load is cleared, and the
     * next slot that covers the length, or the pass, runs it), the pass's
     * engine and every slot that covers the length */
    const prnn_pass_plan *alt[2 + PRNN_SHORT_SLOTS];
    int nalt = 0;
    if (plan->bwd_fallback.engine && !plan->pass[PRNN_PASS_BACKWARD_DATA].loaded)
        alt[nalt++] = &plan->bwd_fallback;
    if (!plan->training_loaded) {
        alt[nalt++] = &plan->pass[PRNN_PASS_BACKWARD_DATA];
        for (int i = 0; i < PRNN_SHORT_SLOTS; i++) {
            const prnn_short_slot *s = &plan->short_bwd[i];
            if (s->max_seq && p->seq_length <= s->max_seq)
                alt[nalt++] = &s->pass;
        }
    }
    for (int i = 0; i < nalt; i++) {
        if (!alt[i]->engine)
            continue;
        prnn_ws_layout l;
        prnn_ws_layout_compute(alt[i], p, PRNN_CALL_BACKWARD_DATA, &l);
        if (l.total > most)
            most = l.total;
    }
    return most;
}

static void merge(prnn_load_stats *into, const prnn_load_stats *s)
{
    if (s->cubin_source > into->cubin_source)
        into->cubin_source = s->cubin_source;
    into->compile_ms += s->compile_ms;
}

prnn_load_stats prnn_plan_load_stats(const prnn_plan *plan)
{
    prnn_load_stats all = plan->stats;
    for (int i = 0; i < PRNN_PASS_COUNT; i++)
        merge(&all, &plan->pass[i].stats);
    for (int i = 0; i < PRNN_SHORT_SLOTS; i++) {
        merge(&all, &plan->short_fwd[i].pass.stats);
        merge(&all, &plan->short_bwd[i].pass.stats);
    }
    return all;
}

prnn_tuning_key prnn_plan_tuning_key(const prnn_device_info *dev, const prnn_rnn_key *key,
                                     prnn_pass pass)
{
    prnn_tuning_key k;
    memset(&k, 0, sizeof(k));
    k.gpu_name = dev->name;
    k.cc_major = dev->cc_major;
    k.cc_minor = dev->cc_minor;
    k.sm_count = dev->sm_count;
    k.rnn = *key;
    k.pass = pass;
    return k;
}

/* Where plan info lists one pass's short slots. */
typedef struct {
    int *count;
    int *max_seq;
    char (*engine)[32];
    prnnConfigSource_t *source;
    char (*config)[256];
} slot_fields;

/* The used slots of one pass into o, in the order calls try them (runs:
 * the pass plan that runs a slot without a pass of its own, a
 * measurement's choice of the pass's engine). */
static void slot_info(const prnn_short_slot slots[PRNN_SHORT_SLOTS], const prnn_pass_plan *runs,
                      const slot_fields *o)
{
    for (int i = 0; i < PRNN_SHORT_SLOTS; i++) {
        const prnn_short_slot *slot = &slots[i];
        if (!slot->max_seq)
            continue;
        const prnn_pass_plan *r = slot->pass.engine ? &slot->pass : runs;
        const int k = (*o->count)++;
        o->max_seq[k] = slot->max_seq;
        snprintf(o->engine[k], sizeof(o->engine[k]), "%s", r->engine->name);
        snprintf(o->config[k], sizeof(o->config[k]), "%s", r->config);
        o->source[k] = slot->pass.source;
    }
}

/* The engine and length of the slot of pass that runs calls of two steps
 * with an engine of its own ("" and 0 when the pass's engine runs them). */
static void two_step_slot(const prnn_plan *plan, prnn_pass pass, char engine[32], int *max_seq)
{
    const prnn_short_slot *two = short_slot(plan, pass, 2);
    if (two && two->pass.engine) {
        snprintf(engine, 32, "%s", two->pass.engine->name);
        *max_seq = two->max_seq;
    }
}

void prnn_plan_info(const prnn_plan *plan, const char *device, prnnRNNPlanInfo_t *info)
{
    prnnRNNPlanInfo_t full;
    memset(&full, 0, sizeof(full));
    full.structSize = info->structSize;
    const prnn_pass_plan *f = &plan->pass[PRNN_PASS_FORWARD];
    const prnn_pass_plan *b = &plan->pass[PRNN_PASS_BACKWARD_DATA];
    prnn_engine_info fi, bi;
    f->engine->describe(f, &plan->key, &fi);
    b->engine->describe(b, &plan->key, &bi);
    prnn_load_stats stats = prnn_plan_load_stats(plan);
    full.path = fi.path;
    full.configSource = f->source;
    full.cubinSource = stats.cubin_source;
    full.numBlocks = fi.num_blocks;
    full.threadsPerBlock = fi.threads_per_block;
    full.unitsPerBlock = fi.units_per_block;
    full.tensorCores = fi.tensor_cores;
    full.residentFraction = fi.resident_fraction;
    full.compileMs = stats.compile_ms;
    full.planMs = plan->plan_ms;
    snprintf(full.config, sizeof(full.config), "%s", f->config);
    snprintf(full.device, sizeof(full.device), "%s", device);
    /* The backward-data pass: what runs once training is prepared, else
     * what was chosen for it. */
    full.trainingPrepared = plan->training_loaded;
    full.backwardPath = bi.path;
    full.backwardConfigSource = b->source;
    full.backwardNumBlocks = bi.num_blocks;
    snprintf(full.backwardConfig, sizeof(full.backwardConfig), "%s", b->config);
    snprintf(full.engine, sizeof(full.engine), "%s", f->engine->name);
    snprintf(full.backwardEngine, sizeof(full.backwardEngine), "%s", b->engine->name);
    snprintf(full.configTunedOn, sizeof(full.configTunedOn), "%s", f->tuned_on);
    /* the short slots, in the order calls try them */
    const slot_fields fwd_slots = {&full.shortSlots, full.shortSlotMaxSeqLength,
                                   full.shortSlotEngine, full.shortSlotConfigSource,
                                   full.shortSlotConfig};
    const slot_fields bwd_slots = {&full.backwardShortSlots, full.backwardShortSlotMaxSeqLength,
                                   full.backwardShortSlotEngine, full.backwardShortSlotConfigSource,
                                   full.backwardShortSlotConfig};
    slot_info(plan->short_fwd, f, &fwd_slots);
    slot_info(plan->short_bwd, b, &bwd_slots);
    snprintf(full.singleStepEngine, sizeof(full.singleStepEngine), "%s",
             prnn_plan_pass_for(plan, PRNN_CALL_INFERENCE, 1)->engine->name);
    snprintf(full.backwardSingleStepEngine, sizeof(full.backwardSingleStepEngine), "%s",
             prnn_plan_pass_for(plan, PRNN_CALL_BACKWARD_DATA, 1)->engine->name);
    two_step_slot(plan, PRNN_PASS_FORWARD, full.shortEngine, &full.shortMaxSeqLength);
    two_step_slot(plan, PRNN_PASS_BACKWARD_DATA, full.backwardShortEngine,
                  &full.backwardShortMaxSeqLength);
    const prnn_loop_graphs *cg = plan->call_graphs;
    full.callGraphs = cg && cg->capture;
    full.callGraphsCaptured = cg ? cg->captured : 0;
    full.callGraphReplays = cg ? cg->replays : 0;
    size_t n = info->structSize < sizeof(full) ? info->structSize : sizeof(full);
    memcpy(info, &full, n);
}
