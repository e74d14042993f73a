/* prnn_cubin_fetch_keyed: the disk cache in front of NVRTC. */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "error.h"
#include "jit/cubin_cache.h"
#include "note_once.h"
#include "store/cache_dir.h"

/* Once per directory (and reason) and process: every plan would otherwise
 * repeat it. */
static void note_memory_only(const char *dir, const char *why)
{
    prnn_note_once("note: cubin cache directory %s is not usable (%s); compiled kernels are cached "
                   "in memory only",
                   dir, why);
}

prnnStatus_t prnn_cubin_fetch_keyed(const char *in_dir, const prnn_compile_request *req,
                                    const prnn_cubin_key *key, void **cubin, size_t *size,
                                    prnnCubinSource_t *source, double *compile_ms)
{
    char dir[PATH_MAX], why[PATH_MAX + 256];
    int have_dir = in_dir ? snprintf(dir, sizeof(dir), "%s", in_dir) < (int)sizeof(dir)
                          : prnn_cache_dir(dir, sizeof(dir)) == 0;
    if (!have_dir) {
        prnn_cache_dir_explain(why, sizeof(why));
        prnn_note_once(
            "note: no cubin cache directory (%s); compiled kernels are cached in memory only", why);
    }
    int use_dir = have_dir;
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
            /* Once: an entry that cannot be replaced (a directory with
             * files in it, say) is met again by every plan. */
            prnn_note_once("note: cubin cache entry %s/%s%s (kernel %s, sm_%d) is unusable: %s; "
                           "recompiling and replacing it",
                           dir, key->name, PRNN_CUBIN_SUFFIX, req->kernel_name, req->sm, why);
            break;
        case PRNN_CUBIN_ABSENT: break;
        case PRNN_CUBIN_NO_DIR:
            /* Untrusted (or not a directory): not written either. */
            use_dir = 0;
            prnn_note_once("note: cubin cache directory not used: %s; prnn neither loads nor "
                           "stores kernels there, compiled kernels are cached in memory only",
                           why);
            break;
        }
    }
    void *bin;
    size_t n;
    double ms = 0.0;
    prnnStatus_t s = prnn_nvrtc_compile(req, &bin, &n, &ms);
    if (s)
        return s;
    if (use_dir && prnn_cubin_cache_store(dir, key, bin, n, why, sizeof(why)))
        note_memory_only(dir, why);
    *cubin = bin;
    *size = n;
    if (source)
        *source = PRNN_CUBIN_COMPILED;
    if (compile_ms)
        *compile_ms = ms;
    return PRNN_STATUS_SUCCESS;
}

int prnn_cubin_cached(const prnn_compile_request *req)
{
    char dir[PATH_MAX];
    if (prnn_cache_dir(dir, sizeof(dir)) != 0)
        return 0;
    char *saved = prnn_log_save();
    prnn_cubin_key key;
    int found = 0;
    if (prnn_cubin_key_build(req, &key) == PRNN_STATUS_SUCCESS) {
        char path[PATH_MAX + 64];
        struct stat st;
        int n = snprintf(path, sizeof(path), "%s/%s%s", dir, key.name, PRNN_CUBIN_SUFFIX);
        found = n > 0 && (size_t)n < sizeof(path) && lstat(path, &st) == 0 && S_ISREG(st.st_mode);
        prnn_cubin_key_free(&key);
    }
    prnn_log_restore(saved);
    return found;
}
