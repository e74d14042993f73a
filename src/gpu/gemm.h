/*
 * The non-recurrent GEMMs through cuBLASLt: C = A^T * B in cuBLAS's
 * column-major terms, which is "out = in * W^T" for row-major in [n][k],
 * W [m][k] and out [n][m] -- the input projection of every step at once
 * (m = gates * hidden, n = rows, k = input size), and the per-step recurrent
 * product of the standard path (k = hidden, n = batch of the step).
 *
 * Descriptors and the algorithm are built once per shape and kept in a small
 * cache, so that a compute call only launches.
 */
#ifndef PRNN_GEMM_H
#define PRNN_GEMM_H

#include <stddef.h>

#include <cuda.h>

#include "cuda/cublaslt_lib.h"
#include "prnn.h"

typedef struct {
    int m, n, k;
    prnnDataType_t in_type; /* A and B storage */
    int tf32;               /* float data: TF32 tensor cores allowed */
} prnn_gemm_key;

typedef struct {
    prnn_gemm_key key;
    int valid;
    unsigned long long last_use;
    cublasLtMatmulDesc_t op;
    cublasLtMatrixLayout_t a, b, c;
    cublasLtMatmulAlgo_t algo;
} prnn_gemm;

#define PRNN_GEMM_CACHE 8

typedef struct {
    const prnn_cublaslt *lt;
    cublasLtHandle_t handle;
    size_t workspace_bytes; /* what every prnn_gemm_run gets */
    prnn_gemm entries[PRNN_GEMM_CACHE];
    unsigned long long clock;
} prnn_gemm_cache;

/* Bytes of cuBLASLt workspace a call needs (part of prnn's workspace). */
#define PRNN_GEMM_WORKSPACE (4u << 20)

prnnStatus_t prnn_gemm_cache_init(prnn_gemm_cache *c);
void prnn_gemm_cache_destroy(prnn_gemm_cache *c);

/*
 * out[n][m] (float, or double for double data) = in[n][k] * W[m][k]^T, all
 * row-major and packed. ws: PRNN_GEMM_WORKSPACE bytes of device memory.
 */
prnnStatus_t prnn_gemm_run(prnn_gemm_cache *c, const prnn_gemm_key *key,
                           const void *w, const void *in, void *out, void *ws,
                           CUstream stream);

#endif
