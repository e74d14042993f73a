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

/* The lines above the table: device, versions, what the numbers mean (and,
 * when m->training, what the phase columns mean). */
void bench_report_preamble(FILE *f, const bench_meta *m);

/* The table's optional columns, bits of bench_table_header's and
 * bench_table_row's cols. */
enum {
    /* the training columns (prnn's fwd / bwd-data / bwd-wgts, its fwd-inf
     * and bwd-data/inf, the best cuDNN algorithm's phases); inference rows
     * show "-" there */
    BENCH_TABLE_PHASES = 1,
    /* the layout column, after T (bench_meta.padded) */
    BENCH_TABLE_LAYOUT = 2,
    /* the P column (projection size, 0 for none), after H (bench_meta.proj) */
    BENCH_TABLE_PROJ = 4,
};

/* Pass the same cols to the header and every row. */
void bench_table_header(FILE *f, int cols);
void bench_table_row(FILE *f, const bench_result *r, int cols);

/* The cols of a run described by m. */
int bench_table_cols(const bench_meta *m);

/* Footnotes; with padded points that have a packed twin, prnn's (and the
 * best cuDNN's) padded / packed per point and per layout (after
 * bench_pair_layouts); then the geometric-mean lines: per (pass, mode,
 * dtype, layout, projection), the training line when the run has training
 * points, then overall (the table's last line). */
void bench_table_footer(FILE *f, const bench_result *rs, int n);

void bench_cold_table(FILE *f, const bench_cold_result *c, int n);

/*
 * Every number: one header line, one line per point (no trailing NaNs:
 * missing numbers are empty fields). Columns, in this order:
 *  - the point (pass ... bidirectional) and prnn's plan (prnn_*);
 *  - per implementation K (prnn, prnn_graph, cublasLt_graph, cudnn_*):
 *    K_state, K_median_us ... K_note (whole call or whole step);
 *  - best_cudnn, best_cudnn_us, ratio_prnn_best_cudnn, max_rel_diff,
 *    reference;
 *  - appended for the training phases (empty on inference points), so that
 *    readers of the columns above by position still work (and so are the
 *    columns after them): per
 *    implementation K_fwd_training_us, K_bwd_data_us, K_bwd_weights_us
 *    (medians of each phase timed alone; empty for the graph replays);
 *    prnn_fwd_inference_state, prnn_fwd_inference_us,
 *    prnn_fwd_inference_note (prnn's forward inference of the same shape);
 *    ratio_bwd_data_fwd_inference (prnn's bwd-data / that);
 *    best_cudnn_fwd_training_us, best_cudnn_bwd_data_us,
 *    best_cudnn_bwd_weights_us (the phases of best_cudnn, the algorithm
 *    with the best whole step);
 *  - prnn_engine, prnn_backward_engine;
 *  - layout (packed, seq-padded, batch-padded), lengths (full, varied:
 *    bench_layout.h), lengths_sum (the steps that hold data: B * T unless
 *    varied), ratio_prnn_padded_packed, ratio_best_cudnn_padded_packed
 *    (a padded point's median over its packed twin's; empty otherwise);
 *  - proj (the LSTM projection size, 0 for none).
 */
void bench_write_csv(FILE *f, const bench_result *rs, int n);

/*
 * {"meta": ..., "points": [...], "summary": [...], "overall": ...,
 *  "training_summary": ..., "cold_start": [...]}; NaN is written as null.
 * A point: its shape ("proj" among its keys: 0 for none), "prnn_plan", "impls" (per implementation:
 * state, median_us ... note, and "phases": {"fwd_training" | "bwd_data" | "bwd_weights":
 * {median_us, min_us, q1_us, q3_us, max_us, mean_us, repeats}} or null where none was timed),
 * best_cudnn, best_cudnn_us, ratio, max_rel_diff, reference, and then, on every point (null where
 * they do not apply): "prnn_fwd_inference" ({state, median_us ... repeats,
 * first_call_ms, note}; null on inference points),
 * "ratio_bwd_data_fwd_inference", "best_cudnn_fwd_training_us",
 * "best_cudnn_bwd_data_us", "best_cudnn_bwd_weights_us", and "layout",
 * "lengths", "lengths_sum", "ratio_prnn_padded_packed",
 * "ratio_best_cudnn_padded_packed" (as the CSV's). meta gains "training"
 * (0/1) and "phases" (how they were timed), "padded" (0/1), "lengths" and
 * "pad_input" (bench_layout.h's rules); a summary group, "layout" and
 * "proj".
 * "layout_summary": per padded layout {layout, points, points_with_ratio,
 * geomean_prnn_padded_packed, points_within_target, target,
 * points_with_cudnn_ratio, geomean_best_cudnn_padded_packed} (empty
 * without padded points). "training_summary"
 * is null without training points, else {points, points_with_ratio,
 * geomean_ratio,
 * points_prnn_le_cudnn, points_with_bwd_data_ratio,
 * geomean_bwd_data_fwd_inference, bwd_data_target,
 * points_bwd_data_within_target}.
 */
void bench_write_json(FILE *f, const bench_meta *m, const bench_result *rs, int n,
                      const bench_cold_result *cold, int ncold);

/* Number of characters a UTF-8 string takes on a terminal (one per code
 * point: enough for the "—" and "µ" the table uses). */
int bench_display_width(const char *s);

#endif
