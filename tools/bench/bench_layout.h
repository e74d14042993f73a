/*
 * The RNN data layouts prnn-bench times (--layout, --lengths, --pad-input):
 * their names, the lengths of a padded point's sequences, and where step t
 * of sequence b lies in a buffer of that layout. Host-side only: the
 * runners and bench_data.c build on it, and the tests check it without a
 * GPU.
 *
 * Lengths (bench_lengths):
 *   FULL    every sequence T long: a padded point does the work of the
 *           packed point of the same shape, so that the two compare like
 *           with like.
 *   VARIED  B lengths spaced evenly from T down to ceil(T/2) (the longest
 *           is T, so T is the padded layouts' maxSeqLength), given to the
 *           sequences in a fixed shuffled order: sequence 0 gets T, the
 *           others are not sorted, as a batch_first batch seldom is. The
 *           same for every --seed (the work of a point does not change with
 *           it); their sum is about 3/4 of B * T.
 *
 * Padding: the positions t >= length of x and dy hold NaN (both libraries
 * promise not to read them), or with --pad-input finite the value
 * BENCH_PAD_FINITE, for a library that reads them and lets NaN through
 * (0 * NaN in a GEMM over the padded rows): a wrong result then still
 * shows in the comparison, as a difference rather than as NaN. The outputs'
 * padding fill (y's, and prnn's dx's) is 0.
 */
#ifndef PRNN_BENCH_LAYOUT_H
#define PRNN_BENCH_LAYOUT_H

#include <stddef.h>

#include "bench_types.h"

typedef enum { BENCH_PAD_NAN = 0, BENCH_PAD_FINITE = 1 } bench_pad_input;

/* The finite padding of --pad-input finite: outside the inputs' [-1, 1],
 * exact in every data type. */
#define BENCH_PAD_FINITE 8.0

/* "packed", "seq-padded", "batch-padded". */
const char *bench_layout_name(bench_layout l);
/* The name above, or the cuDNN layout's ("seq_major_unpacked", any case):
 * 0, or -1 for another name. */
int bench_layout_parse(const char *s, bench_layout *l);

/* "full", "varied". */
const char *bench_lengths_name(bench_lengths k);
int bench_lengths_parse(const char *s, bench_lengths *k);

/* "nan", "finite". */
const char *bench_pad_input_name(bench_pad_input p);

/* What --lengths means, in one line (the JSON's meta). */
const char *bench_lengths_rule(bench_lengths k);

/* The B lengths of a point of T steps (len[0 .. B-1]); a packed point's
 * are all T whatever k says. */
void bench_lengths_fill(bench_layout layout, bench_lengths k, int T, int B, int *len);

/* The sum of a point's lengths (B * T unless varied); 0 when out of host
 * memory. */
long long bench_lengths_sum(const bench_point *pt);

/* A point's sequences: its layout and lengths. */
typedef struct {
    bench_layout layout;
    int T, B;
    int *len;  /* B lengths, each in [1, T] */
    long sum;  /* their sum: the steps that hold data */
    int equal; /* every length is T */
} bench_seqs;

/* Fills s for pt (len allocated): 0, or -1 when out of host memory. */
int bench_seqs_init(bench_seqs *s, const bench_point *pt);
void bench_seqs_free(bench_seqs *s);

/* The row (one vector) that step t of sequence b occupies in a buffer of
 * s's layout: t * B + b time-major, b * T + t batch-major. */
size_t bench_seqs_row(const bench_seqs *s, int t, int b);

/*
 * Copies the rows of a time-major buffer with every sequence T long (src,
 * row t * B + b: the packed layout's, where the tool's random data is
 * generated) into dst in s's layout: the steps t < len[b] from src, the
 * others from pad_row (one row of row_bytes). So a padded point holds the
 * same values at the same (t, b) as the packed point of its shape.
 */
void bench_seqs_scatter(const bench_seqs *s, size_t row_bytes, const void *src, const void *pad_row,
                        void *dst);

/*
 * The opposite: from src in s's layout, the rows t < len[b] into valid
 * (s->sum rows) and the others into pad (B * T - s->sum rows; may be
 * NULL), each in time-major order (t, then b), so that two buffers of the
 * same layout compare row by row.
 */
void bench_seqs_gather(const bench_seqs *s, size_t row_bytes, const void *src, void *valid,
                       void *pad);

#endif
