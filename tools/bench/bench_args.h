/* prnn-bench's command line. */
#ifndef PRNN_BENCH_ARGS_H
#define PRNN_BENCH_ARGS_H

#include <stdio.h>

#include "bench_layout.h"
#include "bench_types.h"

#define BENCH_MAX_LIST 64
#define BENCH_MAX_EXTRA 64

typedef enum { BENCH_MATH_STRICT = 0, BENCH_MATH_TF32 = 1 } bench_math;

typedef struct {
    prnnRNNMode_t modes[BENCH_MAX_LIST];
    int n_modes;
    int hidden[BENCH_MAX_LIST];
    int n_hidden;
    int proj[BENCH_MAX_LIST]; /* LSTM projection sizes, 0: none (default) */
    int n_proj;
    int batch[BENCH_MAX_LIST];
    int n_batch;
    prnnDataType_t dtypes[BENCH_MAX_LIST];
    int n_dtypes;
    int seq[BENCH_MAX_LIST];
    int n_seq;
    bench_pass passes[2];
    int n_passes;
    bench_layout layouts[BENCH_NUM_LAYOUTS]; /* default: packed alone */
    int n_layouts;
    bench_lengths lengths;     /* of the padded layouts: default varied */
    bench_pad_input pad_input; /* x's and dy's padding: default NaN */
    int input;                 /* 0: input size = hidden size */
    int layers;                /* default 1 */
    int bidirectional;
    int repeats; /* default 20 */
    int warmup;  /* default 3 */
    bench_math math;
    int sru_package; /* SRU in the sru package's conventions (identity,
                      * x' split, scale 1: its SRU's defaults) */
    int quick;
    /* Points beyond the lists' cross product (--quick's edges: small hidden
     * sizes, large batches, short sequences), run after it. */
    bench_point extra[BENCH_MAX_EXTRA];
    int n_extra;
    int no_cudnn;
    int no_prnn;          /* time cuDNN only (prnn's GPU path not needed) */
    int workspaces;       /* prnn's calls rotate through this many workspaces */
    unsigned cudnn_algos; /* bit i: cuDNN algorithm i (cudnnRNNAlgo_t) */
    int device;
    int cold_start;
    int verbose;
    unsigned long long seed;
    const char *csv;
    const char *json;
    const char *plot;
    int help;
    int version;
    /* Internal: "--cold-child SPEC" runs one cold-start measurement and
     * prints it (see cold_start.h); never shown in the usage. */
    const char *cold_child;
} bench_args;

/*
 * Parses argv into *a (defaults first: the full sweep, see the usage)
 * with getopt_long. Returns 0, or -1 with a one-line message in err in the
 * tools' wording (tool_cli.h; the caller prints it with tool_bad_args()).
 * Lists are comma separated; "--flag value" and "--flag=value" are both
 * accepted, and so is an unambiguous prefix of a flag. argv may be
 * reordered (options before operands), as getopt_long does.
 */
int bench_args_parse(int argc, char **argv, bench_args *a, char *err, size_t err_size);

/* The --help text, ending with the exit statuses. */
void bench_usage(FILE *f, const char *prog);

/* 1 when the sweep has a padded layout. */
int bench_args_has_padded(const bench_args *a);

/* 1 when the sweep has a training pass. */
int bench_args_has_training(const bench_args *a);

/* 1 when the sweep has a projected point (--proj above 0). */
int bench_args_has_proj(const bench_args *a);

/* Number of points the sweep will run. */
long bench_args_num_points(const bench_args *a);

/* Point number idx (0 <= idx < bench_args_num_points) of the sweep, in the
 * order pass, mode, dtype, hidden, proj, batch, seq, then the extra points
 * (proj 0); each
 * in every layout of --layout in turn (the layout varies fastest, so that
 * the layouts of a shape are neighbours in the table). */
void bench_args_point(const bench_args *a, long idx, bench_point *pt);

/* Parsers used by the list flags, exposed for the cold-start child. */
int bench_parse_mode(const char *s, prnnRNNMode_t *m);
int bench_parse_dtype(const char *s, prnnDataType_t *t);

#endif
