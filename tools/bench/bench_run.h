/* What every runner (prnn, cuDNN) gets for one point, and the timing of a
 * training step's phases that both share. */
#ifndef PRNN_BENCH_RUN_H
#define PRNN_BENCH_RUN_H

#include "bench_args.h"
#include "bench_data.h"
#include "bench_device.h"
#include "bench_timing.h"

typedef struct {
    const bench_device *d;
    bench_timer *timer; /* at least repeats event pairs */
    double *samples;    /* room for BENCH_NUM_PHASES * repeats samples
                           (ms) */
    const bench_model *model;
    const bench_io *io;
    int warmup, repeats;
    bench_math math;
    int sru_package; /* bench_args.sru_package */
    int workspaces;  /* bench_args.workspaces */
    int verbose;
} bench_run_ctx;

/* µs per timestep from a call's milliseconds: ms * 1000 / T. */
static inline double bench_us_per_step_scale(const bench_point *pt)
{
    return 1000.0 / pt->seq;
}

/* The whole training step: fns[0..BENCH_NUM_PHASES-1] in order. */
int bench_run_step(const bench_call_fn fns[BENCH_NUM_PHASES], void *user, char *err, size_t n);

/*
 * Times the phases of a training step one by one: fns[p] enqueues phase p
 * (bench_phase order) of the runner's step; out[p] gets its µs per
 * timestep over ctx->repeats. Call it right after the whole step was timed
 * with the same calls (that loop is the warm-up).
 *
 * Why a loop of its own, each phase on an idle stream, rather than events
 * between the three calls of the whole-step loop: in that loop the host
 * enqueues a phase while the previous one still runs, so the interval
 * between two events would leave out that phase's host-side cost (launch,
 * validation), which the inference figures and the first phase include.
 * Timed alone, every phase means what an inference point means (one call
 * from an idle stream to its last kernel), so backward-data compares with
 * the forward inference of the same shape, and prnn's phases with cuDNN's,
 * like with like. The price: the phases add up to a little more than the
 * whole step (two host launch latencies), which keeps its own loop and its
 * own figure, undisturbed by extra events or waits.
 * 0, or -1 with the failing call's message in err.
 */
int bench_run_phases(const bench_run_ctx *ctx, const bench_call_fn fns[BENCH_NUM_PHASES],
                     void *user, bench_stats out[BENCH_NUM_PHASES], char *err, size_t n);

#endif
