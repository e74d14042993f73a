/*
 * The persistent kernel's two rows of the engine table:
 *  - "persistent": groups of blocks hand h_t to each other through L2
 *    (handoff 0 or 1), every block resident (a cooperative launch);
 *  - "small-h": the whole layer in one block per batch group, which hands
 *    h_t to itself through shared memory with a barrier (handoff 2): where
 *    the recurrent weights fit in one block (small hidden sizes), the L2
 *    round trip goes, and batch rows are spread over as many blocks as
 *    there are groups (an ordinary launch: they need not all be resident).
 * Which shapes each runs, its tiles (the heuristic's, or the autotuner's
 * wider set), loading a tile (compile, shared memory, co-residency), its
 * workspace and plan info.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "gpu/engines/persistent/heuristic.h"
#include "gpu/engines/persistent/persistent.h"
#include "gpu/run/gpu_state.h"
#include "gpu/run/run_kernels.h"
#include "gpu/run/seq_io_plan.h"
#include "gpu/run/workspace_layout.h"
#include "checked_size.h"
#include "dtype.h"
#include "prnn_kernel_abi.h"

void prnn_persistent_shape(const prnn_engine_query *q, int skip_layer0, prnn_kernel_shape *shape)
{
    memset(shape, 0, sizeof(*shape));
    shape->key = q->key;
    shape->skip_input = skip_layer0;
    shape->pass = q->pass;
}

int prnn_persistent_use_mma(const prnn_rnn_key *key, const prnn_device_info *dev)
{
    int is16 = key->dtype == PRNN_DATA_HALF || key->dtype == PRNN_DATA_BFLOAT16;
    return is16 && dev->sm >= 80 && key->math != PRNN_FMA_MATH;
}

prnnStatus_t prnn_request_persistent(const prnn_kernel_geometry *g, int skip, int train, int sm,
                                     prnn_kernel_request *r)
{
    const int bwd = g->shape.pass == PRNN_PASS_BACKWARD_DATA;
    if (bwd && (skip || train))
        return prnn_fail(PRNN_STATUS_INTERNAL_ERROR,
                         "the backward-data kernel has no SKIP_INPUT or training variant");
    if (bwd)
        prnn_request_start(r, "rnn_backward.cu", "prnn_rnn_backward", sm);
    else
        prnn_request_start(r, "rnn_persistent.cu", "prnn_rnn_persistent", sm);
    prnn_request_define(r, "PRNN_PASS", bwd ? PRNN_KPASS_BACKWARD_DATA : PRNN_KPASS_FORWARD);
    prnn_request_cell(r, &g->shape.key);
    prnn_request_define(r, "PRNN_DTYPE", prnn_kernel_dtype_code(g->shape.key.dtype));
    prnn_request_define(r, "PRNN_H", g->shape.key.hidden);
    prnn_request_define(r, "PRNN_BMAX", g->shape.key.mini_batch);
    prnn_request_define(r, "PRNN_CALLER_ROWS", g->shape.key.caller_rows);
    if (!bwd)
        prnn_request_define(
            r, "PRNN_IO_LAYOUTS",
            prnn_seq_io_kernel_layouts(g->shape.key.caller_rows, g->shape.key.layers));
    /* The tile as it runs (the geometry's, normalised for the shape), each
     * field under its table's define; then what the geometry derives. */
    prnn_request_config_defines(r, prnn_tile_fields, &g->tile);
    prnn_request_define(r, "PRNN_UPB", g->units_per_block);
    prnn_request_define(r, "PRNN_GSTRIDE", g->group_stride);
    prnn_request_define(r, "PRNN_KREG", g->kreg);
    prnn_request_define(r, "PRNN_KSMEM", g->ksmem);
    prnn_request_define(r, "PRNN_RED_BUFS", g->red_bufs);
    if (!bwd) {
        prnn_request_define(r, "PRNN_SKIP", skip);
        prnn_request_define(r, "PRNN_TRAIN", train);
    }
    /* Cross-checks: the kernel static_asserts its own arithmetic against
     * these (kernel_geometry.c mirrors it). */
    prnn_request_define(r, "PRNN_SMEM_BYTES", (long)g->smem_bytes);
    prnn_request_define(r, "PRNN_KSTEPS", g->ksteps);
    prnn_request_define(r, "PRNN_WPK", g->wpk);
    prnn_request_define(r, "PRNN_EX_BYTES", (long)g->exchange_bytes_per_dir);
    prnn_request_define(r, "PRNN_PACKED_BYTES", (long)g->packed_bytes_per_dir);
    return prnn_request_finish(r);
}

/* ---- which shapes, which tiles ---- */

static int supports(const prnn_engine_query *q, char *why, size_t n)
{
    if (prnn_cell_traits(q->key.mode)->scan) {
        snprintf(why, n, "SRU has no recurrent matrix to keep on-chip");
        return -1;
    }
    if (q->key.algo == PRNN_RNN_ALGO_STANDARD) {
        snprintf(why, n, "the descriptor's algorithm is PRNN_RNN_ALGO_STANDARD");
        return -1;
    }
    return prnn_engine_refuse_projection(q, why, n);
}

static int fits_geometry(const prnn_engine_query *q, const prnn_tile_config *t,
                         prnn_kernel_geometry *g, char *why, size_t n)
{
    if (t->mma && !prnn_persistent_use_mma(&q->key, &q->gs->info)) {
        snprintf(why, n, "tensor cores not allowed for this math type or device");
        return -1;
    }
    prnn_kernel_shape shape;
    prnn_persistent_shape(q, 0, &shape);
    return prnn_kernel_geometry_compute(&shape, t, &q->gs->info, g, why, n) ? -1 : 0;
}

static int fits_persistent(const prnn_engine_query *q, const prnn_engine_config *c, char *why,
                           size_t n)
{
    prnn_kernel_geometry g;
    if (c->tile.handoff == 2) {
        snprintf(why, n, "handoff 2 is the small-h engine's");
        return -1;
    }
    return fits_geometry(q, &c->tile, &g, why, n);
}

/* The small-h engine: handoff 2, and every weight on-chip (one block holds
 * the layer). */
static int fits_small_h(const prnn_engine_query *q, const prnn_engine_config *c, char *why,
                        size_t n)
{
    prnn_kernel_geometry g;
    if (c->tile.handoff != 2) {
        snprintf(why, n, "the small-h engine hands off through shared memory (handoff 2)");
        return -1;
    }
    if (fits_geometry(q, &c->tile, &g, why, n))
        return -1;
    if (g.kglb) {
        snprintf(why, n, "the weights do not fit in one block (%d of %d k-steps streamed)", g.kglb,
                 g.ksteps);
        return -1;
    }
    return 0;
}

static size_t scratch_bytes(const prnn_kernel_geometry *g)
{
    return g->exchange_bytes_per_dir + g->packed_bytes_per_dir;
}

/* Families of tiles whose costs the heuristic's model compares poorly:
 * engine x batch groups x the backward's hand-off (partial sums or not). */
enum { TILE_FAMILIES = 8 };
static int tile_family(const prnn_tile_config *t)
{
    return 4 * t->partial_sums + 2 * t->mma + (t->batch_groups > 1);
}

static int in_list(const prnn_engine_config *list, int count, const prnn_tile_config *t)
{
    for (int j = 0; j < count; j++)
        if (memcmp(&list[j].tile, t, sizeof(*t)) == 0)
            return 1;
    return 0;
}

/*
 * The autotuner's candidates: the heuristic's first choice, then the
 * model's ranking taken in turn from each family (engine x batch groups),
 * each family's best also with the other hand-off. The cost model ranks
 * tiles of one family usefully but compares families poorly
 * (bench/NOTES.md), so no family is left untimed because another looks
 * cheaper on paper.
 */
static int search_candidates(const prnn_engine_query *q, const prnn_kernel_shape *shape,
                             int use_mma, int local, size_t max_scratch, prnn_engine_config *out,
                             int max)
{
    enum { POOL = 2048 };
    prnn_kernel_geometry *geoms = malloc(sizeof(*geoms) * POOL);
    if (!geoms)
        return 0;
    int n = prnn_heuristic_candidates(shape, &q->gs->info, use_mma, local, geoms, POOL);
    int kept = 0;
    for (int i = 0; i < n; i++)
        if ((!max_scratch || scratch_bytes(&geoms[i]) <= max_scratch) && (!local || !geoms[i].kglb))
            geoms[kept++] = geoms[i];
    n = kept;
    int m = 0;
    int next[TILE_FAMILIES] = {0};  /* where each family's search resumes */
    int taken[TILE_FAMILIES] = {0}; /* candidates chosen from each */
    int first = n ? tile_family(&geoms[0].tile) : 0;
    for (int progress = 1; progress && m < max;) {
        progress = 0;
        for (int k = 0; k < TILE_FAMILIES && m < max; k++) {
            int f = (first + k) % TILE_FAMILIES;
            int i = next[f];
            while (i < n && (tile_family(&geoms[i].tile) != f || in_list(out, m, &geoms[i].tile)))
                i++;
            next[f] = i + 1;
            if (i >= n)
                continue;
            progress = 1;
            memset(&out[m], 0, sizeof(out[m]));
            out[m++].tile = geoms[i].tile;
            if (!taken[f]++ && m < max && !local && q->key.dtype != PRNN_DATA_DOUBLE) {
                prnn_tile_config t = geoms[i].tile;
                t.handoff = !t.handoff;
                prnn_kernel_geometry g;
                char why[128];
                if (!prnn_kernel_geometry_compute(shape, &t, &q->gs->info, &g, why, sizeof(why)) &&
                    (!max_scratch || scratch_bytes(&g) <= max_scratch)) {
                    memset(&out[m], 0, sizeof(out[m]));
                    out[m++].tile = g.tile;
                }
            }
        }
    }
    free(geoms);
    return m;
}

static int tile_candidates(const prnn_engine_query *q, int local, int search, size_t max_scratch,
                           prnn_engine_config *out, int max)
{
    prnn_kernel_shape shape;
    prnn_persistent_shape(q, 0, &shape);
    int use_mma = prnn_persistent_use_mma(&q->key, &q->gs->info);
    if (search)
        return search_candidates(q, &shape, use_mma, local, max_scratch, out, max);
    /* the few best, those the engine can run (small-h: weights on-chip) */
    enum { FEW = 4 * PRNN_PERSISTENT_CHOICES };
    prnn_kernel_geometry g[FEW];
    int n = prnn_heuristic_candidates(&shape, &q->gs->info, use_mma, local, g, FEW), m = 0;
    for (int i = 0; i < n && m < max && m < PRNN_PERSISTENT_CHOICES; i++) {
        if (local && g[i].kglb)
            continue;
        memset(&out[m], 0, sizeof(out[m]));
        out[m++].tile = g[i].tile;
    }
    return m;
}

/*
 * The model's time of the best tile (heuristic.c), in measured
 * microseconds: the model ranks tiles, but its absolute figures run low by a
 * factor that depends on the data type and pass (the medians of measured /
 * modelled over the quick grids' persistent and small-h points: fp32
 * forward 1.85, backward 1.5, 16-bit 1.5; bench/NOTES.md v0.10 and the
 * eleventh session say how each was found); the
 * engines' comparison needs the measured scale. Added to it, what the
 * ranking leaves out because every tile of a shape pays it alike: the
 * forward cell's chain of transcendental functions, once per batch chunk
 * (the chunks run one after the other; one lane runs a unit's gates in
 * turn, as tiny-h's forward did before its lanes activated their own): at
 * H 32 and 64 the LSTM and GRU steps of both engines ran
 * 0.1-0.2 us above what tanh's measured / modelled ratio gives them
 * (bench/results/h100-2026-11-26-v0.15, autotune-fwd-h32-64.log). And
 * where the small-h engine's blocks share an SM (more batch groups than
 * SMs), each further block's products and cell go through the same
 * schedulers: the step takes them once more, while its barriers and
 * latencies overlap. (The small-h tiles of the v0.15 runs with blocks
 * beyond the SM count ran 1.1-1.5x their model's time, relative to the
 * others of their data type and pass; LSTM f32 H 64 small-h 0.82 us a step
 * at B 1, 1.55 at B 256.)
 *
 * One family runs further from the model: the small-h engine's backward
 * with one gate (tanh, ReLU) in 16 bits, at 1.5 times the 16-bit factor.
 * Its tiles ran 1.14-1.26x the same tile with the L2 hand-off (the v0.15
 * backward run, H 32/64, B 1-64), where the model gives the local hand-off
 * 0.84x and every other mode, data type and pass ran 0.58-0.93x; the H200's
 * small-h points measured 2.31x the model in 16-bit backward (v0.10).
 */
static double tile_estimate(const prnn_engine_query *q, int local)
{
    prnn_kernel_shape shape;
    prnn_persistent_shape(q, 0, &shape);
    prnn_kernel_geometry g;
    if (prnn_heuristic_candidates(&shape, &q->gs->info,
                                  prnn_persistent_use_mma(&q->key, &q->gs->info), local, &g, 1) < 1)
        return HUGE_VAL;
    const int half = q->key.dtype == PRNN_DATA_HALF || q->key.dtype == PRNN_DATA_BFLOAT16;
    const int bwd = q->pass == PRNN_PASS_BACKWARD_DATA;
    const int one_gate = prnn_cell_traits(q->key.mode)->gates == 1;
    const double scale = half ? (local && bwd && one_gate ? 1.5 * 1.5 : 1.5) : bwd ? 1.5 : 1.85;
    prnn_heuristic_parts parts;
    prnn_heuristic_cost_parts(&g, &q->gs->info, &parts);
    const double cell = bwd ? 0.0 : prnn_engine_cell_chain_us(&q->key) * g.chunks;
    const double shared = (parts.per_sm - 1) * (scale * parts.work + cell);
    return scale * parts.us + (cell + shared) * parts.waves;
}

static double estimate_persistent(const prnn_engine_query *q)
{
    return tile_estimate(q, 0);
}

static double estimate_small_h(const prnn_engine_query *q)
{
    return tile_estimate(q, 1);
}

/*
 * Per call and layer: the setup kernel, the input projection (cuBLASLt)
 * and the launch of the layer's kernel, each enqueued by the host (about
 * 2.5 us apiece on an H100), the projection's GEMM, then loading R on-chip at the start of the
 * kernel: once per batch group and direction (each group holds its own
 * copy), at about 0.7 TB/s in all. That rate is what T = 1 calls measured
 * on an H100 (bench/NOTES.md, thirteenth session: LSTM f32 H 512 B 64, 8
 * groups, 34 MB of R in 84 us); each block reads its share of R with few
 * loads in flight, which the steps of a long sequence hide. The groups are
 * those of the engine's own first configuration for q.
 */
static double tile_call_setup(const prnn_engine_query *q, int local)
{
    const prnn_rnn_key *k = &q->key;
    const double weights = prnn_engine_r_bytes(k);
    prnn_engine_config c;
    const int groups = tile_candidates(q, local, 0, 0, &c, 1) > 0 && c.tile.batch_groups > 1
                           ? c.tile.batch_groups
                           : 1;
    return 7.5 + prnn_engine_input_gemm_us(k) + weights * groups * k->dirs / 0.7e12 * 1e6;
}

static double call_setup_persistent(const prnn_engine_query *q)
{
    return tile_call_setup(q, 0);
}

static double call_setup_small_h(const prnn_engine_query *q)
{
    return tile_call_setup(q, 1);
}

static int candidates_persistent(const prnn_engine_query *q, int search, size_t max_scratch,
                                 prnn_engine_config *out, int max)
{
    return tile_candidates(q, 0, search, max_scratch, out, max);
}

static int candidates_small_h(const prnn_engine_query *q, int search, size_t max_scratch,
                              prnn_engine_config *out, int max)
{
    return tile_candidates(q, 1, search, max_scratch, out, max);
}

static void format(const prnn_engine_config *c, char *buf, size_t size)
{
    prnn_tile_config_format(&c->tile, buf, size);
}

/* load_tile's kernels: forward, each input variant the network needs in
 * the inference form and (training) the one that keeps what backward
 * reads; backward-data, its one kernel when training. */
static int requests(const prnn_engine_query *q, const prnn_engine_config *c, int training,
                    prnn_kernel_request *out)
{
    prnn_kernel_geometry g;
    char why[200];
    if (fits_geometry(q, &c->tile, &g, why, sizeof(why)))
        return -1;
    if (q->pass == PRNN_PASS_BACKWARD_DATA)
        return training ? (prnn_request_persistent(&g, 0, 0, q->gs->info.sm, out) ? -1 : 1) : 0;
    const int skips = q->key.input_mode == PRNN_SKIP_INPUT ? 2 : 1;
    int n = 0;
    for (int train = 0; train <= training; train++)
        for (int skip = 0; skip < skips; skip++)
            if (prnn_request_persistent(&g, skip, train, q->gs->info.sm, &out[n++]))
                return -1;
    return n;
}

/* ---- loading ---- */

/* One persistent kernel's function, with its shared memory raised and the
 * co-residency of every block checked. */
static prnnStatus_t load_kernel(struct prnn_gpu_state *gs, const prnn_kernel_geometry *g, int skip,
                                int train, prnn_load_stats *stats, CUfunction *out)
{
    const prnn_cuda_driver *cu = gs->cu;
    prnn_kernel_request r;
    CUfunction fn;
    prnnStatus_t s = prnn_request_persistent(g, skip, train, gs->info.sm, &r);
    if (!s) {
        const prnn_named_fn f = {r.req.kernel_name, &fn};
        s = prnn_load_functions(gs, s, &r, stats, &f, 1);
    }
    if (!s)
        s = prnn_cu_check(cu->cuFuncSetAttribute(fn,
                                                 CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                                 (int)g->smem_bytes),
                          "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
    int per_sm = 0;
    if (!s)
        s = prnn_cu_check(cu->cuOccupancyMaxActiveBlocksPerMultiprocessor(
                              &per_sm, fn, g->tile.threads, g->smem_bytes),
                          "cuOccupancyMaxActiveBlocksPerMultiprocessor");
    if (s)
        return s;
    /* Every block resident: those of the L2 hand-off wait for each other;
     * the local hand-off's need only fit one at a time. */
    int need = g->tile.handoff == 2 ? 1 : g->tile.blocks * g->tile.batch_groups * g->shape.key.dirs;
    if (per_sm * (g->tile.handoff == 2 ? 1 : gs->info.sm_count) < need)
        return prnn_fail(PRNN_STATUS_NOT_SUPPORTED,
                         "the %s kernel (%d threads, %zu bytes of shared memory) fits %d block(s) "
                         "per SM: %d SMs cannot hold %d co-resident blocks",
                         prnn_pass_name(g->shape.pass), g->tile.threads, g->smem_bytes, per_sm,
                         gs->info.sm_count, need);
    int local = 0;
    cu->cuFuncGetAttribute(&local, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, fn);
    if (local > 0) {
        char cfg[256];
        prnn_tile_config_format(&g->tile, cfg, sizeof(cfg));
        prnn_log_append("note: the %s kernel for %s spills %d bytes per thread to local memory "
                        "(slower, still correct)",
                        prnn_pass_name(g->shape.pass), cfg, local);
    }
    *out = fn;
    return PRNN_STATUS_SUCCESS;
}

/* The kernels of geometry g's pass (forward: both input variants the
 * network needs; train selects the variant that keeps `act`). SUCCESS,
 * NOT_SUPPORTED (with the reason: another tile may fit), or a real failure
 * (compile, driver). */
static prnnStatus_t load_tile(const prnn_engine_query *q, const prnn_kernel_geometry *g, int train,
                              prnn_load_stats *stats, prnn_tile_kernels *out)
{
    prnn_tile_kernels k;
    memset(&k, 0, sizeof(k));
    k.geom = *g;
    prnnStatus_t s = load_kernel(q->gs, g, 0, train, stats, &k.fn);
    if (!s && g->shape.pass == PRNN_PASS_FORWARD && q->key.input_mode == PRNN_SKIP_INPUT)
        s = load_kernel(q->gs, g, 1, train, stats, &k.fn_skip);
    if (!s)
        *out = k;
    return s;
}

static void chose(prnn_pass_plan *pp, const prnn_kernel_geometry *g, const prnn_engine_choice *c)
{
    prnn_tile_config_format(&g->tile, pp->config, sizeof(pp->config));
    prnn_engine_note_choice(pp, c);
}

static prnnStatus_t prepare(const prnn_engine_query *q, const prnn_engine_choice *choices,
                            int count, prnn_pass_plan *pp)
{
    prnn_persistent_state *st = calloc(1, sizeof(*st));
    if (!st)
        return prnn_fail(PRNN_STATUS_ALLOC_FAILED, "out of host memory");
    pp->state = st;
    char why[256] = "";
    for (int i = 0; i < count; i++) {
        prnn_kernel_geometry g;
        if (pp->engine->fits(q, &choices[i].config, why, sizeof(why)) ||
            fits_geometry(q, &choices[i].config.tile, &g, why, sizeof(why)))
            continue;
        if (q->pass == PRNN_PASS_BACKWARD_DATA) {
            /* kept for load_training; later ones only if they need no
             * more workspace than the first */
            if (st->n_cand == PRNN_PERSISTENT_CHOICES ||
                (st->n_cand && scratch_bytes(&g) > scratch_bytes(&st->cand[0])))
                continue;
            if (!st->n_cand)
                chose(pp, &g, &choices[i]);
            st->choice[st->n_cand] = choices[i];
            st->cand[st->n_cand++] = g;
            continue;
        }
        prnnStatus_t s = load_tile(q, &g, 0, &pp->stats, &st->run);
        if (s == PRNN_STATUS_SUCCESS) {
            chose(pp, &g, &choices[i]);
            pp->loaded = 1;
            return s;
        }
        if (s != PRNN_STATUS_NOT_SUPPORTED)
            return s; /* a compile or driver failure is a real error */
        snprintf(why, sizeof(why), "%s", prnn_log_get());
    }
    if (st->n_cand)
        return PRNN_STATUS_SUCCESS;
    return prnn_fail(PRNN_STATUS_NOT_SUPPORTED,
                     "no persistent %s configuration runs %s hidden %d batch %d on %s%s%s",
                     prnn_pass_name(q->pass), prnn_mode_name(q->key.mode), q->key.hidden,
                     q->key.mini_batch, q->gs->description, why[0] ? ": " : "", why);
}

static prnnStatus_t load_training(const prnn_engine_query *q, prnn_pass_plan *pp)
{
    prnn_persistent_state *st = pp->state;
    if (q->pass == PRNN_PASS_FORWARD) {
        if (st->train_loaded)
            return PRNN_STATUS_SUCCESS;
        /* the same tile as inference: it fits */
        PRNN_TRY(load_tile(q, &st->run.geom, 1, &pp->stats, &st->train));
        st->train_loaded = 1;
        return PRNN_STATUS_SUCCESS;
    }
    if (pp->loaded)
        return PRNN_STATUS_SUCCESS;
    char why[256] = "";
    for (int i = 0; i < st->n_cand; i++) {
        prnnStatus_t s = load_tile(q, &st->cand[i], 0, &pp->stats, &st->run);
        if (s == PRNN_STATUS_SUCCESS) {
            chose(pp, &st->cand[i], &st->choice[i]);
            pp->loaded = 1;
            return s;
        }
        if (s != PRNN_STATUS_NOT_SUPPORTED)
            return s;
        snprintf(why, sizeof(why), "%s", prnn_log_get());
    }
    return prnn_fail(
        PRNN_STATUS_NOT_SUPPORTED,
        "no persistent backward-data configuration loads for %s hidden %d batch %d on %s%s%s",
        prnn_mode_name(q->key.mode), q->key.hidden, q->key.mini_batch, q->gs->description,
        why[0] ? ": " : "", why);
}

/* ---- running ---- */

/* The hand-off area and streamed weights of the call's pass: the forward
 * tile's, or the largest of the backward choices' (whichever of them loads
 * then fits). */
static void workspace(const prnn_pass_plan *pp, const prnn_rnn_problem *p, int call,
                      prnn_ws_builder *b)
{
    const prnn_persistent_state *st = pp->state;
    const size_t dirs = (size_t)prnn_rnn_dirs(p->rnn);
    size_t ex = 0, groups = 0, packed = 0;
    if (call == PRNN_CALL_INFERENCE || call == PRNN_CALL_FORWARD_TRAINING) {
        const prnn_kernel_geometry *g = &st->run.geom;
        ex = g->exchange_bytes_per_dir;
        groups = (size_t)g->tile.batch_groups;
        packed = g->kglb ? g->packed_bytes_per_dir : 0;
    } else if (call == PRNN_CALL_BACKWARD_DATA) {
        for (int i = 0; i < st->n_cand; i++) {
            const prnn_kernel_geometry *g = &st->cand[i];
            if (g->exchange_bytes_per_dir > ex)
                ex = g->exchange_bytes_per_dir;
            if ((size_t)g->tile.batch_groups > groups)
                groups = (size_t)g->tile.batch_groups;
            if (g->kglb && g->packed_bytes_per_dir > packed)
                packed = g->packed_bytes_per_dir;
        }
    } else {
        return;
    }
    prnn_ws_layout *l = b->l;
    l->engine[PRNN_PERSISTENT_WS_EXCHANGE] = prnn_ws_take(b, prnn_mul_size(dirs, ex));
    /* one counter per direction and batch group, zeroed with the words */
    l->engine[PRNN_PERSISTENT_WS_COUNTERS] = b->cursor;
    b->cursor = prnn_add_size(b->cursor, prnn_mul3_size(dirs, groups, sizeof(unsigned)));
    l->zero_begin = l->engine[PRNN_PERSISTENT_WS_EXCHANGE];
    l->zero_end = b->cursor;
    l->engine[PRNN_PERSISTENT_WS_PACKED] = packed ? prnn_ws_take(b, prnn_mul_size(dirs, packed))
                                                  : (size_t)-1;
}

/* The tile that runs (forward, or the loaded backward tile), else the
 * first backward choice. */
static const prnn_kernel_geometry *shown(const prnn_pass_plan *pp)
{
    const prnn_persistent_state *st = pp->state;
    if (pp->loaded)
        return &st->run.geom;
    return st->n_cand ? &st->cand[0] : NULL;
}

static void describe(const prnn_pass_plan *pp, const prnn_rnn_key *key, prnn_engine_info *info)
{
    (void)key;
    const prnn_kernel_geometry *g = shown(pp);
    memset(info, 0, sizeof(*info));
    info->path = PRNN_PATH_PERSISTENT_RESIDENT;
    if (!g)
        return;
    info->path = g->tile.handoff == 2 ? PRNN_PATH_SMALL_H
                 : g->kglb            ? PRNN_PATH_PERSISTENT_STREAMED
                                      : PRNN_PATH_PERSISTENT_RESIDENT;
    info->num_blocks = g->tile.blocks * g->tile.batch_groups;
    info->threads_per_block = g->tile.threads;
    info->units_per_block = g->units_per_block;
    info->tensor_cores = g->tile.mma;
    info->resident_fraction = g->resident_fraction;
}

static size_t scratch(const prnn_pass_plan *pp)
{
    const prnn_kernel_geometry *g = shown(pp);
    return g ? scratch_bytes(g) : 0;
}

/* What the two rows share: all but which tiles each takes (fits,
 * candidates) and its model of a step. */
#define PERSISTENT_ROW                                                                             \
    .fields = prnn_tile_fields, .force_var = {"PRNN_TILE", "PRNN_TILE_BACKWARD"},                  \
    .unpacked_in_place = 1, .supports = supports, .format = format, .prepare = prepare,            \
    .load_training = load_training, .scratch = scratch, .requests = requests,                      \
    .workspace = workspace, .forward_layer = prnn_persistent_forward_layer,                        \
    .backward_layer = prnn_persistent_backward_layer, .describe = describe,                        \
    .release = prnn_engine_free_state

const prnn_engine prnn_persistent_engine = {
    .name = "persistent",
    .fits = fits_persistent,
    .candidates = candidates_persistent,
    .estimate = estimate_persistent,
    .call_setup = call_setup_persistent,
    PERSISTENT_ROW,
};

const prnn_engine prnn_small_h_engine = {
    .name = "small-h",
    .fits = fits_small_h,
    .candidates = candidates_small_h,
    .estimate = estimate_small_h,
    .call_setup = call_setup_small_h,
    PERSISTENT_ROW,
};
