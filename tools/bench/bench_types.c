/* Names of the benchmark's enums, and the per-point summary. */
#include "bench_types.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *bench_impl_name(bench_impl i)
{
    switch (i) {
    case BENCH_IMPL_PRNN: return "prnn";
    case BENCH_IMPL_PRNN_GRAPH: return "prnn-graph";
    case BENCH_IMPL_CUBLASLT_GRAPH: return "cublasLt-graph";
    case BENCH_IMPL_CUDNN_STANDARD: return "cudnn-standard";
    case BENCH_IMPL_CUDNN_PERSIST_STATIC: return "cudnn-persist-static";
    case BENCH_IMPL_CUDNN_PERSIST_DYNAMIC: return "cudnn-persist-dynamic";
    case BENCH_IMPL_CUDNN_PERSIST_SMALL_H: return "cudnn-persist-small-h";
    case BENCH_NUM_IMPLS: break;
    }
    return "?";
}

const char *bench_state_name(bench_state s)
{
    switch (s) {
    case BENCH_NOT_RUN: return "not-run";
    case BENCH_OK: return "ok";
    case BENCH_REFUSED: return "refused";
    case BENCH_NA: return "n/a";
    case BENCH_FAILED: return "error";
    }
    return "?";
}

const char *bench_dtype_short(prnnDataType_t t)
{
    switch (t) {
    case PRNN_DATA_FLOAT: return "f32";
    case PRNN_DATA_DOUBLE: return "f64";
    case PRNN_DATA_HALF: return "f16";
    case PRNN_DATA_BFLOAT16: return "bf16";
    }
    return "?";
}

const char *bench_pass_name(bench_pass p)
{
    return p == BENCH_TRAINING ? "training" : "inference";
}

const char *bench_phase_key(bench_phase p)
{
    switch (p) {
    case BENCH_PHASE_FWD_TRAINING: return "fwd_training";
    case BENCH_PHASE_BWD_DATA: return "bwd_data";
    case BENCH_PHASE_BWD_WEIGHTS: return "bwd_weights";
    case BENCH_NUM_PHASES: break;
    }
    return "?";
}

void bench_proj_suffix(char *buf, size_t n, int proj)
{
    if (proj)
        snprintf(buf, n, " P=%d", proj);
    else if (n)
        buf[0] = '\0';
}

void bench_copy(char *dst, size_t n, const char *src)
{
    if (!n)
        return;
    size_t len = strlen(src);
    if (len >= n)
        len = n - 1;
    memcpy(dst, src, len);
    dst[len] = '\0';
}

static void stats_none(bench_stats *s)
{
    s->n = 0;
    s->median = s->min = s->max = NAN;
    s->q1 = s->q3 = s->mean = NAN;
}

static void impl_none(bench_impl_result *ir)
{
    ir->state = BENCH_NOT_RUN;
    stats_none(&ir->us);
    for (int p = 0; p < BENCH_NUM_PHASES; p++)
        stats_none(&ir->phase[p]);
    ir->setup_ms = ir->first_call_ms = NAN;
    ir->max_rel_diff = NAN;
}

void bench_result_init(bench_result *r, const bench_point *pt)
{
    memset(r, 0, sizeof(*r));
    r->pt = *pt;
    for (int i = 0; i < BENCH_NUM_IMPLS; i++)
        impl_none(&r->impl[i]);
    impl_none(&r->fwd_inference);
    r->bwd_data_ratio = NAN;
    r->layout_ratio = r->layout_ratio_cudnn = NAN;
    r->plan.resident_fraction = NAN;
    r->plan.plan_ms = r->plan.compile_ms = r->plan.prepare_wall_ms = NAN;
    r->best_cudnn = -1;
    r->ratio = NAN;
    r->max_rel_diff = NAN;
    r->reference = -1;
}

void bench_result_finish(bench_result *r)
{
    r->best_cudnn = -1;
    for (int i = BENCH_FIRST_CUDNN; i < BENCH_FIRST_CUDNN + BENCH_NUM_CUDNN; i++) {
        const bench_impl_result *ir = &r->impl[i];
        if (ir->state != BENCH_OK || !(ir->us.median > 0))
            continue;
        if (r->best_cudnn < 0 || ir->us.median < r->impl[r->best_cudnn].us.median)
            r->best_cudnn = i;
    }
    const bench_impl_result *p = &r->impl[BENCH_IMPL_PRNN];
    r->ratio = NAN;
    if (r->best_cudnn >= 0 && p->state == BENCH_OK && p->us.median > 0)
        r->ratio = p->us.median / r->impl[r->best_cudnn].us.median;
    /* NaN > 0 is false: a phase that was not timed gives no ratio. */
    const bench_impl_result *inf = &r->fwd_inference;
    double bwd = p->phase[BENCH_PHASE_BWD_DATA].median;
    r->bwd_data_ratio = NAN;
    if (p->state == BENCH_OK && inf->state == BENCH_OK && bwd > 0 && inf->us.median > 0)
        r->bwd_data_ratio = bwd / inf->us.median;

    /* NaN (an output that held NaN/Inf) must win over any number. */
    r->max_rel_diff = NAN;
    int any = 0, poisoned = 0;
    double worst = 0;
    for (int i = 0; i < BENCH_NUM_IMPLS; i++) {
        const bench_impl_result *ir = &r->impl[i];
        if (!ir->compared)
            continue;
        any = 1;
        if (isnan(ir->max_rel_diff))
            poisoned = 1;
        else if (ir->max_rel_diff > worst)
            worst = ir->max_rel_diff;
    }
    if (any && !poisoned)
        r->max_rel_diff = worst;
}

const bench_impl_result *bench_best_cudnn(const bench_result *r)
{
    return r->best_cudnn >= 0 ? &r->impl[r->best_cudnn] : NULL;
}

int bench_result_compared(const bench_result *r)
{
    int any = 0;
    for (int i = 0; i < BENCH_NUM_IMPLS; i++)
        any |= r->impl[i].compared;
    return any;
}
