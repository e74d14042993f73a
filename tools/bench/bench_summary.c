#include "bench_summary.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_stats.h"

/* 1 when pt belongs to group g. */
static int in_group(const bench_group *g, const bench_point *pt)
{
    return g->pass == pt->pass && g->mode == pt->mode && g->dtype == pt->dtype &&
           g->layout == pt->layout && g->proj == pt->proj;
}

int bench_summary(const bench_result *rs, int n, bench_group *groups, int max, double *overall,
                  int *overall_n)
{
    int ng = 0;
    for (int i = 0; i < n; i++) {
        const bench_point *pt = &rs[i].pt;
        int g;
        for (g = 0; g < ng; g++)
            if (in_group(&groups[g], pt))
                break;
        if (g == ng) {
            if (ng == max)
                continue;
            memset(&groups[ng], 0, sizeof(groups[ng]));
            groups[ng].pass = pt->pass;
            groups[ng].mode = pt->mode;
            groups[ng].dtype = pt->dtype;
            groups[ng].layout = pt->layout;
            groups[ng].proj = pt->proj;
            ng++;
        }
        groups[g].points++;
    }
    double *v = malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
    for (int g = 0; g < ng; g++) {
        int k = 0;
        for (int i = 0; v && i < n; i++)
            if (in_group(&groups[g], &rs[i].pt))
                v[k++] = rs[i].ratio;
        groups[g].geomean = v ? bench_geomean(v, k, &groups[g].n) : NAN;
    }
    if (overall) {
        for (int i = 0; v && i < n; i++)
            v[i] = rs[i].ratio;
        int used = 0;
        *overall = v ? bench_geomean(v, n, &used) : NAN;
        if (overall_n)
            *overall_n = used;
    }
    free(v);
    return ng;
}

void bench_summarize_training(const bench_result *rs, int n, bench_training_summary *s)
{
    memset(s, 0, sizeof(*s));
    s->geomean_ratio = s->geomean_bwd_ratio = NAN;
    double *ratio = malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
    double *bwd = malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
    if (!ratio || !bwd) {
        free(ratio);
        free(bwd);
        return;
    }
    int k = 0;
    for (int i = 0; i < n; i++) {
        if (rs[i].pt.pass != BENCH_TRAINING)
            continue;
        s->points++;
        ratio[k] = rs[i].ratio;
        bwd[k] = rs[i].bwd_data_ratio;
        /* NaN compares false: points without the figure count in neither. */
        s->prnn_le_cudnn += ratio[k] <= 1.0;
        s->bwd_within_target += bwd[k] <= BENCH_BWD_DATA_TARGET;
        k++;
    }
    s->geomean_ratio = bench_geomean(ratio, k, &s->with_ratio);
    s->geomean_bwd_ratio = bench_geomean(bwd, k, &s->with_bwd_ratio);
    free(ratio);
    free(bwd);
}

int bench_same_shape(const bench_point *a, const bench_point *b)
{
    return a->pass == b->pass && a->mode == b->mode && a->dtype == b->dtype &&
           a->hidden == b->hidden && a->proj == b->proj && a->input == b->input &&
           a->batch == b->batch && a->seq == b->seq && a->layers == b->layers &&
           a->bidirectional == b->bidirectional;
}

/* a / b of two medians; NaN unless both are there. */
static double median_ratio(const bench_impl_result *a, const bench_impl_result *b)
{
    if (!a || !b || a->state != BENCH_OK || b->state != BENCH_OK || !(b->us.median > 0))
        return NAN;
    return a->us.median / b->us.median;
}

void bench_pair_layouts(bench_result *rs, int n)
{
    for (int i = 0; i < n; i++) {
        bench_result *r = &rs[i];
        r->layout_ratio = r->layout_ratio_cudnn = NAN;
        if (r->pt.layout == BENCH_LAYOUT_PACKED)
            continue;
        for (int j = 0; j < n; j++) {
            const bench_result *p = &rs[j];
            if (p->pt.layout != BENCH_LAYOUT_PACKED || !bench_same_shape(&p->pt, &r->pt))
                continue;
            r->layout_ratio = median_ratio(&r->impl[BENCH_IMPL_PRNN], &p->impl[BENCH_IMPL_PRNN]);
            r->layout_ratio_cudnn = median_ratio(bench_best_cudnn(r), bench_best_cudnn(p));
            break;
        }
    }
}

int bench_summarize_layouts(const bench_result *rs, int n,
                            bench_layout_summary out[BENCH_NUM_LAYOUTS])
{
    double *v = malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
    double *c = malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
    int count = 0;
    for (int l = BENCH_LAYOUT_PACKED + 1; l < BENCH_NUM_LAYOUTS; l++) {
        bench_layout_summary *s = &out[count];
        memset(s, 0, sizeof(*s));
        s->layout = (bench_layout)l;
        int k = 0;
        for (int i = 0; i < n; i++) {
            if (rs[i].pt.layout != (bench_layout)l)
                continue;
            s->points++;
            if (v && c) {
                v[k] = rs[i].layout_ratio;
                c[k] = rs[i].layout_ratio_cudnn;
                k++;
            }
            /* NaN compares false: a point without the figure is not in */
            s->within_target += rs[i].layout_ratio <= BENCH_LAYOUT_TARGET;
        }
        if (!s->points)
            continue;
        s->geomean = bench_geomean(v, k, &s->with_ratio);
        s->cudnn_geomean = bench_geomean(c, k, &s->cudnn_with_ratio);
        count++;
    }
    free(v);
    free(c);
    return count;
}
