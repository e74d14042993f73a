/*
 * cuBLASLt, loaded at run time into a table of function pointers, for the
 * GEMMs (input projection, backward-weights, the standard engine's steps).
 *
 * Search order: $PRNN_CUBLASLT_LIBRARY alone if set; else libcublasLt.so.13,
 * libcublasLt.so.12, libcublasLt.so through the dynamic linker, then the same
 * names under PRNN_CUDA_PATH/lib64 and PRNN_CUDA_PATH/lib. Building needs no
 * cuBLASLt header: cublaslt_api.h declares what is used.
 */
#ifndef PRNN_CUBLASLT_LIB_H
#define PRNN_CUBLASLT_LIB_H

#include "cuda/cublaslt_api.h"
#include "prnn.h"

typedef struct prnn_cublaslt {
    PRNN_LT_FUNCTIONS(PRNN_API_TABLE_FIELD)
    size_t version;           /* cublasLtGetVersion, e.g. 130000 */
    const char *library_path; /* the file that was loaded */
} prnn_cublaslt;

/*
 * The process-wide cuBLASLt table, loaded on first use (thread-safe).
 * RUNTIME_PREREQUISITE_MISSING, with every path tried and dlerror() in the
 * log, when no candidate loads or one lacks a function; every later call
 * returns the same result. Loading needs no GPU.
 */
prnnStatus_t prnn_cublaslt_get(const prnn_cublaslt **out);

/* "CUBLAS_STATUS_..." for messages; never NULL (also for a NULL table). */
const char *prnn_cublaslt_status_name(const prnn_cublaslt *lt, cublasStatus_t status);

#endif
