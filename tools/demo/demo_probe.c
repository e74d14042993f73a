/*
 * prnn-demo --probe: what this machine offers prnn, in a few lines, through
 * the library's own loaders (so it reports what the library will find, from
 * the same places) and, for cuDNN, which only prnn-bench uses, a dlopen.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/cublaslt_lib.h"
#include "cuda/cuda_driver.h"
#include "cuda/device_info.h"
#include "cuda/nvrtc_lib.h"
#include "demo.h"

void demo_short_reason(char *buf, size_t n)
{
    snprintf(buf, n, "%s", prnnGetLastErrorLog());
    buf[strcspn(buf, ";\n")] = '\0';
}

/* The kernel module's version ("580.95.05"), or "" where /sys does not say. */
static void kernel_module_version(char *buf, size_t n)
{
    buf[0] = '\0';
    FILE *f = fopen("/sys/module/nvidia/version", "r");
    if (!f)
        return;
    if (fgets(buf, (int)n, f))
        buf[strcspn(buf, "\n")] = '\0';
    fclose(f);
}

/* The GPU line; 1 when there is a device. */
static int probe_gpu(FILE *out)
{
    const prnn_cuda_driver *cu;
    char why[256];
    if (prnn_cuda_driver_get(&cu) != PRNN_STATUS_SUCCESS) {
        demo_short_reason(why, sizeof(why));
        fprintf(out, "GPU:       none (%s)\n", why);
        return 0;
    }
    CUdevice dev;
    prnn_device_info info;
    char desc[320], module[64];
    if (cu->cuDeviceGet(&dev, 0) != CUDA_SUCCESS ||
        prnn_device_info_query(cu, dev, &info) != PRNN_STATUS_SUCCESS) {
        demo_short_reason(why, sizeof(why));
        fprintf(out, "GPU:       none usable (%s)\n", why);
        return 0;
    }
    prnn_device_info_describe(&info, desc, sizeof(desc));
    kernel_module_version(module, sizeof(module));
    fprintf(out, "GPU:       %s (device 0 of %d), driver %s%sCUDA %d.%d\n", desc, cu->device_count,
            module, module[0] ? ", " : "", cu->driver_version / 1000,
            cu->driver_version % 1000 / 10);
    return 1;
}

/* The NVRTC line; 1 when it loads. */
static int probe_nvrtc(FILE *out)
{
    const prnn_nvrtc *nv;
    if (prnn_nvrtc_get(&nv) != PRNN_STATUS_SUCCESS) {
        fprintf(out, "NVRTC:     not found (the GPU backend compiles its kernels with it)\n");
        return 0;
    }
    fprintf(out, "NVRTC:     %d.%d (%s)\n", nv->major, nv->minor, nv->library_path);
    return 1;
}

/* The cuBLASLt line; 1 when it loads. */
static int probe_cublaslt(FILE *out)
{
    const prnn_cublaslt *lt;
    if (prnn_cublaslt_get(&lt) != PRNN_STATUS_SUCCESS) {
        fprintf(out, "cuBLASLt:  not found (the GPU backend's GEMMs need it)\n");
        return 0;
    }
    char v[32];
    tool_format_version(lt->version, v, sizeof(v));
    fprintf(out, "cuBLASLt:  %s (%s)\n", v, lt->library_path);
    return 1;
}

/* cuDNN is prnn-bench's baseline only: where the bench looks first. */
static void probe_cudnn(FILE *out)
{
    const char *names[] = {getenv("PRNN_BENCH_CUDNN"), "libcudnn.so.9", "libcudnn.so"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (!names[i] || !names[i][0])
            continue;
        void *lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (!lib)
            continue;
        size_t (*get_version)(void);
        *(void **)&get_version = dlsym(lib, "cudnnGetVersion");
        if (get_version) {
            char v[32];
            tool_format_version(get_version(), v, sizeof(v));
            fprintf(out, "cuDNN:     %s (%s)\n", v, names[i]);
        } else {
            fprintf(out, "cuDNN:     %s has no cudnnGetVersion (not cuDNN?)\n", names[i]);
        }
        dlclose(lib);
        return;
    }
    fprintf(out, "cuDNN:     not found (prnn-bench then times prnn alone)\n");
}

int demo_probe(FILE *out)
{
    char v[32];
    tool_format_version(prnnGetVersion(), v, sizeof(v));
    fprintf(out, "prnn:      %s\n", v);
    int gpu = probe_gpu(out);
    int nvrtc = probe_nvrtc(out);
    int lt = probe_cublaslt(out);
    probe_cudnn(out);
    return gpu && nvrtc && lt ? TOOL_EXIT_OK : TOOL_EXIT_NO_GPU;
}
