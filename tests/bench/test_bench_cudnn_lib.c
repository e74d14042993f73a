/*
 * The cuDNN function table: when a cuDNN 9 is installed (it needs no GPU to
 * load), every function prnn-bench calls resolves and the version is 9.x.
 * Skips (77) when there is no cuDNN on this machine.
 */
#include "bench_test.h"
#include "cudnn_lib.h"

int main(void)
{
    const bench_cudnn_lib *lib = NULL;
    char err[4096];
    if (bench_cudnn_load(&lib, err, sizeof(err))) {
        if (strstr(err, "cannot load")) {
            printf("SKIP: no cuDNN here: %s\n", err);
            return 77;
        }
        EXPECT(0, "cuDNN found but refused: %s", err);
        return test_done("tools-bench-cudnn-lib: the cuDNN table resolves, version 9.x, error "
                         "strings and the refusal rule");
    }
    printf("cuDNN %zu from %s\n", lib->version, lib->path);
    EXPECT(lib->version >= 90000 && lib->version < 100000, "version %zu", lib->version);
    EXPECT(lib->cudnnRNNForward && lib->cudnnBuildRNNDynamic && lib->cudnnRNNBackwardWeights_v8 &&
               lib->cudnnGetRNNWeightParams,
           "functions");
    EXPECT(lib->path && lib->path[0], "path");
    EXPECT(strcmp(lib->cudnnGetErrorString(CUDNN_STATUS_NOT_SUPPORTED), "") != 0, "error strings");
    /* The refusal rule. */
    EXPECT(bench_cudnn_is_refusal(CUDNN_STATUS_NOT_SUPPORTED), "3000");
    EXPECT(bench_cudnn_is_refusal(CUDNN_STATUS_NOT_SUPPORTED_SHAPE), "3002");
    EXPECT(!bench_cudnn_is_refusal(CUDNN_STATUS_NOT_SUPPORTED_SUBLIBRARY_UNAVAILABLE),
           "3009 is a broken install, not a refusal");
    EXPECT(!bench_cudnn_is_refusal(CUDNN_STATUS_BAD_PARAM), "2000");
    EXPECT(!bench_cudnn_is_refusal(CUDNN_STATUS_SUCCESS), "0");
    char msg[256];
    bench_cudnn_error(lib, CUDNN_STATUS_NOT_SUPPORTED, "cudnnRNNForward", msg, sizeof(msg));
    EXPECT(strstr(msg, "cudnnRNNForward: ") && strstr(msg, "NOT_SUPPORTED"), "message: %s", msg);
    return test_done("tools-bench-cudnn-lib: the cuDNN table resolves, version 9.x, error strings "
                     "and the refusal rule");
}
