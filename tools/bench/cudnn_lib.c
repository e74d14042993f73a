#include "cudnn_lib.h"

#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cuda/dl_loader.h"

static bench_cudnn_lib lib;
static int load_rc = -1;
static char load_msg[PRNN_DL_MESSAGE_SIZE];
static pthread_once_t once = PTHREAD_ONCE_INIT;

#define SPEC(name, symbol, required, ret, params)                                                  \
    PRNN_DL_SPEC(bench_cudnn_lib, name, symbol, required)
static const prnn_dl_symbol_spec specs[] = {BENCH_CUDNN_FUNCTIONS(SPEC)};

static void load(void)
{
    static const char *const sonames[] = {"libcudnn.so.9", "libcudnn.so", NULL};
    prnn_dl_candidates c;
    prnn_dl_toolkit_candidates(&c, "PRNN_BENCH_CUDNN", sonames);
    void *handle = NULL;
    prnnStatus_t s = prnn_dl_load("cuDNN", c.paths, specs, sizeof(specs) / sizeof(specs[0]), NULL,
                                  &lib, PRNN_STATUS_RUNTIME_PREREQUISITE_MISSING, load_msg,
                                  sizeof(load_msg), &handle);
    if (s != PRNN_STATUS_SUCCESS) {
        memset(&lib, 0, sizeof(lib));
        return;
    }
    lib.path = prnn_dl_origin(handle, "cudnnGetVersion");
    lib.version = lib.cudnnGetVersion();
    if (lib.version < 90000) {
        snprintf(load_msg, sizeof(load_msg), "%s is cuDNN %zu.%zu.%zu; prnn-bench needs cuDNN 9",
                 lib.path, lib.version / 10000, (lib.version % 10000) / 100, lib.version % 100);
        memset(&lib, 0, sizeof(lib));
        return;
    }
    load_rc = 0;
}

int bench_cudnn_load(const bench_cudnn_lib **out, char *err, size_t n)
{
    pthread_once(&once, load);
    if (load_rc) {
        snprintf(err, n, "%s", load_msg);
        *out = NULL;
        return -1;
    }
    *out = &lib;
    return 0;
}

void bench_cudnn_error(const bench_cudnn_lib *l, cudnnStatus_t s, const char *what, char *err,
                       size_t n)
{
    const char *name = l ? l->cudnnGetErrorString(s) : NULL;
    char detail[384] = "";
    if (l && l->cudnnGetLastErrorString) {
        l->cudnnGetLastErrorString(detail, sizeof(detail));
        /* Keep one line: the detail often ends with a newline. */
        for (char *p = detail; *p; p++)
            if (*p == '\n' || *p == '\r')
                *p = ' ';
        size_t len = strlen(detail);
        while (len && detail[len - 1] == ' ')
            detail[--len] = '\0';
    }
    if (detail[0])
        snprintf(err, n, "%s: %s (%s)", what, name ? name : "?", detail);
    else
        snprintf(err, n, "%s: %s (%d)", what, name ? name : "?", (int)s);
}

int bench_cudnn_is_refusal(cudnnStatus_t s)
{
    if ((int)s / 1000 != 3)
        return 0;
    switch (s) {
    case CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDA_DRIVER:
    case CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDART:
    case CUDNN_STATUS_NOT_SUPPORTED_RUNTIME_PREREQUISITE_MISSING:
    case CUDNN_STATUS_NOT_SUPPORTED_SUBLIBRARY_UNAVAILABLE: return 0;
    default: return 1;
    }
}
