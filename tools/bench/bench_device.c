#include "bench_device.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cuda/device_info.h"
#include "tool_cli.h"

double bench_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int bench_cu(const bench_device *d, CUresult r, const char *what, char *err, size_t n)
{
    if (r == CUDA_SUCCESS)
        return 0;
    const char *name = NULL, *desc = NULL;
    if (d && d->cu) {
        if (d->cu->cuGetErrorName(r, &name) != CUDA_SUCCESS)
            name = NULL;
        if (d->cu->cuGetErrorString(r, &desc) != CUDA_SUCCESS)
            desc = NULL;
    }
    if (name)
        snprintf(err, n, "%s: %s: %s", what, name, desc ? desc : "");
    else
        snprintf(err, n, "%s: CUDA error %d", what, (int)r);
    return -1;
}

/* The kernel module's version, e.g. "580.95.05", when readable: the first
 * word of "NVRM version: NVIDIA UNIX ... Kernel Module [for x86_64]
 * 580.95.05  Release Build ..." made of digits and dots. */
static void read_kernel_driver_version(char *buf, size_t n)
{
    buf[0] = '\0';
    FILE *f = fopen("/proc/driver/nvidia/version", "r");
    if (!f)
        return;
    char line[512];
    if (fgets(line, sizeof(line), f)) {
        char *save = NULL;
        for (char *w = strtok_r(line, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) {
            size_t len = strlen(w);
            if (len >= 3 && len < n && strspn(w, "0123456789.") == len && strchr(w, '.')) {
                memcpy(buf, w, len + 1);
                break;
            }
        }
    }
    fclose(f);
}

int bench_device_open(bench_device *d, int ordinal, char *err, size_t n)
{
    memset(d, 0, sizeof(*d));
    d->ordinal = ordinal;
    const prnn_cuda_driver *cu = NULL;
    prnnStatus_t s = prnn_cuda_driver_get(&cu);
    if (s != PRNN_STATUS_SUCCESS) {
        snprintf(err, n, "%s: %s", prnnGetErrorString(s), prnnGetLastErrorLog());
        return s == PRNN_STATUS_NO_DEVICE ? TOOL_EXIT_NO_GPU : TOOL_EXIT_FAILURE;
    }
    d->cu = cu;
    if (ordinal >= cu->device_count) {
        snprintf(err, n, "--device %d: the driver reports %d device(s)", ordinal, cu->device_count);
        return TOOL_EXIT_FAILURE;
    }
    if (bench_cu(d, cu->cuDeviceGet(&d->dev, ordinal), "cuDeviceGet", err, n))
        return TOOL_EXIT_FAILURE;
    if (bench_cu(d, cu->cuDevicePrimaryCtxRetain(&d->ctx, d->dev), "cuDevicePrimaryCtxRetain", err,
                 n)) {
        d->ctx = NULL;
        return TOOL_EXIT_FAILURE;
    }
    if (bench_cu(d, cu->cuCtxSetCurrent(d->ctx), "cuCtxSetCurrent", err, n) ||
        bench_cu(d, cu->cuStreamCreate(&d->stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate", err,
                 n)) {
        d->stream = NULL;
        bench_device_close(d);
        return TOOL_EXIT_FAILURE;
    }

    prnn_device_info info;
    if (prnn_device_info_query(cu, d->dev, &info) == PRNN_STATUS_SUCCESS) {
        char desc[200];
        prnn_device_info_describe(&info, desc, sizeof(desc));
        snprintf(d->description, sizeof(d->description), "%s, %.1f GiB", desc,
                 (double)info.total_mem / (1024.0 * 1024.0 * 1024.0));
    } else {
        snprintf(d->description, sizeof(d->description), "device %d", ordinal);
    }
    char kmod[64];
    read_kernel_driver_version(kmod, sizeof(kmod));
    snprintf(d->driver, sizeof(d->driver), "CUDA %d.%d%s%s%s", cu->driver_version / 1000,
             (cu->driver_version % 1000) / 10, kmod[0] ? " (" : "", kmod, kmod[0] ? ")" : "");
    return 0;
}

void bench_device_close(bench_device *d)
{
    if (!d->cu)
        return;
    if (d->stream) {
        d->cu->cuStreamSynchronize(d->stream);
        d->cu->cuStreamDestroy(d->stream);
        d->stream = NULL;
    }
    if (d->ctx) {
        d->cu->cuCtxSetCurrent(NULL);
        d->cu->cuDevicePrimaryCtxRelease(d->dev);
        d->ctx = NULL;
    }
}

int bench_alloc(const bench_device *d, CUdeviceptr *p, size_t bytes, const char *what, char *err,
                size_t n)
{
    *p = 0;
    if (!bytes)
        return 0;
    CUresult r = d->cu->cuMemAlloc(p, bytes);
    if (r != CUDA_SUCCESS) {
        *p = 0;
        char w[160];
        snprintf(w, sizeof(w), "cuMemAlloc(%s, %.1f MiB)", what, (double)bytes / (1024.0 * 1024.0));
        return bench_cu(d, r, w, err, n);
    }
    return 0;
}

void bench_free(const bench_device *d, CUdeviceptr *p)
{
    if (*p)
        d->cu->cuMemFree(*p);
    *p = 0;
}

int bench_sync(const bench_device *d, char *err, size_t n)
{
    return bench_cu(d, d->cu->cuStreamSynchronize(d->stream), "cuStreamSynchronize", err, n);
}

int bench_upload(const bench_device *d, CUdeviceptr dst, const void *src, size_t bytes, char *err,
                 size_t n)
{
    if (!bytes)
        return 0;
    /* cuMemcpyHtoD from pageable memory may return before the DMA lands;
     * the context synchronisation makes the data visible to every stream. */
    if (bench_sync(d, err, n) ||
        bench_cu(d, d->cu->cuMemcpyHtoD(dst, src, bytes), "cuMemcpyHtoD", err, n) ||
        bench_cu(d, d->cu->cuCtxSynchronize(), "cuCtxSynchronize", err, n))
        return -1;
    return 0;
}

int bench_download(const bench_device *d, void *dst, CUdeviceptr src, size_t bytes, char *err,
                   size_t n)
{
    if (!bytes)
        return 0;
    if (bench_sync(d, err, n) ||
        bench_cu(d, d->cu->cuMemcpyDtoH(dst, src, bytes), "cuMemcpyDtoH", err, n))
        return -1;
    return 0;
}

int bench_memset(const bench_device *d, CUdeviceptr p, unsigned char v, size_t bytes, char *err,
                 size_t n)
{
    if (!bytes || !p)
        return 0;
    return bench_cu(d, d->cu->cuMemsetD8Async(p, v, bytes, d->stream), "cuMemsetD8Async", err, n);
}

int bench_device_healthy(const bench_device *d, char *err, size_t n)
{
    return bench_cu(d, d->cu->cuCtxSynchronize(), "cuCtxSynchronize after a failure", err, n) == 0;
}
