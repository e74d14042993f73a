/*
 * prnn-autotune: finds the fastest engine and configuration (a persistent
 * kernel's tile, SRU's scan configuration, ...) for each shape and pass on
 * this GPU and records it in a tuning database (the user DB by default, or
 * --output FILE, e.g. tuning_db/<gpu>.json to ship one).
 *
 * For every key (mode x hidden x batch x data type x directions x pass):
 * candidate configurations of every engine that runs the shape (or of the
 * one --engine names) are compiled in parallel, each is checked against the CPU reference
 * (a wrong candidate is rejected, never recorded), the survivors are timed,
 * and the winner is written atomically. Resumable: keys already in the
 * target database are skipped unless --force. Ctrl-C stops after the key in
 * progress; the database is valid at every moment.
 */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "descriptors.h"
#include "dtype.h"
#include "error.h"
#include "gpu/autotune/autotune.h"
#include "gpu/engines/engine.h"
#include "gpu/gpu_backend.h"
#include "gpu/plan/plan.h"
#include "gpu/run/gpu_state.h"
#include "handle.h"
#include "prnn.h"
#include "store/safe_file.h"
#include "tool_cli.h"
#include "tuning/tuning_db.h"

static volatile sig_atomic_t interrupted;
static void on_sigint(int sig)
{
    (void)sig;
    interrupted = 1;
}

/* What the command line asks for. */
typedef struct {
    prnnRNNMode_t modes[8];
    int nmodes;
    prnnDataType_t dts[8];
    int ndts;
    int hidden[64], nhidden;
    int batch[64], nbatch;
    int dirs[2], ndirs;
    int layers;
    prnn_pass passes[PRNN_PASS_COUNT];
    int npasses;
    prnn_seq_bucket buckets[3];
    int nbuckets;
    const char *output;
    const prnn_engine *engine; /* NULL: every engine */
    int force, verbose, help, version;
    prnn_autotune_options opts;
} tune_args;

/* The items of the list options (tool_item_fn): each fills ctx[index]. */

static int item_mode(void *ctx, int index, const char *s, char *rule, size_t n)
{
    prnnRNNMode_t m;
    if (prnn_tuning_mode_from_name(s, &m)) {
        snprintf(rule, n, "must be one of relu, tanh, lstm, gru, sru");
        return -1;
    }
    ((prnnRNNMode_t *)ctx)[index] = m;
    return 0;
}

static int item_dtype(void *ctx, int index, const char *s, char *rule, size_t n)
{
    if (prnn_tuning_dtype_from_name(s, &((prnnDataType_t *)ctx)[index])) {
        snprintf(rule, n, "must be one of float, half, bfloat16, double");
        return -1;
    }
    return 0;
}

static int item_pass(void *ctx, int index, const char *s, char *rule, size_t n)
{
    if (prnn_pass_from_name(s, &((prnn_pass *)ctx)[index])) {
        snprintf(rule, n, "must be forward or backward-data");
        return -1;
    }
    return 0;
}

static int item_bucket(void *ctx, int index, const char *s, char *rule, size_t n)
{
    if (prnn_seq_bucket_from_name(s, &((prnn_seq_bucket *)ctx)[index])) {
        snprintf(rule, n, "must be any, one or short");
        return -1;
    }
    return 0;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: prnn-autotune [options]\n"
            "  --modes LIST      tanh,lstm,gru (default; relu and sru also accepted;\n"
            "                    sru tunes its scan: block size, units per thread,\n"
            "                    steps in flight, timed on ForwardTraining +\n"
            "                    BackwardData, one entry with pass forward)\n"
            "  --hidden LIST     256,512,1024,2048 (default)\n"
            "  --batch LIST      1,4,8,16,64 (default)\n"
            "  --dtype LIST      float,half (default; bfloat16, double)\n"
            "  --directions LIST 1 (default; 1,2)\n"
            "  --layers N        layers of the tuned descriptor (default 1; with sru\n"
            "                    and 2 directions, 2 also times the scan of a layer\n"
            "                    whose input is 2 x hidden)\n"
            "  --pass LIST       forward (default), backward-data: which pass to tune\n"
            "                    (backward-data candidates are timed on BackwardData\n"
            "                    calls after one ForwardTraining)\n"
            "  --seq-buckets LIST  which calls the entries are for: any (default:\n"
            "                    timed on --seq steps, the entry every length\n"
            "                    takes), one (calls of one step, timed back to\n"
            "                    back), short (calls of 16 steps; the entry also\n"
            "                    says up to which length, at most 64, its engine\n"
            "                    beats the pass's own, timed at 16 and 64); one\n"
            "                    and short are keys of their own, in either pass\n"
            "                    (not sru)\n"
            "  --engine NAME     tune this engine's configurations only (default:\n"
            "                    every engine that runs the shape; the winner's\n"
            "                    engine is recorded): persistent, small-h, tiny-h,\n"
            "                    step, standard, sru-scan\n"
            "  --quick           a small grid: lstm,gru x 256,1024 x 1,8 x float,half\n"
            "  --output FILE     database to update (default: the user tuning DB,\n"
            "                    $PRNN_TUNING_DB or <cache dir>/tuning.json)\n"
            "  --force           re-tune keys the database already holds\n"
            "  --candidates N    tiles tried per key (default 12, at most %d)\n"
            "  --seq N           timed sequence length (default 256, at least 4)\n"
            "  --repeats N       timed runs per candidate, median (default 5)\n"
            "  --budget S        seconds per key before remaining candidates are\n"
            "                    skipped (default 60)\n"
            "  --verbose         print every candidate\n"
            "  -h, --help        this text\n"
            "  --version         prnn-autotune's version (and the loaded library's)\n",
            PRNN_AUTOTUNE_MAX_CANDIDATES);
    tool_help_exit_status(f, "every key of the grid is tuned or already in the database",
                          "a key failed (the others are recorded), prnnCreate failed for another "
                          "reason than no GPU, or there is no user tuning DB path",
                          TOOL_USES_GPU | TOOL_HANDLES_SIGINT);
}

enum {
    OPT_MODES = 256,
    OPT_HIDDEN,
    OPT_BATCH,
    OPT_DTYPE,
    OPT_DIRS,
    OPT_LAYERS,
    OPT_PASS,
    OPT_QUICK,
    OPT_OUTPUT,
    OPT_FORCE,
    OPT_CANDIDATES,
    OPT_SEQ,
    OPT_REPEATS,
    OPT_BUDGET,
    OPT_VERBOSE,
    OPT_VERSION,
    OPT_ENGINE,
    OPT_BUCKETS,
};

static const struct option long_options[] = {
    {"modes", required_argument, NULL, OPT_MODES},
    {"hidden", required_argument, NULL, OPT_HIDDEN},
    {"batch", required_argument, NULL, OPT_BATCH},
    {"dtype", required_argument, NULL, OPT_DTYPE},
    {"directions", required_argument, NULL, OPT_DIRS},
    {"layers", required_argument, NULL, OPT_LAYERS},
    {"pass", required_argument, NULL, OPT_PASS},
    {"engine", required_argument, NULL, OPT_ENGINE},
    {"seq-buckets", required_argument, NULL, OPT_BUCKETS},
    {"quick", no_argument, NULL, OPT_QUICK},
    {"output", required_argument, NULL, OPT_OUTPUT},
    {"force", no_argument, NULL, OPT_FORCE},
    {"candidates", required_argument, NULL, OPT_CANDIDATES},
    {"seq", required_argument, NULL, OPT_SEQ},
    {"repeats", required_argument, NULL, OPT_REPEATS},
    {"budget", required_argument, NULL, OPT_BUDGET},
    {"verbose", no_argument, NULL, OPT_VERBOSE},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, OPT_VERSION},
    {NULL, 0, NULL, 0},
};

/* One option (tool_option_fn). */
static int apply(void *ctx, int c, const char *name, const char *value, char *err, size_t n)
{
    tune_args *a = ctx;
    long v;
    switch (c) {
    case 'h': a->help = 1; return 0;
    case OPT_VERSION: a->version = 1; return 0;
    case OPT_QUICK:
        a->modes[0] = PRNN_LSTM, a->modes[1] = PRNN_GRU, a->nmodes = 2;
        a->hidden[0] = 256, a->hidden[1] = 1024, a->nhidden = 2;
        a->batch[0] = 1, a->batch[1] = 8, a->nbatch = 2;
        return 0;
    case OPT_FORCE: a->force = 1; return 0;
    case OPT_ENGINE:
        a->engine = prnn_engine_find(value);
        if (!a->engine) {
            char names[256];
            prnn_engine_names(names, sizeof(names));
            snprintf(err, n, "--engine %s: no such engine (%s)", value, names);
            return -1;
        }
        return 0;
    case OPT_VERBOSE: a->verbose = 1; return 0;
    case OPT_MODES: return tool_parse_list(name, value, 8, item_mode, a->modes, &a->nmodes, err, n);
    case OPT_DTYPE: return tool_parse_list(name, value, 8, item_dtype, a->dts, &a->ndts, err, n);
    case OPT_PASS:
        return tool_parse_list(name, value, PRNN_PASS_COUNT, item_pass, a->passes, &a->npasses, err,
                               n);
    case OPT_BUCKETS:
        return tool_parse_list(name, value, 3, item_bucket, a->buckets, &a->nbuckets, err, n);
    case OPT_HIDDEN:
        return tool_parse_ints(name, value, 1, 65536, a->hidden, 64, &a->nhidden, err, n);
    case OPT_BATCH: return tool_parse_ints(name, value, 1, 65536, a->batch, 64, &a->nbatch, err, n);
    case OPT_DIRS: return tool_parse_ints(name, value, 1, 2, a->dirs, 2, &a->ndirs, err, n);
    case OPT_LAYERS:
        if (tool_parse_long(name, value, 1, 64, &v, err, n))
            return -1;
        a->layers = (int)v;
        return 0;
    case OPT_OUTPUT: a->output = value; return tool_parse_path(name, value, err, n);
    case OPT_CANDIDATES:
        if (tool_parse_long(name, value, 1, PRNN_AUTOTUNE_MAX_CANDIDATES, &v, err, n))
            return -1;
        a->opts.max_candidates = (int)v;
        return 0;
    case OPT_SEQ:
        if (tool_parse_long(name, value, 4, 1000000, &v, err, n))
            return -1;
        a->opts.seq_length = (int)v;
        return 0;
    case OPT_REPEATS:
        if (tool_parse_long(name, value, 1, 64, &v, err, n))
            return -1;
        a->opts.repeats = (int)v;
        return 0;
    case OPT_BUDGET: return tool_parse_seconds(name, value, &a->opts.budget_s, err, n);
    }
    snprintf(err, n, "option %d is not handled", c); /* a bug, not input */
    return -1;
}

/* The grid of the usage's defaults, then argv: 0, or -1 with err. */
static int parse_args(int argc, char **argv, tune_args *a, char *err, size_t n)
{
    static const tune_args defaults = {
        .modes = {PRNN_RNN_TANH, PRNN_LSTM, PRNN_GRU},
        .nmodes = 3,
        .dts = {PRNN_DATA_FLOAT, PRNN_DATA_HALF},
        .ndts = 2,
        .hidden = {256, 512, 1024, 2048},
        .nhidden = 4,
        .batch = {1, 4, 8, 16, 64},
        .nbatch = 5,
        .dirs = {1},
        .ndirs = 1,
        .layers = 1,
        .passes = {PRNN_PASS_FORWARD},
        .npasses = 1,
        .buckets = {PRNN_SEQ_BUCKET_ANY},
        .nbuckets = 1,
    };
    *a = defaults;
    prnn_autotune_defaults(&a->opts);
    int first = tool_getopt(argc, argv, "h", long_options, apply, a, err, n);
    if (first < 0)
        return -1;
    return tool_no_operands("prnn-autotune", argc, argv, first, err, n);
}

/* Is the key already in the database at path (exact)? */
static int in_db(const char *path, const prnn_tuning_key *key)
{
    struct stat st;
    int fd = prnn_safe_open_at(AT_FDCWD, path, 0, &st);
    if (fd < 0)
        return 0;
    size_t got = 0;
    char *text = prnn_safe_read_all(fd, &st, PRNN_TUNING_MAX_FILE_BYTES, &got);
    close(fd);
    if (!text || !got) {
        free(text);
        return 0;
    }
    prnn_tuning_db db;
    memset(&db, 0, sizeof(db));
    int found = 0;
    if (prnn_tuning_db_parse(&db, text, got, path) == 0) {
        prnn_tuning_db empty;
        memset(&empty, 0, sizeof(empty));
        prnn_tuning_result r;
        found = prnn_tuning_search(&db, &empty, key, NULL, NULL, &r) == 1 && r.exact;
    }
    prnn_tuning_db_free(&db);
    free(text);
    return found;
}

typedef struct {
    int tty;
    int verbose;
    int key_index, key_total;
    double t_start;
} progress_state;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void on_progress(void *ctx, int done, int total, const char *line)
{
    progress_state *p = ctx;
    if (p->verbose)
        printf("    [%2d/%2d] %s\n", done, total, line);
    if (p->tty) {
        double frac = (p->key_index + (double)done / total) / p->key_total;
        double el = now_s() - p->t_start;
        double eta = frac > 0 ? el / frac - el : 0;
        int width = 30, fill = (int)(frac * width);
        fprintf(stderr, "\r[%.*s%*s] %5.1f%%  ETA %4.0f s ", fill, "##############################",
                width - fill, "", 100 * frac, eta);
        fflush(stderr);
    }
}

/* One key of the grid. */
typedef struct {
    prnn_pass pass;
    prnn_seq_bucket bucket;
    prnnRNNMode_t mode;
    prnnDataType_t dtype;
    int hidden, batch, dirs;
} key_choice;

typedef struct {
    int tuned, skipped, failed;
    double log_gain;
} tally;

/* "forward", "backward-data", "forward T=1", "forward T<=24" */
static void pass_text(const key_choice *k, int max_seq, char *buf, size_t size)
{
    if (k->bucket == PRNN_SEQ_BUCKET_ANY)
        snprintf(buf, size, "%s", prnn_pass_name(k->pass));
    else if (max_seq == 1)
        snprintf(buf, size, "%s T=1", prnn_pass_name(k->pass));
    else if (max_seq > 1)
        snprintf(buf, size, "%s T<=%d", prnn_pass_name(k->pass), max_seq);
    else
        snprintf(buf, size, "%s %s", prnn_pass_name(k->pass), prnn_seq_bucket_name(k->bucket));
}

/* Tunes one key (or skips it: in the database already, or a bucket of a
 * pass or mode that has none) and prints its line. */
static void tune_key(const tune_args *a, const key_choice *k, prnnHandle_t h,
                     const prnn_gpu_call *call, const prnn_device_info *dev, const char *path,
                     const prnn_autotune_options *opts_in, progress_state *ps, tally *t)
{
    const int scan = prnn_cell_traits(k->mode)->scan;
    /* one scan configuration serves both passes and every length */
    if (scan && (k->pass != PRNN_PASS_FORWARD || k->bucket != PRNN_SEQ_BUCKET_ANY)) {
        t->skipped++;
        return;
    }
    prnnRNNDescriptor_t rnn;
    prnnCreateRNNDescriptor(&rnn);
    prnnSetRNNDescriptor(rnn, k->hidden, a->layers, NULL, PRNN_LINEAR_INPUT,
                         k->dirs == 2 ? PRNN_BIDIRECTIONAL : PRNN_UNIDIRECTIONAL, k->mode,
                         k->dtype);
    prnn_rnn_key rnn_key;
    prnn_rnn_key_of(rnn, k->batch, &rnn_key);
    prnn_tuning_key key = prnn_plan_tuning_key(dev, &rnn_key, k->pass);
    key.seq_bucket = k->bucket;
    if (!a->force && in_db(path, &key)) {
        t->skipped++;
        prnnDestroyRNNDescriptor(rnn);
        return;
    }
    prnn_autotune_options opts = *opts_in;
    opts.seq_bucket = k->bucket;
    /* a bucket's search counts the pass's own choice (every length's)
     * among its candidates and measures its short limit against it */
    prnnRNNPlanInfo_t info;
    memset(&info, 0, sizeof(info));
    info.structSize = sizeof(info);
    if (k->bucket != PRNN_SEQ_BUCKET_ANY &&
        prnnGetRNNPlanInfo(h, rnn, k->batch, k->dtype, &info) == PRNN_STATUS_SUCCESS) {
        const int fwd = k->pass == PRNN_PASS_FORWARD;
        opts.pass_engine = fwd ? info.engine : info.backwardEngine;
        opts.pass_config = fwd ? info.config : info.backwardConfig;
    }
    char cfg[320] = "", pass[48];
    double heuristic_us = 0, best_us = 0;
    prnn_api_enter("prnn-autotune");
    prnn_autotune_result best;
    prnn_autotune_report rep;
    prnnStatus_t s =
        prnn_autotune_pass(call, rnn, k->batch, k->pass, a->engine, &opts, &best, &rep);
    if (s == PRNN_STATUS_SUCCESS) {
        char text[256];
        best.engine->format(&best.config, text, sizeof(text));
        snprintf(cfg, sizeof(cfg), "%s%s%s", best.engine->name, best.engine->fields ? ": " : "",
                 best.engine->fields ? text : "");
        heuristic_us = rep.heuristic_us;
        best_us = rep.cand[rep.best].out.us_per_step;
    }
    pass_text(k, s == PRNN_STATUS_SUCCESS ? rep.max_seq_length : 0, pass, sizeof(pass));
    if (ps->tty)
        fprintf(stderr, "\r%60s\r", "");
    if (s == PRNN_STATUS_SUCCESS) {
        double gain = heuristic_us > 0 ? heuristic_us / best_us : 0;
        if (gain > 0)
            t->log_gain += log(gain);
        t->tuned++;
        printf("%-19s %-5s %-8s %5d %4d %3d | %10.3f %10.3f %5.2fx | %s\n", pass,
               prnn_mode_name(k->mode), prnn_dtype_name(k->dtype), k->hidden, k->batch, k->dirs,
               heuristic_us, best_us, gain, cfg);
    } else {
        t->failed++;
        printf("%-19s %-5s %-8s %5d %4d %3d | FAILED: %s\n", pass, prnn_mode_name(k->mode),
               prnn_dtype_name(k->dtype), k->hidden, k->batch, k->dirs, prnnGetLastErrorLog());
    }
    fflush(stdout);
    prnnDestroyRNNDescriptor(rnn);
}

int main(int argc, char **argv)
{
    tune_args a;
    char err[512];
    if (parse_args(argc, argv, &a, err, sizeof(err)))
        return tool_bad_args("prnn-autotune", err);
    if (a.help) {
        usage(stdout);
        return TOOL_EXIT_OK;
    }
    if (a.version) {
        tool_print_version(stdout, "prnn-autotune");
        return TOOL_EXIT_OK;
    }
    int buckets = 0; /* a bucket other than "any" */
    for (int i = 0; i < a.nbuckets; i++)
        buckets |= a.buckets[i] != PRNN_SEQ_BUCKET_ANY;
    if (buckets && a.engine)
        return tool_bad_args("prnn-autotune",
                             "--engine cannot be combined with --seq-buckets one or short: their "
                             "entries weigh every engine against the pass's own choice");
    /* A bucket's search weighs the pass's own choice as the planner makes
     * it: from the database being written, where that is not the user DB
     * (its new "any" entries included). */
    if (buckets && a.output)
        setenv("PRNN_TUNING_DB", a.output, 1);
    prnn_autotune_options opts = a.opts;
    prnnHandle_t h;
    prnnStatus_t s = prnnCreate(&h);
    if (s) {
        fprintf(stderr, "prnn-autotune: %s (%s): %s\n",
                s == PRNN_STATUS_NO_DEVICE ? "no GPU" : "prnnCreate failed", prnnGetErrorString(s),
                prnnGetLastErrorLog());
        return s == PRNN_STATUS_NO_DEVICE ? TOOL_EXIT_NO_GPU : TOOL_EXIT_FAILURE;
    }
    char path[4096];
    if (a.output)
        snprintf(path, sizeof(path), "%s", a.output);
    else if (prnn_tuning_user_db_path(path, sizeof(path))) {
        fprintf(stderr, "prnn-autotune: no user tuning DB path (set PRNN_TUNING_DB or "
                        "PRNN_CACHE_DIR, or pass --output)\n");
        prnnDestroy(h);
        return TOOL_EXIT_FAILURE;
    }
    opts.output_db = path;
    signal(SIGINT, on_sigint);
    progress_state ps = {isatty(2), a.verbose, 0, 0, now_s()};
    opts.progress = on_progress;
    opts.progress_ctx = &ps;
    ps.key_total = a.npasses * a.nbuckets * a.nmodes * a.nhidden * a.nbatch * a.ndts * a.ndirs;
    const prnn_device_info *dev = &h->gpu->info;
    prnn_gpu_call call = {h->gpu, h->stream, h->autotune};
    printf("prnn-autotune on %s -> %s (%d keys)\n", h->gpu->description, path, ps.key_total);
    printf("%-19s %-5s %-8s %5s %4s %3s | %10s %10s %6s | %s\n", "pass", "mode", "dtype", "H", "B",
           "dir", "heuristic", "autotuned", "gain", "config");
    tally t = {0, 0, 0, 0.0};
    for (int pi = 0; pi < a.npasses && !interrupted; pi++)
        for (int ki = 0; ki < a.nbuckets && !interrupted; ki++)
            for (int mi = 0; mi < a.nmodes && !interrupted; mi++)
                for (int ti = 0; ti < a.ndts && !interrupted; ti++)
                    for (int hi = 0; hi < a.nhidden && !interrupted; hi++)
                        for (int bi = 0; bi < a.nbatch && !interrupted; bi++)
                            for (int di = 0; di < a.ndirs && !interrupted; di++, ps.key_index++) {
                                key_choice kc = {a.passes[pi], a.buckets[ki], a.modes[mi],
                                                 a.dts[ti],    a.hidden[hi],  a.batch[bi],
                                                 a.dirs[di]};
                                tune_key(&a, &kc, h, &call, dev, path, &opts, &ps, &t);
                            }
    printf("\n%d tuned, %d already in the database or not tuned in a bucket, %d failed%s; "
           "geometric-mean gain over the heuristic %.2fx\n",
           t.tuned, t.skipped, t.failed, interrupted ? ", interrupted" : "",
           t.tuned ? exp(t.log_gain / t.tuned) : 1.0);
    prnnDestroy(h);
    return t.failed ? TOOL_EXIT_FAILURE : interrupted ? TOOL_EXIT_INTERRUPTED : TOOL_EXIT_OK;
}
