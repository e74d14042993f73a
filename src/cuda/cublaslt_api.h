/*
 * What prnn uses of cuBLASLt (cublasLt.h, with cublas_api.h's and
 * library_types.h's types), declared without the toolkit's headers: see
 * api_decl.h for the lists' format and how tests/decl checks them, layouts
 * included, against the toolkit's header.
 */
#ifndef PRNN_CUBLASLT_API_H
#define PRNN_CUBLASLT_API_H

#include "cuda/api_decl.h"
#include "cuda/cuda_api.h" /* cudaStream_t */

/* clang-format off */
#define PRNN_LT_STATUS_VALUES(X)                                              \
    X(CUBLAS_STATUS_SUCCESS, 0)                                               \
    X(CUBLAS_STATUS_NOT_INITIALIZED, 1)                                       \
    X(CUBLAS_STATUS_ALLOC_FAILED, 3)                                          \
    X(CUBLAS_STATUS_NOT_SUPPORTED, 15)

#define PRNN_LT_OPERATION_VALUES(X)                                           \
    X(CUBLAS_OP_N, 0)                                                         \
    X(CUBLAS_OP_T, 1)

#define PRNN_LT_COMPUTE_TYPE_VALUES(X)                                        \
    X(CUBLAS_COMPUTE_32F, 68)                                                 \
    X(CUBLAS_COMPUTE_64F, 70)                                                 \
    X(CUBLAS_COMPUTE_32F_FAST_TF32, 77)

#define PRNN_LT_DATA_TYPE_VALUES(X)                                           \
    X(CUDA_R_32F, 0)                                                          \
    X(CUDA_R_64F, 1)                                                          \
    X(CUDA_R_16F, 2)                                                          \
    X(CUDA_R_16BF, 14)

#define PRNN_LT_MATMUL_DESC_ATTRIBUTE_VALUES(X)                               \
    X(CUBLASLT_MATMUL_DESC_TRANSA, 3)                                         \
    X(CUBLASLT_MATMUL_DESC_TRANSB, 4)

#define PRNN_LT_PREFERENCE_ATTRIBUTE_VALUES(X)                                \
    X(CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, 1)                            \
    X(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, 5)                          \
    X(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, 6)                          \
    X(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, 7)                          \
    X(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, 8)

#define PRNN_LT_MATRIX_LAYOUT_ATTRIBUTE_VALUES(X)                             \
    X(CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, 5)                                  \
    X(CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, 6)

#define PRNN_LT_ENUMS(X)                                                      \
    X(cublasStatus_t, PRNN_LT_STATUS_VALUES)                                  \
    X(cublasOperation_t, PRNN_LT_OPERATION_VALUES)                            \
    X(cublasComputeType_t, PRNN_LT_COMPUTE_TYPE_VALUES)                       \
    X(cudaDataType_t, PRNN_LT_DATA_TYPE_VALUES)                               \
    X(cublasLtMatmulDescAttributes_t, PRNN_LT_MATMUL_DESC_ATTRIBUTE_VALUES)   \
    X(cublasLtMatmulPreferenceAttributes_t,                                   \
      PRNN_LT_PREFERENCE_ATTRIBUTE_VALUES)                                    \
    X(cublasLtMatrixLayoutAttribute_t, PRNN_LT_MATRIX_LAYOUT_ATTRIBUTE_VALUES)

/* The semi-opaque descriptors the handles point to (prnn never looks
 * inside), the algorithm prnn keeps per GEMM, and the heuristic's answer,
 * whose algo and state prnn reads. */
#define PRNN_LT_LAYOUT_FIELDS(X, S) X(S, uint64_t, data, [8])
#define PRNN_LT_DESC_FIELDS(X, S) X(S, uint64_t, data, [32])
#define PRNN_LT_PREFERENCE_FIELDS(X, S) X(S, uint64_t, data, [8])
#define PRNN_LT_ALGO_FIELDS(X, S) X(S, uint64_t, data, [8])
#define PRNN_LT_HEURISTIC_RESULT_FIELDS(X, S)                                 \
    X(S, cublasLtMatmulAlgo_t, algo, )                                        \
    X(S, size_t, workspaceSize, )                                             \
    X(S, cublasStatus_t, state, )                                             \
    X(S, float, wavesCount, )                                                 \
    X(S, int, reserved, [4])

#define PRNN_LT_STRUCTS(X)                                                    \
    X(cublasLtMatrixLayoutOpaque_t, PRNN_LT_LAYOUT_FIELDS)                    \
    X(cublasLtMatmulDescOpaque_t, PRNN_LT_DESC_FIELDS)                        \
    X(cublasLtMatmulPreferenceOpaque_t, PRNN_LT_PREFERENCE_FIELDS)            \
    X(cublasLtMatmulAlgo_t, PRNN_LT_ALGO_FIELDS)                              \
    X(cublasLtMatmulHeuristicResult_t, PRNN_LT_HEURISTIC_RESULT_FIELDS)

#define PRNN_LT_HANDLES(X)                                                    \
    X(cublasLtHandle_t, struct cublasLtContext)                               \
    X(cublasLtMatrixLayout_t, cublasLtMatrixLayoutOpaque_t)                   \
    X(cublasLtMatmulDesc_t, cublasLtMatmulDescOpaque_t)                       \
    X(cublasLtMatmulPreference_t, cublasLtMatmulPreferenceOpaque_t)

#define PRNN_LT_FUNCTIONS(X)                                                  \
    X(cublasLtCreate, cublasLtCreate, 1, cublasStatus_t,                      \
      (cublasLtHandle_t *handle))                                             \
    X(cublasLtDestroy, cublasLtDestroy, 1, cublasStatus_t,                    \
      (cublasLtHandle_t handle))                                              \
    X(cublasLtGetVersion, cublasLtGetVersion, 1, size_t, (void))              \
    X(cublasLtGetStatusName, cublasLtGetStatusName, 1, const char *,          \
      (cublasStatus_t status))                                                \
    X(cublasLtMatmul, cublasLtMatmul, 1, cublasStatus_t,                      \
      (cublasLtHandle_t handle, cublasLtMatmulDesc_t desc, const void *alpha, \
       const void *a, cublasLtMatrixLayout_t a_desc, const void *b,           \
       cublasLtMatrixLayout_t b_desc, const void *beta, const void *c,        \
       cublasLtMatrixLayout_t c_desc, void *d, cublasLtMatrixLayout_t d_desc, \
       const cublasLtMatmulAlgo_t *algo, void *workspace,                     \
       size_t workspace_bytes, cudaStream_t stream))                          \
    X(cublasLtMatmulDescCreate, cublasLtMatmulDescCreate, 1, cublasStatus_t,  \
      (cublasLtMatmulDesc_t *desc, cublasComputeType_t compute,               \
       cudaDataType_t scale_type))                                            \
    X(cublasLtMatmulDescDestroy, cublasLtMatmulDescDestroy, 1,                \
      cublasStatus_t, (cublasLtMatmulDesc_t desc))                            \
    X(cublasLtMatmulDescSetAttribute, cublasLtMatmulDescSetAttribute, 1,      \
      cublasStatus_t,                                                         \
      (cublasLtMatmulDesc_t desc, cublasLtMatmulDescAttributes_t attr,        \
       const void *buf, size_t size))                                         \
    X(cublasLtMatrixLayoutCreate, cublasLtMatrixLayoutCreate, 1,              \
      cublasStatus_t,                                                         \
      (cublasLtMatrixLayout_t *layout, cudaDataType_t type, uint64_t rows,    \
       uint64_t cols, int64_t ld))                                            \
    X(cublasLtMatrixLayoutSetAttribute, cublasLtMatrixLayoutSetAttribute, 1,  \
      cublasStatus_t,                                                         \
      (cublasLtMatrixLayout_t layout, cublasLtMatrixLayoutAttribute_t attr,   \
       const void *buf, size_t size))                                         \
    X(cublasLtMatrixLayoutDestroy, cublasLtMatrixLayoutDestroy, 1,            \
      cublasStatus_t, (cublasLtMatrixLayout_t layout))                        \
    X(cublasLtMatmulPreferenceCreate, cublasLtMatmulPreferenceCreate, 1,      \
      cublasStatus_t, (cublasLtMatmulPreference_t *pref))                     \
    X(cublasLtMatmulPreferenceDestroy, cublasLtMatmulPreferenceDestroy, 1,    \
      cublasStatus_t, (cublasLtMatmulPreference_t pref))                      \
    X(cublasLtMatmulPreferenceSetAttribute,                                   \
      cublasLtMatmulPreferenceSetAttribute, 1, cublasStatus_t,                \
      (cublasLtMatmulPreference_t pref,                                       \
       cublasLtMatmulPreferenceAttributes_t attr, const void *buf,            \
       size_t size))                                                          \
    X(cublasLtMatmulAlgoGetHeuristic, cublasLtMatmulAlgoGetHeuristic, 1,      \
      cublasStatus_t,                                                         \
      (cublasLtHandle_t handle, cublasLtMatmulDesc_t desc,                    \
       cublasLtMatrixLayout_t a_desc, cublasLtMatrixLayout_t b_desc,          \
       cublasLtMatrixLayout_t c_desc, cublasLtMatrixLayout_t d_desc,          \
       cublasLtMatmulPreference_t pref, int requested,                        \
       cublasLtMatmulHeuristicResult_t results[], int *returned))

#define PRNN_LT_API(K)                                                        \
    K(PRNN_API_NONE, PRNN_LT_ENUMS, PRNN_API_NONE, PRNN_LT_STRUCTS,           \
      PRNN_LT_HANDLES, PRNN_LT_FUNCTIONS)

PRNN_LT_API(PRNN_API_DECLARE)

/* clang-format on */
#endif
