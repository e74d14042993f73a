#include "gpu/plan_select.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "gpu/autotune.h"
#include "gpu/gpu_state.h"
#include "gpu/heuristic.h"
#include "gpu/plan_log.h"
#include "jit/nvrtc_compile.h"
#include "tuning/tuning_db.h"

typedef struct {
    const prnn_kernel_shape *shape;
    const prnn_device_info *dev;
    int use_mma;
} fits_ctx;

/* The tuning database's fits callback: a stored tile must still fit this
 * device and shape (and respect the math type). */
static int tile_fits(const prnn_tile_config *config, void *ctx, char *why, size_t n)
{
    const fits_ctx *f = ctx;
    prnn_kernel_geometry g;
    if (config->mma && !f->use_mma) {
        snprintf(why, n, "tensor cores not allowed for this math type or device");
        return -1;
    }
    return prnn_kernel_geometry_compute(f->shape, config, f->dev, &g, why, n) ? -1 : 0;
}

static const char *forcing_variable(prnn_pass pass)
{
    return pass == PRNN_PASS_FORWARD ? "PRNN_TILE" : "PRNN_TILE_BACKWARD";
}

/* The tile forced for this pass, if any and if it can run: 1, 0 otherwise. */
static int forced_tile(const prnn_kernel_shape *shape, const prnn_device_info *dev, int use_mma,
                       prnn_kernel_geometry *out)
{
    const char *var = forcing_variable(shape->pass);
    const char *text = getenv(var);
    if (!text || !text[0])
        return 0;
    prnn_tile_config t;
    char err[256];
    if (prnn_tile_config_parse(text, &t, err, sizeof(err)))
        prnn_log_append("note: %s ignored: %s", var, err);
    else if (t.mma && !use_mma)
        prnn_log_append("note: %s ignored: tensor cores not allowed here", var);
    else if (prnn_kernel_geometry_compute(shape, &t, dev, out, err, sizeof(err)))
        prnn_log_append("note: %s ignored: %s", var, err);
    else
        return 1;
    return 0;
}

/* A pass's candidate tiles in order of preference: forced, tuning DB (or,
 * with may_autotune and no exact entry, the autotuner's winner), then the
 * heuristic's. *settled: the first is forced or an exact DB entry, which
 * autotuning must not replace; *forced: the first is forced. */
static prnnStatus_t candidates(const prnn_gpu_call *g, const struct prnnRNNStruct *rnn,
                               int mini_batch, prnn_pass pass, int may_autotune,
                               prnn_kernel_geometry *cand, prnnConfigSource_t *src, int max,
                               int *count, int *settled, int *forced)
{
    struct prnn_gpu_state *gs = g->gs;
    prnn_kernel_shape shape;
    prnn_plan_shape(rnn, mini_batch, 0, pass, &shape);
    int use_mma = prnn_plan_use_mma(rnn, &gs->info);
    char why[256];
    int n = 0;
    *settled = *forced = 0;
    if (forced_tile(&shape, &gs->info, use_mma, &cand[n])) {
        src[n++] = PRNN_CONFIG_USER_DB;
        *settled = *forced = 1;
    }
    prnn_tuning_key key = prnn_plan_tuning_key(&gs->info, rnn, mini_batch, pass);
    fits_ctx fc = {&shape, &gs->info, use_mma};
    /* A forced tile replaces the lookup (and the autotuner); the heuristic's
     * candidates still follow it. */
    prnn_tuning_result found;
    prnn_kernel_geometry from_db;
    int in_db = !n && prnn_tuning_lookup(&key, tile_fits, &fc, &found) == 1 &&
                prnn_kernel_geometry_compute(&shape, &found.entry.config, &gs->info, &from_db,
                                             why, sizeof(why)) == 0;
    int exact = in_db && found.exact;
    /* With autotuning on, only an exact entry spares the search: a nearest
     * entry is a guess for another shape. */
    if (in_db && (exact || !may_autotune) && n < max) {
        cand[n] = from_db;
        src[n++] = found.source;
        *settled = exact;
    }
    if (!n && may_autotune) {
        prnn_tile_config best;
        prnnStatus_t s = prnn_autotune_shape(g, rnn, mini_batch, pass, NULL, &best, NULL);
        if (s)
            return s;
        if (prnn_kernel_geometry_compute(&shape, &best, &gs->info, &cand[n], why, sizeof(why)) == 0)
            src[n++] = PRNN_CONFIG_AUTOTUNED;
    }
    int heur = prnn_heuristic_candidates(&shape, &gs->info, use_mma, &cand[n], max - n);
    for (int i = 0; i < heur; i++)
        src[n + i] = PRNN_CONFIG_HEURISTIC;
    *count = n + heur;
    return PRNN_STATUS_SUCCESS;
}

static prnnRNNPath_t tile_path(const prnn_kernel_geometry *g)
{
    return g->kglb ? PRNN_PATH_PERSISTENT_STREAMED : PRNN_PATH_PERSISTENT_RESIDENT;
}

static size_t scratch_bytes(const prnn_kernel_geometry *g)
{
    return g->exchange_bytes_per_dir + g->packed_bytes_per_dir;
}

/* What the planning log says beyond the plan's own fields: whether the
 * tile that runs was forced (the plan records a forced tile as a user DB
 * entry). */
typedef struct {
    int fwd_forced, bwd_forced;
} plan_notes;

/* The backward-data candidates: chosen now (they size the workspace),
 * loaded with the training kernels. Later ones are kept only if they need
 * no more workspace than the first. */
static prnnStatus_t choose_backward(const prnn_gpu_call *g, const struct prnnRNNStruct *rnn,
                                    prnn_plan *p, plan_notes *notes)
{
    prnn_kernel_geometry cand[PRNN_PLAN_BWD_CANDIDATES];
    prnnConfigSource_t src[PRNN_PLAN_BWD_CANDIDATES];
    int n = 0;
    p->n_bwd_cand = 0;
    if (rnn->algo == PRNN_RNN_ALGO_STANDARD)
        return PRNN_STATUS_SUCCESS;
    prnnStatus_t s = candidates(g, rnn, p->mini_batch, PRNN_PASS_BACKWARD_DATA, 0, cand, src,
                                PRNN_PLAN_BWD_CANDIDATES, &n, &p->bwd_settled,
                                &notes->bwd_forced);
    if (s)
        return s;
    for (int i = 0; i < n; i++) {
        if (p->n_bwd_cand && scratch_bytes(&cand[i]) > scratch_bytes(&p->bwd_cand[0]))
            continue;
        p->bwd_cand[p->n_bwd_cand] = cand[i];
        p->bwd_cand_src[p->n_bwd_cand++] = src[i];
    }
    p->bwd_path = p->n_bwd_cand ? tile_path(&p->bwd_cand[0]) : PRNN_PATH_STANDARD;
    return PRNN_STATUS_SUCCESS;
}

/* The SRU configuration PRNN_SRU_TILE forces, if any and valid: 1, else 0
 * (a bad one is reported in the log and ignored). */
static int forced_sru(prnn_sru_config *out)
{
    const char *text = getenv("PRNN_SRU_TILE");
    if (!text || !text[0])
        return 0;
    char err[200];
    if (prnn_config_parse(prnn_sru_fields, text, out, sizeof(*out), err, sizeof(err)) ||
        prnn_sru_config_check(out, err, sizeof(err))) {
        prnn_log_append("note: PRNN_SRU_TILE ignored: %s (\"threads=T units_per_thread=U "
                        "steps_in_flight=D\")", err);
        return 0;
    }
    return 1;
}

/*
 * SRU's scan configuration, in order of preference like a pass's tile:
 * PRNN_SRU_TILE (experiments; recorded as a user DB entry, like a forced
 * PRNN_TILE), the tuning databases' entry (mode sru, pass forward: one
 * configuration compiles both scans; a nearest one only within
 * PRNN_TUNING_NEAREST_MAX_COST_SRU), the
 * autotuner's winner when the call autotunes and no exact entry exists,
 * else the heuristic's (prnn_heuristic_sru). SRU has no per-step path: its
 * GEMMs and scan run whatever the configuration.
 */
static prnnStatus_t make_sru_plan(const prnn_gpu_call *g, const struct prnnRNNStruct *rnn,
                                  int mini_batch, prnn_plan *p)
{
    struct prnn_gpu_state *gs = g->gs;
    prnn_sru_config cfg;
    prnnConfigSource_t src = PRNN_CONFIG_USER_DB;
    int chosen = forced_sru(&cfg);
    if (!chosen) {
        prnn_tuning_key key =
            prnn_plan_tuning_key(&gs->info, rnn, mini_batch, PRNN_PASS_FORWARD);
        prnn_tuning_result found;
        if (prnn_tuning_lookup(&key, NULL, NULL, &found) == 1 &&
            (found.exact || g->autotune != PRNN_AUTOTUNE_ON)) {
            cfg = found.entry.sru;
            src = found.source;
            chosen = 1;
        }
    }
    if (!chosen && g->autotune == PRNN_AUTOTUNE_ON) {
        PRNN_TRY(prnn_autotune_sru(g, rnn, mini_batch, NULL, &cfg, NULL));
        src = PRNN_CONFIG_AUTOTUNED;
        chosen = 1;
    }
    if (!chosen) {
        prnn_heuristic_sru(rnn, mini_batch, &gs->info, &cfg);
        src = PRNN_CONFIG_HEURISTIC;
    }
    return prnn_plan_sru(gs, rnn, mini_batch, &cfg, src, 0, p);
}

static prnnStatus_t make_plan(const prnn_gpu_call *g, const struct prnnRNNStruct *rnn,
                              int mini_batch, prnn_plan *p, plan_notes *notes)
{
    struct prnn_gpu_state *gs = g->gs;
    if (rnn->mode == PRNN_SRU)
        return make_sru_plan(g, rnn, mini_batch, p);
    prnn_plan_init(p, rnn, mini_batch);
    prnnStatus_t s = prnn_plan_load_setup(gs, p);
    if (!s)
        s = choose_backward(g, rnn, p, notes);
    if (s)
        return s;
    if (rnn->algo == PRNN_RNN_ALGO_STANDARD) {
        p->path = PRNN_PATH_STANDARD;
        snprintf(p->fwd.config, sizeof(p->fwd.config), "standard");
        return prnn_plan_load_standard(gs, rnn, p);
    }
    enum { MAX_CAND = 4 };
    prnn_kernel_geometry cand[MAX_CAND];
    prnnConfigSource_t src[MAX_CAND];
    int n = 0, settled, forced;
    s = candidates(g, rnn, mini_batch, PRNN_PASS_FORWARD, g->autotune == PRNN_AUTOTUNE_ON, cand,
                   src, MAX_CAND, &n, &settled, &forced);
    if (s)
        return s;
    char why[256] = "";
    for (int i = 0; i < n; i++) {
        s = prnn_plan_load_tile(gs, rnn, &cand[i], src[i], 0, p, &p->fwd);
        if (s == PRNN_STATUS_SUCCESS) {
            p->path = tile_path(&cand[i]);
            notes->fwd_forced = forced && i == 0;
            return s;
        }
        if (s != PRNN_STATUS_NOT_SUPPORTED)
            return s; /* a compile or driver failure is a real error */
        snprintf(why, sizeof(why), "%s", prnn_log_get());
    }
    if (rnn->algo == PRNN_RNN_ALGO_PERSISTENT)
        return prnn_fail(PRNN_STATUS_NOT_SUPPORTED,
                         "PRNN_RNN_ALGO_PERSISTENT: no persistent configuration runs "
                         "%s hidden %d batch %d on %s%s%s", prnn_mode_name(rnn->mode),
                         rnn->hidden, mini_batch, gs->description, why[0] ? ": " : "", why);
    p->path = PRNN_PATH_STANDARD;
    p->fwd.source = PRNN_CONFIG_HEURISTIC;
    snprintf(p->fwd.config, sizeof(p->fwd.config), "standard");
    return prnn_plan_load_standard(gs, rnn, p);
}

/* The training kernels, once. With autotuning on and no exact DB entry for
 * the backward pass, its tile is tuned first, among those that fit the
 * workspace size already reported. */
static prnnStatus_t load_training(const prnn_gpu_call *g, const struct prnnRNNStruct *rnn,
                                  prnn_plan *p)
{
    struct prnn_gpu_state *gs = g->gs;
    if (g->autotune == PRNN_AUTOTUNE_ON && p->n_bwd_cand && !p->bwd_settled) {
        prnn_autotune_options o;
        prnn_autotune_defaults(&o);
        o.max_scratch_bytes = scratch_bytes(&p->bwd_cand[0]);
        prnn_tile_config best;
        prnnStatus_t s = prnn_autotune_shape(g, rnn, p->mini_batch, PRNN_PASS_BACKWARD_DATA, &o,
                                             &best, NULL);
        if (s)
            return s;
        prnn_kernel_shape shape;
        prnn_plan_shape(rnn, p->mini_batch, 0, PRNN_PASS_BACKWARD_DATA, &shape);
        char why[256];
        if (prnn_kernel_geometry_compute(&shape, &best, &gs->info, &p->bwd_cand[0], why,
                                         sizeof(why)) == 0)
            p->bwd_cand_src[0] = PRNN_CONFIG_AUTOTUNED;
    }
    prnnStatus_t s = prnn_plan_load_training(gs, rnn, p);
    if (!s && p->bwd_path == PRNN_PATH_STANDARD && rnn->algo == PRNN_RNN_ALGO_PERSISTENT)
        s = prnn_fail(PRNN_STATUS_NOT_SUPPORTED,
                      "PRNN_RNN_ALGO_PERSISTENT: no persistent backward-data configuration "
                      "runs %s hidden %d batch %d on %s", prnn_mode_name(rnn->mode), rnn->hidden,
                      p->mini_batch, gs->description);
    return s;
}

static int same_key(const prnn_plan *p, const struct prnnRNNStruct *rnn, int mini_batch)
{
    return p->mode == rnn->mode && p->dtype == rnn->dtype && p->hidden == rnn->hidden &&
           p->layers == rnn->layers && p->dirs == prnn_rnn_dirs(rnn) &&
           p->input_mode == rnn->input_mode && p->math == rnn->math &&
           p->algo == rnn->algo && p->mini_batch == mini_batch;
}

/* PRNN_LOG_PLANS: an event's shape, device, outcome and time. */
static void log_event_init(prnn_plan_log_event *e, const char *event,
                           const struct prnn_gpu_state *gs, const struct prnnRNNStruct *rnn,
                           int mini_batch, prnnStatus_t s, double ms)
{
    memset(e, 0, sizeof(*e));
    e->event = event;
    e->mode = rnn->mode;
    e->dtype = rnn->dtype;
    e->hidden = rnn->hidden;
    e->batch = mini_batch;
    e->layers = rnn->layers;
    e->dirs = prnn_rnn_dirs(rnn);
    e->device = gs->description;
    e->status = s;
    e->ms = ms;
}

/* A new plan: the forward tile that loaded, the backward-data tile chosen. */
static void log_plan(const struct prnn_gpu_state *gs, const struct prnnRNNStruct *rnn,
                     int mini_batch, const prnn_plan *p, const plan_notes *notes,
                     prnnStatus_t s, double ms)
{
    prnn_plan_log_event e;
    log_event_init(&e, "plan", gs, rnn, mini_batch, s, ms);
    char bwd[256] = "standard";
    if (p->n_bwd_cand)
        prnn_tile_config_format(&p->bwd_cand[0].tile, bwd, sizeof(bwd));
    else if (p->bwd_path == PRNN_PATH_SRU_SCAN)
        snprintf(bwd, sizeof(bwd), "%s", p->bwd.config);
    e.passes[0] = (prnn_plan_log_pass){"forward", p->path, p->fwd.config, p->fwd.source,
                                       notes->fwd_forced ? forcing_variable(PRNN_PASS_FORWARD)
                                                         : NULL};
    e.passes[1] = (prnn_plan_log_pass){
        "backward-data", p->n_bwd_cand ? tile_path(&p->bwd_cand[0]) : p->bwd_path, bwd,
        p->n_bwd_cand ? p->bwd_cand_src[0] : p->bwd.source,
        notes->bwd_forced ? forcing_variable(PRNN_PASS_BACKWARD_DATA) : NULL};
    e.npasses = 2;
    e.cubin = p->cubin_source;
    e.compile_ms = p->compile_ms;
    prnn_plan_log_print(&e);
}

/* The training kernels loaded: the backward-data tile that runs. Forced
 * when it is the tile PRNN_TILE_BACKWARD forces now (a plan keeps no note
 * of it between the two events). */
static void log_training(const struct prnn_gpu_state *gs, const struct prnnRNNStruct *rnn,
                         const prnn_plan *p, prnnStatus_t s, double ms,
                         prnnCubinSource_t cubin, double compile_ms)
{
    prnn_plan_log_event e;
    log_event_init(&e, "training kernels", gs, rnn, p->mini_batch, s, ms);
    int forced = 0;
    prnn_kernel_shape shape;
    prnn_kernel_geometry f;
    prnn_plan_shape(rnn, p->mini_batch, 0, PRNN_PASS_BACKWARD_DATA, &shape);
    if (p->bwd_settled && forced_tile(&shape, &gs->info, prnn_plan_use_mma(rnn, &gs->info), &f)) {
        char text[256];
        prnn_tile_config_format(&f.tile, text, sizeof(text));
        forced = strcmp(text, p->bwd.config) == 0;
    }
    e.passes[0] = (prnn_plan_log_pass){"backward-data", p->bwd_path, p->bwd.config,
                                       p->bwd.source,
                                       forced ? forcing_variable(PRNN_PASS_BACKWARD_DATA) : NULL};
    e.npasses = 1;
    e.cubin = cubin;
    e.compile_ms = compile_ms;
    prnn_plan_log_print(&e);
}

prnnStatus_t prnn_plan_get(const prnn_gpu_call *g, const struct prnnRNNStruct *rnn,
                           int mini_batch, int training, prnn_plan **out)
{
    struct prnn_gpu_state *gs = g->gs;
    prnn_plan *p = NULL;
    for (prnn_plan *q = gs->plans; q && !p; q = q->next)
        if (same_key(q, rnn, mini_batch))
            p = q;
    prnnStatus_t s;
    if (!p) {
        p = calloc(1, sizeof(*p));
        if (!p)
            return prnn_fail(PRNN_STATUS_ALLOC_FAILED, "out of host memory");
        double t0 = prnn_now_ms();
        plan_notes notes = {0, 0};
        s = prnn_gpu_enter(gs);
        if (!s) {
            s = make_plan(g, rnn, mini_batch, p, &notes);
            prnn_gpu_leave(gs);
        }
        double ms = prnn_now_ms() - t0;
        if (prnn_plan_log_enabled())
            log_plan(gs, rnn, mini_batch, p, &notes, s, ms);
        if (s) {
            free(p);
            return s;
        }
        p->plan_ms = ms;
        p->next = gs->plans;
        gs->plans = p;
    }
    if (training && !p->training_loaded) {
        double t0 = prnn_now_ms(), compile0 = p->compile_ms;
        /* The plan's cubin source is the worst over its life; the log wants
         * this event's own, so it is gathered apart and merged after. */
        prnnCubinSource_t cubin0 = p->cubin_source;
        p->cubin_source = PRNN_CUBIN_NONE;
        s = prnn_gpu_enter(gs);
        if (!s) {
            s = load_training(g, rnn, p);
            prnn_gpu_leave(gs);
        }
        prnnCubinSource_t cubin = p->cubin_source;
        p->cubin_source = cubin > cubin0 ? cubin : cubin0;
        double ms = prnn_now_ms() - t0;
        if (prnn_plan_log_enabled())
            log_training(gs, rnn, p, s, ms, cubin, p->compile_ms - compile0);
        if (s)
            return s;
        p->plan_ms += ms;
    }
    *out = p;
    return PRNN_STATUS_SUCCESS;
}

void prnn_plan_free_all(prnn_plan *list)
{
    while (list) {
        prnn_plan *next = list->next;
        free(list);
        list = next;
    }
}
