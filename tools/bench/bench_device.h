/*
 * The GPU the benchmark runs on: driver table (the library's run-time-loaded
 * one), device, primary context, one stream, and checked wrappers for the few
 * driver calls the runners make. Every wrapper returns 0, or -1 with
 * "<what>: CUDA_ERROR_...: <description>" in err.
 */
#ifndef PRNN_BENCH_DEVICE_H
#define PRNN_BENCH_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#include "cuda/cuda_driver.h"

typedef struct {
    const prnn_cuda_driver *cu;
    CUdevice dev;
    CUcontext ctx;   /* primary context, retained and current */
    CUstream stream; /* non-blocking */
    int ordinal;
    char description[256]; /* "NVIDIA H100 80GB HBM3 sm_90 132SM, 79.6 GiB" */
    char driver[64];       /* "CUDA 13.0 (580.95.05)" */
} bench_device;

/* Message size used for every err buffer in the benchmark. */
#define BENCH_ERR 512

/*
 * Loads the driver and opens device ordinal. Returns the exit status the
 * tool ends with when it cannot go on: 0 on success; TOOL_EXIT_NO_GPU when
 * there is no driver or no device at all (err holds the library's
 * explanation: the caller prints the "no CUDA GPU" message);
 * TOOL_EXIT_FAILURE for other failures (e.g. no device of that ordinal).
 */
int bench_device_open(bench_device *d, int ordinal, char *err, size_t n);
void bench_device_close(bench_device *d);

/* 0 on CUDA_SUCCESS, else -1 with "<what>: <name>: <description>" in err. */
int bench_cu(const bench_device *d, CUresult r, const char *what, char *err, size_t n);

/* Device memory: *p = 0 for bytes == 0. Free accepts 0. */
int bench_alloc(const bench_device *d, CUdeviceptr *p, size_t bytes, const char *what, char *err,
                size_t n);
void bench_free(const bench_device *d, CUdeviceptr *p);

/* Synchronous copies; both wait for the benchmark stream first. */
int bench_upload(const bench_device *d, CUdeviceptr dst, const void *src, size_t bytes, char *err,
                 size_t n);
int bench_download(const bench_device *d, void *dst, CUdeviceptr src, size_t bytes, char *err,
                   size_t n);

/* Fills bytes with byte value v on the stream (asynchronous). */
int bench_memset(const bench_device *d, CUdeviceptr p, unsigned char v, size_t bytes, char *err,
                 size_t n);

int bench_sync(const bench_device *d, char *err, size_t n);

/* 1 when the context still works after a failure (cuCtxSynchronize returns
 * success), 0 when the device is in a sticky error state (a kernel fault):
 * the sweep must stop. */
int bench_device_healthy(const bench_device *d, char *err, size_t n);

/* Wall clock in milliseconds (CLOCK_MONOTONIC). */
double bench_now_ms(void);

static inline void *bench_ptr(CUdeviceptr p)
{
    return (void *)(uintptr_t)p;
}

#endif
