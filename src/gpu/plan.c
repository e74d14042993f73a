#include "gpu/plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "gpu/autotune.h"
#include "gpu/gpu_state.h"
#include "gpu/heuristic.h"
#include "gpu/gpu_backend.h"
#include "jit/module_cache.h"
#include "jit/nvrtc_compile.h"
#include "tuning/tuning_db.h"

void prnn_plan_shape(const struct prnnRNNStruct *rnn, int mini_batch,
                     int skip_layer0, prnn_kernel_shape *shape)
{
    shape->mode = rnn->mode;
    shape->dtype = rnn->dtype;
    shape->hidden = rnn->hidden;
    shape->max_batch = mini_batch;
    shape->dirs = prnn_rnn_dirs(rnn);
    shape->skip_input = skip_layer0;
}

int prnn_plan_use_mma(const struct prnnRNNStruct *rnn, const prnn_device_info *dev)
{
    int is16 = rnn->dtype == PRNN_DATA_HALF || rnn->dtype == PRNN_DATA_BFLOAT16;
    return is16 && dev->sm >= 80 && rnn->math != PRNN_FMA_MATH;
}

static int mode_code(prnnRNNMode_t m)
{
    return m == PRNN_RNN_RELU ? 0 : m == PRNN_RNN_TANH ? 1 : m == PRNN_LSTM ? 2 : 3;
}

static void add_define(prnn_kernel_request *d, const char *name, long value)
{
    snprintf(d->text[d->n], sizeof(d->text[0]), "%s=%ld", name, value);
    d->ptr[d->n] = d->text[d->n];
    d->n++;
}

void prnn_plan_persistent_request(const prnn_kernel_geometry *g, int skip, int sm,
                                  prnn_kernel_request *d)
{
    d->n = 0;
    add_define(d, "PRNN_MODE", mode_code(g->shape.mode));
    add_define(d, "PRNN_DTYPE", prnn_kernel_dtype_code(g->shape.dtype));
    add_define(d, "PRNN_H", g->shape.hidden);
    add_define(d, "PRNN_BMAX", g->shape.max_batch);
    add_define(d, "PRNN_NBLK", g->tile.blocks);
    add_define(d, "PRNN_UPB", g->units_per_block);
    add_define(d, "PRNN_THREADS", g->tile.threads);
    add_define(d, "PRNN_KSPLIT", g->tile.ksplit);
    add_define(d, "PRNN_LANES_K", g->tile.lanes_k);
    add_define(d, "PRNN_BC", g->tile.batch_chunk);
    add_define(d, "PRNN_BGRP", g->tile.batch_groups);
    add_define(d, "PRNN_GSTRIDE", g->group_stride);
    add_define(d, "PRNN_KREG", g->kreg);
    add_define(d, "PRNN_KSMEM", g->ksmem);
    add_define(d, "PRNN_MMA", g->tile.mma);
    add_define(d, "PRNN_HANDOFF", g->tile.handoff);
    add_define(d, "PRNN_SKIP", skip);
    add_define(d, "PRNN_RED_BUFS", g->red_bufs);
    /* Cross-checks: the kernel static_asserts its own arithmetic against
     * these (kernel_geometry.c mirrors it). */
    add_define(d, "PRNN_SMEM_BYTES", (long)g->smem_bytes);
    add_define(d, "PRNN_KSTEPS", g->ksteps);
    add_define(d, "PRNN_WPK", g->wpk);
    add_define(d, "PRNN_EX_BYTES", (long)g->exchange_bytes_per_dir);
    add_define(d, "PRNN_PACKED_BYTES", (long)g->packed_bytes_per_dir);
    memset(&d->req, 0, sizeof(d->req));
    d->req.source_name = "rnn_persistent.cu";
    d->req.defines = d->ptr;
    d->req.num_defines = d->n;
    d->req.sm = sm;
    d->req.kernel_name = "prnn_rnn_persistent";
}

static void step_request(const struct prnnRNNStruct *rnn, int skip, int sm,
                         prnn_kernel_request *d)
{
    d->n = 0;
    add_define(d, "PRNN_MODE", mode_code(rnn->mode));
    add_define(d, "PRNN_DTYPE", prnn_kernel_dtype_code(rnn->dtype));
    add_define(d, "PRNN_H", rnn->hidden);
    add_define(d, "PRNN_SKIP", skip);
    memset(&d->req, 0, sizeof(d->req));
    d->req.source_name = "rnn_step.cu";
    d->req.defines = d->ptr;
    d->req.num_defines = d->n;
    d->req.sm = sm;
    d->req.kernel_name = "prnn_step_cell";
}

/* The worst of two cubin sources, for reporting: compiled > disk > memory. */
static void merge_source(prnn_plan *p, prnnCubinSource_t s, double ms)
{
    if (p->cubin_source == PRNN_CUBIN_NONE || s > p->cubin_source)
        p->cubin_source = s;
    p->compile_ms += ms;
}

static prnnStatus_t load_module(struct prnn_gpu_state *gs, const prnn_kernel_request *d,
                                prnn_plan *p, CUmodule *mod)
{
    prnnCubinSource_t src;
    double ms = 0;
    prnnStatus_t s = prnn_module_get_module(gs->cu, gs->ctx, &d->req, mod, &src, &ms);
    if (!s)
        merge_source(p, src, ms);
    return s;
}

static prnnStatus_t get_function(struct prnn_gpu_state *gs, CUmodule mod,
                                 const char *name, CUfunction *fn)
{
    char what[96];
    snprintf(what, sizeof(what), "cuModuleGetFunction(%s)", name);
    return prnn_cu_check(gs->cu->cuModuleGetFunction(fn, mod, name), what);
}

/*
 * Loads the persistent kernel(s) for geometry g and checks that the device
 * can keep every block resident. Returns SUCCESS, NOT_SUPPORTED (with the
 * reason; the caller may try another tile), or a real failure.
 */
static prnnStatus_t load_persistent(struct prnn_gpu_state *gs,
                                    const struct prnnRNNStruct *rnn,
                                    const prnn_kernel_geometry *g, prnn_plan *p)
{
    const prnn_cuda_driver *cu = gs->cu;
    prnn_kernel_request d;
    CUmodule mod;
    for (int skip = 0; skip < 2; skip++) {
        if (skip && rnn->input_mode != PRNN_SKIP_INPUT)
            break;
        prnn_plan_persistent_request(g, skip, gs->info.sm, &d);
        prnnStatus_t s = load_module(gs, &d, p, &mod);
        if (s)
            return s;
        CUfunction fn;
        s = get_function(gs, mod, "prnn_rnn_persistent", &fn);
        if (!s && !skip)
            s = get_function(gs, mod, "prnn_rnn_setup", &p->fn_setup);
        if (s)
            return s;
        s = prnn_cu_check(cu->cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                                 (int)g->smem_bytes),
                          "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
        if (s)
            return s;
        int per_sm = 0;
        s = prnn_cu_check(cu->cuOccupancyMaxActiveBlocksPerMultiprocessor(
                              &per_sm, fn, g->tile.threads, g->smem_bytes),
                          "cuOccupancyMaxActiveBlocksPerMultiprocessor");
        if (s)
            return s;
        int need = g->tile.blocks * g->tile.batch_groups * g->shape.dirs;
        if (per_sm * gs->info.sm_count < need)
            return prnn_fail(PRNN_STATUS_NOT_SUPPORTED,
                             "the persistent kernel (%d threads, %zu bytes of shared "
                             "memory) fits %d block(s) per SM: %d SMs cannot hold %d "
                             "co-resident blocks", g->tile.threads, g->smem_bytes, per_sm,
                             gs->info.sm_count, need);
        int local = 0;
        cu->cuFuncGetAttribute(&local, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, fn);
        if (local > 0)
            prnn_log_append("note: the persistent kernel for %s spills %d bytes per "
                            "thread to local memory (slower, still correct)",
                            p->config, local);
        if (skip)
            p->fn_rnn_skip = fn;
        else
            p->fn_rnn = fn;
    }
    return PRNN_STATUS_SUCCESS;
}

static prnnStatus_t load_standard(struct prnn_gpu_state *gs,
                                  const struct prnnRNNStruct *rnn, prnn_plan *p)
{
    prnn_kernel_request d;
    CUmodule mod;
    for (int skip = 0; skip < 2; skip++) {
        if (skip && rnn->input_mode != PRNN_SKIP_INPUT)
            break;
        step_request(rnn, skip, gs->info.sm, &d);
        prnnStatus_t s = load_module(gs, &d, p, &mod);
        if (s)
            return s;
        s = get_function(gs, mod, "prnn_step_cell", skip ? &p->fn_step_skip : &p->fn_step);
        if (!s && !skip)
            s = get_function(gs, mod, "prnn_step_init", &p->fn_step_init);
        if (s)
            return s;
    }
    p->path = PRNN_PATH_STANDARD;
    snprintf(p->config, sizeof(p->config), "standard");
    return PRNN_STATUS_SUCCESS;
}

static void set_key(prnn_plan *p, const struct prnnRNNStruct *rnn, int mini_batch)
{
    p->mode = rnn->mode;
    p->dtype = rnn->dtype;
    p->hidden = rnn->hidden;
    p->layers = rnn->layers;
    p->dirs = prnn_rnn_dirs(rnn);
    p->input_mode = rnn->input_mode;
    p->math = rnn->math;
    p->algo = rnn->algo;
    p->mini_batch = mini_batch;
}

static int same_key(const prnn_plan *p, const struct prnnRNNStruct *rnn, int mini_batch)
{
    return p->mode == rnn->mode && p->dtype == rnn->dtype && p->hidden == rnn->hidden &&
           p->layers == rnn->layers && p->dirs == prnn_rnn_dirs(rnn) &&
           p->input_mode == rnn->input_mode && p->math == rnn->math &&
           p->algo == rnn->algo && p->mini_batch == mini_batch;
}

prnnStatus_t prnn_plan_with_tile(const prnn_gpu_call *h,
                                 const struct prnnRNNStruct *rnn, int mini_batch,
                                 const prnn_tile_config *tile, prnn_plan *out)
{
    struct prnn_gpu_state *gs = h->gs;
    char why[256];
    memset(out, 0, sizeof(*out));
    set_key(out, rnn, mini_batch);
    prnn_kernel_shape shape;
    prnn_plan_shape(rnn, mini_batch, 0, &shape);
    if (tile->mma && !prnn_plan_use_mma(rnn, &gs->info))
        return prnn_fail(PRNN_STATUS_NOT_SUPPORTED,
                         "tile asks for tensor cores, which this data type, math "
                         "type or device does not allow");
    if (prnn_kernel_geometry_compute(&shape, tile, &gs->info, &out->geom, why, sizeof(why)))
        return prnn_fail(PRNN_STATUS_NOT_SUPPORTED, "tile does not fit: %s", why);
    prnn_tile_config_format(&out->geom.tile, out->config, sizeof(out->config));
    out->path = out->geom.kglb ? PRNN_PATH_PERSISTENT_STREAMED : PRNN_PATH_PERSISTENT_RESIDENT;
    return load_persistent(gs, rnn, &out->geom, out);
}

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

static prnnStatus_t make_plan(const prnn_gpu_call *h, const struct prnnRNNStruct *rnn,
                              int mini_batch, prnn_plan *p)
{
    struct prnn_gpu_state *gs = h->gs;
    set_key(p, rnn, mini_batch);
    if (rnn->algo == PRNN_RNN_ALGO_STANDARD)
        return load_standard(gs, rnn, p);

    prnn_kernel_shape shape;
    prnn_plan_shape(rnn, mini_batch, 0, &shape);
    int use_mma = prnn_plan_use_mma(rnn, &gs->info);
    char why[256] = "";

    /* Candidates in order: the tuning databases' choice, the autotuner's
     * (when on and nothing was stored), then the heuristic's best few. */
    enum { MAX_CAND = 4 };
    prnn_kernel_geometry cand[MAX_CAND + 1];
    prnnConfigSource_t cand_src[MAX_CAND + 1];
    int n = 0;
    prnn_tuning_key key = {gs->info.name, gs->info.cc_major, gs->info.cc_minor,
                           gs->info.sm_count, rnn->mode, rnn->dtype, rnn->hidden,
                           prnn_rnn_dirs(rnn), mini_batch};
    fits_ctx fc = {&shape, &gs->info, use_mma};
    /* $PRNN_TILE forces one tile for every plan (experiments, bug reports);
     * one that cannot run is reported and the normal search continues. */
    const char *forced = getenv("PRNN_TILE");
    if (forced && forced[0]) {
        prnn_tile_config t;
        char err[160];
        if (prnn_tile_config_parse(forced, &t, err, sizeof(err)))
            prnn_log_append("note: PRNN_TILE ignored: %s", err);
        else if (t.mma && !use_mma)
            prnn_log_append("note: PRNN_TILE ignored: tensor cores not allowed here");
        else if (prnn_kernel_geometry_compute(&shape, &t, &gs->info, &cand[n], why, sizeof(why)))
            prnn_log_append("note: PRNN_TILE ignored: %s", why);
        else
            cand_src[n++] = PRNN_CONFIG_USER_DB;
    }
    /* A forced tile replaces the lookup (and the autotuner); the heuristic's
     * candidates still follow it. */
    prnn_tuning_result found;
    int in_db = !n && prnn_tuning_lookup(&key, tile_fits, &fc, &found) == 1 &&
                prnn_kernel_geometry_compute(&shape, &found.entry.config, &gs->info, &cand[n],
                                             why, sizeof(why)) == 0;
    /* With autotuning on, only an exact entry spares the search: a nearest
     * entry is a guess for another shape. */
    if (in_db && (found.exact || h->autotune != PRNN_AUTOTUNE_ON)) {
        cand_src[n++] = found.source;
    } else if (!n && h->autotune == PRNN_AUTOTUNE_ON) {
        prnn_tile_config best;
        prnnStatus_t s = prnn_autotune_shape(h, rnn, mini_batch, NULL, &best, NULL);
        if (s)
            return s;
        if (prnn_kernel_geometry_compute(&shape, &best, &gs->info, &cand[n], why,
                                         sizeof(why)) == 0)
            cand_src[n++] = PRNN_CONFIG_AUTOTUNED;
    }
    int heur = prnn_heuristic_candidates(&shape, &gs->info, use_mma, &cand[n], MAX_CAND - n);
    for (int i = 0; i < heur; i++)
        cand_src[n + i] = PRNN_CONFIG_HEURISTIC;
    n += heur;

    for (int i = 0; i < n; i++) {
        p->geom = cand[i];
        p->config_source = cand_src[i];
        p->fn_rnn = p->fn_rnn_skip = p->fn_setup = NULL;
        prnn_tile_config_format(&p->geom.tile, p->config, sizeof(p->config));
        p->path = p->geom.kglb ? PRNN_PATH_PERSISTENT_STREAMED : PRNN_PATH_PERSISTENT_RESIDENT;
        prnnStatus_t s = load_persistent(gs, rnn, &p->geom, p);
        if (s == PRNN_STATUS_SUCCESS)
            return s;
        if (s != PRNN_STATUS_NOT_SUPPORTED)
            return s; /* a compile or driver failure is a real error */
        snprintf(why, sizeof(why), "%s", prnn_log_get());
    }
    if (rnn->algo == PRNN_RNN_ALGO_PERSISTENT)
        return prnn_fail(PRNN_STATUS_NOT_SUPPORTED,
                         "PRNN_RNN_ALGO_PERSISTENT: no persistent configuration runs "
                         "%s hidden %d batch %d on %s%s%s", prnn_mode_name(rnn->mode),
                         rnn->hidden, mini_batch, gs->description, why[0] ? ": " : "", why);
    p->config_source = PRNN_CONFIG_HEURISTIC;
    return load_standard(gs, rnn, p);
}

prnnStatus_t prnn_plan_get(const prnn_gpu_call *h, const struct prnnRNNStruct *rnn,
                           int mini_batch, prnn_plan **out)
{
    struct prnn_gpu_state *gs = h->gs;
    for (prnn_plan *p = gs->plans; p; p = p->next) {
        if (same_key(p, rnn, mini_batch)) {
            *out = p;
            return PRNN_STATUS_SUCCESS;
        }
    }
    prnn_plan *p = calloc(1, sizeof(*p));
    if (!p)
        return prnn_fail(PRNN_STATUS_ALLOC_FAILED, "out of host memory");
    double t0 = prnn_now_ms();
    prnnStatus_t s = prnn_gpu_enter(gs);
    if (!s) {
        s = make_plan(h, rnn, mini_batch, p);
        prnn_gpu_leave(gs);
    }
    if (s) {
        free(p);
        return s;
    }
    p->plan_ms = prnn_now_ms() - t0;
    p->next = gs->plans;
    gs->plans = p;
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
