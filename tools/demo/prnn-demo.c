/*
 * prnn-demo: a 2-layer bidirectional LSTM through the public API: one training
 * step (ForwardTraining, BackwardData, BackwardWeights) on random data, on
 * the CPU reference, whose gradients are checked against finite differences
 * (demo_gradcheck.c), and, when there is a GPU, on the GPU, which is then
 * checked against the reference (y, hy, cy, dx, dhx, dcx, dw). Ends with a
 * verdict; exit status 1 when a check fails. --probe says what this machine
 * offers prnn instead (demo_probe.c). Usage: usage() below.
 *
 * Not an API example (it reaches into the library's CUDA loader to move its
 * buffers): examples/ has those.
 */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda/cuda_driver.h"
#include "demo.h"

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
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
static void training_step(const demo_problem *p, prnnHandle_t h, const prnn_cuda_driver *cu,
                          float *const *out, step_times *t)
{
    void *buf[N_BUF];
    size_t ws, rs;
    DEMO_CHECK(prnnGetRNNWorkspaceSize(h, p->rnn, p->seq, p->xd, &ws));
    DEMO_CHECK(prnnGetRNNTrainingReserveSize(h, p->rnn, p->seq, p->xd, &rs));
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
        DEMO_CHECK(prnnRNNForwardTraining(h, p->rnn, p->seq, p->xd, buf[B_X], hd, buf[B_HX], hd,
                                          buf[B_CX], p->wd, buf[B_W], p->yd, buf[B_Y], hd,
                                          buf[B_HY], hd, buf[B_CY], work, ws, reserve, rs));
        if (cu)
            cu->cuCtxSynchronize();
        t1 = now_ms();
        DEMO_CHECK(prnnRNNBackwardData(h, p->rnn, p->seq, p->yd, buf[B_Y], p->yd, buf[B_DY], hd,
                                       NULL, hd, NULL, p->wd, buf[B_W], hd, buf[B_HX], hd,
                                       buf[B_CX], p->xd, buf[B_DX], hd, buf[B_DHX], hd, buf[B_DCX],
                                       work, ws, reserve, rs));
        if (cu)
            cu->cuCtxSynchronize();
        t2 = now_ms();
        DEMO_CHECK(prnnRNNBackwardWeights(h, p->rnn, p->seq, p->xd, buf[B_X], hd, buf[B_HX], p->yd,
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

typedef struct {
    int hidden, batch, seq, input;
    int force_cpu, probe, help, version;
} demo_args;

static void usage(FILE *f)
{
    fprintf(f, "usage: prnn-demo [--cpu] [--hidden N] [--batch N] [--seq N] [--input N]\n"
               "       prnn-demo --probe | --help | --version\n"
               "\n"
               "One training step (ForwardTraining, BackwardData, BackwardWeights) of a 2-layer\n"
               "bidirectional fp32 LSTM on random data. The CPU reference runs it and its\n"
               "gradients are checked against finite differences; on a GPU the same step runs\n"
               "there too and is compared with the CPU reference. The last line is the\n"
               "verdict: \"verdict: ok\" or \"verdict: NOT OK\".\n"
               "\n"
               "  --cpu        the CPU reference only, even with a GPU\n"
               "  --hidden N   hidden size (default 256)\n"
               "  --batch N    batch size (default 8)\n"
               "  --seq N      timesteps (default 64)\n"
               "  --input N    input size (default 128)\n"
               "  --probe      print what this machine offers prnn (GPU and driver, NVRTC,\n"
               "               cuBLASLt, cuDNN) and exit: 0 when prnn can use the GPU, 3 when not\n"
               "  -h, --help   this text\n"
               "  --version    prnn-demo's version (and the loaded library's)\n");
    tool_help_exit_status(f, "verdict ok (--probe: prnn can use the GPU)",
                          "a check failed or a call failed", TOOL_USES_GPU);
    fprintf(f, "Only --probe exits 3: without a GPU the demo itself runs on the CPU\n"
               "reference and says so.\n");
}

enum { OPT_CPU = 256, OPT_PROBE, OPT_VERSION, OPT_HIDDEN, OPT_BATCH, OPT_SEQ, OPT_INPUT };

static const struct option long_options[] = {
    {"cpu", no_argument, NULL, OPT_CPU},
    {"probe", no_argument, NULL, OPT_PROBE},
    {"hidden", required_argument, NULL, OPT_HIDDEN},
    {"batch", required_argument, NULL, OPT_BATCH},
    {"seq", required_argument, NULL, OPT_SEQ},
    {"input", required_argument, NULL, OPT_INPUT},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, OPT_VERSION},
    {NULL, 0, NULL, 0},
};

/* One option (tool_option_fn). */
static int apply(void *ctx, int c, const char *name, const char *value, char *err, size_t n)
{
    demo_args *a = ctx;
    int *size = NULL;
    switch (c) {
    case 'h': a->help = 1; return 0;
    case OPT_VERSION: a->version = 1; return 0;
    case OPT_CPU: a->force_cpu = 1; return 0;
    case OPT_PROBE: a->probe = 1; return 0;
    case OPT_HIDDEN: size = &a->hidden; break;
    case OPT_BATCH: size = &a->batch; break;
    case OPT_SEQ: size = &a->seq; break;
    case OPT_INPUT: size = &a->input; break;
    default:
        snprintf(err, n, "option %d is not handled", c); /* a bug, not input */
        return -1;
    }
    long v;
    if (tool_parse_long(name, value, 1, INT_MAX, &v, err, n))
        return -1;
    *size = (int)v;
    return 0;
}

/* The usage's defaults, then argv: 0, or -1 with err. */
static int parse_args(int argc, char **argv, demo_args *a, char *err, size_t n)
{
    *a = (demo_args){.hidden = 256, .batch = 8, .seq = 64, .input = 128};
    int first = tool_getopt(argc, argv, "h", long_options, apply, a, err, n);
    if (first < 0)
        return -1;
    return tool_no_operands("prnn-demo", argc, argv, first, err, n);
}

/* The GPU handle, or NULL (said in one line) when there is no GPU. */
static prnnHandle_t open_gpu(void)
{
    prnnHandle_t gpu = NULL;
    prnnStatus_t s = prnnCreate(&gpu);
    if (s == PRNN_STATUS_NO_DEVICE) {
        char why[256];
        demo_short_reason(why, sizeof(why));
        printf("No GPU (%s): the CPU reference runs alone.\n", why);
        return NULL;
    }
    DEMO_CHECK(s);
    return gpu;
}

/* Runs the training step on the GPU and compares it with the CPU's (ref);
 * returns how many outputs disagree. */
static int compare_gpu(const demo_problem *pr, prnnHandle_t gpu, float *const *ref,
                       float *const *got, int batch)
{
    const prnn_cuda_driver *cu;
    DEMO_CHECK(prnn_cuda_driver_get(&cu));
    step_times gpu_t;
    training_step(pr, gpu, cu, got, &gpu_t);
    prnnRNNPlanInfo_t info = {.structSize = sizeof(info)};
    DEMO_CHECK(prnnGetRNNPlanInfo(gpu, pr->rnn, batch, PRNN_DATA_FLOAT, &info));
    printf("GPU %s, training step (second run): forward %.3f ms, backward data %.3f ms, backward "
           "weights %.3f ms (%.2f us/step in all)\n",
           info.device, gpu_t.fwd_ms, gpu_t.bwd_data_ms, gpu_t.bwd_weights_ms,
           (gpu_t.fwd_ms + gpu_t.bwd_data_ms + gpu_t.bwd_weights_ms) * 1e3 / pr->seq);
    printf("  forward: %s, %s\n  backward data: %s, %s\n",
           info.path == PRNN_PATH_STANDARD ? "standard" : "persistent", info.config,
           info.backwardPath == PRNN_PATH_STANDARD ? "standard" : "persistent",
           info.backwardConfig);
    static const struct {
        int buf;
        const char *name;
        double tol;
    } checks[] = {{B_Y, "y", 1e-5},   {B_HY, "hy", 1e-5},   {B_CY, "cy", 1e-5},
                  {B_DX, "dx", 1e-5}, {B_DHX, "dhx", 1e-5}, {B_DCX, "dcx", 1e-5},
                  {B_DW, "dw", 1e-4}};
    int failed = 0;
    for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]); i++) {
        double err = rel_err(got[checks[i].buf], ref[checks[i].buf], pr->sizes[checks[i].buf]);
        int ok = err <= checks[i].tol;
        printf("GPU vs CPU reference %-3s: relative error %.2e (%s, tolerance %.0e)\n",
               checks[i].name, err, ok ? "ok" : "TOO LARGE", checks[i].tol);
        failed += !ok;
    }
    return failed;
}

int main(int argc, char **argv)
{
    demo_args a;
    char err[512];
    if (parse_args(argc, argv, &a, err, sizeof(err)))
        return tool_bad_args("prnn-demo", err);
    if (a.help) {
        usage(stdout);
        return TOOL_EXIT_OK;
    }
    if (a.version) {
        tool_print_version(stdout, "prnn-demo");
        return TOOL_EXIT_OK;
    }
    if (a.probe)
        return demo_probe(stdout);
    const int hidden = a.hidden, batch = a.batch, seq = a.seq, input = a.input;
    const int layers = 2, dirs = 2;
    prnnHandle_t cpu = NULL;
    DEMO_CHECK(prnnCreateWithBackend(&cpu, PRNN_BACKEND_CPU_REFERENCE));
    prnnHandle_t gpu = a.force_cpu ? NULL : open_gpu();
    char version[32];
    tool_format_version(prnnGetVersion(), version, sizeof(version));
    printf("prnn %s: 2-layer bidirectional LSTM, hidden %d, input %d, batch %d, %d steps\n",
           version, hidden, input, batch, seq);

    prnnRNNDescriptor_t rnn;
    DEMO_CHECK(prnnCreateRNNDescriptor(&rnn));
    DEMO_CHECK(prnnSetRNNDescriptor(rnn, hidden, layers, NULL, PRNN_LINEAR_INPUT,
                                    PRNN_BIDIRECTIONAL, PRNN_LSTM, PRNN_DATA_FLOAT));
    prnnTensorDescriptor_t *xd = calloc((size_t)seq, sizeof(*xd));
    prnnTensorDescriptor_t *yd = calloc((size_t)seq, sizeof(*yd));
    for (int t = 0; t < seq; t++) {
        int dx[3] = {batch, input, 1}, sx[3] = {input, 1, 1};
        int dy[3] = {batch, hidden * dirs, 1}, sy[3] = {hidden * dirs, 1, 1};
        DEMO_CHECK(prnnCreateTensorDescriptor(&xd[t]));
        DEMO_CHECK(prnnCreateTensorDescriptor(&yd[t]));
        DEMO_CHECK(prnnSetTensorNdDescriptor(xd[t], PRNN_DATA_FLOAT, 3, dx, sx));
        DEMO_CHECK(prnnSetTensorNdDescriptor(yd[t], PRNN_DATA_FLOAT, 3, dy, sy));
    }
    prnnTensorDescriptor_t hd;
    int dh[3] = {layers * dirs, batch, hidden}, sh[3] = {batch * hidden, hidden, 1};
    DEMO_CHECK(prnnCreateTensorDescriptor(&hd));
    DEMO_CHECK(prnnSetTensorNdDescriptor(hd, PRNN_DATA_FLOAT, 3, dh, sh));
    size_t wbytes;
    DEMO_CHECK(prnnGetRNNParamsSize(cpu, rnn, xd[0], &wbytes, PRNN_DATA_FLOAT));
    prnnFilterDescriptor_t wd;
    int dw[3] = {(int)(wbytes / sizeof(float)), 1, 1};
    DEMO_CHECK(prnnCreateFilterDescriptor(&wd));
    DEMO_CHECK(prnnSetFilterNdDescriptor(wd, PRNN_DATA_FLOAT, PRNN_TENSOR_NCHW, 3, dw));

    unsigned state = 12345;
    size_t nx = (size_t)seq * batch * input, ny = (size_t)seq * batch * hidden * dirs;
    size_t ns = (size_t)layers * dirs * batch * hidden, nw = wbytes / sizeof(float);
    float *x = random_floats(nx, &state, 1.0f);
    float *w = random_floats(nw, &state, 1.0f / sqrtf((float)hidden));
    float *hx = random_floats(ns, &state, 0.5f), *cx = random_floats(ns, &state, 0.5f);

    float *dyv = random_floats(ny, &state, 1.0f);
    const size_t sizes[N_BUF] = {nx, nw, ns, ns, ny, ny, ns, ns, nx, ns, ns, nw};
    const float *inputs[N_BUF] = {x, w, hx, cx, NULL, dyv, NULL, NULL, NULL, NULL, NULL, NULL};
    float *ref[N_BUF], *got[N_BUF];
    for (int i = 0; i < N_BUF; i++) {
        ref[i] = calloc(sizes[i], sizeof(float));
        got[i] = calloc(sizes[i], sizeof(float));
    }
    demo_problem pr = {rnn, seq, xd, yd, hd, wd, sizes, inputs};
    step_times cpu_t;
    training_step(&pr, cpu, NULL, ref, &cpu_t);
    printf("CPU reference: forward %.1f ms, backward data %.1f ms, backward weights %.1f ms\n",
           cpu_t.fwd_ms, cpu_t.bwd_data_ms, cpu_t.bwd_weights_ms);
    /* The reference is checked on its own first: the GPU's verdict below
     * means something only if the reference is right. */
    int cpu_failed = demo_gradcheck(&pr, cpu, ref);
    int gpu_failed = gpu ? compare_gpu(&pr, gpu, ref, got, batch) : 0;
    if (cpu_failed || gpu_failed)
        printf("verdict: NOT OK (%d gradient check(s) of the CPU reference failed%s)\n", cpu_failed,
               gpu_failed ? "; the GPU disagrees with the CPU reference" : "");
    else if (gpu)
        printf("verdict: ok (the CPU reference's gradients match finite differences, and the GPU's "
               "training step matches the CPU reference)\n");
    else
        printf("verdict: ok (the CPU reference's gradients match finite differences)\n");
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
    free(xd);
    free(yd);
    free(x);
    free(w);
    free(hx);
    free(cx);
    free(dyv);
    return cpu_failed || gpu_failed ? TOOL_EXIT_FAILURE : TOOL_EXIT_OK;
}
