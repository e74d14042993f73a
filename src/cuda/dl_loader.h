/*
 * dlopen helpers shared by the CUDA library loaders (driver, NVRTC,
 * cuBLASLt): try a list of candidate paths, remember why each one failed, and
 * resolve symbols into a table of function pointers.
 */
#ifndef PRNN_DL_LOADER_H
#define PRNN_DL_LOADER_H

#include <pthread.h>
#include <stddef.h>

#include "prnn.h"

/* Room for a loader's failure message (every path tried, with dlerror). */
#define PRNN_DL_MESSAGE_SIZE 4096
#define PRNN_DL_PATH_MAX 512
#define PRNN_DL_MAX_CANDIDATES 16

typedef struct {
    const char *name; /* symbol */
    size_t offset;    /* of its function pointer in the table */
    int required;     /* 0: left NULL when the library lacks it */
} prnn_dl_symbol_spec;

/* The spec of one entry of a function list (api_decl.h) for table type T:
 *   #define SPEC(name, symbol, required, ret, params) \
 *       PRNN_DL_SPEC(prnn_nvrtc, name, symbol, required)
 *   static const prnn_dl_symbol_spec specs[] = {PRNN_NVRTC_FUNCTIONS(SPEC)}; */
#define PRNN_DL_SPEC(T, name, symbol, required) {#symbol, offsetof(T, name), required},

/* An older symbol with exactly the same prototype, tried when the library
 * predates symbol. Lists end with a NULL symbol. */
typedef struct {
    const char *symbol;
    const char *fallback;
} prnn_dl_fallback;

typedef struct {
    char storage[PRNN_DL_MAX_CANDIDATES][PRNN_DL_PATH_MAX];
    const char *paths[PRNN_DL_MAX_CANDIDATES + 1]; /* NULL-terminated */
} prnn_dl_candidates;

/*
 * The candidates for a toolkit library: the value of environment variable
 * env_override alone if it is set and non-empty (a named library is the one
 * the user wants; falling back to another copy would hide their mistake),
 * else each soname as given (the dynamic linker's search), then under
 * PRNN_CUDA_PATH/lib64 and PRNN_CUDA_PATH/lib. sonames ends with NULL.
 */
void prnn_dl_toolkit_candidates(prnn_dl_candidates *c, const char *env_override,
                                const char *const *sonames);

/*
 * dlopens the first candidate that loads (RTLD_NOW | RTLD_LOCAL) and resolves
 * every spec into table. On failure returns not_found_status with a message
 * in msg naming every path tried and its dlerror(), or
 * RUNTIME_PREREQUISITE_MISSING naming the missing symbol; msg is "" on
 * success. what names the library in messages ("the NVRTC library").
 * The library is never unloaded.
 */
prnnStatus_t prnn_dl_load(const char *what, const char *const *candidates,
                          const prnn_dl_symbol_spec *specs, size_t num_specs,
                          const prnn_dl_fallback *fallbacks, void *table,
                          prnnStatus_t not_found_status, char *msg, size_t msg_size,
                          void **lib_out);

/* A library loaded once per process. The loader's run function (for
 * pthread_once: no argument) sets status, and message when it fails; both
 * are kept so that every thread that asks gets the message in its own
 * (thread-local) log, not only the one that ran the load. */
typedef struct {
    pthread_once_t once;
    prnnStatus_t status;
    char message[PRNN_DL_MESSAGE_SIZE];
} prnn_dl_once;

#define PRNN_DL_ONCE_INIT                                                                          \
    {                                                                                              \
        PTHREAD_ONCE_INIT, PRNN_STATUS_INTERNAL_ERROR, ""                                          \
    }

/* Runs run the first time (other callers wait for it), then returns
 * o->status, logging o->message when it is not SUCCESS. */
prnnStatus_t prnn_dl_once_run(prnn_dl_once *o, void (*run)(void));

/* The file symbol was loaded from (dladdr); the library's own path (its
 * link map) when it has no such symbol; "(path unknown)" when neither is
 * known. The string lives as long as the library stays loaded. */
const char *prnn_dl_origin(void *lib, const char *symbol);

#endif
