#include "jit/nvrtc_compile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda/nvrtc_lib.h"
#include "embedded.h"
#include "error.h"

/* Options every compile gets. No include path (the headers are handed over
 * in memory), no fast-math (results must match the C reference), C++17 for
 * the kernels' constexpr helpers, and functions without an execution space
 * are device functions, so the helpers need no __device__ noise. */
static const char *const fixed_options[] = {"-std=c++17", "-default-device"};
#define NUM_FIXED (int)(sizeof(fixed_options) / sizeof(fixed_options[0]))

static unsigned long compile_count;

unsigned long prnn_nvrtc_compile_count(void)
{
    return __atomic_load_n(&compile_count, __ATOMIC_RELAXED);
}

double prnn_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static char *concat(const char *a, const char *b)
{
    size_t na = strlen(a), nb = strlen(b);
    char *s = malloc(na + nb + 1);
    if (s) {
        memcpy(s, a, na);
        memcpy(s + na, b, nb + 1);
    }
    return s;
}

void prnn_nvrtc_options_free(prnn_nvrtc_options *o)
{
    if (!o || !o->argv)
        return;
    for (int i = 0; i < o->count; i++)
        free(o->argv[i]);
    free(o->argv);
    o->argv = NULL;
    o->count = 0;
}

static prnnStatus_t check_request(const prnn_compile_request *req)
{
    if (!req || !req->source_name || !req->kernel_name)
        return prnn_fail(PRNN_STATUS_INTERNAL_ERROR, "compile request without %s",
                         !req                ? "a request"
                         : !req->source_name ? "source_name"
                                             : "kernel_name");
    if (req->sm < 10 || req->sm > 999)
        return prnn_fail(PRNN_STATUS_INTERNAL_ERROR,
                         "compile request for %s: sm = %d is not an architecture (90 means sm_90)",
                         req->kernel_name, req->sm);
    if (req->num_defines < 0 || (req->num_defines > 0 && !req->defines))
        return prnn_fail(PRNN_STATUS_INTERNAL_ERROR,
                         "compile request for %s: %d defines but no array", req->kernel_name,
                         req->num_defines);
    for (int i = 0; i < req->num_defines; i++)
        if (!req->defines[i] || !req->defines[i][0])
            return prnn_fail(PRNN_STATUS_INTERNAL_ERROR,
                             "compile request for %s: define %d is empty", req->kernel_name, i);
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnn_nvrtc_options_build(const prnn_compile_request *req, prnn_nvrtc_options *out)
{
    out->argv = NULL;
    out->count = 0;
    prnnStatus_t s = check_request(req);
    if (s)
        return s;
    int n = 1 + NUM_FIXED + req->num_defines;
    out->argv = calloc((size_t)n, sizeof(char *));
    if (!out->argv)
        return prnn_fail(PRNN_STATUS_ALLOC_FAILED, "out of host memory");
    /* The -D defines come last, in the caller's order, so that the options
     * (and the cache key) read as "how to compile" then "what". */
    char arch[16];
    snprintf(arch, sizeof(arch), "%d", req->sm);
    out->argv[out->count++] = concat("--gpu-architecture=sm_", arch);
    for (int i = 0; i < NUM_FIXED; i++)
        out->argv[out->count++] = concat(fixed_options[i], "");
    for (int i = 0; i < req->num_defines; i++)
        out->argv[out->count++] = concat("-D", req->defines[i]);
    for (int i = 0; i < out->count; i++) {
        if (!out->argv[i]) {
            prnn_nvrtc_options_free(out);
            return prnn_fail(PRNN_STATUS_ALLOC_FAILED, "out of host memory");
        }
    }
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnn_compile_request_source(const prnn_compile_request *req, const char **text)
{
    if (req->source_text) {
        *text = req->source_text;
        return PRNN_STATUS_SUCCESS;
    }
    const prnn_embedded_file *f = prnn_embedded_find(prnn_kernel_files, req->source_name);
    if (!f)
        return prnn_fail(PRNN_STATUS_INTERNAL_ERROR,
                         "kernel %s: no embedded kernel source \"%s\" (the files of kernel_src/ "
                         "are embedded at build time)",
                         req->kernel_name, req->source_name);
    *text = f->data;
    return PRNN_STATUS_SUCCESS;
}

int prnn_kernel_file_is_header(const char *name)
{
    size_t n = strlen(name);
    return !(n > 3 && strcmp(name + n - 3, ".cu") == 0);
}

prnnStatus_t prnn_nvrtc_supported_archs(int *archs, int max, int *count)
{
    const prnn_nvrtc *nv;
    prnnStatus_t s = prnn_nvrtc_get(&nv);
    if (s)
        return s;
    int n = 0;
    nvrtcResult r = nv->nvrtcGetNumSupportedArchs(&n);
    int *all = r == NVRTC_SUCCESS && n > 0 ? malloc((size_t)n * sizeof(int)) : NULL;
    if (all)
        r = nv->nvrtcGetSupportedArchs(all);
    if (!all || r != NVRTC_SUCCESS) {
        free(all);
        return prnn_fail(PRNN_STATUS_INTERNAL_ERROR, "nvrtcGetSupportedArchs: %s",
                         r != NVRTC_SUCCESS ? nv->nvrtcGetErrorString(r)
                                            : "no architectures, or out of memory");
    }
    for (int i = 0; i < n && i < max; i++)
        archs[i] = all[i];
    *count = n;
    free(all);
    return PRNN_STATUS_SUCCESS;
}

/* prnn's oldest architecture (prnnCreate refuses older devices). */
#define PRNN_MIN_SM 70

/*
 * SUCCESS when NVRTC can target sm; otherwise a message that says which
 * NVRTC can and how to make prnn load it. What each NVRTC targets: 13.x
 * sm_75 and newer (13.0 dropped sm_50 to sm_72); 12.x sm_50 to sm_90 (12.8
 * adds sm_100 and sm_120, 12.9 sm_103 and sm_121). prnn loads
 * libnvrtc.so.13 before libnvrtc.so.12, so a Volta (sm_70) or Xavier
 * (sm_72) machine that has both gets 13 unless told otherwise.
 */
static prnnStatus_t check_arch(const prnn_nvrtc *nv, const prnn_compile_request *req)
{
    int archs[64], n = 0;
    prnnStatus_t s = prnn_nvrtc_supported_archs(archs, 64, &n);
    if (s)
        return s;
    if (n > 64)
        n = 64;
    /* Before asking NVRTC: NVRTC 12 targets sm_50, whose kernels would then
     * fail to compile for want of sm_70's instructions. */
    if (req->sm < PRNN_MIN_SM)
        return prnn_fail(PRNN_STATUS_ARCH_MISMATCH,
                         "kernel %s: sm_%d is older than prnn supports (sm_%d and newer: sm_75 and "
                         "newer with NVRTC 13, sm_70 and sm_72 with NVRTC 12)",
                         req->kernel_name, req->sm, PRNN_MIN_SM);
    for (int i = 0; i < n; i++)
        if (archs[i] == req->sm)
            return PRNN_STATUS_SUCCESS;
    int oldest = n > 0 ? archs[0] : 0, newest = n > 0 ? archs[n - 1] : 0;
    if (req->sm < oldest && req->sm <= 90)
        return prnn_fail(
            PRNN_STATUS_ARCH_MISMATCH,
            "kernel %s: NVRTC %d.%d (%s) cannot compile for sm_%d: its oldest target is sm_%d. "
            "NVRTC 12 compiles for sm_%d (a CUDA 12 toolkit's libnvrtc.so.12, or pip install "
            "nvidia-cuda-nvrtc-cu12): set PRNN_NVRTC_LIBRARY to that libnvrtc.so.12 (prnn loads "
            "libnvrtc.so.13 first when both are installed)",
            req->kernel_name, nv->major, nv->minor, nv->library_path, req->sm, oldest, req->sm);
    if (req->sm < oldest)
        return prnn_fail(PRNN_STATUS_ARCH_MISMATCH,
                         "kernel %s: NVRTC %d.%d (%s) cannot compile for sm_%d: its oldest target "
                         "is sm_%d; set PRNN_NVRTC_LIBRARY to an older NVRTC that targets sm_%d",
                         req->kernel_name, nv->major, nv->minor, nv->library_path, req->sm, oldest,
                         req->sm);
    return prnn_fail(
        PRNN_STATUS_RUNTIME_PREREQUISITE_MISSING,
        "kernel %s: NVRTC %d.%d (%s) cannot compile for sm_%d (newest supported: sm_%d); install a "
        "newer NVRTC (CUDA 13: a toolkit, or pip install nvidia-cuda-nvrtc) and, if prnn does not "
        "find it first, set PRNN_NVRTC_LIBRARY to its libnvrtc.so",
        req->kernel_name, nv->major, nv->minor, nv->library_path, req->sm, newest);
}

static void append_options(const prnn_nvrtc_options *o)
{
    prnn_log_append("options:");
    for (int i = 0; i < o->count; i++) {
        prnn_log_append_text(" ");
        prnn_log_append_text(o->argv[i]);
    }
}

prnnStatus_t prnn_nvrtc_compile(const prnn_compile_request *req, void **cubin, size_t *cubin_size,
                                double *compile_ms)
{
    const prnn_nvrtc *nv = NULL;
    const char *source = NULL;
    prnn_nvrtc_options opts = {NULL, 0};
    nvrtcProgram prog = NULL;
    char *log = NULL;
    void *bin = NULL;
    size_t bin_size = 0;
    double t0 = prnn_now_ms();

    prnnStatus_t s = check_request(req);
    if (!s)
        s = prnn_nvrtc_get(&nv);
    if (!s)
        s = check_arch(nv, req);
    if (!s)
        s = prnn_compile_request_source(req, &source);
    if (!s)
        s = prnn_nvrtc_options_build(req, &opts);
    if (s)
        goto done;

    const char *hdr_text[32], *hdr_name[32];
    int num_headers = 0;
    for (const prnn_embedded_file *f = prnn_kernel_files; f->name; f++) {
        if (!prnn_kernel_file_is_header(f->name))
            continue;
        if (num_headers == 32) {
            s = prnn_fail(PRNN_STATUS_INTERNAL_ERROR, "more than 32 embedded kernel headers");
            goto done;
        }
        hdr_text[num_headers] = f->data;
        hdr_name[num_headers] = f->name;
        num_headers++;
    }

    nvrtcResult r =
        nv->nvrtcCreateProgram(&prog, source, req->source_name, num_headers, hdr_text, hdr_name);
    if (r != NVRTC_SUCCESS) {
        prog = NULL;
        s = prnn_fail(r == NVRTC_ERROR_OUT_OF_MEMORY ? PRNN_STATUS_ALLOC_FAILED
                                                     : PRNN_STATUS_INTERNAL_ERROR,
                      "nvrtcCreateProgram for kernel %s (%s): %s", req->kernel_name,
                      req->source_name, nv->nvrtcGetErrorString(r));
        goto done;
    }

    __atomic_add_fetch(&compile_count, 1, __ATOMIC_RELAXED);
    nvrtcResult compiled =
        nv->nvrtcCompileProgram(prog, opts.count, (const char *const *)opts.argv);

    /* The log first, whatever the result: it is the only explanation of a
     * failure, and warnings on success are worth a note. */
    size_t log_size = 0;
    if (nv->nvrtcGetProgramLogSize(prog, &log_size) == NVRTC_SUCCESS && log_size > 1) {
        log = malloc(log_size + 1);
        if (log && nv->nvrtcGetProgramLog(prog, log) == NVRTC_SUCCESS)
            log[log_size] = '\0';
        else if (log)
            log[0] = '\0';
    }

    if (compiled != NVRTC_SUCCESS) {
        s = prnn_fail(PRNN_STATUS_COMPILE_FAILED,
                      "NVRTC %d.%d could not compile kernel %s (source %s) for sm_%d: %s",
                      nv->major, nv->minor, req->kernel_name, req->source_name, req->sm,
                      nv->nvrtcGetErrorString(compiled));
        append_options(&opts);
        prnn_log_append("NVRTC log:\n");
        prnn_log_append_text(log && log[0] ? log : "(empty)");
        goto done;
    }
    if (log && log[0]) {
        prnn_log_append("note: NVRTC warnings for kernel %s (source %s, sm_%d):\n",
                        req->kernel_name, req->source_name, req->sm);
        prnn_log_append_text(log);
    }

    r = nv->nvrtcGetCUBINSize(prog, &bin_size);
    if (r == NVRTC_SUCCESS && bin_size == 0)
        r = NVRTC_ERROR_INVALID_INPUT;
    if (r == NVRTC_SUCCESS) {
        bin = malloc(bin_size);
        if (!bin) {
            s = prnn_fail(PRNN_STATUS_ALLOC_FAILED, "out of host memory for a %zu-byte cubin",
                          bin_size);
            goto done;
        }
        r = nv->nvrtcGetCUBIN(prog, bin);
    }
    if (r != NVRTC_SUCCESS) {
        s = prnn_fail(PRNN_STATUS_INTERNAL_ERROR, "nvrtcGetCUBIN for kernel %s (sm_%d): %s",
                      req->kernel_name, req->sm, nv->nvrtcGetErrorString(r));
        goto done;
    }

done:
    if (prog)
        nv->nvrtcDestroyProgram(&prog);
    free(log);
    prnn_nvrtc_options_free(&opts);
    if (s) {
        free(bin);
        return s;
    }
    *cubin = bin;
    *cubin_size = bin_size;
    if (compile_ms)
        *compile_ms = prnn_now_ms() - t0;
    return PRNN_STATUS_SUCCESS;
}
