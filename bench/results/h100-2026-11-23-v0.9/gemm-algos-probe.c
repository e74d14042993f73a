/* Experiment: for SRU's GEMM shapes, time every algorithm cuBLASLt's
 * heuristic offers (top N) against its first choice, and time pairs of
 * GEMMs serially vs on two streams. Row-major descriptors built as in
 * src/gpu/gemm.c. fp32 strict. */
#include <cublasLt.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_) { printf("cuda %s line %d\n", cudaGetErrorString(e_), __LINE__); exit(1);} } while (0)
#define LK(x) do { cublasStatus_t e_ = (x); if (e_) { printf("lt %d line %d\n", (int)e_, __LINE__); exit(1);} } while (0)

typedef struct { const char *name; int m, n, k, ta, tb, lda, ldb, ldc, acc; } shape;

static cublasLtHandle_t h;
static void *ws; static size_t wsb = 4u << 20;

typedef struct { cublasLtMatmulDesc_t op; cublasLtMatrixLayout_t a, b, c; cublasLtMatmulHeuristicResult_t r[64]; int found; } prob;

static void build(const shape *s, prob *p, int dtype_half)
{
    cudaDataType_t ab = dtype_half ? CUDA_R_16F : CUDA_R_32F;
    LK(cublasLtMatmulDescCreate(&p->op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    cublasOperation_t o1 = s->tb ? CUBLAS_OP_T : CUBLAS_OP_N, o2 = s->ta ? CUBLAS_OP_T : CUBLAS_OP_N;
    cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_TRANSA, &o1, sizeof(o1));
    cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_TRANSB, &o2, sizeof(o2));
    if (s->tb) LK(cublasLtMatrixLayoutCreate(&p->a, ab, s->k, s->n, s->ldb));
    else LK(cublasLtMatrixLayoutCreate(&p->a, ab, s->n, s->k, s->ldb));
    if (s->ta) LK(cublasLtMatrixLayoutCreate(&p->b, ab, s->m, s->k, s->lda));
    else LK(cublasLtMatrixLayoutCreate(&p->b, ab, s->k, s->m, s->lda));
    LK(cublasLtMatrixLayoutCreate(&p->c, CUDA_R_32F, s->n, s->m, s->ldc));
    cublasLtMatmulPreference_t pref;
    LK(cublasLtMatmulPreferenceCreate(&pref));
    cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &wsb, sizeof(wsb));
    LK(cublasLtMatmulAlgoGetHeuristic(h, p->op, p->a, p->b, p->c, p->c, pref, 64, p->r, &p->found));
}

static float one = 1, zero = 0;
static void run(const shape *s, prob *p, int i, void *A, void *B, void *C, void *w, cudaStream_t st)
{
    LK(cublasLtMatmul(h, p->op, &one, B, p->a, A, p->b, s->acc ? &one : &zero, C, p->c, C, p->c,
                      &p->r[i].algo, w, wsb, st));
}

static float time_it(const shape *s, prob *p, int i, void *A, void *B, void *C)
{
    cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
    for (int w = 0; w < 3; w++) run(s, p, i, A, B, C, ws, 0);
    float best = 1e30f;
    for (int rep = 0; rep < 5; rep++) {
        cudaEventRecord(e0, 0);
        for (int j = 0; j < 20; j++) run(s, p, i, A, B, C, ws, 0);
        cudaEventRecord(e1, 0); CK(cudaEventSynchronize(e1));
        float ms; cudaEventElapsedTime(&ms, e0, e1);
        if (ms < best) best = ms;
    }
    return best * 1000 / 20;
}

static void algo_desc(const cublasLtMatmulAlgo_t *a, char *buf)
{
    int id = 0, tile = 0, splitk = 0, red = 0, swz = 0, stages = 0, cta = 0;
    size_t sz;
    cublasLtMatmulAlgoConfigGetAttribute(a, CUBLASLT_ALGO_CONFIG_ID, &id, sizeof(id), &sz);
    cublasLtMatmulAlgoConfigGetAttribute(a, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile, sizeof(tile), &sz);
    cublasLtMatmulAlgoConfigGetAttribute(a, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &splitk, sizeof(splitk), &sz);
    cublasLtMatmulAlgoConfigGetAttribute(a, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, &red, sizeof(red), &sz);
    cublasLtMatmulAlgoConfigGetAttribute(a, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, &swz, sizeof(swz), &sz);
    cublasLtMatmulAlgoConfigGetAttribute(a, CUBLASLT_ALGO_CONFIG_STAGES_ID, &stages, sizeof(stages), &sz);
    cublasLtMatmulAlgoConfigGetAttribute(a, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, &cta, sizeof(cta), &sz);
    sprintf(buf, "id%d tile%d splitk%d red%d swz%d st%d cl%d", id, tile, splitk, red, swz, stages, cta);
}

int main(int argc, char **argv)
{
    int H = argc > 1 ? atoi(argv[1]) : 256, B = argc > 2 ? atoi(argv[2]) : 32, T = 128;
    int half = argc > 3 && !strcmp(argv[3], "half");
    int R = B * T, es = half ? 2 : 4;
    LK(cublasLtCreate(&h));
    CK(cudaMalloc(&ws, wsb));
    shape sh[] = {
        {"fwd L0  U=xW^T", R, 6 * H, H, 0, 1, H, H, 8 * H, 0},
        {"fwd L1  U=xW^T", R, 8 * H, 2 * H, 0, 1, 2 * H, 2 * H, 8 * H, 0},
        {"bwd L1  dx=dUW", R, 2 * H, 8 * H, 0, 0, 8 * H, 2 * H, 2 * H, 0},
        {"bwd L0  dx=dUW", R, H, 6 * H, 0, 0, 6 * H, H, H, 1},
        {"wgt L1  dW=dU^Tx", 8 * H, 2 * H, R, 1, 0, 8 * H, 2 * H, 2 * H, 1},
        {"wgt L0  dW=dU^Tx", 6 * H, H, R, 1, 0, 6 * H, H, H, 1},
    };
    int n = sizeof(sh) / sizeof(sh[0]);
    size_t big = (size_t)R * 8 * H * 4 + (size_t)64 * H * H * 4;
    void *A, *Bm, *C, *C2, *ws2;
    CK(cudaMalloc(&A, big)); CK(cudaMalloc(&Bm, big)); CK(cudaMalloc(&C, big)); CK(cudaMalloc(&C2, big));
    CK(cudaMalloc(&ws2, wsb));
    CK(cudaMemset(A, 0, big)); CK(cudaMemset(Bm, 0, big)); CK(cudaMemset(C, 0, big));
    prob P[8];
    int besti[8];
    printf("H=%d B=%d T=%d %s\n", H, B, T, half ? "half" : "float");
    for (int s = 0; s < n; s++) {
        build(&sh[s], &P[s], half);
        double fl = 2.0 * sh[s].m * sh[s].n * sh[s].k;
        float t0 = 0, best = 1e30f; besti[s] = 0;
        char d[128];
        for (int i = 0; i < P[s].found; i++) {
            float t = time_it(&sh[s], &P[s], i, A, Bm, C);
            if (i == 0) t0 = t;
            if (t < best) { best = t; besti[s] = i; }
            algo_desc(&P[s].r[i].algo, d);
            if (i < 3 || t < t0 * 0.95f)
                printf("   %-18s #%2d %8.1f us %6.1f TF/s  %s\n", sh[s].name, i, t, fl / t / 1e6, d);
        }
        algo_desc(&P[s].r[besti[s]].algo, d);
        printf("%-18s m=%d n=%d k=%d  found %d  heur#0 %.1f us (%.1f TF/s)  best #%d %.1f us (%.1f TF/s, %.2fx) %s\n",
               sh[s].name, sh[s].m, sh[s].n, sh[s].k, P[s].found, t0, fl / t0 / 1e6, besti[s], best,
               fl / best / 1e6, t0 / best, d);
    }
    /* the two weight GEMMs: serial vs two streams, heuristic #0 */
    cudaStream_t s1, s2; cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking); cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
    cudaEvent_t e0, e1, f, j; cudaEventCreate(&e0); cudaEventCreate(&e1);
    cudaEventCreateWithFlags(&f, cudaEventDisableTiming); cudaEventCreateWithFlags(&j, cudaEventDisableTiming);
    for (int mode = 0; mode < 4; mode++) {
        float best = 1e30f;
        for (int rep = 0; rep < 6; rep++) {
            cudaEventRecord(e0, s1);
            for (int it = 0; it < 20; it++) {
                int i4 = mode >= 2 ? besti[4] : 0, i5 = mode >= 2 ? besti[5] : 0;
                if (mode % 2 == 0) {
                    run(&sh[4], &P[4], i4, A, Bm, C, ws, s1);
                    run(&sh[5], &P[5], i5, A, Bm, C2, ws, s1);
                } else {
                    cudaEventRecord(f, s1); cudaStreamWaitEvent(s2, f, 0);
                    run(&sh[4], &P[4], i4, A, Bm, C, ws, s1);
                    run(&sh[5], &P[5], i5, A, Bm, C2, ws2, s2);
                    cudaEventRecord(j, s2); cudaStreamWaitEvent(s1, j, 0);
                }
            }
            cudaEventRecord(e1, s1); CK(cudaEventSynchronize(e1));
            float ms; cudaEventElapsedTime(&ms, e0, e1);
            if (rep && ms < best) best = ms;
        }
        printf("weights L1+L0 %s, %s: %.1f us\n", mode % 2 ? "two streams" : "serial",
               mode >= 2 ? "best algos" : "heuristic #0", best * 1000 / 20);
    }
    return 0;
}
