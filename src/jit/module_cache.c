#include "jit/module_cache.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "jit/cubin_batch.h"

typedef struct function_entry {
    struct function_entry *next;
    char *name;
    CUfunction fn;
} function_entry;

typedef struct module_entry {
    struct module_entry *next;
    CUcontext ctx;
    unsigned long long ctx_id; /* cuCtxGetId, or 0 without it */
    char *key;                 /* the cubin cache key's text */
    size_t key_len;
    CUmodule module; /* NULL while one thread loads it */
    function_entry *functions;
} module_entry;

/* One lock for the table; the slow part (compile, load) runs outside it, and
 * threads wanting a module that is being loaded wait on loaded. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t loaded = PTHREAD_COND_INITIALIZER;
static module_entry *entries;

static module_entry *find(CUcontext ctx, unsigned long long id, const prnn_cubin_key *key)
{
    for (module_entry *e = entries; e; e = e->next)
        if (e->ctx == ctx && e->ctx_id == id && e->key_len == key->len &&
            memcmp(e->key, key->text, key->len) == 0)
            return e;
    return NULL;
}

static void unlink_entry(module_entry *victim)
{
    for (module_entry **p = &entries; *p; p = &(*p)->next) {
        if (*p == victim) {
            *p = victim->next;
            break;
        }
    }
    free(victim->key);
    free(victim);
}

/* The function called name in e's module, looked up once. Lock held. */
static prnnStatus_t entry_function(const prnn_cuda_driver *cu, module_entry *e,
                                   const prnn_compile_request *req, const char *name,
                                   CUfunction *fn)
{
    for (function_entry *f = e->functions; f; f = f->next) {
        if (strcmp(f->name, name) == 0) {
            *fn = f->fn;
            return PRNN_STATUS_SUCCESS;
        }
    }
    CUfunction found;
    CUresult r = cu->cuModuleGetFunction(&found, e->module, name);
    if (r != CUDA_SUCCESS) {
        char what[256];
        snprintf(what, sizeof(what), "cuModuleGetFunction(\"%s\") in kernel %s (source %s, sm_%d)",
                 name, req->kernel_name, req->source_name, req->sm);
        return prnn_cu_check(r, what);
    }
    function_entry *f = calloc(1, sizeof(*f));
    char *copy = strdup(name);
    if (!f || !copy) {
        free(f);
        free(copy);
        return prnn_fail(PRNN_STATUS_ALLOC_FAILED, "out of host memory");
    }
    f->name = copy;
    f->fn = found;
    f->next = e->functions;
    e->functions = f;
    *fn = found;
    return PRNN_STATUS_SUCCESS;
}

static prnnStatus_t load_module(const prnn_cuda_driver *cu, CUcontext ctx,
                                const prnn_compile_request *req, const prnn_cubin_key *key,
                                CUmodule *module, prnnCubinSource_t *source, double *compile_ms)
{
    CUcontext current = NULL;
    CUresult r = cu->cuCtxGetCurrent(&current);
    if (r != CUDA_SUCCESS)
        return prnn_cu_check(r, "cuCtxGetCurrent");
    if (current != ctx)
        return prnn_fail(PRNN_STATUS_INTERNAL_ERROR,
                         "loading kernel %s: the context passed is not current on this thread",
                         req->kernel_name);

    void *cubin;
    size_t size;
    prnnStatus_t s = prnn_cubin_get_keyed(req, key, &cubin, &size, source, compile_ms);
    if (s)
        return s;

    /* A cubin needs no JIT, but the driver still explains a refusal (wrong
     * architecture, a cubin newer than the driver) in its error log. */
    char jit_log[4096];
    jit_log[0] = '\0';
    CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {jit_log, (void *)(uintptr_t)sizeof(jit_log)};
    r = cu->cuModuleLoadDataEx(module, cubin, 2, opts, values);
    free(cubin);
    if (r != CUDA_SUCCESS) {
        char what[256];
        snprintf(what, sizeof(what),
                 "cuModuleLoadDataEx(kernel %s, source %s, sm_%d, %zu-byte cubin)",
                 req->kernel_name, req->source_name, req->sm, size);
        s = prnn_cu_check(r, what);
        jit_log[sizeof(jit_log) - 1] = '\0';
        if (jit_log[0])
            prnn_log_append("driver log: %s", jit_log);
        prnn_log_append("driver version %d; cache entry %s%s", cu->driver_version, key->name,
                        PRNN_CUBIN_SUFFIX);
        return s;
    }
    return PRNN_STATUS_SUCCESS;
}

/* The entry for (ctx, req), loaded by this thread or found loaded. */
static prnnStatus_t get_entry(const prnn_cuda_driver *cu, CUcontext ctx,
                              const prnn_compile_request *req, const char *function_name,
                              CUfunction *fn, CUmodule *module, prnnCubinSource_t *source,
                              double *compile_ms)
{
    if (!cu || !ctx || !req)
        return prnn_fail(PRNN_STATUS_INTERNAL_ERROR,
                         "prnn_module_get without a driver, context or request");
    unsigned long long id = 0;
    if (cu->cuCtxGetId) {
        CUresult r = cu->cuCtxGetId(ctx, &id);
        if (r != CUDA_SUCCESS)
            return prnn_cu_check(r, "cuCtxGetId");
    }
    prnn_cubin_key key;
    prnnStatus_t s = prnn_cubin_key_build(req, &key);
    if (s)
        return s;

    pthread_mutex_lock(&lock);
    module_entry *e;
    for (;;) {
        e = find(ctx, id, &key);
        if (!e || e->module)
            break;
        pthread_cond_wait(&loaded, &lock);
    }
    if (e) {
        /* Seen before: no compile, no file, no load. */
        s = function_name ? entry_function(cu, e, req, function_name, fn) : PRNN_STATUS_SUCCESS;
        if (!s && module)
            *module = e->module;
        pthread_mutex_unlock(&lock);
        prnn_cubin_key_free(&key);
        if (!s && source)
            *source = PRNN_CUBIN_MEMORY;
        if (!s && compile_ms)
            *compile_ms = 0.0;
        return s;
    }
    /* Claim the key, then compile and load without the lock. */
    e = calloc(1, sizeof(*e));
    if (!e) {
        pthread_mutex_unlock(&lock);
        prnn_cubin_key_free(&key);
        return prnn_fail(PRNN_STATUS_ALLOC_FAILED, "out of host memory");
    }
    e->ctx = ctx;
    e->ctx_id = id;
    e->key = key.text;
    e->key_len = key.len;
    e->next = entries;
    entries = e;
    pthread_mutex_unlock(&lock);

    CUmodule m = NULL;
    prnnCubinSource_t src = PRNN_CUBIN_NONE;
    double ms = 0.0;
    s = load_module(cu, ctx, req, &key, &m, &src, &ms);

    pthread_mutex_lock(&lock);
    if (!s) {
        e->module = m;
        if (function_name)
            s = entry_function(cu, e, req, function_name, fn);
        /* A missing function is the caller's bug; the module stays loaded
         * and cached for other names. */
        if (module)
            *module = m;
    } else {
        /* Waiters find no entry and try themselves (and report their own
         * error): a failure is never cached. */
        unlink_entry(e);
    }
    pthread_cond_broadcast(&loaded);
    pthread_mutex_unlock(&lock);
    if (!s) {
        if (source)
            *source = src;
        if (compile_ms)
            *compile_ms = ms;
    }
    return s;
}

prnnStatus_t prnn_module_get(const prnn_cuda_driver *cu, CUcontext ctx,
                             const prnn_compile_request *req, const char *function_name,
                             CUfunction *fn, prnnCubinSource_t *source, double *compile_ms)
{
    if (!function_name || !fn)
        return prnn_fail(PRNN_STATUS_INTERNAL_ERROR,
                         "prnn_module_get without a function name or output");
    return get_entry(cu, ctx, req, function_name, fn, NULL, source, compile_ms);
}

prnnStatus_t prnn_module_get_module(const prnn_cuda_driver *cu, CUcontext ctx,
                                    const prnn_compile_request *req, CUmodule *module,
                                    prnnCubinSource_t *source, double *compile_ms)
{
    if (!module)
        return prnn_fail(PRNN_STATUS_INTERNAL_ERROR, "prnn_module_get_module without an output");
    return get_entry(cu, ctx, req, NULL, NULL, module, source, compile_ms);
}

int prnn_module_loaded(const prnn_cuda_driver *cu, CUcontext ctx, const prnn_compile_request *req)
{
    unsigned long long id = 0;
    if (!cu || !ctx || (cu->cuCtxGetId && cu->cuCtxGetId(ctx, &id) != CUDA_SUCCESS))
        return 0;
    /* The thread's log is the caller's: a key that cannot be built (no
     * NVRTC) is met again, and reported, by the load. */
    char *saved = prnn_log_save();
    prnn_cubin_key key;
    int found = 0;
    if (prnn_cubin_key_build(req, &key) == PRNN_STATUS_SUCCESS) {
        pthread_mutex_lock(&lock);
        module_entry *e = find(ctx, id, &key);
        found = e && e->module;
        pthread_mutex_unlock(&lock);
        prnn_cubin_key_free(&key);
    }
    prnn_log_restore(saved);
    return found;
}
