#include "cuda/cublaslt_lib.h"

#include <stddef.h>
#include <string.h>

#include "cuda/dl_loader.h"
#include "error.h"

static prnn_cublaslt lt;
static prnn_dl_once loaded = PRNN_DL_ONCE_INIT;

#define PRNN_CUBLASLT_SPEC(name, symbol, required, ret, params)                                    \
    PRNN_DL_SPEC(prnn_cublaslt, name, symbol, required)
static const prnn_dl_symbol_spec specs[] = {PRNN_LT_FUNCTIONS(PRNN_CUBLASLT_SPEC)};

static prnnStatus_t load(void)
{
    static const char *const sonames[] = {"libcublasLt.so.13", "libcublasLt.so.12",
                                          "libcublasLt.so", NULL};
    prnn_dl_candidates c;
    prnn_dl_toolkit_candidates(&c, "PRNN_CUBLASLT_LIBRARY", sonames);
    void *lib;
    prnnStatus_t s = prnn_dl_load("the cuBLASLt library (set PRNN_CUBLASLT_LIBRARY to its path)",
                                  c.paths, specs, sizeof(specs) / sizeof(specs[0]), NULL, &lt,
                                  PRNN_STATUS_RUNTIME_PREREQUISITE_MISSING, loaded.message,
                                  sizeof(loaded.message), &lib);
    if (s != PRNN_STATUS_SUCCESS) {
        memset(&lt, 0, sizeof(lt));
        return s;
    }
    lt.library_path = prnn_dl_origin(lib, "cublasLtCreate");
    lt.version = lt.cublasLtGetVersion();
    return PRNN_STATUS_SUCCESS;
}

static void run_load(void)
{
    loaded.status = load();
}

prnnStatus_t prnn_cublaslt_get(const prnn_cublaslt **out)
{
    prnnStatus_t s = prnn_dl_once_run(&loaded, run_load);
    if (out)
        *out = s == PRNN_STATUS_SUCCESS ? &lt : NULL;
    return s;
}

const char *prnn_cublaslt_status_name(const prnn_cublaslt *l, cublasStatus_t status)
{
    const char *name = l ? l->cublasLtGetStatusName(status) : NULL;
    return name ? name : "CUBLAS_STATUS_UNKNOWN";
}
