/*
 * prnn-bench: prnn against cuDNN 9 and a per-step cuBLASLt graph, over a
 * sweep of shapes, in one process and one run. See bench_usage() for the
 * options and bench_report.c for what each number means.
 */
#include <errno.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_args.h"
#include "bench_data.h"
#include "bench_device.h"
#include "bench_layout.h"
#include "bench_report.h"
#include "bench_summary.h"
#include "bench_run.h"
#include "bench_timing.h"
#include "cold_start.h"
#include "cudnn_rnn.h"
#include "prnn_run.h"
#include "tool_cli.h"

extern char **environ;

typedef struct {
    const bench_args *a;
    bench_device dev;
    bench_prnn *prnn;   /* NULL with --no-prnn */
    bench_cudnn *cudnn; /* NULL with --no-cudnn or when cuDNN is missing */
    bench_timer timer;
    double *samples;
    int said_na; /* the first "n/a" reason was printed */
} bench_state_t;

static void no_gpu(const char *why)
{
    fprintf(stderr,
            "prnn-bench: no CUDA GPU found (%s) — nothing to benchmark. Run the CPU reference demo "
            "instead: prnn-demo\n",
            why);
}

static void point_label(char *buf, size_t n, const bench_point *pt)
{
    char proj[24];
    bench_proj_suffix(proj, sizeof(proj), pt->proj);
    snprintf(buf, n, "%s %s H=%d%s B=%d T=%d%s%s%s%s%s%s%s", prnn_mode_name(pt->mode),
             bench_dtype_short(pt->dtype), pt->hidden, proj, pt->batch, pt->seq,
             pt->input != pt->hidden ? " (input size differs)" : "",
             pt->bidirectional ? " bidirectional" : "",
             pt->pass == BENCH_TRAINING ? " training" : "",
             pt->layout != BENCH_LAYOUT_PACKED ? " " : "",
             pt->layout != BENCH_LAYOUT_PACKED ? bench_layout_name(pt->layout) : "",
             pt->layout != BENCH_LAYOUT_PACKED ? " lengths " : "",
             pt->layout != BENCH_LAYOUT_PACKED ? bench_lengths_name(pt->lengths) : "");
}

/* Prints what went wrong with one implementation: failures always,
 * refusals and n/a with --verbose (the first n/a always). */
static void report_impl(bench_state_t *s, const bench_point *pt, const char *name,
                        const bench_impl_result *r)
{
    int show = r->state == BENCH_FAILED ||
               (s->a->verbose && (r->state == BENCH_REFUSED || r->state == BENCH_NA)) ||
               (r->state == BENCH_NA && !s->said_na);
    if (!show)
        return;
    char label[128];
    point_label(label, sizeof(label), pt);
    fprintf(stderr, "prnn-bench: %s: %s %s: %s\n", label, name, bench_state_name(r->state),
            r->note);
    if (r->state == BENCH_NA && !s->said_na && !s->a->verbose)
        fprintf(stderr, "prnn-bench: (further n/a reasons: --verbose)\n");
    if (r->state == BENCH_NA)
        s->said_na = 1;
}

/* Compares sig with the point's reference (the first output seen), or
 * makes it the reference; sig is consumed. */
static void consider(bench_result *res, int impl, bench_sig *sig, bench_sig *ref)
{
    bench_impl_result *r = &res->impl[impl];
    if (r->state != BENCH_OK || !sig->nseg) {
        bench_sig_free(sig);
        return;
    }
    if (res->reference < 0) {
        *ref = *sig;
        memset(sig, 0, sizeof(*sig));
        res->reference = impl;
        return;
    }
    r->max_rel_diff = bench_sig_diff(ref, sig);
    r->compared = 1;
    bench_sig_free(sig);
}

static void fail_one(bench_impl_result *r, const char *why)
{
    r->state = BENCH_FAILED;
    bench_copy(r->note, sizeof(r->note), why);
}

static void fail_all(bench_result *res, const char *why)
{
    for (int i = 0; i < BENCH_NUM_IMPLS; i++)
        fail_one(&res->impl[i], why);
    if (res->pt.pass == BENCH_TRAINING)
        fail_one(&res->fwd_inference, why);
}

/* After a failure: -1 when the device is unusable (the sweep stops). */
static int check_device(bench_state_t *s, const bench_result *res)
{
    int failed = res->fwd_inference.state == BENCH_FAILED;
    for (int i = 0; i < BENCH_NUM_IMPLS; i++)
        failed |= res->impl[i].state == BENCH_FAILED;
    if (!failed)
        return 0;
    char err[BENCH_ERR];
    if (bench_device_healthy(&s->dev, err, sizeof(err)))
        return 0;
    fprintf(
        stderr,
        "prnn-bench: the device is in an error state after a failure (%s); stopping the sweep\n",
        err);
    return -1;
}

/* Runs every implementation on one point. -1 when the device broke. */
static int run_point(bench_state_t *s, bench_result *res)
{
    const bench_args *a = s->a;
    const bench_point *pt = &res->pt;
    char err[BENCH_ERR];
    bench_model model;
    bench_io io;
    if (bench_model_create(&model, pt, a->seed, err, sizeof(err))) {
        fail_all(res, err);
        return 0;
    }
    if (bench_io_create(&s->dev, &io, pt, a->seed, a->pad_input, err, sizeof(err))) {
        bench_model_destroy(&model);
        fail_all(res, err);
        char label[128];
        point_label(label, sizeof(label), pt);
        fprintf(stderr, "prnn-bench: %s: %s\n", label, err);
        return bench_device_healthy(&s->dev, err, sizeof(err)) ? 0 : -1;
    }
    bench_run_ctx ctx = {
        .d = &s->dev,
        .timer = &s->timer,
        .samples = s->samples,
        .model = &model,
        .io = &io,
        .warmup = a->warmup,
        .repeats = a->repeats,
        .math = a->math,
        .sru_package = a->sru_package,
        .workspaces = a->workspaces,
        .verbose = a->verbose,
    };
    bench_sig ref, sig1, sig2;
    memset(&ref, 0, sizeof(ref));
    int rc = 0;

    if (s->prnn) {
        bench_prnn_run(s->prnn, &ctx, PRNN_RNN_ALGO_AUTO, &res->plan, &res->impl[BENCH_IMPL_PRNN],
                       &sig1, &res->impl[BENCH_IMPL_PRNN_GRAPH], &sig2, &res->fwd_inference);
        consider(res, BENCH_IMPL_PRNN, &sig1, &ref);
        consider(res, BENCH_IMPL_PRNN_GRAPH, &sig2, &ref);
        report_impl(s, pt, bench_impl_name(BENCH_IMPL_PRNN), &res->impl[BENCH_IMPL_PRNN]);
        if (res->impl[BENCH_IMPL_PRNN].state != BENCH_NA)
            report_impl(s, pt, bench_impl_name(BENCH_IMPL_PRNN_GRAPH),
                        &res->impl[BENCH_IMPL_PRNN_GRAPH]);
        report_impl(s, pt, "prnn forward inference", &res->fwd_inference);
        rc = check_device(s, res);
        /* SRU has one path whatever the algorithm: no per-step baseline */
        if (!rc && pt->mode != PRNN_SRU) {
            bench_prnn_run(s->prnn, &ctx, PRNN_RNN_ALGO_STANDARD, NULL, NULL, NULL,
                           &res->impl[BENCH_IMPL_CUBLASLT_GRAPH], &sig1, NULL);
            consider(res, BENCH_IMPL_CUBLASLT_GRAPH, &sig1, &ref);
            if (res->impl[BENCH_IMPL_PRNN].state != BENCH_NA)
                report_impl(s, pt, bench_impl_name(BENCH_IMPL_CUBLASLT_GRAPH),
                            &res->impl[BENCH_IMPL_CUBLASLT_GRAPH]);
            rc = check_device(s, res);
        }
    }
    /* cuDNN has no SRU: an sru point times cuDNN's LSTM of the same shape
     * (the yardstick SRU is meant to beat), whose outputs are not
     * comparable with prnn's */
    bench_model lstm_model;
    bench_io lstm_io;
    int twin = 0;
    const bench_run_ctx *cctx = &ctx;
    bench_run_ctx lstm_ctx = ctx;
    if (!rc && s->cudnn && pt->mode == PRNN_SRU) {
        bench_point lp = *pt;
        lp.mode = PRNN_LSTM;
        if (bench_model_create(&lstm_model, &lp, a->seed, err, sizeof(err)) == 0) {
            if (bench_io_create(&s->dev, &lstm_io, &lp, a->seed, a->pad_input, err, sizeof(err)) ==
                0) {
                twin = 1;
                lstm_ctx.model = &lstm_model;
                lstm_ctx.io = &lstm_io;
                cctx = &lstm_ctx;
            } else {
                bench_model_destroy(&lstm_model);
            }
        }
        if (!twin)
            fprintf(stderr, "prnn-bench: cuDNN's LSTM twin of an sru point: %s\n", err);
    }
    for (int algo = 0; !rc && s->cudnn && algo < BENCH_NUM_CUDNN; algo++) {
        if (!(a->cudnn_algos & (1u << algo)))
            continue;
        if (pt->mode == PRNN_SRU && !twin)
            break;
        int impl = BENCH_FIRST_CUDNN + algo;
        bench_cudnn_run(s->cudnn, cctx, algo, &res->impl[impl], &sig1);
        if (!twin)
            consider(res, impl, &sig1, &ref);
        else
            bench_sig_free(&sig1);
        report_impl(s, pt, bench_impl_name((bench_impl)impl), &res->impl[impl]);
        rc = check_device(s, res);
    }
    if (twin) {
        bench_io_destroy(&s->dev, &lstm_io);
        bench_model_destroy(&lstm_model);
    }
    bench_sig_free(&ref);
    bench_io_destroy(&s->dev, &io);
    bench_model_destroy(&model);
    bench_result_finish(res);
    return rc;
}

/* The first plot script that exists: $PRNN_PLOT_SCRIPT, the source tree's,
 * the installed one. */
static const char *plot_script(void)
{
    const char *env = getenv("PRNN_PLOT_SCRIPT");
    if (env && *env)
        return env;
    static const char *const candidates[] = {
#ifdef PRNN_BENCH_PLOT_SCRIPT_SRC
        PRNN_BENCH_PLOT_SCRIPT_SRC,
#endif
#ifdef PRNN_BENCH_PLOT_SCRIPT_INSTALLED
        PRNN_BENCH_PLOT_SCRIPT_INSTALLED,
#endif
        NULL};
    for (int i = 0; candidates[i]; i++)
        if (access(candidates[i], R_OK) == 0)
            return candidates[i];
    return NULL;
}

/* Writes the results as JSON (json) or CSV to path: 0, or -1 after saying
 * why on stderr. */
static int write_results(const char *path, int json, const bench_meta *m, const bench_result *rs,
                         int n, const bench_cold_result *cold, int ncold)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "prnn-bench: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    if (json)
        bench_write_json(f, m, rs, n, cold, ncold);
    else
        bench_write_csv(f, rs, n);
    if (fclose(f)) {
        fprintf(stderr, "prnn-bench: writing %s failed: %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}

static void make_plot(const bench_args *a, const bench_meta *m, const bench_result *rs, int n,
                      const bench_cold_result *cold, int ncold)
{
    char tmp[] = "/tmp/prnn-bench-XXXXXX.json";
    const char *json = a->json;
    int temp = 0;
    if (!json) {
        int fd = mkstemps(tmp, 5);
        if (fd < 0) {
            fprintf(stderr, "prnn-bench: no plot: mkstemps: %s\n", strerror(errno));
            return;
        }
        close(fd);
        if (write_results(tmp, 1, m, rs, n, cold, ncold)) {
            unlink(tmp);
            return;
        }
        json = tmp;
        temp = 1;
    }
    const char *script = plot_script();
    if (!script) {
        fprintf(stderr,
                "prnn-bench: no plot: tools/plot_bench.py not found (set PRNN_PLOT_SCRIPT); the "
                "data is in %s\n",
                json);
        return;
    }
    /* posix_spawnp takes char *const argv[] (and writes none of it): copies */
    char *script_arg = strdup(script), *json_arg = strdup(json), *out_arg = strdup(a->plot);
    pid_t pid;
    int rc = ENOMEM;
    if (script_arg && json_arg && out_arg) {
        char *argv[] = {"python3", script_arg, "--json", json_arg, "--out", out_arg, NULL};
        rc = posix_spawnp(&pid, "python3", NULL, NULL, argv, environ);
    }
    free(script_arg);
    free(json_arg);
    free(out_arg);
    int status = -1;
    if (rc == 0)
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
    if (rc == 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        fprintf(stderr, "prnn-bench: plot written to %s\n", a->plot);
        if (temp)
            unlink(tmp);
        return;
    }
    fprintf(stderr,
            "prnn-bench: the plot was not written (%s; it needs python3 with matplotlib). To make "
            "it later:\n  python3 %s --json %s --out %s\n",
            rc == ENOMEM ? "out of memory"
            : rc         ? "python3 not found"
                         : "plot_bench.py failed, see its message above",
            script, json, a->plot);
}

static void fill_meta(bench_meta *m, const bench_state_t *s, const char *cudnn_desc)
{
    memset(m, 0, sizeof(*m));
    time_t now = time(NULL);
    struct tm tmv;
    gmtime_r(&now, &tmv);
    strftime(m->date, sizeof(m->date), "%Y-%m-%dT%H:%M:%SZ", &tmv);
    snprintf(m->device, sizeof(m->device), "device %d: %s", s->dev.ordinal, s->dev.description);
    bench_copy(m->driver, sizeof(m->driver), s->dev.driver);
    bench_copy(m->cudnn, sizeof(m->cudnn), cudnn_desc);
    tool_format_version(prnnGetVersion(), m->prnn_version, sizeof(m->prnn_version));
    m->math = s->a->math == BENCH_MATH_TF32 ? "tf32" : "strict";
    m->warmup = s->a->warmup;
    m->repeats = s->a->repeats;
    m->workspaces = s->a->workspaces;
    m->training = bench_args_has_training(s->a);
    m->padded = bench_args_has_padded(s->a);
    m->proj = bench_args_has_proj(s->a);
    m->lengths = s->a->lengths;
    m->pad_input = bench_pad_input_name(s->a->pad_input);
}

int main(int argc, char **argv)
{
    double t_start = bench_now_ms();
    bench_args args;
    char err[BENCH_ERR * 2];
    if (bench_args_parse(argc, argv, &args, err, sizeof(err)))
        return tool_bad_args("prnn-bench", err);
    if (args.help) {
        bench_usage(stdout, "prnn-bench");
        return TOOL_EXIT_OK;
    }
    if (args.version) {
        tool_print_version(stdout, "prnn-bench");
        return TOOL_EXIT_OK;
    }
    if (args.cold_child)
        return bench_cold_child(args.cold_child, args.device);

    bench_state_t s;
    memset(&s, 0, sizeof(s));
    s.a = &args;
    int rc = bench_device_open(&s.dev, args.device, err, sizeof(err));
    if (rc == TOOL_EXIT_NO_GPU) {
        no_gpu(err);
        return rc;
    }
    if (rc) {
        fprintf(stderr, "prnn-bench: cannot use device %d: %s\n", args.device, err);
        return rc;
    }
    if (!args.no_prnn) {
        rc = bench_prnn_open(&s.prnn, &s.dev, err, sizeof(err));
        if (rc) {
            if (rc == TOOL_EXIT_NO_GPU)
                no_gpu(err);
            else
                fprintf(stderr, "prnn-bench: %s\n", err);
            bench_device_close(&s.dev);
            return rc;
        }
    }
    char cudnn_desc[256] = "not used (--no-cudnn)";
    if (!args.no_cudnn &&
        bench_cudnn_open(&s.cudnn, &s.dev, cudnn_desc, sizeof(cudnn_desc), err, sizeof(err))) {
        s.cudnn = NULL;
        fprintf(stderr,
                "prnn-bench: cuDNN was not found or does not work; benchmarking prnn only.\n  %s\n",
                err);
        snprintf(cudnn_desc, sizeof(cudnn_desc), "not found");
        if (!s.prnn) {
            fprintf(stderr, "prnn-bench: --no-prnn without cuDNN: nothing to time\n");
            bench_device_close(&s.dev);
            return TOOL_EXIT_FAILURE;
        }
    }

    bench_meta meta;
    fill_meta(&meta, &s, cudnn_desc);
    bench_report_preamble(stdout, &meta);

    bench_cold_result *cold = NULL;
    int ncold = 0;
    if (args.cold_start) {
        if (!s.prnn)
            fprintf(stderr, "prnn-bench: --cold-start measures prnn: skipped with --no-prnn\n");
        else if (bench_cold_start(&args, &cold, &ncold, err, sizeof(err)))
            fprintf(stderr, "prnn-bench: cold start: %s\n", err);
        else
            bench_cold_table(stdout, cold, ncold);
        fputc('\n', stdout);
    }

    long npoints = bench_args_num_points(&args);
    bench_result *results = calloc((size_t)npoints, sizeof(*results));
    s.samples = calloc((size_t)args.repeats * BENCH_NUM_PHASES, sizeof(double));
    if (!results || !s.samples ||
        bench_timer_create(&s.dev, &s.timer, args.repeats, err, sizeof(err))) {
        fprintf(stderr, "prnn-bench: %s\n", results && s.samples ? err : "out of host memory");
        free(results);
        free(s.samples);
        free(cold);
        bench_cudnn_close(s.cudnn);
        bench_prnn_close(s.prnn);
        bench_device_close(&s.dev);
        return TOOL_EXIT_FAILURE;
    }

    const int table_cols = bench_table_cols(&meta);
    bench_table_header(stdout, table_cols);
    int done = 0, broken = 0;
    for (long i = 0; i < npoints; i++) {
        bench_point pt;
        bench_args_point(&args, i, &pt);
        bench_result_init(&results[i], &pt);
        if (args.verbose) {
            /* Free device memory before each point: a number that keeps
             * falling over a sweep is a leak. */
            char label[128];
            size_t free_b = 0, total_b = 0;
            point_label(label, sizeof(label), &pt);
            s.dev.cu->cuMemGetInfo(&free_b, &total_b);
            fprintf(stderr, "prnn-bench: [%ld/%ld] %s (device memory free: %.2f GiB)\n", i + 1,
                    npoints, label, (double)free_b / 1073741824.0);
        }
        broken = run_point(&s, &results[i]) != 0;
        bench_table_row(stdout, &results[i], table_cols);
        done++;
        if (broken)
            break;
    }
    bench_pair_layouts(results, done);
    bench_table_footer(stdout, results, done);

    /* A file asked for and not written fails the run: a script reading it
     * next must not take an old file for this run's. */
    int unwritten = 0;
    if (args.csv)
        unwritten |= write_results(args.csv, 0, &meta, results, done, cold, ncold) != 0;
    if (args.json)
        unwritten |= write_results(args.json, 1, &meta, results, done, cold, ncold) != 0;
    if (args.plot)
        make_plot(&args, &meta, results, done, cold, ncold);
    fprintf(stderr, "prnn-bench: %d point(s) in %.1f s\n", done,
            (bench_now_ms() - t_start) / 1000.0);

    bench_timer_destroy(&s.dev, &s.timer);
    free(s.samples);
    free(results);
    free(cold);
    bench_cudnn_close(s.cudnn);
    bench_prnn_close(s.prnn);
    bench_device_close(&s.dev);
    return broken || unwritten ? TOOL_EXIT_FAILURE : TOOL_EXIT_OK;
}
