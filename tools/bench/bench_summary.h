/* The figures of a whole run: geometric means over its points. */
#ifndef PRNN_BENCH_SUMMARY_H
#define PRNN_BENCH_SUMMARY_H

#include "bench_types.h"

/* Geometric mean of prnn / best cuDNN over the points of one pass, mode
 * and data type that have both numbers. */
typedef struct {
    bench_pass pass;
    prnnRNNMode_t mode;
    prnnDataType_t dtype;
    double geomean; /* NaN when n == 0 */
    int n;          /* points with a ratio */
    int points;     /* points in the group */
} bench_group;

/* Fills up to max groups, in order of first appearance; returns how many.
 * *overall / *overall_n: over every point with a ratio. */
int bench_summary(const bench_result *rs, int n, bench_group *groups, int max, double *overall,
                  int *overall_n);

/* The target for prnn's backward-data: at most this many times the forward
 * inference of the same shape. */
#define BENCH_BWD_DATA_TARGET 1.3

/* Over the training points of a run. */
typedef struct {
    int points;               /* training points */
    int with_ratio;           /* with a prnn and a best-cuDNN whole-step time */
    double geomean_ratio;     /* prnn / best cuDNN, whole step; NaN when none */
    int prnn_le_cudnn;        /* of those, prnn <= best cuDNN */
    int with_bwd_ratio;       /* with prnn's backward-data and forward inference */
    double geomean_bwd_ratio; /* bwd-data / fwd-inference; NaN when none */
    int bwd_within_target;    /* of those, ratio <= BENCH_BWD_DATA_TARGET */
} bench_training_summary;

void bench_summarize_training(const bench_result *rs, int n, bench_training_summary *s);

#endif
