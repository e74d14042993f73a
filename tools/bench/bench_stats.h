/* Median, quartiles and geometric means: the host-side arithmetic of the
 * benchmark, kept apart so that it can be tested without a GPU. */
#ifndef PRNN_BENCH_STATS_H
#define PRNN_BENCH_STATS_H

#include "bench_types.h"

/*
 * Summarises n >= 1 samples, each multiplied by scale (e.g. 1000 / T to turn
 * milliseconds per call into µs per timestep). Quartiles and median use
 * linear interpolation between order statistics (the usual "type 7"), so the
 * median of an even count is the mean of the middle two. samples is not
 * modified. n == 0 gives n = 0 and NaN everywhere.
 */
void bench_stats_compute(const double *samples, int n, double scale, bench_stats *out);

/* The q-quantile (0 <= q <= 1) of n sorted values, interpolated. */
double bench_quantile_sorted(const double *sorted, int n, double q);

/* Geometric mean of the positive, finite values among v[0..n-1]; *used (may
 * be NULL) gets how many there were. NaN when there are none. */
double bench_geomean(const double *v, int n, int *used);

#endif
