/*
 * NVRTC, loaded at run time into a table of function pointers.
 *
 * Search order: $PRNN_NVRTC_LIBRARY alone if set; else libnvrtc.so.13,
 * libnvrtc.so.12, libnvrtc.so through the dynamic linker, then the same
 * names under PRNN_CUDA_PATH/lib64 and PRNN_CUDA_PATH/lib. Building needs no
 * nvrtc.h: nvrtc_api.h declares what is used.
 */
#ifndef PRNN_NVRTC_LIB_H
#define PRNN_NVRTC_LIB_H

#include "cuda/nvrtc_api.h"
#include "prnn.h"

typedef struct prnn_nvrtc {
    PRNN_NVRTC_FUNCTIONS(PRNN_API_TABLE_FIELD)
    int major, minor;         /* nvrtcVersion */
    const char *library_path; /* the file that was loaded */
    /* Size and modification time of that file: part of the cubin cache key,
     * because nvrtcVersion does not change with a patch release whose code
     * generation may. */
    long long file_size;
    long long file_mtime;
} prnn_nvrtc;

/*
 * The process-wide NVRTC table, loaded on first use (thread-safe). Returns
 * RUNTIME_PREREQUISITE_MISSING, with every path tried and dlerror() in the
 * log, when no candidate loads or one lacks a function; every later call
 * returns the same result.
 */
prnnStatus_t prnn_nvrtc_get(const prnn_nvrtc **out);

#endif
