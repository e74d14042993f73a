/*
 * prnn-autotune: finds the fastest persistent-kernel tile for each shape on
 * this GPU and records it in a tuning database (the user DB by default, or
 * --output FILE, e.g. tuning_db/<gpu>.json to ship one).
 *
 * For every key (mode x hidden x batch x data type x directions): candidate
 * tiles are compiled in parallel, each is checked against the CPU reference
 * (a wrong candidate is rejected, never recorded), the survivors are timed,
 * and the winner is written atomically. Resumable: keys already in the
 * target database are skipped unless --force. Ctrl-C stops after the key in
 * progress; the database is valid at every moment.
 */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "descriptors.h"
#include "dtype.h"
#include "error.h"
#include "gpu/autotune.h"
#include "gpu/gpu_backend.h"
#include "gpu/gpu_state.h"
#include "handle.h"
#include "prnn.h"
#include "tuning/tuning_db.h"

static volatile sig_atomic_t interrupted;
static void on_sigint(int sig)
{
    (void)sig;
    interrupted = 1;
}

typedef struct {
    int values[64];
    int n;
} int_list;

static int parse_ints(const char *s, int_list *l)
{
    l->n = 0;
    while (*s && l->n < 64) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || v < 1 || v > 65536)
            return -1;
        l->values[l->n++] = (int)v;
        s = *end == ',' ? end + 1 : end;
        if (*end && *end != ',')
            return -1;
    }
    return l->n ? 0 : -1;
}

static int parse_modes(const char *s, prnnRNNMode_t *modes, int *n)
{
    char buf[256];
    snprintf(buf, sizeof(buf), "%s", s);
    *n = 0;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        prnnRNNMode_t m;
        if (prnn_tuning_mode_from_name(tok, &m) || m == PRNN_SRU || *n >= 8)
            return -1;
        modes[(*n)++] = m;
    }
    return *n ? 0 : -1;
}

static int parse_dtypes(const char *s, prnnDataType_t *dts, int *n)
{
    char buf[256];
    snprintf(buf, sizeof(buf), "%s", s);
    *n = 0;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        prnnDataType_t t;
        if (prnn_tuning_dtype_from_name(tok, &t) || *n >= 8)
            return -1;
        dts[(*n)++] = t;
    }
    return *n ? 0 : -1;
}

static int parse_passes(const char *s, prnn_pass *passes, int *n)
{
    char buf[256];
    snprintf(buf, sizeof(buf), "%s", s);
    *n = 0;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        prnn_pass p;
        if (prnn_pass_from_name(tok, &p) || *n >= PRNN_PASS_COUNT)
            return -1;
        passes[(*n)++] = p;
    }
    return *n ? 0 : -1;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: prnn-autotune [options]\n"
            "  --modes LIST      tanh,lstm,gru (default; relu also accepted)\n"
            "  --hidden LIST     256,512,1024,2048 (default)\n"
            "  --batch LIST      1,4,8,16,64 (default)\n"
            "  --dtype LIST      float,half (default; bfloat16, double)\n"
            "  --directions LIST 1 (default; 1,2)\n"
            "  --pass LIST       forward (default), backward-data: which persistent\n"
            "                    kernel to tune (backward-data candidates are timed on\n"
            "                    BackwardData calls after one ForwardTraining)\n"
            "  --quick           a small grid: lstm,gru x 256,1024 x 1,8 x float,half\n"
            "  --output FILE     database to update (default: the user tuning DB,\n"
            "                    $PRNN_TUNING_DB or <cache dir>/tuning.json)\n"
            "  --force           re-tune keys the database already holds\n"
            "  --candidates N    tiles tried per key (default 12)\n"
            "  --seq N           timed sequence length (default 256)\n"
            "  --repeats N       timed runs per candidate, median (default 5)\n"
            "  --budget S        seconds per key before remaining candidates are\n"
            "                    skipped (default 60)\n"
            "  --verbose         print every candidate\n");
}

/* Is the key already in the database at path (exact)? */
static int in_db(const char *path, const prnn_tuning_key *key)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    if (n <= 0 || n > (64L << 20)) {
        fclose(f);
        return 0;
    }
    char *text = malloc((size_t)n + 1);
    size_t got = text ? fread(text, 1, (size_t)n, f) : 0;
    fclose(f);
    if (!text)
        return 0;
    text[got] = '\0';
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
    return ts.tv_sec + ts.tv_nsec * 1e-9;
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
        fprintf(stderr, "\r[%.*s%*s] %5.1f%%  ETA %4.0f s ", fill,
                "##############################", width - fill, "", 100 * frac, eta);
        fflush(stderr);
    }
}

int main(int argc, char **argv)
{
    prnnRNNMode_t modes[8] = {PRNN_RNN_TANH, PRNN_LSTM, PRNN_GRU};
    int nmodes = 3;
    prnnDataType_t dts[8] = {PRNN_DATA_FLOAT, PRNN_DATA_HALF};
    int ndts = 2;
    int_list hidden = {{256, 512, 1024, 2048}, 4}, batch = {{1, 4, 8, 16, 64}, 5};
    int_list dirs = {{1}, 1};
    const char *output = NULL;
    int force = 0, verbose = 0;
    prnn_autotune_options opts;
    prnn_autotune_defaults(&opts);
    prnn_pass passes[PRNN_PASS_COUNT] = {PRNN_PASS_FORWARD};
    int npasses = 1;
    enum { O_MODES = 256, O_HIDDEN, O_BATCH, O_DTYPE, O_DIRS, O_PASS, O_QUICK, O_OUTPUT, O_FORCE,
           O_CANDIDATES, O_SEQ, O_REPEATS, O_BUDGET, O_VERBOSE };
    static const struct option longopts[] = {
        {"modes", required_argument, NULL, O_MODES},
        {"hidden", required_argument, NULL, O_HIDDEN},
        {"batch", required_argument, NULL, O_BATCH},
        {"dtype", required_argument, NULL, O_DTYPE},
        {"directions", required_argument, NULL, O_DIRS},
        {"pass", required_argument, NULL, O_PASS},
        {"quick", no_argument, NULL, O_QUICK},
        {"output", required_argument, NULL, O_OUTPUT},
        {"force", no_argument, NULL, O_FORCE},
        {"candidates", required_argument, NULL, O_CANDIDATES},
        {"seq", required_argument, NULL, O_SEQ},
        {"repeats", required_argument, NULL, O_REPEATS},
        {"budget", required_argument, NULL, O_BUDGET},
        {"verbose", no_argument, NULL, O_VERBOSE},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    for (int c; (c = getopt_long(argc, argv, "h", longopts, NULL)) != -1;) {
        int bad = 0;
        switch (c) {
        case 'h':
            usage(stdout);
            return 0;
        case O_QUICK:
            modes[0] = PRNN_LSTM, modes[1] = PRNN_GRU, nmodes = 2;
            hidden = (int_list){{256, 1024}, 2};
            batch = (int_list){{1, 8}, 2};
            break;
        case O_FORCE: force = 1; break;
        case O_VERBOSE: verbose = 1; break;
        case O_MODES: bad = parse_modes(optarg, modes, &nmodes); break;
        case O_DTYPE: bad = parse_dtypes(optarg, dts, &ndts); break;
        case O_HIDDEN: bad = parse_ints(optarg, &hidden); break;
        case O_BATCH: bad = parse_ints(optarg, &batch); break;
        case O_DIRS:
            bad = parse_ints(optarg, &dirs);
            for (int k = 0; k < dirs.n; k++)
                bad |= dirs.values[k] > 2;
            break;
        case O_PASS: bad = parse_passes(optarg, passes, &npasses); break;
        case O_OUTPUT: output = optarg; break;
        case O_CANDIDATES:
            opts.max_candidates = atoi(optarg);
            bad = opts.max_candidates < 1 || opts.max_candidates > PRNN_AUTOTUNE_MAX_CANDIDATES;
            break;
        case O_SEQ:
            opts.seq_length = atoi(optarg);
            bad = opts.seq_length < 4;
            break;
        case O_REPEATS:
            opts.repeats = atoi(optarg);
            bad = opts.repeats < 1 || opts.repeats > 64;
            break;
        case O_BUDGET:
            opts.budget_s = atof(optarg);
            bad = !(opts.budget_s > 0);
            break;
        default:
            bad = 1; /* getopt_long has said what */
        }
        if (bad) {
            if (c != '?')
                fprintf(stderr, "prnn-autotune: bad value for --%s: \"%s\"\n",
                        longopts[c - O_MODES].name, optarg ? optarg : "");
            usage(stderr);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "prnn-autotune: unexpected argument \"%s\"\n", argv[optind]);
        usage(stderr);
        return 2;
    }
    prnnHandle_t h;
    prnnStatus_t s = prnnCreate(&h);
    if (s) {
        fprintf(stderr, "prnn-autotune: no usable GPU (%s): %s\n", prnnGetErrorString(s),
                prnnGetLastErrorLog());
        return 2;
    }
    char path[4096];
    if (output)
        snprintf(path, sizeof(path), "%s", output);
    else if (prnn_tuning_user_db_path(path, sizeof(path))) {
        fprintf(stderr, "prnn-autotune: no user tuning DB path (set PRNN_TUNING_DB or "
                        "PRNN_CACHE_DIR, or pass --output)\n");
        return 2;
    }
    opts.output_db = path;
    signal(SIGINT, on_sigint);
    progress_state ps = {isatty(2), verbose, 0, 0, now_s()};
    opts.progress = on_progress;
    opts.progress_ctx = &ps;
    ps.key_total = npasses * nmodes * hidden.n * batch.n * ndts * dirs.n;
    const prnn_device_info *dev = &h->gpu->info;
    prnn_gpu_call call = {h->gpu, h->stream, h->autotune};
    printf("prnn-autotune on %s -> %s (%d keys)\n", h->gpu->description, path, ps.key_total);
    printf("%-13s %-5s %-8s %5s %4s %3s | %10s %10s %6s | %s\n", "pass", "mode", "dtype", "H",
           "B", "dir", "heuristic", "autotuned", "gain", "config");
    int tuned = 0, skipped = 0, failed = 0;
    double log_gain = 0;
    for (int pi = 0; pi < npasses && !interrupted; pi++)
    for (int mi = 0; mi < nmodes && !interrupted; mi++)
        for (int ti = 0; ti < ndts && !interrupted; ti++)
            for (int hi = 0; hi < hidden.n && !interrupted; hi++)
                for (int bi = 0; bi < batch.n && !interrupted; bi++)
                    for (int di = 0; di < dirs.n && !interrupted; di++, ps.key_index++) {
                        prnn_tuning_key key = {dev->name, dev->cc_major, dev->cc_minor,
                                               dev->sm_count, modes[mi], dts[ti],
                                               hidden.values[hi], dirs.values[di],
                                               batch.values[bi], passes[pi]};
                        if (!force && in_db(path, &key)) {
                            skipped++;
                            continue;
                        }
                        prnnRNNDescriptor_t rnn;
                        prnnCreateRNNDescriptor(&rnn);
                        prnnSetRNNDescriptor(rnn, hidden.values[hi], 1, NULL, PRNN_LINEAR_INPUT,
                                             dirs.values[di] == 2 ? PRNN_BIDIRECTIONAL
                                                                  : PRNN_UNIDIRECTIONAL,
                                             modes[mi], dts[ti]);
                        prnn_tile_config best;
                        prnn_autotune_report rep;
                        prnn_api_enter("prnn-autotune");
                        s = prnn_autotune_shape(&call, rnn, batch.values[bi], passes[pi], &opts,
                                                &best, &rep);
                        if (ps.tty)
                            fprintf(stderr, "\r%60s\r", "");
                        char cfg[256] = "";
                        if (s == PRNN_STATUS_SUCCESS) {
                            prnn_tile_config_format(&best, cfg, sizeof(cfg));
                            double b = rep.cand[rep.best].us_per_step;
                            double gain = rep.heuristic_us > 0 ? rep.heuristic_us / b : 0;
                            if (gain > 0)
                                log_gain += log(gain);
                            tuned++;
                            printf("%-13s %-5s %-8s %5d %4d %3d | %10.3f %10.3f %5.2fx | %s\n",
                                   prnn_pass_name(passes[pi]), prnn_mode_name(modes[mi]), prnn_dtype_name(dts[ti]),
                                   hidden.values[hi], batch.values[bi], dirs.values[di],
                                   rep.heuristic_us, b, gain, cfg);
                        } else {
                            failed++;
                            printf("%-13s %-5s %-8s %5d %4d %3d | FAILED: %s\n",
                                   prnn_pass_name(passes[pi]), prnn_mode_name(modes[mi]), prnn_dtype_name(dts[ti]),
                                   hidden.values[hi], batch.values[bi], dirs.values[di],
                                   prnnGetLastErrorLog());
                        }
                        fflush(stdout);
                        prnnDestroyRNNDescriptor(rnn);
                    }
    printf("\n%d tuned, %d already in the database, %d failed%s; geometric-mean gain over "
           "the heuristic %.2fx\n", tuned, skipped, failed,
           interrupted ? ", interrupted" : "", tuned ? exp(log_gain / tuned) : 1.0);
    prnnDestroy(h);
    return failed ? 1 : interrupted ? 130 : 0;
}
