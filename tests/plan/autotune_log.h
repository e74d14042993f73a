/* What the planner's regret tests (test_heuristic_regret.c,
 * test_engine_regret.c, test_short_regret.c) share: reading an autotuner
 * run recorded with --verbose (bench/results/<run>/autotune-*.log), the
 * device the runs saw, a key line, the regret they sum, their command line
 * and their report. */
#ifndef PRNN_AUTOTUNE_LOG_H
#define PRNN_AUTOTUNE_LOG_H

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "plan_check.h"
#include "plan_test.h"
#include "rnn_cell_traits.h"
#include "rnn_pass.h"
#include "tuning/tuning_db.h"

/* An H100 80GB HBM3 as the logged runs saw it. */
static inline prnn_device_info autotune_log_h100(void)
{
    prnn_device_info d = plan_test_device(90, 132, 232448);
    d.clock_khz = 1980000;
    return d;
}

/* "backward-data lstm  half   512    1   1 | ...": the key the lines above
 * it timed, as a shape, and its name for messages; 0 for another line. */
static inline int autotune_log_key(const char *line, prnn_kernel_shape *shape, char *name,
                                   size_t name_size)
{
    char pass_name[32], mode_name[16], dtype_name[16];
    int hidden, batch, dirs;
    prnn_pass pass;
    prnnRNNMode_t mode;
    prnnDataType_t dtype;
    if (sscanf(line, "%31s %15s %15s %d %d %d |", pass_name, mode_name, dtype_name, &hidden, &batch,
               &dirs) != 6 ||
        prnn_pass_from_name(pass_name, &pass) || prnn_mode_from_name(mode_name, &mode) ||
        prnn_tuning_dtype_from_name(dtype_name, &dtype))
        return 0;
    *shape = plan_test_shape(mode, dtype, hidden, batch, dirs, 0, pass);
    snprintf(name, name_size, "%s %s %s H %d B %d", pass_name, mode_name, dtype_name, hidden,
             batch);
    return 1;
}

/* A choice's time over the best's, summed over keys. */
typedef struct {
    int keys;
    double log_sum, worst;
} autotune_regret;

static inline void autotune_regret_add(autotune_regret *r, double regret)
{
    r->keys++;
    r->log_sum += log(regret);
    if (regret > r->worst)
        r->worst = regret;
}

static inline double autotune_regret_geomean(const autotune_regret *r)
{
    return r->keys ? exp(r->log_sum / r->keys) : 1.0;
}

/* The regret tests' command line, "[--verbose] FILE...": *verbose is set
 * when --verbose is among the arguments, then read(path, ctx) runs for
 * each other one, in order. No file is a failed check (the usage). */
typedef void (*autotune_file_fn)(const char *path, void *ctx);
static inline void autotune_regret_files(int argc, char **argv, int *verbose, autotune_file_fn read,
                                         void *ctx)
{
    int files = 0;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--verbose") == 0)
            *verbose = 1;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--verbose") != 0) {
            read(argv[i], ctx);
            files++;
        }
    EXPECT(files > 0, "usage: %s [--verbose] FILE...", argv[0]);
}

/* The ratchet on r's geomean (max_geomean) and the summary line, "<test>:
 * <n> <units>, <choice> <g>x <best> (geomean), worst <w>x". */
static inline void autotune_regret_report(const char *test, const autotune_regret *r,
                                          double max_geomean, const char *choice, const char *best,
                                          const char *units)
{
    if (!r->keys)
        return;
    const double geomean = autotune_regret_geomean(r);
    EXPECT(geomean <= max_geomean, "%s runs %.3fx %s (geomean over %d %s)", choice, geomean, best,
           r->keys, units);
    printf("%s: %d %s, %s %.3fx %s (geomean), worst %.2fx\n", test, r->keys, units, choice, geomean,
           best, r->worst);
}

/* The test's exit status, its failures counted on stderr. */
static inline int autotune_regret_exit(const char *test)
{
    if (test_failures)
        fprintf(stderr, "%s: %d check(s) failed\n", test, test_failures);
    return test_failures ? 1 : 0;
}

#endif
