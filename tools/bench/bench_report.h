/*
 * The benchmark's outputs: the aligned table on stdout (one row per point as
 * it finishes, geometric means last), the cold-start table, CSV and JSON.
 * Everything writes to a FILE * so that it can be tested on synthetic
 * results.
 */
#ifndef PRNN_BENCH_REPORT_H
#define PRNN_BENCH_REPORT_H

#include <stdio.h>

#include "bench_types.h"

/* The lines above the table: device, versions, what the numbers mean. */
void bench_report_preamble(FILE *f, const bench_meta *m);

void bench_table_header(FILE *f);
void bench_table_row(FILE *f, const bench_result *r);

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

/* Footnotes, then the geometric-mean lines: per (pass, mode, dtype), then
 * overall (the table's last line). */
void bench_table_footer(FILE *f, const bench_result *rs, int n);

void bench_cold_table(FILE *f, const bench_cold_result *c, int n);

/* Every number: one header line, one line per point (no trailing NaNs:
 * missing numbers are empty fields). */
void bench_write_csv(FILE *f, const bench_result *rs, int n);

/* {"meta": ..., "points": [...], "summary": [...], "cold_start": [...]};
 * NaN is written as null. */
void bench_write_json(FILE *f, const bench_meta *m, const bench_result *rs,
                      int n, const bench_cold_result *cold, int ncold);

/* Number of characters a UTF-8 string takes on a terminal (one per code
 * point: enough for the "—" and "µ" the table uses). */
int bench_display_width(const char *s);

#endif
