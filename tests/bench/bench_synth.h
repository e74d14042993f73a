/* A synthetic result set for the report tests and the plot test. */
#ifndef PRNN_TEST_BENCH_SYNTH_H
#define PRNN_TEST_BENCH_SYNTH_H

#include "bench_types.h"

#define SYNTH_MAX 32

/* Fills up to SYNTH_MAX results (returns how many), the meta, and two
 * cold-start results. The numbers are chosen so that the geometric means
 * are known exactly (see the comments in bench_synth.c). */
int bench_synth(bench_result *rs, bench_meta *meta, bench_cold_result *cold, int *ncold);

#endif
