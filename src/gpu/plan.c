#include "gpu/plan.h"

#include <stdio.h>
#include <string.h>

#include "error.h"
#include "gpu/gpu_state.h"
#include "gpu/kernel_request.h"
#include "jit/module_cache.h"

void prnn_plan_init(prnn_plan *p, const struct prnnRNNStruct *rnn, int mini_batch)
{
    memset(p, 0, sizeof(*p));
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

void prnn_plan_shape(const struct prnnRNNStruct *rnn, int mini_batch, int skip_layer0,
                     prnn_pass pass, prnn_kernel_shape *shape)
{
    memset(shape, 0, sizeof(*shape));
    shape->mode = rnn->mode;
    shape->dtype = rnn->dtype;
    shape->hidden = rnn->hidden;
    shape->max_batch = mini_batch;
    shape->dirs = prnn_rnn_dirs(rnn);
    shape->skip_input = skip_layer0;
    shape->pass = pass;
}

int prnn_plan_use_mma(const struct prnnRNNStruct *rnn, const prnn_device_info *dev)
{
    int is16 = rnn->dtype == PRNN_DATA_HALF || rnn->dtype == PRNN_DATA_BFLOAT16;
    return is16 && dev->sm >= 80 && rnn->math != PRNN_FMA_MATH;
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

static prnnStatus_t get_function(struct prnn_gpu_state *gs, CUmodule mod, const char *name,
                                 CUfunction *fn)
{
    char what[96];
    snprintf(what, sizeof(what), "cuModuleGetFunction(%s)", name);
    return prnn_cu_check(gs->cu->cuModuleGetFunction(fn, mod, name), what);
}

/* One persistent kernel's function, with its shared memory raised and the
 * co-residency of every block checked. */
static prnnStatus_t load_persistent(struct prnn_gpu_state *gs, const prnn_kernel_geometry *g,
                                    int skip, int train, prnn_plan *p, CUfunction *out)
{
    const prnn_cuda_driver *cu = gs->cu;
    prnn_kernel_request d;
    CUmodule mod;
    CUfunction fn;
    prnnStatus_t s = prnn_request_persistent(g, skip, train, gs->info.sm, &d);
    if (!s)
        s = load_module(gs, &d, p, &mod);
    if (!s)
        s = get_function(gs, mod, d.req.kernel_name, &fn);
    if (!s)
        s = prnn_cu_check(cu->cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                                 (int)g->smem_bytes),
                          "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
    int per_sm = 0;
    if (!s)
        s = prnn_cu_check(cu->cuOccupancyMaxActiveBlocksPerMultiprocessor(
                              &per_sm, fn, g->tile.threads, g->smem_bytes),
                          "cuOccupancyMaxActiveBlocksPerMultiprocessor");
    if (s)
        return s;
    int need = g->tile.blocks * g->tile.batch_groups * g->shape.dirs;
    if (per_sm * gs->info.sm_count < need)
        return prnn_fail(PRNN_STATUS_NOT_SUPPORTED,
                         "the %s kernel (%d threads, %zu bytes of shared memory) fits %d "
                         "block(s) per SM: %d SMs cannot hold %d co-resident blocks",
                         prnn_pass_name(g->shape.pass), g->tile.threads, g->smem_bytes, per_sm,
                         gs->info.sm_count, need);
    int local = 0;
    cu->cuFuncGetAttribute(&local, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, fn);
    if (local > 0) {
        char cfg[256];
        prnn_tile_config_format(&g->tile, cfg, sizeof(cfg));
        prnn_log_append("note: the %s kernel for %s spills %d bytes per thread to local "
                        "memory (slower, still correct)", prnn_pass_name(g->shape.pass), cfg,
                        local);
    }
    *out = fn;
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnn_plan_load_tile(struct prnn_gpu_state *gs, const struct prnnRNNStruct *rnn,
                                 const prnn_kernel_geometry *g, prnnConfigSource_t source,
                                 int train, prnn_plan *p, prnn_tile_kernels *out)
{
    prnn_tile_kernels k;
    memset(&k, 0, sizeof(k));
    k.geom = *g;
    k.source = source;
    prnn_tile_config_format(&g->tile, k.config, sizeof(k.config));
    prnnStatus_t s = load_persistent(gs, g, 0, train, p, &k.fn);
    if (!s && g->shape.pass == PRNN_PASS_FORWARD && rnn->input_mode == PRNN_SKIP_INPUT)
        s = load_persistent(gs, g, 1, train, p, &k.fn_skip);
    if (!s)
        *out = k;
    return s;
}

prnnStatus_t prnn_plan_load_standard(struct prnn_gpu_state *gs, const struct prnnRNNStruct *rnn,
                                     prnn_plan *p)
{
    prnn_kernel_request d;
    CUmodule mod;
    for (int skip = 0; skip < 2; skip++) {
        if (skip && rnn->input_mode != PRNN_SKIP_INPUT)
            break;
        prnnStatus_t s = prnn_request_step(rnn->mode, rnn->dtype, rnn->hidden, skip, gs->info.sm, &d);
        if (!s)
            s = load_module(gs, &d, p, &mod);
        if (!s)
            s = get_function(gs, mod, "prnn_step_cell", skip ? &p->step.cell_skip : &p->step.cell);
        if (!s && !skip)
            s = get_function(gs, mod, "prnn_step_init", &p->step.init);
        if (!s && !skip)
            s = get_function(gs, mod, "prnn_step_cell_backward", &p->step.cell_backward);
        if (s)
            return s;
    }
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnn_plan_load_setup(struct prnn_gpu_state *gs, prnn_plan *p)
{
    prnn_kernel_request d;
    CUmodule mod;
    prnnStatus_t s = prnn_request_setup(gs->info.sm, &d);
    if (!s)
        s = load_module(gs, &d, p, &mod);
    if (!s)
        s = get_function(gs, mod, "prnn_rnn_setup", &p->fn_setup);
    return s;
}

/* A module of several kernels: the request (if it was made), the module,
 * then each named function. */
typedef struct {
    const char *name;
    CUfunction *fn;
} named_fn;

static prnnStatus_t load_functions(struct prnn_gpu_state *gs, prnnStatus_t requested,
                                   const prnn_kernel_request *d, prnn_plan *p,
                                   const named_fn *fns, size_t n)
{
    CUmodule mod;
    prnnStatus_t s = requested;
    if (!s)
        s = load_module(gs, d, p, &mod);
    for (size_t i = 0; !s && i < n; i++)
        s = get_function(gs, mod, fns[i].name, fns[i].fn);
    return s;
}

static prnnStatus_t load_train_kernels(struct prnn_gpu_state *gs, prnnDataType_t dtype,
                                       prnn_plan *p)
{
    prnn_kernel_request d;
    const named_fn fns[] = {
        {"prnn_dropout_forward", &p->train.dropout_forward},
        {"prnn_dropout_backward", &p->train.dropout_backward},
        {"prnn_gather_prev", &p->train.gather_prev},
        {"prnn_bias_partial", &p->train.bias_partial},
        {"prnn_bias_finish", &p->train.bias_finish},
        {"prnn_skip_dx", &p->train.skip_dx},
    };
    return load_functions(gs, prnn_request_train(dtype, gs->info.sm, &d), &d, p, fns,
                          sizeof(fns) / sizeof(fns[0]));
}

prnn_tuning_key prnn_plan_tuning_key(const prnn_device_info *dev,
                                     const struct prnnRNNStruct *rnn, int mini_batch,
                                     prnn_pass pass)
{
    prnn_tuning_key key = {dev->name, dev->cc_major, dev->cc_minor, dev->sm_count,
                           rnn->mode, rnn->dtype, rnn->hidden, prnn_rnn_dirs(rnn),
                           mini_batch, pass};
    return key;
}

prnnStatus_t prnn_plan_sru(struct prnn_gpu_state *gs, const struct prnnRNNStruct *rnn,
                           int mini_batch, const prnn_sru_config *cfg,
                           prnnConfigSource_t source, int training, prnn_plan *out)
{
    prnn_plan_init(out, rnn, mini_batch);
    PRNN_TRY(prnn_plan_load_setup(gs, out));
    out->path = out->bwd_path = PRNN_PATH_SRU_SCAN;
    out->fwd.source = out->bwd.source = source;
    char text[96];
    prnn_config_format(prnn_sru_fields, cfg, text, sizeof(text));
    snprintf(out->fwd.config, sizeof(out->fwd.config), "sru-scan %s", text);
    snprintf(out->bwd.config, sizeof(out->bwd.config), "%s", out->fwd.config);
    out->sru.threads = cfg->threads;
    out->sru.upt = cfg->units_per_thread;
    out->sru.depth = cfg->steps_in_flight;
    prnn_kernel_request d;
    const named_fn fns[] = {
        {"prnn_sru_forward_m3", &out->sru.forward[PRNN_SRU_VARIANT_M3]},
        {"prnn_sru_forward_m4", &out->sru.forward[PRNN_SRU_VARIANT_M4]},
        {"prnn_sru_forward_skip", &out->sru.forward[PRNN_SRU_VARIANT_SKIP]},
        {"prnn_sru_backward_m3", &out->sru.backward[PRNN_SRU_VARIANT_M3]},
        {"prnn_sru_backward_m4", &out->sru.backward[PRNN_SRU_VARIANT_M4]},
        {"prnn_sru_backward_skip", &out->sru.backward[PRNN_SRU_VARIANT_SKIP]},
        {"prnn_sru_vgrad", &out->sru.vgrad},
        {"prnn_sru_input_grad", &out->sru.input_grad},
        {"prnn_sru_keep_input", &out->sru.keep_input},
    };
    PRNN_TRY(load_functions(gs,
                            prnn_request_sru(rnn->dtype, rnn->hidden, cfg->threads,
                                             cfg->units_per_thread, cfg->steps_in_flight,
                                             gs->info.sm, &d),
                            &d, out, fns, sizeof(fns) / sizeof(fns[0])));
    return training ? prnn_plan_load_training(gs, rnn, out) : PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnn_plan_load_training(struct prnn_gpu_state *gs, const struct prnnRNNStruct *rnn,
                                     prnn_plan *p)
{
    prnnStatus_t s;
    if (p->path == PRNN_PATH_SRU_SCAN) {
        /* the scan's kernels serve training as they are: only dropout, and
         * the side stream for the work sru_run.c overlaps */
        PRNN_TRY(prnn_gpu_side_stream(gs));
        s = load_train_kernels(gs, rnn->dtype, p);
        if (!s)
            p->training_loaded = 1;
        return s;
    }
    if (p->path != PRNN_PATH_STANDARD) {
        s = prnn_plan_load_tile(gs, rnn, &p->fwd.geom, p->fwd.source, 1, p, &p->fwd_train);
        if (s)
            return s; /* the same tile as inference: it fits */
    }
    p->bwd_path = PRNN_PATH_STANDARD;
    for (int i = 0; i < p->n_bwd_cand; i++) {
        s = prnn_plan_load_tile(gs, rnn, &p->bwd_cand[i], p->bwd_cand_src[i], 0, p, &p->bwd);
        if (s == PRNN_STATUS_SUCCESS) {
            p->bwd_path = p->bwd.geom.kglb ? PRNN_PATH_PERSISTENT_STREAMED
                                           : PRNN_PATH_PERSISTENT_RESIDENT;
            break;
        }
        if (s != PRNN_STATUS_NOT_SUPPORTED)
            return s;
    }
    if (p->bwd_path == PRNN_PATH_STANDARD && !p->step.cell_backward) {
        s = prnn_plan_load_standard(gs, rnn, p);
        if (s)
            return s;
    }
    s = load_train_kernels(gs, rnn->dtype, p);
    if (!s)
        p->training_loaded = 1;
    return s;
}

/* The geometry of an explicit tile for a pass, or NOT_SUPPORTED. */
static prnnStatus_t tile_geometry(struct prnn_gpu_state *gs, const struct prnnRNNStruct *rnn,
                                  int mini_batch, prnn_pass pass, const prnn_tile_config *tile,
                                  prnn_kernel_geometry *g)
{
    char why[256];
    prnn_kernel_shape shape;
    prnn_plan_shape(rnn, mini_batch, 0, pass, &shape);
    if (tile->mma && !prnn_plan_use_mma(rnn, &gs->info))
        return prnn_fail(PRNN_STATUS_NOT_SUPPORTED,
                         "tile asks for tensor cores, which this data type, math "
                         "type or device does not allow");
    if (prnn_kernel_geometry_compute(&shape, tile, &gs->info, g, why, sizeof(why)))
        return prnn_fail(PRNN_STATUS_NOT_SUPPORTED, "%s tile does not fit: %s",
                         prnn_pass_name(pass), why);
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnn_plan_with_tiles(struct prnn_gpu_state *gs, const struct prnnRNNStruct *rnn,
                                  int mini_batch, const prnn_tile_config *fwd,
                                  const prnn_tile_config *bwd, prnn_plan *out)
{
    prnn_plan_init(out, rnn, mini_batch);
    prnnStatus_t s = prnn_plan_load_setup(gs, out);
    if (s)
        return s;
    if (fwd) {
        prnn_kernel_geometry g;
        s = tile_geometry(gs, rnn, mini_batch, PRNN_PASS_FORWARD, fwd, &g);
        if (!s)
            s = prnn_plan_load_tile(gs, rnn, &g, PRNN_CONFIG_AUTOTUNED, 0, out, &out->fwd);
        if (s)
            return s;
        out->path = g.kglb ? PRNN_PATH_PERSISTENT_STREAMED : PRNN_PATH_PERSISTENT_RESIDENT;
    } else {
        s = prnn_plan_load_standard(gs, rnn, out);
        if (s)
            return s;
        out->path = PRNN_PATH_STANDARD;
    }
    if (!bwd)
        return PRNN_STATUS_SUCCESS;
    s = tile_geometry(gs, rnn, mini_batch, PRNN_PASS_BACKWARD_DATA, bwd, &out->bwd_cand[0]);
    if (s)
        return s;
    out->bwd_cand_src[0] = PRNN_CONFIG_AUTOTUNED;
    out->n_bwd_cand = 1;
    s = prnn_plan_load_training(gs, rnn, out);
    if (!s && out->bwd_path == PRNN_PATH_STANDARD)
        s = prnn_fail(PRNN_STATUS_NOT_SUPPORTED, "the backward-data tile cannot run here");
    return s;
}
