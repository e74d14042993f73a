/*
 * The NVRTC requests of prnn's kernels: which kernel_src file, with which
 * -D defines, for which architecture. The defines are the planner's whole
 * say over a kernel (its shape, tile and variant); the file's constants and
 * static_asserts take it from there.
 */
#ifndef PRNN_KERNEL_REQUEST_H
#define PRNN_KERNEL_REQUEST_H

#include "gpu/kernel_geometry.h"
#include "jit/nvrtc_compile.h"

/* Room for the largest request (the persistent kernels' 27) with margin;
 * adding past it is an error, never a silent truncation. */
#define PRNN_REQUEST_MAX_DEFINES 32
#define PRNN_REQUEST_DEFINE_CHARS 48

/* An NVRTC request with its -D defines (storage included). */
typedef struct {
    char text[PRNN_REQUEST_MAX_DEFINES][PRNN_REQUEST_DEFINE_CHARS];
    const char *ptr[PRNN_REQUEST_MAX_DEFINES];
    int n;
    int overflow; /* a define did not fit: the request must not be used */
    prnn_compile_request req;
} prnn_kernel_request;

/* The persistent kernel of geometry g's pass (g->shape.pass): forward
 * (skip: the SKIP_INPUT layer-0 variant; train: also keeps what backward
 * needs) or backward-data (skip and train must be 0). */
prnnStatus_t prnn_request_persistent(const prnn_kernel_geometry *g, int skip, int train, int sm,
                                     prnn_kernel_request *r);

/* The standard path's per-step kernels (forward and backward). */
prnnStatus_t prnn_request_step(prnnRNNMode_t mode, prnnDataType_t dtype, int hidden, int skip,
                               int sm, prnn_kernel_request *r);

/* The per-call setup kernel (step tables, hand-off zeroing). */
prnnStatus_t prnn_request_setup(int sm, prnn_kernel_request *r);

/* The training path's elementwise and reduction kernels. */
prnnStatus_t prnn_request_train(prnnDataType_t dtype, int sm, prnn_kernel_request *r);

/* SRU's scan kernels (sru_scan.cu: forward, backward, V-block reduction,
 * input gradient) for one data type, hidden size, block size, units per
 * thread and steps in flight. */
prnnStatus_t prnn_request_sru(prnnDataType_t dtype, int hidden, int threads, int upt,
                              int depth, int sm, prnn_kernel_request *r);

/* The kernels' own mode code (PRNN_KMODE_*; -1 for SRU, which has its own
 * kernels). */
int prnn_kernel_mode_code(prnnRNNMode_t mode);

#endif
