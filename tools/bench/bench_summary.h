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
int bench_summary(const bench_result *rs, int n, bench_group *groups, int max,
                  double *overall, int *overall_n);

#endif
