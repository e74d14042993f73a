#include "cold_start.h"

#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_device.h"
#include "tool_cli.h"

extern char **environ;

#define LINE_TAG "PRNN_BENCH_COLD"

void bench_cold_spec_format(char *buf, size_t n, const bench_point *pt, bench_math math,
                            double spawn_ms)
{
    snprintf(buf, n, "%s,%s,%d,%d,%d,%d,%d,%s,%.3f", prnn_mode_name(pt->mode),
             bench_dtype_short(pt->dtype), pt->hidden, pt->input, pt->batch, pt->layers,
             pt->bidirectional, math == BENCH_MATH_TF32 ? "tf32" : "strict", spawn_ms);
}

int bench_cold_spec_parse(const char *spec, bench_point *pt, bench_math *math, double *spawn_ms)
{
    char mode[16], dtype[16], m[16];
    int h, in, b, l, bi;
    double t;
    memset(pt, 0, sizeof(*pt));
    if (sscanf(spec, "%15[^,],%15[^,],%d,%d,%d,%d,%d,%15[^,],%lf", mode, dtype, &h, &in, &b, &l,
               &bi, m, &t) != 9)
        return -1;
    if (bench_parse_mode(mode, &pt->mode) || bench_parse_dtype(dtype, &pt->dtype) || h < 1 ||
        in < 1 || b < 1 || l < 1 || (bi != 0 && bi != 1))
        return -1;
    if (!strcmp(m, "tf32"))
        *math = BENCH_MATH_TF32;
    else if (!strcmp(m, "strict"))
        *math = BENCH_MATH_STRICT;
    else
        return -1;
    pt->hidden = h;
    pt->input = in;
    pt->batch = b;
    pt->layers = l;
    pt->bidirectional = bi;
    pt->seq = 1;
    pt->pass = BENCH_INFERENCE;
    *spawn_ms = t;
    return 0;
}

/* ---- child ---- */

static void print_phase(const char *phase, double wall, const prnnRNNPlanInfo_t *info)
{
    static const char *const src[] = {"none", "memory", "disk", "compiled"};
    int s = (int)info->cubinSource;
    printf(LINE_TAG " %s %.3f %.3f %.3f %s\n", phase, wall, info->planMs, info->compileMs,
           s >= 0 && s <= 3 ? src[s] : "?");
}

static void print_error(const char *what, prnnStatus_t s)
{
    char msg[512];
    snprintf(msg, sizeof(msg), "%s: %s: %s", what, prnnGetErrorString(s), prnnGetLastErrorLog());
    for (char *c = msg; *c; c++)
        if (*c == '\n')
            *c = ' ';
    printf(LINE_TAG " error %s\n", msg);
}

/* One handle, one plan: prints the phase. 0 or -1. */
static int plan_once(const bench_point *pt, bench_math math, const char *phase, double spawn_ms)
{
    prnnHandle_t h = NULL;
    prnnRNNDescriptor_t rnn = NULL;
    prnnStatus_t s = prnnCreate(&h);
    if (s) {
        print_error("prnnCreate", s);
        return -1;
    }
    int rc = -1;
    if ((s = prnnCreateRNNDescriptor(&rnn)) ||
        (s = prnnSetRNNDescriptor(rnn, pt->hidden, pt->layers, NULL, PRNN_LINEAR_INPUT,
                                  pt->bidirectional ? PRNN_BIDIRECTIONAL : PRNN_UNIDIRECTIONAL,
                                  pt->mode, pt->dtype)) ||
        (s = prnnSetRNNMatrixMathType(rnn, math == BENCH_MATH_TF32 ? PRNN_TF32_RECURRENCE_MATH
                                                                   : PRNN_DEFAULT_MATH))) {
        print_error("RNN descriptor", s);
        goto done;
    }
    double t0 = bench_now_ms();
    s = prnnPrepareRNN(h, rnn, pt->batch, pt->dtype);
    double t1 = bench_now_ms();
    if (s) {
        print_error("prnnPrepareRNN", s);
        goto done;
    }
    prnnRNNPlanInfo_t info;
    memset(&info, 0, sizeof(info));
    info.structSize = sizeof(info);
    s = prnnGetRNNPlanInfo(h, rnn, pt->batch, pt->dtype, &info);
    if (s) {
        print_error("prnnGetRNNPlanInfo", s);
        goto done;
    }
    print_phase(phase, t1 - t0, &info);
    if (!strcmp(phase, "first"))
        printf(LINE_TAG " process %.3f\n", t1 - spawn_ms);
    rc = 0;
done:
    prnnDestroyRNNDescriptor(rnn);
    prnnDestroy(h);
    fflush(stdout);
    return rc;
}

int bench_cold_child(const char *spec, int device)
{
    bench_point pt;
    bench_math math;
    double spawn_ms;
    if (bench_cold_spec_parse(spec, &pt, &math, &spawn_ms)) {
        printf(LINE_TAG " error bad --cold-child spec '%s'\n", spec);
        return TOOL_EXIT_USAGE;
    }
    bench_device d;
    char err[BENCH_ERR];
    int rc = bench_device_open(&d, device, err, sizeof(err));
    if (rc) {
        for (char *c = err; *c; c++)
            if (*c == '\n')
                *c = ' ';
        printf(LINE_TAG " error %s\n", err);
        return rc;
    }
    /* The device's primary context stays retained between the two handles,
     * so the second finds the kernel in the module cache. */
    rc = plan_once(&pt, math, "first", spawn_ms) || plan_once(&pt, math, "second", spawn_ms);
    bench_device_close(&d);
    return rc ? TOOL_EXIT_FAILURE : TOOL_EXIT_OK;
}

/* ---- parent ---- */

int bench_cold_parse_line(const char *line, bench_cold_result *r, int first_is_disk)
{
    size_t tl = strlen(LINE_TAG);
    if (strncmp(line, LINE_TAG " ", tl + 1) != 0)
        return -1;
    const char *p = line + tl + 1;
    char phase[16], src[16];
    double wall, plan, compile;
    if (!strncmp(p, "error ", 6)) {
        size_t len = strlen(r->note);
        snprintf(r->note + len, sizeof(r->note) - len, "%s%s", len ? "; " : "", p + 6);
        len = strlen(r->note);
        while (len && (r->note[len - 1] == '\n' || r->note[len - 1] == '\r'))
            r->note[--len] = '\0';
        return 0;
    }
    if (sscanf(p, "process %lf", &wall) == 1) {
        if (!first_is_disk)
            r->process_to_plan_ms = wall;
        return 0;
    }
    if (sscanf(p, "%15s %lf %lf %lf %15s", phase, &wall, &plan, &compile, src) != 5)
        return -1;
    bench_cold_phase *ph = NULL;
    if (!strcmp(phase, "first"))
        ph = first_is_disk ? &r->disk : &r->cold;
    else if (!strcmp(phase, "second") && !first_is_disk)
        ph = &r->memory;
    else if (!strcmp(phase, "second"))
        return 0;
    if (!ph)
        return -1;
    ph->ok = 1;
    ph->wall_ms = wall;
    ph->plan_ms = plan;
    ph->compile_ms = compile;
    bench_copy(ph->cubin_source, sizeof(ph->cubin_source), src);
    return 0;
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

/* Runs this executable as a cold-start child with PRNN_CACHE_DIR=cache_dir
 * and feeds its output lines to bench_cold_parse_line. */
static int run_child(const bench_args *a, const bench_point *pt, const char *cache_dir,
                     bench_cold_result *r, int first_is_disk)
{
    size_t nenv = 0;
    while (environ[nenv])
        nenv++;
    char **envp = calloc(nenv + 2, sizeof(char *));
    char cache_var[4200];
    if (!envp)
        return -1;
    size_t k = 0;
    for (size_t i = 0; i < nenv; i++)
        if (strncmp(environ[i], "PRNN_CACHE_DIR=", 15) != 0)
            envp[k++] = environ[i];
    snprintf(cache_var, sizeof(cache_var), "PRNN_CACHE_DIR=%s", cache_dir);
    envp[k++] = cache_var;
    envp[k] = NULL;

    char spec[256], device[16];
    bench_cold_spec_format(spec, sizeof(spec), pt, a->math, bench_now_ms());
    snprintf(device, sizeof(device), "%d", a->device);
    char *argv[] = {"prnn-bench", "--cold-child", spec, "--device", device, NULL};

    int fds[2];
    if (pipe(fds)) {
        free(envp);
        return -1;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    posix_spawn_file_actions_addclose(&fa, fds[1]);
    pid_t pid;
    int rc = posix_spawn(&pid, "/proc/self/exe", &fa, NULL, argv, envp);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    free(envp);
    if (rc) {
        close(fds[0]);
        snprintf(r->note, sizeof(r->note), "posix_spawn: %s", strerror(rc));
        return -1;
    }
    FILE *f = fdopen(fds[0], "r");
    if (f) {
        char line[1024];
        while (fgets(line, sizeof(line), f))
            bench_cold_parse_line(line, r, first_is_disk);
        fclose(f);
    } else {
        close(fds[0]);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        size_t len = strlen(r->note);
        if (!len)
            snprintf(r->note, sizeof(r->note), "child exited with status %d",
                     WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        return -1;
    }
    return 0;
}

int bench_cold_start(const bench_args *a, bench_cold_result **out, int *nout, char *err, size_t n)
{
    *out = NULL;
    *nout = 0;
    long total = bench_args_num_points(a);
    bench_cold_result *res = calloc((size_t)(total ? total : 1), sizeof(*res));
    if (!res) {
        snprintf(err, n, "out of host memory");
        return -1;
    }
    int count = 0;
    for (long i = 0; i < total; i++) {
        bench_point pt;
        bench_args_point(a, i, &pt);
        /* the child plans a v5 descriptor, which has no projection */
        if (pt.proj)
            continue;
        int seen = 0;
        for (int j = 0; j < count && !seen; j++) {
            const bench_point *q = &res[j].pt;
            seen = q->mode == pt.mode && q->dtype == pt.dtype && q->hidden == pt.hidden &&
                   q->input == pt.input && q->batch == pt.batch;
        }
        if (seen)
            continue;
        bench_cold_result *r = &res[count++];
        r->pt = pt;
        r->process_to_plan_ms = NAN;

        char dir[] = "/tmp/prnn-bench-cold-XXXXXX";
        if (!mkdtemp(dir)) {
            snprintf(r->note, sizeof(r->note), "mkdtemp: %s", strerror(errno));
            continue;
        }
        if (run_child(a, &pt, dir, r, 0) == 0)
            run_child(a, &pt, dir, r, 1);
        nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
        if (a->verbose)
            fprintf(stderr, "prnn-bench: cold start %s %s H=%d B=%d done%s%s\n",
                    prnn_mode_name(pt.mode), bench_dtype_short(pt.dtype), pt.hidden, pt.batch,
                    r->note[0] ? ": " : "", r->note);
    }
    *out = res;
    *nout = count;
    return 0;
}
