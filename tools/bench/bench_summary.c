#include "bench_summary.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_stats.h"

int bench_summary(const bench_result *rs, int n, bench_group *groups, int max, double *overall,
                  int *overall_n)
{
    int ng = 0;
    for (int i = 0; i < n; i++) {
        const bench_point *pt = &rs[i].pt;
        int g;
        for (g = 0; g < ng; g++)
            if (groups[g].pass == pt->pass && groups[g].mode == pt->mode &&
                groups[g].dtype == pt->dtype)
                break;
        if (g == ng) {
            if (ng == max)
                continue;
            memset(&groups[ng], 0, sizeof(groups[ng]));
            groups[ng].pass = pt->pass;
            groups[ng].mode = pt->mode;
            groups[ng].dtype = pt->dtype;
            ng++;
        }
        groups[g].points++;
    }
    double *v = malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
    for (int g = 0; g < ng; g++) {
        int k = 0;
        for (int i = 0; v && i < n; i++)
            if (rs[i].pt.pass == groups[g].pass && rs[i].pt.mode == groups[g].mode &&
                rs[i].pt.dtype == groups[g].dtype)
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
