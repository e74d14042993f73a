/* The figures of a whole run: geometric means over its points. */
#ifndef PRNN_BENCH_SUMMARY_H
#define PRNN_BENCH_SUMMARY_H

#include "bench_types.h"

/* Geometric mean of prnn / best cuDNN over the points of one pass, mode,
 * data type, layout and projection size that have both numbers. */
typedef struct {
    bench_pass pass;
    prnnRNNMode_t mode;
    prnnDataType_t dtype;
    bench_layout layout;
    int proj;       /* 0: no projection */
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

/* Issue 27's target for a padded layout: prnn's µs per step at most this
 * many times the packed layout's, with the same work (--lengths full). */
#define BENCH_LAYOUT_TARGET 1.03

/* 1 when a and b are the same shape (projection included) and pass, their
 * layouts aside. */
int bench_same_shape(const bench_point *a, const bench_point *b);

/* Sets layout_ratio (prnn) and layout_ratio_cudnn (the best cuDNN
 * algorithms) of each padded point: its median over that of the packed
 * point of the same shape in rs; NaN where there is none or either
 * median is missing. */
void bench_pair_layouts(bench_result *rs, int n);

/* Over the padded points of one layout (after bench_pair_layouts). */
typedef struct {
    bench_layout layout;
    int points;        /* points of the layout */
    int with_ratio;    /* with prnn's padded / packed */
    double geomean;    /* of that; NaN when none */
    int within_target; /* of those, ratio <= BENCH_LAYOUT_TARGET */
    int cudnn_with_ratio;
    double cudnn_geomean; /* best cuDNN padded / packed */
} bench_layout_summary;

/* One entry per padded layout present in rs, in bench_layout order;
 * returns how many (0 without padded points). */
int bench_summarize_layouts(const bench_result *rs, int n,
                            bench_layout_summary out[BENCH_NUM_LAYOUTS]);

#endif
