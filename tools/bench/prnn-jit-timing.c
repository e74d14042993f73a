/*
 * prnn-jit-timing: what the JIT side of a first training step costs on this
 * machine, without a GPU (bench/NOTES.md, issue 26):
 *
 *   1. loading NVRTC (dlopen, nvrtcVersion), the first compile of the
 *      process (a trivial kernel: NVRTC's own start-up) and a second one;
 *   2. the kernels a training plan of one shape loads on a described GPU
 *      (prnn_plan_kernel_set, as prnn-cache warm predicts them), compiled
 *      into an empty cache directory one after another, then on
 *      $PRNN_COMPILE_THREADS (default: every CPU) threads;
 *   3. the warm path of those kernels: their keys, then their disk-cache
 *      reads (what a plan costs before the driver loads the modules), and
 *      the same through a batch.
 *
 * usage: prnn-jit-timing [--arch 90] [--mode lstm] [--dtype half]
 *                        [--hidden 1024] [--batch 16] [--dirs 1]
 *                        [--gpu NAME] [--sms 132] [--first-plan [--warm-up MS]]
 * The first-call figures are a new process's: run it once per figure.
 * --first-plan: only the plan's kernels on every thread into an empty
 * directory, as the process's first compiles (NVRTC's start-up included);
 * with --warm-up MS, after starting the warm-up a GPU handle's creation
 * starts (cuda/warmup.h) and waiting MS milliseconds (what a caller
 * does between creating the handle and its first plan).
 */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuda/nvrtc_lib.h"
#include "error.h"
#include "gpu/plan/plan_select.h"
#include "gpu/plan/plan_warm.h"
#include "gpu/run/gpu_state.h"
#include "jit/cubin_batch.h"
#include "jit/cubin_cache.h"
#include "jit/nvrtc_compile.h"
#include "cuda/warmup.h"
#include "tuning/tuning_db.h"

static void die(const char *what)
{
    fprintf(stderr, "prnn-jit-timing: %s: %s\n", what, prnnGetLastErrorLog());
    exit(1);
}

static char *tmpdir(const char *tag)
{
    char *p = malloc(PATH_MAX);
    snprintf(p, PATH_MAX, "/tmp/prnn-jit-timing-%s.XXXXXX", tag);
    if (!p || !mkdtemp(p)) {
        perror("mkdtemp");
        exit(1);
    }
    return p;
}

static void rmtree(const char *dir)
{
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "prnn-jit-timing: could not remove %s\n", dir);
}

/* The batch's wall time for reqs into dir on `threads` threads. */
static double batch_ms(const char *dir, const prnn_compile_request *reqs, int n,
                       const char *threads, prnn_cubin_batch_counts *c)
{
    setenv("PRNN_COMPILE_THREADS", threads, 1);
    double t0 = prnn_now_ms();
    prnn_cubin_batch_get(dir, reqs, n, 0, c);
    double ms = prnn_now_ms() - t0;
    unsetenv("PRNN_COMPILE_THREADS");
    if (c->failed)
        fprintf(stderr, "prnn-jit-timing: %d failed: %s\n", c->failed, c->first_failure);
    return ms;
}

static void count_entry(const prnn_tuning_entry *e, void *ctx)
{
    (void)e;
    ++*(int *)ctx;
}

int main(int argc, char **argv)
{
    int sm = 90, hidden = 1024, batch = 16, dirs = 1, sms = 132, first_plan = 0, gap_ms = -1;
    int profile_rounds = 0;
    const char *mode = "lstm", *dtype = "half", *gpu = "NVIDIA H100 80GB HBM3";
    static const struct option opts[] = {
        {"arch", required_argument, NULL, 'a'},    {"mode", required_argument, NULL, 'm'},
        {"dtype", required_argument, NULL, 'd'},   {"hidden", required_argument, NULL, 'H'},
        {"batch", required_argument, NULL, 'B'},   {"dirs", required_argument, NULL, 'D'},
        {"gpu", required_argument, NULL, 'g'},     {"sms", required_argument, NULL, 's'},
        {"first-plan", no_argument, NULL, 'f'},    {"profile-set", required_argument, NULL, 'p'},
        {"warm-up", required_argument, NULL, 'w'}, {NULL, 0, NULL, 0}};
    for (int c; (c = getopt_long(argc, argv, "", opts, NULL)) != -1;) {
        switch (c) {
        case 'a': sm = atoi(optarg + (strncmp(optarg, "sm_", 3) ? 0 : 3)); break;
        case 'm': mode = optarg; break;
        case 'd': dtype = optarg; break;
        case 'H': hidden = atoi(optarg); break;
        case 'B': batch = atoi(optarg); break;
        case 'D': dirs = atoi(optarg); break;
        case 'g': gpu = optarg; break;
        case 's': sms = atoi(optarg); break;
        case 'f': first_plan = 1; break;
        case 'w': gap_ms = atoi(optarg); break;
        case 'p': profile_rounds = atoi(optarg); break;
        default: fprintf(stderr, "usage: see the top of tools/bench/prnn-jit-timing.c\n"); return 2;
        }
    }
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    printf("prnn-jit-timing: sm_%d %s %s H %d B %d dirs %d on %s (%d SMs); %ld CPUs, batch "
           "threads %d\n",
           sm, mode, dtype, hidden, batch, dirs, gpu, sms, cpus, prnn_compile_threads(64));

    double t_db = prnn_now_ms();
    int n_entries = 0;
    prnn_tuning_each_entry(0, count_entry, &n_entries);
    t_db = prnn_now_ms() - t_db;
    printf("shipped tuning DB: %d entries parsed in %.2f ms\n", n_entries, t_db);
    if (gap_ms >= 0) {
        prnn_cuda_warm_up(sm);
        usleep((useconds_t)gap_ms * 1000);
    }
    if (!first_plan) {
        double t0 = prnn_now_ms();
        const prnn_nvrtc *nv;
        if (prnn_nvrtc_get(&nv))
            die("NVRTC");
        double load = prnn_now_ms() - t0;
        static const char *const d1[] = {"PRNN_PROBE_OFFSET=1"}, *const d2[] = {
                                                                     "PRNN_PROBE_OFFSET=2"};
        prnn_compile_request p1 = {"probe.cu", d1, 1, sm, "prnn_probe", NULL};
        prnn_compile_request p2 = {"probe.cu", d2, 1, sm, "prnn_probe", NULL};
        void *bin;
        size_t size;
        t0 = prnn_now_ms();
        if (prnn_nvrtc_compile(&p1, &bin, &size, NULL))
            die("probe");
        free(bin);
        double first = prnn_now_ms() - t0;
        t0 = prnn_now_ms();
        if (prnn_nvrtc_compile(&p2, &bin, &size, NULL))
            die("probe");
        free(bin);
        double second = prnn_now_ms() - t0;
        printf("nvrtc %d.%d load %.1f ms; first compile (trivial kernel) %.1f ms, second %.1f "
               "ms\n",
               nv->major, nv->minor, load, first, second);
    }

    /* The kernel set of a training plan of the shape, on a described GPU. */
    prnn_tuning_entry e;
    memset(&e, 0, sizeof(e));
    snprintf(e.gpu_name, sizeof(e.gpu_name), "%s", gpu);
    e.cc_major = sm / 10;
    e.cc_minor = sm % 10;
    e.sm_count = sms;
    if (prnn_tuning_mode_from_name(mode, &e.mode) || prnn_tuning_dtype_from_name(dtype, &e.dtype)) {
        fprintf(stderr, "prnn-jit-timing: unknown mode or dtype\n");
        return 2;
    }
    e.hidden = hidden;
    e.directions = dirs;
    e.batch_min = e.batch_max = batch;
    struct prnn_gpu_state *gs = calloc(1, sizeof(*gs));
    if (!gs || prnn_warm_describe(sm, &e, gs)) {
        fprintf(stderr, "prnn-jit-timing: sm_%d is not an architecture prnn describes\n", sm);
        return 2;
    }
    prnn_rnn_key key;
    prnn_warm_key(&e, batch, &key);
    const prnn_gpu_call g = {gs, NULL, PRNN_AUTOTUNE_OFF};
    prnn_plan_kernels ks;
    double t_set = prnn_now_ms();
    prnn_plan_kernel_set(&g, &key, 1, &ks);
    t_set = prnn_now_ms() - t_set;
    double t_again = prnn_now_ms();
    for (int r = 0; r < 100; r++)
        prnn_plan_kernel_set(&g, &key, 1, &ks);
    t_again = (prnn_now_ms() - t_again) / 100;
    printf("the plan's kernel set: first %.2f ms (its heuristic searches), then %.3f ms\n", t_set,
           t_again);
    for (int r = 0; r < profile_rounds; r++)
        prnn_plan_kernel_set(&g, &key, 1, &ks);
    if (profile_rounds)
        return 0;
    prnn_compile_request reqs[PRNN_PLAN_MAX_KERNELS];
    for (int i = 0; i < ks.count; i++) {
        reqs[i] = ks.req[i].req;
        printf("  kernel %d: %s (%s, %d defines)\n", i, reqs[i].kernel_name, reqs[i].source_name,
               reqs[i].num_defines);
    }

    prnn_cubin_batch_counts c;
    char threads[16];
    snprintf(threads, sizeof(threads), "%d", prnn_compile_threads(64));
    if (first_plan) {
        char *dir = tmpdir("first");
        double ms = batch_ms(dir, reqs, ks.count, threads, &c);
        printf("first plan%s: %d kernels compiled on %d threads in %.1f ms (NVRTC %.1f ms "
               "summed)\n",
               gap_ms >= 0 ? ", after the warm-up" : "", c.compiled, c.threads, ms, c.compile_ms);
        rmtree(dir);
        free(dir);
        free(gs);
        return 0;
    }
    char *serial_dir = tmpdir("serial"), *parallel_dir = tmpdir("parallel");
    double serial = batch_ms(serial_dir, reqs, ks.count, "1", &c);
    printf("cold, one after another: %d kernels compiled in %.1f ms (NVRTC %.1f ms)\n", c.compiled,
           serial, c.compile_ms);
    double parallel = batch_ms(parallel_dir, reqs, ks.count, threads, &c);
    printf("cold, %d threads: %d kernels compiled in %.1f ms (NVRTC %.1f ms summed)\n", c.threads,
           c.compiled, parallel, c.compile_ms);

    /* The warm path: keys, then reads (what a plan does per kernel before
     * the driver loads it), each kernel once. */
    const int rounds = 20;
    double key_ms = 0, read_ms = 0;
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < ks.count; i++) {
            prnn_cubin_key k;
            double t0 = prnn_now_ms();
            if (prnn_cubin_key_build(&reqs[i], &k))
                die("key");
            double t1 = prnn_now_ms();
            void *bin;
            size_t size;
            prnnCubinSource_t src;
            if (prnn_cubin_fetch_keyed(parallel_dir, &reqs[i], &k, &bin, &size, &src, NULL) ||
                src != PRNN_CUBIN_DISK_CACHE)
                die("warm read");
            double t2 = prnn_now_ms();
            free(bin);
            prnn_cubin_key_free(&k);
            key_ms += t1 - t0;
            read_ms += t2 - t1;
        }
    }
    printf("warm, one after another: %d kernels: keys %.2f ms, disk reads %.2f ms (mean of %d)\n",
           ks.count, key_ms / rounds, read_ms / rounds, rounds);
    double warm_batch = 0;
    for (int r = 0; r < rounds; r++)
        warm_batch += batch_ms(parallel_dir, reqs, ks.count, threads, &c);
    printf("warm, %s threads (keys and reads): %.2f ms (mean of %d)\n", threads,
           warm_batch / rounds, rounds);
    rmtree(serial_dir);
    rmtree(parallel_dir);
    free(serial_dir);
    free(parallel_dir);
    free(gs);
    return 0;
}
