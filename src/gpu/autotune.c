#include "gpu/autotune.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dtype.h"
#include "error.h"
#include "gpu/autotune_common.h"
#include "gpu/gpu_backward.h"
#include "gpu/gpu_forward.h"
#include "gpu/gpu_state.h"
#include "gpu/heuristic.h"
#include "gpu/kernel_request.h"
#include "gpu/plan.h"
#include "gpu/reserve_layout.h"
#include "gpu/workspace_layout.h"
#include "ref/ref_rnn.h"
#include "tuning/tuning_db.h"

void prnn_autotune_defaults(prnn_autotune_options *o)
{
    memset(o, 0, sizeof(*o));
    o->max_candidates = 12;
    o->seq_length = 256;
    o->repeats = 5;
    o->budget_s = 60.0;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    o->compile_threads = n > 0 ? (int)n : 4;
}

/* The pass's call on the device buffers: a forward (inference) call, or a
 * BackwardData call on the reserve the last ForwardTraining filled. */
static prnnStatus_t run_pass(const prnn_gpu_call *h, const prnn_plan *plan, prnn_pass pass,
                             const prnn_rnn_problem *p, prnn_autotune_buffers *d)
{
    const int lstm = p->rnn->mode == PRNN_LSTM;
    if (pass == PRNN_PASS_FORWARD) {
        prnn_forward_buffers b = {(const void *)d->x, (const void *)d->hx,
                                  lstm ? (const void *)d->cx : NULL, (const void *)d->w,
                                  (void *)d->y, NULL, NULL, (void *)d->ws, d->ws_bytes, NULL, 0};
        return prnn_gpu_forward_run(h, plan, p, 0, &b);
    }
    prnn_backward_data_buffers b = {(const void *)d->y, (const void *)d->dy, NULL, NULL,
                                    (const void *)d->w, (const void *)d->hx,
                                    lstm ? (const void *)d->cx : NULL, (void *)d->dx, NULL, NULL,
                                    (void *)d->ws, d->ws_bytes, (void *)d->reserve,
                                    d->reserve_bytes};
    return prnn_gpu_backward_data_run(h, plan, p, &b);
}

/* Before timing backward data: ForwardTraining fills the reserve (and y). */
static prnnStatus_t prime_pass(const prnn_gpu_call *h, const prnn_plan *plan, prnn_pass pass,
                               const prnn_rnn_problem *p, prnn_autotune_buffers *d)
{
    const prnn_cuda_driver *cu = h->gs->cu;
    PRNN_TRY(prnn_autotune_ensure(cu, &d->ws, &d->ws_bytes, prnn_ws_bytes(plan, p)));
    if (pass == PRNN_PASS_FORWARD)
        return PRNN_STATUS_SUCCESS;
    prnn_reserve_layout r;
    prnn_reserve_layout_compute(p, &r);
    PRNN_TRY(prnn_autotune_ensure(cu, &d->reserve, &d->reserve_bytes, r.total));
    const int lstm = p->rnn->mode == PRNN_LSTM;
    prnn_forward_buffers b = {(const void *)d->x, (const void *)d->hx,
                              lstm ? (const void *)d->cx : NULL, (const void *)d->w, (void *)d->y,
                              NULL, NULL, (void *)d->ws, d->ws_bytes, (void *)d->reserve,
                              d->reserve_bytes};
    return prnn_gpu_forward_run(h, plan, p, 1, &b);
}

typedef struct {
    const prnn_gpu_call *h;
    const prnn_plan *plan;
    prnn_pass pass;
    const prnn_rnn_problem *p;
    prnn_autotune_buffers *d;
} pass_call;

static prnnStatus_t run_pass_fn(void *ctx)
{
    const pass_call *c = ctx;
    return run_pass(c->h, c->plan, c->pass, c->p, c->d);
}

/* Runs the pass once (repeats = 0, then synchronises), or times `repeats`
 * runs after `warmups` and gives their median per step. */
static prnnStatus_t run_candidate(const prnn_gpu_call *h, const prnn_plan *plan, prnn_pass pass,
                                  const prnn_rnn_problem *p, prnn_autotune_buffers *d, int repeats,
                                  int warmups, double *us_per_step)
{
    const prnn_cuda_driver *cu = h->gs->cu;
    PRNN_TRY(prime_pass(h, plan, pass, p, d));
    if (!repeats) {
        PRNN_TRY(run_pass(h, plan, pass, p, d));
        return prnn_cu_check(cu->cuStreamSynchronize((CUstream)h->stream),
                             "cuStreamSynchronize");
    }
    pass_call c = {h, plan, pass, p, d};
    return prnn_autotune_time(h, run_pass_fn, &c, p->seq_length, repeats, warmups, us_per_step);
}

/* A plan running one candidate of the pass (the forward pass of a
 * backward candidate runs on the standard path: only the reserve matters). */
static prnnStatus_t candidate_plan(const prnn_gpu_call *h, const struct prnnRNNStruct *rnn,
                                   int mini_batch, prnn_pass pass, const prnn_tile_config *tile,
                                   prnn_plan *plan)
{
    return pass == PRNN_PASS_FORWARD
               ? prnn_plan_with_tiles(h->gs, rnn, mini_batch, tile, NULL, plan)
               : prnn_plan_with_tiles(h->gs, rnn, mini_batch, NULL, tile, plan);
}

typedef struct {
    const prnn_gpu_call *h;
    const struct prnnRNNStruct *rnn;
    int mini_batch;
    prnn_pass pass;
    const prnn_rnn_problem *pt;
    prnn_autotune_buffers *d;
    int repeats;
    const prnn_tile_config *tiles[2];
} alternation;

static prnnStatus_t time_one(void *ctx, int k, double *us)
{
    const alternation *a = ctx;
    prnn_plan plan;
    PRNN_TRY(candidate_plan(a->h, a->rnn, a->mini_batch, a->pass, a->tiles[k], &plan));
    return run_candidate(a->h, &plan, a->pass, a->pt, a->d, a->repeats, 2, us);
}

/* The heuristic's tile (cand[0]) and the winner, timed again in alternation
 * (prnn_autotune_alternate); the report and the decision use these figures.
 * The winner must beat the heuristic here too, or the heuristic's tile is
 * kept: an autotuned entry is never slower than what the library would have
 * chosen without it. */
static prnnStatus_t remeasure(const prnn_gpu_call *h, const struct prnnRNNStruct *rnn,
                              int mini_batch, prnn_pass pass, const prnn_rnn_problem *pt,
                              prnn_autotune_buffers *d, int repeats, prnn_autotune_report *report)
{
    prnn_autotune_candidate *pair[2] = {&report->cand[0], &report->cand[report->best]};
    alternation a = {h, rnn, mini_batch, pass, pt, d, repeats,
                     {&pair[0]->config, &pair[1]->config}};
    double us[2];
    PRNN_TRY(prnn_autotune_alternate(time_one, &a, us));
    report->heuristic_us = us[0];
    if (!prnn_autotune_settle(us, &pair[0]->out, &pair[1]->out))
        report->best = 0;
    return PRNN_STATUS_SUCCESS;
}

static int same_tile(const prnn_tile_config *a, const prnn_tile_config *b)
{
    return memcmp(a, b, sizeof(*a)) == 0;
}

/* Families of tiles whose costs the heuristic's model compares poorly. */
enum { TILE_FAMILIES = 4 };
static int tile_family(const prnn_tile_config *t)
{
    return 2 * t->mma + (t->batch_groups > 1);
}

static int in_list(const prnn_kernel_geometry *list, int count, const prnn_tile_config *t)
{
    for (int j = 0; j < count; j++)
        if (same_tile(&list[j].tile, t))
            return 1;
    return 0;
}

/* The CPU reference of the check: y (forward) or dx (backward data) of the
 * short problem pc, into ref. */
static prnnStatus_t reference(const prnn_rnn_problem *pc, prnn_pass pass, const void *x,
                              const void *hx, const void *cx, const void *w, const void *dy,
                              void *ref)
{
    const int lstm = pc->rnn->mode == PRNN_LSTM;
    size_t es = prnn_dtype_size(pc->rnn->dtype);
    size_t ycount = pc->total_rows * (size_t)pc->rnn->hidden * prnn_rnn_dirs(pc->rnn);
    size_t wsb = prnn_ref_workspace_bytes(pc), rsb = prnn_ref_reserve_bytes(pc);
    void *ws = malloc(wsb ? wsb : 1), *res = malloc(rsb ? rsb : 1), *y = malloc(ycount * es);
    prnnStatus_t s = PRNN_STATUS_SUCCESS;
    if (!ws || !res || !y)
        s = prnn_fail(PRNN_STATUS_ALLOC_FAILED, "out of host memory");
    else if (pass == PRNN_PASS_FORWARD)
        s = prnn_ref_forward(pc, 0, x, hx, lstm ? cx : NULL, w, ref, NULL, NULL, ws, NULL);
    else {
        s = prnn_ref_forward(pc, 1, x, hx, lstm ? cx : NULL, w, y, NULL, NULL, ws, res);
        if (!s)
            s = prnn_ref_backward_data(pc, y, dy, NULL, NULL, w, hx, lstm ? cx : NULL, ref, NULL,
                                       NULL, ws, res);
    }
    free(ws);
    free(res);
    free(y);
    return s;
}

static prnnStatus_t autotune_in_context(const prnn_gpu_call *h,
                                        const struct prnnRNNStruct *rnn, int mini_batch,
                                        prnn_pass pass, const prnn_autotune_options *opts_in,
                                        prnn_tile_config *best,
                                        prnn_autotune_report *report_out)
{
    struct prnn_gpu_state *gs = h->gs;
    const prnn_cuda_driver *cu = gs->cu;
    prnn_autotune_options opts;
    prnn_autotune_resolve(opts_in, &opts);
    prnn_autotune_report local, *report = report_out ? report_out : &local;
    memset(report, 0, sizeof(*report));
    report->best = -1;
    double t_start = prnn_autotune_now_s();

    /* Candidates: the heuristic's first choice, then the model's ranking
     * taken in turn from each family (engine x batch groups), each family's
     * best also with the other hand-off. The cost model ranks tiles of one
     * family usefully but compares families poorly (bench/NOTES.md), so no
     * family is left untimed because another looks cheaper on paper. */
    prnn_kernel_shape shape;
    prnn_plan_shape(rnn, mini_batch, 0, pass, &shape);
    int use_mma = prnn_plan_use_mma(rnn, &gs->info);
    enum { POOL = 2048 };
    prnn_kernel_geometry *geoms = malloc(sizeof(*geoms) * POOL);
    if (!geoms)
        return prnn_fail(PRNN_STATUS_ALLOC_FAILED, "out of host memory");
    int n = prnn_heuristic_candidates(&shape, &gs->info, use_mma, geoms, POOL);
    if (opts.max_scratch_bytes) {
        int kept = 0;
        for (int i = 0; i < n; i++)
            if (geoms[i].exchange_bytes_per_dir + geoms[i].packed_bytes_per_dir <=
                opts.max_scratch_bytes)
                geoms[kept++] = geoms[i];
        n = kept;
    }
    prnn_kernel_geometry chosen[PRNN_AUTOTUNE_MAX_CANDIDATES];
    int m = 0;
    int next[TILE_FAMILIES] = {0}; /* where each family's search resumes */
    int taken[TILE_FAMILIES] = {0}; /* candidates chosen from each */
    int first = n ? tile_family(&geoms[0].tile) : 0;
    for (int progress = 1; progress && m < opts.max_candidates;) {
        progress = 0;
        for (int k = 0; k < TILE_FAMILIES && m < opts.max_candidates; k++) {
            int f = (first + k) % TILE_FAMILIES;
            int i = next[f];
            while (i < n && (tile_family(&geoms[i].tile) != f ||
                             in_list(chosen, m, &geoms[i].tile)))
                i++;
            next[f] = i + 1;
            if (i >= n)
                continue;
            progress = 1;
            chosen[m++] = geoms[i];
            if (!taken[f]++ && m < opts.max_candidates && rnn->dtype != PRNN_DATA_DOUBLE) {
                prnn_tile_config t = geoms[i].tile;
                t.handoff = !t.handoff;
                char why[128];
                if (!prnn_kernel_geometry_compute(&shape, &t, &gs->info, &chosen[m], why,
                                                  sizeof(why)) &&
                    (!opts.max_scratch_bytes ||
                     chosen[m].exchange_bytes_per_dir + chosen[m].packed_bytes_per_dir <=
                         opts.max_scratch_bytes))
                    m++;
            }
        }
    }
    free(geoms);
    if (!m)
        return prnn_fail(PRNN_STATUS_NOT_SUPPORTED,
                         "autotune: no persistent %s configuration fits %s hidden %d batch %d",
                         prnn_pass_name(pass), prnn_mode_name(rnn->mode), rnn->hidden,
                         mini_batch);

    /* Fill the disk cache in parallel; loading below then reads it. */
    prnn_kernel_request *reqs = malloc(sizeof(*reqs) * (size_t)m);
    if (!reqs)
        return prnn_fail(PRNN_STATUS_ALLOC_FAILED, "out of host memory");
    int nreq = 0;
    for (int i = 0; i < m; i++)
        if (prnn_request_persistent(&chosen[i], 0, 0, gs->info.sm, &reqs[nreq]) ==
            PRNN_STATUS_SUCCESS)
            nreq++;
    prnn_autotune_precompile(reqs, nreq, opts.compile_threads);
    free(reqs);

    /* One reference run (CPU) for every candidate's check. */
    prnn_autotune_inputs in;
    prnnStatus_t s = prnn_autotune_inputs_make(rnn, mini_batch, opts.seq_length, &in);
    const prnn_rnn_problem *pc = &in.check, *pt = &in.timed;
    size_t es = prnn_dtype_size(rnn->dtype);
    int dirs = prnn_rnn_dirs(rnn);
    /* what the check compares: y (forward) or dx (backward) of the check problem */
    size_t ccount = pass == PRNN_PASS_FORWARD ? pc->total_rows * (size_t)rnn->hidden * dirs
                                              : pc->total_rows * (size_t)rnn->hidden;
    void *href = malloc(ccount * es), *hgot = malloc(ccount * es);
    prnn_autotune_buffers d;
    memset(&d, 0, sizeof(d));
    if (!s && (!href || !hgot))
        s = prnn_fail(PRNN_STATUS_ALLOC_FAILED, "out of host memory");
    if (!s)
        s = reference(pc, pass, in.x, in.hx, in.cx, in.w, in.dy, href);
    if (!s)
        s = prnn_autotune_inputs_upload(cu, &in, rnn->dtype, &d);
    double tol = rnn->dtype == PRNN_DATA_FLOAT || rnn->dtype == PRNN_DATA_DOUBLE ? 1e-4 : 3e-2;
    CUdeviceptr checked = pass == PRNN_PASS_FORWARD ? d.y : d.dx;

    for (int i = 0; i < m && !s; i++) {
        prnn_autotune_candidate *c = &report->cand[report->count++];
        c->config = chosen[i].tile;
        char text[256];
        prnn_tile_config_format(&c->config, text, sizeof(text));
        if (i > 0 && prnn_autotune_now_s() - t_start > opts.budget_s) {
            snprintf(c->out.note, sizeof(c->out.note), "skipped: time budget spent");
            continue;
        }
        prnn_plan plan;
        int rejected = 0;
        prnnStatus_t cs = candidate_plan(h, rnn, mini_batch, pass, &c->config, &plan);
        if (cs == PRNN_STATUS_SUCCESS) {
            /* check: 3 steps against the reference, output poisoned first */
            cs = prnn_cu_check(cu->cuMemsetD8Async(checked, 0xff, ccount * es, (CUstream)h->stream),
                               "cuMemsetD8Async");
            if (!cs)
                cs = run_candidate(h, &plan, pass, pc, &d, 0, 0, NULL);
            if (!cs)
                cs = prnn_cu_check(cu->cuMemcpyDtoH(hgot, checked, ccount * es), "cuMemcpyDtoH");
            if (!cs) {
                double num = 0, den = 0;
                for (size_t k = 0; k < ccount; k++) {
                    double a = prnn_load_as_double(hgot, rnn->dtype, k);
                    double r = prnn_load_as_double(href, rnn->dtype, k);
                    num += (a - r) * (a - r);
                    den += r * r;
                }
                c->out.rel_error = den > 0 ? sqrt(num / den) : sqrt(num);
                if (!(c->out.rel_error <= tol)) {
                    snprintf(c->out.note, sizeof(c->out.note),
                             "rejected: relative error %.3g > %.0e", c->out.rel_error, tol);
                    cs = PRNN_STATUS_EXECUTION_FAILED;
                    rejected = 1;
                }
            }
            if (!cs)
                /* The first timing of a key also brings the clocks up
                 * from idle (a few ms of work). */
                cs = run_candidate(h, &plan, pass, pt, &d, opts.repeats, i == 0 ? 40 : 2,
                                   &c->out.us_per_step);
        }
        int now_best;
        s = prnn_autotune_finish(&opts, i, m, cs, rejected, text, &c->out,
                                 report->best < 0 ? NULL : &report->cand[report->best].out,
                                 &now_best, &report->heuristic_us);
        if (now_best)
            report->best = report->count - 1;
    }
    if (!s && report->best > 0 && report->cand[0].out.ok)
        s = remeasure(h, rnn, mini_batch, pass, pt, &d, opts.repeats, report);
    prnn_autotune_free_buffers(cu, &d);
    prnn_autotune_inputs_free(&in);
    free(href);
    free(hgot);
    report->seconds = prnn_autotune_now_s() - t_start;
    if (s)
        return s;
    if (report->best < 0)
        return prnn_fail(PRNN_STATUS_NOT_SUPPORTED,
                         "autotune: none of %d %s candidates for %s hidden %d batch %d ran "
                         "correctly", m, prnn_pass_name(pass), prnn_mode_name(rnn->mode),
                         rnn->hidden, mini_batch);
    *best = report->cand[report->best].config;
    prnn_tuning_key key = prnn_plan_tuning_key(&gs->info, rnn, mini_batch, pass);
    prnn_tuning_entry e;
    prnn_tuning_entry_from_key(&e, &key);
    e.config = *best;
    e.us_per_step = report->cand[report->best].out.us_per_step;
    return prnn_autotune_store(opts.output_db, &e, opts.seq_length, report->heuristic_us);
}

prnnStatus_t prnn_autotune_shape(const prnn_gpu_call *h, const struct prnnRNNStruct *rnn,
                                 int mini_batch, prnn_pass pass,
                                 const prnn_autotune_options *opts_in, prnn_tile_config *best,
                                 prnn_autotune_report *report_out)
{
    /* Everything in this file runs with the handle's context current, pushed
     * here once: the tool calls this from a thread that has none (the
     * planner already has it pushed; pushes nest). */
    prnnStatus_t s = prnn_gpu_enter(h->gs);
    if (s)
        return s;
    s = autotune_in_context(h, rnn, mini_batch, pass, opts_in, best, report_out);
    prnn_gpu_leave(h->gs);
    return s;
}
