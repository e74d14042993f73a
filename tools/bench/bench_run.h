/* What every runner (prnn, cuDNN) gets for one point. */
#ifndef PRNN_BENCH_RUN_H
#define PRNN_BENCH_RUN_H

#include "bench_args.h"
#include "bench_data.h"
#include "bench_device.h"
#include "bench_timing.h"

typedef struct {
    const bench_device *d;
    bench_timer *timer;      /* at least repeats event pairs */
    double *samples;         /* room for repeats samples (ms) */
    const bench_model *model;
    const bench_io *io;
    int warmup, repeats;
    bench_math math;
    int verbose;
} bench_run_ctx;

/* µs per timestep from a call's milliseconds: ms * 1000 / T. */
static inline double bench_us_per_step_scale(const bench_point *pt)
{
    return 1000.0 / pt->seq;
}

#endif
