/*
 * Run-time loading: the candidate lists, the failure messages, and the real
 * driver / NVRTC / cuBLASLt on this machine, whichever way they go.
 */
#include <string.h>

#include "cuda/cublaslt_lib.h"
#include "cuda/cuda_driver.h"
#include "cuda/device_info.h"
#include "cuda/dl_loader.h"
#include "cuda/nvrtc_lib.h"
#include "error.h"
#include "jit_test.h"

typedef struct {
    int (*fn)(void);
} one_fn_table;

static void test_candidates(void)
{
    static const char *const sonames[] = {"libfoo.so.2", "libfoo.so", NULL};
    prnn_dl_candidates c;
    unsetenv("PRNN_TEST_FOO_LIBRARY");
    prnn_dl_toolkit_candidates(&c, "PRNN_TEST_FOO_LIBRARY", sonames);
    /* Versioned before unversioned, linker search before the toolkit. */
    CHECK(c.paths[0] && strcmp(c.paths[0], "libfoo.so.2") == 0);
    CHECK(c.paths[1] && strcmp(c.paths[1], "libfoo.so") == 0);
    CHECK(c.paths[2] && strcmp(c.paths[2], PRNN_CUDA_PATH "/lib64/libfoo.so.2") == 0);
    CHECK(c.paths[3] && strcmp(c.paths[3], PRNN_CUDA_PATH "/lib64/libfoo.so") == 0);
    CHECK(c.paths[4] && strcmp(c.paths[4], PRNN_CUDA_PATH "/lib/libfoo.so.2") == 0);
    CHECK(c.paths[5] && strcmp(c.paths[5], PRNN_CUDA_PATH "/lib/libfoo.so") == 0);
    CHECK(c.paths[6] == NULL);

    /* An override is the only candidate. */
    setenv("PRNN_TEST_FOO_LIBRARY", "/opt/foo/libfoo.so.7", 1);
    prnn_dl_toolkit_candidates(&c, "PRNN_TEST_FOO_LIBRARY", sonames);
    CHECK(c.paths[0] && strcmp(c.paths[0], "/opt/foo/libfoo.so.7") == 0);
    CHECK(c.paths[1] == NULL);
    /* An empty override counts as unset. */
    setenv("PRNN_TEST_FOO_LIBRARY", "", 1);
    prnn_dl_toolkit_candidates(&c, "PRNN_TEST_FOO_LIBRARY", sonames);
    CHECK(c.paths[0] && strcmp(c.paths[0], "libfoo.so.2") == 0);
    unsetenv("PRNN_TEST_FOO_LIBRARY");
}

static void test_load_failures(void)
{
    static const char *const missing[] = {"/nonexistent/a/libnothing.so.1",
                                          "libprnn-no-such-library.so", NULL};
    static const prnn_dl_symbol_spec spec[] = {{"no_such_fn", 0, 1}};
    one_fn_table t;
    char msg[PRNN_DL_MESSAGE_SIZE];
    void *lib;
    prnnStatus_t s = prnn_dl_load("the test library", missing, spec, 1, NULL, &t,
                                  PRNN_STATUS_NO_DEVICE, msg, sizeof(msg), &lib);
    CHECK(s == PRNN_STATUS_NO_DEVICE);
    CHECK(lib == NULL);
    /* Every path, each with dlerror()'s reason. */
    CHECK(strstr(msg, "/nonexistent/a/libnothing.so.1: ") != NULL);
    CHECK(strstr(msg, "libprnn-no-such-library.so: ") != NULL);
    CHECK(strstr(msg, "No such file") != NULL || strstr(msg, "cannot open") != NULL);

    /* A library that loads but lacks a required symbol. libc has no
     * "no_such_fn", but has "strlen". */
    static const char *const libc[] = {"libc.so.6", NULL};
    s = prnn_dl_load("the test library", libc, spec, 1, NULL, &t, PRNN_STATUS_NO_DEVICE, msg,
                     sizeof(msg), &lib);
    CHECK(s == PRNN_STATUS_RUNTIME_PREREQUISITE_MISSING);
    CHECK(strstr(msg, "no_such_fn") != NULL);

    /* Optional symbols stay NULL; a fallback name is used when the first is
     * absent. */
    typedef struct {
        size_t (*len)(const char *);
        void (*opt)(void);
    } libc_table;
    static const prnn_dl_symbol_spec spec2[] = {
        {"strlen_v9", offsetof(libc_table, len), 1},
        {"no_such_fn", offsetof(libc_table, opt), 0},
    };
    static const prnn_dl_fallback fb[] = {{"strlen_v9", "strlen"}, {NULL, NULL}};
    libc_table lt;
    s = prnn_dl_load("libc", libc, spec2, 2, fb, &lt, PRNN_STATUS_NO_DEVICE, msg, sizeof(msg),
                     &lib);
    CHECK(s == PRNN_STATUS_SUCCESS);
    CHECK(lt.len && lt.len("four") == 4);
    CHECK(lt.opt == NULL);
}

static void test_driver(void)
{
    const prnn_cuda_driver *cu = NULL;
    prnn_log_clear();
    prnnStatus_t s = prnn_cuda_driver_get(&cu);
    if (s != PRNN_STATUS_SUCCESS) {
        /* No driver or no device here: the failure must say so precisely. */
        printf("driver: %s\n%s\n", prnnGetErrorString(s), prnnGetLastErrorLog());
        CHECK(s == PRNN_STATUS_NO_DEVICE || s == PRNN_STATUS_RUNTIME_PREREQUISITE_MISSING);
        CHECK(cu == NULL);
        if (strstr(prnnGetLastErrorLog(), "cannot load")) {
            CHECK(s == PRNN_STATUS_NO_DEVICE);
            CHECK(jit_test_log_has("libcuda.so.1: "));
            CHECK(jit_test_log_has("/usr/lib/wsl/lib/libcuda.so.1: "));
        } else if (s == PRNN_STATUS_NO_DEVICE) {
            CHECK(jit_test_log_has("CUDA_ERROR_") || jit_test_log_has("no CUDA device"));
        }
        /* Same answer, same message, on every call. */
        prnn_log_clear();
        CHECK(prnn_cuda_driver_get(&cu) == s);
        CHECK(prnnGetLastErrorLog()[0] != '\0');
        /* prnn_cu_check still works without the driver's names. */
        CHECK(prnn_cu_check(CUDA_ERROR_OUT_OF_MEMORY, "cuMemAlloc") == PRNN_STATUS_ALLOC_FAILED);
        CHECK(jit_test_log_has("cuMemAlloc: "));
        return;
    }
    printf("driver: %s, version %d, %d device(s)\n", cu->library_path, cu->driver_version,
           cu->device_count);
    CHECK(cu->device_count >= 1);
    CHECK(cu->driver_version >= 11000);
    CHECK(cu->cuLaunchKernel && cu->cuMemAlloc && cu->cuCtxPushCurrent && cu->cuGraphInstantiate &&
          cu->cuEventElapsedTime);
    CHECK(prnn_cu_check(CUDA_ERROR_OUT_OF_MEMORY, "cuMemAlloc") == PRNN_STATUS_ALLOC_FAILED);
    CHECK(jit_test_log_has("cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY: "));
    CHECK(prnn_cu_check(CUDA_ERROR_ILLEGAL_ADDRESS, "cuStreamSynchronize") ==
          PRNN_STATUS_EXECUTION_FAILED);
    CHECK(prnn_cu_check(CUDA_SUCCESS, "x") == PRNN_STATUS_SUCCESS);

    CUdevice dev;
    CHECK(cu->cuDeviceGet(&dev, 0) == CUDA_SUCCESS);
    prnn_device_info info;
    CHECK_STATUS(prnn_device_info_query(cu, dev, &info), PRNN_STATUS_SUCCESS);
    char desc[128];
    prnn_device_info_describe(&info, desc, sizeof(desc));
    printf("device 0: %s; %d regs/SM, %d B smem/SM, %d B opt-in/block, L2 %d B, cooperative %d\n",
           desc, info.regs_per_sm, info.smem_per_sm, info.smem_per_block_optin, info.l2_bytes,
           info.cooperative_launch);
    CHECK(info.sm >= 50 && info.sm_count > 0 && info.regs_per_sm > 0 && info.smem_per_sm > 0 &&
          info.warp_size == 32 && info.l2_bytes > 0 && info.total_mem > 0 && info.name[0]);
}

/* After a failed load: the log names what was tried, which is the
 * override alone when env_override is set (test_missing_libs checks that
 * rule), else every soname, then the toolkit's copies. */
static void check_tried(const char *env_override, const char *soname, const char *older_soname)
{
    const char *over = getenv(env_override);
    char path[PRNN_DL_PATH_MAX + 4];
    if (over && *over) {
        snprintf(path, sizeof(path), "%s: ", over);
        CHECK(jit_test_log_has(path));
        return;
    }
    snprintf(path, sizeof(path), "%s: ", soname);
    CHECK(jit_test_log_has(path));
    if (older_soname) {
        snprintf(path, sizeof(path), "%s: ", older_soname);
        CHECK(jit_test_log_has(path));
    }
    snprintf(path, sizeof(path), PRNN_CUDA_PATH "/lib64/%s", soname);
    CHECK(jit_test_log_has(path));
}

static void test_nvrtc(void)
{
    const prnn_nvrtc *nv;
    prnnStatus_t s = prnn_nvrtc_get(&nv);
    if (s != PRNN_STATUS_SUCCESS) {
        /* CI images without NVRTC: the failure names what it tried. */
        CHECK(s == PRNN_STATUS_RUNTIME_PREREQUISITE_MISSING);
        check_tried("PRNN_NVRTC_LIBRARY", "libnvrtc.so.13", "libnvrtc.so.12");
        printf("nvrtc: not found\n%s\n", prnnGetLastErrorLog());
        return;
    }
    printf("nvrtc: %d.%d from %s\n", nv->major, nv->minor, nv->library_path);
    CHECK(nv->major >= 11);
    CHECK(nv->file_size > 0);
}

static void test_cublaslt(void)
{
    const prnn_cublaslt *lt;
    prnnStatus_t s = prnn_cublaslt_get(&lt);
    if (s != PRNN_STATUS_SUCCESS) {
        CHECK(s == PRNN_STATUS_RUNTIME_PREREQUISITE_MISSING);
        check_tried("PRNN_CUBLASLT_LIBRARY", "libcublasLt.so.13", NULL);
        printf("cublasLt: not found\n%s\n", prnnGetLastErrorLog());
        return;
    }
    printf("cublasLt: version %zu from %s\n", lt->version, lt->library_path);
    CHECK(lt->version > 0);
    CHECK(strcmp(prnn_cublaslt_status_name(lt, CUBLAS_STATUS_NOT_INITIALIZED),
                 "CUBLAS_STATUS_NOT_INITIALIZED") == 0);
}

int main(void)
{
    test_candidates();
    test_load_failures();
    test_driver();
    test_nvrtc();
    test_cublaslt();
    return jit_test_finish("jit-loader: candidate lists, load failure messages, and this machine's "
                           "driver, NVRTC and cuBLASLt");
}
