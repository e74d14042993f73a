/*
 * The benchmark's outputs: the aligned table on stdout (one row per point as
 * it finishes, geometric means last), the cold-start table, CSV and JSON.
 * Everything writes to a FILE * so that it can be tested on synthetic
 * results. The text goes out from bench_report.c, CSV from bench_csv.c,
 * JSON from bench_json.c.
 */
#ifndef PRNN_BENCH_REPORT_H
#define PRNN_BENCH_REPORT_H

#include <stdio.h>

#include "bench_summary.h"
#include "bench_types.h"

/* The lines above the table: device, versions, what the numbers mean. */
void bench_report_preamble(FILE *f, const bench_meta *m);

void bench_table_header(FILE *f);
void bench_table_row(FILE *f, const bench_result *r);

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
