/*
 * The GEMMs through cuBLASLt (input projection, backward, the standard
 * engine's per-step products), in row-major terms:
 *   C[m][n] = op(A)[m][k] * op(B)[k][n] (+ C when accumulating)
 * with A stored [m][k] (or [k][m] when trans_a), B stored [k][n] (or [n][k]
 * when trans_b), and leading dimensions in elements. The calls:
 *  - input projection of every step at once: xproj = x W^T;
 *  - the standard path's per-step products: h R^T (forward), dg R (backward);
 *  - backward data: dx = dg W (over all rows of a layer);
 *  - backward weights: dW += dg^T x, dR += dg^T h_{t-1}.
 * A and B are in the RNN's storage type; C is in the math type (float, or
 * double for double data) or, for dx and dw, the storage type; math in fp32
 * (fp64), with TF32 tensor cores for float data only when asked.
 *
 * Descriptors and the algorithm are built once per key and kept in a small
 * cache, so that a compute call only launches (cuBLASLt runs the same
 * algorithm for the same key: the same bits every time).
 */
#ifndef PRNN_GEMM_H
#define PRNN_GEMM_H

#include <stddef.h>

#include "cuda/cublaslt_lib.h"
#include "prnn.h"

typedef struct {
    int m, n, k;
    int trans_a, trans_b;
    int lda, ldb, ldc;      /* elements */
    prnnDataType_t in_type; /* A and B storage */
    int c_storage;          /* 1: C in the storage type; 0: the math type */
    int accumulate;         /* 1: C += ...; 0: C = ... */
    /* batch > 1: `batch` products, the i-th's operands stride_a, stride_b
     * and stride_c elements after the first's (0: the same matrix) */
    int batch;
    long long stride_a, stride_b, stride_c;
    int tf32; /* float data: TF32 tensor cores allowed */
    /* Alignment in bytes (a power of two, at most 256) of the A, B and C
     * pointers of the call: filled in by prnn_gemm_run. An algorithm chosen
     * for 256-byte-aligned operands may refuse a pointer into the middle of
     * a row (GRU's n block of dg for odd hidden sizes), so the choice is
     * made for the alignment the call has. */
    int align_a, align_b, align_c;
} prnn_gemm_key;

typedef struct {
    prnn_gemm_key key;
    int valid;
    unsigned long long last_use;
    cublasLtMatmulDesc_t op;
    cublasLtMatrixLayout_t a, b, c;
    cublasLtMatmulAlgo_t algo;
} prnn_gemm;

/* A training step of a deep network uses a dozen shapes: keep them all. */
#define PRNN_GEMM_CACHE 32

typedef struct {
    const prnn_cublaslt *lt;
    cublasLtHandle_t handle;
    size_t workspace_bytes; /* what every prnn_gemm_run gets */
    prnn_gemm entries[PRNN_GEMM_CACHE];
    unsigned long long clock;
} prnn_gemm_cache;

/* Bytes of cuBLASLt workspace a call needs (part of prnn's workspace).
 * 32 MiB, as PyTorch gives cuBLAS on Hopper: below that cuBLASLt's
 * heuristic leaves out the split-K kernels that reduce through the
 * workspace, which the small-batch GEMMs of the standard engine and of
 * BackwardWeights need (bench/NOTES.md v0.28). */
#define PRNN_GEMM_WORKSPACE (32u << 20)

/* Products A B of at most PRNN_GEMM_SMALL_PRODUCT multiply-adds (all of a
 * strided batch's) offer the heuristic PRNN_GEMM_SMALL_WORKSPACE bytes of
 * it, as every product did before the workspace grew: with more, its first
 * choice for some of them is a split-K kernel up to 6x slower than its
 * first choice with 4 MiB (a T 16 call's input projection at H 256 B 1,
 * 16 x 256 x 256: 32.5 against 7.0 us, the call 2.5x slower), while larger
 * products gain from it (16 x 4096 x 1024: 18.7 against 21.2).
 * BackwardWeights' products A^T B keep the whole workspace at every size:
 * GRU's ran up to 1.46x slower with 4 MiB. Neither budget's first choice
 * is the fastest at every shape (bench/NOTES.md v0.29). */
#define PRNN_GEMM_SMALL_PRODUCT 16777216.0
#define PRNN_GEMM_SMALL_WORKSPACE (4u << 20)

/* The workspace bytes key's product offers cuBLASLt's heuristic, of the
 * `available` every call has. */
size_t prnn_gemm_heuristic_workspace(const prnn_gemm_key *key, size_t available);

prnnStatus_t prnn_gemm_cache_init(prnn_gemm_cache *c);
void prnn_gemm_cache_destroy(prnn_gemm_cache *c);

/* Runs key's product on stream. ws: PRNN_GEMM_WORKSPACE bytes of device
 * memory. */
prnnStatus_t prnn_gemm_run(prnn_gemm_cache *c, const prnn_gemm_key *key, const void *a,
                           const void *b, void *out, void *ws, CUstream stream);

#endif
