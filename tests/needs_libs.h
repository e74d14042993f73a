/*
 * For tests that need a CUDA library the library loads at run time: when it
 * cannot be loaded they skip (exit 77, which meson reports as SKIP) and say
 * which library and why (every path the loader tried), instead of failing
 * every check, or crashing on what a failed call left unset.
 *
 *   int main(void) { if (needs_nvrtc("jit-cubin-cache")) return 77; ... }
 *
 * The test's own name goes in the message, as meson shows it.
 */
#ifndef PRNN_TESTS_NEEDS_LIBS_H
#define PRNN_TESTS_NEEDS_LIBS_H

#include <stdio.h>

#include "cuda/cublaslt_lib.h"
#include "cuda/nvrtc_lib.h"

/* 0, or 77 after printing why test is skipped, when status (of loading
 * library) is not SUCCESS. */
static inline int needs_library(const char *test, const char *library, prnnStatus_t status)
{
    if (status == PRNN_STATUS_SUCCESS)
        return 0;
    printf("SKIP: %s needs %s, which cannot be loaded here:\n%s\n", test, library,
           prnnGetLastErrorLog());
    fflush(stdout);
    return 77;
}

static inline int needs_nvrtc(const char *test)
{
    return needs_library(test, "NVRTC", prnn_nvrtc_get(NULL));
}

static inline int needs_cublaslt(const char *test)
{
    return needs_library(test, "cuBLASLt", prnn_cublaslt_get(NULL));
}

#endif
