/*
 * The autotuner for SRU's scan (autotune.h: prnn_autotune_sru). SRU has no
 * persistent tile: its choices are the scan's block size, units per thread
 * and steps in flight (tile_config.h: prnn_sru_config), and one choice
 * compiles both the forward and the backward scan, so a candidate is timed
 * on the two calls that run them (ForwardTraining + BackwardData).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "error.h"
#include "gpu/autotune_common.h"
#include "gpu/gpu_state.h"
#include "gpu/heuristic.h"
#include "gpu/plan.h"
#include "gpu/reserve_layout.h"
#include "gpu/sru_run.h"
#include "gpu/workspace_layout.h"
#include "ref/ref_rnn.h"

/* After the heuristic's choice, in this order (the ones bench/NOTES.md found
 * to matter first). */
static const prnn_sru_config grid[] = {
    {128, 1, 4}, {128, 1, 8}, {128, 2, 4}, {256, 4, 2}, {128, 1, 2}, {128, 2, 8},
    {128, 4, 2}, {256, 1, 4}, {256, 2, 4}, {128, 4, 4}, {256, 1, 8}, {128, 2, 2},
    {128, 8, 2}, {256, 4, 4}, {256, 8, 2}, {64, 1, 4},
};

static int same_config(const prnn_sru_config *a, const prnn_sru_config *b)
{
    return a->threads == b->threads && a->units_per_thread == b->units_per_thread &&
           a->steps_in_flight == b->steps_in_flight;
}

/* The two scan-bearing calls of a training step on d's buffers: y, the
 * reserve and dx are written. */
static prnnStatus_t training_step(const prnn_gpu_call *h, const prnn_plan *plan,
                                  const prnn_rnn_problem *p, prnn_autotune_buffers *d)
{
    prnn_forward_buffers f = {(const void *)d->x, (const void *)d->hx, (const void *)d->cx,
                              (const void *)d->w, (void *)d->y, NULL, NULL, (void *)d->ws,
                              d->ws_bytes, (void *)d->reserve, d->reserve_bytes};
    PRNN_TRY(prnn_sru_forward_run(h, plan, p, 1, &f));
    prnn_backward_data_buffers b = {(const void *)d->y, (const void *)d->dy, NULL, NULL,
                                    (const void *)d->w, (const void *)d->hx,
                                    (const void *)d->cx, (void *)d->dx, NULL, NULL,
                                    (void *)d->ws, d->ws_bytes, (void *)d->reserve,
                                    d->reserve_bytes};
    return prnn_sru_backward_data_run(h, plan, p, &b);
}

typedef struct {
    const prnn_gpu_call *h;
    const prnn_plan *plan;
    const prnn_rnn_problem *p;
    prnn_autotune_buffers *d;
} step_call;

static prnnStatus_t training_step_fn(void *ctx)
{
    const step_call *c = ctx;
    return training_step(c->h, c->plan, c->p, c->d);
}

/* Sizes d's workspace and reserve for p, then runs the step once and waits
 * (repeats = 0), or times `repeats` steps after `warmups` and gives their
 * median per timestep. */
static prnnStatus_t run_candidate(const prnn_gpu_call *h, const prnn_plan *plan,
                                  const prnn_rnn_problem *p, prnn_autotune_buffers *d,
                                  int repeats, int warmups, double *us_per_step)
{
    const prnn_cuda_driver *cu = h->gs->cu;
    prnn_reserve_layout r;
    prnn_reserve_layout_compute(p, &r);
    PRNN_TRY(prnn_autotune_ensure(cu, &d->ws, &d->ws_bytes, prnn_ws_bytes(plan, p)));
    PRNN_TRY(prnn_autotune_ensure(cu, &d->reserve, &d->reserve_bytes, r.total));
    if (!repeats) {
        PRNN_TRY(training_step(h, plan, p, d));
        return prnn_cu_check(cu->cuStreamSynchronize((CUstream)h->stream),
                             "cuStreamSynchronize");
    }
    step_call c = {h, plan, p, d};
    return prnn_autotune_time(h, training_step_fn, &c, p->seq_length, repeats, warmups,
                              us_per_step);
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

/* The CPU reference's y and dx of the check problem, and room for the
 * device's. */
typedef struct {
    void *yref, *dxref, *ygot, *dxgot;
    size_t check_y, check_x; /* elements */
} check_data;

static void free_check(check_data *cd)
{
    void *all[] = {cd->yref, cd->dxref, cd->ygot, cd->dxgot};
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
        free(all[i]);
}

static prnnStatus_t make_check(const struct prnnRNNStruct *rnn, const prnn_autotune_inputs *in,
                               check_data *cd)
{
    const prnn_rnn_problem *pc = &in->check;
    const size_t es = prnn_dtype_size(rnn->dtype);
    cd->check_x = pc->total_rows * (size_t)rnn->hidden;
    cd->check_y = cd->check_x * prnn_rnn_dirs(rnn);
    cd->yref = malloc(cd->check_y * es);
    cd->ygot = malloc(cd->check_y * es);
    cd->dxref = malloc(cd->check_x * es);
    cd->dxgot = malloc(cd->check_x * es);
    size_t wsb = prnn_ref_workspace_bytes(pc), rsb = prnn_ref_reserve_bytes(pc);
    void *ws = malloc(wsb ? wsb : 1), *res = malloc(rsb ? rsb : 1);
    prnnStatus_t s = PRNN_STATUS_SUCCESS;
    if (!cd->yref || !cd->ygot || !cd->dxref || !cd->dxgot || !ws || !res)
        s = prnn_fail(PRNN_STATUS_ALLOC_FAILED, "out of host memory");
    if (!s)
        s = prnn_ref_forward(pc, 1, in->x, in->hx, in->cx, in->w, cd->yref, NULL, NULL, ws, res);
    if (!s)
        s = prnn_ref_backward_data(pc, cd->yref, in->dy, NULL, NULL, in->w, in->hx, in->cx,
                                   cd->dxref, NULL, NULL, ws, res);
    free(ws);
    free(res);
    return s;
}

/* Checks one candidate on the short problem (y and dx poisoned first); 0
 * with c->out.rel_error set, or a failing status (EXECUTION_FAILED with a note
 * when the results are wrong). */
static prnnStatus_t check(const prnn_gpu_call *h, const prnn_plan *plan,
                          const prnn_rnn_problem *pc, const check_data *cd,
                          prnn_autotune_buffers *d, prnn_autotune_sru_candidate *c)
{
    const prnn_cuda_driver *cu = h->gs->cu;
    const prnnDataType_t t = pc->rnn->dtype;
    const size_t es = prnn_dtype_size(t);
    CUstream stream = (CUstream)h->stream;
    PRNN_TRY(prnn_cu_check(cu->cuMemsetD8Async(d->y, 0xff, cd->check_y * es, stream),
                           "cuMemsetD8Async"));
    PRNN_TRY(prnn_cu_check(cu->cuMemsetD8Async(d->dx, 0xff, cd->check_x * es, stream),
                           "cuMemsetD8Async"));
    PRNN_TRY(run_candidate(h, plan, pc, d, 0, 0, NULL));
    PRNN_TRY(prnn_cu_check(cu->cuMemcpyDtoH(cd->ygot, d->y, cd->check_y * es), "cuMemcpyDtoH"));
    PRNN_TRY(prnn_cu_check(cu->cuMemcpyDtoH(cd->dxgot, d->dx, cd->check_x * es), "cuMemcpyDtoH"));
    const double ey = rel_error(cd->ygot, cd->yref, t, cd->check_y);
    const double ex = rel_error(cd->dxgot, cd->dxref, t, cd->check_x);
    c->out.rel_error = ey > ex || isnan(ey) ? ey : ex;
    const double tol = t == PRNN_DATA_FLOAT || t == PRNN_DATA_DOUBLE ? 1e-4 : 3e-2;
    if (!(c->out.rel_error <= tol)) {
        snprintf(c->out.note, sizeof(c->out.note),
                 "rejected: relative error %.3g > %.0e (y %.3g, dx %.3g)", c->out.rel_error, tol,
                 ey, ex);
        return PRNN_STATUS_EXECUTION_FAILED;
    }
    return PRNN_STATUS_SUCCESS;
}

typedef struct {
    const prnn_gpu_call *h;
    const struct prnnRNNStruct *rnn;
    int mini_batch;
    const prnn_rnn_problem *pt;
    prnn_autotune_buffers *d;
    int repeats;
    const prnn_sru_config *configs[2];
} alternation;

static prnnStatus_t time_one(void *ctx, int k, double *us)
{
    const alternation *a = ctx;
    prnn_plan plan;
    PRNN_TRY(prnn_plan_sru(a->h->gs, a->rnn, a->mini_batch, a->configs[k],
                           PRNN_CONFIG_AUTOTUNED, 1, &plan));
    return run_candidate(a->h, &plan, a->pt, a->d, a->repeats, 2, us);
}

/* The heuristic's choice (cand[0]) and the winner timed again in
 * alternation; the winner must beat the heuristic here too. */
static prnnStatus_t remeasure(const prnn_gpu_call *h, const struct prnnRNNStruct *rnn,
                              int mini_batch, const prnn_rnn_problem *pt,
                              prnn_autotune_buffers *d, int repeats,
                              prnn_autotune_sru_report *report)
{
    prnn_autotune_sru_candidate *pair[2] = {&report->cand[0], &report->cand[report->best]};
    alternation a = {h, rnn, mini_batch, pt, d, repeats, {&pair[0]->config, &pair[1]->config}};
    double us[2];
    PRNN_TRY(prnn_autotune_alternate(time_one, &a, us));
    report->heuristic_us = us[0];
    if (!prnn_autotune_settle(us, &pair[0]->out, &pair[1]->out))
        report->best = 0;
    return PRNN_STATUS_SUCCESS;
}

static prnnStatus_t search(const prnn_gpu_call *h, const struct prnnRNNStruct *rnn,
                           int mini_batch, const prnn_autotune_options *opts_in,
                           prnn_sru_config *best, prnn_autotune_sru_report *report)
{
    struct prnn_gpu_state *gs = h->gs;
    const prnn_cuda_driver *cu = gs->cu;
    prnn_autotune_options opts;
    prnn_autotune_resolve(opts_in, &opts);
    memset(report, 0, sizeof(*report));
    report->best = -1;
    const double t_start = prnn_autotune_now_s();

    prnn_sru_config chosen[PRNN_AUTOTUNE_MAX_CANDIDATES];
    int m = 0;
    prnn_heuristic_sru(rnn, mini_batch, &gs->info, &chosen[m++]);
    for (size_t i = 0; i < sizeof(grid) / sizeof(grid[0]) && m < opts.max_candidates; i++)
        if (!same_config(&grid[i], &chosen[0]))
            chosen[m++] = grid[i];

    /* Fill the disk cache in parallel; loading below then reads it. */
    prnn_kernel_request reqs[PRNN_AUTOTUNE_MAX_CANDIDATES];
    int nreq = 0;
    for (int i = 0; i < m; i++)
        if (prnn_request_sru(rnn->dtype, rnn->hidden, chosen[i].threads,
                             chosen[i].units_per_thread, chosen[i].steps_in_flight,
                             gs->info.sm, &reqs[nreq]) == PRNN_STATUS_SUCCESS)
            nreq++;
    prnn_autotune_precompile(reqs, nreq, opts.compile_threads);

    prnn_autotune_inputs in;
    check_data cd;
    memset(&cd, 0, sizeof(cd));
    prnn_autotune_buffers d;
    memset(&d, 0, sizeof(d));
    prnnStatus_t s = prnn_autotune_inputs_make(rnn, mini_batch, opts.seq_length, &in);
    const prnn_rnn_problem *pc = &in.check, *pt = &in.timed;
    if (!s)
        s = make_check(rnn, &in, &cd);
    if (!s)
        s = prnn_autotune_inputs_upload(cu, &in, rnn->dtype, &d);

    for (int i = 0; i < m && !s; i++) {
        prnn_autotune_sru_candidate *c = &report->cand[report->count++];
        c->config = chosen[i];
        char text[96];
        prnn_config_format(prnn_sru_fields, &c->config, text, sizeof(text));
        if (i > 0 && prnn_autotune_now_s() - t_start > opts.budget_s) {
            snprintf(c->out.note, sizeof(c->out.note), "skipped: time budget spent");
            continue;
        }
        prnn_plan plan;
        prnnStatus_t cs =
            prnn_plan_sru(gs, rnn, mini_batch, &c->config, PRNN_CONFIG_AUTOTUNED, 1, &plan);
        const int ran = cs == PRNN_STATUS_SUCCESS;
        if (ran)
            cs = check(h, &plan, pc, &cd, &d, c);
        const int rejected = ran && cs == PRNN_STATUS_EXECUTION_FAILED && c->out.note[0];
        if (!cs)
            /* the first timing also brings the clocks up from idle */
            cs = run_candidate(h, &plan, pt, &d, opts.repeats, i == 0 ? 40 : 2,
                               &c->out.us_per_step);
        int now_best;
        s = prnn_autotune_finish(&opts, i, m, cs, rejected, text, &c->out,
                                 report->best < 0 ? NULL : &report->cand[report->best].out,
                                 &now_best, &report->heuristic_us);
        if (now_best)
            report->best = report->count - 1;
    }
    if (!s && report->best > 0 && report->cand[0].out.ok)
        s = remeasure(h, rnn, mini_batch, pt, &d, opts.repeats, report);
    prnn_autotune_free_buffers(cu, &d);
    prnn_autotune_inputs_free(&in);
    free_check(&cd);
    report->seconds = prnn_autotune_now_s() - t_start;
    if (s)
        return s;
    if (report->best < 0)
        return prnn_fail(PRNN_STATUS_NOT_SUPPORTED,
                         "autotune: none of %d SRU scan configurations for hidden %d batch %d "
                         "ran correctly", m, rnn->hidden, mini_batch);
    *best = report->cand[report->best].config;
    prnn_tuning_key key = prnn_plan_tuning_key(&gs->info, rnn, mini_batch, PRNN_PASS_FORWARD);
    prnn_tuning_entry e;
    prnn_tuning_entry_from_key(&e, &key);
    e.sru = *best;
    e.us_per_step = report->cand[report->best].out.us_per_step;
    return prnn_autotune_store(opts.output_db, &e, opts.seq_length, report->heuristic_us);
}

prnnStatus_t prnn_autotune_sru(const prnn_gpu_call *h, const struct prnnRNNStruct *rnn,
                               int mini_batch, const prnn_autotune_options *opts,
                               prnn_sru_config *best, prnn_autotune_sru_report *report)
{
    if (rnn->mode != PRNN_SRU)
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "autotune: prnn_autotune_sru needs an SRU "
                         "descriptor, not %s", prnn_mode_name(rnn->mode));
    prnn_autotune_sru_report local;
    prnnStatus_t s = prnn_gpu_enter(h->gs);
    if (s)
        return s;
    s = search(h, rnn, mini_batch, opts, best, report ? report : &local);
    prnn_gpu_leave(h->gs);
    return s;
}
