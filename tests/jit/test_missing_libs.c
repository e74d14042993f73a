/*
 * NVRTC and cuBLASLt overridden to paths that do not exist: the overrides
 * are the only candidates, and every entry point that needs the library
 * reports RUNTIME_PREREQUISITE_MISSING naming the path. (Its own process:
 * the libraries load once per process.)
 */
#include <stdlib.h>

#include "cuda/cublaslt_lib.h"
#include "cuda/nvrtc_lib.h"
#include "jit/cubin_cache.h"
#include "jit/nvrtc_compile.h"
#include "jit_test.h"

int main(void)
{
    setenv("PRNN_NVRTC_LIBRARY", "/nonexistent/prnn-test/libnvrtc.so.13", 1);
    setenv("PRNN_CUBLASLT_LIBRARY", "/nonexistent/prnn-test/libcublasLt.so.13", 1);
    char *dir = jit_test_tmpdir("missing");
    jit_test_use_cache_dir(dir);

    const prnn_nvrtc *nv = NULL;
    CHECK_STATUS(prnn_nvrtc_get(&nv), PRNN_STATUS_RUNTIME_PREREQUISITE_MISSING);
    CHECK(nv == NULL);
    CHECK(jit_test_log_has("/nonexistent/prnn-test/libnvrtc.so.13: "));
    /* Only the override: the real library on this machine is not tried. */
    CHECK(!jit_test_log_has("\n  libnvrtc.so.13:"));

    const prnn_compile_request req = {"probe.cu", NULL, 0, 90, "prnn_probe", NULL};
    void *cubin = NULL;
    size_t size = 0;
    CHECK_STATUS(prnn_nvrtc_compile(&req, &cubin, &size, NULL),
                 PRNN_STATUS_RUNTIME_PREREQUISITE_MISSING);
    CHECK(jit_test_log_has("/nonexistent/prnn-test/libnvrtc.so.13"));
    prnnCubinSource_t src;
    CHECK_STATUS(prnn_cubin_get(&req, &cubin, &size, &src, NULL),
                 PRNN_STATUS_RUNTIME_PREREQUISITE_MISSING);
    CHECK(jit_test_log_has("/nonexistent/prnn-test/libnvrtc.so.13"));
    CHECK(jit_test_count_files(dir, "") == 0);
    int archs[4], n;
    CHECK_STATUS(prnn_nvrtc_supported_archs(archs, 4, &n),
                 PRNN_STATUS_RUNTIME_PREREQUISITE_MISSING);

    const prnn_cublaslt *lt = NULL;
    CHECK_STATUS(prnn_cublaslt_get(&lt), PRNN_STATUS_RUNTIME_PREREQUISITE_MISSING);
    CHECK(lt == NULL);
    CHECK(jit_test_log_has("/nonexistent/prnn-test/libcublasLt.so.13: "));

    jit_test_rmtree(dir);
    free(dir);
    return jit_test_finish(
        "jit-missing-libs: NVRTC and cuBLASLt overrides that do not exist are the only candidates "
        "and every entry point reports RUNTIME_PREREQUISITE_MISSING naming them");
}
