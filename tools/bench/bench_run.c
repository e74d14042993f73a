#include "bench_run.h"

#include "bench_stats.h"

int bench_run_step(const bench_call_fn fns[BENCH_NUM_PHASES], void *user, char *err, size_t n)
{
    for (int p = 0; p < BENCH_NUM_PHASES; p++)
        if (fns[p](user, err, n))
            return -1;
    return 0;
}

int bench_run_phases(const bench_run_ctx *ctx, const bench_call_fn fns[BENCH_NUM_PHASES],
                     void *user, bench_stats out[BENCH_NUM_PHASES], char *err, size_t n)
{
    if (bench_time_sequence(ctx->d, ctx->timer, ctx->repeats, fns, BENCH_NUM_PHASES, user,
                            ctx->samples, err, n))
        return -1;
    double scale = bench_us_per_step_scale(&ctx->model->pt);
    for (int p = 0; p < BENCH_NUM_PHASES; p++)
        bench_stats_compute(ctx->samples + (size_t)p * ctx->repeats, ctx->repeats, scale, &out[p]);
    return 0;
}
