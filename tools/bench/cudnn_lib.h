/*
 * cuDNN 9, loaded at run time (dlopen "libcudnn.so.9", then "libcudnn.so",
 * then the toolkit's lib64; $PRNN_BENCH_CUDNN names a file to use instead)
 * into a table of the v8 RNN API's functions. Nothing links against cuDNN
 * and no cudnn.h is needed: cudnn_api.h declares what is used.
 */
#ifndef PRNN_BENCH_CUDNN_LIB_H
#define PRNN_BENCH_CUDNN_LIB_H

#include <stddef.h>

#include "cudnn_api.h"

/* cudnnGetLastErrorString (optional) is NULL when the library lacks it. */
typedef struct {
    BENCH_CUDNN_FUNCTIONS(PRNN_API_TABLE_FIELD)
    size_t version;   /* cudnnGetVersion(): 91400 for 9.14.0 */
    const char *path; /* the file that was loaded */
} bench_cudnn_lib;

/*
 * Loads cuDNN once per process. 0, or -1 with every path tried (and why) in
 * err. A cuDNN older than 9 (no v8 RNN API, or cudnnGetVersion < 90000) is
 * refused with a message.
 */
int bench_cudnn_load(const bench_cudnn_lib **out, char *err, size_t n);

/* "CUDNN_STATUS_NOT_SUPPORTED_SHAPE" and, when the library has one, its
 * message for the last failure: "<what>: <name> (<detail>)". */
void bench_cudnn_error(const bench_cudnn_lib *lib, cudnnStatus_t s, const char *what, char *err,
                       size_t n);

/* 1 for a "this configuration is not supported" answer (the 3000 family),
 * except those that mean the installation itself is broken (a missing
 * sub-library or prerequisite, an incompatible driver or runtime). */
int bench_cudnn_is_refusal(cudnnStatus_t s);

#endif
