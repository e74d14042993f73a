/*
 * Cold-start figures: how long prnn's plan takes with an empty kernel cache
 * (NVRTC compiles), from the in-memory module cache (a second handle in the
 * same process), and from a warm disk cache (a new process: a new handle in
 * the same process would find the kernel in memory).
 *
 * The parent re-executes itself (/proc/self/exe) with the internal flag
 * --cold-child, once with PRNN_CACHE_DIR set to a new empty directory and
 * once more with the same directory, and reads one line per phase from the
 * child's stdout.
 */
#ifndef PRNN_BENCH_COLD_START_H
#define PRNN_BENCH_COLD_START_H

#include "bench_args.h"
#include "bench_types.h"

/* Measures every distinct (mode, dtype, hidden, input, batch) of the
 * sweep's points without a projection.
 * *out (malloc'ed, caller frees) gets *nout results; failures are recorded
 * in each result's note. 0, or -1 when nothing could be measured (err). */
int bench_cold_start(const bench_args *a, bench_cold_result **out, int *nout, char *err, size_t n);

/* The child's side: spec as the parent writes it. Prints the phases on
 * stdout; returns the process exit status. */
int bench_cold_child(const char *spec, int device);

/* Formats / parses the child's spec (exposed for the tests). */
void bench_cold_spec_format(char *buf, size_t n, const bench_point *pt, bench_math math,
                            double spawn_ms);
int bench_cold_spec_parse(const char *spec, bench_point *pt, bench_math *math, double *spawn_ms);

/* Parses one "PRNN_BENCH_COLD ..." line of the child's output into r
 * (phase "first" -> cold or disk per first_is_disk, "second" -> memory,
 * "process" -> process_to_plan_ms, "error" -> note). 0 when the line was
 * one of ours. */
int bench_cold_parse_line(const char *line, bench_cold_result *r, int first_is_disk);

#endif
