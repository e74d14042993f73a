/*
 * The whole JIT pipeline on a GPU: kernel_src/probe.cu compiled for the
 * device's exact architecture, cached, loaded through the module cache,
 * launched on a stream, results checked. Then: the second get is a memory
 * hit, threads racing on a new key end with one module, a fresh process
 * finds the cubin on disk.
 *
 * Exit 77 (skip) only when there is no driver, no device or no NVRTC; with
 * a GPU and NVRTC present every failure is a failure.
 */
#include <limits.h>
#include <pthread.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cuda/cuda_driver.h"
#include "cuda/device_info.h"
#include "error.h"
#include "jit/module_cache.h"
#include "jit/nvrtc_compile.h"
#include "jit_test.h"
#include "../needs_libs.h"

#define N 1000
#define RACERS 4

static const prnn_cuda_driver *cu;
static CUcontext ctx;
static int sm;

static prnn_compile_request probe_request(const char *const *define)
{
    prnn_compile_request req = {"probe.cu", define, 1, sm, "prnn_probe", NULL};
    return req;
}

#define CU_OK(call)                                                                                \
    do {                                                                                           \
        CUresult r_ = (call);                                                                      \
        if (r_ != CUDA_SUCCESS) {                                                                  \
            prnn_cu_check(r_, #call);                                                              \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, prnnGetLastErrorLog());             \
            test_failures++;                                                                       \
            goto out;                                                                              \
        }                                                                                          \
    } while (0)

/* Launches fn (out[i] = a * in[i] + offset) on a new stream and checks
 * every value. */
static void launch_and_check(CUfunction fn, float offset)
{
    CUstream stream = NULL;
    CUdeviceptr din = 0, dout = 0;
    static float in[N], out[N];
    for (int i = 0; i < N; i++)
        in[i] = 0.5f * (float)(i - N / 2);
    CU_OK(cu->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
    CU_OK(cu->cuMemAlloc(&din, sizeof(in)));
    CU_OK(cu->cuMemAlloc(&dout, sizeof(out)));
    CU_OK(cu->cuMemcpyHtoDAsync(din, in, sizeof(in), stream));
    /* Poison: an element the kernel misses reads as NaN. */
    CU_OK(cu->cuMemsetD8Async(dout, 0xff, sizeof(out), stream));
    float a = 2.0f;
    int n = N;
    void *params[] = {&din, &dout, &a, &n};
    CU_OK(cu->cuLaunchKernel(fn, (N + 127) / 128, 1, 1, 128, 1, 1, 0, stream, params, NULL));
    CU_OK(cu->cuMemcpyDtoHAsync(out, dout, sizeof(out), stream));
    CU_OK(cu->cuStreamSynchronize(stream));
    int wrong = 0;
    for (int i = 0; i < N; i++) {
        /* Exact: small integers and halves. */
        float expect = a * in[i] + offset;
        if (out[i] != expect && wrong++ < 5)
            fprintf(stderr, "out[%d] = %g, expected %g\n", i, out[i], expect);
    }
    CHECK(wrong == 0);
    printf("launched prnn_probe (offset %g) on a stream: %d/%d values right\n", offset, N - wrong,
           N);
out:
    if (din)
        cu->cuMemFree(din);
    if (dout)
        cu->cuMemFree(dout);
    if (stream)
        cu->cuStreamDestroy(stream);
}

typedef struct {
    CUfunction fn;
    prnnCubinSource_t source;
    prnnStatus_t status;
} racer;

static void *race(void *arg)
{
    racer *r = arg;
    static const char *const define[] = {"PRNN_PROBE_OFFSET=5"};
    prnn_compile_request req = probe_request(define);
    r->status = PRNN_STATUS_INTERNAL_ERROR;
    if (cu->cuCtxSetCurrent(ctx) != CUDA_SUCCESS)
        return NULL;
    r->status = prnn_module_get(cu, ctx, &req, "prnn_probe", &r->fn, &r->source, NULL);
    if (r->status)
        fprintf(stderr, "racer: %s\n", prnnGetLastErrorLog());
    return NULL;
}

static void *not_current(void *arg)
{
    /* A fresh thread has no current context: loading must refuse. */
    prnnStatus_t *s = arg;
    static const char *const define[] = {"PRNN_PROBE_OFFSET=6"};
    prnn_compile_request req = probe_request(define);
    CUfunction fn;
    *s = prnn_module_get(cu, ctx, &req, "prnn_probe", &fn, NULL, NULL);
    return NULL;
}

int main(int argc, char **argv)
{
    int child = argc > 1 && strcmp(argv[1], "--child") == 0;
    prnnStatus_t s = prnn_cuda_driver_get(&cu);
    if (s != PRNN_STATUS_SUCCESS) {
        printf("SKIP: no usable CUDA driver or device: %s\n%s\n", prnnGetErrorString(s),
               prnnGetLastErrorLog());
        return 77;
    }
    if (needs_nvrtc("gpu-jit-pipeline"))
        return 77;
    char *dir = NULL;
    if (!child) {
        dir = jit_test_tmpdir("pipeline-gpu");
        jit_test_use_cache_dir(dir);
    }
    CUdevice dev = 0;
    prnn_device_info info;
    char desc[128];
    CU_OK(cu->cuDeviceGet(&dev, 0));
    CHECK_STATUS(prnn_device_info_query(cu, dev, &info), PRNN_STATUS_SUCCESS);
    prnn_device_info_describe(&info, desc, sizeof(desc));
    sm = info.sm;
    printf("%sdevice 0: %s, driver %d, %d regs/SM, %d B smem/SM (%d opt-in per block), L2 %d B, "
           "cooperative launch %d\n",
           child ? "child: " : "", desc, info.driver_version, info.regs_per_sm, info.smem_per_sm,
           info.smem_per_block_optin, info.l2_bytes, info.cooperative_launch);
    CU_OK(cu->cuDevicePrimaryCtxRetain(&ctx, dev));
    CU_OK(cu->cuCtxSetCurrent(ctx));

    static const char *const define3[] = {"PRNN_PROBE_OFFSET=3"};
    prnn_compile_request req = probe_request(define3);
    CUfunction fn = NULL, fn2 = NULL;
    prnnCubinSource_t src = PRNN_CUBIN_NONE;
    double ms = -1;
    CHECK_STATUS(prnn_module_get(cu, ctx, &req, "prnn_probe", &fn, &src, &ms), PRNN_STATUS_SUCCESS);
    /* A cold directory compiles; the child, same directory, reads it. */
    prnnCubinSource_t expect = child ? PRNN_CUBIN_DISK_CACHE : PRNN_CUBIN_COMPILED;
    if (src != expect)
        fprintf(stderr, "first get: source %d, expected %d\n", (int)src, (int)expect);
    CHECK(src == expect);
    printf("%sfirst get: %s, %.1f ms in NVRTC\n", child ? "child: " : "",
           src == PRNN_CUBIN_COMPILED ? "compiled" : "disk cache", ms);
    if (!fn)
        goto out;
    launch_and_check(fn, 3.0f);

    /* Second get: memory, same function, no NVRTC, no file. */
    unsigned long compiles = prnn_nvrtc_compile_count();
    CHECK_STATUS(prnn_module_get(cu, ctx, &req, "prnn_probe", &fn2, &src, &ms),
                 PRNN_STATUS_SUCCESS);
    CHECK(src == PRNN_CUBIN_MEMORY && fn2 == fn && ms == 0.0);
    CHECK(prnn_nvrtc_compile_count() == compiles);

    /* A function the module lacks: an error, not a crash, and the module
     * stays usable. */
    CUfunction missing;
    CHECK_STATUS(prnn_module_get(cu, ctx, &req, "no_such_function", &missing, NULL, NULL),
                 PRNN_STATUS_MAPPING_ERROR);
    CHECK(jit_test_log_has("no_such_function"));

    if (!child) {
        /* Threads racing on a new key: one loads, the others wait for it. */
        pthread_t t[RACERS];
        racer r[RACERS];
        memset(r, 0, sizeof(r));
        compiles = prnn_nvrtc_compile_count();
        for (int i = 0; i < RACERS; i++)
            pthread_create(&t[i], NULL, race, &r[i]);
        for (int i = 0; i < RACERS; i++)
            pthread_join(t[i], NULL);
        int loaders = 0;
        for (int i = 0; i < RACERS; i++) {
            CHECK(r[i].status == PRNN_STATUS_SUCCESS);
            CHECK(r[i].fn == r[0].fn);
            loaders += r[i].source != PRNN_CUBIN_MEMORY;
        }
        CHECK(loaders == 1);
        CHECK(prnn_nvrtc_compile_count() - compiles == 1);
        if (r[0].fn)
            launch_and_check(r[0].fn, 5.0f);

        pthread_t nc;
        prnnStatus_t ncs = PRNN_STATUS_SUCCESS;
        pthread_create(&nc, NULL, not_current, &ncs);
        pthread_join(nc, NULL);
        CHECK(ncs == PRNN_STATUS_INTERNAL_ERROR);

        /* A fresh process: the cubin comes from the disk cache. */
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
            char *args[] = {argv[0], "--child", NULL};
            execv("/proc/self/exe", args);
            _exit(127);
        }
        int status = 0;
        CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }

out:
    if (ctx)
        cu->cuDevicePrimaryCtxRelease(dev);
    if (dir) {
        jit_test_rmtree(dir);
        free(dir);
    }
    return jit_test_finish(child ? "gpu-jit-pipeline (child): the disk cache from a fresh process"
                                 : "gpu-jit-pipeline: compile, cache, load and launch on the GPU");
}
