/*
 * prnn-demo: a 2-layer bidirectional LSTM through the public API: one training
 * step (ForwardTraining, BackwardData, BackwardWeights) on random data, on
 * the CPU reference and, when there is a GPU, on the GPU, which is then
 * checked against the reference (y, hy, cy, dx, dhx, dcx, dw) for a verdict.
 * Without a GPU it says so and runs the CPU reference alone.
 *
 * usage: prnn-demo [--cpu] [--hidden N] [--batch N] [--seq N] [--input N]
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda/cuda_driver.h"
#include "prnn.h"

#define CHECK(call)                                                            \
    do {                                                                       \
        prnnStatus_t s_ = (call);                                              \
        if (s_ != PRNN_STATUS_SUCCESS) {                                       \
            fprintf(stderr, "prnn-demo: %s failed: %s\n%s\n", #call,           \
                    prnnGetErrorString(s_), prnnGetLastErrorLog());            \
            exit(1);                                                           \
        }                                                                      \
    } while (0)

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static float *random_floats(size_t n, unsigned *state, float scale)
{
    float *p = malloc(n * sizeof(float));
    for (size_t i = 0; i < n; i++) {
        *state = *state * 1664525u + 1013904223u;
        p[i] = scale * ((float)(*state >> 8) / 8388608.0f - 1.0f);
    }
    return p;
}

static double checksum(const float *p, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += fabs((double)p[i]);
    return s;
}

/* The buffers of one training step, host copies: inputs first. */
enum { B_X, B_W, B_HX, B_CX, B_Y, B_DY, B_HY, B_CY, B_DX, B_DHX, B_DCX, B_DW, N_BUF };

typedef struct {
    prnnRNNDescriptor_t rnn;
    int seq;
    prnnTensorDescriptor_t *xd, *yd, hd;
    prnnFilterDescriptor_t wd;
    const size_t *sizes;       /* floats per buffer */
    const float *const *inputs; /* host data of the inputs, NULL for outputs */
} problem;

typedef struct {
    double fwd_ms, bwd_data_ms, bwd_weights_ms;
} step_times;

static double rel_err(const float *got, const float *ref, size_t n)
{
    double num = 0, den = 0;
    for (size_t i = 0; i < n; i++) {
        num += (got[i] - ref[i]) * (double)(got[i] - ref[i]);
        den += (double)ref[i] * ref[i];
    }
    return den > 0 ? sqrt(num / den) : sqrt(num);
}

/* ForwardTraining, BackwardData and BackwardWeights (dw zeroed first) on h,
 * twice; the second run is timed. cu: the driver for a GPU handle (buffers
 * in device memory, copied back into out), NULL for the CPU backend. */
static void training_step(const problem *p, prnnHandle_t h, const prnn_cuda_driver *cu,
                          float *const *out, step_times *t)
{
    void *buf[N_BUF];
    size_t ws, rs;
    CHECK(prnnGetRNNWorkspaceSize(h, p->rnn, p->seq, p->xd, &ws));
    CHECK(prnnGetRNNTrainingReserveSize(h, p->rnn, p->seq, p->xd, &rs));
    void *work, *reserve;
    if (cu) {
        CUdevice dev;
        CUcontext ctx;
        cu->cuDeviceGet(&dev, 0);
        cu->cuDevicePrimaryCtxRetain(&ctx, dev);
        cu->cuCtxSetCurrent(ctx);
        CUdeviceptr d;
        for (int i = 0; i < N_BUF; i++) {
            cu->cuMemAlloc(&d, p->sizes[i] * sizeof(float));
            buf[i] = (void *)d;
            if (p->inputs[i])
                cu->cuMemcpyHtoD(d, p->inputs[i], p->sizes[i] * sizeof(float));
        }
        cu->cuMemAlloc(&d, ws ? ws : 1);
        work = (void *)d;
        cu->cuMemAlloc(&d, rs ? rs : 1);
        reserve = (void *)d;
    } else {
        for (int i = 0; i < N_BUF; i++) {
            buf[i] = out[i];
            if (p->inputs[i])
                memcpy(out[i], p->inputs[i], p->sizes[i] * sizeof(float));
        }
        work = malloc(ws ? ws : 1);
        reserve = malloc(rs ? rs : 1);
    }
    const prnnTensorDescriptor_t hd = p->hd;
    for (int rep = 0; rep < 2; rep++) {
        double t0, t1, t2, t3;
        if (cu) {
            cu->cuMemsetD32Async((CUdeviceptr)buf[B_DW], 0, p->sizes[B_DW], NULL);
            cu->cuCtxSynchronize();
        } else {
            memset(buf[B_DW], 0, p->sizes[B_DW] * sizeof(float));
        }
        t0 = now_ms();
        CHECK(prnnRNNForwardTraining(h, p->rnn, p->seq, p->xd, buf[B_X], hd, buf[B_HX], hd,
                                     buf[B_CX], p->wd, buf[B_W], p->yd, buf[B_Y], hd, buf[B_HY],
                                     hd, buf[B_CY], work, ws, reserve, rs));
        if (cu)
            cu->cuCtxSynchronize();
        t1 = now_ms();
        CHECK(prnnRNNBackwardData(h, p->rnn, p->seq, p->yd, buf[B_Y], p->yd, buf[B_DY], hd, NULL,
                                  hd, NULL, p->wd, buf[B_W], hd, buf[B_HX], hd, buf[B_CX], p->xd,
                                  buf[B_DX], hd, buf[B_DHX], hd, buf[B_DCX], work, ws, reserve,
                                  rs));
        if (cu)
            cu->cuCtxSynchronize();
        t2 = now_ms();
        CHECK(prnnRNNBackwardWeights(h, p->rnn, p->seq, p->xd, buf[B_X], hd, buf[B_HX], p->yd,
                                     buf[B_Y], work, ws, p->wd, buf[B_DW], reserve, rs));
        if (cu)
            cu->cuCtxSynchronize();
        t3 = now_ms();
        t->fwd_ms = t1 - t0;
        t->bwd_data_ms = t2 - t1;
        t->bwd_weights_ms = t3 - t2;
    }
    if (cu) {
        for (int i = 0; i < N_BUF; i++) {
            cu->cuMemcpyDtoH(out[i], (CUdeviceptr)buf[i], p->sizes[i] * sizeof(float));
            cu->cuMemFree((CUdeviceptr)buf[i]);
        }
        cu->cuMemFree((CUdeviceptr)work);
        cu->cuMemFree((CUdeviceptr)reserve);
    } else {
        free(work);
        free(reserve);
    }
}

int main(int argc, char **argv)
{
    int hidden = 256, batch = 8, seq = 64, input = 128, force_cpu = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--cpu"))
            force_cpu = 1;
        else if (!strcmp(argv[i], "--hidden") && i + 1 < argc)
            hidden = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--batch") && i + 1 < argc)
            batch = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--seq") && i + 1 < argc)
            seq = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--input") && i + 1 < argc)
            input = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: %s [--cpu] [--hidden N] [--batch N] [--seq N] [--input N]\n",
                    argv[0]);
            return 2;
        }
    }
    if (hidden < 1 || batch < 1 || seq < 1 || input < 1) {
        fprintf(stderr, "prnn-demo: sizes must be >= 1\n");
        return 2;
    }
    const int layers = 2, dirs = 2;
    prnnHandle_t gpu = NULL, cpu = NULL;
    CHECK(prnnCreateWithBackend(&cpu, PRNN_BACKEND_CPU_REFERENCE));
    if (!force_cpu) {
        prnnStatus_t s = prnnCreate(&gpu);
        if (s == PRNN_STATUS_NO_DEVICE) {
            printf("No GPU found (%s).\nRunning the CPU reference backend instead.\n",
                   prnnGetLastErrorLog());
            gpu = NULL;
        } else if (s) {
            CHECK(s);
        }
    }
    printf("prnn %zu: 2-layer bidirectional LSTM, hidden %d, input %d, batch %d, %d steps\n",
           prnnGetVersion(), hidden, input, batch, seq);

    prnnRNNDescriptor_t rnn;
    CHECK(prnnCreateRNNDescriptor(&rnn));
    CHECK(prnnSetRNNDescriptor(rnn, hidden, layers, NULL, PRNN_LINEAR_INPUT,
                               PRNN_BIDIRECTIONAL, PRNN_LSTM, PRNN_DATA_FLOAT));
    prnnTensorDescriptor_t *xd = calloc((size_t)seq, sizeof(*xd));
    prnnTensorDescriptor_t *yd = calloc((size_t)seq, sizeof(*yd));
    for (int t = 0; t < seq; t++) {
        int dx[3] = {batch, input, 1}, sx[3] = {input, 1, 1};
        int dy[3] = {batch, hidden * dirs, 1}, sy[3] = {hidden * dirs, 1, 1};
        CHECK(prnnCreateTensorDescriptor(&xd[t]));
        CHECK(prnnCreateTensorDescriptor(&yd[t]));
        CHECK(prnnSetTensorNdDescriptor(xd[t], PRNN_DATA_FLOAT, 3, dx, sx));
        CHECK(prnnSetTensorNdDescriptor(yd[t], PRNN_DATA_FLOAT, 3, dy, sy));
    }
    prnnTensorDescriptor_t hd;
    int dh[3] = {layers * dirs, batch, hidden}, sh[3] = {batch * hidden, hidden, 1};
    CHECK(prnnCreateTensorDescriptor(&hd));
    CHECK(prnnSetTensorNdDescriptor(hd, PRNN_DATA_FLOAT, 3, dh, sh));
    size_t wbytes;
    CHECK(prnnGetRNNParamsSize(cpu, rnn, xd[0], &wbytes, PRNN_DATA_FLOAT));
    prnnFilterDescriptor_t wd;
    int dw[3] = {(int)(wbytes / sizeof(float)), 1, 1};
    CHECK(prnnCreateFilterDescriptor(&wd));
    CHECK(prnnSetFilterNdDescriptor(wd, PRNN_DATA_FLOAT, PRNN_TENSOR_NCHW, 3, dw));

    unsigned state = 12345;
    size_t nx = (size_t)seq * batch * input, ny = (size_t)seq * batch * hidden * dirs;
    size_t ns = (size_t)layers * dirs * batch * hidden, nw = wbytes / sizeof(float);
    float *x = random_floats(nx, &state, 1.0f);
    float *w = random_floats(nw, &state, 1.0f / sqrtf((float)hidden));
    float *hx = random_floats(ns, &state, 0.5f), *cx = random_floats(ns, &state, 0.5f);

    float *dyv = random_floats(ny, &state, 1.0f);
    const size_t sizes[N_BUF] = {nx, nw, ns, ns, ny, ny, ns, ns, nx, ns, ns, nw};
    const float *inputs[N_BUF] = {x, w, hx, cx, NULL, dyv, NULL, NULL, NULL, NULL, NULL, NULL};
    /* The training step on the CPU reference: the demo's verdict compares
     * the GPU against it. */
    float *ref[N_BUF], *got[N_BUF];
    for (int i = 0; i < N_BUF; i++) {
        ref[i] = calloc(sizes[i], sizeof(float));
        got[i] = calloc(sizes[i], sizeof(float));
    }
    problem pr = {rnn, seq, xd, yd, hd, wd, sizes, inputs};
    step_times cpu_t;
    training_step(&pr, cpu, NULL, ref, &cpu_t);
    printf("CPU reference: forward %.1f ms, backward data %.1f ms, backward weights %.1f ms\n",
           cpu_t.fwd_ms, cpu_t.bwd_data_ms, cpu_t.bwd_weights_ms);
    printf("checksum y %.6e  hy %.6e  dx %.6e  dw %.6e\n", checksum(ref[B_Y], ny),
           checksum(ref[B_HY], ns), checksum(ref[B_DX], nx), checksum(ref[B_DW], nw));
    int status = 0;
    if (gpu) {
        const prnn_cuda_driver *cu;
        CHECK(prnn_cuda_driver_get(&cu));
        step_times gpu_t;
        training_step(&pr, gpu, cu, got, &gpu_t);
        prnnRNNPlanInfo_t info = {.structSize = sizeof(info)};
        CHECK(prnnGetRNNPlanInfo(gpu, rnn, batch, PRNN_DATA_FLOAT, &info));
        printf("GPU %s, training step (second run): forward %.3f ms, backward data %.3f ms, "
               "backward weights %.3f ms (%.2f us/step in all)\n", info.device, gpu_t.fwd_ms,
               gpu_t.bwd_data_ms, gpu_t.bwd_weights_ms,
               (gpu_t.fwd_ms + gpu_t.bwd_data_ms + gpu_t.bwd_weights_ms) * 1e3 / seq);
        printf("  forward: %s, %s\n  backward data: %s, %s\n",
               info.path == PRNN_PATH_STANDARD ? "standard" : "persistent", info.config,
               info.backwardPath == PRNN_PATH_STANDARD ? "standard" : "persistent",
               info.backwardConfig);
        static const struct {
            int buf;
            const char *name;
            double tol;
        } checks[] = {{B_Y, "y", 1e-5}, {B_HY, "hy", 1e-5}, {B_CY, "cy", 1e-5},
                      {B_DX, "dx", 1e-5}, {B_DHX, "dhx", 1e-5}, {B_DCX, "dcx", 1e-5},
                      {B_DW, "dw", 1e-4}};
        for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]); i++) {
            double err = rel_err(got[checks[i].buf], ref[checks[i].buf], sizes[checks[i].buf]);
            int ok = err <= checks[i].tol;
            printf("GPU vs CPU reference %-3s: relative error %.2e (%s, tolerance %.0e)\n",
                   checks[i].name, err, ok ? "ok" : "TOO LARGE", checks[i].tol);
            status |= !ok;
        }
        printf("verdict: %s\n", status ? "FAIL: the GPU training step disagrees with the CPU "
                                         "reference" : "the GPU training step matches the CPU "
                                         "reference");
    } else {
        printf("verdict: the CPU reference ran the whole training step (no GPU to compare)\n");
    }
    for (int t = 0; t < seq; t++) {
        prnnDestroyTensorDescriptor(xd[t]);
        prnnDestroyTensorDescriptor(yd[t]);
    }
    prnnDestroyTensorDescriptor(hd);
    prnnDestroyFilterDescriptor(wd);
    prnnDestroyRNNDescriptor(rnn);
    prnnDestroy(gpu);
    prnnDestroy(cpu);
    for (int i = 0; i < N_BUF; i++) {
        free(ref[i]);
        free(got[i]);
    }
    free(xd); free(yd); free(x); free(w); free(hx); free(cx); free(dyv);
    return status;
}
