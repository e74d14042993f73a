/*
 * prnn-demo: a 2-layer bidirectional LSTM through the public API, forward and
 * backward on random data; prints a checksum and the time. Runs on the GPU
 * when there is one (forward; the GPU training path is not there yet, so the
 * backward pass then runs on the CPU reference), otherwise says so and runs
 * everything on the CPU reference backend.
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
    float *y = calloc(ny, sizeof(float)), *hy = calloc(ns, sizeof(float));
    float *cy = calloc(ns, sizeof(float));

    double fwd_ms = 0, gpu_ms = -1;
    if (gpu) {
        /* Forward on the GPU, timed after planning; the result is checked
         * against the CPU reference below. */
        const prnn_cuda_driver *cu;
        CHECK(prnn_cuda_driver_get(&cu));
        CUdevice dev;
        CUcontext ctx;
        cu->cuDeviceGet(&dev, 0);
        cu->cuDevicePrimaryCtxRetain(&ctx, dev);
        cu->cuCtxSetCurrent(ctx);
        size_t ws;
        CHECK(prnnPrepareRNN(gpu, rnn, batch, PRNN_DATA_FLOAT));
        CHECK(prnnGetRNNWorkspaceSize(gpu, rnn, seq, xd, &ws));
        CUdeviceptr dx, dy, dhx, dcx, dhy, dcy, dwt, dws;
        cu->cuMemAlloc(&dx, nx * 4);
        cu->cuMemAlloc(&dy, ny * 4);
        cu->cuMemAlloc(&dhx, ns * 4);
        cu->cuMemAlloc(&dcx, ns * 4);
        cu->cuMemAlloc(&dhy, ns * 4);
        cu->cuMemAlloc(&dcy, ns * 4);
        cu->cuMemAlloc(&dwt, nw * 4);
        cu->cuMemAlloc(&dws, ws ? ws : 1);
        cu->cuMemcpyHtoD(dx, x, nx * 4);
        cu->cuMemcpyHtoD(dhx, hx, ns * 4);
        cu->cuMemcpyHtoD(dcx, cx, ns * 4);
        cu->cuMemcpyHtoD(dwt, w, nw * 4);
        for (int rep = 0; rep < 2; rep++) { /* the second run is the timed one */
            cu->cuCtxSynchronize();
            double t0 = now_ms();
            CHECK(prnnRNNForwardInference(gpu, rnn, seq, xd, (void *)dx, hd, (void *)dhx, hd,
                                          (void *)dcx, wd, (void *)dwt, yd, (void *)dy, hd,
                                          (void *)dhy, hd, (void *)dcy, (void *)dws, ws));
            cu->cuCtxSynchronize();
            gpu_ms = now_ms() - t0;
        }
        cu->cuMemcpyDtoH(y, dy, ny * 4);
        prnnRNNPlanInfo_t info = {.structSize = sizeof(info)};
        CHECK(prnnGetRNNPlanInfo(gpu, rnn, batch, PRNN_DATA_FLOAT, &info));
        printf("GPU %s: forward %.3f ms (%.2f us/step), path %s, config %s\n", info.device,
               gpu_ms, gpu_ms * 1e3 / seq,
               info.path == PRNN_PATH_STANDARD ? "standard" : "persistent", info.config);
        CUdeviceptr all[] = {dx, dy, dhx, dcx, dhy, dcy, dwt, dws};
        for (int i = 0; i < 8; i++)
            cu->cuMemFree(all[i]);
    }

    /* Training step on the CPU reference: forward (training), backward data,
     * backward weights. */
    size_t ws, rs;
    CHECK(prnnGetRNNWorkspaceSize(cpu, rnn, seq, xd, &ws));
    CHECK(prnnGetRNNTrainingReserveSize(cpu, rnn, seq, xd, &rs));
    void *work = malloc(ws ? ws : 1), *reserve = malloc(rs ? rs : 1);
    float *ygpu = gpu ? y : NULL;
    float *ycpu = calloc(ny, sizeof(float));
    double t0 = now_ms();
    CHECK(prnnRNNForwardTraining(cpu, rnn, seq, xd, x, hd, hx, hd, cx, wd, w, yd, ycpu, hd, hy,
                                 hd, cy, work, ws, reserve, rs));
    fwd_ms = now_ms() - t0;
    float *dyv = random_floats(ny, &state, 1.0f);
    float *dxv = calloc(nx, sizeof(float)), *dhx = calloc(ns, sizeof(float));
    float *dcx = calloc(ns, sizeof(float)), *dwv = calloc(nw, sizeof(float));
    t0 = now_ms();
    CHECK(prnnRNNBackwardData(cpu, rnn, seq, yd, ycpu, yd, dyv, hd, NULL, hd, NULL, wd, w, hd,
                              hx, hd, cx, xd, dxv, hd, dhx, hd, dcx, work, ws, reserve, rs));
    CHECK(prnnRNNBackwardWeights(cpu, rnn, seq, xd, x, hd, hx, yd, ycpu, work, ws, wd, dwv,
                                 reserve, rs));
    double bwd_ms = now_ms() - t0;
    printf("CPU reference: forward %.1f ms, backward %.1f ms\n", fwd_ms, bwd_ms);
    printf("checksum y %.6e  hy %.6e  dx %.6e  dw %.6e\n", checksum(ycpu, ny), checksum(hy, ns),
           checksum(dxv, nx), checksum(dwv, nw));
    int status = 0;
    if (ygpu) {
        double num = 0, den = 0;
        for (size_t i = 0; i < ny; i++) {
            num += (ygpu[i] - ycpu[i]) * (double)(ygpu[i] - ycpu[i]);
            den += (double)ycpu[i] * ycpu[i];
        }
        double err = sqrt(num / den);
        printf("GPU vs CPU reference: relative error %.2e %s\n", err,
               err < 1e-5 ? "(ok)" : "(TOO LARGE)");
        status = err < 1e-5 ? 0 : 1;
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
    free(xd); free(yd); free(x); free(w); free(hx); free(cx); free(y); free(hy); free(cy);
    free(work); free(reserve); free(ycpu); free(dyv); free(dxv); free(dhx); free(dcx); free(dwv);
    return status;
}
