/*
 * The NVRTC requests of prnn's kernels: which kernel_src file, with which
 * -D defines, for which architecture. The defines are the planner's whole
 * say over a kernel (its shape, tile and variant); the file's constants and
 * static_asserts take it from there.
 */
#ifndef PRNN_KERNEL_REQUEST_H
#define PRNN_KERNEL_REQUEST_H

#include "jit/nvrtc_compile.h"
#include "prnn.h"
#include "rnn_key.h"

/* Room for the largest request (the persistent kernels': 26 forward, 24
 * backward-data) with margin; adding past it is an error, never a silent
 * truncation. */
#define PRNN_REQUEST_MAX_DEFINES 32
#define PRNN_REQUEST_DEFINE_CHARS 48

/* An NVRTC request with its -D defines (storage included). */
typedef struct prnn_kernel_request {
    char text[PRNN_REQUEST_MAX_DEFINES][PRNN_REQUEST_DEFINE_CHARS];
    const char *ptr[PRNN_REQUEST_MAX_DEFINES];
    int n;
    int overflow; /* a define did not fit: the request must not be used */
    prnn_compile_request req;
} prnn_kernel_request;

/* Building a request: start it (source file, kernel name for messages,
 * architecture), add its defines, finish it (INTERNAL_ERROR when a define
 * did not fit: the request must not be used). */
void prnn_request_start(prnn_kernel_request *r, const char *source, const char *kernel, int sm);
void prnn_request_define(prnn_kernel_request *r, const char *name, long value);
/* The cell's defines of a request for key: PRNN_MODE, and PRNN_CLIP where
 * the key clips (unclipped requests stay as they were, cache keys too). */
void prnn_request_cell(prnn_kernel_request *r, const prnn_rnn_key *key);
prnnStatus_t prnn_request_finish(prnn_kernel_request *r);

/* The per-call setup kernel (step tables, hand-off zeroing). */
prnnStatus_t prnn_request_setup(int sm, prnn_kernel_request *r);

/* The training path's elementwise and reduction kernels. */
prnnStatus_t prnn_request_train(prnnDataType_t dtype, int sm, prnn_kernel_request *r);

/* Storage type code the kernels' PRNN_DTYPE expects. */
int prnn_kernel_dtype_code(prnnDataType_t t);

#endif
