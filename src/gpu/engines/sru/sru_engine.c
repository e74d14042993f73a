/*
 * The SRU scan engine's row of the engine table: SRU only, whatever the
 * algorithm (there is no recurrent matrix to keep on-chip); its
 * configuration is the scan's block size, units per thread and steps in
 * flight (tile_config.h: prnn_sru_config), one for both passes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checked_size.h"
#include "dtype.h"
#include "error.h"
#include "gpu/engines/sru/sru.h"
#include "gpu/run/gpu_state.h"
#include "gpu/run/run_kernels.h"
#include "gpu/run/workspace_layout.h"

static int supports(const prnn_engine_query *q, char *why, size_t n)
{
    if (!prnn_cell_traits(q->key.mode)->scan) {
        snprintf(why, n, "it runs SRU only");
        return -1;
    }
    return 0;
}

static int fits(const prnn_engine_query *q, const prnn_engine_config *c, char *why, size_t n)
{
    if (prnn_sru_config_check(&c->sru, why, n))
        return -1;
    return prnn_sru_config_fits_device(&c->sru, q->key.dtype, &q->gs->info, why, n);
}

/* The autotuner's grid after the heuristic's choice, in this order: first
 * the deeper rings that shared memory allows on sm_80 and newer, then the
 * register ring's (the ones bench/NOTES.md found to matter first); those a
 * device cannot run are left out (fits). */
static const prnn_sru_config grid[] = {
    {128, 2, 16}, {128, 2, 8},  {128, 1, 16}, {128, 2, 32}, {128, 1, 32}, {128, 4, 8}, {256, 4, 4},
    {64, 2, 16},  {256, 2, 16}, {128, 4, 16}, {128, 1, 8},  {256, 4, 8},  {128, 1, 4}, {128, 2, 4},
    {256, 4, 2},  {128, 1, 2},  {128, 4, 2},  {256, 1, 4},  {256, 2, 4},  {128, 4, 4}, {256, 1, 8},
    {128, 2, 2},  {128, 8, 2},  {256, 8, 2},  {64, 1, 4},
};

static int same_config(const prnn_sru_config *a, const prnn_sru_config *b)
{
    return a->threads == b->threads && a->units_per_thread == b->units_per_thread &&
           a->steps_in_flight == b->steps_in_flight;
}

static int candidates(const prnn_engine_query *q, int search, size_t max_scratch,
                      prnn_engine_config *out, int max)
{
    (void)max_scratch;
    if (max < 1)
        return 0;
    int m = 0;
    memset(&out[0], 0, sizeof(out[0]));
    prnn_heuristic_sru(&q->key, &q->gs->info, &out[m++].sru);
    for (size_t i = 0; search && i < sizeof(grid) / sizeof(grid[0]) && m < max; i++) {
        if (same_config(&grid[i], &out[0].sru))
            continue;
        memset(&out[m], 0, sizeof(out[m]));
        out[m].sru = grid[i];
        char why[200];
        if (!fits(q, &out[m], why, sizeof(why)))
            m++;
    }
    return m;
}

/* SRU's only engine: nothing to order it against. */
static double estimate(const prnn_engine_query *q)
{
    (void)q;
    return 1.0;
}

static double call_setup(const prnn_engine_query *q)
{
    (void)q;
    return 0.0;
}

static void format(const prnn_engine_config *c, char *buf, size_t size)
{
    char text[96];
    prnn_config_format(prnn_sru_fields, &c->sru, text, sizeof(text));
    snprintf(buf, size, "sru-scan %s", text);
}

/* One module serves both passes, inference and training. */
static int requests(const prnn_engine_query *q, const prnn_engine_config *c, int training,
                    prnn_kernel_request *out)
{
    (void)training;
    const prnn_sru_config *s = &c->sru;
    char why[200];
    if (fits(q, c, why, sizeof(why)))
        return -1;
    return prnn_request_sru(q->key.dtype, q->key.hidden, s, q->gs->info.sm, out) ? -1 : 1;
}

static prnnStatus_t load(const prnn_engine_query *q, const prnn_sru_config *cfg,
                         prnn_load_stats *stats, prnn_sru_kernels *k)
{
    k->threads = cfg->threads;
    k->upt = cfg->units_per_thread;
    k->depth = cfg->steps_in_flight;
    prnn_kernel_request r;
    const prnn_named_fn fns[] = {
        {"prnn_sru_forward_m3", &k->forward[PRNN_SRU_VARIANT_M3]},
        {"prnn_sru_forward_m4", &k->forward[PRNN_SRU_VARIANT_M4]},
        {"prnn_sru_forward_skip", &k->forward[PRNN_SRU_VARIANT_SKIP]},
        {"prnn_sru_backward_m3", &k->backward[PRNN_SRU_VARIANT_M3]},
        {"prnn_sru_backward_m4", &k->backward[PRNN_SRU_VARIANT_M4]},
        {"prnn_sru_backward_skip", &k->backward[PRNN_SRU_VARIANT_SKIP]},
        {"prnn_sru_vgrad", &k->vgrad},
        {"prnn_sru_input_grad", &k->input_grad},
        {"prnn_sru_keep_input", &k->keep_input},
    };
    prnnStatus_t s = prnn_request_sru(q->key.dtype, q->key.hidden, cfg, q->gs->info.sm, &r);
    PRNN_TRY(prnn_load_functions(q->gs, s, &r, stats, fns, sizeof(fns) / sizeof(fns[0])));
    /* Each scan's ring of steps in flight (sm_80 and newer): dynamic shared
     * memory, raised past the default limit per block where it needs more. */
    for (int v = 0; v < PRNN_SRU_VARIANTS; v++)
        for (int backward = 0; backward <= 1; backward++) {
            const size_t bytes =
                prnn_sru_ring_bytes(cfg, q->key.dtype, q->gs->info.sm, backward, v);
            CUfunction fn = backward ? k->backward[v] : k->forward[v];
            (backward ? k->smem_backward : k->smem_forward)[v] = (unsigned)bytes;
            if (bytes > (size_t)q->gs->info.smem_per_block)
                PRNN_TRY(prnn_cu_check(
                    q->gs->cu->cuFuncSetAttribute(
                        fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)bytes),
                    "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES) of an SRU scan"));
        }
    return PRNN_STATUS_SUCCESS;
}

/* The first valid choice runs: its kernels serve both passes (the
 * backward-data pass plan loads the same module, from memory). */
static prnnStatus_t prepare(const prnn_engine_query *q, const prnn_engine_choice *choices,
                            int count, prnn_pass_plan *pp)
{
    char why[200] = "no configuration";
    for (int i = 0; i < count; i++) {
        if (fits(q, &choices[i].config, why, sizeof(why)))
            continue;
        prnn_sru_kernels *k = calloc(1, sizeof(*k));
        if (!k)
            return prnn_fail(PRNN_STATUS_ALLOC_FAILED, "out of host memory");
        pp->state = k;
        PRNN_TRY(load(q, &choices[i].config.sru, &pp->stats, k));
        format(&choices[i].config, pp->config, sizeof(pp->config));
        prnn_engine_note_choice(pp, &choices[i]);
        pp->loaded = 1;
        return PRNN_STATUS_SUCCESS;
    }
    return prnn_fail(PRNN_STATUS_NOT_SUPPORTED, "no SRU scan configuration: %s", why);
}

/* The scan's kernels serve training as they are: what it needs besides is
 * the side stream for the work sru_run.c overlaps. */
static prnnStatus_t load_training(const prnn_engine_query *q, prnn_pass_plan *pp)
{
    (void)pp;
    return prnn_gpu_side_stream(q->gs);
}

/* The projection (inference; training writes U to the reserve), the layer
 * outputs, dropout, the gradient between layers and dx'. No hand-off: the
 * scan's threads never talk to each other. */
static void workspace(const prnn_pass_plan *pp, const prnn_rnn_problem *p, int call,
                      prnn_ws_builder *b)
{
    (void)pp;
    prnn_ws_layout *l = b->l;
    const prnn_ws_units u = prnn_ws_units_of(p);
    /* every SRU buffer is rows x dirs x H elements (the projection 4 of
     * them), of the data type or the accumulation type */
    const size_t row_units = prnn_mul3_size(u.rows, u.dirs, u.H);
    switch ((prnn_call_kind)call) {
    case PRNN_CALL_INFERENCE:
        l->xproj = prnn_ws_take(b, prnn_mul3_size(row_units, 4, u.acc));
        l->layer_out = u.deep ? prnn_ws_take(b, prnn_mul_size(row_units, u.es)) : (size_t)-1;
        break;
    case PRNN_CALL_FORWARD_TRAINING:
        l->dropped = u.dropout ? prnn_ws_take(b, prnn_mul_size(row_units, u.es)) : (size_t)-1;
        break;
    case PRNN_CALL_BACKWARD_WEIGHTS:
        l->dropped = u.dropout ? prnn_ws_take(b, prnn_mul_size(row_units, u.es)) : (size_t)-1;
        break;
    case PRNN_CALL_BACKWARD_DATA:
        l->dgrad = u.deep ? prnn_ws_take(b, prnn_mul_size(row_units, u.acc)) : (size_t)-1;
        l->engine[PRNN_SRU_WS_DXP] = prnn_ws_take(b, prnn_mul_size(row_units, u.acc));
        break;
    }
}

static void describe(const prnn_pass_plan *pp, const prnn_rnn_key *key, prnn_engine_info *info)
{
    const prnn_sru_kernels *k = pp->state;
    memset(info, 0, sizeof(*info));
    info->path = PRNN_PATH_SRU_SCAN;
    if (!k)
        return;
    int per_row = (key->hidden + k->upt - 1) / k->upt;
    long long threads = (long long)key->dirs * key->mini_batch * per_row;
    info->num_blocks = (int)((threads + k->threads - 1) / k->threads);
    info->threads_per_block = k->threads;
    info->units_per_block = k->threads * k->upt;
}

const prnn_engine prnn_sru_engine = {
    .name = "sru-scan",
    .fields = prnn_sru_fields,
    .force_var = {"PRNN_SRU_TILE", "PRNN_SRU_TILE"},
    .one_config = 1,
    .supports = supports,
    .fits = fits,
    .candidates = candidates,
    .estimate = estimate,
    .call_setup = call_setup,
    .format = format,
    .prepare = prepare,
    .load_training = load_training,
    .requests = requests,
    .workspace = workspace,
    .run = prnn_sru_run,
    .describe = describe,
    .release = prnn_engine_free_state,
};
