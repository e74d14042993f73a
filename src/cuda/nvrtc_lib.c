#include "cuda/nvrtc_lib.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cuda/dl_loader.h"
#include "error.h"

static prnn_nvrtc nvrtc;
static prnn_dl_once loaded = PRNN_DL_ONCE_INIT;

#define PRNN_NVRTC_SPEC(name, symbol, required, ret, params)                                       \
    PRNN_DL_SPEC(prnn_nvrtc, name, symbol, required)
static const prnn_dl_symbol_spec specs[] = {PRNN_NVRTC_FUNCTIONS(PRNN_NVRTC_SPEC)};

static prnnStatus_t load(void)
{
    static const char *const sonames[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so", NULL};
    prnn_dl_candidates c;
    prnn_dl_toolkit_candidates(&c, "PRNN_NVRTC_LIBRARY", sonames);
    void *lib;
    prnnStatus_t s = prnn_dl_load("the NVRTC library (set PRNN_NVRTC_LIBRARY to its path)", c.paths,
                                  specs, sizeof(specs) / sizeof(specs[0]), NULL, &nvrtc,
                                  PRNN_STATUS_RUNTIME_PREREQUISITE_MISSING, loaded.message,
                                  sizeof(loaded.message), &lib);
    if (s != PRNN_STATUS_SUCCESS) {
        memset(&nvrtc, 0, sizeof(nvrtc));
        return s;
    }
    nvrtc.library_path = prnn_dl_origin(lib, "nvrtcVersion");
    struct stat st;
    if (nvrtc.library_path[0] && stat(nvrtc.library_path, &st) == 0) {
        nvrtc.file_size = (long long)st.st_size;
        nvrtc.file_mtime = (long long)st.st_mtime;
    }
    nvrtcResult r = nvrtc.nvrtcVersion(&nvrtc.major, &nvrtc.minor);
    if (r != NVRTC_SUCCESS) {
        snprintf(loaded.message, sizeof(loaded.message), "nvrtcVersion failed in %s: %s",
                 nvrtc.library_path, nvrtc.nvrtcGetErrorString(r));
        memset(&nvrtc, 0, sizeof(nvrtc));
        return PRNN_STATUS_RUNTIME_PREREQUISITE_MISSING;
    }
    return PRNN_STATUS_SUCCESS;
}

static void run_load(void)
{
    loaded.status = load();
}

prnnStatus_t prnn_nvrtc_get(const prnn_nvrtc **out)
{
    prnnStatus_t s = prnn_dl_once_run(&loaded, run_load);
    if (out)
        *out = s == PRNN_STATUS_SUCCESS ? &nvrtc : NULL;
    return s;
}
