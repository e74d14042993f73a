/*
 * The architecture errors say what to do (issue 26): NVRTC 13's oldest
 * target is sm_75, so a V100 (sm_70) with NVRTC 13 loaded must hear that
 * NVRTC 12 compiles for it and that PRNN_NVRTC_LIBRARY selects it; an
 * architecture older than prnn supports says so whatever NVRTC is loaded;
 * one newer than NVRTC knows asks for a newer NVRTC. Needs NVRTC (no GPU);
 * with NVRTC 12 loaded the sm_70 case compiles instead, and is checked so.
 */
#include <stdlib.h>
#include <string.h>

#include "cuda/nvrtc_lib.h"
#include "error.h"
#include "jit/nvrtc_compile.h"
#include "jit_test.h"
#include "../needs_libs.h"

static prnnStatus_t compile_for(int sm)
{
    prnn_compile_request req = {"probe.cu", NULL, 0, sm, "prnn_probe", NULL};
    void *cubin = NULL;
    size_t size = 0;
    prnn_log_clear();
    prnnStatus_t s = prnn_nvrtc_compile(&req, &cubin, &size, NULL);
    free(cubin);
    printf("sm_%d: %s: %s\n", sm, prnnGetErrorString(s), prnn_log_get());
    return s;
}

int main(void)
{
    if (needs_nvrtc("jit-nvrtc-arch"))
        return 77;
    const prnn_nvrtc *nv = NULL;
    CHECK_STATUS(prnn_nvrtc_get(&nv), PRNN_STATUS_SUCCESS);
    int archs[64], n = 0;
    CHECK_STATUS(prnn_nvrtc_supported_archs(archs, 64, &n), PRNN_STATUS_SUCCESS);
    if (!nv || n < 1)
        return jit_test_finish("jit-nvrtc-arch: no NVRTC architecture list");
    printf("NVRTC %d.%d (%s): sm_%d to sm_%d\n", nv->major, nv->minor, nv->library_path, archs[0],
           archs[n < 64 ? n - 1 : 63]);

    if (archs[0] > 70) {
        /* NVRTC 13: the V100 user's message. */
        CHECK_STATUS(compile_for(70), PRNN_STATUS_ARCH_MISMATCH);
        CHECK(jit_test_log_has("cannot compile for sm_70"));
        CHECK(jit_test_log_has("oldest target is sm_75"));
        CHECK(jit_test_log_has("NVRTC 12 compiles for sm_70"));
        CHECK(jit_test_log_has("libnvrtc.so.12"));
        CHECK(jit_test_log_has("nvidia-cuda-nvrtc-cu12"));
        CHECK(jit_test_log_has("PRNN_NVRTC_LIBRARY"));
        CHECK_STATUS(compile_for(72), PRNN_STATUS_ARCH_MISMATCH);
        CHECK(jit_test_log_has("NVRTC 12 compiles for sm_72"));
    } else {
        printf("NVRTC %d targets sm_70: the V100 case compiles here\n", nv->major);
        CHECK_STATUS(compile_for(70), PRNN_STATUS_SUCCESS);
    }
    /* Older than prnn supports: said before NVRTC is asked (NVRTC 12 would
     * target sm_60, and the kernels then fail for want of sm_70's
     * instructions). */
    CHECK_STATUS(compile_for(60), PRNN_STATUS_ARCH_MISMATCH);
    CHECK(jit_test_log_has("sm_60 is older than prnn supports (sm_70 and newer"));
    /* Newer than NVRTC knows: a newer NVRTC. */
    CHECK_STATUS(compile_for(990), PRNN_STATUS_RUNTIME_PREREQUISITE_MISSING);
    CHECK(jit_test_log_has("install a newer NVRTC"));
    CHECK(jit_test_log_has("PRNN_NVRTC_LIBRARY"));
    return jit_test_finish(
        "jit-nvrtc-arch: the architecture errors name the NVRTC that works and PRNN_NVRTC_LIBRARY");
}
