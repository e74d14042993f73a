/*
 * Libraries that load but are not what they should be (issue #15), each
 * named in the message with what it means:
 *  - PRNN_NVRTC_LIBRARY naming another library (libm): its path, not "()";
 *  - a stub libcuda (the toolkit's lib64/stubs, put first by
 *    LD_LIBRARY_PATH): cuInit's error 34 is CUDA_ERROR_STUB_LIBRARY, with
 *    what to check, not "no description". Needs the toolkit's stub, and a
 *    child process (the dynamic linker reads LD_LIBRARY_PATH at start-up);
 *    without the stub that part is skipped.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuda/cuda_driver.h"
#include "cuda/nvrtc_lib.h"
#include "error.h"
#include "jit_test.h"

static void test_not_nvrtc(void)
{
    setenv("PRNN_NVRTC_LIBRARY", "libm.so.6", 1);
    const prnn_nvrtc *nv = NULL;
    CHECK_STATUS(prnn_nvrtc_get(&nv), PRNN_STATUS_RUNTIME_PREREQUISITE_MISSING);
    printf("PRNN_NVRTC_LIBRARY=libm.so.6: %s\n", prnnGetLastErrorLog());
    CHECK(jit_test_log_has("libm.so.6) has no function"));
    CHECK(!jit_test_log_has("()"));
}

static void test_stub_driver(const char *self)
{
    static const char *const stubs[] = {
        PRNN_CUDA_PATH "/lib64/stubs/libcuda.so",
        PRNN_CUDA_PATH "/targets/x86_64-linux/lib/stubs/libcuda.so",
        PRNN_CUDA_PATH "/lib/stubs/libcuda.so",
        NULL,
    };
    const char *stub = NULL;
    struct stat st;
    for (int i = 0; stubs[i] && !stub; i++)
        if (stat(stubs[i], &st) == 0)
            stub = stubs[i];
    if (!stub) {
        printf("stub driver: no toolkit stub libcuda.so here; skipped\n");
        return;
    }
    char *dir = jit_test_tmpdir("stub-driver");
    char link[PATH_MAX], cmd[PATH_MAX * 3], out[8192];
    snprintf(link, sizeof(link), "%s/libcuda.so.1", dir);
    CHECK(symlink(stub, link) == 0);
    snprintf(cmd, sizeof(cmd), "LD_LIBRARY_PATH='%s' '%s' --driver 2>&1", dir, self);
    FILE *p = popen(cmd, "r");
    CHECK(p != NULL);
    size_t n = p ? fread(out, 1, sizeof(out) - 1, p) : 0;
    out[n] = '\0';
    if (p)
        pclose(p);
    printf("stub driver (%s): %s\n", stub, out);
    CHECK(strstr(out, "CUDA error 34 (CUDA_ERROR_STUB_LIBRARY") != NULL);
    CHECK(strstr(out, "stubs") != NULL);
    CHECK(strstr(out, "no description") == NULL);
    jit_test_rmtree(dir);
    free(dir);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--driver") == 0) {
        const prnn_cuda_driver *d;
        prnnStatus_t s = prnn_cuda_driver_get(&d);
        printf("%s: %s\n", prnnGetErrorString(s), prnnGetLastErrorLog());
        return 0;
    }
    test_not_nvrtc();
    test_stub_driver(argv[0]);
    return jit_test_finish(
        "jit-wrong-libs: a non-NVRTC library and a stub driver named for what they are");
}
