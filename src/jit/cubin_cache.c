/* prnn_cubin_get: the disk cache in front of NVRTC. */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "jit/cubin_cache.h"
#include "tuning/cache_dir.h"

/* The unusable-directory note is given once per directory and process:
 * every plan would otherwise repeat it. */
static pthread_mutex_t note_lock = PTHREAD_MUTEX_INITIALIZER;
static char noted_dir[PATH_MAX];

static void note_memory_only(const char *dir, const char *why)
{
    pthread_mutex_lock(&note_lock);
    int first = strcmp(noted_dir, dir) != 0;
    if (first)
        snprintf(noted_dir, sizeof(noted_dir), "%s", dir);
    pthread_mutex_unlock(&note_lock);
    if (first)
        prnn_log_append("note: cubin cache directory %s is not usable (%s); "
                        "compiled kernels are cached in memory only",
                        dir, why);
}

prnnStatus_t prnn_cubin_get_keyed(const prnn_compile_request *req,
                                  const prnn_cubin_key *key, void **cubin,
                                  size_t *size, prnnCubinSource_t *source,
                                  double *compile_ms)
{
    char dir[PATH_MAX], why[256];
    int have_dir = prnn_cache_dir(dir, sizeof(dir)) == 0;
    if (!have_dir)
        note_memory_only("(none)", "no PRNN_CACHE_DIR, XDG_CACHE_HOME or home "
                                   "directory");
    if (have_dir) {
        void *p;
        size_t n;
        switch (prnn_cubin_cache_load(dir, key, &p, &n, why, sizeof(why))) {
        case PRNN_CUBIN_HIT:
            *cubin = p;
            *size = n;
            if (source)
                *source = PRNN_CUBIN_DISK_CACHE;
            if (compile_ms)
                *compile_ms = 0.0;
            return PRNN_STATUS_SUCCESS;
        case PRNN_CUBIN_BAD:
            prnn_log_append("note: cubin cache entry %s/%s%s (kernel %s, sm_%d) "
                            "is unusable: %s; recompiling and replacing it",
                            dir, key->name, PRNN_CUBIN_SUFFIX, req->kernel_name,
                            req->sm, why);
            break;
        case PRNN_CUBIN_ABSENT:
            break;
        }
    }
    void *bin;
    size_t n;
    double ms = 0.0;
    prnnStatus_t s = prnn_nvrtc_compile(req, &bin, &n, &ms);
    if (s)
        return s;
    if (have_dir && prnn_cubin_cache_store(dir, key, bin, n, why, sizeof(why)))
        note_memory_only(dir, why);
    *cubin = bin;
    *size = n;
    if (source)
        *source = PRNN_CUBIN_COMPILED;
    if (compile_ms)
        *compile_ms = ms;
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnn_cubin_get(const prnn_compile_request *req, void **cubin,
                            size_t *size, prnnCubinSource_t *source,
                            double *compile_ms)
{
    prnn_cubin_key key;
    prnnStatus_t s = prnn_cubin_key_build(req, &key);
    if (s)
        return s;
    s = prnn_cubin_get_keyed(req, &key, cubin, size, source, compile_ms);
    prnn_cubin_key_free(&key);
    return s;
}
