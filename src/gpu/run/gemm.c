#include "gpu/run/gemm.h"

#include <stdint.h>
#include <string.h>

#include "dtype.h"
#include "error.h"

static prnnStatus_t lt_check(const prnn_cublaslt *lt, cublasStatus_t s, const char *what)
{
    if (s == CUBLAS_STATUS_SUCCESS)
        return PRNN_STATUS_SUCCESS;
    return prnn_fail(s == CUBLAS_STATUS_ALLOC_FAILED    ? PRNN_STATUS_ALLOC_FAILED
                     : s == CUBLAS_STATUS_NOT_SUPPORTED ? PRNN_STATUS_NOT_SUPPORTED
                                                        : PRNN_STATUS_EXECUTION_FAILED,
                     "%s: %s", what, prnn_cublaslt_status_name(lt, s));
}

prnnStatus_t prnn_gemm_cache_init(prnn_gemm_cache *c)
{
    memset(c, 0, sizeof(*c));
    prnnStatus_t s = prnn_cublaslt_get(&c->lt);
    if (s)
        return s;
    c->workspace_bytes = PRNN_GEMM_WORKSPACE;
    return lt_check(c->lt, c->lt->cublasLtCreate(&c->handle), "cublasLtCreate");
}

static void release(const prnn_cublaslt *lt, prnn_gemm *g)
{
    if (!g->valid)
        return;
    lt->cublasLtMatrixLayoutDestroy(g->a);
    lt->cublasLtMatrixLayoutDestroy(g->b);
    lt->cublasLtMatrixLayoutDestroy(g->c);
    lt->cublasLtMatmulDescDestroy(g->op);
    g->valid = 0;
}

void prnn_gemm_cache_destroy(prnn_gemm_cache *c)
{
    if (!c->lt)
        return;
    for (int i = 0; i < PRNN_GEMM_CACHE; i++)
        release(c->lt, &c->entries[i]);
    if (c->handle)
        c->lt->cublasLtDestroy(c->handle);
    c->handle = NULL;
}

static cudaDataType_t cuda_type(prnnDataType_t t)
{
    switch (t) {
    case PRNN_DATA_DOUBLE: return CUDA_R_64F;
    case PRNN_DATA_HALF: return CUDA_R_16F;
    case PRNN_DATA_BFLOAT16: return CUDA_R_16BF;
    default: return CUDA_R_32F;
    }
}

static prnnStatus_t build(prnn_gemm_cache *c, prnn_gemm *g, const prnn_gemm_key *key)
{
    const prnn_cublaslt *lt = c->lt;
    int dbl = key->in_type == PRNN_DATA_DOUBLE;
    cudaDataType_t ab = cuda_type(key->in_type);
    cudaDataType_t cd = key->c_storage ? ab : dbl ? CUDA_R_64F : CUDA_R_32F;
    cublasComputeType_t compute = dbl ? CUBLAS_COMPUTE_64F
                                  : (key->tf32 && key->in_type == PRNN_DATA_FLOAT)
                                      ? CUBLAS_COMPUTE_32F_FAST_TF32
                                      : CUBLAS_COMPUTE_32F;
    cudaDataType_t scale = dbl ? CUDA_R_64F : CUDA_R_32F;
    /* Column-major, cuBLASLt sees C^T = op(B)^T op(A)^T: its first operand
     * is our B, its second our A, its C our C^T (n x m). A row-major [r][c]
     * matrix is a column-major c x r one with the same leading dimension. */
    cublasOperation_t op_first = key->trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
    cublasOperation_t op_second = key->trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
    memset(g, 0, sizeof(*g));
    prnnStatus_t s = lt_check(lt, lt->cublasLtMatmulDescCreate(&g->op, compute, scale),
                              "cublasLtMatmulDescCreate");
    if (s)
        return s;
    lt->cublasLtMatmulDescSetAttribute(g->op, CUBLASLT_MATMUL_DESC_TRANSA, &op_first,
                                       sizeof(op_first));
    lt->cublasLtMatmulDescSetAttribute(g->op, CUBLASLT_MATMUL_DESC_TRANSB, &op_second,
                                       sizeof(op_second));
    cublasStatus_t e1 = key->trans_b
                            ? lt->cublasLtMatrixLayoutCreate(&g->a, ab, key->k, key->n, key->ldb)
                            : lt->cublasLtMatrixLayoutCreate(&g->a, ab, key->n, key->k, key->ldb);
    cublasStatus_t e2 = key->trans_a
                            ? lt->cublasLtMatrixLayoutCreate(&g->b, ab, key->m, key->k, key->lda)
                            : lt->cublasLtMatrixLayoutCreate(&g->b, ab, key->k, key->m, key->lda);
    cublasStatus_t e3 = lt->cublasLtMatrixLayoutCreate(&g->c, cd, key->n, key->m, key->ldc);
    if (e1 || e2 || e3) {
        g->valid = 1; /* let release() free what was made */
        if (e1)
            g->a = NULL;
        if (e2)
            g->b = NULL;
        if (e3)
            g->c = NULL;
        release(lt, g);
        return lt_check(lt, e1 ? e1 : e2 ? e2 : e3, "cublasLtMatrixLayoutCreate");
    }
    g->valid = 1;
    if (key->batch > 1) {
        /* cuBLASLt's a is our B, its b our A, its c our C (see above) */
        const cublasLtMatrixLayout_t layouts[3] = {g->a, g->b, g->c};
        const int64_t strides[3] = {key->stride_b, key->stride_a, key->stride_c};
        const int32_t count = key->batch;
        for (int i = 0; i < 3; i++) {
            cublasStatus_t e = lt->cublasLtMatrixLayoutSetAttribute(
                layouts[i], CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof(count));
            if (!e)
                e = lt->cublasLtMatrixLayoutSetAttribute(
                    layouts[i], CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &strides[i],
                    sizeof(strides[i]));
            if (e) {
                release(lt, g);
                return lt_check(lt, e, "cublasLtMatrixLayoutSetAttribute");
            }
        }
    }
    cublasLtMatmulPreference_t pref;
    s = lt_check(lt, lt->cublasLtMatmulPreferenceCreate(&pref), "cublasLtMatmulPreferenceCreate");
    if (s) {
        release(lt, g);
        return s;
    }
    size_t ws = prnn_gemm_heuristic_workspace(key, c->workspace_bytes);
    lt->cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws,
                                             sizeof(ws));
    /* cuBLASLt's first operand is our B, its second our A (see above). */
    uint32_t align[4] = {(uint32_t)key->align_b, (uint32_t)key->align_a, (uint32_t)key->align_c,
                         (uint32_t)key->align_c};
    const cublasLtMatmulPreferenceAttributes_t align_attr[4] = {
        CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
        CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES};
    for (int i = 0; i < 4; i++)
        lt->cublasLtMatmulPreferenceSetAttribute(pref, align_attr[i], &align[i], sizeof(align[i]));
    cublasLtMatmulHeuristicResult_t result;
    int found = 0;
    cublasStatus_t hs = lt->cublasLtMatmulAlgoGetHeuristic(c->handle, g->op, g->a, g->b, g->c, g->c,
                                                           pref, 1, &result, &found);
    lt->cublasLtMatmulPreferenceDestroy(pref);
    if (hs != CUBLAS_STATUS_SUCCESS || found < 1) {
        release(lt, g);
        if (hs == CUBLAS_STATUS_SUCCESS)
            return prnn_fail(PRNN_STATUS_NOT_SUPPORTED,
                             "cuBLASLt has no algorithm for a %d x %d x %d GEMM", key->m, key->n,
                             key->k);
        return lt_check(lt, hs, "cublasLtMatmulAlgoGetHeuristic");
    }
    g->algo = result.algo;
    g->key = *key;
    return PRNN_STATUS_SUCCESS;
}

size_t prnn_gemm_heuristic_workspace(const prnn_gemm_key *key, size_t available)
{
    const double products = (double)key->m * key->n * key->k * (key->batch > 1 ? key->batch : 1);
    if (!key->trans_a && products <= PRNN_GEMM_SMALL_PRODUCT &&
        available > PRNN_GEMM_SMALL_WORKSPACE)
        return PRNN_GEMM_SMALL_WORKSPACE;
    return available;
}

/* The largest power of two (up to 256) that divides the address. */
static int pointer_alignment(const void *p)
{
    uintptr_t a = (uintptr_t)p;
    int align = 256;
    while (align > 1 && a % (uintptr_t)align)
        align >>= 1;
    return align;
}

/* The alignment of every matrix of a strided batch: its first's, and no
 * more than the stride's bytes have (0: one matrix, or the same one). */
static int batch_alignment(const void *first, long long stride, size_t element_bytes)
{
    const int align = pointer_alignment(first);
    const int step = pointer_alignment((const void *)(uintptr_t)((size_t)stride * element_bytes));
    return stride && step < align ? step : align;
}

prnnStatus_t prnn_gemm_run(prnn_gemm_cache *c, const prnn_gemm_key *call_key, const void *a,
                           const void *b, void *out, void *ws, CUstream stream)
{
    prnn_gemm_key aligned = *call_key;
    const size_t ab_bytes = prnn_dtype_size(call_key->in_type);
    const size_t c_bytes = call_key->c_storage ? ab_bytes : prnn_dtype_math_size(call_key->in_type);
    const int batched = call_key->batch > 1;
    aligned.align_a = batch_alignment(a, batched ? call_key->stride_a : 0, ab_bytes);
    aligned.align_b = batch_alignment(b, batched ? call_key->stride_b : 0, ab_bytes);
    aligned.align_c = batch_alignment(out, batched ? call_key->stride_c : 0, c_bytes);
    const prnn_gemm_key *key = &aligned;
    prnn_gemm *g = NULL, *victim = &c->entries[0];
    for (int i = 0; i < PRNN_GEMM_CACHE; i++) {
        prnn_gemm *e = &c->entries[i];
        if (e->valid && memcmp(&e->key, key, sizeof(*key)) == 0) {
            g = e;
            break;
        }
        if (!e->valid || e->last_use < victim->last_use)
            victim = e;
    }
    if (!g) {
        release(c->lt, victim);
        prnnStatus_t s = build(c, victim, key);
        if (s)
            return s;
        g = victim;
    }
    g->last_use = ++c->clock;
    const float one_f = 1.0f, zero_f = 0.0f;
    const double one_d = 1.0, zero_d = 0.0;
    int dbl = key->in_type == PRNN_DATA_DOUBLE;
    const void *alpha = dbl ? (const void *)&one_d : (const void *)&one_f;
    const void *beta = key->accumulate ? alpha
                       : dbl           ? (const void *)&zero_d
                                       : (const void *)&zero_f;
    return lt_check(c->lt,
                    c->lt->cublasLtMatmul(c->handle, g->op, alpha, b, g->a, a, g->b, beta, out,
                                          g->c, out, g->c, &g->algo, ws, c->workspace_bytes,
                                          (cudaStream_t)stream),
                    "cublasLtMatmul");
}
