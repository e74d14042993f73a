#include "cuda/dl_loader.h"

#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

#ifndef PRNN_CUDA_PATH
#define PRNN_CUDA_PATH "/usr/local/cuda"
#endif

typedef void (*generic_fn)(void);

void prnn_dl_toolkit_candidates(prnn_dl_candidates *c, const char *env_override,
                                const char *const *sonames)
{
    int n = 0;
    const char *over = env_override ? getenv(env_override) : NULL;
    if (over && *over) {
        snprintf(c->storage[n], PRNN_DL_PATH_MAX, "%s", over);
        c->paths[n] = c->storage[n];
        n++;
    } else {
        static const char *const dirs[] = {"", PRNN_CUDA_PATH "/lib64/", PRNN_CUDA_PATH "/lib/"};
        for (size_t d = 0; d < sizeof(dirs) / sizeof(dirs[0]); d++) {
            for (const char *const *s = sonames; *s && n < PRNN_DL_MAX_CANDIDATES; s++) {
                snprintf(c->storage[n], PRNN_DL_PATH_MAX, "%s%s", dirs[d], *s);
                c->paths[n] = c->storage[n];
                n++;
            }
        }
    }
    c->paths[n] = NULL;
}

static generic_fn lookup(void *lib, const char *name)
{
    void *p = dlsym(lib, name);
    generic_fn fn = NULL;
    /* ISO C has no cast from an object pointer to a function pointer; POSIX
     * guarantees they have the same representation. */
    if (p)
        memcpy(&fn, &p, sizeof(fn));
    return fn;
}

static generic_fn lookup_with_fallback(void *lib, const char *name,
                                       const prnn_dl_fallback *fallbacks)
{
    generic_fn fn = lookup(lib, name);
    for (; !fn && fallbacks && fallbacks->symbol; fallbacks++)
        if (strcmp(fallbacks->symbol, name) == 0)
            fn = lookup(lib, fallbacks->fallback);
    return fn;
}

prnnStatus_t prnn_dl_load(const char *what, const char *const *candidates,
                          const prnn_dl_symbol_spec *specs, size_t num_specs,
                          const prnn_dl_fallback *fallbacks, void *table,
                          prnnStatus_t not_found_status, char *msg, size_t msg_size, void **lib_out)
{
    msg[0] = '\0';
    *lib_out = NULL;
    int len = snprintf(msg, msg_size, "cannot load %s; tried:", what);
    void *lib = NULL;
    for (const char *const *c = candidates; *c && !lib; c++) {
        /* RTLD_LOCAL: the CUDA symbols must not leak into the global
         * namespace, where they could shadow an application's own copy. */
        lib = dlopen(*c, RTLD_NOW | RTLD_LOCAL);
        if (!lib && len >= 0 && (size_t)len < msg_size) {
            const char *why = dlerror();
            len += snprintf(msg + len, msg_size - (size_t)len, "\n  %s: %s", *c,
                            why ? why : "unknown error");
        }
    }
    if (!lib)
        return not_found_status;

    for (size_t i = 0; i < num_specs; i++) {
        generic_fn fn = lookup_with_fallback(lib, specs[i].name, fallbacks);
        if (!fn && specs[i].required) {
            snprintf(msg, msg_size,
                     "%s (%s) has no function %s: it is another library, or a version too old for "
                     "this build of prnn",
                     what, prnn_dl_origin(lib, specs[0].name), specs[i].name);
            /* Not dlclosed: unloading CUDA libraries is never worth the
             * risk, and a retry would find the same library anyway. */
            return PRNN_STATUS_RUNTIME_PREREQUISITE_MISSING;
        }
        memcpy((char *)table + specs[i].offset, &fn, sizeof(fn));
    }
    msg[0] = '\0';
    *lib_out = lib;
    return PRNN_STATUS_SUCCESS;
}

const char *prnn_dl_origin(void *lib, const char *symbol)
{
    Dl_info info;
    void *p = dlsym(lib, symbol);
    if (p && dladdr(p, &info) && info.dli_fname && info.dli_fname[0])
        return info.dli_fname;
    /* A library without that symbol (not the one it was taken for): its
     * path from the link map, so that the message can name it. */
    struct link_map *map = NULL;
    if (dlinfo(lib, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name && map->l_name[0])
        return map->l_name;
    return "(path unknown)";
}

prnnStatus_t prnn_dl_once_run(prnn_dl_once *o, void (*run)(void))
{
    pthread_once(&o->once, run);
    if (o->status != PRNN_STATUS_SUCCESS)
        return prnn_fail(o->status, "%s", o->message);
    return PRNN_STATUS_SUCCESS;
}
