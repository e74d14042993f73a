/*
 * The planner's choices compile: for a simulated H100 (and an sm_80 and an
 * sm_75 part), the heuristic picks tiles for a spread of shapes and both
 * passes (forward, with its SKIP_INPUT and training variants in turn, and
 * backward-data), and each chosen persistent kernel is compiled by NVRTC
 * with the planner's defines.
 * The kernel static_asserts the host's shared-memory size, k-steps and words
 * per k-step, so any drift between src/gpu/kernel_geometry.c and
 * kernel_src/rnn_persistent.cu fails here, on the CPU, not on a GPU.
 * Also checks the heuristic's invariants (blocks cover H, fits the device),
 * and compiles SRU's scan with the heuristic's configurations.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "descriptors.h"
#include "error.h"
#include "gpu/engines/persistent/heuristic.h"
#include "gpu/engines/persistent/persistent.h"
#include "gpu/engines/sru/sru.h"
#include "gpu/run/kernel_request.h"
#include "jit/nvrtc_compile.h"
#include "plan_test.h"
#include "../needs_libs.h"

typedef struct {
    prnn_kernel_request req;
    char label[420];
    int failed;
} job;

static job *jobs;
static int njobs, next_job;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void *worker(void *arg)
{
    (void)arg;
    for (;;) {
        pthread_mutex_lock(&lock);
        int i = next_job++;
        pthread_mutex_unlock(&lock);
        if (i >= njobs)
            return NULL;
        void *cubin = NULL;
        size_t size;
        double ms = 0;
        prnnStatus_t s = prnn_nvrtc_compile(&jobs[i].req.req, &cubin, &size, &ms);
        pthread_mutex_lock(&lock);
        if (s) {
            jobs[i].failed = 1;
            printf("FAIL %s\n%s\n", jobs[i].label, prnn_log_get());
        } else {
            printf("ok   %6.0f ms  %s\n", ms, jobs[i].label);
        }
        fflush(stdout);
        pthread_mutex_unlock(&lock);
        free(cubin);
    }
}

int main(void)
{
    if (needs_nvrtc("plan-compile"))
        return 77;
    static const prnnRNNMode_t modes[] = {PRNN_RNN_RELU, PRNN_RNN_TANH, PRNN_LSTM, PRNN_GRU};
    static const prnnDataType_t dts[] = {PRNN_DATA_FLOAT, PRNN_DATA_HALF, PRNN_DATA_BFLOAT16,
                                         PRNN_DATA_DOUBLE};
    static const int hs[] = {32, 100, 256, 1024, 2048};
    static const int bs[] = {1, 3, 8, 64};
    prnn_device_info devs[] = {plan_test_device(90, 132, 232448), plan_test_device(80, 108, 166912),
                               plan_test_device(75, 40, 65536)};
    int failures = 0, k = 0;
    jobs = calloc(512, sizeof(*jobs));
    /* A rotating subset of the cross product keeps CI time reasonable while
     * touching every mode, type, size, batch and device over the run. */
    for (int di = 0; di < 3; di++)
        for (int m = 0; m < 4; m++)
            for (int t = 0; t < 4; t++)
                for (int hi = 0; hi < 5; hi++)
                    for (int bi = 0; bi < 4; bi++, k++) {
                        if (k % 7 != 0)
                            continue;
                        prnn_pass pass = (k / 7) % 3 == 2 ? PRNN_PASS_BACKWARD_DATA
                                                          : PRNN_PASS_FORWARD;
                        prnn_kernel_shape shape = plan_test_shape(modes[m], dts[t], hs[hi], bs[bi],
                                                                  1 + (k / 7) % 2, 0, pass);
                        int is16 = dts[t] == PRNN_DATA_HALF || dts[t] == PRNN_DATA_BFLOAT16;
                        int use_mma = is16 && devs[di].sm >= 80;
                        prnn_kernel_geometry g;
                        char why[256];
                        if (prnn_heuristic_choose(&shape, &devs[di], use_mma, k % 4 == 3, &g, why,
                                                  sizeof(why))) {
                            printf("no tile: %s\n", why);
                            continue; /* the standard path takes it */
                        }
                        if (g.tile.blocks * g.units_per_block < shape.key.hidden ||
                            (g.tile.blocks - 1) * g.units_per_block >= shape.key.hidden ||
                            (g.tile.handoff != 2 &&
                             g.tile.blocks * g.tile.batch_groups * shape.key.dirs >
                                 devs[di].sm_count) ||
                            (g.tile.handoff == 2 && (g.tile.blocks != 1 || g.kglb)) ||
                            (long)g.smem_bytes > devs[di].smem_per_block_optin) {
                            printf("FAIL heuristic invariant for %s H=%d B=%d\n",
                                   prnn_mode_name(shape.key.mode), shape.key.hidden,
                                   shape.key.mini_batch);
                            failures++;
                        }
                        job *j = &jobs[njobs++];
                        int fwd = pass == PRNN_PASS_FORWARD;
                        if (prnn_request_persistent(&g, fwd && k % 3 == 0, fwd && k % 5 == 0,
                                                    devs[di].sm, &j->req)) {
                            printf("FAIL request: %s\n", prnn_log_get());
                            failures++;
                            njobs--;
                            continue;
                        }
                        char cfg[256];
                        prnn_tile_config_format(&g.tile, cfg, sizeof(cfg));
                        snprintf(j->label, sizeof(j->label),
                                 "sm_%d %s %s dt%d H=%d B=%d dirs=%d: %s", devs[di].sm,
                                 prnn_pass_name(pass), prnn_mode_name(shape.key.mode), t,
                                 shape.key.hidden, shape.key.mini_batch, shape.key.dirs, cfg);
                    }
    /* SRU's scan: the heuristic's configuration for every data type over
     * lane counts from a few warps to several times the device, each valid
     * (prnn_sru_config_check, prnn_sru_config_fits_device) and compiled with
     * the planner's defines. */
    static const int sru_h[] = {37, 256, 1024, 2048};
    static const int sru_b[] = {1, 32, 128, 512};
    for (int di = 0; di < 3; di++)
        for (int t = 0; t < 4; t++)
            for (int hi = 0; hi < 4; hi++)
                for (int bi = 0; bi < 4; bi++, k++) {
                    if (k % 5 != 0)
                        continue;
                    prnn_rnn_key rnn;
                    memset(&rnn, 0, sizeof(rnn));
                    rnn.mode = PRNN_SRU;
                    rnn.dtype = dts[t];
                    rnn.hidden = sru_h[hi];
                    rnn.layers = 2;
                    rnn.dirs = k % 2 ? 2 : 1;
                    rnn.mini_batch = sru_b[bi];
                    prnn_sru_config c;
                    char why[160], cfg[96];
                    prnn_heuristic_sru(&rnn, &devs[di], &c);
                    prnn_config_format(prnn_sru_fields, &c, cfg, sizeof(cfg));
                    if (prnn_sru_config_check(&c, why, sizeof(why)) ||
                        prnn_sru_config_fits_device(&c, rnn.dtype, &devs[di], why, sizeof(why))) {
                        printf("FAIL SRU heuristic H=%d B=%d: %s: %s\n", rnn.hidden, sru_b[bi], cfg,
                               why);
                        failures++;
                        continue;
                    }
                    job *j = &jobs[njobs++];
                    if (prnn_request_sru(rnn.dtype, rnn.hidden, &c, devs[di].sm, &j->req)) {
                        printf("FAIL request: %s\n", prnn_log_get());
                        failures++;
                        njobs--;
                        continue;
                    }
                    snprintf(j->label, sizeof(j->label), "sm_%d sru dt%d H=%d B=%d dirs=%d: %s",
                             devs[di].sm, t, rnn.hidden, sru_b[bi], rnn.dirs, cfg);
                }
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    int nthreads = ncpu > 1 ? (int)ncpu : 1;
    pthread_t tid[64];
    if (nthreads > 64)
        nthreads = 64;
    for (int i = 0; i < nthreads; i++)
        pthread_create(&tid[i], NULL, worker, NULL);
    for (int i = 0; i < nthreads; i++)
        pthread_join(tid[i], NULL);
    for (int i = 0; i < njobs; i++)
        failures += jobs[i].failed;
    printf("%d configurations compiled, %d failures\n", njobs, failures);
    free(jobs);
    return failures ? 1 : 0;
}
